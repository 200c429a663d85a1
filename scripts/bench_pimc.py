"""pimc benchmark (``scripts/bench.py pimc``): how fast and how strong the Monte Carlo player is.

* speed: complete deals per second on one core (deal, bids, Kontra/Re, every card, scoring) with pimc at every
  seat and with one side pimc, both decks, at the default config;
* where the time goes: per trick, the milliseconds per decision, worlds solved per decision and nodes per world
  (decisions of games pimc played, asked again through the record path with the same workspace);
* strength: duplicate matches (`simkit match`) of pimc against the heuristic on both decks, and on the long deck a
  few worlds settings against their speed.
"""

from __future__ import annotations

import time
from collections import defaultdict

import numpy as np

SEED = 2026


#: timed runs of the same deals per speed row; the best counts (the host is shared: a run can only be slowed)
SPEED_REPEATS = 2


def deals_per_second(preset: str, seats, n: int, repeats: int = SPEED_REPEATS) -> float:
    """Deals/s of ``n`` deals (the same ones each time), the best of ``repeats`` timed runs."""
    from bench import best_rate

    from simkit.engine.game import play_games

    play_games(SEED, 0, 2, preset, seats=seats)  # compile / load
    return best_rate(lambda: play_games(SEED, 10_000, n, preset, seats=seats), n, repeats)


def profile(preset: str, games: int) -> list[dict]:
    """Per trick: decisions asked (more than one legal card), ms per decision, worlds solved, nodes per world."""
    from simkit.analyze.advice import walk
    from simkit.analyze.records import parse_game
    from simkit.engine.batch import tables_for
    from simkit.engine.game import play_games
    from simkit.rules import load_ruleset
    from simkit.solver.search import ST_PLY
    from simkit.strategies import heuristic, pimc, resolve

    sys_path_tests()
    from test_analyze import record_of

    rules = load_ruleset(preset)
    strat = resolve("pimc")
    config = strat.config_for(rules)  # as the kernel has it (with the value table)
    g = play_games(SEED, 0, games, rules, seats=strat, trace=True)
    t = tables_for(rules)
    _, pw = pimc._python_context(t.strength, t.eff_suit, t.params)  # the workspace pimc.play uses
    stats = pw[pimc.PW_STATS]
    acc = defaultdict(lambda: np.zeros(4))
    for j in range(games):
        if g["kind"][j] < 0:
            continue
        row = {k: g[k][j] for k in ("deal_id", "kind", "suit", "tout", "declarer", "hands", "kontra_seat", "re_seat")}
        game = parse_game(record_of(row, rules, g["trace_played"][j]), j + 1, rules)

        def ask(i, seat, hand, legal, info):
            if legal & (legal - 1) == 0:
                return game.plays[i]
            hc = int(heuristic.play(np.int64(hand), np.int64(legal), np.int64(seat), info, t.strength, t.eff_suit,
                                    t.params, config))
            n0 = int(stats[ST_PLY:].sum())
            t0 = time.perf_counter()
            pimc.decide(np.int64(hand), np.int64(legal), np.int64(seat), info, t.strength, t.eff_suit, t.params,
                        config, np.int64(hc), t.suit_mask, t.laufende_order, t.n_trumps, t.lauf_min, t.base_price, t.points,
                        pw)
            a = acc[i // 4]
            a += (1, time.perf_counter() - t0, pw[pimc.PW_THR][16], int(stats[ST_PLY:].sum()) - n0)
            return game.plays[i]

        walk(game, ask)
    out = []
    for trick in sorted(acc):
        n, sec, worlds, nodes = acc[trick]
        out.append({"trick": trick + 1, "decisions": int(n), "ms": 1000 * sec / n, "worlds": worlds / n,
                    "nodes_per_world": nodes / max(worlds, 1)})
    return out


def sys_path_tests():
    import sys
    from pathlib import Path

    p = str(Path(__file__).resolve().parent.parent / "tests")
    if p not in sys.path:
        sys.path.insert(0, p)


def strength(a: str, b: str, preset: str, deals: int, workers: int) -> dict:
    from simkit.match.api import match

    r = match([a, b], deals, preset, seed=SEED, workers=workers)
    p = r.pairs[0]
    return {"a": a, "b": b, "preset": preset, "deals": deals, "mean": p.mean, "low": p.ci_low, "high": p.ci_high,
            "seconds": r.seconds}


SETTINGS = ("pimc[worlds=4,node_budget=15000]", "pimc", "pimc[worlds=24,node_budget=80000]")


def run_all(deals: int, speed_deals: int, profile_games: int, workers: int) -> dict:
    import os

    out = {"speed": [], "profile": {}, "strength": [], "settings": [], "load": [os.getloadavg()[0]]}
    for preset in ("sauspiel", "sauspiel-short"):
        for label, seats in (("pimc at every seat", "pimc"), ("pimc on seats 0 and 2", "pimc,heuristic,pimc,heuristic"),
                             ("heuristic at every seat", "heuristic")):
            n = speed_deals * (50 if label.startswith("heuristic") else 1)
            out["speed"].append((preset, label, deals_per_second(preset, seats, n)))
            print(out["speed"][-1], flush=True)
        out["profile"][preset] = profile(preset, profile_games)
        out["strength"].append(strength("pimc", "heuristic", preset, deals, workers))
        print(out["strength"][-1], flush=True)
    for spec in SETTINGS:
        match = out["strength"][0] if spec == "pimc" else strength(spec, "heuristic", "sauspiel", deals, workers)
        rate = out["speed"][0][2] if spec == "pimc" else deals_per_second("sauspiel", spec, speed_deals)
        out["settings"].append((spec, rate, match))
        print(out["settings"][-1], flush=True)
    out["load"].append(os.getloadavg()[0])
    return out


def markdown(res: dict, machine: str, workers: int, deals: int) -> str:
    lines = [
        "## pimc: the Monte Carlo player's speed and strength",
        "",
        f"{machine}; load average {res['load'][0]:.1f} at the start, {res['load'][1]:.1f} at the end (2 would be "
        "both cores busy with this benchmark alone). `scripts/bench.py pimc` (scripts/bench_pimc.py). Default "
        "config (where the ruleset has people weights with best-card weights, as both rulesets here): 16 worlds, "
        "a budget of 35,000 solver nodes per decision (twice that for a lead and for a card that follows in the "
        "first trick of exact points, 1.5 x for one that follows in the trick before it), twice the worlds for a "
        "searched lead, the best-card weights' card unsearched in the first trick and on leads with six or more "
        "cards in hand and as the tie-break, payout levels in the second trick and from the third exact card "
        "points with a point worth one base price, "
        "inference by the people model with 16 candidates a world, the worlds drawn most often solved first; with "
        "five cards or fewer in hand twice the worlds (three or fewer: four times), 8 candidates each "
        "(docs/strategies.md). Rulesets `sauspiel` (long "
        "deck) and `sauspiel-short`.",
        "",
        f"Speed: complete deals per second on one core (bids, Kontra/Re, every card, scoring; the same deals timed "
        f"{SPEED_REPEATS} times, the best run counts).",
        "",
        "| deck | seats | deals/s per core |",
        "|---|---|---:|",
    ]
    for preset, label, rate in res["speed"]:
        lines.append(f"| {preset} | {label} | {rate:,.1f} |")
    for preset, rows in res["profile"].items():
        lines += ["", f"Where the time goes ({preset}, pimc at every seat; decisions with more than one legal card):",
                  "", "| trick | decisions | ms per decision | worlds solved | nodes per world |",
                  "|---:|---:|---:|---:|---:|"]
        for r in rows:
            lines.append(f"| {r['trick']} | {r['decisions']} | {r['ms']:.2f} | {r['worlds']:.1f} | "
                         f"{r['nodes_per_world']:,.0f} |")
    lines += ["", f"Strength: `simkit match A heuristic --deals {deals} --seed {SEED} --workers {workers}` (A's seat "
              "pair's mean payout per deal and seat pair against the heuristic, tariff units, 95% interval).", "",
              "| A | ruleset | mean | 95% interval | match wall time |", "|---|---|---:|---|---:|"]
    for r in res["strength"]:
        lines.append(f"| {r['a']} | {r['preset']} | {r['mean']:+.3f} | [{r['low']:+.3f}, {r['high']:+.3f}] | "
                     f"{r['seconds']:.0f} s |")
    lines += ["", "Strength against speed (long deck, `sauspiel`):", "",
              "| A | deals/s per core (A at every seat) | mean vs heuristic | 95% interval |", "|---|---:|---:|---|"]
    for spec, rate, r in res["settings"]:
        lines.append(f"| `{spec}` | {rate:.1f} | {r['mean']:+.3f} | [{r['low']:+.3f}, {r['high']:+.3f}] |")
    return "\n".join(lines) + "\n"
