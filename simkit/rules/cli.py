"""``simkit rules``: the ruleset presets, or one ruleset in full (:mod:`simkit.rules`; registered in simkit.cli)."""

from __future__ import annotations

from typing import Optional

import typer
from rich.table import Table

from simkit.cli_shared import stdout
from simkit.rules import load_preset, load_ruleset, preset_names


def register(app: typer.Typer) -> None:
    @app.command()
    def rules(name: Optional[str] = typer.Argument(None, help="Preset name or TOML file to print in full.")):
        """List the ruleset presets, or print one ruleset fully resolved (as TOML)."""
        if name is None:
            table = Table("preset", "description", box=None, pad_edge=False)
            for p in preset_names():
                table.add_row(p, load_preset(p).description)
            stdout().print(table)
            return
        print(load_ruleset(name).to_toml(), end="")
