"""Many recorded games graded in parallel and streamed to Parquet (``simkit analyze``).

The input is read line by line in batches; batches are graded by a process pool (or a Dask cluster) and written in
input order as row groups of ``decisions.parquet`` and ``games.parquet``, so the output never depends on the number
of workers or the backend, and memory stays bounded by the batches in flight and the row group waiting in each
file. The files are written under temporary names and renamed when every game is done: an interrupted run leaves no
half-written table behind.
"""

from __future__ import annotations

import json
import os
import time
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from simkit.cards import SUIT_NAMES, format_card

BATCH_GAMES = 32  # games per task: large enough to amortise the hand-off, small enough to balance 2 cores
IN_FLIGHT_PER_WORKER = 3  # batches queued per worker: bounds memory whatever the file size
OBJECTIVES = ("points", "win", "payout")


class AnalyzeError(ValueError):
    """Bad options or an output that cannot be written (one line for the user)."""


@dataclass(frozen=True)
class AnalyzeOptions:
    rules: object  # a Ruleset
    objective: str = "points"
    strategies: tuple[str, ...] = ()
    advice_seed: int = 0  # the strategies' random streams (simkit.analyze.advice)


@dataclass
class AnalyzeResult:
    out: Path
    games: int = 0
    decisions: int = 0
    errors: list[str] = field(default_factory=list)
    seconds: float = 0.0
    solver_seconds: float = 0.0  # summed over workers


# ----------------------------------------------------------------------------------------------- schemas

def decision_schema(strategies=()) -> pa.Schema:
    fields = [
        ("game_id", pa.string()), ("trick", pa.int8()), ("position", pa.int8()), ("seat", pa.int8()),
        ("player", pa.string()), ("role", pa.string()), ("contract", pa.string()), ("card", pa.string()),
        ("n_legal", pa.int8()), ("values", pa.list_(pa.struct([("card", pa.string()), ("value", pa.int32())]))),
        ("best_value", pa.int32()), ("played_value", pa.int32()), ("loss", pa.int32()),
        ("forced", pa.bool_()), ("best", pa.bool_()), ("blunder", pa.bool_()),
    ]
    from simkit.analyze.advice import column_name

    for s in map(column_name, strategies):
        fields += [(f"{s}_card", pa.string()), (f"{s}_loss", pa.int32())]
    return pa.schema(fields)


GAME_SCHEMA = pa.schema([
    ("game_id", pa.string()), ("line", pa.int32()), ("contract", pa.string()), ("suit", pa.string()),
    ("declarer", pa.int8()), ("partner", pa.int8()), ("declarer_player", pa.string()),
    ("opening_value", pa.int32()), ("dd_won", pa.bool_()), ("result", pa.int32()), ("won", pa.bool_()), ("declarer_points", pa.int16()),
    ("payout", pa.int32()), ("value_after_trick", pa.list_(pa.int32())), ("swing", pa.int32()),
    ("loss_declaring", pa.int32()), ("loss_defending", pa.int32()), ("blunders", pa.int16()),
    ("decisive_trick", pa.int8()), ("decisive_seat", pa.int8()), ("decisive_card", pa.string()),
    ("decisive_player", pa.string()), ("ms", pa.float32()), ("conceded", pa.int8()),
    ("hands", pa.list_(pa.list_(pa.string()))),
])


# ------------------------------------------------------------------------------------------------ workers

_WORKER: dict = {}


def _worker_state(opts: AnalyzeOptions) -> dict:
    """One solver workspace (and strategy advisors) per process, kept between batches."""
    if _WORKER.get("opts") != opts:
        from simkit.solver import Workspace

        _WORKER.clear()
        _WORKER["opts"] = opts
        _WORKER["ws"] = Workspace()
    return _WORKER


def grade_lines(opts: AnalyzeOptions, lines: list[tuple[int, str | None, str | None]]) -> dict:
    """Grade a batch of ``(line number, text, read error)``; return its rows (columns as lists) and the bad lines'
    errors."""
    from simkit.analyze.advice import advisors_for, column_name
    from simkit.analyze.grade import grade_game
    from simkit.analyze.records import parse_line

    state = _worker_state(opts)
    columns = [column_name(s) for s in opts.strategies]
    decisions: list[dict] = []
    games: list[dict] = []
    errors: list[str] = []
    t_solve = 0.0
    for n, text, error in lines:
        if error is None:
            game, error = parse_line(text, n, opts.rules)
        if error is not None:
            errors.append(error)
            continue
        t0 = time.perf_counter()
        try:
            graded = grade_game(game, opts.objective, workspace=state["ws"],
                                advisors=advisors_for(game, opts.strategies, opts.advice_seed))
        except AssertionError as e:  # a solver inconsistency: keep the batch going, report the game
            errors.append(f"line {n}: internal error, the game could not be graded ({e}); please report it")
            continue
        ms = (time.perf_counter() - t0) * 1000
        t_solve += ms / 1000
        for row in graded.decisions:
            row["card"] = format_card(row["card"])
            row["values"] = [{"card": format_card(c), "value": v} for c, v in row["values"].items()]
            for s in columns:
                row[f"{s}_card"] = format_card(row[f"{s}_card"])
        decisions.extend(graded.decisions)
        g = graded.game
        g["line"] = n
        g["suit"] = SUIT_NAMES[g["suit"]] if g["suit"] is not None else None
        g["declarer_player"] = game.player(g["declarer"]) if g["declarer"] is not None else None  # (a Ramsch)
        g["decisive_player"] = game.player(g["decisive_seat"]) if g["decisive_seat"] is not None else None
        g["decisive_card"] = format_card(g["decisive_card"]) if g["decisive_card"] is not None else None
        g["ms"] = ms
        games.append(g)
    # Arrow tables, built here: the parent only writes them
    return {"decisions": pa.Table.from_pylist(decisions, schema=decision_schema(opts.strategies)),
            "games": pa.Table.from_pylist(games, schema=GAME_SCHEMA), "errors": errors, "seconds": t_solve}


# ---------------------------------------------------------------------------------------------- driving

def _batches(path: Path, size: int):
    """Lists of ``(line number, text, error)``: the file plain or gzip-compressed; a line that cannot be read
    (not UTF-8, a corrupt or truncated gzip stream) comes with its error and is reported, not graded."""
    from simkit.analyze.records import numbered_lines

    batch: list[tuple[int, str | None, str | None]] = []
    for item in numbered_lines(path):
        batch.append(item)
        if len(batch) == size:
            yield batch
            batch = []
    if batch:
        yield batch


def count_games(path: Path) -> int:
    """Non-blank lines of ``path`` (for the progress bar)."""
    from simkit.analyze.records import numbered_lines

    return sum(1 for _ in numbered_lines(path))


def _ordered(submit, batches, depth: int):
    """Submit batches keeping at most ``depth`` in flight; yield results in submission order."""
    queue: deque = deque()
    for b in batches:
        queue.append(submit(b))
        if len(queue) >= depth:
            yield queue.popleft().result()
    while queue:
        yield queue.popleft().result()


def analyze_file(path: str | Path, out: str | Path | None = None, *, rules=None, objective: str = "points",
                 strategies=(), workers: int | None = None, backend: str = "local", scheduler: str | None = None,
                 batch_games: int = BATCH_GAMES, progress=None, report: bool = True,
                 force: bool = False, advice_seed: int = 0) -> AnalyzeResult:
    """Grade every game of the replay-record file ``path`` into ``out`` (default ``analysis/<UTC time>``):
    ``decisions.parquet``, ``games.parquet``, ``errors.jsonl`` (bad records, by line), ``summary.json``, the summary
    tables and ``report.html``. ``progress(k)`` is called with the number of input lines done. An ``out`` that
    already holds an analysis is refused unless ``force``. ``advice_seed`` seeds the strategies' random streams
    (simkit.analyze.advice: pimc's worlds; another seed measures the advice's noise)."""
    from simkit.rules.ruleset import Ruleset, load_ruleset
    from simkit.strategies import resolve, value_table

    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(2, "No such file", str(path))
    if objective not in OBJECTIVES:
        raise AnalyzeError(f"--objective must be one of {', '.join(OBJECTIVES)}, not {objective!r}")
    if backend not in ("local", "dask", "dask-local"):
        raise AnalyzeError(f"--backend must be local, dask or dask-local, not {backend!r}")
    if backend == "dask" and not scheduler:
        raise AnalyzeError("--backend dask needs --scheduler ADDRESS (or use --backend dask-local)")
    rules = rules if isinstance(rules, Ruleset) else load_ruleset(rules)
    strategies = tuple(dict.fromkeys(strategies))
    # an unknown strategy is a clear error before any work; the value table, once, before the workers start
    value_table.prepare([resolve(s) for s in strategies], rules)
    opts = AnalyzeOptions(rules, objective, strategies, advice_seed)
    out = Path(out) if out else Path("analysis") / time.strftime("%Y%m%d-%H%M%S", time.gmtime())
    if out.exists() and not out.is_dir():
        raise AnalyzeError(f"--out {out} exists and is not a directory")
    if (out / "decisions.parquet").exists() and not force:
        raise AnalyzeError(f"--out {out} already holds an analysis; give --force to replace it")
    created = not out.exists()
    out.mkdir(parents=True, exist_ok=True)
    workers = max(1, workers or os.cpu_count() or 1)
    from simkit.solver.api import warm_up

    warm_up("line", "threshold", notice=progress is not None)  # before forking: the workers inherit the kernels
    if opts.strategies:
        from simkit.analyze.advice import warm_up as advice_warm_up
        advice_warm_up()

    result = AnalyzeResult(out)
    tmp = {name: out / f".{name}.parquet.tmp" for name in ("decisions", "games")}
    sinks = {"decisions": _Sink(pq.ParquetWriter(tmp["decisions"], decision_schema(opts.strategies))),
             "games": _Sink(pq.ParquetWriter(tmp["games"], GAME_SCHEMA))}
    t0 = time.perf_counter()
    try:
        with _executor(backend, workers, scheduler) as submit:
            for part in _ordered(lambda b: submit(grade_lines, opts, b), _batches(path, batch_games),
                                 workers * IN_FLIGHT_PER_WORKER):
                for name in ("decisions", "games"):
                    if part[name].num_rows:
                        sinks[name].add(part[name])
                result.games += part["games"].num_rows
                result.decisions += part["decisions"].num_rows
                result.errors += part["errors"]
                result.solver_seconds += part["seconds"]
                if progress:
                    progress(part["games"].num_rows + len(part["errors"]))
    except BaseException:
        for sink in sinks.values():
            sink.writer.close()
        for t in tmp.values():
            t.unlink(missing_ok=True)
        if created and not any(out.iterdir()):
            out.rmdir()
        raise
    for sink in sinks.values():
        sink.close()
    result.seconds = time.perf_counter() - t0
    for name, t in tmp.items():
        os.replace(t, out / f"{name}.parquet")
    with open(out / "errors.jsonl", "w", encoding="utf-8") as f:
        for e in result.errors:
            f.write(json.dumps({"error": e}) + "\n")
    if report:
        from analysis.grading import write_summary
        write_summary(out, result, opts)
    return result


class _Sink:
    """Batches' tables gathered into row groups of ROW_GROUP rows (the last one shorter): a row group per small
    batch would make the files slow to read, and the writer keeps about 14 KB of metadata a row group until the
    file is closed (its footer), so a row group is never split in two around a batch boundary.

    Every COMPACT tables waiting are copied into one: a table handed over by a worker costs the parent about 30 KB
    beyond its data (its own schema, arrays and buffers), and games.parquet waits for 65,536 games -- 2,048 batches,
    60-90 MB of such overhead for 8 MB of data. Compacted, the wait costs little more than the data."""

    ROW_GROUP = 1 << 16
    COMPACT = 64

    def __init__(self, writer: pq.ParquetWriter):
        self.writer, self.pending, self.fresh, self.rows = writer, [], [], 0

    def add(self, table: pa.Table) -> None:
        self.fresh.append(table)
        self.rows += table.num_rows
        if self.rows >= self.ROW_GROUP:
            self.flush(whole=True)
        elif len(self.fresh) >= self.COMPACT:
            self.pending.append(pa.concat_tables(self.fresh).combine_chunks())
            self.fresh = []

    def flush(self, whole: bool = False) -> None:
        """Write what waits; with ``whole``, only whole row groups (the rest waits)."""
        if not self.rows:
            return
        table = pa.concat_tables(self.pending + self.fresh)
        n = self.rows - self.rows % self.ROW_GROUP if whole else self.rows
        self.writer.write_table(table.slice(0, n), row_group_size=self.ROW_GROUP)
        rest = table.slice(n)  # part of the last batch only: the rows waiting were fewer than ROW_GROUP before it
        self.pending, self.fresh, self.rows = [], [rest] if rest.num_rows else [], rest.num_rows

    def close(self) -> None:
        self.flush()
        self.writer.close()


class _executor:
    """``with _executor(...) as submit``: ``submit(fn, *args)`` returns a future, on a process pool (local), a
    Dask cluster, or in this process for one worker."""

    def __init__(self, backend: str, workers: int, scheduler: str | None):
        self.backend, self.workers, self.scheduler = backend, workers, scheduler
        self._close = []

    def __enter__(self):
        if self.backend == "local" and self.workers == 1:
            return _InProcess().submit
        if self.backend == "local":
            import multiprocessing as mp
            import threading
            from concurrent.futures import ProcessPoolExecutor

            ctx = mp.get_context("fork" if "fork" in mp.get_all_start_methods() and threading.active_count() == 1
                                 else "spawn")
            pool = ProcessPoolExecutor(max_workers=self.workers, mp_context=ctx)
            self._close.append(lambda: pool.shutdown(cancel_futures=True))
            return pool.submit
        from distributed import Client, LocalCluster

        if self.scheduler is None:
            cluster = LocalCluster(n_workers=self.workers, threads_per_worker=1, processes=True,
                                   dashboard_address=None)
            client = Client(cluster)
            self._close += [client.close, cluster.close]
        else:
            client = Client(self.scheduler)
            self._close.append(client.close)
        return lambda fn, *args: client.submit(fn, *args, pure=False)

    def __exit__(self, *exc):
        for close in self._close:
            close()
        return False


class _InProcess:
    class _Done:
        def __init__(self, value):
            self.value = value

        def result(self):
            return self.value

    def submit(self, fn, *args):
        return self._Done(fn(*args))
