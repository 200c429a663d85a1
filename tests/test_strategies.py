"""The strategy registry, the random strategy, and the `simkit deal` / `simkit strategies` commands."""


import numpy as np
import pytest

from simkit.engine.game import play_games
from simkit.reference import declaration_error
from simkit.rules import Ruleset
from simkit.strategies import Strategy, StrategyError, available, resolve, seat_strategies

from simkit_cli import simkit as run


def test_registry_lists_and_resolves_builtins():
    av = available()
    assert {"heuristic", "random"} <= set(av) and all(isinstance(d, str) and d for d in av.values())
    h = resolve("heuristic")
    assert isinstance(h, Strategy) and h.builtin_id >= 0 and h.config.dtype == np.float64 and len(h.config) > 0
    assert resolve("Random").name == "random"
    r = resolve("random", config=[0.5])
    assert r.config[0] == 0.5 and len(r.config) == len(resolve("random").config)
    assert [s.name for s in seat_strategies("heuristic,random,random,heuristic")] == [
        "heuristic", "random", "random", "heuristic"]
    assert len(seat_strategies(r)) == 4


def test_unknown_strategy_lists_the_available_ones():
    with pytest.raises(StrategyError) as e:
        resolve("nosuch")
    msg = str(e.value)
    assert "unknown strategy 'nosuch'" in msg and "heuristic" in msg and "random" in msg and "\n" not in msg
    with pytest.raises(StrategyError, match="cannot import module"):
        resolve("no_such_module_xyz:Thing")
    with pytest.raises(StrategyError, match="one strategy or four"):
        seat_strategies(["random", "random"])


def test_random_bids_only_possible_declarations_and_plays_every_kind():
    rules = Ruleset(contracts=("rufspiel", "solo", "wenz", "geier", "farbwenz", "farbgeier"))
    res = play_games(5, 0, 5_000, rules, seats=resolve("random", config=[1.0, 0.0, 0.5]))
    bids, hands = res["bids"], res["hands"]
    for i in range(0, 5_000, 7):
        for s in range(4):
            assert declaration_error(int(hands[i, s]), int(bids[i, s]), rules) is None
    assert set(np.unique(res["kind"])) == {0, 1, 2, 3, 4, 5}  # a seat that can declare always does at p=1
    assert res["tout"].any() and (res["kind"] >= 0).all()
    # rulesets switch contracts and Touts off
    res = play_games(5, 0, 2_000, Ruleset(contracts=("rufspiel", "wenz"), tout=False),
                     seats=resolve("random", config=[1.0, 0.0, 1.0]))
    assert set(np.unique(res["kind"])) <= {-1, 0, 2} and not res["tout"].any()


def test_deal_command_sorts_for_the_contract():
    out = run("deal", "--seed", 1, "--index", 17)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0] == "deal 17 of seed 1, long deck, sorted for rufspiel" and len(lines) == 5
    from simkit.cards import format_hand
    from simkit.engine.deal import deal

    hands = deal(1, 17)
    for s in range(4):
        cards = lines[1 + s].split(": ")[1].split()
        assert len(cards) == 8 and sorted(cards) == sorted(format_hand(int(hands[s])).split())
    # Rufspiel sort: Ober, Unter, Herz first
    seat0 = lines[1].split(": ")[1].split()
    trumps = [c for c in seat0 if c[1] in "OU" or c[0] == "H"]
    assert seat0[: len(trumps)] == trumps
    wenz = run("deal", "--seed", 1, "--index", 17, "--contract", "wenz", "--deck", "short")
    assert wenz.returncode == 0 and "short deck, sorted for wenz" in wenz.stdout
    assert all(len(line.split(": ")[1].split()) == 6 for line in wenz.stdout.splitlines()[1:])
    solo = run("deal", "--seed", 1, "--index", 17, "--contract", "solo", "--suit", "gras")
    assert solo.returncode == 0 and "sorted for solo (gras)" in solo.stdout


@pytest.mark.parametrize("args,msg", [
    (("--contract", "solo"), "simkit: error: solo needs a trump suit"),
    (("--contract", "foo"), "simkit: error: unknown contract 'foo'"),
    (("--deck", "medium"), "simkit: error: --deck must be long or short"),
    (("--rules", "nope"), "simkit: error: unknown ruleset preset 'nope'"),
    (("--contract", "wenz", "--suit", "herz"), "simkit: error: wenz takes no suit"),
])
def test_deal_command_errors_are_one_line(args, msg):
    out = run("deal", "--seed", 1, "--index", 2, *args)
    assert out.returncode == 2 and out.stderr.startswith(msg) and out.stderr.strip().count("\n") == 0


def test_strategies_command():
    out = run("strategies")
    assert out.returncode == 0
    names = [line.split()[0] for line in out.stdout.splitlines()[1:] if line.strip()]
    assert "heuristic" in names and "random" in names
