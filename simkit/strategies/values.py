"""Bidding by value: what each declaration is expected to pay a hand, learned by simulation, for the heuristic.

The heuristic (and pimc, which bids as it does) may declare, say Kontra and say Re by the **expected payout under
the ruleset's tariff** instead of fixed score thresholds (config entry ``bidding`` = 1). The expected payout is
looked up by the hand's heuristic score for the contract kind (simkit.strategies.heuristic, "hand score") in a
**value table**. This module reads, prices and binds the tables; building their counts plays whole deals and so
stands above the engine, in simkit.strategies.value_table:

* **Counts** (simkit.strategies.value_table.build_counts): for every contract kind and random deal, every seat
  that may declare it declares it, forced, and the heuristic plays it out; each game adds one count to the
  declarer's cell [kind, forehand?, score bin, outcome level, Laufende] and, when the declarer's score reaches the
  kind's threshold ``th_*``, one to each defender's cell [kind, his own score bin, level, Laufende]. Levels are
  those of the solver's payout chain: lost Schwarz, lost Schneider, lost, won, won Schneider, won Schwarz.
* The counts do not depend on the tariff: the heuristic's card play does not, and the games have no doublings. So
  one set of counts serves every tariff of a deck: **binding** a ruleset (:func:`tables`) prices each cell with
  the ruleset's tariff (Schneider, Schwarz, Laufende from its minimum on: simkit.solver.position.level_payouts),
  averages per bin, makes each row non-decreasing in the score (weighted isotonic regression: a stronger hand is
  never worth less; it also pools the thin bins) and divides by the Rufspiel base price. Values are per seat:
  the declarer of a solo-type contract collects from three.
* Which counts a ruleset uses depends only on what changes the play (:func:`play_key`: the deck and
  ``run_away_min``). The tables for the presets ship in ``simkit/rules/presets/values/``; for any other play key
  simkit.strategies.value_table.prepare builds them (``ON_DEMAND_DEALS`` deals, about 15 s on two cores; every
  run, match and evaluation calls it before its workers start) and caches them in ``~/.cache/simkit/values``
  (``$SIMKIT_CACHE_DIR/values``). ``simkit values --build`` rebuilds one into the cache, where it takes precedence
  over the shipped one (docs/heuristic.md, "Bidding by value"). Binding a ruleset whose table is neither shipped
  nor built is a :class:`ValuesError` that says how to build it.

The score is the heuristic's score under its default weights; a config with other ``w_*`` weights bids from the
same table (the table was learned for the default scores), so rebuild it when tuning the weights.
"""

from __future__ import annotations

import json
import os
from functools import lru_cache
from pathlib import Path

import numpy as np

from simkit.rules.contracts import (
    FARBGEIER, FARBWENZ, GEIER, KIND_NAMES, KINDS_WITH_SUIT, RUFSPIEL, SOLO, WENZ, Contract, paying_seats,
)
from simkit.strategies import heuristic as h

N_LEVELS = 6  # lost Schwarz, lost Schneider, lost, won, won Schneider, won Schwarz
N_LAUFENDE = 16  # Laufende 0..15 (a Rufspiel's side may hold up to 14)
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


def save_counts(counts: dict, path: Path) -> Path:
    """Write ``counts`` (simkit.strategies.value_table.build_counts) to ``path`` atomically (a temporary file,
    renamed)."""
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


def counts_for(rules) -> dict:
    """The counts ``rules`` bids from: built on this machine (the cache) or shipped with the presets. A
    :class:`ValuesError` when neither exists: :func:`simkit.strategies.value_table.prepare` (which every run, match
    and evaluation calls before its workers start) or ``simkit values --build`` builds them."""
    p = counts_path(rules)
    if p is None:
        raise ValuesError(f"no value table for {play_key(rules)} (deck {rules.deck}, run_away_min "
                          f"{rules.run_away_min}) yet: build it with `simkit values --build --rules ...`, or in Python "
                          f"with simkit.strategies.value_table.prepare(strategies, rules)")
    return load_counts(p)


def _wants_table(config) -> bool:
    """Does this heuristic config declare or double by value (so it needs the value table)?"""
    return len(config) > h.C_DOUBLING and (config[h.C_BIDDING] == 1.0 or config[h.C_DOUBLING] == 1.0)


def uses_values(strategy) -> bool:
    """Does ``strategy`` (a :class:`simkit.strategies.Strategy`) bid or double from the value table?"""
    return strategy.bind is bind and _wants_table(strategy.config)


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


__all__ = ["ValuesError", "bind", "cache_dir", "counts_for", "counts_path", "load_counts", "play_key", "priced",
           "save_counts", "summary", "tables", "uses_values"]

# kinds in table order are the contract kinds 0..5
assert (RUFSPIEL, SOLO, WENZ, GEIER, FARBWENZ, FARBGEIER) == tuple(range(6))
