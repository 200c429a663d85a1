"""The ``random`` strategy: uniform random legal play, occasional random bids and doublings.

* ``bid``: with probability ``config[0]`` it declares a contract drawn uniformly from every (kind, suit) declaration
  its hand and the ruleset allow (enabled kinds; a Rufspiel only with a callable ace: E, G or S, not held, with a
  non-trump card of that suit); a solo-type declaration becomes Tout with probability ``config[2]`` when the
  ruleset allows Touts. Otherwise (and when nothing is allowed) it passes. It ignores the bids of the other seats.
  Bettel and Sie (with a Sie hand) are among the declarations where the ruleset enables them.
* ``double``: 1 (Kontra or Re) with probability ``config[1]``.
* ``klopfen``: 1 (knock) with probability ``config[3]`` (1/4).
* ``play``: a uniformly random card of ``legal`` (:func:`simkit.strategies.api.random_card`).

Every draw comes from the seat's own stream ``info[I_RNG]``. It keeps no scratch memory.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from simkit.engine.jitcache import cached, files, source_stamp, stamp_module
from simkit.rules.contracts import BETTEL, GEIER, RUFSPIEL, SIE, WENZ
from simkit.rules.tables import P_DECK_MASK, P_ENABLED, P_HAND_SIZE, P_TOUT_ALLOWED, TRUMP
from simkit.strategies.api import DEPENDENCIES as _API_DEPS
from simkit.strategies.api import (
    BID_SIG,
    DOUBLE_SIG,
    KLOPFEN_SIG,
    PASS,
    PLAY_SIG,
    bid_code,
    random_card,
    rng_below,
    rng_u64,
    sie_mask,
)

#: the files its kernels compile in: the on-disk cache is keyed on all of them (simkit.engine.jitcache)
DEPENDENCIES = files("strategies/random_play", "rules/contracts", "rules/tables") + _API_DEPS
_STAMP = source_stamp(DEPENDENCIES)

DESCRIPTION = "uniform over the legal cards; bids a random allowed contract with probability config[0]"
CONFIG_NAMES = ("bid_probability", "double_probability", "tout_share", "klopfen_probability")
DEFAULT_CONFIG = np.array([0.1, 0.02, 0.1, 0.25], dtype=np.float64)
USES_SCRATCH = False  # the kernel need not keep info[I_SCRATCH:] for its seats


@njit(cache=True, inline="always")
def _uniform(info):
    return np.float64(rng_u64(info) >> np.uint64(11)) * (1.0 / 9007199254740992.0)


@njit(cache=True, inline="always")
def _callable(hand, suit, eff_suit, deck):
    """May ``hand`` call the ace of ``suit`` in a Rufspiel? (not Herz, ace not held, a non-trump card held)"""
    if suit == 2 or (hand >> np.int64(8 * suit + 7)) & 1:
        return False
    for r in range(7):
        c = 8 * suit + r
        if (hand >> np.int64(c)) & 1 and (deck >> np.int64(c)) & 1 and eff_suit[0, c] != TRUMP:
            return True
    return False


@cached(_STAMP, BID_SIG)
def bid(hand, seat, info, strength, eff_suit, params, config):
    p = config[0] if config.shape[0] > 0 else 0.1
    if _uniform(info) >= p:
        return PASS
    enabled = params[P_ENABLED]
    deck = params[P_DECK_MASK]
    sie = hand == sie_mask(params[P_HAND_SIZE])
    n = 0
    for kind in range(8):  # the classic six, Bettel, Sie: a kind the ruleset does not enable adds nothing
        if not (enabled >> kind) & 1:
            continue
        if kind == RUFSPIEL:
            for s in (0, 1, 3):
                if _callable(hand, s, eff_suit, deck):
                    n += 1
        elif kind == WENZ or kind == GEIER or kind == BETTEL:
            n += 1
        elif kind == SIE:
            n += 1 if sie else 0
        else:
            n += 4
    if n == 0:
        return PASS
    r = rng_below(info, n)
    kind = 0
    suit = -1
    for k in range(8):
        if not (enabled >> k) & 1:
            continue
        if k == RUFSPIEL:
            for s in (0, 1, 3):
                if _callable(hand, s, eff_suit, deck):
                    if r == 0:
                        return bid_code(RUFSPIEL, s, False)
                    r -= 1
        elif k == BETTEL or k == SIE:  # no suit, no Tout
            if k == SIE and not sie:
                continue
            if r == 0:
                return bid_code(k, -1, False)
            r -= 1
        elif k == WENZ or k == GEIER:
            if r == 0:
                kind = k
                suit = -1
                break
            r -= 1
        else:
            if r < 4:
                kind = k
                suit = r
                break
            r -= 4
    tout = False
    if params[P_TOUT_ALLOWED] != 0 and config.shape[0] > 2 and config[2] > 0.0:
        tout = _uniform(info) < config[2]
    return bid_code(kind, suit, tout)


@cached(_STAMP, DOUBLE_SIG)
def double(hand, seat, info, strength, eff_suit, params, config):
    p = config[1] if config.shape[0] > 1 else 0.0
    return 1 if _uniform(info) < p else 0


@cached(_STAMP, KLOPFEN_SIG)
def klopfen(hand, seat, info, strength, eff_suit, params, config):
    p = config[3] if config.shape[0] > 3 else 0.25
    return 1 if _uniform(info) < p else 0


@cached(_STAMP, PLAY_SIG)
def play(hand, legal, seat, info, strength, eff_suit, params, config):
    return random_card(legal, info)


stamp_module(globals(), DEPENDENCIES)
