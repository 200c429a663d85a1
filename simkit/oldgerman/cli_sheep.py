"""``simkit sheep``: the command-line face of :mod:`simkit.oldgerman.sheep` (registered in simkit.cli)."""

from __future__ import annotations

from pathlib import Path

import typer

from simkit.cli_shared import UserError


def register(app: typer.Typer) -> None:
    @app.command("sheep")
    def sheep(
        run: Path = typer.Argument(..., help="A run directory of `simkit run --rules old-german --parties N`."),
        partie: int = typer.Option(..., "--partie", help="The partie to draw (its partie_id, 0-based)."),
        out: Path = typer.Option(None, "--out", help="PNG file to write (default sheep-partie-K.png)."),
    ):
        """Draw the sheep's head of one partie stroke by stroke: each team's chalk marks in the order won."""
        from simkit.oldgerman.sheep import draw, load_partie
        from simkit.sim.manifest import ManifestError

        if not run.is_dir():
            raise UserError(f"run directory {run} does not exist" if not run.exists() else f"{run} is not a directory")
        try:
            deals, row, head, m = load_partie(run, partie)
        except (ValueError, ManifestError) as e:
            raise UserError(str(e)) from None
        out = out or Path(f"sheep-partie-{partie}.png")
        if out.suffix.lower() != ".png":
            raise UserError(f"--out must be a .png file, not {out}")
        if not out.parent.is_dir():
            raise UserError(f"--out: directory {out.parent} does not exist")
        title = (f"partie {partie} of seed {m['seed']} ({m['ruleset']['name']}, head of {head} strokes): "
                 f"{row['deals']} deals, team {row['winner_team']} wins")
        draw(deals, row, head, out, title)
        print(out)
