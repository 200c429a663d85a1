"""Card encoding and notation (RULES.md section 1).

A card is an integer ``8 * suit + rank``:

* suits ``E G H S`` (Eichel, Gras, Herz, Schellen) are 0..3, the order that breaks every tie between suits;
* ranks ``7 8 9 U O K Z A`` are 0..7 (the *printed* rank; how strong a card is depends on the contract).

A hand is a ``uint32`` mask with bit ``card`` set. The same encoding is used for every hand stored in a file.

Notation is the suit letter followed by the rank letter, e.g. ``EO`` (Eichel-Ober), ``HZ`` (Herz-Zehn), ``S7``.
Parsing accepts lower case, ``10``/``X``/``Z`` for the ten, ``Q`` for the Ober and ``J``/``B`` for the Unter;
formatting always writes the canonical two letters.
"""

from __future__ import annotations

from collections.abc import Iterable

SUITS = "EGHS"
SUIT_NAMES = ("eichel", "gras", "herz", "schellen")
RANKS = "789UOKZA"
RANK_NAMES = ("7", "8", "9", "Unter", "Ober", "Koenig", "Zehn", "Ass")

EICHEL, GRAS, HERZ, SCHELLEN = range(4)
R7, R8, R9, UNTER, OBER, KOENIG, ZEHN, ASS = range(8)

#: Card points by printed rank: A 11, Z 10, K 4, O 3, U 2, 9/8/7 0.
RANK_POINTS = (0, 0, 0, 2, 3, 4, 10, 11)
CARD_POINTS = tuple(RANK_POINTS[c % 8] for c in range(32))

LONG_DECK = (1 << 32) - 1
#: The short deck drops the 7s and 8s (ranks 0 and 1 of every suit).
SHORT_DECK = sum(1 << (8 * s + r) for s in range(4) for r in range(2, 8))
DECK_MASKS = {"long": LONG_DECK, "short": SHORT_DECK}
HAND_SIZE = {"long": 8, "short": 6}

_RANK_ALIASES = {
    "7": R7, "8": R8, "9": R9,
    "U": UNTER, "J": UNTER, "B": UNTER,
    "O": OBER, "Q": OBER,
    "K": KOENIG,
    "Z": ZEHN, "X": ZEHN, "10": ZEHN,
    "A": ASS,
}

_SUIT_ALIASES = {
    "e": EICHEL, "eichel": EICHEL, "acorns": EICHEL, "clubs": EICHEL,
    "g": GRAS, "gras": GRAS, "gruen": GRAS, "leaves": GRAS, "spades": GRAS,
    "h": HERZ, "herz": HERZ, "rot": HERZ, "hearts": HERZ,
    "s": SCHELLEN, "schellen": SCHELLEN, "bells": SCHELLEN, "diamonds": SCHELLEN,
}


class CardError(ValueError):
    """A card, hand or suit that cannot be parsed, or a set of hands that is impossible."""


def card(suit: int, rank: int) -> int:
    return 8 * suit + rank


def suit_of(c: int) -> int:
    return c >> 3


def rank_of(c: int) -> int:
    return c & 7


def parse_card(token: str) -> int:
    """Parse one card token (``"EO"``, ``"h10"``, ``"gx"``, ``"SJ"``) into its index."""
    if not isinstance(token, str):
        raise CardError(f"card {token!r} is not a string")
    t = token.strip().upper()
    if len(t) < 2 or t[0] not in SUITS or t[1:] not in _RANK_ALIASES:
        raise CardError(
            f"malformed card {token!r}: expected a suit letter E G H S and a rank 7 8 9 U O K Z A "
            f"(10/X for the ten, Q for Ober, J/B for Unter)"
        )
    return card(SUITS.index(t[0]), _RANK_ALIASES[t[1:]])


def format_card(c: int) -> str:
    if not 0 <= int(c) < 32:
        raise CardError(f"card index {c} is out of range 0..31")
    return SUITS[c >> 3] + RANKS[c & 7]


def parse_suit(name: str | int | None) -> int | None:
    """Parse a suit name (``eichel``, ``E``, ``hearts``, ...) into 0..3; ``None`` stays ``None``."""
    if name is None:
        return None
    if isinstance(name, int) and not isinstance(name, bool) and 0 <= name < 4:
        return name
    key = str(name).strip().lower()
    if key not in _SUIT_ALIASES:
        raise CardError(f"unknown suit {name!r}: expected one of {', '.join(SUIT_NAMES)}")
    return _SUIT_ALIASES[key]


def mask_of(cards: Iterable[int]) -> int:
    m = 0
    for c in cards:
        m |= 1 << c
    return m


def cards_of(mask: int) -> list[int]:
    """The cards of a mask, lowest index first."""
    mask = int(mask)
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def parse_hand(tokens: str | Iterable[str], *, size: int | None = None, deck: str | None = None) -> int:
    """Parse a hand, given as a list of tokens or one string separated by spaces or commas, into a mask.

    A malformed token, a duplicate card, a card outside ``deck`` or a count other than ``size`` raises
    :class:`CardError` naming the problem.
    """
    if isinstance(tokens, str):
        tokens = tokens.replace(",", " ").split()
    mask = 0
    count = 0
    for tok in tokens:
        c = parse_card(tok)
        if mask >> c & 1:
            raise CardError(f"duplicate card {format_card(c)} in hand")
        if deck is not None and not (DECK_MASKS[deck] >> c & 1):
            raise CardError(f"card {format_card(c)} is not in the {deck} deck")
        mask |= 1 << c
        count += 1
    if size is not None and count != size:
        raise CardError(f"hand has {count} cards, expected {size}")
    return mask


def format_hand(mask: int, order: Iterable[int] | None = None) -> str:
    """Format a mask as space-separated cards; ``order`` (cards, strongest first) sorts them if given."""
    cs = cards_of(mask)
    if order is not None:
        pos = {c: i for i, c in enumerate(order)}
        cs.sort(key=lambda c: pos.get(c, 99))
    return " ".join(format_card(c) for c in cs)


def parse_hands(hands: Iterable[Iterable[str] | str], deck: str = "long") -> list[int]:
    """Parse the four hands of a deal: each the right size, no card twice in the deal, all from ``deck``."""
    hands = list(hands)
    if len(hands) != 4:
        raise CardError(f"a deal has 4 hands, got {len(hands)}")
    masks = []
    seen = 0
    for seat, h in enumerate(hands):
        try:
            m = parse_hand(h, size=HAND_SIZE[deck], deck=deck)
        except CardError as e:
            raise CardError(f"seat {seat}: {e}") from None
        dup = seen & m
        if dup:
            raise CardError(f"seat {seat}: duplicate card {format_card(cards_of(dup)[0])} (already in another hand)")
        seen |= m
        masks.append(m)
    return masks


def popcount(mask: int) -> int:
    return bin(int(mask)).count("1")


def hand_points(mask: int) -> int:
    return sum(CARD_POINTS[c] for c in cards_of(mask))
