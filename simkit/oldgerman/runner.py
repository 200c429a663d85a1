"""Rows of ``simkit run --rules old-german`` (deals or whole parties) and their Parquet schema.

:mod:`simkit.sim.runner` keeps the shards, the manifest, resume and the backends; for an old-German run its
``play_shard`` calls :func:`play_shard` here. A shard is a range of deal ids (``--deals``) or of partie ids
(``--parties``). In a partie run every shard also writes its partie rows to ``_parties-<k>.parquet`` (the leading
underscore keeps Parquet dataset readers away from it); when the run is complete :func:`finish_parties` joins them
into ``_parties.parquet``. The columns are documented in docs/schema.md.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa

from simkit.cards import SUIT_NAMES
from simkit.sim import arrow
from simkit.sim import manifest as mf

PARTIES_FILE = "_parties.parquet"  # "_": readers of the run directory as one dataset skip it
LEGACY_PARTIES_FILE = "parties.parquet"  # runs written before 2026-12
PIECE_PREFIX = "_parties-"


def parties_file(run: Path) -> Path:
    """The joined partie rows of a complete partie run (the legacy name for runs written before)."""
    legacy = run / LEGACY_PARTIES_FILE
    return legacy if legacy.is_file() and not (run / PARTIES_FILE).is_file() else run / PARTIES_FILE

DEAL_FIELDS = [
    pa.field("deal_id", pa.uint64(), nullable=False),
    pa.field("forehand", pa.int8(), nullable=False),
    pa.field("chooser", pa.int8(), nullable=False),
    pa.field("declaring_team", pa.uint8(), nullable=False),
    pa.field("trump_suit", arrow.DICT_STRING, nullable=False),
    pa.field("chooser_count", pa.uint8(), nullable=False),
    pa.field("forced", pa.bool_(), nullable=False),
    pa.field("follow_up", pa.bool_(), nullable=False),
    pa.field("declarer_points", pa.uint8(), nullable=False),
    pa.field("declarer_tricks", pa.uint8(), nullable=False),
    pa.field("won", pa.bool_(), nullable=False),
    pa.field("tie", pa.bool_(), nullable=False),
    pa.field("double", pa.bool_(), nullable=False),
    pa.field("schwarz", pa.bool_(), nullable=False),
    pa.field("strokes_0", pa.uint8(), nullable=False),
    pa.field("strokes_1", pa.uint8(), nullable=False),
]
PARTIE_DEAL_FIELDS = [pa.field("partie_id", pa.uint64(), nullable=False),
                      pa.field("deal_no", pa.uint16(), nullable=False)]
HAND_FIELDS = [pa.field(f"hand_{s}", pa.uint32(), nullable=False) for s in range(4)]
PARTIE_FIELDS = [
    pa.field("partie_id", pa.uint64(), nullable=False),
    pa.field("winner_team", pa.uint8(), nullable=False),
    pa.field("deals", pa.uint16(), nullable=False),
    pa.field("strokes_0", pa.uint16(), nullable=False),
    pa.field("strokes_1", pa.uint16(), nullable=False),
    pa.field("won_by_schwarz", pa.bool_(), nullable=False),
]


def deal_schema(parties: bool, store_hands: bool, metadata: dict[str, str] | None = None) -> pa.Schema:
    fields = DEAL_FIELDS[:1] + (PARTIE_DEAL_FIELDS if parties else []) + DEAL_FIELDS[1:] \
        + (HAND_FIELDS if store_hands else [])
    return pa.schema(fields, metadata=metadata)


def partie_schema(metadata: dict[str, str] | None = None) -> pa.Schema:
    return pa.schema(PARTIE_FIELDS, metadata=metadata)


def deal_table(d: dict[str, np.ndarray], schema: pa.Schema) -> pa.Table:
    cols = {}
    for f in schema:
        if f.name == "trump_suit":
            cols[f.name] = arrow.dictionary(d["trump_suit"], SUIT_NAMES)
        elif f.name.startswith("hand_"):
            cols[f.name] = arrow.column(d["hands"][:, int(f.name[-1])], f.type)
        else:
            cols[f.name] = arrow.column(d[f.name], f.type)
    return arrow.table(cols, schema)


def partie_table(p: dict[str, np.ndarray], schema: pa.Schema) -> pa.Table:
    return arrow.table({f.name: arrow.column(p[f.name], f.type) for f in schema}, schema)


# ---------------------------------------------------------------------------------------------- stats

COUNT_BUCKETS = ("5", "6", "7", "8+", "forced")


class OGStats:
    """Counts for the run summary (kept per shard in the manifest, merged without re-reading the files)."""

    KEYS = ("deals", "forced", "won", "ties", "follow_ups", "double", "schwarz", "strokes", "parties",
            "partie_deals", "won_by_schwarz")

    def __init__(self, data: dict | None = None):
        self.c = {k: 0 for k in self.KEYS}
        self.by_count = {b: [0, 0] for b in COUNT_BUCKETS}  # [deals, declaring-team wins]
        self.winners = [0, 0]
        if data:
            self.merge(data)

    def add_deals(self, d: dict[str, np.ndarray]) -> None:
        c = self.c
        c["deals"] += len(d["deal_id"])
        for k, col in (("forced", "forced"), ("won", "won"), ("ties", "tie"), ("follow_ups", "follow_up"),
                       ("double", "double"), ("schwarz", "schwarz")):
            c[k] += int(np.count_nonzero(d[col]))
        c["strokes"] += int(d["strokes_0"].sum(dtype=np.int64) + d["strokes_1"].sum(dtype=np.int64))
        cnt = d["chooser_count"].astype(np.int64)
        for b, sel in (("5", ~d["forced"] & (cnt == 5)), ("6", ~d["forced"] & (cnt == 6)),
                       ("7", ~d["forced"] & (cnt == 7)), ("8+", ~d["forced"] & (cnt >= 8)),
                       ("forced", d["forced"])):
            self.by_count[b][0] += int(sel.sum())
            self.by_count[b][1] += int(d["won"][sel].sum())

    def add_parties(self, p: dict[str, np.ndarray]) -> None:
        self.c["parties"] += len(p["partie_id"])
        self.c["partie_deals"] += int(p["deals"].sum(dtype=np.int64))
        self.c["won_by_schwarz"] += int(p["won_by_schwarz"].sum())
        for t in (0, 1):
            self.winners[t] += int((p["winner_team"] == t).sum())

    def merge(self, d: dict) -> None:
        for k in self.KEYS:
            self.c[k] += d["counts"][k]
        for b in COUNT_BUCKETS:
            self.by_count[b][0] += d["by_count"][b][0]
            self.by_count[b][1] += d["by_count"][b][1]
        self.winners[0] += d["winners"][0]
        self.winners[1] += d["winners"][1]

    def to_dict(self) -> dict:
        return {"counts": dict(self.c), "by_count": {b: list(v) for b, v in self.by_count.items()},
                "winners": list(self.winners)}


def summarize(manifest: dict, elapsed: float | None = None) -> dict[str, Any]:
    st = OGStats()
    for s in manifest["shards"]:
        st.merge(s["summary"])
    c = st.c
    n = max(c["deals"], 1)
    parties_run = manifest.get("unit") == "parties"
    out: dict[str, Any] = {
        "game": "old-german",
        "unit": "parties" if parties_run else "deals",
        "requested": manifest["deals"],
        "done": sum(s["rows"] for s in manifest["shards"]),
        "deals": c["deals"],
        "complete": sum(s["rows"] for s in manifest["shards"]) == manifest["deals"],
        "forced_share": c["forced"] / n,
        "declaring_team_win_rate": c["won"] / n,
        "win_rate_by_count": {b: {"deals": k, "win_rate": (w / k if k else None)}
                              for b, (k, w) in st.by_count.items()},
        "tie_share": c["ties"] / n,
        "follow_up_share": c["follow_ups"] / n,
        "double_share": c["double"] / n,
        "schwarz_share": c["schwarz"] / n,
        "strokes_per_deal": c["strokes"] / n,
        "seed": manifest["seed"],
        "strategies": manifest["strategies"],
        "ruleset": manifest["ruleset"]["name"],
    }
    if parties_run:
        p = max(c["parties"], 1)
        out.update({"parties": c["parties"], "deals_per_partie": c["partie_deals"] / p,
                    "won_by_schwarz_share": c["won_by_schwarz"] / p,
                    "partie_wins": {"team_0": st.winners[0], "team_1": st.winners[1]}})
    if elapsed is not None:
        out["seconds"] = round(elapsed, 3)
    return out


# ---------------------------------------------------------------------------------------------- shards

def play_shard(opts, start: int, stop: int, run_dir: str, chunk: int) -> dict[str, Any]:
    """Deals (or parties) ``start .. stop-1`` of an old-German run, written as one shard (+ a partie piece)."""
    import pyarrow.parquet as pq

    from simkit.oldgerman.kernel import play_deals, play_parties

    run_dir = Path(run_dir)
    index = start // opts.shard
    name = mf.shard_name(index)
    piece = f"{PIECE_PREFIX}{index:06d}.parquet"
    tmp = mf.temp_path(run_dir / name)
    tmp_piece = mf.temp_path(run_dir / piece)
    meta = opts.file_metadata()
    sch = deal_schema(opts.parties, opts.store_hands, meta)
    psch = partie_schema(meta)
    stats = OGStats()
    # parties are ~8 deals each: keep the chunk of deal rows about the same size as a deals run's
    step = chunk if not opts.parties else max(1, chunk // 10)
    try:
        with pq.ParquetWriter(tmp, sch, **arrow.write_options(sch)) as writer:
            pwriter = pq.ParquetWriter(tmp_piece, psch, **arrow.write_options(psch)) if opts.parties else None
            try:
                for a in range(start, stop, step):
                    b = min(a + step, stop)
                    if opts.parties:
                        d, p = play_parties(opts.seed, a, b - a, opts.rules.head_strokes, seats=opts.seats)
                        pwriter.write_table(partie_table(p, psch))
                        stats.add_parties(p)
                    else:
                        d = play_deals(opts.seed, a, b - a, seats=opts.seats)
                    writer.write_table(deal_table(d, sch))
                    stats.add_deals(d)
            finally:
                if pwriter is not None:
                    pwriter.close()
    except BaseException:
        tmp.unlink(missing_ok=True)
        tmp_piece.unlink(missing_ok=True)
        raise
    # renamed into place by the main process, together with the manifest (simkit.sim.manifest.commit)
    pending = {tmp_piece.name: piece} if opts.parties else {}
    pending[tmp.name] = name
    return {"file": name, "start": start, "stop": stop, "rows": stop - start, "summary": stats.to_dict(),
            "pending": pending}


def finish_parties(out: Path, manifest: dict) -> None:
    """Join the partie pieces of a complete partie run into ``_parties.parquet`` (atomically), then drop them."""
    import pyarrow.parquet as pq

    pieces = sorted(out.glob(f"{PIECE_PREFIX}*.parquet"))
    done = sum(s["rows"] for s in manifest["shards"]) == manifest["deals"]
    if not done or not pieces:
        return
    tmp = mf.temp_path(out / PARTIES_FILE)
    try:
        schema = pq.read_schema(pieces[0])
        with pq.ParquetWriter(tmp, schema, **arrow.write_options(schema)) as w:
            for p in pieces:
                w.write_table(pq.read_table(p))
        os.replace(tmp, out / PARTIES_FILE)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    for p in pieces:
        p.unlink()


def written_by_simkit(name: str) -> bool:
    return name.startswith(PIECE_PREFIX) and name.endswith(".parquet")


def print_summary(s: dict, console) -> None:
    """The summary of an old-German run as ``simkit run`` prints it."""
    import sys

    from rich.table import Table

    rate = f", {s['deals'] / s['seconds']:,.0f} deals/s" if s.get("seconds") else ""
    head = f"{s['parties']:,} parties, " if s["unit"] == "parties" else ""
    console.print(f"old German game: {head}{s['deals']:,} deals in {s['out']}{rate}")
    t = Table("", "", box=None, pad_edge=False, show_header=False)
    t.add_row("forced deals", f"{s['forced_share']:.1%}")
    t.add_row("declaring team wins", f"{s['declaring_team_win_rate']:.1%}")
    for b, v in s["win_rate_by_count"].items():
        wr = "" if v["win_rate"] is None else f"{v['win_rate']:.1%}"
        label = "  forced" if b == "forced" else f"  count {b}"
        t.add_row(label, f"{wr} of {v['deals']:,}")
    t.add_row("60-60 ties", f"{s['tie_share']:.2%}")
    t.add_row("schwarz", f"{s['schwarz_share']:.2%}")
    t.add_row("strokes per deal", f"{s['strokes_per_deal']:.3f}")
    if s["unit"] == "parties":
        t.add_row("deals per partie", f"{s['deals_per_partie']:.2f}")
        t.add_row("parties won by schwarz", f"{s['won_by_schwarz_share']:.1%}")
        t.add_row("parties won (team 0 / 1)", f"{s['partie_wins']['team_0']:,} / {s['partie_wins']['team_1']:,}")
    console.print(t)
    if not s["complete"]:
        print(f"incomplete: {s['done']:,} of {s['requested']:,} {s['unit']}", file=sys.stderr)
