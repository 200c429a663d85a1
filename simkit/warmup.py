"""Compile every kernel up front: ``python -m simkit.warmup [NAME ...] [--jobs N] [--list] [--times]``.

A fresh install compiles each kernel when a command first needs it, and says so on stderr (simkit.engine.notices);
numba's on-disk cache keeps it for every later process. This module compiles (or loads) all of them, or the ones
named, each with its compile notice: the test suite runs it before its workers start (tests/conftest.py), so that
they load every kernel from the cache instead of each compiling its own, and a shared install can run it once.

:data:`KERNELS` lists them by name, with the family of kernels they share code with: ``--jobs N`` compiles the
families in N processes at once (a family stays in one process, so that no callee is compiled twice). The kernels of
``simkit train people`` (the people model's feature extraction) are left to their first use.

It also re-exports the compile notices (``compile_notice``, ``silenced``), which live in simkit.engine.notices so that
the kernels can announce themselves without importing anything above the engine.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass

from simkit.engine.notices import DELAY, compile_notice, silenced  # noqa: F401  (re-exported)


@dataclass(frozen=True)
class Kernel:
    name: str
    what: str  # the compile notice's words
    family: str  # kernels of one family share callees: compiled in one process
    warm: Callable[[], None]
    announced: bool  # its kernels say their own compile notices (else the warm-up says one for the entry)


def _game() -> None:
    from simkit.engine.game import play_games

    play_games(1, 0, 4)  # the kernel, the heuristic it calls, the plug-in fillers' entry points


def _people() -> None:
    from simkit.strategies.people.model import BID_KERNEL, PLAY_KERNEL  # what the game kernel calls by address

    BID_KERNEL.ensure()
    PLAY_KERNEL.ensure()


def _pimc() -> None:
    from simkit.strategies.pimc import BID_EVAL, DECIDE, DOUBLE_EVAL

    DECIDE.ensure()
    BID_EVAL.ensure()  # its bid and Kontra/Re by worlds played out (simkit.strategies.pimc_bid)
    DOUBLE_EVAL.ensure()


def _search() -> None:
    from simkit.solver.search import SEARCH

    SEARCH.ensure()


def _solver(kernel: str) -> Callable[[], None]:
    def warm() -> None:
        from simkit.solver.api import warm_up

        warm_up(kernel)
    return warm


def _random_play() -> None:
    from simkit.engine.batch import play_random, simulate_random
    from simkit.engine.deal import random_setups

    simulate_random(1, 0, 4, "rufspiel")
    s = random_setups(1, 0, 4, "wenz")
    play_random(s["hands"], s["variants"], s["called_suits"], s["touts"], s["declarers"])


def _deal() -> None:
    from simkit.engine.deal import deal_batch

    deal_batch(1, 0, 4)


def _ceiling() -> None:
    from simkit.engine.ceiling import ceiling_play

    ceiling_play(1, 0, 4)


def _evaluate() -> None:
    from simkit.evaluate.api import sample_deals

    sample_deals("EO GO HO SO EU GU HU SU", 0, 0, 2)


def _values() -> None:
    from simkit.rules.ruleset import load_ruleset
    from simkit.strategies.value_table import _chunk_counts

    _chunk_counts(load_ruleset(), 1, 0, 40)


def _advice() -> None:
    from simkit.analyze.advice import warm_up
    from simkit.strategies import api, heuristic
    from simkit.strategies.people import model as people

    warm_up()
    for m in (heuristic, people):  # the api entries simkit analyze --strategy calls
        m.bid.compile(api.BID_SIG.args)
        m.double.compile(api.DOUBLE_SIG.args)
        m.play.compile(api.PLAY_SIG.args)


def _old_german() -> None:
    from simkit.oldgerman.kernel import play_deals, play_parties

    play_deals(1, 0, 2)
    play_parties(1, 0, 1)


def _stock() -> None:
    import numpy as np

    from simkit.rules.ruleset import load_ruleset
    from simkit.sim.stock import settle_rows

    z = np.zeros(1, np.int8)
    settle_rows(z - 1, z - 1, z - 1, z.astype(bool), z, np.zeros((1, 4)), ~z.astype(bool), load_ruleset())


def _report() -> None:
    from analysis.regen import seat_hands

    seat_hands(1, [0, 1], [0, 3])


KERNELS: dict[str, Kernel] = {k.name: k for k in (
    Kernel("game", "the game kernel", "play", _game, True),
    Kernel("people", "the people model", "play", _people, True),
    Kernel("values", "the value table's hand scores", "play", _values, True),
    Kernel("evaluate", "evaluate's dealer", "play", _evaluate, True),
    Kernel("advice", "the strategies' advice (simkit analyze --strategy)", "play", _advice, False),
    Kernel("search", "the solver's search", "solver", _search, True),
    *(Kernel(k, f"the solver ({k})", "solver", _solver(k), True)
      for k in ("solve", "line", "value", "threshold", "many")),
    Kernel("pimc", "pimc's decision, bidding and doubling kernels", "solver", _pimc, True),
    Kernel("random-play", "the random-play kernels", "engine", _random_play, True),
    Kernel("deal", "the dealer", "engine", _deal, True),
    Kernel("ceiling", "the ceiling kernel", "engine", _ceiling, True),
    Kernel("old-german", "the old German game's kernels", "engine", _old_german, True),
    Kernel("report", "the report's hand regeneration", "engine", _report, True),
    Kernel("stock", "the stock settlement", "engine", _stock, True),
)}


def warm(names=None) -> dict[str, float]:
    """Compile (or load) the kernels ``names`` (all of :data:`KERNELS` by default) in this process, in that
    order; returns the seconds each took."""
    import warnings

    from numba.core.errors import NumbaExperimentalFeatureWarning

    times = {}
    for name in names or KERNELS:
        k = KERNELS[name]
        t0 = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", NumbaExperimentalFeatureWarning)
            if k.announced:
                k.warm()
            else:
                with compile_notice(k.what):
                    k.warm()
        times[name] = time.perf_counter() - t0
    return times


def plan(names, jobs: int) -> list[list[str]]:
    """``names`` split into at most ``jobs`` lists, whole families each, the families in the order of ``names``
    (each to the list with the fewest kernels so far)."""
    families: dict[str, list[str]] = {}
    for n in names:
        families.setdefault(KERNELS[n].family, []).append(n)
    lists: list[list[str]] = [[] for _ in range(max(1, min(jobs, len(families))))]
    for members in sorted(families.values(), key=len, reverse=True):
        min(lists, key=len).extend(members)
    return [x for x in lists if x]


def _in_processes(groups: list[list[str]]) -> tuple[dict[str, float], int]:
    """Each group warmed in a process of its own, all at once; their notices relayed to stderr a whole line at a
    time (a notice's line ends when its kernel is done, so the processes' lines do not mix). Returns the seconds
    per kernel and how many processes failed."""
    import threading

    lock = threading.Lock()

    def relay(stream):
        for line in stream:
            with lock:
                sys.stderr.write(line)
                sys.stderr.flush()

    procs = [subprocess.Popen([sys.executable, "-m", "simkit.warmup", "--times", *group], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) for group in groups]
    relays = [threading.Thread(target=relay, args=(p.stderr,), daemon=True) for p in procs]
    for t in relays:
        t.start()
    times, failed = {}, 0
    for p, t in zip(procs, relays):
        out = p.stdout.read()
        p.wait()
        t.join()
        if p.returncode == 0:
            times.update(json.loads(out.strip().splitlines()[-1]))
        else:
            failed += 1
    return times, failed


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m simkit.warmup", description=__doc__.splitlines()[0])
    ap.add_argument("names", nargs="*", metavar="NAME", help="kernels to compile (default: all; see --list)")
    ap.add_argument("--jobs", "-j", type=int, default=1, help="processes compiling at once (default 1)")
    ap.add_argument("--list", action="store_true", help="list the kernels and exit")
    ap.add_argument("--times", action="store_true", help="print the seconds each kernel took, as JSON, on stdout")
    args = ap.parse_args(argv)
    if args.list:
        for k in KERNELS.values():
            print(f"{k.name:12s} {k.family:7s} {k.what}")
        return 0
    unknown = [n for n in args.names if n not in KERNELS]
    if unknown:
        ap.error(f"unknown kernels {', '.join(unknown)}; known: {', '.join(KERNELS)}")
    names = args.names or list(KERNELS)
    t0 = time.perf_counter()
    if args.jobs <= 1:
        times = warm(names)
    else:
        groups = plan(names, args.jobs)
        times, failed = _in_processes(groups)
        if failed:
            print(f"simkit: warm-up failed in {failed} of {len(groups)} processes", file=sys.stderr)
            return 1
    if args.times:
        print(json.dumps({k: round(v, 2) for k, v in times.items()}))
    else:
        print(f"simkit: {len(times)} kernels ready in {time.perf_counter() - t0:.1f} s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
