#!/usr/bin/env python
"""pimc in the Ramsch (docs/strategies.md, pimc's "Ramsch"; BENCHMARKS.md, "pimc in the Ramsch").

  nodes PRESET N LIMIT        solver nodes of the true position at every decision of N heuristic-played Ramsch
                              deals (seed 7), by cards in the mover's hand (LIMIT: a solve cut off counts as over)
  share PRESET N STRATEGY     pimc asked on the record path at every decision of the same deals: how many of its
                              worlds it solved within node_budget, and its time, by cards in hand
  duplicate PRESET SEED N A B duplicate match on N forced Ramsch deals (A on 0+2, then on 1+3; simkit.match's
                              scoring): A's pair's payout per deal with its 95% interval, A's share of the losers
  natural PRESET SEED N A B   the same on the deals among the first N of SEED that the bidding sends to a Ramsch
                              (knocks, Jungfrau, Durchmarsch as they come): `simkit match` restricted to them
  speed PRESET N FORCED ROUNDS S1 S2 ...
                              complete deals/s with S at every seat, the strategies interleaved; FORCED "ramsch"
                              or "-" (the ruleset's own bidding)
"""
import sys
import time
from collections import defaultdict

import numpy as np

from simkit.engine.game import play_games
from simkit.rules import Contract, load_ruleset
from simkit.rules.contracts import RAMSCH


def ramsch_deals(rules, n):
    return play_games(7, 0, n, rules, "heuristic", trace=True, contract="ramsch")


def nodes(preset, n, limit):
    from simkit.solver import Position, Workspace, solve
    from simkit.solver.api import SolverError

    rules = load_ruleset(preset)
    g = ramsch_deals(rules, int(n))
    ws = Workspace(table_bits=18)
    res = defaultdict(list)
    for i in range(int(n)):
        pos = Position.opening([int(h) for h in g["hands"][i]], Contract(RAMSCH), None, rules)
        for j, c in enumerate(int(c) for c in g["trace_played"][i]):
            if len(pos.legal_cards()) >= 2:
                try:
                    res[rules.hand_size - j // 4].append(solve(pos, "points", workspace=ws, node_limit=int(limit)).nodes)
                except SolverError:
                    res[rules.hand_size - j // 4].append(-1)
            pos = pos.after(c)
    for left in sorted(res, reverse=True):
        a = np.array(res[left])
        ok = a[a >= 0]
        print(f"{preset} cards={left} decisions={len(a)} over_limit={np.mean(a < 0):.3f} median={np.median(ok):.0f} "
              f"p90={np.percentile(ok, 90):.0f} max={ok.max()}")


def share(preset, n, name):
    from simkit.analyze.advice import walk
    from simkit.analyze.records import parse_game
    from simkit.cards import format_card
    from simkit.engine.batch import tables_for
    from simkit.reference import Game
    from simkit.strategies import pimc as P, resolve

    rules = load_ruleset(preset)
    n = int(n)
    g = ramsch_deals(rules, n)
    strat = resolve(name)
    t = tables_for(rules)
    config = np.ascontiguousarray(strat.config_for(rules), np.float64)
    stats = defaultdict(lambda: [0, 0, 0, 0.0])  # decisions, with a world solved, worlds, seconds
    for i in range(n):
        hands = [int(h) for h in g["hands"][i]]
        ref = Game(rules, hands, Contract(RAMSCH), None)
        tricks = []
        for tno in range(rules.hand_size):
            cards = [int(c) for c in g["trace_played"][i, 4 * tno:4 * tno + 4]]
            tricks.append({"leader": ref.to_play, "cards": [format_card(c) for c in cards]})
            for c in cards:
                ref.play(c)
        rec = {"id": f"r{i}", "deck": rules.deck, "contract": "ramsch", "declarer": None, "suit": None,
               "tout": False, "hands": [[format_card(c) for c in range(32) if h >> c & 1] for h in hands],
               "tricks": tricks}

        def ask(j, seat, hand, legal, info):
            legal = int(legal)
            if legal & (legal - 1) == 0:
                return (legal & -legal).bit_length() - 1
            t0 = time.perf_counter()
            c = strat.play(np.int64(hand), np.int64(legal), np.int64(seat), info, t.strength, t.eff_suit, t.params,
                           config)
            dt = time.perf_counter() - t0
            solved = int(P._python_context(t.strength, t.eff_suit, t.params)[1][P.PW_THR][16])
            s = stats[bin(int(hand)).count("1")]
            s[0] += 1
            s[1] += solved > 0
            s[2] += solved
            s[3] += dt
            return c

        walk(parse_game(rec, i + 1, rules), ask)
    total = [0, 0]
    for left in sorted(stats, reverse=True):
        d, sv, w, sec = stats[left]
        total[0] += d
        total[1] += sv
        print(f"{preset} {name} cards={left} decisions={d} with a world solved={sv / d:.3f} worlds={w / d:.2f} "
              f"ms={1000 * sec / d:.1f}")
    print(f"{preset} {name} all: decisions={total[0]} with a world solved={total[1] / total[0]:.3f}")


def duplicate(preset, seed, n, a, b):
    from simkit.stats import mean_interval

    rules = load_ruleset(preset)
    seed, n = int(seed), int(n)
    s = q = 0.0
    m = differ = losers = 0
    t0 = time.time()
    for start in range(0, n, 250):
        k = min(250, n - start)
        score = np.zeros(k)
        for seating, seats in enumerate(((a, b, a, b), (b, a, b, a))):
            g = play_games(seed, start, k, rules, seats, contract="ramsch")
            mine = [0, 2] if seating == 0 else [1, 3]
            score += np.asarray(g["payouts"], np.int64)[:, mine].sum(axis=1)
            losers += int(np.isin(np.asarray(g["declarer"]), mine).sum())
        score /= 2
        s += score.sum()
        q += (score ** 2).sum()
        m += k
        differ += int(np.count_nonzero(score))
    mean, lo, hi = (float(x[0]) for x in mean_interval(np.array([m]), np.array([s]), np.array([q])))
    print(f"{preset} seed={seed} deals={m} {a} - {b}: {mean:+.3f} per deal [{lo:+.3f}, {hi:+.3f}] differ={differ} "
          f"A's share of the losers (or Durchmarsch winners)={losers / (2 * m):.4f} ({time.time() - t0:.0f} s)")


def natural(preset, seed, n, a, b):
    """The duplicate match on the deals among the first N of SEED that the ruleset's bidding (the heuristic's, which
    pimc shares, knocks included) sends to a Ramsch: every other deal scores exactly 0 between two pimc configs
    that differ only in the Ramsch, so this is `simkit match` restricted to its Ramsch rows."""
    from simkit.stats import mean_interval

    rules = load_ruleset(preset)
    seed, n = int(seed), int(n)
    first = play_games(seed, 0, n, rules, "heuristic")
    deals = np.flatnonzero(np.asarray(first["kind"]) == RAMSCH)
    s = q = 0.0
    losers = 0
    t0 = time.time()
    for d in deals:
        score = 0.0
        for seating, seats in enumerate(((a, b, a, b), (b, a, b, a))):
            g = play_games(seed, int(d), 1, rules, seats)
            assert g["kind"][0] == RAMSCH, "the bidding is not the heuristic's"
            mine = [0, 2] if seating == 0 else [1, 3]
            score += float(np.asarray(g["payouts"], np.int64)[0, mine].sum())
            losers += int(g["declarer"][0] in mine)
        score /= 2
        s += score
        q += score ** 2
    m = len(deals)
    mean, lo, hi = (float(x[0]) for x in mean_interval(np.array([m]), np.array([s]), np.array([q])))
    print(f"{preset} seed={seed} Ramsch deals={m} of {n} {a} - {b}: {mean:+.3f} per Ramsch deal [{lo:+.3f}, {hi:+.3f}] "
          f"A's share of the losers={losers / (2 * m):.4f} ({time.time() - t0:.0f} s)")


def speed(preset, n, forced, rounds, *names):
    rules = load_ruleset(preset)
    n, rounds, forced = int(n), int(rounds), None if forced == "-" else forced
    for nm in names:  # compile, load
        play_games(99, 0, 2, rules, (nm,) * 4, contract=forced)
    t = dict.fromkeys(names, 0.0)
    ram = dict.fromkeys(names, 0)
    for r in range(rounds):
        for nm in names if r % 2 == 0 else names[::-1]:
            t0 = time.perf_counter()
            g = play_games(5, r * n, n, rules, (nm,) * 4, contract=forced)
            t[nm] += time.perf_counter() - t0
            ram[nm] += int((g["kind"] == RAMSCH).sum())
    for nm in names:
        print(f"{preset} forced={forced} {nm}: {n * rounds} deals ({ram[nm]} Ramsch) {n * rounds / t[nm]:.1f} deals/s "
              f"({t[names[0]] / t[nm]:.3f} of {names[0]})")


if __name__ == "__main__":
    commands = {"nodes": nodes, "share": share, "duplicate": duplicate, "natural": natural, "speed": speed}
    if len(sys.argv) < 2 or sys.argv[1] not in commands:
        sys.exit(__doc__)
    commands[sys.argv[1]](*sys.argv[2:])
