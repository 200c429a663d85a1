"""Telling the user when numba compiles: the first command on a fresh install spends 30-60 s compiling kernels
(cached on disk afterwards), which otherwise looks like a hang or a slow tool.

``with compile_notice("the game kernel"):`` around the first call of a kernel prints, on stderr and only if the
block takes longer than a second (i.e. it compiles rather than loads from the cache)::

    simkit: compiling the game kernel (first run only; cached afterwards) ...
    simkit: compiled in 31.4 s

The timer thread is joined on exit, so a process that forks afterwards (``simkit run``) has no thread left.
"""

from __future__ import annotations

import sys
import threading
import time
from contextlib import contextmanager

DELAY = 1.0


@contextmanager
def compile_notice(what: str, enabled: bool = True, stream=None):
    stream = stream or sys.stderr
    fired = threading.Event()

    def say():
        fired.set()
        print(f"simkit: compiling {what} (first run only; cached afterwards) ...", file=stream, flush=True)

    timer = threading.Timer(DELAY, say) if enabled else None
    t0 = time.perf_counter()
    if timer is not None:
        timer.daemon = True
        timer.start()
    try:
        yield
    finally:
        if timer is not None:
            timer.cancel()
            timer.join()
        if fired.is_set():
            print(f"simkit: compiled in {time.perf_counter() - t0:.1f} s", file=stream, flush=True)
