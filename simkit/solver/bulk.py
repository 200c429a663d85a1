"""Opening positions of many deals in one kernel call (``simkit.sim.openings.solve_openings``, ``simkit run --dd``).

``solve_rows`` takes the columns of played deals (hands, contract variant, called suit, declarer, Tout) and, per
row, rebuilds the opening position in rank space and solves it: the position's value, or every legal card's value
too. Rows with a negative declarer (passed deals) are skipped. The workspace (table, stack) is shared by all rows:
a key holds the whole remaining hands, so an entry is only ever used for the same position, and deals that meet
late in the game share it (measured: a new table generation per row, evicting earlier rows' entries first, saves
nothing, and the Touts then need more nodes).
"""

from __future__ import annotations

import numpy as np

from simkit.engine.bits import cttz
from simkit.solver.jit import solver_jit
from simkit.solver.search import C_TEAM, SEARCH, ST_NODES
from simkit.solver.values import OBJ_POINTS, card_values, init_position, level_from, position_value, to_rank_space

SKIPPED = -(1 << 30)  # value of a row that was not solved (passed deal)


@solver_jit(needs=(SEARCH,), what="the solver (many deals)")
def solve_rows(hands, variants, called, declarers, touts, run_min, objective, chains_m, chains_v, chain_len,
               guesses, tabs_all, masks_all, id_of_all, card_of_all, with_cards, ws, out_value, out_nodes, out_cards,
               out_legal, s, s2, ctx, raw):
    """Solve the opening position of every row. ``chains_m/v[t]`` and ``chain_len[t]``: the threshold chain for
    plain games (t = 0) and Touts (t = 1) of a level objective; ``guesses[i]`` >= 0, a likely level of row i (the
    position's level is then found by :func:`level_from`). ``out_cards[i, card]`` gets every legal card's value
    when ``with_cards`` (``out_legal[i]`` the legal mask, in card space). ``s``, ``s2`` (int64[NS]), ``ctx``
    (int64[NC]) and ``raw`` (int64[32]) are scratch. Returns the number of rows done (less than n only if the node
    limit was hit)."""
    n = hands.shape[0]
    stats = ws[4]
    for i in range(n):
        d = declarers[i]
        out_nodes[i] = 0
        out_legal[i] = 0
        if d < 0:
            out_value[i] = SKIPPED
            continue
        v = variants[i]
        tabs = tabs_all[v]
        masks = masks_all[v]
        id_of = id_of_all[v]
        cs = called[i]
        ace_id = id_of[8 * cs + 7] if cs >= 0 else -1
        # the hands as int64, as values.open_position passes them (one compile of to_rank_space)
        init_position(to_rank_space(np.int64(hands[i, 0]), id_of), to_rank_space(np.int64(hands[i, 1]), id_of),
                      to_rank_space(np.int64(hands[i, 2]), id_of), to_rank_space(np.int64(hands[i, 3]), id_of), cs,
                      ace_id, d, run_min, v, tabs, masks, s, ctx)
        t = 1 if touts[i] else 0
        before = stats[ST_NODES]
        guess = 60 if objective == OBJ_POINTS else 0
        if with_cards:
            legal = card_values(s, ctx, tabs, masks, objective, chains_m[t], chains_v[t], chain_len[t], guess, ws,
                                raw, s2)
            if legal < 0:
                return i
            best = SKIPPED
            mine = ctx[C_TEAM] & 1  # seat 0 leads the opening: the declaring side's?
            m = legal
            lm = np.int64(0)
            while m != 0:
                c = cttz(m)
                m &= m - 1
                card = card_of_all[v, c]
                out_cards[i, card] = raw[c]
                lm |= np.int64(1) << card
                if best == SKIPPED or (mine and raw[c] > best) or (not mine and raw[c] < best):
                    best = raw[c]
            out_value[i] = best
            out_legal[i] = lm
        else:
            if objective != OBJ_POINTS and guesses[i] >= 0:  # a likely level: walk from it
                val = level_from(s, ctx, tabs, masks, chains_m[t], chains_v[t], chain_len[t], guesses[i], ws)
            else:
                val = position_value(s, ctx, tabs, masks, objective, chains_m[t], chains_v[t], chain_len[t], guess,
                                     ws)
            if val < 0:  # the node limit: ABORTED from an exact value, -1 from a level
                return i
            out_value[i] = val
        out_nodes[i] = stats[ST_NODES] - before
    return n
