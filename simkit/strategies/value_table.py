"""Building the heuristic's value table: the counts of simkit.strategies.values, by playing whole deals.

For every contract kind, every seat that may declare it (the heuristic's candidates: its best suit; a Rufspiel
calls the suit it would call) declares it, forced, on the hands of ``deals`` random deals, and the heuristic plays
it out at every seat without doublings (simkit.engine.game.play_games). Each game adds one count to the declarer's
cell [kind, forehand?, score bin, outcome level, Laufende] and, when the declarer's score reaches the kind's
threshold ``th_*`` (a hand that gets declared), one to each defender's cell [kind, his own score bin, level,
Laufende]. Reading, pricing and binding the tables is simkit.strategies.values, below the engine; this module
stands above it (it plays whole deals), and nothing below the engine imports it.

:func:`prepare` builds (and caches) the table a ruleset needs before a run, match or evaluation forks its workers,
when it is neither shipped nor cached; ``simkit values --build`` (:func:`build_counts`) rebuilds one.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import numpy as np
from numba import njit

from simkit.cards import DECK_MASKS
from simkit.engine.bits import popcount
from simkit.engine.deal import deal_batch
from simkit.engine.game import play_games
from simkit.engine.jitcache import announce, source_stamp, stamp
from simkit.rules.contracts import CLASSIC_KIND_NAMES, RUFSPIEL
from simkit.strategies import heuristic as h
from simkit.strategies import resolve
from simkit.strategies.values import (
    FORMAT,
    N_LAUFENDE,
    N_LEVELS,
    ValuesError,
    cache_dir,
    counts_path,
    load_counts,
    play_key,
    save_counts,
    uses_values,
)

DEFAULT_DEALS = 2_000_000  # the shipped tables
ON_DEMAND_DEALS = 500_000  # a table built on first use
CHUNK = 50_000  # deals a task

# -------------------------------------------------------------------------------------------- the counts

def _kind_scores_py(hands, deck, config, suits, scores):
    """Per deal, kind and seat: the heuristic's score of the seat's hand for the kind and its suit (NO_SCORE: the
    heuristic never declares it with that hand)."""
    short = popcount(deck) != 32
    for i in range(hands.shape[0]):
        for k in range(h.N_KINDS):
            for s in range(4):
                sc, suit = h._kind_score(np.int64(hands[i, s]), s, k, deck, short, config)
                scores[i, k, s] = sc
                suits[i, k, s] = suit


def _defender_scores_py(hands, kind, suit, deck, config, out):
    """The heuristic score of every seat's hand for contract (kind, suit), as the doubling decision computes it."""
    for i in range(hands.shape[0]):
        for s in range(4):
            out[i, s] = h._hand_score(np.int64(hands[i, s]), kind, suit, s, deck, config)


_DEPS = [Path(__file__).resolve()] + h.DEPENDENCIES  # and the heuristic's scores it inlines
_kind_scores = announce(stamp(njit(cache=True)(_kind_scores_py), source_stamp(_DEPS)), "the value table's hand scores")
_defender_scores = announce(stamp(njit(cache=True)(_defender_scores_py), source_stamp(_DEPS)),
                            "the value table's defender scores")


def _levels(won, schneider, schwarz) -> np.ndarray:
    """The payout chain's level (0 lost Schwarz .. 5 won Schwarz) of result rows."""
    s = schneider.astype(np.int64) + schwarz.astype(np.int64)
    return np.where(won, 3 + s, 2 - s)


def _chunk_counts(rules, seed: int, start: int, n: int) -> tuple[np.ndarray, np.ndarray]:
    """The declarer and defender counts of deals ``start .. start+n-1`` (see the module docstring)."""
    deck = np.int64(DECK_MASKS[rules.deck])
    config = h.DEFAULT_CONFIG
    hands = deal_batch(seed, start, n, rules.deck)
    # the card play is the heuristic's; it neither bids (forced) nor doubles here, so it needs no value table
    player = resolve("heuristic[bidding=0,doubling=0]")
    suits = np.empty((n, h.N_KINDS, 4), np.int64)
    scores = np.empty((n, h.N_KINDS, 4), np.float64)
    _kind_scores(hands, deck, config, suits, scores)
    short = rules.deck != "long"
    decl = np.zeros((h.N_KINDS, 2, h.N_BINS, N_LEVELS, N_LAUFENDE), np.int64)
    dfd = np.zeros((h.N_KINDS, h.N_BINS, N_LEVELS, N_LAUFENDE), np.int64)
    def_scores = np.empty((n, 4), np.float64)
    for k in range(h.N_KINDS):
        # the defenders' counts are taken against declarers who reach the kind's threshold (hands that get declared)
        declared_from = config[h.C_TH_RUFSPIEL + k] - (config[h.C_SHORT_SHIFT] if short else 0.0)
        for seat in range(4):
            for suit in range(-1, 4):
                idx = np.flatnonzero((suits[:, k, seat] == suit) & (scores[:, k, seat] != h.NO_SCORE))
                if len(idx) == 0:
                    continue
                contract = (k, None if suit < 0 else suit, False)
                rows = play_games(seed, start, len(idx), rules, seats=player, contract=contract, declarer=seat,
                                  hands=hands[idx])
                ok = ~rows["impossible"]
                level = _levels(rows["won"], rows["schneider"], rows["schwarz"])[ok]
                lauf = np.minimum(rows["laufende"], N_LAUFENDE - 1)[ok]
                own = scores[idx, k, seat][ok]
                np.add.at(decl, (k, int(seat == 0), _bins(own), level, lauf), 1)
                # the defenders (neither the declarer nor his partner) of the declarers who would bid
                _defender_scores(hands[idx], np.int64(k), np.int64(suit if k != RUFSPIEL else 0), deck, config,
                                 def_scores[: len(idx)])
                partner = rows["partner"][ok]
                sc = def_scores[: len(idx)][ok]
                for d in range(4):
                    m = (partner != d) & (own >= declared_from)
                    if d != seat and m.any():
                        np.add.at(dfd, (k, _bins(sc[m, d]), level[m], lauf[m]), 1)
    return decl, dfd


def _bins(scores: np.ndarray) -> np.ndarray:
    """:func:`simkit.strategies.heuristic.score_bin` of every score."""
    return np.clip((scores * (1.0 / h.BIN_WIDTH)).astype(np.int64), 0, h.N_BINS - 1)


def _counting_rules(rules):
    """The ruleset the counting games are played in: every classic kind enabled, no doublings, no knocks and no
    Ramsch (prices stay base; the table counts the six classic contracts, RULES.md 2.1)."""
    return rules.replace(contracts=CLASSIC_KIND_NAMES, max_doublings=0, klopfen=False, all_pass="throw-in", sie=False)


def build_counts(rules=None, deals: int = DEFAULT_DEALS, seed: int = 0, *, workers: int | None = None,
                 progress=None) -> dict:
    """Count the outcomes of ``deals`` deals for ``rules``' play key (see the module docstring).

    Returns ``{"declarer": int64[6, 2, 64, 6, 16], "defender": int64[6, 64, 6, 16], "meta": {...}}``.
    ``progress(k)`` is called with the deals done after each task."""
    from simkit.parallel import map_jobs
    from simkit.rules.ruleset import load_ruleset

    rules = load_ruleset(rules)
    deals = int(deals)
    if deals < 1:
        raise ValuesError(f"deals must be at least 1, not {deals}")
    workers = max(1, workers or os.cpu_count() or 1)
    counting = _counting_rules(rules)
    jobs = [(counting, int(seed), s, min(CHUNK, deals - s)) for s in range(0, deals, CHUNK)]
    t0 = time.perf_counter()
    if workers > 1 and len(jobs) > 1:  # compile (or load) the kernels before forking: the workers inherit them
        _chunk_counts(counting, int(seed), 0, 1)
    decl = dfd = None
    for (_, _, _, n), (a, b) in zip(jobs, map_jobs(_chunk_counts, jobs, workers)):
        decl = a if decl is None else decl + a
        dfd = b if dfd is None else dfd + b
        if progress is not None:
            progress(n)
    meta = {"format": FORMAT, "play_key": play_key(rules), "deals": deals, "seed": int(seed),
            "seconds": round(time.perf_counter() - t0, 1), "workers": workers,
            "weights": {k: float(v) for k, v in zip(h.CONFIG_NAMES, h.DEFAULT_CONFIG)}}
    return {"declarer": decl, "defender": dfd, "meta": meta}


def ensure_counts(rules, progress_factory=None) -> dict:
    """The counts ``rules`` bids from: shipped or cached, else built now (:data:`ON_DEMAND_DEALS` deals) and
    cached. ``progress_factory(total)``: a context manager whose value is ``advance(k)`` (a progress bar)."""
    p = counts_path(rules)
    if p is not None:
        return load_counts(p)
    if progress_factory is None:
        counts = build_counts(rules, ON_DEMAND_DEALS)
    else:
        with progress_factory(ON_DEMAND_DEALS) as advance:
            counts = build_counts(rules, ON_DEMAND_DEALS, progress=advance)
    save_counts(counts, cache_dir() / f"{play_key(rules)}.npz")
    return counts


def prepare(strategies, rules, progress_factory=None, note=None) -> None:
    """Before a run forks its workers: build (and cache) the value table ``rules`` needs when a strategy uses it
    and it is neither shipped nor cached, saying so through ``note(text)`` and showing progress."""
    if counts_path(rules) is not None or not any(uses_values(s) for s in strategies):
        return
    if note is not None:
        note(f"building the heuristic's value table for {play_key(rules)} (deck {rules.deck}, run_away_min "
             f"{rules.run_away_min}): {ON_DEMAND_DEALS:,} deals, once; cached in {cache_dir()}")
    ensure_counts(rules, progress_factory)


__all__ = ["CHUNK", "DEFAULT_DEALS", "ON_DEMAND_DEALS", "build_counts", "ensure_counts", "prepare"]
