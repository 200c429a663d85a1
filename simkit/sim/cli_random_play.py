"""``simkit random-play``: random deals of one contract in the fused kernel pass :func:`simkit.engine.simulate_random`,
summed chunk by chunk (registered in simkit.cli). It lives here, with the other batches, rather than beside that
kernel because importing ``simkit.engine`` loads the kernels."""

from __future__ import annotations

import json
import time
from typing import Optional

import typer
from rich.table import Table

from simkit.cli_shared import RULES_HELP, Progress, UserError, bavarian, parse_count, stdout
from simkit.rules import load_ruleset


def register(app: typer.Typer) -> None:
    @app.command("random-play")
    def random_play(
        deals: str = typer.Option("1e6", "--deals", help="Number of deals: 1e6, 1000000, 1_000_000 or 1M."),
        contract: str = typer.Option("rufspiel", "--contract",
                                     help="rufspiel, solo, wenz, geier, farbwenz, farbgeier."),
        tout_share: float = typer.Option(0.0, "--tout-share", help="Share of solo-type deals played Tout (0..1)."),
        rules_spec: Optional[str] = typer.Option(None, "--rules", help=RULES_HELP),
        deck: Optional[str] = typer.Option(None, "--deck", help="long or short (default: the ruleset's deck)."),
        seed: int = typer.Option(0, "--seed", help="Run seed; deal i of a seed is the same on every machine."),
        as_json: bool = typer.Option(False, "--json", help="Print the summary as JSON."),
    ):
        """Play random deals of one contract in the Numba kernel and print a summary.

        Each deal gets a random declarer and suit (a Rufspiel declarer must be able to call an ace; a deal where no
        seat can is counted as not playable) and every card is chosen uniformly among the legal cards.
        """
        from simkit.engine import simulate_random
        from simkit.rules.contracts import CLASSIC_KIND_NAMES, KIND_NAMES, parse_kind

        n = parse_count(deals)
        kind = parse_kind(contract)
        if KIND_NAMES[kind] not in CLASSIC_KIND_NAMES:
            raise UserError(f"random-play plays the contracts of RULES.md 2.1 ({', '.join(CLASSIC_KIND_NAMES)}), "
                            f"not {KIND_NAMES[kind]}; simkit run --rules club plays the club rules")
        if not 0.0 <= tout_share <= 1.0:
            raise UserError(f"--tout-share must be between 0 and 1, not {tout_share}")
        if kind == 0 and tout_share > 0:
            raise UserError("a Rufspiel cannot be played Tout; --tout-share applies to solo-type contracts")
        rules_obj = bavarian(load_ruleset(rules_spec))
        if deck is not None:
            if deck not in ("long", "short"):
                raise UserError(f"--deck must be long or short, not {deck!r}")
            rules_obj = rules_obj.replace(deck=deck)

        totals = _RandomPlayTotals()
        chunk = 1_000_000
        simulate_random(seed, 0, 1, kind, rules_obj, tout_share)  # compile (or load from the cache) before timing
        t0 = time.perf_counter()
        with Progress(n, "random play") as advance:
            for start in range(0, n, chunk):
                m = min(chunk, n - start)
                totals.add(simulate_random(seed, start, m, kind, rules_obj, tout_share))
                advance(m)
        elapsed = time.perf_counter() - t0
        summary = totals.summary(n, elapsed, contract=contract, rules=rules_obj.name, deck=rules_obj.deck, seed=seed)
        if as_json:
            print(json.dumps(summary))
            return
        table = Table("", "", box=None, pad_edge=False, show_header=False)
        for k, v in summary.items():
            table.add_row(k.replace("_", " "), f"{v:.4f}" if isinstance(v, float) else str(v))
        stdout().print(table)


class _RandomPlayTotals:
    """Running sums over result chunks, so memory stays flat for any number of deals."""

    def __init__(self):
        self.played = self.won = self.points = self.schneider = self.schwarz = 0
        self.declarer_payout = 0

    def add(self, r: dict) -> None:
        import numpy as np

        ok = r["declarers"] >= 0
        self.played += int(ok.sum())
        self.won += int(r["won"][ok].sum())
        self.points += int(r["declarer_points"][ok].sum(dtype=np.int64))
        self.schneider += int(r["schneider"][ok].sum())
        self.schwarz += int(r["schwarz"][ok].sum())
        seats = r["declarers"][ok].astype(np.int64)
        self.declarer_payout += int(r["payouts"][ok][np.arange(len(seats)), seats].sum(dtype=np.int64))

    def summary(self, n: int, elapsed: float, **meta) -> dict:
        p = max(self.played, 1)
        return {
            **meta,
            "deals": n,
            "played": self.played,
            "deals_per_second": round(n / elapsed) if elapsed > 0 else None,
            "declarer_win_rate": self.won / p,
            "mean_declarer_points": self.points / p,
            "schneider_share": self.schneider / p,
            "schwarz_share": self.schwarz / p,
            "mean_payout_to_declarer": self.declarer_payout / p,
        }
