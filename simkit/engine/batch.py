"""Thin Python wrappers around the kernels, returning dicts of numpy arrays (one row per deal).

Result fields (every function below returns these, plus its own inputs where noted):

====================  ==============  =========================================================================
field                 dtype           meaning
====================  ==============  =========================================================================
declarer_points       uint8           card points of the declaring side (declarer + partner in a Rufspiel)
defender_points       uint8           card points of the other side (counted separately; sums to 120)
declarer_tricks       uint8           tricks of the declaring side
partner               int8            seat of the called ace's holder (Rufspiel), -1 for solo types
laufende              uint8           Laufende of the deal (whoever holds them)
laufende_mit          bool            the declaring side holds them
schneider             bool            (False in a Tout)
schwarz               bool            (False in a Tout)
won                   bool            the declaring side won
price                 int64           price per RULES 2.6, Kontra/Re included (x 2**doublings)
payouts               int32[n, 4]     per seat, zero-sum
trace_legal           uint32[n, 4*h]  (trace=True) legal mask of each decision
trace_played          int8[n, 4*h]    (trace=True) card played at each decision
====================  ==============  =========================================================================

Trace layout: column ``4*t + k`` is the k-th card of trick t (k = 0 is the trick's leader, then clockwise), so
the seat of column ``4*t + k`` is ``(leader_t + k) % 4`` with leader_0 = 0 and leader_{t+1} the winner of trick t.
``h`` is the hand size (8 long deck, 6 short deck).

Rows whose declarer is negative (invalid setups) are not played: results 0/False, partner -1, trace untouched (0).
"""

from __future__ import annotations

import numpy as np

from simkit.engine import kernel
from simkit.rules.contracts import parse_kind
from simkit.rules.ruleset import Ruleset
from simkit.rules.tables import RuleTables, build_tables

_TABLE_CACHE: dict[Ruleset, RuleTables] = {}


def tables_for(ruleset: Ruleset | None) -> RuleTables:
    """Rule tables of a ruleset (memoised; ``None`` is the default ruleset)."""
    ruleset = ruleset or Ruleset()
    t = _TABLE_CACHE.get(ruleset)
    if t is None:
        t = _TABLE_CACHE[ruleset] = build_tables(ruleset)
    return t


def _table_args(t: RuleTables) -> tuple:
    return (t.strength, t.eff_suit, t.suit_mask, t.laufende_order, t.n_trumps, t.lauf_min, t.base_price,
            t.points, t.params)


def _result_arrays(n: int) -> dict[str, np.ndarray]:
    return dict(
        declarer_points=np.empty(n, np.uint8),
        defender_points=np.empty(n, np.uint8),
        declarer_tricks=np.empty(n, np.uint8),
        partner=np.empty(n, np.int8),
        laufende=np.empty(n, np.uint8),
        laufende_mit=np.empty(n, np.bool_),
        schneider=np.empty(n, np.bool_),
        schwarz=np.empty(n, np.bool_),
        won=np.empty(n, np.bool_),
        price=np.empty(n, np.int64),
        payouts=np.empty((n, 4), np.int32),
    )


_RESULT_ORDER = ("declarer_points", "defender_points", "declarer_tricks", "partner", "laufende", "laufende_mit",
                 "schneider", "schwarz", "won", "price", "payouts")


def _col(x, n: int, dtype, name: str) -> np.ndarray:
    a = np.asarray(x)
    if a.ndim == 0:
        a = np.full(n, a)
    if a.shape != (n,):
        raise ValueError(f"{name} must be a scalar or have shape ({n},), got {a.shape}")
    return np.ascontiguousarray(a, dtype=dtype)


def play_random(hands, variants, called_suits, touts, declarers, doublings=0, ruleset: Ruleset | None = None,
                seed: int = 0, start_index: int = 0, trace: bool = False, policy: int = kernel.POLICY_RANDOM,
                ) -> dict[str, np.ndarray]:
    """Play and score given deals with a play policy (default: uniform random legal play).

    ``hands`` uint32[n, 4] (seat 0 leads the first trick); ``variants`` 0..14 (simkit.rules.tables; build them
    with ``variant_of(kind, suit)``); ``called_suits`` the called suit 0, 1 or 3 for Rufspiel rows (ignored, use
    -1, for other variants); ``touts`` bool; ``declarers`` seat 0..3 (negative: skip the row); ``doublings`` 0..2
    (Kontra, Re: price x 2**d). Per-row arguments may be scalars. Deal i draws its random play from the
    splitmix64 stream (``seed``, ``start_index + i``, STREAM_PLAY): the same row gives the same play however the
    batch is split. Returns the result fields of the module docstring (``trace_legal``/``trace_played`` only when
    ``trace``).
    """
    hands = np.ascontiguousarray(hands, dtype=np.uint32)
    if hands.ndim != 2 or hands.shape[1] != 4:
        raise ValueError(f"hands must have shape (n, 4), got {hands.shape}")
    n = hands.shape[0]
    t = tables_for(ruleset)
    variants = _col(variants, n, np.int8, "variants")
    called = _col(called_suits, n, np.int8, "called_suits")
    touts = _col(touts, n, np.bool_, "touts")
    decl = _col(declarers, n, np.int8, "declarers")
    dbl = _col(doublings, n, np.int8, "doublings")
    play = decl >= 0
    if ((variants < 0) | (variants > 14)).any():
        raise ValueError("variants must be 0..14 (see simkit.rules.tables)")
    if (decl > 3).any() or (dbl < 0).any() or (dbl > 30).any():
        raise ValueError("declarers must be seats 0..3 (negative: skip the row); doublings 0..30")
    ruf = (variants == 0) & play
    if (ruf & ~np.isin(called, (0, 1, 3))).any():
        raise ValueError("every Rufspiel row needs a called suit 0 (E), 1 (G) or 3 (S)")
    if (ruf & touts).any():
        raise ValueError("a Rufspiel cannot be played Tout")
    if (ruf & ((hands[np.arange(n), np.maximum(decl, 0)] >> (8 * called.astype(np.uint32) + 7) & 1) != 0)).any():
        raise ValueError("a Rufspiel declarer cannot call an ace he holds")
    out = _result_arrays(n)
    ncols = 4 * t.hand_size
    tl = np.zeros((n if trace else 0, ncols), np.uint32)
    tp = np.zeros((n if trace else 0, ncols), np.int8)
    kernel.play_batch(hands, variants, called, touts, decl, dbl, np.int64(policy), np.uint64(seed),
                      np.int64(start_index), *_table_args(t), *(out[k] for k in _RESULT_ORDER), tl, tp)
    if trace:
        out["trace_legal"] = tl
        out["trace_played"] = tp
    return out


def simulate_random(seed: int, start: int, n: int, kind, ruleset: Ruleset | None = None, tout_share: float = 0.0,
                    policy: int = kernel.POLICY_RANDOM) -> dict[str, np.ndarray]:
    """Deal, set up a random contract of ``kind`` (as deal.random_setups) and play deals ``start .. start+n-1`` in
    one fused kernel pass. Returns the setup columns (``hands``, ``variants``, ``called_suits``, ``touts``,
    ``declarers``; ``doublings`` are 0) and the result fields. Identical to ``random_setups`` + ``play_random``
    with the same seed and start."""
    t = tables_for(ruleset)
    k = parse_kind(kind)
    out = dict(hands=np.empty((n, 4), np.uint32), variants=np.empty(n, np.int8),
               called_suits=np.empty(n, np.int8), touts=np.empty(n, np.bool_), declarers=np.empty(n, np.int8))
    res = _result_arrays(n)
    kernel.simulate_batch(np.uint64(seed), np.int64(start), np.int64(k), float(tout_share), np.int64(policy),
                          *_table_args(t), np.uint32(t.deck_mask), out["hands"], out["variants"],
                          out["called_suits"], out["touts"], out["declarers"], *(res[k] for k in _RESULT_ORDER))
    out.update(res)
    return out
