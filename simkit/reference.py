"""The referee: Bavarian Schafkopf (RULES.md section 2) in plain Python, written to be read.

This module is the oracle the Numba kernels are tested against and the explanation a user gets when a replayed
card is illegal. It is deliberately independent of :mod:`simkit.rules.tables` (the kernels' tables): the trump
orders below are written out from the rule book, so a mistake in the tables cannot hide in both places.

Use it like this::

    game = Game(ruleset, hands, Contract.parse("rufspiel", "gras"), declarer=0)
    while not game.is_over:
        game.play(game.legal_cards()[0])
    result = game.result()
"""

from __future__ import annotations

import copy
from dataclasses import asdict, dataclass, field
from functools import lru_cache

from simkit.cards import (
    ASS,
    CARD_POINTS,
    DECK_MASKS,
    EICHEL,
    GRAS,
    HERZ,
    KOENIG,
    OBER,
    R7,
    R8,
    R9,
    SCHELLEN,
    SUIT_NAMES,
    UNTER,
    ZEHN,
    card,
    cards_of,
    format_card,
    rank_of,
    suit_of,
)
from simkit.rules.contracts import BETTEL, FARBGEIER, FARBWENZ, GEIER, RAMSCH, RUFSPIEL, SIE, SOLO, WENZ, Contract
from simkit.rules.ruleset import Ruleset, Tariff

SUIT_ORDER = (EICHEL, GRAS, HERZ, SCHELLEN)
TRUMP = "trump"  # the effective suit of every trump card

# Ranks of a suit, highest first, before a contract takes some of them out as trumps.
_SUIT_RANKS_BY_KIND = {
    RUFSPIEL: (ASS, ZEHN, KOENIG, R9, R8, R7),  # Ober and Unter are trumps
    SOLO: (ASS, ZEHN, KOENIG, R9, R8, R7),
    WENZ: (ASS, ZEHN, KOENIG, OBER, R9, R8, R7),  # only the Unter are trumps
    FARBWENZ: (ASS, ZEHN, KOENIG, OBER, R9, R8, R7),
    GEIER: (ASS, ZEHN, KOENIG, UNTER, R9, R8, R7),  # only the Ober are trumps
    FARBGEIER: (ASS, ZEHN, KOENIG, UNTER, R9, R8, R7),
    BETTEL: (ASS, KOENIG, OBER, UNTER, ZEHN, R9, R8, R7),  # no trumps; the ten between Unter and 9 (RULES.md 4.2)
    SIE: (ASS, ZEHN, KOENIG, R9, R8, R7),  # a Farbsolo in Herz (RULES.md 4.3)
    RAMSCH: (ASS, ZEHN, KOENIG, R9, R8, R7),  # the Rufspiel's trumps (RULES.md 4.4)
}


class IllegalPlay(ValueError):
    """A card that may not be played now. ``str(e)`` names trick, seat, card, the reason and the legal cards."""

    def __init__(self, trick: int, seat: int, card_: int, reason: str, legal: list[int]):
        self.trick, self.seat, self.card, self.reason, self.legal = trick, seat, card_, reason, legal
        legal_s = " ".join(format_card(c) for c in legal)
        super().__init__(f"trick {trick}, seat {seat}, card {format_card(card_)}: {reason}; legal cards: {legal_s}")


class InvalidGame(ValueError):
    """A contract that cannot be played with these hands (e.g. calling an ace the declarer holds)."""


# ------------------------------------------------------------------------------------------- card order

def in_deck(c: int, deck: str) -> bool:
    return bool(DECK_MASKS[deck] >> c & 1)


@lru_cache(maxsize=None)
def trump_order(contract: Contract, deck: str = "long") -> tuple[int, ...]:
    """All trumps of the contract, highest first (RULES.md 2.1)."""
    obers = [card(s, OBER) for s in SUIT_ORDER]
    unters = [card(s, UNTER) for s in SUIT_ORDER]
    kind = contract.kind
    if kind == BETTEL:
        return ()
    if kind in (RUFSPIEL, SOLO, SIE, RAMSCH):
        trump_suit = contract.suit if kind == SOLO else HERZ  # Sie is a Herz solo, Ramsch has the Rufspiel's trumps
        order = obers + unters + [card(trump_suit, r) for r in (ASS, ZEHN, KOENIG, R9, R8, R7)]
    elif kind == WENZ:
        order = unters
    elif kind == GEIER:
        order = obers
    elif kind == FARBWENZ:
        order = unters + [card(contract.suit, r) for r in _SUIT_RANKS_BY_KIND[FARBWENZ]]
    elif kind == FARBGEIER:
        order = obers + [card(contract.suit, r) for r in _SUIT_RANKS_BY_KIND[FARBGEIER]]
    else:  # pragma: no cover - Contract validates kinds
        raise ValueError(kind)
    return tuple(c for c in order if in_deck(c, deck))


@lru_cache(maxsize=None)
def suit_order(contract: Contract, suit: int, deck: str = "long") -> tuple[int, ...]:
    """The non-trump cards of a printed suit, highest first."""
    trumps = trump_order(contract, deck)
    return tuple(card(suit, r) for r in _SUIT_RANKS_BY_KIND[contract.kind]
                 if card(suit, r) not in trumps and in_deck(card(suit, r), deck))


def effective_suit(c: int, contract: Contract) -> int | str:
    """``TRUMP`` for a trump card, else its printed suit (an Ober that is trump is not a Gras card)."""
    return TRUMP if c in trump_order(contract) else suit_of(c)


def beats(new: int, best: int, contract: Contract) -> bool:
    """Does ``new`` take the trick from ``best`` (the card winning it so far)?"""
    trumps = trump_order(contract)
    if new in trumps:
        return best not in trumps or trumps.index(new) < trumps.index(best)
    if best in trumps or suit_of(new) != suit_of(best):
        return False  # a discard never wins
    order = suit_order(contract, suit_of(new))
    return order.index(new) < order.index(best)


def trick_winner(cards: list[int], leader: int, contract: Contract) -> int:
    """The seat that wins a complete trick whose cards were played in order starting with ``leader``."""
    best = 0
    for i in range(1, 4):
        if beats(cards[i], cards[best], contract):
            best = i
    return (leader + best) % 4


def card_points(cards) -> int:
    return sum(CARD_POINTS[c] for c in cards)


# --------------------------------------------------------------------------------------------- results

@dataclass(frozen=True)
class GameResult:
    """The scored outcome of one deal. Field names match the columns of simkit's result files."""

    contract: str
    suit: str | None
    tout: bool
    declarer: int
    partner: int | None
    declarer_points: int
    declarer_tricks: int
    won: bool
    schneider: bool
    schwarz: bool
    laufende: int
    laufende_mit: bool
    laufende_paid: bool
    doublings: int
    price: int
    payouts: tuple[int, int, int, int]
    tricks: tuple = field(default=(), repr=False)  # ((leader, (c0, c1, c2, c3), winner), ...)

    def to_dict(self) -> dict:
        d = asdict(self)
        d["payouts"] = list(self.payouts)
        d["tricks"] = [{"leader": l, "cards": [format_card(c) for c in cs], "winner": w} for l, cs, w in self.tricks]
        return d


def count_laufende(contract: Contract, hands: list[int], team: set[int], deck: str) -> tuple[int, bool]:
    """(number of Laufende, held by the declaring side?) for the hands as dealt (RULES.md 2.5)."""
    def side(c):
        holder = next(s for s in range(4) if hands[s] >> c & 1)
        return holder in team

    order = trump_order(contract, deck)
    top_side = side(order[0])
    n = 0
    for c in order:
        if side(c) != top_side:
            break
        n += 1
    return n, top_side


def price_of(contract: Contract, tariff: Tariff, *, schneider: bool, schwarz: bool, laufende: int,
             doublings: int) -> tuple[int, bool]:
    """(price per unit, were Laufende paid) per RULES.md 2.6."""
    paid = laufende >= tariff.min_laufende(contract)
    lauf = tariff.laufende * laufende if paid else 0
    if contract.tout:
        if tariff.tout_multiplies_laufende:
            price = tariff.tout_multiplier * (tariff.base(contract) + lauf)
        else:
            price = tariff.tout_multiplier * tariff.base(contract) + lauf
    else:
        price = tariff.base(contract) + lauf
        if schneider:
            price += tariff.schneider
        if schwarz:
            price += tariff.schwarz
    return price * 2 ** doublings, paid


# ------------------------------------------------------------------------------------------------ game

class Game:
    """One deal being played: the hands, whose turn it is, which cards are legal, and the final score."""

    def __init__(self, rules: Ruleset, hands: list[int], contract: Contract, declarer: int,
                 doublings: int = 0, tariff: Tariff | None = None):
        self.rules = rules
        self.deck = rules.deck
        self.contract = contract
        self.declarer = declarer
        self.doublings = doublings
        self.tariff = tariff or rules.tariff
        self.dealt = [int(h) for h in hands]
        self.hands = [set(cards_of(h)) for h in hands]
        self.n_tricks = rules.hand_size
        if not 0 <= declarer < 4:
            raise InvalidGame(f"declarer must be a seat 0..3, not {declarer}")
        self.trumps = trump_order(contract, self.deck)
        self._trump_set = set(self.trumps)
        # How a player sorts a hand: trumps high to low, then each side suit (E G H S) high to low.
        sort_order = list(self.trumps) + [c for s in SUIT_ORDER for c in suit_order(contract, s, self.deck)]
        self._sort_pos = {c: i for i, c in enumerate(sort_order)}

        self.called_ace = None
        self.partner = None
        self.searched = False
        if contract.kind == RUFSPIEL:
            self.called_ace = card(contract.suit, ASS)
            if self.called_ace in self.hands[declarer]:
                raise InvalidGame(f"seat {declarer} cannot call the {SUIT_NAMES[contract.suit]} ace: he holds it")
            if not any(self.eff(c) == contract.suit for c in self.hands[declarer]):
                raise InvalidGame(f"seat {declarer} cannot call the {SUIT_NAMES[contract.suit]} ace: "
                                  f"he holds no {SUIT_NAMES[contract.suit]} card of his own")
            self.partner = next(s for s in range(4) if self.called_ace in self.hands[s])
        self.team = {declarer} | ({self.partner} if self.partner is not None else set())

        self.leader = 0  # seat 0 is forehand and leads the first trick
        self.current: list[int] = []  # cards of the trick in progress, in play order
        self.tricks: list[tuple[int, tuple[int, ...], int]] = []

    def copy(self) -> Game:
        """An independent copy of the game so far: play on from here without replaying from the deal."""
        g = copy.copy(self)
        g.hands = [set(h) for h in self.hands]
        g.current = list(self.current)
        g.tricks = list(self.tricks)
        return g

    # --- state
    def eff(self, c: int):
        return TRUMP if c in self._trump_set else suit_of(c)

    @property
    def is_over(self) -> bool:
        return len(self.tricks) == self.n_tricks

    @property
    def to_play(self) -> int:
        return (self.leader + len(self.current)) % 4

    @property
    def trick_number(self) -> int:
        """1-based number of the trick in progress."""
        return len(self.tricks) + 1

    # --- the rules of play
    def legal_cards(self) -> list[int]:
        """The cards the seat to play may play now, in the order a player sorts them (trumps first)."""
        situation = self._situation()
        legal = (c for c in self.hands[self.to_play] if self._why_not(c, situation) is None)
        return sorted(legal, key=self._sort_pos.get)

    def _situation(self) -> dict:
        """What the rules of 2.4 look at for the seat to play, worked out once per decision."""
        seat = self.to_play
        hand = self.hands[seat]
        led = self.eff(self.current[0]) if self.current else None
        holds_ace = self.called_ace is not None and not self.searched and self.called_ace in hand
        called = self.contract.suit if holds_ace else None
        return {
            "last_card": len(hand) == 1,
            "led": led,
            "can_follow": led is not None and any(self.eff(x) == led for x in hand),
            "holds_unsearched_ace": holds_ace,  # the partner, before the called suit has been searched
            "called": called,
            "n_called": sum(1 for x in hand if self.eff(x) == called) if holds_ace else 0,
        }

    def _why_not(self, c: int, s: dict | None = None) -> str | None:
        """None if card ``c`` (held by the seat to play) is legal now, else the reason it is not."""
        s = s or self._situation()
        called, ace = s["called"], self.called_ace
        if s["led"] is None:  # leading
            if s["holds_unsearched_ace"] and not s["last_card"] and self.eff(c) == called and c != ace:
                if s["n_called"] < self.rules.run_away_min:
                    return (f"the holder of the called ace may lead {SUIT_NAMES[called]} only with the ace "
                            f"until it is searched (running away needs {self.rules.run_away_min} "
                            f"{SUIT_NAMES[called]} cards, he holds {s['n_called']})")
            return None

        led = s["led"]
        if s["holds_unsearched_ace"] and led == called:
            if c != ace:
                return f"the called ace {format_card(ace)} must be played when its suit is first led"
            return None
        if s["can_follow"]:
            if self.eff(c) != led:
                return f"must follow {'trump' if led == TRUMP else SUIT_NAMES[led]}"
            return None
        if s["holds_unsearched_ace"] and c == ace and not s["last_card"]:
            return (f"the called ace may not be discarded before {SUIT_NAMES[called]} has been searched "
                    f"(except in the last trick)")
        return None

    def play(self, c: int) -> None:
        """Play card ``c`` for the seat to move; raises :class:`IllegalPlay` with the reason if it is illegal."""
        if self.is_over:
            raise IllegalPlay(self.n_tricks, self.to_play, c, "the game is over", [])
        seat = self.to_play
        if c not in self.hands[seat]:
            raise IllegalPlay(self.trick_number, seat, c, f"seat {seat} does not hold this card", self.legal_cards())
        reason = self._why_not(c)
        if reason is not None:
            raise IllegalPlay(self.trick_number, seat, c, reason, self.legal_cards())
        self.hands[seat].remove(c)
        self.current.append(c)
        if len(self.current) == 4:
            if self.called_ace is not None and self.eff(self.current[0]) == self.contract.suit:
                # The called suit was led (the ace, or a lower card: running away): from the next trick on it
                # counts as searched and the ace is an ordinary card.
                self.searched = True
            winner = trick_winner(self.current, self.leader, self.contract)
            self.tricks.append((self.leader, tuple(self.current), winner))
            self.current = []
            self.leader = winner

    # --- the score
    def result(self) -> GameResult:
        if not self.is_over:
            raise ValueError("the game is not over yet")
        c = self.contract
        points = sum(card_points(cs) for _, cs, w in self.tricks if w in self.team)
        tricks = sum(1 for _, _, w in self.tricks if w in self.team)
        if c.tout:
            won = tricks == self.n_tricks
            schneider = schwarz = False  # a Tout scores neither
        else:
            won = points >= 61
            schneider = points >= 91 if won else points <= 30
            schwarz = tricks in (0, self.n_tricks)
        laufende, mit = count_laufende(c, self.dealt, self.team, self.deck)
        price, paid = price_of(c, self.tariff, schneider=schneider, schwarz=schwarz, laufende=laufende,
                               doublings=self.doublings)
        sign = 1 if won else -1
        if c.kind == RUFSPIEL:
            payouts = tuple(sign * price if s in self.team else -sign * price for s in range(4))
        else:
            payouts = tuple(sign * 3 * price if s == self.declarer else -sign * price for s in range(4))
        return GameResult(
            contract=c.name, suit=SUIT_NAMES[c.suit] if c.suit is not None else None, tout=c.tout,
            declarer=self.declarer, partner=self.partner, declarer_points=points, declarer_tricks=tricks,
            won=won, schneider=schneider, schwarz=schwarz, laufende=laufende, laufende_mit=mit,
            laufende_paid=paid, doublings=self.doublings, price=price, payouts=payouts,
            tricks=tuple(self.tricks),
        )


def can_call(hand: int, suit: int, deck: str = "long") -> bool:
    """May a player with ``hand`` declare a Rufspiel calling the ace of ``suit``? (RULES.md 2.2)"""
    if suit == HERZ:
        return False
    contract = Contract(RUFSPIEL, suit)
    cards = cards_of(hand)
    return card(suit, ASS) not in cards and any(effective_suit(c, contract) == suit for c in cards)


# ---------------------------------------------------------------------------------------------- bidding
# RULES.md 2.2 and 2.3, for whole deals. Bids are the integer codes of simkit.strategies.api (decoded here from
# their definition: bits 0-2 kind, bits 3-5 suit + 1, bit 6 Tout; -1 is a pass), so that the referee checks the
# kernel's bidding without sharing its code.

PASS_BID = -1
#: bidding rank, low to high, written out from RULES.md 2.2; a Tout ranks above every plain contract
BID_RANKING = (RUFSPIEL, FARBGEIER, GEIER, FARBWENZ, WENZ, SOLO)
_WITH_SUIT = (RUFSPIEL, SOLO, FARBWENZ, FARBGEIER)


def decode_declaration(code: int) -> tuple[int, int | None, bool] | None:
    """(kind, suit or None, tout) of a bid code; None for a pass; ValueError for a code that encodes nothing."""
    code = int(code)
    if code == PASS_BID:
        return None
    if code < 0 or code >= 128:
        raise ValueError(f"bid code {code} is neither a pass (-1) nor a declaration (0..127)")
    kind, suit, tout = code & 7, ((code >> 3) & 7) - 1, bool(code >> 6 & 1)
    if kind > 5:
        raise ValueError(f"bid code {code} has no contract kind {kind}")
    if suit > 3:
        raise ValueError(f"bid code {code} has no suit {suit}")
    return kind, (None if suit < 0 else suit), tout


def describe_bid(code: int) -> str:
    """A bid as a user reads it: ``pass``, ``rufspiel (called gras)``, ``solo (herz) tout``, ``code 99``."""
    try:
        d = decode_declaration(code)
    except ValueError:
        return f"bid code {int(code)}"
    if d is None:
        return "pass"
    kind, suit, tout = d
    from simkit.rules.contracts import KIND_NAMES

    s = KIND_NAMES[kind]
    if suit is not None:
        s += f" ({'called ' if kind == RUFSPIEL else ''}{SUIT_NAMES[suit]})"
    return s + (" tout" if tout else "")


def declaration_error(hand: int, code: int, rules: Ruleset) -> str | None:
    """None if a seat holding ``hand`` may make the bid ``code`` under ``rules`` (a pass always may), else why not."""
    try:
        d = decode_declaration(code)
    except ValueError as e:
        return str(e)
    if d is None:
        return None
    kind, suit, tout = d
    from simkit.rules.contracts import KIND_NAMES

    name = KIND_NAMES[kind]
    if name not in rules.contracts:
        return f"{name} is not enabled in ruleset {rules.name} (enabled: {', '.join(rules.contracts)})"
    if kind in _WITH_SUIT and suit is None:
        return f"{name} needs a {'called' if kind == RUFSPIEL else 'trump'} suit"
    if kind not in _WITH_SUIT and suit is not None:
        return f"{name} takes no suit"
    if tout and kind == RUFSPIEL:
        return "a Rufspiel cannot be played Tout"
    if tout and not rules.tout:
        return f"ruleset {rules.name} does not allow Touts"
    if kind == RUFSPIEL:
        if suit == HERZ:
            return "a Rufspiel cannot call the Herz ace (Herz is trump)"
        if hand >> card(suit, ASS) & 1:
            return f"he holds the {SUIT_NAMES[suit]} ace himself"
        if not can_call(hand, suit, rules.deck):
            return f"he holds no {SUIT_NAMES[suit]} card of his own (no non-trump {SUIT_NAMES[suit]} card)"
    return None


def bid_rank(code: int) -> int:
    """Rank of a valid declaration (higher wins); -1 for a pass."""
    d = decode_declaration(code)
    if d is None:
        return -1
    kind, _, tout = d
    return BID_RANKING.index(kind) + (len(BID_RANKING) if tout else 0)


def fix_game(bids) -> tuple[int, Contract] | None:
    """(declarer, contract) from the four bids, seat 0 first: the highest rank; the earlier seat on equal rank.
    None when all four pass (the deal is thrown in)."""
    best, seat = -1, None
    for s, b in enumerate(bids):
        r = bid_rank(b)
        if r > best:
            best, seat = r, s
    if seat is None:
        return None
    kind, suit, tout = decode_declaration(bids[seat])
    return seat, Contract(kind, suit, tout)


def kontra_seats(declarer: int, partner: int | None) -> list[int]:
    """Seats that may say Kontra (the defenders), in the order the engine asks them."""
    return [s for s in range(4) if s != declarer and s != partner]


def re_seats(declarer: int, partner: int | None, rules: Ruleset) -> list[int]:
    """Seats that may say Re after a Kontra, in the order asked ([] when max_doublings < 2)."""
    if rules.max_doublings < 2:
        return []
    return [declarer] + ([partner] if partner is not None and rules.re_by_partner else [])


def player_sort_order(contract: Contract, deck: str = "long") -> list[int]:
    """Every card of the deck in the order a player sorts his hand for ``contract``: trumps high to low, then the
    side suits E, G, H, S, each high to low."""
    return list(trump_order(contract, deck)) + [c for s in SUIT_ORDER for c in suit_order(contract, s, deck)]


def contract_from_row(kind: int, suit: int, tout: bool) -> Contract:
    """The Contract of a result row (``kind``/``suit`` as stored by simkit.engine.game; suit -1 = none)."""
    from simkit.rules.contracts import KINDS_WITH_SUIT

    return Contract(int(kind), int(suit) if int(kind) in KINDS_WITH_SUIT else None,
                    bool(tout) and int(kind) != RUFSPIEL)
