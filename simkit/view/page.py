"""One graded game as a self-contained HTML page (``simkit view``; docs/analyze.md, "Viewing a game").

The page is ``page.html`` of this package with ``page.css``, ``page.js`` and the game's data (one JSON blob)
put inline: it opens from a file, offline, and needs no server. Everything shown comes from the analysis directory
as ``simkit analyze`` wrote it: ``decisions.parquet`` (the card by card values, losses and flags, and the advice
of every ``--strategy``), ``games.parquet`` (contract, seats, result, the decisive mistake) and ``summary.json``
(the objective). Only pyarrow and the pure-Python referee (trick winners, a player's card order) are used: the
view never loads the solver or the kernels, and builds a page of an analysis of 120,000 games (3.7 million cards)
in about a second, of a small one in milliseconds.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from pathlib import Path

from simkit.cards import CARD_POINTS, SUIT_NAMES, format_card, parse_card

HERE = Path(__file__).resolve().parent
PAGES_DIR = "games"  # beside report.html

DECISION_COLUMNS = ("game_id", "trick", "position", "seat", "player", "role", "contract", "card", "n_legal",
                    "values", "best_value", "played_value", "loss", "forced", "best", "blunder")
GAME_COLUMNS = ("game_id", "line", "contract", "suit", "declarer", "partner", "opening_value", "dd_won", "result",
                "won", "declarer_points", "payout", "decisive_trick", "decisive_seat", "decisive_card")

KIND_TITLES = {"rufspiel": "Rufspiel", "solo": "Solo", "wenz": "Wenz", "geier": "Geier", "farbwenz": "Farbwenz",
               "farbgeier": "Farbgeier", "bettel": "Bettel", "ramsch": "Ramsch"}
UNITS = {"points": "declaring side's card points", "payout": "declarer's payout", "win": "declaring side wins (1) "
         "or loses (0)", "ramsch": "the card's player's own final card points, the other three playing against him "
         "(a bound, docs/analyze.md)"}
#: the objective a club contract is graded under whatever the analysis's (simkit.analyze.grade.graded_objective;
#: the view loads no solver, so it names them here): a Bettel's ``win``, a Ramsch's own points from each mover's view
CLUB_OBJECTIVES = {"bettel": "win", "ramsch": "ramsch"}


class ViewError(ValueError):
    """An analysis directory or game id that cannot be viewed (one line for the user)."""


# ------------------------------------------------------------------------------------------------ reading

def _check_dir(analysis_dir: Path) -> None:
    if not analysis_dir.exists():
        raise ViewError(f"analysis directory {analysis_dir} does not exist")
    if not analysis_dir.is_dir():
        raise ViewError(f"{analysis_dir} is not a directory (give the --out directory of `simkit analyze`)")
    missing = [n for n in ("decisions.parquet", "games.parquet") if not (analysis_dir / n).is_file()]
    if missing:
        raise ViewError(f"{analysis_dir} is not an analysis: it has no {' and no '.join(missing)} (`simkit "
                        "analyze GAMES --out DIR` writes them)")


def _read(path: Path, columns: tuple[str, ...], ids: list[str]):
    """The rows of ``path`` whose game_id is one of ``ids``, and the file's schema.

    Row groups are ruled out by their statistics where they can be, else by their game_id column alone; only the
    groups that hold one of the games are read whole (reading the whole table and filtering took 3 s and 600 MB
    for 3.7 million cards, this 1 s and 230 MB)."""
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    try:
        f = pq.ParquetFile(path)
        schema = f.schema_arrow
        lacking = [c for c in columns if c not in schema.names]
        if lacking:
            raise ViewError(f"{path} is not an analysis table (no column {lacking[0]!r})")
        wanted = pa.array(ids, pa.string())
        lo, hi = min(ids), max(ids)
        hits = []
        for i in range(f.num_row_groups):
            stats = f.metadata.row_group(i).column(schema.get_field_index("game_id")).statistics
            if stats is not None and stats.has_min_max and (hi < stats.min or lo > stats.max):
                continue
            if pc.any(pc.is_in(f.read_row_group(i, columns=["game_id"]).column(0), value_set=wanted)).as_py():
                hits.append(i)
        table = f.read_row_groups(hits) if hits else schema.empty_table()
        return table.filter(pc.is_in(table.column("game_id"), value_set=wanted)), schema
    except (pa.ArrowException, OSError) as e:
        raise ViewError(f"cannot read {path}: {str(e).splitlines()[0]}") from None


def _objective(analysis_dir: Path) -> str | None:
    try:
        objective = json.loads((analysis_dir / "summary.json").read_text(encoding="utf-8")).get("objective")
    except (OSError, ValueError, AttributeError):
        return None  # an analysis written without its report: the page then draws the values without a line
    return objective if objective in UNITS else None


def strategy_columns(names) -> list[str]:
    """The ``--strategy`` columns of a decisions table: ``S`` for every ``S_card`` with its ``S_loss``."""
    return [n[:-5] for n in names if n.endswith("_card") and n != "card" and n[:-5] + "_loss" in names]


def _examples(analysis_dir: Path, k: int = 3) -> tuple[int, list[str]]:
    import pyarrow.parquet as pq

    f = pq.ParquetFile(analysis_dir / "games.parquet")
    first = f.read_row_group(0, columns=["game_id"]).column(0).to_pylist()[:k] if f.num_row_groups else []
    return f.metadata.num_rows, first


def load_games(analysis_dir: str | Path, game_ids) -> dict[str, dict]:
    """The page data (:func:`page_data`) of each of ``game_ids``, read in one pass over each table."""
    analysis_dir = Path(analysis_dir)
    _check_dir(analysis_dir)
    ids = list(dict.fromkeys(str(g) for g in game_ids))
    if not ids:
        return {}
    games, _ = _read(analysis_dir / "games.parquet", GAME_COLUMNS, ids)
    rows: dict[str, list[dict]] = {}
    for g in games.to_pylist():
        rows.setdefault(g["game_id"], []).append(g)
    for gid in ids:
        found = rows.get(gid, [])
        if not found:
            n, first = _examples(analysis_dir)
            like = f"; ids look like {', '.join(repr(x) for x in first)}" if first else ""
            raise ViewError(f"no game {gid!r} in analysis {analysis_dir} ({n:,} games{like})")
        if len(found) > 1:
            lines = ", ".join(str(g["line"]) for g in found)
            raise ViewError(f"game id {gid!r} names {len(found)} games in {analysis_dir} (lines {lines}): give the "
                            "records unique ids to view one")
    decisions, schema = _read(analysis_dir / "decisions.parquet", DECISION_COLUMNS, ids)
    strategies = strategy_columns(schema.names)
    by_game: dict[str, list[dict]] = {gid: [] for gid in ids}
    for d in decisions.to_pylist():  # in play order: the analysis writes each game's cards in order
        by_game[d["game_id"]].append(d)
    objective = _objective(analysis_dir)
    return {gid: _page_data(rows[gid][0], by_game[gid], strategies, objective) for gid in ids}


def page_data(analysis_dir: str | Path, game_id: str) -> dict:
    """Everything the page shows of one game, as plain JSON-able values (the blob inside the page)."""
    return load_games(analysis_dir, [game_id])[str(game_id)]


# ------------------------------------------------------------------------------------------- the data

def _contract(game: dict):
    from simkit.rules.contracts import Contract

    kind, _, tout = game["contract"].partition(" ")
    return Contract.parse(kind, game["suit"], tout == "tout")


def contract_title(game: dict) -> str:
    """``Rufspiel with the Gras ace``, ``Herz-Solo``, ``Wenz Tout``, ``Eichel-Farbwenz``."""
    kind, _, tout = game["contract"].partition(" ")
    suit = (game["suit"] or "").capitalize()
    title = KIND_TITLES.get(kind, kind)
    if kind == "rufspiel":
        title = f"Rufspiel with the {suit} ace"
    elif suit:
        title = f"{suit}-{title}"
    return title + (" Tout" if tout else "")


def won_at(value: int, objective: str | None, tout: bool) -> bool | None:
    """Does the declaring side win with ``value`` (the objective's value of a position)? None when the objective is
    unknown. Under ``points`` a Tout counts as won at 120 points (every trick, unless the defenders can still take
    one worth nothing: the points cannot tell those rare positions apart; the page's first and last points come
    from games.parquet's exact dd_won and won)."""
    if objective == "win":
        return value == 1
    if objective == "payout":
        return value > 0
    if objective == "points":
        return value == 120 if tout else value >= 61
    return None


THRESHOLDS = {"win": 0.5, "payout": 0.0, "points": 60.5}  # the curve's line between won and lost (a Tout: 119.5)


def _page_data(game: dict, decisions: list[dict], strategies: list[str], objective: str | None) -> dict:
    from simkit.reference import player_sort_order, trick_winner, trump_order

    kind = game["contract"].partition(" ")[0]
    objective = CLUB_OBJECTIVES.get(kind, objective)
    ramsch = kind == "ramsch"
    if not decisions:
        raise ViewError(f"game {game['game_id']!r} has no decisions in decisions.parquet (an incomplete analysis?)")
    tout = game["contract"].endswith(" tout")
    hands: list[list[int]] = [[] for _ in range(4)]
    players: list[str | None] = [None] * 4
    for d in decisions:
        hands[d["seat"]].append(parse_card(d["card"]))
        players[d["seat"]] = players[d["seat"]] or d["player"]
    if game.get("hands"):  # as dealt (analyses before games.parquet had them: the cards played, every one of them)
        hands = [[parse_card(c) for c in h] for h in game["hands"]]
    hand_size = len(hands[0])
    deck = "short" if hand_size == 6 else "long"
    contract = _contract(game)
    order = {c: i for i, c in enumerate(player_sort_order(contract, deck))}
    team = {game["declarer"]} | ({game["partner"]} if game["partner"] is not None else set())

    tricks = []
    taken = [0, 0]  # card points taken so far: declaring side, defenders
    declaring_tricks = 0
    seat_points = [0, 0, 0, 0]  # each seat's (a Ramsch: everyone for himself)
    for t in range(0, len(decisions), 4):
        cards = [parse_card(d["card"]) for d in decisions[t:t + 4]]
        leader = decisions[t]["seat"]
        trick = {"leader": leader, "cards": [format_card(c) for c in cards]}
        if len(cards) == 4:
            winner = trick_winner(cards, leader, contract)
            points = sum(CARD_POINTS[c] for c in cards)
            taken[0 if winner in team else 1] += points
            declaring_tricks += winner in team
            seat_points[winner] += points
            trick.update(winner=winner, points=points, declaring_points=taken[0], declaring_tricks=declaring_tricks,
                         seat_points=list(seat_points))
        tricks.append(trick)

    decisive = None
    rows = []
    for i, d in enumerate(decisions):
        row = {k: d[k] for k in ("trick", "position", "seat", "card", "best_value", "played_value", "loss",
                                 "forced", "best", "blunder")}
        row["values"] = [[v["card"], v["value"]] for v in d["values"]]
        row["advice"] = {s: {"card": d[f"{s}_card"], "loss": d[f"{s}_loss"]} for s in strategies
                         if d.get(f"{s}_card") is not None}
        if decisive is None and game["decisive_trick"] == d["trick"] and game["decisive_card"] == d["card"]:
            decisive = i
        rows.append(row)

    values = [decisions[0]["best_value"]] + [d["played_value"] for d in decisions]
    won = [won_at(v, objective, tout) for v in values]
    if not ramsch:  # the ends are known exactly, a Tout's too (a Ramsch has no side that wins)
        won[0], won[-1] = bool(game["dd_won"]), bool(game["won"])
    name = [p or f"seat {s}" for s, p in enumerate(players)]
    return {
        "id": game["game_id"],
        "line": game["line"],
        "title": contract_title(game),
        "contract": game["contract"],
        "suit": game["suit"],
        "tout": tout,
        "deck": deck,
        "called": f"{game['suit'][0].upper()}A" if game["contract"] == "rufspiel" else None,
        "declarer": game["declarer"],
        "partner": game["partner"],
        "players": name,
        "roles": ["ramsch" if ramsch else "declarer" if s == game["declarer"] else "partner" if s == game["partner"]
                  else "defender" for s in range(4)],
        "trumps": [format_card(c) for c in trump_order(contract, deck)],
        "hands": [[format_card(c) for c in sorted(h, key=order.__getitem__)] for h in hands],
        "objective": objective,
        "unit": UNITS.get(objective, "value"),
        "threshold": 119.5 if tout and objective == "points" else THRESHOLDS.get(objective),
        "opening_value": game["opening_value"],
        "dd_won": game["dd_won"],
        "result": {"value": game["result"], "won": game["won"], "declarer_points": game["declarer_points"],
                   "payout": game["payout"], "declarer_tricks": declaring_tricks, "seat_points": seat_points},
        "decisive": decisive,
        "recorded": len(rows) - (game.get("conceded") or 0),  # the cards after these were filled in
        "strategies": strategies,
        "decisions": rows,
        "tricks": tricks,
        "values": values,
        "won": won,
    }


# ------------------------------------------------------------------------------------------- the page

def _template() -> str:
    page = (HERE / "page.html").read_text(encoding="utf-8")
    return (page.replace("/*STYLE*/", (HERE / "page.css").read_text(encoding="utf-8"))
            .replace("/*SCRIPT*/", (HERE / "page.js").read_text(encoding="utf-8")))


def _html_escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def render(data: dict) -> str:
    """The page of one game's :func:`page_data`."""
    # inside <script type="application/json"> only "</" could end the element early
    blob = json.dumps(data, ensure_ascii=False, separators=(",", ":")).replace("</", "<\\/")
    return (_template().replace("__TITLE__", _html_escape(f"{data['id']}: {data['title']}"))
            .replace("__DATA__", blob))


def build_page(analysis_dir: str | Path, game_id: str) -> str:
    """The HTML page of game ``game_id`` of an analysis directory (``simkit analyze --out``)."""
    return render(page_data(analysis_dir, game_id))


def page_name(game_id: str) -> str:
    """The page's file name: the id where it is a plain file name, else a cleaned id and a short hash (so two ids
    never share a page)."""
    slug = re.sub(r"[^A-Za-z0-9_.-]+", "-", game_id).strip("-.")[:80]
    if slug != game_id or not slug:
        slug = (slug + "-" if slug else "") + hashlib.sha1(game_id.encode()).hexdigest()[:8]
    return slug + ".html"


def write_atomic(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` through a temporary file beside it: a failure never leaves half a page."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")  # opened plainly: the umask's mode, unlike mkstemp's 0600
    try:
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def write_page(analysis_dir: str | Path, game_id: str, out: str | Path | None = None) -> Path:
    """Write the page of ``game_id`` to ``out`` (default ``ANALYSIS_DIR/games/<page_name>``); return its path."""
    analysis_dir = Path(analysis_dir)
    text = build_page(analysis_dir, game_id)
    path = Path(out) if out is not None else analysis_dir / PAGES_DIR / page_name(str(game_id))
    write_atomic(path, text)
    return path


def write_pages(analysis_dir: str | Path, game_ids) -> dict[str, str]:
    """Write the page of each game into ``ANALYSIS_DIR/games/``; return each id's path relative to the directory
    (what report.html links to)."""
    analysis_dir = Path(analysis_dir)
    links = {}
    for gid, data in load_games(analysis_dir, game_ids).items():
        rel = f"{PAGES_DIR}/{page_name(gid)}"
        write_atomic(analysis_dir / rel, render(data))
        links[gid] = rel
    return links
