"""The referee: Bavarian Schafkopf (RULES.md sections 2 and 4) in plain Python, written to be read.

This module is the oracle the Numba kernels are tested against and the explanation a user gets when a replayed
card is illegal. It is deliberately independent of :mod:`simkit.rules.tables` (the kernels' tables): the trump
orders below are written out from the rule book, so a mistake in the tables cannot hide in both places.

Use it like this::

    game = Game(ruleset, hands, Contract.parse("rufspiel", "gras"), declarer=0)
    while not game.is_over:
        game.play(game.legal_cards()[0])
    result = game.result()

The club rules of RULES.md 4 are here too: Bettel (no trumps, the declarer must take no trick, optional
Stichzwang), Sie (the hand of every Ober and Unter), Ramsch (``declarer=None``: everyone for himself, the most card
points lose), Klopfen (``knocks``: each doubles the price) and the Stock (:func:`settle_stock`).
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
from simkit.rules.contracts import (
    BETTEL, FARBGEIER, FARBWENZ, GEIER, KIND_NAMES, RAMSCH, RUFSPIEL, SIE, SOLO, WENZ, Contract,
)
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
    knocks: int = 0  # Klopfen: each doubles the price on top of ``doublings`` (Kontra and Re)
    durchmarsch: bool = False  # a Ramsch won by one player (RULES.md 4.4)
    jungfrauen: int = 0  # a Ramsch: the players who took no trick
    seat_points: tuple = ()  # card points each seat took, seat 0 first (every contract)
    seat_tricks: tuple = ()  # tricks each seat took
    # With a stock (all_pass = "stock"): the stock before and after this deal; ``payouts`` are then each seat's whole
    # change, the game plus his share of the stock (settle_stock). None without a stock.
    stock_before: int | None = None
    stock_after: int | None = None

    def to_dict(self) -> dict:
        d = asdict(self)
        d["payouts"] = list(self.payouts)
        d["seat_points"], d["seat_tricks"] = list(self.seat_points), list(self.seat_tricks)
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
    """One deal being played: the hands, whose turn it is, which cards are legal, and the final score.

    ``doublings`` counts Kontra and Re, ``knocks`` the Klopfen; the price is multiplied by 2^(doublings + knocks).
    A Ramsch has no declarer (``declarer=None``) and no Kontra; a Sie needs a Sie hand (:func:`is_sie_hand`).
    """

    def __init__(self, rules: Ruleset, hands: list[int], contract: Contract, declarer: int | None,
                 doublings: int = 0, tariff: Tariff | None = None, knocks: int = 0):
        self.rules = rules
        self.deck = rules.deck
        self.contract = contract
        self.declarer = declarer
        self.doublings = doublings
        self.knocks = knocks
        self.tariff = tariff or rules.tariff
        self.dealt = [int(h) for h in hands]
        self.hands = [set(cards_of(h)) for h in hands]
        self.n_tricks = rules.hand_size
        if contract.kind == RAMSCH:
            if declarer is not None:
                raise InvalidGame(f"a Ramsch has no declarer (everyone plays for himself), got seat {declarer}")
            if doublings:
                raise InvalidGame("a Ramsch cannot be doubled: there is no Kontra in a Ramsch")
        elif declarer is None or not 0 <= declarer < 4:  # (numpy integers are seats too)
            raise InvalidGame(f"declarer must be a seat 0..3, not {declarer}")
        if doublings < 0 or knocks < 0:
            raise InvalidGame(f"doublings and knocks must not be negative (got {doublings}, {knocks})")
        if contract.kind == SIE and not is_sie_hand(self.dealt[declarer], self.deck):
            top = "the four Ober and four Unter" if self.deck == "long" else "the four Ober, EU and GU"
            raise InvalidGame(f"seat {declarer} cannot declare Sie: a Sie hand holds exactly {top}")
        self.trumps = trump_order(contract, self.deck)
        self._trump_set = set(self.trumps)
        # How a player sorts a hand: trumps high to low, then each side suit (E G H S) high to low.
        sort_order = list(self.trumps) + [c for s in SUIT_ORDER for c in suit_order(contract, s, self.deck)]
        self._sort_pos = {c: i for i, c in enumerate(sort_order)}
        # Stichzwang (RULES.md 4.2): only in a Bettel, and only when the ruleset asks for it
        self.stichzwang = contract.kind == BETTEL and rules.bettel.stichzwang

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
        if declarer is None:
            self.team = set()  # a Ramsch: no side, every seat for himself
        else:
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
    def is_decided(self) -> bool:
        """Is the outcome known? At the end of the deal, or in a Bettel once the declarer has taken a trick (he has
        lost; play may stop there, RULES.md 4.2). :meth:`result` scores a decided game."""
        if self.is_over:
            return True
        return (self.contract.kind == BETTEL and not self.current
                and any(w == self.declarer for _, _, w in self.tricks))

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

    def _best_of_trick(self) -> int:
        """The card winning the trick in progress so far."""
        best = self.current[0]
        for c in self.current[1:]:
            if beats(c, best, self.contract):
                best = c
        return best

    def _situation(self) -> dict:
        """What the rules of 2.4 (and 4.2) look at for the seat to play, worked out once per decision."""
        seat = self.to_play
        hand = self.hands[seat]
        led = self.eff(self.current[0]) if self.current else None
        holds_ace = self.called_ace is not None and not self.searched and self.called_ace in hand
        called = self.contract.suit if holds_ace else None
        can_follow = led is not None and any(self.eff(x) == led for x in hand)
        best = self._best_of_trick() if self.current else None
        return {
            "last_card": len(hand) == 1,
            "led": led,
            "can_follow": can_follow,
            "holds_unsearched_ace": holds_ace,  # the partner, before the called suit has been searched
            "called": called,
            "n_called": sum(1 for x in hand if self.eff(x) == called) if holds_ace else 0,
            "best": best,
            # Stichzwang: following suit with a card that beats the trick is compulsory when he holds one
            "must_beat": self.stichzwang and can_follow and any(
                self.eff(x) == led and beats(x, best, self.contract) for x in hand),
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
            if s["must_beat"] and not beats(c, s["best"], self.contract):
                return f"Stichzwang: must beat {format_card(s['best'])}, the best card of the trick, with a higher card"
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
    def seat_points(self) -> tuple[int, int, int, int]:
        """Card points each seat has taken in the complete tricks so far."""
        pts = [0, 0, 0, 0]
        for _, cs, w in self.tricks:
            pts[w] += card_points(cs)
        return tuple(pts)

    def seat_tricks(self) -> tuple[int, int, int, int]:
        n = [0, 0, 0, 0]
        for _, _, w in self.tricks:
            n[w] += 1
        return tuple(n)

    def result(self) -> GameResult:
        if not self.is_decided:
            raise ValueError("the game is not over yet")
        if self.contract.kind == RAMSCH:
            return self._ramsch_result()
        c = self.contract
        points = sum(card_points(cs) for _, cs, w in self.tricks if w in self.team)
        tricks = sum(1 for _, _, w in self.tricks if w in self.team)
        seat_pts, seat_trk = self.seat_points(), self.seat_tricks()
        if c.kind == BETTEL:
            # RULES.md 4.2: won by taking no trick; no Laufende, Schneider or Schwarz; the Bettel's own price
            won = tricks == 0
            price = self.rules.bettel_price * 2 ** (self.doublings + self.knocks)
            sign = 1 if won else -1
            return GameResult(
                contract=c.name, suit=None, tout=False, declarer=self.declarer, partner=None,
                declarer_points=points, declarer_tricks=tricks, won=won, schneider=False, schwarz=False,
                laufende=0, laufende_mit=False, laufende_paid=False, doublings=self.doublings, price=price,
                payouts=tuple(sign * 3 * price if s == self.declarer else -sign * price for s in range(4)),
                tricks=tuple(self.tricks), knocks=self.knocks, seat_points=seat_pts, seat_tricks=seat_trk)
        if c.kind == SIE:
            # RULES.md 4.3: cannot be lost; price 4 x (solo base + Laufende rate x cards of a hand), the Laufende
            # being the whole hand; no Schneider or Schwarz (like a Tout, the price is fixed)
            laufende = self.n_tricks
            price = 4 * (self.tariff.base_solo + self.tariff.laufende * laufende) * 2 ** (self.doublings + self.knocks)
            return GameResult(
                contract=c.name, suit=None, tout=False, declarer=self.declarer, partner=None,
                declarer_points=points, declarer_tricks=tricks, won=True, schneider=False, schwarz=False,
                laufende=laufende, laufende_mit=True, laufende_paid=True, doublings=self.doublings, price=price,
                payouts=tuple(3 * price if s == self.declarer else -price for s in range(4)),
                tricks=tuple(self.tricks), knocks=self.knocks, seat_points=seat_pts, seat_tricks=seat_trk)
        if c.tout:
            won = tricks == self.n_tricks
            schneider = schwarz = False  # a Tout scores neither
        else:
            won = points >= 61
            schneider = points >= 91 if won else points <= 30
            schwarz = tricks in (0, self.n_tricks)
        laufende, mit = count_laufende(c, self.dealt, self.team, self.deck)
        price, paid = price_of(c, self.tariff, schneider=schneider, schwarz=schwarz, laufende=laufende,
                               doublings=self.doublings + self.knocks)
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
            tricks=tuple(self.tricks), knocks=self.knocks, seat_points=seat_pts, seat_tricks=seat_trk,
        )

    def highest_trump_played(self) -> list[int | None]:
        """Per seat, the trump rank (0 = the highest trump) of the highest trump he played so far; None if none."""
        best: list[int | None] = [None] * 4
        for leader, cs, _ in self.tricks:
            for i, c in enumerate(cs):
                seat = (leader + i) % 4
                if c in self._trump_set:
                    r = self.trumps.index(c)
                    if best[seat] is None or r < best[seat]:
                        best[seat] = r
        return best

    def ramsch_loser(self) -> int:
        """The seat with the most card points; ties as ``rules.ramsch.tie`` says (RULES.md 4.4, docs/club-rules.md)."""
        pts, trk = self.seat_points(), self.seat_tricks()
        tied = [s for s in range(4) if pts[s] == max(pts)]
        if len(tied) > 1 and self.rules.ramsch.tie == "more-tricks":
            most = max(trk[s] for s in tied)
            tied = [s for s in tied if trk[s] == most]
        if len(tied) > 1:
            high = self.highest_trump_played()
            with_trump = [s for s in tied if high[s] is not None]
            if with_trump:  # the highest trump of the deal among them loses; no trump ranks below any trump
                tied = [min(with_trump, key=lambda s: high[s])]
            # else: none of them played a trump; the earliest seat from forehand loses
        return tied[0]

    def _ramsch_result(self) -> GameResult:
        """RULES.md 4.4. The result describes the seat it is settled against (the loser, or the Durchmarsch
        winner) as a solo describes its declarer."""
        r = self.rules.ramsch
        pts, trk = self.seat_points(), self.seat_tricks()
        price = self.rules.ramsch_price * 2 ** self.knocks
        winner = None
        if r.durchmarsch != "none":
            for s in range(4):
                if trk[s] == self.n_tricks or (r.durchmarsch != "all" and pts[s] >= r.durchmarsch):
                    winner = s
        jungfrauen = [s for s in range(4) if trk[s] == 0]
        if winner is not None:  # Durchmarsch: paid the price by each other player, no Jungfrau doubling
            seat = winner
            payouts = tuple(3 * price if s == winner else -price for s in range(4))
        else:
            seat = self.ramsch_loser()
            j = len(jungfrauen)
            gets = []
            for s in range(4):
                if s == seat:
                    gets.append(0)
                elif r.jungfrau == "double-all":  # the loser's payment doubles once per Jungfrau
                    gets.append(price * 2 ** j)
                elif r.jungfrau == "double-each" and s in jungfrauen:  # twice the price to each Jungfrau
                    gets.append(2 * price)
                elif r.jungfrau == "double-each-multiple" and s in jungfrauen:  # price x 2^(number of Jungfrauen)
                    gets.append(price * 2 ** j)
                else:
                    gets.append(price)
            payouts = tuple(-sum(gets) if s == seat else gets[s] for s in range(4))
        return GameResult(
            contract=self.contract.name, suit=None, tout=False, declarer=seat, partner=None,
            declarer_points=pts[seat], declarer_tricks=trk[seat], won=winner is not None, schneider=False,
            schwarz=False, laufende=0, laufende_mit=False, laufende_paid=False, doublings=0, price=price,
            payouts=payouts, tricks=tuple(self.tricks), knocks=self.knocks, durchmarsch=winner is not None,
            jungfrauen=len(jungfrauen), seat_points=pts, seat_tricks=trk)


def is_sie_hand(hand: int, deck: str = "long") -> bool:
    """May ``hand`` declare Sie (RULES.md 4.3)? Exactly the top trumps of the solo order: the four Ober and the four
    Unter (long deck), the four Ober, EU and GU (short deck)."""
    top = [card(s, OBER) for s in SUIT_ORDER] + [card(s, UNTER) for s in SUIT_ORDER]
    top = top[:len(top) if deck == "long" else 6]
    return int(hand) == sum(1 << c for c in top)


def throw_in_result(knocks: int = 0) -> GameResult:
    """The result of a deal every seat passed and that is thrown in (RULES.md 2.2): nothing is played or paid.
    Columns as a passed row of a run: contract ``pass``, declarer -1."""
    return GameResult(contract="pass", suit=None, tout=False, declarer=-1, partner=None, declarer_points=0,
                      declarer_tricks=0, won=False, schneider=False, schwarz=False, laufende=0, laufende_mit=False,
                      laufende_paid=False, doublings=0, price=0, payouts=(0, 0, 0, 0), knocks=knocks,
                      seat_points=(0, 0, 0, 0), seat_tricks=(0, 0, 0, 0))


def settle_stock(rules: Ruleset, result: GameResult | None, stock_before: int,
                 knocks: int = 0) -> tuple[tuple[int, int, int, int], int]:
    """(each seat's whole change, the stock after) of a deal under ``all_pass = "stock"`` (RULES.md 4.4).

    ``result`` None (or a ``pass`` result) is a throw-in: every seat pays the stock price into the stock, doubled
    per knock when ``[stock] doubling = "games-and-stock"``. A Rufspiel settles the stock as it stands: won, the
    declarer and his partner each take half of it and it is empty; lost, each pays half its amount into it (it
    doubles). Any other contract leaves the stock as it is. The changes are the game's payouts plus the stock shares,
    so ``sum(changes) + after - before == 0``.
    """
    if isinstance(stock_before, bool) or not isinstance(stock_before, int) or stock_before < 0:
        raise ValueError(f"the stock must be a non-negative integer, not {stock_before!r}")
    if result is None or result.contract == "pass":
        pay = rules.stock_price * (2 ** knocks if rules.stock.doubling == "games-and-stock" else 1)
        return (-pay, -pay, -pay, -pay), stock_before + 4 * pay
    changes = list(result.payouts)
    after = stock_before
    if result.contract == KIND_NAMES[RUFSPIEL] and stock_before:
        if stock_before % 2:
            raise ValueError(f"a stock of {stock_before} cannot be split in halves between the declaring pair")
        half = stock_before // 2
        sign = 1 if result.won else -1  # won: each takes half; lost: each pays half in
        for s in (result.declarer, result.partner):
            changes[s] += sign * half
        after = 0 if result.won else 2 * stock_before
    return tuple(changes), after


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
#: bidding rank, low to high, written out from RULES.md 2.2 and 4.2: Bettel above the Rufspiel and below every
#: solo-type contract; a Tout ranks above every plain contract (the Touts in this same order; a Rufspiel and a Bettel
#: have no Tout), and Sie above every Tout (RULES.md 4.3)
BID_RANKING = (RUFSPIEL, BETTEL, FARBGEIER, GEIER, FARBWENZ, WENZ, SOLO)
_WITH_SUIT = (RUFSPIEL, SOLO, FARBWENZ, FARBGEIER)
_NO_TOUT = (RUFSPIEL, BETTEL, SIE)


def decode_declaration(code: int) -> tuple[int, int | None, bool] | None:
    """(kind, suit or None, tout) of a bid code (kind + 8 (suit + 1) + 64 tout; kind 6 Bettel, 7 Sie); None for a
    pass; ValueError for a code that encodes nothing."""
    code = int(code)
    if code == PASS_BID:
        return None
    if code < 0 or code >= 128:
        raise ValueError(f"bid code {code} is neither a pass (-1) nor a declaration (0..127)")
    kind, suit, tout = code & 7, ((code >> 3) & 7) - 1, bool(code >> 6 & 1)
    # kinds 0..5 are the contracts of RULES.md 2.1, 6 is Bettel and 7 Sie (RULES.md 4); a Ramsch is never bid
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
    if kind == SIE:
        if not rules.sie:
            return f"sie is not enabled in ruleset {rules.name} (sie = false)"
    elif name not in rules.contracts:
        return f"{name} is not enabled in ruleset {rules.name} (enabled: {', '.join(rules.contracts)})"
    if kind in _WITH_SUIT and suit is None:
        return f"{name} needs a {'called' if kind == RUFSPIEL else 'trump'} suit"
    if kind not in _WITH_SUIT and suit is not None:
        return f"{name} takes no suit"
    if tout and kind in _NO_TOUT:
        return f"a {name.capitalize()} cannot be played Tout"
    if kind == SIE and not is_sie_hand(hand, rules.deck):
        top = "the four Ober and four Unter" if rules.deck == "long" else "the four Ober, EU and GU"
        return f"only a hand of exactly {top} may declare Sie"
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
    if kind == SIE:
        return 2 * len(BID_RANKING)  # above every Tout
    return BID_RANKING.index(kind) + (len(BID_RANKING) if tout else 0)


def fix_game(bids) -> tuple[int, Contract] | None:
    """(declarer, contract) from the four bids, seat 0 first: the highest rank; the earlier seat on equal rank.
    None when all four pass (the deal is thrown in, or played as a Ramsch when ``all_pass = "ramsch"``: then
    ``Game(rules, hands, Contract(RAMSCH), None)``)."""
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
                    bool(tout) and int(kind) not in (RUFSPIEL, BETTEL, SIE, RAMSCH))
