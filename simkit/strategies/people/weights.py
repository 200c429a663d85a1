"""The ``people`` model's weights files: what they hold, where they are found, and binding them to a ruleset.

A weights file (``.npz``) holds ``bid_w`` float64[N_KINDS, N_BID], ``play_w`` float64[N_CONTEXTS, N_PLAY],
optionally ``best_w`` float64[N_CONTEXTS, N_PLAY] (the best-card weights ``simkit train best`` adds, which pimc
plays where its search is weakest: simkit.strategies.people.best), optionally ``best_mlp`` float64[units, MLP_ROW]
(the best-card network ``simkit train best --mlp-hidden`` adds on top of them: each hidden unit's input weights of
the play features, of each context, its bias and its output weight) and ``meta``, a JSON string: the format, the
ruleset it was trained for (name, deck, contracts, tariff), the training data (file name, sha256, deals, games,
records skipped), the training settings, the validation metrics (``best``: those of the best-card weights), the
feature names and the play contexts (role groups, phases of the deal): a file made for other features or
contexts is refused (retrain it).

A model is valid for a ruleset with the same **deck, contracts and tariff** as the one it was fitted under (what
the people bid for and with); run_away_min, Kontra/Re and Tout settings may differ (people bid no Tout in the real
games; they double as the heuristic). Files are looked up in ``$SIMKIT_PEOPLE_WEIGHTS`` (a file, or a directory
of ``*.npz``) first, then in the package's ``weights/`` directory (``sauspiel.npz``, ``sauspiel-short.npz``).
"""

from __future__ import annotations

import json
import os
from functools import lru_cache
from pathlib import Path

import numpy as np

from simkit.strategies.people import features as F
from simkit.strategies.people import model as M

FORMAT = 1
PACKAGED = Path(__file__).resolve().parent / "weights"
ENV = "SIMKIT_PEOPLE_WEIGHTS"
MLP_ROW = F.MLP_ROW  # a hidden unit of the best-card network: features, contexts, bias, output


def _error(msg: str):
    from simkit.strategies.strategy import StrategyError

    return StrategyError(msg, strategy="people")


def ruleset_key(rules) -> dict:
    """What a model must share with the ruleset it plays under (see the module doc)."""
    return {"deck": rules.deck, "contracts": sorted(rules.contracts), "tariff": rules.to_dict()["tariff"]}


def save(path: str | Path, bid_w: np.ndarray, play_w: np.ndarray, meta: dict, best_w: np.ndarray | None = None,
         best_mlp: np.ndarray | None = None, tie_mlp: np.ndarray | None = None) -> Path:
    """Write a weights file atomically (a temporary name, then renamed); ``best_w``, where given, are the best-card
    weights (simkit.strategies.people.best), described by ``meta["best"]``, ``best_mlp`` their network and
    ``tie_mlp`` the tie network (on top of them, for pimc's searched decisions)."""
    path = Path(path)
    meta = {"format": FORMAT, "features": {"bid": list(F.BID_FEATURES), "play": list(F.PLAY_FEATURES)},
            "contexts": list(F.GROUP_NAMES), "phases": F.N_PHASES, **meta}
    arrays = {"bid_w": np.asarray(bid_w, np.float64), "play_w": np.asarray(play_w, np.float64)}
    if best_w is not None:
        arrays["best_w"] = np.asarray(best_w, np.float64)
    if best_mlp is not None:
        arrays["best_mlp"] = np.asarray(best_mlp, np.float64)
    if tie_mlp is not None:
        arrays["tie_mlp"] = np.asarray(tie_mlp, np.float64)
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "wb") as f:
        np.savez(f, **arrays, meta=np.array(json.dumps(meta, sort_keys=True)))
    os.replace(tmp, path)
    return path


@lru_cache(maxsize=16)
def _load(path: str, mtime: float) -> tuple[np.ndarray, np.ndarray, dict]:
    try:
        with np.load(path, allow_pickle=False) as z:
            meta = json.loads(str(z["meta"]))
            bid_w, play_w = z["bid_w"], z["play_w"]
    except Exception as e:
        raise _error(f"people weights {path} cannot be read ({type(e).__name__}: {e})") from None
    if meta.get("format") != FORMAT or meta.get("features") != {"bid": list(F.BID_FEATURES),
                                                                 "play": list(F.PLAY_FEATURES)} \
            or meta.get("contexts") != list(F.GROUP_NAMES) or meta.get("phases", 1) != F.N_PHASES:
        raise _error(f"people weights {path} were trained for another model version; retrain them with "
                     f"`simkit train people`")
    if bid_w.shape != (M.N_KINDS, F.N_BID) or play_w.shape != (F.N_CONTEXTS, F.N_PLAY):
        raise _error(f"people weights {path} have arrays of the wrong shape")
    return bid_w, play_w, meta


def _file(path: str | Path) -> tuple[str, float]:
    """(the resolved path, its mtime: the loaders' cache key) of a weights file; a missing one is a StrategyError."""
    p = Path(path)
    if not p.is_file():
        raise _error(f"people weights file {p} does not exist")
    return str(p.resolve()), p.stat().st_mtime


def load(path: str | Path) -> tuple[np.ndarray, np.ndarray, dict]:
    """(bid_w, play_w, meta) of a weights file; a missing or unreadable file is a StrategyError."""
    return _load(*_file(path))


def _is_network(a: np.ndarray) -> bool:
    """A network's array: float64[units, MLP_ROW], finite."""
    return a.ndim == 2 and a.shape[1] == MLP_ROW and bool(np.all(np.isfinite(a)))


#: the optional arrays: what a wrong one is refused as, and the check it must pass
_OPTIONAL = {"best_w": ("best-card weights of the wrong shape", lambda a: a.shape == (F.N_CONTEXTS, F.N_PLAY)),
             "best_mlp": ("a best-card network of the wrong shape or with non-finite values", _is_network),
             "tie_mlp": ("a tie network of the wrong shape or with non-finite values", _is_network)}


@lru_cache(maxsize=32)
def _load_optional(path: str, mtime: float, name: str) -> np.ndarray | None:
    _load(path, mtime)  # the file's checks
    with np.load(path, allow_pickle=False) as z:
        if name not in z.files:
            return None
        a = z[name]
    what, ok = _OPTIONAL[name]
    if not ok(a):
        raise _error(f"people weights {path} have {what}")
    return a


def load_best(path: str | Path) -> np.ndarray | None:
    """The best-card weights float64[N_CONTEXTS, N_PLAY] of a weights file (``simkit train best``), or None if it
    has none."""
    return _load_optional(*_file(path), "best_w")


def load_best_mlp(path: str | Path) -> np.ndarray | None:
    """The best-card network float64[units, MLP_ROW] of a weights file (``simkit train best --mlp-hidden``), or
    None if it has none."""
    return _load_optional(*_file(path), "best_mlp")


def load_tie_mlp(path: str | Path) -> np.ndarray | None:
    """The tie network float64[units, MLP_ROW] of a weights file (``simkit train tie``: pimc's
    searched decisions' tie-break), or None if it has none."""
    return _load_optional(*_file(path), "tie_mlp")


def candidates() -> list[Path]:
    """Every weights file, in lookup order."""
    out: list[Path] = []
    env = os.environ.get(ENV)
    if env:
        p = Path(env)
        if p.is_file():
            out.append(p)
        elif p.is_dir():
            out += sorted(p.glob("*.npz"))
        else:
            raise _error(f"${ENV} names {env}, which is neither a weights file nor a directory")
    if PACKAGED.is_dir():
        out += sorted(PACKAGED.glob("*.npz"))
    return out


def find(rules) -> tuple[Path, np.ndarray, np.ndarray, dict]:
    """The first weights file trained for a ruleset like ``rules``; a StrategyError naming what exists if none."""
    want = ruleset_key(rules)
    seen = []
    files = candidates()
    for p in files:
        bid_w, play_w, meta = load(p)
        if meta.get("ruleset", {}).get("key") == want:
            return p, bid_w, play_w, meta
        seen.append(meta.get("ruleset", {}).get("name", p.stem))
    if not files:
        raise _error(f"no people weights found (looked in ${ENV} and {PACKAGED}); train them with "
                     f"`simkit train people`")
    raise _error(f"no people weights trained for ruleset {rules.name!r} (deck, contracts and tariff must match the "
                 f"training ruleset); there are weights for: {', '.join(seen)}. Use one of those rulesets, or train "
                 f"weights for this one with `simkit train people --rules ...` and point ${ENV} at them")


def bind(config: np.ndarray, rules) -> np.ndarray:
    """The config a run passes to the kernel: the heuristic's part bound to ``rules`` (its value table, for
    Kontra and Re), this model's named entries, then the weights of ``rules``."""
    _, bid_w, play_w, _ = find(rules)
    return bind_arrays(config, rules, bid_w, play_w)


def bind_arrays(config: np.ndarray, rules, bid_w: np.ndarray, play_w: np.ndarray) -> np.ndarray:
    """:func:`bind` with the given weights instead of a file's (training plays with weights it has not saved)."""
    from simkit.strategies import values

    config = np.asarray(config, np.float64)
    named = config[: min(len(config), M.WEIGHTS_AT)]
    out = np.zeros(M.CONFIG_LEN)
    heur = values.bind(named, rules)[: M.WEIGHTS_AT]  # the named entries kept, the value table behind them
    out[: len(heur)] = heur
    out[M.BID_W_AT: M.PLAY_W_AT] = bid_w.ravel()
    out[M.PLAY_W_AT:] = play_w.ravel()
    return out
