#!/usr/bin/env python
"""Loss per unforced card of strategies on real games, over several advice seeds, by trick, lead and follow.

Issue 31's loss target is measured with ``simkit analyze GAMES --strategy S --advice-seed K``, which asks one seed.
pimc's loss moves by 0.02-0.04 from one seed to another. So compare strategies by the mean over several seeds, on
the same games, and with the same grading. This script does that.

    .venv/bin/python scripts/pimc_loss.py ../shared/real-games/sauspiel-20k.jsonl.gz --rules sauspiel \\
        --validation --grading analysis/loss-val-long pimc "pimc[lead_worlds=1]" --seeds 0 1 2 --workers 2

- **Grading.** The games are graded once, into ``--grading``: the double-dummy value of every legal card, as
  ``simkit analyze`` writes it to decisions.parquet. A later run with the same directory reuses it. A directory
  graded from other games or options is refused.
- **The games used.** Only the games of the ruleset's deck are kept. With ``--validation``, only the games of the
  people model's validation split are kept too: those ``simkit train people`` and ``simkit train best`` never fit,
  by their default seed 0 and fraction 0.2. ``--last N`` keeps the last N of them.
- **Output.** For each strategy it prints:
  - the loss for each seed, and their mean;
  - the mean over the seeds by trick, for leads (L) and for follows (F);
  - with ``--by-position``, by trick and position in the trick (0: the lead), next to the loss of the card the
    game's player played there (where a strategy falls behind the people who played the games);
  - with ``--by-role``, by contract and role (declarer, partner, defender), the same two figures and the card
    points the strategy gave away beyond the played cards, summed over the cards (a seed's worth, the mean over
    the seeds); ``--role-tricks 2,3`` counts the cards of tricks 2 and 3 only (which contracts and roles make a trick
    where the strategy trails the people);
  - the milliseconds of advice a game.

  ``--json FILE`` writes the same figures.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

CHUNK = 25  # games a job


def select_games(path: str, rules, validation: bool, last: int) -> list[str]:
    """The record lines of the games to measure: of the ruleset's deck, parsed without error, in file order."""
    from simkit.analyze.records import read_file
    from simkit.strategies.people.train import is_validation

    lines = []
    for _, game, _ in read_file(path, rules):
        if game is None or len(game.plays) != 4 * rules.hand_size:
            continue
        if validation and not is_validation(game.game_id, 0, 0.2):
            continue
        lines.append(json.dumps(game.record, separators=(",", ":")))
    return lines[-last:] if last > 0 else lines


def prepare_grading(games_path: str, rules, grading: Path, validation: bool, last: int, workers: int) -> Path:
    """The graded games' directory (``grading/analysis``), graded now unless it already is for the same choice."""
    from simkit.analyze.batch import analyze_file

    choice = {"games": str(Path(games_path).resolve()), "rules": rules.name, "validation": validation, "last": last}
    marker = grading / "selection.json"
    if marker.exists():
        if json.loads(marker.read_text()) != choice:
            raise SystemExit(f"pimc_loss.py: {grading} was graded for {marker.read_text().strip()}; "
                             "give another --grading")
        return grading / "analysis"
    lines = select_games(games_path, rules, validation, last)
    if not lines:
        raise SystemExit(f"pimc_loss.py: no {rules.name} games selected from {games_path}")
    grading.mkdir(parents=True, exist_ok=True)
    (grading / "games.jsonl").write_text("\n".join(lines) + "\n")
    print(f"grading {len(lines)} games into {grading} ...", file=sys.stderr, flush=True)
    analyze_file(grading / "games.jsonl", grading / "analysis", rules=rules, objective="points", workers=workers,
                 report=False, force=True)
    marker.write_text(json.dumps(choice) + "\n")  # last: a grading cut off is graded again
    return grading / "analysis"


def advise_chunk(spec: str, rules_name: str, lines: list[str], seed: int) -> list[tuple[str, list[int], float]]:
    """(game id, the strategy's card at each decision, seconds of advice) for each record line."""
    import dataclasses

    from simkit.analyze.advice import advise
    from simkit.analyze.records import parse_line
    from simkit.rules.ruleset import load_ruleset
    from simkit.strategies import resolve, value_table

    rules = load_ruleset(rules_name)
    strategy = resolve(spec)
    value_table.prepare([strategy], rules)
    out = []
    for n, text in enumerate(lines, 1):
        game, error = parse_line(text, n, rules)
        if game is None:
            raise SystemExit(f"pimc_loss.py: graded game {n} no longer parses: {error}")
        spent = [0.0]
        play = strategy.play

        def timed(*args):
            t0 = time.perf_counter()
            card = play(*args)
            spent[0] += time.perf_counter() - t0
            return card

        cards = advise(dataclasses.replace(strategy, play=timed), game, seed)
        out.append((game.game_id, cards, spent[0]))
    return out


def measure(spec: str, rules, analysis: Path, seeds: list[int], workers: int,
            role_tricks: list[int] | None = None) -> dict:
    """The strategy's loss per unforced card for each seed; averaged over the seeds, by (trick, lead), by (trick,
    position) and by (contract, role) over the tricks ``role_tricks`` (None: all); the seconds of advice a
    game."""
    import pyarrow.parquet as pq

    from simkit.cards import format_card
    from simkit.parallel import map_jobs

    decisions = pq.read_table(analysis / "decisions.parquet",
                              columns=["game_id", "trick", "position", "contract", "role", "forced", "values",
                                       "best_value", "loss"]).to_pylist()
    by_game: dict[str, list[dict]] = {}
    for row in decisions:
        by_game.setdefault(row["game_id"], []).append(row)
    lines = (analysis.parent / "games.jsonl").read_text().splitlines()
    chunks = [lines[i:i + CHUNK] for i in range(0, len(lines), CHUNK)]
    per_seed, seconds = [], 0.0
    # (trick, position, contract, role): [strategy's loss, played card's loss, cards]
    fine: dict[tuple[int, int, str, str], list] = {}
    for seed in seeds:
        total = count = 0.0
        for part in map_jobs(advise_chunk, [(spec, rules.name, c, seed) for c in chunks], workers):
            for game_id, cards, secs in part:
                rows = by_game[game_id]
                if len(rows) != len(cards):
                    raise SystemExit(f"pimc_loss.py: game {game_id} has {len(rows)} graded decisions, "
                                     f"{len(cards)} advised")
                seconds += secs
                for row, card in zip(rows, cards):
                    if row["forced"]:
                        continue
                    value = {v["card"]: v["value"] for v in row["values"]}[format_card(card)]
                    loss = abs(row["best_value"] - value)
                    total += loss
                    count += 1
                    cell = fine.setdefault((row["trick"], row["position"], row["contract"], row["role"]),
                                           [0.0, 0.0, 0])
                    cell[0] += loss
                    cell[1] += abs(row["loss"])
                    cell[2] += 1
        per_seed.append(total / count)
    fine = dict(sorted(fine.items()))  # by trick, then position: the order of the tables
    cells = _summed(fine, lambda t, p, c, r: (t, p))
    by_trick = _summed(fine, lambda t, p, c, r: ("L" if p == 0 else "F") + str(t))  # a trick's lead, its follows
    roles = _summed({k: v for k, v in fine.items() if role_tricks is None or k[0] in role_tricks},
                    lambda t, p, c, r: (c, r))
    return {"strategy": spec, "games": len(lines), "cards": int(count), "seeds": seeds, "loss": per_seed,
            "mean": sum(per_seed) / len(per_seed), "by_trick": {k: v[0] / v[2] for k, v in by_trick.items()},
            "by_position": {f"T{t}P{p}": {"loss": v[0] / v[2], "played": v[1] / v[2], "cards": v[2] // len(seeds)}
                            for (t, p), v in cells.items()},
            "by_role": {f"{c}/{r}": {"loss": v[0] / v[2], "played": v[1] / v[2], "cards": v[2] // len(seeds),
                                     "given_away": (v[0] - v[1]) / len(seeds)}
                        for (c, r), v in sorted(roles.items(), key=lambda kv: -kv[1][2])},
            "role_tricks": role_tricks,
            "ms_a_game": 1000 * seconds / (len(lines) * len(seeds))}


def _summed(fine: dict, key) -> dict:
    """The cells of ``fine`` summed by ``key(trick, position, contract, role)``."""
    out: dict = {}
    for k, (loss, played, n) in fine.items():
        cell = out.setdefault(key(*k), [0.0, 0.0, 0])
        cell[0] += loss
        cell[1] += played
        cell[2] += n
    return out


def format_by_role(cells: dict, tricks: list[int] | None) -> str:
    """The by-role figures as a table: a row a contract and role, most cards first."""
    which = "every trick" if tricks is None else "trick " + ", ".join(map(str, tricks))
    out = [f"  {'contract / role (' + which + ')':38s} {'cards':>6s}  {'loss / played':>15s}  {'given away':>10s}"]
    for key, c in cells.items():
        out.append(f"  {key:38s} {c['cards']:6d}  {c['loss']:6.2f} / {c['played']:5.2f}  {c['given_away']:+10.0f}")
    out.append("  (per unforced card; given away: the strategy's loss minus the played cards', summed, a seed)")
    return "\n".join(out)


def format_by_position(cells: dict) -> str:
    """The by-position figures as a table: a row a trick, a column a position (strategy / played card)."""
    tricks = sorted({int(k[1:k.index("P")]) for k in cells})
    out = ["  trick  " + "  ".join(f"{'lead' if p == 0 else f'position {p}':>15s}" for p in range(4))]
    for t in tricks:
        row = []
        for p in range(4):
            c = cells.get(f"T{t}P{p}")
            row.append(f"{c['loss']:6.2f} / {c['played']:5.2f}" if c else " " * 15)
        out.append(f"  {t:5d}  " + "  ".join(f"{x:>15s}" for x in row))
    out.append("  (the strategy's loss / the played card's, per unforced card)")
    return "\n".join(out)


def main(argv=None) -> int:
    from simkit.rules.ruleset import load_ruleset

    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("games", help="real games, one record a line (.jsonl or .jsonl.gz)")
    ap.add_argument("strategies", nargs="+", help="strategy specs, e.g. pimc or 'pimc[lead_worlds=1]'")
    ap.add_argument("--rules", default="sauspiel", help="ruleset; its deck chooses the games (default sauspiel)")
    ap.add_argument("--grading", required=True, type=Path, help="directory of the grading (made once, reused)")
    ap.add_argument("--validation", action="store_true", help="only the people model's validation games")
    ap.add_argument("--last", type=int, default=0, help="only the last N games selected (0: all)")
    ap.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2], help="advice seeds (default 0 1 2)")
    ap.add_argument("--workers", type=int, default=1, help="processes (default 1)")
    ap.add_argument("--by-position", action="store_true",
                    help="also print the loss by trick and position in the trick, next to the played card's")
    ap.add_argument("--by-role", action="store_true",
                    help="also print the loss by contract and role (of the cards of --role-tricks)")
    ap.add_argument("--role-tricks", metavar="T[,T...]",
                    help="--by-role: only the cards of these tricks, e.g. 2 or 2,3 (default: every trick)")
    ap.add_argument("--json", type=Path, help="also write the figures to this file")
    args = ap.parse_args(argv)
    if args.workers < 1 or args.last < 0:
        ap.error("--workers must be at least 1 and --last at least 0")
    role_tricks = None  # every trick
    if args.role_tricks is not None:
        try:
            role_tricks = sorted({int(t) for t in args.role_tricks.split(",")})
        except ValueError:
            ap.error(f"--role-tricks: {args.role_tricks!r} is not a list of tricks such as 2 or 2,3")
        if not all(1 <= t <= 8 for t in role_tricks):
            ap.error("--role-tricks: a trick is 1 to 8")
    from simkit.strategies import StrategyError, resolve

    try:
        for spec in args.strategies:
            resolve(spec)
        rules = load_ruleset(args.rules)
    except (StrategyError, ValueError, KeyError) as e:
        ap.error(str(e))
    analysis = prepare_grading(args.games, rules, args.grading, args.validation, args.last, args.workers)
    results = []
    for spec in args.strategies:
        r = measure(spec, rules, analysis, args.seeds, args.workers, role_tricks)
        results.append(r)
        cells = " ".join(f"{k}={v:.2f}" for k, v in r["by_trick"].items())
        seeds = " ".join(f"{x:.3f}" for x in r["loss"])
        print(f"{spec}: mean {r['mean']:.4f} (seeds {seeds}) over {r['cards']} cards of {r['games']} games; "
              f"{r['ms_a_game']:.1f} ms a game\n  {cells}", flush=True)
        if args.by_position:
            print(format_by_position(r["by_position"]), flush=True)
        if args.by_role:
            print(format_by_role(r["by_role"], role_tricks), flush=True)
    if args.json:
        args.json.write_text(json.dumps(results, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
