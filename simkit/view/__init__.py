"""One graded game as a page to step through (``simkit view``; docs/analyze.md, "Viewing a game").

    from simkit.view import build_page, write_page
    html = build_page("analysis/mine", "demo-01-rufspiel-schneider-laufende")   # the page as a string
    path = write_page("analysis/mine", "demo-01-rufspiel-schneider-laufende")   # analysis/mine/games/<id>.html

The view reads what ``simkit analyze`` wrote (decisions.parquet, games.parquet, summary.json) and nothing else: it
never loads the solver or the kernels, and the analysis never needs to be run again to look at a game.
"""

from simkit.view.page import ViewError, build_page, page_data, page_name, write_page, write_pages

__all__ = ["ViewError", "build_page", "page_data", "page_name", "write_page", "write_pages"]
