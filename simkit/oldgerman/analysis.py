"""Issue 6 section 4 tables of an old-German run, read from its Parquet files (for `simkit report` to include).

:func:`tables` returns pandas DataFrames:

* ``win_rate_by_count``: declaring-team win rate by the chooser's count (5, 6, 7, 8+) and for forced deals, with
  95% Wilson intervals;
* ``deal_summary``: share of forced deals (with the exact figure), strokes per deal, 60-60 ties, follow-up deals,
  Schwarz;
* ``parties`` (partie runs only): deals per partie (mean and distribution quantiles), share won by Schwarz, wins
  per team.

:func:`sheep_figure` draws one partie (see simkit.oldgerman.sheep).
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow.parquet as pq

from simkit.stats import wilson


def tables(run: str | Path) -> dict[str, pd.DataFrame]:
    from simkit.oldgerman.probability import forced_share
    from simkit.sim import manifest as mf

    run = Path(run)
    m = mf.load(run)
    if m.get("game") != "old-german":
        raise ValueError(f"{run} is not an old German run")
    cols = ["chooser_count", "forced", "won", "tie", "follow_up", "schwarz", "strokes_0", "strokes_1"]
    d = pq.read_table([run / s["file"] for s in m["shards"]], columns=cols).to_pandas()
    bucket = np.where(d.forced, "forced", np.where(d.chooser_count >= 8, "8+", d.chooser_count.astype(str)))
    rows = []
    for b in ("5", "6", "7", "8+", "forced"):
        sel = bucket == b
        n, k = int(sel.sum()), int(d.won[sel].sum())
        lo, hi = wilson(k, n)
        rows.append({"count": b, "deals": n, "win_rate": k / n if n else math.nan, "ci_low": lo, "ci_high": hi})
    out = {"win_rate_by_count": pd.DataFrame(rows)}
    n = len(d)
    f = int(d.forced.sum())
    lo, hi = wilson(f, n)
    strokes = (d.strokes_0.astype(np.int64) + d.strokes_1).to_numpy()
    out["deal_summary"] = pd.DataFrame([
        {"measure": "forced share", "value": f / n, "ci_low": lo, "ci_high": hi, "exact": float(forced_share())},
        {"measure": "strokes per deal", "value": strokes.mean(), "ci_low": math.nan, "ci_high": math.nan,
         "exact": math.nan},
        {"measure": "60-60 tie share", "value": d.tie.mean(), "ci_low": math.nan, "ci_high": math.nan,
         "exact": math.nan},
        {"measure": "follow-up deal share", "value": d.follow_up.mean(), "ci_low": math.nan, "ci_high": math.nan,
         "exact": math.nan},
        {"measure": "schwarz share", "value": d.schwarz.mean(), "ci_low": math.nan, "ci_high": math.nan,
         "exact": math.nan},
    ])
    from simkit.oldgerman.runner import parties_file

    pfile = parties_file(run)
    if m.get("unit") == "parties" and pfile.is_file():
        p = pq.read_table(pfile).to_pandas()
        q = p.deals.quantile([0.1, 0.5, 0.9]).to_numpy()
        out["parties"] = pd.DataFrame([{
            "parties": len(p), "deals_per_partie": p.deals.mean(), "deals_p10": q[0], "deals_median": q[1],
            "deals_p90": q[2], "won_by_schwarz": p.won_by_schwarz.mean(),
            "team_0_wins": int((p.winner_team == 0).sum()), "team_1_wins": int((p.winner_team == 1).sum())}])
    return out


def sheep_figure(run: str | Path, partie: int, out: str | Path) -> Path:
    from simkit.oldgerman.sheep import draw, load_partie

    deals, row, head, m = load_partie(Path(run), partie)
    return draw(deals, row, head, Path(out), f"partie {partie} of seed {m['seed']}: the sheep's head")
