"""``simkit report`` and ``simkit compare``: tables and figures of a run as HTML (self-contained: the figures are
embedded as base64 PNG, it opens offline), Markdown (figures as PNG files beside it) and CSV.

    from analysis.report import build_report
    build_report("runs/demo", "reports/demo")                       # report.html, report.md, tables/, figures/
    build_report("runs/a", "reports/a-vs-b", compare_with="runs/b")  # plus the comparison section

Layout of ``OUT``::

    report.html   everything, figures embedded
    report.md     the same tables; figures linked from figures/
    figures/*.png
    tables/*.csv  full tables (the HTML/Markdown show the larger ones shortened)
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import polars as pl

from analysis.club import club_sections, house_rules_section, house_rules_tables
from analysis.dataset import AnalysisError, Dataset, aggregate_many, as_dataset, finish, label, rollup
from analysis.page import Section, grid, png, pyplot, write
from analysis.tables import (
    DEFAULT_KEYS,
    NO_LAUFENDE,
    compare,
    contract_mix,
    double_dummy,
    double_dummy_by_shape,
    laufende_frequency,
    laufende_summary,
    payout_distribution,
    seat_summary,
)
from simkit import __version__
from simkit.rules.contracts import KIND_NAMES

MIN_CELL = 30  # heatmap cells with fewer games are left blank
MAX_SHAPES = 12  # shapes per contract shown in the HTML/Markdown table (the CSV has all)


def fig_contract_mix(mix: pl.DataFrame) -> bytes:
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(7, 0.35 * mix.height + 1))
    y = np.arange(mix.height)[::-1]
    ax.barh(y, mix["share"].to_numpy() * 100, color="#4c72b0")
    ax.set_yticks(y, mix["label"].to_list())
    for yi, s in zip(y, mix["share"].to_list()):
        ax.text(s * 100, yi, f" {100 * s:.2f}%", va="center", fontsize=8)
    ax.set_xlabel("share of all deals (%)")
    ax.set_title("Contract mix")
    return png(fig)


def fig_win_rates(wr: pl.DataFrame) -> bytes:
    plt = pyplot()
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(11, 0.4 * wr.height + 1.2), sharey=True)
    y = np.arange(wr.height)[::-1]
    r = wr["win_rate"].to_numpy()
    a1.errorbar(r * 100, y, xerr=[(r - wr["win_low"].to_numpy()) * 100, (wr["win_high"].to_numpy() - r) * 100],
                fmt="o", capsize=3, color="#4c72b0")
    a1.axvline(50, color="grey", lw=0.8)
    a1.set_yticks(y, wr["label"].to_list())
    a1.set_xlabel("declarer win rate (%), 95% Wilson interval")
    m = wr["mean_payout"].to_numpy()
    a2.errorbar(m, y, xerr=[m - wr["payout_low"].to_numpy(), wr["payout_high"].to_numpy() - m], fmt="s",
                capsize=3, color="#dd8452")
    a2.axvline(0, color="grey", lw=0.8)
    a2.set_xlabel("mean payout to the declarer (tariff units), 95% interval")
    fig.suptitle("Win rate and payout per contract")
    return png(fig)


def fig_double_dummy(dd: pl.DataFrame) -> bytes:
    """Actual and double-dummy win rate per contract, with their 95% intervals."""
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(7, 0.55 * dd.height + 1.2))
    y = np.arange(dd.height)[::-1]
    for col, low, high, dy, mark, colour, name in (
            ("win_rate", "win_low", "win_high", 0.12, "o", "#4c72b0", "as played"),
            ("dd_win_rate", "dd_win_low", "dd_win_high", -0.12, "s", "#c44e52", "double dummy")):
        r = dd[col].to_numpy()
        ax.errorbar(r * 100, y + dy, xerr=[(r - dd[low].to_numpy()) * 100, (dd[high].to_numpy() - r) * 100],
                    fmt=mark, capsize=3, color=colour, label=name)
    ax.set_yticks(y, dd["label"].to_list())
    ax.set_xlabel("declaring side's win rate (%), 95% Wilson interval")
    ax.legend(loc="best", fontsize=8)
    ax.set_title("Win rate as played and with every hand open")
    return png(fig)


def fig_laufende(freq: pl.DataFrame, contracts: list[tuple[str, bool]]) -> bytes:
    fig, axes = grid(len(contracts), 4.4, 3.2)
    for ax, (c, t) in zip(axes, contracts):
        g = freq.filter((pl.col("contract") == c) & (pl.col("tout") == t))
        kmax = int(g["laufende"].max())
        k = np.arange(1, kmax + 1)
        for mit, off, col, name in ((True, -0.2, "#55a868", "mit (declaring side)"),
                                    (False, 0.2, "#c44e52", "ohne (defenders)")):
            gg = g.filter(pl.col("laufende_mit") == mit)
            share = dict(zip(gg["laufende"].to_list(), gg["share"].to_list()))
            ax.bar(k + off, [100 * share.get(i, 0) for i in k], width=0.4, color=col, label=name)
            ex = dict(zip(gg["laufende"].to_list(), gg["exact"].to_list()))
            if any(v is not None for v in ex.values()):
                ax.plot(k + off, [100 * (ex.get(i) or 0) for i in k], "k_", ms=9, mew=2,
                        label="exact" if mit else None)
        paid_from = g.filter(pl.col("paid"))["laufende"].min()
        if paid_from is not None:
            ax.axvspan(paid_from - 0.5, kmax + 0.5, color="#eeeeaa", alpha=0.4, zorder=0, label="paid")
        ax.set_title(label(c, t))
        ax.set_xlabel("Laufende")
        ax.set_ylabel("% of games")
        ax.set_xticks(k)
        ax.legend(fontsize=7)
    fig.suptitle("Laufende (runners) per contract" + (" - bars simulated, black marks exact"
                                                       if freq["exact"].null_count() < freq.height else ""))
    fig.tight_layout()
    return png(fig)


def fig_heatmaps(cells: pl.DataFrame, contracts: list[tuple[str, bool]]) -> bytes:
    fig, axes = grid(len(contracts), 4.4, 3.6)
    for ax, (c, t) in zip(axes, contracts):
        g = cells.filter((pl.col("contract") == c) & (pl.col("tout") == t) & (pl.col("games") >= MIN_CELL))
        if g.height == 0:
            ax.set_visible(False)
            continue
        tx = np.arange(int(g["trumps"].min()), int(g["trumps"].max()) + 1)
        oy = np.arange(0, 9)
        z = np.full((len(oy), len(tx)), np.nan)
        for r in g.iter_rows(named=True):
            z[r["ober_unter"], r["trumps"] - tx[0]] = r["mean_payout"]
        rows = np.flatnonzero(~np.all(np.isnan(z), axis=1))
        z = z[rows.min():rows.max() + 1]
        oy = oy[rows.min():rows.max() + 1]
        lim = np.nanmax(np.abs(z)) or 1
        im = ax.imshow(z, origin="lower", cmap="RdBu", vmin=-lim, vmax=lim, aspect="auto",
                       extent=(tx[0] - 0.5, tx[-1] + 0.5, oy[0] - 0.5, oy[-1] + 0.5))
        if z.size <= 80:
            for i, yv in enumerate(oy):
                for j, xv in enumerate(tx):
                    if not np.isnan(z[i, j]):
                        ax.text(xv, yv, f"{z[i, j]:.1f}", ha="center", va="center", fontsize=6)
        ax.set_xticks(tx)
        ax.set_yticks(oy)
        ax.grid(False)
        ax.set_xlabel("trumps in the declarer's hand")
        ax.set_ylabel("Ober + Unter")
        ax.set_title(label(c, t))
        fig.colorbar(im, ax=ax, label="mean payout")
    fig.suptitle(f"Mean payout to the declarer by trumps and Ober+Unter (cells with >= {MIN_CELL} games)")
    fig.tight_layout()
    return png(fig)


def fig_payouts(pay: pl.DataFrame, contracts: list[tuple[str, bool]]) -> bytes:
    fig, axes = grid(len(contracts), 4.4, 2.8)
    for ax, (c, t) in zip(axes, contracts):
        g = pay.filter((pl.col("contract") == c) & (pl.col("tout") == t))
        x = g["payout"].to_numpy()
        s = g["share"].to_numpy() * 100
        ax.bar(x, s, width=0.8 if len(x) < 2 else 0.8 * np.min(np.diff(np.sort(x))),
               color=np.where(x > 0, "#55a868", "#c44e52"))
        ax.set_title(label(c, t))
        ax.set_xlabel("payout to the declarer (tariff units)")
        ax.set_ylabel("% of games")
    fig.suptitle("Payout distribution per contract")
    fig.tight_layout()
    return png(fig)


def fig_seats(seats: pl.DataFrame, summary: pl.DataFrame, contracts: list[tuple[str, bool]]) -> bytes:
    plt = pyplot()
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(11, 3.6))
    w = 0.8 / max(1, len(contracts))
    for i, (c, t) in enumerate(contracts):
        g = seats.filter((pl.col("contract") == c) & (pl.col("tout") == t)).sort("declarer")
        x = g["declarer"].to_numpy() + (i - (len(contracts) - 1) / 2) * w
        r = g["win_rate"].to_numpy() * 100
        a1.errorbar(x, r, yerr=[r - g["win_low"].to_numpy() * 100, g["win_high"].to_numpy() * 100 - r],
                    fmt="o", capsize=2, label=label(c, t))
    a1.set_xticks(range(4), ["0 forehand", "1", "2", "3 dealer"])
    a1.set_xlabel("declaring seat")
    a1.set_ylabel("win rate (%)")
    a1.legend(fontsize=7)
    a1.set_title("Declarer win rate by seat")
    m = summary["mean_payout"].to_numpy()
    a2.bar(summary["seat"].to_numpy(), m, yerr=[m - summary["payout_low"].to_numpy(),
                                                summary["payout_high"].to_numpy() - m], capsize=4,
           color="#8172b3")
    a2.axhline(0, color="grey", lw=0.8)
    a2.set_xticks(range(4), ["0 forehand", "1", "2", "3 dealer"])
    a2.set_ylabel("mean payout per deal (tariff units)")
    a2.set_title("Each seat's result over all deals (95% interval)")
    fig.tight_layout()
    return png(fig)


def fig_compare(cmp: pl.DataFrame, name_a: str, name_b: str) -> bytes:
    plt = pyplot()
    g = cmp.filter(pl.col("win_diff").is_not_null())
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(11, 0.4 * g.height + 1.4), sharey=True)
    y = np.arange(g.height)[::-1]
    d = g["win_diff"].to_numpy() * 100
    a1.errorbar(d, y, xerr=[d - g["win_diff_low"].to_numpy() * 100, g["win_diff_high"].to_numpy() * 100 - d],
                fmt="o", capsize=3)
    a1.axvline(0, color="grey", lw=0.8)
    a1.set_yticks(y, g["label"].to_list())
    a1.set_xlabel("win rate difference A - B (percentage points)")
    m = g["payout_diff"].to_numpy()
    a2.errorbar(m, y, xerr=[m - g["payout_diff_low"].to_numpy(), g["payout_diff_high"].to_numpy() - m],
                fmt="s", capsize=3, color="#dd8452")
    a2.axvline(0, color="grey", lw=0.8)
    a2.set_xlabel("mean payout difference A - B (tariff units)")
    fig.suptitle(f"A = {name_a}, B = {name_b} (95% intervals)")
    return png(fig)


# ------------------------------------------------------------------------------------------ content

WR_FMT = {"label": ("contract", None), "games": ("games", "int"), "win_rate": ("win rate", "pct"),
          "win_low": ("95% low", "pct"), "win_high": ("95% high", "pct"), "mean_points": ("mean points", ".1f"),
          "mean_payout": ("mean payout", ".3f"), "payout_low": ("95% low", ".3f"),
          "payout_high": ("95% high", ".3f")}


def _main_contracts(wr: pl.DataFrame, min_games: int = 1) -> list[tuple[str, bool]]:
    g = wr.filter(pl.col("games") >= min_games)
    order = {n: i for i, n in enumerate(KIND_NAMES)}
    return sorted(zip(g["contract"].to_list(), g["tout"].to_list()), key=lambda x: (x[1], order.get(x[0], 9)))


def _sort_contracts(df: pl.DataFrame) -> pl.DataFrame:
    order = {n: i for i, n in enumerate(KIND_NAMES)}
    return df.with_columns(_o=pl.col("contract").replace_strict(order, default=99, return_dtype=pl.Int64)) \
        .sort("tout", "_o").drop("_o")


def provenance(ds: Dataset) -> pl.DataFrame:
    m = ds.manifest
    forced = ds.forced
    r = m.get("ruleset") or {}
    t = r.get("tariff") or {}
    rows = [
        ("run", str(ds.path) if ds.path else "(in-memory frame)"),
        ("ruleset", f"{r.get('name', '?')} ({r.get('deck', '?')} deck; contracts {', '.join(r.get('contracts', []))};"
                    f" Tout {'on' if r.get('tout') else 'off'})"),
        ("tariff", ", ".join(f"{k} {v}" for k, v in t.items())),
        ("strategies (seat 0..3)", ", ".join(m.get("strategies") or [])),
        ("seed", str(m.get("seed"))),
        ("deals", f"{m.get('deals_done', 0):,} of {m.get('deals', 0):,}" + ("" if m.get("complete") else
                                                                           " (incomplete run)")),
        ("forced contract", f"{forced[0]} by seat {forced[1]} (no bidding)" if forced else "no (bidding)"),
        ("hands", "stored (hand_* columns)" if ds.has_hands else "regenerated from (seed, deal_id)"),
        ("written by", f"simkit {m.get('simkit_version', '?')} at {m.get('created', '?')}"),
        ("report", f"simkit {__version__} at {time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime())}"),
    ]
    return pl.DataFrame({"item": [a for a, _ in rows], "value": [b for _, b in rows]})


def run_sections(ds: Dataset) -> tuple[list[Section], dict[str, pl.DataFrame]]:
    """All sections of a one-run report and the full tables (for CSV)."""
    base, shapes, cells = aggregate_many(ds, [DEFAULT_KEYS + ["declarer"],
                                              DEFAULT_KEYS + ["shape"],
                                              DEFAULT_KEYS + ["trumps", "ober_unter"]])
    wr = _sort_contracts(finish(rollup(base, DEFAULT_KEYS)))
    seats = finish(base)
    summary = seat_summary(ds)
    mix = contract_mix(ds)
    freq = laufende_frequency(ds)
    lsum = _sort_contracts(laufende_summary(ds, freq))
    pay = payout_distribution(ds)
    ep = finish(shapes)
    heat = finish(cells)
    tables = {"provenance": provenance(ds), "contract_mix": mix, "win_rates": wr, "seat_effects": seats,
              "seat_summary": summary, "laufende": freq, "laufende_summary": lsum, "payouts": pay,
              "expected_points_by_shape": ep, "payout_by_trumps_ober_unter": heat}
    contracts = _main_contracts(wr)
    big = _main_contracts(wr, 100) or contracts
    sec = []
    sec.append(Section("Provenance", tables=[("", tables["provenance"], {"item": ("", None),
                                                                        "value": ("", None)})]))
    passed = {"ramsch": "deals everybody passed are played as Ramsch",
              "stock": "passed deals are thrown in and every player pays into the stock"}.get(
        getattr(ds.rules, "all_pass", "throw-in"), "passed deals are thrown in (nobody played)")
    s = Section("Contract mix", f"Share of all deals per contract; {passed}.")
    s.tables.append(("", mix, {"label": ("contract", None), "deals": ("deals", "int"), "share": ("share", "pct2")}))
    s.figures.append(("contract_mix", fig_contract_mix(mix)))
    sec.append(s)
    s = Section("Win rate per contract",
                "The declaring side wins with 61+ card points (a Tout: every trick). Win rate with a 95% Wilson "
                "interval; mean card points of the declaring side; mean payout to the declarer's seat in tariff "
                "units (a Rufspiel partner gets the same; a soloist three times the price), 95% normal interval."
                + (" A Bettel is won by taking no trick. A Ramsch row describes its loser (or the Durchmarsch "
                   "winner): its win rate is the Durchmarsch rate." if {"bettel", "ramsch"} & set(wr["contract"])
                   else ""))
    s.tables.append(("", wr, WR_FMT))
    if wr.height:
        s.figures.append(("win_rates", fig_win_rates(wr)))
    sec.append(s)
    forced = ds.forced
    s = Section("Laufende (runners)",
                "Consecutive top trumps held by one side (RULES.md 2.5): *mit* = the declaring side holds them, "
                "*ohne* = the defenders do; paid from the ruleset's minimum on. "
                + ("This is a forced-contract run (no bidding selects the hands), so the exact distribution "
                   "applies (docs/analysis.md); the chi-square test compares simulation and theory "
                   "(a p-value that is not tiny means they agree)." if forced else
                   "Bidding selects the hands, so no exact distribution applies; force a contract "
                   "(`simkit run --contract ... --declarer ...`) to compare with theory."))
    lfmt = {"label": ("contract", None), "games": ("games", "int"), "paid_share": ("paid", "pct"),
            "paid_low": ("95% low", "pct"), "paid_high": ("95% high", "pct"),
            "mean_laufende": ("mean Laufende", ".2f"), "mit_share": ("mit share", "pct")}
    if forced:
        lfmt |= {"exact_paid_share": ("exact paid", "pct"), "chi2": ("chi2", ".1f"), "df": ("df", "int"),
                 "p_value": ("p-value", "p")}
    s.tables.append(("Summary", lsum, lfmt))
    dist = freq.filter(pl.col("games") > 0) if not forced else freq.filter(
        (pl.col("games") > 0) | (pl.col("exact") >= 1e-4))
    dfmt = {"label": ("contract", None), "laufende_mit": ("mit", None), "laufende": ("Laufende", "int"),
            "games": ("games", "int"), "share": ("share", "pct2")}
    if forced:
        dfmt["exact"] = ("exact", "pct2")
    dfmt["paid"] = ("paid", None)
    with_laufende = [(c, t) for c, t in big if c not in NO_LAUFENDE]
    s.tables.append(("Distribution", dist.filter(pl.col("contract").is_in([c for c, _ in with_laufende])), dfmt))
    if freq.height and with_laufende:
        s.figures.append(("laufende", fig_laufende(freq, with_laufende)))
    sec.append(s)
    s = Section("Expected points per hand shape",
                "Declarer's hand shape: trump count, then the side-suit lengths descending (docs/analysis.md). "
                f"The {MAX_SHAPES} most frequent shapes per contract; all shapes in tables/expected_points_by_shape.csv.")
    top = (ep.filter(pl.col("contract").is_in([c for c, _ in big]) & ~pl.col("tout"))
           .sort("games", descending=True).group_by("contract", maintain_order=True).head(MAX_SHAPES))
    top = _sort_contracts(top).sort("tout", "contract", "games", descending=[False, False, True])
    s.tables.append(("", top, {"label": ("contract", None), "shape": ("shape", None), "games": ("games", "int"),
                               "mean_points": ("mean points", ".1f"), "points_low": ("95% low", ".1f"),
                               "points_high": ("95% high", ".1f"), "mean_payout": ("mean payout", ".2f"),
                               "payout_low": ("95% low", ".2f"), "payout_high": ("95% high", ".2f"),
                               "win_rate": ("win rate", "pct")}))
    hc = [ct for ct in big if not ct[1]]
    if heat.height and hc:
        s.figures.append(("payout_heatmap", fig_heatmaps(heat, hc)))
    sec.append(s)
    sec.append(best_section(ds, top, tables))
    s = Section("Payout distribution", "Share of games per payout to the declarer's seat (tariff units).")
    if pay.height:
        s.figures.append(("payouts", fig_payouts(pay, big)))
    sec.append(s)
    s = Section("Seat (position) effects",
                "Seat 0 is forehand (bids first, leads the first trick), seat 3 the dealer. Left: declarer win "
                "rate by seat; right: every seat's mean payout per deal over all deals, whatever its role.")
    s.tables.append(("Per seat", summary, {"seat": ("seat", "int"), "declares": ("declares", "int"),
                                           "declare_share": ("declares (% of deals)", "pct"),
                                           "mean_payout": ("mean payout per deal", ".3f"),
                                           "payout_low": ("95% low", ".3f"), "payout_high": ("95% high", ".3f")}))
    st = _sort_contracts(seats.filter(pl.col("contract").is_in([c for c, _ in big]) & ~pl.col("tout")))
    s.tables.append(("Per contract and declaring seat", st,
                     {"label": ("contract", None), "declarer": ("seat", "int"), **{k: v for k, v in WR_FMT.items()
                                                                                   if k != "label"}}))
    if seats.height:
        s.figures.append(("seats", fig_seats(seats, summary, [ct for ct in big if not ct[1]][:4] or big)))
    sec.append(s)
    if "dd_points" in ds.columns:
        sec.append(dd_section(ds, tables, [c for c, _ in big]))
    club, club_tables = club_sections(ds)  # Ramsch, Bettel, Klopfen, Stock: each only when the run has such rows
    sec += club
    tables.update(club_tables)
    return sec, tables


BEST_HANDS, BEST_DEALS = 3, 300  # hands per shape and sampled deals per hand of the best-declaration table


def best_section(ds: Dataset, shapes: pl.DataFrame, tables: dict[str, pl.DataFrame]) -> Section:
    """"Best declaration per hand shape": the shapes of the expected-points table, a few of the run's declarer hands
    of each valued by simkit.evaluate (analysis.best)."""
    from analysis.best import best_declaration_by_shape

    best = best_declaration_by_shape(ds, shapes, hands=BEST_HANDS, deals=BEST_DEALS)
    best = best.with_columns(pl.Series("label", [label(c, t) for c, t in zip(best["contract"], best["tout"])],
                                       dtype=pl.String))
    tables["best_declaration_by_shape"] = best
    s = Section("Best declaration per hand shape",
                f"For each shape of the table above, the run's first {BEST_HANDS} declarer hands of that contract and "
                f"shape, each valued at its declarer's seat by `simkit evaluate` (docs/evaluate.md): every "
                f"declaration the hand may make and passing, played on the same {BEST_DEALS} sampled deals by the "
                "heuristic. *Best* is the option of the highest mean payout most often (*share*: of the hands); "
                "*value* its mean payout per deal (tariff units), *declared* that of the contract the run's bidding "
                "chose for the same hands, *gain* the difference. Few hands and deals: a guide, not a verdict.")
    s.tables.append(("", best, {"label": ("contract", None), "shape": ("shape", None), "hands": ("hands", "int"),
                                "best": ("best", None), "best_share": ("share", "pct"),
                                "best_payout": ("value", ".2f"), "declared_payout": ("declared", ".2f"),
                                "gain": ("gain", ".2f")}))
    return s


def dd_section(ds: Dataset, tables: dict[str, pl.DataFrame], contracts: list[str]) -> Section:
    """"Double dummy": the run's results next to the value of each opening with every hand open (``--dd``)."""
    dd = _sort_contracts(double_dummy(ds))
    shapes = double_dummy_by_shape(ds)
    tables["double_dummy"] = dd
    tables["double_dummy_by_shape"] = shapes
    s = Section("Double dummy",
                "Each deal's opening position solved with every hand open and perfect play by all four "
                "(simkit's solver, docs/solver.md), in the contract actually played. *Gap* is the mean of double-"
                "dummy minus actual card points of the declaring side: positive, the declaring side left points "
                "on the table; negative, it won more than the cards allow against perfect defence (the defenders "
                "erred). 95% intervals.")
    s.tables.append(("Per contract", dd, {
        "label": ("contract", None), "games": ("games", "int"), "win_rate": ("win rate", "pct"),
        "dd_win_rate": ("DD win rate", "pct"), "dd_win_low": ("95% low", "pct"), "dd_win_high": ("95% high", "pct"),
        "mean_points": ("mean points", ".1f"), "dd_mean_points": ("DD mean points", ".1f"),
        "points_gap": ("gap", ".1f"), "gap_low": ("95% low", ".1f"), "gap_high": ("95% high", ".1f")}))
    top = (shapes.filter(pl.col("contract").is_in(contracts) & ~pl.col("tout")).sort("games", descending=True)
           .group_by("contract", maintain_order=True).head(MAX_SHAPES))
    top = _sort_contracts(top).sort("tout", "contract", "games", descending=[False, False, True])
    s.tables.append(("Win rate by the declarer's hand shape (all shapes in tables/double_dummy_by_shape.csv)", top, {
        "label": ("contract", None), "shape": ("shape", None), "games": ("games", "int"),
        "win_rate": ("win rate", "pct"), "win_low": ("95% low", "pct"), "win_high": ("95% high", "pct"),
        "dd_win_rate": ("DD win rate", "pct"), "dd_win_low": ("95% low", "pct"),
        "dd_win_high": ("95% high", "pct")}))
    if dd.height:
        s.figures.append(("double_dummy", fig_double_dummy(dd)))
    return s


_CMP_FORMAT = {"games_a": ("games A", "int"), "games_b": ("games B", "int"), "win_rate_a": ("win A", "pct"),
               "win_rate_b": ("win B", "pct"), "win_diff": ("diff", "pct"), "win_diff_low": ("95% low", "pct"),
               "win_diff_high": ("95% high", "pct"), "payout_a": ("payout A", ".3f"),
               "payout_b": ("payout B", ".3f"), "payout_diff": ("diff", ".3f"),
               "payout_diff_low": ("95% low", ".3f"), "payout_diff_high": ("95% high", ".3f")}


def compare_section(a: Dataset, b: Dataset) -> tuple[Section, dict[str, pl.DataFrame]]:
    """The comparison A - B per contract and per declarer hand shape; returns the section and its tables."""
    cmp = _sort_contracts(compare(a, b))
    na, nb = a.name, b.name
    s = Section(f"Comparison: A = {na} vs B = {nb}",
                f"A: strategies {', '.join(a.strategies)}, ruleset {(a.manifest.get('ruleset') or {}).get('name')}; "
                f"B: strategies {', '.join(b.strategies)}, ruleset {(b.manifest.get('ruleset') or {}).get('name')}. "
                "Differences A - B with 95% intervals (win rate: Newcombe hybrid score; mean payout: normal, "
                "unequal variances). An interval that excludes 0 is a difference at the 5% level.")
    s.tables.append(("", cmp, {"label": ("contract", None), **_CMP_FORMAT}))
    if cmp.filter(pl.col("win_diff").is_not_null()).height:
        s.figures.append(("compare", fig_compare(cmp, na, nb)))
    shapes = _sort_contracts(compare(a, b, by="shape"))
    top = (shapes.filter(~pl.col("tout") & (pl.col("games_a") > 0) & (pl.col("games_b") > 0))
           .sort("games_a", descending=True).group_by("contract", maintain_order=True).head(MAX_SHAPES))
    top = _sort_contracts(top).sort("contract", "games_a", descending=[False, True])
    if top.height:
        s.tables.append((f"Per declarer hand shape (trumps, then side-suit lengths): the {MAX_SHAPES} most frequent "
                         "shapes per contract; all shapes in tables/compare_by_shape.csv",
                         top, {"label": ("contract", None), "shape": ("shape", None), **_CMP_FORMAT}))
    return s, {"compare": cmp, "compare_by_shape": shapes}


def old_german_sections(run: Path) -> tuple[list[Section], dict[str, pl.DataFrame]]:
    """The report of an old German run (RULES.md 3, issue 6 section 4): win rate by the chooser's count and for
    forced deals, forced share against the exact figure, strokes, 60-60 ties and follow-ups, parties, and the
    sheep's head of the first partie."""
    import tempfile

    from simkit.oldgerman.analysis import sheep_figure, tables
    from simkit.sim import manifest as mf

    m = mf.load(run)
    t = {k: pl.from_pandas(v) for k, v in tables(run).items()}
    rules = m.get("ruleset") or {}
    prov = pl.DataFrame({"item": ["run", "ruleset", "strategies (seat 0..3)", "seed", "unit", "written by"],
                         "value": [str(run), f"{rules.get('name', '?')} (head of {rules.get('head_strokes', '?')} "
                                   f"strokes)", ", ".join(m.get("strategies") or []), str(m.get("seed")),
                                   f"{m.get('deals_done', 0):,} of {m.get('deals', 0):,} "
                                   + ("parties" if m.get("unit") == "parties" else "deals"),
                                   f"simkit {m.get('simkit_version', '?')} at {m.get('created', '?')}"]})
    item = {"item": ("", None), "value": ("", None)}
    sections = [
        Section("Provenance", tables=[("", prov, item)]),
        Section("Declaring team's win rate by the chooser's count",
                "Count = the chooser's Unter plus his longest other suit; 'forced' = nobody reached 5 and the "
                "Eichel-Unter holder had to choose. 95% Wilson intervals.",
                tables=[("", t["win_rate_by_count"], {"count": ("count", None), "deals": ("deals", "int"),
                                                      "win_rate": ("win rate", "pct"), "ci_low": ("95% low", "pct"),
                                                      "ci_high": ("95% high", "pct")})]),
        Section("Deals", "Share of forced deals (with the exact figure derived in docs/old-german.md), strokes per "
                "deal, 60-60 ties and follow-up deals.",
                tables=[("", t["deal_summary"], {"measure": ("measure", None), "value": ("value", ".4f"),
                                                 "ci_low": ("95% low", ".4f"), "ci_high": ("95% high", ".4f"),
                                                 "exact": ("exact", ".6f")})]),
    ]
    if "parties" in t:
        sec = Section("Parties", "Deals per partie and how parties end (a team draws a complete sheep's head for "
                      "its opponents, or wins by Schwarz).", tables=[("", t["parties"], {})])
        with tempfile.TemporaryDirectory() as tmp:
            png = sheep_figure(run, 0, Path(tmp) / "sheep.png").read_bytes()
        sec.figures.append(("sheep_partie_0", png))
        sections.append(sec)
    return sections, t


def run_game(run) -> str | None:
    """The game of a run directory (``bavarian``, ``old-german``); None for a frame or a directory without a
    manifest (the Bavarian loader then reports what is wrong)."""
    from simkit.sim import manifest as mf

    if not isinstance(run, (str, Path)) or not (Path(run) / mf.MANIFEST).is_file():
        return None
    try:
        return mf.load(Path(run)).get("game", "bavarian")
    except mf.ManifestError as e:
        raise AnalysisError(str(e)) from None


def build_report(run, out, compare_with=None, against=None, rules=None) -> Path:
    """Write the report of ``run`` (and, with ``compare_with``, the comparison A = run vs B; with ``against``, a
    records file or an :class:`analysis.against.Against`, the section "Against recorded games", the records
    settled under ``rules``, default the run's) into ``out``; return the path of report.html. Everything is
    computed before the first file is written: an error writes nothing."""
    if run_game(run) == "old-german":
        if compare_with is not None:
            raise AnalysisError("--compare covers Bavarian runs only")
        if against is not None:
            raise AnalysisError("--against covers Bavarian runs only")
        sections, tables = old_german_sections(Path(run))
        return write(sections, tables, Path(out), f"simkit report: {Path(run).name} (old German Schafkopf)")
    ds = as_dataset(run)
    ag = None
    if against is not None:  # first: a bad games file fails before the long part
        from analysis.against import Against, against as hold_against

        ag = against if isinstance(against, Against) else hold_against(ds, against, rules)
    sections, tables = run_sections(ds)
    if ag is not None:
        from analysis.against import section as against_section

        s, ag_tables = against_section(ag)
        sections.append(s)
        tables.update(ag_tables)
    if compare_with is not None:
        s, cmp_tables = compare_section(ds, as_dataset(compare_with))
        sections.append(s)
        tables.update(cmp_tables)
    return write(sections, tables, Path(out), f"simkit report: {ds.name}")


def build_against(run, games, out, rules=None) -> Path:
    """A report of only the run's provenance and the section "Against recorded games" (``simkit compare RUN
    GAMES --out DIR``); ``games`` a records file or an :class:`analysis.against.Against`."""
    from analysis.against import Against, against as hold_against, section as against_section

    ds = as_dataset(run)
    ag = games if isinstance(games, Against) else hold_against(ds, games, rules)
    s, tables = against_section(ag)
    prov = Section("Provenance of the run", tables=[("", provenance(ds), {"item": ("", None), "value": ("", None)})])
    tables["provenance"] = provenance(ds)
    return write([s, prov], tables, Path(out), f"simkit compare: {ds.name} vs {ag.games.path.name}")


def build_compare(run_a, run_b, out) -> Path:
    a, b = as_dataset(run_a), as_dataset(run_b)
    s, cmp_tables = compare_section(a, b)
    house = house_rules_tables(a, b)
    cmp_tables.update(house)
    prov = [Section("Provenance A", tables=[("", provenance(a), {"item": ("", None), "value": ("", None)})]),
            Section("Provenance B", tables=[("", provenance(b), {"item": ("", None), "value": ("", None)})])]
    return write([house_rules_section(a, b, house), s] + prov, cmp_tables, Path(out),
                 f"simkit compare: {a.name} vs {b.name}")
