"""Exact probabilities of the old German trump choice, by enumeration over hand compositions.

What matters for the obligation to announce (RULES.md 3) is only a hand's *composition*: its number of Unter
``u`` and its number of non-Unter cards ``c_s`` in each suit. A player is obliged (count >= 5) iff
``u + max_s c_s >= 5``. The deck has 4 Unter and 7 other cards per suit; the number of deals giving the players
compositions ``h_0 .. h_3`` is the product over players of ``C(remaining_u, u) * prod_s C(remaining_s, c_s)``.
Summing that over every sequence of compositions in which no player is obliged (the last player takes what is
left) counts the forced deals exactly; the deal order (3-2-3 or blocks) does not matter, every hand split is
equally likely.
"""

from __future__ import annotations

from fractions import Fraction
from functools import lru_cache
from itertools import product
from math import comb, factorial


def _compositions(total: int, caps: tuple[int, ...]):
    """Every (u, c0..c3) with sum ``total`` and each part within ``caps``."""
    for u in range(min(caps[0], total) + 1):
        for c in product(*(range(min(x, total) + 1) for x in caps[1:])):
            if u + sum(c) == total:
                yield (u,) + c


def _free(comp: tuple[int, ...]) -> bool:
    """Not obliged to announce: Unter + longest other suit <= 4."""
    return comp[0] + max(comp[1:]) <= 4


@lru_cache(maxsize=None)
def _count(rem: tuple[int, ...]) -> int:
    """Ways to deal the remaining cards (``rem`` = Unter left, cards left per suit) to the remaining players
    (8 each) so that none of them is obliged."""
    left = sum(rem)
    if left == 8:
        return 1 if _free(rem) else 0
    total = 0
    for comp in _compositions(8, rem):
        if not _free(comp):
            continue
        ways = 1
        for r, k in zip(rem, comp):
            ways *= comb(r, k)
        total += ways * _count(tuple(r - k for r, k in zip(rem, comp)))
    return total


def forced_share() -> Fraction:
    """P(nobody's count reaches 5), i.e. the share of forced deals, exactly."""
    deals = factorial(32) // factorial(8) ** 4
    return Fraction(_count((4, 7, 7, 7, 7)), deals)
