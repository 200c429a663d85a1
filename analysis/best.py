"""The best declaration per hand shape (issue 13): hands of a run's declarers, each valued by ``simkit.evaluate``.

    import analysis as an
    an.best_declaration_by_shape(ds, hands=3, deals=500)

A shape (``5-2-1-0``, analysis.features) is not a hand, so each (contract, Tout, shape) row takes the first
``hands`` declarer hands of the run with that contract and shape (in deal order, so the choice is reproducible) and
evaluates each at its declarer's seat: every declaration it may make and passing, ``deals`` sampled deals, the
heuristic at all seats (docs/evaluate.md). Per row: the option that is best most often, the share of the hands where
it is best, the mean value of each hand's best option, and the mean value of the contract the run's bidding chose for
those hands; ``gain`` is the difference (what choosing by value would add per deal, for these hands).
"""

from __future__ import annotations

import numpy as np
import polars as pl

from analysis.dataset import KIND_CODE, SUIT_CODE, _batches, _played, as_dataset, declarer_hands
from analysis.features import hand_features, shape_label

COLUMNS = ("contract", "tout", "shape", "hands", "best", "best_share", "best_payout", "declared_payout", "gain")


def best_declaration_by_shape(ds, shapes: pl.DataFrame | None = None, *, hands: int = 3, deals: int = 500,
                              seed: int = 0, max_rows: int = 1 << 22) -> pl.DataFrame:
    """Per (``contract``, ``tout``, ``shape``) row of ``shapes`` (default: every such row of the run; the report
    passes the rows its expected-points table shows): ``hands`` evaluated (fewer where the run has fewer, among its
    first ``max_rows`` deals), ``best`` (the option best most often; ties: the earlier hand's), ``best_share``,
    ``best_payout`` (mean over the hands of the best option's mean payout, tariff units per deal),
    ``declared_payout`` (the same for the contract the run declared), ``gain`` (their difference)."""
    from simkit.evaluate.api import _label, evaluate_hand
    from simkit.rules.contracts import Contract

    ds = as_dataset(ds)
    rules = ds.rules
    wanted: dict[tuple, list] = {}
    if shapes is not None:
        for r in shapes.select("contract", "tout", "shape").iter_rows():
            wanted[(str(r[0]), bool(r[1]), str(r[2]))] = []
    read = [c for c in ["deal_id", "contract", "tout", "suit", "declarer"] if c in ds.columns]
    if ds.has_hands:
        read += [f"hand_{s}" for s in range(4)]
    seen = 0
    for raw in _batches(ds, read):
        df = raw.filter(_played())
        seen += raw.height
        if df.height:
            hand = declarer_hands(ds, df)
            kind = df["contract"].cast(pl.String).replace_strict(KIND_CODE, return_dtype=pl.Int8).to_numpy()
            suit = (df["suit"].cast(pl.String).replace_strict(SUIT_CODE, default=-1, return_dtype=pl.Int8)
                    .fill_null(-1).to_numpy() if "suit" in df.columns else np.full(df.height, -1, np.int8))
            shape = hand_features(hand, kind, suit)["shape"]
            tout = df["tout"].to_numpy() if "tout" in df.columns else np.zeros(df.height, bool)
            seat = df["declarer"].cast(pl.Int64).to_numpy()
            frame = pl.DataFrame({"contract": df["contract"].cast(pl.String), "tout": tout, "shape": shape,
                                  "i": np.arange(df.height)})
            firsts = frame.group_by(["contract", "tout", "shape"], maintain_order=True).head(hands)
            for contract, t, code, i in firsts.iter_rows():
                key = (contract, bool(t), shape_label(int(code)))
                if shapes is None:
                    wanted.setdefault(key, [])
                got = wanted.get(key)
                if got is not None and len(got) < hands:
                    c = Contract(int(kind[i]), int(suit[i]) if suit[i] >= 0 else None, bool(tout[i]))
                    got.append((int(hand[i]), int(seat[i]), _label(c)))
        if seen >= max_rows or (shapes is not None and all(len(v) >= hands for v in wanted.values())):
            break
    rows = []
    for (contract, tout, shape), found in wanted.items():
        best_labels, best_pay, declared_pay = [], [], []
        for mask, seat, declared in found:
            res = evaluate_hand(mask, seat=seat, rules=rules, deals=deals, seed=seed, workers=1)
            by = {r["declaration"]: r["payout"] for r in res.rows}
            best_labels.append(res.attrs["recommendation"])
            best_pay.append(by[res.attrs["recommendation"]])
            declared_pay.append(by.get(declared, float("nan")))
        if found:
            counts = {x: best_labels.count(x) for x in best_labels}
            best = max(best_labels, key=lambda x: (counts[x], -best_labels.index(x)))
            bp, dp = float(np.mean(best_pay)), float(np.mean(declared_pay))
            rows.append((contract, tout, shape, len(found), best, counts[best] / len(found), bp, dp, bp - dp))
        else:
            rows.append((contract, tout, shape, 0, None, None, None, None, None))
    schema = {"contract": pl.String, "tout": pl.Boolean, "shape": pl.String, "hands": pl.Int64, "best": pl.String,
              "best_share": pl.Float64, "best_payout": pl.Float64, "declared_payout": pl.Float64,
              "gain": pl.Float64}
    return pl.DataFrame(rows, schema=schema, orient="row")


__all__ = ["COLUMNS", "best_declaration_by_shape"]
