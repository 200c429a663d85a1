#!/usr/bin/env python
"""Duplicate match: the heuristic against random on the same deals, and the heuristic's contract statistics.

`simkit match A B` is the command for duplicate matches between any strategies (simkit/match, docs/match.md); this
script keeps the plain-Python referee back end, an independent check of the kernel's duplicate play that the tests
use, and the all-heuristic contract statistics.

Part 1 (duplicate match): every deal is played twice, heuristic on seats 0 and 2 against random on 1 and 3, then
with the seats swapped. The heuristic side's payout of a deal is the sum over both plays of its two seats' payouts;
the script reports its mean per deal (per play of the deal: divided by 2) with a 95% confidence interval.

Part 2 (heuristic everywhere): contract mix, declarer win share per contract, passed share.

Two back ends:

* ``kernel`` (default when available): ``simkit.engine.game.play_games``, the whole-deal Numba kernel;
* ``referee``: a plain-Python loop over ``simkit.reference.Game`` calling the strategies' njit functions with a
  filled ``info`` array (slow, a few hundred deals per second; kept as an independent check of the kernel).

    .venv/bin/python scripts/duplicate_match.py --deals 200000
    .venv/bin/python scripts/duplicate_match.py --backend referee --deals 2000
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from simkit.reference import Game  # noqa: E402
from simkit.rules.contracts import KIND_NAMES, RUFSPIEL, Contract  # noqa: E402
from simkit.rules.ruleset import Ruleset, load_ruleset  # noqa: E402
from simkit.rules.tables import build_tables, variant_index  # noqa: E402
from simkit.strategies import heuristic  # noqa: E402
from simkit.strategies.api import (  # noqa: E402
    I_BIDS, I_DECLARER, I_DOUBLINGS, I_HAND_SIZE, I_HISTORY_CARDS, I_HISTORY_LEADER, I_HISTORY_WINNER, I_KIND,
    I_KONTRA_SEAT, I_LEADER, I_N_IN_TRICK, I_PARTNER_SHOWN, I_PHASE, I_PLAYED, I_PLAYED_BY, I_POINTS, I_RE_SEAT,
    I_SEARCHED, I_SUIT, I_TOUT, I_TRICK, I_TRICK_NO, I_TRICKS_WON, I_VARIANT, INFO_SIZE, NOT_ASKED, PASS,
    PHASE_BID, PHASE_DOUBLE, PHASE_PLAY, bid_code, decode_bid,
)

# ------------------------------------------------------------------------------------------ referee back end


def _bid_rank(code: int) -> int:
    if code == PASS:
        return -1
    kind, _, tout = decode_bid(code)
    return (0, 5, 4, 2, 3, 1)[kind] + (6 if tout else 0)


class HeuristicSeat:
    def __init__(self, config=None):
        self.config = heuristic.DEFAULT_CONFIG.copy() if config is None else np.asarray(config, np.float64)

    def bid(self, hand, seat, info, t):
        return int(heuristic.bid(np.int64(hand), seat, info, t.strength, t.eff_suit, t.params, self.config))

    def double(self, hand, seat, info, t):
        return int(heuristic.double(np.int64(hand), seat, info, t.strength, t.eff_suit, t.params, self.config))

    def play(self, hand, legal, seat, info, t):
        return int(heuristic.play(np.int64(hand), np.int64(legal), seat, info, t.strength, t.eff_suit, t.params,
                                  self.config))


class RandomSeat:
    """Uniform over legal cards; declares a uniformly random allowed contract with probability ``p_bid``."""

    def __init__(self, rng: np.random.Generator, rules: Ruleset, p_bid: float = 0.1):
        self.rng, self.rules, self.p_bid = rng, rules, p_bid

    def bid(self, hand, seat, info, t):
        if self.rng.random() >= self.p_bid:
            return PASS
        options = []
        for name in self.rules.contracts:
            kind = KIND_NAMES.index(name)
            if kind == RUFSPIEL:
                for s in (0, 1, 3):
                    side = [c for c in range(8 * s, 8 * s + 8) if hand >> c & 1 and c & 7 not in (3, 4)]
                    if side and not hand >> (8 * s + 7) & 1:
                        options.append(bid_code(0, s, False))
            elif kind in (2, 3):
                options.append(bid_code(kind, -1, False))
            else:
                options += [bid_code(kind, s, False) for s in range(4)]
        return int(options[self.rng.integers(len(options))]) if options else PASS

    def double(self, hand, seat, info, t):
        return 0

    def play(self, hand, legal, seat, info, t):
        cards = [c for c in range(32) if legal >> c & 1]
        return cards[self.rng.integers(len(cards))]


@dataclass
class DealResult:
    kind: int  # -1 passed
    declarer: int
    won: bool
    payouts: tuple


def play_deal_referee(rules: Ruleset, t, hands: list[int], seats: list) -> DealResult:
    """One whole deal: bidding, Kontra/Re, play with the referee checking every card."""
    info = np.zeros(INFO_SIZE, np.int64)
    info[I_HAND_SIZE] = rules.hand_size
    info[I_BIDS:I_BIDS + 4] = NOT_ASKED
    info[I_KIND] = info[I_SUIT] = info[I_DECLARER] = info[I_VARIANT] = -1
    info[I_KONTRA_SEAT] = info[I_RE_SEAT] = info[I_PARTNER_SHOWN] = -1
    info[I_TRICK:I_TRICK + 4] = -1
    info[I_PHASE] = PHASE_BID
    best, declarer = PASS, -1
    for s in range(4):
        code = seats[s].bid(hands[s], s, info, t)
        info[I_BIDS + s] = code
        if _bid_rank(code) > _bid_rank(best):
            best, declarer = code, s
    if best == PASS:
        return DealResult(-1, -1, False, (0, 0, 0, 0))
    kind, suit, tout = decode_bid(best)
    contract = Contract(kind, suit if suit >= 0 else None, tout)
    if not rules.allows(contract):
        raise ValueError(f"seat {declarer} declared a disabled contract {contract}")
    info[I_KIND], info[I_SUIT], info[I_TOUT], info[I_DECLARER] = kind, suit, int(tout), declarer
    info[I_VARIANT] = variant_index(contract)
    partner = -1
    if kind == RUFSPIEL:
        partner = next(s for s in range(4) if hands[s] >> (8 * suit + 7) & 1)
    # Kontra by the first defender who wants it, then Re by the declarer (or the partner)
    info[I_PHASE] = PHASE_DOUBLE
    doublings = 0
    if rules.max_doublings >= 1:
        for s in range(4):
            if s != declarer and s != partner and seats[s].double(hands[s], s, info, t):
                doublings, info[I_KONTRA_SEAT] = 1, s
                break
        info[I_DOUBLINGS] = doublings
        if doublings and rules.max_doublings >= 2:
            askers = [declarer] + ([partner] if partner >= 0 and rules.re_by_partner else [])
            for s in askers:
                if seats[s].double(hands[s], s, info, t):
                    doublings, info[I_RE_SEAT] = 2, s
                    break
        info[I_DOUBLINGS] = doublings
    g = Game(rules, hands, contract, declarer, doublings=doublings)
    info[I_PHASE] = PHASE_PLAY
    held = list(hands)
    while not g.is_over:
        s = g.to_play
        legal = sum(1 << c for c in g.legal_cards())
        info[I_TRICK_NO] = len(g.tricks)
        info[I_LEADER] = g.leader
        info[I_N_IN_TRICK] = len(g.current)
        info[I_TRICK:I_TRICK + 4] = -1
        for k, c in enumerate(g.current):
            info[I_TRICK + k] = c
        c = seats[s].play(held[s], legal, s, info, t)
        if not legal >> c & 1:
            raise ValueError(f"seat {s} played an illegal card {c} (legal {legal:#x})")
        n_before = len(g.tricks)
        g.play(c)
        held[s] &= ~(1 << c)
        info[I_PLAYED] |= 1 << c
        info[I_PLAYED_BY + s] |= 1 << c
        if kind == RUFSPIEL and c == 8 * suit + 7:
            info[I_PARTNER_SHOWN] = s
        if len(g.tricks) > n_before:
            leader, cards, winner = g.tricks[-1]
            k = len(g.tricks) - 1
            info[I_HISTORY_LEADER + k] = leader
            info[I_HISTORY_WINNER + k] = winner
            for j, cc in enumerate(cards):
                info[I_HISTORY_CARDS + 4 * k + j] = cc
            info[I_POINTS + winner] += sum((0, 0, 0, 2, 3, 4, 10, 11)[cc & 7] for cc in cards)
            info[I_TRICKS_WON + winner] += 1
            info[I_SEARCHED] = int(g.searched)
    r = g.result()
    return DealResult(kind, declarer, bool(r.won), tuple(r.payouts))


def deal_hands(rng: np.random.Generator, rules: Ruleset) -> list[int]:
    t = build_tables(rules)
    cards = [c for c in range(32) if t.deck_mask >> c & 1]
    perm = rng.permutation(cards)
    n = rules.hand_size
    return [int(sum(1 << int(c) for c in perm[n * s:n * s + n])) for s in range(4)]


def referee_duplicate(n: int, seed: int, rules: Ruleset | None = None, config=None):
    """Per-deal heuristic-side payout (sum of both plays) over ``n`` duplicate deals, referee back end."""
    rules = rules or Ruleset()
    t = build_tables(rules)
    rng = np.random.default_rng(seed)
    h = HeuristicSeat(config)
    r = RandomSeat(rng, rules)
    out = np.zeros(n)
    for i in range(n):
        hands = deal_hands(rng, rules)
        a = play_deal_referee(rules, t, hands, [h, r, h, r])
        b = play_deal_referee(rules, t, hands, [r, h, r, h])
        out[i] = a.payouts[0] + a.payouts[2] + b.payouts[1] + b.payouts[3]
    return out


def referee_all_heuristic(n: int, seed: int, rules: Ruleset | None = None, config=None):
    rules = rules or Ruleset()
    t = build_tables(rules)
    rng = np.random.default_rng(seed)
    h = HeuristicSeat(config)
    kinds, won = np.zeros(n, np.int64), np.zeros(n, bool)
    for i in range(n):
        d = play_deal_referee(rules, t, deal_hands(rng, rules), [h, h, h, h])
        kinds[i], won[i] = d.kind, d.won
    return kinds, won


# ------------------------------------------------------------------------------------------ kernel back end


def kernel_available() -> bool:
    try:
        from simkit.engine.game import play_games  # noqa: F401
    except ImportError:
        return False
    return True


def kernel_duplicate(n: int, seed: int, rules: Ruleset | None = None, side="heuristic", other="random",
                     chunk: int = 250_000):
    """Per-deal payout of ``side`` (sum of both plays) over ``n`` duplicate deals against ``other``, kernel back
    end (simkit.match, the API behind `simkit match`); the sides are strategy names or
    :class:`simkit.strategies.Strategy` objects. Played ``chunk`` deals at a time (memory); the result does not
    depend on it."""
    from simkit.match.duplicate import play_both_seatings

    out = [play_both_seatings(side, other, seed, start, min(chunk, n - start), rules)["a_payout"].sum(axis=1)
           for start in range(0, n, chunk)]
    return np.concatenate(out).astype(np.float64) if out else np.zeros(0)


def kernel_all_heuristic(n: int, seed: int, rules: Ruleset | None = None):
    from simkit.engine.game import play_games

    r = play_games(seed, 0, n, ruleset=rules, seats=("heuristic",) * 4)
    return np.asarray(r["kind"]), np.asarray(r["won"]).astype(bool)


# ------------------------------------------------------------------------------------------ statistics


def mean_ci(x: np.ndarray) -> tuple[float, float, float]:
    """Mean and the normal 95% confidence interval of the mean."""
    from simkit.stats import mean_interval_of

    return mean_interval_of(x)


def contract_stats(kinds: np.ndarray, won: np.ndarray) -> dict:
    n = len(kinds)
    out = {"deals": n, "passed_share": float(np.mean(kinds < 0)), "contracts": {}}
    played = kinds >= 0
    out["declarer_win_share"] = float(np.mean(won[played])) if played.any() else float("nan")
    for k, name in enumerate(KIND_NAMES):
        sel = kinds == k
        if sel.any():
            out["contracts"][name] = {"share": float(np.mean(sel)), "count": int(sel.sum()),
                                      "declarer_wins": float(np.mean(won[sel]))}
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--deals", type=float, default=2e5, help="duplicate deals (each played twice), e.g. 1e5")
    ap.add_argument("--heuristic-deals", type=float, default=None,
                    help="deals for the all-heuristic statistics (default: 2x --deals)")
    ap.add_argument("--seed", type=int, default=2024)
    ap.add_argument("--rules", default=None, help="ruleset preset or TOML file (default: stargames)")
    ap.add_argument("--backend", choices=("auto", "kernel", "referee"), default="auto")
    ap.add_argument("--json", action="store_true", help="print the figures as JSON")
    a = ap.parse_args(argv)
    rules = load_ruleset(a.rules)
    backend = a.backend
    if backend == "auto":
        backend = "kernel" if kernel_available() else "referee"
    n = int(a.deals)
    nh = int(a.heuristic_deals) if a.heuristic_deals else 2 * n
    t0 = time.perf_counter()
    if backend == "kernel":
        dup = kernel_duplicate(n, a.seed, rules)
        kinds, won = kernel_all_heuristic(nh, a.seed + 1, rules)
    else:
        dup = referee_duplicate(n, a.seed, rules)
        kinds, won = referee_all_heuristic(nh, a.seed + 1, rules)
    elapsed = time.perf_counter() - t0
    # per play of a deal: the heuristic side's two seats, averaged over the two seatings
    m, lo, hi = mean_ci(dup / 2)
    stats = contract_stats(kinds, won)
    report = {"backend": backend, "seed": a.seed, "duplicate_deals": n,
              "heuristic_side_mean_payout_per_deal": m, "ci95": [lo, hi], "all_heuristic": stats,
              "seconds": round(elapsed, 1)}
    if a.json:
        print(json.dumps(report, indent=2))
        return 0
    print(f"backend {backend}, seed {a.seed}, ruleset {rules.name}, {elapsed:.1f} s")
    print(f"duplicate match, {n} deals each played twice (heuristic on 0+2 vs random on 1+3, then swapped):")
    print(f"  heuristic side mean payout per deal (its two seats together): {m:+.3f}  "
          f"95% CI [{lo:+.3f}, {hi:+.3f}]")
    print(f"heuristic on all four seats, {nh} deals:")
    print(f"  passed deals: {stats['passed_share']:.1%}   declarers win {stats['declarer_win_share']:.1%} "
          f"of the games they choose")
    print(f"  {'contract':<10} {'share':>7} {'count':>8} {'declarer wins':>14}")
    for name, c in stats["contracts"].items():
        print(f"  {name:<10} {c['share']:>7.1%} {c['count']:>8} {c['declarer_wins']:>14.1%}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
