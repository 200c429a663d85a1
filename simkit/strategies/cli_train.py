"""``simkit train people``: fit the people model to recorded games (simkit.strategies.people.train),
``simkit train best``: add the best-card weights to its file (simkit.strategies.people.best), ``simkit train
tie``: add pimc's tie network to a file that has them, and ``simkit train net``: replace its best-card network
(fitted with extra games, self-play say, or averaged with the one it has). Registered in simkit.cli, outside the
people package so that registering it loads no kernel."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import List, Optional

import typer

from simkit.cli_shared import RULES_HELP, UserError

MAX_WARNINGS = 20


def _check_training_inputs(games: Path, val_fraction: float, out: Path) -> None:
    """The checks every training command makes of its data, split and output directory (one-line UserErrors)."""
    if not games.is_file():
        raise UserError(f"training data {games} does not exist")
    if not 0.0 < val_fraction < 1.0:
        raise UserError("--val-fraction must be between 0 and 1")
    if out.exists() and not out.is_dir():
        raise UserError(f"--out {out} exists and is not a directory")


def _weights_for(rules, weights: Optional[Path]):
    """(path, bid_w, play_w, meta) of the people weights to start from: the file ``weights`` (which must be trained
    for ``rules``), else the one the strategies find for ``rules``; a missing or bad file is a UserError."""
    from simkit.strategies.people import weights as W
    from simkit.strategies.strategy import StrategyError

    try:
        if weights is None:
            return W.find(rules)
        bid_w, play_w, meta = W.load(weights)
    except StrategyError as e:
        raise UserError(str(e)) from None
    if meta.get("ruleset", {}).get("key") != W.ruleset_key(rules):
        raise UserError(f"--weights {weights} were not trained for ruleset {rules.name!r}")
    return weights, bid_w, play_w, meta


def _best_weights_for(rules, weights: Optional[Path]):
    """:func:`_weights_for` of a file that must have best-card weights: (path, bid_w, play_w, meta, best_w, its
    best-card network or None, its tie network or None); a file without them is a UserError."""
    from simkit.strategies.people import weights as W
    from simkit.strategies.strategy import StrategyError

    path, bid_w, play_w, meta = _weights_for(rules, weights)
    try:
        best_w, best_mlp, tie = W.load_best(path), W.load_best_mlp(path), W.load_tie_mlp(path)
    except StrategyError as e:
        raise UserError(str(e)) from None
    if best_w is None:
        raise UserError(f"weights {path} have no best-card weights: add them first with `simkit train best`")
    return path, bid_w, play_w, meta, best_w, best_mlp, tie


def register(app: typer.Typer) -> None:
    train_app = typer.Typer(help="Fit models to recorded games.", no_args_is_help=True)
    app.add_typer(train_app, name="train")

    @train_app.command("people")
    def train_people(
        games: Path = typer.Argument(..., help="Recorded deals: replay records, .jsonl or .jsonl.gz (thrown-in "
                                               "deals included), e.g. ../shared/real-games/sauspiel-20k.jsonl.gz."),
        rules_specs: Optional[List[str]] = typer.Option(None, "--rules", help=RULES_HELP + " Repeat for several "
                                                        "(default: sauspiel and sauspiel-short); each is fitted to "
                                                        "the records of its deck."),
        out: Path = typer.Option(Path("people-weights"), "--out", help="Directory for the weights files "
                                 "(<ruleset>.npz); point $SIMKIT_PEOPLE_WEIGHTS at it to play with them."),
        seed: int = typer.Option(0, "--seed", help="Salts the split into fitting and validation deals."),
        val_fraction: float = typer.Option(0.2, "--val-fraction", help="Share of deals held out for validation."),
        strength_rows: int = typer.Option(3000, "--strength-rows", help="Candidate hands per solo-type contract "
                                          "the solver values to calibrate the strength of declared hands "
                                          "(docs/strategies.md, people; 0: no calibration)."),
        win_deals: int = typer.Option(200_000, "--win-deals", help="Deals of self-play a round of the win-rate "
                                      "calibration: each solo-type contract's declared hands are moved until the "
                                      "model wins it as often as people did (docs/strategies.md, people; 0: none)."),
        win_max_offset: float = typer.Option(8.0, "--win-max-offset", help="The furthest the win-rate calibration "
                                             "moves a contract's declared hands, in card points of predicted worth "
                                             "(more: closer win rates, a worse bid likelihood)."),
        win_pool_siblings: bool = typer.Option(True, "--win-pool-siblings/--no-win-pool-siblings",
                                               help="A contract with too few games to calibrate its own win rate "
                                               "takes the offset of its sibling in the same deck (Geier Wenz's, "
                                               "Farbgeier Farbwenz's); off: it keeps offset 0."),
    ):
        """Fit the `people` strategy's bidding and play model to recorded games, one weights file per ruleset.

        Deterministic for the same data, rulesets and seed; a few minutes per ruleset on two cores. Bad records
        are reported by line and skipped (counted in the weights file's metadata).
        """
        from simkit.rules import load_ruleset
        from simkit.strategies.people import train as T
        from simkit.strategies.people import weights as W

        _check_training_inputs(games, val_fraction, out)
        if strength_rows < 0:
            raise UserError("--strength-rows must be 0 or more")
        if win_deals < 0:
            raise UserError("--win-deals must be 0 or more")
        if not 0.0 <= win_max_offset <= 40.0:
            raise UserError("--win-max-offset must be between 0 and 40 card points")
        rulesets = [load_ruleset(r) for r in (rules_specs or ["sauspiel", "sauspiel-short"])]
        settings = T.Settings(seed=seed, val_fraction=val_fraction, strength_rows=strength_rows,
                              win_deals=win_deals, win_max_offset=win_max_offset,
                              win_pool_siblings=win_pool_siblings)
        warned = [0]

        def warn(msg):
            warned[0] += 1
            if warned[0] <= MAX_WARNINGS:
                print(f"simkit: warning: {msg} (skipped)", file=sys.stderr)

        def log(msg):
            print(f"simkit: {msg}", file=sys.stderr)

        results = []
        for rules in rulesets:
            try:
                res = T.train(games, rules, settings, warn=warn, log=log)
            except ValueError as e:
                raise UserError(str(e)) from None
            results.append((rules, res))
            warn = None  # the same file: its bad records are reported once
        if warned[0] > MAX_WARNINGS:
            print(f"simkit: warning: {warned[0] - MAX_WARNINGS} more bad records skipped", file=sys.stderr)
        out.mkdir(parents=True, exist_ok=True)
        for rules, res in results:
            path = W.save(out / f"{rules.name}.npz", res.bid_w, res.play_w, res.meta)
            v = res.meta["metrics"]["play"]["validation"]
            b = res.meta["metrics"]["bidding"]["validation"]
            print(f"{path}: validation {res.meta['data']['validation_deals']:,} deals; card agreement "
                  f"{100 * v['model']:.1f}% (heuristic {100 * v['heuristic']:.1f}%) over {v['decisions']:,} "
                  f"decisions with a choice; thrown in: model {100 * b['model']['thrown_in']:.1f}%, people "
                  f"{100 * b['people']['thrown_in']:.1f}%")

    @train_app.command("best")
    def train_best(
        games: Path = typer.Argument(..., help="Recorded games: replay records, .jsonl or .jsonl.gz, e.g. "
                                               "../shared/real-games/sauspiel-20k.jsonl.gz (those of the people "
                                               "weights' training, for the same split)."),
        rules_specs: Optional[List[str]] = typer.Option(None, "--rules", help=RULES_HELP + " Repeat for several "
                                                        "(default: sauspiel and sauspiel-short)."),
        weights: Optional[Path] = typer.Option(None, "--weights", help="The people weights file to start from "
                                               "(default: the one found for the ruleset, as the strategies find "
                                               "it; $SIMKIT_PEOPLE_WEIGHTS, then the packaged ones). One ruleset "
                                               "only."),
        out: Path = typer.Option(Path("people-weights"), "--out", help="Directory for the weights files "
                                 "(<ruleset>.npz: the people weights with the best-card weights added)."),
        seed: int = typer.Option(0, "--seed", help="Salts the split into fitting and validation deals (that of "
                                 "`simkit train people`: keep it the same)."),
        val_fraction: float = typer.Option(0.2, "--val-fraction", help="Share of deals held out for validation."),
        teacher_worlds: int = typer.Option(0, "--teacher-worlds", help="> 0: a pimc search of this many worlds "
                                           "with no node limit teaches the first trick and the long leads "
                                           "(simkit.strategies.teacher; about a second a game; the packaged "
                                           "long-deck weights: 16)."),
        teacher_mix: float = typer.Option(0.5, "--teacher-mix", help="A taught card's loss: this share its "
                                          "double-dummy loss, the rest the teacher's (0..1)."),
        teacher_games: int = typer.Option(0, "--teacher-games", help="Teach the first this many fitting games "
                                          "only (0: all, as for the packaged long-deck weights)."),
        teacher_cache: Optional[Path] = typer.Option(None, "--teacher-cache", help="Keep the teacher's values in "
                                                     "this file (.npz): read where it exists, written after, so "
                                                     "that a refit does not search again. One ruleset only."),
        workers: int = typer.Option(1, "--workers", help="Processes grading (and teaching) the games."),
        mlp_hidden: int = typer.Option(0, "--mlp-hidden", help="> 0: fit a best-card network of this many hidden "
                                       "units on top of the weights, on the decisions pimc plays unsearched (the "
                                       "packaged weights: 64; the long deck's taught by --teacher-worlds 16)."),
    ):
        """Add best-card weights to people weights: the people model's play features refitted to the card that is
        best with all hands open, on the recorded games graded by the solver.

        pimc plays these weights' card where its search is weakest (the first trick and the next leads;
        docs/strategies.md). Deterministic; grading takes a few minutes per ruleset on one core.
        """
        from simkit.cli_shared import Progress
        from simkit.rules import load_ruleset
        from simkit.strategies.people import best as B
        from simkit.strategies.people import weights as W

        _check_training_inputs(games, val_fraction, out)
        rulesets = [load_ruleset(r) for r in (rules_specs or ["sauspiel", "sauspiel-short"])]
        if weights is not None and len(rulesets) != 1:
            raise UserError("--weights takes one ruleset (--rules)")
        if teacher_worlds < 0 or teacher_games < 0 or not 0.0 <= teacher_mix <= 1.0:
            raise UserError("--teacher-worlds and --teacher-games must be at least 0, --teacher-mix in 0..1")
        if teacher_worlds > 0:
            from simkit.strategies.pimc import MAX_CANDIDATES
            from simkit.strategies.teacher import TEACHER_CANDIDATES

            if teacher_worlds * TEACHER_CANDIDATES > MAX_CANDIDATES:
                raise UserError(f"--teacher-worlds is at most {MAX_CANDIDATES // TEACHER_CANDIDATES} (the teacher "
                                f"draws {TEACHER_CANDIDATES} candidates a world, {MAX_CANDIDATES:,} at most)")
        if workers < 1:
            raise UserError("--workers must be at least 1")
        if mlp_hidden < 0:
            raise UserError("--mlp-hidden must be at least 0")
        if teacher_cache is not None and teacher_worlds <= 0:
            raise UserError("--teacher-cache needs --teacher-worlds (the teacher whose values it keeps)")
        if teacher_cache is not None and len(rulesets) != 1:
            raise UserError("--teacher-cache takes one ruleset (--rules)")
        settings = B.BestSettings(seed=seed, val_fraction=val_fraction, teacher_worlds=teacher_worlds,
                                  teacher_mix=teacher_mix, teacher_games=teacher_games, mlp_hidden=mlp_hidden)

        def log(msg):
            print(f"simkit: {msg}", file=sys.stderr)

        results = []
        for rules in rulesets:
            _, bid_w, play_w, meta = _weights_for(rules, weights)
            make_teacher = None
            if teacher_worlds > 0:
                from functools import partial

                from simkit.strategies.teacher import SearchTeacher

                make_teacher = partial(SearchTeacher, rules, bid_w, play_w, teacher_worlds,
                                       settings.teacher_lead_cards)
            try:
                best_w, best_mlp, best_meta = B.train_best(games, rules, play_w, settings,
                                                           progress=lambda n: Progress(n, "grading"), log=log,
                                                           make_teacher=make_teacher, bid_w=bid_w,
                                                           teacher_cache=teacher_cache, workers=workers)
            except ValueError as e:
                raise UserError(str(e)) from None
            if "tie" in meta:  # fitted on top of the old best-card weights: it does not fit the new ones
                log(f"{rules.name}: the tie network of the weights is not carried over (it was fitted on top of "
                    f"their best-card weights); fit one for the new weights with `simkit train tie`")
            results.append((rules, bid_w, play_w, {**{k: v for k, v in meta.items() if k != "tie"},
                                                   "best": best_meta}, best_w, best_mlp))
        out.mkdir(parents=True, exist_ok=True)
        for rules, bid_w, play_w, meta, best_w, best_mlp in results:
            path = W.save(out / f"{rules.name}.npz", bid_w, play_w, meta, best_w, best_mlp)
            v = meta["best"]["validation"]
            print(f"{path}: {meta['best']['validation_decisions']:,} validation decisions with a choice; "
                  f"double-dummy loss of the likeliest card {v['best']['all']:.3f} (people weights "
                  f"{v['people']['all']:.3f})")
            if best_mlp is not None:
                u = meta["best"]["validation_unsearched"]
                print(f"{path}: on the validation decisions pimc plays unsearched, with the network "
                      f"{u['best_mlp']['all']:.3f}, the weights alone {u['best']['all']:.3f}")

    @train_app.command("tie")
    def train_tie(
        games: Path = typer.Argument(..., help="Recorded games: replay records, .jsonl or .jsonl.gz, e.g. "
                                               "../shared/real-games/sauspiel-20k.jsonl.gz (those of the weights' "
                                               "training, for the same split)."),
        rules_spec: str = typer.Option("sauspiel", "--rules", help=RULES_HELP),
        weights: Optional[Path] = typer.Option(None, "--weights", help="The weights file with best-card weights "
                                               "(`simkit train best`) to add the network to (default: the one "
                                               "found for the ruleset, as the strategies find it)."),
        out: Path = typer.Option(Path("people-weights"), "--out", help="Directory for the weights file "
                                 "(<ruleset>.npz: the same file with the tie network added or replaced)."),
        hidden: int = typer.Option(64, "--hidden", help="Hidden units of the network (the packaged long-deck "
                                   "file: 64)."),
        seed: int = typer.Option(0, "--seed", help="Salts the split into fitting and validation deals (that of "
                                 "`simkit train people`: keep it the same) and the network's start."),
        val_fraction: float = typer.Option(0.2, "--val-fraction", help="Share of deals held out for validation."),
        workers: int = typer.Option(1, "--workers", help="Processes grading the games."),
    ):
        """Add a tie network to a weights file: the best-card weights plus a network fitted on the decisions pimc
        searches, to the card that is best with all hands open; pimc breaks its ties with it (`tie_mlp`).

        Everything else in the file is kept as it is. Deterministic; grading takes about seven minutes on one core
        for the long deck's 5,700 games, the fit three.
        """
        from simkit.cli_shared import Progress
        from simkit.rules import load_ruleset
        from simkit.strategies.people import best as B
        from simkit.strategies.people import weights as W

        _check_training_inputs(games, val_fraction, out)
        if hidden < 1 or workers < 1:
            raise UserError("--hidden and --workers must be at least 1")
        rules = load_ruleset(rules_spec)
        path, bid_w, play_w, meta, best_w, best_mlp, _ = _best_weights_for(rules, weights)

        def log(msg):
            print(f"simkit: {msg}", file=sys.stderr)

        try:
            tie, tie_meta = B.train_tie(games, rules, best_w, hidden, B.BestSettings(seed=seed,
                                        val_fraction=val_fraction), progress=lambda n: Progress(n, "grading"),
                                        log=log, workers=workers, best_mlp=best_mlp)
        except ValueError as e:
            raise UserError(str(e)) from None
        out.mkdir(parents=True, exist_ok=True)
        saved = W.save(out / f"{rules.name}.npz", bid_w, play_w, {**meta, "tie": tie_meta}, best_w, best_mlp, tie)
        v = tie_meta["validation_searched"]
        print(f"{saved}: on the validation decisions pimc searches, the likeliest card of the tie network loses "
              f"{v['tie']['all']:.3f}, of the best-card weights alone {v['best']['all']:.3f}"
              + (f", of the best-card network {v['best_mlp']['all']:.3f}" if "best_mlp" in v else ""))

    @train_app.command("net")
    def train_net(
        games: Path = typer.Argument(..., help="Recorded games: replay records, .jsonl or .jsonl.gz, e.g. "
                                               "../shared/real-games/sauspiel-20k.jsonl.gz (those of the weights' "
                                               "training, for the same split)."),
        extra_games: Optional[Path] = typer.Option(None, "--extra-games", help="More games to fit on, never to "
                                                   "validate on: replay records, e.g. self-play of people "
                                                   "(`simkit run --strategy people --store-play`, then `simkit "
                                                   "export`; the packaged long-deck file: 30,000 deals of seed "
                                                   "777, docs/strategies.md)."),
        rules_spec: str = typer.Option("sauspiel", "--rules", help=RULES_HELP),
        weights: Optional[Path] = typer.Option(None, "--weights", help="The weights file with best-card weights "
                                               "(`simkit train best`) whose network to replace (default: the one "
                                               "found for the ruleset, as the strategies find it)."),
        out: Path = typer.Option(Path("people-weights"), "--out", help="Directory for the weights file "
                                 "(<ruleset>.npz: the same file with the new best-card network)."),
        hidden: int = typer.Option(64, "--hidden", help="Hidden units of the network fitted."),
        average: bool = typer.Option(False, "--average", help="Keep the file's network too: the new network is "
                                     "the average of the two (their units side by side; the packaged long-deck "
                                     "file: its teacher-fitted network and one fitted with self-play)."),
        seed: int = typer.Option(0, "--seed", help="Salts the split into fitting and validation deals (that of "
                                 "`simkit train people`: keep it the same) and the network's start."),
        val_fraction: float = typer.Option(0.2, "--val-fraction", help="Share of deals of GAMES held out for "
                                           "validation."),
        workers: int = typer.Option(1, "--workers", help="Processes grading the games."),
    ):
        """Replace the best-card network of a weights file: a network on top of its best-card weights, fitted on
        the decisions pimc plays unsearched (the first trick and the long leads) to the card that is best with
        all hands open, on the fitting games of GAMES and every game of --extra-games.

        The best-card weights and the tie network are kept (both sit on the weights, not on this network).
        Deterministic; the grading takes about a minute a thousand games on one core, the fit about 75 s per
        10,000 fitting decisions (the long deck's real games give 22,383; the packaged file's 133,218).
        """
        from simkit.cli_shared import Progress
        from simkit.rules import load_ruleset
        from simkit.strategies.people import best as B
        from simkit.strategies.people import weights as W

        _check_training_inputs(games, val_fraction, out)
        if extra_games is not None and not extra_games.is_file():
            raise UserError(f"--extra-games {extra_games} does not exist")
        if hidden < 1 or workers < 1:
            raise UserError("--hidden and --workers must be at least 1")
        rules = load_ruleset(rules_spec)
        path, bid_w, play_w, meta, best_w, best_mlp, tie = _best_weights_for(rules, weights)
        if average and best_mlp is None:
            raise UserError(f"--average: weights {path} have no best-card network to average with")

        def log(msg):
            print(f"simkit: {msg}", file=sys.stderr)

        try:
            net, net_meta = B.train_net(games, rules, best_w, B.BestSettings(seed=seed, val_fraction=val_fraction,
                                                                             mlp_hidden=hidden),
                                        extra_games, best_mlp if average else None,
                                        progress=lambda n: Progress(n, "grading"), log=log, workers=workers)
        except ValueError as e:
            raise UserError(str(e)) from None
        if average:  # the kept network's provenance: an earlier `train net`'s, else "best" (`train best`'s)
            net_meta["kept"] = meta["best"].get("net", "best")
        out.mkdir(parents=True, exist_ok=True)
        saved = W.save(out / f"{rules.name}.npz", bid_w, play_w, {**meta, "best": {**meta["best"], "net": net_meta}},
                       best_w, net, tie)
        v = net_meta["validation_unsearched"]
        print(f"{saved}: on the validation decisions pimc plays unsearched, the likeliest card of the new network "
              f"({len(net)} units) loses {v['net']['all']:.3f}, the weights alone {v['weights']['all']:.3f}"
              + (f", the kept network {v['kept']['all']:.3f}" if "kept" in v else ""))
