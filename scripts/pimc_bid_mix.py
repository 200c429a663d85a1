"""The contract mix of pimc's own bidding (``pimc``, ``bid_eval=1``) against the value-table bidder's
(``bid_eval=0``) under several tariffs: does the tariff move its choices? (docs/strategies.md, "Bidding by its
own evaluation")

    python scripts/pimc_bid_mix.py [--deals 2000] [--seed 31]
    python scripts/pimc_bid_mix.py --speed 100 [--rounds 3]   # deals/s, pimc at every seat, interleaved

Only the bid is pimc's here (its N_BID_EVAL entry; the seats play as the heuristic, which pimc's bid evaluation
assumes anyway), so the mix is what pimc declares at every seat, without the cost of pimc's card play. Prints, per
tariff and bidder, the share of deals declared in each contract kind (a Tout counted apart) and thrown in.
"""

from __future__ import annotations

import argparse
import time
from dataclasses import replace

import numpy as np

from simkit.engine.game import play_games
from simkit.rules.contracts import KIND_NAMES
from simkit.rules.ruleset import load_ruleset
from simkit.strategies import pimc, resolve
from simkit.strategies.natives import N_BID_EVAL

TARIFFS = (  # (label, ruleset, overrides)
    ("sauspiel (Rufspiel 20, solo 50)", "sauspiel", {}),
    ("sauspiel, solo 100", "sauspiel", {"base_solo": 100}),
    ("sauspiel, solo 30", "sauspiel", {"base_solo": 30}),
    ("sauspiel, Schneider/Schwarz/Laufende 0", "sauspiel", {"schneider": 0, "schwarz": 0, "laufende": 0}),
    ("stargames (Rufspiel 1, solo 5)", "stargames", {}),
)


def bidder(spec: str):
    """``spec``'s pimc with only its bid entry: it bids as pimc does and plays as the heuristic."""
    s = resolve(spec)
    return replace(s, name=spec + "-bid", native_entries=lambda: {N_BID_EVAL: pimc.BID_EVAL.address})


def mix(rows) -> dict[str, float]:
    n = len(rows["kind"])
    out = {"thrown in": float((rows["kind"] < 0).mean())}
    for k in range(6):
        for tout in (False, True):
            share = float(((rows["kind"] == k) & (rows["tout"] == tout)).sum() / n)
            if share:
                out[KIND_NAMES[k] + (" tout" if tout else "")] = share
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--deals", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=31)
    ap.add_argument("--speed", type=int, default=0, help="instead: complete deals a second with pimc at every "
                    "seat, this many deals a round, the bidders interleaved in one process")
    ap.add_argument("--rounds", type=int, default=3)
    a = ap.parse_args()
    if a.speed:
        return speed(a.speed, a.rounds, a.seed)
    first = {}
    for label, name, over in TARIFFS:
        rules = load_ruleset(name, **over)
        print(f"\n{label}: {a.deals} deals, seed {a.seed}")
        for spec in ("pimc[bid_eval=0]", "pimc"):
            rows = play_games(a.seed, 0, a.deals, rules, bidder(spec))
            m = mix(rows)
            pay = rows["payouts"].astype(np.int64)
            # the same deals under the first tariff (sauspiel's deck and contracts): how many bids the tariff moved
            moved = ""
            if name == "sauspiel":
                first.setdefault(spec, rows["bids"])
                share = (rows["bids"] != first[spec]).any(axis=1).mean()
                moved = f"; bids other than under the first tariff: {100 * share:.1f}% of deals"
            print(f"  {spec:18s} " + ", ".join(f"{k} {100 * v:.1f}%" for k, v in m.items())
                  + f"; mean |payout| {np.abs(pay).mean():.1f}{moved}")


SPEED_SPECS = ("pimc[bid_eval=0,double_eval=0]", "pimc", "pimc[double_eval=0]")


def speed(n: int, rounds: int, seed: int) -> None:
    """Deals a second with each spec at every seat (sauspiel), the specs interleaved round by round on the same
    deals (a round r plays deals r*n ..), after one warm-up deal each (compiling)."""
    rules = load_ruleset("sauspiel")
    for spec in SPEED_SPECS:
        play_games(seed, 0, 1, rules, spec)
    took = {spec: 0.0 for spec in SPEED_SPECS}
    for r in range(rounds):
        for spec in SPEED_SPECS:
            t = time.perf_counter()
            play_games(seed, r * n, n, rules, spec)
            took[spec] += time.perf_counter() - t
    base = rounds * n / took[SPEED_SPECS[0]]
    for spec in SPEED_SPECS:
        rate = rounds * n / took[spec]
        print(f"{spec:34s} {rate:6.1f} deals/s  ({rate / base:.2f} x the value-table bidder's)")


if __name__ == "__main__":
    main()
