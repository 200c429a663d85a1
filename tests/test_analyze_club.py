"""`simkit analyze` on club records (docs/analyze.md): a Bettel graded under win (the declarer against the three
defenders), a Ramsch each card from its own player's view (his own points, the other three against him)."""

from __future__ import annotations

import json

import pyarrow.parquet as pq

from simkit.analyze.grade import grade_game
from simkit.analyze.records import parse_game
from simkit.solver import Position, Workspace, solve
from simkit_cli import REPO, simkit as cli

DEMO = REPO / "simkit" / "data" / "demo-games.jsonl"


def _club(kind: str) -> list[dict]:
    recs = [json.loads(x) for x in DEMO.read_text().splitlines() if x.strip()]
    return [r for r in recs if r.get("contract") == kind]


def test_bettel_is_graded_under_win():
    recs = _club("bettel")
    assert len(recs) >= 3
    for line, rec in enumerate(recs, start=1):
        game = parse_game(rec, line)
        graded = grade_game(game, "points", workspace=Workspace(table_bits=16))  # points: a Bettel has none
        pos = game.opening
        assert len(graded.decisions) == len(game.plays)
        for i, row in enumerate(graded.decisions):
            sol = solve(pos, "win", workspace=Workspace(table_bits=14))
            assert row["values"] == sol.values and set(row["values"].values()) <= {0, 1}
            best = max(sol.values.values()) if row["seat"] == pos.declarer else min(sol.values.values())
            assert row["best_value"] == best and row["loss"] >= 0
            assert row["role"] == ("declarer" if row["seat"] == pos.declarer else "defender")
            pos = pos.after(game.plays[i])
        assert graded.game["won"] == pos.game.result().won
        assert graded.game["dd_won"] == bool(solve(game.opening, "win", workspace=Workspace(table_bits=14)).value)


def test_ramsch_is_graded_from_each_players_view():
    recs = _club("ramsch")
    assert len(recs) >= 5
    seen_loss = 0
    for line, rec in enumerate(recs[:4] + recs[-3:], start=1):
        game = parse_game(rec, line)
        graded = grade_game(game, "payout", workspace=Workspace(table_bits=16))  # payout: a Ramsch has points only
        pos = game.opening
        for i, row in enumerate(graded.decisions):
            assert row["role"] == "ramsch" and row["seat"] == pos.to_move
            sol = solve(pos.with_view(pos.to_move), "points", workspace=Workspace(table_bits=14))
            assert row["values"] == sol.values
            assert row["best_value"] == min(sol.values.values())
            assert row["loss"] == sol.values[game.plays[i]] - row["best_value"] >= 0
            seen_loss += row["loss"] > 0
            pos = pos.after(game.plays[i])
        g = graded.game
        assert g["declarer"] is None and g["dd_won"] is None and g["result"] == pos.game.result().seat_points[0]
    assert seen_loss > 0


def test_analyze_command_grades_club_records(tmp_path):
    games = tmp_path / "club.jsonl"
    recs = _club("bettel") + _club("ramsch")[:2]
    recs[-1] = dict(recs[-1], players=["A", "B", "C", "D"])
    games.write_text("\n".join(json.dumps(r) for r in recs) + "\n")
    r = cli("analyze", games, "--out", tmp_path / "an", "--rules", "club", "--workers", "1", "--json")
    assert r.returncode == 0, r.stderr
    head = json.loads(r.stdout)
    assert head["games"] == len(recs) and head["bad_records"] == 0
    g = pq.read_table(tmp_path / "an" / "games.parquet").to_pydict()
    assert sorted(set(g["contract"])) == ["bettel", "ramsch"]
    assert g["declarer_player"][-1] is None


def test_pimc_advises_with_the_club_objectives():
    """pimc on the record path (``simkit analyze --strategy pimc``) plays a Bettel for the declarer's win and a
    Ramsch for its own fewest points: its cards are legal, and nearly always among the double-dummy best cards
    (it sees only its own hand: not always)."""
    from simkit.analyze.advice import advise
    from simkit.strategies import resolve

    pimc = resolve("pimc")
    agree = total = 0
    recs = _club("bettel") + _club("ramsch")[:3]
    for line, rec in enumerate(recs, start=1):
        game = parse_game(rec, line)
        pos = game.opening
        for i, c in enumerate(advise(pimc, game)):
            legal = pos.legal_cards()
            assert c in legal, (rec["id"], i)
            if len(legal) > 1:
                view = pos if rec["contract"] == "bettel" else pos.with_view(pos.to_move)
                sol = solve(view, "win" if rec["contract"] == "bettel" else "points",
                            workspace=Workspace(table_bits=14))
                agree += c in sol.best
                total += 1
            pos = pos.after(game.plays[i])
    assert total > 50 and agree >= 0.85 * total, (agree, total)
