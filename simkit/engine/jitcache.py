"""How simkit compiles its kernels: numba's on-disk cache keyed on every source file a kernel depends on, and the
structure that keeps cold compiles short (DEVELOPERS.md, "Numba cache and compile time").

numba invalidates a cached function only when *its own* file changes, not when a function it inlines from another
file does, nor when a constant it reads from another module (frozen into its code) changes. So every cached kernel
gets, with :func:`stamp` (:func:`stamp_module` for a whole module, :func:`jit`, :func:`cached`), a cache stamp made
of the hash of every file it compiles in: each module lists them as ``DEPENDENCIES``, its own file and the
``DEPENDENCIES`` of the modules whose kernels or constants it uses; a kernel called by symbol (:class:`Linked`)
brings its callers all the files of its own stamp, since its symbol is named after it. tests/test_jitcache.py finds
what each kernel compiles in from its code and fails when a stamp leaves a file out.

Where a cold compile's time went, and what here avoids it:

* numba's IR inlining (``inline="always"``) copies a helper's IR into every call site and types each copy again:
  the solver's search took 150 s of CPU for one compile. :func:`jit` with ``helper=True`` compiles a helper once
  and lets LLVM inline it (``forceinline``): 15 s, and the search is as fast. :func:`helper_copy` does the same for
  another module's ``inline="always"`` helper, for one module's callers (the game kernel's per-deal helpers).
* numba compiles a callee once per distinct argument types, and a constant argument is a type of its own
  (``Literal[int](0)``): :func:`unliteral` and :func:`only` keep one specialisation per kernel; callers pass one
  integer type (an int8 and an int64 card are two specialisations; tests/test_warmup.py checks it, cold).
* numba links a callee's code into every caller and optimizes and generates it again there: :class:`Linked` calls a
  large kernel by symbol or by address instead (the solver's search from its ten callers, pimc and the people model
  from the whole-deal kernel, which thus neither contains them nor needs them compiled).
* :func:`announce` says on stderr which kernel compiles and how long it took.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from pathlib import Path

from numba import njit

_PKG = Path(__file__).resolve().parent.parent  # the simkit package

#: every stamp made by :func:`source_stamp` and the files it hashes (tests/test_jitcache.py checks them against what
#: each kernel compiles in)
STAMPED: dict[bytes, tuple[Path, ...]] = {}


def source_stamp(paths: Iterable[Path]) -> bytes:
    """The hash of the names and contents of ``paths`` (an absent file hashes as absent)."""
    paths = tuple(Path(p).resolve() for p in paths)
    h = hashlib.sha256()
    for p in paths:
        h.update(p.name.encode())
        h.update(p.read_bytes() if p.is_file() else b"<absent>")
    digest = h.digest()
    STAMPED[digest] = paths
    return digest


def files(*names: str) -> list[Path]:
    """The source files of modules of this package named relative to it (``"engine/bits"``)."""
    return [_PKG / f"{n}.py" for n in names]


def stamp(dispatcher, source: bytes):
    """Key ``dispatcher``'s on-disk cache on ``source`` instead of its own file's modification time; returns it."""
    cache_file = getattr(getattr(dispatcher, "_cache", None), "_cache_file", None)
    if cache_file is not None and hasattr(cache_file, "_source_stamp"):
        cache_file._source_stamp = source
    return dispatcher


def stamped_sources(dispatcher) -> tuple[Path, ...] | None:
    """The files ``dispatcher``'s on-disk cache is keyed on: those of its stamp, its own file when it has none
    (numba's own key), None when it is not cached."""
    cache_file = getattr(getattr(dispatcher, "_cache", None), "_cache_file", None)
    if cache_file is None:
        return None
    source = getattr(cache_file, "_source_stamp", None)
    if isinstance(source, bytes) and source in STAMPED:
        return STAMPED[source]
    return (Path(dispatcher.py_func.__code__.co_filename).resolve(),)


def cached(source: bytes, sig=None, **options):
    """Decorator: ``njit(cache=True, **options)`` stamped with ``source``; with ``sig``, compiled for it at once
    and for nothing else (as ``njit(sig)``, whose compile would come before the stamp)."""
    def wrap(fn):
        d = stamp(njit(cache=True, **options)(fn), source)
        if sig is not None:
            d.compile(sig)
            d.disable_compile()
        return d
    return wrap


def stamp_module(namespace: dict, paths: Iterable[Path]) -> bytes:
    """Stamp every cached dispatcher defined in the module of ``namespace`` (its ``globals()``) with the files
    ``paths``; call it at the end of the module, before anything there is compiled. Returns the stamp."""
    from numba.core.dispatcher import Dispatcher

    source = source_stamp(paths)
    for name, d in list(namespace.items()):
        if (isinstance(d, Dispatcher) and d.py_func.__module__ == namespace["__name__"]
                and getattr(d._cache, "_cache_file", None) is not None):
            if d._cache._cache_file._source_stamp == source:
                continue
            if d.overloads:
                raise RuntimeError(f"{name} was compiled before its cache stamp was set")
            stamp(d, source)
    return source


def unliteral(dispatcher):
    """Calls of ``dispatcher`` from other jitted functions compile the signature a call from Python would (no
    ``Literal[int]`` argument types), so a constant argument does not make a specialisation of its own."""
    from numba import types

    orig = dispatcher.get_call_template

    def get_call_template(args, kws):
        return orig(tuple(types.unliteral(a) for a in args), {k: types.unliteral(v) for k, v in kws.items()})

    dispatcher.get_call_template = get_call_template
    return dispatcher


class Linked:
    """A kernel compiled once and called by its address instead of being linked into each caller.

    numba links a callee's code into every caller's library and optimizes and generates machine code for it
    again there; for a large callee called from many kernels that repeats most of the compile. Jitted code calls
    ``call`` instead, an intrinsic that emits a call of the symbol ``name`` only, or ``call_at`` (the address as
    a first, run-time argument: nothing is resolved when the caller is loaded). :meth:`ensure` compiles (or
    loads from the cache) the kernel for ``sig`` and registers its address under ``name``: it has to run before
    a library that calls the symbol is loaded, which :func:`requires` arranges for dispatchers.
    """

    def __init__(self, dispatcher, sig, name: str, *, what: str | None = None, needs=()):
        self.dispatcher = announce(dispatcher, what) if what else dispatcher
        self.sig = sig
        self.name = name
        self.needs = tuple(needs)
        self._address = 0
        self._busy = False
        self.call = self._intrinsic(by_address=False)
        # what a caller compiles in (tests/test_jitcache.py): by symbol, every file of the callee's stamp (the
        # symbol's name is made from it); by address, the callee's signature (its own file)
        own = Path(dispatcher.py_func.__code__.co_filename).resolve()
        self.call_at = call_at(sig, name, own)
        self.call.compiled_in = (stamped_sources(dispatcher) or (own,)) + (Path(__file__).resolve(),)

    @property
    def address(self) -> int:
        self.ensure()
        return self._address

    def ensure(self) -> None:
        """Compile (or load) the kernel and register its address under ``name``; once per process."""
        if self._address or self._busy:
            return
        import llvmlite.binding as llb

        self._busy = True
        try:
            for x in self.needs:  # first, so that each says its own compile notice
                x.ensure()
            self.dispatcher.compile(self.sig.args)
            cres = self.dispatcher.overloads[tuple(self.sig.args)]
            if cres.signature.return_type != self.sig.return_type:
                raise TypeError(f"{self.name}: compiled for {cres.signature}, declared {self.sig}")
            address = cres.library.get_pointer_to_function(cres.fndesc.llvm_func_name)
            llb.add_symbol(self.name, address)
            self._address = address
        finally:
            self._busy = False

    def _intrinsic(self, by_address: bool):
        return _call_intrinsic(self.sig, self.name, by_address, self)


def call_at(sig, name: str, defined_in: Path):
    """An intrinsic ``call_at(address, *args)`` for jitted code: a call of the compiled kernel of signature ``sig``
    at ``address`` (a run-time argument; 0 must never be called). The caller compiles in only the signature:
    ``defined_in`` is the file that declares it (tests/test_jitcache.py reads ``compiled_in``). :class:`Linked`
    makes one for its kernel; a caller that is handed the addresses of kernels it does not know (the whole-deal
    kernel and a strategy's native entries, simkit.strategies.natives) makes one for the signature alone."""
    fn = _call_intrinsic(sig, name, True, None)
    fn.compiled_in = (Path(defined_in).resolve(), Path(__file__).resolve())
    return fn


def _call_intrinsic(callee_sig, name: str, by_address: bool, linked):
    from numba import types
    from numba.core import cgutils
    from numba.extending import intrinsic

    sig = types.int64(types.int64, *callee_sig.args).replace(return_type=callee_sig.return_type) if by_address \
        else callee_sig

    def codegen(context, builder, signature, args):
        argtys = signature.args[1:] if by_address else signature.args
        fnty = context.call_conv.get_function_type(signature.return_type, argtys)
        if by_address:
            fn = builder.inttoptr(args[0], fnty.as_pointer())
            args = args[1:]
        else:
            linked.ensure()
            fn = cgutils.get_or_insert_function(builder.module, fnty, linked.name)
        status, res = context.call_conv.call_function(builder, fn, signature.return_type, argtys, args)
        with cgutils.if_unlikely(builder, status.is_error):
            context.call_conv.return_status_propagate(builder, status)
        return res

    params = ", ".join(f"a{i}" for i in range(len(sig.args)))
    ns = {"_sig": sig, "_codegen": codegen}
    exec(f"def typer(typingctx, {params}):\n    return _sig, _codegen\n", ns)
    typer = ns["typer"]
    typer.__name__ = f"{'call_at' if by_address else 'call'}_{name}"
    return intrinsic(typer)


def requires(dispatcher, needs):
    """Make ``dispatcher`` run ``ensure()`` of every :class:`Linked` in ``needs`` before it compiles or loads an
    overload from the cache (its code calls their symbols). Apply it last (outside :func:`announce`), so that each
    kernel's compile notice is its own."""
    if not needs:
        return dispatcher
    orig = dispatcher.compile

    def compile(sig):
        for x in needs:
            x.ensure()
        return orig(sig)

    dispatcher.compile = compile
    return dispatcher


def jit(source: bytes, sig=None, *, helper: bool = False, what: str | None = None, **options):
    """Decorator: ``njit(cache=True, **options)`` stamped with ``source`` (:func:`stamp`), whose calls from other
    jitted functions never make a specialisation for a constant argument (:func:`unliteral`).

    ``helper``: a function that used to be ``inline="always"``: compiled once as a function of its own and inlined
    by LLVM (numba's ``forceinline``) into its callers, instead of numba copying its IR into every call site and
    typing the copies again (that IR inlining took most of the cold compile: minutes for the solver's search).
    ``sig``: compiled for that signature only, when first called (from Python or from another kernel), not at
    import; a call with other argument types converts to it instead of compiling another specialisation.
    ``what``: the compile notice's name of the kernel (:func:`announce`)."""
    def wrap(fn):
        # the runtime on unless said otherwise: never inherited from whichever caller compiles it first (numba
        # passes a caller's ``_nrt`` to the callees it compiles, so the code would depend on the order)
        opts = {"cache": True, "_nrt": True, **options}
        if helper:
            opts["forceinline"] = True
        d = stamp(njit(**opts)(fn), source)
        d = only(d, sig) if sig is not None else unliteral(d)
        return announce(d, what) if what else d
    return wrap


def helper_copy(dispatcher, source: bytes, tag: str, **options):
    """The Python function of ``dispatcher`` (an ``inline="always"`` helper of another module) compiled once more as
    a :func:`jit` ``helper`` (compiled once, inlined by LLVM) for the callers of one module, ``tag``, with the cache
    stamp ``source``. It is a copy of the function named ``<name>__<tag>``: numba keys the on-disk cache on the
    function's module, name and line, not on its options, so the copy keeps an entry of its own."""
    import types as pytypes

    fn = dispatcher.py_func
    copy = pytypes.FunctionType(fn.__code__, fn.__globals__, fn.__name__, fn.__defaults__, fn.__closure__)
    copy.__qualname__ = f"{fn.__qualname__}__{tag}"
    copy.__module__ = fn.__module__
    copy.__doc__ = fn.__doc__
    return jit(source, helper=True, **options)(copy)


def announce(dispatcher, what: str):
    """Say on stderr when ``dispatcher`` compiles (simkit.engine.notices.compile_notice: only when it takes over a second,
    not for a load from the cache; nothing when it compiles as the callee of an announced kernel)."""
    compile_ = dispatcher.compile

    def compile(sig):
        from simkit.engine.notices import compile_notice

        if (tuple(sig.args) if hasattr(sig, "args") else tuple(sig)) in dispatcher.overloads:
            return compile_(sig)
        with compile_notice(what):
            return compile_(sig)

    dispatcher.compile = compile
    return dispatcher


def only(dispatcher, sig):
    """Make ``dispatcher`` compile ``sig`` and nothing else, lazily: a call from Python compiles (or loads) it and
    converts the arguments; a call from a jitted function is typed against it."""
    args = tuple(sig.args)
    compile_ = dispatcher.compile
    template = dispatcher.get_call_template

    def compile(_sig):
        return compile_(args)

    def get_call_template(_args, kws):
        return template(args, {})

    dispatcher.compile = compile
    dispatcher.get_call_template = get_call_template
    return dispatcher
