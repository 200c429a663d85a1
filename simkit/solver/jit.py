"""``solver_jit``: ``njit(cache=True)`` whose on-disk cache is keyed on every source file the solver inlines.

numba invalidates a cached function only when its own file changes. The solver's kernels inline the engine's
legal-move and trick code and call each other across files, so a change in any of them must recompile all of
them: each dispatcher's cache stamp is the hash of the whole list (as simkit.engine.game does for its kernel).
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from numba import njit

_PKG = Path(__file__).resolve().parent.parent
DEPENDENCIES = [_PKG / "engine" / f for f in ("bits.py", "kernel.py", "deal.py", "rng.py")] + [
    _PKG / "solver" / f for f in ("jit.py", "search.py", "values.py", "bulk.py")]


def source_stamp() -> bytes:
    h = hashlib.sha256()
    for p in DEPENDENCIES:
        h.update(p.name.encode())
        h.update(p.read_bytes() if p.is_file() else b"<absent>")
    return h.digest()


_STAMP = source_stamp()


def solver_jit(fn=None, **options):
    """Decorator: ``njit(cache=True, _nrt=False, **options)`` with the solver-wide cache stamp.

    Without the runtime (``_nrt=False``) numba emits no reference counting: the kernels allocate nothing (the
    caller passes every array), and the atomic increments and decrements of the arrays passed between the inlined
    helpers took about 60% of the search's time (measured with perf)."""
    def wrap(f):
        disp = njit(cache=True, _nrt=False, **options)(f)
        cache_file = getattr(getattr(disp, "_cache", None), "_cache_file", None)
        if cache_file is not None and hasattr(cache_file, "_source_stamp"):
            cache_file._source_stamp = _STAMP
        return disp
    return wrap(fn) if fn is not None else wrap
