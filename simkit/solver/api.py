"""The solver's Python API: :func:`solve`, :func:`threshold`, :func:`position_value` and the workspace.

Objectives (the value of a card is the value of the position after it, both sides playing perfectly with every
hand open; the declaring side maximises, the defenders minimise):

* ``points``: the declaring side's final card points, 0..120 (points already taken count);
* ``win``: 1 if the declaring side wins (61 points; a Tout: every trick), else 0;
* ``payout``: the declarer seat's settled payout under the position's tariff (Schneider, Schwarz, Laufende,
  doublings; a solo-type declarer gets 3x the price), so the value a player really plays for.

The club contracts (RULES.md 4): a **Bettel** has ``win`` (1 iff the declarer takes no trick; he maximises it, the
defenders minimise) and ``payout`` (+-3x the Bettel price), no ``points``; a **Ramsch** has ``points`` only: the
final card points of one seat (``Position.measured``: the seat to move unless a ``view`` is given), which that seat
minimises and the other three, playing together against it, maximise -- a bound on what the seat can hold its
points to, not the value of the four-player game; a **Sie** is solved as the Herz solo it is (always won).
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from simkit.cards import format_card
from simkit.rules.contracts import BETTEL, RAMSCH, RUFSPIEL, SIE
from simkit.rules.tables import variant_index
from simkit.solver.position import Position, level_payouts  # noqa: F401  (level_payouts: part of this API)

OBJECTIVES = ("points", "win", "payout")
DEFAULT_TABLE_BITS = 20


class SolverError(ValueError):
    """An unknown objective or threshold, or a search that hit its node limit."""


# ------------------------------------------------------------------------------------------- workspace

class Workspace:
    """The transposition table and search stack, reused by every solve in a process. Entries hold proven bounds
    keyed on the whole remaining position, so positions of one game (and of different deals) share them safely."""

    def __init__(self, table_bits: int = DEFAULT_TABLE_BITS, flags: int | None = None):
        from simkit.solver.search import ALL_FLAGS, MAX_PLY, N_STATS, NF, NS

        self.flags = ALL_FLAGS if flags is None else flags  # speed-ups (search.FLAG_*): tests switch them off

        size = 1 << table_bits
        self.table_bits = table_bits
        # key words, meta (-1: empty), packed bounds (search.tt_store); on huge pages where the system allows
        self.table = _huge_zeros((size, 4))
        self.table[:, 2] = -1
        self.frames = np.zeros((MAX_PLY, NF), np.int64)
        self.moves = np.zeros((MAX_PLY, 8), np.int8)
        self.keys = np.zeros(8, np.int64)
        self.stats = np.zeros(N_STATS, np.int64)
        self.state = np.zeros(NS, np.int64)
        self.scratch = np.zeros(NS, np.int64)

    def clear(self) -> None:
        """Forget every entry (O(1): entries of older generations no longer match)."""
        from simkit.solver.search import ST_GEN

        self.stats[ST_GEN] += 1

    @property
    def arrays(self) -> tuple:
        return (self.table, self.frames, self.moves, self.keys, self.stats)

    def start(self, node_limit: int | None) -> None:
        from simkit.solver.search import ST_ABORTED, ST_LIMIT, ST_NODES, ST_PLY

        self.stats[ST_NODES] = 0
        self.stats[ST_ABORTED] = 0
        self.stats[ST_PLY:] = 0
        self.stats[ST_LIMIT] = node_limit if node_limit is not None else (1 << 62)

    @property
    def nodes(self) -> int:
        return int(self.stats[0])


def _huge_zeros(shape: tuple[int, int]) -> np.ndarray:
    """A zeroed int64 array in anonymous memory advised for transparent huge pages: the table is probed at random,
    and with 4 KB pages nearly every probe also missed the TLB (10% of the search's time, measured with perf)."""
    import mmap

    nbytes = shape[0] * shape[1] * 8
    if nbytes < (1 << 21) or not hasattr(mmap, "MADV_HUGEPAGE"):
        return np.zeros(shape, np.int64)
    buf = mmap.mmap(-1, nbytes, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
    try:
        buf.madvise(mmap.MADV_HUGEPAGE)
    except OSError:  # not supported here: ordinary pages
        pass
    return np.frombuffer(buf, np.int64).reshape(shape)


_DEFAULT: Workspace | None = None


def default_workspace() -> Workspace:
    global _DEFAULT
    if _DEFAULT is None:
        _DEFAULT = Workspace()
    return _DEFAULT


def _chain(objective: str, tout: bool, hand_size: int) -> tuple[int, np.ndarray, np.ndarray]:
    """(kernel objective, threshold measures, threshold values) of an objective (simkit.solver.values)."""
    from simkit.solver.search import MEASURE_POINTS as P
    from simkit.solver.search import MEASURE_TRICKS as T
    from simkit.solver.values import OBJ_LEVEL, OBJ_POINTS

    hs = hand_size
    if objective == "points":
        return OBJ_POINTS, np.zeros(5, np.int64), np.zeros(5, np.int64)
    if objective == "win":
        chain = [(T, hs)] if tout else [(P, 61)]
    elif objective == "payout":
        chain = [(T, hs)] if tout else [(T, 1), (P, 31), (P, 61), (P, 91), (T, hs)]
    else:
        raise SolverError(f"unknown objective {objective!r}; valid: {', '.join(OBJECTIVES)}")
    chain += [(0, 0)] * (5 - len(chain))  # fixed length, so the bulk kernel can stack the chains of a run
    return OBJ_LEVEL, np.array([m for m, _ in chain], np.int64), np.array([v for _, v in chain], np.int64)


def _chain_length(objective: str, tout: bool) -> int:
    """How many thresholds of the (padded) chain count."""
    return {"points": 0, "win": 1, "payout": 1 if tout else 5}[objective]


def default_objective(contract) -> str:
    """The objective a contract is solved under when none is asked for: ``points``, a Bettel's ``win`` (it has no
    card points to play for)."""
    return "win" if contract.kind == BETTEL else "points"


def _position_chain(pos: Position, objective: str) -> tuple[int, np.ndarray, np.ndarray, int]:
    """(kernel objective, threshold measures, values, chain length) of ``objective`` for this position's
    contract. A Bettel's kernel measure is the declarer's tricks (the defenders maximise them): its one threshold
    is "the declarer takes a trick", the declarer's win is 1 minus that level. A Ramsch's is the measured seat's
    card points."""
    from simkit.solver.search import MEASURE_TRICKS
    from simkit.solver.values import OBJ_LEVEL, OBJ_POINTS

    kind = pos.contract.kind
    if objective not in OBJECTIVES:
        raise SolverError(f"unknown objective {objective!r}; valid: {', '.join(OBJECTIVES)}")
    if kind == BETTEL:
        if objective == "points":
            raise SolverError("a Bettel has no points objective (its declarer plays to take no trick): use win or "
                              "payout")
        return (OBJ_LEVEL, np.array([MEASURE_TRICKS, 0, 0, 0, 0], np.int64), np.array([1, 0, 0, 0, 0], np.int64),
                1)
    if kind == RAMSCH:
        if objective != "points":
            raise SolverError(f"a Ramsch has only the points objective (a seat's own card points, from its view), "
                              f"not {objective!r}")
        return OBJ_POINTS, np.zeros(5, np.int64), np.zeros(5, np.int64), 0
    kobj, m, v = _chain(objective, pos.contract.tout, pos.rules.hand_size)
    return kobj, m, v, _chain_length(objective, pos.contract.tout)


def _maximises(pos: Position, seat: int) -> bool:
    """Does ``seat`` want the highest value of the objective? (A Bettel's values are the declarer's win; a Ramsch's
    are the measured seat's points, which only the others want high.)"""
    kind = pos.contract.kind
    if kind == BETTEL:
        return seat == pos.declarer
    if kind == RAMSCH:
        return seat != pos.measured
    return seat in pos.team


def _kernel_position(pos: Position, ws: Workspace):
    """(state, ctx, tabs, suit masks, card_of) of a position in the kernel's terms (rank space)."""
    from simkit.cards import ASS
    from simkit.solver.search import C_FLAGS, NC, S_SEARCHED
    from simkit.solver.tables import solver_tables
    from simkit.solver.values import open_position

    from simkit.solver.search import C_KEY, C_MAXI, C_STICH, C_TEAM, FLAG_BOUNDS

    kind = pos.contract.kind
    seat = pos.measured  # the declarer; a Ramsch: the seat whose points are valued, as a lone "declarer"
    if seat is None:
        raise SolverError("a finished Ramsch has no seat to move: give the position a view (the seat to value)")
    st = solver_tables(pos.rules)
    v = variant_index(pos.contract)
    tabs, masks, id_of = st.tabs[v], st.suit_mask[v], st.id_of[v]
    called = pos.contract.suit if pos.contract.kind == RUFSPIEL else -1
    ace_id = int(id_of[8 * called + ASS]) if called >= 0 else -1
    s = ws.state
    ctx = np.zeros(NC, np.int64)
    h = pos.hands
    open_position(h[0], h[1], h[2], h[3], np.array(pos.plays, np.int64), called, ace_id, seat,
                  pos.rules.run_away_min, v, tabs, masks, id_of, s, ctx)
    ctx[C_FLAGS] = ws.flags
    if kind in (BETTEL, RAMSCH):
        # the measured seat wants as little as it can (no trick; few points): the other three maximise. The
        # bounds of guaranteed()/trick_bound() assume the measured side plays to take what it is sure of (draws
        # trumps, cashes its tops), which it need not here: off. A bit of the table key keeps these apart from a
        # solo of the same variant and seat.
        ctx[C_MAXI] = 15 & ~ctx[C_TEAM]
        ctx[C_FLAGS] &= ~FLAG_BOUNDS
        ctx[C_KEY] |= 1 << 16
        if kind == BETTEL and pos.rules.bettel.stichzwang:
            ctx[C_STICH] = 1
            ctx[C_KEY] |= 1 << 15
    assert bool(s[S_SEARCHED]) == (called < 0 or pos.game.searched), "kernel and referee disagree on the search"
    return s, ctx, tabs, masks, st.card_of[v]


def _to_objective(pos: Position, objective: str, raw: int) -> int:
    if pos.contract.kind == BETTEL:
        raw = 1 - raw  # the kernel's level: the declarer takes a trick
    if objective == "payout":
        return pos.level_payouts[raw]
    return int(raw)


def final_value(pos: Position, objective: str) -> int:
    _position_chain(pos, objective)  # an objective the contract has
    r = pos.game.result()
    if pos.contract.kind == RAMSCH:
        if pos.view is None:
            raise SolverError("a finished Ramsch has no seat to move: give the position a view (the seat to value)")
        return r.seat_points[pos.view]
    if objective == "points":
        return r.declarer_points
    if objective == "win":
        return int(r.won)
    return r.payouts[pos.declarer]


# ------------------------------------------------------------------------------------------------ API

@dataclass
class Solution:
    """The solved position: the seat to move, the value of each of its legal cards, the best card(s)."""

    objective: str
    to_move: int | None
    values: dict[int, int]  # card -> value
    best: list[int]
    value: int  # of the position: the best card's value (the result, for a finished game)
    nodes: int
    seconds: float

    def named_values(self) -> dict[str, int]:
        """``values`` with cards in notation ("EO": 78)."""
        return {format_card(c): v for c, v in self.values.items()}

    def to_json(self) -> dict:
        return {"to_move": self.to_move, "values": self.named_values(), "best": [format_card(c) for c in self.best],
                "nodes": self.nodes, "seconds": round(self.seconds, 6)}


def solve(position: Position, objective: str = "points", *, workspace: Workspace | None = None,
          node_limit: int | None = None) -> Solution:
    """The value of every legal card of the seat to move (see the module doc for the objectives)."""
    from simkit.solver.values import card_values

    ws = workspace or default_workspace()
    kobj, thr_m, thr_v, n_thr = _position_chain(position, objective)
    t0 = time.perf_counter()
    if position.is_over:
        v = final_value(position, objective)
        return Solution(objective, None, {}, [], v, 0, time.perf_counter() - t0)
    ws.start(node_limit)
    s, ctx, tabs, masks, card_of = _kernel_position(position, ws)
    raw = np.full(32, -(1 << 40), np.int64)
    guess = position_guess(position) if kobj == 0 else 0
    legal = card_values(s, ctx, tabs, masks, kobj, thr_m, thr_v, n_thr, guess, ws.arrays, raw, ws.scratch)
    if legal < 0:
        raise SolverError(f"the search exceeded its node limit of {node_limit:,}")
    values = {int(card_of[i]): _to_objective(position, objective, int(raw[i])) for i in range(32) if (legal >> i) & 1}
    maximise = _maximises(position, position.to_move)
    v = max(values.values()) if maximise else min(values.values())
    best = [c for c, x in values.items() if x == v]
    order = {c: i for i, c in enumerate(position.legal_cards())}
    best.sort(key=order.get)
    values = dict(sorted(values.items(), key=lambda kv: order[kv[0]]))
    return Solution(objective, position.to_move, values, best, v, ws.nodes, time.perf_counter() - t0)


def solve_line(position: Position, cards, objective: str = "points", *, workspace: Workspace | None = None,
               node_limit: int | None = None) -> list[Solution]:
    """:func:`solve` at ``position`` and after each of ``cards`` but the last, in turn: one solution per card (the
    position it was played in), from one kernel call that shares the table along the line. For grading a
    recorded game's every decision. Raises :class:`PositionError` for a card that is not legal."""
    from simkit.reference import Game, IllegalPlay, InvalidGame
    from simkit.solver.position import PositionError
    from simkit.solver.values import line_values

    cards = [int(c) for c in cards]
    if position.contract.kind == RAMSCH and position.view is None:
        # each decision from its own mover's view: a different measured seat, so a search of its own each
        return _ramsch_line(position, cards, objective, workspace, node_limit)
    walk = []  # (seat to move, legal cards in a player's order) before each card, checked by the referee
    try:
        g = Game(position.rules, list(position.hands), position.contract, position.declarer, position.doublings,
                 position.tariff, position.knocks)
        for c in position.plays:
            g.play(c)
        for c in cards:
            walk.append((g.to_play, g.legal_cards()))
            g.play(c)
    except (InvalidGame, IllegalPlay) as e:
        raise PositionError(str(e)) from None
    ws = workspace or default_workspace()
    kobj, thr_m, thr_v, n_thr = _position_chain(position, objective)
    t0 = time.perf_counter()
    ws.start(node_limit)
    s, ctx, tabs, masks, card_of = _kernel_position(position, ws)
    id_of = {int(c): i for i, c in enumerate(card_of)}
    plays = np.array([id_of[c] for c in cards], np.int64)
    raw = np.full((len(cards), 32), -(1 << 40), np.int64)
    legal = np.zeros(len(cards), np.int64)
    guess = position_guess(position) if kobj == 0 else 0
    done = line_values(s, ctx, tabs, masks, kobj, thr_m, thr_v, n_thr, guess, ws.arrays, plays, raw, legal,
                       ws.scratch)
    if done < len(cards):
        raise SolverError(f"the search exceeded its node limit of {node_limit:,}")
    seconds = time.perf_counter() - t0
    out = []
    for i, (to_move, order) in enumerate(walk):
        values = {x: _to_objective(position, objective, int(raw[i, id_of[x]])) for x in order}
        assert all((int(legal[i]) >> id_of[x]) & 1 for x in order), "kernel and referee disagree on legal cards"
        v = max(values.values()) if _maximises(position, to_move) else min(values.values())
        out.append(Solution(objective, to_move, values, [x for x in order if values[x] == v], v, 0,
                            seconds / len(cards)))
    if out:
        out[0].nodes = ws.nodes  # the nodes of the whole line, on its first solution
    return out


def _ramsch_line(position: Position, cards, objective, workspace, node_limit) -> list[Solution]:
    """:func:`solve_line` of a Ramsch: each position solved from the view of its seat to move."""
    from simkit.solver.position import PositionError

    out = []
    pos = position
    for c in cards:
        if c not in pos.legal_cards():
            pos.after(c)  # raises PositionError naming the card and the rule
            raise PositionError(f"card {format_card(c)} is not legal here")
        out.append(solve(pos, objective, workspace=workspace, node_limit=node_limit))
        pos = pos.after(c)
    return out


def position_guess(position: Position) -> int:
    """A first guess for MTD(f): half of the points still out on top of those taken."""
    from simkit.cards import CARD_POINTS

    g = position.game
    team = {position.measured} if position.contract.kind == RAMSCH else g.team
    taken, out = 0, 120
    for _, cards, winner in g.tricks:
        pts = sum(CARD_POINTS[c] for c in cards)
        out -= pts
        if winner in team:
            taken += pts
    return taken + out // 2


def position_value(position: Position, objective: str = "points", *, workspace: Workspace | None = None,
                   node_limit: int | None = None) -> int:
    """The value of the position itself (cheaper than :func:`solve` when the cards' values are not needed)."""
    from simkit.solver.values import position_value as kernel_value

    if position.is_over:
        return final_value(position, objective)
    ws = workspace or default_workspace()
    kobj, thr_m, thr_v, n_thr = _position_chain(position, objective)
    ws.start(node_limit)
    s, ctx, tabs, masks, _ = _kernel_position(position, ws)
    guess = position_guess(position) if kobj == 0 else 0
    raw = kernel_value(s, ctx, tabs, masks, kobj, thr_m, thr_v, n_thr, guess, ws.arrays)
    if ws.stats[2]:
        raise SolverError(f"the search exceeded its node limit of {node_limit:,}")
    return _to_objective(position, objective, int(raw))


def threshold(position: Position, *, points: int | None = None, tricks: int | None = None,
              workspace: Workspace | None = None, node_limit: int | None = None) -> bool:
    """Can the declaring side reach at least ``points`` final card points, or at least ``tricks`` tricks (tricks
    already won count)? Give exactly one of the two."""
    from simkit.solver.search import MEASURE_POINTS, MEASURE_TRICKS
    from simkit.solver.values import at_least

    if (points is None) == (tricks is None):
        raise SolverError("threshold needs exactly one of points= and tricks=")
    measure, k = (MEASURE_POINTS, points) if points is not None else (MEASURE_TRICKS, tricks)
    if position.contract.kind in (BETTEL, RAMSCH):
        raise SolverError(f"threshold asks what a declaring side can reach; a {position.contract.name}'s measured "
                          f"seat wants as little as it can: use position_value or solve")
    if position.is_over:
        r = position.game.result()
        return (r.declarer_points if points is not None else r.declarer_tricks) >= k
    ws = workspace or default_workspace()
    ws.start(node_limit)
    s, ctx, tabs, masks, _ = _kernel_position(position, ws)
    r = at_least(s, ctx, tabs, masks, measure, int(k), ws.arrays)
    if r < 0:
        raise SolverError(f"the search exceeded its node limit of {node_limit:,}")
    return bool(r)


#: the solver's kernels by what calls them: ``solve`` (card values), ``line`` (:func:`solve_line`), ``value``
#: (:func:`position_value`), ``threshold`` (:func:`threshold`), ``many`` (:func:`solve_played`, the openings of many
#: deals); every objective shares them (the objective is an argument, not a specialisation)
KERNELS = ("solve", "line", "value", "threshold", "many")


def warm_up(*kernels: str, notice: bool = True) -> None:
    """Compile (or load from numba's cache) the solver's search and the kernels of :data:`KERNELS` named (all when
    none is), each saying on stderr when it compiles. Only needed before forking workers or timing: each kernel
    also compiles when first used."""
    from contextlib import nullcontext

    from simkit.engine import notices
    from simkit.cards import parse_card, parse_hands
    from simkit.rules.contracts import SOLO, Contract

    unknown = set(kernels) - set(KERNELS)
    if unknown:
        raise ValueError(f"unknown solver kernels {sorted(unknown)}; known: {', '.join(KERNELS)}")
    kernels = kernels or KERNELS
    hands = parse_hands(["EO GO HO SO EU GU HU SU", "EA EZ EK E9 E8 E7 GA GZ", "GK G9 G8 G7 HA HZ HK H9",
                         "H8 H7 SA SZ SK S9 S8 S7"])
    opening = Position.opening(hands, Contract(SOLO, 2), 0)
    pos = opening.after(parse_card("EO"))  # a mid-trick position
    with nullcontext() if notice else notices.silenced():
        ws = Workspace(table_bits=10)
        if "solve" in kernels:
            solve(pos, "win", workspace=ws)
        if "line" in kernels:
            solve_line(opening, [parse_card("EO")], "win", workspace=ws)
        if "value" in kernels:
            position_value(pos, "win", workspace=ws)
        if "threshold" in kernels:
            threshold(pos, points=61, workspace=ws)
        if "many" in kernels:
            from simkit.rules.ruleset import load_ruleset

            one = {"kind": np.array([-1], np.int8), "suit": np.array([-1], np.int8), "tout": np.array([False]),
                   "declarer": np.array([-1], np.int8), "hands": np.zeros((1, 4), np.uint32),
                   "deal_id": np.array([0], np.int64)}  # a passed deal: compiled, nothing solved
            solve_played(one, load_ruleset(), "points", workspace=ws)


# ---------------------------------------------------------------------------------------- many deals

def solve_played(games: dict[str, np.ndarray], rules, objective: str = "points", *, cards: bool = False,
                 workspace: Workspace | None = None, node_limit: int | None = None) -> dict[str, np.ndarray]:
    """Solve the opening position of each deal of ``games`` (the columns of ``simkit.engine.game.play_games``) as
    the contract actually played. Returns ``value`` (int32; 0 and ``solved`` False for passed deals), ``solved``,
    ``nodes``, with ``payout`` also ``level`` (int8: the level of the payout chain, 0 lost schwarz .. 5 won
    schwarz, a Tout 0 lost or 1 won), and with ``cards`` ``card_values`` (int32[n, 32], by card) and ``legal``
    (uint32 mask) of the opening leader's cards.

    The club contracts (docs/solver.md, "Club contracts"): a **Bettel** row is solved exactly for ``win`` (1 iff
    the declarer takes no trick) and ``payout`` (level 0 lost, 1 won), one position at a time (milliseconds a
    deal); it has no ``points`` objective, so under ``points`` it is left unsolved. A **Sie** row needs no search:
    its holder takes every trick whatever is played, so it is 120 points, won (1), and its price (level 5, won
    Schwarz), every card of the leader alike. A **Ramsch** row is always left unsolved: it has no four-player value
    (the solver values a Ramsch only from one seat's view, a bound)."""
    from simkit.reference import contract_from_row
    from simkit.rules.tables import V_FARBGEIER, V_FARBWENZ, V_GEIER, V_SOLO, V_WENZ
    from simkit.solver.bulk import SKIPPED, solve_rows
    from simkit.solver.search import NC, NS
    from simkit.solver.tables import solver_tables
    from simkit.solver.values import OBJ_LEVEL

    ws = workspace or default_workspace()
    kind = np.asarray(games["kind"], np.int64)
    suit = np.asarray(games["suit"], np.int64)
    tout = np.asarray(games["tout"], np.bool_)
    declarer = np.asarray(games["declarer"], np.int64).copy()
    declarer[(kind < 0) | (kind >= BETTEL)] = -1  # the bulk kernel: the classic contracts (the club ones below)
    n = len(kind)
    variant = np.zeros(n, np.int64)
    variant[kind == 1] = V_SOLO + suit[kind == 1]
    variant[kind == 2] = V_WENZ
    variant[kind == 3] = V_GEIER
    variant[kind == 4] = V_FARBWENZ + suit[kind == 4]
    variant[kind == 5] = V_FARBGEIER + suit[kind == 5]
    called = np.where(kind == RUFSPIEL, suit, -1).astype(np.int64)
    hs = rules.hand_size
    kobj, m0, v0 = _chain(objective, False, hs)
    _, m1, v1 = _chain(objective, True, hs)
    chain_len = np.array([_chain_length(objective, False), _chain_length(objective, True)], np.int64)
    st = solver_tables(rules)
    value = np.zeros(n, np.int64)
    nodes = np.zeros(n, np.int64)
    card_values_ = np.zeros((n if cards else 0, 32), np.int64)
    legal = np.zeros(n, np.int64)
    guesses = _played_levels(games, objective, tout, hs) if kobj == OBJ_LEVEL else np.full(n, -1, np.int64)
    ws.start(node_limit)
    done = solve_rows(np.asarray(games["hands"], np.uint32), variant, called, declarer, tout.astype(np.int64),
                      rules.run_away_min, kobj, np.stack([m0, m1]), np.stack([v0, v1]), chain_len, guesses, st.tabs,
                      st.suit_mask, st.id_of, st.card_of, cards, ws.arrays, value, nodes,
                      card_values_ if cards else np.zeros((n, 32), np.int64), legal, np.zeros(NS, np.int64),
                      np.zeros(NS, np.int64), np.zeros(NC, np.int64), np.zeros(32, np.int64))
    if done < n:
        raise SolverError(f"deal {int(games['deal_id'][done])}: the search exceeded its node limit of {node_limit:,}")
    solved = value != SKIPPED
    value[~solved] = 0
    level = value.copy()  # the payout objective's level (0 lost schwarz .. 5 won schwarz; a Tout 0 or 1)
    if objective == "payout":  # levels -> the declarer's payout under the ruleset's tariff
        cache: dict[tuple, tuple[int, ...]] = {}
        lauf = np.asarray(games["laufende"], np.int64)
        dbl = np.asarray(games["doublings"], np.int64)
        for i in np.flatnonzero(solved):
            key = (int(kind[i]), int(suit[i]), bool(tout[i]), int(lauf[i]), int(dbl[i]))
            if key not in cache:
                cache[key] = level_payouts(contract_from_row(kind[i], suit[i], tout[i]), rules.tariff, key[3],
                                           key[4])
            table = cache[key]
            value[i] = table[value[i]]
            if cards:
                lm = int(legal[i])
                for c in range(32):
                    if (lm >> c) & 1:
                        card_values_[i, c] = table[card_values_[i, c]]
    _club_rows(games, rules, objective, cards, ws, node_limit, value, level, solved, nodes, card_values_, legal)
    out = {"value": value.astype(np.int32), "solved": solved, "nodes": nodes}
    if objective == "payout":
        out["level"] = level.astype(np.int8)
    if cards:
        out["card_values"] = card_values_.astype(np.int32)
        out["legal"] = legal.astype(np.uint32)
    return out


def _club_rows(games, rules, objective, cards, ws, node_limit, value, level, solved, nodes, card_values_, legal):
    """Fill the Bettel and Sie rows of :func:`solve_played`'s columns (in place). A Bettel is solved through the
    single-position API (its objective, Stichzwang and table-key bit live in :func:`_kernel_position`); a Sie is
    derived: won Schwarz whatever anyone plays (RULES.md 4.3; tests/test_solver_club.py checks it against the
    search)."""
    from simkit.rules.contracts import Contract

    kind = np.asarray(games["kind"], np.int64)
    asked = np.asarray(games["declarer"], np.int64) >= 0  # a negative declarer skips a row (as the bulk kernel)
    rows = np.flatnonzero(asked & ((kind == SIE) | ((kind == BETTEL) & (objective != "points"))))
    dbl = np.asarray(games["doublings"], np.int64) if "doublings" in games else np.zeros(len(kind), np.int64)
    for i in rows:
        hands = [int(h) for h in games["hands"][i]]
        pos = Position.opening(hands, Contract(int(kind[i])), int(games["declarer"][i]), rules,
                               doublings=int(dbl[i]))  # the row's Kontra/Re, as the classic rows' payout
        if kind[i] == SIE:
            lv = 5 if objective == "payout" else 1
            v = {"points": 120, "win": 1, "payout": pos.level_payouts[5]}[objective]
            values = {c: v for c in pos.legal_cards()}
            n_nodes = 0
        else:
            try:
                if cards:
                    sol = solve(pos, objective, workspace=ws, node_limit=node_limit)
                    v, values, n_nodes = sol.value, sol.values, sol.nodes
                else:
                    v, n_nodes = position_value(pos, objective, workspace=ws, node_limit=node_limit), ws.nodes
            except SolverError as e:
                raise SolverError(f"deal {int(games['deal_id'][i])}: {e}") from None
            lv = pos.level_payouts.index(v) if objective == "payout" else v
        value[i], level[i], solved[i], nodes[i] = v, lv, True, n_nodes
        if cards:
            lm = 0
            for c, x in values.items():
                card_values_[i, c] = x
                lm |= 1 << c
            legal[i] = lm


def _played_levels(games, objective, tout, hand_size) -> np.ndarray:
    """The level of ``objective``'s chain that the strategies' own play of each deal reached (the columns
    ``declarer_points`` and ``declarer_tricks``), the solver's first guess; -1 where the columns are missing."""
    from simkit.solver.search import MEASURE_POINTS, MEASURE_TRICKS

    n = len(tout)
    if "declarer_points" not in games or "declarer_tricks" not in games:
        return np.full(n, -1, np.int64)
    reached = {MEASURE_POINTS: np.asarray(games["declarer_points"], np.int64),
               MEASURE_TRICKS: np.asarray(games["declarer_tricks"], np.int64)}
    out = np.zeros(n, np.int64)
    for is_tout in (False, True):
        _, measures, values = _chain(objective, is_tout, hand_size)
        rows = tout == is_tout
        for j in range(_chain_length(objective, is_tout)):
            out[rows] += reached[int(measures[j])][rows] >= values[j]
    return out
