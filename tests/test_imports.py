"""Imports run one way, down the floors: no circle of imports among simkit/ and analysis/ modules.

The test reads every import statement (function-level ones too: a lazy import is still a dependency) with ast,
builds the module graph and looks for strongly connected components. ``from package import name`` depends on the
submodule ``package.name`` when there is one, else on the package's ``__init__``; that a submodule's import first
runs its parent package is Python's doing, not an edge.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("simkit", "analysis")

#: circles still to be taken apart (issue "The house"); the test fails if one more appears, and if one listed here
#: is gone, so that the list only shrinks
KNOWN_CIRCLES: list[frozenset[str]] = []


def modules() -> dict[str, Path]:
    found = {}
    for pkg in PACKAGES:
        for path in sorted((ROOT / pkg).rglob("*.py")):
            parts = path.relative_to(ROOT).with_suffix("").parts
            name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
            found[name] = path
    return found


def import_graph(mods: dict[str, Path]) -> dict[str, set[str]]:
    def owner(name: str) -> str | None:  # the module a dotted name lives in
        while name and name not in mods:
            name = name.rpartition(".")[0]
        return name or None

    graph: dict[str, set[str]] = {m: set() for m in mods}
    for mod, path in mods.items():
        package = mod if path.name == "__init__.py" else mod.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = package.split(".")[:len(package.split(".")) - node.level + 1]
                    source = ".".join(base + ([node.module] if node.module else []))
                else:
                    source = node.module or ""
                targets = [f"{source}.{a.name}" if f"{source}.{a.name}" in mods else source for a in node.names]
            else:
                continue
            for t in targets:
                dep = owner(t)
                if dep is not None and dep != mod:
                    graph[mod].add(dep)
    return graph


def circles(graph: dict[str, set[str]]) -> list[frozenset[str]]:
    """The strongly connected components with more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            v, edges = work[-1]
            for w in edges:
                if w not in index:
                    index[w] = low[w] = len(index)
                    stack.append(w)
                    on_stack.add(w)
                    work.append((w, iter(sorted(graph[w]))))
                    break
                if w in on_stack:
                    low[v] = min(low[v], index[w])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[v])
                if low[v] == index[v]:
                    comp = set()
                    while True:
                        w = stack.pop()
                        on_stack.discard(w)
                        comp.add(w)
                        if w == v:
                            break
                    if len(comp) > 1:
                        found.append(frozenset(comp))
    return found


def a_cycle(graph: dict[str, set[str]], comp: frozenset[str]) -> list[str]:
    """One closed path through the circle, for the failure message."""
    start = min(comp)
    path, seen = [start], {start}
    while True:
        nxt = sorted(d for d in graph[path[-1]] if d in comp)
        back = [d for d in nxt if d in seen]
        if back:
            return path[path.index(back[0]):] + [back[0]]
        path.append(nxt[0])
        seen.add(nxt[0])


def test_the_graph_sees_lazy_and_relative_imports(tmp_path):
    mods = {"p": tmp_path / "p" / "__init__.py", "p.a": tmp_path / "p" / "a.py", "p.b": tmp_path / "p" / "b.py"}
    for path in mods.values():
        path.parent.mkdir(exist_ok=True)
    mods["p"].write_text("")
    mods["p.a"].write_text("def f():\n    from p import b\n")
    mods["p.b"].write_text("from .a import f\n")
    graph = import_graph(mods)
    assert graph == {"p": set(), "p.a": {"p.b"}, "p.b": {"p.a"}}
    assert circles(graph) == [frozenset({"p.a", "p.b"})]
    assert a_cycle(graph, frozenset({"p.a", "p.b"})) == ["p.a", "p.b", "p.a"]


def test_no_new_import_circles():
    graph = import_graph(modules())
    found = circles(graph)
    new = [c for c in found if c not in KNOWN_CIRCLES]
    assert not new, "import circle(s): " + "; ".join(" -> ".join(a_cycle(graph, c)) for c in new)
    gone = [sorted(c) for c in KNOWN_CIRCLES if c not in found]
    assert not gone, f"circle(s) taken apart: remove them from KNOWN_CIRCLES: {gone}"


def reaches(graph: dict[str, set[str]], start: str) -> set[str]:
    """Every module ``start`` imports, directly or through others."""
    seen, todo = set(), [start]
    while todo:
        for d in graph[todo.pop()] - seen:
            seen.add(d)
            todo.append(d)
    return seen


def test_the_play_core_runs_one_way():
    """docs/architecture.md, "The play core": the whole-deal kernel knows no strategy that it calls by address, the
    solver and the value table's lookup stand below whole-deal play, and the registry imports nothing above it."""
    graph = import_graph(modules())
    game = "simkit.engine.game"
    # the kernel and its dispatch import only the strategies they inline (random, heuristic) and the interface,
    # and compile in no file of a strategy they call by address (its cache stamp lists what it compiles in)
    by_address = ("simkit.strategies.pimc", "simkit.strategies.people", "simkit.solver")
    assert not [m for m in graph[game] | reaches(graph, "simkit.strategies.dispatch") if m.startswith(by_address)]
    from simkit.engine.game import DEPENDENCIES

    root = Path(__file__).resolve().parent.parent
    compiled_in = {".".join(p.resolve().relative_to(root).with_suffix("").parts) for p in DEPENDENCIES}
    assert not [m for m in compiled_in if m.startswith(by_address)], sorted(compiled_in)
    for low in ("simkit.strategies", "simkit.strategies.values", "simkit.strategies.pimc", "simkit.solver.api",
                "simkit.solver.bulk"):
        assert game not in reaches(graph, low), low
