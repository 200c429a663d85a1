"""The old German game (RULES.md 3): trump choice, the stroke table, parties, kernel vs referee, forced share."""

import numpy as np
import pytest

from simkit.cards import parse_card, parse_hand
from simkit.oldgerman import kernel as K
from simkit.oldgerman import reference as R
from simkit.oldgerman.probability import forced_share
from simkit.oldgerman.rules import TRUMP, OldGermanRuleset, build_tables
from simkit.rules import RulesetError, load_ruleset

E, G, H, S = range(4)


def make_deal(spec: dict[int, str]) -> list[int]:
    """Hands by seat: the seats in ``spec`` get those cards, the others share the rest round-robin in card order
    (which spreads every suit evenly, so they stay below 5)."""
    hands = [0, 0, 0, 0]
    used = 0
    for seat, text in spec.items():
        hands[seat] = parse_hand(text, size=8)
        assert not used & hands[seat]
        used |= hands[seat]
    others = [s for s in range(4) if s not in spec]
    rest = [c for c in range(32) if not used >> c & 1]
    for i, c in enumerate(rest):
        hands[others[i % len(others)]] |= 1 << c
    assert sum(bin(h).count("1") for h in hands) == 32
    return hands


def kernel_choice(hands, forehand):
    t = build_tables()
    return K.choose_trump(np.array(hands, np.int64), forehand, t.points)


def check_choice(hands, forehand, chooser, suit, forced):
    c = R.choose_trump(hands, forehand)
    assert (c.chooser, c.suit, c.forced) == (chooser, suit, forced), c
    k = kernel_choice(hands, forehand)
    assert (int(k[0]), int(k[1]), int(k[2]), bool(k[3])) == (c.chooser, c.suit, c.count, c.forced)
    return c


# ----------------------------------------------------------------------------------------- trump choice

def test_single_announcer_chooses_his_longest_suit():
    hands = make_deal({2: "EU GU H7 H8 H9 SK SA SZ"})  # 2 Unter + 3 Schellen (more points than 3 Herz) = 5
    c = check_choice(hands, 0, 2, S, False)
    assert c.count == 5


def test_higher_count_beats_earlier_seat():
    hands = make_deal({0: "EU EA EK EO EZ GA GK GO",  # 1 + 4 = 5
                       3: "GU HU SA SK SO SZ S9 S8"})  # 2 + 6 = 8
    check_choice(hands, 0, 3, S, False)


def test_equal_counts_more_points_wins():
    hands = make_deal({0: "E7 E8 E9 EO GU G7 G8 G9",  # E: 4 cards 3 points + GU 2 = 5, count 1 + 4 = 5
                       1: "SU SA SK S7 S8 H7 H8 H9"})  # S: 4 cards 15 points + SU 2 = 17, count 5
    check_choice(hands, 0, 1, S, False)


def test_equal_counts_and_points_earlier_seat_from_forehand():
    spec = {1: "GU E7 E8 E9 EO HA HZ H7",  # 1 + 4 E (3 points) = 5, points 5
            3: "HU S7 S8 S9 SO GA GZ G7"}  # 1 + 4 S (3 points) = 5, points 5
    hands = make_deal(spec)
    check_choice(hands, 0, 1, E, False)  # seat 1 comes before seat 3 from forehand 0
    check_choice(hands, 2, 3, S, False)  # from forehand 2 the order is 2, 3, 0, 1


def test_chooser_suit_ties_by_points_then_suit_order():
    # 4 Gras and 4 Schellen: Schellen has more points
    hands = make_deal({0: "G7 G8 G9 GO SA S7 S8 S9"})
    pc = R.player_count(hands[0], 0)
    assert (pc.count, pc.suit) == (4, S)
    # equal length and points: the earlier suit in E G H S
    hands = make_deal({0: "EU G7 G8 G9 H7 H8 H9 SA"})
    pc = R.player_count(hands[0], 0)
    assert (pc.count, pc.suit, pc.points) == (4, G, 2)
    hands = make_deal({0: "EU GU HU SU HA SA HK SK"})  # 4 Unter + 2 Herz (15) + 2 Schellen (15): Herz
    c = check_choice(hands, 0, 0, H, False)
    assert c.count == 6


def test_forced_when_nobody_reaches_five():
    # every seat has two cards of every suit (Unter included): counts are at most 1 + 2 = 3
    hands = [parse_hand("EU E7 GA G7 HA H7 SA S7"), parse_hand("GU E8 GZ G8 HZ H8 SZ S8"),
             parse_hand("HU E9 GK G9 HK H9 SK S9"), parse_hand("SU EA EZ EK EO GO HO SO")]
    # seat 3: SU + 4 Eichel = 5 -> obliged; make him swap an Eichel for seat 2's Herz 9 so nobody reaches 5
    hands[3] ^= (1 << parse_card("EO")) | (1 << parse_card("H9"))
    hands[2] ^= (1 << parse_card("EO")) | (1 << parse_card("H9"))
    assert all(R.player_count(h, s).count < 5 for s, h in enumerate(hands))
    c = check_choice(hands, 0, 0, R.longest_suit(hands[0]), True)
    assert c.chooser == 0  # the Eichel-Unter holder, whatever forehand is
    check_choice(hands, 2, 0, c.suit, True)


# ----------------------------------------------------------------------------------------- the strokes

# (declarer points, declarer tricks, forced, follow-up of, declaring team) -> (won, tie, double, strokes_0, strokes_1)
STROKE_TABLE = [
    # ordinary deals, team 0 declares
    ((61, 4, False, None, 0), (True, False, False, 1, 0)),
    ((89, 6, False, None, 0), (True, False, False, 1, 0)),
    ((90, 6, False, None, 0), (True, False, True, 2, 0)),
    ((59, 3, False, None, 0), (False, False, False, 0, 2)),
    ((31, 2, False, None, 0), (False, False, False, 0, 2)),
    ((30, 2, False, None, 0), (False, False, True, 0, 4)),
    # the forced team: wins as usual, loses reduced
    ((75, 5, True, None, 1), (True, False, False, 0, 1)),
    ((95, 7, True, None, 1), (True, False, True, 0, 2)),
    ((40, 3, True, None, 1), (False, False, False, 1, 0)),
    ((12, 1, True, None, 1), (False, False, True, 2, 0)),
    # 60-60
    ((60, 4, False, None, 0), (False, True, False, 0, 0)),
    ((60, 4, True, None, 1), (False, True, False, 0, 0)),
    # follow-up, the team that declared in the tie declares again
    ((70, 5, False, 0, 0), (True, False, False, 2, 0)),
    ((100, 7, False, 0, 0), (True, False, True, 3, 0)),
    ((50, 3, False, 0, 0), (False, False, False, 0, 4)),
    ((20, 1, False, 0, 0), (False, False, True, 0, 6)),
    # follow-up, the other team declares
    ((70, 5, False, 1, 0), (True, False, False, 2, 0)),
    ((100, 7, False, 1, 0), (True, False, True, 3, 0)),
    ((50, 3, False, 1, 0), (False, False, False, 0, 3)),
    ((20, 1, False, 1, 0), (False, False, True, 0, 5)),
    # no forced reduction in a follow-up deal
    ((50, 3, True, 1, 1), (False, False, False, 4, 0)),
    ((50, 3, True, 0, 1), (False, False, False, 3, 0)),
    ((20, 1, True, 0, 1), (False, False, True, 5, 0)),
    # a tie in a follow-up deal is a tie again
    ((60, 4, False, 0, 1), (False, True, False, 0, 0)),
]


@pytest.mark.parametrize("args,expected", STROKE_TABLE)
def test_stroke_table(args, expected):
    dp, dt, forced, fu, team = args
    s = R.score_deal(dp, dt, team, forced, fu)
    assert (s.won, s.tie, s.double, *s.strokes) == expected
    assert not s.schwarz
    k = K.score_deal(dp, dt, team, forced, -1 if fu is None else fu)
    assert (bool(k[0]), bool(k[1]), bool(k[2]), int(k[5]), int(k[6])) == expected


@pytest.mark.parametrize("dt,team,fu,winner", [(8, 0, None, 0), (0, 0, None, 1), (8, 1, 0, 1), (0, 1, 1, 0)])
def test_schwarz_wins_a_head_and_awards_no_strokes(dt, team, fu, winner):
    s = R.score_deal(120 if dt == 8 else 0, dt, team, False, fu)
    assert s.schwarz and s.schwarz_team == winner and s.strokes == (0, 0) and s.won == (dt == 8)
    k = K.score_deal(120 if dt == 8 else 0, dt, team, False, -1 if fu is None else fu)
    assert bool(k[3]) and int(k[4]) == winner and (int(k[5]), int(k[6])) == (0, 0)


def test_partie_ends_exactly_at_head_strokes():
    p = R.Partie(head_strokes=9)
    for _ in range(4):
        p.record(0, R.score_deal(70, 5, 0, False))  # +1 to team 0
    p.record(1, R.score_deal(95, 7, 1, False))  # +2 to team 1
    for _ in range(4):
        p.record(0, R.score_deal(70, 5, 0, False))
    assert p.strokes == [8, 2] and not p.is_over
    p.record(1, R.score_deal(60, 4, 1, False))  # tie: follow-up of team 1
    assert p.follow_up_of == 1 and not p.is_over
    p.record(0, R.score_deal(70, 5, 0, False, p.follow_up_of))  # other team declares and wins: +2
    assert p.strokes == [10, 2] and p.winner == 0 and not p.won_by_schwarz and p.deals == 11
    with pytest.raises(ValueError):
        p.record(0, R.score_deal(70, 5, 0, False))


def test_partie_won_by_schwarz_keeps_strokes():
    p = R.Partie(head_strokes=12)
    p.record(0, R.score_deal(95, 7, 0, False))
    p.record(0, R.score_deal(0, 0, 0, False))  # team 1 takes every trick
    assert p.winner == 1 and p.won_by_schwarz and p.strokes == [2, 0]


# ------------------------------------------------------------------------------------------ tables

def test_tables_follow_the_rule_book():
    t = build_tables()
    for trump in range(4):
        order = R.trump_order(trump)
        assert [int(x) for x in np.argsort(-t.strength[trump])[:11]] == order
        assert all(t.eff_suit[trump, c] == TRUMP for c in order)
        for s in range(4):
            if s != trump:
                side = R.side_order(s)
                assert list(t.strength[trump, side]) == sorted(t.strength[trump, side], reverse=True)
                assert all(t.eff_suit[trump, c] == s for c in side)
    assert R.trump_order(H)[:6] == [parse_card(x) for x in "EU GU HU SU HA HK".split()]
    assert R.side_order(E)[2:4] == [parse_card("EO"), parse_card("EZ")]  # the ten below the Ober


def test_ruleset_preset_and_validation(tmp_path):
    r = load_ruleset("old-german")
    assert isinstance(r, OldGermanRuleset) and r.head_strokes == 9 and r.deck == "long"
    assert load_ruleset("old-german-12").head_strokes == 12
    f = tmp_path / "house.toml"
    f.write_text('extends = "old-german"\nhead_strokes = 12\n')
    assert load_ruleset(str(f)).head_strokes == 12
    f.write_text('game = "old-german"\nhead_strokes = 0\n')
    with pytest.raises(RulesetError, match="head_strokes"):
        load_ruleset(str(f))
    f.write_text('game = "old-german"\ntariff = 3\n')
    with pytest.raises(RulesetError, match="unknown key 'tariff'"):
        load_ruleset(str(f))
    with pytest.raises(RulesetError, match="long deck"):
        r.replace(deck="short")
    import tomllib
    assert load_ruleset("stargames").name == "stargames"
    assert tomllib.loads(r.to_toml())["game"] == "old-german"


# ------------------------------------------------------------------------------------ kernel vs referee

def _check_deal_row(d, i, rec):
    ch, s = rec.choice, rec.score
    assert tuple(int(h) for h in d["hands"][i]) == rec.hands
    assert [int(x) for x in d["trace_legal"][i]] == list(rec.legal)
    got = tuple(int(d[k][i]) for k in ("chooser", "trump_suit", "chooser_count", "forced", "follow_up",
                                        "declarer_points", "declarer_tricks", "won", "tie", "double", "schwarz",
                                        "strokes_0", "strokes_1", "forehand"))
    exp = (ch.chooser, ch.suit, ch.count, ch.forced, rec.follow_up_of is not None, rec.declarer_points,
           rec.declarer_tricks, s.won, s.tie, s.double, s.schwarz, *s.strokes, rec.forehand)
    assert got == tuple(int(x) for x in exp)


@pytest.mark.parametrize("seats", [("random",) * 4, ("heuristic",) * 4, ("heuristic", "random") * 2])
def test_kernel_matches_referee_on_deals(seats):
    n, start = 1500, 10_000
    d = K.play_deals(5, start, n, seats=seats, trace=True)
    assert (d["deal_id"] == np.arange(start, start + n)).all() and not d["follow_up"].any()
    for i in range(n):
        cards = [int(c) for c in d["trace_played"][i]]
        rec = R.play_deal(5, start + i, 0, None, cards)
        _check_deal_row(d, i, rec)
        if seats[0] == "random" and i < 300:  # the referee's own random policy plays the same cards
            assert R.play_deal(5, start + i).tricks == rec.tricks


@pytest.mark.parametrize("head", [9, 12])
def test_kernel_matches_referee_on_parties(head):
    deals, parties = K.play_parties(3, 50, 120, head_strokes=head, seats=("heuristic", "random") * 2, trace=True,
                                    chunk=50)
    assert (parties["partie_id"] == np.arange(50, 170)).all()
    row = 0
    for j, pid in enumerate(parties["partie_id"]):
        p = R.Partie(head_strokes=head)
        while not p.is_over:
            assert deals["partie_id"][row] == pid and deals["deal_no"][row] == p.deals
            idx = int(pid) * K.MAX_DEALS + p.deals
            assert deals["deal_id"][row] == idx
            rec = R.play_deal(3, idx, p.forehand, p.follow_up_of, [int(c) for c in deals["trace_played"][row]])
            _check_deal_row(deals, row, rec)
            before = list(p.strokes)
            p.record(rec.choice.team, rec.score)
            if not p.is_over:  # a partie goes on exactly while both teams are short of the head
                assert max(p.strokes) < head
            else:
                assert p.won_by_schwarz or max(p.strokes) >= head > max(before)
            row += 1
        assert (parties["winner_team"][j], parties["deals"][j], parties["strokes_0"][j], parties["strokes_1"][j],
                parties["won_by_schwarz"][j]) == (p.winner, p.deals, p.strokes[0], p.strokes[1], p.won_by_schwarz)
    assert row == len(deals["deal_id"])


def test_parties_do_not_depend_on_chunking():
    a, pa = K.play_parties(9, 0, 300, chunk=300)
    b, pb = K.play_parties(9, 0, 300, chunk=7)
    for k in pa:
        assert (pa[k] == pb[k]).all()
    for k in a:
        assert (a[k] == b[k]).all()


# ------------------------------------------------------------------------------------------ forced share

def test_exact_forced_share_by_enumeration():
    f = forced_share()
    assert f.numerator * 409716429837 == f.denominator * 110618944030  # 0.2699890...
    assert abs(float(f) - 0.2699890362561448) < 1e-15


def test_forced_share_of_the_kernel_agrees_with_the_exact_figure():
    n = 400_000
    d = K.play_deals(2026, 0, n, seats=("random",) * 4)
    p = float(forced_share())
    se = (p * (1 - p) / n) ** 0.5
    measured = d["forced"].mean()
    assert abs(measured - p) < 4 * se, (measured, p, se)
    # and the forced deals are exactly those where nobody's count reaches 5, chosen by the EU holder
    forced = d["forced"]
    eu_holder = np.argmax((d["hands"] >> 3) & 1, axis=1)
    assert (d["chooser"][forced] == eu_holder[forced]).all()
    assert (d["chooser_count"][~forced] >= 5).all() and (d["chooser_count"][forced] <= 4).all()


def test_heuristic_partners_beat_random_partners():
    _, p = K.play_parties(1, 0, 2000, seats=("heuristic", "random", "heuristic", "random"))
    assert (p["winner_team"] == 0).mean() > 0.8  # measured 0.92 over 2*10^4 parties
    _, p = K.play_parties(1, 0, 2000, seats=("random", "heuristic", "random", "heuristic"))
    assert (p["winner_team"] == 1).mean() > 0.8
