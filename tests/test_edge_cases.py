"""Hypothesis-generated edge cases, kernel against referee.

Each strategy builds deals that steer towards one situation the rule book singles out (running away from the
called ace, the called ace in the last trick, Schwarz against a 0-point trick, 60-60, Laufende "ohne", a Tout lost
in the last trick). Every generated deal is played 64 times by the kernel with different random play streams, and
every decision and result is checked against the referee. Each test also asserts that its situation really
occurred, so a generator that drifts away from its purpose fails instead of passing vacuously.
"""

from collections import Counter

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from simkit.cards import ASS, DECK_MASKS, HAND_SIZE, OBER, UNTER, card, cards_of
from simkit.reference import trump_order
from simkit.rules import Contract, load_ruleset
from simkit.rules.contracts import RUFSPIEL
from simkit.rules.tables import variant_index
from simkit.verify import CheckReport, check_batch

PLAYS_PER_DEAL = 64
SETTINGS = settings(max_examples=30, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def cross_check(hands, contract: Contract, declarer: int, deck: str, doublings: int = 0) -> CheckReport:
    rules = load_ruleset().replace(deck=deck)
    n = PLAYS_PER_DEAL
    setups = dict(
        hands=np.tile(np.array(hands, np.uint32), (n, 1)),
        variants=np.full(n, variant_index(contract), np.int8),
        called_suits=np.full(n, contract.suit if contract.kind == RUFSPIEL else -1, np.int8),
        touts=np.full(n, contract.tout, np.bool_),
        declarers=np.full(n, declarer, np.int8),
        doublings=np.full(n, doublings, np.int8),
    )
    return check_batch(setups, rules, seed=7, start=0)


@st.composite
def deal_with(draw, deck: str, fixed: dict[int, list[int]]):
    """A deal in which seat s holds the cards fixed[s]; the rest of the deck is shuffled into the free places."""
    hs = HAND_SIZE[deck]
    taken = {c for cs in fixed.values() for c in cs}
    rest = draw(st.permutations([c for c in cards_of(DECK_MASKS[deck]) if c not in taken]))
    hands, i = [], 0
    for seat in range(4):
        own = list(fixed.get(seat, []))
        need = hs - len(own)
        own += rest[i:i + need]
        i += need
        hands.append(sum(1 << c for c in own))
    return hands


def called_suit_cards(suit, deck):
    return [c for c in cards_of(DECK_MASKS[deck]) if c >> 3 == suit and c & 7 not in (OBER, UNTER)]


@st.composite
def running_away_deals(draw):
    """Long deck Rufspiel: the partner holds the called ace and 3 or 4 more of its suit, the declarer one."""
    suit = draw(st.sampled_from([0, 1, 3]))
    partner, declarer = draw(st.permutations(range(4)))[:2]
    low = [c for c in called_suit_cards(suit, "long") if c & 7 != ASS]
    low = draw(st.permutations(low))
    k = draw(st.sampled_from([3, 4]))
    fixed = {partner: [card(suit, ASS)] + low[:k], declarer: [low[k]]}
    hands = draw(deal_with("long", fixed))
    return hands, Contract(RUFSPIEL, suit), declarer


@st.composite
def lone_ace_deals(draw):
    """Rufspiel in which the partner's only card of the called suit is the ace (it often waits for the last
    trick); the other cards of the suit sit with the declarer, who decides when it is searched."""
    deck = draw(st.sampled_from(["long", "short"]))
    suit = draw(st.sampled_from([0, 1, 3]))
    partner, declarer = draw(st.permutations(range(4)))[:2]
    others = [c for c in called_suit_cards(suit, deck) if c & 7 != ASS]
    fixed = {partner: [card(suit, ASS)], declarer: others[:min(len(others), 2)]}
    rest_of_suit = others[2:]
    hands = draw(deal_with(deck, fixed))
    # keep the remaining called-suit cards away from the partner: swap them into the declarer's hand if needed
    for c in rest_of_suit:
        if hands[partner] >> c & 1:
            return draw(lone_ace_deals())
    return hands, Contract(RUFSPIEL, suit), declarer, deck


@st.composite
def strong_solo_deals(draw, tout: bool):
    """A solo-type declarer with the top trumps: Schwarz, 0-point tricks and Touts lost at the end are common."""
    deck = draw(st.sampled_from(["long", "short"]))
    kind = draw(st.sampled_from(["solo", "wenz", "geier", "farbwenz", "farbgeier"]))
    suit = draw(st.sampled_from([0, 1, 2, 3])) if kind in ("solo", "farbwenz", "farbgeier") else None
    contract = Contract.parse(kind, suit, tout)
    declarer = draw(st.integers(0, 3))
    top = trump_order(contract, deck)
    k = draw(st.integers(3, min(len(top), HAND_SIZE[deck] - 1)))
    hands = draw(deal_with(deck, {declarer: list(top[:k])}))
    return hands, contract, declarer, deck


@st.composite
def any_deals(draw):
    deck = draw(st.sampled_from(["long", "short"]))
    kind = draw(st.sampled_from(["rufspiel", "solo", "wenz", "geier", "farbwenz", "farbgeier"]))
    hands = draw(deal_with(deck, {}))
    for declarer in range(4):
        for suit in (0, 1, 3) if kind == "rufspiel" else (0, 1, 2, 3):
            if kind == "rufspiel":
                from simkit.reference import can_call
                if can_call(hands[declarer], suit, deck):
                    return hands, Contract(RUFSPIEL, suit), declarer, deck
            else:
                s = suit if kind in ("solo", "farbwenz", "farbgeier") else None
                return hands, Contract.parse(kind, s), declarer, deck
    return draw(any_deals())


def run_scenario(strategy, unpack, wanted: str, min_seen: int = 1):
    seen = Counter()

    @SETTINGS
    @given(strategy)
    def inner(case):
        hands, contract, declarer, deck, doublings = unpack(case)
        report = cross_check(hands, contract, declarer, deck, doublings)
        assert report.mismatches == []
        seen.update(report.seen)

    inner()
    assert seen[wanted] >= min_seen, f"{wanted!r} never occurred: {dict(seen)}"


def test_running_away():
    run_scenario(running_away_deals(), lambda c: (*c, "long", 0), "running away")


def test_called_ace_in_the_last_trick():
    run_scenario(lone_ace_deals(), lambda c: (*c, 1), "called ace in the last trick")


def test_schwarz_against_a_zero_point_trick():
    run_scenario(strong_solo_deals(tout=False), lambda c: (*c, 0), "0 points but a 0-point trick")


def test_schwarz_happens():
    run_scenario(strong_solo_deals(tout=False), lambda c: (*c, 2), "schwarz")


def test_sixty_sixty():
    run_scenario(any_deals(), lambda c: (*c, 0), "60-60")


def test_laufende_ohne():
    run_scenario(any_deals(), lambda c: (*c, 1), "laufende ohne paid")


def test_tout_lost_in_the_last_trick():
    run_scenario(strong_solo_deals(tout=True), lambda c: (*c, 0), "tout lost in the last trick")
