"""Summaries and the report of a graded file (``simkit analyze``): tables from ``decisions.parquet`` and
``games.parquet``, read lazily (polars scans), so their size does not matter.

Loss figures are over **choices**: decisions with more than one legal card (a forced card has no loss by
definition and would only dilute the means). Units are those of the objective a game is graded under
(:func:`graded_expr`): card points (``points``), the declarer's payout (``payout``; a solo's declarer gets three
prices), or games (``win``: 1 = the card lost the game); a Bettel is always graded under ``win``, a Ramsch under
its own player's points (``ramsch``). No mean mixes two of them: every loss figure is per contract, or per unit
(``by_unit``, and the player and strategy tables carry the unit of each row).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import polars as pl

from analysis.page import Section, grid, png, write
from simkit.stats import mean_interval, wilson

ROLES = ("declarer", "partner", "defender")
SWING_GAMES = 8  # games drawn in the "value through the game" chart
#: what a loss is counted in, by the objective a game is graded under (simkit.analyze.grade.graded_objective)
UNITS = {"points": "card points (the declaring side's)", "payout": "payout units (the declarer's payout)",
         "win": "games (1 = the card lost the game)",
         "ramsch": "the mover's own card points in a Ramsch (a bound: the other three against him)"}


def graded_expr(objective: str) -> pl.Expr:
    """The objective each row's game is graded under, from its ``contract``: a Bettel ``win``, a Ramsch
    ``ramsch`` (its own player's points), any other contract ``objective`` (docs/analyze.md "Club records")."""
    c = pl.col("contract")
    return (pl.when(c == "bettel").then(pl.lit("win")).when(c == "ramsch").then(pl.lit("ramsch"))
            .otherwise(pl.lit(objective)).alias("graded"))


def _with_unit(df: pl.DataFrame) -> pl.DataFrame:
    return df.with_columns(pl.col("graded").replace_strict(UNITS, return_dtype=pl.String).alias("unit"))


def _choices(decisions: pl.LazyFrame) -> pl.LazyFrame:
    return decisions.filter(~pl.col("forced"))


def _loss_aggs(loss: str = "loss") -> list[pl.Expr]:
    return [pl.len().alias("choices"), pl.col(loss).sum().cast(pl.Float64).alias("_s"),
            (pl.col(loss).cast(pl.Float64) ** 2).sum().alias("_q")]


def _with_mean(df: pl.DataFrame, prefix: str = "loss") -> pl.DataFrame:
    m, lo, hi = mean_interval(df["choices"].to_numpy(), df["_s"].to_numpy(), df["_q"].to_numpy())
    return df.drop("_s", "_q").with_columns(pl.Series(f"mean_{prefix}", m), pl.Series(f"{prefix}_low", lo),
                                            pl.Series(f"{prefix}_high", hi))


def _with_share(df: pl.DataFrame, count: str, name: str, n: str = "choices") -> pl.DataFrame:
    lo, hi = wilson(df[count].to_numpy(), df[n].to_numpy())
    return df.with_columns((pl.col(count) / pl.col(n)).alias(name), pl.Series(f"{name}_low", lo),
                           pl.Series(f"{name}_high", hi))


def loss_by_role(decisions: pl.LazyFrame, objective: str = "points") -> pl.DataFrame:
    """Per contract and role: choices, mean loss (95% interval) and its unit, share of best cards, blunders per
    100 choices."""
    df = (_choices(decisions).with_columns(graded_expr(objective)).group_by("contract", "role", "graded")
          .agg(*_loss_aggs(), pl.col("best").sum().alias("best_cards"), pl.col("blunder").sum().alias("blunders"))
          .collect())
    df = _with_unit(_with_share(_with_mean(df), "best_cards", "best_share"))
    order = {r: i for i, r in enumerate(ROLES)}
    return (df.with_columns((100 * pl.col("blunders") / pl.col("choices")).alias("blunders_per_100"),
                            pl.col("role").replace_strict(order, default=9).alias("_o"))
            .sort("contract", "_o").drop("_o"))


def by_unit(decisions: pl.LazyFrame, games: pl.LazyFrame, objective: str) -> pl.DataFrame:
    """Per objective the games are graded under (one unit each): its contracts, games, choices, mean loss (95%
    interval), share of best cards, blunders. The summary's loss figures, a line per unit."""
    df = (_choices(decisions).with_columns(graded_expr(objective)).group_by("graded")
          .agg(*_loss_aggs(), pl.col("best").sum().alias("best_cards"), pl.col("blunder").sum().alias("blunders"),
               pl.col("contract").unique().sort().str.join(", ").alias("contracts"))
          .collect())
    n_games = games.with_columns(graded_expr(objective)).group_by("graded").agg(pl.len().alias("games")).collect()
    df = n_games.join(df, on="graded", how="left").with_columns(
        pl.col("choices").fill_null(0), pl.col("_s").fill_null(0.0), pl.col("_q").fill_null(0.0),
        pl.col("best_cards").fill_null(0), pl.col("blunders").fill_null(0), pl.col("contracts").fill_null(""))
    df = _with_unit(_with_share(_with_mean(df), "best_cards", "best_share"))
    order = {g: i for i, g in enumerate((objective, "points", "payout", "win", "ramsch"))}
    return (df.with_columns(pl.col("graded").replace_strict(order, default=9).alias("_o")).sort("_o").drop("_o")
            .select("graded", "unit", "contracts", "games", "choices", "mean_loss", "loss_low", "loss_high",
                    "best_cards", "best_share", "best_share_low", "best_share_high", "blunders"))


def by_contract(games: pl.LazyFrame) -> pl.DataFrame:
    """Per contract: games, blunders per game, games with a decisive mistake, the declaring side's actual win
    rate next to the share of openings it had in hand (double dummy)."""
    df = (games.group_by("contract")
          .agg(pl.len().alias("games"), pl.col("blunders").mean().alias("blunders_per_game"),
               pl.col("decisive_trick").is_not_null().sum().alias("decided_by_mistake"),
               pl.col("won").sum().alias("won"), pl.col("dd_won").sum().alias("dd_won"),
               pl.col("ms").median().alias("median_ms"))
          .collect())
    df = _with_share(df, "won", "win_rate", "games")
    df = _with_share(df, "dd_won", "dd_win_rate", "games")
    return df.with_columns((pl.col("decided_by_mistake") / pl.col("games")).alias("mistake_share")).sort(
        "games", descending=True)


def by_player(decisions: pl.LazyFrame, objective: str = "points") -> pl.DataFrame:
    """Per named player and unit (the objective his games are graded under): games, choices, mean loss (95%
    interval), share of best cards (Wilson), blunders."""
    df = (_choices(decisions).filter(pl.col("player").is_not_null()).with_columns(graded_expr(objective))
          .group_by("player", "graded")
          .agg(pl.col("game_id").n_unique().alias("games"), *_loss_aggs(), pl.col("best").sum().alias("best_cards"),
               pl.col("blunder").sum().alias("blunders"))
          .collect())
    if df.height == 0:
        return df
    df = _with_unit(_with_share(_with_mean(df), "best_cards", "best_share"))
    return df.with_columns((100 * pl.col("blunders") / pl.col("choices")).alias("blunders_per_100")).sort(
        "graded", "mean_loss", "player")


def by_strategy(decisions: pl.LazyFrame, strategies: list[str], objective: str = "points") -> pl.DataFrame:
    """Per ``--strategy`` and unit (the objective the games are graded under): agreement with the recorded cards
    and its mean loss beside the recorded players' (the same choices)."""
    rows = []
    for s in strategies:
        df = (_choices(decisions).with_columns(graded_expr(objective)).group_by("graded").agg(
            pl.len().alias("choices"), (pl.col(f"{s}_card") == pl.col("card")).sum().alias("agree"),
            pl.col(f"{s}_loss").sum().cast(pl.Float64).alias("_s"),
            (pl.col(f"{s}_loss").cast(pl.Float64) ** 2).sum().alias("_q"),
            pl.col("loss").sum().cast(pl.Float64).alias("_rs"),
            (pl.col("loss").cast(pl.Float64) ** 2).sum().alias("_rq")).sort("graded").collect())
        for r in df.iter_rows(named=True):
            n, agree = r["choices"], r["agree"]
            m, lo, hi = mean_interval(n, r["_s"], r["_q"])
            rm, rlo, rhi = mean_interval(n, r["_rs"], r["_rq"])
            alo, ahi = wilson(agree, n)
            rows.append({"strategy": s, "graded": r["graded"], "unit": UNITS[r["graded"]], "choices": n,
                         "agreement": agree / n if n else None, "agreement_low": float(alo),
                         "agreement_high": float(ahi), "mean_loss": float(m), "loss_low": float(lo),
                         "loss_high": float(hi), "recorded_mean_loss": float(rm), "recorded_low": float(rlo),
                         "recorded_high": float(rhi)})
    return pl.DataFrame(rows)


def swings(games: pl.LazyFrame, k: int = SWING_GAMES, objective: str = "points") -> pl.DataFrame:
    """The ``k`` games whose value moved most, with the value before the first card and after each trick: of the
    games graded under ``objective`` (one unit in one chart), or the Bettels (``win``) when there are none. A
    Ramsch has no chain of values (docs/analyze.md)."""
    g = games.with_columns(graded_expr(objective)).filter(pl.col("swing").is_not_null())
    present = set(g.select("graded").unique().collect()["graded"].to_list())
    pick = objective if objective in present or not present else "win"
    return (g.filter(pl.col("graded") == pick).sort("swing", "line", descending=[True, False]).head(k)
            .select("game_id", "contract", "graded", "opening_value", "value_after_trick", "swing",
                    "decisive_trick", "decisive_seat", "decisive_card").collect()
            .with_columns(pl.col("value_after_trick").cast(pl.List(pl.String)).list.join(" ")))


def fig_swings(df: pl.DataFrame, objective: str) -> bytes:
    fig, axes = grid(1, 7.0, 3.6)
    ax = axes[0]
    for r in df.iter_rows(named=True):
        ys = [r["opening_value"]] + [int(x) for x in r["value_after_trick"].split()]
        label = str(r["game_id"])
        ax.plot(range(len(ys)), ys, marker="o", ms=3, label=label if len(label) <= 40 else "..." + label[-37:])
        if r["decisive_trick"] is not None:
            t = r["decisive_trick"]
            ax.plot([t], [ys[t]], "kx", ms=8)
    if objective == "points":
        ax.axhline(60.5, color="k", lw=0.8, ls="--")
    ax.set_xlabel("after trick (0: before the first card)")
    ax.set_ylabel({"points": "declaring side's points (DD)", "payout": "declarer's payout (DD)",
                   "win": "declaring side wins (DD)"}[objective])
    ax.set_title("Value through the game, the games that swung most (x: trick of the first decisive mistake)")
    ax.legend(fontsize=7, loc="best")
    return png(fig)


def summary(out: Path, objective: str, strategies: list[str]) -> dict:
    """Every table of a graded directory, plus the headline numbers (``summary.json``)."""
    decisions = pl.scan_parquet(out / "decisions.parquet")
    games = pl.scan_parquet(out / "games.parquet")
    head = games.select(pl.len().alias("games"), pl.col("blunders").sum().alias("blunders"),
                        pl.col("decisive_trick").is_not_null().sum().alias("games_decided_by_a_mistake"),
                        pl.col("ms").median().alias("median_ms_per_game")).collect().row(0, named=True)
    dec = decisions.select(pl.len().alias("decisions"), (~pl.col("forced")).sum().alias("choices"),
                           pl.col("best").filter(~pl.col("forced")).mean().alias("best_share"),
                           pl.col("loss").filter(~pl.col("forced")).mean().alias("mean_loss")).collect()
    head.update(dec.row(0, named=True))
    units = by_unit(decisions, games, objective)
    if units.height > 1:  # a mean over two units would mean nothing: the loss figures are per unit only
        head["mean_loss"] = None
        head["unit"] = "mixed: see by_unit"
    else:
        head["unit"] = UNITS[units["graded"][0]] if units.height else UNITS[objective]
    head["by_unit"] = [{k: _finite(r[k]) for k in ("graded", "unit", "contracts", "games", "choices", "mean_loss",
                                                   "loss_low", "loss_high", "best_share", "blunders")}
                       for r in units.iter_rows(named=True)]
    tables = {"by_unit": units, "loss_by_role": loss_by_role(decisions, objective), "by_contract": by_contract(games),
              "swings": swings(games, objective=objective)}
    players = by_player(decisions, objective)
    if players.height:
        tables["by_player"] = players
    if strategies:
        tables["by_strategy"] = by_strategy(decisions, strategies, objective)
        head["by_strategy"] = [{k: _finite(r[k]) for k in ("strategy", "graded", "unit", "choices", "agreement",
                                                           "mean_loss", "loss_low", "loss_high",
                                                           "recorded_mean_loss")}
                               for r in tables["by_strategy"].iter_rows(named=True)]
    return {"objective": objective, **head, "tables": tables}


def _finite(x):
    """None for a NaN (no choices, or one: no interval), so that summary.json stays JSON."""
    return None if isinstance(x, float) and not np.isfinite(x) else x


def write_summary(out: Path, result, opts) -> dict:
    """``summary.json``, ``tables/*.csv`` and ``report.html``/``report.md`` of a graded directory."""
    from simkit.analyze.advice import column_name

    strategies = [column_name(s) for s in opts.strategies]
    s = summary(out, opts.objective, strategies)
    tables = s.pop("tables")
    head = {**s, "bad_records": len(result.errors), "seconds": round(result.seconds, 3)}
    if strategies:  # what their advice's random streams were seeded with (simkit analyze --advice-seed)
        head["advice_seed"] = getattr(opts, "advice_seed", 0)
    (out / "summary.json").write_text(json.dumps(head, indent=2, default=_jsonable) + "\n", encoding="utf-8")
    # a page for every game the report names, written first so that no link of report.html is ever dangling
    from simkit.view import write_pages

    pages = write_pages(out, tables["swings"]["game_id"].to_list())
    write(_sections(head, tables, opts.objective, strategies, pages), tables, out, "simkit analyze: " + out.name)
    return {**head, "tables": tables}


def _jsonable(x):
    if isinstance(x, (np.integer,)):
        return int(x)
    if isinstance(x, (np.floating,)):
        return float(x)
    raise TypeError(type(x))


def _sections(head: dict, tables: dict, objective: str, strategies: list[str], pages: dict | None = None
              ) -> list[Section]:
    """The report's sections; ``pages`` maps game ids to their pages (``simkit view``), which the tables link."""
    intro = Section("Overview", f"{head['games']:,} games, {head['decisions']:,} cards, {head['choices']:,} of them "
                    f"choices (more than one legal card). Objective: {objective} (a Bettel is graded under win, a "
                    "Ramsch under its own player's points); a loss is the value of the best card for the player's "
                    "side minus the value of the card played, with every hand open and perfect play from there on "
                    "(docs/analyze.md), in the unit of the objective the game is graded under: one line per unit "
                    "below, no mean mixes two.")
    intro.tables.append(("", pl.DataFrame([{k: head[k] for k in ("games", "choices", "best_share", "blunders",
                                                                  "games_decided_by_a_mistake",
                                                                  "median_ms_per_game")}]), {
        "games": ("games", "int"), "choices": ("choices", "int"), "best_share": ("best cards", "pct"),
        "blunders": ("blunders", "int"), "games_decided_by_a_mistake": ("games decided by a mistake", "int"),
        "median_ms_per_game": ("median ms a game", ".1f")}))
    intro.tables.append(("Loss by unit", tables["by_unit"], {
        "graded": ("graded under", None), "unit": ("unit", None), "contracts": ("contracts", None),
        "games": ("games", "int"), "choices": ("choices", "int"), "mean_loss": ("mean loss", ".2f"),
        "loss_low": ("95% low", ".2f"), "loss_high": ("95% high", ".2f"), "best_share": ("best cards", "pct"),
        "blunders": ("blunders", "int")}))
    roles = Section("Loss per card by role and contract",
                    "Over choices only. A blunder: a loss of 10 or more card points, or a card that turns a won "
                    "game into a lost one, or gives up or concedes Schneider or Schwarz. 95% intervals.")
    roles.tables.append(("", tables["loss_by_role"], {
        "contract": ("contract", None), "role": ("role", None), "unit": ("unit", None), "choices": ("choices", "int"),
        "mean_loss": ("mean loss", ".2f"), "loss_low": ("95% low", ".2f"), "loss_high": ("95% high", ".2f"),
        "best_share": ("best cards", "pct"), "best_share_low": ("95% low", "pct"),
        "best_share_high": ("95% high", "pct"), "blunders_per_100": ("blunders / 100", ".1f")}))
    contracts = Section("Games", "Per contract: blunders per game, the share of games whose outcome a mistake "
                        "decided, and the declaring side's win rate next to the share of games it had in hand "
                        "before the first card (double dummy).")
    contracts.tables.append(("", tables["by_contract"], {
        "contract": ("contract", None), "games": ("games", "int"), "blunders_per_game": ("blunders a game", ".2f"),
        "mistake_share": ("decided by a mistake", "pct"), "win_rate": ("win rate", "pct"),
        "dd_win_rate": ("DD win rate", "pct"), "median_ms": ("median ms", ".1f")}))
    sw = tables["swings"]
    graded = sw["graded"][0] if sw.height else objective
    swing = Section("Value through the game", "The games whose double-dummy value moved most; each game links "
                    "to its page, to step through it card by card (simkit view). The games graded under "
                    f"{graded} only (values in {UNITS[graded]}): a chart holds one unit.")
    if sw.height:
        swing.figures.append(("swings", fig_swings(sw, graded)))
    swing.tables.append(("", sw.drop("value_after_trick", "graded"), {
        "game_id": ("game", pages or None), "contract": ("contract", None), "opening_value": ("opening value", None),
        "swing": ("swing", None), "decisive_trick": ("decisive trick", None), "decisive_seat": ("seat", None),
        "decisive_card": ("card", None)}))
    sections = [intro, roles, contracts, swing]
    if "by_player" in tables:
        p = Section("Players", "Per player named in the records' players field, over choices; 95% intervals.")
        p.tables.append(("", tables["by_player"], {
            "player": ("player", None), "unit": ("unit", None), "games": ("games", "int"),
            "choices": ("choices", "int"),
            "mean_loss": ("mean loss", ".2f"), "loss_low": ("95% low", ".2f"), "loss_high": ("95% high", ".2f"),
            "best_share": ("best cards", "pct"), "best_share_low": ("95% low", "pct"),
            "best_share_high": ("95% high", "pct"), "blunders_per_100": ("blunders / 100", ".1f")}))
        sections.append(p)
    if strategies:
        st = Section("Strategies", "What each --strategy would have played at the recorded choices, seeing only "
                     "what the seat saw: its agreement with the recorded cards and its mean loss beside the "
                     "recorded players' (same choices). 95% intervals.")
        st.tables.append(("", tables["by_strategy"], {
            "strategy": ("strategy", None), "unit": ("unit", None), "choices": ("choices", "int"),
            "agreement": ("agreement", "pct"),
            "agreement_low": ("95% low", "pct"), "agreement_high": ("95% high", "pct"),
            "mean_loss": ("mean loss", ".2f"), "loss_low": ("95% low", ".2f"), "loss_high": ("95% high", ".2f"),
            "recorded_mean_loss": ("recorded mean loss", ".2f"), "recorded_low": ("95% low", ".2f"),
            "recorded_high": ("95% high", ".2f")}))
        sections.append(st)
    return sections
