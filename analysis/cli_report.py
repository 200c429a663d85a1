"""``simkit report`` and ``simkit compare`` (registered on the app by one line at the end of simkit.cli)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Optional

import typer
from rich.table import Table


def register(app: typer.Typer, UserError, stdout) -> None:
    def _open(path: Path):
        from analysis.dataset import AnalysisError, scan
        try:
            return scan(path)
        except AnalysisError as e:
            raise UserError(str(e)) from None

    def _out(out: Optional[Path], default: str) -> Path:
        out = out or Path("reports") / default
        if out.exists() and not out.is_dir():
            raise UserError(f"--out {out} exists and is not a directory")
        return out

    @app.command()
    def report(
        run: Path = typer.Argument(..., help="Run directory written by `simkit run`."),
        out: Optional[Path] = typer.Option(None, "--out", help="Report directory (default reports/<run name>)."),
        compare_with: Optional[Path] = typer.Option(None, "--compare", help="Add a comparison with this run."),
    ):
        """Write a report of a run: report.html (self-contained, figures embedded), report.md, figures/, tables/*.csv.

        Contract mix, win rates with intervals, Laufende (with the exact distribution for forced runs), expected
        points per hand shape, payout heatmap and distribution, seat effects, provenance.
        """
        from analysis.dataset import AnalysisError
        from analysis.report import build_report, run_game

        try:
            old_german = run_game(run) == "old-german"
        except AnalysisError as e:
            raise UserError(str(e)) from None
        if old_german:  # its own tables and the sheep's head (simkit.oldgerman.analysis)
            if compare_with is not None:
                raise UserError("--compare covers Bavarian runs only")
            target = _out(out, run.name)
            try:
                print(build_report(run, target))
            except OSError as e:
                raise UserError(f"writing the report failed ({e.strerror or e}): {e.filename or target}") from None
            return
        ds = _open(run)
        other = _open(compare_with) if compare_with is not None else None
        target = _out(out, ds.name)
        try:
            path = build_report(ds, target, compare_with=other)
        except AnalysisError as e:
            raise UserError(str(e)) from None
        except OSError as e:
            raise UserError(f"writing the report failed ({e.strerror or e}): {e.filename or target}") from None
        print(path)

    @app.command("compare")
    def compare_cmd(
        run_a: Path = typer.Argument(..., help="Run A."),
        run_b: Path = typer.Argument(..., help="Run B."),
        out: Optional[Path] = typer.Option(None, "--out", help="Also write the comparison as a report here."),
        as_json: bool = typer.Option(False, "--json", help="Print the table as JSON lines."),
    ):
        """Differences A - B in win rate and mean payout to the declarer per contract, with 95% intervals."""
        from analysis.dataset import AnalysisError
        from analysis.report import _sort_contracts, build_compare
        from analysis.tables import compare

        a, b = _open(run_a), _open(run_b)
        try:
            cmp = _sort_contracts(compare(a, b))
            if out is not None:
                build_compare(a, b, _out(out, ""))
        except AnalysisError as e:
            raise UserError(str(e)) from None
        except OSError as e:
            raise UserError(f"writing the comparison failed ({e.strerror or e}): {e.filename or out}") from None
        if as_json:
            for r in cmp.iter_rows(named=True):
                print(json.dumps(r))
            return

        def pct(x):
            return "" if x is None else f"{100 * x:.1f}%"

        def iv(d, lo, hi, scale=1.0, unit=""):
            if d is None:
                return "-"
            if lo is None or hi is None:  # one game on a side: no interval
                return f"{scale * d:+.2f}{unit} [n/a]"
            return f"{scale * d:+.2f}{unit} [{scale * lo:+.2f}, {scale * hi:+.2f}]"

        t = Table("contract", "games A", "games B", "win A", "win B", "win A-B (pp) [95%]", "payout A",
                  "payout B", "payout A-B [95%]", box=None, pad_edge=False)
        for r in cmp.iter_rows(named=True):
            t.add_row(r["label"], f"{r['games_a']:,}", f"{r['games_b']:,}", pct(r["win_rate_a"]),
                      pct(r["win_rate_b"]), iv(r["win_diff"], r["win_diff_low"], r["win_diff_high"], 100),
                      "" if r["payout_a"] is None else f"{r['payout_a']:.3f}",
                      "" if r["payout_b"] is None else f"{r['payout_b']:.3f}",
                      iv(r["payout_diff"], r["payout_diff_low"], r["payout_diff_high"]))
        from rich.markup import escape  # strategy names such as pimc[worlds=24] are not markup

        stdout().print(escape(f"A = {a.path} ({', '.join(a.strategies)}), B = {b.path} ({', '.join(b.strategies)})"))
        stdout().print(t)
