"""``simkit strategies``: the strategies a seat can play, from :func:`simkit.strategies.available` (registered in
simkit.cli)."""

from __future__ import annotations

import typer
from rich.table import Table

from simkit.cli_shared import stdout


def register(app: typer.Typer) -> None:
    @app.command("strategies")
    def strategies_cmd():
        """List the strategies a seat can play (built-ins and installed plug-ins) with a one-line description.

        Plug-ins are also accepted as package.module:Name (docs/strategies.md).
        """
        from simkit.strategies import available

        table = Table("strategy", "description", box=None, pad_edge=False)
        for name, desc in available().items():
            table.add_row(name, desc)
        stdout().print(table)
