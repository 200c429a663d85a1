"""The kernels the whole-deal kernel calls by address: the native part of the strategy interface.

A strategy whose decisions are compiled kernels of its own (the built-ins ``people`` and ``pimc``) sits at a
*native* seat (simkit.strategies.dispatch.S_NATIVE) and brings their addresses
(:meth:`simkit.strategies.Strategy.natives`). The kernel (simkit.engine.game) is handed ``natives``,
int64[4, N_NATIVES]: per seat, at each slot, the address of the entry that seat's strategy brings, 0 where it brings
none. It compiles in only the signatures declared here, never the entries themselves, and it imports no strategy
that brings them. A native seat

* bids by its :data:`N_BID_EVAL` entry (:data:`EVAL_SIG`: the rule tables and the workspace too) if it brings
  one, else by its :data:`N_BID` entry (:data:`BID_SIG`), else as the heuristic;
* doubles (Kontra, Re) by its :data:`N_DOUBLE` entry (:data:`EVAL_SIG`) if it brings one, else as the heuristic,
  from the heuristic's part of its config (which a native strategy's config starts with);
* plays a card by its :data:`N_PLAY` entry (:data:`PLAY_SIG`) if it brings one, else by its :data:`N_DECIDE`
  entry (:data:`DECIDE_SIG`) given the heuristic's card, else as the heuristic. A seat with one legal card gets it
  without a call.

The bid and play entries take the kernel's arrays as data pointers, as the heuristic's kernel entries do (a call
with array structs costs ~15 ns; a card decision is a few hundred), and ``work_p``: float64 words of work space, at
least the :attr:`~simkit.strategies.Strategy.native_work` the strategy declares (the kernel allocates nothing). The
decision entry takes arrays, the rule tables a search needs and the workspace of :data:`WORKSPACE_TYPE` that the
strategy builds (:meth:`simkit.strategies.Strategy.workspace`; pimc: the solver's table and the sampler's arrays);
the kernel passes :func:`empty_workspace` when no seat brings one.
"""

from __future__ import annotations

import numpy as np
from numba import types
from numba.np.numpy_support import as_dtype

from simkit.engine.jitcache import call_at, files

#: the files a kernel that calls through this interface compiles in
DEPENDENCIES = files("strategies/natives", "engine/jitcache")

#: slots of the kernel's ``natives`` argument (its second axis; the first is the seat)
N_BID, N_PLAY, N_DECIDE, N_BID_EVAL, N_DOUBLE = range(5)
N_NATIVES = 5


def _arr(dtype, ndim):
    return types.Array(dtype, ndim, "C")


_I64 = types.int64
_P = types.CPointer

#: ``bid(hand, seat, info_p, strength_p, params_p, n_params, config_p, n_config, work_p) -> bid code``: ``info``
#: int64[INFO_SIZE], ``strength`` int16[variants, 32], ``params`` int64[n_params], ``config`` float64[n_config]
#: (simkit.strategies.api), ``work_p`` the work space
BID_SIG = _I64(_I64, _I64, _P(_I64), _P(types.int16), _P(_I64), _I64, _P(types.float64), _I64, _P(types.float64))

#: ``play(hand, legal, seat, info_p, strength_p, eff_suit_p, config_p, n_config, deck, trump_mask, out, best,
#: winner, points, work_p) -> card``: ``legal`` has at least two cards; ``eff_suit`` int8[variants, 32];
#: ``deck`` the deck mask, ``trump_mask`` the contract's trumps, ``out`` the cards this seat has not seen (neither
#: played nor in its hand), ``best``/``winner``/``points`` the best card of the trick so far (-1 when leading), its
#: seat and the trick's card points: what the heuristic's kernel entry is given
PLAY_SIG = _I64(_I64, _I64, _I64, _P(_I64), _P(types.int16), _P(types.int8), _P(types.float64), _I64, _I64, _I64,
                _I64, _I64, _I64, _I64, _P(types.float64))

#: numba type of the workspace a decision entry is passed (an argument of the whole-deal kernel): twenty arrays,
#: laid out by the strategy that builds it (simkit.strategies.pimc, ``PW_*``; the last two, int64 and float64 work
#: words, hold its inference's)
WORKSPACE_TYPE = types.Tuple([
    _arr(_I64, 3), _arr(types.uint32, 2), _arr(_I64, 2), _arr(_I64, 2), _arr(_I64, 2), _arr(types.int8, 2),
    _arr(_I64, 1), _arr(_I64, 1), _arr(_I64, 1), _arr(_I64, 4), _arr(_I64, 2), _arr(_I64, 1), _arr(_I64, 1),
    _arr(_I64, 1), _arr(_I64, 1), _arr(_I64, 1), _arr(_I64, 1), _arr(_I64, 1), _arr(_I64, 1),
    _arr(types.float64, 1)])

#: ``decide(hand, legal, seat, info, strength, eff_suit, params, config, heuristic_card, suit_mask,
#: laufende_order, n_trumps, lauf_min, base_price, points, workspace) -> card``
DECIDE_SIG = _I64(_I64, _I64, _I64, _arr(_I64, 1), _arr(types.int16, 2), _arr(types.int8, 2), _arr(_I64, 1),
                  _arr(types.float64, 1), _I64, _arr(types.uint32, 2), _arr(types.int8, 2), _arr(types.int8, 1),
                  _arr(_I64, 1), _arr(_I64, 1), _arr(_I64, 1), WORKSPACE_TYPE)

#: ``bid_eval`` / ``double`` (slots N_BID_EVAL, N_DOUBLE): ``(hand, seat, info, strength, eff_suit, params, config,
#: suit_mask, laufende_order, n_trumps, lauf_min, base_price, points, workspace) -> bid code / 0 or 1``: what a
#: decision that plays deals out needs (pimc: simkit.strategies.pimc_bid); called once a deal and seat, not per card
EVAL_SIG = _I64(_I64, _I64, _arr(_I64, 1), _arr(types.int16, 2), _arr(types.int8, 2), _arr(_I64, 1),
                _arr(types.float64, 1), _arr(types.uint32, 2), _arr(types.int8, 2), _arr(types.int8, 1),
                _arr(_I64, 1), _arr(_I64, 1), _arr(_I64, 1), WORKSPACE_TYPE)

# jitted code's calls of the entries at an address: ``bid_at(address, *args of BID_SIG)`` and so on
bid_at = call_at(BID_SIG, "natives_bid", __file__)
play_at = call_at(PLAY_SIG, "natives_play", __file__)
decide_at = call_at(DECIDE_SIG, "natives_decide", __file__)
eval_at = call_at(EVAL_SIG, "natives_eval", __file__)


def empty_workspace() -> tuple:
    """A workspace of :data:`WORKSPACE_TYPE` with no room, for kernel calls where no seat brings one."""
    return tuple(np.zeros((1,) * t.ndim, as_dtype(t.dtype)) for t in WORKSPACE_TYPE.types)


def seat_natives(strategies) -> np.ndarray:
    """The kernel's ``natives`` for four seats' strategies: int64[4, N_NATIVES], each seat's entries compiled (or
    loaded from the cache) only when a seat plays that strategy, 0 where it brings none (never called then)."""
    out = np.zeros((4, N_NATIVES), np.int64)
    for seat, s in enumerate(strategies):
        for slot, address in s.natives().items():
            out[seat, slot] = address
    return out


__all__ = ["BID_SIG", "DECIDE_SIG", "EVAL_SIG", "N_BID", "N_BID_EVAL", "N_DECIDE", "N_DOUBLE", "N_NATIVES", "N_PLAY",
           "PLAY_SIG", "WORKSPACE_TYPE", "bid_at", "decide_at", "empty_workspace", "eval_at", "play_at",
           "seat_natives"]
