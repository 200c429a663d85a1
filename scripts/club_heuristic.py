"""Measure the heuristic's club-rule decisions (docs/heuristic.md, "Club rules"); rerun after changing them.

``klopfen``: plays heuristic deals (simkit.engine.game.play_games, the ruleset given, default ``sauspiel``), draws
for every seat the cards it would have seen when asked to knock (``klopfen_cards`` of its hand, at random as the
kernel does), fits the seat's payout (in Rufspiel base prices) by least squares on the features of those cards
(Rufspiel trumps, Ober, Unter, side aces, forehand), and prints the mean payout by fitted score: the heuristic's
``k_*`` weights are the fitted ones and ``th_klopfen`` the score from which the payout is comfortably positive.

``bettel``: plays Bettel deals with the heuristic at all four seats, here in plain Python (the rules of RULES.md
4.2: follow suit, else any card; optional Stichzwang), with the declarer a seat whose hand has a given Bettel
danger (heuristic.bettel_danger), and prints how often he wins by danger and by seat 0 (he leads the first trick)
or not, with the expected payout per Bettel price: the heuristic declares up to ``bettel_max_danger``.

``ramsch``: plays Ramsch deals (Rufspiel trumps, most card points lose, plain Python) with the heuristic at one
seat against three random players and at all four, and prints how often a seat loses.

    .venv/bin/python scripts/club_heuristic.py klopfen --deals 400000
    .venv/bin/python scripts/club_heuristic.py bettel --deals 200000
    .venv/bin/python scripts/club_heuristic.py ramsch --deals 20000
"""

from __future__ import annotations

import argparse
import math

import numpy as np

from simkit.cards import DECK_MASKS
from simkit.engine.deal import deal_batch
from simkit.rules.ruleset import load_ruleset
from simkit.rules.tables import V_BETTEL, V_RUFSPIEL, build_tables
from simkit.strategies import heuristic as h
from simkit.strategies.api import (
    I_BIDS, I_DECLARER, I_HISTORY_CARDS, I_HISTORY_LEADER, I_HISTORY_WINNER, I_KIND, I_LEADER, I_N_IN_TRICK,
    I_PARTNER_SHOWN, I_PHASE, I_PLAYED, I_PLAYED_BY, I_POINTS, I_RNG, I_SUIT, I_TRICK, I_TRICK_NO, I_TRICKS_WON,
    I_VARIANT, INFO_SIZE, NOT_ASKED, PHASE_PLAY,
)
from simkit.strategies.random_play import play as random_play

POINTS = (0, 0, 0, 2, 3, 4, 10, 11)


def _popcount(a: np.ndarray) -> np.ndarray:
    a = a.astype(np.uint64)
    c = np.zeros(a.shape, np.int64)
    for b in range(32):
        c += ((a >> np.uint64(b)) & np.uint64(1)).astype(np.int64)
    return c


def _seen(hands: np.ndarray, k: int, rng: np.random.Generator) -> np.ndarray:
    """``k`` random cards of every hand (uint32 masks), drawn uniformly."""
    bits = ((hands[..., None].astype(np.uint64) >> np.arange(32, dtype=np.uint64)) & np.uint64(1)).astype(bool)
    key = np.where(bits, rng.random(bits.shape), 2.0)  # the hand's cards in random order first
    pick = np.argsort(key, axis=-1)[..., :k]
    return np.bitwise_or.reduce(np.left_shift(np.uint64(1), pick.astype(np.uint64)), axis=-1).astype(np.uint32)


def klopfen(args) -> None:
    from simkit.engine.game import play_games

    rules = load_ruleset(args.rules)
    k = rules.knock_cards
    if args.classic:  # the ruleset's deck and tariff with the classic contracts only (what the kernel plays today)
        rules = load_ruleset(args.rules, klopfen=False, all_pass="throw-in", sie=False,
                             contracts=tuple(c for c in rules.contracts if c != "bettel"))
    t = build_tables(rules)
    base = rules.tariff.base_rufspiel
    rng = np.random.default_rng(args.seed)
    rows = play_games(args.seed, 0, args.deals, rules)
    hands = rows["hands"]
    pay = rows["payouts"].astype(np.float64) / base  # [n, 4] in Rufspiel base prices
    seen = _seen(hands, k, rng)
    deck = np.uint32(t.params[11])
    tm = np.uint32(0x18181818 | (0xFF << 16)) & deck
    tr = seen & tm
    feats = np.stack([_popcount(tr), _popcount(tr & np.uint32(0x10101010)), _popcount(tr & np.uint32(0x08080808)),
                      _popcount(seen & np.uint32(0x80808080) & ~tm),
                      np.broadcast_to((np.arange(4) == 0).astype(np.int64), seen.shape)], -1)
    names = ["k_trump", "k_ober", "k_unter", "k_ace", "k_forehand"]
    x = feats.reshape(-1, len(names)).astype(np.float64)
    y = pay.reshape(-1)
    a = np.column_stack([np.ones(len(x)), x])
    coef, *_ = np.linalg.lstsq(a, y, rcond=None)
    print(f"{args.rules}: {args.deals:,} deals, {k} cards seen; mean payout {y.mean():+.3f} base prices")
    print(f"fit: intercept {coef[0]:+.3f}  " + "  ".join(f"{n} {c:+.3f}" for n, c in zip(names, coef[1:])))
    cfg = h.DEFAULT_CONFIG
    w_cfg = np.array([cfg[h.C_K_TRUMP], cfg[h.C_K_OBER], cfg[h.C_K_UNTER], cfg[h.C_K_ACE], cfg[h.C_K_FOREHAND]])
    short = rules.deck != "long"
    th = cfg[h.C_TH_KLOPFEN_SHORT] if short else cfg[h.C_TH_KLOPFEN]
    for title, w in (("the fitted weights (rounded)", np.round(coef[1:], 2)), ("the config's weights", w_cfg)):
        score = x @ w
        print(f"by {title}: score | share of seats | mean payout | 95% interval | share with score >= it")
        for lo in np.round(np.arange(np.floor(score.min() * 4) / 4, score.max() + 0.25, 0.25), 2):
            sel = (score >= lo - 1e-9) & (score < lo + 0.25 - 1e-9)
            m = int(sel.sum())
            if m < 200:
                continue
            mu = y[sel].mean()
            se = y[sel].std() / math.sqrt(m)
            print(f"  [{lo:+.2f}, {lo + 0.25:+.2f})  {m / len(y):6.3f}  {mu:+.3f}  [{mu - 1.96 * se:+.3f}, "
                  f"{mu + 1.96 * se:+.3f}]  {np.mean(score >= lo - 1e-9):.3f}")
    kn = x @ w_cfg >= th - 1e-9
    if kn.any():
        print(f"the config (threshold {th}): knocks {kn.mean():.3f} of seats, their mean payout {y[kn].mean():+.3f} "
              f"base prices (95% +-{1.96 * y[kn].std() / math.sqrt(kn.sum()):.3f}); the others {y[~kn].mean():+.3f}; "
              f"deals with a knock {np.mean(kn.reshape(-1, 4).any(1)):.3f}")


# ------------------------------------------------------------------------------------------- card play


class Deal:
    """One deal played in plain Python with ``play(seat, hand, legal, info)`` choosing the cards."""

    def __init__(self, hands, kind, variant, declarer, tables, stichzwang=False):
        self.hands = [int(x) for x in hands]
        self.t = tables
        self.kind, self.v, self.decl, self.stichzwang = kind, variant, declarer, stichzwang
        self.info = np.zeros(INFO_SIZE, np.int64)
        info = self.info
        info[I_BIDS:I_BIDS + 4] = NOT_ASKED
        info[I_PHASE] = PHASE_PLAY
        info[I_KIND], info[I_SUIT], info[I_DECLARER], info[I_VARIANT] = kind, -1, declarer, variant
        info[I_PARTNER_SHOWN] = -1

    def eff(self, c):
        return int(self.t.eff_suit[self.v, c])

    def strength(self, c):
        return int(self.t.strength[self.v, c])

    def legal(self, hand, trick):
        if not trick:
            return hand
        e = self.eff(trick[0])
        same = sum(1 << c for c in range(32) if (hand >> c) & 1 and self.eff(c) == e)
        if not same:
            return hand
        if self.stichzwang:
            best = max(trick, key=lambda c: (self.eff(c) == e, self.strength(c)))
            over = sum(1 << c for c in range(32) if (same >> c) & 1 and self.strength(c) > self.strength(best))
            if over:
                return over
        return same

    def winner_index(self, trick):
        best = 0
        for k in range(1, len(trick)):
            a, b = trick[k], trick[best]
            if (self.eff(a) == self.eff(b) or self.eff(a) == 4) and self.strength(a) > self.strength(b):
                best = k
        return best

    def play(self, choosers, stop_when=None):
        """Play every trick; ``choosers[seat](hand, legal, seat, info)`` -> card. Returns (points, tricks)."""
        info = self.info
        leader = 0
        points = [0] * 4
        tricks = [0] * 4
        n_tricks = self.t.hand_size
        for tno in range(n_tricks):
            info[I_TRICK_NO] = tno
            info[I_LEADER] = leader
            info[I_TRICK:I_TRICK + 4] = -1
            info[I_HISTORY_LEADER + tno] = leader
            trick = []
            for k in range(4):
                seat = (leader + k) % 4
                info[I_N_IN_TRICK] = k
                legal = self.legal(self.hands[seat], trick)
                c = int(choosers[seat](self.hands[seat], legal, seat, info))
                assert (legal >> c) & 1, (seat, c, legal)
                self.hands[seat] &= ~(1 << c)
                trick.append(c)
                info[I_TRICK + k] = c
                info[I_HISTORY_CARDS + 4 * tno + k] = c
                info[I_PLAYED] |= 1 << c
                info[I_PLAYED_BY + seat] |= 1 << c
            w = (leader + self.winner_index(trick)) % 4
            info[I_HISTORY_WINNER + tno] = w
            points[w] += sum(POINTS[c & 7] for c in trick)
            tricks[w] += 1
            info[I_POINTS + w] = points[w]
            info[I_TRICKS_WON + w] = tricks[w]
            leader = w
            if stop_when is not None and stop_when(tricks):
                break
        return points, tricks


def _heuristic_chooser(t, config):
    def choose(hand, legal, seat, info):
        return h.play(np.int64(hand), np.int64(legal), seat, info, t.strength, t.eff_suit, t.params, config)
    return choose


def _random_chooser(t):
    cfg = np.zeros(3)

    def choose(hand, legal, seat, info):
        return random_play(np.int64(hand), np.int64(legal), seat, info, t.strength, t.eff_suit, t.params, cfg)
    return choose


def bettel(args) -> None:
    rules = load_ruleset(args.rules)
    t = build_tables(rules)
    deck = np.int64(DECK_MASKS[rules.deck])
    cfg = h.DEFAULT_CONFIG
    hands = deal_batch(args.seed, 0, args.deals, rules.deck)
    chooser = _heuristic_chooser(t, cfg)
    counts = {}  # (danger, forehand) -> [games, won]
    per_danger = {}
    for i in range(args.deals):
        for seat in range(4):
            d = int(h.bettel_danger(np.int64(hands[i, seat]), deck, t.strength))
            if d > args.max_danger:
                continue
            # cap the common dangers so that the rare safe hands get the time
            per_danger[d] = per_danger.get(d, 0) + 1
            if per_danger[d] > args.cap:
                continue
            game = Deal(hands[i], 6, V_BETTEL, seat, t, stichzwang=args.stichzwang)
            game.info[I_RNG] = i * 4 + seat + 1
            _, tricks = game.play([chooser] * 4, stop_when=lambda tr, s=seat: tr[s] > 0)
            c = counts.setdefault((d, seat == 0), [0, 0])
            c[0] += 1
            c[1] += tricks[seat] == 0
    print(f"{args.rules}: Bettel, heuristic at all seats, stichzwang {args.stichzwang}; {args.deals:,} deals")
    print("danger | declarer | hands in 4x deals | games | won | 95% interval | expected payout x price (x3)")
    total = 4 * args.deals
    for d in range(args.max_danger + 1):
        for fh in (True, False):
            g, w = counts.get((d, fh), (0, 0))
            if g == 0:
                continue
            p = w / g
            se = math.sqrt(p * (1 - p) / g)
            print(f"  {d}  {'seat 0 ' if fh else 'seat 1-3'}  {per_danger.get(d, 0) / total:.4f}  {g:6d}  {p:.3f}  "
                  f"[{p - 1.96 * se:.3f}, {p + 1.96 * se:.3f}]  {3 * (2 * p - 1):+.2f}")


def ramsch(args) -> None:
    rules = load_ruleset(args.rules)
    t = build_tables(rules)
    cfg = h.DEFAULT_CONFIG
    hands = deal_batch(args.seed, 0, args.deals, rules.deck)
    heur, rand = _heuristic_chooser(t, cfg), _random_chooser(t)
    lose = np.zeros((2, 4))
    pts = np.zeros((2, 4))
    marsch = np.zeros(2)
    for i in range(args.deals):
        for mode, choosers in enumerate(([heur, rand, rand, rand], [heur] * 4)):
            game = Deal(hands[i], 8, V_RUFSPIEL, -1, t)
            game.info[I_RNG] = i + 1
            points, tricks = game.play(choosers)
            top = max(points)
            losers = [s for s in range(4) if points[s] == top]
            for s in losers:  # ties shared (the tie rule does not matter for the comparison)
                lose[mode, s] += 1 / len(losers)
            pts[mode] += points
            marsch[mode] += max(tricks) == t.hand_size
    n = args.deals
    print(f"{args.rules}: Ramsch, {n:,} deals (a tie shares the loss)")
    print(f"  heuristic at seat 0, random at 1-3: seat 0 loses {lose[0, 0] / n:.3f} (a random seat "
          f"{lose[0, 1:].mean() / n:.3f}); card points {pts[0, 0] / n:.1f} vs {pts[0, 1:].mean() / n:.1f}; "
          f"a player took every trick in {marsch[0] / n:.4f} of the deals")
    print(f"  heuristic at all seats: loses by seat {np.round(lose[1] / n, 3).tolist()}, card points "
          f"{np.round(pts[1] / n, 1).tolist()}; every trick to one player in {marsch[1] / n:.4f} of the deals")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="what", required=True)
    k = sub.add_parser("klopfen")
    k.add_argument("--rules", default="sauspiel")
    k.add_argument("--deals", type=int, default=400_000)
    k.add_argument("--seed", type=int, default=36)
    k.add_argument("--classic", action="store_true", help="play the ruleset without Klopfen, Bettel, Sie, Ramsch")
    b = sub.add_parser("bettel")
    b.add_argument("--rules", default="club")
    b.add_argument("--deals", type=int, default=200_000)
    b.add_argument("--seed", type=int, default=36)
    b.add_argument("--max-danger", type=int, default=3)
    b.add_argument("--cap", type=int, default=3000, help="at most this many games per danger")
    b.add_argument("--stichzwang", action="store_true")
    r = sub.add_parser("ramsch")
    r.add_argument("--rules", default="club")
    r.add_argument("--deals", type=int, default=20_000)
    r.add_argument("--seed", type=int, default=36)
    args = ap.parse_args()
    {"klopfen": klopfen, "bettel": bettel, "ramsch": ramsch}[args.what](args)


if __name__ == "__main__":
    main()
