"""Recorded games for grading: a replay record (README.md, "Replay records") checked card by card as
``simkit replay`` checks it, plus an optional ``players`` field (four names, seat 0 first)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from simkit.replay import ReplayError, load_json_line, play_tricks, start_game
from simkit.rules.ruleset import Ruleset
from simkit.solver import Position


@dataclass(frozen=True)
class GameRecord:
    game_id: str
    line: int
    record: dict  # the record as read (without ``players``)
    players: tuple[str, str, str, str] | None
    opening: Position
    plays: tuple[int, ...]  # every card in play order

    def player(self, seat: int) -> str | None:
        return self.players[seat] if self.players else None

    @property
    def contract_label(self) -> str:
        """The contract's kind as in run files ("rufspiel", "solo", ...), with " tout" for a Tout."""
        c = self.opening.contract
        return c.name + (" tout" if c.tout else "")


def _players(value) -> tuple[str, str, str, str]:
    if not isinstance(value, list) or len(value) != 4 or not all(isinstance(p, str) and p for p in value):
        raise ReplayError("players must be a list of four names (seat 0 first)")
    return tuple(value)


def parse_game(record, line: int, rules: Ruleset | str | None = None) -> GameRecord:
    """Check a whole recorded game (every card, every leader) and return it ready for grading. Raises
    :class:`ReplayError` naming the problem."""
    if not isinstance(record, dict):
        raise ReplayError("a replay record must be a JSON object")
    record = dict(record)
    players = _players(record.pop("players")) if "players" in record else None
    game = start_game(record, rules)
    play_tricks(game, record["tricks"])
    plays = tuple(c for _, cards, _ in game.tricks for c in cards)
    opening = Position(game.rules, game.contract, game.declarer, tuple(game.dealt), (), game.doublings,
                       game.tariff)
    gid = record.get("id")
    return GameRecord(str(gid) if gid is not None else f"line {line}", line, record, players, opening, plays)


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
    with open(path, encoding="utf-8") as f:
        yield from read_games(f, rules)
