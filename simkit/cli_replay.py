"""``simkit replay``: the command-line face of :func:`simkit.replay.replay_lines` (registered in simkit.cli)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Optional

import typer
from rich.table import Table

from simkit.cli_shared import RULES_HELP, UserError, bavarian, stdout
from simkit.rules import load_ruleset


def register(app: typer.Typer) -> None:
    @app.command()
    def replay(
        file: Path = typer.Argument(..., help="Replay records, one JSON object per line (format: README.md)."),
        rules_spec: Optional[str] = typer.Option(None, "--rules", help=RULES_HELP),
        as_json: bool = typer.Option(False, "--json", help="One JSON object per input line on stdout."),
    ):
        """Replay recorded games: check every card and compute the result of each game.

        Exit status 2 if any record is malformed (bad input: an unknown key, a Ramsch with a declarer, a negative
        stock, ...), else 1 if any record's play failed, 0 otherwise.
        """
        from simkit.replay import replay_lines

        rules_obj = bavarian(load_ruleset(rules_spec))
        if not file.is_file():
            raise UserError(f"replay file {file} does not exist" if not file.exists() else f"{file} is not a file")
        with open(file, encoding="utf-8", errors="replace") as f:
            outcomes = []
            table = None
            if not as_json:
                table = Table("line", "id", "contract", "decl", "points", "tricks", "lauf", "schn", "schw", "won",
                              "payouts", "check", box=None, pad_edge=False)
            for o in replay_lines(f, rules_obj):
                outcomes.append(o)
                if as_json:
                    print(json.dumps(o.to_json(), ensure_ascii=False), flush=True)
                    continue
                r = o.result
                check = {None: "", True: "agrees", False: "DIFFERS"}[o.agrees]
                if r is None:
                    table.add_row(str(o.line), _short(o.id), "", "", "", "", "", "", "", "", "", "ERROR: " + o.error)
                    continue
                contract = r.contract + (f" {r.suit}" if r.suit else "") + (" tout" if r.tout else "")
                if o.agrees is False:
                    check += f" (settled {' '.join(map(str, o.expected_payouts))}"
                    check += f", stock {o.expected_stock})" if o.expected_stock is not None else ")"
                if r.stock_after is not None:
                    check += f" stock {r.stock_before}->{r.stock_after}"
                table.add_row(str(o.line), _short(o.id), contract, str(r.declarer), str(r.declarer_points),
                              str(r.declarer_tricks), f"{r.laufende}{'' if r.laufende_mit or not r.laufende else ' ohne'}",
                              _yn(r.schneider), _yn(r.schwarz), _yn(r.won), "/".join(map(str, r.payouts)), check)
        if table is not None:
            stdout().print(table)
        with_expected = [o for o in outcomes if o.expected_payouts is not None]
        if with_expected:
            agree = sum(1 for o in with_expected if o.agrees)
            print(f"{agree} of {len(with_expected)} agree", file=sys.stderr if as_json else sys.stdout)
        failed = sum(1 for o in outcomes if not o.ok)
        if failed and not as_json:
            print(f"{failed} of {len(outcomes)} records failed", file=sys.stderr)
        raise typer.Exit(2 if any(o.bad_input for o in outcomes) else 1 if failed else 0)


def _short(x, width: int = 40) -> str:
    s = "" if x is None else str(x)
    return s if len(s) <= width else "..." + s[-(width - 3):]


def _yn(b: bool) -> str:
    return "yes" if b else "-"
