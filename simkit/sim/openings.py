"""The opening positions of many deals of a run, solved double-dummy: whole-deal play, then the solver.

:func:`solve_openings` plays the deals' bidding (simkit.engine.game.play_games) and solves each opening position in
the contract played (simkit.solver.api.solve_played). It stands above both: the solver does not play whole deals.
"""

from __future__ import annotations

import os

import numpy as np

from simkit.engine.game import play_games
from simkit.solver.api import OBJECTIVES, SolverError, Workspace, solve_played


def solve_openings(seed: int, start: int, n: int, ruleset=None, *, objective: str = "points", cards: bool = False,
                   seats=("heuristic",) * 4, contract=None, declarer: int | None = None,
                   workers: int | None = None, node_limit: int | None = None) -> dict[str, np.ndarray]:
    """Solve the opening positions of deals ``start .. start+n-1`` of run ``seed``, as the contract each deal
    is played in a run with these ``seats`` (their bidding), or forced with ``contract``/``declarer`` (as
    ``simkit run --contract``). The deals are regenerated from (seed, deal index) and split over ``workers``
    processes (default: all cores); the values do not depend on the split.

    Returns the deal columns ``deal_id``, ``kind``, ``suit``, ``tout``, ``declarer`` (-1 passed), ``hands``, and
    the solver's ``value``, ``solved``, ``nodes`` (and ``card_values``, ``legal`` with ``cards``), one row a deal."""
    from simkit.parallel import map_jobs
    from simkit.rules.ruleset import load_ruleset

    rules = ruleset if hasattr(ruleset, "tariff") else load_ruleset(ruleset)
    if objective not in OBJECTIVES:
        raise SolverError(f"unknown objective {objective!r}; valid: {', '.join(OBJECTIVES)}")
    workers = max(1, min(workers or os.cpu_count() or 1, max(1, n)))
    bounds = [start + n * w // workers for w in range(workers + 1)]
    jobs = [(seed, a, b - a, rules, objective, cards, tuple(seats), contract, declarer, node_limit)
            for a, b in zip(bounds, bounds[1:]) if b > a]
    if len(jobs) > 1:  # load the kernels once here, so the forked workers inherit them
        _solve_openings_part(seed, start, 0, rules, objective, cards, tuple(seats), contract, declarer, None)
    parts = list(map_jobs(_solve_openings_part, jobs, len(jobs)))
    if not parts:
        return {}
    return {k: np.concatenate([p[k] for p in parts]) for k in parts[0]}


def _solve_openings_part(seed, start, n, rules, objective, cards, seats, contract, declarer, node_limit):
    games = play_games(seed, start, n, rules, seats=seats, contract=contract, declarer=declarer)
    out = {k: games[k] for k in ("deal_id", "kind", "suit", "tout", "declarer", "hands")}
    out.update(solve_played(games, rules, objective, cards=cards, workspace=Workspace(), node_limit=node_limit))
    return out


__all__ = ["solve_openings"]
