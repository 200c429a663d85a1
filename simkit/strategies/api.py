"""The strategy interface: what a strategy is called with, what it returns, and helpers for writing one.

A strategy takes four decisions for one seat, each a Numba ``@njit`` function with a fixed signature (so that the
whole-deal kernel can call built-in strategies by integer id and user plug-ins as first-class functions, and both
stay in numba's on-disk cache):

``bid(hand, seat, info, strength, eff_suit, params, config) -> int64``
    A bid code: :data:`PASS` or :func:`bid_code` (kind, suit, tout). Called once per seat, seat 0 first.
``double(hand, seat, info, strength, eff_suit, params, config) -> int64``
    1 to say Kontra (a defender) or Re (the declaring side, when asked), else 0.
``play(hand, legal, seat, info, strength, eff_suit, params, config) -> int64``
    One card (0..31) of the mask ``legal``.
``klopfen(hand, seat, info, strength, eff_suit, params, config) -> int64`` (optional; :data:`KLOPFEN_SIG`)
    1 to knock (Klopfen, RULES.md 4.1: the price of the deal doubles), else 0. Asked only when the ruleset has
    ``klopfen`` (``params[P_KLOPFEN]``), of each seat in turn from seat 0, before the bidding; ``hand`` is then
    the ``params[P_KLOPFEN_CARDS]`` cards of its hand the seat has seen (``info[I_PHASE]`` is
    :data:`PHASE_KLOPFEN`), and ``info[I_KNOCKED]`` has a bit for every earlier seat that knocked. A strategy
    without it never knocks (:func:`never_knock`).

Arguments (all int64 unless noted):

* ``hand``: the seat's own cards now (a mask; bit ``c`` set for card ``c`` = 8 * suit + rank).
* ``legal``: the cards the rules allow now (never empty; always a subset of ``hand``).
* ``seat``: 0..3; seat 0 is forehand (bids first, leads the first trick).
* ``info``: int64[INFO_SIZE], the public state of the deal at the ``I_*`` indices below, plus the seat's own
  random stream (:func:`rng_below`). A strategy may write only ``info[I_RNG]`` (through the rng helpers) and the
  scratch words ``info[I_SCRATCH:]`` which belong to the seat being asked (they are zeroed at the deal's start and
  kept per seat). Everything else is read-only; the kernel rewrites it before each call.
* ``strength``: int16[16, 32] and ``eff_suit``: int8[16, 32]: the rule tables of every contract variant
  (simkit.rules.tables): trick strength and effective suit (4 = trump) of each card. Use
  ``info[I_VARIANT]`` for the contract being played, and any row while bidding.
* ``params``: int64[...]: the ruleset's numbers at the ``P_*`` indices of simkit.rules.tables (tariff, deck, which
  contracts are enabled, Tout, doublings).
* ``config``: float64[...]: this seat's strategy configuration (e.g. the heuristic's threshold table).

A strategy never sees other hands: they are not passed. Returning an illegal card, an impossible bid (a disabled
contract, a Rufspiel without a callable ace, ...) stops the run with an error that names the strategy, the seat, the
deal and the choice; the engine never replaces a choice silently.
"""

from __future__ import annotations

import numpy as np
from numba import njit, types

from simkit.engine.bits import cttz, nth_bit, popcount
from simkit.engine.jitcache import cached, files, source_stamp, stamp_module
from simkit.engine.rng import below, next_u64

#: the files its kernels compile in: the on-disk cache is keyed on all of them (simkit.engine.jitcache)
DEPENDENCIES = files("strategies/api", "engine/bits", "engine/rng")

# ------------------------------------------------------------------------------------------- signatures

_HAND = types.int64
_INFO = types.int64[::1]
_STRENGTH = types.int16[:, ::1]
_EFF = types.int8[:, ::1]
_PARAMS = types.int64[::1]
_CONFIG = types.float64[::1]

BID_SIG = types.int64(_HAND, types.int64, _INFO, _STRENGTH, _EFF, _PARAMS, _CONFIG)
DOUBLE_SIG = types.int64(_HAND, types.int64, _INFO, _STRENGTH, _EFF, _PARAMS, _CONFIG)
PLAY_SIG = types.int64(_HAND, types.int64, types.int64, _INFO, _STRENGTH, _EFF, _PARAMS, _CONFIG)
KLOPFEN_SIG = BID_SIG  # the fourth decision: same arguments as bid (hand = the cards seen so far)

# ----------------------------------------------------------------------------------------------- bids

PASS = -1


@njit(cache=True, inline="always")
def bid_code(kind, suit, tout):
    """Encode a declaration: ``kind`` 0..7 (simkit.rules.contracts; 6 Bettel and 7 Sie take suit -1 and no Tout),
    ``suit`` 0..3 or -1, ``tout`` bool."""
    return np.int64(kind) | (np.int64(suit + 1) << np.int64(3)) | (np.int64(1 if tout else 0) << np.int64(6))


@njit(cache=True, inline="always")
def bid_kind(code):
    return code & 7


@njit(cache=True, inline="always")
def bid_suit(code):
    return ((code >> 3) & 7) - 1


@njit(cache=True, inline="always")
def bid_tout(code):
    return (code >> 6) & 1


def decode_bid(code: int) -> tuple[int, int, bool] | None:
    """(kind, suit or -1, tout) of a bid code, None for a pass (Python side)."""
    code = int(code)
    if code == PASS:
        return None
    return code & 7, ((code >> 3) & 7) - 1, bool((code >> 6) & 1)


# ------------------------------------------------------------------------------------- the info layout

I_RNG = 0            # the asked seat's random stream (uint64 bits); use rng_below / rng_u64
I_PHASE = 1          # PHASE_BID, PHASE_DOUBLE or PHASE_PLAY
I_DEAL = 2           # deal index within the run (for messages; strategies should not need it)
I_HAND_SIZE = 3      # 8 (long deck) or 6 (short deck)
I_BIDS = 4           # 4 words: the bid code of each seat; NOT_ASKED for seats not yet asked
I_KIND = 8           # contract kind being played (-1 while bidding; 6 Bettel, 7 Sie, 8 Ramsch)
I_SUIT = 9           # trump suit (solo, farbwenz, farbgeier) or called suit (rufspiel); -1 otherwise
I_TOUT = 10          # 1 for a Tout
I_DECLARER = 11      # declaring seat (-1 while bidding)
I_VARIANT = 12       # row of strength / eff_suit for the contract being played (-1 while bidding; 15 Bettel, 0 Ramsch)
I_DOUBLINGS = 13     # 0, 1 (Kontra), 2 (Re)
I_KONTRA_SEAT = 14   # who said Kontra (-1)
I_RE_SEAT = 15       # who said Re (-1)
I_TRICK_NO = 16      # 0-based number of the trick in progress
I_LEADER = 17        # seat that led the trick in progress
I_N_IN_TRICK = 18    # cards already in the trick in progress (0: the asked seat leads)
I_TRICK = 19         # 4 words: the cards of the trick in progress in play order (-1 where none yet)
I_PLAYED = 23        # mask of every card played so far
I_PLAYED_BY = 24     # 4 words: mask of the cards each seat has played so far
I_POINTS = 28        # 4 words: card points each seat has taken in completed tricks
I_TRICKS_WON = 32    # 4 words: tricks each seat has taken
I_SEARCHED = 36      # 1 once the called suit has been searched (Rufspiel), else 0
I_PARTNER_SHOWN = 37 # seat that played the called ace (-1 until it is played); the partner is public from then
I_HISTORY_LEADER = 38   # 8 words: leader of trick t
I_HISTORY_CARDS = 46    # 32 words: card k of trick t (in play order) at I_HISTORY_CARDS + 4 * t + k
I_HISTORY_WINNER = 78   # 8 words: winner of trick t
I_KNOCKED = 86       # a bit per seat that knocked (Klopfen, RULES.md 4.1); the price doubles per knock
I_SCRATCH = 87       # 10 words of per-seat scratch memory, kept between this seat's calls within a deal
N_SCRATCH = 10
INFO_SIZE = 97

NOT_ASKED = -2
PHASE_BID = 0
PHASE_DOUBLE = 1
PHASE_PLAY = 2
PHASE_KLOPFEN = 3    # before the bidding: the seat has seen params[P_KLOPFEN_CARDS] cards of its hand

# ---------------------------------------------------------------------------------------- helpers


@njit(cache=True, inline="always")
def rng_u64(info):
    """64 random bits from the asked seat's stream (advances it)."""
    x, s = next_u64(np.uint64(info[I_RNG]))
    info[I_RNG] = np.int64(s)
    return x


@njit(cache=True, inline="always")
def rng_below(info, n):
    """A uniform draw in 0..n-1 from the asked seat's stream (advances it)."""
    r, s = below(np.uint64(info[I_RNG]), n)
    info[I_RNG] = np.int64(s)
    return r


@njit(cache=True, inline="always")
def random_card(legal, info):
    """A uniformly random card of ``legal`` (no draw when only one card is legal)."""
    n = popcount(legal)
    if n == 1:
        return cttz(legal)
    return nth_bit(legal, rng_below(info, n))


@njit(cache=True, inline="always")
def sie_mask(hand_size):
    """The hand that may declare Sie (RULES.md 4.3): the top trumps of the solo order, every Ober and Unter (long
    deck), the four Ober with the Eichel and Gras Unter (short deck, ``hand_size`` 6)."""
    if hand_size == 8:
        return np.int64(0x18181818)
    return np.int64(0x10101010 | (1 << 3) | (1 << 11))


@cached(source_stamp(DEPENDENCIES), KLOPFEN_SIG)
def never_knock(hand, seat, info, strength, eff_suit, params, config):
    """The ``klopfen`` of a strategy that brings none: it never knocks."""
    return 0


__all__ = [
    "BID_SIG", "DOUBLE_SIG", "PLAY_SIG", "KLOPFEN_SIG", "never_knock", "sie_mask", "PASS", "NOT_ASKED", "PHASE_BID",
    "PHASE_DOUBLE", "PHASE_PLAY",
    "PHASE_KLOPFEN",
    "INFO_SIZE", "N_SCRATCH", "bid_code", "bid_kind", "bid_suit", "bid_tout", "decode_bid", "rng_u64", "rng_below",
    "random_card", "popcount", "cttz", "nth_bit",
] + [n for n in dir() if n.startswith("I_")]


stamp_module(globals(), DEPENDENCIES)
