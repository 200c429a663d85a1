"""``simkit deal``: one deal of a run, as :func:`simkit.engine.deal` deals it and players sort it (registered in
simkit.cli). It lives here rather than beside the dealer because importing ``simkit.engine`` loads the kernels."""

from __future__ import annotations

from typing import Optional

import typer

from simkit.cli_shared import RULES_HELP, UserError, bavarian
from simkit.rules import load_ruleset


def register(app: typer.Typer) -> None:
    @app.command("deal")
    def deal_cmd(
        seed: int = typer.Option(..., "--seed", help="Run seed."),
        index: int = typer.Option(..., "--index", help="Deal index within the run (0, 1, 2, ...)."),
        rules_spec: Optional[str] = typer.Option(None, "--rules", help=RULES_HELP),
        deck: Optional[str] = typer.Option(None, "--deck", help="long or short (default: the ruleset's deck)."),
        contract: str = typer.Option("rufspiel", "--contract",
                                     help="Sort the hands for this contract: rufspiel, solo, wenz, geier, farbwenz, "
                                          "farbgeier."),
        suit: Optional[str] = typer.Option(None, "--suit", help="Trump suit for solo, farbwenz, farbgeier "
                                                                 "(eichel, gras, herz, schellen)."),
    ):
        """Print the four hands of deal INDEX of run SEED, sorted as players sort them for a contract.

        Trumps first (high to low), then the side suits Eichel, Gras, Herz, Schellen, each high to low. Deal i of a
        seed is the same on every machine and for any chunking of a run.
        """
        from simkit.cards import format_hand
        from simkit.engine.deal import deal
        from simkit.reference import player_sort_order
        from simkit.rules.contracts import RUFSPIEL, Contract, parse_kind

        rules_obj = bavarian(load_ruleset(rules_spec))
        if deck is not None:
            if deck not in ("long", "short"):
                raise UserError(f"--deck must be long or short, not {deck!r}")
            rules_obj = rules_obj.replace(deck=deck)
        if index < 0:
            raise UserError(f"--index must not be negative, not {index}")
        if not 0 <= seed < 2**64:
            raise UserError(f"--seed must be between 0 and 2^64-1, not {seed}")
        kind = parse_kind(contract)
        if kind == RUFSPIEL and suit is None:
            c = Contract(RUFSPIEL, 0)  # the called suit does not change how a Rufspiel hand is sorted
        else:
            c = Contract.parse(kind, suit)
        label = c.name if kind == RUFSPIEL and suit is None else str(c)
        order = player_sort_order(c, rules_obj.deck)
        hands = deal(seed, index, rules_obj.deck)
        print(f"deal {index} of seed {seed}, {rules_obj.deck} deck, sorted for {label}")
        for s in range(4):
            print(f"seat {s}: {format_hand(int(hands[s]), order)}")
