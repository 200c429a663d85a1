"""A position to solve: ruleset, contract, declarer, the hands as dealt and the cards played so far.

Positions are checked by the referee (:mod:`simkit.reference`) when they are made, so every card played so far is
known to be held and legal; the solver then rebuilds the same position in its kernel state.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from functools import cached_property

from simkit.cards import format_card
from simkit.reference import Game, IllegalPlay, InvalidGame, count_laufende, price_of
from simkit.replay import ReplayError, play_tricks, start_game
from simkit.rules.contracts import BETTEL, RAMSCH, SIE, Contract, paying_seats
from simkit.rules.ruleset import Ruleset, Tariff, load_ruleset


class PositionError(ValueError):
    """A position that cannot exist: a malformed record, a card not held, an illegal card, a wrong leader."""


@dataclass(frozen=True)
class Position:
    """Everything the solver needs. ``plays`` are the cards played so far, in order (the first trick led by seat
    0, each later one by the winner of the trick before). ``doublings`` counts Kontra, Re and knocks (each doubles
    the price); ``tariff`` defaults to the ruleset's. A Ramsch has no declarer (None) and no Kontra: its knocks go
    in ``knocks``; its value is one seat's own card points, those of ``view`` (default: the seat to move)."""

    rules: Ruleset
    contract: Contract
    declarer: int | None
    hands: tuple[int, int, int, int]
    plays: tuple[int, ...] = ()
    doublings: int = 0
    tariff: Tariff | None = None
    knocks: int = 0
    view: int | None = None
    game: Game = field(init=False, repr=False, compare=False)

    def __post_init__(self):
        if self.tariff is None:
            object.__setattr__(self, "tariff", self.rules.tariff)
        object.__setattr__(self, "hands", tuple(int(h) for h in self.hands))
        object.__setattr__(self, "plays", tuple(int(c) for c in self.plays))
        try:
            game = Game(self.rules, list(self.hands), self.contract, self.declarer, self.doublings, self.tariff,
                        self.knocks)
            if self.view is not None and (self.contract.kind != RAMSCH or self.view not in range(4)):
                raise InvalidGame(f"view must be a seat 0..3 of a Ramsch (the seat whose points are valued), "
                                  f"not {self.view!r} in a {self.contract.name}")
            for c in self.plays:
                game.play(c)
        except (InvalidGame, IllegalPlay) as e:
            raise PositionError(str(e)) from None
        object.__setattr__(self, "game", game)

    # ------------------------------------------------------------------------------------------ making
    @classmethod
    def from_record(cls, record: dict, rules: Ruleset | str | None = None) -> Position:
        """The position at the end of a replay record's ``tricks``, which may stop after any card (the last trick
        may hold 1-3 cards; an empty list is the opening position). Raises :class:`PositionError` naming the
        problem (the card and the rule for an illegal card)."""
        try:
            game = start_game(record, rules)
            play_tricks(game, record["tricks"], partial=True)
        except ReplayError as e:
            raise PositionError(str(e)) from None
        plays = [c for _, cards, _ in game.tricks for c in cards] + list(game.current)
        if game.contract.kind == RAMSCH:  # a Ramsch Game refuses doublings: its knocks stay apart
            return cls(game.rules, game.contract, None, tuple(game.dealt), tuple(plays), game.doublings,
                       game.tariff, game.knocks)
        return cls(game.rules, game.contract, game.declarer, tuple(game.dealt), tuple(plays),
                   game.doublings + game.knocks, game.tariff)

    @classmethod
    def opening(cls, hands, contract: Contract, declarer: int | None, rules: Ruleset | str | None = None,
                doublings: int = 0, tariff: Tariff | None = None, knocks: int = 0,
                view: int | None = None) -> Position:
        """The position before the first card (a Ramsch: ``declarer`` None)."""
        rules = rules if isinstance(rules, Ruleset) else load_ruleset(rules)
        return cls(rules, contract, declarer, tuple(hands), (), doublings, tariff, knocks, view)

    def after(self, *cards: int) -> Position:
        """The position after the seat(s) to move play ``cards`` (checked like every card). Plays on from this
        position's game rather than replaying from the deal, so walking a whole game stays linear."""
        cards = tuple(int(c) for c in cards)
        game = self.game.copy()
        try:
            for c in cards:
                game.play(c)
        except (InvalidGame, IllegalPlay) as e:
            raise PositionError(str(e)) from None
        child = object.__new__(Position)  # not through __init__: that would replay the game from the deal
        for f in fields(self):
            object.__setattr__(child, f.name, getattr(self, f.name))
        object.__setattr__(child, "plays", self.plays + cards)
        object.__setattr__(child, "game", game)
        for name in ("laufende", "level_payouts"):  # fixed by the deal: computed once per game
            if name in self.__dict__:
                child.__dict__[name] = self.__dict__[name]
        return child

    # ----------------------------------------------------------------------------------------- reading
    @property
    def is_over(self) -> bool:
        return self.game.is_over

    @property
    def to_move(self) -> int | None:
        return None if self.game.is_over else self.game.to_play

    def legal_cards(self) -> list[int]:
        return [] if self.game.is_over else self.game.legal_cards()

    @property
    def measured(self) -> int | None:
        """The seat whose measure the solver values: in a Ramsch ``view`` or else the seat to move (None once the
        game is over and no view is given); otherwise the declarer."""
        if self.contract.kind != RAMSCH:
            return self.declarer
        return self.view if self.view is not None else self.to_move

    def with_view(self, seat: int | None) -> Position:
        """This Ramsch position valued from ``seat``'s view (None: the seat to move)."""
        child = self.after()
        if seat is not None and seat not in range(4):
            raise PositionError(f"view must be a seat 0..3, not {seat!r}")
        object.__setattr__(child, "view", seat)
        return child

    @property
    def partner(self) -> int | None:
        return self.game.partner

    @property
    def team(self) -> frozenset[int]:
        """The declaring side's seats."""
        return frozenset(self.game.team)

    def side_of(self, seat: int) -> str:
        return "declaring" if seat in self.game.team else "defending"

    @cached_property
    def laufende(self) -> int:
        return count_laufende(self.contract, list(self.hands), set(self.game.team), self.rules.deck)[0]

    @cached_property
    def level_payouts(self) -> tuple[int, ...]:
        """The declarer seat's payout for each outcome level of the payout chain (simkit.solver.values): six
        levels (lost schwarz .. won schwarz), two for a Tout (lost, won); a Bettel two (lost, won), a Sie six equal
        ones (it cannot be lost); a Ramsch has no payout objective."""
        mult = 2 ** (self.doublings + self.knocks)
        if self.contract.kind == BETTEL:  # RULES.md 4.2: the Bettel's own price, paid as a solo
            p = 3 * self.rules.bettel_price * mult
            return -p, p
        if self.contract.kind == SIE:  # RULES.md 4.3 (as the referee's result)
            p = 3 * 4 * (self.tariff.base_solo + self.tariff.laufende * self.rules.hand_size) * mult
            return (p,) * 6
        if self.contract.kind == RAMSCH:
            raise ValueError("a Ramsch has no payout levels")
        return level_payouts(self.contract, self.tariff, self.laufende, self.doublings)

    def __str__(self) -> str:
        played = " ".join(format_card(c) for c in self.plays) or "-"
        if self.declarer is None:
            return f"{self.contract}, played: {played}"
        return f"{self.contract} by seat {self.declarer}, played: {played}"


def level_payouts(contract, tariff, laufende: int, doublings: int) -> tuple[int, ...]:
    """The declarer seat's payout at each level of the payout chain (six levels, lost schwarz .. won schwarz; two
    for a Tout), under ``tariff``."""
    mult = paying_seats(contract.kind)

    def pay(won, schneider=False, schwarz=False):
        price, _ = price_of(contract, tariff, schneider=schneider, schwarz=schwarz, laufende=laufende,
                            doublings=doublings)
        return (price if won else -price) * mult

    if contract.tout:
        return pay(False), pay(True)
    return (pay(False, True, True), pay(False, True), pay(False), pay(True), pay(True, True), pay(True, True, True))
