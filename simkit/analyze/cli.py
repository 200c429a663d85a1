"""``simkit analyze``: the command-line face of :func:`simkit.analyze.batch.analyze_file` (registered in
simkit.cli)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import List, Optional

import typer
from rich.table import Table

from simkit.cli_shared import RULES_HELP, Progress, UserError, bavarian, stdout


def register(app: typer.Typer) -> None:
    @app.command("analyze")
    def analyze_cmd(
        file: Path = typer.Argument(..., help="Recorded games: replay records, one JSON object per line (.jsonl or .jsonl.gz), with an "
                                              "optional players field (four names, seat 0 first)."),
        out: Optional[Path] = typer.Option(None, "--out", help="Output directory (default analysis/<UTC time>)."),
        rules_spec: Optional[str] = typer.Option(None, "--rules", help=RULES_HELP),
        objective: str = typer.Option("points", "--objective",
                                      help="points (declaring side's card points), payout (the declarer's payout) "
                                           "or win (1/0)."),
        strategy: Optional[List[str]] = typer.Option(None, "--strategy",
                                                     help="Also ask this strategy at every decision (seeing what "
                                                          "the seat saw); repeatable."),
        advice_seed: int = typer.Option(0, "--advice-seed", help="Seeds the random streams of the --strategy "
                                        "advice (pimc's worlds): another seed measures how much of a strategy's "
                                        "loss is the luck of its draws."),
        workers: Optional[int] = typer.Option(None, "--workers", help="Worker processes (default: all cores)."),
        backend: str = typer.Option("local", "--backend", help="local, dask (needs --scheduler) or dask-local."),
        scheduler: Optional[str] = typer.Option(None, "--scheduler", help="Dask scheduler address."),
        force: bool = typer.Option(False, "--force", help="Replace an analysis already in --out."),
        as_json: bool = typer.Option(False, "--json", help="Print the summary as one JSON object on stdout."),
    ):
        """Grade recorded games card by card with every hand open: each card's loss against the best card.

        Writes decisions.parquet (one row per card), games.parquet (one row per game), errors.jsonl (bad records,
        skipped), summary.json, tables/*.csv and report.html to --out. Exit status 1 if any record was bad.
        """
        from simkit.analyze.batch import AnalyzeError, analyze_file, count_games
        from simkit.rules import load_ruleset

        rules = bavarian(load_ruleset(rules_spec))  # club records too: a Bettel (win), a Ramsch (docs/analyze.md)
        if not file.is_file():
            raise UserError(f"games file {file} does not exist" if not file.exists() else f"{file} is not a file")
        if workers is not None and workers < 1:
            raise UserError("--workers must be at least 1")
        total = count_games(file)
        try:
            with Progress(total, "games") as advance:
                result = analyze_file(file, out, rules=rules, objective=objective, strategies=strategy or (),
                                      workers=workers, backend=backend, scheduler=scheduler, progress=advance,
                                      force=force, advice_seed=advice_seed)
        except AnalyzeError as e:
            raise UserError(str(e)) from None
        head = json.loads((result.out / "summary.json").read_text(encoding="utf-8"))
        head["out"] = str(result.out)
        if as_json:
            print(json.dumps(head))
        else:
            _print_summary(head, result, stdout())
        for e in result.errors[:20]:
            print(f"skipped: {e}", file=sys.stderr)
        if len(result.errors) > 20:
            print(f"... and {len(result.errors) - 20} more bad records (all in {result.out / 'errors.jsonl'})",
                  file=sys.stderr)
        raise typer.Exit(1 if result.errors else 0)


def _print_summary(head: dict, result, console) -> None:
    table = Table("", "", box=None, pad_edge=False, show_header=False)
    rate = head["games"] / head["seconds"] if head["seconds"] else 0
    rows = [("games graded", f"{head['games']:,}"), ("bad records skipped", f"{head['bad_records']:,}"),
            ("cards", f"{head['decisions']:,} ({head['choices']:,} choices)"),
            ("objective", head["objective"]),
            ("best cards", f"{100 * (head['best_share'] or 0):.1f}% of choices")]
    # the mean loss a line per unit (a Bettel is graded under win, a Ramsch under its own player's points):
    # no mean mixes two units
    for u in head.get("by_unit", []):
        loss = "-" if u["mean_loss"] is None or u["choices"] == 0 else f"{u['mean_loss']:.3f}"
        rows.append((f"mean loss a choice ({u['graded']})", f"{loss} {u['unit']}; {u['choices']:,} choices, "
                     f"{u['blunders']:,} blunders in {u['contracts'] or 'no choices'}"))
    # --strategy: its loss beside the recorded players' on the same choices (issue 31's figure), per unit
    for r in head.get("by_strategy", []):
        if not r["choices"] or r["mean_loss"] is None:
            continue
        rows.append((f"--strategy {r['strategy']} ({r['graded']})",
                     f"loss {r['mean_loss']:.3f} a choice [{r['loss_low']:.3f}, {r['loss_high']:.3f}] against the "
                     f"recorded cards' {r['recorded_mean_loss']:.3f}; the recorded card {100 * r['agreement']:.1f}% "
                     f"of choices"))
    rows += [("blunders", f"{head['blunders']:,}"),
             ("games decided by a mistake", f"{head['games_decided_by_a_mistake']:,}"),
             ("time", f"{head['seconds']:.1f} s ({rate:,.1f} games/s, median {head['median_ms_per_game'] or 0:.0f} "
                      "ms a game)"),
             ("written to", f"{result.out}/ (report.html, decisions.parquet, games.parquet)")]
    for k, v in rows:
        table.add_row(k, v)
    console.print(table)
