"""``simkit evaluate``: the command-line face of :func:`simkit.evaluate.evaluate` (registered in simkit.cli)."""

from __future__ import annotations

import json
from typing import List, Optional

import typer
from rich.table import Table

from simkit.cli_shared import RULES_HELP, Progress, UserError, bavarian, parse_count, prepare_values, stdout


def register(app: typer.Typer) -> None:
    @app.command("evaluate")
    def evaluate_cmd(
        hand: List[str] = typer.Argument(..., help='The hand in card notation: "EO GO HU HA HZ H9 SA S7" (quoted, '
                                                   'or as separate words); 8 cards, 6 with the short deck.'),
        seat: int = typer.Option(0, "--seat", help="The hand's seat: 0 is forehand (bids first, leads the first "
                                                   "trick), 3 the dealer."),
        rules_spec: Optional[str] = typer.Option(None, "--rules", help=RULES_HELP),
        deals: str = typer.Option("10000", "--deals", help="Sampled deals of the other cards: 1e4, 10k."),
        play: str = typer.Option("heuristic", "--play",
                                 help="How the deals are played: a strategy (at all four seats; see `simkit "
                                      "strategies`) or dd (every hand open, the solver's payout value: an upper "
                                      "bound)."),
        seed: int = typer.Option(0, "--seed", help="The same seed samples the same deals."),
        stock: int = typer.Option(0, "--stock", help='With all_pass = "stock": the stock before the deal (an even '
                                                     'amount; a Rufspiel won takes it, a lost one doubles it).'),
        workers: Optional[int] = typer.Option(None, "--workers", help="Worker processes (default: all cores)."),
        as_json: bool = typer.Option(False, "--json", help="Print the result as one JSON object on stdout."),
    ):
        """What is this hand worth? Every declaration it may make, and passing, played on the same sampled deals.

        Prints per option the win probability, the Schneider and Schwarz shares and the mean payout to the hand's
        seat (tariff units per deal), with 95% intervals, and the recommendation with the interval of its paired
        difference to the runner-up.
        """
        from simkit.evaluate.api import EvaluateError, evaluate_hand, to_json
        from simkit.rules import load_ruleset

        rules = bavarian(load_ruleset(rules_spec))
        n = parse_count(deals)
        if seat not in range(4):
            raise UserError(f"--seat must be 0, 1, 2 or 3 (0 leads the first trick), not {seat}")
        if workers is not None and workers < 1:
            raise UserError("--workers must be at least 1")
        text = " ".join(hand)
        try:
            if play != "dd":
                prepare_values([play] * 4, rules)
            with Progress(n, "deals") as advance:
                res = evaluate_hand(text, seat=seat, rules=rules, deals=n, play=play, seed=seed, workers=workers,
                                    progress=advance, stock=stock)
        except EvaluateError as e:
            raise UserError(str(e)) from None
        if as_json:
            print(json.dumps(to_json(res)))
            return
        _print(res, stdout())


def _share(x: float, lo: float, hi: float) -> str:
    return f"{x:6.1%} [{lo:.1%}, {hi:.1%}]"


def _print(res, console) -> None:
    a = res.attrs
    how = "double dummy (every hand open, no doublings; an upper bound)" if a["play"] == "dd" else \
        f"{a['play']} at every seat"
    console.print(f"hand {a['hand']} at seat {a['seat']}; {a['deals']:,} sampled deals, played {how}; ruleset "
                  f"{a['rules']}, seed {a['seed']}")
    t = Table("declaration", "win [95%]", "payout [95%]", "schneider", "schwarz", "", box=None, pad_edge=False)
    for r in res.rows:
        t.add_row(r["declaration"], _share(r["win"], r["win_low"], r["win_high"]),
                  f"{r['payout']:+8.2f} [{r['payout_low']:+.2f}, {r['payout_high']:+.2f}]", f"{r['schneider']:.1%}",
                  f"{r['schwarz']:.1%}", "recommended" if r["recommended"] else "")
    console.print(t)
    if "all_pass" in a:  # the club rules: what the figures assume
        console.print(_club_line(a))
    if a["runner_up"] is not None:
        d, lo, hi = a["difference"], a["difference_low"], a["difference_high"]
        sure = "clearly" if lo > 0 else "not clearly (the interval includes 0)"
        console.print(f"recommended: {a['recommendation']}, {sure} ahead of {a['runner_up']}: {d:+.2f} per deal, "
                      f"95% interval [{lo:+.2f}, {hi:+.2f}] (paired, same deals)")


def _club_line(a) -> str:
    """What an evaluation under the club rules assumes: the knocks and what passing is."""
    if a["play"] == "dd":
        knocks = "dd values every deal without knocks"
    elif a["klopfen"]:
        knocks = (f"Klopfen as the strategy decides at every seat, the same knocks for every option of a deal: "
                  f"{a['knocks']:.2f} knocks a deal, stakes x{a['multiplier']:.2f} on average (in the payouts)")
    else:
        knocks = "no Klopfen"
    passing = {"ramsch": f"pass: a Ramsch when the others pass too ({a['ramsch']:.1%} of the deals)",
               "stock": f"pass: each seat pays into the stock when the others pass too (stock before the deal: "
                        f"{a['stock']})",
               "throw-in": "pass: thrown in when the others pass too"}[a["all_pass"]]
    return f"{knocks}; {passing}"
