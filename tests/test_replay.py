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


# ------------------------------------------------------------------------------------------ the club rules

from pathlib import Path  # noqa: E402

import simkit  # noqa: E402
from simkit.replay import RecordError  # noqa: E402

DEMO = Path(simkit.__file__).parent / "data" / "demo-games.jsonl"
CLUB = {r["id"]: r for r in map(json.loads, DEMO.read_text().splitlines()) if r["id"].startswith("demo-club")}


def club(name, **changes):
    """A copy of a demo club record with some keys changed (a key given as None is left out)."""
    rec = json.loads(json.dumps(CLUB[f"demo-club-{name}"]))
    rec.update(changes)
    return {k: v for k, v in rec.items() if v is not None or k in ("declarer", "suit", "contract")}


def test_club_records_replay():
    r = replay(club("ramsch-jungfrau-double-each"))
    assert r.contract == "ramsch" and r.declarer == 0 and r.payouts == (-50, 10, 20, 20) and r.jungfrauen == 2
    # the record's rules override the ruleset given, key by key
    r = replay(club("ramsch-jungfrau-none", rules={"ramsch": {"price": 5}}), "club")
    assert r.payouts == (15, -5, -5, -5)  # only the price is the record's: club's Durchmarsch at 91 points stays
    stop = club("bettel-lost-stops")
    assert len(replay(stop).tricks) == 2


def test_klopfen_is_knocks_not_doublings():
    r = replay(club("ramsch-klopfen"))
    assert (r.knocks, r.doublings, r.price) == (1, 0, 20)
    r = replay(mutate(klopfen=[1, 2], kontra=[3]))
    assert (r.knocks, r.doublings, r.payouts) == (2, 1, (39 * 8, -13 * 8, -13 * 8, -13 * 8))


def test_bettel_record_may_hold_every_trick_or_stop_after_the_declarers_first():
    full = club("bettel-stichzwang")
    assert len(full["tricks"]) == 8 and replay(full).declarer_tricks == 1
    first = club("bettel-stichzwang", tricks=full["tricks"][:1])
    assert replay(first).payouts == (10, -30, 10, 10)
    won = club("bettel-won-kontra")
    with pytest.raises(ReplayError, match="a Bettel record may stop only after his first trick"):
        replay(dict(won, tricks=won["tricks"][:5]))


def test_stichzwang_is_checked():
    rec = club("bettel-stichzwang")
    rec["tricks"][0]["cards"] = ["E8", "E7", "EO", "EU"]  # the declarer ducks although EA beats E8
    with pytest.raises(ReplayError, match="trick 1, seat 1, card E7: Stichzwang: must beat E8"):
        replay(rec)
    rec["rules"]["bettel"]["stichzwang"] = False  # without Stichzwang he may duck (then EO wins trick 1)
    rec["tricks"] = rec["tricks"][:1]
    with pytest.raises(ReplayError, match="may stop only after his first trick"):
        replay(rec)


def test_stock_records():
    r = replay(club("stock-lost"))
    assert r.payouts == (4, -34, 4, -34) and (r.stock_before, r.stock_after) == (60, 120)
    r = replay(club("stock-thrown-in", klopfen=[]))
    assert r.contract == "pass" and r.payouts == (-10,) * 4 and r.stock_after == 80
    r = replay(club("stock-thrown-in", rules={"all_pass": "stock", "stock": {"price": 10, "doubling": "games"}}))
    assert r.payouts == (-10,) * 4 and r.stock_after == 80  # the knock doubles games only
    r = replay(club("stock-won", stock=None))  # no stock given: an empty stock
    assert r.payouts == (5, 5, -5, -5) and r.stock_after == 0
    out = list(replay_lines([json.dumps(club("stock-won", expected_stock=1)), json.dumps(club("stock-lost"))]))
    assert [o.agrees for o in out] == [False, True]
    assert out[1].to_json()["stock"] == 120
    assert "stock" not in next(replay_lines([json.dumps(GOOD)])).to_json()


@pytest.mark.parametrize("record,message", [
    (club("ramsch-klopfen", declarer=2), "declarer: a Ramsch has no declarer (everyone plays for himself), so "
                                         "declarer must be null, got 2"),
    (club("ramsch-klopfen", kontra=[1]), "kontra: there is no Kontra in a Ramsch"),
    (club("ramsch-klopfen", rules={"ramsch": {"prize": 10}}), "rules: unknown key ramsch.'prize'"),
    (club("ramsch-klopfen", rules={"all_pas": "stock"}), "rules: unknown key 'all_pas'"),
    (club("ramsch-klopfen", rules={"ramsch": {"durchmarsch": 50}}), "rules: ramsch.durchmarsch must be card "
                                                                   "points in 61..120"),
    (club("ramsch-klopfen", rules={"extends": "club"}), "rules: key 'extends' cannot be set for one game"),
    (club("ramsch-klopfen", rules=[1]), "rules must be an object"),
    (club("stock-won", stock=-10), "stock must be a non-negative integer (the stock before the deal), not -10"),
    (club("stock-won", stock="ten"), "stock must be a non-negative integer"),
    (club("stock-won", expected_stock=-1), "expected_stock must be a non-negative integer"),
    (club("stock-won", stock=35), "stock: a stock of 35 cannot be split in halves"),
    (club("stock-won", rules={}), "stock: the ruleset has all_pass = 'throw-in', not \"stock\""),
    (club("bettel-lost-stops", expected_payouts=[-10, -10, 30, -10]),
     "expected_payouts: the Bettel declarer (seat 2) took trick 2, so he lost, but expected_payouts pay him 30"),
    (club("sie", declarer=0), "seat 0 cannot declare Sie: a Sie hand holds exactly the four Ober and four Unter"),
    (club("bettel-won-kontra", tout=True), "a Bettel cannot be played Tout"),
    (club("stock-thrown-in", rules={"all_pass": "ramsch"}, stock=None, expected_stock=None),
     "contract null, but all_pass is \"ramsch\": an all-pass deal is played"),
    (club("stock-thrown-in", tricks=GOOD["tricks"]), "tricks: a thrown-in deal (contract null) has no tricks"),
    (club("stock-thrown-in", declarer=1), "declarer: a thrown-in deal (contract null) has none"),
])
def test_bad_club_records_name_the_key(record, message):
    with pytest.raises(RecordError) as e:
        replay(record)
    assert message in str(e.value)
    assert "\n" not in str(e.value)


def test_bad_club_record_fails_and_the_others_go_on():
    lines = [json.dumps(club("ramsch-klopfen", declarer=2)), json.dumps(club("sie")),
             json.dumps(club("stock-won", stock=-1)), json.dumps(trick(0, "EO E7 G9 H8"))]
    out = list(replay_lines(lines))
    assert [o.ok for o in out] == [False, True, False, False]
    assert [o.bad_input for o in out] == [True, False, True, False]  # an illegal card is not bad input
    assert out[0].id == "demo-club-ramsch-klopfen" and "declarer" in out[0].error


def test_cli_exit_status_and_stock_in_json(tmp_path):
    import subprocess
    import sys

    f = tmp_path / "club.jsonl"
    f.write_text(json.dumps(club("stock-lost")) + "\n" + json.dumps(club("sie")) + "\n")
    run = [sys.executable, "-m", "simkit.cli", "replay", str(f), "--json"]
    out = subprocess.run(run, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    objs = [json.loads(x) for x in out.stdout.splitlines()]
    assert objs[0]["stock"] == 120 and objs[0]["agrees"] and "stock" not in objs[1]
    f.write_text(json.dumps(club("stock-lost", stock=-5)) + "\n" + json.dumps(club("sie")) + "\n")
    out = subprocess.run(run, capture_output=True, text=True)
    assert out.returncode == 2
    assert "stock must be a non-negative integer" in json.loads(out.stdout.splitlines()[0])["error"]
    f.write_text(json.dumps(trick(0, "EO E7 G9 H8")) + "\n")
    assert subprocess.run(run, capture_output=True, text=True).returncode == 1  # an illegal card: the play failed
