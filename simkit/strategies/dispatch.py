"""How the whole-deal kernel calls a seat's strategy, by the seat's strategy id (``sids[seat]``), never by name.

* :data:`S_RANDOM` and :data:`S_HEURISTIC`: built in, called through an ``if`` chain (DESIGN.md: ~0.4 ns, and the
  on-disk cache survives; ``random`` is inlined, the heuristic is a direct call of its kernel entries).
* :data:`S_NATIVE`: a strategy that brings compiled entries of its own (``people``, ``pimc``), called at the
  addresses it brings with the signatures of simkit.strategies.natives, which also says what a native seat does
  where it brings no entry (it bids, doubles or plays as the heuristic).
* :data:`S_PLUGIN`: the seat's entry of a tuple of four first-class functions (``numba.types.FunctionType`` of the
  api signature, ~2-15 ns per call, also cached). For a built-in or native seat the tuple entry is a filler (any
  function of the right signature, :data:`FILLER`); it is never called.

The kernel (simkit.engine.game) calls :func:`call_klopfen`, :func:`call_bid` and :func:`call_double`; a native
seat knocks as the heuristic (``heuristic.klopfen``), a plug-in without ``klopfen`` never knocks
(simkit.strategies.api.never_knock). The ``play`` chain (the same
branches) is written out in the kernel's card loop, because inlining a helper there measured 1.4x slower; there a
seat with one legal card gets it without a call, and the heuristic's kernel entry is called with the trick so far
that the kernel already knows (measured 1.1-1.3x faster whole deals than its api entry).

Adding a strategy needs nothing here: a plug-in brings njit functions of the api signatures, a strategy with
compiled kernels of its own brings their addresses (simkit.strategies.natives), and either one is an entry in the
registry (simkit.strategies).
"""

from __future__ import annotations

from numba import njit

from simkit.engine.jitcache import files, stamp_module
from simkit.strategies import heuristic as _heuristic
from simkit.strategies import random_play as _random
from simkit.strategies.natives import DEPENDENCIES as _NATIVES_DEPS
from simkit.strategies.natives import N_BID, N_BID_EVAL, N_DOUBLE, bid_at, eval_at

#: the files that :func:`call_bid` and :func:`call_double` compile in (the whole-deal kernel inlines them): native
#: entries are called by address, so only their signatures (natives.py) are compiled in
DEPENDENCIES = sorted(set(files("strategies/dispatch", "engine/jitcache") + _random.DEPENDENCIES
                          + _heuristic.DEPENDENCIES + _NATIVES_DEPS))

S_PLUGIN = -1
S_RANDOM = 0
S_HEURISTIC = 1
S_NATIVE = 2  # calls the entries its strategy brings by address (simkit.strategies.natives), else the heuristic

#: (bid, double, play, klopfen) dispatchers usable as the filler of a built-in seat in the plug-in tuples
FILLER = (_random.bid, _random.double, _random.play, _random.klopfen)

# ``random`` is inlined into the kernel (numba IR inlining of the same Python functions; a call of an
# explicit-signature dispatcher costs ~15 ns since every array argument is passed as a struct). The heuristic is
# called, not inlined: inlining its three functions made the kernel's cold compile take minutes.
_r_bid, _r_double = (njit(inline="always")(f.py_func) for f in FILLER[:2])
_r_klopfen = njit(inline="always")(_random.klopfen.py_func)
_h_klopfen = _heuristic.klopfen
# the kernel's own entry of the heuristic's play (fewer arguments, the trick so far given): simkit.engine.game
_h_play_kernel = _heuristic.play_kernel
_data_ptr = _heuristic.data_ptr
_h_bid_kernel, _h_double_kernel = _heuristic.bid_kernel, _heuristic.double_kernel


@njit(cache=True, inline="always")
def call_bid(sid, fns, hand, seat, info, strength, eff_suit, params, config, work_f, natives, suit_mask, lorder,
             n_trumps, lauf_min, base_price, points, ws):
    if sid == S_RANDOM:
        return _r_bid(hand, seat, info, strength, eff_suit, params, config)
    elif sid == S_HEURISTIC or sid == S_NATIVE:
        if sid == S_NATIVE and natives[seat, N_BID_EVAL] != 0:  # a bid that plays deals out (pimc)
            return eval_at(natives[seat, N_BID_EVAL], hand, seat, info, strength, eff_suit, params, config,
                           suit_mask, lorder, n_trumps, lauf_min, base_price, points, ws)
        if sid == S_NATIVE and natives[seat, N_BID] != 0:  # the entry the seat's strategy brings
            return bid_at(natives[seat, N_BID], hand, seat, _data_ptr(info), _data_ptr(strength), _data_ptr(params),
                          params.shape[0], _data_ptr(config), config.shape[0], _data_ptr(work_f))
        # heuristic.bid, its arrays as data pointers (fewer arguments)
        return _h_bid_kernel(hand, seat, _data_ptr(info), _data_ptr(strength), _data_ptr(params), params.shape[0],
                             _data_ptr(config), config.shape[0])
    return fns[seat](hand, seat, info, strength, eff_suit, params, config)


@njit(cache=True, inline="always")
def call_double(sid, fns, hand, seat, info, strength, eff_suit, params, config, natives, suit_mask, lorder,
                n_trumps, lauf_min, base_price, points, ws):
    if sid == S_RANDOM:
        return _r_double(hand, seat, info, strength, eff_suit, params, config)
    elif sid == S_NATIVE and natives[seat, N_DOUBLE] != 0:  # the entry the seat's strategy brings (pimc)
        return eval_at(natives[seat, N_DOUBLE], hand, seat, info, strength, eff_suit, params, config, suit_mask,
                       lorder, n_trumps, lauf_min, base_price, points, ws)
    elif sid == S_HEURISTIC or sid == S_NATIVE:  # heuristic.double (a native strategy's config starts with the
        # heuristic's), its arrays as data pointers (fewer arguments)
        return _h_double_kernel(hand, seat, _data_ptr(info), _data_ptr(params), params.shape[0], _data_ptr(config),
                                config.shape[0])
    return fns[seat](hand, seat, info, strength, eff_suit, params, config)


@njit(cache=True, inline="always")
def call_klopfen(sid, fns, hand, seat, info, strength, eff_suit, params, config):
    """Klopfen (RULES.md 4.1): ``hand`` is the cards the seat has seen. A native seat knocks as the heuristic."""
    if sid == S_RANDOM:
        return _r_klopfen(hand, seat, info, strength, eff_suit, params, config)
    elif sid == S_HEURISTIC or sid == S_NATIVE:
        return _h_klopfen(hand, seat, info, strength, eff_suit, params, config)
    return fns[seat](hand, seat, info, strength, eff_suit, params, config)


stamp_module(globals(), DEPENDENCIES)
