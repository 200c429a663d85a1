"""Rule tables: a Ruleset turned into numpy arrays the kernels read (rules are data, DESIGN.md).

A contract *variant* is the pair (kind, trump suit); it decides which cards are trump and how strong every card is.
Variants are indexed 0..15:

====  ==========================================================================
 0    Rufspiel (trumps never change; the called suit is separate state); also the Ramsch (RULES.md 4.4)
 1-4  Farbsolo in E, G, H, S (a Sie is the Herz solo, 3: RULES.md 4.3)
 5    Wenz
 6    Geier
 7-10 Farbwenz in E, G, H, S
11-14 Farbgeier in E, G, H, S
15    Bettel: no trumps, every suit A K O U Z 9 8 7 (RULES.md 4.2)
====  ==========================================================================

Per variant ``v`` the tables hold

* ``strength[v, 32]`` (int16): trick strength. Every trump is stronger than every non-trump; inside a side suit the
  RULES.md 2.1 order. Cards outside the deck have strength 0.
* ``eff_suit[v, 32]`` (int8): the *effective* suit, 0..3 for a side-suit card (its printed suit), :data:`TRUMP` (4)
  for a trump (a trump Ober/Unter belongs to the trump suit, not to its printed suit).
* ``suit_mask[v, 5]`` (uint32): the cards of every effective suit, restricted to the deck.
* ``laufende_order[v, 14]`` (int8): the trumps of the deck from the top, padded with -1; ``n_trumps[v]`` of them.
* ``lauf_min[v]``, ``base_price[v]`` (int64): the Laufende minimum and the base price of the plain contract.

A new card beats the current best card of a trick iff
``(eff[new] == eff[best] or eff[new] == TRUMP) and strength[new] > strength[best]``, for every variant.

``params`` (int64) carries the tariff and rule numbers at the ``P_*`` indices below.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from simkit.cards import ASS, DECK_MASKS, HAND_SIZE, KOENIG, OBER, R7, R8, R9, RANK_POINTS, UNTER, ZEHN
from simkit.rules.contracts import (
    BETTEL,
    FARBGEIER,
    FARBWENZ,
    GEIER,
    KIND_NAMES,
    RAMSCH,
    RUFSPIEL,
    SIE,
    SOLO,
    WENZ,
    Contract,
)
from simkit.rules.ruleset import ALL_PASS, JUNGFRAU, RAMSCH_TIES, Ruleset

N_VARIANTS = 16
TRUMP = 4
MAX_TRUMPS = 14

V_RUFSPIEL = 0
V_SOLO = 1  # + trump suit
V_WENZ = 5
V_GEIER = 6
V_FARBWENZ = 7  # + trump suit
V_FARBGEIER = 11  # + trump suit
V_BETTEL = 15

#: kind of every variant, and its trump suit (-1: none / the fixed Herz of the Rufspiel is not a "variant suit").
VARIANT_KIND = np.array([RUFSPIEL] + [SOLO] * 4 + [WENZ, GEIER] + [FARBWENZ] * 4 + [FARBGEIER] * 4 + [BETTEL],
                        dtype=np.int8)
VARIANT_SUIT = np.array([-1, 0, 1, 2, 3, -1, -1, 0, 1, 2, 3, 0, 1, 2, 3, -1], dtype=np.int8)

# Indices into ``params``.
P_BASE_RUFSPIEL = 0
P_BASE_SOLO = 1
P_SCHNEIDER = 2
P_SCHWARZ = 3
P_LAUF_RATE = 4
P_LAUF_MIN = 5
P_LAUF_MIN_WENZ_GEIER = 6
P_TOUT_MULT = 7
P_TOUT_MULT_LAUF = 8  # 1 if the Tout multiplier also multiplies the Laufende
P_RUN_AWAY_MIN = 9
P_HAND_SIZE = 10
P_DECK_MASK = 11
P_ENABLED = 12  # bit k set: contract kind k may be declared (simkit.rules.contracts kinds)
P_TOUT_ALLOWED = 13  # 1 if solo-type contracts may be declared Tout
P_MAX_DOUBLINGS = 14  # 0 none, 1 Kontra, 2 Kontra and Re
P_RE_BY_PARTNER = 15  # 1 if the Rufspiel partner may say Re
# The club rules (RULES.md 4; docs/club-rules.md). P_ENABLED's bit BETTEL (6) enables Bettel, bit SIE (7) Sie.
P_KLOPFEN = 16  # 1 if the seats may knock before the bidding
P_KLOPFEN_CARDS = 17  # cards of his hand a seat has seen when asked to knock (Ruleset.knock_cards)
P_ALL_PASS = 18  # index into simkit.rules.ruleset.ALL_PASS: 0 throw-in, 1 ramsch, 2 stock
P_BETTEL_PRICE = 19
P_STICHZWANG = 20  # 1: in a Bettel a player following suit must beat the trick's best card if he can
P_RAMSCH_PRICE = 21
P_RAMSCH_TIE = 22  # index into RAMSCH_TIES: 0 highest-trump, 1 more-tricks
P_DURCHMARSCH = 23  # card points N (61..120) that win a Ramsch; DURCHMARSCH_ALL: every trick; DURCHMARSCH_NONE
P_JUNGFRAU = 24  # index into JUNGFRAU: 0 none, 1 double-all, 2 double-each, 3 double-each-multiple
N_PARAMS = 25

DURCHMARSCH_ALL = 0  # durchmarsch = "all": every trick (120 points is not enough: a 0-point trick may go elsewhere)
DURCHMARSCH_NONE = -1


class RuleTables(NamedTuple):
    """Numpy arrays built from a Ruleset; pass the fields to njit functions as separate arguments."""

    strength: np.ndarray  # int16[16, 32]
    eff_suit: np.ndarray  # int8[16, 32]
    suit_mask: np.ndarray  # uint32[16, 5]
    laufende_order: np.ndarray  # int8[16, 14], -1 padded
    n_trumps: np.ndarray  # int8[16]
    lauf_min: np.ndarray  # int64[16]
    base_price: np.ndarray  # int64[16]
    points: np.ndarray  # int64[32] card points
    params: np.ndarray  # int64[N_PARAMS]
    deck_mask: int  # uint32 mask of the deck in use
    hand_size: int  # 8 (long) or 6 (short)


def variant_index(contract: Contract) -> int:
    """The variant 0..15 of a contract (the Rufspiel's called suit does not change the variant; a Ramsch plays the
    Rufspiel's, a Sie the Herz solo's)."""
    k = contract.kind
    if k in (RUFSPIEL, RAMSCH):
        return V_RUFSPIEL
    if k == SIE:
        return V_SOLO + 2
    if k == BETTEL:
        return V_BETTEL
    if k == SOLO:
        return V_SOLO + contract.suit
    if k == WENZ:
        return V_WENZ
    if k == GEIER:
        return V_GEIER
    if k == FARBWENZ:
        return V_FARBWENZ + contract.suit
    if k == FARBGEIER:
        return V_FARBGEIER + contract.suit
    raise ValueError(f"unknown contract kind {k}")


def variant_of(kind: int, suit: int | None) -> int:
    """The variant of (kind, trump suit); the suit is ignored for Rufspiel, Wenz, Geier and the club contracts."""
    if kind in (RUFSPIEL, WENZ, GEIER, BETTEL, SIE, RAMSCH):
        suit = None
    return variant_index(Contract(kind, suit if kind != RUFSPIEL else 0))


def _orders(v: int) -> tuple[list[int], list[int]]:
    """(trump cards highest first, side-suit ranks highest first) of a variant, long deck."""
    kind = int(VARIANT_KIND[v])
    suit = int(VARIANT_SUIT[v])
    obers = [8 * s + OBER for s in range(4)]
    unters = [8 * s + UNTER for s in range(4)]
    if kind in (RUFSPIEL, SOLO):
        ts = 2 if kind == RUFSPIEL else suit  # Herz is the Rufspiel's trump suit
        trumps = obers + unters + [8 * ts + r for r in (ASS, ZEHN, KOENIG, R9, R8, R7)]
        side = [ASS, ZEHN, KOENIG, R9, R8, R7]
    elif kind == WENZ:
        trumps = unters
        side = [ASS, ZEHN, KOENIG, OBER, R9, R8, R7]
    elif kind == GEIER:
        trumps = obers
        side = [ASS, ZEHN, KOENIG, UNTER, R9, R8, R7]
    elif kind == FARBWENZ:
        side = [ASS, ZEHN, KOENIG, OBER, R9, R8, R7]
        trumps = unters + [8 * suit + r for r in side]
    elif kind == FARBGEIER:
        side = [ASS, ZEHN, KOENIG, UNTER, R9, R8, R7]
        trumps = obers + [8 * suit + r for r in side]
    else:  # BETTEL: no trumps, the ten between Unter and 9
        trumps = []
        side = [ASS, KOENIG, OBER, UNTER, ZEHN, R9, R8, R7]
    return trumps, side


def build_tables(ruleset: Ruleset | None = None) -> RuleTables:
    """Build every table for the deck and tariff of ``ruleset`` (default: ``Ruleset()``)."""
    ruleset = ruleset or Ruleset()
    deck = DECK_MASKS[ruleset.deck]
    in_deck = [bool(deck >> c & 1) for c in range(32)]
    strength = np.zeros((N_VARIANTS, 32), np.int16)
    eff = np.zeros((N_VARIANTS, 32), np.int8)
    masks = np.zeros((N_VARIANTS, 5), np.uint32)
    lorder = np.full((N_VARIANTS, MAX_TRUMPS), -1, np.int8)
    ntr = np.zeros(N_VARIANTS, np.int8)
    t = ruleset.tariff
    lauf_min = np.zeros(N_VARIANTS, np.int64)
    base = np.zeros(N_VARIANTS, np.int64)
    for v in range(N_VARIANTS):
        trumps, side = _orders(v)
        trumps = [c for c in trumps if in_deck[c]]
        side = [r for r in side if in_deck[r]]  # rank r of suit 0 in deck <=> in deck for every suit
        tset = set(trumps)
        for c in range(32):
            eff[v, c] = TRUMP if c in tset else c >> 3
        for i, c in enumerate(trumps):
            strength[v, c] = 100 + len(trumps) - i
        for s in range(4):
            for i, r in enumerate(side):
                c = 8 * s + r
                if c not in tset:
                    strength[v, c] = len(side) - i
        for c in range(32):
            if in_deck[c]:
                masks[v, eff[v, c]] |= np.uint32(1 << c)
        lorder[v, : len(trumps)] = trumps
        ntr[v] = len(trumps)
        kind = int(VARIANT_KIND[v])
        lauf_min[v] = t.laufende_min_wenz_geier if kind in (WENZ, GEIER) else t.laufende_min
        base[v] = t.base_rufspiel if kind == RUFSPIEL else ruleset.bettel_price if kind == BETTEL else t.base_solo
    lauf_min[V_BETTEL] = 99  # a Bettel has no trumps and no Laufende
    points = np.array([RANK_POINTS[c & 7] if in_deck[c] else 0 for c in range(32)], np.int64)
    params = np.zeros(N_PARAMS, np.int64)
    params[P_BASE_RUFSPIEL] = t.base_rufspiel
    params[P_BASE_SOLO] = t.base_solo
    params[P_SCHNEIDER] = t.schneider
    params[P_SCHWARZ] = t.schwarz
    params[P_LAUF_RATE] = t.laufende
    params[P_LAUF_MIN] = t.laufende_min
    params[P_LAUF_MIN_WENZ_GEIER] = t.laufende_min_wenz_geier
    params[P_TOUT_MULT] = t.tout_multiplier
    params[P_TOUT_MULT_LAUF] = int(t.tout_multiplies_laufende)
    params[P_RUN_AWAY_MIN] = ruleset.run_away_min
    params[P_HAND_SIZE] = HAND_SIZE[ruleset.deck]
    params[P_DECK_MASK] = deck
    params[P_ENABLED] = (sum(1 << KIND_NAMES.index(name) for name in ruleset.contracts)
                         | (1 << SIE if ruleset.sie else 0))
    params[P_TOUT_ALLOWED] = int(ruleset.tout)
    params[P_MAX_DOUBLINGS] = ruleset.max_doublings
    params[P_RE_BY_PARTNER] = int(ruleset.re_by_partner)
    params[P_KLOPFEN] = int(ruleset.klopfen)
    params[P_KLOPFEN_CARDS] = ruleset.knock_cards
    params[P_ALL_PASS] = ALL_PASS.index(ruleset.all_pass)
    params[P_BETTEL_PRICE] = ruleset.bettel_price
    params[P_STICHZWANG] = int(ruleset.bettel.stichzwang)
    params[P_RAMSCH_PRICE] = ruleset.ramsch_price
    params[P_RAMSCH_TIE] = RAMSCH_TIES.index(ruleset.ramsch.tie)
    d = ruleset.ramsch.durchmarsch
    params[P_DURCHMARSCH] = DURCHMARSCH_ALL if d == "all" else DURCHMARSCH_NONE if d == "none" else d
    params[P_JUNGFRAU] = JUNGFRAU.index(ruleset.ramsch.jungfrau)
    return RuleTables(strength, eff, masks, lorder, ntr, lauf_min, base, points, params, deck,
                      HAND_SIZE[ruleset.deck])
