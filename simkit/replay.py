"""Replay of recorded games (the replay-record format of ``../shared/fixtures/README.md``, documented in README.md).

Every card is checked by the referee (:mod:`simkit.reference`): it must be held, legal, and each trick must be led
by the seat that won the trick before. The result is scored with the ruleset's tariff, or with the record's own
``tariff`` numbers where it carries them. ``klopfen`` and ``kontra`` each double the price.

The club rules (RULES.md 4, docs/club-rules.md): ``contract`` may be ``"bettel"``, ``"sie"`` or ``"ramsch"``
(declarer null); ``rules`` holds ruleset keys for this one game (TOML names, e.g. ``{"all_pass": "stock"}``);
``stock`` is the stock before the deal (with ``all_pass = "stock"``), and then ``expected_payouts`` are each seat's
whole change and ``expected_stock`` the stock after. A deal every seat passed is ``"contract": null``.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from simkit.cards import CardError, parse_card, parse_hands
from simkit.reference import Game, GameResult, IllegalPlay, InvalidGame, settle_stock, throw_in_result
from simkit.rules.base import RulesetError
from simkit.rules.contracts import BETTEL, RAMSCH, RUFSPIEL, Contract, ContractError
from simkit.rules.ruleset import Ruleset, load_ruleset, ruleset_from_dict

RECORD_KEYS = {"id", "comment", "deck", "contract", "tout", "declarer", "suit", "hands", "klopfen", "kontra", "tricks",
               "tariff", "expected_payouts", "rules", "stock", "expected_stock"}
TARIFF_KEYS = ("base", "schneider", "schwarz", "laufende", "laufende_min")


class ReplayError(ValueError):
    """A record that cannot be replayed; the message names what is wrong."""


class RecordError(ReplayError):
    """A record whose fields are wrong in themselves (bad input: an unknown key, a Ramsch with a declarer, a
    negative stock, ...), as opposed to a game whose play breaks the rules. ``simkit replay`` exits 2 on these."""


def _seat(value: Any, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < 4:
        raise RecordError(f"{what} must be a seat 0..3, got {value!r}")
    return value


def _tariff_for(record: dict, rules: Ruleset, contract: Contract):
    """The ruleset's tariff with the record's own numbers (if any) applied to this contract."""
    override = record.get("tariff")
    if override is None:
        return rules.tariff
    if not isinstance(override, dict):
        raise RecordError("tariff must be an object")
    unknown = set(override) - set(TARIFF_KEYS)
    if unknown:
        raise RecordError(f"unknown tariff key {sorted(unknown)[0]!r}; valid: {', '.join(TARIFF_KEYS)}")
    for k, v in override.items():
        if isinstance(v, bool) or not isinstance(v, int) or v < 0:
            raise RecordError(f"tariff {k} must be a non-negative integer, got {v!r}")
    changes = {}
    if "base" in override:
        changes["base_rufspiel" if contract.kind == RUFSPIEL else "base_solo"] = override["base"]
    for k in ("schneider", "schwarz", "laufende"):
        if k in override:
            changes[k] = override[k]
    if "laufende_min" in override:  # the record's minimum applies to the contract it records
        changes["laufende_min"] = changes["laufende_min_wenz_geier"] = override["laufende_min"]
    return dataclasses.replace(rules.tariff, **changes)


def _knocks(record: dict) -> int:
    """The number of Klopfen (``klopfen``: the seats that knocked, each once)."""
    klopfen = record.get("klopfen") or []
    if not isinstance(klopfen, list):
        raise RecordError("klopfen must be a list of seats")
    klopfen = [_seat(s, "a klopfen entry") for s in klopfen]
    if len(set(klopfen)) != len(klopfen):
        raise RecordError("a seat knocked (klopfen) twice")
    return len(klopfen)


def _kontra(record: dict, rules: Ruleset, contract: Contract, declarer: int | None, partner: int | None) -> int:
    """The number of Kontra and Re (``kontra``: the seats in order), checked against who may give them."""
    kontra = record.get("kontra") or []
    if not isinstance(kontra, list):
        raise RecordError("kontra must be a list of seats")
    kontra = [_seat(s, "a kontra entry") for s in kontra]
    if kontra and contract.kind == RAMSCH:
        raise RecordError("kontra: there is no Kontra in a Ramsch (everyone plays for himself)")
    team = {declarer} | ({partner} if partner is not None else set())
    if len(kontra) > rules.max_doublings:
        raise RecordError(f"{len(kontra)} doublings recorded, the ruleset allows {rules.max_doublings}")
    if kontra and kontra[0] in team:
        raise RecordError(f"Kontra by seat {kontra[0]}, who is on the declaring side")
    if len(kontra) > 1:
        re_allowed = team if rules.re_by_partner else {declarer}
        if kontra[1] not in re_allowed:
            raise RecordError(f"Re by seat {kontra[1]}, who may not give it")
    return len(kontra)


def _doublings(record: dict, rules: Ruleset, contract: Contract, declarer: int, partner: int | None) -> int:
    """Kontra, Re and Klopfen together (each doubles the price), for callers that fold the knocks into the
    doublings; :func:`start_game` keeps them apart (``Game.doublings``, ``Game.knocks``)."""
    return _knocks(record) + _kontra(record, rules, contract, declarer, partner)


def record_rules(record: dict, rules: Ruleset | str | None = None) -> Ruleset:
    """The ruleset a record is played under: ``rules`` (a Ruleset, preset or TOML path), then the record's own
    ``rules`` keys (TOML names, applied like a TOML file's), then its ``deck``."""
    rules = rules if isinstance(rules, Ruleset) else load_ruleset(rules)
    own = record.get("rules")
    if own is not None:
        if not isinstance(own, dict):
            raise RecordError(f"rules must be an object of ruleset keys, not {own!r}")
        for key in ("extends", "game", "name"):
            if key in own:
                raise RecordError(f"rules: key {key!r} cannot be set for one game")
        try:
            rules = ruleset_from_dict(own, base=rules)
        except (RulesetError, TypeError) as e:
            raise RecordError(f"rules: {e}") from None
    deck = record.get("deck", rules.deck)
    if deck not in ("long", "short"):
        raise RecordError(f"deck must be \"long\" or \"short\", not {deck!r}")
    if deck != rules.deck:
        try:
            rules = rules.replace(deck=deck)
        except RulesetError as e:
            raise RecordError(f"deck: {e}") from None
    return rules


def start_game(record: dict, rules: Ruleset | str | None = None) -> Game:
    """The referee's game of a record before its first card: every field but ``tricks`` checked.

    Raises :class:`ReplayError` naming the first problem. The record's ``rules`` keys and ``deck`` replace the
    ruleset's; its ``tariff`` numbers override the ruleset's; ``kontra`` sets the doublings and ``klopfen`` the
    knocks. Any contract may be given, enabled in the ruleset or not. A Ramsch has ``declarer`` null.
    """
    if not isinstance(record, dict):
        raise RecordError("a replay record must be a JSON object")
    unknown = set(record) - RECORD_KEYS
    if unknown:
        raise RecordError(f"unknown record key {sorted(unknown)[0]!r}; valid: {', '.join(sorted(RECORD_KEYS))}")
    for key in ("contract", "hands", "tricks"):
        if key not in record:
            raise RecordError(f"record has no {key!r}")
    if record["contract"] is None:
        raise RecordError("contract null: a thrown-in deal has no game to play")
    rules = record_rules(record, rules)
    deck = rules.deck
    try:
        contract = Contract.parse(record["contract"], record.get("suit"), bool(record.get("tout", False)))
        hands = parse_hands(record["hands"], deck)
    except (ContractError, CardError) as e:
        raise RecordError(str(e)) from None
    if contract.kind == RAMSCH:
        if record.get("declarer") is not None:
            raise RecordError(f"declarer: a Ramsch has no declarer (everyone plays for himself), so declarer must be "
                              f"null, got {record['declarer']!r}")
        declarer = None
    else:
        if "declarer" not in record:
            raise RecordError("record has no 'declarer'")
        declarer = _seat(record["declarer"], "declarer")
    try:
        tariff = _tariff_for(record, rules, contract)
        game = Game(rules, hands, contract, declarer, tariff=tariff)
    except InvalidGame as e:
        raise RecordError(str(e)) from None
    game.knocks = _knocks(record)
    game.doublings = _kontra(record, rules, contract, declarer, game.partner)
    return game


def play_tricks(game: Game, tricks: Any, *, partial: bool = False) -> Game:
    """Play a record's ``tricks`` on ``game``, checking every card and every leader.

    A replay needs every trick of four cards; with ``partial`` the list may stop after any card (complete tricks,
    then at most one trick of 1-3 cards, or nothing at all: the opening position).
    """
    n_tricks = game.n_tricks
    deck = game.deck
    # a Bettel may stop once the declarer has taken a trick (RULES.md 4.2): checked after the tricks are played
    may_stop = partial or game.contract.kind == BETTEL
    if not isinstance(tricks, list) or (len(tricks) != n_tricks if not may_stop else len(tricks) > n_tricks):
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
    if not partial and not game.is_decided:
        if game.contract.kind == BETTEL:
            raise ReplayError(f"{len(tricks)} tricks recorded and the Bettel declarer (seat {game.declarer}) has "
                              f"taken none: a Bettel record may stop only after his first trick, else it holds all "
                              f"{n_tricks}")
        raise ReplayError(f"{len(tricks)} tricks recorded, a {deck}-deck game has {n_tricks}")
    return game


def _stock_before(record: dict, rules: Ruleset) -> int | None:
    """The record's ``stock`` (the stock before the deal), None when the rules have no stock."""
    stock = record.get("stock")
    if stock is not None and (isinstance(stock, bool) or not isinstance(stock, int) or stock < 0):
        raise RecordError(f"stock must be a non-negative integer (the stock before the deal), not {stock!r}")
    if rules.all_pass != "stock":
        if stock is not None or record.get("expected_stock") is not None:
            raise RecordError(f"stock: the ruleset has all_pass = {rules.all_pass!r}, not \"stock\" (add "
                              f"\"rules\": {{\"all_pass\": \"stock\"}} to the record)")
        return None
    return stock or 0


def _thrown_in(record: dict, rules: Ruleset) -> GameResult:
    """A record of a deal every seat passed (``contract`` null): thrown in, or paid into the stock."""
    if rules.all_pass == "ramsch":
        raise RecordError("contract null, but all_pass is \"ramsch\": an all-pass deal is played, record it as "
                          "contract \"ramsch\"")
    for key in ("declarer", "suit", "tout"):
        if record.get(key):
            raise RecordError(f"{key}: a thrown-in deal (contract null) has none, got {record[key]!r}")
    if record.get("kontra"):
        raise RecordError("kontra: a thrown-in deal (contract null) has no game to double")
    if record.get("tricks"):
        raise RecordError("tricks: a thrown-in deal (contract null) has no tricks")
    if "hands" not in record:
        raise RecordError("record has no 'hands'")
    try:
        parse_hands(record["hands"], rules.deck)
    except CardError as e:
        raise RecordError(str(e)) from None
    return throw_in_result(_knocks(record))


def replay(record: dict, rules: Ruleset | str | None = None) -> GameResult:
    """Replay one record; return the scored result or raise :class:`ReplayError` naming the first problem.

    ``rules`` is a Ruleset, a preset name or a TOML path (default: the default preset); the record's ``rules`` and
    ``deck`` override it. Any contract may be replayed, enabled in the ruleset or not: a replay checks the play, not
    the bidding. With a stock (``all_pass = "stock"``) the result's ``payouts`` are each seat's whole change and
    ``stock_before``/``stock_after`` are set.
    """
    if not isinstance(record, dict):
        raise RecordError("a replay record must be a JSON object")
    unknown = set(record) - RECORD_KEYS
    if unknown:
        raise RecordError(f"unknown record key {sorted(unknown)[0]!r}; valid: {', '.join(sorted(RECORD_KEYS))}")
    rules = record_rules(record, rules)
    stock = _stock_before(record, rules)
    if "contract" in record and record["contract"] is None:
        result = _thrown_in(record, rules)
    else:
        result = play_tricks(start_game(record, rules), record["tricks"]).result()
    if stock is not None:
        try:
            changes, after = settle_stock(rules, result, stock, result.knocks)
        except ValueError as e:
            raise RecordError(f"stock: {e}") from None
        result = dataclasses.replace(result, payouts=changes, stock_before=stock, stock_after=after)
    _check_expected(record, result)
    return result


def _check_expected(record: dict, result: GameResult) -> None:
    """Expectations that contradict the rules themselves (not just a different settlement) are bad records."""
    expected = record.get("expected_payouts")
    if result.contract == "bettel" and not result.won and isinstance(expected, list) and len(expected) == 4:
        d = result.declarer
        if isinstance(expected[d], int) and expected[d] > 0:
            first = next(i for i, (_, _, w) in enumerate(result.tricks, start=1) if w == d)
            raise RecordError(f"expected_payouts: the Bettel declarer (seat {d}) took trick {first}, so he lost, "
                              f"but expected_payouts pay him {expected[d]}")
    exp_stock = record.get("expected_stock")
    if exp_stock is not None and (isinstance(exp_stock, bool) or not isinstance(exp_stock, int) or exp_stock < 0):
        raise RecordError(f"expected_stock must be a non-negative integer, not {exp_stock!r}")


@dataclass
class ReplayOutcome:
    """One line of a replay file: the result, or the error that stopped it."""

    line: int
    id: Any
    result: GameResult | None
    error: str | None
    expected_payouts: list[int] | None
    expected_stock: int | None = None
    bad_input: bool = False  # the error is in the record's fields (RecordError), not in its play

    @property
    def ok(self) -> bool:
        return self.error is None

    @property
    def agrees(self) -> bool | None:
        """Do the computed payouts (and the stock after, where the record expects one) equal the record's
        ``expected_payouts`` (``expected_stock``)? None if it has no expected payouts."""
        if self.expected_payouts is None:
            return None
        if self.result is None or list(self.result.payouts) != list(self.expected_payouts):
            return False
        return self.expected_stock is None or self.result.stock_after == self.expected_stock

    def to_json(self) -> dict:
        r = self.result
        out = {"id": self.id, "ok": self.ok, "error": self.error}
        for k in ("payouts", "declarer_points", "declarer_tricks", "laufende", "schneider", "schwarz", "won"):
            v = getattr(r, k) if r is not None else None
            out[k] = list(v) if k == "payouts" and v is not None else v
        if r is not None and r.stock_after is not None:
            out["stock"] = r.stock_after  # the stock after the deal
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
        rid, expected, exp_stock = None, None, None
        try:
            record = load_json_line(line, n)
            if isinstance(record, dict):
                rid = record.get("id")
                exp = record.get("expected_payouts")
                if isinstance(exp, list) and len(exp) == 4 and all(isinstance(x, int) for x in exp):
                    expected = exp
                if isinstance(record.get("expected_stock"), int):
                    exp_stock = record["expected_stock"]
            yield ReplayOutcome(n, rid, replay(record, rules), None, expected, exp_stock)
        except ReplayError as e:
            yield ReplayOutcome(n, rid, None, str(e), expected, exp_stock, isinstance(e, RecordError))


def replay_file(path: str | Path, rules: Ruleset | str | None = None) -> Iterator[ReplayOutcome]:
    with open(path, encoding="utf-8") as f:
        yield from replay_lines(f, rules)
