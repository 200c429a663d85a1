"""The bidding-by-value section of BENCHMARKS.md (scripts/bench.py values): what the tariff does to the bidding.

* the value table's build time (the counts of simkit.strategies.value_table, all cores);
* the contract mix, thrown-in share, declarer win rates and Kontra share with the heuristic at every seat, per
  ruleset, for the threshold bidder (``heuristic[bidding=0,doubling=0]``, the bidder before value tables), the
  default ``heuristic`` (by value) and ``selective``; a custom tariff where solos pay three times sauspiel's
  shows the response to the tariff;
* duplicate matches: the default heuristic against the threshold bidder, and selective against the default.
"""

from __future__ import annotations

import time

import numpy as np

THRESHOLDS = "heuristic[bidding=0,doubling=0]"
BIDDERS = (THRESHOLDS, "heuristic", "selective")
KINDS = ("rufspiel", "solo", "wenz", "geier")


def _rulesets():
    from simkit.rules.ruleset import load_ruleset

    rich = load_ruleset("sauspiel").replace(name="sauspiel, solo 150", base_solo=150)
    return [load_ruleset("sauspiel"), load_ruleset("stargames"), rich, load_ruleset("sauspiel-short"),
            load_ruleset("stargames-short")]


def _mix(rules, spec: str, n: int) -> dict:
    from simkit.engine.game import play_games
    from simkit.strategies import resolve

    out = play_games(7, 0, n, rules, seats=(resolve(spec),) * 4)
    kind = out["kind"]
    played = kind >= 0
    row = {"thrown in": np.mean(~played), "declarer wins": np.mean(out["won"][played]),
           "Kontra": np.mean(out["doublings"][played] > 0)}
    for k, name in enumerate(KINDS):
        m = kind == k
        row[name] = (np.mean(m), np.mean(out["won"][m]) if m.any() else float("nan"))
    return row


def run(quick: bool, machine: str) -> str:
    from simkit.match.api import match
    from simkit.rules.ruleset import load_ruleset
    from simkit.strategies import value_table

    n_mix = 200_000 if quick else 1_000_000
    n_match = 40_000 if quick else 200_000
    n_build = 200_000 if quick else value_table.DEFAULT_DEALS
    t0 = time.perf_counter()
    value_table.build_counts(load_ruleset("sauspiel"), n_build, seed=2026)
    build_long = time.perf_counter() - t0
    t0 = time.perf_counter()
    value_table.build_counts(load_ruleset("sauspiel-short"), n_build, seed=2026)
    build_short = time.perf_counter() - t0
    lines = ["## Bidding by value: the contract mix under each tariff, and what it gains", "", f"Machine: {machine}.", "",
             f"The value table's counts (simkit.strategies.value_table; `simkit values --build`): {n_build:,} deals, "
             f"every seat that may declare a kind declares it, forced, and the heuristic plays it out: "
             f"{build_long:.0f} s long deck, {build_short:.0f} s short deck on all cores.", "",
             f"Contract mix with the bidder at every seat, {n_mix:,} deals each (seed 7). Shares of all deals; in "
             f"brackets the declaring side's win rate; Kontra: share of the played games doubled. "
             f"`{THRESHOLDS}` is the bidder before the value tables (fixed score thresholds, blind to the "
             f"tariff). \"sauspiel, solo 150\" is sauspiel with solos paying three times as much.", "",
             "| ruleset | bidder | thrown in | " + " | ".join(KINDS) + " | declarer wins | Kontra |",
             "|---|---|---:|" + "---:|" * len(KINDS) + "---:|---:|"]
    for rules in _rulesets():
        for spec in BIDDERS:
            r = _mix(rules, spec, n_mix)
            cells = [f"{r[k][0]:.1%} ({r[k][1]:.0%})" for k in KINDS]
            lines.append(f"| {rules.name} | `{spec}` | {r['thrown in']:.1%} | " + " | ".join(cells)
                         + f" | {r['declarer wins']:.1%} | {r['Kontra']:.1%} |")
    lines += ["", f"Duplicate matches (`simkit match A B --deals {n_match:,} --seed 9`): A's seat pair's mean payout "
              "per deal against B, tariff units, 95% interval.", "",
              "| ruleset | A | B | A - B per deal | 95% interval | deals played differently |", "|---|---|---|---:|---|---:|"]
    for rules in _rulesets():
        for a, b in (("heuristic", THRESHOLDS), ("selective", "heuristic")):
            p = match([a, b], n_match, rules, seed=9).pairs[0]
            lines.append(f"| {rules.name} | `{a}` | `{b}` | {p.mean:+.3f} | [{p.ci_low:+.3f}, {p.ci_high:+.3f}] | "
                         f"{p.differ / p.deals:.1%} |")
    return "\n".join(lines) + "\n"
