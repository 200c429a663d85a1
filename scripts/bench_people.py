"""`make bench` section "people": the people strategy's speed, its agreement with people's cards, and the
calibration table (a people run at every seat against the real games it was not fitted to)."""

from __future__ import annotations

import gzip
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
REAL = Path(os.environ.get("SIMKIT_SHARED", ROOT.parent / "shared")) / "real-games" / "sauspiel-20k.jsonl.gz"
PRESETS = ("sauspiel", "sauspiel-short")


def speed(n: int, repeats: int) -> list[dict]:
    """Complete deals per second on one core, people and heuristic at every seat, interleaved."""
    from bench import interleaved

    from simkit.engine.game import play_games

    rows = []
    for preset in PRESETS:
        fns = {s: (lambda s=s: play_games(1, 0, n, preset, seats=s)) for s in ("people", "heuristic")}
        for fn in fns.values():
            fn()  # compile / warm up
        rows.append({"rules": preset, **interleaved(fns, n, repeats)})
        print(f"  {preset}: people {rows[-1]['people']:,.0f} deals/s, heuristic {rows[-1]['heuristic']:,.0f}",
              flush=True)
    return rows


def split_files(tmp: Path) -> tuple[Path, Path]:
    """The real games the shipped weights were validated on (and those they were fitted to) as two files."""
    import json

    from simkit.strategies.people.train import is_validation
    from simkit.strategies.people import weights as W
    from simkit.rules import load_ruleset

    meta = W.find(load_ruleset("sauspiel"))[3]
    seed, frac = meta["settings"]["seed"], meta["settings"]["val_fraction"]
    val, fit = tmp / "validation.jsonl.gz", tmp / "fitting.jsonl.gz"
    with gzip.open(REAL, "rt") as src, gzip.open(val, "wt") as v, gzip.open(fit, "wt") as f:
        for line in src:
            (v if is_validation(str(json.loads(line)["id"]), seed, frac) else f).write(line)
    return val, fit


def calibration(deals: int, tmp: Path) -> list[dict]:
    from analysis.against import against

    val, _ = split_files(tmp)
    rows = []
    for preset in PRESETS:
        run = tmp / f"run-{preset}"
        subprocess.run([sys.executable, "-m", "simkit.cli", "run", "--deals", str(deals), "--strategy", "people",
                        "--rules", preset, "--seed", "2026", "--out", str(run), "--force"], check=True,
                       stdout=subprocess.DEVNULL)
        for games, which in ((val, "validation"), (REAL, "all")):
            ag = against(run, games)
            rows.append({"rules": preset, "games": which, "tables": ag.tables})
    return rows


def agreement() -> list[dict]:
    """The validation metrics the shipped weights record (card agreement of the model and the heuristic)."""
    from simkit.rules import load_ruleset
    from simkit.strategies.people import weights as W

    out = []
    for preset in PRESETS:
        meta = W.find(load_ruleset(preset))[3]
        out.append({"rules": preset, **meta["metrics"]["play"]["validation"], "data": meta["data"]})
    return out


def _pp(x) -> str:
    return "" if x is None else f"{100 * x:.1f}"


def _calibration_rows(cal: list[dict]) -> list[str]:
    lines = ["| rules | measure | people model | real (validation) | model - real [95%] | real (all) |",
             "|---|---|---:|---:|---:|---:|"]
    by = {(r["rules"], r["games"]): r["tables"] for r in cal}
    for preset in PRESETS:
        v, a = by[(preset, "validation")], by[(preset, "all")]
        p, pa = v["passed"].row(0, named=True), a["passed"].row(0, named=True)
        lines.append(f"| {preset} | thrown in | {_pp(p['run'])} | {_pp(p['real'])} | "
                     f"{100 * p['diff']:+.1f} [{100 * p['diff_low']:+.1f}, {100 * p['diff_high']:+.1f}] | "
                     f"{_pp(pa['real'])} |")
        for name, what in (("contract_mix", "share of played games"), ("win_rates", "declarer win rate")):
            all_rows = {(r["contract"], r["tout"]): r for r in a[name].iter_rows(named=True)}
            for r in v[name].iter_rows(named=True):
                if r["contract"] == "all" and name == "contract_mix":
                    continue
                ra = all_rows.get((r["contract"], r["tout"]), {})
                label = r["contract"] + (" tout" if r["tout"] else "")
                diff = ("" if r.get("diff") is None else
                        f"{100 * r['diff']:+.1f} [{100 * r['diff_low']:+.1f}, {100 * r['diff_high']:+.1f}]")
                lines.append(f"| {preset} | {what}: {label} | {_pp(r['run'])} | {_pp(r['real'])} "
                             f"({r['real_n']:,}) | {diff} | {_pp(ra.get('real'))} |")
    return lines


def markdown(speed_rows, agree_rows, cal, machine: str, n: int, deals: int, load: float) -> str:
    lines = [
        "## People: the `people` strategy's speed, agreement and calibration",
        "",
        f"Machine: {machine}. Load average when the section started: {load:.1f}.",
        "",
        f"**Speed**: complete deals per second on one core with the strategy at every seat (best of interleaved runs "
        f"of {n:,} deals; `simkit.engine.game.play_games`).",
        "",
        "| rules | people | heuristic | people / heuristic |",
        "|---|---:|---:|---:|",
    ] + [f"| {r['rules']} | {r['people']:,.0f} | {r['heuristic']:,.0f} | {r['people'] / r['heuristic']:.2f} |"
         for r in speed_rows] + [
        "",
        "**Card agreement** on the validation games (held out of the fit; recorded in the weights file by "
        "`simkit train people`): the share of decisions with more than one legal card where the strategy's card "
        "is the one the person played.",
        "",
        "| rules | validation deals | decisions | people model | heuristic | log-likelihood |",
        "|---|---:|---:|---:|---:|---:|",
    ] + [f"| {r['rules']} | {r['data']['validation_deals']:,} | {r['decisions']:,} | {100 * r['model']:.1f}% | "
         f"{100 * r['heuristic']:.1f}% | {r['log_likelihood']:.3f} |" for r in agree_rows]
    if cal:
        lines += [
            "",
            f"**Calibration**: `simkit run --strategy people --deals {deals:,} --seed 2026` under each preset, "
            "against the real games of its deck (`analysis.against`): the validation games the model never saw, and "
            "for reference all real games. Shares in percent; the real count in brackets; intervals are 95%.",
            "",
        ] + _calibration_rows(cal)
    else:
        lines += ["", f"Calibration: skipped ({REAL} is absent)."]
    return "\n".join(lines)


def run_all(n: int, repeats: int, deals: int) -> tuple:
    speed_rows = speed(n, repeats)
    agree_rows = agreement()
    cal = []
    if REAL.exists():
        with tempfile.TemporaryDirectory() as d:
            cal = calibration(deals, Path(d))
    return speed_rows, agree_rows, cal
