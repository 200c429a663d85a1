"""Duplicate play: the same deals twice, strategy A on seats 0 and 2 and B on 1 and 3, then the other way round,
so the luck of the cards cancels and what is left is play.

A deal's **score** for A is its seat pair's payout per play, averaged over the two seatings:
``((p0 + p2) with A on 0+2, plus (p1 + p3) with A on 1+3) / 2``, in tariff units. The game is zero-sum, so B's
pair loses exactly that: A - B per seat pair. When A and B choose alike on a deal, its score is exactly 0.
"""

from __future__ import annotations

import numpy as np

from simkit.rules.contracts import KIND_NAMES, RAMSCH

#: the role of A's seat pair in one play of a deal ("ramsch": a Ramsch, everyone for himself; club rules)
ROLES = ("declaring", "defending", "split", "passed", "ramsch")


def play_both_seatings(a, b, seed: int, start: int, n: int, rules) -> dict[str, np.ndarray]:
    """Deals ``start .. start+n-1`` of run ``seed`` played with A on 0+2 (seating 0) and with A on 1+3
    (seating 1). Returns per deal ``score`` (float64) and, per deal and seating (shape [n, 2]): ``a_payout`` (A's
    pair's payout), ``kind`` (-1 passed), ``tout``, ``declarer`` (of a Ramsch: the loser, or the Durchmarsch
    winner), ``role`` (index into ROLES), ``knocks`` (Klopfen: how many seats knocked; 0 without)."""
    from simkit.engine.game import play_games

    out = {k: np.zeros((n, 2), np.int64) for k in ("a_payout", "kind", "declarer", "role", "knocks")}
    out["tout"] = np.zeros((n, 2), np.bool_)
    for seating, seats in enumerate(((a, b, a, b), (b, a, b, a))):
        g = play_games(seed, start, n, ruleset=rules, seats=seats)
        mine = np.array([0, 2] if seating == 0 else [1, 3])
        pay = np.asarray(g["payouts"], np.int64)
        out["a_payout"][:, seating] = pay[:, mine].sum(axis=1)
        kind = np.asarray(g["kind"], np.int64)
        decl = np.asarray(g["declarer"], np.int64)
        partner = np.asarray(g["partner"], np.int64)
        out["kind"][:, seating] = kind
        out["tout"][:, seating] = np.asarray(g["tout"], np.bool_)
        out["declarer"][:, seating] = decl
        knocked = np.asarray(g["knocked"], np.int64)
        out["knocks"][:, seating] = sum((knocked >> s) & 1 for s in range(4))
        a_decl = np.isin(decl, mine)
        a_partner = np.isin(partner, mine)
        has_partner = partner >= 0
        role = np.where(a_decl, 0, 1)  # declaring / defending
        role = np.where(has_partner & (a_decl != a_partner), 2, role)  # one seat on each side
        out["role"][:, seating] = np.where(kind < 0, 3, np.where(kind == RAMSCH, 4, role))
    out["score"] = out["a_payout"].sum(axis=1) / 2.0
    return out


def contract_labels(kind: np.ndarray, tout: np.ndarray) -> np.ndarray:
    """``rufspiel``, ``solo``, ..., with `` tout``; ``pass`` for a passed deal."""
    names = np.array(("pass",) + KIND_NAMES + tuple(k + " tout" for k in KIND_NAMES), dtype=object)
    idx = np.where(kind < 0, 0, kind + 1 + np.where(tout, len(KIND_NAMES), 0))
    return names[idx]
