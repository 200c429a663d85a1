"""``simkit report`` and ``simkit compare`` (registered on the app by one line at the end of simkit.cli)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Optional

import typer
from rich.table import Table

from simkit.cli_shared import UserError, bavarian, stdout

MAX_WARNINGS = 20  # bad records named on stderr, one line each; the rest counted


def warn_bad_records(errors: list[str], bad: int, file=None) -> None:
    """``simkit: warning: line N: ...`` for the first bad records, then one line with the count."""
    file = file or sys.stderr
    for e in errors[:MAX_WARNINGS]:
        print(f"simkit: warning: {e}", file=file)
    if bad > MAX_WARNINGS:
        print(f"simkit: warning: ... and {bad - MAX_WARNINGS:,} more bad records ({bad:,} in all), skipped",
              file=file)


def _is_games_file(path: Path) -> bool:
    name = path.name.lower()
    return path.is_file() or name.endswith((".jsonl", ".jsonl.gz", ".json", ".gz"))


def register(app: typer.Typer) -> None:
    def _rules(spec: Optional[str]):
        if spec is None:
            return None
        from simkit.rules import load_ruleset

        return bavarian(load_ruleset(spec))

    def _against(ds, path: Path, rules_spec: Optional[str]):
        """The run held against a games file, bad records warned about on stderr; errors as UserError."""
        from analysis.against import AgainstError, against

        rules = _rules(rules_spec)
        try:
            ag = against(ds, path, rules)
        except AgainstError as e:
            warn_bad_records(e.errors, e.bad)
            raise UserError(str(e)) from None
        warn_bad_records(ag.games.errors, ag.games.bad)
        print(f"simkit: {ag.games.summary()}", file=sys.stderr)
        return ag

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
        against_file: Optional[Path] = typer.Option(
            None, "--against", help="Add the section \"Against recorded games\": replay records, one JSON object a "
                                    "line (.jsonl or gzip .jsonl.gz; thrown-in deals with contract null)."),
        rules_spec: Optional[str] = typer.Option(
            None, "--rules", help="Ruleset the --against games are settled under (default: the run's ruleset)."),
    ):
        """Write a report of a run: report.html (self-contained, figures embedded), report.md, figures/, tables/*.csv.

        Contract mix, win rates with intervals, Laufende (with the exact distribution for forced runs), expected
        points per hand shape, payout heatmap and distribution, seat effects, provenance; with --against, the run
        beside recorded games (passed share, contract mix, win rate, points, Laufende, with 95% intervals).
        """
        from analysis.dataset import AnalysisError
        from analysis.report import build_report, run_game

        if rules_spec is not None and against_file is None:
            raise UserError("--rules applies to the --against games; give --against GAMES.jsonl")
        try:
            old_german = run_game(run) == "old-german"
        except AnalysisError as e:
            raise UserError(str(e)) from None
        if old_german:  # its own tables and the sheep's head (simkit.oldgerman.analysis)
            if compare_with is not None:
                raise UserError("--compare covers Bavarian runs only")
            if against_file is not None:
                raise UserError("--against covers Bavarian runs only")
            target = _out(out, run.name)
            try:
                print(build_report(run, target))
            except OSError as e:
                raise UserError(f"writing the report failed ({e.strerror or e}): {e.filename or target}") from None
            return
        ds = _open(run)
        other = _open(compare_with) if compare_with is not None else None
        target = _out(out, ds.name)
        ag = _against(ds, against_file, rules_spec) if against_file is not None else None
        try:
            path = build_report(ds, target, compare_with=other, against=ag)
        except AnalysisError as e:
            raise UserError(str(e)) from None
        except OSError as e:
            raise UserError(f"writing the report failed ({e.strerror or e}): {e.filename or target}") from None
        print(path)

    @app.command("compare")
    def compare_cmd(
        run_a: Path = typer.Argument(..., help="Run A."),
        run_b: Path = typer.Argument(..., help="Run B, or a file of recorded games (replay records, .jsonl or "
                                              ".jsonl.gz) to hold run A against."),
        out: Optional[Path] = typer.Option(None, "--out", help="Also write the comparison as a report here."),
        as_json: bool = typer.Option(False, "--json", help="Print the table as JSON lines."),
        rules_spec: Optional[str] = typer.Option(
            None, "--rules", help="Ruleset recorded games are settled under (default: run A's ruleset)."),
    ):
        """Differences A - B in win rate and mean payout to the declarer per contract, with 95% intervals; the rules
        that differ between the two rulesets and what they do to a player's result per deal (mean and spread).

        With a games file as B: run A beside the recorded games (passed share, contract mix, win rate, declarer
        points, Laufende; run - real with 95% intervals).
        """
        from analysis.club import house_rules_tables, unit_note
        from analysis.dataset import AnalysisError
        from analysis.report import _sort_contracts, build_compare
        from analysis.tables import compare

        if not run_b.is_dir() and _is_games_file(run_b):
            return _compare_games(run_a, run_b, out, as_json, rules_spec)
        if rules_spec is not None:
            raise UserError("--rules applies when the second argument is a file of recorded games")
        a, b = _open(run_a), _open(run_b)
        try:
            cmp = _sort_contracts(compare(a, b))
            house = house_rules_tables(a, b)
            if out is not None:
                build_compare(a, b, _out(out, ""))
        except AnalysisError as e:
            raise UserError(str(e)) from None
        except OSError as e:
            raise UserError(f"writing the comparison failed ({e.strerror or e}): {e.filename or out}") from None
        if as_json:  # the contract rows as before, then the house-rule rows, which name their table
            for r in cmp.iter_rows(named=True):
                print(json.dumps(r))
            for name, df in house.items():
                for r in df.iter_rows(named=True):
                    print(json.dumps({"table": name, **r}))
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
        _print_house_rules(house, unit_note(a, b))

    def _print_house_rules(house: dict, note: str) -> None:
        from rich.markup import escape

        diff = house["rules_diff"]
        if diff.height:
            d = Table("rule that differs", "A", "B", box=None, pad_edge=False)
            for r in diff.iter_rows(named=True):
                d.add_row(escape(r["key"]), escape(r["a"]), escape(r["b"]))
            stdout().print(d)
        else:
            stdout().print("the two rulesets are the same")
        for name, caption in (("player_result", "tariff units"),
                              ("player_result_in_rufspiel_bases", "Rufspiel bases")):
            if name not in house:
                continue
            t = Table("seat", "mean A", "mean B", "mean A-B [95%]", "SD A", "SD B", "SD A-B [95%]", box=None,
                      pad_edge=False, title=f"a player's result per deal ({caption})", title_justify="left")
            for r in house[name].iter_rows(named=True):
                t.add_row(r["seat"], _num(r["mean_a"], 3), _num(r["mean_b"], 3),
                          _iv(r["mean_diff"], r["mean_diff_low"], r["mean_diff_high"], 3), _num(r["sd_a"], 2),
                          _num(r["sd_b"], 2), _iv(r["sd_diff"], r["sd_diff_low"], r["sd_diff_high"], 2))
            stdout().print(t)
        stdout().print(note)

    def _compare_games(run: Path, games: Path, out: Optional[Path], as_json: bool, rules_spec: Optional[str]):
        from rich.markup import escape

        from analysis.against import CAPTIONS, TABLES, display
        from analysis.dataset import AnalysisError
        from analysis.report import build_against

        ds = _open(run)
        target = _out(out, "") if out is not None else None
        ag = _against(ds, games, rules_spec)
        if target is not None:
            try:
                build_against(ds, ag, target)
            except AnalysisError as e:
                raise UserError(str(e)) from None
            except OSError as e:
                raise UserError(f"writing the comparison failed ({e.strerror or e}): {e.filename or out}") from None
        g = ag.games
        if as_json:
            print(json.dumps({"table": "records", "file": str(g.path), "rules": ag.rules.name, "deck": g.deck,
                              "lines": g.lines, "bad": g.bad, "used": g.used, "played": g.played,
                              "thrown_in": g.thrown_in, "other_deck": g.other_deck}))
            for name in TABLES:
                for r in ag.tables[name].iter_rows(named=True):
                    print(json.dumps({"table": name, **r}))
            return
        console = stdout()
        console.print(escape(f"run = {ds.path} ({', '.join(ds.strategies)}, {ds.rules.name}), real = {g.summary()}"))
        for name in TABLES:
            d = display(name, ag.tables[name])
            t = Table(*d.columns, box=None, pad_edge=False, title=CAPTIONS[name], title_justify="left")
            for r in d.iter_rows():
                t.add_row(*[escape(x) for x in r])
            console.print()
            console.print(t)


def _num(x, digits: int) -> str:
    return "" if x is None else f"{x:.{digits}f}"


def _iv(d, lo, hi, digits: int) -> str:
    if d is None:
        return "-"
    if lo is None or hi is None:
        return f"{d:+.{digits}f} [n/a]"
    return f"{d:+.{digits}f} [{lo:+.{digits}f}, {hi:+.{digits}f}]"
