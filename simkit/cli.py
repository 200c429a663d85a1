"""The ``simkit`` command: a thin typer layer over the Python API.

Every user error (bad card, unknown preset, unreadable file, unknown option) ends as one line on stderr,
``simkit: error: ...``, and exit status 2; a replay with failed records exits 1.
"""

from __future__ import annotations

import atexit
import json
import os
import sys
import time
from pathlib import Path
from typing import Optional

import typer
from rich.table import Table

from simkit import __version__
from simkit.rules import load_ruleset, preset_names
from simkit.rules.ruleset import load_preset
from simkit.cli_shared import RULES_HELP, USER_ERRORS, UserError, parse_count
from simkit.cli_shared import Progress as _progress
from simkit.cli_shared import bavarian as _bavarian
from simkit.cli_shared import stdout as _stdout

app = typer.Typer(
    name="simkit",
    help="Schafkopf simulator and analytics: rules, replays of real games, random-play batches.",
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
)

try:  # typer >= 0.20 vendors its own copy of click
    from typer._click import exceptions as _click_exc
except ImportError:  # pragma: no cover
    from click import exceptions as _click_exc


@app.command()
def version():
    """Print the simkit version."""
    print(__version__)


@app.command()
def rules(name: Optional[str] = typer.Argument(None, help="Preset name or TOML file to print in full.")):
    """List the ruleset presets, or print one ruleset fully resolved (as TOML)."""
    if name is None:
        table = Table("preset", "description", box=None, pad_edge=False)
        for p in preset_names():
            table.add_row(p, load_preset(p).description)
        _stdout().print(table)
        return
    print(load_ruleset(name).to_toml(), end="")


@app.command()
def replay(
    file: Path = typer.Argument(..., help="Replay records, one JSON object per line (format: README.md)."),
    rules_spec: Optional[str] = typer.Option(None, "--rules", help=RULES_HELP),
    as_json: bool = typer.Option(False, "--json", help="One JSON object per input line on stdout."),
):
    """Replay recorded games: check every card and compute the result of each game.

    Exit status 1 if any record failed, 0 otherwise.
    """
    from simkit.replay import replay_lines

    rules_obj = _bavarian(load_ruleset(rules_spec))
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
                check += f" (settled {' '.join(map(str, o.expected_payouts))})"
            table.add_row(str(o.line), _short(o.id), contract, str(r.declarer), str(r.declarer_points),
                          str(r.declarer_tricks), f"{r.laufende}{'' if r.laufende_mit else ' ohne'}",
                          _yn(r.schneider), _yn(r.schwarz), _yn(r.won), "/".join(map(str, r.payouts)), check)
    if table is not None:
        _stdout().print(table)
    with_expected = [o for o in outcomes if o.expected_payouts is not None]
    if with_expected:
        agree = sum(1 for o in with_expected if o.agrees)
        print(f"{agree} of {len(with_expected)} agree", file=sys.stderr if as_json else sys.stdout)
    failed = sum(1 for o in outcomes if not o.ok)
    if failed and not as_json:
        print(f"{failed} of {len(outcomes)} records failed", file=sys.stderr)
    raise typer.Exit(1 if failed else 0)


@app.command("deal")
def deal_cmd(
    seed: int = typer.Option(..., "--seed", help="Run seed."),
    index: int = typer.Option(..., "--index", help="Deal index within the run (0, 1, 2, ...)."),
    rules_spec: Optional[str] = typer.Option(None, "--rules", help=RULES_HELP),
    deck: Optional[str] = typer.Option(None, "--deck", help="long or short (default: the ruleset's deck)."),
    contract: str = typer.Option("rufspiel", "--contract",
                                 help="Sort the hands for this contract: rufspiel, solo, wenz, geier, farbwenz, "
                                      "farbgeier."),
    suit: Optional[str] = typer.Option(None, "--suit", help="Trump suit for solo, farbwenz, farbgeier "
                                                             "(eichel, gras, herz, schellen)."),
):
    """Print the four hands of deal INDEX of run SEED, sorted as players sort them for a contract.

    Trumps first (high to low), then the side suits Eichel, Gras, Herz, Schellen, each high to low. Deal i of a
    seed is the same on every machine and for any chunking of a run.
    """
    from simkit.cards import format_hand
    from simkit.engine.deal import deal
    from simkit.reference import player_sort_order
    from simkit.rules.contracts import RUFSPIEL, Contract, parse_kind

    rules_obj = _bavarian(load_ruleset(rules_spec))
    if deck is not None:
        if deck not in ("long", "short"):
            raise UserError(f"--deck must be long or short, not {deck!r}")
        rules_obj = rules_obj.replace(deck=deck)
    if index < 0:
        raise UserError(f"--index must not be negative, not {index}")
    if not 0 <= seed < 2**64:
        raise UserError(f"--seed must be between 0 and 2^64-1, not {seed}")
    kind = parse_kind(contract)
    if kind == RUFSPIEL and suit is None:
        c = Contract(RUFSPIEL, 0)  # the called suit does not change how a Rufspiel hand is sorted
    else:
        c = Contract.parse(kind, suit)
    label = c.name if kind == RUFSPIEL and suit is None else str(c)
    order = player_sort_order(c, rules_obj.deck)
    hands = deal(seed, index, rules_obj.deck)
    print(f"deal {index} of seed {seed}, {rules_obj.deck} deck, sorted for {label}")
    for s in range(4):
        print(f"seat {s}: {format_hand(int(hands[s]), order)}")


@app.command("strategies")
def strategies_cmd():
    """List the strategies a seat can play (built-ins and installed plug-ins) with a one-line description.

    Plug-ins are also accepted as package.module:Name (docs/strategies.md).
    """
    from simkit.strategies import available

    table = Table("strategy", "description", box=None, pad_edge=False)
    for name, desc in available().items():
        table.add_row(name, desc)
    _stdout().print(table)


@app.command("random-play")
def random_play(
    deals: str = typer.Option("1e6", "--deals", help="Number of deals: 1e6, 1000000, 1_000_000 or 1M."),
    contract: str = typer.Option("rufspiel", "--contract", help="rufspiel, solo, wenz, geier, farbwenz, farbgeier."),
    tout_share: float = typer.Option(0.0, "--tout-share", help="Share of solo-type deals played Tout (0..1)."),
    rules_spec: Optional[str] = typer.Option(None, "--rules", help=RULES_HELP),
    deck: Optional[str] = typer.Option(None, "--deck", help="long or short (default: the ruleset's deck)."),
    seed: int = typer.Option(0, "--seed", help="Run seed; deal i of a seed is the same on every machine."),
    as_json: bool = typer.Option(False, "--json", help="Print the summary as JSON."),
):
    """Play random deals of one contract in the Numba kernel and print a summary.

    Each deal gets a random declarer and suit (a Rufspiel declarer must be able to call an ace; a deal where no
    seat can is counted as not playable) and every card is chosen uniformly among the legal cards.
    """
    from simkit.engine import simulate_random
    from simkit.rules.contracts import parse_kind

    n = parse_count(deals)
    kind = parse_kind(contract)
    if not 0.0 <= tout_share <= 1.0:
        raise UserError(f"--tout-share must be between 0 and 1, not {tout_share}")
    if kind == 0 and tout_share > 0:
        raise UserError("a Rufspiel cannot be played Tout; --tout-share applies to solo-type contracts")
    rules_obj = _bavarian(load_ruleset(rules_spec))
    if deck is not None:
        if deck not in ("long", "short"):
            raise UserError(f"--deck must be long or short, not {deck!r}")
        rules_obj = rules_obj.replace(deck=deck)

    totals = _RandomPlayTotals()
    chunk = 1_000_000
    simulate_random(seed, 0, 1, kind, rules_obj, tout_share)  # compile (or load from the cache) before timing
    t0 = time.perf_counter()
    with _progress(n, "random play") as advance:
        for start in range(0, n, chunk):
            m = min(chunk, n - start)
            totals.add(simulate_random(seed, start, m, kind, rules_obj, tout_share))
            advance(m)
    elapsed = time.perf_counter() - t0
    summary = totals.summary(n, elapsed, contract=contract, rules=rules_obj.name, deck=rules_obj.deck, seed=seed)
    if as_json:
        print(json.dumps(summary))
        return
    table = Table("", "", box=None, pad_edge=False, show_header=False)
    for k, v in summary.items():
        table.add_row(k.replace("_", " "), f"{v:.4f}" if isinstance(v, float) else str(v))
    _stdout().print(table)


class _RandomPlayTotals:
    """Running sums over result chunks, so memory stays flat for any number of deals."""

    def __init__(self):
        self.played = self.won = self.points = self.schneider = self.schwarz = 0
        self.declarer_payout = 0

    def add(self, r: dict) -> None:
        import numpy as np

        ok = r["declarers"] >= 0
        self.played += int(ok.sum())
        self.won += int(r["won"][ok].sum())
        self.points += int(r["declarer_points"][ok].sum(dtype=np.int64))
        self.schneider += int(r["schneider"][ok].sum())
        self.schwarz += int(r["schwarz"][ok].sum())
        seats = r["declarers"][ok].astype(np.int64)
        self.declarer_payout += int(r["payouts"][ok][np.arange(len(seats)), seats].sum(dtype=np.int64))

    def summary(self, n: int, elapsed: float, **meta) -> dict:
        p = max(self.played, 1)
        return {
            **meta,
            "deals": n,
            "played": self.played,
            "deals_per_second": round(n / elapsed) if elapsed > 0 else None,
            "declarer_win_rate": self.won / p,
            "mean_declarer_points": self.points / p,
            "schneider_share": self.schneider / p,
            "schwarz_share": self.schwarz / p,
            "mean_payout_to_declarer": self.declarer_payout / p,
        }


def _short(x, width: int = 40) -> str:
    s = "" if x is None else str(x)
    return s if len(s) <= width else "..." + s[-(width - 3):]


def _yn(b: bool) -> str:
    return "yes" if b else "-"


# `simkit run` lives beside the runner it drives.
from simkit.sim.cli_run import register as _register_run  # noqa: E402

_register_run(app)

from simkit.oldgerman.cli_sheep import register as _register_sheep  # noqa: E402  (`simkit sheep`, old German)

_register_sheep(app)

# `simkit report` and `simkit compare` live in the analysis package.
from analysis.cli_report import register as _register_report  # noqa: E402

_register_report(app)

from simkit.solver.cli_solve import register as _register_solve  # noqa: E402  (`simkit solve`)

_register_solve(app)

from simkit.analyze.cli import register as _register_analyze  # noqa: E402  (`simkit analyze`)

_register_analyze(app)

from simkit.view.cli import register as _register_view  # noqa: E402  (`simkit view`, one graded game as a page)

_register_view(app)

from simkit.match.cli import register as _register_match  # noqa: E402  (`simkit match`)

_register_match(app)
from simkit.sim.cli_export import register as _register_export  # noqa: E402  (`simkit export`, runs -> records)
_register_export(app)

from simkit.evaluate.cli import register as _register_evaluate  # noqa: E402  (`simkit evaluate`, a hand's value)

_register_evaluate(app)


from simkit.strategies.cli_values import register as _register_values  # noqa: E402  (`simkit values`)

_register_values(app)
from simkit.strategies.cli_train import register as _register_train  # noqa: E402  (`simkit train people`)

_register_train(app)


def main(argv: list[str] | None = None) -> None:
    """Console entry point: run the app, turning user errors into one line and exit status 2."""
    command = typer.main.get_command(app)
    try:
        code = command.main(args=argv, prog_name="simkit", standalone_mode=False)
    except _click_exc.NoArgsIsHelpError as e:
        print(e.format_message() if hasattr(e, "format_message") else str(e), file=sys.stderr)
        sys.exit(2)
    except _click_exc.ClickException as e:
        print(f"simkit: error: {e.format_message()}", file=sys.stderr)
        sys.exit(e.exit_code if e.exit_code else 2)
    except (KeyboardInterrupt, typer.Abort):
        print("simkit: interrupted", file=sys.stderr)
        sys.exit(130)
    except (UserError, *USER_ERRORS) as e:
        msg = str(e) if not isinstance(e, OSError) or not e.filename else f"{e.strerror}: {e.filename}"
        print(f"simkit: error: {msg}", file=sys.stderr)
        sys.exit(2)
    except BrokenPipeError:  # e.g. `simkit replay ... | head`
        sys.exit(0)
    sys.exit(code or 0)


def console() -> None:
    """The ``simkit`` command: :func:`main`, then an exit that skips the interpreter's teardown.

    Tearing down numba, LLVM and pyarrow module by module takes about 0.17 s (measured) and buys nothing once a
    command is done: the atexit handlers still run and the standard streams are flushed, then ``os._exit``.
    :func:`main` itself exits normally, for callers in Python.
    """
    try:
        main()
        code = 0
    except SystemExit as e:
        code = e.code
    if code is None:
        code = 0
    elif not isinstance(code, int):
        print(code, file=sys.stderr)
        code = 1
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # a closed pipe (`simkit ... | head`)
            pass
    os._exit(code)


if __name__ == "__main__":  # python -m simkit.cli
    console()
