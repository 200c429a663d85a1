"""Grading one recorded game card by card with the double-dummy solver.

For every card played: the value of each legal card (the solver's objective: the declaring side's final card
points, the declarer's payout, or win 1/0), the value of the card played, and its **loss** for the seat that played
it (the best value for that seat's side minus the played card's, so never negative; 0 for a best card).

A **blunder** is a card with a loss of 10 or more card points (``points`` objective), or a card that changes the
game's outcome level against its side: won -> lost, or Schneider or Schwarz given up or conceded. Under ``win``
every loss is the game; under ``payout`` every loss is a change of level (the payout is a step function of it).
With ``points`` the level comes from the points (61 wins, 91 Schneider for the declaring side, 30 or fewer
Schneider against it), refined by two trick questions where Schwarz is possible: the minimax of a monotone function
of the points is that function of the minimax, so thresholds on the exact value are exact.

The **first decisive mistake** is the first card after which the side that had the game in hand no longer has it
(the win status before a card differs from the status after it; only the mover's own side can lose it).

The club contracts (docs/analyze.md): a **Bettel** is graded under ``win`` whatever the objective asked (1 iff the
declarer takes no trick: a Bettel has no card points to play for), the declarer against the three defenders. A
**Ramsch** is graded under ``points`` whatever the objective asked, each card from its own player's view: the
values are the mover's own final card points with the other three against him (a bound, not the four-player
game's value), his loss the played card's value minus the best (lowest) one; a blunder is a loss of 10 points or
more. A Ramsch has no declaring side, so no outcome levels, no decisive mistake and no value after each trick. A
**Sie** is graded as the Herz solo it is under the objective asked: its holder takes every trick whatever anyone
plays, so every card is a best card (loss 0) and the game is won Schwarz from the opening on.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from simkit.analyze.records import GameRecord
from simkit.cards import cards_of, format_card
from simkit.rules.contracts import BETTEL, RAMSCH, SIE
from simkit.solver import Position, Workspace, threshold
from simkit.solver.api import final_value, solve_line

BLUNDER_POINTS = 10  # a points loss of this much or more is a blunder

# outcome levels of the declaring side (the payout chain of simkit.solver.values)
LOST_SCHWARZ, LOST_SCHNEIDER, LOST, WON, WON_SCHNEIDER, WON_SCHWARZ = range(6)
TOUT_LOST, TOUT_WON = 0, 1


@dataclass
class GradedGame:
    """The decision rows (one per card) and the game row of one graded game (plain dicts: the writer batches them
    into Parquet)."""

    decisions: list[dict] = field(default_factory=list)
    game: dict = field(default_factory=dict)


def _level(opening: Position, plays, i: int, value: int, objective: str, ws: Workspace) -> int:
    """The declaring side's outcome level after the first ``i`` cards of ``plays``, whose value under
    ``objective`` is ``value``."""
    if objective == "win":
        return int(value)
    if opening.contract.kind == SIE:  # won Schwarz whatever is played (its six payout levels are one price)
        return WON_SCHWARZ
    if objective == "payout":
        return opening.level_payouts.index(value)
    n = opening.rules.hand_size
    if opening.contract.tout:  # won only with every trick, which is worth 120: below that it is lost
        return TOUT_WON if value == 120 and threshold(opening.after(*plays[:i]), tricks=n, workspace=ws) \
            else TOUT_LOST
    if value not in (0, 120):
        return WON_SCHNEIDER if value >= 91 else WON if value >= 61 else LOST if value >= 31 else LOST_SCHNEIDER
    pos = opening.after(*plays[:i])  # Schwarz is possible: ask the trick question
    if value == 120:
        return WON_SCHWARZ if threshold(pos, tricks=n, workspace=ws) else WON_SCHNEIDER
    return LOST_SCHWARZ if not threshold(pos, tricks=1, workspace=ws) else LOST_SCHNEIDER


def _won(level: int, objective: str, tout: bool) -> bool:
    if objective == "win":
        return level == 1
    return level >= (TOUT_WON if tout else WON)


def graded_objective(contract, objective: str) -> str:
    """The objective a game of ``contract`` is graded under: ``objective``, except a Bettel's ``win`` and a
    Ramsch's ``points`` (the only ones they have)."""
    if contract.kind == BETTEL:
        return "win"
    if contract.kind == RAMSCH:
        return "points"
    return objective


def _maximises(seat: int, pos: Position) -> bool:
    """Does ``seat`` want the values high? (A Ramsch's values are the mover's own points: nobody grading his own
    card wants them high; a Bettel's are the declarer's win.)"""
    if pos.contract.kind == RAMSCH:
        return False
    if pos.contract.kind == BETTEL:
        return seat == pos.declarer
    return seat in pos.team


def role_of(seat: int, pos: Position) -> str:
    if pos.declarer is None:  # a Ramsch: everyone for himself
        return "ramsch"
    if seat == pos.declarer:
        return "declarer"
    return "partner" if seat == pos.partner else "defender"


def grade_game(game: GameRecord, objective: str = "points", *, workspace: Workspace | None = None,
               advisors=()) -> GradedGame:
    """Grade every card of ``game`` (a checked record, simkit.analyze.records). ``advisors`` are
    ``(name, advisor)`` pairs: ``advisor.card(seat, position_index)`` says what that strategy would have played at
    the decision, seeing only what the seat saw (simkit.analyze.advice); its loss is read from the same values."""
    ws = workspace or Workspace()
    ws.clear()  # a game's positions share the table; other games' entries would be safe too, but crowd it
    opening = game.opening
    tout = opening.contract.tout
    plays = game.plays
    objective = graded_objective(opening.contract, objective)
    ramsch = opening.contract.kind == RAMSCH
    out = GradedGame()
    sols = solve_line(opening, plays, objective, workspace=ws)  # a Ramsch: each position from its mover's view
    end = opening.after(*plays)
    if ramsch:  # the views change from card to card: no chain of values, no levels
        values = [sol.value for sol in sols] + [None]
        return _grade_ramsch(game, sols, values, end, advisors, out)
    values = [sol.value for sol in sols] + [final_value(end, objective)]
    assert values[-1] == sols[-1].values[plays[-1]], "the last card's value is the game's result"
    levels = [_level(opening, plays, 0, values[0], objective, ws)]
    after_trick: list[int] = []
    decisive = None
    for i, (card, sol) in enumerate(zip(plays, sols)):
        seat = sol.to_move
        team = _maximises(seat, opening)
        best_value = sol.value
        played_value = sol.values[card]
        assert played_value == values[i + 1], "a card's value is the value of the position after it"
        loss = (best_value - played_value) if team else (played_value - best_value)
        levels.append(_level(opening, plays, i + 1, played_value, objective, ws))
        level, next_level = levels[i], levels[i + 1]
        row = {
            "game_id": game.game_id,
            "trick": i // 4 + 1,
            "position": i % 4,
            "seat": seat,
            "player": game.player(seat),
            "role": role_of(seat, opening),
            "contract": game.contract_label,
            "card": card,
            "n_legal": len(sol.values),
            "values": sol.values,
            "best_value": best_value,
            "played_value": played_value,
            "loss": loss,
            "forced": len(sol.values) == 1,
            "best": loss == 0,
            "blunder": next_level != level or (objective == "points" and loss >= BLUNDER_POINTS),
        }
        for name, advisor in advisors:
            c = advisor.card(seat, i)
            v = sol.values[c]
            row[f"{name}_card"] = c
            row[f"{name}_loss"] = (best_value - v) if team else (v - best_value)
        out.decisions.append(row)
        if decisive is None and _won(next_level, objective, tout) != _won(level, objective, tout):
            decisive = (i // 4 + 1, seat, card)
        if i % 4 == 3:
            after_trick.append(played_value)
    opening_value, opening_level, value = values[0], levels[0], values[-1]
    r = end.game.result()
    through = [opening_value] + after_trick
    out.game = {
        "game_id": game.game_id,
        "contract": game.contract_label,
        "suit": opening.contract.suit,
        "declarer": opening.declarer,
        "partner": opening.partner,
        "opening_value": opening_value,
        "dd_won": _won(opening_level, objective, tout),
        "result": value,
        "won": r.won,
        "declarer_points": r.declarer_points,
        "payout": r.payouts[opening.declarer],
        "value_after_trick": after_trick,
        "swing": max(through) - min(through),
        "loss_declaring": sum(d["loss"] for d in out.decisions if d["role"] != "defender"),
        "loss_defending": sum(d["loss"] for d in out.decisions if d["role"] == "defender"),
        "blunders": sum(d["blunder"] for d in out.decisions),
        "decisive_trick": decisive[0] if decisive else None,
        "decisive_seat": decisive[1] if decisive else None,
        "decisive_card": decisive[2] if decisive else None,
        "conceded": game.conceded,
        "hands": dealt_hands(opening),
    }
    return out


def dealt_hands(opening) -> list[list[str]]:
    """The four hands as dealt, in card notation (games.parquet's ``hands``: the view shows the cards a record that
    stops early never plays, a Bettel's after the declarer's first trick)."""
    return [[format_card(c) for c in cards_of(h)] for h in opening.hands]


def _grade_ramsch(game: GameRecord, sols, values, end: Position, advisors, out: GradedGame) -> GradedGame:
    """The rows of a Ramsch: each card graded from its own player's view (his own final points, which he wants
    low, the other three against him)."""
    opening = game.opening
    for i, (card, sol) in enumerate(zip(game.plays, sols)):
        seat = sol.to_move
        best_value, played_value = sol.value, sol.values[card]
        loss = played_value - best_value
        row = {
            "game_id": game.game_id, "trick": i // 4 + 1, "position": i % 4, "seat": seat,
            "player": game.player(seat), "role": role_of(seat, opening), "contract": game.contract_label,
            "card": card, "n_legal": len(sol.values), "values": sol.values, "best_value": best_value,
            "played_value": played_value, "loss": loss, "forced": len(sol.values) == 1, "best": loss == 0,
            "blunder": loss >= BLUNDER_POINTS,
        }
        for name, advisor in advisors:
            c = advisor.card(seat, i)
            row[f"{name}_card"] = c
            row[f"{name}_loss"] = sol.values[c] - best_value
        out.decisions.append(row)
    r = end.game.result()
    out.game = {
        "game_id": game.game_id, "contract": game.contract_label, "suit": None, "declarer": None, "partner": None,
        # seat 0's bound at the opening (it leads): the most points the other three can push on it
        "opening_value": values[0], "dd_won": None,
        "result": r.seat_points[0], "won": None, "declarer_points": None,
        "payout": None,
        "value_after_trick": [], "swing": None,
        # no declaring side: every seat's loss counts as defending (against the other three)
        "loss_declaring": 0, "loss_defending": sum(d["loss"] for d in out.decisions),
        "blunders": sum(d["blunder"] for d in out.decisions),
        "decisive_trick": None, "decisive_seat": None, "decisive_card": None, "conceded": game.conceded,
        "hands": dealt_hands(opening),
    }
    return out
