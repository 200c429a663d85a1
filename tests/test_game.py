"""Whole deals (simkit.engine.game): bidding, doubling, play and scoring agree with the referee; determinism."""

import numpy as np
import pytest

from simkit.engine.deal import deal_batch
from simkit.engine.game import play_games
from simkit.rules import Ruleset
from simkit.strategies import resolve
from simkit.strategies.api import NOT_ASKED, PASS
from simkit.verify import check_deals, check_whole_deals

ALL_CONTRACTS = ("rufspiel", "solo", "wenz", "geier", "farbwenz", "farbgeier")
EAGER = [0.6, 0.3, 0.25]  # random: bid probability, Kontra/Re probability, Tout share


def _assert_clean(report, *must_see):
    assert report.mismatches == []
    for what in must_see:
        assert report.seen.get(what, 0) > 0, (what, report.seen)


def test_random_seats_agree_with_referee_every_contract():
    r = resolve("random", config=EAGER)
    rules = Ruleset(contracts=ALL_CONTRACTS)
    report = check_whole_deals(12_000, 11, seats=[r] * 4, rules=rules)
    assert report.games > 11_000
    _assert_clean(report, "solo", "wenz", "geier", "farbwenz", "farbgeier", "tout", "rufspiel", "passed",
                  "kontra", "re", "called ace forced")


def test_mixed_seats_agree_with_referee_both_decks():
    r = resolve("random", config=EAGER)
    for rules, seed in ((Ruleset(), 3), (Ruleset(deck="short", re_by_partner=False), 4),
                        (Ruleset(max_doublings=1, tout=False), 5)):
        report = check_whole_deals(3_000, seed, seats=["heuristic", r, "heuristic", r], rules=rules)
        _assert_clean(report, "rufspiel", "passed", "kontra")
        if rules.max_doublings < 2:
            assert "re" not in report.seen
        if not rules.tout:
            assert "tout" not in report.seen


def test_forced_mode_and_impossible_rufspiel_rows():
    report = check_whole_deals(4_000, 9, seats="random", contract="rufspiel", declarer=1)
    _assert_clean(report, "impossible", "called ace forced", "running away")
    res = play_games(9, 0, 2_000, seats="random", contract=("rufspiel", "gras"), declarer=3, trace=True)
    assert (res["bids"] == NOT_ASKED).all()
    imp = res["impossible"]
    assert imp.any() and (~imp).any()
    assert (res["kind"][imp] == -1).all() and (res["declarer"][imp] == -1).all() and (res["price"][imp] == 0).all()
    assert (res["suit"][~imp] == 1).all() and (res["declarer"][~imp] == 3).all()
    # impossible exactly when seat 3 holds the Gras ace or no non-trump Gras card
    hands = res["hands"][:, 3].astype(np.int64)
    gras_side = sum(1 << (8 + r) for r in (0, 1, 2, 5, 6))  # G7 G8 G9 GK GZ (Ober/Unter are trumps)
    expect = ((hands >> 15) & 1 == 1) | ((hands & gras_side) == 0)
    assert (imp == expect).all()
    check = check_deals(res, Ruleset())
    assert check.mismatches == []
    solo = play_games(9, 0, 500, seats="random", contract=("solo", "herz", True), declarer=0)
    assert (solo["kind"] == 1).all() and (solo["suit"] == 2).all() and solo["tout"].all()


def test_same_seed_same_deals_any_chunking():
    seats = ["heuristic", "random", "random", "heuristic"]
    whole = play_games(21, 100, 900, seats=seats, trace=True)
    parts = [play_games(21, a, b - a, seats=seats, trace=True) for a, b in ((100, 101), (101, 500), (500, 1000))]
    for k, v in whole.items():
        assert np.array_equal(v, np.concatenate([p[k] for p in parts])), k
    assert np.array_equal(whole["hands"], deal_batch(21, 100, 900))
    assert np.array_equal(whole["deal_id"], np.arange(100, 1000))


def test_passed_deals_and_bid_columns():
    never = resolve("random", config=[0.0, 0.0, 0.0])
    res = play_games(2, 0, 300, seats=never)
    assert (res["bids"] == PASS).all() and (res["kind"] == -1).all() and (res["payouts"] == 0).all()
    assert not res["impossible"].any()
    res = play_games(2, 0, 3_000, seats="heuristic")
    played = res["kind"] >= 0
    assert played.any()
    assert (res["payouts"][played].sum(axis=1) == 0).all()
    assert (res["declarer_points"][played].astype(int) + res["defender_points"][played] == 120).all()
    assert res["bids"].dtype == np.int64 and res["kind"].dtype == np.int8 and res["doublings"].dtype == np.uint8
    rows = np.flatnonzero(played)
    assert (res["payouts"][rows, res["declarer"][rows]] != 0).all()


def test_bad_arguments():
    with pytest.raises(ValueError):
        play_games(1, 0, 10, seats="random", contract="rufspiel")  # no declarer
    with pytest.raises(ValueError):
        play_games(1, 0, 10, seats="random", declarer=1)
    with pytest.raises(Exception, match="trump suit"):
        play_games(1, 0, 10, seats="random", contract="solo", declarer=0)
