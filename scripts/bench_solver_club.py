#!/usr/bin/env python
"""The solver on random Bettel and Ramsch openings (docs/solver.md, "Club contracts: speed"): nodes and time of the
opening value (a fresh table generation each) and, on a quarter of them, of every card's value.

Usage: scripts/bench_solver_club.py [N] [long,short] [bettel,ramsch]
"""
import random, statistics, time, sys
from simkit.cards import DECK_MASKS, HAND_SIZE, cards_of
from simkit.rules import Contract, load_ruleset
from simkit.rules.contracts import BETTEL, RAMSCH
from simkit.solver import Position, Workspace, solve, position_value
import dataclasses

ws = Workspace()
position_value(Position.opening([sum(1 << c for c in range(8*i, 8*i+8)) for i in range(4)], Contract(BETTEL, None), 0, load_ruleset("club")), "win", workspace=ws)
n = int(sys.argv[1]) if len(sys.argv) > 1 else 200
decks = sys.argv[2].split(",") if len(sys.argv) > 2 else ["long", "short"]
kinds = sys.argv[3].split(",") if len(sys.argv) > 3 else ["bettel", "ramsch"]
for deck, preset in [(d, {"long": "club", "short": "club-short"}[d]) for d in decks]:
    for kind, obj in [(k, o) for k, o, nm in ((BETTEL, "win", "bettel"), (RAMSCH, "points", "ramsch")) if nm in kinds]:
        for stich in ((False, True) if kind == BETTEL else (False,)):
            r = load_ruleset(preset)
            r = r.replace(bettel=dataclasses.replace(r.bettel, stichzwang=stich))
            rng = random.Random(f"{deck}{kind}{stich}")
            nodes, secs, vals, cnodes, csecs = [], [], [], [], []
            for i in range(n):
                cards = cards_of(DECK_MASKS[deck]); rng.shuffle(cards); hs = HAND_SIZE[deck]
                hands = [sum(1 << c for c in cards[j*hs:(j+1)*hs]) for j in range(4)]
                pos = Position.opening(hands, Contract(kind, None), None if kind == RAMSCH else rng.randrange(4), r)
                ws.clear(); t = time.perf_counter()
                v = position_value(pos, obj, workspace=ws)
                secs.append(time.perf_counter() - t); nodes.append(ws.nodes); vals.append(v)
                if i < n // 4:  # every card's value (solve) on a quarter of them
                    ws.clear(); t = time.perf_counter()
                    sol = solve(pos, obj, workspace=ws)
                    csecs.append(time.perf_counter() - t); cnodes.append(sol.nodes)
            name = {BETTEL: "bettel" + (" stichzwang" if stich else ""), RAMSCH: "ramsch"}[kind]
            print(f"{deck:5} {name:18} n={n} value: median nodes {statistics.median(nodes):,.0f} mean {statistics.mean(nodes):,.0f} max {max(nodes):,} | ms median {1000*statistics.median(secs):.1f} mean {1000*statistics.mean(secs):.1f} max {1000*max(secs):.0f} | mean value {statistics.mean(vals):.3f} || cards (n={len(cnodes)}): median nodes {statistics.median(cnodes):,.0f}, ms median {1000*statistics.median(csecs):.1f} mean {1000*statistics.mean(csecs):.1f}", flush=True)
