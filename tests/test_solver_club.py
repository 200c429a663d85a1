"""The solver's club objectives (RULES.md 4) against the exhaustive oracle (tests/exhaustive.py).

* Bettel: ``win`` is 1 iff the declarer takes no trick (he maximises it, the three defenders minimise it) and
  ``payout`` +-3x the Bettel price; with and without Stichzwang (a player following suit must beat the trick).
* Ramsch: ``points`` is one seat's own final card points, which it minimises and the other three maximise
  (the seat to move by default, any seat with ``view``).
* Sie: the Herz solo it is, always won.

Positions have 1-3 cards a hand (4 for a few), 0-3 cards of the current trick played, both decks. Each test
counts what it meant to cover (Stichzwang restricting a hand, a card choice that matters) so that a generator that
drifts fails instead of passing vacuously.
"""

from __future__ import annotations

import dataclasses
import json
import random
from collections import Counter

import numpy as np
import pytest

from exhaustive import after, best_cards, describe, exhaustive_values, named, ramsch_values, random_position
from simkit.reference import Game
from simkit.rules import Contract, load_ruleset
from simkit.rules.contracts import RAMSCH, SIE
from simkit.solver import Position, Workspace, position_value, solve, threshold
from simkit.solver.api import solve_line
from simkit.solver.api import SolverError
from test_solver_api import _cut  # the record with only its first n cards played

DECKS = ("long", "short")


def _rules(deck: str, stichzwang: bool = False):
    r = load_ruleset("club" if deck == "long" else "club-short")
    return r.replace(bettel=dataclasses.replace(r.bettel, stichzwang=stichzwang))


def _stich_bites(game: Game) -> bool:
    """Does Stichzwang take a card away from the seat to move (a card of the led suit that does not beat)?"""
    if not game.current or not game.stichzwang:
        return False
    led = game.current[0] >> 3
    follow = [c for c in game.hands[game.to_play] if c >> 3 == led]
    return len(follow) > len(game.legal_cards())


def _stich_bites_below(game: Game) -> bool:
    """Does Stichzwang take a card away from anyone anywhere in the game tree below (and at) ``game``?"""
    if game.is_over:
        return False
    return _stich_bites(game) or any(_stich_bites_below(after(game, c)) for c in game.legal_cards())


def check_bettel(record, game, rules) -> dict[int, int]:
    pos = Position.from_record(record, rules)
    where = describe(record, game)
    oracle = {}
    for o in ("win", "payout"):
        want = exhaustive_values(game, o)
        oracle[o] = want
        sol = solve(pos, o)
        assert sol.to_move == game.to_play, where
        assert sol.values == want, f"{o}: solver {named(sol.values)} != oracle {named(want)}\n{where}"
        assert set(sol.best) == best_cards(game, want), f"{o}: best {sol.best}, oracle {named(want)}\n{where}"
        assert position_value(pos, o) == sol.value, where
    return oracle["win"]


@pytest.mark.parametrize("stichzwang", [False, True])
@pytest.mark.parametrize("deck", DECKS)
def test_bettel_against_the_oracle(deck, stichzwang):
    rng = random.Random(f"bettel-{deck}-{stichzwang}")
    rules = _rules(deck, stichzwang)
    seen = Counter()
    for i in range(60):
        while True:  # mostly positions the declarer has not lost yet (random play gives him a trick early)
            record, game = random_position(rng, deck=deck, kind="bettel", rules=rules,
                                           cards_left=(1, 2, 3, 3)[i % 4], mid_trick=(i // 4) % 4,
                                           klopfen=[0] * (i % 2))
            if i % 5 == 0 or not any(w == game.declarer for _, _, w in game.tricks):
                break
        win = check_bettel(record, game, rules)
        seen["choice"] += len(set(win.values())) > 1
        seen["won"] += max(win.values()) == 1
        seen["stich"] += _stich_bites_below(game)
    assert seen["choice"] >= 3 and seen["won"] >= 3, seen
    assert (seen["stich"] >= 10) if stichzwang else seen["stich"] == 0, seen


def test_bettel_four_cards_a_hand():
    rng = random.Random("bettel-four")
    for i in range(6):
        rules = _rules("long", stichzwang=bool(i % 2))
        record, game = random_position(rng, deck="long", kind="bettel", rules=rules, cards_left=4, mid_trick=i % 4)
        check_bettel(record, game, rules)


def check_ramsch(record, game, rules, view=None) -> dict[int, int]:
    pos = Position.from_record(record, rules)
    if view is not None:
        pos = pos.with_view(view)
    seat = game.to_play if view is None else view
    want = ramsch_values(game, seat)
    where = describe(record, game) + f"\nview seat {seat}"
    sol = solve(pos, "points")
    assert sol.to_move == game.to_play, where
    assert sol.values == want, f"solver {named(sol.values)} != oracle {named(want)}\n{where}"
    pick = min if game.to_play == seat else max
    assert set(sol.best) == {c for c, v in want.items() if v == pick(want.values())}, where
    assert position_value(pos, "points") == sol.value == pick(want.values()), where
    return want


@pytest.mark.parametrize("deck", DECKS)
def test_ramsch_against_the_oracle(deck):
    rng = random.Random(f"ramsch-{deck}")
    rules = _rules(deck)
    seen = Counter()
    for i in range(60):
        record, game = random_position(rng, deck=deck, kind="ramsch", rules=rules, cards_left=(1, 2, 3, 3)[i % 4],
                                       mid_trick=(i // 4) % 4, klopfen=list(range(i % 3)))
        assert record["declarer"] is None
        want = check_ramsch(record, game, rules)
        seen["choice"] += len(set(want.values())) > 1
        if i % 3 == 0:  # another seat's view: the mover then plays against that seat
            check_ramsch(record, game, rules, view=(game.to_play + 1 + i % 3) % 4)
    assert seen["choice"] >= 10, seen


def test_ramsch_four_cards_a_hand():
    rng = random.Random("ramsch-four")
    rules = _rules("long")
    for i in range(4):
        record, game = random_position(rng, deck="long", kind="ramsch", rules=rules, cards_left=4, mid_trick=i)
        check_ramsch(record, game, rules)


def test_ramsch_line_takes_each_movers_view():
    """solve_line of a Ramsch values each decision from its own mover's view, as solve does position by
    position."""
    rng = random.Random("ramsch-line")
    rules = _rules("short")
    record, game = random_position(rng, deck="short", kind="ramsch", rules=rules, cards_left=3, mid_trick=0)
    pos = Position.from_record(record, rules)
    cards, g = [], game
    while not g.is_over:
        c = rng.choice(g.legal_cards())
        cards.append(c)
        g = after(g, c)
    line = solve_line(pos, cards, "points")
    p = pos
    for sol, c in zip(line, cards):
        assert sol.values == solve(p, "points").values
        assert sol.to_move == p.to_move
        p = p.after(c)


def test_sie_is_a_won_herz_solo():
    rules = load_ruleset("club")
    top = [8 * s + r for s in range(4) for r in (3, 4)]  # the Ober and Unter (rank 3 = U, 4 = O)
    from simkit.reference import is_sie_hand
    hand = sum(1 << c for c in top)
    assert is_sie_hand(hand, "long"), "test setup: not a Sie hand"
    rest = [c for c in range(32) if c not in top]
    random.Random(3).shuffle(rest)
    hands = [hand] + [sum(1 << c for c in rest[i * 8:(i + 1) * 8]) for i in range(3)]
    pos = Position.opening(hands, Contract(SIE, None), 0, rules)
    assert solve(pos, "win").value == 1
    assert solve(pos, "points").value == 120
    sol = solve(pos, "payout")
    want = Game(rules, hands, Contract(SIE, None), 0)  # the referee's payout of the Sie played out
    while not want.is_over:
        want.play(want.legal_cards()[0])
    assert set(sol.values.values()) == {want.result().payouts[0]} and sol.value > 0


def test_club_objective_errors():
    rng = random.Random("errors")
    rules = _rules("long")
    record, _ = random_position(rng, deck="long", kind="bettel", rules=rules, cards_left=3, mid_trick=0)
    pos = Position.from_record(record, rules)
    with pytest.raises(SolverError, match="Bettel has no points objective"):
        solve(pos, "points")
    with pytest.raises(SolverError, match="threshold"):
        threshold(pos, tricks=1)
    record, _ = random_position(rng, deck="long", kind="ramsch", rules=rules, cards_left=3, mid_trick=0)
    pos = Position.from_record(record, rules)
    for o in ("win", "payout"):
        with pytest.raises(SolverError, match="Ramsch has only the points objective"):
            solve(pos, o)


def test_speedups_do_not_change_club_values():
    """Every speed-up on against none (plain alpha-beta) on bigger Bettel and Ramsch positions (5-6 cards a
    hand), with and without Stichzwang."""
    plain, fast = Workspace(table_bits=16, flags=0), Workspace(table_bits=18)
    rng = random.Random("club-speedups")
    n = Counter()
    for i in range(24):
        deck = ("long", "short")[i % 2]
        kind = ("bettel", "ramsch")[(i // 2) % 2]
        rules = _rules(deck, stichzwang=(i // 4) % 2 == 1)
        left = min(5 + i % 2, rules.hand_size)
        record, game = random_position(rng, deck=deck, kind=kind, rules=rules, cards_left=left, mid_trick=i % 4)
        pos = Position.from_record(record, rules)
        o = "points" if game.contract.kind == RAMSCH else "win"
        a, b = solve(pos, o, workspace=plain), solve(pos, o, workspace=fast)
        assert a.values == b.values, f"{named(a.values)} != {named(b.values)}\n{describe(record, game)}"
        n[kind] += 1
        n["fewer"] += b.nodes < a.nodes
    assert n["fewer"] >= 12, n


# ------------------------------------------------------------------------------- records and the command

def _demo_club() -> list[dict]:
    from simkit_cli import REPO

    path = REPO / "simkit" / "data" / "demo-games.jsonl"
    recs = [json.loads(x) for x in path.read_text().splitlines() if x.strip()]
    return [r for r in recs if r.get("contract") in ("bettel", "ramsch", "sie")]


def test_demo_club_records_solve_at_every_position():
    """The demo file's Bettel, Sie and Ramsch records (their record rules, knocks and Kontra) solve at every
    position, and the values chain: a card is worth the position it leads to, from a fixed view (a Ramsch: seat
    0's, whoever moves); the last position's value is the game's."""
    recs = _demo_club()
    kinds = Counter(r["contract"] for r in recs)
    assert kinds["bettel"] >= 3 and kinds["ramsch"] >= 5 and kinds["sie"] >= 1, kinds
    for rec in recs:
        objective = {"bettel": "win", "ramsch": "points", "sie": "payout"}[rec["contract"]]
        previous = None
        for k in range(4 * len(rec["tricks"]) + 1):
            pos = Position.from_record(_cut(rec, k))
            if rec["contract"] == "ramsch":
                pos = pos.with_view(0)
            if pos.is_over or pos.game.is_decided:
                r = pos.game.result()
                final = (r.seat_points[0] if rec["contract"] == "ramsch" else int(r.won) if rec["contract"] == "bettel"
                         else r.payouts[rec["declarer"]])
                assert position_value(pos, objective) == final, rec["id"]
                assert previous is None or previous[0].values[previous[1]] == final, rec["id"]
                break
            sol = solve(pos, objective)
            assert set(sol.values) == set(pos.legal_cards()), rec["id"]
            if previous is not None:
                assert previous[0].values[previous[1]] == sol.value, (rec["id"], k)
            previous = (sol, Position.from_record(_cut(rec, k + 1)).plays[-1])


def test_solve_command_reads_club_records(tmp_path):
    from simkit_cli import simkit as cli

    recs = {r["id"]: r for r in _demo_club()}
    lines = [_cut(recs["demo-club-bettel-stichzwang"], 1), _cut(recs["demo-club-ramsch-klopfen"], 5),
             _cut(recs["demo-club-sie"], 0), _cut(recs["demo-club-bettel-won-kontra"], 0)]
    path = tmp_path / "club.jsonl"
    path.write_text("\n".join(json.dumps(x) for x in lines) + "\n")
    r = cli("solve", path, "--json", "--objective", "points", "--rules", "club")
    rows = [json.loads(x) for x in r.stdout.splitlines()]
    assert r.returncode == 1 and [row["ok"] for row in rows] == [False, True, True, False], r.stdout + r.stderr
    assert "line 1: a Bettel has no points objective" in rows[0]["error"]
    ramsch = Position.from_record(lines[1])
    assert rows[1]["to_move"] == ramsch.to_move
    assert rows[1]["values"] == solve(ramsch, "points").named_values()
    assert set(rows[2]["values"].values()) == {120}
    r = cli("solve", path, "--json", "--objective", "win")
    rows = [json.loads(x) for x in r.stdout.splitlines()]
    assert [row["ok"] for row in rows] == [True, False, True, True]
    assert "Ramsch has only the points objective" in rows[1]["error"]
    # Stichzwang: seat 1 must beat E8 with EA, his only legal card, and takes the trick: lost
    assert rows[0]["values"] == {"EA": 0}
    # without --objective each line is solved under its contract's own: the Bettels' win, the rest points
    r = cli("solve", path, "--json", "--rules", "club")
    rows = [json.loads(x) for x in r.stdout.splitlines()]
    assert r.returncode == 0 and all(row["ok"] for row in rows), r.stdout + r.stderr
    assert rows[0]["values"] == {"EA": 0}
    assert rows[1]["values"] == solve(ramsch, "points").named_values()
    assert rows[3]["values"] == solve(Position.from_record(lines[3]), "win").named_values()


# ------------------------------------------------------------------------------- the bulk solver (run --dd)

def _sie_hands(rng: random.Random, deck: str, declarer: int) -> list[int]:
    from simkit.strategies.api import sie_mask

    hs = 8 if deck == "long" else 6
    top = sie_mask(hs)
    rest = [c for c in range(32) if (c & 7) >= (0 if deck == "long" else 2) and not (top >> c) & 1]
    rng.shuffle(rest)
    others = iter(sum(1 << c for c in rest[i * hs:(i + 1) * hs]) for i in range(3))
    return [int(top) if s == declarer else next(others) for s in range(4)]


def _bettel_hands(rng: random.Random, deck: str, declarer: int, low: bool) -> list[int]:
    """A random deal; with ``low`` the declarer's hand drawn from the three lowest Bettel ranks of every suit (7 8 9;
    short deck 9 Z U), mostly a won Bettel."""
    hs = 8 if deck == "long" else 6
    cards = [c for c in range(32) if (c & 7) >= (0 if deck == "long" else 2)]
    order = (0, 1, 2, 4, 5, 6, 3, 7)  # Bettel strength of the ranks 7 8 9 U O K Z A (A K O U Z 9 8 7)
    lows = sorted(cards, key=lambda c: order[c & 7])[:12]
    mine = rng.sample(lows if low else cards, hs)
    rest = [c for c in cards if c not in mine]
    rng.shuffle(rest)
    others = iter(sum(1 << c for c in rest[i * hs:(i + 1) * hs]) for i in range(3))
    return [sum(1 << c for c in mine) if s == declarer else next(others) for s in range(4)]


@pytest.mark.parametrize("stichzwang", [False, True])
@pytest.mark.parametrize("deck", DECKS)
def test_solve_played_values_bettel_and_sie_rows(deck, stichzwang):
    """solve_played gives Bettel rows the exact win and payout (with the opening leader's card values) of the
    single-position solver (itself checked against the exhaustive oracle above), Sie rows their derived value
    (won Schwarz) equal to a full search of the Herz solo, and leaves Ramsch rows unsolved; the classic rows of the
    same call are those of a call without the club rows."""
    from simkit.engine.game import play_games
    from simkit.rules.contracts import BETTEL
    from simkit.solver.api import solve_played

    rules = _rules(deck, stichzwang)
    rng = random.Random(f"bulk-{deck}-{stichzwang}")
    n = 12
    bettel = play_games(5, 0, n, rules, "heuristic", contract="bettel", declarer=1,
                        hands=np.array([_bettel_hands(rng, deck, 1, low=i % 2 == 0) for i in range(n)], np.uint32))
    mixed = play_games(6, 0, 60, rules, "heuristic")  # classic rows, some Ramsch
    sie_decl = [rng.randrange(4) for _ in range(4)]
    sie = play_games(7, 0, 4, rules, "heuristic", contract="sie", declarer=0,
                     hands=np.array([_sie_hands(rng, deck, 0) for _ in range(4)], np.uint32))
    assert (mixed["kind"] == RAMSCH).any() and (sie["kind"] == SIE).all() and sie_decl
    games = {k: np.concatenate([bettel[k], mixed[k], sie[k]]) for k in bettel if k in mixed and k in sie}
    games["deal_id"] = np.arange(len(games["kind"]))
    kind = games["kind"]
    ws = Workspace(table_bits=18)
    wins = Counter()
    for objective in ("win", "payout"):
        got = solve_played(games, rules, objective, cards=True, workspace=ws)
        for i in np.flatnonzero((kind == BETTEL) | (kind == SIE)):
            pos = Position.opening([int(h) for h in games["hands"][i]], Contract(int(kind[i])),
                                   int(games["declarer"][i]), rules, doublings=int(games["doublings"][i]))
            sol = solve(pos, objective, workspace=Workspace(table_bits=16))
            assert got["solved"][i] and got["value"][i] == sol.value, (objective, i)
            legal = [c for c in range(32) if (int(got["legal"][i]) >> c) & 1]
            assert legal == sorted(sol.values) and {c: got["card_values"][i, c] for c in legal} == sol.values
            if objective == "payout":
                assert got["level"][i] == (5 if kind[i] == SIE else int(sol.value > 0))
                assert abs(sol.value) == pos.level_payouts[-1]
            elif kind[i] == BETTEL:
                wins[sol.value] += 1
            else:
                assert sol.value == 1
        assert not got["solved"][kind == RAMSCH].any() and not got["solved"][kind < 0].any()
        plain = {k: v for k, v in games.items()}
        plain["kind"] = np.where(kind >= BETTEL, -1, kind)
        want = solve_played(plain, rules, objective, workspace=ws)
        classic = (kind >= 0) & (kind < BETTEL)
        assert (got["value"][classic] == want["value"][classic]).all() and got["solved"][classic].all()
        same = solve_played(games, rules, objective, workspace=ws)  # without the card values: the same values
        assert (same["value"] == got["value"]).all() and (same["solved"] == got["solved"]).all()
    assert wins[0] > 0 and wins[1] > 0, wins  # both outcomes seen: the test can tell them apart
    pts = solve_played(games, rules, "points", workspace=ws)
    assert not pts["solved"][kind == BETTEL].any()  # a Bettel has no points
    assert pts["solved"][kind == SIE].all() and (pts["value"][kind == SIE] == 120).all()
    assert solve(Position.opening([int(h) for h in sie["hands"][0]], Contract(SIE), 0, rules), "points").value == 120


def test_run_dd_solves_the_bettel_and_sie_rows(tmp_path):
    """`simkit run --dd --rules club`: Bettel rows get dd_won (the win objective of their opening) and a null
    dd_points (a Bettel has no points), Sie rows 120 and won, Ramsch rows null in both."""
    import pyarrow.parquet as pq

    from simkit_cli import read_parts, simkit as cli
    from simkit.rules.contracts import BETTEL
    from simkit.solver.api import position_value

    out = tmp_path / "dd"
    r = cli("run", "--rules", "club", "--deals", "300", "--seed", "3", "--dd", "--store-hands", "--out", out,
            "--seats", "random[bid_probability=0.3],heuristic,random[bid_probability=0.3],heuristic")
    assert r.returncode == 0, r.stderr
    df = read_parts(out)
    rules = load_ruleset("club")
    contract = df.contract.astype(str)
    bettel = df[contract == "bettel"]
    assert len(bettel) >= 3 and bettel.dd_won.notna().all() and bettel.dd_points.isna().all()
    for _, row in bettel.iterrows():
        hands = [int(row[f"hand_{s}"]) for s in range(4)]
        pos = Position.opening(hands, Contract(BETTEL), int(row.declarer), rules)
        assert bool(row.dd_won) == bool(position_value(pos, "win"))
    ramsch = df[contract == "ramsch"]
    assert len(ramsch) > 0 and ramsch.dd_won.isna().all() and ramsch.dd_points.isna().all()
    sie = df[contract == "sie"]
    assert (sie.dd_points == 120).all() and sie.dd_won.all()
    assert pq.read_schema(sorted(out.glob("part-*.parquet"))[0]).field("dd_points").type == "uint8"
