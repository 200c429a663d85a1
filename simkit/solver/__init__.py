"""The double-dummy solver: with every hand open and perfect play by all four, what is each card worth?

Python API (numba kernels underneath; see docs/solver.md)::

    from simkit.solver import Position, solve
    pos = Position.from_record(record)          # a replay record whose tricks may stop after any card
    sol = solve(pos, objective="points")        # "points" | "win" | "payout"
    sol.to_move, sol.values, sol.best, sol.nodes

``threshold(pos, points=61)`` asks one yes/no question ("can the declaring side reach 61?"), the cheapest call;
``position_value`` the value of the position itself.
"""

from simkit.solver.api import (
    OBJECTIVES,
    Solution,
    SolverError,
    Workspace,
    position_value,
    solve,
    threshold,
)
from simkit.solver.position import Position, PositionError

__all__ = ["OBJECTIVES", "Position", "PositionError", "Solution", "SolverError", "Workspace", "position_value",
           "solve", "threshold"]
