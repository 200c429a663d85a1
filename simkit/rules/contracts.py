"""The contracts of Bavarian Schafkopf (RULES.md 2.1, 2.2, and the club rules of 4) as plain data.

A contract is a kind (Rufspiel, Farbsolo, Wenz, ...), a suit where the kind needs one (the called suit of a
Rufspiel, the trump suit of the colour contracts) and the Tout flag. Bettel (no trumps), Sie (a Farbsolo in Herz
that cannot be lost) and Ramsch (everyone for himself, Rufspiel trumps) take no suit. Kinds are small integers because the kernels
index tables by them; every name a user sees comes from :data:`KIND_NAMES`.
"""

from __future__ import annotations

from dataclasses import dataclass

from simkit.cards import HERZ, SUIT_NAMES, CardError, parse_suit

RUFSPIEL, SOLO, WENZ, GEIER, FARBWENZ, FARBGEIER, BETTEL, SIE, RAMSCH = range(9)
KIND_NAMES = ("rufspiel", "solo", "wenz", "geier", "farbwenz", "farbgeier", "bettel", "sie", "ramsch")
#: the six trick contracts of RULES.md 2.1 (what the value table, the people model and the seeds know)
CLASSIC_KIND_NAMES = KIND_NAMES[:6]
#: what a ruleset's ``contracts`` may list: Sie is enabled by ``sie = true`` and Ramsch by ``all_pass`` (RULES.md 4)
DECLARABLE_NAMES = KIND_NAMES[:7]
#: German display names with an English gloss, for tables and reports.
KIND_LABELS = (
    "Rufspiel (partner game)",
    "Farbsolo (suit solo)",
    "Wenz (Unter only)",
    "Geier (Ober only)",
    "Farbwenz (Unter + suit)",
    "Farbgeier (Ober + suit)",
    "Bettel (no trick)",
    "Sie (all Ober and Unter)",
    "Ramsch (everyone passed)",
)
#: Kinds that need a suit: the called suit (Rufspiel) or the trump suit.
KINDS_WITH_SUIT = frozenset({RUFSPIEL, SOLO, FARBWENZ, FARBGEIER})
#: Bidding rank, low to high (RULES.md 2.2, 4.2); a Tout ranks above every plain contract (Bettel has no Tout), and
#: Sie above every Tout (RULES.md 4.3). Ramsch is never declared: it is what an all-pass deal plays (RULES.md 4.4).
BID_ORDER = (RUFSPIEL, BETTEL, FARBGEIER, GEIER, FARBWENZ, WENZ, SOLO)


def paying_seats(kind: int) -> int:
    """How many seats pay the declarer the price (RULES.md 2.6): in a Rufspiel each defender pays one of the two
    declarers, so the declarer collects one price; in a solo-type game all three defenders pay him."""
    return 1 if kind == RUFSPIEL else 3


def is_partner_game(kind: int) -> bool:
    """2 v 2 (the Rufspiel); every other contract is one player against three (a Ramsch: everyone for himself)."""
    return kind == RUFSPIEL


class ContractError(ValueError):
    """A contract that does not exist or cannot be played as given."""


def parse_kind(name: str | int) -> int:
    if isinstance(name, int) and not isinstance(name, bool):
        if 0 <= name < len(KIND_NAMES):
            return name
    else:
        key = str(name).strip().lower().replace("-", "").replace("_", "")
        aliases = {"sauspiel": "rufspiel", "farbsolo": "solo", "partner": "rufspiel", "betteln": "bettel"}
        key = aliases.get(key, key)
        if key in KIND_NAMES:
            return KIND_NAMES.index(key)
    raise ContractError(f"unknown contract {name!r}: expected one of {', '.join(KIND_NAMES)}")


@dataclass(frozen=True)
class Contract:
    """What is played: ``kind`` (0..5), ``suit`` (0..3 or None) and ``tout``."""

    kind: int
    suit: int | None = None
    tout: bool = False

    def __post_init__(self):
        if self.kind not in range(len(KIND_NAMES)):
            raise ContractError(f"unknown contract kind {self.kind}")
        if self.kind in KINDS_WITH_SUIT and self.suit is None:
            what = "called suit" if self.kind == RUFSPIEL else "trump suit"
            raise ContractError(f"{KIND_NAMES[self.kind]} needs a {what}")
        if self.kind not in KINDS_WITH_SUIT and self.suit is not None:
            raise ContractError(f"{KIND_NAMES[self.kind]} takes no suit")
        if self.kind == RUFSPIEL and self.suit == HERZ:
            raise ContractError("a Rufspiel cannot call the Herz ace (Herz is trump)")
        if self.kind == RUFSPIEL and self.tout:
            raise ContractError("a Rufspiel cannot be played Tout")
        if self.kind in (BETTEL, SIE, RAMSCH) and self.tout:
            raise ContractError(f"a {KIND_NAMES[self.kind].capitalize()} cannot be played Tout")

    @classmethod
    def parse(cls, kind: str | int, suit: str | int | None = None, tout: bool = False) -> Contract:
        k = parse_kind(kind)
        try:
            s = parse_suit(suit)
        except CardError as e:
            raise ContractError(str(e)) from None
        return cls(k, s, bool(tout))

    @property
    def name(self) -> str:
        return KIND_NAMES[self.kind]

    @property
    def is_solo_type(self) -> bool:
        """Declarer alone against three (everything but the Rufspiel and the Ramsch)."""
        return self.kind not in (RUFSPIEL, RAMSCH)

    @property
    def bid_rank(self) -> int:
        """Higher wins the bidding; a Ramsch is never bid (-1)."""
        if self.kind == RAMSCH:
            return -1
        if self.kind == SIE:
            return 2 * len(BID_ORDER)
        return BID_ORDER.index(self.kind) + (len(BID_ORDER) if self.tout else 0)

    def __str__(self) -> str:
        s = self.name
        if self.suit is not None:
            s += f" ({'called ' if self.kind == RUFSPIEL else ''}{SUIT_NAMES[self.suit]})"
        return s + (" tout" if self.tout else "")
