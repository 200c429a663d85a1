"""The solver's Python API: :func:`solve`, :func:`threshold`, :func:`position_value` and the workspace.

Objectives (the value of a card is the value of the position after it, both sides playing perfectly with every
hand open; the declaring side maximises, the defenders minimise):

* ``points``: the declaring side's final card points, 0..120 (points already taken count);
* ``win``: 1 if the declaring side wins (61 points; a Tout: every trick), else 0;
* ``payout``: the declarer seat's settled payout under the position's tariff (Schneider, Schwarz, Laufende,
  doublings; a solo-type declarer gets 3x the price), so the value a player really plays for.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from simkit.cards import format_card
from simkit.rules.contracts import RUFSPIEL
from simkit.rules.tables import variant_index
from simkit.solver.position import Position

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
        self.table = np.zeros((size, 4), np.int64)  # key words, meta (-1: empty), packed bounds (search.tt_store)
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


_DEFAULT: Workspace | None = None


def default_workspace() -> Workspace:
    global _DEFAULT
    if _DEFAULT is None:
        _DEFAULT = Workspace()
    return _DEFAULT


def _chain(pos: Position, objective: str) -> tuple[int, np.ndarray, np.ndarray]:
    """(kernel objective, threshold measures, threshold values) of an objective (simkit.solver.values)."""
    from simkit.solver.search import MEASURE_POINTS as P
    from simkit.solver.search import MEASURE_TRICKS as T
    from simkit.solver.values import OBJ_LEVEL, OBJ_POINTS

    hs = pos.rules.hand_size
    if objective == "points":
        return OBJ_POINTS, np.zeros(1, np.int64), np.zeros(1, np.int64)
    if objective == "win":
        chain = [(T, hs)] if pos.contract.tout else [(P, 61)]
    elif objective == "payout":
        chain = [(T, hs)] if pos.contract.tout else [(T, 1), (P, 31), (P, 61), (P, 91), (T, hs)]
    else:
        raise SolverError(f"unknown objective {objective!r}; valid: {', '.join(OBJECTIVES)}")
    return OBJ_LEVEL, np.array([m for m, _ in chain], np.int64), np.array([v for _, v in chain], np.int64)


def _kernel_position(pos: Position, ws: Workspace):
    """(state, ctx, tabs, suit masks, card_of) of a position in the kernel's terms (rank space)."""
    from simkit.cards import ASS
    from simkit.solver.search import C_FLAGS, NC, S_SEARCHED, apply_card
    from simkit.solver.tables import solver_tables, to_ids
    from simkit.solver.values import init_position

    st = solver_tables(pos.rules)
    v = variant_index(pos.contract)
    tabs, masks, id_of = st.tabs[v], st.suit_mask[v], st.id_of[v]
    called = pos.contract.suit if pos.contract.kind == RUFSPIEL else -1
    ace_id = int(id_of[8 * called + ASS]) if called >= 0 else -1
    s = ws.state
    ctx = np.zeros(NC, np.int64)
    h = [to_ids(x, id_of) for x in pos.hands]
    init_position(h[0], h[1], h[2], h[3], called, ace_id, pos.declarer, pos.rules.run_away_min, v, tabs, masks,
                  s, ctx)
    ctx[C_FLAGS] = ws.flags
    for c in pos.plays:
        apply_card(s, int(id_of[c]), ctx, tabs)
    assert bool(s[S_SEARCHED]) == (called < 0 or pos.game.searched), "kernel and referee disagree on the search"
    return s, ctx, tabs, masks, st.card_of[v]


def _to_objective(pos: Position, objective: str, raw: int) -> int:
    if objective == "payout":
        return pos.level_payouts[raw]
    return int(raw)


def _final(pos: Position, objective: str) -> int:
    r = pos.game.result()
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
    kobj, thr_m, thr_v = _chain(position, objective)
    t0 = time.perf_counter()
    if position.is_over:
        v = _final(position, objective)
        return Solution(objective, None, {}, [], v, 0, time.perf_counter() - t0)
    ws.start(node_limit)
    s, ctx, tabs, masks, card_of = _kernel_position(position, ws)
    raw = np.full(32, -(1 << 40), np.int64)
    guess = position_guess(position) if kobj == 0 else 0
    legal = card_values(s, ctx, tabs, masks, kobj, thr_m, thr_v, len(thr_m), guess, ws.arrays, raw, ws.scratch)
    if legal < 0:
        raise SolverError(f"the search exceeded its node limit of {node_limit:,}")
    values = {int(card_of[i]): _to_objective(position, objective, int(raw[i])) for i in range(32) if (legal >> i) & 1}
    maximise = position.to_move in position.team
    v = max(values.values()) if maximise else min(values.values())
    best = [c for c, x in values.items() if x == v]
    order = {c: i for i, c in enumerate(position.legal_cards())}
    best.sort(key=order.get)
    values = dict(sorted(values.items(), key=lambda kv: order[kv[0]]))
    return Solution(objective, position.to_move, values, best, v, ws.nodes, time.perf_counter() - t0)


def position_guess(position: Position) -> int:
    """A first guess for MTD(f): half of the points still out on top of those taken."""
    g = position.game
    team = g.team
    taken = sum(sum(_pts(c) for c in cs) for _, cs, w in g.tricks if w in team)
    out = 120 - sum(sum(_pts(c) for c in cs) for _, cs, _ in g.tricks)
    return taken + out // 2


def _pts(c: int) -> int:
    from simkit.cards import CARD_POINTS
    return CARD_POINTS[c]


def position_value(position: Position, objective: str = "points", *, workspace: Workspace | None = None,
                   node_limit: int | None = None) -> int:
    """The value of the position itself (cheaper than :func:`solve` when the cards' values are not needed)."""
    from simkit.solver.values import position_value as kernel_value

    if position.is_over:
        return _final(position, objective)
    ws = workspace or default_workspace()
    kobj, thr_m, thr_v = _chain(position, objective)
    ws.start(node_limit)
    s, ctx, tabs, masks, _ = _kernel_position(position, ws)
    guess = position_guess(position) if kobj == 0 else 0
    raw = kernel_value(s, ctx, tabs, masks, kobj, thr_m, thr_v, len(thr_m), guess, ws.arrays)
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
