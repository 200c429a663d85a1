"""The solver's card tables, built from the engine's rule tables: every contract variant in *rank space*.

In rank space a card's id is its place in the contract's order (simkit.solver.search): the side suits E, G, H, S
each take a run of consecutive ids, weakest first, and the trumps take the highest ids. Per variant ``v``:

* ``card_of[v, id]``: the card (``8 * suit + rank``) of an id, -1 past the deck; ``id_of[v, card]``: its id, -1
  for a card outside the deck;
* ``tabs[v]``: the ``T_*`` rows of simkit.solver.search (effective suit, points, the masks of the cards below and
  above each id in its suit, the masks of the point classes, the runs of equal cards);
* ``suit_mask[v, e]``: the ids of effective suit ``e`` (0..3, 4 = trump), a range of bits.

Everything is derived from ``simkit.rules.tables.build_tables`` (strength and effective suit per variant), so the
solver and the engine read one definition of the rules.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from simkit.rules.ruleset import Ruleset
from simkit.rules.tables import N_VARIANTS, TRUMP, build_tables
from simkit.solver.search import (
    MAX_RUNS,
    N_TABS,
    T_ABOVE,
    T_BELOW,
    T_CHEAP,
    T_CLASS,
    T_DEAR,
    T_EFF,
    T_LEAD,
    T_LOW,
    T_POINTS,
    T_RUNS,
)

CLASS_POINTS = (0, 2, 3, 4, 10, 11)


class SolverTables(NamedTuple):
    tabs: np.ndarray  # int64[15, N_TABS, 32]
    suit_mask: np.ndarray  # uint32[15, 5]
    card_of: np.ndarray  # int64[15, 32]
    id_of: np.ndarray  # int64[15, 32]


_CACHE: dict[Ruleset, SolverTables] = {}


def solver_tables(rules: Ruleset) -> SolverTables:
    """The rank-space tables of every variant of ``rules`` (memoised)."""
    if rules not in _CACHE:
        _CACHE[rules] = solver_tables_from(build_tables(rules))
    return _CACHE[rules]


def solver_tables_from(t) -> SolverTables:
    """The rank-space tables of the engine's rule tables ``t`` (simkit.rules.tables.RuleTables)."""
    tabs = np.zeros((N_VARIANTS, N_TABS, 32), np.int64)
    suit_mask = np.zeros((N_VARIANTS, 5), np.uint32)
    card_of = np.full((N_VARIANTS, 32), -1, np.int64)
    id_of = np.full((N_VARIANTS, 32), -1, np.int64)
    deck = [c for c in range(32) if (t.deck_mask >> c) & 1]
    for v in range(N_VARIANTS):
        order = sorted(deck, key=lambda c: (int(t.eff_suit[v, c]), int(t.strength[v, c])))
        assert all(t.eff_suit[v, c] == TRUMP for c in order[len(order) - int(t.n_trumps[v]):]), "trumps on top"
        for i, c in enumerate(order):
            card_of[v, i] = c
            id_of[v, c] = i
            e = int(t.eff_suit[v, c])
            tabs[v, T_EFF, i] = e
            tabs[v, T_POINTS, i] = t.points[c]
            suit_mask[v, e] |= np.uint32(1 << i)
        for i, c in enumerate(order):
            pts = int(t.points[c])
            tabs[v, T_DEAR, i] = 32 * pts + i
            tabs[v, T_CHEAP, i] = 32 * (11 - pts) + 31 - i
            tabs[v, T_LOW, i] = 31 - i
            # trumps above every T_DEAR key (at most 32 * 11 + 31); gen_moves needs every key below 1024
            tabs[v, T_LEAD, i] = 512 + i if t.eff_suit[v, c] == TRUMP else 32 * pts + i
            same = int(suit_mask[v, int(t.eff_suit[v, c])])
            tabs[v, T_BELOW, i] = same & ((1 << i) - 1)
            tabs[v, T_ABOVE, i] = same & ~((2 << i) - 1)
        for j, pts in enumerate(CLASS_POINTS):
            tabs[v, T_CLASS, j] = sum(1 << i for i, c in enumerate(order) if t.points[c] == pts)
        runs = []
        start = 0
        for i in range(1, len(order) + 1):
            if i == len(order) or tabs[v, T_EFF, i] != tabs[v, T_EFF, start] or \
                    tabs[v, T_POINTS, i] != tabs[v, T_POINTS, start]:
                if i - start > 1:
                    runs.append((start, i - start))
                start = i
        assert len(runs) <= MAX_RUNS
        for r, (lo, n) in enumerate(runs):
            tabs[v, T_RUNS, 2 * r] = lo
            tabs[v, T_RUNS, 2 * r + 1] = n
    return SolverTables(tabs, suit_mask, card_of, id_of)

