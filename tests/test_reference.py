"""The referee on hand-built positions: every rule of RULES.md 2.4-2.6 checked on a case worked out by hand."""

import pytest

from simkit.cards import format_card, parse_card, parse_hand, parse_hands
from simkit.reference import (
    Game, IllegalPlay, InvalidGame, can_call, count_laufende, price_of, trick_winner, trump_order,
)
from simkit.rules import Contract, load_ruleset

RULES = load_ruleset("stargames")
C = parse_card


def cards(s):
    return [C(t) for t in s.split()]


def names(cs):
    return " ".join(format_card(c) for c in sorted(cs))


# A full long-deck deal used as a base; positions below override hands and the trick in progress.
DEAL = parse_hands([
    "EO GO HO SO E9 G9 S9 S8",
    "EA E8 E7 EK GA GZ HA HZ",
    "EU GU HU SU EZ GK G8 G7",
    "HK H9 H8 H7 SA SZ SK S7",
])


def position(contract, declarer=0, hands=None, leader=0, current="", searched=False, rules=RULES):
    g = Game(rules, DEAL, contract, declarer)
    if hands is not None:
        g.hands = [set(cards(h)) for h in hands]
    g.leader = leader
    g.current = cards(current)
    g.searched = searched
    return g


RUF_E = Contract.parse("rufspiel", "eichel")


def test_trump_orders_written_out():
    assert names(trump_order(Contract.parse("wenz"))) == names(cards("EU GU HU SU"))
    assert [format_card(c) for c in trump_order(RUF_E)] == \
        "EO GO HO SO EU GU HU SU HA HZ HK H9 H8 H7".split()
    assert [format_card(c) for c in trump_order(Contract.parse("farbgeier", "gras"), "short")] == \
        "EO GO HO SO GA GZ GK GU G9".split()
    assert len(trump_order(RUF_E, "short")) == 12


@pytest.mark.parametrize("contract,trick,leader,winner", [
    (RUF_E, "GA GO G9 G7", 0, 1),          # an Ober is trump, not Gras
    (RUF_E, "GA GZ HK G7", 0, 2),          # Herz is trump in a Rufspiel
    (RUF_E, "GK GZ EA G7", 2, 3),          # discard never wins; Zehn beats Koenig
    (Contract.parse("wenz"), "GO GK GA SU", 1, 0),   # in a Wenz the Ober is a plain Gras card below the Koenig
    (Contract.parse("geier"), "EU EZ E9 E8", 0, 1),  # in a Geier the Unter ranks between Koenig and 9
    (Contract.parse("solo", "schellen"), "HA HZ S7 HO", 3, 2),  # seat 2's HO beats seat 1's S7
    (Contract.parse("farbwenz", "gras"), "GO GA EA GU", 0, 3),
])
def test_trick_winner(contract, trick, leader, winner):
    assert trick_winner(cards(trick), leader, contract) == winner


def test_called_ace_must_be_played_when_suit_first_led():
    g = position(RUF_E, hands=["E9", "EA E8 GA", "EZ", "SA"], leader=0, current="E9")
    assert names(g.legal_cards()) == "EA"
    with pytest.raises(IllegalPlay, match="trick 1, seat 1, card E8: the called ace EA must be played.*legal cards: EA"):
        g.play(C("E8"))


def test_called_ace_forced_in_the_trick_that_searches():
    # The search happens in this very trick: after seat 0 leads E9 the holder must still play the ace.
    g = position(RUF_E, hands=["E9 S9", "EA E8 GA", "EZ G7", "SA S7"], leader=0)
    g.play(C("E9"))
    assert names(g.legal_cards()) == "EA"
    assert not g.searched


def test_after_the_search_the_ace_is_ordinary():
    g = position(RUF_E, hands=["E9", "EA E8 GA", "EZ", "SA"], leader=0, current="E9", searched=True)
    assert names(g.legal_cards()) == names(cards("EA E8"))


def test_called_ace_may_not_be_discarded_before_search_except_last_trick():
    g = position(RUF_E, hands=["S9", "EA E8 GA", "EZ", "SA"], leader=0, current="S9")
    assert names(g.legal_cards()) == names(cards("E8 GA"))
    with pytest.raises(IllegalPlay, match="may not be discarded"):
        g.play(C("EA"))
    last = position(RUF_E, hands=["S9", "EA", "EZ", "SA"], leader=0, current="S9")
    assert names(last.legal_cards()) == "EA"


def test_holder_leading_called_suit_only_with_ace_unless_running_away():
    g = position(RUF_E, hands=["S9", "EA E8 E7 GA", "EZ", "SA"], leader=1)
    assert names(g.legal_cards()) == names(cards("EA GA"))
    with pytest.raises(IllegalPlay, match="running away needs 4 eichel cards, he holds 3"):
        g.play(C("E8"))
    runner = position(RUF_E, hands=["S9", "EA EK E8 E7 GA", "EZ", "SA"], leader=1)
    assert names(runner.legal_cards()) == names(cards("EA EK E8 E7 GA"))
    runner.play(C("E7"))
    assert not runner.searched  # the search counts from the end of this trick
    for c in ("EZ", "SA", "S9"):  # seats 2, 3, 0
        runner.play(C(c))
    assert runner.searched  # running away counts as the search
    three = position(RUF_E, hands=["S9", "EA E8 E7 GA", "EZ", "SA"], leader=1,
                     rules=RULES.replace(run_away_min=3))
    assert C("E8") in three.legal_cards()


def test_must_follow_trump_and_ober_is_trump():
    g = position(RUF_E, hands=["S9", "GO GA H7 E8", "EZ", "SA"], leader=0, current="HZ")
    assert names(g.legal_cards()) == names(cards("GO H7"))
    with pytest.raises(IllegalPlay, match="must follow trump"):
        g.play(C("GA"))
    free = position(RUF_E, hands=["S9", "GO GA E8", "EZ", "SA"], leader=0, current="S8")
    assert names(free.legal_cards()) == names(cards("GO GA E8"))  # void in Schellen: anything


def test_card_not_held():
    g = position(RUF_E)
    with pytest.raises(IllegalPlay, match="seat 0 does not hold this card"):
        g.play(C("EA"))


def test_rufspiel_call_checks():
    assert can_call(parse_hand("EO GO HO SO E9 G9 S9 S8"), 0)
    assert not can_call(parse_hand("EO GO HO SO E9 G9 S9 S8"), 2)  # never Herz
    assert not can_call(parse_hand("EA E9 GO HO SO G9 S9 S8"), 0)  # holds the ace
    assert not can_call(parse_hand("EO GO HO SO EU G9 S9 S8"), 0)  # EU is trump, not Eichel
    with pytest.raises(InvalidGame, match="holds it"):
        Game(RULES, DEAL, RUF_E, declarer=1)
    with pytest.raises(InvalidGame, match="no gras card"):
        Game(RULES, DEAL, Contract.parse("rufspiel", "gras"), declarer=3)


def test_laufende_mit_and_ohne():
    hands = DEAL  # seat 0 holds all four Ober, seat 2 all four Unter
    assert count_laufende(RUF_E, hands, {0, 1}, "long") == (4, True)
    assert count_laufende(RUF_E, hands, {1, 3}, "long") == (8, False)   # ohne: seats 0+2 hold EO..SU
    assert count_laufende(RUF_E, hands, {0, 2}, "long") == (8, True)    # EO..SU; HA is with seat 1
    assert count_laufende(Contract.parse("wenz"), hands, {2}, "long") == (4, True)
    assert count_laufende(Contract.parse("geier"), hands, {3}, "long") == (4, False)


def test_price_formula():
    t = RULES.tariff
    ruf = RUF_E
    assert price_of(ruf, t, schneider=False, schwarz=False, laufende=2, doublings=0) == (1, False)
    assert price_of(ruf, t, schneider=True, schwarz=True, laufende=3, doublings=0) == (1 + 1 + 1 + 3, True)
    assert price_of(ruf, t, schneider=True, schwarz=False, laufende=0, doublings=2) == (8, False)
    wenz = Contract.parse("wenz")
    assert price_of(wenz, t, schneider=False, schwarz=False, laufende=2, doublings=0) == (7, True)
    tout = Contract.parse("solo", "herz", tout=True)
    assert price_of(tout, t, schneider=False, schwarz=False, laufende=3, doublings=1) == (2 * 2 * (5 + 3), True)
    flat = t.__class__(**{**t.__dict__, "tout_multiplies_laufende": False})
    assert price_of(tout, flat, schneider=False, schwarz=False, laufende=3, doublings=0) == (2 * 5 + 3, True)


def play_out(game, order):
    """Play the listed cards (whitespace separated) in order."""
    for c in cards(order):
        game.play(c)
    return game.result()


def test_full_solo_won_schwarz_with_zero_point_trick():
    # Seat 0 plays a Schellen solo holding every trump that matters and wins every trick.
    hands = parse_hands([
        "EO GO HO SO EU GU SA S7",
        "EA EZ EK E9 E8 E7 G7 G8",
        "GA GZ GK G9 HA HZ HK H9",
        "HU SU SZ SK S9 S8 H8 H7",
    ])
    g = Game(RULES, hands, Contract.parse("solo", "schellen"), declarer=0)
    res = play_out(g, "EO E7 G9 S8 GO E8 GK S9 HO E9 GZ SK SO EK GA SZ EU G7 H9 SU "
                      "GU G8 HK HU SA EZ HZ H7 S7 EA HA H8")
    assert res.declarer_tricks == 8 and res.declarer_points == 120
    assert res.won and res.schneider and res.schwarz
    # Laufende: EO GO HO SO EU GU (HU is with seat 3) = 6; price 5 + 1 + 1 + 6 = 13, soloist x3.
    assert res.laufende == 6 and res.laufende_mit
    assert res.payouts == (39, -13, -13, -13)
    assert sum(res.payouts) == 0
