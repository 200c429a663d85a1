#!/usr/bin/env python
"""Two strategies compared in one seat among three others: which plays better against a given field.

``simkit match A B`` seats A and B against each other (A on seats 0 and 2, B on 1 and 3). That measures A against
B; it does not say which of the two does better among players of a third kind (a pimc whose inference models its
opponents as heuristic players, say, among heuristic players). This script plays every deal twice, once with A and
once with B in the same seat, the other three seats held by ``--field``, and compares that seat's payout deal by
deal. Each seat takes its turn: ``--deals`` deals with the strategy in seat 0, the next ``--deals`` in seat 1, and
so on, so 4 x ``--deals`` deals in all.

    .venv/bin/python scripts/seat_ab.py "pimc[model=heuristic]" pimc --field heuristic --deals 2000 --rules sauspiel

Prints A's mean payout a deal minus B's with its 95% interval (paired, by deal). Deterministic: the deals and
every seat's random stream come from ``--seed``, the same for A and B.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def seat_difference(a: str, b: str, field: str, deals: int, rules: str, seed: int) -> np.ndarray:
    """Per deal, A's seat payout minus B's (4 x ``deals`` deals: each seat in turn holds the strategy)."""
    from simkit.engine.game import play_games
    from simkit.strategies import resolve

    out = []
    for seat in range(4):
        payout = {}
        for spec in (a, b):
            seats = [resolve(field)] * 4
            seats[seat] = resolve(spec)
            g = play_games(seed, seat * deals, deals, rules, seats=seats)
            payout[spec] = g["payouts"][:, seat].astype(np.float64)
        out.append(payout[a] - payout[b])
    return np.concatenate(out)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("a")
    p.add_argument("b")
    p.add_argument("--field", default="heuristic", help="the strategy of the other three seats")
    p.add_argument("--deals", type=int, default=1000, help="deals per seat (4 x this in all)")
    p.add_argument("--rules", default="sauspiel")
    p.add_argument("--seed", type=int, default=99)
    args = p.parse_args(argv)
    from simkit.strategies.strategy import StrategyError

    try:
        d = seat_difference(args.a, args.b, args.field, args.deals, args.rules, args.seed)
    except (StrategyError, ValueError) as e:
        print(f"seat_ab: error: {e}", file=sys.stderr)
        return 2
    m, se = d.mean(), d.std(ddof=1) / np.sqrt(len(d))
    print(f"{args.a} - {args.b} in one seat among {args.field}: {m:+.2f} a deal, 95% interval "
          f"[{m - 1.96 * se:+.2f}, {m + 1.96 * se:+.2f}] ({len(d):,} deals, {args.rules}, seed {args.seed})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
