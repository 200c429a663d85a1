"""The hand-written demo games (simkit/data/demo-games.jsonl) replay cleanly and pay what the rule book says.

Each record's ``expected_payouts`` was worked out by hand from RULES.md (the calculation is in its ``comment``),
so a disagreement here means the referee, the replayer or the record is wrong.
"""

import json
from pathlib import Path

import pytest

import simkit
from simkit.reference import card_points
from simkit.replay import replay

DEMO = Path(simkit.__file__).parent / "data" / "demo-games.jsonl"


def _records():
    with open(DEMO, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


RECORDS = _records()


@pytest.mark.parametrize("record", RECORDS, ids=[r["id"] for r in RECORDS])
def test_demo_game_replays_to_expected_payouts(record):
    result = replay(record)  # raises ReplayError on any illegal card or wrong leader
    assert list(result.payouts) == record["expected_payouts"]
    if "stock" in record:  # the payouts are whole changes: what the players lose the stock gains
        assert result.stock_after == record["expected_stock"]
        assert sum(result.payouts) + result.stock_after - result.stock_before == 0
    else:
        assert sum(result.payouts) == 0


def test_records_are_complete_and_unique():
    ids = [r["id"] for r in RECORDS]
    assert len(ids) == len(set(ids))
    for r in RECORDS:
        assert r.get("comment"), r["id"]
        assert len(r["expected_payouts"]) == 4, r["id"]
        size = 8 if r.get("deck", "long") == "long" else 6
        cards = [c for hand in r["hands"] for c in hand]
        assert len(cards) == len(set(cards)) == 4 * size, r["id"]


def test_demo_file_covers_every_contract_tout_and_short_deck():
    kinds = {r["contract"] for r in RECORDS}
    assert {"rufspiel", "solo", "wenz", "geier", "farbwenz", "farbgeier"} <= kinds
    assert any(r.get("tout") for r in RECORDS)
    assert any(r.get("deck") == "short" for r in RECORDS)
    assert {r["contract"] for r in RECORDS if r.get("deck") == "short"} >= {"rufspiel", "solo"}


def test_demo_file_covers_the_interesting_rules():
    results = {r["id"]: (r, replay(r)) for r in RECORDS}
    outcomes = [res for _, res in results.values()]
    ruf = [res for res in outcomes if res.contract == "rufspiel"]
    assert any(res.won for res in ruf) and any(not res.won for res in ruf)
    assert any(res.declarer_points == 60 and not res.won for res in outcomes)  # 60-60 loses
    assert any(res.schneider and not res.schwarz for res in ruf)
    assert any(res.schwarz for res in ruf)
    assert any(res.laufende_paid and not res.laufende_mit for res in outcomes)  # paid "ohne"
    assert any(res.tout and res.won for res in outcomes) and any(res.tout and not res.won for res in outcomes)
    assert any(r.get("kontra") and len(r["kontra"]) == 2 for r, _ in results.values())  # Kontra and Re
    assert any(r.get("klopfen") for r, _ in results.values())
    assert any(r.get("tariff") for r, _ in results.values())
    # a trick worth 0 points inside a Schwarz game
    assert any(res.schwarz and any(card_points(cs) == 0 for _, cs, _ in res.tricks) for res in outcomes)


def _called_suit_leads(record):
    """(trick index, leader, led card) of every trick led with a non-trump card of the called suit."""
    letter = record["suit"][0].upper()
    return [(i, t["leader"], t["cards"][0]) for i, t in enumerate(record["tricks"])
            if t["cards"][0][0] == letter and t["cards"][0][1] not in "OU"]


def test_called_ace_situations():
    ruf = [r for r in RECORDS if r["contract"] == "rufspiel"]
    runaway = [r for r in ruf for i, leader, card in _called_suit_leads(r)[:1]
               if card[1] != "A" and r["suit"][0].upper() + "A" in r["hands"][leader]]
    assert runaway, "no Rufspiel where the partner runs away from the called ace"
    last_trick_ace = [r for r in ruf if not _called_suit_leads(r)
                      and r["suit"][0].upper() + "A" in r["tricks"][-1]["cards"]]
    assert last_trick_ace, "no Rufspiel where the called suit is never led and the ace falls in the last trick"


def test_demo_file_covers_the_club_rules():
    """RULES.md 4: each rule has a hand-worked record (the arithmetic in its comment)."""
    results = [(r, replay(r)) for r in RECORDS]
    ramsch = [(r, res) for r, res in results if res.contract == "ramsch"]
    opts = lambda r, key: r.get("rules", {}).get("ramsch", {}).get(key)  # noqa: E731
    assert any(res.durchmarsch and opts(r, "durchmarsch") == "all" for r, res in ramsch)
    assert any(res.durchmarsch and isinstance(opts(r, "durchmarsch"), int) and res.declarer_tricks < 8
               for r, res in ramsch)
    jungfrau = {opts(r, "jungfrau") for r, res in ramsch if res.jungfrauen and not res.durchmarsch}
    assert {"none", "double-all", "double-each", "double-each-multiple"} <= jungfrau
    ties = {opts(r, "tie") or "highest-trump" for r, res in ramsch
            if sorted(res.seat_points)[-1] == sorted(res.seat_points)[-2]}
    assert ties == {"highest-trump", "more-tricks"}
    assert any(r.get("klopfen") for r, _ in ramsch)
    bettel = [(r, res) for r, res in results if res.contract == "bettel"]
    assert any(res.won for _, res in bettel) and any(not res.won for _, res in bettel)
    assert any(len(r["tricks"]) < 8 for r, _ in bettel)  # stops after the declarer's first trick
    assert any(r["rules"]["bettel"].get("stichzwang") for r, _ in bettel)
    assert any(res.contract == "sie" and res.won for _, res in results)
    stock = [res for r, res in results if "stock" in r]
    assert any(res.contract == "pass" and res.stock_after > res.stock_before for res in stock)  # thrown in
    assert any(res.contract == "rufspiel" and res.won and res.stock_after == 0 < res.stock_before for res in stock)
    assert any(res.contract == "rufspiel" and not res.won and res.stock_after == 2 * res.stock_before > 0
               for res in stock)
