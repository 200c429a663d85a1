"""Bidding by value: what each declaration is expected to pay a hand, learned by simulation, for the heuristic.

The heuristic (and pimc, which bids as it does) may declare, say Kontra and say Re by the **expected payout under
the ruleset's tariff** instead of fixed score thresholds (config entry ``bidding`` = 1). The expected payout is
looked up by the hand's heuristic score for the contract kind (simkit.strategies.heuristic, "hand score") in a
**value table** learned here:

* **Counts** (:func:`build_counts`): deal ``deals`` random deals; for every contract kind, every seat that may
  declare it (the heuristic's candidates: its best suit; a Rufspiel calls the suit it would call) declares it,
  forced, on those hands, and the heuristic plays it out at every seat without doublings. Each game adds one count
  to the declarer's cell [kind, forehand?, score bin, outcome level, Laufende] and, when the declarer's score
  reaches the kind's threshold ``th_*`` (a hand that gets declared), one to each defender's cell [kind, his own
  score bin, level, Laufende]. Levels are those of the solver's payout chain: lost Schwarz, lost Schneider, lost,
  won, won Schneider, won Schwarz.
* The counts do not depend on the tariff: the heuristic's card play does not, and the games have no doublings. So
  one set of counts serves every tariff of a deck: **binding** a ruleset (:func:`tables`) prices each cell with
  the ruleset's tariff (Schneider, Schwarz, Laufende from its minimum on: simkit.solver.position.level_payouts),
  averages per bin, makes each row non-decreasing in the score (weighted isotonic regression: a stronger hand is
  never worth less; it also pools the thin bins) and divides by the Rufspiel base price. Values are per seat:
  the declarer of a solo-type contract collects from three.
* Which counts a ruleset uses depends only on what changes the play (:func:`play_key`: the deck and
  ``run_away_min``). The tables for the presets ship in ``simkit/rules/presets/values/``; for any other play key
  they are built on first use (:data:`ON_DEMAND_DEALS` deals, about 15 s on two cores) and cached in
  ``~/.cache/simkit/values`` (``$SIMKIT_CACHE_DIR/values``). ``simkit values --build`` rebuilds one into the
  cache, where it takes precedence over the shipped one (docs/heuristic.md, "Bidding by value").

The score is the heuristic's score under its default weights; a config with other ``w_*`` weights bids from the
same table (the table was learned for the default scores), so rebuild it when tuning the weights.
"""

from __future__ import annotations

import json
import os
import time
from functools import lru_cache
from pathlib import Path

import numpy as np
from numba import njit

from simkit.engine.bits import popcount
from simkit.engine.jitcache import announce, source_stamp, stamp
from simkit.cards import DECK_MASKS
from simkit.rules.contracts import (
    FARBGEIER, FARBWENZ, GEIER, KIND_NAMES, KINDS_WITH_SUIT, RUFSPIEL, SOLO, WENZ, Contract, paying_seats,
)
from simkit.strategies import heuristic as h

N_LEVELS = 6  # lost Schwarz, lost Schneider, lost, won, won Schneider, won Schwarz
N_LAUFENDE = 16  # Laufende 0..15 (a Rufspiel's side may hold up to 14)
DEFAULT_DEALS = 2_000_000  # the shipped tables
ON_DEMAND_DEALS = 500_000  # a table built on first use
CHUNK = 50_000  # deals a task
FORMAT = 1
_PACKAGED = Path(__file__).resolve().parent.parent / "rules" / "presets" / "values"


class ValuesError(ValueError):
    """A value table that cannot be read or built (one line for the user)."""


# ------------------------------------------------------------------------------------------- where tables live

def play_key(rules) -> str:
    """What of the ruleset changes the heuristic's play of a forced contract: the file name of its counts."""
    return f"{rules.deck}-runaway{rules.run_away_min}"


def cache_dir() -> Path:
    base = os.environ.get("SIMKIT_CACHE_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "simkit")
    return Path(base) / "values"


def counts_path(rules) -> Path | None:
    """The counts file the ruleset uses: one built on this machine (the cache: `simkit values --build`, or on
    first use), else the one shipped with the presets; None when neither exists."""
    for d in (cache_dir(), _PACKAGED):
        p = d / f"{play_key(rules)}.npz"
        if p.is_file():
            return p
    return None


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
    from simkit.engine.deal import deal_batch
    from simkit.engine.game import play_games
    from simkit.strategies import resolve

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
    """The ruleset the counting games are played in: every kind enabled, no doublings (prices stay base)."""
    return rules.replace(contracts=KIND_NAMES, max_doublings=0)


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


def save_counts(counts: dict, path: Path) -> Path:
    """Write ``counts`` (:func:`build_counts`) to ``path`` atomically (a temporary file renamed)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    with open(tmp, "wb") as f:
        np.savez_compressed(f, declarer=counts["declarer"], defender=counts["defender"],
                            meta=np.array(json.dumps(counts["meta"])))
    os.replace(tmp, path)
    return path


def load_counts(path: Path) -> dict:
    try:
        with np.load(path, allow_pickle=False) as z:
            meta = json.loads(str(z["meta"]))
            out = {"declarer": z["declarer"], "defender": z["defender"], "meta": meta}
    except Exception as e:
        raise ValuesError(f"value table {path} cannot be read ({type(e).__name__}: {e}); delete it or rebuild it "
                          f"with `simkit values --build`")
    want_d = (h.N_KINDS, 2, h.N_BINS, N_LEVELS, N_LAUFENDE)
    if meta.get("format") != FORMAT or out["declarer"].shape != want_d:
        raise ValuesError(f"value table {path} has another format; rebuild it with `simkit values --build`")
    return out


def counts_for(rules, progress_factory=None) -> dict:
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


def _wants_table(config) -> bool:
    """Does this heuristic config declare or double by value (so it needs the value table)?"""
    return len(config) > h.C_DOUBLING and (config[h.C_BIDDING] == 1.0 or config[h.C_DOUBLING] == 1.0)


def uses_values(strategy) -> bool:
    """Does ``strategy`` (a :class:`simkit.strategies.Strategy`) bid or double from the value table?"""
    return strategy.bind is bind and _wants_table(strategy.config)


def prepare(strategies, rules, progress_factory=None, note=None) -> None:
    """Before a run forks its workers: build (and cache) the value table ``rules`` needs when a strategy uses it
    and it is neither shipped nor cached, saying so through ``note(text)`` and showing progress."""
    if counts_path(rules) is not None or not any(uses_values(s) for s in strategies):
        return
    if note is not None:
        note(f"building the heuristic's value table for {play_key(rules)} (deck {rules.deck}, run_away_min "
             f"{rules.run_away_min}): {ON_DEMAND_DEALS:,} deals, once; cached in {cache_dir()}")
    counts_for(rules, progress_factory)


# ------------------------------------------------------------------------------------- priced by the tariff

def _isotonic(y: np.ndarray, w: np.ndarray) -> np.ndarray:
    """The non-decreasing sequence closest to ``y`` in weighted least squares (pool adjacent violators); bins of
    weight 0 take the value of their neighbours."""
    blocks: list[list[float]] = []  # [mean, weight, length]
    for yi, wi in zip(y, w):
        if wi <= 0:
            if blocks:
                blocks[-1][2] += 1
            else:
                blocks.append([0.0, 0.0, 1])
            continue
        blocks.append([float(yi), float(wi), 1])
        while len(blocks) > 1 and (blocks[-2][1] == 0 or blocks[-2][0] > blocks[-1][0]):
            m2, w2, n2 = blocks.pop()
            m1, w1, n1 = blocks.pop()
            wt = w1 + w2
            blocks.append([(m1 * w1 + m2 * w2) / wt, wt, n1 + n2])
    return np.concatenate([np.full(n, m) for m, _, n in blocks])


def _contract(kind: int) -> Contract:
    """A plain contract of ``kind`` (the suit, where it needs one, does not change its price)."""
    return Contract(kind, 0 if kind in KINDS_WITH_SUIT else None)


def _cell_payouts(rules, kind: int) -> np.ndarray:
    """float[N_LEVELS, N_LAUFENDE]: the declarer seat's payout per outcome level and Laufende count, no
    doublings, under ``rules``' tariff."""
    from simkit.solver.position import level_payouts

    return np.array([level_payouts(_contract(kind), rules.tariff, lauf, 0) for lauf in range(N_LAUFENDE)],
                    np.float64).T


def priced(rules, counts: dict) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(declarer values float[6, 2, 64], defender values float[6, 64], declarer games int[6, 2, 64], defender
    games int[6, 64]): the expected payout per seat in Rufspiel base prices, smoothed (module docstring)."""
    unit = float(rules.tariff.base_rufspiel) or 1.0
    decl = np.zeros((h.N_KINDS, 2, h.N_BINS))
    dfd = np.zeros((h.N_KINDS, h.N_BINS))
    n_decl = counts["declarer"].sum(axis=(3, 4))
    n_dfd = counts["defender"].sum(axis=(2, 3))
    for k in range(h.N_KINDS):
        pay = _cell_payouts(rules, k)
        per_defender = -pay / paying_seats(k)
        with np.errstate(invalid="ignore", divide="ignore"):
            for f in range(2):
                total = (counts["declarer"][k, f] * pay).sum(axis=(1, 2))
                decl[k, f] = _isotonic(np.nan_to_num(total / n_decl[k, f]), n_decl[k, f]) / unit
            total = (counts["defender"][k] * per_defender).sum(axis=(1, 2))
            dfd[k] = _isotonic(np.nan_to_num(total / n_dfd[k]), n_dfd[k]) / unit
    return decl, dfd, n_decl, n_dfd


@lru_cache(maxsize=16)
def tables(rules) -> np.ndarray:
    """float64[CONFIG_LEN - VALUES_AT]: the value table of ``rules`` as the heuristic's config holds it."""
    decl, dfd, _, _ = priced(rules, counts_for(rules))
    t = rules.tariff
    stakes = [t.base(_contract(k)) * paying_seats(k) / (t.base_rufspiel or 1) for k in range(h.N_KINDS)]
    return np.concatenate([decl.ravel(), dfd.ravel(), stakes])


def bind(config: np.ndarray, rules) -> np.ndarray:
    """``config`` (the heuristic's, or one that starts with it) with the value table of ``rules`` behind its named
    entries, when it bids by value; else unchanged."""
    config = np.asarray(config, np.float64)
    if not _wants_table(config):
        return config
    named = config[: h.VALUES_AT]  # a config bound before keeps its entries; its table is replaced
    out = np.zeros(h.CONFIG_LEN)
    out[: len(named)] = named
    out[h.VALUES_AT:] = tables(rules)
    return out


def summary(rules, counts: dict | None = None) -> list[dict]:
    """The table of ``rules`` as rows, one per enabled kind, role and score bin that has games: ``kind``, ``role``
    (declarer or defender), ``forehand`` (a declarer's seat class; None for defenders), ``score`` (the bin's
    lowest score), ``games`` and ``value`` (expected payout per game, Rufspiel base prices)."""
    counts = counts if counts is not None else counts_for(rules)
    decl, dfd, n_decl, n_dfd = priced(rules, counts)
    out = []
    for k, name in enumerate(KIND_NAMES):
        if name not in rules.contracts:
            continue
        for f in (0, 1):
            for b in np.flatnonzero(n_decl[k, f]):
                out.append({"kind": name, "role": "declarer", "forehand": bool(f), "score": b * h.BIN_WIDTH,
                            "games": int(n_decl[k, f, b]), "value": round(float(decl[k, f, b]), 4)})
        for b in np.flatnonzero(n_dfd[k]):
            out.append({"kind": name, "role": "defender", "forehand": None, "score": b * h.BIN_WIDTH,
                        "games": int(n_dfd[k, b]), "value": round(float(dfd[k, b]), 4)})
    return out


__all__ = ["ValuesError", "bind", "build_counts", "counts_for", "counts_path", "load_counts", "play_key", "prepare",
           "priced", "save_counts", "summary", "tables", "uses_values"]

# kinds in table order are the contract kinds 0..5
assert (RUFSPIEL, SOLO, WENZ, GEIER, FARBWENZ, FARBGEIER) == tuple(range(6))
