"""The search that teaches the best-card weights (simkit.strategies.teacher, ``simkit train best --teacher-*``):
which decisions it teaches, what its values are, that they are the same with any number of workers and from its
cache, and how they enter the fit."""

from __future__ import annotations

from functools import partial

import numpy as np
import pytest

from simkit.analyze.advice import walk
from simkit.engine.bits import popcount
from simkit.rules import load_ruleset
from simkit.strategies.people import best as B
from simkit.strategies.people import weights as W
from simkit.strategies.people.train import read_training_deals
from simkit.strategies.teacher import SearchTeacher
from simkit_cli import simkit as run_cli
from test_best import _real_long_games

WORLDS = 4  # small: the values' properties, not their strength, are tested here


@pytest.fixture(scope="module")
def long_deals(tmp_path_factory):
    games = _real_long_games(tmp_path_factory.mktemp("teacher"), 8)
    rules = load_ruleset("sauspiel")
    deals, _, _, _ = read_training_deals(games, rules)
    _, bid_w, play_w, _ = W.find(rules)
    return games, rules, deals, bid_w, play_w


def test_the_teacher_teaches_the_first_trick_and_the_long_leads(long_deals):
    """Every decision with a choice of the first trick and every lead with six cards or more in hand, nothing
    else; each legal card gets a loss in card points (the best 0), the others none."""
    _, rules, deals, bid_w, play_w = long_deals
    teacher = SearchTeacher(rules, bid_w, play_w, WORLDS, 6)
    taught = 0
    for d in deals[:4]:
        def ask(i, seat, hand, legal, info):
            nonlocal taught
            trick, lead = i // 4 + 1, i % 4 == 0
            want = trick == 1 or (lead and popcount(np.int64(hand)) >= 6)
            assert teacher.teaches(trick, lead, hand, info) == want
            if want and legal & (legal - 1):
                v = teacher(hand, legal, seat, info)
                cards = [c for c in range(32) if legal >> c & 1]
                assert np.isnan(np.delete(v, cards)).all()
                assert (v[cards] >= 0).all() and (v[cards] <= 120).all() and v[cards].min() == 0
                taught += 1
            return -1

        walk(d.game, ask)
    assert taught >= 12


def test_the_short_deck_teaches_its_first_trick_only():
    rules = load_ruleset("sauspiel-short")
    _, bid_w, play_w, _ = W.find(rules)
    teacher = SearchTeacher(rules, bid_w, play_w, WORLDS, 6)
    info = np.zeros(64, np.int64)
    six, five = np.int64(0b111111), np.int64(0b11111)
    assert teacher.teaches(1, True, six, info) and teacher.teaches(1, False, six, info)
    assert not teacher.teaches(2, True, five, info) and not teacher.teaches(2, False, five, info)


def test_taught_values_are_the_same_with_workers_and_from_the_cache(long_deals, tmp_path):
    """Graded and taught on one process or two (in chunks), or read back from the cache file: the same values;
    with the cache complete no search is made."""
    games, rules, deals, bid_w, play_w = long_deals
    make = partial(SearchTeacher, rules, bid_w, play_w, WORLDS, 6)
    played = [d for d in deals if d.game is not None][:6]
    taught = frozenset(d.deal_id for d in played)
    cache: dict = {}
    one = B.extract_graded_parallel(played, rules, make_teacher=make, taught=taught, cache=cache, workers=1)
    two = B.extract_graded_parallel(played, rules, make_teacher=make, taught=taught, workers=2, chunk=2)
    assert np.array_equal(one.teach, two.teach, equal_nan=True) and np.array_equal(one.loss, two.loss)
    assert (~np.isnan(one.teach)).sum() > 20 and len(cache) > 5

    settings = B.BestSettings(teacher_worlds=WORLDS)
    key = B.teacher_key(rules, bid_w, play_w, settings)
    path = tmp_path / "cache.npz"
    B.save_teacher_cache(path, key, cache)
    back = B.load_teacher_cache(path, key)
    assert back.keys() == cache.keys() and all(np.array_equal(back[k], cache[k], equal_nan=True) for k in cache)

    class NoSearch(SearchTeacher):
        def __call__(self, *args):
            raise AssertionError("the cache held every value")

    three = B.extract_graded_parallel(played, rules, make_teacher=partial(NoSearch, rules, bid_w, play_w, WORLDS, 6),
                                      taught=taught, cache=back)
    assert np.array_equal(one.teach, three.teach, equal_nan=True)
    other = B.teacher_key(rules, bid_w, play_w, B.BestSettings(teacher_worlds=WORLDS + 1))
    with pytest.raises(ValueError, match="another teacher"):
        B.load_teacher_cache(path, other)
    bad = tmp_path / "bad.npz"
    bad.write_text("not a cache")
    with pytest.raises(ValueError, match="not a teacher cache file"):
        B.load_teacher_cache(bad, key)


def test_the_fit_mixes_the_taught_loss_in():
    g = B.GradedPlay(np.zeros((3, 1)), np.array([0, 3]), np.array([0]), np.array([0.0, 4.0, 8.0]), np.array([1]),
                     np.array([True]), np.array([False]), np.array([2.0, 0.0, np.nan]))
    assert np.array_equal(B.taught_loss(g, 0.25), [1.5, 1.0, 8.0])  # 0.25 x its loss + 0.75 x taught
    assert np.array_equal(B.taught_loss(g, 1.0), g.loss)


def test_train_best_with_a_teacher(long_deals, tmp_path):
    games, rules, *_ = long_deals
    out, cache = tmp_path / "w", tmp_path / "t.npz"
    args = ("train", "best", str(games), "--rules", "sauspiel", "--out", str(out), "--teacher-worlds", str(WORLDS),
            "--teacher-games", "3", "--teacher-cache", str(cache))
    r = run_cli(*args)
    assert r.returncode == 0, r.stderr
    meta = W.load(out / "sauspiel.npz")[2]["best"]
    assert meta["taught_games"] == 3 and meta["taught_decisions"] > 5
    assert meta["settings"]["teacher_worlds"] == WORLDS and cache.is_file()
    first = W.load_best(out / "sauspiel.npz")
    r = run_cli(*args, "--workers", "2")  # from the cache: the same weights
    assert r.returncode == 0, r.stderr
    assert np.array_equal(W.load_best(out / "sauspiel.npz"), first)
    r = run_cli("train", "best", str(games), "--rules", "sauspiel", "--out", str(out), "--teacher-mix", "2")
    assert r.returncode == 2 and "--teacher-mix" in r.stderr
    r = run_cli("train", "best", str(games), "--rules", "sauspiel", "--out", str(out), "--teacher-cache", str(cache))
    assert r.returncode == 2 and "--teacher-cache needs --teacher-worlds" in r.stderr
    r = run_cli("train", "best", str(games), "--rules", "sauspiel", "--out", str(out), "--teacher-worlds", "65")
    assert r.returncode == 2 and "--teacher-worlds is at most 64" in r.stderr, r.stderr
    cache.write_bytes(b"garbage")
    r = run_cli(*args)
    assert r.returncode == 2 and "not a teacher cache file" in r.stderr, r.stderr
