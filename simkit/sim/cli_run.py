"""``simkit run``: the command-line face of :func:`simkit.sim.runner.run` (registered on the app in simkit.cli)."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Optional

import typer
from rich.table import Table

from simkit.cli_shared import RULES_HELP, Progress, UserError, parse_count, prepare_values, stdout
from simkit.rules import Contract, ContractError, load_ruleset


def register(app: typer.Typer) -> None:
    @app.command()
    def run(
        deals: Optional[str] = typer.Option(None, "--deals", help="Number of deals: 1e7, 10000000, 10_000_000 or 10M."),
        parties: Optional[str] = typer.Option(None, "--parties",
                                              help="Old German game: number of whole parties (instead of --deals)."),
        sessions: Optional[str] = typer.Option(None, "--sessions",
                                               help="Play N sessions (with --session-deals M; instead of --deals): "
                                                    "the deal rotates, the stock carries (all_pass = \"stock\")."),
        session_deals: Optional[str] = typer.Option(None, "--session-deals", help="Deals in each session."),
        seed: int = typer.Option(0, "--seed", help="Run seed: deal i of a seed is the same everywhere."),
        rules_spec: Optional[str] = typer.Option(None, "--rules", help=RULES_HELP),
        deck: Optional[str] = typer.Option(None, "--deck", help="long or short (default: the ruleset's deck)."),
        strategy: Optional[str] = typer.Option(None, "--strategy", help="One strategy for all four seats."),
        seats: Optional[str] = typer.Option(None, "--seats", help="Four strategies, seat 0 first: A,B,C,D."),
        contract: Optional[str] = typer.Option(None, "--contract", help="Forced mode: play every deal as this."),
        suit: Optional[str] = typer.Option(None, "--suit", help="Called or trump suit of --contract."),
        tout: bool = typer.Option(False, "--tout", help="Forced contract is a Tout."),
        declarer: Optional[int] = typer.Option(None, "--declarer", help="Forced mode: the declaring seat 0..3."),
        out: Optional[Path] = typer.Option(None, "--out", help="Output directory (default runs/<UTC time>)."),
        workers: Optional[int] = typer.Option(None, "--workers", help="Worker processes (default: all cores)."),
        store_hands: bool = typer.Option(False, "--store-hands", help="Add hand_0..hand_3 (uint32) columns."),
        store_bids: bool = typer.Option(False, "--store-bids",
                                        help="Add bid_0..bid_3, kontra_seat and re_seat columns."),
        dd: bool = typer.Option(False, "--dd", help="Add dd_points and dd_won: the double-dummy value of each "
                                                    "opening (all hands open; milliseconds a deal; null for a Ramsch, a "
                                                    "Bettel has dd_won only)."),
        store_play: bool = typer.Option(False, "--store-play",
                                        help="Add play (every card in play order), kontra_seat and re_seat: the "
                                             "games `simkit export` writes as replay records."),
        resume: bool = typer.Option(False, "--resume", help="Finish an interrupted run in --out."),
        force: bool = typer.Option(False, "--force", help="Replace an existing --out."),
        backend: str = typer.Option("local", "--backend", help="local, dask (needs --scheduler) or dask-local."),
        scheduler: Optional[str] = typer.Option(None, "--scheduler", help="Dask scheduler address."),
        as_json: bool = typer.Option(False, "--json", help="Print the summary as JSON on stdout."),
    ):
        """Play a Monte Carlo batch of complete deals and stream the results to a Parquet dataset."""
        from simkit.sim.runner import RunError, RunOptions
        from simkit.sim.runner import run as run_batch
        from simkit.strategies import StrategyError

        if (sessions is None) != (session_deals is None):
            raise UserError("--sessions N and --session-deals M go together (N sessions of M deals each)")
        if sessions is not None:
            if deals is not None or parties is not None:
                raise UserError(f"give --sessions with --session-deals, or --{'deals' if deals else 'parties'}, "
                                "not both")
            n_sessions = _count(sessions, "--sessions")
            n_session_deals = _count(session_deals, "--session-deals")
            n = n_sessions * n_session_deals
        else:
            n_sessions = n_session_deals = None
            if (deals is None) == (parties is None):
                raise UserError("give --deals N" + (" or --parties N (not both)" if parties else " (or --sessions N "
                                                    "--session-deals M; for the old German game, --parties N)"))
            try:
                n = parse_count(deals if parties is None else parties)
            except UserError as e:
                raise UserError(str(e).replace("--deals", "--parties") if parties else str(e)) from None
        rules = load_ruleset(rules_spec)
        if deck is not None:
            if deck not in ("long", "short"):
                raise UserError(f"--deck must be long or short, not {deck!r}")
            rules = rules.replace(deck=deck)
        if strategy and seats:
            raise UserError("give either --strategy (all seats) or --seats (one per seat), not both")
        from simkit.strategies import split_seats

        names = tuple(s.strip() for s in split_seats(seats)) if seats else (strategy or "heuristic",) * 4
        if len(names) != 4 or not all(names):
            raise UserError(f"--seats needs four comma-separated strategies, got {seats!r}")
        forced = None
        if contract is not None or suit is not None or tout:
            if contract is None:
                raise UserError("--suit and --tout need --contract")
            try:
                forced = Contract.parse(contract, suit, tout)
            except ContractError as e:
                raise UserError(str(e)) from None
            if declarer is None:
                raise UserError("--contract needs --declarer SEAT")
        elif declarer is not None:
            raise UserError("--declarer needs --contract")
        try:
            opts = RunOptions(deals=n, seed=seed, rules=rules, seats=names, contract=forced, declarer=declarer,
                              store_hands=store_hands, store_bids=store_bids, parties=parties is not None, dd=dd,
                              store_play=store_play, sessions=n_sessions, session_deals=n_session_deals)
        except RunError as e:
            raise UserError(str(e)) from None
        if out is None:
            if resume:
                raise UserError("--resume needs --out DIR")
            out = Path("runs") / time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())

        with Progress(n, "simkit run") as advance:
            try:
                if getattr(rules, "game", "bavarian") == "bavarian":
                    prepare_values(names, rules)
                summary = run_batch(opts, out, workers=workers, resume=resume, force=force, backend=backend,
                                    scheduler=scheduler, progress=advance)
            except (RunError, StrategyError) as e:
                raise UserError(str(e)) from None
            except OSError as e:
                where = f": {e.filename}" if e.filename else ""
                raise UserError(f"writing the run failed ({e.strerror or e}){where}; the shards listed in "
                                f"{out}/_manifest.json are complete") from None
        summary["out"] = str(out)
        if as_json:
            print(json.dumps(summary))
            return
        if summary.get("game") == "old-german":
            from simkit.oldgerman.runner import print_summary
            print_summary(summary, stdout())
            return
        _print_summary(summary, stdout())


def _count(text: str, option: str) -> int:
    """A count given as text (1e3, 1000, 1_000, 1k), its errors naming ``option``."""
    try:
        return parse_count(text)
    except UserError as e:
        raise UserError(str(e).replace("--deals", option)) from None


def _print_summary(s: dict, console) -> None:
    rate = f", {s['deals'] / s['seconds']:,.0f} deals/s" if s.get("seconds") else ""
    console.print(f"{s['deals']:,} deals in {s['out']}{rate}; passed {s['passed_share']:.1%}")
    t = Table("contract", "games", "share", "declarer wins", box=None, pad_edge=False)
    for name, c in s["contracts"].items():
        wr = "" if c["declarer_win_rate"] is None else f"{c['declarer_win_rate']:.1%}"
        t.add_row(name, f"{c['games']:,}", f"{c['share']:.1%}", wr)
    console.print(t)
    if s.get("sessions"):
        console.print(f"{s['sessions']['sessions']:,} sessions of {s['sessions']['session_deals']:,} deals")
    if s.get("stock"):
        st = s["stock"]
        console.print(f"stock: mean {st['mean']:,.1f} before a deal (max {st['max']:,}); {st['throw_ins']:,} "
                      f"throw-ins paid into it; won {st['won']:,} times ({st['won_share']:.2%} of deals)")
    if "ramsch" in s["contracts"]:
        console.print("ramsch: the declarer is the loser (or the Durchmarsch winner); declarer wins = Durchmarsch")
    if s.get("knocked_share") is not None:
        console.print(f"klopfen: {s['knocked_share']:.1%} of the deals with a knock, "
                      f"{s['knocks_per_deal']:.3f} knocks per deal")
    if s.get("impossible"):
        console.print(f"{s['impossible']:,} deals where the forced contract was impossible")
    if not s["complete"]:
        print(f"incomplete: {s['deals']:,} of {s['deals_requested']:,} deals", file=sys.stderr)
