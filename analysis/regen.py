"""Regenerating declarers' hands from (seed, deal_id) when a run has no ``hand_*`` columns.

The dealer is counter-based (simkit.engine.deal): deal ``i`` of seed ``s`` depends on nothing else, so any subset of
deal ids (e.g. only the played deals of a batch) is regenerated directly, in parallel threads.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from numba import njit, prange

from simkit.engine.deal import _deck, deal_one, deck_cards
from simkit.engine.deal import DEPENDENCIES as _DEAL_DEPS
from simkit.engine.jitcache import announce, stamp_module

#: the files its kernels compile in: the on-disk cache is keyed on all of them (simkit.engine.jitcache)
DEPENDENCIES = [Path(__file__).resolve()] + _DEAL_DEPS

_BLOCKS = 64


@njit(cache=True, parallel=True, nogil=True)
def _seat_hands(seed, ids, seats, deck_mask, hand_size, out):
    cards = deck_cards(deck_mask)
    n = ids.shape[0]
    step = (n + _BLOCKS - 1) // _BLOCKS
    for b in prange(_BLOCKS):
        work = np.empty(32, np.int8)
        for i in range(b * step, min(n, (b + 1) * step)):
            h0, h1, h2, h3 = deal_one(seed, ids[i], cards, work, hand_size)
            s = seats[i]
            out[i] = h0 if s == 0 else (h1 if s == 1 else (h2 if s == 2 else h3))


def seat_hands(seed: int, deal_ids, seats, deck="long") -> np.ndarray:
    """uint32 hand of seat ``seats[i]`` (0..3) in deal ``deal_ids[i]`` of run ``seed``."""
    mask, hs = _deck(deck)
    ids = np.ascontiguousarray(deal_ids, np.int64)
    st = np.ascontiguousarray(seats, np.int64)
    out = np.zeros(len(ids), np.uint32)
    if len(ids):
        _seat_hands(np.uint64(seed), ids, st, np.uint32(mask), np.int64(hs), out)
    return out


stamp_module(globals(), DEPENDENCIES)
announce(_seat_hands, "the report's hand regeneration")
