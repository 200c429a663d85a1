"""Counter-based dealing and random contract setups.

``deal(seed, index, deck)`` shuffles the deck with Fisher-Yates driven by splitmix64 keyed on (seed, index,
STREAM_DEAL): deal ``i`` of seed ``s`` is the same however the run is batched or chunked. The deck's cards are taken
in ascending card order, shuffled (for i = n-1 .. 1: j = below(i + 1); swap(i, j)), and seat ``k`` gets the shuffled
positions ``k*hand_size .. (k+1)*hand_size - 1``. Long deck: 8 cards each; short deck (no 7s and 8s): 6 each.

``random_setups`` adds a random contract to every deal (for tests and benchmarks, not a bidding model).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from simkit.cards import DECK_MASKS, HAND_SIZE
from simkit.engine.bits import cttz, popcount
from simkit.engine.jitcache import announce, files, stamp_module
from simkit.engine.rng import STREAM_DEAL, STREAM_SETUP, below, next_u64, stream_state
from simkit.rules.contracts import FARBGEIER, FARBWENZ, GEIER, RUFSPIEL, SOLO, WENZ, parse_kind
from simkit.rules.tables import V_FARBGEIER, V_FARBWENZ, V_GEIER, V_SOLO, V_WENZ

#: the files its kernels compile in: the on-disk cache is keyed on all of them (simkit.engine.jitcache)
DEPENDENCIES = files("engine/deal", "engine/bits", "engine/rng", "rules/contracts", "rules/tables")

# ------------------------------------------------------------------------------------------------ kernels


@njit(cache=True)
def deck_cards(deck_mask):
    """The cards of a deck mask in ascending order (int8)."""
    n = popcount(deck_mask)
    out = np.empty(n, np.int8)
    m = np.uint32(deck_mask)
    for i in range(n):
        c = cttz(m)
        out[i] = c
        m &= m - np.uint32(1)
    return out


@njit(cache=True, inline="always")
def deal_one(seed, index, cards, work, hand_size):
    """Deal ``index`` of run ``seed``: returns four uint32 hands. ``cards`` from :func:`deck_cards`, ``work`` a
    scratch int8 array at least as long (overwritten)."""
    n = cards.shape[0]
    for i in range(n):
        work[i] = cards[i]
    s = stream_state(seed, index, STREAM_DEAL)
    for i in range(n - 1, 0, -1):
        j, s = below(s, i + 1)
        t = work[i]
        work[i] = work[j]
        work[j] = t
    h0 = np.uint32(0)
    h1 = np.uint32(0)
    h2 = np.uint32(0)
    h3 = np.uint32(0)
    one = np.uint32(1)
    for i in range(hand_size):
        h0 |= one << np.uint32(work[i])
        h1 |= one << np.uint32(work[hand_size + i])
        h2 |= one << np.uint32(work[2 * hand_size + i])
        h3 |= one << np.uint32(work[3 * hand_size + i])
    return h0, h1, h2, h3


@njit(cache=True, inline="always")
def deal_row(seed, index, cards, work, hand_size, hands, i):
    """:func:`deal_one`, its four hands also stored in row ``i`` of ``hands``."""
    h0, h1, h2, h3 = deal_one(seed, index, cards, work, hand_size)
    hands[i, 0] = h0
    hands[i, 1] = h1
    hands[i, 2] = h2
    hands[i, 3] = h3
    return h0, h1, h2, h3


@njit(cache=True)
def deal_batch_kernel(seed, start, n, deck_mask, hand_size, out):
    cards = deck_cards(deck_mask)
    work = np.empty(32, np.int8)
    for i in range(n):
        deal_row(seed, start + i, cards, work, hand_size, out, i)


@njit(cache=True, inline="always")
def setup_one(seed, index, h0, h1, h2, h3, kind, tout_share, ruf_masks):
    """A random contract for one dealt deal: returns (variant, called_suit, tout, declarer, valid).

    Draws, from stream (seed, index, STREAM_SETUP), in this order: the declarer (uniform seat); for Farbsolo,
    Farbwenz and Farbgeier the trump suit (uniform); for a solo-type contract the Tout flag (probability
    ``tout_share``); for a Rufspiel the called suit, uniform among the suits E, G, S the declarer may call (no ace of
    it, at least one non-trump card of it). If he can call none, the next seats clockwise are tried; if nobody can,
    the row is invalid: declarer -1, called suit -1, valid False (the kernels skip such rows).
    ``ruf_masks`` is ``suit_mask[0]`` of the rule tables (the Rufspiel's effective suits).
    """
    s = stream_state(seed, index, STREAM_SETUP)
    decl, s = below(s, 4)
    if kind == RUFSPIEL:
        for k in range(4):
            seat = (decl + k) & 3
            h = h0
            if seat == 1:
                h = h1
            elif seat == 2:
                h = h2
            elif seat == 3:
                h = h3
            ok0 = ((h >> np.uint32(7)) & np.uint32(1)) == 0 and (h & ruf_masks[0]) != 0
            ok1 = ((h >> np.uint32(15)) & np.uint32(1)) == 0 and (h & ruf_masks[1]) != 0
            ok3 = ((h >> np.uint32(31)) & np.uint32(1)) == 0 and (h & ruf_masks[3]) != 0
            cnt = int(ok0) + int(ok1) + int(ok3)
            if cnt > 0:
                r, s = below(s, cnt)
                called = 0
                for suit in (0, 1, 3):
                    ok = ok0 if suit == 0 else (ok1 if suit == 1 else ok3)
                    if ok:
                        if r == 0:
                            called = suit
                            break
                        r -= 1
                return 0, called, False, seat, True
        return 0, -1, False, -1, False
    v = 0
    if kind == SOLO or kind == FARBWENZ or kind == FARBGEIER:
        suit, s = below(s, 4)
        base = V_SOLO if kind == SOLO else (V_FARBWENZ if kind == FARBWENZ else V_FARBGEIER)
        v = base + suit
    elif kind == WENZ:
        v = V_WENZ
    elif kind == GEIER:
        v = V_GEIER
    x, s = next_u64(s)
    tout = (x >> np.uint64(11)) * (1.0 / 9007199254740992.0) < tout_share
    return v, -1, tout, decl, True


@njit(cache=True)
def setups_kernel(seed, start, n, deck_mask, hand_size, kind, tout_share, ruf_masks,
                  hands, variants, called, touts, declarers, valid):
    cards = deck_cards(deck_mask)
    work = np.empty(32, np.int8)
    for i in range(n):
        h0, h1, h2, h3 = deal_row(seed, start + i, cards, work, hand_size, hands, i)
        v, c, t, d, ok = setup_one(seed, start + i, h0, h1, h2, h3, kind, tout_share, ruf_masks)
        variants[i] = v
        called[i] = c
        touts[i] = t
        declarers[i] = d
        valid[i] = ok


# ------------------------------------------------------------------------------------------------ Python API


def _deck(deck) -> tuple[int, int]:
    """(deck mask, hand size) from "long"/"short" or a Ruleset."""
    name = getattr(deck, "deck", deck)
    if name not in DECK_MASKS:
        raise ValueError(f"deck must be 'long' or 'short', not {deck!r}")
    return DECK_MASKS[name], HAND_SIZE[name]


def deal(seed: int, index: int, deck="long") -> np.ndarray:
    """The four hands (uint32[4]) of deal ``index`` of run ``seed``; ``deck`` is "long", "short" or a Ruleset."""
    return deal_batch(seed, index, 1, deck)[0]


def deal_batch(seed: int, start: int, n: int, deck="long") -> np.ndarray:
    """Hands (uint32[n, 4]) of deals ``start .. start+n-1`` of run ``seed``."""
    mask, hs = _deck(deck)
    out = np.empty((n, 4), np.uint32)
    deal_batch_kernel(np.uint64(seed), np.int64(start), np.int64(n), np.uint32(mask), np.int64(hs), out)
    return out


def random_setups(seed: int, start: int, n: int, kind, deck="long", tout_share: float = 0.0) -> dict[str, np.ndarray]:
    """Deals ``start .. start+n-1`` of run ``seed`` with a random contract of ``kind`` each (see :func:`setup_one`).

    Returns a dict of arrays, one row per deal: ``hands`` uint32[n, 4], ``variants`` int8 (0..14, see
    simkit.rules.tables), ``called_suits`` int8 (Rufspiel: 0, 1 or 3; else -1), ``touts`` bool, ``declarers`` int8
    (-1 for an invalid row), ``doublings`` int8 (all 0), ``valid`` bool (False only for a Rufspiel nobody can call).
    """
    from simkit.rules.ruleset import Ruleset
    from simkit.rules.tables import build_tables

    mask, hs = _deck(deck)
    k = parse_kind(kind)
    tabs = build_tables(Ruleset(deck="long" if hs == 8 else "short"))
    hands = np.empty((n, 4), np.uint32)
    variants = np.empty(n, np.int8)
    called = np.empty(n, np.int8)
    touts = np.empty(n, np.bool_)
    declarers = np.empty(n, np.int8)
    valid = np.empty(n, np.bool_)
    setups_kernel(np.uint64(seed), np.int64(start), np.int64(n), np.uint32(mask), np.int64(hs), np.int64(k),
                  float(tout_share), tabs.suit_mask[0].copy(), hands, variants, called, touts, declarers, valid)
    return dict(hands=hands, variants=variants, called_suits=called, touts=touts, declarers=declarers,
                doublings=np.zeros(n, np.int8), valid=valid)


stamp_module(globals(), DEPENDENCIES)
announce(deal_batch_kernel, "the dealer")
announce(setups_kernel, "the random contracts' set-up")
