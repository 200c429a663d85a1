"""Recorded games and deals.

* Grading (``simkit analyze``): a replay record (README.md, "Replay records") checked card by card as
  ``simkit replay`` checks it, plus an optional ``players`` field (four names, seat 0 first): :func:`parse_game`,
  :func:`read_file`.
* Recorded deals (training data, ``simkit report --against``): :func:`read_deals` reads a file of records, plain
  or gzip, where a deal may also be *thrown in* (every seat passed: ``"contract": null``, ``"declarer": null``, no
  tricks, the four hands as dealt). Every non-blank line gives a :class:`DealRecord` or an error naming the line;
  a bad record never raises and is never used. :func:`read_settled` gives the referee's result of each played
  game besides.
"""

from __future__ import annotations

import gzip
import json
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from simkit.cards import CardError, parse_hands
from simkit.reference import Game, GameResult
from simkit.replay import RECORD_KEYS, TARIFF_KEYS, ReplayError, load_json_line, play_tricks, start_game
from simkit.rules.contracts import CLASSIC_KIND_NAMES, RAMSCH
from simkit.rules.ruleset import Ruleset, load_ruleset
from simkit.solver import Position

GZIP_MAGIC = b"\x1f\x8b"


@dataclass(frozen=True)
class GameRecord:
    game_id: str
    line: int
    record: dict  # the record as read (without ``players``)
    players: tuple[str, str, str, str] | None
    opening: Position
    plays: tuple[int, ...]  # every card in play order
    conceded: int = 0  # cards of the last trick the record left out (filled in: each seat's last card is forced)

    def player(self, seat: int) -> str | None:
        return self.players[seat] if self.players else None

    @property
    def contract_label(self) -> str:
        """The contract's kind as in run files ("rufspiel", "solo", ...), with " tout" for a Tout."""
        c = self.opening.contract
        return c.name + (" tout" if c.tout else "")


@dataclass(frozen=True)
class DealRecord:
    """One recorded deal: a played game (``game``) or a deal thrown in (``game`` None: every seat passed)."""

    line: int  # 1-based line number in the file
    deal_id: str  # record "id", else f"line {line}"
    deck: str  # "long" or "short" (the record's deck, else the ruleset's)
    hands: tuple[int, int, int, int]  # card masks as dealt (bit c = card c, simkit.cards encoding), seat 0 first
    game: GameRecord | None  # the checked played game (parse_game), None for a thrown-in deal

    @property
    def thrown_in(self) -> bool:
        return self.game is None


def _players(value) -> tuple[str, str, str, str]:
    if not isinstance(value, list) or len(value) != 4 or not all(isinstance(p, str) and p for p in value):
        raise ReplayError("players must be a list of four names (seat 0 first)")
    return tuple(value)


#: the contracts the solver grades beyond the classic six (docs/analyze.md): a Bettel (win), a Ramsch (each seat's
#: own points, from its view), a Sie (the Herz solo it is: every card loses nothing)
GRADED_CLUB = ("bettel", "ramsch", "sie")


def _played(record, line: int, rules: Ruleset | str | None, conceded: bool = False,
            club: bool = False) -> tuple[GameRecord, Game]:
    """:func:`parse_game` and the referee's game played to its end; with ``conceded``, a record may leave out the
    last trick or its last cards (:func:`parse_game`); with ``club``, Bettel and Ramsch records are accepted too
    (grading; recorded deals for training stay classic)."""
    if not isinstance(record, dict):
        raise ReplayError("a replay record must be a JSON object")
    record = dict(record)
    players = _players(record.pop("players")) if "players" in record else None
    if "contract" in record and record["contract"] is None:
        raise ReplayError("a thrown-in deal (contract null) has no game to grade")
    game = start_game(record, rules)
    known = CLASSIC_KIND_NAMES + (GRADED_CLUB if club else ())
    if game.contract.name not in known:  # the contracts the solver has objectives for (docs/solver.md)
        raise ReplayError(f"contract {game.contract.name}: the solver cannot grade it yet (it values "
                          f"{', '.join(known)})")
    tricks = record["tricks"]
    n = game.n_tricks
    # a record one trick short (or stopping inside the last trick) conceded it: the rest is forced
    short = conceded and isinstance(tricks, list) and len(tricks) in (n - 1, n)
    play_tricks(game, tricks, partial=short)
    filled = 0
    if short:
        if len(game.tricks) < n - 1:
            raise ReplayError(f"trick {len(tricks)} has {len(tricks[-1]['cards'])} cards, expected 4 (only the last "
                              "trick may be left out or stop early)")
        while not game.is_over:  # every seat holds one card: the last trick plays itself
            game.play(game.legal_cards()[0])
            filled += 1
    plays = tuple(c for _, cards, _ in game.tricks for c in cards)
    if game.contract.kind == RAMSCH:  # no Kontra, no declarer: the knocks stay apart (a Ramsch Game refuses doublings)
        opening = Position(game.rules, game.contract, None, tuple(game.dealt), (), game.doublings, game.tariff,
                           game.knocks)
    else:
        opening = Position(game.rules, game.contract, game.declarer, tuple(game.dealt), (),
                           game.doublings + game.knocks, game.tariff)
    gid = record.get("id")
    return GameRecord(str(gid) if gid is not None else f"line {line}", line, record, players, opening, plays,
                      filled), game


def parse_game(record, line: int, rules: Ruleset | str | None = None) -> GameRecord:
    """Check a whole recorded game (every card, every leader) and return it ready for grading. Raises
    :class:`ReplayError` naming the problem.

    A game cut short by a conceded last trick is accepted: the record may stop after the last but one trick, or
    inside the last trick, where every seat has one card left; those cards are filled in (``conceded`` counts
    them), so the game is graded and scored whole."""
    return _played(record, line, rules, conceded=True, club=True)[0]


def parse_line(text: str, n: int, rules: Ruleset | str | None = None) -> tuple[GameRecord | None, str | None]:
    """``(game, None)`` for a good record on line ``n``, ``(None, error)`` for a bad one (the error names the
    line)."""
    try:
        return parse_game(load_json_line(text, n), n, rules), None
    except ReplayError as e:
        msg = str(e)
        return None, msg if msg.startswith("line ") else f"line {n}: {msg}"


def read_games(lines, rules: Ruleset | str | None = None) -> Iterator[tuple[int, GameRecord | None, str | None]]:
    """``(line number, game, error)`` for each non-blank line (one of game and error is None)."""
    for n, text in enumerate(lines, start=1):
        if text.strip():
            yield n, *parse_line(text, n, rules)


def read_file(path: str | Path, rules: Ruleset | str | None = None):
    """:func:`read_games` of a file, plain or gzip (:func:`open_text`); a corrupt or truncated gzip stream ends
    as an error at the line where reading stopped."""
    for n, text, error in numbered_lines(path):
        yield (n, None, error) if error is not None else (n, *parse_line(text, n, rules))


# ---------------------------------------------------------------------------------------------- files

def _is_gzip(path: Path) -> bool:
    if path.suffix.lower() == ".gz":
        return True
    with open(path, "rb") as f:
        return f.read(2) == GZIP_MAGIC


def open_text(path: str | Path) -> TextIO:
    """A records file opened for reading as UTF-8 text: gzip-compressed (by a ``.gz`` suffix or the gzip magic
    bytes) or plain."""
    path = Path(path)
    if _is_gzip(path):
        return gzip.open(path, "rt", encoding="utf-8")
    return open(path, encoding="utf-8")


def _decode(raw: bytes | str, n: int) -> tuple[str | None, str | None]:
    if isinstance(raw, str):
        return raw, None
    try:
        return raw.decode("utf-8"), None
    except UnicodeDecodeError as e:
        return None, f"line {n}: not valid UTF-8 (byte 0x{raw[e.start]:02x} at column {e.start + 1})"


def numbered_lines(source) -> Iterator[tuple[int, str | None, str | None]]:
    """``(line number, text, None)`` for every non-blank line of ``source`` (a path or an iterable of lines, str or
    bytes), ``(n, None, error)`` for a line that is not UTF-8; a gzip stream that is corrupt or ends early gives
    one error at the line where reading stopped and ends the iteration."""
    if not isinstance(source, (str, Path)):
        for n, raw in enumerate(source, start=1):
            text, error = _decode(raw, n)
            if error is not None or text.strip():
                yield n, text, error
        return
    path = Path(source)
    gz = _is_gzip(path)
    n = 0
    with (gzip.open(path, "rb") if gz else open(path, "rb")) as f:
        try:
            for n, raw in enumerate(f, start=1):
                text, error = _decode(raw, n)
                if error is not None or text.strip():
                    yield n, text, error
        except (EOFError, gzip.BadGzipFile, zlib.error) as e:
            if not gz:
                raise
            if isinstance(e, EOFError):
                what = "the gzip file ends early (truncated)"
            elif "CRC check failed" in str(e) or "Incorrect length" in str(e):
                what = f"the gzip data fails its check ({e}): the file is corrupt, the records before may be too"
            else:
                what = f"the gzip data is corrupt ({e})"
            yield n + 1, None, f"line {n + 1}: {what}; reading stopped here"


# ---------------------------------------------------------------------------------------------- deals

DEAL_KEYS = RECORD_KEYS | {"players"}


def _thrown_in(record: dict, line: int, rules: Ruleset) -> DealRecord:
    """A deal every seat passed: contract and declarer null, no suit, no tricks, no Kontra, four hands."""
    unknown = set(record) - DEAL_KEYS
    if unknown:
        raise ReplayError(f"unknown record key {sorted(unknown)[0]!r}; valid: {', '.join(sorted(DEAL_KEYS))}")
    if "players" in record:
        _players(record["players"])
    if "declarer" not in record:
        raise ReplayError("record has no 'declarer' (null for a thrown-in deal)")
    if record["declarer"] is not None:
        raise ReplayError(f"contract null (thrown in) but declarer {record['declarer']!r}: a thrown-in deal has no "
                          "declarer")
    if record.get("suit") is not None:
        raise ReplayError(f"contract null (thrown in) but suit {record['suit']!r}")
    if record.get("tout") not in (None, False):
        raise ReplayError(f"contract null (thrown in) but tout {record['tout']!r}")
    tricks = record.get("tricks", [])
    if tricks != []:
        n = f"{len(tricks)} tricks" if isinstance(tricks, list) else f"tricks {tricks!r}"
        raise ReplayError(f"contract null (thrown in) but {n} recorded: a thrown-in deal has no tricks")
    kontra = record.get("kontra")
    if kontra not in (None, []):
        raise ReplayError(f"contract null (thrown in) but kontra {kontra!r}: there is no game to double")
    klopfen = record.get("klopfen")
    if klopfen is not None:
        if not isinstance(klopfen, list) or not all(isinstance(s, int) and not isinstance(s, bool) and 0 <= s < 4
                                                    for s in klopfen):
            raise ReplayError("klopfen must be a list of seats 0..3")
        if len(set(klopfen)) != len(klopfen):
            raise ReplayError("a seat knocked (klopfen) twice")
    paid = record.get("expected_payouts")
    if paid is not None and paid != [0, 0, 0, 0]:
        raise ReplayError(f"contract null (thrown in) but expected_payouts {paid!r}: a thrown-in deal pays nothing")
    tariff = record.get("tariff")
    if tariff is not None and (not isinstance(tariff, dict) or set(tariff) - set(TARIFF_KEYS)):
        raise ReplayError(f"tariff must be an object with keys among {', '.join(TARIFF_KEYS)}")
    if "hands" not in record:
        raise ReplayError("record has no 'hands'")
    deck = record.get("deck", rules.deck)
    if deck not in ("long", "short"):
        raise ReplayError(f"deck must be \"long\" or \"short\", not {deck!r}")
    hands = record["hands"]
    if not isinstance(hands, list) or not all(isinstance(h, (list, str)) for h in hands):
        raise ReplayError("hands must be a list of four lists of cards")
    try:
        masks = parse_hands(hands, deck)
    except CardError as e:
        raise ReplayError(str(e)) from None
    rid = record.get("id")
    return DealRecord(line, str(rid) if rid is not None else f"line {line}", deck, tuple(masks), None)


def _deal(text: str, n: int, rules: Ruleset, by_deck: dict[str, Ruleset]) -> tuple[DealRecord, GameResult | None]:
    try:
        record = json.loads(text)
    except json.JSONDecodeError as e:
        raise ReplayError(f"not valid JSON ({e.msg} at column {e.colno}; a truncated or corrupt line?)") from None
    if not isinstance(record, dict):
        raise ReplayError("a replay record must be a JSON object")
    if "contract" in record and record["contract"] is None:
        return _thrown_in(record, n, rules), None
    deck = record.get("deck", rules.deck)
    game, played = _played(record, n, by_deck.get(deck, rules) if isinstance(deck, str) else rules)
    return DealRecord(n, game.game_id, played.deck, tuple(game.opening.hands), game), played.result()


def read_settled(source, rules: Ruleset | str | None = None
                 ) -> Iterator[tuple[int, DealRecord | None, GameResult | None, str | None]]:
    """As :func:`read_deals`, with the referee's result of each played game (scored under ``rules`` with the
    record's deck and own ``tariff`` numbers): ``(line, deal, result, None)`` (result None for a thrown-in deal)
    or ``(line, None, None, "line N: ...")``."""
    rules = rules if isinstance(rules, Ruleset) else load_ruleset(rules)
    by_deck = {d: rules if d == rules.deck else rules.replace(deck=d) for d in ("long", "short")}
    for n, text, error in numbered_lines(source):
        if error is not None:
            yield n, None, None, error
            continue
        try:
            deal, result = _deal(text, n, rules, by_deck)
        except ReplayError as e:
            msg = str(e)
            yield n, None, None, msg if msg.startswith("line ") else f"line {n}: {msg}"
            continue
        except Exception as e:  # a value of a type no check foresaw: still this line's error, never a traceback
            yield n, None, None, f"line {n}: malformed record ({type(e).__name__}: {e})"
            continue
        yield n, deal, result, None


def read_deals(source, rules: Ruleset | str | None = None) -> Iterator[tuple[int, DealRecord | None, str | None]]:
    """The recorded deals of ``source``: a path (``.jsonl`` or gzip ``.jsonl.gz``, see :func:`open_text`) or an
    iterable of lines. For every non-blank line ``(line, deal, None)`` or ``(line, None, "line N: <what is
    wrong>")``; a bad record never raises. A played record is checked as :func:`parse_game` checks it (every card,
    every leader, all tricks); a thrown-in deal needs ``contract`` and ``declarer`` null, ``suit`` null or absent,
    ``tricks`` empty or absent, no Kontra and four valid disjoint hands of the deck's size. A corrupt or truncated
    gzip stream is one error at the line where reading stopped, and the iteration ends there."""
    for n, deal, _, error in read_settled(source, rules):
        yield n, deal, error
