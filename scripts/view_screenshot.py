"""The screenshot of a `simkit view` page in docs/analyze.md, taken by headless Chromium of a real page.

    python scripts/view_screenshot.py                       # grades the demo games, writes docs/view.png
    python scripts/view_screenshot.py --analysis DIR --game ID --step K --out FILE.png

Without --analysis the demo games (simkit/data/demo-games.jsonl) are graded into a temporary directory (objective
points, with the heuristic's advice). --step is the card the page opens at (its #K address; default: the game's
decisive mistake). Needs /usr/bin/chromium (Debian's chromium package).
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEMO = ROOT / "simkit" / "data" / "demo-games.jsonl"
GAME = "demo-05-rufspiel-sau-im-letzten-stich"  # a Rufspiel lost by a mistake in trick 6


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--analysis", type=Path, help="an analysis directory (default: grade the demo games)")
    p.add_argument("--game", default=GAME)
    p.add_argument("--step", type=int, help="the card to open at (default: the decisive mistake, else 0)")
    p.add_argument("--out", type=Path, default=ROOT / "docs" / "view.png")
    p.add_argument("--size", default="1200,1330", help="window size, width,height")
    p.add_argument("--chromium", default="/usr/bin/chromium")
    args = p.parse_args()
    sys.path.insert(0, str(ROOT))
    from simkit.view import page_data, write_page

    with tempfile.TemporaryDirectory() as tmp:
        analysis = args.analysis
        if analysis is None:
            from simkit.analyze.batch import analyze_file

            analysis = Path(tmp) / "analysis"
            analyze_file(DEMO, analysis, objective="points", strategies=["heuristic"], workers=1)
        step = args.step if args.step is not None else page_data(analysis, args.game)["decisive"] or 0
        page = write_page(analysis, args.game, Path(tmp) / "page.html")
        args.out.parent.mkdir(parents=True, exist_ok=True)
        subprocess.run([args.chromium, "--headless=new", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                        f"--window-size={args.size}", f"--screenshot={args.out.resolve()}",
                        f"{page.resolve().as_uri()}#{step}"], check=True, capture_output=True)
    print(f"{args.out} ({args.game}, card {step + 1})")


if __name__ == "__main__":
    main()
