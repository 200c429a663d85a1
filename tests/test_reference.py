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


# ------------------------------------------------------------------------------------ the club rules (RULES.md 4)

import random  # noqa: E402

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from simkit.cards import DECK_MASKS  # noqa: E402
from simkit.reference import (  # noqa: E402
    BID_RANKING, GameResult, bid_rank, declaration_error, decode_declaration, describe_bid, fix_game, is_sie_hand,
    settle_stock, throw_in_result,
)
from simkit.rules.contracts import (  # noqa: E402
    BETTEL, FARBGEIER, FARBWENZ, GEIER, RAMSCH, RUFSPIEL, SIE, SOLO, WENZ,
)

BETTEL_C = Contract(BETTEL)
RAMSCH_C = Contract(RAMSCH)
CLUB = load_ruleset("club")


def club(**changes):
    return RULES.replace(**changes)


# The RULES.md 4.4 Jungfrau example: seat 0 takes tricks 1-7 (120 points), seat 1 the last trick (0 points).
JF_HANDS = parse_hands(["EO GO HO SO EU GU HU S7", "SU HA HZ HK EA EZ GA S9",
                        "H7 H8 H9 EK GZ GK SA S8", "E7 E8 G7 G8 G9 SZ SK E9"])
JF_PLAY = ("EO SU H7 E7 GO HA H8 E8 HO HZ H9 G7 SO HK EK G8 EU EA GZ G9 GU EZ GK SZ HU GA SA SK S7 S9 S8 E9")


def test_bettel_card_order_without_trumps():
    assert trump_order(BETTEL_C) == ()
    assert trick_winner(cards("EK EO EA EU"), 0, BETTEL_C) == 2  # A K O U Z 9 8 7
    assert trick_winner(cards("EU EZ E9 HA"), 1, BETTEL_C) == 1  # the Unter beats the Zehn; a discard never wins
    assert trick_winner(cards("GO GU GA GK"), 3, BETTEL_C) == 1  # no Ober is a trump
    assert trick_winner(cards("HU HO H9 H7"), 0, BETTEL_C) == 1  # nor a Herz card
    assert [format_card(c) for c in trump_order(BETTEL_C, "short")] == []


def test_bettel_follow_suit_else_any_card():
    g = position(BETTEL_C, declarer=1, hands=["S9", "EA E7 GO HA", "EZ", "SA"], leader=0, current="E8")
    assert names(g.legal_cards()) == names(cards("EA E7"))  # no Stichzwang: may duck with E7
    with pytest.raises(IllegalPlay, match="must follow eichel"):
        g.play(C("GO"))
    g = position(BETTEL_C, declarer=1, hands=["S9", "GO HA HO", "EZ", "SA"], leader=0, current="HU")
    assert names(g.legal_cards()) == names(cards("HA HO"))  # HO is a plain Herz card, above the Unter
    g = position(BETTEL_C, declarer=1, hands=["S9", "GO GA", "EZ", "SA"], leader=0, current="HU")
    assert names(g.legal_cards()) == names(cards("GO GA"))  # void: any card


def test_stichzwang_must_beat_the_best_card_when_it_can():
    rules = club(bettel={"stichzwang": True})
    g = position(BETTEL_C, declarer=1, hands=["S9", "EA E7 GO", "EZ", "SA"], leader=0, current="E8", rules=rules)
    assert names(g.legal_cards()) == "EA"
    with pytest.raises(IllegalPlay, match="Stichzwang: must beat E8.*legal cards: EA"):
        g.play(C("E7"))
    # the best card so far, not the led card, is what must be beaten; none of his beats EA: any Eichel
    g = position(BETTEL_C, declarer=1, hands=["S9", "EA", "EK EO EU", "SA"], leader=0, current="E8 EA", rules=rules)
    assert names(g.legal_cards()) == names(cards("EK EO EU"))
    g = position(BETTEL_C, declarer=1, hands=["S9", "EA", "EK EO E7", "SA"], leader=0, current="EU EZ", rules=rules)
    assert names(g.legal_cards()) == names(cards("EK EO"))  # E7 does not beat EU
    g = position(BETTEL_C, declarer=1, hands=["S9", "EA", "GK EO", "SA"], leader=0, current="HU GA", rules=rules)
    assert names(g.legal_cards()) == names(cards("GK EO"))  # void: no Stichzwang on a discard
    # Stichzwang is a Bettel rule only
    g = position(RUF_E, hands=["S9", "EA E7", "EZ", "SA"], leader=0, current="E8", searched=True, rules=rules)
    assert names(g.legal_cards()) == names(cards("EA E7"))


def bettel_deal():
    # seat 1 holds every 7 and 8: he can never take a trick
    return parse_hands(["EA EK EO EU EZ E9 GA GK", "E8 E7 G8 G7 H8 H7 S8 S7",
                        "GO GU GZ G9 HA HK HO HU", "HZ H9 SA SK SO SU SZ S9"])


def test_bettel_won_and_lost_prices_and_payouts():
    g = Game(club(bettel={"price": 10}), bettel_deal(), BETTEL_C, 1, doublings=1, knocks=1)
    while not g.is_over:
        g.play(g.legal_cards()[-1])  # the lowest legal card
    r = g.result()
    assert r.won and r.declarer_tricks == 0 and r.price == 40 and r.payouts == (-40, 120, -40, -40)
    assert (r.laufende, r.schneider, r.schwarz, r.doublings, r.knocks) == (0, False, False, 1, 1)
    assert sum(r.seat_points) == 120 and sum(r.seat_tricks) == 8
    # seat 0 as declarer with the aces takes the first trick: lost, and decided there
    g = Game(club(bettel={"price": 10}), bettel_deal(), BETTEL_C, 0)
    for c in cards("EA E7 G9 H9"):
        g.play(c)
    assert g.is_decided and not g.is_over
    r = g.result()
    assert not r.won and r.declarer_tricks == 1 and r.payouts == (-30, 10, 10, 10)
    # the Bettel price defaults to the Rufspiel base
    assert Game(RULES, bettel_deal(), BETTEL_C, 0).rules.bettel_price == RULES.tariff.base_rufspiel


def test_a_bettel_not_yet_lost_is_not_decided():
    g = Game(RULES, bettel_deal(), BETTEL_C, 1)
    for c in cards("EA E7 G9 H9"):
        g.play(c)
    assert not g.is_decided
    with pytest.raises(ValueError, match="not over"):
        g.result()


def test_sie_hand_and_price():
    sie = parse_hand("EO GO HO SO EU GU HU SU")
    assert is_sie_hand(sie) and not is_sie_hand(sie, "short")
    assert is_sie_hand(parse_hand("EO GO HO SO EU GU"), "short")
    assert not is_sie_hand(parse_hand("EO GO HO SO EU GU HU HA"))
    hands = parse_hands(["EA EZ EK E9 E8 E7 GA GZ", "EO GO HO SO EU GU HU SU",
                         "GK G9 G8 G7 HA HZ HK H9", "H8 H7 SA SZ SK S9 S8 S7"])
    with pytest.raises(InvalidGame, match="seat 0 cannot declare Sie"):
        Game(RULES, hands, Contract(SIE), 0)
    g = Game(RULES, hands, Contract(SIE), 1, knocks=1)
    assert trump_order(Contract(SIE)) == trump_order(Contract.parse("solo", "herz"))
    while not g.is_over:
        g.play(g.legal_cards()[0])
    r = g.result()
    # 4 x (solo base 5 + Laufende 1 x 8 cards) x 2 (one knock)
    assert r.won and r.laufende == 8 and r.price == 104 and r.payouts == (-104, 312, -104, -104)
    assert r.declarer_tricks == 8 and not r.schneider and not r.schwarz


def test_ramsch_needs_no_declarer_and_no_kontra():
    with pytest.raises(InvalidGame, match="a Ramsch has no declarer"):
        Game(RULES, JF_HANDS, RAMSCH_C, 0)
    with pytest.raises(InvalidGame, match="no Kontra in a Ramsch"):
        Game(RULES, JF_HANDS, RAMSCH_C, None, doublings=1)
    with pytest.raises(InvalidGame, match="declarer must be a seat"):
        Game(RULES, JF_HANDS, BETTEL_C, None)


@pytest.mark.parametrize("jungfrau,payouts", [
    ("none", (-30, 10, 10, 10)), ("double-all", (-120, 40, 40, 40)),
    ("double-each", (-50, 10, 20, 20)), ("double-each-multiple", (-90, 10, 40, 40)),
])
def test_ramsch_jungfrau_example_of_the_rule_book(jungfrau, payouts):
    g = Game(club(ramsch={"price": 10, "jungfrau": jungfrau}), JF_HANDS, RAMSCH_C, None)
    r = play_out(g, JF_PLAY)
    assert r.payouts == payouts and r.declarer == 0 and not r.won and r.jungfrauen == 2
    assert r.seat_points == (120, 0, 0, 0) and r.seat_tricks == (7, 1, 0, 0)
    assert (r.partner, r.laufende, r.doublings, r.declarer_points, r.declarer_tricks) == (None, 0, 0, 120, 7)


def test_ramsch_knocks_and_durchmarsch():
    g = Game(club(ramsch={"price": 10}), JF_HANDS, RAMSCH_C, None, knocks=2)
    r = play_out(g, JF_PLAY)
    assert r.price == 40 and r.payouts == (-120, 40, 40, 40) and r.knocks == 2
    # 120 points but not every trick: a Durchmarsch at 91 points, not under "all", never under "none"
    for d, won in ((91, True), (120, True), ("all", False), ("none", False)):
        r = play_out(Game(club(ramsch={"price": 10, "durchmarsch": d, "jungfrau": "double-all"}), JF_HANDS,
                          RAMSCH_C, None), JF_PLAY)
        assert r.durchmarsch == won and r.won == won
        assert r.payouts == ((30, -10, -10, -10) if won else (-120, 40, 40, 40))  # no Jungfrau doubling on it


# Seats 0 and 1 tie at 48: seat 1 played EO in 2 tricks, seat 0 took 3 tricks (demo-club-ramsch-tie-*).
TIE_HANDS = parse_hands(["GO EZ HO GA SA E9 H9 HU", "EO EA H7 G8 S8 G7 GK SK",
                         "HA E7 H8 GZ SZ EK HK SU", "HZ E8 SO G9 S9 S7 EU GU"])
TIE_PLAY = "GO EO HA HZ EA E7 E8 EZ H7 H8 SO HO GA G8 GZ G9 SA S8 SZ S9 E9 G7 EK S7 HK EU H9 GK GU HU SK SU"


def test_ramsch_ties():
    for tie, loser in (("highest-trump", 1), ("more-tricks", 0)):
        r = play_out(Game(club(ramsch={"price": 10, "tie": tie}), TIE_HANDS, RAMSCH_C, None), TIE_PLAY)
        assert r.seat_points == (48, 48, 4, 20) and r.seat_tricks == (3, 2, 1, 2)
        assert r.declarer == loser and r.payouts[loser] == -30


def test_ramsch_tie_without_trumps_goes_to_the_earliest_seat():
    g = Game(RULES, JF_HANDS, RAMSCH_C, None)
    # a constructed position after three tricks: seats 1 and 3 tie at 15 and neither played a trump; seat 2 did
    tricks = [(0, cards("E7 EA EK E8")), (1, cards("G7 G8 GA GK")), (3, cards("S7 SA S8 H7"))]
    g.tricks = [(leader, tuple(cs), trick_winner(cs, leader, RAMSCH_C)) for leader, cs in tricks]
    assert [w for _, _, w in g.tricks] == [1, 3, 2]
    assert g.seat_points() == (0, 15, 11, 15) and g.highest_trump_played()[2] is not None
    assert g.ramsch_loser() == 1
    g.rules = club(ramsch={"tie": "more-tricks"})
    assert g.ramsch_loser() == 1


def test_knocks_double_the_classic_contracts_apart_from_kontra():
    hands = parse_hands(["EO GO HO SO EU GU SA S7", "EA EZ EK E9 E8 E7 G7 G8",
                         "GA GZ GK G9 HA HZ HK H9", "HU SU SZ SK S9 S8 H8 H7"])
    plain = play_out(Game(RULES, hands, Contract.parse("solo", "schellen"), 0),
                     "EO E7 G9 S8 GO E8 GK S9 HO E9 GZ SK SO EK GA SZ EU G7 H9 SU "
                     "GU G8 HK HU SA EZ HZ H7 S7 EA HA H8")
    g = Game(RULES, hands, Contract.parse("solo", "schellen"), 0, doublings=1, knocks=2)
    for leader, cs, _ in plain.tricks:
        for c in cs:
            g.play(c)
    r = g.result()
    assert r.price == plain.price * 8 and r.doublings == 1 and r.knocks == 2
    assert r.payouts == tuple(8 * p for p in plain.payouts)


def test_bid_codes_of_the_club_contracts():
    assert decode_declaration(6) == (BETTEL, None, False)
    assert decode_declaration(7) == (SIE, None, False)
    assert describe_bid(6) == "bettel" and describe_bid(7) == "sie"
    assert BID_RANKING == (RUFSPIEL, BETTEL, FARBGEIER, GEIER, FARBWENZ, WENZ, SOLO)
    ranks = [bid_rank(c) for c in (0 + 8 * 1, 6, 5 + 8 * 1, 3, 4 + 8 * 1, 2, 1 + 8 * 1)]  # plain, low to high
    touts = [bid_rank(c + 64) for c in (5 + 8 * 1, 3, 4 + 8 * 1, 2, 1 + 8 * 1)]
    assert ranks == sorted(ranks) and touts == sorted(touts) and ranks[-1] < touts[0] < touts[-1] < bid_rank(7)
    sie_hand = parse_hand("EO GO HO SO EU GU HU SU")
    assert fix_game([6, 7, -1, 1 + 8 * 3 + 64]) == (1, Contract(SIE))
    assert fix_game([-1, 6, 0 + 8 * 1, -1]) == (1, BETTEL_C)
    other = parse_hand("EA EZ EK E9 E8 E7 GA GZ")
    assert declaration_error(other, 6, RULES) == ("bettel is not enabled in ruleset stargames (enabled: rufspiel, "
                                                  "solo, wenz, geier)")
    assert declaration_error(other, 6, CLUB) is None
    assert declaration_error(other, 6 + 64, CLUB) == "a Bettel cannot be played Tout"
    assert declaration_error(other, 6 + 8, CLUB) == "bettel takes no suit"
    assert "sie = false" in declaration_error(sie_hand, 7, CLUB)
    sie_rules = CLUB.replace(sie=True)
    assert declaration_error(sie_hand, 7, sie_rules) is None
    assert "only a hand of exactly the four Ober and four Unter" in declaration_error(other, 7, sie_rules)
    assert declaration_error(sie_hand, 7 + 64, sie_rules) == "a Sie cannot be played Tout"


def test_settle_stock():
    rules = club(all_pass="stock", stock={"price": 10})
    assert settle_stock(rules, None, 40) == ((-10, -10, -10, -10), 80)
    assert settle_stock(rules, throw_in_result(), 0, knocks=2) == ((-40, -40, -40, -40), 160)
    games_only = club(all_pass="stock", stock={"price": 10, "doubling": "games"})
    assert settle_stock(games_only, None, 0, knocks=2) == ((-10, -10, -10, -10), 40)
    ruf = dict(contract="rufspiel", suit="gras", tout=False, declarer=0, partner=2, declarer_points=70,
               declarer_tricks=5, schneider=False, schwarz=False, laufende=0, laufende_mit=False,
               laufende_paid=False, doublings=0, price=1)
    won = GameResult(won=True, payouts=(1, -1, 1, -1), **ruf)
    lost = GameResult(won=False, payouts=(-1, 1, -1, 1), **ruf)
    assert settle_stock(rules, won, 120, knocks=3) == ((61, -1, 61, -1), 0)  # knocks do not touch the stock
    assert settle_stock(rules, lost, 120) == ((-61, 1, -61, 1), 240)
    assert settle_stock(rules, won, 0) == ((1, -1, 1, -1), 0)
    solo = GameResult(**{**ruf, "contract": "solo", "partner": None}, won=True, payouts=(15, -5, -5, -5))
    assert settle_stock(rules, solo, 120) == ((15, -5, -5, -5), 120)
    with pytest.raises(ValueError, match="non-negative"):
        settle_stock(rules, None, -10)
    with pytest.raises(ValueError, match="halves"):
        settle_stock(rules, won, 35)


# --------------------------------------------------------------- random deals, random legal play (hypothesis)

def random_hands(rng: random.Random, deck: str) -> list[int]:
    deck_cards = [c for c in range(64) if DECK_MASKS[deck] >> c & 1]
    rng.shuffle(deck_cards)
    n = len(deck_cards) // 4
    return [sum(1 << c for c in deck_cards[i * n:(i + 1) * n]) for i in range(4)]


SETTINGS = settings(max_examples=60, deadline=None, derandomize=True)


@SETTINGS
@given(seed=st.integers(0, 2 ** 32 - 1), deck=st.sampled_from(["long", "short"]),
       tie=st.sampled_from(["highest-trump", "more-tricks"]),
       durchmarsch=st.sampled_from(["all", "none", 61, 91, 120]),
       jungfrau=st.sampled_from(["none", "double-all", "double-each", "double-each-multiple"]),
       knocks=st.integers(0, 3), price=st.integers(1, 50))
def test_random_ramsch_is_zero_sum_and_the_loser_holds_the_most(seed, deck, tie, durchmarsch, jungfrau, knocks,
                                                                price):
    rng = random.Random(seed)
    rules = club(deck=deck, ramsch={"price": price, "tie": tie, "durchmarsch": durchmarsch, "jungfrau": jungfrau})
    g = Game(rules, random_hands(rng, deck), RAMSCH_C, None, knocks=knocks)
    while not g.is_over:
        g.play(rng.choice(g.legal_cards()))
    r = g.result()
    assert sum(r.seat_points) == 120 and sum(r.seat_tricks) == g.n_tricks
    assert sum(r.payouts) == 0
    assert r.price == price * 2 ** knocks
    assert r.declarer_points == r.seat_points[r.declarer] == max(r.seat_points)
    if r.durchmarsch:
        assert r.payouts[r.declarer] == 3 * r.price
    else:
        assert r.payouts[r.declarer] <= -3 * r.price < 0
        assert r.jungfrauen == sum(1 for t in r.seat_tricks if t == 0)
        assert r.seat_tricks[r.declarer] > 0


@SETTINGS
@given(seed=st.integers(0, 2 ** 32 - 1), deck=st.sampled_from(["long", "short"]), stichzwang=st.booleans(),
       declarer=st.integers(0, 3), doublings=st.integers(0, 2), knocks=st.integers(0, 2),
       stock=st.sampled_from([0, 40, 200]))
def test_random_bettel_is_zero_sum_and_stichzwang_beats(seed, deck, stichzwang, declarer, doublings, knocks, stock):
    rng = random.Random(seed)
    rules = club(deck=deck, all_pass="stock", bettel={"price": 10, "stichzwang": stichzwang}, stock={"price": 5})
    g = Game(rules, random_hands(rng, deck), BETTEL_C, declarer, doublings=doublings, knocks=knocks)
    while not g.is_over:
        legal = g.legal_cards()
        if stichzwang and g.current:
            hand = g.hands[g.to_play]
            led = suit_of_card(g.current[0])
            best = max((c for c in g.current if suit_of_card(c) == led), key=lambda c: -bettel_rank(c))
            beating = [c for c in hand if suit_of_card(c) == led and bettel_rank(c) < bettel_rank(best)]
            if beating:  # he holds a card that beats: every legal card beats
                assert sorted(legal) == sorted(beating)
        g.play(rng.choice(legal))
    r = g.result()
    assert sum(r.seat_points) == 120 and sum(r.payouts) == 0
    assert r.won == (r.seat_tricks[declarer] == 0)
    assert r.price == 10 * 2 ** (doublings + knocks)
    changes, after = settle_stock(rules, r, stock, knocks)
    assert after == stock and changes == r.payouts  # a Bettel leaves the stock alone
    changes, after = settle_stock(rules, None, stock, knocks)
    assert sum(changes) + after - stock == 0


def suit_of_card(c: int) -> int:
    return c // 8


def bettel_rank(c: int) -> int:
    """0 for the Ass .. 7 for the 7: A K O U Z 9 8 7, written out again from RULES.md 4.2."""
    return "AKOUZ987".index(format_card(c)[1])


@SETTINGS
@given(seed=st.integers(0, 2 ** 32 - 1), deck=st.sampled_from(["long", "short"]), stock=st.integers(0, 50),
       knocks=st.integers(0, 2), doublings=st.integers(0, 2))
def test_random_rufspiel_settles_the_stock_zero_sum(seed, deck, stock, knocks, doublings):
    rng = random.Random(seed)
    rules = club(deck=deck, all_pass="stock", stock={"price": 5})
    stock *= 2  # a stock is always even (paid in fours, emptied or doubled)
    while True:
        hands = random_hands(rng, deck)
        calls = [(s, suit) for s in range(4) for suit in (0, 1, 3) if can_call(hands[s], suit, deck)]
        if calls:
            break
    declarer, suit = rng.choice(calls)
    g = Game(rules, hands, Contract(RUFSPIEL, suit), declarer, doublings=doublings, knocks=knocks)
    while not g.is_over:
        g.play(rng.choice(g.legal_cards()))
    r = g.result()
    changes, after = settle_stock(rules, r, stock, knocks)
    assert sum(changes) + after - stock == 0
    assert after == (0 if r.won else 2 * stock)
    for s in range(4):
        share = 0 if s not in (r.declarer, r.partner) else (stock // 2 if r.won else -stock // 2)
        assert changes[s] == r.payouts[s] + share


def test_contract_from_row_of_the_club_kinds():
    from simkit.reference import contract_from_row

    assert contract_from_row(BETTEL, -1, False) == BETTEL_C
    assert contract_from_row(SIE, -1, True) == Contract(SIE)  # never a Tout
    assert contract_from_row(RAMSCH, -1, False) == RAMSCH_C
