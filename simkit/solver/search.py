"""The double-dummy search: fail-soft alpha-beta over card plays with an explicit stack (numba).

All hands are open. The declaring side maximises, the defenders minimise, one of two *measures* of the final
outcome:

* ``MEASURE_POINTS``: the declaring side's final card points (points already taken count), 0..120;
* ``MEASURE_TRICKS``: the declaring side's final number of tricks (for a Tout and for Schwarz).

Everything else the solver answers (win, payout, every card's value) is built from null-window searches on these
two measures (:mod:`simkit.solver.values`).

The rules come from the same tables and the same inline functions as the engine (``legal_cards`` and
``trick_step`` of :mod:`simkit.engine.kernel`), so the called-ace rules cannot drift between the two.

Position state
--------------
``s`` is an int64 array (indices ``S_*``): the four remaining hands, the leader of the current trick, how many
cards it holds (``k``), its led effective suit, the seat/effective suit/strength of its best card, its points and
card mask, the declaring side's points and tricks so far, whether the called suit is searched, and the points
still in the hands. The search changes ``s`` while it runs and leaves it as it found it.

Context
-------
``ctx`` (indices ``C_*``) is what does not change during a game: the rule-table rows of the contract variant, the
called suit, the declaring side's seats (``team`` bits), the holder of the called ace, the run-away minimum and
the table key of all of that. ``tabs`` holds per card: strength, effective suit, points and the next weaker card
of the same effective suit (``lower``, for equivalent cards); ``suit_mask`` the five effective-suit masks.

Transposition table
-------------------
Keyed at trick boundaries on what is left, not on how it was reached: the four remaining hands, the leader, the
searched flag, the measure and the context key. It stores bounds ``[lo, hi]`` on the *remaining* measure (what
the declaring side still takes from here), which do not depend on what was taken before, plus the best lead
found. Only proven bounds are stored, so one table serves every position of a game, every objective and many
deals (a key holds the whole hands, so entries of different deals never mix). Two-way buckets; the entry with
fewer cards left is replaced first.

Speed
-----
* equivalent cards: two legal cards of one hand that no card still in play (other hands, current trick) separates
  in the strength order of their effective suit and that are worth the same points (for the tricks measure: any
  points) play alike: only the weakest is searched (:func:`gen_moves`);
* move ordering: the table's best lead first, then winning cheaply against opponents, loading points onto a
  partner's trick, leading high trumps for the declaring side and aces for the defenders;
* bounds at every node (what is taken already, what is still out) and the last trick evaluated directly.

numba 0.68 crashed loading a self-recursive ``cache=True`` function from the cache (DESIGN.md), hence the
explicit stack: frame ``p`` of ``fr`` keeps the node's window, best value, move list cursor and a snapshot of
``s`` to restore before the next move.
"""

from __future__ import annotations

import numpy as np

from simkit.solver.jit import solver_jit
from simkit.engine.bits import cttz, popcount
from simkit.engine.kernel import legal_cards, trick_step
from simkit.rules.tables import TRUMP

MEASURE_POINTS = 0
MEASURE_TRICKS = 1

INF = 1 << 20  # larger than any measure

# --- position state ``s``
S_LEADER = 4  # 0..3 are the hands
S_K = 5  # cards in the current trick
S_LED = 6
S_BSEAT = 7
S_BEFF = 8
S_BSTR = 9
S_TP = 10  # points in the current trick
S_TRICK = 11  # mask of the current trick's cards
S_DP = 12  # declaring side's points so far
S_DT = 13  # declaring side's tricks so far
S_SEARCHED = 14  # 1 once the called suit has been led (always 1 outside a Rufspiel)
S_REMPTS = 15  # points of the cards still in the hands
NS = 16

# --- context ``ctx``
C_CALLED = 0  # called suit, -1 unless Rufspiel
C_TEAM = 1  # bit s set: seat s is on the declaring side
C_PARTNER = 2  # holder of the called ace (-1 unless Rufspiel)
C_ACE_BIT = 3
C_CALLED_MASK = 4
C_RUN_MIN = 5
C_KEY = 6  # context part of the table key (variant, called, team, run-away minimum)
NC = 7

# --- card tables ``tabs`` (int64[4, 32])
T_STRENGTH = 0
T_EFF = 1
T_POINTS = 2
T_LOWER = 3
T_ABOVE = 4  # mask of the cards of the same effective suit stronger than the card
N_TABS = 5

# cards by points, cheapest first (9/8/7, Unter, Ober, Koenig, Zehn, Ass), for "the j cheapest cards of a hand"
_CLASS_RANKS = ((0, 1, 2), (3,), (4,), (5,), (6,), (7,))
_CLASS_MASKS = np.array([sum(1 << (8 * s + r) for s in range(4) for r in ranks) for ranks in _CLASS_RANKS], np.int64)
_CLASS_POINTS = np.array([0, 2, 3, 4, 10, 11], np.int64)

# --- stack frame fields ``fr[p, F_*]`` (then the NS snapshot values from F_SNAP)
F_ALPHA = 0
F_BETA = 1
F_A0 = 2  # window searched (after the table's bounds narrowed it), for the store
F_B0 = 3
F_G = 4  # best value so far
F_MAX = 5  # 1: the declaring side moves
F_N = 6  # moves
F_I = 7  # next move
F_SLOT = 8  # table slot hash of a trick-boundary node, -1 otherwise
F_BASE = 9  # measure already taken at a trick-boundary node
F_BEST = 10  # best move so far
F_SNAP = 11
NF = F_SNAP + NS
MAX_PLY = 33

# --- statistics ``stats``
ST_NODES = 0
ST_LIMIT = 1  # abort once nodes exceed this (the search then returns ABORTED)
ST_ABORTED = 2
ST_PLY = 3  # nodes at each ply from the root (where the time goes)
N_STATS = ST_PLY + MAX_PLY + 1
ABORTED = -INF

_M1 = np.uint64(0x9E3779B97F4A7C15)
_M2 = np.uint64(0xC2B2AE3D27D4EB4F)
_M3 = np.uint64(0x165667B19E3779F9)


@solver_jit(inline="always")
def table_key(s, ctx, measure):
    k1 = np.uint64(s[0]) | (np.uint64(s[1]) << np.uint64(32))
    k2 = np.uint64(s[2]) | (np.uint64(s[3]) << np.uint64(32))
    meta = s[S_LEADER] | (s[S_SEARCHED] << 2) | (measure << 3) | (ctx[C_KEY] << 4)
    return k1, k2, meta


@solver_jit(inline="always")
def slot_of(k1, k2, meta, mask):
    """Bucket of a key: the words folded together, then murmur3's finalizer so every card moves every bit."""
    h = k1 ^ (k2 * _M1) ^ (np.uint64(meta) * _M3)
    h ^= h >> np.uint64(33)
    h *= _M2
    h ^= h >> np.uint64(29)
    h *= _M1
    h ^= h >> np.uint64(32)
    return np.int64(h & np.uint64(mask)) & ~np.int64(1)  # even slot: the bucket is (slot, slot + 1)


@solver_jit(inline="always")
def tt_find(tt_keys, tt_meta, slot, k1, k2, meta):
    for j in range(2):
        i = slot + j
        if tt_meta[i] == meta and tt_keys[i, 0] == k1 and tt_keys[i, 1] == k2:
            return i
    return -1


@solver_jit(inline="always")
def tt_store(tt_keys, tt_meta, tt_val, slot, k1, k2, meta, lo, hi, move, cards_left):
    i = tt_find(tt_keys, tt_meta, slot, k1, k2, meta)
    if i >= 0:
        if lo > tt_val[i, 0]:
            tt_val[i, 0] = lo
        if hi < tt_val[i, 1]:
            tt_val[i, 1] = hi
        if move >= 0:
            tt_val[i, 2] = move
        return
    # replace the entry with fewer cards left (less work lost); an empty entry has meta -1 and 0 cards
    i = slot if tt_val[slot, 3] <= tt_val[slot + 1, 3] else slot + 1
    tt_keys[i, 0] = k1
    tt_keys[i, 1] = k2
    tt_meta[i] = meta
    tt_val[i, 0] = lo
    tt_val[i, 1] = hi
    tt_val[i, 2] = move
    tt_val[i, 3] = cards_left


@solver_jit(inline="always")
def apply_card(s, c, ctx, tabs):
    """Play card ``c`` for the seat to move; completes the trick when it is the fourth card."""
    k = s[S_K]
    seat = (s[S_LEADER] + k) & 3
    bit = np.int64(1) << np.int64(c)
    s[seat] &= ~bit
    p = tabs[T_POINTS, c]
    s[S_REMPTS] -= p
    led, bseat, beff, bstr = trick_step(k, seat, tabs[T_EFF, c], tabs[T_STRENGTH, c], s[S_LED], s[S_BSEAT],
                                        s[S_BEFF], s[S_BSTR])
    s[S_LED] = led
    s[S_BSEAT] = bseat
    s[S_BEFF] = beff
    s[S_BSTR] = bstr
    if k == 0:
        s[S_TP] = p
        s[S_TRICK] = bit
    else:
        s[S_TP] += p
        s[S_TRICK] |= bit
    if k == 3:
        if (ctx[C_TEAM] >> bseat) & 1:
            s[S_DP] += s[S_TP]
            s[S_DT] += 1
        if led == ctx[C_CALLED]:
            s[S_SEARCHED] = 1
        s[S_LEADER] = bseat
        s[S_K] = 0
        s[S_TP] = 0
        s[S_TRICK] = 0
    else:
        s[S_K] = k + 1


@solver_jit(inline="always")
def legal_now(s, ctx, suit_mask):
    """(seat to move, its legal cards) by the engine's legal_cards."""
    k = s[S_K]
    seat = (s[S_LEADER] + k) & 3
    hand = s[seat]
    led = s[S_LED]
    holder = s[S_SEARCHED] == 0 and seat == ctx[C_PARTNER]
    legal = legal_cards(hand, k, np.int64(suit_mask[led]), led == ctx[C_CALLED], holder, ctx[C_ACE_BIT],
                        ctx[C_CALLED_MASK], ctx[C_RUN_MIN])
    return seat, legal


@solver_jit(inline="always")
def reduce_equivalent(s, seat, legal, ctx, tabs, measure):
    """The legal cards less those equivalent to a weaker legal card of the same hand (see the module doc)."""
    hand = s[seat]
    others = ((s[0] | s[1] | s[2] | s[3]) & ~hand) | s[S_TRICK]
    special = ctx[C_ACE_BIT] if (s[S_SEARCHED] == 0 and seat == ctx[C_PARTNER]) else np.int64(0)
    out = legal
    m = legal
    while m != 0:
        c = cttz(m)
        m &= m - 1
        bit = np.int64(1) << np.int64(c)
        if bit == special:
            continue
        d = tabs[T_LOWER, c]
        while d >= 0:
            bd = np.int64(1) << np.int64(d)
            if others & bd:
                break
            if hand & bd:
                if (legal & bd) and bd != special and (measure == MEASURE_TRICKS or
                                                       tabs[T_POINTS, d] == tabs[T_POINTS, c]):
                    out &= ~bit
                break
            d = tabs[T_LOWER, d]  # played in an earlier trick: look further down
    return out


@solver_jit(inline="always")
def gen_moves(s, seat, moves, p, legal, ctx, tabs, hint, scores):
    """Write the cards of ``legal`` into ``moves[p]`` best first; return how many."""
    k = s[S_K]
    team = ctx[C_TEAM]
    mine = (team >> seat) & 1
    n = 0
    m = legal
    while m != 0:
        c = cttz(m)
        m &= m - 1
        st = tabs[T_STRENGTH, c]
        pts = tabs[T_POINTS, c]
        e = tabs[T_EFF, c]
        if c == hint:
            sc = 100000
        elif k == 0:
            if mine:
                sc = st * 4 + pts  # declaring side: high trumps, then high side cards
            elif e != TRUMP and st >= 6:
                sc = 5000 + pts  # defenders: side-suit aces/tens first ...
            else:
                sc = 1000 - st * 4 - pts  # ... else low cards
        else:
            beff = s[S_BEFF]
            wins = (e == beff or e == TRUMP) and st > s[S_BSTR]
            friend = ((team >> s[S_BSEAT]) & 1) == mine
            if friend:
                if wins:
                    sc = 2000 + pts * 8 - st
                else:
                    sc = 3000 + pts * 8  # load points onto the partner's trick
            else:
                if wins:
                    sc = 4000 + pts * 8 - st  # win as cheaply as possible, points welcome
                else:
                    sc = 1000 - pts * 8 - st  # throw the least
        # insertion into the sorted list
        j = n
        while j > 0 and scores[j - 1] < sc:
            scores[j] = scores[j - 1]
            moves[p, j] = moves[p, j - 1]
            j -= 1
        scores[j] = sc
        moves[p, j] = c
        n += 1
    return n


@solver_jit(inline="always")
def cheapest_points(hand, j):
    """The points of the ``j`` cheapest cards of ``hand`` (all of them if it holds fewer)."""
    total = 0
    for i in range(6):
        if j <= 0:
            break
        n = popcount(hand & _CLASS_MASKS[i])
        if n > j:
            n = j
        total += n * _CLASS_POINTS[i]
        j -= n
    return total


@solver_jit(inline="always")
def guaranteed(s, side, tabs, suit_mask):
    """(points, tricks) a side surely takes from a trick boundary on, whatever the other side does.

    * Sure trumps: trumps stronger than every trump of the other side. Each lands in a trick the side wins, so
      its points are the side's; one player's sure trumps win that many distinct tricks.
    * Quick tricks, when the side is on lead: the leader's side-suit cards stronger than every card of that suit
      the other side holds, cashed from the top while every opponent who holds a trump must still follow suit.
      They are distinct tricks from the leader's trump tricks (each holds another card of his).
    Into each of the distinct tricks counted, every opponent puts a card: at least his cheapest ones."""
    tm = suit_mask[TRUMP]
    leader = s[S_LEADER]
    opp = 0
    opp_tr = 0
    for seat in range(4):
        if not (side >> seat) & 1:
            opp |= s[seat]
            opp_tr |= s[seat] & tm
    pts = 0
    most = 0
    for seat in range(4):
        if (side >> seat) & 1:
            m = s[seat] & tm
            n = 0
            while m != 0:
                c = cttz(m)
                m &= m - 1
                if (tabs[T_ABOVE, c] & opp_tr) == 0:
                    n += 1
                    pts += tabs[T_POINTS, c]
            if seat == leader:
                for su in range(4):
                    mine = s[seat] & np.int64(suit_mask[su])
                    if mine == 0:
                        continue
                    cap = 8
                    for o in range(4):
                        if not (side >> o) & 1 and (s[o] & tm) != 0:
                            ln = popcount(s[o] & np.int64(suit_mask[su]))
                            if ln < cap:
                                cap = ln
                    if cap == 0:
                        continue
                    theirs = opp & np.int64(suit_mask[su])
                    win = np.int64(0)
                    while mine != 0:
                        c = cttz(mine)
                        mine &= mine - 1
                        if (tabs[T_ABOVE, c] & theirs) == 0:
                            win |= np.int64(1) << np.int64(c)
                    q = popcount(win)
                    if q == 0:
                        continue
                    wp = 0
                    w = win
                    while w != 0:
                        c = cttz(w)
                        w &= w - 1
                        wp += tabs[T_POINTS, c]
                    if q > cap:
                        wp -= cheapest_points(win, q - cap)  # cash the dearest ``cap`` of them
                        q = cap
                    pts += wp
                    n += q
            if n > most:
                most = n
    if most > 0:
        for seat in range(4):
            if not (side >> seat) & 1:
                pts += cheapest_points(s[seat], most)
    return pts, most


@solver_jit(inline="always")
def _last_trick(s, ctx, tabs, measure):
    """Measure at the end of the deal when every hand holds one card (the last trick is forced)."""
    leader = s[S_LEADER]
    led = 0
    bseat = 0
    beff = 0
    bstr = 0
    tp = 0
    for k in range(4):
        seat = (leader + k) & 3
        c = cttz(s[seat])
        tp += tabs[T_POINTS, c]
        led, bseat, beff, bstr = trick_step(k, seat, tabs[T_EFF, c], tabs[T_STRENGTH, c], led, bseat, beff, bstr)
    if (ctx[C_TEAM] >> bseat) & 1:
        return 1 if measure == MEASURE_TRICKS else tp
    return 0


@solver_jit
def search(s, ctx, tabs, suit_mask, measure, alpha, beta, tt_keys, tt_meta, tt_val, fr, moves, scores, stats):
    """Fail-soft alpha-beta value of the position ``s`` in the window (alpha, beta) for ``measure``.

    Returns g: the exact final measure if alpha < g < beta; a lower bound if g >= beta; an upper bound if
    g <= alpha. ``ABORTED`` when the node limit ``stats[ST_LIMIT]`` was exceeded (``stats[ST_ABORTED]`` = 1).
    ``s`` is unchanged on return."""
    mask = tt_keys.shape[0] - 1
    team = ctx[C_TEAM]
    nodes = stats[ST_NODES]
    limit = stats[ST_LIMIT]
    p = 0
    fr[0, F_ALPHA] = alpha
    fr[0, F_BETA] = beta
    ret = 0
    # state machine: 0 enter the node at ply p; 1 try its next move; 2 a child returned ``ret`` to ply p
    phase = 0
    while True:
        if phase == 0:
            nodes += 1
            stats[ST_PLY + p] += 1
            if nodes > limit:
                stats[ST_NODES] = nodes
                stats[ST_ABORTED] = 1
                # restore the root position
                if p > 0:
                    for j in range(NS):
                        s[j] = fr[0, F_SNAP + j]
                return ABORTED
            a = fr[p, F_ALPHA]
            b = fr[p, F_BETA]
            k = s[S_K]
            if measure == MEASURE_POINTS:
                base = s[S_DP]
                room = s[S_REMPTS] + s[S_TP]
            else:
                base = s[S_DT]
                seat_to_move = (s[S_LEADER] + k) & 3
                room = popcount(s[seat_to_move])  # tricks still to finish, the current one included
            lo = base
            hi = base + room
            slot = -1
            hint = -1
            k1 = np.uint64(0)
            k2 = np.uint64(0)
            meta = 0
            if k == 0:
                if room == 0 or s[0] == 0:
                    ret = base
                    phase = 2
                    if p == 0:
                        stats[ST_NODES] = nodes
                        return ret
                    p -= 1
                    continue
                k1, k2, meta = table_key(s, ctx, measure)
                slot = slot_of(k1, k2, meta, mask)
                i = tt_find(tt_keys, tt_meta, slot, k1, k2, meta)
                if i >= 0:
                    if base + tt_val[i, 0] > lo:
                        lo = base + tt_val[i, 0]
                    if base + tt_val[i, 1] < hi:
                        hi = base + tt_val[i, 1]
                    hint = tt_val[i, 2]
                if lo < b and hi > a:  # what each side's sure trumps guarantee it
                    gain_p, gain_t = guaranteed(s, team, tabs, suit_mask)
                    loss_p, loss_t = guaranteed(s, 15 & ~team, tabs, suit_mask)
                    if measure == MEASURE_POINTS:
                        gain = gain_p
                        loss = loss_p
                    else:
                        gain = gain_t
                        loss = loss_t
                    if base + gain > lo:
                        lo = base + gain
                    if base + room - loss < hi:
                        hi = base + room - loss
            done = False
            if lo >= b:
                ret = lo
                done = True
            elif hi <= a:
                ret = hi
                done = True
            elif lo == hi:
                ret = lo
                done = True
            elif k == 0 and popcount(s[0]) == 1:
                v = _last_trick(s, ctx, tabs, measure)
                tt_store(tt_keys, tt_meta, tt_val, slot, k1, k2, meta, v, v, -1, 4)
                ret = base + v
                done = True
            if done:
                if p == 0:
                    stats[ST_NODES] = nodes
                    return ret
                p -= 1
                phase = 2
                continue
            if lo > a:
                a = lo
            if hi < b:
                b = hi
            fr[p, F_A0] = a
            fr[p, F_B0] = b
            fr[p, F_ALPHA] = a
            fr[p, F_BETA] = b
            fr[p, F_SLOT] = slot
            fr[p, F_BASE] = base
            seat, legal = legal_now(s, ctx, suit_mask)
            is_max = (team >> seat) & 1
            fr[p, F_MAX] = is_max
            fr[p, F_G] = -INF if is_max else INF
            fr[p, F_BEST] = -1
            red = reduce_equivalent(s, seat, legal, ctx, tabs, measure)
            fr[p, F_N] = gen_moves(s, seat, moves, p, red, ctx, tabs, hint, scores)
            fr[p, F_I] = 0
            for j in range(NS):
                fr[p, F_SNAP + j] = s[j]
            phase = 1
        elif phase == 1:
            i = fr[p, F_I]
            if i < fr[p, F_N]:
                if i > 0:
                    for j in range(NS):
                        s[j] = fr[p, F_SNAP + j]
                fr[p, F_I] = i + 1
                apply_card(s, moves[p, i], ctx, tabs)
                fr[p + 1, F_ALPHA] = fr[p, F_ALPHA]
                fr[p + 1, F_BETA] = fr[p, F_BETA]
                p += 1
                phase = 0
                continue
            # all moves searched (or cut off): store and return
            g = fr[p, F_G]
            slot = fr[p, F_SLOT]
            for j in range(NS):
                s[j] = fr[p, F_SNAP + j]
            if slot >= 0:
                base = fr[p, F_BASE]
                k1, k2, meta = table_key(s, ctx, measure)
                if g <= fr[p, F_A0]:
                    lo_r = -INF
                    hi_r = g - base
                elif g >= fr[p, F_B0]:
                    lo_r = g - base
                    hi_r = INF
                else:
                    lo_r = g - base
                    hi_r = lo_r
                left = popcount(s[0] | s[1] | s[2] | s[3])
                tt_store(tt_keys, tt_meta, tt_val, slot, k1, k2, meta, max(lo_r, -30000), min(hi_r, 30000),
                         fr[p, F_BEST], left)
            ret = g
            if p == 0:
                stats[ST_NODES] = nodes
                return ret
            p -= 1
            phase = 2
        else:  # a child returned ``ret`` to ply p
            if ret == ABORTED:
                stats[ST_NODES] = nodes
                return ABORTED
            i = fr[p, F_I] - 1
            cut = False
            if fr[p, F_MAX]:
                if ret > fr[p, F_G]:
                    fr[p, F_G] = ret
                    fr[p, F_BEST] = moves[p, i]
                    if ret > fr[p, F_ALPHA]:
                        fr[p, F_ALPHA] = ret
                    if ret >= fr[p, F_BETA]:
                        cut = True
            else:
                if ret < fr[p, F_G]:
                    fr[p, F_G] = ret
                    fr[p, F_BEST] = moves[p, i]
                    if ret < fr[p, F_BETA]:
                        fr[p, F_BETA] = ret
                    if ret <= fr[p, F_ALPHA]:
                        cut = True
            if cut:
                fr[p, F_I] = fr[p, F_N]
            phase = 1
