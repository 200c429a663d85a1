"""Replay of recorded games: the real games settle exactly, and every kind of bad record is reported."""

import json

import pytest

from simkit import replay
from simkit.replay import ReplayError, replay_file, replay_lines

GOOD = {
    "id": "t1", "deck": "long", "contract": "solo", "declarer": 0, "suit": "schellen", "tout": False,
    "hands": [["EO", "GO", "HO", "SO", "EU", "GU", "SA", "S7"],
              ["EA", "EZ", "EK", "E9", "E8", "E7", "G7", "G8"],
              ["GA", "GZ", "GK", "G9", "HA", "HZ", "HK", "H9"],
              ["HU", "SU", "SZ", "SK", "S9", "S8", "H8", "H7"]],
    "klopfen": [], "kontra": [],
    "tricks": [{"leader": 0, "cards": c.split()} for c in [
        "EO E7 G9 S8", "GO E8 GK S9", "HO E9 GZ SK", "SO EK GA SZ",
        "EU G7 H9 SU", "GU G8 HK HU", "SA EZ HZ H7", "S7 EA HA H8"]],
    "expected_payouts": [39, -13, -13, -13],
}


def test_all_real_games_agree_with_settled_payouts(real_games_file):
    outcomes = list(replay_file(real_games_file))
    assert len(outcomes) == 30
    bad = [(o.id, o.error, o.result and o.result.payouts, o.expected_payouts) for o in outcomes if not o.agrees]
    assert not bad
    for o in outcomes:
        assert sum(o.result.payouts) == 0


def test_replay_api_returns_game_result():
    r = replay(GOOD)
    assert r.payouts == (39, -13, -13, -13) and r.schwarz and r.declarer_points == 120
    assert replay(GOOD, "sauspiel").payouts == (3 * (50 + 10 + 10 + 60), -130, -130, -130)


def mutate(**changes):
    rec = json.loads(json.dumps(GOOD))
    rec.update(changes)
    return rec


def trick(i, cards, leader=None):
    rec = json.loads(json.dumps(GOOD))
    rec["tricks"][i]["cards"] = cards.split()
    if leader is not None:
        rec["tricks"][i]["leader"] = leader
    return rec


@pytest.mark.parametrize("record,message", [
    (mutate(hands=[["EO", "GO", "HO", "SO", "EU", "GU", "SA", "XX"]] + GOOD["hands"][1:]), "seat 0: malformed card 'XX'"),
    (mutate(hands=[["EO", "GO", "HO", "SO", "EU", "GU", "SA", "EA"]] + GOOD["hands"][1:]), "duplicate card EA"),
    (mutate(hands=[GOOD["hands"][0][:7]] + GOOD["hands"][1:]), "seat 0: hand has 7 cards, expected 8"),
    (mutate(deck="short"), "not in the short deck"),
    (trick(0, "EO E7 G9 S8", leader=2), "trick 1 is led by seat 2, but seat 0 (forehand) leads the first trick"),
    (trick(1, "GO E8 GK S9", leader=3), "trick 2 is led by seat 3, but seat 0 won trick 1"),
    (trick(0, "EO E7 G9 SA"), "trick 1, seat 3, card SA: seat 3 does not hold this card"),
    (trick(0, "EO E7 G9 H8"), "trick 1, seat 3, card H8: must follow trump; legal cards: HU SU SZ SK S9 S8"),
    (trick(0, "EO E7 G9 S10 S8"), "trick 1 has 5 cards"),
    (trick(0, "EO E7 G9 QQ"), "trick 1, seat 3: malformed card 'QQ'"),
    (mutate(contract="bock"), "unknown contract 'bock'"),
    (mutate(declarer=4), "declarer must be a seat"),
    (mutate(contract="rufspiel", suit="eichel"), "cannot call the eichel ace: he holds no eichel card"),
    (mutate(kontra=[0]), "Kontra by seat 0, who is on the declaring side"),
    (mutate(kontra=[1, 2]), "Re by seat 2, who may not give it"),
    (mutate(kontra=[1, 0, 2]), "3 doublings recorded"),
    (mutate(tricks=GOOD["tricks"][:7]), "7 tricks recorded"),
    (mutate(colour="red"), "unknown record key 'colour'"),
    (mutate(tariff={"bse": 2}), "unknown tariff key 'bse'"),
    ({k: v for k, v in GOOD.items() if k != "hands"}, "record has no 'hands'"),
])
def test_bad_records_name_the_problem(record, message):
    with pytest.raises(ReplayError, match=None) as e:
        replay(record)
    assert message in str(e.value)


def test_bad_line_does_not_stop_the_next():
    lines = ["{not json", json.dumps(trick(0, "EO E7 G9 H8")), "", json.dumps(GOOD), "[1, 2]"]
    out = list(replay_lines(lines))
    assert [o.ok for o in out] == [False, False, True, False]
    assert "line 1 is not valid JSON" in out[0].error
    assert out[1].id == "t1" and out[1].agrees is False
    assert out[2].agrees is True
    assert out[3].error == "a replay record must be a JSON object"


def test_record_tariff_overrides_ruleset():
    rec = mutate(tariff={"base": 50, "schneider": 10, "schwarz": 10, "laufende": 10, "laufende_min": 3})
    assert replay(rec).payouts == (390, -130, -130, -130)
    rec = mutate(klopfen=[1, 2], kontra=[3, 0])
    assert replay(rec).payouts == (39 * 16, -13 * 16, -13 * 16, -13 * 16)
