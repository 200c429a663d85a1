"""Bidding by value: the value table (simkit.strategies.values; its counts built by simkit.strategies.value_table)
and the heuristic's bids, Kontras and Res by it."""

from __future__ import annotations

import json

import numpy as np
import pytest

from simkit_cli import simkit

from simkit.cards import DECK_MASKS
from simkit.engine.deal import deal_batch
from simkit.engine.game import play_games
from simkit.reference import can_call
from simkit.rules.contracts import GEIER, RUFSPIEL, SOLO, WENZ
from simkit.rules.ruleset import load_ruleset
from simkit.strategies import heuristic as h
from simkit.strategies import resolve
from simkit.strategies import value_table as vt
from simkit.strategies import values as v
from simkit.strategies.api import I_BIDS, INFO_SIZE, NOT_ASKED, PASS, bid_code, decode_bid
from simkit.rules.tables import build_tables

SAUSPIEL = load_ruleset("sauspiel")
STARGAMES = load_ruleset("stargames")


def _empty_counts():
    return {"declarer": np.zeros((6, 2, h.N_BINS, v.N_LEVELS, v.N_LAUFENDE), np.int64),
            "defender": np.zeros((6, h.N_BINS, v.N_LEVELS, v.N_LAUFENDE), np.int64), "meta": {}}


def test_a_cell_is_priced_by_the_tariff_as_the_rules_say():
    # RULES.md 2.6, by hand: price = base + Schneider + Schwarz + Laufende x rate (from the minimum on); a solo's
    # declarer collects it from three defenders; values are per seat in Rufspiel base prices.
    c = _empty_counts()
    c["declarer"][SOLO, 1, 40, 4, 3] = 1  # forehand solo, score 10: won Schneider, 3 Laufende
    c["declarer"][SOLO, 0, 40, 4, 2] = 1  # seats 1-3: won Schneider, 2 Laufende (below the minimum 3)
    c["declarer"][WENZ, 0, 30, 3, 2] = 1  # Wenz won, 2 Laufende (paid: the Wenz minimum is 2)
    c["declarer"][RUFSPIEL, 0, 24, 0, 0] = 1  # Rufspiel lost Schwarz
    c["defender"][SOLO, 20, 2, 0] = 1  # the solo lost plainly: each defender collects the base
    decl, dfd, n_decl, n_dfd = v.priced(SAUSPIEL, c)
    assert decl[SOLO, 1, 40] == pytest.approx((50 + 10 + 3 * 10) * 3 / 20)
    assert decl[SOLO, 0, 40] == pytest.approx((50 + 10) * 3 / 20)
    assert decl[WENZ, 0, 30] == pytest.approx((50 + 2 * 10) * 3 / 20)
    assert decl[RUFSPIEL, 0, 24] == pytest.approx(-(20 + 10 + 10) / 20)
    assert dfd[SOLO, 20] == pytest.approx(50 / 20)
    assert n_decl[SOLO, 1, 40] == 1 and n_dfd[SOLO, 20] == 1
    # one game in a row: every bin of the row takes its value (empty bins take their neighbours')
    assert np.all(decl[SOLO, 1] == decl[SOLO, 1, 40])
    s_decl, s_dfd, _, _ = v.priced(STARGAMES, c)  # stargames: Rufspiel 1, solo 5, +1 each
    assert s_decl[SOLO, 1, 40] == pytest.approx((5 + 1 + 3) * 3)
    assert s_decl[RUFSPIEL, 0, 24] == pytest.approx(-3)
    assert s_dfd[SOLO, 20] == pytest.approx(5)


def test_isotonic_rows_are_non_decreasing_and_keep_the_weighted_mean():
    rng = np.random.default_rng(3)
    for _ in range(50):
        y = rng.normal(size=40).cumsum()
        w = rng.integers(0, 5, size=40).astype(float)
        if w.sum() == 0:
            continue
        out = v._isotonic(y, w)
        assert np.all(np.diff(out) >= -1e-12)
        assert np.dot(out, w) == pytest.approx(np.dot(y, w))
    y = np.arange(10.0)
    assert np.array_equal(v._isotonic(y, np.ones(10)), y)  # already monotone: unchanged


def test_counts_hold_every_declarer_that_may_declare_and_do_not_depend_on_workers(monkeypatch):
    monkeypatch.setattr(vt, "CHUNK", 100)
    one = vt.build_counts(SAUSPIEL, 300, seed=4, workers=1)
    two = vt.build_counts(SAUSPIEL, 300, seed=4, workers=2)
    assert np.array_equal(one["declarer"], two["declarer"]) and np.array_equal(one["defender"], two["defender"])
    hands = deal_batch(4, 0, 300, "long")
    may_call = sum(any(can_call(int(x), s, "long") for s in (0, 1, 3)) for x in hands.ravel())
    assert one["declarer"][RUFSPIEL].sum() == may_call  # every seat that can call an ace declared a Rufspiel
    # a Geier's defenders: three per game, counted against declarers who reach th_geier only
    assert 0 < one["defender"][GEIER].sum() <= 3 * one["declarer"][GEIER].sum()
    assert one["defender"][GEIER].sum() % 3 == 0


def _value_bid(hand, seat, config, rules, min_rank=-1):
    """The rule of docs/heuristic.md ("Bidding by value"), written out: the candidate of the highest expected
    payout that outranks the earlier bids and reaches bid_margin x its stake."""
    deck = np.int64(DECK_MASKS[rules.deck])
    decl, _, _, _ = v.priced(rules, v.counts_for(rules))
    t = rules.tariff
    rank = {0: 0, 5: 1, 3: 2, 4: 3, 2: 4, 1: 5}  # RULES.md 2.2
    margin = config[h.C_BID_MARGIN if rules.deck == "long" else h.C_BID_MARGIN_SHORT]
    best, best_e = None, None
    for kind in (1, 2, 4, 3, 5, 0):
        if ("rufspiel", "solo", "wenz", "geier", "farbwenz", "farbgeier")[kind] not in rules.contracts:
            continue
        sc, suit = h._kind_score(np.int64(hand), seat, kind, deck, rules.deck != "long", config)
        if sc == h.NO_SCORE or rank[kind] <= min_rank:
            continue
        e = decl[kind, int(seat == 0), min(int(sc * 4), h.N_BINS - 1)]
        stake = (t.base_rufspiel if kind == RUFSPIEL else 3 * t.base_solo) / t.base_rufspiel
        if e >= margin * stake and (best is None or e > best_e):
            best, best_e = (kind, suit), e
    return best


@pytest.mark.parametrize("rules", [SAUSPIEL, STARGAMES, load_ruleset("sauspiel-short")], ids=lambda r: r.name)
def test_value_bids_follow_the_written_rule(rules):
    config = resolve("heuristic").config_for(rules)
    assert len(config) == h.CONFIG_LEN
    assert np.array_equal(v.bind(config, rules), config)  # binding a bound config again changes nothing
    assert len(resolve("heuristic[bidding=0,doubling=0]").config_for(rules)) == len(h.DEFAULT_CONFIG)
    tabs = build_tables(rules)
    hands = deal_batch(8, 0, 1500, rules.deck)
    seen = set()
    for i, hand4 in enumerate(hands):
        seat = i % 4
        earlier = [] if i % 3 else [bid_code(RUFSPIEL, 0, False)] * seat  # sometimes a Rufspiel came before
        info = np.zeros(INFO_SIZE, np.int64)
        info[I_BIDS:I_BIDS + 4] = NOT_ASKED
        info[I_BIDS:I_BIDS + len(earlier)] = earlier
        got = h.bid(np.int64(hand4[seat]), seat, info, tabs.strength, tabs.eff_suit, tabs.params, config)
        want = _value_bid(int(hand4[seat]), seat, config, rules, 0 if earlier else -1)
        if want is None:
            assert got == PASS
        else:
            kind, suit, _ = decode_bid(got)
            assert (kind, suit) == want
        seen.add(None if want is None else want[0])
    assert {None, RUFSPIEL, SOLO} <= seen


def test_the_bids_follow_the_tariff_and_the_thresholds_do_not():
    def bids(rules, spec):
        return play_games(5, 0, 20_000, rules, seats=(spec,) * 4)["bids"]
    old = "heuristic[bidding=0,doubling=0]"
    stargames = STARGAMES.replace(contracts=SAUSPIEL.contracts)  # only the tariff differs (sauspiel has Farbwenz)
    assert np.array_equal(bids(SAUSPIEL, old), bids(stargames, old))
    differ = (bids(SAUSPIEL, "heuristic") != bids(stargames, "heuristic")).any(axis=1).mean()
    assert differ > 0.01
    # the selective bidder throws in far more deals
    passed = {s: np.mean((bids(SAUSPIEL, s) == PASS).all(axis=1)) for s in ("heuristic", "selective")}
    assert passed["selective"] > passed["heuristic"] + 0.1


def test_kontra_by_value_follows_the_defender_table():
    tabs = build_tables(SAUSPIEL)
    config = resolve("heuristic").config_for(SAUSPIEL)
    from simkit.strategies.api import I_DECLARER, I_DOUBLINGS, I_KIND, I_PARTNER_SHOWN, I_SUIT, I_VARIANT

    _, dfd, _, _ = v.priced(SAUSPIEL, v.counts_for(SAUSPIEL))
    said = {0: 0, 1: 0}
    for hand4 in deal_batch(9, 0, 400, "long"):
        info = np.zeros(INFO_SIZE, np.int64)
        info[I_KIND], info[I_SUIT], info[I_DECLARER], info[I_VARIANT] = SOLO, 2, 0, 1 + 2
        info[I_DOUBLINGS], info[I_PARTNER_SHOWN] = 0, -1
        hand = np.int64(hand4[1])
        got = h.double(hand, 1, info, tabs.strength, tabs.eff_suit, tabs.params, config)
        sc = h._hand_score(hand, SOLO, 2, 1, np.int64(0xFFFFFFFF), config)
        assert got == int(dfd[SOLO, min(int(sc * 4), h.N_BINS - 1)] >= config[h.C_KONTRA_MARGIN])
        said[int(got)] += 1
    assert said[0] and said[1]


def test_a_ruleset_without_shipped_counts_builds_them_once(tmp_path, monkeypatch):
    monkeypatch.setenv("SIMKIT_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(vt, "ON_DEMAND_DEALS", 200)
    rules = SAUSPIEL.replace(run_away_min=3)
    assert v.counts_path(rules) is None
    notes = []
    with pytest.raises(v.ValuesError, match="no value table for long-runaway3"):
        play_games(1, 0, 50, rules)  # not built yet: binding says how to build it
    vt.prepare([resolve("heuristic")], rules, note=notes.append)
    assert len(notes) == 1 and "long-runaway3" in notes[0]
    path = tmp_path / "values" / "long-runaway3.npz"
    assert v.counts_path(rules) == path and v.load_counts(path)["meta"]["deals"] == 200
    vt.prepare([resolve("heuristic")], rules, note=notes.append)  # found: nothing more
    assert len(notes) == 1
    assert len(play_games(1, 0, 50, rules)["kind"]) == 50
    path.write_bytes(b"not a table")
    with pytest.raises(v.ValuesError, match="cannot be read"):
        v.load_counts(path)


def test_values_command(tmp_path):
    r = simkit("values", "--rules", "sauspiel", "--json")
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert set(out) == {"ruleset", "play_key", "source", "meta", "unit", "rows"} and out["unit"] == 20
    assert {row["kind"] for row in out["rows"]} == {"rufspiel", "solo", "wenz", "geier", "farbwenz"}
    r = simkit("values", "--rules", "stargames")
    assert r.returncode == 0 and "Rufspiel base prices (1)" in r.stdout
    target = tmp_path / "t.npz"
    r = simkit("values", "--build", "--deals", "300", "--workers", "1", "--out", str(target), "--json")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["meta"]["deals"] == 300 and target.is_file()
    for bad in (["--out", str(target)], ["--build", "--deals", "10", "--out", str(tmp_path / "t.txt")]):
        r = simkit("values", *bad)
        assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1, r.stderr
