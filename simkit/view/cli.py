"""``simkit view``: the command-line face of :func:`simkit.view.write_page` (registered in simkit.cli)."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from simkit.cli_shared import UserError


def register(app: typer.Typer) -> None:
    @app.command("view")
    def view_cmd(
        analysis_dir: Path = typer.Argument(..., help="An analysis directory (the --out of `simkit analyze`)."),
        game: str = typer.Option(..., "--game", help="The game's id: the record's id, else 'line N' (the game_id "
                                                     "column of games.parquet)."),
        out: Optional[Path] = typer.Option(None, "--out", help="The page to write (default: "
                                                               "ANALYSIS_DIR/games/<id>.html, beside report.html); "
                                                               "a directory takes the default name."),
    ):
        """Write one graded game as a self-contained HTML page and print its path.

        The page shows the four hands, the contract and the declaring side, and steps through the game card by
        card (arrow keys or buttons): each legal card of the player to move with its value, the card played with
        its loss, forced cards, blunders and the decisive mistake, what each --strategy would have played, and the
        value of the game after each card as a curve. It opens offline (no network, everything inline).
        """
        from simkit.view.page import ViewError, page_name, write_page

        if out is not None and out.is_dir():
            out = out / page_name(game)
        try:
            path = write_page(analysis_dir, game, out)
        except ViewError as e:
            raise UserError(str(e)) from None
        print(path)
