"""The evaluate section of BENCHMARKS.md (scripts/bench.py evaluate): `simkit evaluate` timings.

* heuristic play: :func:`simkit.evaluate` on 10^4 and 10^5 deals in this process (kernels loaded; default workers),
  best of 3, and the command from the shell (start-up and numba's cache load included), best of 3;
* dd: the solver on every option's opening position; fewer deals (the long deck's solves take far longer), best
  of 3, the time per 10^4 deals extrapolated linearly and marked as such;
* the kernel's given-hands entry against its own dealing, interleaved, best of 3 (the cost of the entry).
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
HANDS = (("long", "stargames", "EO GO HU HA HZ H9 SA S7"), ("long", "stargames", "E7 E8 E9 G7 G8 G9 S7 S8"),
         ("short", "stargames-short", "EO GO HU HA HZ H9"))


def _best(fn, repeats: int) -> float:
    best = float("inf")
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def _shell(args: list[str], repeats: int) -> float:
    exe = str(ROOT / ".venv" / "bin" / "simkit")
    best = float("inf")
    for _ in range(repeats):
        t0 = time.perf_counter()
        r = subprocess.run([exe, *args], capture_output=True, text=True)
        best = min(best, time.perf_counter() - t0)
        if r.returncode != 0:
            raise RuntimeError(r.stderr)
    return best


def run(quick: bool, machine: str) -> str:
    from simkit.engine.deal import deal_batch
    from simkit.engine.game import play_games
    from simkit.evaluate import declarations, evaluate
    from simkit.rules import load_ruleset

    load = os.getloadavg()[0]
    rows = []
    for deck, rules_name, hand in HANDS:
        rules = load_ruleset(rules_name)
        options = len(declarations(hand, rules)) + 1
        evaluate(hand, rules=rules, deals=100)  # load the kernels
        for n in ((10_000,) if quick else (10_000, 100_000)):
            t = _best(lambda: evaluate(hand, rules=rules, deals=n), 1 if quick else 3)
            rows.append((deck, hand, "heuristic", options, n, "API, kernels loaded", f"{t:.2f} s", ""))
        t = _shell(["evaluate", hand, "--rules", rules_name, "--deals", "10000", "--json"], 1 if quick else 3)
        rows.append((deck, hand, "heuristic", options, 10_000, "command from the shell", f"{t:.2f} s", ""))
    # enough deals that both workers stay busy to the end (evaluate chunks dd work by up to CHUNK_DD = 100 deals)
    dd_deals = {"long": 200 if quick else 1_200, "short": 200 if quick else 2_000}
    for deck, rules_name, hand in HANDS:
        if hand.startswith("E7"):
            continue
        rules = load_ruleset(rules_name)
        options = len(declarations(hand, rules)) + 1
        n = dd_deals[deck]
        evaluate(hand, rules=rules, deals=2, play="dd", workers=1)  # load the solver
        t = _best(lambda: evaluate(hand, rules=rules, deals=n, play="dd"), 1 if quick else 3)
        per = t * 10_000 / n
        rows.append((deck, hand, "dd", options, n, "API, kernels loaded", f"{t:.1f} s",
                     f"{per / 60:.1f} min (extrapolated)" if per >= 120 else f"{per:.0f} s (extrapolated)"))
    # the kernel's given-hands entry against its own dealing (the same deals)
    rules = load_ruleset(None)
    m = 200_000 if quick else 1_000_000
    hands = deal_batch(1, 0, m, rules)
    play_games(1, 0, 1_000, rules)
    best = {"dealt": float("inf"), "given": float("inf")}
    for _ in range(3):
        for k in best:
            kw = {"hands": hands} if k == "given" else {}
            t0 = time.perf_counter()
            play_games(1, 0, m, rules, **kw)
            best[k] = min(best[k], time.perf_counter() - t0)
    lines = [
        "## Evaluate: `simkit evaluate HAND`, every declaration and passing on the same deals",
        "",
        f"Machine: {machine}. Load average at the start: {load:.1f}.",
        "",
        "Each option (every declaration the hand may make under the ruleset, and passing) is played on the same "
        "sampled deals: heuristic play at all seats in the whole-deal kernel (one process below "
        "`PARALLEL_MIN_GAMES` = 500,000 games, else all cores), or `dd`, the solver's payout value of every "
        "option's opening position on all cores. Target (issue 13): 10^4 deals with heuristic play under a second, "
        "with `dd` under a minute. The API figures are best of 3 (the host's speed drifts by 10-20% from minute to "
        "minute); the command's include Python start-up and numba's cache load.",
        "",
        "| deck | hand | play | options | deals | what | time | per 10^4 deals |",
        "|---|---|---|---:|---:|---|---:|---:|",
    ]
    for deck, hand, play, options, n, what, t, per in rows:
        lines.append(f"| {deck} | {hand} | {play} | {options} | {n:,} | {what} | {t} | {per} |")
    lines += [
        "",
        f"The kernel's given-hands entry (`play_games(..., hands=)`, which evaluate uses) against the kernel dealing "
        f"the same {m:,} deals itself, heuristic at all seats, interleaved best of 3: "
        f"{m / best['given'] / 1e6:.3f} vs {m / best['dealt'] / 1e6:.3f} M deals/s "
        f"(given / dealt = {best['dealt'] / best['given']:.2f}; under load this ratio moves by about 10% from run to "
        f"run either way).",
    ]
    body = "\n".join(lines)
    print(body, flush=True)
    return body


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    print(run("--quick" in sys.argv, "this machine"))
