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
