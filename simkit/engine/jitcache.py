"""numba's on-disk cache, keyed on every source file a kernel depends on.

numba invalidates a cached function only when *its own* file changes, not when a function it inlines from another
file does. A kernel that inlines code of other files gets, with :func:`stamp`, a cache stamp made of the hash of all
of them, so a change anywhere recompiles it (simkit.engine.game, simkit.solver.jit).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from pathlib import Path


def source_stamp(paths: Iterable[Path]) -> bytes:
    """The hash of the names and contents of ``paths`` (an absent file hashes as absent)."""
    h = hashlib.sha256()
    for p in paths:
        h.update(p.name.encode())
        h.update(p.read_bytes() if p.is_file() else b"<absent>")
    return h.digest()


def stamp(dispatcher, source: bytes):
    """Key ``dispatcher``'s on-disk cache on ``source`` instead of its own file's modification time; returns it."""
    cache_file = getattr(getattr(dispatcher, "_cache", None), "_cache_file", None)
    if cache_file is not None and hasattr(cache_file, "_source_stamp"):
        cache_file._source_stamp = source
    return dispatcher
