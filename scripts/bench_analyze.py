"""Grading benchmark (``scripts/bench.py analyze``): `simkit analyze` on the real games of ../shared/fixtures and
on games the engine plays with the heuristic (a `simkit run --store-play` run exported with `simkit export`), long
and short deck, each objective: games per second on all cores and milliseconds per game (each game's own grading
time, one core), and how much the positions of one game share.
"""

from __future__ import annotations

import json
import os
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT.parent / "shared" / "fixtures" / "real-games-sample.jsonl"
OBJECTIVES = ("win", "payout", "points")


def engine_games(preset: str, n: int, path: Path, seed: int = 2026) -> int:
    """Write ``n`` heuristic games of ``preset`` (a run with --store-play, exported) to ``path``."""
    from simkit.rules import load_ruleset
    from simkit.sim.export import export_records
    from simkit.sim.runner import RunOptions, run

    with tempfile.TemporaryDirectory() as tmp:
        run(RunOptions(deals=int(n * 1.15) + 20, seed=seed, rules=load_ruleset(preset), store_play=True),
            Path(tmp) / "run", workers=1)
        k = 0
        with open(path, "w", encoding="utf-8") as f:
            for rec in export_records(Path(tmp) / "run"):
                f.write(json.dumps(rec) + "\n")
                k += 1
                if k == n:
                    break
    return k


def grade(path: Path, objective: str, workers: int) -> dict:
    from simkit.analyze.batch import analyze_file

    import pyarrow.parquet as pq

    with tempfile.TemporaryDirectory() as tmp:
        t0 = time.perf_counter()
        r = analyze_file(path, Path(tmp) / "a", objective=objective, workers=workers, report=False)
        wall = time.perf_counter() - t0
        ms = pq.read_table(Path(tmp) / "a" / "games.parquet", columns=["ms"]).column("ms").to_numpy()
    return {"games": r.games, "rate": r.games / wall, "median": float(np.median(ms)),
            "p90": float(np.percentile(ms, 90)), "max": float(ms.max()), "mean": float(ms.mean())}


def sharing(path: Path, n: int, objective: str = "points") -> dict:
    """Nodes and time of solving every position of a game along its line on one table, against the opening alone
    and against every position on a fresh table."""
    from simkit.analyze.records import read_file
    from simkit.solver import Workspace, solve
    from simkit.solver.api import solve_line

    games = [g for _, g, _ in read_file(path) if g is not None][:n]
    ws = Workspace()
    line_nodes, fresh_nodes, open_nodes, line_s, open_s = [], [], [], [], []
    for g in games:
        ws.clear()
        t0 = time.perf_counter()
        sols = solve_line(g.opening, g.plays, objective, workspace=ws)
        line_s.append(time.perf_counter() - t0)
        line_nodes.append(sols[0].nodes)
        ws.clear()
        t0 = time.perf_counter()
        open_nodes.append(solve(g.opening, objective, workspace=ws).nodes)
        open_s.append(time.perf_counter() - t0)
        pos, total = g.opening, 0
        for c in g.plays:
            ws.clear()
            total += solve(pos, objective, workspace=ws).nodes
            pos = pos.after(c)
        fresh_nodes.append(total)
    ln, fn, on = (np.array(x, np.float64) for x in (line_nodes, fresh_nodes, open_nodes))
    return {"games": len(games), "line_nodes": float(np.median(ln)), "fresh_nodes": float(np.median(fn)),
            "open_nodes": float(np.median(on)), "shared_share": float(np.median(ln / fn)),
            "line_over_opening": float(np.median(np.array(line_s) / np.array(open_s)))}


def run_all(n_engine: int, workers: int) -> tuple[list, list]:
    from simkit.solver.api import warm_up

    warm_up(notice=False)
    rows, shares = [], []
    with tempfile.TemporaryDirectory() as tmp:
        inputs = [("real games (fixtures)", "mixed", FIXTURES)] if FIXTURES.exists() else []
        for preset, deck in (("sauspiel", "long"), ("sauspiel-short", "short")):
            p = Path(tmp) / f"{preset}.jsonl"
            engine_games(preset, n_engine, p)
            inputs.append(("heuristic games", deck, p))
        for what, deck, path in inputs:
            for objective in OBJECTIVES:
                r = grade(path, objective, workers)
                rows.append({"input": what, "deck": deck, "objective": objective, **r})
                print(rows[-1], flush=True)
            s = sharing(path, 12)
            shares.append({"input": what, "deck": deck, **s})
            print(shares[-1], flush=True)
    return rows, shares


def markdown(rows, shares, machine: str, workers: int) -> str:
    out = ["## Analyze: grading recorded games, every decision (`simkit analyze`)", "",
           f"Machine: {machine}. `simkit analyze` with {workers} workers; every decision of every game graded "
           "(each legal card valued). *ms a game* is each game's own grading time on one core (solver and "
           "bookkeeping); *games/s* the whole file on all workers. Heuristic games: a `simkit run --store-play` "
           "run (seed 2026) exported with `simkit export`. Real games: ../shared/fixtures (30 online games, 27 long "
           "deck). Targets (issue 11, long deck): median <= 300 ms with `points`, <= 20 ms with `win`.", "",
           "| input | deck | objective | games | games/s | median ms | p90 ms | max ms | mean ms |",
           "|---|---|---|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        out.append(f"| {r['input']} | {r['deck']} | {r['objective']} | {r['games']} | {r['rate']:.1f} | "
                   f"{r['median']:.1f} | {r['p90']:.0f} | {r['max']:.0f} | {r['mean']:.1f} |")
    out += ["", "What one game's positions share (`points`, 12 games each; medians): nodes of solving every position "
            "along the line on one table, against every position on a fresh table and against the opening alone; "
            "time of the whole line over the opening's.", "",
            "| input | deck | nodes, whole line | nodes, each position fresh | line / fresh | nodes, opening | time line / "
            "opening |", "|---|---|---:|---:|---:|---:|---:|"]
    for s in shares:
        out.append(f"| {s['input']} | {s['deck']} | {s['line_nodes']:,.0f} | {s['fresh_nodes']:,.0f} | "
                   f"{100 * s['shared_share']:.0f}% | {s['open_nodes']:,.0f} | {s['line_over_opening']:.2f}x |")
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    rows, shares = run_all(100, os.cpu_count() or 1)
    print(markdown(rows, shares, "this machine", os.cpu_count() or 1))
