"""`simkit match`: duplicate matches (simkit.match)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import polars as pl
import pytest

from simkit.engine.game import play_games
from simkit.match import MatchError, match
from simkit.stats import json_safe
from simkit.match.duplicate import play_both_seatings
from simkit.rules import load_ruleset
from simkit.strategies import heuristic, resolve

from simkit_cli import simkit as cli


def test_scores_against_the_kernel_directly():
    """A deal's score is A's pair's payouts over both seatings, halved, computed here from play_games."""
    rules = load_ruleset("sauspiel")
    part = play_both_seatings("heuristic", "random", 4, 100, 300, rules)
    g1 = play_games(4, 100, 300, rules, seats=("heuristic", "random", "heuristic", "random"))
    g2 = play_games(4, 100, 300, rules, seats=("random", "heuristic", "random", "heuristic"))
    want = (g1["payouts"][:, 0] + g1["payouts"][:, 2] + g2["payouts"][:, 1] + g2["payouts"][:, 3]) / 2
    np.testing.assert_array_equal(part["score"], want)
    passed = g1["kind"] < 0
    assert (part["role"][passed, 0] == 3).all() and (part["a_payout"][passed, 0] == 0).all()


def test_a_strategy_against_itself_scores_exactly_zero():
    r = match(["heuristic", resolve("heuristic").with_config(heuristic.DEFAULT_CONFIG.copy())], 3000,
              "stargames", seed=2, workers=1)
    p = r.pairs[0]
    assert p.mean == 0 and p.differ == 0


def test_independent_of_workers_and_chunks_and_breakdowns_add_up():
    a = match(["heuristic", "random"], 9000, "sauspiel", seed=7, workers=1, chunk=9000)
    b = match(["heuristic", "random"], 9000, "sauspiel", seed=7, workers=2, chunk=2000)
    assert a.pairs[0].to_json() == b.pairs[0].to_json()
    p = a.pairs[0]
    assert p.ci_low > 0  # the heuristic beats random play
    for rows in (p.by_contract, p.by_role):
        assert sum(r["contribution"] for r in rows) == pytest.approx(p.mean)
        assert sum(r["plays"] for r in rows) == 2 * p.deals
    assert {r["role"] for r in p.by_role} <= {"declaring", "defending", "split", "passed"}
    split = [r for r in p.by_role if r["role"] == "split"]
    assert all(r["mean"] == 0 for r in split)  # one seat on each side of a Rufspiel: the pair's payouts cancel


def test_three_strategies_rank_by_the_mean_against_the_others(tmp_path, monkeypatch):
    names = ["random", "heuristic", "greedy_strategy:Greedy"]
    monkeypatch.syspath_prepend(str(Path(__file__).resolve().parents[1] / "docs" / "examples"))
    r = match(names, 4000, "sauspiel", seed=5, workers=2, out=tmp_path / "m")
    assert [x["strategy"] for x in r.ranking][0] == "heuristic"
    pair = {(p.a, p.b): p.mean for p in r.pairs}
    for row in r.ranking:
        s = row["strategy"]
        vs = [m if a == s else -m for (a, b), m in pair.items() if s in (a, b)]
        assert row["mean"] == pytest.approx(np.mean(vs))
    df = pl.read_parquet(tmp_path / "m" / "deals.parquet")
    assert df.height == 3 * 2 * 4000
    summary = json.loads((tmp_path / "m" / "summary.json").read_text())
    assert summary["ranking"] == r.ranking
    assert not list((tmp_path / "m").glob(".*tmp"))
    with pytest.raises(MatchError, match="already holds"):
        match(names[:2], 10, "sauspiel", out=tmp_path / "m")


def test_cli(tmp_path):
    r = cli("match", "heuristic", "random", "--deals", "3000", "--rules", "sauspiel", "--json", "--workers", "1")
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert list(out) == ["a", "b", "deals", "mean", "ci_low", "ci_high", "by_contract"]
    assert out["deals"] == 3000 and out["ci_low"] > 0
    r = cli("match", "heuristic", "random", "--deals", "500")
    assert r.returncode == 0 and "95% interval" in r.stdout and "by contract" in r.stdout
    for args, msg in ((["heuristic"], "at least two"), (["heuristic", "heuristic"], "twice"),
                      (["heuristic", "nosuch"], "unknown strategy"), (["heuristic", "random", "--deals", "x"], "--deals"),
                      (["heuristic", "random", "--rules", "old-german"], "Bavarian")):
        r = cli("match", *args)
        assert r.returncode == 2 and msg in r.stderr and r.stderr.count("\n") == 1, (args, r.stderr)


def test_club_rules(tmp_path):
    """Under ``club``: the scores are the kernel's payouts (knocks included), a Ramsch is a role of its own whose
    declarer is the loser, the breakdowns (contract, role, knocks) add up to the mean, a strategy against itself
    scores 0 (its knocks too), and the stock, which carries from deal to deal, is refused in one line."""
    rules = load_ruleset("club")
    part = play_both_seatings("heuristic", "random", 2, 0, 400, rules)
    g1 = play_games(2, 0, 400, rules, seats=("heuristic", "random", "heuristic", "random"))
    g2 = play_games(2, 0, 400, rules, seats=("random", "heuristic", "random", "heuristic"))
    want = (g1["payouts"][:, 0] + g1["payouts"][:, 2] + g2["payouts"][:, 1] + g2["payouts"][:, 3]) / 2
    np.testing.assert_array_equal(part["score"], want)
    ramsch = g1["kind"] == 8
    assert ramsch.any() and (part["role"][ramsch, 0] == 4).all()
    np.testing.assert_array_equal(part["declarer"][ramsch, 0], g1["declarer"][ramsch])
    assert (g1["declarer"][ramsch] >= 0).all()  # the loser (or the Durchmarsch winner)
    k = g1["knocked"].astype(np.int64)
    np.testing.assert_array_equal(part["knocks"][:, 0], sum((k >> s) & 1 for s in range(4)))

    r = match(["heuristic", "random"], 3000, rules, seed=3, workers=1, out=tmp_path / "m")
    p = r.pairs[0]
    assert p.ci_low > 0
    for rows in (p.by_contract, p.by_role, p.by_knocks):
        assert sum(x["contribution"] for x in rows) == pytest.approx(p.mean)
        assert sum(x["plays"] for x in rows) == 2 * p.deals
    assert {"bettel", "ramsch"} <= {x["contract"] for x in p.by_contract}
    assert "ramsch" in {x["role"] for x in p.by_role} and "passed" not in {x["role"] for x in p.by_role}
    assert [x["knocks"] for x in p.by_knocks] == sorted(x["knocks"] for x in p.by_knocks) and len(p.by_knocks) > 1
    df = pl.read_parquet(tmp_path / "m" / "deals.parquet")
    assert df.height == 2 * 3000 and df["knocks"].max() > 0
    assert (df.filter(pl.col("contract") == "ramsch")["declarer"] >= 0).all()
    summary = json.loads((tmp_path / "m" / "summary.json").read_text())
    # a knock count played once has no interval: NaN in Python, null in the JSON (which has no NaN)
    assert summary["by_knocks"]["heuristic vs random"] == json_safe(p.by_knocks)
    assert match(["heuristic", "random"], 300, "sauspiel", workers=1).pairs[0].by_knocks == []

    same = match(["heuristic", resolve("heuristic").with_config(heuristic.DEFAULT_CONFIG.copy())], 1500,
                 "club-short", seed=4, workers=1).pairs[0]
    assert same.mean == 0 and same.differ == 0
    with pytest.raises(MatchError, match="stock"):
        match(["heuristic", "random"], 10, load_ruleset("sauspiel").replace(all_pass="stock"), workers=1)
    r = cli("match", "heuristic", "random", "--deals", "600", "--rules", "club", "--workers", "1")
    assert r.returncode == 0 and "by knocks" in r.stdout and "ramsch" in r.stdout, r.stderr
