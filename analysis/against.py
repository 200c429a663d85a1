"""A run held against recorded games (``simkit report RUN --against GAMES.jsonl[.gz]``, ``simkit compare RUN
GAMES.jsonl[.gz]``).

    from analysis.against import against
    ag = against("runs/ss", "../shared/real-games/sauspiel-20k.jsonl.gz")   # the run's ruleset; rules=... to override
    ag.tables["win_rates"]          # per contract: run and real win rate, 95% Wilson intervals, run - real [95%]
    ag.games.bad, ag.games.errors   # bad records, skipped and counted; ag.games.other_deck: left out

The recorded games are replay records (README.md, "Replay records"; thrown-in deals with ``"contract": null``),
read by :func:`simkit.analyze.records.read_settled` and settled by the referee under the ruleset with each
record's deck. A run has one deck: only the records of that deck are compared, the others are counted as left
out. Every figure is computed for both sides alike from the same columns (contract, tout, won, the declaring
side's card points, Schneider, Schwarz, Laufende), so the differences compare like with like:

* ``passed``: deals thrown in (every seat passed) among all deals;
* ``contract_mix``: each contract's (and Tout's) share of the played games;
* ``win_rates``: the declaring side's win rate per contract;
* ``points``: the declaring side's mean card points per contract;
* ``points_bins``: the share of games per points bin (0-30, 31-60, 61-90, 91-120) and of Schneider and Schwarz
  (as scored: Schneider either way, never in a Tout);
* ``laufende``: the share of games with Laufende paid (a count at least the ruleset's minimum for the contract,
  whichever side holds them) and the mean count;
* ``laufende_counts``: the distribution of the count per contract.

Shares carry 95% Wilson intervals and their differences (run - real) Newcombe's hybrid score interval; means a
normal interval and the difference one with unequal variances (simkit.stats). The rows ``all`` cover every played
game.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import polars as pl

from analysis.dataset import AnalysisError, Dataset, as_dataset, label
from analysis.page import Section, grid, png, pyplot
from simkit.rules.contracts import KIND_NAMES
from simkit.rules.ruleset import Ruleset, load_ruleset
from simkit.stats import diff_means, diff_proportions, mean_interval, wilson

POINT_BINS = (("0-30", 0, 30), ("31-60", 31, 60), ("61-90", 61, 90), ("91-120", 91, 120))
BIN_NAMES = tuple(b for b, _, _ in POINT_BINS) + ("Schneider", "Schwarz")
KEYS = ["contract", "tout"]
MAX_ERRORS_KEPT = 10_000  # messages kept (all bad records are counted)
MIN_FIGURE_GAMES = 30  # contracts shown in the per-contract figures: this many games on one side at least
RUN, REAL = "#4c72b0", "#dd8452"
TABLES = ("passed", "contract_mix", "win_rates", "points", "points_bins", "laufende", "laufende_counts")


class AgainstError(AnalysisError):
    """Recorded games that cannot be compared (missing file, no usable record, none of the run's deck);
    ``errors`` holds the bad records' messages read before giving up."""

    def __init__(self, message: str, errors: list[str] | None = None, bad: int = 0):
        super().__init__(message)
        self.errors = list(errors or [])
        self.bad = bad


@dataclass
class RecordedGames:
    """The recorded deals of one deck read from a file, each settled by the referee."""

    path: Path
    rules: Ruleset
    deck: str
    frame: pl.DataFrame  # one row per deal of ``deck``: line, id, contract ("pass" when thrown in), tout, won, ...
    lines: int = 0  # non-blank lines read
    bad: int = 0  # bad records (skipped)
    errors: list[str] = field(default_factory=list)  # their messages, "line N: ..." (the first MAX_ERRORS_KEPT)
    decks: dict[str, int] = field(default_factory=dict)  # usable deals per deck

    @property
    def used(self) -> int:
        return self.frame.height

    @property
    def thrown_in(self) -> int:
        return int((self.frame["contract"] == "pass").sum())

    @property
    def played(self) -> int:
        return self.used - self.thrown_in

    @property
    def other_deck(self) -> int:
        """Usable deals of the other deck, left out."""
        return sum(n for d, n in self.decks.items() if d != self.deck)

    def summary(self) -> str:
        """One line: what was used, left out and skipped."""
        other = "short" if self.deck == "long" else "long"
        return (f"{self.path}: {self.used:,} {self.deck}-deck deals used ({self.played:,} played, "
                f"{self.thrown_in:,} thrown in), {self.other_deck:,} {other}-deck deals left out, "
                f"{self.bad:,} bad records skipped")


FRAME_SCHEMA = {"line": pl.Int64, "id": pl.String, "contract": pl.String, "tout": pl.Boolean, "won": pl.Boolean,
                "declarer_points": pl.Int64, "schneider": pl.Boolean, "schwarz": pl.Boolean, "laufende": pl.Int64,
                "laufende_mit": pl.Boolean}


def load_games(path: str | Path, deck: str | None = None, rules: Ruleset | str | None = None) -> RecordedGames:
    """Read and settle the recorded deals of ``path`` (plain or gzip) of ``deck`` (default the ruleset's deck).

    Bad records are counted and their messages kept, never used. Raises :class:`AgainstError` for a missing
    file, a file without a usable record and one without a deal of ``deck``."""
    from simkit.analyze.records import read_settled

    rules = rules if isinstance(rules, Ruleset) else load_ruleset(rules)
    deck = deck or rules.deck
    path = Path(path)
    if not path.exists():
        raise AgainstError(f"games file {path} does not exist")
    if not path.is_file():
        raise AgainstError(f"games file {path} is not a file")
    cols: dict[str, list] = {k: [] for k in FRAME_SCHEMA}
    decks: Counter = Counter()
    errors: list[str] = []
    lines = bad = 0
    for n, deal, result, error in read_settled(path, rules):
        lines += 1
        if error is not None:
            bad += 1
            if len(errors) < MAX_ERRORS_KEPT:
                errors.append(error)
            continue
        decks[deal.deck] += 1
        if deal.deck != deck:
            continue
        cols["line"].append(n)
        cols["id"].append(deal.deal_id)
        if result is None:
            row = ("pass", False, False, 0, False, False, 0, False)
        else:
            row = (result.contract, result.tout, result.won, result.declarer_points, result.schneider,
                   result.schwarz, result.laufende, result.laufende_mit)
        for k, v in zip(list(FRAME_SCHEMA)[2:], row):
            cols[k].append(v)
    games = RecordedGames(path, rules, deck, pl.DataFrame(cols, schema=FRAME_SCHEMA), lines, bad, errors,
                          dict(decks))
    if not decks:
        why = "it is empty" if lines == 0 else f"all {lines:,} records are bad"
        raise AgainstError(f"{path} has no usable record ({why})", errors, bad)
    if not decks[deck]:
        have = ", ".join(f"{n:,} {d}-deck" for d, n in sorted(decks.items()))
        raise AgainstError(f"{path} has no {deck}-deck deal ({have}); the run is {deck}-deck", errors, bad)
    return games


# ------------------------------------------------------------------------------------------ aggregation

def _standard(lf: pl.LazyFrame) -> pl.LazyFrame:
    return lf.select(pl.col("contract").cast(pl.String), pl.col("tout").cast(pl.Boolean),
                     pl.col("won").cast(pl.Boolean), pl.col("declarer_points").cast(pl.Int64).alias("points"),
                     pl.col("schneider").cast(pl.Boolean), pl.col("schwarz").cast(pl.Boolean),
                     pl.col("laufende").cast(pl.Int64), pl.col("laufende_mit").cast(pl.Boolean))


def _run_frame(ds: Dataset) -> pl.LazyFrame:
    lf = ds.lf
    if "impossible" in ds.columns:  # a forced Rufspiel that could not be played is no deal of the game
        lf = lf.filter(~pl.col("impossible").fill_null(False))
    return lf


def _sums(lf: pl.LazyFrame, rules: Ruleset) -> dict:
    """Additive counts of one side: deals and passed, per contract, per Laufende count."""
    t = rules.tariff
    mins = {n: (t.laufende_min_wenz_geier if n in ("wenz", "geier") else t.laufende_min) for n in KIND_NAMES}
    lf = lf.with_columns(minimum=pl.col("contract").replace_strict(mins, default=t.laufende_min,
                                                                   return_dtype=pl.Int64))
    totals = lf.select(pl.len().cast(pl.Int64).alias("deals"),
                       (pl.col("contract") == "pass").cast(pl.Int64).sum().alias("passed")).collect().row(0, named=True)
    played = lf.filter(pl.col("contract") != "pass")
    p = pl.col("points")
    aggs = [pl.len().cast(pl.Int64).alias("games"), pl.col("won").cast(pl.Int64).sum().alias("wins"),
            p.sum().alias("points_sum"), (p * p).sum().alias("points_sq"),
            *[p.is_between(lo, hi).cast(pl.Int64).sum().alias(b) for b, lo, hi in POINT_BINS],
            pl.col("schneider").cast(pl.Int64).sum().alias("Schneider"),
            pl.col("schwarz").cast(pl.Int64).sum().alias("Schwarz"),
            (pl.col("laufende") >= pl.col("minimum")).cast(pl.Int64).sum().alias("paid"),
            pl.col("laufende").sum().alias("laufende_sum"), (pl.col("laufende") ** 2).sum().alias("laufende_sq"),
            pl.col("minimum").first().alias("minimum")]
    per = played.group_by(KEYS).agg(aggs).collect()
    counts = played.group_by([*KEYS, "laufende"]).agg(pl.len().cast(pl.Int64).alias("games")).collect()
    return {"deals": totals["deals"], "passed": totals["passed"] or 0, "per": per, "counts": counts}


def _with_all(per: pl.DataFrame) -> pl.DataFrame:
    """The per-contract sums plus the row ``all`` (every played game)."""
    sums = [c for c in per.columns if c not in (*KEYS, "minimum")]
    total = per.select([pl.col(c).sum() for c in sums]).with_columns(
        contract=pl.lit("all"), tout=pl.lit(False), minimum=pl.lit(None, pl.Int64))
    return pl.concat([per, total.select(per.columns)], how="vertical_relaxed") if per.height else per


def _join(run: pl.DataFrame, real: pl.DataFrame, on: list[str]) -> pl.DataFrame:
    j = run.join(real, on=on, how="full", coalesce=True, suffix="_real")
    value_cols = [c for c in j.columns if c not in on]
    return j.with_columns([pl.col(c).fill_null(0) for c in value_cols if c not in ("minimum", "minimum_real")])


def _proportions(keys: pl.DataFrame, k_run, n_run, k_real, n_real) -> pl.DataFrame:
    k_run, n_run, k_real, n_real = (np.asarray(x, np.float64) * np.ones(keys.height)
                                    for x in (k_run, n_run, k_real, n_real))
    with np.errstate(invalid="ignore", divide="ignore"):
        lo1, hi1 = wilson(k_run, n_run)
        lo2, hi2 = wilson(k_real, n_real)
        d, dlo, dhi = diff_proportions(k_run, n_run, k_real, n_real)
        out = keys.with_columns(
            run_n=pl.Series(n_run.astype(np.int64)), run_k=pl.Series(k_run.astype(np.int64)),
            run=k_run / n_run, run_low=lo1, run_high=hi1,
            real_n=pl.Series(n_real.astype(np.int64)), real_k=pl.Series(k_real.astype(np.int64)),
            real=k_real / n_real, real_low=lo2, real_high=hi2, diff=d, diff_low=dlo, diff_high=dhi)
    return out.fill_nan(None)


def _means(keys: pl.DataFrame, n_run, s_run, q_run, n_real, s_real, q_real, prefix: str = "") -> pl.DataFrame:
    args = [np.asarray(x, np.float64) for x in (n_run, s_run, q_run, n_real, s_real, q_real)]
    with np.errstate(invalid="ignore", divide="ignore"):
        m1, lo1, hi1 = mean_interval(*args[:3])
        m2, lo2, hi2 = mean_interval(*args[3:])
        d, dlo, dhi = diff_means(*args)
    cols = {"run_mean": m1, "run_mean_low": lo1, "run_mean_high": hi1, "real_mean": m2, "real_mean_low": lo2,
            "real_mean_high": hi2, "mean_diff": d, "mean_diff_low": dlo, "mean_diff_high": dhi}
    if not prefix:
        cols = {"run_n": args[0].astype(np.int64), "real_n": args[3].astype(np.int64)} | cols
    return keys.with_columns(**{prefix + k: pl.Series(v) for k, v in cols.items()}).fill_nan(None)


def _order(df: pl.DataFrame, *extra: str) -> pl.DataFrame:
    order = {n: i for i, n in enumerate(KIND_NAMES)} | {"all": 99}
    lab = [label(c, t) if c != "all" else "all played games" for c, t in zip(df["contract"], df["tout"])]
    return (df.with_columns(label=pl.Series(lab, dtype=pl.String),
                            _o=pl.col("contract").replace_strict(order, default=98, return_dtype=pl.Int64))
            .with_columns(_a=pl.col("_o") == 99)
            .sort("_a", "tout", "_o", *extra).drop("_o", "_a")
            .select("contract", "tout", "label", *[c for c in df.columns if c not in ("contract", "tout")]))


def compare_frames(run: pl.LazyFrame | pl.DataFrame, real: pl.LazyFrame | pl.DataFrame,
                   rules: Ruleset) -> dict[str, pl.DataFrame]:
    """The tables (module docstring) of two frames with the columns contract ("pass" for a deal thrown in), tout,
    won, declarer_points, schneider, schwarz, laufende, laufende_mit: the first is "run", the second "real"."""
    a = _sums(_standard(run.lazy()), rules)
    b = _sums(_standard(real.lazy()), rules)
    tables: dict[str, pl.DataFrame] = {}
    one = pl.DataFrame({"measure": ["passed (thrown in)"]})
    tables["passed"] = _proportions(one, a["passed"], a["deals"], b["passed"], b["deals"])

    per = _join(a["per"], b["per"], KEYS)
    played_a, played_b = int(a["per"]["games"].sum()), int(b["per"]["games"].sum())
    tables["contract_mix"] = _order(_proportions(per.select(KEYS), per["games"], played_a, per["games_real"],
                                                 played_b))
    per_all = _join(_with_all(a["per"]), _with_all(b["per"]), KEYS)
    keys = per_all.select(KEYS)
    tables["win_rates"] = _order(_proportions(keys, per_all["wins"], per_all["games"], per_all["wins_real"],
                                              per_all["games_real"]))
    tables["points"] = _order(_means(keys, per_all["games"], per_all["points_sum"], per_all["points_sq"],
                                     per_all["games_real"], per_all["points_sum_real"], per_all["points_sq_real"]))
    bins = []
    for i, b_name in enumerate(BIN_NAMES):
        t = _proportions(keys.with_columns(bin=pl.lit(b_name), _b=pl.lit(i)), per_all[b_name], per_all["games"],
                         per_all[b_name + "_real"], per_all["games_real"])
        bins.append(t)
    tables["points_bins"] = _order(pl.concat(bins), "_b").drop("_b")
    lauf = _proportions(keys.with_columns(minimum=per_all["minimum"].fill_null(per_all["minimum_real"])),
                        per_all["paid"], per_all["games"], per_all["paid_real"], per_all["games_real"])
    means = _means(keys, per_all["games"], per_all["laufende_sum"], per_all["laufende_sq"], per_all["games_real"],
                   per_all["laufende_sum_real"], per_all["laufende_sq_real"], prefix="laufende_")
    tables["laufende"] = _order(lauf.join(means, on=KEYS, how="left"))
    cnt = _join(a["counts"], b["counts"], [*KEYS, "laufende"])
    games = per.select(*KEYS, "games", "games_real")
    cnt = cnt.join(games, on=KEYS, how="left", suffix="_n")
    tables["laufende_counts"] = _order(_proportions(cnt.select(*KEYS, "laufende"), cnt["games"], cnt["games_n"],
                                                    cnt["games_real"], cnt["games_real_n"]), "laufende")
    return tables


@dataclass
class Against:
    """A run held against recorded games: the tables (run = the run, real = the records), what was read."""

    run: Dataset
    games: RecordedGames
    rules: Ruleset
    tables: dict[str, pl.DataFrame]

    @property
    def forced(self) -> bool:
        return self.run.forced is not None or bool(self.run.manifest.get("contract"))


def against(run, games: str | Path | RecordedGames, rules: Ruleset | str | None = None) -> Against:
    """Hold ``run`` (a run directory or Dataset) against the recorded games ``games`` (a records file, plain or
    gzip, or :func:`load_games`' result): the tables of the module docstring. The records are settled under
    ``rules`` (default: the run's ruleset) with each record's deck; only deals of the run's deck are compared."""
    ds = as_dataset(run)
    rules = ds.rules if rules is None else rules if isinstance(rules, Ruleset) else load_ruleset(rules)
    deck = ds.rules.deck
    if not isinstance(games, RecordedGames):
        games = load_games(games, deck, rules)
    elif games.deck != deck:
        raise AgainstError(f"the recorded games were read for the {games.deck} deck; the run is {deck}-deck")
    return Against(ds, games, rules, compare_frames(_run_frame(ds), games.frame.lazy(), rules))


# ------------------------------------------------------------------------------------------ presentation

def _pct(v, lo, hi, scale=100.0, digits=1, unit="%") -> str:
    if v is None:
        return ""
    if unit == "%" and abs(v) < 0.01 and (hi is None or abs(hi) < 0.01):
        digits = 2  # rare contracts and counts: 0.04% rather than 0.0%
    s = f"{scale * v:.{digits}f}{unit}"
    return s if lo is None or hi is None else f"{s} [{scale * lo:.{digits}f}, {scale * hi:.{digits}f}]"


def _signed(v, lo, hi, scale=100.0, digits=1, unit=" pp") -> str:
    if v is None:
        return "-"
    if unit == " pp" and max(abs(x) for x in (v, lo or 0, hi or 0)) < 0.01:
        digits = 2
    s = f"{scale * v:+.{digits}f}{unit}"
    return s + (" [n/a]" if lo is None or hi is None else f" [{scale * lo:+.{digits}f}, {scale * hi:+.{digits}f}]")


def display(name: str, df: pl.DataFrame) -> pl.DataFrame:
    """A table of :func:`compare_frames` as text columns: value [95% interval] for run, real and run - real."""
    rows = []
    for r in df.iter_rows(named=True):
        if name in ("points",):
            row = {"contract": r["label"], "games run": f"{r['run_n']:,}", "games real": f"{r['real_n']:,}",
                   "mean run": _pct(r["run_mean"], r["run_mean_low"], r["run_mean_high"], 1, 1, ""),
                   "mean real": _pct(r["real_mean"], r["real_mean_low"], r["real_mean_high"], 1, 1, ""),
                   "run - real": _signed(r["mean_diff"], r["mean_diff_low"], r["mean_diff_high"], 1, 1, "")}
        else:
            first = ({"measure": r["measure"]} if name == "passed" else
                     {"contract": r["label"]} | ({"points": r["bin"]} if name == "points_bins" else {})
                     | ({"Laufende": str(r["laufende"])} if name == "laufende_counts" else {})
                     | ({"min": "" if r["minimum"] is None else str(r["minimum"])} if name == "laufende" else {}))
            what = {"passed": "deals", "contract_mix": "played"}.get(name, "games")
            row = first | {f"{what} run": f"{r['run_n']:,}", "run": _pct(r["run"], r["run_low"], r["run_high"]),
                           f"{what} real": f"{r['real_n']:,}",
                           "real": _pct(r["real"], r["real_low"], r["real_high"]),
                           "run - real": _signed(r["diff"], r["diff_low"], r["diff_high"])}
            if name == "laufende":
                row |= {"mean run": _pct(r["laufende_run_mean"], None, None, 1, 2, ""),
                        "mean real": _pct(r["laufende_real_mean"], None, None, 1, 2, ""),
                        "mean run - real": _signed(r["laufende_mean_diff"], r["laufende_mean_diff_low"],
                                                   r["laufende_mean_diff_high"], 1, 2, "")}
        rows.append(row)
    return pl.DataFrame(rows, schema={k: pl.String for k in rows[0]} if rows else None)


CAPTIONS = {
    "passed": "Deals thrown in (every seat passed), share of all deals",
    "contract_mix": "Contract mix: each contract's share of the played games",
    "win_rates": "Declaring side's win rate per contract",
    "points": "Declaring side's mean card points per contract",
    "points_bins": "Declaring side's card points: share of games per bin, and of Schneider and Schwarz",
    "laufende": "Laufende paid (count at least the minimum, either side) and the mean count",
    "laufende_counts": "Laufende: distribution of the count (either side) per contract",
}


def records_table(ag: Against) -> pl.DataFrame:
    g = ag.games
    other = "short" if g.deck == "long" else "long"
    rows = [("games file", str(g.path)), ("settled under", f"{ag.rules.name} with each record's deck"),
            ("records read (non-blank lines)", f"{g.lines:,}"),
            ("bad records skipped", f"{g.bad:,}" + (" (listed below)" if g.bad else "")),
            (f"{g.deck}-deck deals used (the run's deck)",
             f"{g.used:,} ({g.played:,} played, {g.thrown_in:,} thrown in)"),
            (f"{other}-deck deals left out", f"{g.other_deck:,}"),
            ("run", f"{ag.run.path} ({ag.run.rules.name}, {', '.join(ag.run.strategies)})")]
    return pl.DataFrame({"item": [a for a, _ in rows], "value": [b for _, b in rows]})


def _figure_contracts(df: pl.DataFrame) -> list[tuple[str, bool]]:
    g = df.filter((pl.col("contract") != "all") & ((pl.col("run_n") >= MIN_FIGURE_GAMES)
                                                   | (pl.col("real_n") >= MIN_FIGURE_GAMES)))
    return list(zip(g["contract"].to_list(), g["tout"].to_list()))


def _pairs(ax, df, value, low, high, scale, labels):
    """Horizontal run / real markers with 95% error bars, one pair per row of ``df``."""
    y = np.arange(df.height)[::-1]
    for side, dy, colour, mark in (("run", 0.15, RUN, "o"), ("real", -0.15, REAL, "s")):
        v = df[value.format(side)].cast(pl.Float64).to_numpy()
        lo = df[low.format(side)].cast(pl.Float64).fill_null(np.nan).to_numpy()
        hi = df[high.format(side)].cast(pl.Float64).fill_null(np.nan).to_numpy()
        ok = ~np.isnan(v)
        err = np.nan_to_num(np.vstack([v - lo, hi - v]), nan=0.0)[:, ok] * scale
        ax.barh(y[ok] + dy, v[ok] * scale, height=0.3, color=colour, alpha=0.35)
        ax.errorbar(v[ok] * scale, y[ok] + dy, xerr=err, fmt=mark, ms=4, capsize=3, color=colour,
                    label="run" if side == "run" else "recorded games")
    ax.set_yticks(y, labels)


def fig_overview(ag: Against) -> tuple[bytes, bytes]:
    """(passed share, contract mix and win rate; mean points): run against the recorded games, 95% intervals."""

    t = ag.tables
    keep = set(_figure_contracts(t["win_rates"]))
    sel = lambda df: df.filter(pl.struct(KEYS).map_elements(  # noqa: E731
        lambda r: (r["contract"], r["tout"]) in keep or r["contract"] == "all", return_dtype=pl.Boolean))
    mix = sel(t["contract_mix"])
    wr, pts = sel(t["win_rates"]), sel(t["points"])
    plt = pyplot()
    h = max(mix.height, wr.height)
    fig, axes = plt.subplots(2, 2, figsize=(12, 2.4 + 0.45 * h + 1.2), gridspec_kw={"height_ratios": [2.2, h]})
    (a0, a1), (a2, a3) = axes
    _pairs(a0, t["passed"], "{}", "{}_low", "{}_high", 100, ["thrown in"])
    a0.set_xlabel("% of all deals")
    a0.set_title("Deals thrown in (every seat passed)")
    handles, labels = a0.get_legend_handles_labels()
    a1.set_axis_off()
    a1.legend(handles, labels, loc="upper left", fontsize=9, frameon=False)
    a1.text(0.02, 0.45, "\n".join([
        f"run: {ag.run.name} ({ag.run.rules.name}, {ag.run.rules.deck} deck, "
        f"{', '.join(sorted(set(ag.run.strategies)))})",
        f"recorded: {ag.games.path.name}, {ag.games.used:,} {ag.games.deck}-deck deals",
        f"({ag.games.other_deck:,} of the other deck left out, {ag.games.bad:,} bad records skipped)",
        "markers: share or mean; bars: 95% intervals"]), fontsize=8, va="top", transform=a1.transAxes)
    _pairs(a2, mix, "{}", "{}_low", "{}_high", 100, mix["label"].to_list())
    a2.set_xlabel("% of played games")
    a2.set_title("Contract mix")
    _pairs(a3, wr, "{}", "{}_low", "{}_high", 100, wr["label"].to_list())
    a3.axvline(50, color="grey", lw=0.8)
    a3.set_xlabel("declaring side's win rate (%)")
    a3.set_title("Win rate per contract")
    fig.suptitle("Run against recorded games (95% intervals)")
    fig.tight_layout()
    top = png(fig)
    fig, ax = plt.subplots(figsize=(6.5, 0.45 * pts.height + 1.3))
    _pairs(ax, pts, "{}_mean", "{}_mean_low", "{}_mean_high", 1, pts["label"].to_list())
    ax.axvline(61, color="grey", lw=0.8)
    ax.set_xlabel("declaring side's mean card points (61 wins)")
    ax.set_title("Mean card points per contract, run against recorded games (95% intervals)")
    ax.legend(fontsize=8)
    return top, png(fig)


def _grid_bars(ag: Against, table: str, x_col: str, contracts, title: str, xlabel: str, shade=None) -> bytes:

    df = ag.tables[table]
    fig, axes = grid(len(contracts), 4.4, 3.0)
    for ax, (c, t) in zip(axes, contracts):
        g = df.filter((pl.col("contract") == c) & (pl.col("tout") == t))
        xs = g[x_col].to_list()
        x = np.arange(len(xs))
        for side, dx, colour in (("run", -0.2, RUN), ("real", 0.2, REAL)):
            v = g[side].fill_null(np.nan).to_numpy() * 100
            lo = g[f"{side}_low"].fill_null(np.nan).to_numpy() * 100
            hi = g[f"{side}_high"].fill_null(np.nan).to_numpy() * 100
            err = np.nan_to_num(np.vstack([v - lo, hi - v]), nan=0.0)
            ax.bar(x + dx, np.nan_to_num(v), width=0.4, yerr=err, capsize=2, color=colour,
                   label="run" if side == "run" else "recorded")
        if shade is not None:
            lo_x = shade(c, xs)
            if lo_x is not None:
                ax.axvspan(lo_x - 0.5, len(xs) - 0.5, color="#eeeeaa", alpha=0.5, zorder=0, label="paid")
        ax.set_xticks(x, [str(v) for v in xs], fontsize=7)
        ax.set_title(label(c, t))
        ax.set_xlabel(xlabel)
        ax.set_ylabel("% of games")
        ax.legend(fontsize=7)
    fig.suptitle(title)
    fig.tight_layout()
    return png(fig)


def figures(ag: Against) -> list[tuple[str, bytes]]:
    """The section's figures: the overview, mean points, the points bins and the Laufende counts per contract."""
    top, pts = fig_overview(ag)
    out = [("against_overview", top), ("against_points", pts)]
    contracts = _figure_contracts(ag.tables["win_rates"])
    if contracts:
        out.append(("against_points_bins", _grid_bars(
            ag, "points_bins", "bin", contracts, "Declaring side's card points per contract: run against recorded "
            "games (95% intervals)", "card points (bin), Schneider, Schwarz")))
        mins = {r["contract"]: r["minimum"] for r in ag.tables["laufende"].iter_rows(named=True)}

        def paid_from(c, xs):
            m = mins.get(c)
            return next((i for i, v in enumerate(xs) if m is not None and v >= m), None)

        out.append(("against_laufende", _grid_bars(
            ag, "laufende_counts", "laufende", contracts, "Laufende per contract (either side): run against "
            "recorded games (95% intervals)", "Laufende", shade=paid_from)))
    return out


def section(ag: Against):
    """The report section "Against recorded games" and its tables (CSV names ``against_*``)."""

    g = ag.games
    text = (f"The run beside {g.used:,} recorded {g.deck}-deck deals of {g.path.name} ({g.played:,} played, "
            f"{g.thrown_in:,} thrown in), settled by simkit's referee under {ag.rules.name} with each record's deck. "
            f"{g.other_deck:,} deals of the other deck were left out (a run has one deck) and {g.bad:,} bad records "
            "skipped (never used; each named by line below and on stderr). Shares with 95% Wilson intervals, "
            "differences run - real with Newcombe's hybrid score interval (percentage points, pp); means with "
            "normal intervals, their difference with unequal variances. Contract mix, win rate, points and "
            "Laufende count played games only; Schneider and Schwarz as scored (never in a Tout); Laufende are "
            "counted whichever side holds them and paid from the ruleset's minimum for the contract. An interval "
            "of the difference that excludes 0 is a difference at the 5% level. Definitions: docs/analysis.md.")
    real = ag.tables["contract_mix"].filter(pl.col("real_k") > 0)
    off = sorted({c for c in real["contract"].to_list() if c not in ag.run.rules.contracts},
                 key=lambda c: KIND_NAMES.index(c) if c in KIND_NAMES else 99)
    if off:
        text += (f" The records hold contracts that the run's ruleset ({ag.run.rules.name}) does not enable: "
                 f"{', '.join(label(c) for c in off)}; the run cannot play them, so its contract mix differs "
                 "there by construction.")
    if ag.forced:
        text += (" This is a forced-contract run (no bidding): its passed share and contract mix do not describe "
                 "a bidding and compare nothing.")
    s = Section("Against recorded games", text)
    s.tables.append(("Records", records_table(ag), {"item": ("", None), "value": ("", None)}))
    s.figures.extend(figures(ag))
    for name in TABLES:
        d = display(name, ag.tables[name])
        s.tables.append((CAPTIONS[name], d, {}))
    if g.errors:
        shown = g.errors[:50]
        more = ([f"... and {g.bad - len(shown):,} more (all bad records are counted above)"]
                if g.bad > len(shown) else [])
        s.tables.append((f"Bad records skipped ({g.bad:,})", pl.DataFrame({"error": shown + more}), {}))
    tables = {f"against_{k}": v for k, v in ag.tables.items()}
    tables["against_records"] = records_table(ag)
    if g.errors:
        tables["against_bad_records"] = pl.DataFrame({"error": g.errors})
    return s, tables
