"""``simkit sheep RUN --partie K``: the sheep's head of one partie, drawn stroke by stroke (matplotlib).

Each team's strokes draw a head for its opponents (RULES.md 3): the first chalk mark is the first line of the
drawing, and so on, until the head has ``head_strokes`` lines. The picture shows both heads with every line coloured
and numbered by the deal that earned it, the lines not yet earned dashed grey, and below them a strip with the
two heads after every deal, so the head is seen to grow. A partie won by Schwarz gets the rest of the winner's head
at once (drawn red, labelled "S").
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

# The 12 lines of the drawing, in the order they are chalked: the outline first (a complete head after 9), then
# horns and mouth for a 12-stroke head. Each line is a polyline (x, y).
_T = np.linspace(0, 1, 12)


def _arc(cx, cy, r, a0, a1, n=10):
    a = np.linspace(a0, a1, n)
    return list(zip(cx + r * np.cos(a), cy + r * np.sin(a)))


BASE_STROKES = [
    _arc(0.0, 0.9, 0.85, math.radians(165), math.radians(15)),  # skull
    [(-0.82, 1.12), (-0.78, 0.3), (-0.55, -0.6), (-0.32, -1.2)],  # left cheek
    [(0.82, 1.12), (0.78, 0.3), (0.55, -0.6), (0.32, -1.2)],  # right cheek
    [(-0.32, -1.2), (-0.15, -1.42), (0.15, -1.42), (0.32, -1.2)],  # muzzle
    [(-0.8, 0.95), (-1.6, 0.75), (-1.5, 0.55), (-0.8, 0.6)],  # left ear
    [(0.8, 0.95), (1.6, 0.75), (1.5, 0.55), (0.8, 0.6)],  # right ear
    _arc(-0.35, 0.4, 0.13, 0, 2 * math.pi, 14),  # left eye
    _arc(0.35, 0.4, 0.13, 0, 2 * math.pi, 14),  # right eye
    [(-0.18, -0.75), (0.0, -0.92), (0.18, -0.75)],  # nose
    [(-0.45, 1.55), (-1.0, 1.95), (-1.5, 1.6), (-1.35, 1.2), (-1.05, 1.35)],  # left horn
    [(0.45, 1.55), (1.0, 1.95), (1.5, 1.6), (1.35, 1.2), (1.05, 1.35)],  # right horn
    [(-0.22, -1.12), (0.0, -1.06), (0.22, -1.12)],  # mouth
]


def head_strokes_geometry(n: int) -> list[list[tuple[float, float]]]:
    """``n`` lines of the drawing: the first ``n`` base lines, or for more than 12 the longest lines split in two
    (keeping the order) until there are ``n``."""
    strokes = [list(s) for s in BASE_STROKES[:n]]
    while len(strokes) < n:
        lengths = [sum(math.dist(a, b) for a, b in zip(s, s[1:])) for s in strokes]
        i = int(np.argmax(lengths))
        s = strokes[i]
        if len(s) < 3:  # split a segment at its midpoint
            mid = ((s[0][0] + s[-1][0]) / 2, (s[0][1] + s[-1][1]) / 2)
            s = [s[0], mid, s[-1]]
        k = len(s) // 2
        strokes[i:i + 1] = [s[:k + 1], s[k:]]
    return strokes


def chalk_marks(strokes_0, strokes_1, schwarz_team: int | None, head: int) -> list[list[tuple[int, str]]]:
    """For each team, its chalk marks in the order won: (deal number 1-based, label). A Schwarz fills the winner's
    head at once (label "S")."""
    marks: list[list[tuple[int, str]]] = [[], []]
    for k, (a, b) in enumerate(zip(strokes_0, strokes_1)):
        marks[0] += [(k + 1, str(k + 1))] * int(a)
        marks[1] += [(k + 1, str(k + 1))] * int(b)
    if schwarz_team is not None:
        last = len(strokes_0)
        marks[schwarz_team] += [(last, "S")] * max(0, head - len(marks[schwarz_team]))
    return marks


def _draw_head(ax, geometry, marks, n_deals, upto=None, numbers=True, lw=2.5, dx=0.0):
    import matplotlib.pyplot as plt

    cmap = plt.get_cmap("viridis")
    for i, line in enumerate(geometry):
        xs = [p[0] + dx for p in line]
        ys = [p[1] for p in line]
        drawn = i < len(marks) and (upto is None or marks[i][0] <= upto)
        if not drawn:
            ax.plot(xs, ys, color="0.85", lw=lw * 0.5, ls="--")
            continue
        deal, label = marks[i]
        color = "#c0392b" if label == "S" else cmap(0.1 + 0.8 * (deal - 1) / max(n_deals - 1, 1))
        ax.plot(xs, ys, color=color, lw=lw, solid_capstyle="round")
        if numbers:
            m = line[len(line) // 2]
            ax.annotate(label, (m[0] + dx, m[1]), fontsize=7, ha="center", va="center",
                        bbox=dict(boxstyle="circle,pad=0.15", fc="white", ec=color, lw=0.8))
    ax.set_aspect("equal")
    ax.axis("off")


def draw(deals, partie: dict, head: int, out: Path, title: str = "") -> Path:
    """Draw one partie: ``deals`` with columns ``strokes_0``, ``strokes_1`` in deal order; ``partie`` its row."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    s0 = [int(x) for x in deals["strokes_0"]]
    s1 = [int(x) for x in deals["strokes_1"]]
    n = len(s0)
    schwarz_team = int(partie["winner_team"]) if partie["won_by_schwarz"] else None
    marks = chalk_marks(s0, s1, schwarz_team, head)
    geom = head_strokes_geometry(head)
    per_row = 8
    strip_rows = math.ceil(n / per_row)
    fig = plt.figure(figsize=(10, 5 + 1.6 * strip_rows))
    gs = fig.add_gridspec(1 + strip_rows, per_row, height_ratios=[5] + [1.6] * strip_rows)
    for t in (0, 1):
        ax = fig.add_subplot(gs[0, t * per_row // 2:(t + 1) * per_row // 2])
        _draw_head(ax, geom, marks[t][:head], n)
        total = partie[f"strokes_{t}"]
        extra = f" (+{len(marks[t]) - head} over)" if len(marks[t]) > head else ""
        won = " - wins" + (" by Schwarz" if partie["won_by_schwarz"] else "") if int(partie["winner_team"]) == t \
            else ""
        ax.set_title(f"team {t} (seats {t}+{t + 2}): {total} strokes{extra}{won}\n"
                     f"drawing the head for team {1 - t}", fontsize=10)
    for k in range(n):
        ax = fig.add_subplot(gs[1 + k // per_row, k % per_row])
        _draw_head(ax, geom, marks[0][:head], n, upto=k + 1, numbers=False, lw=1.2, dx=-1.9)
        _draw_head(ax, geom, marks[1][:head], n, upto=k + 1, numbers=False, lw=1.2, dx=1.9)
        schwarz = schwarz_team is not None and k == n - 1
        ax.set_title(f"deal {k + 1}: " + (f"Schwarz, team {schwarz_team}" if schwarz else f"+{s0[k]} / +{s1[k]}"),
                     fontsize=7)
    fig.suptitle(title, fontsize=11)
    fig.tight_layout()
    out = Path(out)
    fig.savefig(out, dpi=110)
    plt.close(fig)
    return out


def load_partie(run: Path, k: int):
    """(deal rows of partie ``k`` in deal order, its partie row, head_strokes, manifest) of a partie run."""
    import pyarrow.parquet as pq

    from simkit.sim import manifest as mf

    m = mf.load(run)
    if m.get("game") != "old-german" or m.get("unit") != "parties":
        raise ValueError(f"{run} is not an old German partie run (simkit run --rules old-german --parties N)")
    if not 0 <= k < m["deals"]:
        raise ValueError(f"--partie must be 0..{m['deals'] - 1} for the run in {run}, not {k}")
    shard = next((s for s in m["shards"] if s["start"] <= k < s["stop"]), None)
    if shard is None:
        raise ValueError(f"partie {k} is not in the completed shards of {run} (use simkit run --resume)")
    t = pq.read_table(run / shard["file"], columns=["partie_id", "deal_no", "strokes_0", "strokes_1"],
                      filters=[("partie_id", "=", k)])
    t = t.sort_by("deal_no")
    from simkit.oldgerman.runner import parties_file

    pfile = parties_file(run)
    if pfile.is_file():
        pt = pq.read_table(pfile, filters=[("partie_id", "=", k)])
    else:
        from simkit.oldgerman.runner import PIECE_PREFIX
        piece = run / f"{PIECE_PREFIX}{shard['start'] // m['shard_size']:06d}.parquet"
        pt = pq.read_table(piece, filters=[("partie_id", "=", k)])
    if pt.num_rows != 1 or t.num_rows == 0:
        raise ValueError(f"partie {k} is missing from {run}")
    partie = {c: pt.column(c)[0].as_py() for c in pt.column_names}
    deals = {c: t.column(c).to_numpy() for c in ("strokes_0", "strokes_1")}
    return deals, partie, int(m["ruleset"]["head_strokes"]), m
