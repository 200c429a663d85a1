"""The ``old-german`` ruleset and its rule tables (RULES.md section 3).

The ruleset is its own frozen dataclass, :class:`OldGermanRuleset`, so nothing of the Bavarian :class:`Ruleset`
changes. A preset or a TOML file is old German when it says ``game = "old-german"`` (or extends such a preset);
:func:`simkit.rules.ruleset.ruleset_from_dict` hands those to :func:`old_german_from_dict`.

Tables. There are four contract *variants*, one per trump suit ``t`` (0..3 = E G H S). In variant ``t``:

* trumps, highest first: ``EU GU HU SU``, then ``t``'s ``A K O Z 9 8 7`` (11 trumps);
* every side suit, highest first: ``A K O Z 9 8 7`` (its Unter is a trump) -- the ten ranks below the Ober;
* ``strength[t, c]``: 100 + place for a trump (EU strongest), 1..7 inside a side suit;
* ``eff_suit[t, c]``: :data:`TRUMP` (4) for a trump, else the printed suit;
* ``suit_mask[t, e]``: the cards of effective suit ``e`` (0..3, 4 = trump).

The trick is resolved with the same formula as the Bavarian tables: a new card beats the best card so far iff
``(eff[new] == eff[best] or eff[new] == TRUMP) and strength[new] > strength[best]``.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, fields
from typing import Any, NamedTuple

import numpy as np

from simkit.cards import ASS, KOENIG, OBER, R7, R8, R9, RANK_POINTS, UNTER, ZEHN
from simkit.oldgerman import GAME
from simkit.rules.base import RulesetError, toml_value

TRUMP = 4
N_VARIANTS = 4
#: every suit, trump or side, highest first (RULES.md 3): A K O Z 9 8 7 -- the ten below the Ober
SUIT_RANKS = (ASS, KOENIG, OBER, ZEHN, R9, R8, R7)
UNTERS = tuple(8 * s + UNTER for s in range(4))  # EU GU HU SU, highest first
STRATEGIES = ("random", "heuristic")
MAX_HEAD_STROKES = 100


@dataclass(frozen=True)
class OldGermanRuleset:
    """The old German game's parameters. ``OldGermanRuleset()`` is the ``old-german`` preset."""

    name: str = "old-german"
    description: str = ""
    game: str = GAME
    deck: str = "long"  # the game is played with 32 cards; nothing else is accepted
    head_strokes: int = 9  # strokes of a whole sheep's head: a team reaching them wins the partie (12 is traditional)

    def __post_init__(self):
        if self.game != GAME:
            raise RulesetError(f"game must be {GAME!r} here, not {self.game!r}")
        if self.deck != "long":
            raise RulesetError(f"the old German game is played with the long deck only, not deck = {self.deck!r}")
        if isinstance(self.head_strokes, bool) or not isinstance(self.head_strokes, int) \
                or not 1 <= self.head_strokes <= MAX_HEAD_STROKES:
            raise RulesetError(f"head_strokes must be a whole number 1..{MAX_HEAD_STROKES}, not {self.head_strokes!r}")

    @property
    def hand_size(self) -> int:
        return 8

    def replace(self, **changes: Any) -> OldGermanRuleset:
        valid = {f.name for f in fields(self)}
        bad = [k for k in changes if k not in valid]
        if bad:
            raise RulesetError(f"unknown key {bad[0]!r} for the old German game; valid keys: {', '.join(valid)}")
        return dataclasses.replace(self, **changes)

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    def to_toml(self) -> str:
        return "".join(f"{k} = {toml_value(v)}\n" for k, v in self.to_dict().items())


def old_german_from_dict(data: dict[str, Any], base: OldGermanRuleset | None = None) -> OldGermanRuleset:
    """An :class:`OldGermanRuleset` from a TOML-shaped dict (``extends`` already resolved into ``base``)."""
    base = base or OldGermanRuleset()
    valid = {f.name: f for f in fields(OldGermanRuleset)}
    out = {}
    for key, value in data.items():
        if key not in valid:
            raise RulesetError(f"unknown key {key!r} for the old German game; valid keys: {', '.join(valid)}")
        want = int if key == "head_strokes" else str
        if not isinstance(value, want) or isinstance(value, bool):
            raise RulesetError(f"{key} must be {want.__name__}, got {type(value).__name__} {value!r}; "
                               f"valid keys: {', '.join(valid)}")
        out[key] = value
    return dataclasses.replace(base, **out)


class OGTables(NamedTuple):
    strength: np.ndarray  # int16[4, 32]
    eff_suit: np.ndarray  # int8[4, 32]
    suit_mask: np.ndarray  # int64[4, 5]
    points: np.ndarray  # int64[32]


def trump_order(trump: int) -> list[int]:
    """The 11 trumps of trump suit ``trump``, highest first."""
    return list(UNTERS) + [8 * trump + r for r in SUIT_RANKS]


def side_order(suit: int) -> list[int]:
    """The 7 cards of a side suit, highest first."""
    return [8 * suit + r for r in SUIT_RANKS]


def build_tables() -> OGTables:
    strength = np.zeros((N_VARIANTS, 32), np.int16)
    eff = np.zeros((N_VARIANTS, 32), np.int8)
    masks = np.zeros((N_VARIANTS, 5), np.int64)
    for t in range(N_VARIANTS):
        trumps = trump_order(t)
        for i, c in enumerate(trumps):
            strength[t, c] = 100 + len(trumps) - i
            eff[t, c] = TRUMP
        for s in range(4):
            if s == t:
                continue
            for i, c in enumerate(side_order(s)):
                strength[t, c] = len(SUIT_RANKS) - i
                eff[t, c] = s
        for c in range(32):
            masks[t, eff[t, c]] |= 1 << c
    points = np.array([RANK_POINTS[c & 7] for c in range(32)], np.int64)
    return OGTables(strength, eff, masks, points)
