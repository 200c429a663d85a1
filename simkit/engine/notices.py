"""Telling the user when numba compiles: a fresh install's first command compiles the kernels it needs (cached on
disk afterwards), which otherwise looks like a hang or a slow tool.

``with compile_notice("the game kernel"):`` around the first call of a kernel prints one line on stderr, and only
if the block takes longer than a second (it compiles rather than loads from the cache)::

    simkit: compiling the game kernel (first run only; cached afterwards) ... 21.4 s

the start of the line when the second has passed, the time when the block ends. Every kernel a command can need
announces itself (``simkit.engine.jitcache.jit(what=...)``, ``Linked(what=...)``), so each line names one kernel.
A notice inside another (a kernel compiling another as its callee) says nothing: the outer line's time includes
it.

The timer thread is joined on exit, so a process that forks afterwards (``simkit run``) has no thread left.

This module stands at the engine's floor (simkit.engine.jitcache announces every kernel through it); simkit.warmup,
which compiles every kernel, re-exports it.
"""

from __future__ import annotations

import sys
import threading
import time
from contextlib import contextmanager

DELAY = 1.0
_active = threading.local()
_silent = 0


@contextmanager
def silenced():
    """No compile notice inside the block (a command asked to be quiet)."""
    global _silent
    _silent += 1
    try:
        yield
    finally:
        _silent -= 1


@contextmanager
def compile_notice(what: str, enabled: bool = True, stream=None):
    if getattr(_active, "depth", 0):  # inside another notice: that one speaks for both
        yield
        return
    enabled = enabled and not _silent
    stream = stream or sys.stderr
    fired = threading.Event()

    def say():
        fired.set()
        print(f"simkit: compiling {what} (first run only; cached afterwards) ...", end="", file=stream, flush=True)

    timer = threading.Timer(DELAY, say) if enabled else None
    t0 = time.perf_counter()
    if timer is not None:
        timer.daemon = True
        timer.start()
    _active.depth = 1
    try:
        yield
    finally:
        _active.depth = 0
        if timer is not None:
            timer.cancel()
            timer.join()
        if fired.is_set():
            print(f" {time.perf_counter() - t0:.1f} s", file=stream, flush=True)
