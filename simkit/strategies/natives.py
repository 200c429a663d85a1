"""The kernels the whole-deal kernel calls by address, as the strategy interface declares them.

The kernel (simkit.engine.game) is handed ``natives``, int64[N_NATIVES]: at each slot the address of a compiled
kernel that a seat's strategy brings (:meth:`simkit.strategies.Strategy.natives`), 0 where no seat needs it (never
called then). It compiles in only the signatures declared here, never the kernels themselves, and it imports no
strategy that brings them:

* :data:`N_DECIDE`: a card decision with a workspace, of :data:`DECIDE_SIG` (pimc's, over the solver): the seat's
  arguments, the heuristic's card, the rule tables a search needs, and the workspace of :data:`WORKSPACE_TYPE`
  that the strategy builds (:meth:`simkit.strategies.Strategy.workspace`; pimc: the solver's table and the
  sampler's arrays). The kernel passes :func:`empty_workspace` when no seat brings one.
* :data:`N_PEOPLE_BID`, :data:`N_PEOPLE_PLAY`: the people model's bid and play (their signatures in
  simkit.strategies.people.model).
"""

from __future__ import annotations

import numpy as np
from numba import types
from numba.np.numpy_support import as_dtype

from simkit.engine.jitcache import call_at, files

#: the files a kernel that calls through this interface compiles in
DEPENDENCIES = files("strategies/natives", "engine/jitcache")

#: slots of the kernel's ``natives`` argument
N_DECIDE, N_PEOPLE_BID, N_PEOPLE_PLAY = range(3)
N_NATIVES = 3


def _arr(dtype, ndim):
    return types.Array(dtype, ndim, "C")


_I64 = types.int64
#: numba type of the workspace a decision entry is passed (an argument of the whole-deal kernel): eighteen arrays,
#: laid out by the strategy that builds it (simkit.strategies.pimc, ``PW_*``)
WORKSPACE_TYPE = types.Tuple([
    _arr(_I64, 3), _arr(types.uint32, 2), _arr(_I64, 2), _arr(_I64, 2), _arr(_I64, 2), _arr(types.int8, 2),
    _arr(_I64, 1), _arr(_I64, 1), _arr(_I64, 1), _arr(_I64, 4), _arr(_I64, 2), _arr(_I64, 1), _arr(_I64, 1),
    _arr(_I64, 1), _arr(_I64, 1), _arr(_I64, 1), _arr(_I64, 1), _arr(_I64, 1)])

#: ``decide(hand, legal, seat, info, strength, eff_suit, params, config, heuristic_card, suit_mask,
#: laufende_order, n_trumps, lauf_min, base_price, points, workspace) -> card``
DECIDE_SIG = _I64(_I64, _I64, _I64, _arr(_I64, 1), _arr(types.int16, 2), _arr(types.int8, 2), _arr(_I64, 1),
                  _arr(types.float64, 1), _I64, _arr(types.uint32, 2), _arr(types.int8, 2), _arr(types.int8, 1),
                  _arr(_I64, 1), _arr(_I64, 1), _arr(_I64, 1), WORKSPACE_TYPE)

#: jitted code's call of the decision entry at an address: ``decide_at(address, *args of DECIDE_SIG)``
decide_at = call_at(DECIDE_SIG, "natives_decide", __file__)


def empty_workspace() -> tuple:
    """A workspace of :data:`WORKSPACE_TYPE` with no room, for kernel calls where no seat brings one."""
    return tuple(np.zeros((1,) * t.ndim, as_dtype(t.dtype)) for t in WORKSPACE_TYPE.types)


__all__ = ["DECIDE_SIG", "N_DECIDE", "N_NATIVES", "N_PEOPLE_BID", "N_PEOPLE_PLAY", "WORKSPACE_TYPE", "decide_at",
           "empty_workspace"]
