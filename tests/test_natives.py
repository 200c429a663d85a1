"""The native part of the strategy interface (simkit.strategies.natives): the kernel calls a native seat's entries
by the addresses its strategy brings, and does what the heuristic does for every entry it does not bring."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from simkit.engine.game import play_games
from simkit.strategies import dispatch, resolve
from simkit.strategies.natives import N_BID, N_DECIDE, N_NATIVES, N_PLAY, seat_natives

RESULT = ("kind", "suit", "tout", "declarer", "doublings", "declarer_points", "payouts", "trace_played")


def _only(strategy, *slots):
    """``strategy`` bringing only the native entries in ``slots``."""
    entries = strategy.native_entries
    return replace(strategy, name=f"{strategy.name}-only", native_entries=lambda: {
        k: v for k, v in entries().items() if k in slots})


def test_a_native_seat_without_entries_is_the_heuristic():
    h = resolve("heuristic")
    bare = replace(h, name="bare", builtin_id=dispatch.S_NATIVE)
    assert bare.natives() == {}
    a = play_games(3, 0, 600, "sauspiel", seats=h, trace=True)
    b = play_games(3, 0, 600, "sauspiel", seats=[bare, h, bare, h], trace=True)
    for k in ("bids",) + RESULT:
        assert np.array_equal(a[k], b[k]), k


def test_people_without_its_bid_entry_bids_as_the_heuristic_and_still_plays_its_own_cards():
    people, h = resolve("people"), resolve("heuristic")
    play_only = _only(people, N_PLAY)
    b = play_games(5, 0, 800, "sauspiel", seats=play_only, trace=True)
    c = play_games(5, 0, 800, "sauspiel", seats=h, trace=True)
    assert np.array_equal(c["bids"], b["bids"])  # people's config starts with the heuristic's
    played = b["kind"] >= 0
    assert played.sum() > 400
    # same contracts, other cards: the model plays, not the heuristic
    assert (b["trace_played"][played] != c["trace_played"][played]).any(axis=1).mean() > 0.3


def test_entries_are_per_seat():
    people, h = resolve("people"), resolve("heuristic")
    n = seat_natives([h, people, h, people])
    assert n.shape == (4, N_NATIVES)
    assert not n[0].any() and not n[2].any()
    assert n[1, N_BID] != 0 and n[1, N_PLAY] != 0 and n[1, N_DECIDE] == 0
    assert np.array_equal(n[1], n[3])
    # a people seat beside one that only plays like people: each seat bids by its own entries
    mixed = play_games(9, 0, 500, "sauspiel", seats=[people, _only(people, N_PLAY), people, h])
    alone = play_games(9, 0, 500, "sauspiel", seats=[people, h, people, h])
    assert np.array_equal(mixed["bids"], alone["bids"])
    assert (mixed["bids"][:, 0] != play_games(9, 0, 500, "sauspiel", seats=h)["bids"][:, 0]).any()
