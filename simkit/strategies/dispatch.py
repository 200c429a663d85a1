"""How the whole-deal kernel calls a seat's strategy: built-ins by integer id, plug-ins as first-class functions.

Each seat has a strategy id (``sids[seat]``): :data:`S_RANDOM` and :data:`S_HEURISTIC` are built in and called
through an ``if`` chain (DESIGN.md: ~0.4 ns, and the on-disk cache survives; ``random`` is inlined, the heuristic
is a direct call of its explicit-signature functions); :data:`S_PLUGIN`
calls the seat's entry of a tuple of four first-class functions (``numba.types.FunctionType`` of the api
signature, ~2-15 ns per call, also cached). For a built-in seat the tuple entry is a filler (any function of the
right signature, :data:`FILLER`); it is never called.

The kernel (simkit.engine.game) calls :func:`call_bid` and :func:`call_double`; the ``play`` chain is written
out in the kernel's card loop (the same branches), because inlining :func:`call_play` there measured 1.4x slower;
there a heuristic seat with one legal card gets it without a call (what ``heuristic.play`` returns), and otherwise
``heuristic.play_kernel`` is called with the trick so far that the kernel already knows (the same card, fewer
arguments, measured 1.1-1.3x faster whole deals).

:data:`S_PIMC` bids and doubles through the heuristic's entries (its config starts with the heuristic's); its play
is the decision entry of simkit.strategies.natives, which the kernel's card loop calls by the address and with the
workspace that the seat's strategy brings (pimc's decide over the solver), so :func:`call_play` does not serve it
(outside the kernel, ``pimc.play`` keeps a workspace per process).

Adding a built-in strategy: a module with ``bid``/``double``/``play`` of the api signatures, a new id here, one
``elif`` per decision below (and in the play chain of simkit.engine.game), and entries in ``BUILTIN_NAMES`` and
``_builtin`` of simkit.strategies (with the native entries and workspace it brings, if the kernel calls it by
address: simkit.strategies.natives).
"""

from __future__ import annotations

from numba import njit

from simkit.engine.jitcache import files, stamp_module
from simkit.strategies import heuristic as _heuristic
from simkit.strategies.people import model as _people
from simkit.strategies import random_play as _random
from simkit.strategies.natives import DEPENDENCIES as _NATIVES_DEPS
from simkit.strategies.natives import N_PEOPLE_BID

#: the files that :func:`call_bid` and :func:`call_double` compile in (the whole-deal kernel inlines them): the
#: people model is called by address, so only its signatures (model.py) are compiled in
DEPENDENCIES = sorted(set(files("strategies/dispatch", "strategies/people/model", "engine/jitcache")
                          + _random.DEPENDENCIES + _heuristic.DEPENDENCIES + _NATIVES_DEPS))

S_PLUGIN = -1
S_RANDOM = 0
S_HEURISTIC = 1
S_PIMC = 2  # plays by simkit.strategies.pimc (the kernel's card loop); bids and doubles as the heuristic
S_PEOPLE = 3  # bids and plays by the people model (simkit.strategies.people); doubles as the heuristic

#: (bid, double, play) dispatchers usable as the filler of a built-in seat in the plug-in tuples
FILLER = (_random.bid, _random.double, _random.play)

# ``random`` is inlined into the kernel (numba IR inlining of the same Python functions; a call of an
# explicit-signature dispatcher costs ~15 ns since every array argument is passed as a struct). The heuristic is
# called, not inlined: inlining its three functions made the kernel's cold compile take minutes.
_r_bid, _r_double, _r_play = (njit(inline="always")(f.py_func) for f in FILLER)
_h_bid, _h_double, _h_play = _heuristic.bid, _heuristic.double, _heuristic.play
# the kernel's own entry of the heuristic's play (fewer arguments, the trick so far given): simkit.engine.game
_h_play_kernel = _heuristic.play_kernel
_h_trump_mask = _heuristic._trump_mask
_data_ptr = _heuristic.data_ptr
_h_bid_kernel, _h_double_kernel = _heuristic.bid_kernel, _heuristic.double_kernel
# the people model's kernels, by the address the kernel is given (``natives``, slots of simkit.strategies.natives)
_p_bid_at, _p_play_at = _people.BID_KERNEL.call_at, _people.PLAY_KERNEL.call_at
#: float64 words of the kernel's ``work_f`` buffer (the people model's features of one decision)
WORK_F_SIZE = _people.WORK_SIZE


@njit(cache=True, inline="always")
def call_bid(sid, fns, hand, seat, info, strength, eff_suit, params, config, work_f, natives):
    if sid == S_RANDOM:
        return _r_bid(hand, seat, info, strength, eff_suit, params, config)
    elif sid == S_HEURISTIC or sid == S_PIMC:  # heuristic.bid, its arrays as data pointers (fewer arguments)
        return _h_bid_kernel(hand, seat, _data_ptr(info), _data_ptr(strength), _data_ptr(params), params.shape[0],
                             _data_ptr(config), config.shape[0])
    elif sid == S_PEOPLE:
        return _p_bid_at(natives[N_PEOPLE_BID], hand, seat, _data_ptr(info), _data_ptr(strength), _data_ptr(params),
                         params.shape[0], _data_ptr(config), config.shape[0], _data_ptr(work_f))
    return fns[seat](hand, seat, info, strength, eff_suit, params, config)


@njit(cache=True, inline="always")
def call_double(sid, fns, hand, seat, info, strength, eff_suit, params, config):
    if sid == S_RANDOM:
        return _r_double(hand, seat, info, strength, eff_suit, params, config)
    elif sid == S_HEURISTIC or sid == S_PIMC or sid == S_PEOPLE:  # heuristic.double (people's config starts
        # with the heuristic's), its arrays as data pointers (fewer arguments)
        return _h_double_kernel(hand, seat, _data_ptr(info), _data_ptr(params), params.shape[0], _data_ptr(config),
                                config.shape[0])
    return fns[seat](hand, seat, info, strength, eff_suit, params, config)


@njit(cache=True, inline="always")
def call_play(sid, fns, hand, legal, seat, info, strength, eff_suit, params, config):
    if sid == S_RANDOM:
        return _r_play(hand, legal, seat, info, strength, eff_suit, params, config)
    elif sid == S_HEURISTIC:
        return _h_play(hand, legal, seat, info, strength, eff_suit, params, config)
    elif sid == S_PEOPLE:
        return _people.play(hand, legal, seat, info, strength, eff_suit, params, config)
    return fns[seat](hand, legal, seat, info, strength, eff_suit, params, config)


# the on-disk cache is keyed on all of them (simkit.engine.jitcache); call_play calls the people model's play too
stamp_module(globals(), sorted(set(DEPENDENCIES + _people.DEPENDENCIES)))
