"""The report's sections of the club rules (RULES.md 4, docs/club-rules.md "Rows of a run") and the comparison of
house rules (``simkit compare`` of two runs that differ in their rulesets).

Each section appears only when the run has such rows: Ramsch (rows ``contract == "ramsch"``), Bettel (``"bettel"``),
Klopfen (a ``knocked`` column with a knock), Stock (``stock_before``/``stock_after`` columns). They read only the
documented columns, so they work on any run that has them, whoever wrote it.

Intervals are 95%: Wilson for shares, normal for means. Deals are independent, but the deals of one stock session
are not (the stock carries), so the stock's figures are taken per session and their intervals over sessions.
"""

from __future__ import annotations

import numpy as np
import polars as pl

from analysis.dataset import Dataset, as_dataset
from analysis.page import Section, png, pyplot
from simkit.stats import diff_means, mean_interval, sd_interval, wilson

SEAT_NAMES = ["0 forehand", "1", "2", "3 dealer"]
LOSER_BINS = list(range(0, 121, 10))  # the Ramsch loser's card points, by tens


def _payout(s: int) -> pl.Expr:
    return pl.col(f"payout_{s}").cast(pl.Float64)


def _share_row(what: str, k: int, n: int) -> dict:
    lo, hi = wilson(k, n)
    return {"measure": what, "count": int(k), "of": int(n), "share": k / n if n else None, "low": lo, "high": hi}


SHARE_FMT = {"measure": ("", None), "count": ("count", "int"), "of": ("of", "int"), "share": ("share", "pct2"),
             "low": ("95% low", "pct2"), "high": ("95% high", "pct2")}
MEAN_FMT = {"seat": ("seat", None), "games": ("games", "int"), "mean": ("mean payout", ".2f"),
            "low": ("95% low", ".2f"), "high": ("95% high", ".2f")}


def _seat_means(lf: pl.LazyFrame) -> pl.DataFrame:
    """Each seat's mean payout over the rows of ``lf`` with its 95% interval."""
    aggs = [pl.len().alias("n")]
    for s in range(4):
        aggs += [_payout(s).sum().alias(f"s{s}"), (_payout(s) ** 2).sum().alias(f"q{s}")]
    r = lf.select(aggs).collect(engine="streaming").row(0, named=True)
    rows = []
    for s in range(4):
        m, lo, hi = mean_interval(r["n"], r[f"s{s}"], r[f"q{s}"])
        rows.append({"seat": SEAT_NAMES[s], "games": r["n"], "mean": float(m), "low": float(lo), "high": float(hi)})
    return pl.DataFrame(rows)


def _fig_seats(ax, seats: pl.DataFrame, what: str) -> None:
    m = seats["mean"].to_numpy()
    lo, hi = seats["low"].to_numpy(), seats["high"].to_numpy()
    ax.bar(range(len(m)), m, yerr=[np.nan_to_num(m - lo), np.nan_to_num(hi - m)], capsize=4, color="#8172b3")
    ax.axhline(0, color="grey", lw=0.8)
    ax.set_xticks(range(len(m)), seats["seat"].to_list())
    ax.set_ylabel(what)


# ------------------------------------------------------------------------------------------ Ramsch

def ramsch_tables(ds) -> dict[str, pl.DataFrame] | None:
    """Ramsch rows (the loser, or the Durchmarsch winner, is the row's ``declarer``): their share of the deals, the
    Durchmarsch and Jungfrau rates, the loser's card points by tens and each seat's mean payout; None without."""
    ds = as_dataset(ds)
    cols = ds.columns
    is_ramsch = pl.col("contract").cast(pl.String) == "ramsch"
    durch = pl.col("durchmarsch") if "durchmarsch" in cols else pl.col("won")  # only a Durchmarsch wins a Ramsch
    jung = pl.col("jungfrauen").cast(pl.Int64) if "jungfrauen" in cols else pl.lit(None, pl.Int64)
    r = ds.lf.select(pl.len().alias("deals"), is_ramsch.cast(pl.Int64).sum().alias("ramsch"),
                     (is_ramsch & durch).cast(pl.Int64).sum().alias("durchmarsch"),
                     (is_ramsch & (jung > 0)).cast(pl.Int64).sum().alias("jungfrau"),
                     ).collect(engine="streaming").row(0, named=True)
    if not r["ramsch"]:
        return None
    rows = [_share_row("Ramsch (share of all deals)", r["ramsch"], r["deals"]),
            _share_row("Durchmarsch (share of Ramsch)", r["durchmarsch"], r["ramsch"])]
    if "jungfrauen" in cols:
        rows.append(_share_row("with a Jungfrau (share of Ramsch)", r["jungfrau"], r["ramsch"]))
    rates = pl.DataFrame(rows)
    ramsch = ds.lf.filter(is_ramsch)
    loser = (ramsch.filter(~durch).select(pl.col("declarer_points").cast(pl.Int64).alias("points"))
             .group_by(((pl.col("points") - 1).clip(0) // 10 * 10).alias("from")).agg(pl.len().alias("games"))
             .collect(engine="streaming"))
    n_lost = int(loser["games"].sum())
    counts = dict(zip(loser["from"].to_list(), loser["games"].to_list()))
    bins = [b for b in LOSER_BINS[:-1] if counts.get(b) or b >= 30]
    lo, hi = wilson([counts.get(b, 0) for b in bins], [n_lost] * len(bins))
    points = pl.DataFrame({"points": [f"{b + 1 if b else 0}-{b + 10}" for b in bins],
                           "games": [counts.get(b, 0) for b in bins],
                           "share": [counts.get(b, 0) / n_lost if n_lost else None for b in bins],
                           "low": np.atleast_1d(lo), "high": np.atleast_1d(hi)})
    tables = {"ramsch_rates": rates, "ramsch_loser_points": points, "ramsch_seats": _seat_means(ramsch)}
    if "jungfrauen" in cols:
        j = (ramsch.group_by(pl.col("jungfrauen").cast(pl.Int64)).agg(pl.len().alias("games"))
             .sort("jungfrauen").collect(engine="streaming"))
        tables["ramsch_jungfrauen"] = j.with_columns(share=pl.col("games") / pl.col("games").sum())
    return tables


def ramsch_section(t: dict[str, pl.DataFrame]) -> Section:
    s = Section("Ramsch",
                "Deals everybody passed, played as Ramsch (RULES.md 4.4): the player with the most card points loses "
                "and pays each other player the price (Jungfrau options double it); a Durchmarsch wins. The loser's "
                "card points (Durchmarsch deals left out) by tens, and each seat's mean payout per Ramsch deal "
                "(tariff units; with Klopfen, knocks included). 95% intervals.")
    s.tables.append(("", t["ramsch_rates"], SHARE_FMT))
    s.tables.append(("The loser's card points", t["ramsch_loser_points"],
                     {"points": ("points", None), "games": ("games", "int"), "share": ("share", "pct"),
                      "low": ("95% low", "pct"), "high": ("95% high", "pct")}))
    if "ramsch_jungfrauen" in t:
        s.tables.append(("Players without a trick (Jungfrauen) per Ramsch", t["ramsch_jungfrauen"],
                         {"jungfrauen": ("Jungfrauen", "int"), "games": ("games", "int"), "share": ("share", "pct2")}))
    s.tables.append(("Mean payout per seat in a Ramsch", t["ramsch_seats"], MEAN_FMT))
    plt = pyplot()
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(11, 3.4))
    p = t["ramsch_loser_points"]
    share = p["share"].to_numpy() * 100
    a1.bar(range(p.height), share, yerr=[share - p["low"].to_numpy() * 100, p["high"].to_numpy() * 100 - share],
           capsize=3, color="#c44e52")
    a1.set_xticks(range(p.height), p["points"].to_list(), rotation=45, fontsize=7)
    a1.set_xlabel("the loser's card points")
    a1.set_ylabel("% of lost Ramsch")
    a1.set_title("Who loses a Ramsch, with how many points")
    _fig_seats(a2, t["ramsch_seats"], "mean payout per Ramsch (tariff units)")
    a2.set_title("Each seat's result in a Ramsch (95% interval)")
    fig.tight_layout()
    s.figures.append(("ramsch", png(fig)))
    return s


# ------------------------------------------------------------------------------------------ Bettel

def _declarer_hand() -> pl.Expr:
    e = pl.lit(0, pl.UInt32)
    for s in (3, 2, 1, 0):
        e = pl.when(pl.col("declarer") == s).then(pl.col(f"hand_{s}")).otherwise(e)
    return e


def bettel_shapes(hands: np.ndarray, won: np.ndarray) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Bettel win rates by the declarer's hand: by its suit lengths (no trumps in a Bettel: Ober and Unter belong
    to their suits), longest first, and by how many of the top cards (A, K, O) it holds."""
    hands = np.asarray(hands, np.uint64)
    lengths = np.stack([np.bitwise_count(((hands >> np.uint64(8 * s)) & np.uint64(0xFF)).astype(np.uint8))
                        for s in range(4)], axis=1).astype(np.int64)
    lengths = -np.sort(-lengths, axis=1)
    shape = ["-".join(map(str, row)) for row in lengths]
    top_mask = 0
    for s in range(4):
        for rank in (4, 5, 7):  # Ober, Koenig, Ass: the cards that most often take a trick in Bettel
            top_mask |= 1 << (8 * s + rank)
    tops = np.bitwise_count(hands & np.uint64(top_mask)).astype(np.int64)
    frames = []
    for key, values in (("shape", shape), ("top_cards", tops)):
        df = (pl.DataFrame({key: values, "won": won}).group_by(key)
              .agg(pl.len().alias("games"), pl.col("won").cast(pl.Int64).sum().alias("wins")))
        lo, hi = wilson(df["wins"].to_numpy(), df["games"].to_numpy())
        df = df.with_columns(win_rate=pl.col("wins") / pl.col("games"), low=pl.Series(np.atleast_1d(lo)),
                             high=pl.Series(np.atleast_1d(hi)))
        frames.append(df.sort("games", descending=True) if key == "shape" else df.sort(key))
    return frames[0], frames[1]


def bettel_tables(ds) -> dict[str, pl.DataFrame] | None:
    """Bettel rows: the declarer's win rate (he took no trick) overall and by seat, and with stored hands by his
    hand's shape; None without."""
    ds = as_dataset(ds)
    bettel = ds.lf.filter(pl.col("contract").cast(pl.String) == "bettel")
    by_seat = (bettel.group_by(pl.col("declarer").cast(pl.Int64))
               .agg(pl.len().alias("games"), pl.col("won").cast(pl.Int64).sum().alias("wins"))
               .sort("declarer").collect(engine="streaming"))
    if not by_seat.height:
        return None
    n, w = int(by_seat["games"].sum()), int(by_seat["wins"].sum())
    rows = [{"seat": "all", "games": n, "wins": w}] + [
        {"seat": SEAT_NAMES[d], "games": g, "wins": k} for d, g, k in by_seat.select("declarer", "games", "wins").rows()]
    rates = pl.DataFrame(rows)
    lo, hi = wilson(rates["wins"].to_numpy(), rates["games"].to_numpy())
    rates = rates.with_columns(win_rate=pl.col("wins") / pl.col("games"), low=pl.Series(lo), high=pl.Series(hi))
    tables = {"bettel_win_rates": rates}
    if ds.has_hands:
        h = bettel.select(_declarer_hand().alias("hand"), pl.col("won")).collect(engine="streaming")
        tables["bettel_by_shape"], tables["bettel_by_top_cards"] = bettel_shapes(h["hand"].to_numpy(),
                                                                                 h["won"].to_numpy())
    return tables


WIN_FMT = {"games": ("games", "int"), "wins": ("won", "int"), "win_rate": ("win rate", "pct"),
           "low": ("95% low", "pct"), "high": ("95% high", "pct")}


def bettel_section(t: dict[str, pl.DataFrame]) -> Section:
    s = Section("Bettel",
                "The declarer plays alone and wins by taking no trick (RULES.md 4.2). Win rate with a 95% Wilson "
                "interval, overall and by declaring seat" + (", and by the declarer's hand: its suit lengths (no "
                "trumps: Ober and Unter count in their suits), longest first, and how many of its cards are an Ass, "
                "Koenig or Ober." if "bettel_by_shape" in t else "; by hand shape when the run stores its hands "
                "(`--store-hands`)."))
    s.tables.append(("", t["bettel_win_rates"], {"seat": ("declarer", None), **WIN_FMT}))
    if "bettel_by_shape" in t:
        s.tables.append(("By the declarer's suit lengths", t["bettel_by_shape"], {"shape": ("shape", None), **WIN_FMT}))
        s.tables.append(("By the declarer's Ass, Koenig and Ober", t["bettel_by_top_cards"],
                         {"top_cards": ("A, K, O held", "int"), **WIN_FMT}))
        g = t["bettel_by_shape"].head(12)
        plt = pyplot()
        fig, ax = plt.subplots(figsize=(7, 0.35 * g.height + 1.2))
        y = np.arange(g.height)[::-1]
        r = g["win_rate"].to_numpy() * 100
        ax.errorbar(r, y, xerr=[r - g["low"].to_numpy() * 100, g["high"].to_numpy() * 100 - r], fmt="o",
                    capsize=3, color="#4c72b0")
        ax.set_yticks(y, g["shape"].to_list())
        ax.set_xlabel("Bettel win rate (%), 95% Wilson interval")
        ax.set_title("Bettel by the declarer's suit lengths (most frequent shapes)")
        s.figures.append(("bettel", png(fig)))
    return s


# ------------------------------------------------------------------------------------------ Klopfen

def klopfen_tables(ds) -> dict[str, pl.DataFrame] | None:
    """Knocks (``knocked``: a bit per seat): how often a deal is knocked, the mean multiplier 2^knocks, the number of
    knocks and each seat's knock rate; None when the run has no knock."""
    ds = as_dataset(ds)
    if "knocked" not in ds.columns:
        return None
    k = pl.col("knocked").cast(pl.Int64)
    bit = [(k // (1 << s)) % 2 for s in range(4)]  # seat s knocked
    knocks = bit[0] + bit[1] + bit[2] + bit[3]
    mult = pl.lit(2.0).pow(knocks)
    r = ds.lf.select(pl.len().alias("deals"), (k > 0).cast(pl.Int64).sum().alias("knocked"),
                     mult.sum().alias("m"), (mult * mult).sum().alias("mq"),
                     *[bit[s].sum().alias(f"seat{s}") for s in range(4)]).collect(engine="streaming").row(
        0, named=True)
    if not r["knocked"]:
        return None
    n = r["deals"]
    rates = pl.DataFrame([_share_row("deals with a knock", r["knocked"], n)]
                         + [_share_row(f"seat {SEAT_NAMES[s]} knocks", r[f"seat{s}"], n) for s in range(4)])
    m, lo, hi = mean_interval(n, r["m"], r["mq"])
    mean = pl.DataFrame({"measure": ["mean multiplier 2^knocks"], "mean": [float(m)], "low": [float(lo)],
                         "high": [float(hi)]})
    dist = (ds.lf.group_by(knocks.alias("knocks")).agg(pl.len().alias("deals")).sort("knocks")
            .collect(engine="streaming").with_columns(share=pl.col("deals") / n,
                                                      multiplier=pl.lit(2) ** pl.col("knocks")))
    return {"klopfen_rates": rates, "klopfen_multiplier": mean, "klopfen_knocks": dist}


def klopfen_section(t: dict[str, pl.DataFrame]) -> Section:
    s = Section("Klopfen",
                "Before the bidding each seat may knock once (RULES.md 4.1); each knock doubles the price of "
                "whatever is played. How often a deal is knocked (95% Wilson interval), each seat's knock rate, "
                "the mean multiplier of the price (95% interval) and the number of knocks per deal.")
    s.tables.append(("", t["klopfen_rates"], SHARE_FMT))
    s.tables.append(("", t["klopfen_multiplier"], {"measure": ("", None), "mean": ("mean", ".3f"),
                                                   "low": ("95% low", ".3f"), "high": ("95% high", ".3f")}))
    s.tables.append(("Knocks per deal", t["klopfen_knocks"], {"knocks": ("knocks", "int"),
                                                              "multiplier": ("multiplier", "int"),
                                                              "deals": ("deals", "int"), "share": ("share", "pct2")}))
    plt = pyplot()
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(11, 3.2))
    d = t["klopfen_knocks"]
    a1.bar(d["knocks"].to_numpy(), d["share"].to_numpy() * 100, color="#4c72b0")
    a1.set_xlabel("knocks in the deal")
    a1.set_ylabel("% of deals")
    a1.set_title("Knocks per deal")
    r = t["klopfen_rates"].slice(1)
    v = r["share"].to_numpy() * 100
    a2.bar(range(4), v, yerr=[v - r["low"].to_numpy() * 100, r["high"].to_numpy() * 100 - v], capsize=4,
           color="#dd8452")
    a2.set_xticks(range(4), SEAT_NAMES)
    a2.set_ylabel("% of deals the seat knocks")
    a2.set_title("Knock rate per seat (95% Wilson interval)")
    fig.tight_layout()
    s.figures.append(("klopfen", png(fig)))
    return s


# ------------------------------------------------------------------------------------------ Stock

def stock_tables(ds) -> dict[str, pl.DataFrame] | None:
    """The stock of a run in sessions (``stock_before``, ``stock_after``, ``session``): its mean before a deal and how
    often it is won (taken by a won Rufspiel), with intervals over sessions (the stock carries inside one, so its
    deals are not independent), its distribution, and each player's whole change per deal; None without."""
    ds = as_dataset(ds)
    if "stock_before" not in ds.columns:
        return None
    before = pl.col("stock_before").cast(pl.Float64)
    won = ((pl.col("stock_before") > 0) & (pl.col("stock_after") == 0)).cast(pl.Int64)
    paid = (pl.col("contract").cast(pl.String) == "pass") & (pl.col("stock_after") > pl.col("stock_before"))
    session = pl.col("session") if "session" in ds.columns else pl.lit(0)
    player_cols = all(f"player_{s}" in ds.columns for s in range(4))
    aggs = [pl.len().alias("deals"), before.mean().alias("mean"), won.sum().alias("won"),
            paid.cast(pl.Int64).sum().alias("throw_ins")]
    if player_cols:  # each player's whole change over the session
        for p in range(4):
            e = pl.lit(0.0)
            for s in range(4):
                e = e + pl.when(pl.col(f"player_{s}") == p).then(_payout(s)).otherwise(0.0)
            aggs.append(e.sum().alias(f"p{p}"))
    per = ds.lf.group_by(session.alias("session")).agg(aggs).collect(engine="streaming")
    n = per.height
    if not n:
        return None
    deals = per["deals"].to_numpy().astype(np.float64)
    rows = []

    def row(what, x, fmt_unit):
        x = np.asarray(x, np.float64)
        m, lo, hi = mean_interval(n, x.sum(), (x * x).sum())
        rows.append({"measure": what, "value": float(m), "low": float(lo), "high": float(hi), "unit": fmt_unit})

    row("mean stock before a deal", per["mean"].to_numpy(), "tariff units")
    row("stock won (share of deals)", per["won"].to_numpy() / deals, "share")
    row("throw-ins paid into it (share of deals)", per["throw_ins"].to_numpy() / deals, "share")
    row("stock won per session", per["won"].to_numpy(), "count")
    summary = pl.DataFrame(rows)
    q = ds.lf.select(
        (pl.col("stock_before") == 0).cast(pl.Float64).mean().alias("empty"),
        *[pl.col("stock_before").quantile(p, "nearest").alias(f"q{int(p * 100)}") for p in (0.5, 0.9, 0.99)],
        pl.col("stock_before").max().alias("max")).collect(engine="streaming")
    dist = pl.DataFrame({"measure": ["empty before a deal (share)", "median", "90th percentile", "99th percentile",
                                     "largest"],
                         "value": [float(q["empty"][0]), *[float(q[f"q{p}"][0]) for p in (50, 90, 99)],
                                   float(q["max"][0])]})
    hist = (ds.lf.group_by(pl.col("stock_before").alias("stock")).agg(pl.len().alias("deals")).sort("stock")
            .collect(engine="streaming"))
    tables = {"stock_summary": summary, "stock_distribution": dist,
              "stock_histogram": hist.with_columns(share=pl.col("deals") / pl.col("deals").sum())}
    if player_cols:
        prow = []
        for p in range(4):
            x = per[f"p{p}"].to_numpy() / deals  # the player's mean whole change per deal in each session
            m, lo, hi = mean_interval(n, x.sum(), (x * x).sum())
            prow.append({"seat": f"player {p}", "games": int(deals.sum()), "mean": float(m), "low": float(lo),
                         "high": float(hi)})
        tables["stock_players"] = pl.DataFrame(prow)
    tables["stock_sessions"] = pl.DataFrame({"sessions": [n], "deals": [int(deals.sum())]})
    return tables


def stock_section(t: dict[str, pl.DataFrame]) -> Section:
    n = int(t["stock_sessions"]["sessions"][0])
    s = Section("Stock",
                f"The stock (RULES.md 4.4) over {n:,} sessions: after a throw-in each player pays the stock price "
                "into it; a won Rufspiel's pair takes it, a lost one's pair doubles it. The payouts are each "
                "player's whole change (the game plus his share of the stock). The stock carries from deal to deal "
                "of a session, so the intervals (95%) are taken over sessions, each session's figure once.")
    s.tables.append(("", t["stock_summary"], {"measure": ("", None), "value": ("value", ".4f"),
                                              "low": ("95% low", ".4f"), "high": ("95% high", ".4f"),
                                              "unit": ("unit", None)}))
    s.tables.append(("Its distribution before a deal (tariff units)", t["stock_distribution"],
                     {"measure": ("", None), "value": ("value", ".4g")}))
    if "stock_players" in t:
        s.tables.append(("Each player's mean whole change per deal (the deal rotates: every player sits at every "
                         "seat)", t["stock_players"], {**MEAN_FMT, "seat": ("player", None),
                                                       "games": ("deals", "int")}))
    h = t["stock_histogram"]
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(7, 3.2))
    x, share = h["stock"].to_numpy(), h["share"].to_numpy() * 100
    ax.bar(np.arange(len(x)), share, color="#55a868")
    step = max(1, len(x) // 12)
    ax.set_xticks(np.arange(len(x))[::step], [f"{v:,}" for v in x[::step]], rotation=45, fontsize=7)
    ax.set_yscale("log")
    ax.set_xlabel("stock before the deal (tariff units)")
    ax.set_ylabel("% of deals (log scale)")
    ax.set_title("Distribution of the stock")
    s.figures.append(("stock", png(fig)))
    return s


# ------------------------------------------------------------------------------------------ all of them

def club_sections(ds) -> tuple[list[Section], dict[str, pl.DataFrame]]:
    """The club-rule sections the run has rows for (none for a run without club rules) and their tables."""
    ds = as_dataset(ds)
    sections, tables = [], {}
    for make, section in ((ramsch_tables, ramsch_section), (bettel_tables, bettel_section),
                          (klopfen_tables, klopfen_section), (stock_tables, stock_section)):
        t = make(ds)
        if t is not None:
            sections.append(section(t))
            tables.update(t)
    return sections, tables


# ------------------------------------------------------------------------------------------ house rules

def player_result(ds) -> pl.DataFrame:
    """A player's result per deal (his payout, with a stock his whole change; tariff units): per seat and over all
    seats, the sums :func:`simkit.stats.sd_interval` and :func:`simkit.stats.diff_means` take (``n`` deals; ``s1``,
    ``s11``: sums of the deal's mean payout over the seats taken and of its square; ``s2``, ``s22``: of the mean
    squared payout and its square; ``s12``: of their product)."""
    ds = as_dataset(ds)
    groups = {str(s): [s] for s in range(4)} | {"all": [0, 1, 2, 3]}
    aggs = [pl.len().alias("n")]
    for name, seats in groups.items():
        y1 = sum(_payout(s) for s in seats) / len(seats)
        y2 = sum(_payout(s) ** 2 for s in seats) / len(seats)
        aggs += [y1.sum().alias(f"{name}_s1"), (y1 * y1).sum().alias(f"{name}_s11"), y2.sum().alias(f"{name}_s2"),
                 (y2 * y2).sum().alias(f"{name}_s22"), (y1 * y2).sum().alias(f"{name}_s12")]
    r = ds.lf.select(aggs).collect(engine="streaming").row(0, named=True)
    return pl.DataFrame([{"seat": name, "n": r["n"], **{k: r[f"{name}_{k}"] for k in ("s1", "s11", "s2", "s22",
                                                                                       "s12")}}
                         for name in groups])


def house_rules(ds_a, ds_b, scale_a: float = 1.0, scale_b: float = 1.0) -> pl.DataFrame:
    """Run A against run B: a player's mean result per deal and its spread (standard deviation), per seat and over
    all seats, in each run and their differences A - B with 95% intervals. Results are divided by ``scale_a`` and
    ``scale_b`` (1: tariff units; the Rufspiel base: comparable across tariffs)."""
    a, b = player_result(ds_a), player_result(ds_b)
    rows = []
    for ra, rb in zip(a.iter_rows(named=True), b.iter_rows(named=True)):
        sa = _scaled(ra, scale_a)
        sb = _scaled(rb, scale_b)
        ma, mla, mha = mean_interval(sa["n"], sa["s1"], sa["s11"])
        mb, mlb, mhb = mean_interval(sb["n"], sb["s1"], sb["s11"])
        d, dlo, dhi = diff_means(sa["n"], sa["s1"], sa["s11"], sb["n"], sb["s1"], sb["s11"])
        sda, _, _, sea = sd_interval(sa["n"], sa["s1"], sa["s11"], sa["s2"], sa["s22"], sa["s12"])
        sdb, _, _, seb = sd_interval(sb["n"], sb["s1"], sb["s11"], sb["s2"], sb["s22"], sb["s12"])
        half = 1.959963984540054 * np.sqrt(sea ** 2 + seb ** 2)
        rows.append({"seat": ra["seat"] if ra["seat"] == "all" else SEAT_NAMES[int(ra["seat"])],
                     "deals_a": ra["n"], "deals_b": rb["n"],
                     "mean_a": float(ma), "mean_b": float(mb), "mean_diff": float(d), "mean_diff_low": float(dlo),
                     "mean_diff_high": float(dhi), "sd_a": float(sda), "sd_b": float(sdb),
                     "sd_diff": float(sda - sdb), "sd_diff_low": float(sda - sdb - half),
                     "sd_diff_high": float(sda - sdb + half)})
    return pl.DataFrame(rows).fill_nan(None)


def _scaled(r: dict, scale: float) -> dict:
    """The sums of :func:`player_result` for results divided by ``scale`` (y1 scales by it, y2 by its square)."""
    return {"n": r["n"], "s1": r["s1"] / scale, "s11": r["s11"] / scale ** 2, "s2": r["s2"] / scale ** 2,
            "s22": r["s22"] / scale ** 4, "s12": r["s12"] / scale ** 3}


def _flat(d: dict, prefix: str = "") -> dict:
    out = {}
    for k, v in d.items():
        if isinstance(v, dict):
            out.update(_flat(v, f"{prefix}{k}."))
        else:
            out[f"{prefix}{k}"] = v
    return out


def rules_diff(ds_a, ds_b) -> pl.DataFrame:
    """The ruleset keys whose resolved values differ between the two runs (TOML names, tables as ``table.key``)."""
    a = _flat(as_dataset(ds_a).rules.to_dict())
    b = _flat(as_dataset(ds_b).rules.to_dict())
    keys = [k for k in dict.fromkeys([*a, *b]) if a.get(k) != b.get(k) and k not in ("name", "description")]

    def show(key, v):
        if v is None:  # a table's price left out is the Rufspiel base (docs/club-rules.md)
            return "the Rufspiel base" if key.endswith(".price") else "-"
        return ", ".join(map(str, v)) if isinstance(v, (list, tuple)) else str(v)

    return pl.DataFrame({"key": keys, "a": [show(k, a.get(k)) for k in keys], "b": [show(k, b.get(k)) for k in keys]},
                        schema={"key": pl.String, "a": pl.String, "b": pl.String})


def tariffs_differ(ds_a, ds_b) -> bool:
    return as_dataset(ds_a).rules.tariff != as_dataset(ds_b).rules.tariff


def unit_note(ds_a, ds_b) -> str:
    a, b = as_dataset(ds_a).rules.tariff, as_dataset(ds_b).rules.tariff
    if a == b:
        return "Both runs use the same tariff: results are in its units."
    return (f"The tariffs differ (Rufspiel base A {a.base_rufspiel}, B {b.base_rufspiel}; see the rules that "
            "differ): the first table is in each run's own tariff units, the second in units of each run's "
            "Rufspiel base.")


HOUSE_FMT = {"seat": ("seat", None), "deals_a": ("deals A", "int"), "deals_b": ("deals B", "int"),
             "mean_a": ("mean A", ".3f"), "mean_b": ("mean B", ".3f"), "mean_diff": ("mean A-B", ".3f"),
             "mean_diff_low": ("95% low", ".3f"), "mean_diff_high": ("95% high", ".3f"), "sd_a": ("SD A", ".2f"),
             "sd_b": ("SD B", ".2f"), "sd_diff": ("SD A-B", ".2f"), "sd_diff_low": ("95% low", ".2f"),
             "sd_diff_high": ("95% high", ".2f")}


def house_rules_tables(a: Dataset, b: Dataset) -> dict[str, pl.DataFrame]:
    tables = {"rules_diff": rules_diff(a, b), "player_result": house_rules(a, b)}
    if tariffs_differ(a, b):
        tables["player_result_in_rufspiel_bases"] = house_rules(a, b, a.rules.tariff.base_rufspiel,
                                                                b.rules.tariff.base_rufspiel)
    return tables


def house_rules_section(a: Dataset, b: Dataset, t: dict[str, pl.DataFrame] | None = None) -> Section:
    """What the rules that differ between the runs do to a player's result per deal: its mean and its spread."""
    t = t or house_rules_tables(a, b)
    diff = t["rules_diff"]
    s = Section("House rules: a player's result per deal",
                "A player's result per deal (his payout; in a run with a stock his whole change, the stock share "
                "included) per seat and over all four seats: the mean and the spread (standard deviation) in each "
                "run, and A - B with 95% intervals (mean: normal, unequal variances; standard deviation: delta "
                "method, the four seats of a deal counted as one observation). "
                + ("The rulesets are the same." if not diff.height else
                   f"The rulesets differ in {diff.height} key(s), listed below; if the runs also differ in "
                   "strategies or seed, the difference is not the rules' alone.") + " " + unit_note(a, b))
    if diff.height:
        s.tables.append(("Rules that differ (resolved rulesets)", diff, {"key": ("key", None), "a": ("A", None),
                                                                         "b": ("B", None)}))
    s.tables.append(("", t["player_result"], HOUSE_FMT))
    if "player_result_in_rufspiel_bases" in t:
        s.tables.append(("In Rufspiel bases", t["player_result_in_rufspiel_bases"], HOUSE_FMT))
    s.figures.append(("house_rules", fig_house_rules(t.get("player_result_in_rufspiel_bases", t["player_result"]),
                                                     "player_result_in_rufspiel_bases" in t)))
    return s


def fig_house_rules(df: pl.DataFrame, bases: bool) -> bytes:
    plt = pyplot()
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(11, 3.2), sharey=True)
    y = np.arange(df.height)[::-1]
    unit = "Rufspiel bases" if bases else "tariff units"
    for ax, col, name in ((a1, "mean", "mean"), (a2, "sd", "standard deviation")):
        d = df[f"{col}_diff"].to_numpy().astype(float)
        lo = df[f"{col}_diff_low"].to_numpy().astype(float)
        hi = df[f"{col}_diff_high"].to_numpy().astype(float)
        ax.errorbar(d, y, xerr=[np.nan_to_num(d - lo), np.nan_to_num(hi - d)], fmt="o", capsize=3)
        ax.axvline(0, color="grey", lw=0.8)
        ax.set_xlabel(f"{name} A - B ({unit}), 95% interval")
    a1.set_yticks(y, df["seat"].to_list())
    fig.suptitle("A player's result per deal: what the house rules change")
    fig.tight_layout()
    return png(fig)
