"""User strategies: loading by module path and entry point, playing deals, and illegal output reported exactly."""

from pathlib import Path

import numpy as np
import pytest

from simkit.engine.game import play_games
from simkit.reference import declaration_error
from simkit.rules import Ruleset
from simkit.strategies import StrategyError, available, resolve
from simkit.verify import check_deals

EXAMPLES = Path(__file__).resolve().parents[1] / "docs" / "examples"

BAD = '''
import numpy as np
from numba import njit
from simkit.strategies.api import (BID_SIG, DOUBLE_SIG, PLAY_SIG, PASS, I_DEAL, bid_code, cttz, random_card,
                                   rng_below)

@njit(BID_SIG, cache=True)
def pass_bid(hand, seat, info, strength, eff_suit, params, config):
    return PASS

@njit(BID_SIG, cache=True)
def solo_bid(hand, seat, info, strength, eff_suit, params, config):
    return bid_code(1, 0, False) if seat == 0 else PASS

@njit(BID_SIG, cache=True)
def chaos_bid(hand, seat, info, strength, eff_suit, params, config):
    return rng_below(info, 140) - 3  # -3 .. 136: passes, valid and impossible declarations, junk codes

@njit(DOUBLE_SIG, cache=True)
def no(hand, seat, info, strength, eff_suit, params, config):
    return 0

@njit(DOUBLE_SIG, cache=True)
def two(hand, seat, info, strength, eff_suit, params, config):
    return 2

@njit(PLAY_SIG, cache=True)
def fair(hand, legal, seat, info, strength, eff_suit, params, config):
    return random_card(legal, info)

@njit(PLAY_SIG, cache=True)
def any_card(hand, legal, seat, info, strength, eff_suit, params, config):
    return random_card(hand, info)  # ignores legal

class Chaos:
    bid, double, play = chaos_bid, no, fair

class Cheat:
    description = "plays any card it holds"
    bid, double, play = solo_bid, no, any_card

class Doubler:
    bid, double, play = solo_bid, two, fair

def lazy_bid(hand, seat, info, strength, eff_suit, params, config):  # plain Python: simkit compiles it
    return -1

class Plain:
    bid, double, play = staticmethod(lazy_bid), no, fair

class Missing:
    bid, double = pass_bid, no

class Tunable:  # config entries by number and one by name
    bid, double, play = pass_bid, no, fair
    config = np.array([0.0, 1.0])
    config_names = ("mode", "level")
    config_choices = {"mode": {"calm": 0, "wild": 1}}

class BadChoices:
    bid, double, play = pass_bid, no, fair
    config = np.array([0.0])
    config_names = ("mode",)
    config_choices = {"style": {"calm": 0}}

from simkit.strategies.api import (I_SCRATCH, I_PHASE, I_PLAYED, I_TRICK, I_TRICK_NO, I_N_IN_TRICK, I_HAND_SIZE,
                                   I_BIDS, NOT_ASKED, PHASE_BID, PHASE_PLAY, I_PLAYED_BY, popcount)

@njit(BID_SIG, cache=True)
def checking_bid(hand, seat, info, strength, eff_suit, params, config):
    if info[I_SCRATCH] != 0 or info[I_PHASE] != PHASE_BID:
        return 999  # fresh scratch at each deal's start, else an (impossible) junk bid reports the failure
    for s in range(4):
        if (s < seat) == (info[I_BIDS + s] == NOT_ASKED):
            return 998
    info[I_SCRATCH] = seat + 1
    return bid_code(2, -1, False) if rng_below(info, 4) == 0 else PASS  # a Wenz now and then

@njit(PLAY_SIG, cache=True)
def checking_play(hand, legal, seat, info, strength, eff_suit, params, config):
    n = info[I_N_IN_TRICK]
    t = info[I_TRICK_NO]
    ok = info[I_SCRATCH] == seat + 1 and info[I_PHASE] == PHASE_PLAY
    ok = ok and (hand & info[I_PLAYED]) == 0 and popcount(hand) == info[I_HAND_SIZE] - t
    ok = ok and popcount(info[I_PLAYED]) == 4 * t + n and popcount(info[I_PLAYED_BY + seat]) == t
    for k in range(4):
        ok = ok and ((info[I_TRICK + k] >= 0) == (k < n))
    info[I_SCRATCH + 1] += 1
    ok = ok and info[I_SCRATCH + 1] == t + 1
    return random_card(legal, info) if ok else -1

class Checker:
    bid, double, play = checking_bid, no, checking_play
'''


@pytest.fixture
def badmod(tmp_path, monkeypatch):
    (tmp_path / "simkit_badplugins.py").write_text(BAD)
    monkeypatch.syspath_prepend(str(tmp_path))
    return "simkit_badplugins"


@pytest.fixture
def examples_on_path(monkeypatch):
    monkeypatch.syspath_prepend(str(EXAMPLES))


def test_example_plugin_by_module_path_plays_and_agrees_with_referee(examples_on_path):
    g = resolve("greedy_strategy:Greedy")
    assert g.builtin_id == -1 and list(g.config) == [3.0, 5.0] and "greedy" in g.description
    res = play_games(3, 0, 1_500, seats=[g, "random", g, "heuristic"], trace=True)
    assert (res["kind"] >= 0).sum() > 100 and (res["declarer"] == 0).any()
    report = check_deals(res, Ruleset())
    assert report.mismatches == []
    # by name string for every seat, plus determinism
    again = play_games(3, 0, 1_500, seats=["greedy_strategy:Greedy", "random", "greedy_strategy:Greedy",
                                           "heuristic"])
    assert np.array_equal(again["payouts"], res["payouts"])


def test_plugin_by_entry_point(tmp_path, monkeypatch, examples_on_path):
    dist = tmp_path / "simkit_greedy_example-1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: simkit-greedy-example\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text("[simkit.strategies]\ngreedy = greedy_strategy:Greedy\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    assert "greedy" in available()
    res = play_games(4, 0, 500, seats=("greedy", "greedy", "random", "random"))
    assert (res["kind"] >= 0).any()


def test_plain_python_and_missing_functions(badmod):
    s = resolve(f"{badmod}:Plain")
    res = play_games(1, 0, 50, seats=s)
    assert (res["kind"] == -1).all()
    with pytest.raises(StrategyError, match="has no play"):
        resolve(f"{badmod}:Missing")
    with pytest.raises(StrategyError, match="has no attribute 'Nope'"):
        resolve(f"{badmod}:Nope")


def test_plugin_config_entries_by_number_and_by_name(badmod):
    """A plug-in's ``config_names`` take settings in brackets as a built-in's do, and its ``config_choices`` entries
    a name (``[mode=wild]``); a name the entry does not take, or choices for an entry it does not have, is a one-line
    error."""
    s = resolve(f"{badmod}:Tunable[mode=wild,level=3]")
    assert list(s.config) == [1.0, 3.0]
    assert list(resolve(f"{badmod}:Tunable[mode=calm]").config) == [0.0, 1.0]
    with pytest.raises(StrategyError, match="is one of: calm, wild; not 'storm'"):
        resolve(f"{badmod}:Tunable[mode=storm]")
    with pytest.raises(StrategyError, match="needs a number"):
        resolve(f"{badmod}:Tunable[level=high]")
    with pytest.raises(StrategyError, match="config_choices names 'style', which is not one of its config_names"):
        resolve(f"{badmod}:BadChoices")


def test_illegal_card_is_reported(badmod):
    name = f"{badmod}:Cheat"
    with pytest.raises(StrategyError) as e:
        play_games(1, 0, 1_000, seats=[name, "random", "random", "random"])
    err = e.value
    assert err.strategy == name and err.decision == "play" and err.seat == 0
    msg = str(err)
    assert msg.startswith(f"strategy '{name}' (seat 0) played ") and f"in deal {err.deal}, trick " in msg
    assert msg.endswith(")") and "not a legal card (legal: " in msg and "\n" not in msg
    played = msg.split(" played ")[1].split()[0]
    legal = msg.split("(legal: ")[1].rstrip(")").split()
    assert played not in legal and legal


def test_impossible_bids_are_reported_exactly_when_the_referee_rejects_them(badmod):
    name = f"{badmod}:Chaos"
    rules = Ruleset()
    start, errors = 0, 0
    while start < 3_000:
        try:
            res = play_games(2, start, 3_000 - start, rules, seats=name, trace=True)
        except StrategyError as e:
            errors += 1
            assert e.decision == "bid" and e.strategy == name and e.deal >= start
            hands = play_games(2, e.deal, 1, rules, seats="random")["hands"][0]
            why = declaration_error(int(hands[e.seat]), e.value, rules)
            assert why is not None and str(e).endswith(why)
            assert str(e).startswith(f"strategy '{name}' (seat {e.seat}) declared ")
            if e.deal > start:  # every deal before the error was played and is checked by the referee
                ok = play_games(2, start, e.deal - start, rules, seats=name, trace=True)
                assert check_deals(ok, rules).mismatches == []
            start = e.deal + 1
            continue
        assert check_deals(res, rules).mismatches == []
        break
    assert errors > 10


def test_bad_double_answer_is_reported(badmod):
    name = f"{badmod}:Doubler"
    with pytest.raises(StrategyError) as e:
        play_games(1, 7, 10, seats=name)
    assert str(e.value) == (f"strategy '{name}' (seat 1) answered 2 when asked for Kontra in deal 7: "
                            "double() must return 0 or 1")
    assert e.value.decision == "double" and e.value.value == 2


def test_info_and_scratch_seen_by_a_plugin(badmod):
    """A plug-in that checks the public state and its per-seat scratch words at every call (it answers with an
    impossible choice, i.e. a StrategyError, when something is off)."""
    name = f"{badmod}:Checker"
    res = play_games(6, 0, 2_000, seats=[name, "random", name, "heuristic"])
    assert (res["kind"] >= 0).sum() > 200
