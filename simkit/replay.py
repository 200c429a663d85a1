"""Replay of recorded games (the replay-record format of ``../shared/fixtures/README.md``, documented in README.md).

Every card is checked by the referee (:mod:`simkit.reference`): it must be held, legal, and each trick must be led
by the seat that won the trick before. The result is scored with the ruleset's tariff, or with the record's own
``tariff`` numbers where it carries them. ``klopfen`` and ``kontra`` each double the price.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from simkit.cards import CardError, parse_card, parse_hands
from simkit.reference import Game, GameResult, IllegalPlay, InvalidGame
from simkit.rules.contracts import RUFSPIEL, Contract, ContractError
from simkit.rules.ruleset import Ruleset, load_ruleset

RECORD_KEYS = {"id", "comment", "deck", "contract", "tout", "declarer", "suit", "hands", "klopfen", "kontra", "tricks",
               "tariff", "expected_payouts"}
TARIFF_KEYS = ("base", "schneider", "schwarz", "laufende", "laufende_min")


class ReplayError(ValueError):
    """A record that cannot be replayed; the message names what is wrong."""


def _seat(value: Any, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < 4:
        raise ReplayError(f"{what} must be a seat 0..3, got {value!r}")
    return value


def _tariff_for(record: dict, rules: Ruleset, contract: Contract):
    """The ruleset's tariff with the record's own numbers (if any) applied to this contract."""
    override = record.get("tariff")
    if override is None:
        return rules.tariff
    if not isinstance(override, dict):
        raise ReplayError("tariff must be an object")
    unknown = set(override) - set(TARIFF_KEYS)
    if unknown:
        raise ReplayError(f"unknown tariff key {sorted(unknown)[0]!r}; valid: {', '.join(TARIFF_KEYS)}")
    for k, v in override.items():
        if isinstance(v, bool) or not isinstance(v, int) or v < 0:
            raise ReplayError(f"tariff {k} must be a non-negative integer, got {v!r}")
    changes = {}
    if "base" in override:
        changes["base_rufspiel" if contract.kind == RUFSPIEL else "base_solo"] = override["base"]
    for k in ("schneider", "schwarz", "laufende"):
        if k in override:
            changes[k] = override[k]
    if "laufende_min" in override:  # the record's minimum applies to the contract it records
        changes["laufende_min"] = changes["laufende_min_wenz_geier"] = override["laufende_min"]
    return dataclasses.replace(rules.tariff, **changes)


def _doublings(record: dict, rules: Ruleset, contract: Contract, declarer: int, partner: int | None) -> int:
    klopfen = record.get("klopfen") or []
    kontra = record.get("kontra") or []
    if not isinstance(klopfen, list) or not isinstance(kontra, list):
        raise ReplayError("klopfen and kontra must be lists of seats")
    klopfen = [_seat(s, "a klopfen entry") for s in klopfen]
    if len(set(klopfen)) != len(klopfen):
        raise ReplayError("a seat knocked (klopfen) twice")
    kontra = [_seat(s, "a kontra entry") for s in kontra]
    team = {declarer} | ({partner} if partner is not None else set())
    if len(kontra) > rules.max_doublings:
        raise ReplayError(f"{len(kontra)} doublings recorded, the ruleset allows {rules.max_doublings}")
    if kontra and kontra[0] in team:
        raise ReplayError(f"Kontra by seat {kontra[0]}, who is on the declaring side")
    if len(kontra) > 1:
        re_allowed = team if rules.re_by_partner else {declarer}
        if kontra[1] not in re_allowed:
            raise ReplayError(f"Re by seat {kontra[1]}, who may not give it")
    return len(klopfen) + len(kontra)


def start_game(record: dict, rules: Ruleset | str | None = None) -> Game:
    """The referee's game of a record before its first card: every field but ``tricks`` checked.

    Raises :class:`ReplayError` naming the first problem. The record's ``deck`` replaces the ruleset's deck; its
    ``tariff`` numbers override the ruleset's; ``klopfen`` and ``kontra`` set the doublings. Any contract may be
    given, enabled in the ruleset or not.
    """
    if not isinstance(record, dict):
        raise ReplayError("a replay record must be a JSON object")
    rules = rules if isinstance(rules, Ruleset) else load_ruleset(rules)
    unknown = set(record) - RECORD_KEYS
    if unknown:
        raise ReplayError(f"unknown record key {sorted(unknown)[0]!r}; valid: {', '.join(sorted(RECORD_KEYS))}")
    for key in ("contract", "declarer", "hands", "tricks"):
        if key not in record:
            raise ReplayError(f"record has no {key!r}")
    deck = record.get("deck", rules.deck)
    if deck not in ("long", "short"):
        raise ReplayError(f"deck must be \"long\" or \"short\", not {deck!r}")
    if deck != rules.deck:
        rules = rules.replace(deck=deck)
    try:
        contract = Contract.parse(record["contract"], record.get("suit"), bool(record.get("tout", False)))
        hands = parse_hands(record["hands"], deck)
    except (ContractError, CardError) as e:
        raise ReplayError(str(e)) from None
    declarer = _seat(record["declarer"], "declarer")
    try:
        tariff = _tariff_for(record, rules, contract)
        game = Game(rules, hands, contract, declarer, tariff=tariff)
    except InvalidGame as e:
        raise ReplayError(str(e)) from None
    game.doublings = _doublings(record, rules, contract, declarer, game.partner)
    return game


def play_tricks(game: Game, tricks: Any, *, partial: bool = False) -> Game:
    """Play a record's ``tricks`` on ``game``, checking every card and every leader.

    A replay needs every trick of four cards; with ``partial`` the list may stop after any card (complete tricks,
    then at most one trick of 1-3 cards, or nothing at all: the opening position).
    """
    n_tricks = game.n_tricks
    deck = game.deck
    if not isinstance(tricks, list) or (len(tricks) != n_tricks if not partial else len(tricks) > n_tricks):
        n = len(tricks) if isinstance(tricks, list) else "no list of"
        want = f"at most {n_tricks}" if partial else str(n_tricks)
        raise ReplayError(f"{n} tricks recorded, a {deck}-deck game has {want}")
    for i, trick in enumerate(tricks, start=1):
        if not isinstance(trick, dict) or "cards" not in trick or not isinstance(trick["cards"], list):
            raise ReplayError(f"trick {i} must be an object with \"leader\" and a list of \"cards\"")
        n_cards = len(trick["cards"])
        if n_cards != 4 and not (partial and i == len(tricks) and 1 <= n_cards <= 3):
            expected = "4 (only the last trick given may hold 1-3)" if partial else "4"
            raise ReplayError(f"trick {i} has {n_cards} cards, expected {expected}")
        leader = _seat(trick.get("leader"), f"trick {i} leader")
        if leader != game.leader:
            why = "seat 0 (forehand) leads the first trick" if i == 1 else f"seat {game.leader} won trick {i - 1}"
            raise ReplayError(f"trick {i} is led by seat {leader}, but {why}")
        for token in trick["cards"]:
            try:
                c = parse_card(token)
            except CardError as e:
                raise ReplayError(f"trick {i}, seat {game.to_play}: {e}") from None
            try:
                game.play(c)
            except IllegalPlay as e:
                raise ReplayError(str(e)) from None
    return game


def replay(record: dict, rules: Ruleset | str | None = None) -> GameResult:
    """Replay one record; return the scored result or raise :class:`ReplayError` naming the first problem.

    ``rules`` is a Ruleset, a preset name or a TOML path (default: the default preset). The record's ``deck``
    replaces the ruleset's deck. Any contract may be replayed, enabled in the ruleset or not: a replay checks the
    play, not the bidding.
    """
    game = start_game(record, rules)
    return play_tricks(game, record["tricks"]).result()


@dataclass
class ReplayOutcome:
    """One line of a replay file: the result, or the error that stopped it."""

    line: int
    id: Any
    result: GameResult | None
    error: str | None
    expected_payouts: list[int] | None

    @property
    def ok(self) -> bool:
        return self.error is None

    @property
    def agrees(self) -> bool | None:
        """Do the computed payouts equal the record's ``expected_payouts``? None if it has none."""
        if self.expected_payouts is None:
            return None
        return self.result is not None and list(self.result.payouts) == list(self.expected_payouts)

    def to_json(self) -> dict:
        r = self.result
        out = {"id": self.id, "ok": self.ok, "error": self.error}
        for k in ("payouts", "declarer_points", "declarer_tricks", "laufende", "schneider", "schwarz", "won"):
            v = getattr(r, k) if r is not None else None
            out[k] = list(v) if k == "payouts" and v is not None else v
        if self.expected_payouts is not None:
            out["agrees"] = self.agrees
        return out


def load_json_line(line: str, n: int) -> Any:
    """The JSON value of line ``n`` of a records file, or :class:`ReplayError` saying where it is not JSON."""
    try:
        return json.loads(line)
    except json.JSONDecodeError as e:
        raise ReplayError(f"line {n} is not valid JSON: {e.msg} at column {e.colno}") from None


def replay_lines(lines, rules: Ruleset | str | None = None) -> Iterator[ReplayOutcome]:
    """Replay JSON lines one by one; a bad line yields an outcome with an error and the next line goes on."""
    rules = rules if isinstance(rules, Ruleset) else load_ruleset(rules)
    for n, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        rid, expected = None, None
        try:
            record = load_json_line(line, n)
            if isinstance(record, dict):
                rid = record.get("id")
                exp = record.get("expected_payouts")
                if isinstance(exp, list) and len(exp) == 4 and all(isinstance(x, int) for x in exp):
                    expected = exp
            yield ReplayOutcome(n, rid, replay(record, rules), None, expected)
        except ReplayError as e:
            yield ReplayOutcome(n, rid, None, str(e), expected)


def replay_file(path: str | Path, rules: Ruleset | str | None = None) -> Iterator[ReplayOutcome]:
    with open(path, encoding="utf-8") as f:
        yield from replay_lines(f, rules)
