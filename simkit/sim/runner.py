"""Monte Carlo batches streamed to a Parquet dataset, on local processes or a Dask cluster.

A run is cut into shards: fixed deal-id ranges ``[k * shard_size, (k + 1) * shard_size)``. Each shard is played
(in chunks, so memory stays flat) and written to ``part-<k>.parquet`` under a temporary name, then renamed; the
manifest is rewritten after every shard. Deal ``i`` depends only on (seed, i), so the rows are the same for any
number of workers, chunk size or backend; only which process wrote which file differs.

Python API::

    from simkit.sim import RunOptions, run
    summary = run(RunOptions(deals=10**6, seed=1), out="runs/demo")
"""

from __future__ import annotations

import json
import math
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from simkit import __version__
from simkit.rules.contracts import Contract
from simkit.rules.ruleset import Ruleset, load_ruleset
from simkit.sim import manifest as mf

MAX_SHARD = 1_000_000
MIN_SHARD = 50_000
DD_SHARD = 500
CHUNK = 250_000


class RunError(ValueError):
    """Bad options or an unusable output directory; nothing was written."""


@dataclass(frozen=True)
class RunOptions:
    """Everything that decides the rows of a run (and so must match on ``--resume``)."""

    deals: int | None = None  # with sessions: None (sessions x session_deals) or that product
    seed: int = 0
    rules: Ruleset = field(default_factory=lambda: load_ruleset())
    seats: tuple[str, str, str, str] = ("heuristic",) * 4
    contract: Contract | None = None  # forced mode: every deal is this contract ...
    declarer: int | None = None  # ... played by this seat
    store_hands: bool = False
    store_bids: bool = False  # bid_0..3, kontra_seat, re_seat columns
    dd: bool = False  # dd_points, dd_won: the double-dummy value of each opening (simkit.solver)
    store_play: bool = False  # play (every card in play order) and the Kontra/Re seats: games `simkit export` writes
    shard_size: int | None = None  # default: from the number of deals
    parties: bool = False  # old German game only: ``deals`` counts whole parties
    # sessions (docs/club-rules.md "Stock"): deal j of session s is deal id s * session_deals + j; the deal rotates,
    # the stock carries from deal to deal (with all_pass = "stock"), rows carry the session and player ids
    sessions: int | None = None
    session_deals: int | None = None

    @property
    def game(self) -> str:
        return getattr(self.rules, "game", "bavarian")

    def __post_init__(self):
        self._check_sessions()
        unit = "--parties" if self.parties else "--deals"
        if not 0 < self.deals < 2**63:
            raise RunError(f"{unit} must be between 1 and 2^63 - 1, not {self.deals}")
        if self.parties and self.game != "old-german":
            raise RunError("--parties needs the old German game (--rules old-german)")
        if self.game == "old-german":
            if self.contract is not None or self.declarer is not None:
                raise RunError("--contract/--declarer do not apply to the old German game (trumps are chosen)")
            if self.store_bids:
                raise RunError("--store-bids does not apply to the old German game (nobody bids)")
            if self.dd:
                raise RunError("--dd does not apply to the old German game (the solver plays the Bavarian game)")
            if self.store_play:
                raise RunError("--store-play does not apply to the old German game (its play is not stored; "
                               "replay records are Bavarian games)")
            if self.parties and self.deals >= 2**51:
                raise RunError(f"--parties must be below 2^51, not {self.deals}")
        if not 0 <= self.seed < 2**64:
            raise RunError(f"--seed must be between 0 and 2^64 - 1, not {self.seed}")
        if (self.contract is None) != (self.declarer is None):
            raise RunError("--contract and --declarer go together (forced mode)")
        if self.declarer is not None and not 0 <= self.declarer < 4:
            raise RunError(f"--declarer must be a seat 0..3, not {self.declarer}")
        if self.contract is not None and not self.rules.allows(self.contract):
            raise RunError(f"the ruleset {self.rules.name} does not allow {self.contract}")
        if len(self.seats) != 4:
            raise RunError("--seats needs four strategies, one per seat")

    def _check_sessions(self) -> None:
        if (self.sessions is None) != (self.session_deals is None):
            raise RunError("--sessions and --session-deals go together (N sessions of M deals each)")
        if self.sessions is None:
            if self.deals is None:
                raise RunError("give the number of deals (--deals) or of sessions (--sessions with --session-deals)")
            if getattr(self.rules, "all_pass", None) == "stock":
                raise RunError('all_pass = "stock" needs sessions (--sessions N --session-deals M): the stock '
                               'carries from deal to deal of a session')
            return
        if self.game != "bavarian":
            raise RunError("--sessions applies to the Bavarian game only")
        if len(set(self.seats)) > 1:  # the kernel seats strategies by seat, while the players rotate through them
            raise RunError("--sessions needs one strategy at every seat (--strategy NAME): the players rotate "
                           "through the seats, so a strategy per seat would not stay with a player")
        for name, v in (("--sessions", self.sessions), ("--session-deals", self.session_deals)):
            if not isinstance(v, int) or isinstance(v, bool) or not 0 < v < 2**32:
                raise RunError(f"{name} must be between 1 and 2^32 - 1, not {v!r}")
        total = self.sessions * self.session_deals
        if self.deals is None:
            object.__setattr__(self, "deals", total)  # frozen: set once, here
        elif self.deals != total:
            raise RunError(f"--deals {self.deals} is not --sessions x --session-deals ({total}); give one or the other")
        if self.shard_size and self.shard_size % self.session_deals:
            raise RunError(f"the shard size ({self.shard_size}) must be a whole number of sessions of "
                           f"{self.session_deals} deals (a shard holds whole sessions: the stock carries inside one)")

    @property
    def stock(self) -> bool:
        """The stock is settled: the ruleset's all-pass deals pay into it (it needs sessions)."""
        return self.sessions is not None and self.rules.all_pass == "stock"

    @property
    def shard(self) -> int:
        if self.shard_size:
            return self.shard_size
        if self.dd or self._slow_seats:  # milliseconds a deal: small shards keep the progress bar and cores busy
            size = min(DD_SHARD, max(1, math.ceil(self.deals / 8)))
        else:
            size = min(MAX_SHARD, max(MIN_SHARD, math.ceil(self.deals / 8)))
        if self.session_deals:  # whole sessions a shard (the stock carries inside a session)
            size = max(1, round(size / self.session_deals)) * self.session_deals
        return size

    @property
    def _slow_seats(self) -> bool:
        """A seat plays at milliseconds a deal (a strategy whose module says ``SLOW = True``, e.g. pimc)."""
        if self.game != "bavarian":
            return False
        from simkit.strategies import resolve

        return any(resolve(name).slow for name in self.seats)

    def identity(self) -> dict[str, Any]:
        """The manifest entries that a resumed run must match exactly."""
        c = self.contract
        if self.game == "old-german":
            return {"game": self.game, "unit": "parties" if self.parties else "deals",
                    "ruleset": json.loads(json.dumps(self.rules.to_dict())), "strategies": list(self.seats),
                    "seed": self.seed, "deals": self.deals, "shard_size": self.shard, "store_hands": self.store_hands}
        return {
            "game": "bavarian",
            "ruleset": json.loads(json.dumps(self.rules.to_dict())),
            "strategies": list(self.seats),
            "seed": self.seed,
            "deals": self.deals,
            "shard_size": self.shard,
            "contract": None if c is None else {"kind": c.name, "suit": c.suit, "tout": c.tout},
            "declarer": self.declarer,
            "store_hands": self.store_hands,
            "store_bids": self.store_bids,
            **({"dd": True} if self.dd else {}),  # absent in runs without it (and in runs written before it)
            **({"store_play": True} if self.store_play else {}),  # likewise
            **({"sessions": {"sessions": self.sessions, "session_deals": self.session_deals}}
               if self.sessions else {}),  # likewise
        }

    def file_metadata(self) -> dict[str, str]:
        """Parquet key-value metadata of every file of the run: a single file is self-describing."""
        return {"simkit": json.dumps({"version": __version__, **self.identity()})}

    def shards(self) -> list[tuple[int, int]]:
        s = self.shard
        return [(a, min(a + s, self.deals)) for a in range(0, self.deals, s)]


# ------------------------------------------------------------------------------------------ one shard

def play_shard(opts: RunOptions, start: int, stop: int, run_dir: str, chunk: int = CHUNK) -> dict[str, Any]:
    """Play deals ``start .. stop-1`` and write them as one Parquet file; return the shard's manifest entry.

    Runs in a worker process (local pool or Dask): imports are local so that the task pickles small.
    """
    if opts.game == "old-german":  # the old German game writes its own rows (simkit.oldgerman.runner)
        from simkit.oldgerman.runner import play_shard as play_old_german_shard
        return play_old_german_shard(opts, start, stop, run_dir, chunk)

    import pyarrow.parquet as pq

    from simkit.engine.game import play_games
    from simkit.sim.arrow import write_options
    from simkit.sim.schema import columns_from_games, schema

    run_dir = Path(run_dir)
    name = mf.shard_name(start // opts.shard)
    tmp = mf.temp_path(run_dir / name)
    sch = schema(opts.store_hands, opts.file_metadata(), store_bids=opts.store_bids, dd=opts.dd,
                 store_play=opts.store_play, hand_size=opts.rules.hand_size, klopfen=opts.rules.klopfen,
                 ramsch=opts.rules.all_pass == "ramsch", sessions=opts.sessions is not None, stock=opts.stock)
    stats = ShardStats()
    stock = 0  # a shard starts with a session, so with an empty stock; a chunk may end inside one
    try:
        with pq.ParquetWriter(tmp, sch, **write_options(sch)) as writer:
            for a in range(start, stop, chunk):
                b = min(a + chunk, stop)
                games = play_games(opts.seed, a, b - a, opts.rules, seats=opts.seats,
                                   contract=opts.contract, declarer=opts.declarer, trace=opts.store_play)
                if opts.dd:
                    games.update(dd_columns(games, opts.rules))
                if opts.sessions is not None:
                    games.update(sessions_columns(games, opts, stock))
                    stock = int(games["stock_after"][-1]) if opts.stock else 0
                writer.write_table(columns_from_games(games, sch))
                stats.add(games)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    # the main process renames the file into place together with the manifest (simkit.sim.manifest.commit)
    return {"file": name, "start": start, "stop": stop, "rows": stop - start, "summary": stats.to_dict(),
            "pending": {tmp.name: name}}


def sessions_columns(games: dict[str, np.ndarray], opts: RunOptions, stock: int) -> dict[str, np.ndarray]:
    """``session``, ``players``, ``stock_before``, ``stock_after`` and, with a stock, the payouts as whole changes
    (the game plus the stock share; simkit.sim.stock) of deals played in deal order; ``stock``: the stock before
    the first of them (when it does not start a session)."""
    from simkit.sim.stock import session_columns, settle_rows

    cols = session_columns(games["deal_id"], opts.session_deals)
    first = cols.pop("first")
    if not opts.stock:  # sessions without a stock (another all_pass): the rows carry the player ids only
        return cols
    settled = settle_rows(games["kind"], games["declarer"], games["partner"], games["won"], games.get("knocked"),
                          games["payouts"], first, opts.rules, impossible=games.get("impossible"), stock=stock)
    return {**cols, **settled}


def dd_columns(games: dict[str, np.ndarray], rules: Ruleset) -> dict[str, np.ndarray]:
    """``dd_points`` (the declaring side's double-dummy card points from the opening), ``dd_won`` (a Tout: every
    trick; a Bettel: no trick for the declarer) and ``dd_solved`` (False for passed deals and a Ramsch, which has
    no four-player value) of played deals. A Bettel has no points objective: its ``dd_points`` is written null
    (simkit.sim.schema), its ``dd_won`` is solved."""
    from simkit.rules.contracts import BETTEL
    from simkit.solver.api import solve_played

    points = solve_played(games, rules, "points")
    solved = points["solved"].copy()
    won = points["value"] >= 61
    tout = np.asarray(games["tout"], np.bool_) & points["solved"]
    if tout.any():  # a Tout is won by every trick, not by 61 points
        only_touts = dict(games, declarer=np.where(tout, games["declarer"], -1))
        won = np.where(tout, solve_played(only_touts, rules, "win")["value"] == 1, won)
    bettel = np.asarray(games["kind"]) == BETTEL
    if bettel.any():  # won by taking no trick
        only_bettel = dict(games, kind=np.where(bettel, games["kind"], -1))
        won = np.where(bettel, solve_played(only_bettel, rules, "win")["value"] == 1, won)
        solved |= bettel
    return {"dd_points": points["value"].astype(np.uint8), "dd_won": won, "dd_solved": solved}


class ShardStats:
    """Counts for the run summary, kept per shard in the manifest so a resumed run needs no re-reading."""

    def __init__(self, data: dict | None = None):
        self.deals = 0
        self.passed = 0
        self.impossible = 0
        self.games: dict[str, list[int]] = {}  # contract label -> [games, declarer wins]
        self.stock: dict[str, int] | None = None  # runs in sessions: sum and max of the stock, times it was won
        self.knocked = 0  # deals with at least one knock (Klopfen)
        self.knocks = 0  # knocks in all
        if data:
            self.merge(data)

    @staticmethod
    def label(kind: int, tout: bool) -> str:
        from simkit.rules.contracts import KIND_NAMES
        return KIND_NAMES[kind] + (" tout" if tout else "")

    def add(self, g: dict[str, np.ndarray]) -> None:
        kind = np.asarray(g["kind"])
        self.deals += len(kind)
        imp = np.asarray(g.get("impossible", np.zeros(len(kind), bool)), bool)
        self.impossible += int(imp.sum())
        self.passed += int(((kind < 0) & ~imp).sum())
        # one bin per (kind, tout); passed and impossible rows (kind -1) go to bin 0, which is dropped
        keys = kind.astype(np.intp)
        keys += 1
        keys <<= 1
        keys |= np.asarray(g["tout"], np.bool_)
        games = np.bincount(keys, minlength=2)
        wins = np.bincount(keys[np.asarray(g["won"], np.bool_)], minlength=len(games))
        for key in np.flatnonzero(games[2:]) + 2:
            entry = self.games.setdefault(self.label(int(key) // 2 - 1, bool(key % 2)), [0, 0])
            entry[0] += int(games[key])
            entry[1] += int(wins[key])
        if "knocked" in g:
            knocks = np.bitwise_count(np.asarray(g["knocked"], np.uint8))
            self.knocked += int(np.count_nonzero(knocks))
            self.knocks += int(knocks.sum())
        if "stock_before" in g:
            before = np.asarray(g["stock_before"], np.int64)
            after = np.asarray(g["stock_after"], np.int64)
            self._merge_stock({"sum": int(before.sum()), "max": int(before.max(initial=0)),
                               "won": int(((before > 0) & (after == 0)).sum()),
                               "throw_ins": int(((kind < 0) & ~imp).sum())})

    def _merge_stock(self, d: dict) -> None:
        if self.stock is None:
            self.stock = {"sum": 0, "max": 0, "won": 0, "throw_ins": 0}
        for k in ("sum", "won", "throw_ins"):
            self.stock[k] += d[k]
        self.stock["max"] = max(self.stock["max"], d["max"])

    def merge(self, d: dict) -> None:
        self.deals += d["deals"]
        self.passed += d["passed"]
        self.impossible += d.get("impossible", 0)
        self.knocked += d.get("knocked", 0)
        self.knocks += d.get("knocks", 0)
        for k, (n, w) in d["games"].items():
            e = self.games.setdefault(k, [0, 0])
            e[0] += n
            e[1] += w
        if d.get("stock") is not None:
            self._merge_stock(d["stock"])

    def to_dict(self) -> dict:
        out = {"deals": self.deals, "passed": self.passed, "impossible": self.impossible, "games": self.games}
        if self.knocks:
            out.update(knocked=self.knocked, knocks=self.knocks)
        if self.stock is not None:
            out["stock"] = self.stock
        return out


# ------------------------------------------------------------------------------------------ the run

def prepare_dir(out: Path, opts: RunOptions, resume: bool, force: bool) -> dict[str, Any]:
    """Check the output directory against the options; return the manifest to continue (resume) or start."""
    if out.exists() and not out.is_dir():
        raise RunError(f"--out {out} exists and is not a directory")
    exists = out.is_dir() and any(out.iterdir())
    if resume:
        if not exists:
            raise RunError(f"--resume: {out} does not exist or is empty")
        try:
            m = mf.load(out)
        except mf.ManifestError as e:
            raise RunError(f"--resume: {e}") from None
        diff = mf.mismatches(m, opts.identity())
        if diff:
            raise RunError(f"--resume: the options differ from the run in {out} in: {', '.join(diff)}")
        return m
    if exists and not force:
        raise RunError(f"--out {out} already exists; use --resume to finish it or --force to replace it")
    if exists and force:
        ours = [p for p in out.iterdir() if _written_by_simkit(p)]
        foreign = [p.name for p in out.iterdir() if not _written_by_simkit(p)]
        if foreign:
            raise RunError(f"--force: refusing to replace {out}: it holds files simkit did not write "
                           f"({', '.join(sorted(foreign)[:3])})")
        for p in ours:
            p.unlink()
    return {"format": mf.FORMAT, "simkit_version": __version__, "created": time.strftime("%Y-%m-%dT%H:%M:%SZ",
            time.gmtime()), **opts.identity(), "shards": []}


def _written_by_simkit(p: Path) -> bool:
    n = p.name
    return p.is_file() and (n in (mf.MANIFEST, mf.LEGACY_MANIFEST) or (n.startswith("part-") and n.endswith(".parquet"))
                            or mf.is_temp(n) or n in ("_parties.parquet", "parties.parquet")
                            or (n.startswith("_parties-") and n.endswith(".parquet")))


def run(opts: RunOptions, out: str | Path, *, workers: int | None = None, resume: bool = False,
        force: bool = False, backend: str = "local", scheduler: str | None = None,
        progress: Callable[[int], None] | None = None, chunk: int = CHUNK) -> dict[str, Any]:
    """Play a run into ``out`` and return its summary (see :func:`summarize`).

    ``backend``: ``local`` (a process pool of ``workers``, in-process for 1), ``dask`` (a Dask scheduler at
    ``scheduler``) or ``dask-local`` (a LocalCluster of ``workers`` processes). ``progress(k)`` is called with the
    number of deals of each completed shard.
    """
    out = Path(out)
    workers = workers or os.cpu_count() or 1
    if workers < 1:
        raise RunError(f"--workers must be at least 1, not {workers}")
    if backend not in ("local", "dask", "dask-local"):
        raise RunError(f"--backend must be local, dask or dask-local, not {backend!r}")
    if backend == "dask" and not scheduler:
        raise RunError("--backend dask needs --scheduler ADDRESS (or use --backend dask-local)")
    _check_strategies(opts)
    manifest = prepare_dir(out, opts, resume, force)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise RunError(f"cannot create --out {out}: {e.strerror}") from None
    listed = {s["file"] for s in manifest["shards"]}
    for p in out.iterdir():  # leftovers of a killed run: temporary files, shard files the manifest does not list
        shard_file = p.name.replace("_parties-", "part-", 1)  # an old-German partie piece belongs to its shard
        if mf.is_temp(p.name) or (
                _written_by_simkit(p) and shard_file.startswith("part-") and shard_file not in listed):
            p.unlink()
    done = {s["start"] for s in manifest["shards"]}
    todo = [(a, b) for a, b in opts.shards() if a not in done]
    if progress and done:
        progress(sum(s["rows"] for s in manifest["shards"]))
    mf.save(out, manifest)

    def finished(entry: dict) -> None:
        pending = entry.pop("pending")
        manifest["shards"].append(entry)
        mf.commit(out, manifest, pending)
        if progress:
            progress(entry["rows"])

    # Load (on a fresh install: compile, about 30 s, said on stderr) the kernels before the clock starts, so the
    # rate reported is that of the play itself; forked workers inherit them.
    _import_player(opts, notice=progress is not None)
    t0 = time.perf_counter()
    if backend == "local":
        _run_local(opts, todo, out, workers, chunk, finished)
    else:
        _run_dask(opts, todo, out, workers, chunk, finished, scheduler if backend == "dask" else None)
    if opts.parties:
        from simkit.oldgerman.runner import finish_parties
        finish_parties(out, manifest)
    return summarize(manifest, elapsed=time.perf_counter() - t0)


def _check_strategies(opts: RunOptions) -> None:
    if opts.game == "old-german":
        from simkit.oldgerman.kernel import policy_ids
        policy_ids(opts.seats)  # random or heuristic card play only
        return
    from simkit.strategies import resolve, value_table
    strategies = [resolve(name) for name in opts.seats]  # raises a clear error for an unknown strategy
    value_table.prepare(strategies, opts.rules)  # the value table, once, before the workers start
    for s in strategies:  # what a strategy learned for the rules (cached): missing weights fail before any write
        s.config_for(opts.rules)


def _run_local(opts, todo, out, workers, chunk, finished) -> None:
    if workers == 1 or len(todo) <= 1:
        for a, b in todo:
            finished(play_shard(opts, a, b, str(out), chunk))
        return
    import multiprocessing as mp
    import threading
    from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait

    # Fork workers that inherit the loaded kernel (a spawned worker spends about a second importing and loading
    # it), but only while this process has no other thread: forking a threaded process can deadlock. The
    # kernels use no threading layer, so a forked child runs them safely.
    if "fork" in mp.get_all_start_methods() and threading.active_count() == 1:
        ctx = mp.get_context("fork")
    else:
        ctx = mp.get_context("spawn")
    with ProcessPoolExecutor(max_workers=min(workers, len(todo)), mp_context=ctx) as pool:
        pending = {pool.submit(play_shard, opts, a, b, str(out), chunk) for a, b in todo}
        try:
            while pending:
                ready, pending = wait(pending, return_when=FIRST_COMPLETED)
                for f in ready:
                    finished(f.result())
        except BaseException:
            for f in pending:
                f.cancel()
            raise


def _import_player(opts: RunOptions, notice: bool = True) -> None:
    """Load the kernels that will play the shards (so forked workers inherit them): the game kernel, the kernels of
    the seats' strategies that it calls by address (pimc, people) and, with ``dd``, the solver's; each says on
    stderr when it is being compiled (a fresh install's first run), unless ``notice`` is False."""
    from contextlib import nullcontext

    from simkit.engine import notices

    with nullcontext() if notice else notices.silenced():
        if opts.game == "old-german":  # one deal or partie: compiles (or loads) the kernel the shards will use
            from simkit.oldgerman.kernel import play_deals, play_parties

            if opts.parties:
                play_parties(opts.seed, 0, 1, opts.rules.head_strokes, seats=opts.seats)
            else:
                play_deals(opts.seed, 0, 1, seats=opts.seats)
            return
        import simkit.engine.game as game

        game.prepare(list(opts.seats))
        if opts.dd:
            from simkit.solver.api import warm_up
            warm_up("many")


def _run_dask(opts, todo, out, workers, chunk, finished, scheduler) -> None:
    from distributed import Client, LocalCluster, as_completed

    if scheduler is None:
        cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None)
        client = Client(cluster)
    else:
        cluster, client = None, Client(scheduler)
    try:
        futures = [client.submit(play_shard, opts, a, b, str(out.resolve()), chunk, pure=False) for a, b in todo]
        for f in as_completed(futures):
            finished(f.result())
    finally:
        client.close()
        if cluster is not None:
            cluster.close()


def summarize(manifest: dict, elapsed: float | None = None) -> dict[str, Any]:
    """Deals, passed share and, per contract, games, share of played games and declarer win rate (a Ramsch's
    "declarer" is its loser or Durchmarsch winner: its win rate is the Durchmarsch rate); with Klopfen, the share of
    deals with a knock and the knocks per deal."""
    if manifest.get("game") == "old-german":
        from simkit.oldgerman.runner import summarize as summarize_old_german
        return summarize_old_german(manifest, elapsed)
    stats = ShardStats()
    for s in manifest["shards"]:
        stats.merge(s["summary"])
    played = max(stats.deals - stats.passed - stats.impossible, 1)
    contracts = {k: {"games": n, "share": n / played, "declarer_win_rate": w / n if n else None}
                 for k, (n, w) in sorted(stats.games.items(), key=lambda kv: -kv[1][0])}
    out = {
        "deals": stats.deals,
        "deals_requested": manifest["deals"],
        "complete": stats.deals == manifest["deals"],
        "passed": stats.passed,
        "passed_share": stats.passed / stats.deals if stats.deals else None,
        "impossible": stats.impossible,
        "contracts": contracts,
        **({"knocked_share": stats.knocked / stats.deals, "knocks_per_deal": stats.knocks / stats.deals}
           if stats.knocks and stats.deals else {}),
        "seed": manifest["seed"],
        "strategies": manifest["strategies"],
        "ruleset": manifest["ruleset"]["name"],
    }
    if manifest.get("sessions"):
        out["sessions"] = manifest["sessions"]
    if stats.stock is not None and stats.deals:
        st = stats.stock
        # "won": deals where a Rufspiel emptied a stock that held something
        out["stock"] = {"mean": st["sum"] / stats.deals, "max": st["max"], "won": st["won"],
                        "won_share": st["won"] / stats.deals, "throw_ins": st["throw_ins"]}
    if elapsed is not None:
        out["seconds"] = round(elapsed, 3)
    return out
