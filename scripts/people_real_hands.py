"""Whose fault is a win-rate gap of the `people` model: its bids or its play?

Plays the real deals of a deck again with the contract and declarer people chose forced (no bidding), the given
strategies at the declarer's seat and the defenders' seats, and prints per contract kind the declarer's win rate
beside the real one (all games, and the validation games of the shipped weights). With `people` on both sides the
difference is the play's share of the calibration table's gap (docs/strategies.md, "people"); the rest is the bids.

    .venv/bin/python scripts/people_real_hands.py sauspiel-short                       # people at every seat
    .venv/bin/python scripts/people_real_hands.py sauspiel --declarer "people[play_temperature=1]" --repeats 4
"""

from __future__ import annotations

import argparse
import os
import sys
from collections import defaultdict
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
REAL = Path(os.environ.get("SIMKIT_SHARED", ROOT.parent / "shared")) / "real-games" / "sauspiel-20k.jsonl.gz"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("rules", help="sauspiel or sauspiel-short (or any ruleset there are people weights for)")
    ap.add_argument("--games", type=Path, default=REAL, help="recorded games (default: the sauspiel room's)")
    ap.add_argument("--declarer", default="people", help="strategy at the declarer's seat")
    ap.add_argument("--defenders", default="people", help="strategy at the other seats")
    ap.add_argument("--repeats", type=int, default=4, help="plays of every deal (runs 11, 12, ...)")
    a = ap.parse_args(argv)
    if not a.games.is_file():
        print(f"people_real_hands: games file {a.games} does not exist", file=sys.stderr)
        return 2
    if a.repeats < 1:
        print("people_real_hands: --repeats must be 1 or more", file=sys.stderr)
        return 2

    from simkit.engine.game import play_games
    from simkit.rules import load_ruleset
    from simkit.rules.contracts import KIND_NAMES
    from simkit.strategies.people import weights as W
    from simkit.strategies.people.train import is_validation, read_training_deals

    rules = load_ruleset(a.rules)
    settings = W.find(rules)[3]["settings"]
    deals, _, _, won = read_training_deals(a.games, rules)
    groups = defaultdict(list)  # (kind, suit, declarer) -> [(deal, won)]
    for d, w in zip(deals, won):
        if d.game is not None and d.game.opening.contract.kind > 0:  # solo-type: a Rufspiel's partner is the call's
            c = d.game.opening.contract
            groups[(c.kind, -1 if c.suit is None else c.suit, d.game.opening.declarer)].append((d, w))
    res = defaultdict(lambda: ([], [], []))  # kind -> (model won, real won, validation)
    for (k, su, dd), rows in sorted(groups.items()):
        hands = np.array([[int(h) for h in d.hands] for d, _ in rows], np.uint32)
        seats = tuple(a.declarer if s == dd else a.defenders for s in range(4))
        for rep in range(a.repeats):
            r = play_games(11 + rep, 0, len(rows), rules, seats=seats, contract=(k, su) if su >= 0 else KIND_NAMES[k],
                           declarer=dd, hands=hands)
            res[k][0].extend(r["won"].tolist())
            res[k][1].extend(w for _, w in rows)
            res[k][2].extend(is_validation(d.deal_id, settings["seed"], settings["val_fraction"]) for d, _ in rows)
    print(f"{rules.name}: people's declared contracts on their own hands, declarer {a.declarer}, defenders "
          f"{a.defenders}, {a.repeats} plays each; declarer win rate in %")
    print(f"{'contract':10s} {'games':>6s} {'played':>7s} {'real':>6s} {'diff':>6s}  |  validation: {'games':>5s} "
          f"{'played':>7s} {'real':>6s}")
    for k, (m, rw, v) in sorted(res.items()):
        m, rw, v = np.array(m, float), np.array(rw, float), np.array(v, bool)
        print(f"{KIND_NAMES[k]:10s} {len(m) // a.repeats:6d} {100 * m.mean():7.1f} {100 * rw.mean():6.1f} "
              f"{100 * (m.mean() - rw.mean()):+6.1f}  |  {v.sum() // a.repeats:17d} {100 * m[v].mean():7.1f} "
              f"{100 * rw[v].mean():6.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
