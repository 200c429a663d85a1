"""numba's on-disk cache (DEVELOPERS.md, "Numba cache and compile time"): every cached kernel is keyed on every
source file it compiles in, a change in any of them recompiles it, and a cached compile holds in a new process.

numba keys a cache on the function's own file only; simkit.engine.jitcache stamps each kernel with a hash of all the
files it compiles in. The first test finds those files from the code itself: the functions a kernel calls (numba
inlines or links them), the constants it reads (numba freezes module globals into the machine code, so they are
followed to the module that defines them) and the kernels it calls by symbol or address (simkit.engine.jitcache.Linked),
and checks that the stamp covers them. The other tests edit a source file in a copy of the package and run fresh
processes against it.
"""

from __future__ import annotations

import ast
import importlib
import json
import os
import shutil
import subprocess
import sys
import types as pytypes
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("simkit", "analysis")

#: IR-inlined helpers (``inline="always"``) of the people model, compiled only inside its stamped kernels (never called
#: from Python), whose own stamp is numba's: their files belong to another engineer's work in progress; stamp them
#: (simkit.engine.jitcache.stamp_module) and empty this list when those files are next changed
UNSTAMPED_HELPERS = {
    "simkit.strategies.people.features._beaters",
    "simkit.strategies.people.features._rank_mask",
}


def _ours(path) -> bool:
    p = Path(path).resolve()
    return any(p.is_relative_to(ROOT / pkg) for pkg in PACKAGES)


def _module_names() -> list[str]:
    names = []
    for pkg in PACKAGES:
        for path in sorted((ROOT / pkg).rglob("*.py")):
            parts = path.relative_to(ROOT).with_suffix("").parts
            if parts[-1] == "__main__":
                continue
            names.append(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    return names


def cached_kernels() -> dict[str, object]:
    """Every dispatcher with an on-disk cache defined at module level in simkit/ and analysis/, by qualified name."""
    from numba.core.dispatcher import Dispatcher

    found = {}  # id -> (name, dispatcher): named where it is defined, else where it is made (jitcache.helper_copy)
    for name in _module_names():
        mod = importlib.import_module(name)
        for attr, d in vars(mod).items():
            if isinstance(d, Dispatcher) and getattr(d._cache, "_cache_file", None) is not None:
                if id(d) not in found or d.py_func.__module__ == name:
                    found[id(d)] = (f"{name}.{d.py_func.__name__ if d.py_func.__module__ == name else attr}", d)
    return dict(found.values())


_FROM_IMPORTS: dict[str, dict[str, tuple[str, str]]] = {}


def _from_imports(modname: str) -> dict[str, tuple[str, str]]:
    """``local name -> (module, name)`` of the module's top-level ``from ... import`` statements."""
    if modname not in _FROM_IMPORTS:
        mod = sys.modules[modname]
        package = modname if mod.__file__.endswith("__init__.py") else modname.rpartition(".")[0]
        found = {}
        for node in ast.parse(Path(mod.__file__).read_text(encoding="utf-8")).body:
            if isinstance(node, ast.ImportFrom):
                if node.level:
                    base = package.split(".")[: len(package.split(".")) - node.level + 1]
                    source = ".".join(base + ([node.module] if node.module else []))
                else:
                    source = node.module or ""
                for a in node.names:
                    found[a.asname or a.name] = (source, a.name)
        _FROM_IMPORTS[modname] = found
    return _FROM_IMPORTS[modname]


def _defined_in(modname: str, name: str) -> Path | None:
    """The file that defines global ``name`` of module ``modname`` (following ``from`` imports), if it is ours."""
    seen = set()
    while (modname, name) not in seen:
        seen.add((modname, name))
        imported = _from_imports(modname).get(name)
        if imported is None:
            break
        source, original = imported
        if f"{source}.{original}" in sys.modules or source.split(".")[0] not in PACKAGES:
            return None  # a submodule (followed as a module value) or somebody else's
        modname, name = source, original
    path = sys.modules[modname].__file__
    return Path(path).resolve() if _ours(path) else None


def _names(code) -> set[str]:
    out = set(code.co_names)
    for c in code.co_consts:
        if isinstance(c, pytypes.CodeType):
            out |= _names(c)
    return out


def compiled_in(fn, found: set[Path] | None = None, seen: set[int] | None = None) -> set[Path]:
    """The source files numba compiles into ``fn``'s machine code (its own, what it calls, the globals it reads)."""
    from numba.core.dispatcher import Dispatcher

    found = set() if found is None else found
    seen = set() if seen is None else seen
    if id(fn) in seen or not _ours(fn.__code__.co_filename):
        return found
    seen.add(id(fn))
    found.add(Path(fn.__code__.co_filename).resolve())
    names = _names(fn.__code__)
    values = []
    for n in names & set(fn.__globals__):
        v = fn.__globals__[n]
        if isinstance(v, pytypes.ModuleType):  # ``module.attr``: every attribute of it the code may name
            if _ours(getattr(v, "__file__", "") or "/"):
                values += [(v.__name__, a, getattr(v, a)) for a in names if a in vars(v)]
        else:
            values.append((fn.__module__, n, v))
    for cell in fn.__closure__ or ():
        values.append((None, None, cell.cell_contents))

    def visit(v):
        if isinstance(v, Dispatcher):
            compiled_in(v.py_func, found, seen)
        elif type(v).__name__ == "_Intrinsic":
            found.update(getattr(v, "compiled_in", ()))  # a Linked kernel's call: what its caller compiles in
            if _ours(v._defn.__code__.co_filename):
                found.add(Path(v._defn.__code__.co_filename).resolve())
        elif isinstance(v, (tuple, list)):
            for x in v:
                visit(x)

    for modname, n, v in values:
        if modname is not None:
            where = _defined_in(modname, n)
            if where is not None:
                found.add(where)
        visit(v)
    return found


def test_every_cached_kernel_is_keyed_on_what_it_compiles_in():
    from simkit.engine.jitcache import stamped_sources

    kernels = cached_kernels()
    assert len(kernels) > 100
    missing = {}
    for name, d in kernels.items():
        lacking = compiled_in(d.py_func) - set(stamped_sources(d))
        if lacking and name not in UNSTAMPED_HELPERS:
            missing[name] = sorted(str(p.relative_to(ROOT)) for p in lacking)
    assert not missing, f"cache stamps that leave out files the kernel compiles in: {missing}"
    assert UNSTAMPED_HELPERS <= set(kernels)  # the exceptions still exist (the list only shrinks)


def test_what_the_game_kernel_compiles_in():
    """The search above sees through the dispatch, the inlined strategies and the kernels called by address."""
    game = importlib.import_module("simkit.engine.game")

    need = {str(p.relative_to(ROOT)) for p in compiled_in(game._games_py)}
    assert {"simkit/engine/game.py", "simkit/engine/kernel.py", "simkit/engine/infostate.py", "simkit/engine/rng.py",
            "simkit/rules/tables.py", "simkit/strategies/dispatch.py", "simkit/strategies/heuristic.py",
            "simkit/strategies/random_play.py", "simkit/strategies/natives.py"} <= need
    # called by address: neither the people model nor the solver is compiled into it, nor pimc (the kernel knows
    # only the signatures of the entries a native seat brings, simkit.strategies.natives)
    assert not {"simkit/strategies/people/model.py", "simkit/strategies/people/features.py",
                "simkit/solver/search.py", "simkit/strategies/pimc.py"} & need
    pimc = importlib.import_module("simkit.strategies.pimc")
    # pimc calls the search by a symbol named after the solver's stamp: it is keyed on every file of that stamp
    assert "simkit/engine/deal.py" in {str(p.relative_to(ROOT)) for p in compiled_in(pimc.decide.py_func)}


# ---------------------------------------------------------------------------------------------- across processes

#: a kernel called by symbol and by address (simkit.engine.jitcache.Linked), written into the copy of the package
_LINKED_PROBE = '''
from numba import types

from simkit.engine.bits import popcount
from simkit.engine.jitcache import Linked, files, jit, requires, source_stamp

STAMP = source_stamp(files("engine/probe_linked", "engine/bits", "engine/jitcache"))


@jit(STAMP)
def callee(x):
    return popcount(x) + 1


CALLEE = Linked(callee, types.int64(types.int64), "simkit_probe_callee_" + STAMP.hex()[:16])
_call = CALLEE.call
_call_at = CALLEE.call_at


@jit(STAMP)
def by_symbol(x):
    return _call(x) * 10


by_symbol = requires(by_symbol, (CALLEE,))


@jit(STAMP)
def by_address(address, x):
    return _call_at(address, x) * 100
'''

_PROBE = '''
import importlib, json
import simkit
deal = importlib.import_module("simkit.engine.deal")
probe = importlib.import_module("simkit.engine.probe_linked")
hands = deal.deal_batch(7, 0, 4).tolist()
values = [int(probe.by_symbol(0b1011)), int(probe.by_address(probe.CALLEE.address, 0b111))]
stats = {k: d.stats for k, d in (("deal", deal.deal_batch_kernel), ("callee", probe.callee),
                                 ("by_symbol", probe.by_symbol), ("by_address", probe.by_address))}
print(json.dumps({"file": simkit.__file__, "hands": hands, "values": values,
                  "compiled": sorted(k for k, s in stats.items() if sum(s.cache_misses.values())),
                  "loaded": sorted(k for k, s in stats.items() if sum(s.cache_hits.values()))}))
'''


def _run(copy: Path) -> dict:
    env = {**os.environ, "PYTHONPATH": str(copy), "NUMBA_CACHE_DIR": str(copy / "numba-cache")}
    r = subprocess.run([sys.executable, "-c", _PROBE], cwd=copy, env=env, capture_output=True, text=True,
                       timeout=600)
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout.strip().splitlines()[-1])
    assert Path(out["file"]).resolve() == (copy / "simkit" / "__init__.py").resolve()  # the copy, not the tree
    return out


def _touch(path: Path) -> None:
    path.write_text(path.read_text() + "\n# changed by tests/test_jitcache.py\n")


def test_cache_holds_across_processes_and_follows_every_file(tmp_path):
    copy = tmp_path / "tree"
    shutil.copytree(ROOT / "simkit", copy / "simkit", ignore=shutil.ignore_patterns("__pycache__", "*.nb?"))
    (copy / "simkit" / "engine" / "probe_linked.py").write_text(_LINKED_PROBE)
    everything = ["by_address", "by_symbol", "callee", "deal"]

    first = _run(copy)
    assert first["compiled"] == everything and first["loaded"] == []
    assert first["values"] == [40, 400]
    again = _run(copy)  # a new process loads every kernel, the linked ones too, and gets the same results
    assert again["compiled"] == [] and again["loaded"] == everything
    assert again["hands"] == first["hands"] and again["values"] == first["values"]

    _touch(copy / "simkit" / "cli.py")  # compiled into none of them
    assert _run(copy)["compiled"] == []

    _touch(copy / "simkit" / "engine" / "rng.py")  # inlined by the dealer, from another file than its own
    after = _run(copy)
    assert after["compiled"] == ["deal"] and after["hands"] == first["hands"]

    _touch(copy / "simkit" / "engine" / "bits.py")  # inlined by all four
    assert _run(copy)["compiled"] == everything
    assert _run(copy)["compiled"] == []


@pytest.mark.parametrize("name", ["simkit.solver.search", "simkit.strategies.pimc", "simkit.strategies.people.model"])
def test_linked_symbols_are_named_after_the_stamp(name):
    """A kernel called by symbol is named after its stamp: a caller cached against an older version of it asks for
    a symbol that no longer exists and is recompiled, never linked to changed code."""
    from simkit.engine.jitcache import Linked

    links = [v for v in vars(importlib.import_module(name)).values() if isinstance(v, Linked)]
    assert links
    for link in links:
        assert link.name.endswith(link.dispatcher._cache._cache_file._source_stamp.hex()[:16])
