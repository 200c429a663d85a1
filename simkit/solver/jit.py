"""``solver_jit``: ``njit(cache=True)`` whose on-disk cache is keyed on every source file the solver inlines.

numba invalidates a cached function only when its own file changes. The solver's kernels inline the engine's
legal-move and trick code and call each other across files, so a change in any of them must recompile all of
them: each dispatcher's cache stamp is the hash of the whole list (as simkit.engine.game does for its kernel).
"""

from __future__ import annotations

from pathlib import Path

from numba import njit

from simkit.engine.jitcache import source_stamp, stamp

_PKG = Path(__file__).resolve().parent.parent
DEPENDENCIES = [_PKG / "engine" / f for f in ("bits.py", "kernel.py", "deal.py", "rng.py", "jitcache.py")] + [
    _PKG / "solver" / f for f in ("jit.py", "prefetch.py", "search.py", "values.py", "bulk.py")]


_STAMP = source_stamp(DEPENDENCIES)


def solver_jit(fn=None, **options):
    """Decorator: ``njit(cache=True, _nrt=False, **options)`` with the solver-wide cache stamp.

    Without the runtime (``_nrt=False``) numba emits no reference counting: the kernels allocate nothing (the
    caller passes every array), and the atomic increments and decrements of the arrays passed between the inlined
    helpers took about 60% of the search's time (measured with perf)."""
    def wrap(f):
        return stamp(njit(cache=True, _nrt=False, **options)(f), _STAMP)
    return wrap(fn) if fn is not None else wrap
