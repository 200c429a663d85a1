"""What the sub-command modules share, below simkit.cli and every ``cli`` module (so none imports simkit.cli):
the user error and the errors shown as one line, the Bavarian and classic-rules guards, deal counts as users type
them, the progress bar on stderr, the value-table preparation, the console for tables."""

from __future__ import annotations

import sys

from rich.console import Console

from simkit.cards import CardError
from simkit.rules import ContractError, RulesetError
from simkit.strategies import StrategyError

# Errors a user can cause; they end as one line, not a traceback.
USER_ERRORS = (CardError, ContractError, RulesetError, FileNotFoundError, IsADirectoryError, PermissionError,
               StrategyError)

RULES_HELP = "Ruleset: a preset name (see `simkit rules`) or a TOML file path."


class UserError(Exception):
    """Raised by commands for bad input; printed as one line, exit status 2."""


def stdout() -> Console:
    # Wide when piped, so tables stay one row per line in files and logs.
    return Console(highlight=False, width=None if sys.stdout.isatty() else 200)


def bavarian(rules_obj):
    """The Bavarian commands refuse the old German ruleset (it has its own `simkit run --rules old-german`)."""
    if getattr(rules_obj, "game", "bavarian") != "bavarian":
        raise RulesetError(f"ruleset {rules_obj.name} is the {rules_obj.game} game; this command plays the Bavarian "
                        f"game (use `simkit run --rules {rules_obj.name}`)")
    return rules_obj


def parse_count(text: str) -> int:
    """A positive deal count as users type it: ``1e7``, ``10000000``, ``10_000_000``, ``10M``, ``500k``."""
    t = str(text).strip().replace("_", "").replace(",", "")
    scale = {"k": 10**3, "m": 10**6, "g": 10**9, "b": 10**9}.get(t[-1:].lower(), 1)
    if scale != 1:
        t = t[:-1]
    try:
        value = float(t) * scale if any(ch in t.lower() for ch in ".e") else int(t) * scale
    except ValueError:
        raise UserError(f"--deals must be a number such as 1e6, 1000000, 1_000_000 or 1M, not {text!r}") from None
    if value != int(value) or value <= 0:
        raise UserError(f"--deals must be a positive whole number, not {text!r}")
    if value >= 2**63:
        raise UserError(f"--deals must be below 2^63, not {text!r}")
    return int(value)


class Progress:
    """A rich progress bar on stderr (deals, deals/s, ETA) when stderr is a terminal; silent otherwise.

    The bar (and its refresh thread) starts at the first progress report, so that `simkit run` can fork its worker
    processes before any thread exists."""

    def __init__(self, total: int, what: str):
        self.total, self.what, self.bar = total, what, None

    def __enter__(self):
        return self.advance

    def _start(self) -> None:
        from rich.progress import BarColumn, MofNCompleteColumn, TextColumn, TimeRemainingColumn
        from rich.progress import Progress as RichProgress

        class DealsPerSecond(TextColumn):
            def render(self, task):
                return super().render(task) if task.speed else ""

        self.bar = RichProgress(TextColumn(self.what), BarColumn(), MofNCompleteColumn(),
                                DealsPerSecond("{task.speed:,.0f} deals/s"), TimeRemainingColumn(),
                                console=Console(stderr=True), transient=True)
        self.bar.start()
        self.task = self.bar.add_task(self.what, total=self.total)

    def advance(self, k: int) -> None:
        if self.bar is None and sys.stderr.isatty():
            self._start()
        if self.bar is not None:
            self.bar.advance(self.task, k)

    def __exit__(self, *exc):
        if self.bar is not None:
            self.bar.stop()


def prepare_values(strategies, rules) -> None:
    """Build the heuristic's value table for ``rules`` now, with a note and a progress bar on stderr, when a
    strategy needs it and it is neither shipped nor cached (simkit.strategies.value_table)."""
    from simkit.strategies import resolve, value_table

    value_table.prepare([resolve(s) for s in strategies], rules, lambda n: Progress(n, "value table"),
                   lambda text: print(f"simkit: {text}", file=sys.stderr))
