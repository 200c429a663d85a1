"""The yardstick: a minimal random-playout kernel (DESIGN.md), not a rules engine.

Rufspiel trump order (from the rule tables, variant 0), no called-ace rules, no bidding, no scoring beyond card
points: deal (the same counter-based dealer as the engine) + uniformly random legal play + the card points of seats
0 and 2. The full engine's deals/s are reported as a fraction of this kernel's.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from simkit.engine.bits import cttz, nth_bit, popcount
from simkit.engine.deal import deal_one, deck_cards
from simkit.engine.deal import DEPENDENCIES as _DEAL_DEPS
from simkit.engine.jitcache import announce, files, stamp_module
from simkit.engine.rng import STREAM_PLAY, below, stream_state

#: the files its kernels compile in: the on-disk cache is keyed on all of them (simkit.engine.jitcache)
DEPENDENCIES = files("engine/ceiling") + _DEAL_DEPS


@njit(cache=True)
def ceiling_kernel(seed, start, n, deck_mask, hand_size, strength, eff_suit, suit_mask, points, out):
    """Play deals start .. start+n-1 at random; out[i] = card points of seats 0 + 2."""
    cards = deck_cards(deck_mask)
    work = np.empty(32, np.int8)
    hw = np.zeros(4, np.int64)
    sv = strength[0]
    ev = eff_suit[0]
    for i in range(n):
        h0, h1, h2, h3 = deal_one(seed, start + i, cards, work, hand_size)
        hw[0] = h0
        hw[1] = h1
        hw[2] = h2
        hw[3] = h3
        rng = stream_state(seed, start + i, STREAM_PLAY)
        leader = 0
        pts = 0
        for t in range(hand_size):
            seat = leader
            led = 0
            best_seat = 0
            best_eff = 0
            best_str = 0
            tp = 0
            for k in range(4):
                hand = hw[seat]
                if k == 0:
                    legal = hand
                else:
                    f = hand & np.int64(suit_mask[0, led])
                    legal = f if f != 0 else hand
                m = popcount(legal)
                if m == 1:
                    c = cttz(legal)
                else:
                    r, rng = below(rng, m)
                    c = nth_bit(legal, r)
                hw[seat] = hand & ~(np.int64(1) << np.int64(c))
                tp += points[c]
                e = ev[c]
                st = sv[c]
                if k == 0:
                    led = e
                    best_seat = seat
                    best_eff = e
                    best_str = st
                elif (e == best_eff or e == 4) and st > best_str:
                    best_seat = seat
                    best_eff = e
                    best_str = st
                seat = (seat + 1) & 3
            if (best_seat & 1) == 0:
                pts += tp
            leader = best_seat
        out[i] = pts


def ceiling_play(seed: int, start: int, n: int, ruleset=None) -> np.ndarray:
    """Card points of seats 0 + 2 (uint8[n]) for deals start .. start+n-1 played at random by the ceiling kernel."""
    from simkit.engine.batch import tables_for

    t = tables_for(ruleset)
    out = np.empty(n, np.uint8)
    ceiling_kernel(np.uint64(seed), np.int64(start), np.int64(n), np.uint32(t.deck_mask), np.int64(t.hand_size),
                   t.strength, t.eff_suit, t.suit_mask, t.points, out)
    return out


stamp_module(globals(), DEPENDENCIES)
announce(ceiling_kernel, "the ceiling kernel")
