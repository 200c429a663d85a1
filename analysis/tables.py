"""The analysis API: each function takes a run (Dataset, run directory or polars frame) and returns a DataFrame.

    import analysis as an
    ds = an.scan("runs/demo")
    an.win_rates(ds)                          # per contract and Tout
    an.win_rates(ds, by=["declarer"])         # ... and per seat; any of BASE_KEYS and the hand features
    an.laufende_frequency(ds)                 # distribution (+ exact for forced runs)
    an.expected_points(ds, by="shape")        # per contract and declarer hand shape
"""

from __future__ import annotations

import numpy as np
import polars as pl

from analysis.dataset import (
    SUMS,
    AnalysisError,
    Dataset,
    aggregate,
    as_dataset,
    finish,
    label,
)
from analysis.exact import exact_laufende
from simkit.stats import chi_square_gof, diff_means, diff_proportions, wilson
from simkit.rules.contracts import KIND_NAMES, Contract

DEFAULT_KEYS = ["contract", "tout"]


def _keys(by) -> list[str]:
    by = [by] if isinstance(by, str) else list(by or [])
    return DEFAULT_KEYS + [k for k in by if k not in DEFAULT_KEYS]


def win_rates(ds, by=None) -> pl.DataFrame:
    """Per contract and Tout (plus the ``by`` keys: seat ``declarer``, ``doubling``, ``suit``, ``strategy`` (the
    declarer's), hand features ``trumps``, ``ober``, ``unter``, ``ober_unter``, ``aces``, ``free``, ``shape``,
    ``hand_points``, ...): games, wins, win rate with a 95% Wilson interval, mean card points of the declaring
    side and mean payout to the declarer's seat (tariff units; a Rufspiel partner gets the same), with 95%
    intervals."""
    return finish(aggregate(ds, _keys(by)))


def expected_points(ds, by="shape") -> pl.DataFrame:
    """Per contract (and Tout) and declarer hand feature(s) ``by`` (default the shape key ``5-2-1-0``): games,
    mean card points of the declaring side, mean payout to the declarer, win rate, each with a 95% interval."""
    return win_rates(ds, by=by)


def contract_mix(ds) -> pl.DataFrame:
    """Every contract (and Tout) with its number of deals and share of all deals, passed deals included; forced
    runs also count the impossible deals (kept as ``pass`` rows with ``impossible`` true)."""
    ds = as_dataset(ds)
    cols = ds.columns
    lf = ds.lf.select(pl.col("contract").cast(pl.String), pl.col("tout"),
                      (pl.col("impossible") if "impossible" in cols else pl.lit(False)).alias("impossible"))
    df = (lf.group_by("contract", "tout", "impossible").agg(pl.len().cast(pl.Int64).alias("deals"))
          .collect(engine="streaming"))
    total = df["deals"].sum()
    df = df.with_columns(
        contract=pl.when(pl.col("impossible")).then(pl.lit("impossible")).otherwise(pl.col("contract")))
    df = df.group_by("contract", "tout").agg(pl.col("deals").sum())
    order = {n: i for i, n in enumerate(("pass", "impossible") + KIND_NAMES)}
    df = df.with_columns(
        label=pl.struct("contract", "tout").map_elements(
            lambda r: "impossible forced Rufspiel" if r["contract"] == "impossible" else label(r["contract"], r["tout"]),
            return_dtype=pl.String),
        share=pl.col("deals") / total,
        _o=pl.col("contract").replace_strict(order, default=99, return_dtype=pl.Int64))
    return df.sort("_o", "tout").drop("_o").select("contract", "tout", "label", "deals", "share")


def seat_effects(ds) -> pl.DataFrame:
    """Per contract and declaring seat (0 = forehand): games, share of the contract's games, win rate and mean
    payout to the declarer; plus per seat the mean payout over all deals (``seat_summary``)."""
    df = win_rates(ds, by=["declarer"])
    tot = df.group_by("contract", "tout").agg(pl.col("games").sum().alias("_all"))
    return df.join(tot, on=["contract", "tout"]).with_columns(
        seat_share=pl.col("games") / pl.col("_all")).drop("_all").sort("contract", "tout", "declarer")


def seat_summary(ds) -> pl.DataFrame:
    """Per seat over all deals (passed included): how often it declares, and its mean payout per deal with a 95%
    interval (whatever its role)."""
    from simkit.stats import mean_interval

    ds = as_dataset(ds)
    aggs = []
    for s in range(4):
        p = pl.col(f"payout_{s}").cast(pl.Int64)
        aggs += [p.sum().alias(f"s{s}"), (p * p).sum().alias(f"q{s}"),
                 (pl.col("declarer") == s).cast(pl.Int64).sum().alias(f"d{s}")]
    r = ds.lf.select(aggs + [pl.len().cast(pl.Int64).alias("n")]).collect(engine="streaming").row(0, named=True)
    rows = []
    for s in range(4):
        m, lo, hi = mean_interval(r["n"], r[f"s{s}"], r[f"q{s}"])
        rows.append({"seat": s, "deals": r["n"], "declares": r[f"d{s}"], "declare_share": r[f"d{s}"] / r["n"],
                     "mean_payout": float(m), "payout_low": float(lo), "payout_high": float(hi)})
    return pl.DataFrame(rows)


def payout_distribution(ds) -> pl.DataFrame:
    """Per contract and Tout: each value of the declarer's payout, its count and share of the contract's games."""
    from analysis.dataset import _base_columns, _played

    ds = as_dataset(ds)
    df = (ds.lf.filter(_played()).select(_base_columns(ds, []))
          .group_by("contract", "tout", "payout").agg(pl.len().cast(pl.Int64).alias("games"))
          .collect(engine="streaming"))
    return df.with_columns(share=pl.col("games") / pl.col("games").sum().over("contract", "tout")).sort(
        "contract", "tout", "payout")


# ------------------------------------------------------------------------------------------ Laufende

#: contracts without Laufende (RULES.md 4.2, 4.4)
NO_LAUFENDE = ("bettel", "ramsch")


def _laufende_min(ds: Dataset, contract: str) -> int:
    t = ds.rules.tariff
    return t.laufende_min_wenz_geier if contract in ("wenz", "geier") else t.laufende_min


def laufende_frequency(ds) -> pl.DataFrame:
    """Per contract (and Tout): the distribution of Laufende, one row per (mit, count): ``games``, ``share`` of the
    contract's games, ``paid`` (count at least the ruleset's minimum) and, for forced-contract runs, ``exact``: the
    exact probability (analysis.exact; null otherwise). ``laufende_mit`` true: the declaring side holds them.
    Rows for every count 1..max that has games or a nonzero exact probability. A Bettel and a Ramsch have no
    Laufende (RULES.md 4.2, 4.4) and are left out."""
    ds = as_dataset(ds)
    from analysis.dataset import _played

    df = (ds.lf.filter(_played() & ~pl.col("contract").cast(pl.String).is_in(NO_LAUFENDE))
          .select(pl.col("contract").cast(pl.String), "tout", pl.col("laufende").cast(pl.Int64),
                  pl.col("laufende_mit").cast(pl.Boolean))
          .group_by("contract", "tout", "laufende_mit", "laufende").agg(pl.len().cast(pl.Int64).alias("games"))
          .collect(engine="streaming"))
    schema = {"contract": pl.String, "tout": pl.Boolean, "laufende_mit": pl.Boolean, "laufende": pl.Int64,
              "exact": pl.Float64}
    forced = ds.forced
    if forced is not None and df.height:
        c, _ = forced
        ex = exact_laufende(c, ds.rules.deck)
        exact = pl.DataFrame([{"contract": c.name, "tout": c.tout, "laufende_mit": mit, "laufende": k, "exact": p}
                              for (mit, k), p in ex.items() if p > 0], schema=schema)
        df = df.join(exact, on=["contract", "tout", "laufende_mit", "laufende"], how="full", coalesce=True)
        df = df.with_columns(pl.col("games").fill_null(0))
    else:
        df = df.with_columns(exact=pl.lit(None, pl.Float64))
    mins = {n: _laufende_min(ds, n) for n in KIND_NAMES}
    df = df.with_columns(
        share=pl.col("games") / pl.col("games").sum().over("contract", "tout"),
        paid=pl.col("laufende") >= pl.col("contract").replace_strict(mins, return_dtype=pl.Int64),
        label=pl.struct("contract", "tout").map_elements(lambda r: label(r["contract"], r["tout"]),
                                                         return_dtype=pl.String))
    return df.select("contract", "tout", "label", "laufende_mit", "laufende", "games", "share", "exact", "paid") \
        .sort("contract", "tout", "laufende_mit", "laufende", descending=[False, False, True, False])


def laufende_summary(ds, freq: pl.DataFrame | None = None) -> pl.DataFrame:
    """Per contract: games, share of games with Laufende paid (with a Wilson interval), mean Laufende, the share
    held by the declaring side, and for forced runs the exact share paid and a chi-square goodness of fit of the
    simulated (mit, count) distribution to the exact one (``chi2``, ``df``, ``p_value``)."""
    ds = as_dataset(ds)
    freq = laufende_frequency(ds) if freq is None else freq
    rows = []
    for (contract, tout), g in freq.group_by("contract", "tout", maintain_order=True):
        n = int(g["games"].sum())
        paid = int(g.filter(pl.col("paid"))["games"].sum())
        lo, hi = wilson(paid, n)
        row = {"contract": contract, "tout": tout, "label": label(contract, tout), "games": n,
               "paid_share": paid / n if n else float("nan"), "paid_low": float(lo), "paid_high": float(hi),
               "mean_laufende": float((g["laufende"] * g["games"]).sum() / n) if n else float("nan"),
               "mit_share": float(g.filter(pl.col("laufende_mit"))["games"].sum() / n) if n else float("nan"),
               "exact_paid_share": None, "chi2": None, "df": None, "p_value": None}
        if g["exact"].null_count() < g.height:
            e = g["exact"].fill_null(0.0).to_numpy()
            row["exact_paid_share"] = float(g.filter(pl.col("paid"))["exact"].fill_null(0).sum())
            fit = chi_square_gof(g["games"].to_numpy(), e)
            row.update(chi2=fit["chi2"], df=fit["df"], p_value=fit["p_value"])
        rows.append(row)
    schema = {"contract": pl.String, "tout": pl.Boolean, "label": pl.String, "games": pl.Int64,
              "paid_share": pl.Float64, "paid_low": pl.Float64, "paid_high": pl.Float64,
              "mean_laufende": pl.Float64, "mit_share": pl.Float64, "exact_paid_share": pl.Float64,
              "chi2": pl.Float64, "df": pl.Int64, "p_value": pl.Float64}
    return pl.DataFrame(rows, schema=schema)


# ------------------------------------------------------------------------------------------ compare

def compare(ds_a, ds_b, by=None) -> pl.DataFrame:
    """Run A minus run B per contract (and Tout, plus ``by``): games of each, win rates and their difference with
    a 95% interval (Newcombe's hybrid score interval), mean payouts to the declarer and their difference with a
    95% interval (normal, unequal variances). Contracts played in only one run have null differences."""
    keys = _keys(by)
    a = aggregate(ds_a, keys)
    b = aggregate(ds_b, keys)
    j = a.join(b, on=keys, how="full", coalesce=True, suffix="_b")
    j = j.with_columns([pl.col(c).fill_null(0) for c in SUMS] + [pl.col(c + "_b").fill_null(0) for c in SUMS])
    na, nb = j["games"].to_numpy(), j["games_b"].to_numpy()
    d, lo, hi = diff_proportions(j["wins"].to_numpy(), na, j["wins_b"].to_numpy(), nb)
    m, mlo, mhi = diff_means(na, j["payout_sum"].to_numpy(), j["payout_sq"].to_numpy(),
                             nb, j["payout_sum_b"].to_numpy(), j["payout_sq_b"].to_numpy())
    with np.errstate(invalid="ignore", divide="ignore"):
        out = j.select(keys).with_columns(
            label=pl.Series([label(c, t) for c, t in zip(j["contract"].to_list(), j["tout"].to_list())]),
            games_a=na, games_b=nb,
            win_rate_a=j["wins"].to_numpy() / na, win_rate_b=j["wins_b"].to_numpy() / nb,
            win_diff=d, win_diff_low=lo, win_diff_high=hi,
            payout_a=j["payout_sum"].to_numpy() / na, payout_b=j["payout_sum_b"].to_numpy() / nb,
            payout_diff=m, payout_diff_low=mlo, payout_diff_high=mhi)
    return out.fill_nan(None).sort(keys)


def forced_contract_of(ds) -> Contract | None:
    f = as_dataset(ds).forced
    return f[0] if f else None


__all__ = ["win_rates", "expected_points", "contract_mix", "seat_effects", "seat_summary", "payout_distribution",
           "laufende_frequency", "laufende_summary", "compare", "AnalysisError"]


# ------------------------------------------------------------------------------------------ double dummy

def _dd_views(ds) -> tuple[Dataset, Dataset]:
    """(actual, double dummy): the played deals that have a double-dummy value, once with their real result and once
    with ``won``/``declarer_points`` replaced by ``dd_won``/``dd_points``. In memory: runs with ``--dd`` are small
    (solving costs milliseconds a deal)."""
    ds = as_dataset(ds)
    if "dd_points" not in ds.columns:
        raise AnalysisError("the run has no double-dummy columns (make it with `simkit run --dd`)")
    lf = ds.lf.filter(pl.col("dd_points").is_not_null())
    actual = Dataset(lf, ds.manifest, [], ds.path)
    dd = Dataset(lf.with_columns(won=pl.col("dd_won"), declarer_points=pl.col("dd_points")), ds.manifest, [],
                 ds.path)
    return actual, dd


def double_dummy(ds) -> pl.DataFrame:
    """Per contract (and Tout), on the deals of a ``--dd`` run: the declaring side's actual win rate and mean card
    points next to the double-dummy ones (all hands open, perfect play by all four), and the mean of
    ``dd_points - declarer_points`` (what the declaring side left on the table, or won from the defenders' errors
    when negative), each with a 95% interval."""
    actual, dd = _dd_views(ds)
    a = finish(aggregate(actual, DEFAULT_KEYS))
    d = finish(aggregate(dd, DEFAULT_KEYS)).select(
        *DEFAULT_KEYS, pl.col("win_rate").alias("dd_win_rate"), pl.col("win_low").alias("dd_win_low"),
        pl.col("win_high").alias("dd_win_high"), pl.col("mean_points").alias("dd_mean_points"),
        pl.col("points_low").alias("dd_points_low"), pl.col("points_high").alias("dd_points_high"))
    gap = (actual.lf.filter(pl.col("contract").cast(pl.String) != "pass")
           .with_columns(contract=pl.col("contract").cast(pl.String),
                         gap=pl.col("dd_points").cast(pl.Int64) - pl.col("declarer_points").cast(pl.Int64))
           .group_by(DEFAULT_KEYS).agg(pl.len().alias("n"), pl.col("gap").sum().alias("s"),
                                       (pl.col("gap") ** 2).sum().alias("q")).collect())
    from simkit.stats import mean_interval

    m, lo, hi = mean_interval(gap["n"].to_numpy(), gap["s"].to_numpy().astype(np.float64),
                              gap["q"].to_numpy().astype(np.float64))
    gap = gap.select(*DEFAULT_KEYS).with_columns(points_gap=m, gap_low=lo, gap_high=hi)
    return (a.select("label", *DEFAULT_KEYS, "games", "win_rate", "win_low", "win_high", "mean_points")
            .join(d, on=DEFAULT_KEYS, how="left").join(gap, on=DEFAULT_KEYS, how="left"))


def double_dummy_by_shape(ds) -> pl.DataFrame:
    """Per contract (and Tout) and declarer hand shape, on the deals of a ``--dd`` run: games, the actual win rate
    and the double-dummy win rate, each with a 95% Wilson interval."""
    actual, dd = _dd_views(ds)
    keys = DEFAULT_KEYS + ["shape"]
    a = finish(aggregate(actual, keys)).select("label", *keys, "games", "win_rate", "win_low", "win_high")
    d = finish(aggregate(dd, keys)).select(*keys, pl.col("win_rate").alias("dd_win_rate"),
                                           pl.col("win_low").alias("dd_win_low"),
                                           pl.col("win_high").alias("dd_win_high"))
    return a.join(d, on=keys, how="left")
