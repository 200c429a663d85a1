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


def _sie_record(rng, deck: str, rid: str) -> dict:
    """A Sie played out by random legal cards: seat ``d`` holds the Sie hand (every Ober and Unter; short deck the
    four Ober, Eichel and Gras Unter), the others random hands."""
    from simkit.cards import format_card
    from simkit.reference import Game
    from simkit.rules import Contract, load_ruleset
    from simkit.rules.contracts import SIE
    from simkit.strategies.api import sie_mask

    rules = load_ruleset("club" if deck == "long" else "club-short")
    hs = rules.hand_size
    top = [c for c in range(32) if (sie_mask(hs) >> c) & 1]
    deck_cards = [c for c in range(32) if (c & 7) >= (0 if deck == "long" else 2) and c not in top]
    rng.shuffle(deck_cards)
    d = rng.randrange(4)
    hands = [[] for _ in range(4)]
    hands[d] = top
    others = [s for s in range(4) if s != d]
    for j, s in enumerate(others):
        hands[s] = deck_cards[j * hs:(j + 1) * hs]
    game = Game(rules, [sum(1 << c for c in h) for h in hands], Contract(SIE, None), d)
    tricks = []
    while not game.is_over:
        leader = game.to_play
        cards = []
        for _ in range(4):
            c = rng.choice(game.legal_cards())
            cards.append(format_card(c))
            game.play(c)
        tricks.append({"leader": leader, "cards": cards})
    return {"id": rid, "deck": deck, "contract": "sie", "tout": False, "declarer": d, "suit": None,
            "hands": [[format_card(c) for c in h] for h in hands], "rules": {"sie": True}, "tricks": tricks}


def test_sie_is_graded_every_card_loses_nothing(tmp_path):
    """A Sie is graded as the Herz solo it is, under every objective: every card's values are equal (loss 0, no
    blunder), the game is won Schwarz from the opening (dd_won, no decisive mistake); the demo Sie and random
    ones of both decks, played by random legal cards; and `simkit analyze` grades such a file (no record skipped)."""
    import random

    recs = _club("sie") + [_sie_record(random.Random(f"sie-{i}"), ("long", "short")[i % 2], f"sie-{i}") for i in range(4)]
    assert recs[0]["id"] == "demo-club-sie"
    for line, rec in enumerate(recs, start=1):
        game = parse_game(rec, line)
        for objective in ("points", "win", "payout"):
            graded = grade_game(game, objective, workspace=Workspace(table_bits=14))
            assert len(graded.decisions) == len(game.plays) == 4 * game.opening.rules.hand_size
            choices = 0
            for row in graded.decisions:
                assert row["loss"] == 0 and row["best"] and not row["blunder"], (rec["id"], objective, row)
                assert len(set(row["values"].values())) == 1
                choices += row["n_legal"] > 1
            assert choices > 0  # a test with only forced cards would prove nothing
            g = graded.game
            want = {"points": 120, "win": 1, "payout": g["payout"]}[objective]
            assert g["opening_value"] == g["result"] == want and g["payout"] > 0, (rec["id"], objective, g)
            assert g["dd_won"] and g["won"] and g["decisive_trick"] is None and g["blunders"] == 0
    games = tmp_path / "sie.jsonl"
    games.write_text("\n".join(json.dumps(r) for r in recs) + "\n")
    r = cli("analyze", games, "--out", tmp_path / "an", "--rules", "club", "--workers", "1", "--json",
            "--objective", "payout")
    assert r.returncode == 0, r.stderr
    head = json.loads(r.stdout)
    assert head["games"] == len(recs) and head["bad_records"] == 0


def test_the_summary_of_a_mixed_file_keeps_each_unit_apart(tmp_path):
    """The demo file holds classic games, Bettels and Ramsch games: three units (the objective's card points, games
    won or lost, a Ramsch player's own points). No summary mean mixes them: the headline mean loss is null, each
    unit has its line (by_unit), computed over its own contracts only, and the player and role tables name the
    unit of each row. ``--objective win`` puts the classic games and the Bettels in one unit (both games)."""
    import polars as pl

    recs = [json.loads(x) for x in DEMO.read_text().splitlines() if x.strip()]
    games = tmp_path / "mixed.jsonl"  # the demo, every record with the same four players
    games.write_text("\n".join(json.dumps(dict(x, players=["A", "B", "C", "D"])) for x in recs) + "\n")
    out = tmp_path / "an"
    r = cli("analyze", games, "--out", out, "--rules", "club", "--workers", "1")
    assert r.returncode == 1  # the demo's Sie and thrown-in records cannot be graded
    for unit in ("card points (the declaring side's)", "games (1 = the card lost the game)",
                 "the mover's own card points in a Ramsch"):
        assert unit in " ".join(r.stdout.split())
    head = json.loads((out / "summary.json").read_text())
    assert head["mean_loss"] is None and head["unit"].startswith("mixed")
    units = {u["graded"]: u for u in head["by_unit"]}
    assert set(units) == {"points", "win", "ramsch"}
    assert units["win"]["contracts"] == "bettel" and units["ramsch"]["contracts"] == "ramsch"
    d = pl.read_parquet(out / "decisions.parquet").filter(~pl.col("forced"))
    g = pl.read_parquet(out / "games.parquet")
    for graded, sel in (("win", pl.col("contract") == "bettel"), ("ramsch", pl.col("contract") == "ramsch"),
                        ("points", ~pl.col("contract").is_in(["bettel", "ramsch"]))):
        part = d.filter(sel)
        assert units[graded]["choices"] == part.height > 0
        assert abs(units[graded]["mean_loss"] - part["loss"].mean()) < 1e-9
        assert units[graded]["blunders"] == part["blunder"].sum()
        assert units[graded]["games"] == g.filter(sel).height
    roles = pl.read_csv(out / "tables" / "loss_by_role.csv")
    assert roles.filter(pl.col("contract") == "ramsch")["unit"].str.contains("Ramsch").all()
    assert roles.filter(pl.col("contract") == "bettel")["unit"].str.starts_with("games").all()
    assert pl.read_csv(out / "tables" / "swings.csv")["graded"].unique().to_list() == ["points"]
    players = pl.read_csv(out / "tables" / "by_player.csv")
    assert players.height == 12 and players.select("player", "unit").is_unique().all()  # 4 players x 3 units
    a_ramsch = players.filter((pl.col("player") == "A") & pl.col("unit").str.contains("Ramsch"))
    assert abs(a_ramsch["mean_loss"][0] - d.filter((pl.col("contract") == "ramsch") & (pl.col("player") == "A"))[
        "loss"].mean()) < 1e-9
    # under --objective win the classic games are counted in games as the Bettels are: one unit with both
    out2 = tmp_path / "win"
    cli("analyze", games, "--out", out2, "--rules", "club", "--workers", "1", "--objective", "win")
    head2 = json.loads((out2 / "summary.json").read_text())
    assert {u["graded"] for u in head2["by_unit"]} == {"win", "ramsch"}
    assert "bettel" in next(u for u in head2["by_unit"] if u["graded"] == "win")["contracts"].split(", ")


def test_a_file_of_one_unit_keeps_its_headline_mean(tmp_path):
    """Classic games only: one unit, and the headline mean loss is its mean (as before club records)."""
    import polars as pl

    recs = [json.loads(x) for x in DEMO.read_text().splitlines() if x.strip()]
    classic = [x for x in recs if x.get("contract") in ("rufspiel", "solo", "wenz")]
    games = tmp_path / "classic.jsonl"
    games.write_text("\n".join(json.dumps(x) for x in classic) + "\n")
    r = cli("analyze", games, "--out", tmp_path / "an", "--rules", "club", "--workers", "1", "--json")
    head = json.loads(r.stdout)
    d = pl.read_parquet(tmp_path / "an" / "decisions.parquet").filter(~pl.col("forced"))
    assert [u["graded"] for u in head["by_unit"]] == ["points"] and head["unit"].startswith("card points")
    assert abs(head["mean_loss"] - d["loss"].mean()) < 1e-9
