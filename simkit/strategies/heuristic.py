"""The built-in ``heuristic`` strategy: what a sound club player does, written down as plain rules.

First version (wiring): Rufspiel on 5+ trumps calling the shortest callable suit, otherwise pass; no doubling;
play the legal card with the lowest strength. The full rules follow; see docs/heuristic.md.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from simkit.engine.bits import cttz, popcount
from simkit.strategies.api import BID_SIG, DOUBLE_SIG, I_VARIANT, PASS, PLAY_SIG, bid_code

DESCRIPTION = "rule-based club player: bids from hand strength, pulls trumps, searches the called ace, schmiert"

CONFIG_NAMES = ("rufspiel_min_trumps",)
DEFAULT_CONFIG = np.array([5.0], dtype=np.float64)

_OBERS = 0x10101010
_UNTERS = 0x08080808
_RUF_TRUMPS = _OBERS | _UNTERS | (0xFF << 16)


@njit(BID_SIG, cache=True)
def bid(hand, seat, info, strength, eff_suit, params, config):
    if not (params[12] & 1):
        return PASS
    if popcount(hand & _RUF_TRUMPS) < config[0]:
        return PASS
    best = -1
    best_n = 99
    for s in (0, 1, 3):
        side = hand & (0xFF << (8 * s)) & ~(_OBERS | _UNTERS)
        if side == 0 or (hand >> (8 * s + 7)) & 1:
            continue
        n = popcount(side)
        if n < best_n:
            best_n = n
            best = s
    if best < 0:
        return PASS
    return bid_code(0, best, False)


@njit(DOUBLE_SIG, cache=True)
def double(hand, seat, info, strength, eff_suit, params, config):
    return 0


@njit(PLAY_SIG, cache=True)
def play(hand, legal, seat, info, strength, eff_suit, params, config):
    v = info[I_VARIANT]
    m = legal
    best = cttz(m)
    while m:
        c = cttz(m)
        m &= m - 1
        if strength[v, c] < strength[v, best]:
            best = c
    return best
