"""Measure the heuristic's club-rule decisions (docs/heuristic.md, "Club rules"); rerun after changing them.

``klopfen``: refits the heuristic's Klopfen on club self-play (docs/heuristic.md "Klopfen"). Plays heuristic deals
of a ruleset with Klopfen (default ``club``, ``play_games``), replays the cards each seat saw when asked to knock
exactly as the kernel draws them (and checks that the shipped rule gives the kernel's knocks), and, as no strategy
looks at knocks when it bids or plays, evaluates any knocking rule on the same deals: the payout without knocks
times 2^knocks. The ``k_*`` weights are a least-squares fit of that payout (in Rufspiel base prices) on the features
of the cards seen (Rufspiel trumps, Ober, Unter, side aces, forehand); ``th_klopfen`` and ``th_klopfen_raise`` (the
rise per earlier knock) come from iterated best responses: one seat's best pair against three seats playing the
last one, maximising the gain of its knocks (each doubles its stake, and the later seats see it) less ``--margin``
base prices a knock. Prints the rule's and the fit's knock rates, multiplier and payouts by score, with 95%
intervals. The weights are shared by the decks: fit the long deck, then the short deck's thresholds with
``--keep-weights``. Deterministic for a seed.

``bettel``: plays Bettel deals with the heuristic at all four seats, here in plain Python (the rules of RULES.md
4.2: follow suit, else any card; optional Stichzwang), with the declarer a seat whose hand has a given Bettel
danger (heuristic.bettel_danger), and prints how often he wins by danger and by seat 0 (he leads the first trick)
or not, with the expected payout per Bettel price: the heuristic declares up to ``bettel_max_danger``.

``ramsch``: plays Ramsch deals (Rufspiel trumps, most card points lose, plain Python) with the heuristic at one
seat against three random players and at all four, and prints how often a seat loses.

    .venv/bin/python scripts/club_heuristic.py klopfen --rules club --deals 400000
    .venv/bin/python scripts/club_heuristic.py klopfen --rules club-short --deals 400000 --keep-weights
    .venv/bin/python scripts/club_heuristic.py bettel --deals 200000
    .venv/bin/python scripts/club_heuristic.py ramsch --deals 20000
"""

from __future__ import annotations

import argparse
import math

import numpy as np

from numba import njit

from simkit.cards import DECK_MASKS
from simkit.engine.deal import deal_batch
from simkit.engine.rng import STREAM_KLOPFEN, next_u64, stream_state
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


@njit(cache=True)
def _kernel_seen(seed, hands, hs, m, subsets, n_subsets):
    """The cards each seat has seen when the whole-deal kernel asks it to knock (deals 0..n-1 of run ``seed``):
    the same draw from stream STREAM_KLOPFEN as simkit.engine.game (``_seen_cards``), so that a knocking policy
    replayed here on these cards gives the kernel's knocks (checked in :func:`klopfen`)."""
    n = hands.shape[0]
    out = np.zeros((n, 4), np.int64)
    for i in range(n):
        kx, st = next_u64(stream_state(seed, i, STREAM_KLOPFEN))
        ky, st = next_u64(st)
        for s in range(4):
            h32 = ((kx if s < 2 else ky) >> np.uint64(32 * (s & 1))) & np.uint64(0xFFFFFFFF)
            pos = subsets[hs, m, np.int64((h32 * np.uint64(n_subsets[hs, m])) >> np.uint64(32))]
            seen = np.int64(0)
            left = np.int64(hands[i, s])
            for _ in range(hs):
                low = left & -left
                seen |= low & -(pos & 1)
                pos >>= 1
                left ^= low
            out[i, s] = seen
    return out


K_NAMES = ("k_trump", "k_ober", "k_unter", "k_ace", "k_forehand")
NEVER = 99.0  # a threshold no score reaches


def _features(seen: np.ndarray, deck) -> np.ndarray:
    """float64[n, 4, 5]: the Klopfen features of the cards seen (as heuristic._klopfen counts them)."""
    tm = np.uint32(0x18181818 | (0xFF << 16)) & np.uint32(deck)
    tr = seen & tm
    return np.stack([_popcount(tr), _popcount(tr & np.uint32(0x10101010)), _popcount(tr & np.uint32(0x08080808)),
                     _popcount(seen & np.uint32(0x80808080) & ~tm),
                     np.broadcast_to((np.arange(4) == 0).astype(np.int64), seen.shape)], -1).astype(np.float64)


def _knocks(score, th, raise_, seat=None, forced=False):
    """Replay the knocking policy "knock when the score reaches th + raise_ x the earlier knocks" over the deals:
    (knocks bool[n, 4], earlier knocks each seat saw int[n, 4]); ``seat``, if given, knocks as ``forced`` says."""
    n = score.shape[0]
    k = np.zeros((n, 4), bool)
    seen_before = np.zeros((n, 4), np.int64)
    cnt = np.zeros(n, np.int64)
    for s in range(4):
        seen_before[:, s] = cnt
        k[:, s] = forced if s == seat else score[:, s] >= th + raise_ * cnt - 1e-9
        cnt += k[:, s]
    return k, seen_before


def _gains(score, y, th, raise_):
    """What knocking adds to each seat's payout, the others keeping the policy (th, raise_): a knock doubles the
    seat's stake and the later seats see it (they may then knock less). ``y`` is the payout without knocks (the
    play does not depend on knocks), so with O other knocks the seat gets y 2^(O+1) knocking, y 2^O' not.
    Returns (gain float[n, 4], earlier knocks int[n, 4])."""
    gain = np.zeros_like(y)
    before = np.zeros(y.shape, np.int64)
    for s in range(4):
        k1, before_s = _knocks(score, th, raise_, s, True)
        k0, _ = _knocks(score, th, raise_, s, False)
        gain[:, s] = y[:, s] * (2.0 ** k1.sum(1) - 2.0 ** k0.sum(1))
        before[:, s] = before_s[:, s]  # the knocks of the seats before s: the policy's, whatever s does
    return gain, before


def _best_response(score, y, th, raise_, margin):
    """The policy (threshold, raise) of one seat against three playing (th, raise_): the pair maximising the
    summed gain of its knocks less ``margin`` a knock (thresholds among the scores, raises on a 0.01 grid from
    0 to 6). Returns it and the regret of (th, raise_): what the best response gains over it, in base prices a
    seat and deal (0 at an equilibrium)."""
    gain, before = _gains(score, y, th, raise_)
    value = gain - margin

    def total(t, r):  # the summed value of a seat's knocks when it knocks by (t, r)
        return float(value[score >= t + r * before - 1e-9].sum()) if t != NEVER else 0.0

    first = before == 0
    s0, v0 = score[first], value[first]
    s1, v1, e1 = score[~first], value[~first], before[~first]
    best, best_total = (NEVER, 0.0), 0.0
    for t in np.unique(s0):
        f = float(v0[s0 >= t - 1e-9].sum())
        # a later seat knocks iff raise <= (score - t) / earlier knocks: sum its values by that bound in 0.01 steps
        bound = np.floor((s1 - t) / e1 * 100 + 1e-6).astype(np.int64)
        ok = bound >= 0
        by = np.bincount(np.minimum(bound[ok], 600), weights=v1[ok], minlength=601)
        g = np.cumsum(by[::-1])[::-1]  # g[r]: the value of the later knocks with raise r/100
        r = int(np.argmax(g))
        pair, tot = ((float(t), r / 100), f + g[r]) if g[r] > 0 else ((float(t), NEVER), f)
        if tot > best_total + 1e-9:
            best, best_total = pair, tot
    return best, (best_total - total(th, raise_)) / value.size


def _policy_figures(title, score, y, th, raise_):
    """Print what the policy (th, raise_) does: knock rates with 95% intervals, the stake, and per score bucket
    the mean payout of the seats that knocked and of those that did not, and the gain of the knocks made."""
    from simkit.stats import mean_interval_of, wilson

    k, before = _knocks(score, th, raise_)
    n = len(score)
    pay = y * 2.0 ** k.sum(1)[:, None]
    gain, _ = _gains(score, y, th, raise_)
    print(f"{title}: threshold {th:.2f}, raise per earlier knock {raise_:.2f}")
    rates = []
    for s in range(4):
        lo, hi = wilson(int(k[:, s].sum()), n)
        rates.append(f"seat {s} {k[:, s].mean():.3f} [{lo:.3f}, {hi:.3f}]")
    any_k = k.any(1)
    lo, hi = wilson(int(any_k.sum()), n)
    m, mlo, mhi = mean_interval_of(2.0 ** k.sum(1))
    print("  knock rate: " + ", ".join(rates))
    print(f"  deals with a knock {any_k.mean():.3f} [{lo:.3f}, {hi:.3f}]; knocks a deal {k.sum(1).mean():.3f}; "
          f"mean multiplier {m:.3f} [{mlo:.3f}, {mhi:.3f}]")
    if k.any():
        g, glo, ghi = mean_interval_of(gain[k])
        kp, kplo, kphi = mean_interval_of(pay[k])
        op, oplo, ophi = mean_interval_of(pay[~k])
        print(f"  a knock's gain (what it adds to the knocker's payout) {g:+.3f} [{glo:+.3f}, {ghi:+.3f}] base "
              f"prices; payout of a knocker {kp:+.3f} [{kplo:+.3f}, {kphi:+.3f}], of a non-knocker {op:+.3f} "
              f"[{oplo:+.3f}, {ophi:+.3f}]")
    print("  score | share of seats | knocked | payout knocker (95%) | payout non-knocker (95%) | gain if it "
          "knocked (95%)")
    for lo_ in np.round(np.arange(np.floor(score.min() * 4) / 4, score.max() + 0.25, 0.25), 2):
        sel = (score >= lo_ - 1e-9) & (score < lo_ + 0.25 - 1e-9)
        if sel.sum() < 2000:
            continue
        cells = []
        for part in (sel & k, sel & ~k):
            if part.sum() >= 100:
                mu, a, b = mean_interval_of(pay[part])
                cells.append(f"{mu:+.3f} [{a:+.3f}, {b:+.3f}]")
            else:
                cells.append("-")
        # the gain had the seat knocked in this bucket (its own decision replaced, the others' kept)
        gk = gain[sel]
        mu, a, b = mean_interval_of(gk)
        print(f"  [{lo_:+.2f}, {lo_ + 0.25:+.2f})  {sel.mean():6.3f}  {k[sel].mean():5.3f}  {cells[0]}  {cells[1]}  "
              f"{mu:+.3f} [{a:+.3f}, {b:+.3f}]")


def klopfen(args) -> None:
    """Refit the heuristic's Klopfen on club self-play (docs/heuristic.md "Klopfen")."""
    from simkit.engine import game
    from simkit.engine.game import play_games

    rules = load_ruleset(args.rules)
    if not rules.klopfen:
        raise SystemExit(f"ruleset {args.rules} has no Klopfen (klopfen = true): nothing to fit")
    t = build_tables(rules)
    base = rules.tariff.base_rufspiel
    short = rules.deck != "long"
    rows = play_games(args.seed, 0, args.deals, rules)  # the heuristic at every seat, as shipped
    n_knocks = _popcount(rows["knocked"])
    # the payout without knocks, in Rufspiel base prices: no strategy looks at knocks when bidding or playing
    # (the knocks only multiply the price), so this is what every knocking policy multiplies
    y = rows["payouts"].astype(np.float64) / (2.0 ** n_knocks)[:, None] / base
    seen = _kernel_seen(args.seed, rows["hands"], t.hand_size, rules.knock_cards, game._SUBSETS,
                        game._N_SUBSETS).astype(np.uint32)
    x = _features(seen, t.params[11])
    cfg = h.DEFAULT_CONFIG
    w_cfg = np.array([cfg[getattr(h, "C_" + nm.upper())] for nm in K_NAMES])
    th_cfg = cfg[h.C_TH_KLOPFEN_SHORT] if short else cfg[h.C_TH_KLOPFEN]
    raise_cfg = cfg[h.C_TH_KLOPFEN_RAISE_SHORT] if short else cfg[h.C_TH_KLOPFEN_RAISE]
    score_cfg = x @ w_cfg
    k_cfg, _ = _knocks(score_cfg, th_cfg, raise_cfg)
    same = np.mean((k_cfg * (1 << np.arange(4))).sum(1) == rows["knocked"])
    print(f"{args.rules}: {args.deals:,} deals of heuristic self-play (seed {args.seed}), {rules.knock_cards} cards "
          f"seen; the config's policy replayed here gives the kernel's knocks in {same:.4%} of the deals")
    if same != 1.0:
        raise SystemExit("the replayed knocks differ from the kernel's: the script no longer matches "
                         "heuristic._klopfen or the kernel's draw of the seen cards")
    # 1. the score: least squares of the payout without knocks on the features (whatever anybody knocks)
    a = np.column_stack([np.ones(4 * args.deals), x.reshape(-1, len(K_NAMES))])
    coef, *_ = np.linalg.lstsq(a, y.reshape(-1), rcond=None)
    print(f"fit of the payout without knocks (base prices): intercept {coef[0]:+.3f}  "
          + "  ".join(f"{nm} {c:+.3f}" for nm, c in zip(K_NAMES, coef[1:])))
    # the weights are shared by both decks (one set of k_* entries): fit them on the long deck, then the short
    # deck's thresholds with --keep-weights
    w = w_cfg if args.keep_weights else np.round(coef[1:], 2)
    score = np.round(x @ w, 2)  # what the heuristic computes from two-decimal weights, up to float noise
    # 2. the thresholds: iterate best responses, every seat playing the last one, until the policy repeats
    th, raise_ = 2.0, 0.0
    regrets = {}
    for it in range(args.iterations):
        new, regrets[(th, raise_)] = _best_response(score, y, th, raise_, args.margin)
        k, _ = _knocks(score, *new)
        print(f"  best response {it + 1} to ({th:.2f}, {raise_:.2f}) (its regret {regrets[(th, raise_)]:.4f} base "
              f"prices a seat and deal): ({new[0]:.2f}, {new[1]:.2f}), deals with a knock {k.any(1).mean():.3f}")
        if new == (th, raise_):
            break
        if new in regrets:  # a cycle (coarse scores): settle on the policy of the cycle least worth deviating from
            cycle = list(regrets)[list(regrets).index(new):]
            th, raise_ = min(cycle, key=lambda p: (regrets[p], p))
            print(f"  the best responses cycle; taking the one of least regret, ({th:.2f}, {raise_:.2f}) "
                  f"({regrets[(th, raise_)]:.4f})")
            break
        th, raise_ = new
    print(f"fitted (margin {args.margin} base prices a knock{', the config weights' if args.keep_weights else ''}): "
          + ", ".join(
        f"{nm} {v:.2f}" for nm, v in zip(K_NAMES, w)) + f", th_klopfen{'_short' if short else ''} {th:.2f}, "
          f"th_klopfen_raise{'_short' if short else ''} {raise_:.2f}")
    _policy_figures("the config's policy", score_cfg, y, th_cfg, raise_cfg)
    _policy_figures("the fitted policy", score, y, th, raise_)


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
    k.add_argument("--rules", default="club")
    k.add_argument("--deals", type=int, default=400_000)
    k.add_argument("--seed", type=int, default=36)
    k.add_argument("--margin", type=float, default=1.0,
                   help="the least expected gain, in Rufspiel base prices, a knock must bring (a risk premium)")
    k.add_argument("--iterations", type=int, default=20, help="best responses at most")
    k.add_argument("--keep-weights", action="store_true",
                   help="fit the thresholds on the config's k_* weights (the short deck: the weights are shared)")
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
