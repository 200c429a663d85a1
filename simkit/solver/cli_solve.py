"""``simkit solve``: the command-line face of :func:`simkit.solver.solve` (registered on the app in simkit.cli)."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Optional

import typer
from rich.table import Table

from simkit.cli_shared import RULES_HELP, UserError, bavarian, stdout

JSON_KEYS = ("id", "ok", "error", "to_move", "values", "best", "nodes", "seconds")


def solve_lines(lines, rules, objective: str | None):
    """Solve each JSON line (a replay record whose tricks may stop after any card); yield ``(line number, result)``
    per non-empty line, the result a dict with exactly the keys of ``JSON_KEYS``. ``objective`` None: each
    contract's own (:func:`simkit.solver.api.default_objective`: points, a Bettel's win)."""
    from simkit.replay import ReplayError, load_json_line
    from simkit.solver import OBJECTIVES, Position, PositionError, SolverError, solve
    from simkit.solver.api import default_objective

    if objective is not None and objective not in OBJECTIVES:
        raise ValueError(f"--objective must be one of {', '.join(OBJECTIVES)}, not {objective!r}")
    for n, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        out = dict.fromkeys(JSON_KEYS)
        out["ok"] = False
        t0 = time.perf_counter()
        try:
            record = load_json_line(line, n)
            if isinstance(record, dict):
                out["id"] = record.get("id")
            pos = Position.from_record(record, rules)
            if pos.is_over:
                raise PositionError("the game is over: every card has been played (nothing to solve)")
            sol = solve(pos, objective or default_objective(pos.contract))
            out.update(sol.to_json())
            out["ok"] = True
        except ReplayError as e:  # not JSON: the message names the line
            out["error"] = str(e)
        except (PositionError, SolverError) as e:
            out["error"] = f"line {n}: {e}"
        out["seconds"] = round(time.perf_counter() - t0, 6)
        yield n, out


def register(app: typer.Typer) -> None:
    @app.command("solve")
    def solve_cmd(
        file: Path = typer.Argument(..., help="Positions: replay records, one JSON object per line, whose tricks "
                                              "may stop after any card (format: docs/solver.md)."),
        rules_spec: Optional[str] = typer.Option(None, "--rules", help=RULES_HELP),
        objective: Optional[str] = typer.Option(None, "--objective",
                                                help="points (declaring side's final card points; a Ramsch: the "
                                                     "seat to move's own), win (1/0; a Bettel: the declarer takes "
                                                     "no trick) or payout (the declarer's settled payout). "
                                                     "Default: points, a Bettel win."),
        as_json: bool = typer.Option(False, "--json", help="One JSON object per input line on stdout."),
    ):
        """Solve positions with every hand open: the value of each legal card of the seat to move.

        Both sides play perfectly; the declaring side maximises the objective, the defenders minimise it (a
        Ramsch: the seat to move minimises its own card points, the other three maximise them).
        Exit status 1 if any line failed, 2 for a usage error.
        """
        from simkit.rules import load_ruleset
        from simkit.solver import OBJECTIVES

        if objective is not None and objective not in OBJECTIVES:
            raise UserError(f"--objective must be one of {', '.join(OBJECTIVES)}, not {objective!r}")
        rules = bavarian(load_ruleset(rules_spec))  # club records too: Bettel, Ramsch, Sie (docs/solver.md)
        if not file.is_file():
            raise UserError(f"solve file {file} does not exist" if not file.exists() else f"{file} is not a file")
        from simkit.solver.api import warm_up

        warm_up()
        failed = total = 0
        table = None if as_json else Table("line", "id", "to move", "values", "best", "nodes", "ms", box=None,
                                           pad_edge=False)
        with open(file, encoding="utf-8", errors="replace") as f:
            for line_no, out in solve_lines(f, rules, objective):
                total += 1
                failed += not out["ok"]
                if as_json:
                    print(json.dumps(out, ensure_ascii=False), flush=True)
                    continue
                if not out["ok"]:
                    table.add_row(str(line_no), _short(out["id"]), "", "ERROR: " + out["error"], "", "", "")
                    continue
                values = " ".join(f"{c} {v}" for c, v in out["values"].items())
                table.add_row(str(line_no), _short(out["id"]), f"seat {out['to_move']}", values,
                              " ".join(out["best"]), f"{out['nodes']:,}", f"{1000 * out['seconds']:.1f}")
        if table is not None:
            stdout().print(table)
            if failed:
                print(f"{failed} of {total} positions failed", file=sys.stderr)
        raise typer.Exit(1 if failed else 0)


def _short(x, width: int = 40) -> str:
    s = "" if x is None else str(x)
    return s if len(s) <= width else "..." + s[-(width - 3):]
