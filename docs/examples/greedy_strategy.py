"""A worked plug-in strategy for simkit: "greedy".

Bids: a Wenz with 3+ Unter, else a Rufspiel when it holds 5+ Rufspiel trumps and can call an ace, else pass.
Doubles: Kontra/Re with 3+ Ober. Plays: the strongest legal card when it can win the trick, else its cheapest card.

Use it without installing anything (the directory must be importable, e.g. on PYTHONPATH)::

    play_games(1, 0, 1000, seats=("greedy_strategy:Greedy", "random", "random", "random"))

or register it under the entry-point group ``simkit.strategies`` in your package's pyproject.toml::

    [project.entry-points."simkit.strategies"]
    greedy = "greedy_strategy:Greedy"

and select it by name: ``seats=("greedy", ...)``; ``simkit strategies`` then lists it.
"""

import numpy as np
from numba import njit

from simkit.strategies.api import (
    BID_SIG, DOUBLE_SIG, I_N_IN_TRICK, I_TRICK, I_VARIANT, PASS, PLAY_SIG, bid_code, cttz, popcount,
)

RUFSPIEL, WENZ = 0, 2
OBERS = 0x10101010
UNTERS = 0x08080808
RUF_TRUMPS = OBERS | UNTERS | (0xFF << 16)  # all Ober, all Unter, all Herz
POINTS = np.array([0, 0, 0, 2, 3, 4, 10, 11] * 4, dtype=np.int64)


@njit(BID_SIG, cache=True)
def bid(hand, seat, info, strength, eff_suit, params, config):
    if popcount(hand & UNTERS) >= config[0] and (params[12] >> WENZ) & 1:  # params[P_ENABLED]
        return bid_code(WENZ, -1, False)
    if popcount(hand & RUF_TRUMPS) >= config[1]:
        for suit in (0, 1, 3):  # Eichel, Gras, Schellen
            ace = np.int64(1) << np.int64(8 * suit + 7)
            side = hand & (np.int64(0xFF) << np.int64(8 * suit)) & ~RUF_TRUMPS
            if (hand & ace) == 0 and side != 0:
                return bid_code(RUFSPIEL, suit, False)
    return PASS


@njit(DOUBLE_SIG, cache=True)
def double(hand, seat, info, strength, eff_suit, params, config):
    return 1 if popcount(hand & OBERS) >= 3 else 0


@njit(PLAY_SIG, cache=True)
def play(hand, legal, seat, info, strength, eff_suit, params, config):
    v = info[I_VARIANT]
    strong = strength[v]
    n = info[I_N_IN_TRICK]
    best = -1  # the strongest card in the trick so far (a rough test: ignores the led suit)
    for k in range(n):
        c = info[I_TRICK + k]
        if best < 0 or strong[c] > strong[best]:
            best = c
    top = -1
    cheap = -1
    m = legal
    while m != 0:
        c = cttz(m)
        m &= m - 1
        if top < 0 or strong[c] > strong[top]:
            top = c
        if cheap < 0 or POINTS[c] * 100 + strong[c] < POINTS[cheap] * 100 + strong[cheap]:
            cheap = c
    if best < 0 or strong[top] > strong[best]:
        return top
    return cheap


class Greedy:
    """greedy example: Wenz with 3 Unter, Rufspiel with 5 trumps; wins tricks when it can, else discards cheap"""

    description = "greedy example plug-in (docs/examples): plays its strongest card when it can win, else its cheapest"
    config = np.array([3.0, 5.0])  # Unter for a Wenz, Rufspiel trumps for a Rufspiel
    bid = bid
    double = double
    play = play
