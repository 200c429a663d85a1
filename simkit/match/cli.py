"""``simkit match``: the command-line face of :func:`simkit.match.match` (registered in simkit.cli)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import List, Optional

import typer
from rich.table import Table

from simkit.cli_shared import RULES_HELP, Progress, UserError, bavarian, parse_count, prepare_values, stdout


def register(app: typer.Typer) -> None:
    @app.command("match")
    def match_cmd(
        strategies: List[str] = typer.Argument(..., help="Two or more strategies (names as `simkit strategies` "
                                                         "lists them, or package.module:Name)."),
        deals: str = typer.Option("100000", "--deals", help="Duplicate deals, each played twice per pair: 1e5, 10k."),
        rules_spec: Optional[str] = typer.Option(None, "--rules", help=RULES_HELP),
        seed: int = typer.Option(0, "--seed", help="Deal i of a seed is the same everywhere."),
        workers: Optional[int] = typer.Option(None, "--workers", help="Worker processes (default: all cores)."),
        out: Optional[Path] = typer.Option(None, "--out", help="Write deals.parquet and summary.json here."),
        as_json: bool = typer.Option(False, "--json", help="Print the result as one JSON object on stdout."),
    ):
        """Duplicate match: the same deals played twice, A on seats 0+2 and B on 1+3, then swapped.

        Prints A's seat pair's mean payout per deal (A - B per seat pair: what A's pair wins, B's pair loses) with
        its 95% interval, broken down by contract and by role. Three or more strategies: every pair on the same
        deals and a ranking by the mean against all others.
        """
        from simkit.match import MatchError, match
        from simkit.stats import json_safe
        from simkit.rules import load_ruleset

        rules = bavarian(load_ruleset(rules_spec))
        n = parse_count(deals)
        if workers is not None and workers < 1:
            raise UserError("--workers must be at least 1")
        try:
            prepare_values(strategies, rules)
            with Progress(n, "deals") as advance:
                result = match(strategies, n, rules, seed, workers=workers, progress=advance, out=out)
        except MatchError as e:
            raise UserError(str(e)) from None
        if as_json:
            print(json.dumps(json_safe(result.to_json()), allow_nan=False))
            return
        _print(result, stdout())


def _pm(x: float) -> str:
    return f"{x:+.3f}"


def _print(result, console) -> None:
    from rich.markup import escape  # names such as heuristic[bidding=0] are not markup

    console.print(f"{result.deals:,} deals, each played twice per pair with the seats swapped; ruleset "
                  f"{result.ruleset}, seed {result.seed}; {result.seconds:.1f} s")
    if result.ranking:
        t = Table("rank", "strategy", "mean vs all others", "95% interval", box=None, pad_edge=False)
        for i, r in enumerate(result.ranking, start=1):
            t.add_row(str(i), escape(r["strategy"]), _pm(r["mean"]), f"[{_pm(r['ci_low'])}, {_pm(r['ci_high'])}]")
        console.print(t)
        t = Table("A", "B", "A - B per deal", "95% interval", "deals played differently", box=None, pad_edge=False)
        for p in result.pairs:
            t.add_row(escape(p.a), escape(p.b), _pm(p.mean), f"[{_pm(p.ci_low)}, {_pm(p.ci_high)}]", f"{p.differ / p.deals:.1%}")
        console.print(t)
        return
    p = result.pairs[0]
    console.print(f"{escape(p.a)} - {escape(p.b)}: {_pm(p.mean)} per deal and seat pair, 95% interval [{_pm(p.ci_low)}, "
                  f"{_pm(p.ci_high)}] (tariff units; {p.differ / p.deals:.1%} of the deals played differently)")
    tables = [("by contract", p.by_contract, "contract"), ("by role of " + escape(p.a), p.by_role, "role")]
    if p.by_knocks:  # Klopfen: each knock doubles the stakes of the play
        tables.append(("by knocks", p.by_knocks, "knocks"))
    for title, rows, key in tables:
        t = Table(title, "plays", "share", f"{escape(p.a)} per play", "95% interval", "contribution", box=None,
                  pad_edge=False)
        for r in rows:
            t.add_row(str(r[key]), f"{r['plays']:,}", f"{r['share']:.1%}", _pm(r["mean"]),
                      f"[{_pm(r['ci_low'])}, {_pm(r['ci_high'])}]", _pm(r["contribution"]))
        console.print(t)
