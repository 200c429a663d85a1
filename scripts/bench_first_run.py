"""First run (``scripts/bench.py first-run``): what a fresh install waits for before its first results.

* **Cold compile per kernel**: each kernel of ``simkit.warmup.KERNELS`` compiled alone in a fresh process with an
  empty numba cache (``NUMBA_CACHE_DIR``), so each figure includes the kernels it calls (what a user pays whose
  first command needs only it); then all of them in one process, each compiled once, in the warm-up's order.
* **Per command**: the README's commands, each in a fresh process with an empty cache; the compile time is the sum
  of the command's compile notices (simkit.engine.notices: one line per kernel that took over a second), beside the
  command's wall time (its work included).
* **Fresh clone**: ``make demo`` (``--test``: also ``make test``) in a clone of this commit, pip install included,
  with empty numba, value-table and pip caches.

Every figure is wall time on a machine whose cores other jobs may share: the load average is noted beside each
group (``uptime``'s one-minute figure at its start).

    .venv/bin/python scripts/bench_first_run.py [--test] [--skip-clone] [--only kernels|commands|clone]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PY = sys.executable
NOTICE = re.compile(r"simkit: compiling (.+?) \(first run only; cached afterwards\) \.\.\. ([0-9.]+) s")

#: README commands (``{t}``: a scratch directory), by what they do first
COMMANDS = (
    ("run", "simkit run --deals 1e5 --out {t}/run --force"),
    ("report", "simkit report {t}/run --out {t}/report"),
    ("solve", "simkit solve simkit/data/demo-positions.jsonl --objective payout"),
    ("analyze", "simkit analyze simkit/data/demo-games.jsonl --out {t}/analysis --strategy heuristic"),
    ("match", "simkit match heuristic random --deals 1e4"),
    ("match pimc", "simkit match pimc heuristic --deals 20"),
    ("evaluate", "simkit evaluate \"EO GO HU HA HZ H9 SA S7\" --seat 1 --rules sauspiel --deals 1e4"),
    ("evaluate dd", "simkit evaluate \"EO GO HU HA HZ H9 SA S7\" --seat 1 --rules sauspiel --deals 100 --play dd"),
    ("run people", "simkit run --deals 1e4 --strategy people --rules sauspiel --out {t}/people --force"),
    ("run old German", "simkit run --rules old-german --parties 100 --out {t}/og --force"),
    ("random-play", "simkit random-play --deals 200000 --contract rufspiel"),
    ("deal", "simkit deal --seed 1 --index 2"),
)


def load() -> float:
    return os.getloadavg()[0]


def _env(cache: Path, **extra) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ("NUMBA_CACHE_DIR",)}
    env.update(NUMBA_CACHE_DIR=str(cache), SIMKIT_CACHE_DIR=str(cache / "simkit"), **extra)
    return env


def kernel_alone(name: str) -> tuple[float, float]:
    """(seconds of the warm-up of ``name``, wall seconds of the whole process) with an empty cache."""
    with tempfile.TemporaryDirectory(prefix="simkit-cold-") as d:
        t0 = time.perf_counter()
        r = subprocess.run([PY, "-m", "simkit.warmup", "--times", name], cwd=ROOT, env=_env(Path(d)),
                           capture_output=True, text=True, check=True)
        wall = time.perf_counter() - t0
    return json.loads(r.stdout.strip().splitlines()[-1])[name], wall


def kernels_together() -> tuple[dict[str, float], float]:
    """Every kernel in one process with an empty cache: seconds each (callees compiled once), and the wall time."""
    with tempfile.TemporaryDirectory(prefix="simkit-cold-") as d:
        t0 = time.perf_counter()
        r = subprocess.run([PY, "-m", "simkit.warmup", "--times"], cwd=ROOT, env=_env(Path(d)),
                           capture_output=True, text=True, check=True)
        wall = time.perf_counter() - t0
    return json.loads(r.stdout.strip().splitlines()[-1]), wall


def command_cold(cmd: str, scratch: Path) -> tuple[float, list[tuple[str, float]], float]:
    """(compile seconds, the notices, wall seconds) of one command in a fresh process with an empty cache
    (``scratch``: the commands' files, kept from one command to the next)."""
    simkit = str(Path(PY).parent / "simkit")
    with tempfile.TemporaryDirectory(prefix="simkit-cold-") as d:
        line = cmd.format(t=scratch).replace("simkit ", simkit + " ", 1)
        t0 = time.perf_counter()
        r = subprocess.run(line, shell=True, cwd=ROOT, env=_env(Path(d)), capture_output=True, text=True)
        wall = time.perf_counter() - t0
    if r.returncode != 0:
        raise RuntimeError(f"{cmd} failed:\n{r.stderr[-2000:]}")
    notices = [(m.group(1), float(m.group(2))) for m in NOTICE.finditer(r.stderr)]
    return sum(t for _, t in notices), notices, wall


def fresh_clone(test: bool) -> dict:
    """Wall times of ``make demo`` (and ``make test``) in a fresh clone of HEAD, each from a clean clone."""
    out = {}
    branch = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True,
                            check=True).stdout.strip()
    for target in ("demo", "test") if test else ("demo",):
        with tempfile.TemporaryDirectory(prefix="simkit-clone-") as d:
            clone = Path(d) / "simkit"
            subprocess.run(["git", "clone", "--quiet", "--no-checkout", str(ROOT), str(clone)], check=True)
            subprocess.run(["git", "checkout", "--quiet", branch], cwd=clone, check=True)
            shared = ROOT.parent / "shared"
            if shared.is_dir():  # the fixtures the tests read sit beside the repository
                (Path(d) / "shared").symlink_to(shared)
            env = {k: v for k, v in os.environ.items() if k not in ("NUMBA_CACHE_DIR", "VIRTUAL_ENV")}
            env.update(SIMKIT_CACHE_DIR=str(Path(d) / "cache"), PIP_NO_CACHE_DIR="1",
                       XDG_CACHE_HOME=str(Path(d) / "xdg"), SIMKIT_SHARED=str(shared))
            t0, l0 = time.perf_counter(), load()
            r = subprocess.run(["make", target], cwd=clone, env=env, capture_output=True, text=True)
            wall = time.perf_counter() - t0
            if r.returncode != 0:
                raise RuntimeError(f"make {target} failed in a fresh clone:\n{r.stdout[-3000:]}\n{r.stderr[-3000:]}")
            notices = [(m.group(1), float(m.group(2))) for m in NOTICE.finditer(r.stderr)]
            tail = [x for x in r.stdout.strip().splitlines() if " passed" in x]
            out[target] = {"wall": wall, "load": l0, "notices": notices, "summary": tail[-1] if tail else ""}
        print(f"  make {target} in a fresh clone: {wall:.0f} s (load {l0:.1f})", flush=True)
    return out


def run(test: bool = False, skip_clone: bool = False, only: str | None = None) -> dict:
    sys.path.insert(0, str(ROOT))
    from simkit.warmup import KERNELS

    res: dict = {"commit": subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True,
                                          text=True).stdout.strip()}
    if only in (None, "kernels"):
        res["alone_load"] = load()
        res["alone"] = {}
        for name in KERNELS:
            res["alone"][name] = kernel_alone(name)
            print(f"  {name:12s} alone {res['alone'][name][0]:6.1f} s", flush=True)
        res["together_load"] = load()
        res["together"], res["together_wall"] = kernels_together()
        print(f"  all kernels in one process: {sum(res['together'].values()):.1f} s", flush=True)
    if only in (None, "commands"):
        res["commands_load"] = load()
        res["commands"] = {}
        with tempfile.TemporaryDirectory(prefix="simkit-commands-") as scratch:
            for label, cmd in COMMANDS:
                res["commands"][label] = (cmd, *command_cold(cmd, Path(scratch)))
                print(f"  {label:16s} compiles {res['commands'][label][1]:6.1f} s, wall "
                      f"{res['commands'][label][3]:6.1f} s", flush=True)
    if only in (None, "clone") and not skip_clone:
        res["clone"] = fresh_clone(test)
    return res


def markdown(res: dict, machine: str) -> str:
    from simkit.warmup import KERNELS

    lines = ["## First run: cold compile and a fresh clone", "", f"Machine: {machine}; commit {res['commit']}.", "",
             "Written by `scripts/bench.py first-run` (scripts/bench_first_run.py). Wall times on a 2-core host shared "
             "with other jobs: the load average (one-minute) is given for each group, and the same kernel's time "
             "varies by up to 1.5x between runs.", ""]
    if "alone" in res:
        tog = res["together"]
        lines += [
            "### Cold compile per kernel",
            "",
            "`python -m simkit.warmup NAME` in a fresh process with an empty numba cache (`NUMBA_CACHE_DIR`): alone "
            "includes every kernel it calls (what the first command needing only it waits for); together is the same "
            "kernel's share when `python -m simkit.warmup` compiles all of them in one process, each once, in this "
            f"order. Load average {res['alone_load']:.1f} (alone), {res['together_load']:.1f} (together).",
            "",
            "| kernel | what | alone, s | together, s |",
            "|---|---|---:|---:|",
        ]
        lines += [f"| {n} | {KERNELS[n].what} | {res['alone'][n][0]:.1f} | {tog.get(n, 0):.1f} |" for n in KERNELS]
        lines += [f"| **all** | | | **{sum(tog.values()):.1f}** (process {res['together_wall']:.1f}) |", ""]
    if "commands" in res:
        lines += [
            "### Per command",
            "",
            "Each command in a fresh process with an empty cache: compile is the sum of its compile notices (the "
            "kernels that took over a second), wall the whole command with its work. Load average "
            f"{res['commands_load']:.1f}.",
            "",
            "| command | compile, s | wall, s | compiled |",
            "|---|---:|---:|---|",
        ]
        for label, (cmd, total, notices, wall) in res["commands"].items():
            what = ", ".join(f"{w} {t:.1f}" for w, t in notices) or "(nothing over a second)"
            lines.append(f"| `{cmd.format(t='T')}` | {total:.1f} | {wall:.1f} | {what} |")
        lines.append("")
    if "clone" in res:
        lines += ["### Fresh clone", "",
                  "A clone of the commit, `make` with empty numba, value-table and pip caches (the venv and the pip "
                  "install of the pinned dependencies included).", "",
                  "| target | wall | load at start | compile notices, s |", "|---|---:|---:|---:|"]
        for target, r in res["clone"].items():
            extra = f" ({r['summary'].strip('= ')})" if r["summary"] else ""
            lines.append(f"| `make {target}`{extra} | {r['wall']:.0f} s | {r['load']:.1f} | "
                         f"{sum(t for _, t in r['notices']):.1f} |")
        lines.append("")
    return "\n".join(lines)


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--test", action="store_true", help="also time make test in a fresh clone (about 10 minutes)")
    ap.add_argument("--skip-clone", action="store_true", help="no fresh clone")
    ap.add_argument("--only", choices=("kernels", "commands", "clone"))
    ap.add_argument("--json", help="write the raw figures to this file")
    args = ap.parse_args(argv)
    res = run(args.test, args.skip_clone, args.only)
    if args.json:
        Path(args.json).write_text(json.dumps(res, indent=1))
    sys.path.insert(0, str(ROOT / "scripts"))
    from bench import machine

    print(markdown(res, machine()))


if __name__ == "__main__":
    main()
