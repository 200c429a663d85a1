"""A simple card-play heuristic for the old German game's fixed partners (seat s plays with seat s ^ 2).

* Leading: the declaring team pulls trumps while others still hold some (the highest trump if it is the best one
  out, else the lowest); otherwise a side-suit ace; otherwise the cheapest card.
* Following, partner winning: when last to play, or when the partner's card is a trump no outstanding trump beats,
  schmier (the legal card with the most points, side cards before trumps); otherwise the cheapest card.
* Following, opponents winning: win with the cheapest card that beats the trick if there is one; else the cheapest.

"Cheapest" = fewest card points, then lowest trick strength (so a side 7 before a trump 7, and a trump 7 before an
Unter). Every choice is a pure function of the seat's own hand and public information (cards played, the trick in
progress, the trump suit and who declared); no random draws.
"""

from __future__ import annotations

from numba import njit

from simkit.engine.bits import cttz
from simkit.engine.jitcache import files, stamp_module

#: the files its kernels compile in: the on-disk cache is keyed on all of them (simkit.engine.jitcache)
DEPENDENCIES = files("oldgerman/heuristic", "engine/bits")

TRUMP = 4


@njit(cache=True, inline="always")
def _cheapest(mask, strength, points):
    best = -1
    best_key = 1 << 30
    m = mask
    while m:
        c = cttz(m)
        m &= m - 1
        key = points[c] * 1000 + strength[c]
        if key < best_key:
            best_key = key
            best = c
    return best


@njit(cache=True, inline="always")
def _richest(mask, strength, points):
    best = -1
    best_key = -(1 << 30)
    m = mask
    while m:
        c = cttz(m)
        m &= m - 1
        key = points[c] * 1000 - strength[c]
        if key > best_key:
            best_key = key
            best = c
    return best


@njit(cache=True, inline="always")
def _strongest(mask, strength):
    best = -1
    bs = -1
    m = mask
    while m:
        c = cttz(m)
        m &= m - 1
        if strength[c] > bs:
            bs = strength[c]
            best = c
    return best


@njit(cache=True, inline="always")
def _weakest(mask, strength):
    best = -1
    bs = 1 << 30
    m = mask
    while m:
        c = cttz(m)
        m &= m - 1
        if strength[c] < bs:
            bs = strength[c]
            best = c
    return best


@njit(cache=True, inline="always")
def heuristic_card(legal, hand, seat, played, trick, n_in_trick, leader, declaring_team,
                   strength, eff, trump_mask, points):
    """One card of ``legal`` (int64 masks; ``trick`` int8[4] in play order, ``n_in_trick`` of them valid)."""
    team = seat & 1
    if n_in_trick == 0:
        mine = legal & trump_mask
        out = trump_mask & ~played & ~hand
        if team == declaring_team and mine != 0 and out != 0:
            top = _strongest(mine, strength)
            if strength[top] > strength[_strongest(out, strength)]:
                return top
            return _weakest(mine, strength)
        aces = legal & ~trump_mask & 0x80808080  # rank 7 (Ass) of every suit
        if aces != 0:
            return cttz(aces)
        return _cheapest(legal, strength, points)
    best_k = 0
    for k in range(1, n_in_trick):
        c = trick[k]
        b = trick[best_k]
        if (eff[c] == eff[b] or eff[c] == TRUMP) and strength[c] > strength[b]:
            best_k = k
    best = trick[best_k]
    best_seat = (leader + best_k) & 3
    if (best_seat & 1) == team:  # the partner holds the trick
        safe = n_in_trick == 3
        if not safe and eff[best] == TRUMP:
            out = trump_mask & ~played & ~hand
            safe = out == 0 or strength[best] > strength[_strongest(out, strength)]
        if safe:
            return _richest(legal, strength, points)
        return _cheapest(legal, strength, points)
    winners = 0
    m = legal
    while m:
        c = cttz(m)
        m &= m - 1
        if (eff[c] == eff[best] or eff[c] == TRUMP) and strength[c] > strength[best]:
            winners |= 1 << c
    if winners != 0:
        return _weakest(winners, strength)
    return _cheapest(legal, strength, points)


stamp_module(globals(), DEPENDENCIES)
