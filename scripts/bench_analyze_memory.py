"""Memory of `simkit analyze`'s parent process: RSS growth per 1000 games (a measurement, not a timed test).

Grading is slow, but the parent only orders, gathers and writes what the workers return. So the workers' results
are recorded once (``record``: a real `analyze_file` run whose results are also saved to a capture file), then
the parent's whole loop -- `analyze_file` itself: ordering, sinks, Parquet writers, progress, errors -- is replayed
on them as many times as wanted (``replay``): its executor is replaced by one whose workers return recorded results
instead of solving (a real fork process pool by default, so the results cross processes as in a real run; or in
this process with ``--in-process``). The parent's RSS is sampled every ``--every`` games and the growth per 1000
games is fitted on the second half of the samples (after the warm-up).

    python scripts/bench_analyze_memory.py record GAMES.jsonl CAPTURE [--objective win] [--workers 2] [--rules R]
    python scripts/bench_analyze_memory.py replay CAPTURE --games 200000 [--workers 2] [--in-process]
    python scripts/bench_analyze_memory.py real GAMES.jsonl [--objective win] [--workers 2]   # no replay, sampled
    python scripts/bench_analyze_memory.py auto [--record 1000] [--games 200000]   # all of it, as a table
"""

from __future__ import annotations

import argparse
import json
import pickle
import struct
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from simkit.analyze import batch as B  # noqa: E402


def rss_mb() -> float:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


# ---------------------------------------------------------------------------------------------- capture file

def _write_part(f, part: dict) -> None:
    blob = pickle.dumps(part, protocol=pickle.DEFAULT_PROTOCOL)  # what multiprocessing's pickler sends
    f.write(struct.pack("<Q", len(blob)))
    f.write(blob)


def _read_blobs(path: Path) -> list[bytes]:
    blobs = []
    with open(path, "rb") as f:
        while head := f.read(8):
            (n,) = struct.unpack("<Q", head)
            blobs.append(f.read(n))
    return blobs


def record(games: Path, capture: Path, objective: str, workers: int, rules) -> None:
    real_ordered = B._ordered

    def teeing(submit, batches, depth):
        with open(capture, "wb") as f:
            for part in real_ordered(submit, batches, depth):
                _write_part(f, part)
                yield part

    B._ordered = teeing
    try:
        with tempfile.TemporaryDirectory() as tmp:
            r = B.analyze_file(games, Path(tmp) / "a", rules=rules, objective=objective, workers=workers,
                               report=False)
    finally:
        B._ordered = real_ordered
    print(f"recorded {r.games} games ({r.decisions} decisions) in {r.seconds:.0f} s to {capture}", file=sys.stderr)


# --------------------------------------------------------------------------------------------------- replay

_BLOBS: list[bytes] = []
_REAL_EXECUTOR = B._executor


def _replay_part(fn, opts, lines):
    """Worker side: the recorded result (as grade_lines returned it) of the batch whose number is the text of its
    lines, cycling through the capture."""
    k = lines[0][1]
    return pickle.loads(_BLOBS[int(k) % len(_BLOBS)])


class _ReplayExecutor:
    """Stands in for batch._executor: the same pool, but its tasks return recorded results."""

    def __init__(self, backend, workers, scheduler, in_process=False):
        self.inner = _REAL_EXECUTOR(backend, 1 if in_process else workers, scheduler)

    def __enter__(self):
        submit = self.inner.__enter__()
        return lambda fn, opts, lines: submit(_replay_part, fn, opts, lines)

    def __exit__(self, *exc):
        return self.inner.__exit__(*exc)


def _rss_sampler(every: int):
    """(samples, progress): ``progress(k)`` (analyze_file's callback, k games done) appends (games, RSS MB) to
    ``samples`` each time another ``every`` games are done."""
    samples: list[tuple[int, float]] = []
    done = [0]

    def progress(k):
        before = done[0]
        done[0] += k
        if done[0] // every != before // every:
            samples.append((done[0], rss_mb()))

    return samples, progress


def replay(capture: Path, games: int, workers: int = 2, every: int = 8192, in_process: bool = False,
           out_dir: Path | None = None, warm: bool = False, one_by_one: bool = False) -> dict:
    """The parent's loop on ``games`` games of recorded results. ``one_by_one``: the sinks hold each waiting table
    as it came (as before they compacted them), to measure the difference."""
    global _BLOBS
    _BLOBS = [b for b in _read_blobs(capture)]
    full = [b for b in _BLOBS if pickle.loads(b)["games"].num_rows == B.BATCH_GAMES]
    _BLOBS = full  # only whole batches, so that batch k of the input is recorded batch k (mod the capture)
    if not warm:
        import simkit.solver.api as api
        api.warm_up = lambda notice=False: None
    samples, progress = _rss_sampler(every)
    with tempfile.TemporaryDirectory(dir=out_dir) as tmp:
        # the input: one line per game, its text is the recorded batch it belongs to
        path = Path(tmp) / "games.jsonl"
        with open(path, "w") as f:
            for i in range(games):
                f.write(f"{i // B.BATCH_GAMES}\n")
        B._executor = lambda backend, w, scheduler: _ReplayExecutor(backend, w, scheduler, in_process)
        compact = B._Sink.COMPACT
        if one_by_one:
            B._Sink.COMPACT = 1 << 62
        samples.append((0, rss_mb()))
        t0 = time.perf_counter()
        try:
            r = B.analyze_file(path, Path(tmp) / "a", workers=workers, report=False, progress=progress)
        finally:
            B._executor, B._Sink.COMPACT = _REAL_EXECUTOR, compact
        seconds = time.perf_counter() - t0
        samples.append((r.games, rss_mb()))
        size = sum(p.stat().st_size for p in (Path(tmp) / "a").glob("*.parquet"))
    return {"games": r.games, "decisions": r.decisions, "seconds": seconds, "parquet_mb": size / 2**20,
            "samples": samples, **growth(samples)}


def _slope(points: list[tuple[int, float]]) -> float:
    """Least-squares slope of RSS (MB) against games, in MB per 1000 games."""
    if len(points) < 2:
        return float("nan")
    n = len(points)
    mx = sum(g for g, _ in points) / n
    my = sum(m for _, m in points) / n
    sxx = sum((g - mx) ** 2 for g, _ in points)
    sxy = sum((g - mx) * (m - my) for g, m in points)
    return 1000 * sxy / sxx if sxx else float("nan")


def growth(samples: list[tuple[int, float]]) -> dict:
    """The parent's RSS growth: MB per 1000 games over the first row group of games.parquet (65,536 games) and
    after it, the peak above the first sample after the start, and the end."""
    first = [s for s in samples[1:] if s[0] <= B._Sink.ROW_GROUP]
    later = [s for s in samples if s[0] >= B._Sink.ROW_GROUP]
    return {"mb_per_1000_first_65536": _slope(first), "mb_per_1000_after": _slope(later),
            "rss_before": samples[0][1], "rss_first_sample": samples[1][1] if len(samples) > 1 else float("nan"),
            "rss_peak": max(m for _, m in samples), "rss_end": samples[-1][1]}


def real(games: Path, objective: str, workers: int, every: int, rules) -> dict:
    samples, progress = _rss_sampler(every)
    with tempfile.TemporaryDirectory() as tmp:
        samples.append((0, rss_mb()))
        r = B.analyze_file(games, Path(tmp) / "a", rules=rules, objective=objective, workers=workers,
                           report=False, progress=progress)
        samples.append((r.games, rss_mb()))
    return {"games": r.games, "seconds": r.seconds, "samples": samples, **growth(samples)}


def auto(n_record: int = 1000, games: int = 200_000, preset: str = "sauspiel", workers: int = 2,
         objective: str = "win") -> list[dict]:
    """Heuristic games of ``preset`` graded once for real (recorded), then the parent's loop replayed on ``games``
    games in separate processes: sinks compacting (as now) and holding each table (as before)."""
    import subprocess

    sys.path.insert(0, str(ROOT / "scripts"))
    from bench_analyze import engine_games

    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        g, cap = Path(tmp) / "games.jsonl", Path(tmp) / "capture.bin"
        engine_games(preset, n_record, g)
        record(g, cap, objective, workers, preset)
        for label, flag in (("tables held one by one (before)", ["--one-by-one"]), ("compacted (now)", [])):
            out = subprocess.run([sys.executable, __file__, "replay", str(cap), "--games", str(games), "--workers",
                                  str(workers), *flag], check=True, capture_output=True, text=True).stdout
            rows.append({"sinks": label, "preset": preset, **json.loads(out)})
            print(rows[-1], flush=True)
    return rows


def markdown(rows: list[dict], machine: str, n_record: int) -> str:
    out = ["### Analyze: the parent process's memory", "",
           f"Machine: {machine}. `scripts/bench_analyze_memory.py auto`: {n_record} heuristic games graded once "
           "(`win`, 2 workers) and their results recorded; then `analyze_file` itself (ordering, sinks, Parquet "
           "writers, progress) replayed on them with a fork pool of 2 workers that return the recorded results "
           "instead of solving. Parent RSS sampled every 8,192 games; growth fitted over the first 65,536 games "
           "(games.parquet's first row group, while its batches wait) and over the rest. The parent's RSS before "
           "the loop does not count the solver's compiled kernels (a real run's parent starts at 250-650 MB).", "",
           "| sinks | deck | games | MB / 1000 games, first 65,536 | MB / 1000 games, after | RSS before loop MB "
           "| peak MB | end MB |", "|---|---|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        out.append(f"| {r['sinks']} | {r['preset']} | {r['games']:,} | {r['mb_per_1000_first_65536']:.2f} | "
                   f"{r['mb_per_1000_after']:.3f} | {r['rss_before']:.0f} | {r['rss_peak']:.0f} | "
                   f"{r['rss_end']:.0f} |")
    return "\n".join(out) + "\n"


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    a = sub.add_parser("record")
    a.add_argument("games", type=Path)
    a.add_argument("capture", type=Path)
    a.add_argument("--objective", default="win")
    a.add_argument("--workers", type=int, default=2)
    a.add_argument("--rules", default=None)
    a = sub.add_parser("replay")
    a.add_argument("capture", type=Path)
    a.add_argument("--games", type=int, default=100_000)
    a.add_argument("--workers", type=int, default=2)
    a.add_argument("--every", type=int, default=8192)
    a.add_argument("--in-process", action="store_true")
    a.add_argument("--warm", action="store_true", help="compile the solver first, as a real run does")
    a.add_argument("--tmp", type=Path, default=None)
    a.add_argument("--one-by-one", action="store_true", help="sinks hold each waiting table (the old behaviour)")
    a = sub.add_parser("auto")
    a.add_argument("--record", type=int, default=1000, help="games graded for real and recorded (default 1000)")
    a.add_argument("--games", type=int, default=200_000, help="games replayed (default 200,000)")
    a.add_argument("--rules", default="sauspiel")
    a.add_argument("--workers", type=int, default=2)
    a = sub.add_parser("real")
    a.add_argument("games", type=Path)
    a.add_argument("--objective", default="win")
    a.add_argument("--workers", type=int, default=2)
    a.add_argument("--every", type=int, default=1000)
    a.add_argument("--rules", default=None)
    args = ap.parse_args(argv)
    if args.cmd == "record":
        record(args.games, args.capture, args.objective, args.workers, args.rules)
        return
    if args.cmd == "auto":
        rows = auto(args.record, args.games, args.rules, args.workers)
        print(markdown(rows, "this machine", args.record))
        return
    if args.cmd == "replay":
        r = replay(args.capture, args.games, args.workers, args.every, args.in_process, args.tmp, args.warm,
                   args.one_by_one)
    else:
        r = real(args.games, args.objective, args.workers, args.every, args.rules)
    for g, m in r.pop("samples"):
        print(f"{g:>9} games  parent RSS {m:8.1f} MB", file=sys.stderr)
    print(json.dumps(r))


if __name__ == "__main__":
    main()
