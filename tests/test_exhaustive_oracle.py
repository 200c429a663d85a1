"""Self-tests of the exhaustive oracle (tests/exhaustive.py) and of its position generator.

The oracle is what the fast solver (simkit.solver) is checked against, so it is checked here on its own, without
importing the solver: finished deals, one card a hand (every line is forced, so the values are plain playouts),
two positions worked out by hand, a few identities every minimax value must satisfy, and the generator's knobs
(each must really produce the situation it is meant to steer to).
"""

import random

import pytest

from exhaustive import (
    KINDS, OBJECTIVES, after, best_cards, count_leaves, exhaustive_value, exhaustive_values, game_from_record,
    holds_unsearched_ace, maximises, objective_of, random_position, record_of, sample_positions,
)
from simkit.cards import format_card, parse_card
from simkit.replay import replay
from simkit.rules import load_ruleset

C = parse_card


def state(game):
    """Everything ``Game.play`` may change, as comparable values."""
    return ([sorted(h) for h in game.hands], list(game.current), list(game.tricks), game.leader, game.searched)


def play_out(game):
    """Play a position to the end where every seat has exactly one legal card at each turn."""
    while not game.is_over:
        legal = game.legal_cards()
        assert len(legal) == 1
        game = after(game, legal[0])
    return game


# ------------------------------------------------------------------------------------------ basic cases

def test_finished_game_value_is_its_result():
    rng = random.Random(11)
    n = 0
    for _ in range(60):
        record, game = random_position(rng, deck=rng.choice(["long", "short"]), cards_left=1, mid_trick=0,
                                       kontra="random", klopfen=rng.sample(range(4), rng.randrange(3)))
        game = play_out(game)
        result = game.result()
        for objective in OBJECTIVES:
            assert exhaustive_value(game, objective) == objective_of(result, game, objective)
        with pytest.raises(ValueError):
            exhaustive_values(game, "points")
        # A finished record built from the game replays to the same result (tariff and doublings included).
        full = record_of(game, record_id="full", klopfen=record["klopfen"], kontra=record["kontra"])
        assert replay(full, game.rules) == result
        n += 1
    assert n == 60


def test_one_card_each_values_are_playouts():
    rng = random.Random(12)
    seen_mid = set()
    for i in range(200):
        record, game = random_position(rng, deck=["long", "short"][i % 2], cards_left=1, kind=KINDS[i % 6])
        seen_mid.add(len(game.current))
        legal = game.legal_cards()
        assert len(legal) == 1
        end = play_out(game)
        for objective in OBJECTIVES:
            expected = objective_of(end.result(), end, objective)
            assert exhaustive_values(game, objective) == {legal[0]: expected}
            assert exhaustive_value(game, objective) == expected
    assert seen_mid == {0, 1, 2, 3}


def test_unknown_objective_is_an_error():
    _, game = random_position(random.Random(1), cards_left=1, mid_trick=0)
    with pytest.raises(ValueError, match="unknown objective"):
        exhaustive_value(game, "score")


# ----------------------------------------------------------------------------------- worked out by hand

WENZ_RECORD = {
    "id": "wenz by hand", "deck": "short", "contract": "wenz", "tout": False, "declarer": 0, "suit": None,
    "hands": [["EU", "GU", "HU", "SU", "G9", "HA"],
              ["GA", "E9", "EA", "EK", "EO", "GZ"],
              ["GK", "HZ", "HK", "HO", "H9", "GO"],
              ["EZ", "SA", "SZ", "SK", "SO", "S9"]],
    "klopfen": [], "kontra": [],
    "tricks": [{"leader": 0, "cards": t.split()} for t in ["EU EA GO S9", "GU EK HK SO", "HU EO HO SK",
                                                            "HA GZ H9 SZ"]],
}


def test_wenz_declarer_holding_the_last_trump_by_hand():
    """Short-deck Wenz; the declarer took the first four tricks (72 points) and holds SU, the last trump, and G9.

    Left: seat 0 SU G9 | seat 1 GA E9 | seat 2 GK HZ | seat 3 EZ SA; seat 0 leads.
    * SU first: everybody discards, the least they can give is E9, GK, EZ (16 with SU), keeping GA to win the
      G9 in the last trick: 72 + 16 = 88.
    * G9 first: GA and GK must follow and win; seat 3 throws SA on it and keeps EZ; seat 1 must lead E9 and the
      SU takes E9 HZ EZ: 72 + 22 = 94, Schneider.
    Wenz with all four Unter: 4 Laufende paid (minimum 2): price 5 + 4 (+1 Schneider), the soloist 3x.
    """
    game = game_from_record(WENZ_RECORD)
    assert game.to_play == 0 and maximises(game)
    su, g9 = C("SU"), C("G9")
    assert exhaustive_values(game, "points") == {su: 88, g9: 94}
    assert exhaustive_value(game, "points") == 94
    assert exhaustive_values(game, "win") == {su: 1, g9: 1}
    assert exhaustive_values(game, "tricks") == {su: 5, g9: 5}
    assert exhaustive_values(game, "payout") == {su: 3 * 9, g9: 3 * 10}
    assert best_cards(game, exhaustive_values(game, "points")) == {g9}
    assert best_cards(game, exhaustive_values(game, "win")) == {su, g9}

    # After the SU lead the defenders choose. If seat 1 throws GA, seat 2 must keep GK for the last trick and
    # throw HZ instead: SU GA HZ EZ = 33.
    g = after(game, su)
    assert not maximises(g)
    assert exhaustive_values(g, "points") == {C("GA"): 72 + 2 + 11 + 10 + 10, C("E9"): 88}
    # With the G9 lead seat 1 must play GA, then seat 2 GK; seat 3 chooses what to give away.
    g = after(after(after(game, g9), C("GA")), C("GK"))
    assert exhaustive_values(g, "points") == {C("EZ"): 72 + 0 + 2 + 10 + 11, C("SA"): 94}


RUF_RECORD = {
    "id": "rufspiel by hand", "deck": "short", "contract": "rufspiel", "tout": False, "declarer": 2, "suit": "gras",
    "hands": [["GA", "HO", "HZ", "GO", "HA", "EK"],
              ["GK", "HU", "EU", "EO", "S9", "EZ"],
              ["G9", "H9", "GU", "SO", "HK", "SK"],
              ["GZ", "SU", "EA", "SZ", "SA", "E9"]],
    "klopfen": [], "kontra": [],
    "tricks": [{"leader": 0, "cards": "GA GK G9 GZ".split()}, {"leader": 0, "cards": "HO HU H9 SU".split()},
               {"leader": 0, "cards": "HZ EU GU EA".split()}, {"leader": 1, "cards": "EO SO SZ GO".split()},
               {"leader": 1, "cards": "S9 SK SA".split()}],
}


def test_rufspiel_partner_maximises_by_hand():
    """Short-deck Rufspiel, seat 2 calls the Gras ace; seat 0 holds it (the partner) and has 32 points with the
    declarer. Trick 5 so far: S9 SK SA; seat 0 (HA EK left) plays last.
    * HA: trumps the trick (26) and leads EK; seat 2's HK trumps it (EK EZ HK E9 = 18): 32 + 26 + 18 = 76, won.
    * EK: SA wins (19 for the defenders), seat 3 leads E9 and the HA takes E9 HA EZ HK = 25: 57, lost.
    The partner is on the declaring side, so the value of the position is 76, not 57. No Laufende (EO is a
    defender's, GO the partner's), price 1 (stargames)."""
    game = game_from_record(RUF_RECORD)
    assert game.partner == 0 and game.team == {0, 2} and game.to_play == 0 and maximises(game)
    ha, ek = C("HA"), C("EK")
    assert exhaustive_values(game, "points") == {ha: 76, ek: 57}
    assert exhaustive_value(game, "points") == 76
    assert exhaustive_values(game, "win") == {ha: 1, ek: 0}
    assert exhaustive_values(game, "tricks") == {ha: 4, ek: 3}
    assert exhaustive_values(game, "payout") == {ha: 1, ek: -1}
    # One card earlier seat 3 must follow Schellen with SA: a single legal card with the same value.
    earlier = dict(RUF_RECORD, tricks=RUF_RECORD["tricks"][:-1] + [{"leader": 1, "cards": ["S9", "SK"]}])
    g = game_from_record(earlier)
    assert exhaustive_values(g, "points") == {C("SA"): 76}
    # The same position with the sauspiel tariff and Kontra + Re: 20 x 4.
    g = game_from_record(dict(RUF_RECORD, kontra=[1, 0]), "sauspiel")
    assert exhaustive_values(g, "payout") == {ha: 80, ek: -80}


# ------------------------------------------------------------------------------------------- identities

def test_value_identities_on_random_positions():
    """value = max/min of the card values; values[c] = value after c; the search leaves the position unchanged;
    win is a monotone function of points (of tricks in a Tout), so minimax commutes with it."""
    rng = random.Random(13)
    kinds_seen, touts = set(), 0
    for i in range(120):
        record, game = random_position(rng, deck=["long", "short"][i % 2], kind=KINDS[i % 6],
                                       cards_left=rng.choice([2, 2, 3]), kontra="random")
        before = state(game)
        values = {o: exhaustive_values(game, o) for o in OBJECTIVES}
        assert state(game) == before
        for o in OBJECTIVES:
            assert set(values[o]) == set(game.legal_cards())
            pick = max if maximises(game) else min
            assert exhaustive_value(game, o) == pick(values[o].values())
            c = rng.choice(sorted(values[o]))
            assert exhaustive_value(after(game, c), o) == values[o][c]
        for c in values["points"]:
            if game.contract.tout:
                assert values["win"][c] == int(values["tricks"][c] == game.n_tricks)
            else:
                assert values["win"][c] == int(values["points"][c] >= 61)
            assert 0 <= values["points"][c] <= 120
        kinds_seen.add(game.contract.name)
        touts += game.contract.tout
    assert kinds_seen == set(KINDS) and touts > 5


def test_value_lies_between_worst_and_best_line():
    rng = random.Random(14)

    def leaves(game, objective):
        if game.is_over:
            return [objective_of(game.result(), game, objective)]
        return [v for c in game.legal_cards() for v in leaves(after(game, c), objective)]

    for _ in range(40):
        _, game = random_position(rng, cards_left=2, deck=rng.choice(["long", "short"]))
        for o in OBJECTIVES:
            all_lines = leaves(game, o)
            assert len(all_lines) == count_leaves(game)
            assert min(all_lines) <= exhaustive_value(game, o) <= max(all_lines)


# ------------------------------------------------------------------------------------------- generator

def test_generator_records_rebuild_the_game():
    rng = random.Random(15)
    tariff = {"base": 20, "schneider": 10, "schwarz": 10, "laufende": 10, "laufende_min": 3}
    for i in range(150):
        deck = ["long", "short"][i % 2]
        rules = load_ruleset().replace(run_away_min=2) if i % 3 == 0 else None
        record, game = random_position(rng, deck=deck, kind=KINDS[i % 6], cards_left=rng.randint(1, 3),
                                       rules=rules, tariff=tariff if i % 4 == 0 else None, kontra="random",
                                       klopfen=[1] if i % 5 == 0 else None, greedy=0.5)
        rebuilt = game_from_record(record, game.rules)
        assert state(rebuilt) == state(game)
        assert (rebuilt.doublings, rebuilt.tariff, rebuilt.team) == (game.doublings, game.tariff, game.team)
        assert record["deck"] == deck and game.deck == deck
        played = [c for t in record["tricks"] for c in t["cards"]]
        assert played == [format_card(c) for _, cs, _ in game.tricks for c in cs] + \
            [format_card(c) for c in game.current]
        assert all(len(t["cards"]) == 4 for t in record["tricks"][:len(game.tricks)])


def test_generator_knobs_reach_their_situations():
    rng = random.Random(16)
    # mid_trick and cards_left
    for mid in range(4):
        _, g = random_position(rng, cards_left=3, mid_trick=mid)
        assert len(g.current) == mid and len(g.hands[g.to_play]) == 3
    # unsearched: the called ace stays in the holder's hand
    kept = sum(holds_unsearched_ace(g) for _, g in (random_position(rng, kind="rufspiel", cards_left=2,
                                                                    unsearched=True) for _ in range(100)))
    assert kept >= 50
    # running away with run_away_min = 2
    rules = load_ruleset().replace(run_away_min=2)

    def runs_away(g):
        if not holds_unsearched_ace(g, g.to_play) or g.current:
            return False
        return any(g.eff(c) == g.contract.suit and c != g.called_ace for c in g.legal_cards())

    found = sample_positions(rng, 5, runs_away, kind="rufspiel", cards_left=3, mid_trick=0, rules=rules,
                             unsearched=True, holder_called=3, max_tries=5000)
    assert len(found) == 5
    # Touts with a strong declarer and greedy play: some won, some lost
    wins = [exhaustive_value(g, "win") for _, g in (random_position(rng, kind=rng.choice(["solo", "wenz", "geier"]),
                                                                    tout=True, cards_left=2, strong_declarer=6,
                                                                    greedy=0.9) for _ in range(60))]
    assert 0 < sum(wins) < len(wins)
