"""The ``simkit`` command: a thin typer layer over the Python API.

This module builds the app, registers every sub-command on it and runs it. Each sub-command lives in a module
beside the API it drives, with a ``register(app)`` function, and imports of the command line only
:mod:`simkit.cli_shared` (docs/architecture.md, floor 7). ``version`` is the one command defined here: it reports the
package itself, which this module stands beside, in one line.

Every user error (bad card, unknown preset, unreadable file, unknown option) ends as one line on stderr,
``simkit: error: ...``, and exit status 2; a replay with failed records exits 1 (2 when a record is malformed).
"""

from __future__ import annotations

import atexit
import os
import sys

import typer

from analysis import cli_report
from simkit import __version__, cli_replay
from simkit.analyze import cli as cli_analyze
from simkit.cli_shared import USER_ERRORS, UserError
from simkit.evaluate import cli as cli_evaluate
from simkit.match import cli as cli_match
from simkit.oldgerman import cli_sheep
from simkit.rules import cli as cli_rules
from simkit.sim import cli_deal, cli_export, cli_random_play, cli_run
from simkit.solver import cli_solve
from simkit.strategies import cli_list, cli_train, cli_values
from simkit.view import cli as cli_view

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


# In this order in `simkit --help`.
for _module in (cli_rules, cli_replay, cli_deal, cli_list, cli_random_play, cli_run, cli_sheep, cli_report,
                cli_solve, cli_analyze, cli_view, cli_match, cli_export, cli_evaluate, cli_values, cli_train):
    _module.register(app)


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
