"""``simkit values``: show or build the heuristic's value table (simkit.strategies.values, value_table; registered in
simkit.cli)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Optional

import typer
from rich.table import Table

from simkit.cli_shared import RULES_HELP, Progress, UserError, bavarian, parse_count, stdout


def register(app: typer.Typer) -> None:
    @app.command("values")
    def values_cmd(
        rules_spec: Optional[str] = typer.Option(None, "--rules", help=RULES_HELP),
        build: bool = typer.Option(False, "--build", help="Build the counts now (into the cache, or --out)."),
        deals: str = typer.Option("2e6", "--deals", help="Deals to count with --build: 2e6 (the shipped tables) "
                                                        "takes about a minute on two cores."),
        seed: int = typer.Option(2026, "--seed", help="Seed of the deals counted with --build."),
        workers: Optional[int] = typer.Option(None, "--workers", help="Worker processes (default: all cores)."),
        out: Optional[Path] = typer.Option(None, "--out", help="With --build: write the counts to this .npz file "
                                                               "instead of the cache."),
        as_json: bool = typer.Option(False, "--json", help="Print the table as one JSON object on stdout."),
    ):
        """The heuristic's value table: the expected payout of a declaration by hand score, under the tariff.

        The heuristic bids, says Kontra and Re by it (config entries `bidding`, `doubling`). The counts behind it
        depend only on the deck and run_away_min; the tariff prices them. Shows, per score, the expected payout
        per game to a declarer (seats 1-3 / forehand) and to a defender of that score, in Rufspiel base prices.
        """
        from simkit.rules import load_ruleset
        from simkit.strategies import value_table, values

        rules = bavarian(load_ruleset(rules_spec))
        if build:
            n = parse_count(deals)
            if workers is not None and workers < 1:
                raise UserError("--workers must be at least 1")
            if out is not None and out.suffix != ".npz":
                raise UserError(f"--out must name a .npz file, not {out}")
            target = out or values.cache_dir() / f"{values.play_key(rules)}.npz"
            with Progress(n, "value table") as advance:
                counts = value_table.build_counts(rules, n, seed, workers=workers, progress=advance)
            values.save_counts(counts, target)
            values.tables.cache_clear()
            print(f"simkit: counted {n:,} deals in {counts['meta']['seconds']:.0f} s -> {target}", file=sys.stderr)
            path = target
        else:
            if out is not None:
                raise UserError("--out needs --build")
            path = values.counts_path(rules)
            if path is None:
                raise UserError(f"no value table for {values.play_key(rules)} yet: build it with `simkit values "
                                f"--build --rules ...` (runs build it before they start)")
            counts = values.load_counts(path)
        rows = values.summary(rules, counts)
        if as_json:
            print(json.dumps({"ruleset": rules.name, "play_key": values.play_key(rules), "source": str(path),
                              "meta": counts["meta"], "unit": rules.tariff.base_rufspiel, "rows": rows}))
            return
        _print(rules, counts, path, rows, stdout())


def _print(rules, counts, path, rows, console) -> None:
    meta = counts["meta"]
    console.print(f"value table of ruleset {rules.name} ({meta['play_key']}; {meta['deals']:,} deals counted, "
                  f"seed {meta['seed']}; {path})")
    console.print(f"expected payout per game in Rufspiel base prices ({rules.tariff.base_rufspiel}), by the "
                  f"heuristic's hand score: declarer at seats 1-3 / forehand, and a defender with that score")
    kinds = list(dict.fromkeys(r["kind"] for r in rows))
    by = {(r["kind"], r["forehand"], r["score"]): r for r in rows if r["role"] == "declarer"}
    dfd = {(r["kind"], r["score"]): r["value"] for r in rows if r["role"] == "defender"}
    scores = sorted({r["score"] for r in rows if r["games"] >= 100 and r["role"] == "declarer"})
    t = Table("score", *kinds, *[f"{k} defender" for k in kinds], box=None, pad_edge=False)
    for s in scores:
        if s * 2 != int(s * 2):
            continue  # every half point
        cells = []
        for k in kinds:
            a, b = by.get((k, False, s)), by.get((k, True, s))
            cells.append(" / ".join("" if x is None else f"{x['value']:+.2f}" for x in (a, b)))
        t.add_row(f"{s:g}", *cells, *[f"{dfd[(k, s)]:+.2f}" if (k, s) in dfd else "" for k in kinds])
    console.print(t)
