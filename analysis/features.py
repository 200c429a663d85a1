"""Hand shape and strength features of the declarer's hand, vectorised over uint32 hand masks (numpy).

A hand is a uint32 mask with bit ``8 * suit + rank`` (simkit.cards). Every feature depends on the contract, through
its trump set; ``variant`` = ``kind * 5 + suit + 1`` (suit -1 for Wenz/Geier) indexes small lookup tables built once
from the referee's trump orders (simkit.reference.trump_order), so a batch is a handful of numpy operations.

Features (docs/analysis.md):

* ``trumps``: trumps in the hand (in a Rufspiel: Ober, Unter and Herz).
* ``ober``, ``unter``: Ober / Unter in the hand (trump or not); ``ober_unter`` their sum.
* ``aces``: side-suit aces (aces that are not trump: the Herz ace is trump in a Rufspiel or Herz solo).
* ``free``: free (void) side suits: side suits of the contract of which the hand has no card. A side suit is a
  printed suit with at least one non-trump card (a Rufspiel or Farbsolo has 3, Wenz and Geier 4).
* ``shape``: the trump count, then the side-suit lengths in descending order, e.g. ``5-2-1-0``.
* ``hand_points``: card points in the hand (0..120).
"""

from __future__ import annotations

import numpy as np

from simkit.cards import ASS, KOENIG, OBER, UNTER, ZEHN
from simkit.reference import trump_order
from simkit.rules.contracts import KIND_NAMES, KINDS_WITH_SUIT, RUFSPIEL, Contract

N_VARIANTS = len(KIND_NAMES) * 5
FEATURES = ("trumps", "ober", "unter", "ober_unter", "aces", "free", "shape", "hand_points")

OBER_MASK = np.uint32(sum(1 << (8 * s + OBER) for s in range(4)))
UNTER_MASK = np.uint32(sum(1 << (8 * s + UNTER) for s in range(4)))
ACE_MASK = np.uint32(sum(1 << (8 * s + ASS) for s in range(4)))
SUIT_MASKS = np.array([0xFF << (8 * s) for s in range(4)], np.uint32)
_POINT_MASKS = [(np.uint32(sum(1 << (8 * s + r) for s in range(4))), p)
                for r, p in ((ASS, 11), (ZEHN, 10), (KOENIG, 4), (OBER, 3), (UNTER, 2))]


def variant(kind: np.ndarray, suit: np.ndarray) -> np.ndarray:
    return np.asarray(kind, np.int16) * 5 + np.asarray(suit, np.int16) + 1


def _tables():
    trump = np.zeros(N_VARIANTS, np.uint32)
    side = np.zeros((N_VARIANTS, 4), bool)
    for kind in range(len(KIND_NAMES)):
        suits = [s for s in range(4) if not (kind == RUFSPIEL and s == 2)] if kind in KINDS_WITH_SUIT else [None]
        for s in suits:
            v = kind * 5 + (-1 if s is None else s) + 1
            m = 0
            for c in trump_order(Contract(kind, s), "long"):
                m |= 1 << c
            trump[v] = m
            for x in range(4):
                side[v, x] = (int(SUIT_MASKS[x]) & ~m) != 0
    return trump, side


TRUMP_MASK, SIDE_SUIT = _tables()


def shape_code(trumps: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """An integer per hand encoding (trumps, side-suit lengths descending); -1 marks a suit that is not a side suit.
    Base 10 digits: trumps, then each length + 1 (0 = no such side suit)."""
    srt = -np.sort(-lengths, axis=1)
    code = np.asarray(trumps, np.int64)
    for j in range(srt.shape[1]):
        code = code * 10 + (srt[:, j].astype(np.int64) + 1)
    return code


def shape_label(code: int) -> str:
    digits = []
    for _ in range(4):
        digits.append(code % 10)
        code //= 10
    parts = [str(code)] + [str(d - 1) for d in reversed(digits) if d > 0]
    return "-".join(parts)


def hand_features(hand: np.ndarray, kind: np.ndarray, suit: np.ndarray) -> dict[str, np.ndarray]:
    """Features of hands ``hand`` (uint32) played as contracts (``kind`` 0..5, ``suit`` 0..3 or -1). Shape as an
    integer code (:func:`shape_code`; :func:`shape_label` turns it into ``5-2-1-0``)."""
    hand = np.asarray(hand, np.uint32)
    v = variant(kind, suit)
    tm = TRUMP_MASK[v]
    side = SIDE_SUIT[v]
    cnt = np.bitwise_count
    trumps = cnt(hand & tm).astype(np.int8)
    ober = cnt(hand & OBER_MASK).astype(np.int8)
    unter = cnt(hand & UNTER_MASK).astype(np.int8)
    aces = cnt(hand & ACE_MASK & ~tm).astype(np.int8)
    lengths = np.stack([cnt(hand & SUIT_MASKS[s] & ~tm) for s in range(4)], axis=1).astype(np.int8)
    free = ((lengths == 0) & side).sum(axis=1).astype(np.int8)
    lengths = np.where(side, lengths, np.int8(-1))
    points = np.zeros(len(hand), np.int16)
    for m, p in _POINT_MASKS:
        points += cnt(hand & m).astype(np.int16) * p
    return {"trumps": trumps, "ober": ober, "unter": unter, "ober_unter": (ober + unter).astype(np.int8),
            "aces": aces, "free": free, "shape": shape_code(trumps, lengths), "hand_points": points}
