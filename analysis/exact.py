"""The exact distribution of Laufende when no bidding selects the hands (forced-contract runs).

Derivation (docs/analysis.md has it in full). The deck has N cards, each seat gets h = N/4. The contract's trumps
t_1 > t_2 > ... > t_T are fixed cards. Laufende = k "mit" means t_1..t_k are held by the declaring side and t_{k+1}
by the defenders (or k = T); "ohne" is the same with the sides swapped. So every cell is the probability that a
given set of a cards lies with the team and a disjoint set of b cards with the defenders:

* Solo-type (declarer alone; D = his h cards, uniform among the h-subsets of the deck):
  P = C(N - a - b, h - a) / C(N, h).
* Rufspiel with called suit X (team = declarer + holder of the X ace; the game exists only if the declarer does
  not hold the ace and holds at least one of the f other non-trump X cards). Given that the ace A is not in D, D is
  a uniform h-subset of the N - 1 other cards, the ace's holder P gets A plus a uniform (h-1)-subset of the
  remaining N - 1 - h cards, and the two defenders the other 2h. Counting the (D, P) pairs in which the a team cards
  are in D u P, the b defender cards in neither, and D avoids a forbidden set of size g (g = 0, or g = f for "D holds
  no other X card"), summing over the j team cards that are in D:

      G(a, b, g) = sum_j C(a, j) C(N-1-a-b-g, h-j) C(N-1-h-b-(a-j), h-1-(a-j))

  and the conditional probability given that the Rufspiel can be played is
  (G(a, b, 0) - G(a, b, f)) / (G(0, 0, 0) - G(0, 0, f)). The X cards are never trumps, so the sets are disjoint.

The result does not depend on the declaring seat or on the strategies: Laufende are fixed by the deal.
"""

from __future__ import annotations

from math import comb

from simkit.cards import ASS, DECK_MASKS, HAND_SIZE
from simkit.reference import trump_order
from simkit.rules.contracts import RUFSPIEL, Contract


def C(n: int, k: int) -> int:
    return comb(n, k) if 0 <= k <= n and n >= 0 else 0


def _solo_cell(n: int, h: int, a: int, b: int) -> float:
    return C(n - a - b, h - a) / C(n, h)


def _ruf_count(n: int, h: int, a: int, b: int, g: int) -> int:
    return sum(C(a, j) * C(n - 1 - a - b - g, h - j) * C(n - 1 - h - b - (a - j), h - 1 - (a - j))
               for j in range(a + 1))


def laufende_distribution(n_cards: int, hand_size: int, n_trumps: int, rufspiel: bool = False,
                          called_rest: int = 0) -> dict[tuple[bool, int], float]:
    """Exact P(Laufende = k, mit) for k = 1..n_trumps, as ``{(mit, k): p}`` (the values sum to 1).

    ``rufspiel``: the team is the declarer and the holder of the called ace, conditioned on the declarer being able
    to call it (no ace, at least one of the ``called_rest`` other non-trump cards of the called suit).
    Works for any reduced deck (tests check it against brute-force enumeration).
    """
    n, h, t = n_cards, hand_size, n_trumps
    if n != 4 * h or not 1 <= t <= n:
        raise ValueError("need n_cards = 4 * hand_size and 1 <= n_trumps <= n_cards")
    if rufspiel:
        f = called_rest
        norm = _ruf_count(n, h, 0, 0, 0) - _ruf_count(n, h, 0, 0, f)
        if norm <= 0:
            raise ValueError("the Rufspiel can never be played with these parameters")

        def cell(a, b):
            return (_ruf_count(n, h, a, b, 0) - _ruf_count(n, h, a, b, f)) / norm
    else:
        def cell(a, b):
            return _solo_cell(n, h, a, b)
    out = {}
    for k in range(1, t + 1):
        nxt = 1 if k < t else 0
        out[(True, k)] = cell(k, 0) if nxt == 0 else cell(k, 1)  # top k with the team, t_{k+1} with defenders
        out[(False, k)] = cell(0, k) if nxt == 0 else cell(1, k)
    return out


def exact_laufende(contract: Contract, deck: str = "long") -> dict[tuple[bool, int], float]:
    """Exact Laufende distribution of a forced ``contract`` dealt from ``deck`` ("long" or "short")."""
    n = bin(DECK_MASKS[deck]).count("1")
    h = HAND_SIZE[deck]
    order = trump_order(contract, deck)
    rest = 0
    if contract.kind == RUFSPIEL:
        x = contract.suit
        side = [8 * x + r for r in range(8) if DECK_MASKS[deck] >> (8 * x + r) & 1 and 8 * x + r not in order]
        rest = len([c for c in side if c != 8 * x + ASS])
    return laufende_distribution(n, h, len(order), contract.kind == RUFSPIEL, rest)
