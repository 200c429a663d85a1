"""`simkit evaluate`: what a hand is worth (simkit.evaluate), and the kernel's given-hands / forced-pass entry."""

from __future__ import annotations

import json

import numpy as np
import pytest

import simkit
from simkit.cards import parse_hand
from simkit.engine.deal import deal_batch
from simkit.engine.game import play_games
from simkit.evaluate import EvaluateError, declarations, evaluate, sample_deals
from simkit.evaluate.api import CLUB_KEYS, JSON_KEYS, _label
from simkit.rules import Contract, load_ruleset
from simkit.rules.contracts import BETTEL, KIND_NAMES, RAMSCH, RUFSPIEL, SOLO
from simkit.strategies import StrategyError
from simkit.strategies.api import PASS

from simkit_cli import simkit as cli

ALL_OBER_UNTER = "EO GO HO SO EU GU HU SU"
HOPELESS = "E7 E8 E9 G7 G8 G9 S7 S8"  # no trump, no ace, no ten: every declaration loses money


# --------------------------------------------------------------------------------- the kernel's entry

def test_given_hands_are_the_same_code_path_as_dealing():
    """Playing the hands the kernel would deal itself, given from outside, gives every column identically."""
    rules = load_ruleset("sauspiel")
    a = play_games(3, 100, 2_000, rules)
    b = play_games(3, 100, 2_000, rules, hands=deal_batch(3, 100, 2_000, rules))
    assert a.keys() == b.keys()
    for k in a:
        np.testing.assert_array_equal(a[k], b[k], err_msg=k)
    fa = play_games(3, 0, 1_000, rules, contract=("solo", "herz"), declarer=2)
    fb = play_games(3, 0, 1_000, rules, contract=("solo", "herz"), declarer=2, hands=deal_batch(3, 0, 1_000, rules))
    for k in fa:
        np.testing.assert_array_equal(fa[k], fb[k], err_msg=k)


def test_forced_pass_changes_only_that_seats_bid():
    """Where seat 1 passed anyway, forcing its pass changes nothing; where it bid, its bid is now a pass and the
    others' bids are what they were (a seat sees only earlier bids, so seat 0's is unchanged)."""
    rules = load_ruleset(None)
    a = play_games(5, 0, 3_000, rules)
    b = play_games(5, 0, 3_000, rules, passer=1)
    assert (b["bids"][:, 1] == PASS).all()
    same = a["bids"][:, 1] == PASS
    assert 0 < same.mean() < 1
    for k in a:
        np.testing.assert_array_equal(a[k][same], b[k][same], err_msg=k)
    np.testing.assert_array_equal(a["bids"][:, 0], b["bids"][:, 0])
    assert not (b["declarer"] == 1).any()


def test_given_hands_are_checked():
    rules = load_ruleset(None)
    h = deal_batch(1, 0, 4, rules)
    bad = h.copy()
    bad[2, 1] = bad[2, 0]  # a card twice
    with pytest.raises(ValueError, match="row 2"):
        play_games(1, 0, 4, rules, hands=bad)
    with pytest.raises(ValueError, match="shape"):
        play_games(1, 0, 3, rules, hands=h)
    with pytest.raises(ValueError, match="passer"):
        play_games(1, 0, 4, rules, passer=0, contract="wenz", declarer=1)


# ------------------------------------------------------------------------------------------- sampling

def test_sampling_is_uniform_over_the_other_cards():
    """The fixed hand stays at its seat; every other card lands on each other seat with probability 1/3
    (chi-square, 2 degrees of freedom, on two cards' seats)."""
    rules = load_ruleset(None)
    hand = parse_hand("EO GO HU HA HZ H9 SA S7")
    n = 30_000
    d = sample_deals(hand, 1, 0, n, rules, seed=7)
    assert (d[:, 1] == hand).all()
    assert (np.bitwise_count(d) == 8).all()
    assert ((d[:, 0] | d[:, 1] | d[:, 2] | d[:, 3]) == np.uint32(0xFFFFFFFF)).all()
    for card in (parse_hand("EA"), parse_hand("S8")):
        counts = np.array([int(((d[:, s] & np.uint32(card)) != 0).sum()) for s in (0, 2, 3)])
        assert counts.sum() == n
        chi2 = float((((counts - n / 3) ** 2) / (n / 3)).sum())
        assert chi2 < 13.8, (counts, chi2)  # p = 0.001
    # deal i depends on (seed, i) only: a later start gives the tail of the same deals
    np.testing.assert_array_equal(sample_deals(hand, 1, 100, 50, rules, seed=7), d[100:150])
    assert not np.array_equal(sample_deals(hand, 1, 0, 50, rules, seed=8), d[:50])


def test_the_same_deals_serve_every_declaration(monkeypatch):
    """Every option is played on exactly the sampled deals (so the differences are paired)."""
    import simkit.engine.game as game

    seen = []
    real = game.play_games

    def spy(seed, start, n, rules, **kw):
        seen.append((start, n, kw.get("contract"), kw.get("passer"), np.array(kw["hands"])))
        return real(seed, start, n, rules, **kw)

    monkeypatch.setattr(game, "play_games", spy)
    rules = load_ruleset(None)
    hand = "EO GO HU HA HZ H9 SA S7"
    df = evaluate(hand, seat=2, rules=rules, deals=600, seed=4, workers=1)
    calls = [c for c in seen if c[1] == 600]
    assert len(calls) == len(df) == len(declarations(hand, rules)) + 1
    expected = sample_deals(hand, 2, 0, 600, rules, seed=4)
    for start, n, contract, passer, hands in calls:
        assert start == 0
        np.testing.assert_array_equal(hands, expected)
    assert sum(c[3] == 2 for c in calls) == 1  # one pass option, the hand's seat passing


# ----------------------------------------------------------------------------------------- figures

def _kernel_figures(rules, hands, seat, seed, **kw):
    g = play_games(seed, 0, len(hands), rules, hands=hands, **kw)
    pay = g["payouts"][:, seat].astype(np.float64)
    mine = (g["declarer"] == seat) | (g["partner"] == seat)
    played = g["kind"] >= 0
    won = played & np.where(mine, g["won"], ~g["won"])
    return pay.mean(), won.mean(), (played & g["schneider"]).mean(), (played & g["schwarz"]).mean()


def test_figures_equal_the_kernel_with_the_contract_forced():
    rules = load_ruleset("sauspiel")
    hand, seat, seed, n = "EO HU HA HK H8 GA G9 S7", 3, 11, 1_500
    df = evaluate(hand, seat=seat, rules=rules, deals=n, seed=seed).set_index("declaration")
    hands = sample_deals(hand, seat, 0, n, rules, seed)
    for c in (Contract(RUFSPIEL, 3), Contract(SOLO, 2), Contract(SOLO, 2, True), None):
        kw = dict(passer=seat) if c is None else dict(contract=(c.kind, c.suit, c.tout), declarer=seat)
        pay, won, schneider, schwarz = _kernel_figures(rules, hands, seat, seed, **kw)
        row = df.loc[_label(c)]
        assert row["payout"] == pytest.approx(pay, abs=1e-12)
        assert (row["win"], row["schneider"], row["schwarz"]) == pytest.approx((won, schneider, schwarz), abs=1e-12)
        assert row["win_low"] <= row["win"] <= row["win_high"]
        assert row["payout_low"] < row["payout"] < row["payout_high"]


def test_a_hand_that_cannot_lose_wins_every_farbsolo_in_every_deal():
    """The four Ober and four Unter are the eight highest trumps of every Farbsolo: it wins every deal, every
    trick (so every Tout too). (Wenz and Geier are another matter: there the Ober or the Unter are side cards
    below the King, and this hand loses them to good defence.)"""
    rules = load_ruleset(None)
    for seat in (0, 3):
        df = evaluate(ALL_OBER_UNTER, seat=seat, rules=rules, deals=400, seed=seat).set_index("declaration")
        solos = [_label(c) for c in declarations(ALL_OBER_UNTER, rules) if c.kind == SOLO]
        assert len(solos) == 8
        for label in solos:
            assert df.loc[label, "win"] == 1.0, label
            if "tout" not in label:
                assert df.loc[label, "schwarz"] == 1.0, label
        best = df[df["recommended"]].index[0]
        assert best.startswith("solo") and best.endswith("tout")


def test_a_hand_that_cannot_win_recommends_pass():
    rules = load_ruleset(None)
    df = evaluate(HOPELESS, rules=rules, deals=2_000, seed=2)
    a = df.attrs
    assert a["recommendation"] == "pass" and df.iloc[0]["declaration"] == "pass" and df.iloc[0]["recommended"]
    assert a["difference_low"] > 0  # clearly ahead of the best declaration
    assert df["recommended"].sum() == 1
    solo_types = df[df["kind"].notna() & (df["kind"] != "rufspiel")]
    assert (solo_types["win"] < 0.01).all() and (solo_types["payout_high"] < 0).all()


def test_independent_of_workers_and_seat_matters():
    rules = load_ruleset("stargames-short")
    hand = "EO GO HU HA HZ H9"
    one = evaluate(hand, rules=rules, deals=2_500, seed=3, workers=1)
    two = evaluate(hand, rules=rules, deals=2_500, seed=3, workers=2)
    assert one.equals(two) and one.attrs == two.attrs
    other = evaluate(hand, seat=3, rules=rules, deals=2_500, seed=3, workers=1)
    assert not one.set_index("declaration")["payout"].equals(other.set_index("declaration")["payout"])


def test_declarations_follow_the_ruleset():
    rules = load_ruleset(None)
    hand = "E7 EK GA G9 S8 HO HU H7"  # Eichel and Schellen callable (no ace, a non-trump card); Gras ace held
    labels = [_label(c) for c in declarations(hand, rules)]
    assert labels[:2] == ["rufspiel eichel", "rufspiel schellen"]
    assert len(labels) == 2 + 6 + 6  # Rufspiele, 4 Farbsoli + Wenz + Geier, and those as Touts
    rich = rules.replace(contracts=("rufspiel", "solo", "wenz", "geier", "farbwenz", "farbgeier"), tout=False)
    labels = [_label(c) for c in declarations(hand, rich)]
    assert len(labels) == 2 + 4 + 2 + 8 and not any("tout" in x for x in labels) and "farbgeier herz" in labels
    assert [_label(c) for c in declarations(ALL_OBER_UNTER, rules)][:1] == ["solo eichel"]  # no Rufspiel


def test_bad_input():
    rules = load_ruleset(None)
    for hand, msg in (("EO EO HU HA HZ H9 SA S7", "duplicate"), ("EO GO HU HA HZ H9 SA", "7 cards"),
                      ("EO GO HU HA HZ H9 SA XX", "malformed")):
        with pytest.raises(simkit.CardError, match=msg):
            evaluate(hand, rules=rules, deals=10)
    with pytest.raises(simkit.CardError, match="not in the short deck"):
        evaluate("EO GO HU HA HZ H7", rules="stargames-short", deals=10)
    with pytest.raises(EvaluateError, match="seat"):
        evaluate(ALL_OBER_UNTER, seat=4, deals=10)
    with pytest.raises(StrategyError, match="unknown strategy"):
        evaluate(ALL_OBER_UNTER, play="nosuch", deals=10)


def test_package_level_api_and_another_strategy():
    df = simkit.evaluate("EO GO HO SO EU GU", rules="stargames-short", deals=200, play="random")
    assert df.attrs["play"] == "random" and df.attrs["deals"] == 200
    assert list(df.columns[:1]) == ["declaration"]


def test_dd_is_the_solvers_payout_value():
    """``play="dd"``: each option's payout is the solver's value of the opening position (no doublings), from the
    hand's seat: a declaration is the declarer's value; the solver agrees with a direct solve of one deal."""
    from simkit.solver import Position, solve

    rules = load_ruleset("stargames-short")
    hand, n = "EO GO HU HA HZ H9", 12
    df = evaluate(hand, rules=rules, deals=n, seed=5, play="dd", workers=1).set_index("declaration")
    hands = sample_deals(hand, 0, 0, n, rules, seed=5)
    best = np.array([solve(Position.opening([int(h) for h in hands[i]], Contract(SOLO, 2), 0, rules), "payout").value
                     for i in range(n)], np.float64)
    assert df.loc["solo herz", "payout"] == pytest.approx(best.mean())
    assert df.loc["solo herz", "win"] == pytest.approx((best > 0).mean())
    assert df.loc["geier tout", "win"] == 1.0  # the two top Ober and Herz A Z: every trick, whatever the others hold


# ------------------------------------------------------------------------------------ the club rules

CLUB = load_ruleset("club")
CLUB_SHORT_SIE = load_ruleset("club-short").replace(sie=True)


def test_club_declarations_offer_bettel_and_sie_where_enabled():
    """Bettel where the ruleset lists it, after the Rufspiele (its bidding rank); Sie last, only with ``sie`` and
    only for the Sie hand."""
    hand = "E7 EK GA G9 S8 HO HU H7"
    labels = [_label(c) for c in declarations(hand, CLUB)]
    assert labels[:3] == ["rufspiel eichel", "rufspiel schellen", "bettel"] and "sie" not in labels
    assert "bettel" not in [_label(c) for c in declarations(hand, load_ruleset("sauspiel"))]
    assert "sie" not in [_label(c) for c in declarations(ALL_OBER_UNTER, CLUB)]  # club has no Sie
    with_sie = [_label(c) for c in declarations(ALL_OBER_UNTER, CLUB.replace(sie=True))]
    assert with_sie[-1] == "sie" and with_sie.count("sie") == 1
    assert "sie" not in [_label(c) for c in declarations("EO GO HO SO EU GU HU HA", CLUB.replace(sie=True))]
    short = [_label(c) for c in declarations("EO GO HO SO EU GU", CLUB_SHORT_SIE)]
    assert short[-1] == "sie"


def test_club_figures_equal_the_kernel_and_pass_is_a_ramsch():
    """Under ``club`` the Bettel option is the kernel's forced Bettel on the same hands, and ``pass`` the kernel with
    bidding, the seat's pass forced: its all-pass deals are played as a Ramsch (``attrs['ramsch']`` counts them).
    The strategies' knocks come before the bidding, so they are the same in every option of a deal."""
    hand, seat, seed, n = "E7 E8 GK G9 S7 S8 SZ HO", 1, 7, 1_200
    df = evaluate(hand, seat=seat, rules=CLUB, deals=n, seed=seed, workers=1).set_index("declaration")
    hands = sample_deals(hand, seat, 0, n, CLUB, seed)
    knocked = None
    for label, kw in (("bettel", dict(contract="bettel", declarer=seat)), ("pass", dict(passer=seat)),
                      ("solo eichel", dict(contract=("solo", "eichel"), declarer=seat))):
        pay, won, schneider, schwarz = _kernel_figures(CLUB, hands, seat, seed, **kw)
        row = df.loc[label]
        assert row["payout"] == pytest.approx(pay, abs=1e-12), label
        assert (row["win"], row["schneider"], row["schwarz"]) == pytest.approx((won, schneider, schwarz), abs=1e-12)
        g = play_games(seed, 0, n, CLUB, hands=hands, **kw)
        knocked = g["knocked"] if knocked is None else knocked
        np.testing.assert_array_equal(g["knocked"], knocked)  # the same knocks in every option
        if label == "pass":
            ramsch = g["kind"] == RAMSCH
            assert 0 < ramsch.mean() == pytest.approx(df.attrs["ramsch"])
            assert (g["payouts"][ramsch].sum(axis=1) == 0).all()
        if label == "bettel":
            assert (g["kind"] == BETTEL).all() and df.loc["bettel", "schneider"] == 0
    k = knocked.astype(np.int64)
    nk = sum((k >> s) & 1 for s in range(4))
    assert 0 < df.attrs["knocks"] == pytest.approx(nk.mean()) and df.attrs["multiplier"] == pytest.approx(
        (2.0 ** nk).mean())
    assert df.attrs["all_pass"] == "ramsch" and df.attrs["klopfen"] is True


def test_a_hopeless_hand_plays_bettel_and_the_sie_hand_sie():
    """The hand without a trump, ace or ten is the Bettel hand; the Sie hand cannot lose its Sie, whose payout is
    three times its price (x the knocks), and it ranks first."""
    df = evaluate(HOPELESS, rules=CLUB, deals=1_000, seed=3, workers=1).set_index("declaration")
    assert df.attrs["recommendation"] == "bettel" and df.loc["bettel", "win"] > 0.95
    rules = CLUB.replace(sie=True, klopfen=False)
    df = evaluate(ALL_OBER_UNTER, rules=rules, deals=300, seed=1, workers=1).set_index("declaration")
    price = 4 * (rules.tariff.base_solo + rules.tariff.laufende * 8)
    assert df.attrs["recommendation"] == "sie" and df.loc["sie", "win"] == 1.0
    assert df.loc["sie", "payout"] == pytest.approx(3 * price)  # no Kontra against a hand that cannot lose
    assert df.loc["sie", "schneider"] == 0 and df.loc["sie", "schwarz"] == 0


def test_stock_change_is_the_runs_settlement_deal_by_deal():
    """With ``all_pass = "stock"`` each option's payout adds the seat's share of the stock: the run's settlement
    (simkit.sim.stock, which stock_change calls) of each deal alone, starting with the given stock, checked here
    against the referee's settle_stock (written apart from it); knocks double a throw-in's payment."""
    from simkit.evaluate.api import stock_change
    from simkit.reference import GameResult, settle_stock

    rules = load_ruleset("sauspiel").replace(all_pass="stock", klopfen=True)
    g = play_games(4, 0, 400, rules)
    k = g["knocked"].astype(np.int64)
    knocks = sum((k >> s) & 1 for s in range(4))
    assert (g["kind"] < 0).any() and (g["kind"] == RUFSPIEL).any() and knocks.any() and g["won"].any()
    for stock in (0, 60):
        mine = stock_change(g, g["won"], g["knocked"], rules, stock)
        unknocked = stock_change(g, g["won"], None, rules, stock)
        for i in range(len(knocks)):
            kind = int(g["kind"][i])
            result = None if kind < 0 else GameResult(
                contract=KIND_NAMES[kind], suit=None, tout=False, declarer=int(g["declarer"][i]),
                partner=None if g["partner"][i] < 0 else int(g["partner"][i]), declarer_points=0, declarer_tricks=0,
                won=bool(g["won"][i]), schneider=False, schwarz=False, laufende=0, laufende_mit=False,
                laufende_paid=False, doublings=0, price=0, payouts=(0, 0, 0, 0), knocks=int(knocks[i]))
            for got, kn in ((mine, int(knocks[i])), (unknocked, 0)):
                changes, _ = settle_stock(rules, result, stock, kn)
                assert tuple(int(x) for x in got[i]) == changes, (i, stock, kn)
    hand = "E7 EK GA G9 S8 HO HU H7"
    empty = evaluate(hand, rules=rules, deals=800, seed=2, workers=1).set_index("declaration")
    full = evaluate(hand, rules=rules, deals=800, seed=2, workers=1, stock=200).set_index("declaration")
    ruf = full.loc["rufspiel eichel"]
    # the same games: a Rufspiel won takes half the stock, a lost one pays half of it in
    assert ruf["payout"] - empty.loc["rufspiel eichel", "payout"] == pytest.approx(100 * (2 * ruf["win"] - 1))
    assert (full.loc["solo eichel", "payout"] == empty.loc["solo eichel", "payout"])
    assert full.attrs["stock"] == 200 and full.attrs["all_pass"] == "stock"


def test_club_bad_input_and_dd():
    with pytest.raises(EvaluateError, match="even"):
        evaluate(HOPELESS, rules=load_ruleset("sauspiel").replace(all_pass="stock"), deals=10, stock=3)
    with pytest.raises(EvaluateError, match="only with all_pass"):
        evaluate(HOPELESS, rules=CLUB, deals=10, stock=20)
    with pytest.raises(EvaluateError, match="no four-player value of a Ramsch"):
        evaluate(HOPELESS, rules=CLUB, deals=10, play="dd")
    # a Bettel is solved deal by deal: every deal won or lost, 3 x the Bettel price (dd: no knocks, no Kontra)
    rules = CLUB.replace(all_pass="throw-in")
    dd = evaluate(HOPELESS, rules=rules, deals=40, play="dd", workers=1).set_index("declaration")
    w, price = dd.loc["bettel", "win"], rules.bettel_price
    assert 0.5 < w <= 1.0 and dd.loc["bettel", "payout"] == pytest.approx(3 * price * (2 * w - 1))
    assert dd.attrs["recommendation"] == "bettel"
    assert dd.loc["bettel", "schneider"] == dd.loc["bettel", "schwarz"] == 0  # a Bettel has neither
    # a Sie needs no search: dd values it at its price (no knocks, no doublings)
    rules = CLUB_SHORT_SIE.replace(contracts=("rufspiel", "solo"), all_pass="throw-in")
    df = evaluate("EO GO HO SO EU GU", rules=rules, deals=6, play="dd", workers=1).set_index("declaration")
    assert df.loc["sie", "payout"] == 3 * 4 * (rules.tariff.base_solo + rules.tariff.laufende * 6)
    assert df.loc["sie", "win"] == 1.0 and df.attrs["recommendation"] == "sie"
    assert df.loc["sie", "schneider"] == df.loc["sie", "schwarz"] == 0  # as the kernel's columns: a Sie has none


def test_cli_club():
    r = cli("evaluate", HOPELESS, "--rules", "club", "--deals", "300", "--json")
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["recommendation"] == "bettel" and all(list(o) == list(JSON_KEYS) for o in out["options"])
    assert list(out["club"]) == list(CLUB_KEYS) and out["club"]["all_pass"] == "ramsch"
    assert "club" not in json.loads(cli("evaluate", HOPELESS, "--deals", "50", "--json").stdout)
    r = cli("evaluate", "E9 G9 S9 EK GK SU", "--rules", "club-short", "--deals", "200", "--seat", "2")
    assert r.returncode == 0 and "Klopfen as the strategy decides" in r.stdout and "a Ramsch when" in r.stdout
    for args, msg in ((["--rules", "club", "--play", "dd"], "no four-player value of a Ramsch"),
                      (["--rules", "club", "--stock", "10"], "only with all_pass")):
        r = cli("evaluate", HOPELESS, "--deals", "10", *args)
        assert r.returncode == 2 and msg in r.stderr and r.stderr.count("\n") == 1, (args, r.stderr)


# ---------------------------------------------------------------------------------------------- CLI

def test_cli_json_and_table():
    r = cli("evaluate", "EO GO HU HA HZ H9", "--rules", "stargames-short", "--deals", "300", "--seat", "1",
            "--json")
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert [out[k] for k in ("hand", "seat", "deals", "play")] == ["EO GO H9 HU HZ HA", 1, 300, "heuristic"]
    assert all(list(o) == list(JSON_KEYS) for o in out["options"])
    assert sum(o["recommended"] for o in out["options"]) == 1 and out["options"][-1]["declaration"] != ""
    assert {o["declaration"] for o in out["options"]} >= {"pass", "geier", "solo herz", "wenz tout"}
    r = cli("evaluate", "EO", "GO", "HU", "HA", "HZ", "H9", "--rules", "stargames-short", "--deals", "200")
    assert r.returncode == 0 and "recommended:" in r.stdout and "95% interval" in r.stdout


def test_cli_errors_are_one_line():
    for args, msg in ((["EO EO HU HA HZ H9 SA S7"], "duplicate card EO"), (["EO GO HU"], "3 cards, expected 8"),
                      (["EO GO HU HA HZ H7", "--rules", "stargames-short"], "not in the short deck"),
                      ([ALL_OBER_UNTER, "--seat", "4"], "--seat"), ([ALL_OBER_UNTER, "--play", "nosuch"], "unknown"),
                      ([ALL_OBER_UNTER, "--deals", "x"], "--deals")):
        r = cli("evaluate", *args)
        assert r.returncode == 2 and msg in r.stderr and r.stderr.count("\n") == 1, (args, r.stderr)


def test_registering_the_command_loads_no_kernel_and_the_package_is_callable():
    import subprocess
    import sys

    code = ("import sys, simkit; f = simkit.evaluate; import simkit.cli; "
            "assert 'numba' not in sys.modules and 'pandas' not in sys.modules; "
            "assert callable(f) and callable(simkit.evaluate) and f is not simkit.evaluate")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr


# ------------------------------------------------------------------------------------- report section

def test_best_declaration_by_shape(tmp_path):
    """The report's table: per shape, the run's first declarer hands of that contract and shape, each evaluated
    at its seat; the best option's value is never below the declared contract's (it is the best of all options,
    the declared one among them), and a hand's figures are what evaluate gives for it."""
    import polars as pl

    import analysis as an
    from analysis.best import best_declaration_by_shape
    from analysis.dataset import declarer_hands
    from analysis.features import hand_features, shape_label
    from simkit.sim import RunOptions, run

    out = tmp_path / "run"
    run(RunOptions(deals=3_000, seed=2), out, workers=1)
    ds = an.scan(out)
    shapes = an.expected_points(ds).filter(pl.col("contract") == "rufspiel").sort("games", descending=True).head(2)
    best = best_declaration_by_shape(ds, shapes, hands=2, deals=200)
    assert best.height == 2 and (best["hands"] == 2).all()
    assert (best["best_payout"] >= best["declared_payout"] - 1e-12).all()
    assert (best["gain"] - (best["best_payout"] - best["declared_payout"])).abs().max() < 1e-12
    # the first hand of the first shape, found by hand, evaluated alone
    df = ds.lf.filter(pl.col("contract") == "rufspiel").select("deal_id", "contract", "suit", "declarer").collect()
    hands = declarer_hands(ds, df)
    kind = np.zeros(df.height, np.int8)
    suit = df["suit"].cast(pl.String).replace_strict({"eichel": 0, "gras": 1, "schellen": 3}).to_numpy()
    codes = hand_features(hands, kind, suit)["shape"]
    first = next(i for i in range(df.height) if shape_label(int(codes[i])) == best["shape"][0])
    one = evaluate(int(hands[first]), seat=int(df["declarer"][first]), rules=ds.rules, deals=200)
    first_two = [i for i in range(df.height) if shape_label(int(codes[i])) == best["shape"][0]][:2]
    values = [evaluate(int(hands[i]), seat=int(df["declarer"][i]), rules=ds.rules, deals=200)["payout"].max()
              for i in first_two]
    assert one["payout"].max() == values[0]
    assert best["best_payout"][0] == pytest.approx(np.mean(values))
