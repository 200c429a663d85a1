"""``solver_jit``: ``njit(cache=True)`` whose on-disk cache is keyed on every source file the solver inlines.

numba invalidates a cached function only when its own file changes. The solver's kernels inline the engine's
legal-move and trick code and call each other across files, so a change in any of them must recompile all of
them: each dispatcher's cache stamp is the hash of the whole list (as simkit.engine.game does for its kernel).

Compile time (simkit.engine.jitcache): the search's helpers are ``solver_jit(forceinline=True)``, compiled once
each and inlined by LLVM (numba's IR inlining of them took 150 s of CPU per compile of the search); no kernel is
specialised for a constant argument; the search itself is compiled once (``search.SEARCH``) and called by symbol
from the kernels of values.py and bulk.py, which say so with ``needs=(SEARCH,)``.
"""

from __future__ import annotations

from numba import njit

from simkit.engine.jitcache import announce, files, requires, source_stamp, stamp, unliteral
from simkit.engine.kernel import DEPENDENCIES as _KERNEL_DEPS

#: every file a solver kernel compiles in: the engine's legal-move and trick code (and the rule tables' constants
#: it reads), jitcache's linking, and the solver's own files (a new one with kernels goes here)
DEPENDENCIES = sorted(set(_KERNEL_DEPS + files("engine/jitcache", "solver/jit", "solver/prefetch", "solver/search",
                                               "solver/values", "solver/bulk")))


_STAMP = STAMP = source_stamp(DEPENDENCIES)


def solver_jit(fn=None, *, needs=(), what=None, **options):
    """Decorator: ``njit(cache=True, _nrt=False, **options)`` with the solver-wide cache stamp.

    Without the runtime (``_nrt=False``) numba emits no reference counting: the kernels allocate nothing (the
    caller passes every array), and the atomic increments and decrements of the arrays passed between the inlined
    helpers took about 60% of the search's time (measured with perf). ``needs``: the :class:`Linked` kernels its
    code calls (loaded first); ``what``: its name in the compile notice."""
    def wrap(f):
        d = unliteral(stamp(njit(cache=True, _nrt=False, **options)(f), _STAMP))
        return requires(announce(d, what) if what else d, needs)
    return wrap(fn) if fn is not None else wrap
