"""The solver's API and command: consistency of values, real games at every position, bulk openings, `simkit solve`,
`simkit run --dd`, and run directories that open in the common readers."""

from __future__ import annotations

import json
import os
import random
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow.dataset as pads
import pytest

from simkit.cards import format_card
from simkit.engine.game import play_games
from simkit.rules import Contract, load_ruleset
from simkit.rules.contracts import CLASSIC_KIND_NAMES
from simkit.solver import Position, PositionError, Workspace, position_value, solve, threshold
from simkit.sim.openings import solve_openings
from simkit.solver.api import solve_played

from simkit_cli import REPO, read_parts, simkit as cli

SHARED = Path(os.environ.get("SIMKIT_SHARED", REPO.parent / "shared"))
FIXTURES = SHARED / "fixtures" / "real-games-sample.jsonl"
DEMO = REPO / "simkit" / "data" / "demo-games.jsonl"


def _records(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def _cut(record: dict, n_cards: int) -> dict:
    """The record with only its first ``n_cards`` cards played."""
    tricks, left = [], n_cards
    for t in record["tricks"]:
        if left <= 0:
            break
        tricks.append({"leader": t["leader"], "cards": t["cards"][:left]})
        left -= len(tricks[-1]["cards"])
    return dict(record, tricks=tricks)


def _game_records() -> list[dict]:
    # the solver values the six trick contracts; the demo file's club records (Bettel, Sie, Ramsch, a throw-in into
    # the stock) are the referee's
    recs = [r for r in _records(DEMO) if r.get("contract") in CLASSIC_KIND_NAMES]
    if FIXTURES.is_file():
        recs += _records(FIXTURES)
    return recs


def test_real_and_demo_games_solve_at_every_position():
    """Every position of every demo game and real game (all three objectives at the opening and at random
    positions, the points at every one): no error, and the values chain up: the value of a position is the best of
    its cards' values, the value of a card is the value of the position after it, the last position's values are
    the game's card points."""
    recs = _game_records()
    assert len(recs) >= 12
    rng = random.Random(5)
    for rec in recs:
        previous = None  # (solution of the position before, the card played there)
        for k in range(4 * len(rec["tricks"]) + 1):
            pos = Position.from_record(_cut(rec, k))
            if pos.is_over:
                final = pos.game.result().declarer_points
                assert position_value(pos) == final and solve(pos).value == final
                assert previous[0].values[previous[1]] == final
                break
            sol = solve(pos, "points")
            maximise = pos.to_move in pos.team
            assert sol.value == (max if maximise else min)(sol.values.values())
            assert set(sol.best) == {c for c, v in sol.values.items() if v == sol.value}
            assert set(sol.values) == set(pos.legal_cards())
            assert position_value(pos, "points") == sol.value
            if previous is not None:
                assert previous[0].values[previous[1]] == sol.value  # a card is worth the position it leads to
            if k == 0 or rng.random() < 0.1:
                for objective in ("win", "payout"):
                    other = solve(pos, objective)
                    assert set(other.values) == set(sol.values)
                    if objective == "win" and not pos.contract.tout:
                        assert other.values == {c: int(v >= 61) for c, v in sol.values.items()}
            previous = (sol, Position.from_record(_cut(rec, k + 1)).plays[-1])


def test_a_whole_game_shares_the_table():
    """Solving every position of a game on one workspace costs far less than solving each on a fresh one."""
    rec = _records(DEMO)[0]
    shared, fresh_total = Workspace(), 0
    shared_total = 0
    for k in range(0, 4 * len(rec["tricks"])):
        pos = Position.from_record(_cut(rec, k))
        a = solve(pos, "points", workspace=shared)
        b = solve(pos, "points", workspace=Workspace(table_bits=18))
        assert a.values == b.values  # reuse never changes a value
        shared_total += a.nodes
        fresh_total += b.nodes
    assert shared_total < 0.8 * fresh_total


def test_solve_line_equals_solve_at_every_position():
    """One kernel call along a recorded game gives what solve gives at each of its positions (fresh tables)."""
    from simkit.solver.api import solve_line

    for rec in _records(DEMO)[:4]:
        opening = Position.from_record(_cut(rec, 0))
        cards = list(Position.from_record(_cut(rec, 4 * len(rec["tricks"]))).plays)
        for objective in ("points", "win", "payout"):
            line = solve_line(opening, cards, objective, workspace=Workspace())
            assert len(line) == len(cards)
            pos = opening
            for sol, c in zip(line, cards):
                fresh = solve(pos, objective, workspace=Workspace(table_bits=14))
                assert (sol.to_move, sol.values, sol.best, sol.value) == (fresh.to_move, fresh.values, fresh.best,
                                                                          fresh.value)
                pos = pos.after(c)
    with pytest.raises(PositionError):
        solve_line(opening, cards[:3] + cards[5:6])


def test_after_plays_on_like_a_replay_from_the_deal():
    """Position.after plays on from its parent's game: at every position of a recorded game it equals the position
    replayed from the deal, and neither a legal nor an illegal card changes the parent."""
    rec = _records(DEMO)[1]
    pos = Position.from_record(_cut(rec, 0))
    cards = list(Position.from_record(_cut(rec, 4 * len(rec["tricks"]))).plays)
    for i, c in enumerate(cards):
        replayed = Position(pos.rules, pos.contract, pos.declarer, pos.hands, tuple(cards[:i]), pos.doublings)
        assert pos == replayed and pos.level_payouts == replayed.level_payouts
        g, r = pos.game, replayed.game
        assert (g.hands, g.current, g.tricks, g.leader, g.searched) == (r.hands, r.current, r.tricks, r.leader,
                                                                         r.searched)
        assert pos.legal_cards() == replayed.legal_cards()
        # a card played already, or at the start one of the next seat's cards
        illegal = pos.plays[0] if pos.plays else min(pos.game.hands[(pos.to_move + 1) % 4])
        with pytest.raises(PositionError):
            pos.after(illegal)
        child = pos.after(c)
        assert (g.hands, g.current, g.tricks) == (r.hands, r.current, r.tricks)  # the parent is as it was
        pos = child
    assert pos.is_over and pos.game.result() == Position(pos.rules, pos.contract, pos.declarer, pos.hands,
                                                         tuple(cards), pos.doublings).game.result()


def test_threshold_and_positions_errors():
    rec = _records(DEMO)[0]
    pos = Position.from_record(_cut(rec, 3))
    v = position_value(pos)
    assert threshold(pos, points=v) and not threshold(pos, points=v + 1)
    with pytest.raises(ValueError, match="exactly one"):
        threshold(pos)
    bad = _cut(rec, 2)
    bad["tricks"][0]["cards"][1] = bad["tricks"][0]["cards"][0]
    with pytest.raises(PositionError, match="trick 1, seat 1"):
        Position.from_record(bad)
    with pytest.raises(PositionError, match="1-3"):
        Position.from_record(dict(rec, tricks=[rec["tricks"][0], {"leader": 0, "cards": []}]))
    with pytest.raises(ValueError, match="objective"):
        solve(pos, "money")


def test_solve_openings_is_independent_of_workers_and_matches_solve():
    a = solve_openings(4, 10, 16, objective="payout", cards=True, workers=1)
    b = solve_openings(4, 10, 16, objective="payout", cards=True, workers=2)
    for k in ("deal_id", "value", "solved", "card_values", "legal"):
        assert (a[k] == b[k]).all(), k
    g = play_games(4, 10, 16)
    rules = load_ruleset()
    checked = 0
    for i in np.flatnonzero(a["solved"])[:5]:
        k, su = int(g["kind"][i]), int(g["suit"][i])
        c = Contract(k, su if k in (0, 1, 4, 5) else None, bool(g["tout"][i]))
        pos = Position.opening([int(h) for h in g["hands"][i]], c, int(g["declarer"][i]), rules,
                               doublings=int(g["doublings"][i]))
        sol = solve(pos, "payout")
        assert sol.value == a["value"][i]
        assert sol.values == {c: int(a["card_values"][i, c]) for c in range(32) if (int(a["legal"][i]) >> c) & 1}
        checked += 1
    assert checked == 5 and (~a["solved"] == (g["kind"] < 0)).all()


def test_a_level_walked_from_any_guess_equals_the_bisection():
    """solve_played finds a level by a walk from the level the strategies' own play reached (values.level_from);
    from any first guess, right or far off, it must be the level the bisection finds (no result columns)."""
    rules = load_ruleset()
    g = play_games(6, 0, 40, rules)
    plain = {k: v for k, v in g.items() if k not in ("declarer_points", "declarer_tricks")}
    n = len(g["kind"])
    for objective in ("payout", "win"):
        want = solve_played(plain, rules, objective)
        got = solve_played(g, rules, objective)
        assert (got["value"] == want["value"]).all() and (got["solved"] == want["solved"]).all()
        # every guess from "lost schwarz" to "won schwarz"
        for pts, tricks in ((0, 0), (20, 1), (45, 3), (75, 5), (100, 7), (120, 8)):
            h = dict(g, declarer_points=np.full(n, pts), declarer_tricks=np.full(n, tricks))
            assert (solve_played(h, rules, objective)["value"] == want["value"]).all(), (objective, pts)
    levels = solve_played(plain, rules, "payout")["level"][want["solved"]]
    assert len(set(levels.tolist())) >= 3  # the deals end at several levels, so the walks go both ways


# ------------------------------------------------------------------------------------------ the commands

def _positions_file(tmp_path: Path) -> Path:
    recs = _records(DEMO)
    lines = [json.dumps(_cut(recs[0], 0)), json.dumps(_cut(recs[1], 6)), "", json.dumps(_cut(recs[2], 29))]
    bad = _cut(recs[0], 1)
    bad["tricks"][0]["cards"] = ["S7"]
    lines += ["{not json", json.dumps(bad), json.dumps(recs[0])]
    path = tmp_path / "positions.jsonl"
    path.write_text("\n".join(lines) + "\n")
    return path


def test_solve_command_json(tmp_path):
    path = _positions_file(tmp_path)
    r = cli("solve", path, "--json", "--objective", "win")
    assert r.returncode == 1, r.stderr
    rows = [json.loads(x) for x in r.stdout.splitlines()]
    assert len(rows) == 6
    for row in rows:
        assert list(row) == ["id", "ok", "error", "to_move", "values", "best", "nodes", "seconds"]
    ok = [row for row in rows if row["ok"]]
    assert len(ok) == 3 and all(set(row["values"].values()) <= {0, 1} for row in ok)
    pos = Position.from_record(_cut(_records(DEMO)[1], 6))
    sol = solve(pos, "win")
    assert ok[1]["values"] == {format_card(c): v for c, v in sol.values.items()} and ok[1]["to_move"] == pos.to_move
    errors = [row["error"] for row in rows if not row["ok"]]
    assert "line 5 is not valid JSON" in errors[0]
    assert "line 6: trick 1, seat 0, card S7: seat 0 does not hold this card" in errors[1]
    assert "line 7: the game is over" in errors[2]


def test_solve_command_table_and_usage_errors(tmp_path):
    path = _positions_file(tmp_path)
    r = cli("solve", path, "--objective", "payout")
    assert r.returncode == 1 and "3 of 6 positions failed" in r.stderr
    assert "seat 0" in r.stdout and "ERROR" in r.stdout
    for args, msg in ((["--objective", "money"], "--objective must be one of"),
                      (["--rules", "nosuch"], "unknown ruleset preset"), (["--frobnicate"], "No such option")):
        r = cli("solve", path, *args)
        assert r.returncode == 2 and msg in r.stderr and len(r.stderr.strip().splitlines()) == 1, r.stderr
    r = cli("solve", tmp_path / "missing.jsonl")
    assert r.returncode == 2 and "does not exist" in r.stderr


@pytest.fixture(scope="module")
def dd_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("dd") / "run"
    r = cli("run", "--deals", "120", "--seed", "3", "--dd", "--out", out, "--workers", "2")
    assert r.returncode == 0, r.stderr
    return out


def test_report_of_a_dd_run(dd_run, tmp_path):
    import analysis as an

    r = cli("report", dd_run, "--out", tmp_path / "rep")
    assert r.returncode == 0, r.stderr
    html = (tmp_path / "rep" / "report.html").read_text()
    assert ">Double dummy</h2>" in html and "DD win rate" in html
    dd = pd.read_csv(tmp_path / "rep" / "tables" / "double_dummy.csv")
    df = read_parts(dd_run)
    played = df[df.contract != "pass"]
    assert dd.games.sum() == len(played)
    ruf = dd[dd.contract == "rufspiel"].iloc[0]
    rows = played[played.contract == "rufspiel"]
    assert ruf.dd_win_rate == pytest.approx(rows.dd_won.mean())
    assert ruf.points_gap == pytest.approx((rows.dd_points.astype(int) - rows.declarer_points.astype(int)).mean())
    assert an.double_dummy_by_shape(an.scan(dd_run))["games"].sum() == len(played)
    # a run without --dd has no such section, and the API says how to get one
    plain = tmp_path / "plain"
    assert cli("run", "--deals", "2000", "--out", plain, "--workers", "1").returncode == 0
    with pytest.raises(an.AnalysisError, match="simkit run --dd"):
        an.double_dummy(an.scan(plain))


def test_run_dd_columns(dd_run, tmp_path):
    out = dd_run
    df = read_parts(out)
    passed = df.contract == "pass"
    assert df.dd_points[passed].isna().all() and df.dd_won[passed].isna().all()
    played = df[~passed]
    assert played.dd_points.notna().all() and played.dd_points.between(0, 120).all()
    plain = played[~played.tout]
    assert (plain.dd_won == (plain.dd_points >= 61)).all()
    g = play_games(3, 0, 120)
    rules = load_ruleset()
    for i in played.index[:4]:
        k, su = int(g["kind"][i]), int(g["suit"][i])
        c = Contract(k, su if k in (0, 1, 4, 5) else None, bool(g["tout"][i]))
        pos = Position.opening([int(h) for h in g["hands"][i]], c, int(g["declarer"][i]), rules)
        assert position_value(pos, "points") == df.dd_points[i]
    m = json.loads((out / "_manifest.json").read_text())
    assert m["dd"] is True
    # forced mode too; resuming without --dd is refused (the columns differ)
    out2 = tmp_path / "forced"
    r = cli("run", "--deals", "30", "--contract", "wenz", "--declarer", "1", "--dd", "--out", out2, "--workers", "1")
    assert r.returncode == 0, r.stderr
    assert read_parts(out2).dd_points.notna().all()
    r = cli("run", "--deals", "30", "--contract", "wenz", "--declarer", "1", "--out", out2, "--resume")
    assert r.returncode == 2 and "options differ" in r.stderr and r.stderr.rstrip().endswith("dd")
    r = cli("run", "--deals", "10", "--rules", "old-german", "--dd", "--out", tmp_path / "og")
    assert r.returncode == 2 and "--dd does not apply" in r.stderr


def test_run_directory_opens_in_common_readers(tmp_path):
    out = tmp_path / "r"
    assert cli("run", "--deals", "3000", "--out", out, "--workers", "1").returncode == 0
    assert sorted(p.name for p in out.iterdir())[0] == "_manifest.json"
    assert len(pd.read_parquet(out)) == 3000
    assert pads.dataset(out).count_rows() == 3000
    # a run written before (manifest.json) is still read, and a resumed one is renamed
    legacy = tmp_path / "legacy"
    assert cli("run", "--deals", "3000", "--out", legacy, "--workers", "1").returncode == 0
    m = json.loads((legacy / "_manifest.json").read_text())
    shards = m["shards"]
    m["shards"] = shards[:1]
    m["deals_done"], m["complete"] = shards[0]["rows"], False
    (legacy / "_manifest.json").rename(legacy / "manifest.json")
    (legacy / "manifest.json").write_text(json.dumps(m))
    for s in shards[1:]:
        (legacy / s["file"]).unlink()
    r = cli("report", legacy, "--out", tmp_path / "rep")
    assert r.returncode == 0, r.stderr
    r = cli("run", "--deals", "3000", "--out", legacy, "--resume", "--workers", "1")
    assert r.returncode == 0, r.stderr
    assert not (legacy / "manifest.json").exists() and json.loads((legacy / "_manifest.json").read_text())["complete"]
    assert len(pd.read_parquet(legacy)) == 3000


def test_demo_positions_solve():
    """`make demo` solves simkit/data/demo-positions.jsonl: every line must be a valid position."""
    r = cli("solve", REPO / "simkit" / "data" / "demo-positions.jsonl", "--json", "--objective", "payout")
    assert r.returncode == 0, r.stderr
    rows = [json.loads(x) for x in r.stdout.splitlines()]
    assert len(rows) == 3 and all(row["ok"] and row["values"] for row in rows)
