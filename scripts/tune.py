#!/usr/bin/env python
"""A/B one entry of the heuristic's config table: the heuristic against itself on duplicate deals.

Every deal is played twice: side B (the entry set to the B value) on seats 0 and 2 against side A on 1 and 3, then
with the seats swapped. Side B's result of a deal is its four seats' payouts over both plays, halved; when the entry
changes no decision on a deal, that is exactly 0. The script prints the mean per deal with a 95% confidence
interval and the share of deals played differently. docs/heuristic.md quotes its output.

    .venv/bin/python scripts/tune.py solo_min_trumps 0 6 --deals 1e6
    .venv/bin/python scripts/tune.py short_shift 0.5 0.75 --rules stargames-short --deals 5e5
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from duplicate_match import kernel_duplicate, mean_ci  # noqa: E402
from simkit.rules.ruleset import load_ruleset  # noqa: E402
from simkit.strategies import heuristic, resolve  # noqa: E402


def with_entry(name: str, value: float):
    """The heuristic with config entry ``name`` set to ``value`` (the other entries at their defaults)."""
    if name not in heuristic.CONFIG_NAMES:
        raise SystemExit(f"tune.py: unknown config entry {name!r}; entries: {', '.join(heuristic.CONFIG_NAMES)}")
    config = heuristic.DEFAULT_CONFIG.copy()
    config[heuristic.CONFIG_NAMES.index(name)] = value
    return resolve("heuristic").with_config(config)


def ab(name: str, a: float, b: float, deals: int, rules=None, seed: int = 5) -> dict:
    """Side B's mean result per deal against side A (see the module docstring)."""
    rules = rules or load_ruleset()
    r = kernel_duplicate(deals, seed, rules, side=with_entry(name, b), other=with_entry(name, a)) / 2
    mean, low, _ = mean_ci(r)
    return {"entry": name, "a": a, "b": b, "ruleset": rules.name, "deals": deals, "seed": seed,
            "b_minus_a_per_deal": mean, "ci95": mean - low, "differ": float(np.mean(r != 0))}


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("entry", help="config entry name (see docs/heuristic.md)")
    ap.add_argument("a", type=float, help="value of side A")
    ap.add_argument("b", type=float, help="value of side B")
    ap.add_argument("--deals", type=float, default=1e6, help="duplicate deals, each played twice (default 1e6)")
    ap.add_argument("--rules", default=None, help="ruleset preset or TOML file (default: stargames)")
    ap.add_argument("--seed", type=int, default=5)
    ap.add_argument("--json", action="store_true", help="print the result as JSON")
    args = ap.parse_args(argv)
    if args.deals < 1:
        ap.error("--deals must be at least 1")
    if args.entry not in heuristic.CONFIG_NAMES:
        ap.error(f"unknown config entry {args.entry!r}; entries: {', '.join(heuristic.CONFIG_NAMES)}")
    r = ab(args.entry, args.a, args.b, int(args.deals), load_ruleset(args.rules), args.seed)
    if args.json:
        print(json.dumps(r))
        return
    print(f"{r['ruleset']}, {r['deals']:,} duplicate deals, seed {r['seed']}: {r['entry']} = {r['b']:g} against "
          f"{r['a']:g}: {r['b_minus_a_per_deal']:+.4f} per deal (95% CI +-{r['ci95']:.4f}); "
          f"{r['differ']:.2%} of the deals played differently")


if __name__ == "__main__":
    main()
