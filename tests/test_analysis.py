"""analysis/ and `simkit report` / `simkit compare`: known answers, interval coverage, the exact Laufende
distribution (brute force on a reduced deck; goodness of fit to forced runs), report rendering, bad input."""

import itertools
import json
from pathlib import Path

import numpy as np
import polars as pl
import pytest

import analysis as an
from analysis.dataset import Dataset
from analysis.exact import laufende_distribution
from analysis.features import hand_features, shape_label
from simkit.stats import chi2_sf, chi_square_gof, diff_proportions, mean_interval, wilson
from simkit.cards import parse_hand
from simkit.rules import Contract
from simkit.sim import RunOptions, run

from simkit_cli import simkit as cli


# ------------------------------------------------------------------------------------------ statistics

def test_wilson_known_values():
    lo, hi = wilson(8, 10)
    assert lo == pytest.approx(0.4902, abs=1e-4) and hi == pytest.approx(0.9433, abs=1e-4)
    lo, hi = wilson(0, 20)
    assert lo == pytest.approx(0.0, abs=1e-12) and hi == pytest.approx(0.1611, abs=1e-4)


def test_chi2_sf_known_values():
    assert chi2_sf(3.841458820694124, 1) == pytest.approx(0.05, rel=1e-6)
    assert chi2_sf(18.307038053275146, 10) == pytest.approx(0.05, rel=1e-6)
    assert chi2_sf(0.0, 3) == 1.0
    assert chi2_sf(200.0, 5) < 1e-30


@pytest.mark.parametrize("p,n", [(0.5, 20), (0.1, 50), (0.75, 400), (0.02, 300)])
def test_wilson_coverage(p, n):
    rng = np.random.default_rng(1)
    wins = rng.binomial(n, p, size=20_000)
    lo, hi = wilson(wins, np.full_like(wins, n))
    cover = np.mean((lo <= p) & (p <= hi))
    assert 0.925 < cover < 0.975, cover


def test_mean_and_difference_interval_coverage():
    rng = np.random.default_rng(2)
    values = np.array([-15, -5, 1, 5, 15])  # a payout-like discrete distribution
    probs = np.array([0.1, 0.2, 0.3, 0.3, 0.1])
    mu = float(values @ probs)
    x = rng.choice(values, p=probs, size=(4000, 300))
    m, lo, hi = mean_interval(300, x.sum(1), (x * x).sum(1))
    assert 0.93 < np.mean((lo <= mu) & (mu <= hi)) < 0.97
    w1 = rng.binomial(200, 0.6, 10_000)
    w2 = rng.binomial(300, 0.5, 10_000)
    d, lo, hi = diff_proportions(w1, 200, w2, 300)
    assert 0.93 < np.mean((lo <= 0.1) & (0.1 <= hi)) < 0.97


def test_goodness_of_fit_pools_rare_cells():
    fit = chi_square_gof([50, 30, 15, 3, 2], [0.5, 0.3, 0.15, 0.03, 0.02])
    assert fit["p_value"] > 0.99 and fit["cells"] == 4  # the 3 and 2 (expected 3 and 2) pooled into one cell
    assert chi_square_gof([100, 0], [0.5, 0.5])["p_value"] < 1e-10


# ------------------------------------------------------------------------------------------ features

def test_hand_features_known_hand():
    h = parse_hand("EO GO HU HA HZ EA GK S7")
    f = hand_features(np.array([h] * 4, np.uint32), np.array([0, 1, 2, 3]), np.array([0, 2, -1, -1]))
    assert f["trumps"].tolist() == [5, 5, 1, 2]  # Rufspiel (Herz trump), Herz solo, Wenz, Geier
    assert f["ober"].tolist() == [2] * 4 and f["unter"].tolist() == [1] * 4
    assert f["aces"].tolist() == [1, 1, 2, 2]  # the Herz ace is trump in the Rufspiel and the Herz solo
    assert [shape_label(int(c)) for c in f["shape"]] == ["5-1-1-1", "5-1-1-1", "1-2-2-2-1", "2-3-1-1-1"]
    assert f["free"].tolist() == [0] * 4
    assert f["hand_points"].tolist() == [44] * 4
    g = hand_features(np.array([parse_hand("EO GO HO SO EU HA HZ EA")], np.uint32), np.array([0]), np.array([1]))
    assert shape_label(int(g["shape"][0])) == "7-1-0-0" and g["free"][0] == 2 and g["aces"][0] == 1


def _frame(rows):
    """A hand-built dataset: (contract, tout, declarer, won, points, declarer payout, declarer hand)."""
    cols = {k: [] for k in ["deal_id", "contract", "tout", "suit", "declarer", "won", "declarer_points",
                            "laufende", "laufende_mit", *[f"payout_{s}" for s in range(4)],
                            *[f"hand_{s}" for s in range(4)]]}
    for i, (c, suit, d, won, pts, pay, hand) in enumerate(rows):
        cols["deal_id"].append(i)
        cols["contract"].append(c)
        cols["tout"].append(False)
        cols["suit"].append(suit)
        cols["declarer"].append(d)
        cols["won"].append(won)
        cols["declarer_points"].append(pts)
        cols["laufende"].append(3)
        cols["laufende_mit"].append(True)
        for s in range(4):
            cols[f"payout_{s}"].append(pay if s == d else (-pay // 3 if c not in ("rufspiel", "pass") else 0))
            cols[f"hand_{s}"].append(parse_hand(hand) if s == d else 0)
    return pl.DataFrame(cols, schema_overrides={"declarer": pl.Int8, "declarer_points": pl.UInt8,
                                                "laufende": pl.UInt8, "hand_0": pl.UInt32, "hand_1": pl.UInt32,
                                                "hand_2": pl.UInt32, "hand_3": pl.UInt32})


STRONG = "EO GO HO SO EU GU HA HZ"
WEAK = "E7 E8 G7 G8 S7 S8 HK SU"


def test_win_rates_and_expected_points_known_answers():
    df = _frame([
        ("solo", "herz", 0, True, 91, 18, STRONG),
        ("solo", "herz", 1, True, 80, 15, STRONG),
        ("solo", "herz", 2, False, 50, -15, WEAK),
        ("rufspiel", "eichel", 3, True, 70, 1, WEAK),
        ("rufspiel", "eichel", 0, False, 40, -2, WEAK),
        ("pass", None, -1, False, 0, 0, WEAK),
    ])
    wr = an.win_rates(df).sort("contract")
    assert wr["contract"].to_list() == ["rufspiel", "solo"]
    assert wr["games"].to_list() == [2, 3] and wr["wins"].to_list() == [1, 2]
    assert wr["mean_payout"].to_list() == pytest.approx([-0.5, 6.0])
    assert wr["mean_points"].to_list() == pytest.approx([55.0, 221 / 3])
    lo, hi = wilson(2, 3)
    assert wr["win_low"][1] == pytest.approx(float(lo)) and wr["win_high"][1] == pytest.approx(float(hi))
    assert wr["label"].to_list() == ["Rufspiel (partner game)", "Farbsolo (suit solo)"]
    ep = an.expected_points(df, by="shape").sort("contract", "shape")
    got = {(r["contract"], r["shape"]): (r["games"], r["mean_points"]) for r in ep.iter_rows(named=True)}
    # STRONG in a Herz solo: 8 trumps, no side cards; WEAK in a Herz solo: HK SU -> 2 trumps, E 2, G 2, S 2
    assert got == {("solo", "8-0-0-0"): (2, 85.5), ("solo", "2-2-2-2"): (1, 50.0),
                   ("rufspiel", "2-2-2-2"): (2, 55.0)}
    seats = an.win_rates(df, by=["declarer", "trumps"])
    assert seats.filter((pl.col("contract") == "solo") & (pl.col("trumps") == 8))["games"].sum() == 2
    mix = an.contract_mix(df)
    assert dict(zip(mix["contract"], mix["deals"])) == {"pass": 1, "rufspiel": 2, "solo": 3}


def test_regenerated_hands_equal_stored_hands(forced_runs):
    ds = an.scan(forced_runs["heuristic"])
    assert ds.has_hands
    a = an.expected_points(ds, by=["shape", "aces"])
    no_hands = Dataset(ds.lf.drop([f"hand_{s}" for s in range(4)]), ds.manifest, [], ds.path)
    assert not no_hands.has_hands
    assert a.equals(an.expected_points(no_hands, by=["shape", "aces"]))


# ------------------------------------------------------------------------------------------ exact Laufende

def _brute_force(n_cards, h, n_trumps, rufspiel, called_rest):
    """Enumerate every deal of an abstract deck: cards 0..T-1 are the trumps (highest first), T the called ace,
    T+1..T+called_rest the other cards of the called suit. Seat 0 declares."""
    cards = range(n_cards)
    ace = n_trumps
    rest = set(range(n_trumps + 1, n_trumps + 1 + called_rest))
    counts = {}
    total = 0
    for d in itertools.combinations(cards, h):
        left = [c for c in cards if c not in d]
        for h1 in itertools.combinations(left, h):
            left2 = [c for c in left if c not in h1]
            for h2 in itertools.combinations(left2, h):
                h3 = tuple(c for c in left2 if c not in h2)
                if rufspiel:
                    if ace in d or not rest & set(d):
                        continue
                    partner = next(x for x in (h1, h2, h3) if ace in x)
                    team = set(d) | set(partner)
                else:
                    team = set(d)
                top = 0 in team
                k = 0
                while k < n_trumps and ((k in team) == top):
                    k += 1
                counts[(top, k)] = counts.get((top, k), 0) + 1
                total += 1
    return {key: v / total for key, v in counts.items()}


@pytest.mark.parametrize("rufspiel,n_trumps,rest", [(False, 5, 0), (True, 5, 2), (True, 4, 1), (False, 12, 0)])
def test_exact_laufende_matches_brute_force_on_a_reduced_deck(rufspiel, n_trumps, rest):
    exact = laufende_distribution(12, 3, n_trumps, rufspiel, rest)
    brute = _brute_force(12, 3, n_trumps, rufspiel, rest)
    assert sum(exact.values()) == pytest.approx(1.0, abs=1e-12)
    for key in set(exact) | set(brute):
        assert exact.get(key, 0.0) == pytest.approx(brute.get(key, 0.0), abs=1e-12), key


def test_exact_laufende_full_deck_sanity():
    wenz = an.exact_laufende(Contract.parse("wenz"))
    # the soloist holds 8 of 32 cards: P(holds EU) = 1/4; all four Unter with the defenders = C(28,8)/C(32,8)
    assert sum(p for (mit, _), p in wenz.items() if mit) == pytest.approx(0.25)
    from math import comb
    assert wenz[(False, 4)] == pytest.approx(comb(28, 8) / comb(32, 8))
    ruf = an.exact_laufende(Contract.parse("rufspiel", "gras"))
    assert sum(ruf.values()) == pytest.approx(1.0)
    short = an.exact_laufende(Contract.parse("solo", "eichel"), "short")
    assert max(k for _, k in short) == 12 and sum(short.values()) == pytest.approx(1.0)


@pytest.fixture(scope="module")
def forced_runs(tmp_path_factory):
    base = tmp_path_factory.mktemp("analysis")
    runs = {}
    for name, contract, declarer, deals in [("wenz", Contract.parse("wenz"), 2, 40_000),
                                            ("rufspiel", Contract.parse("rufspiel", "schellen"), 0, 40_000),
                                            ("heuristic", None, None, 20_000),
                                            ("random", None, None, 20_000)]:
        seats = ("random",) * 4 if name == "random" else ("heuristic",) * 4
        opts = RunOptions(deals=deals, seed=5, contract=contract, declarer=declarer, seats=seats,
                          store_hands=name == "heuristic", shard_size=max(deals // 2, 10_000) if deals < 50_000
                          else None)
        run(opts, base / name, workers=1)
        runs[name] = base / name
    return runs


@pytest.mark.parametrize("name", ["wenz", "rufspiel"])
def test_forced_run_agrees_with_the_exact_distribution(forced_runs, name):
    ds = an.scan(forced_runs[name])
    freq = an.laufende_frequency(ds)
    assert freq["exact"].null_count() == 0
    assert freq["exact"].sum() == pytest.approx(1.0)
    summ = an.laufende_summary(ds, freq)
    row = summ.row(0, named=True)
    assert row["p_value"] > 1e-3, row  # fixed seed: deterministic
    assert abs(row["paid_share"] - row["exact_paid_share"]) < 4 * np.sqrt(0.25 / row["games"])


def test_bidding_run_has_no_exact_distribution(forced_runs):
    freq = an.laufende_frequency(an.scan(forced_runs["heuristic"]))
    assert freq["exact"].null_count() == freq.height
    assert set(freq["contract"]) <= {"rufspiel", "solo", "wenz", "geier"}


# ------------------------------------------------------------------------------------------ report and CLI

def test_report_renders_with_all_figures(forced_runs, tmp_path):
    out = tmp_path / "rep"
    r = cli("report", forced_runs["heuristic"], "--out", out, "--compare", forced_runs["random"])
    assert r.returncode == 0, r.stderr
    html = (out / "report.html").read_text()
    figures = ["contract_mix", "win_rates", "laufende", "payout_heatmap", "payouts", "seats", "compare"]
    assert html.count("data:image/png;base64,") == len(figures)
    for f in figures:
        assert f"alt='{f}'" in html and (out / "figures" / f"{f}.png").stat().st_size > 1000
    for text in ["Rufspiel (partner game)", "Farbsolo (suit solo)", "Provenance", "heuristic", "Laufende",
                 "Seat (position) effects", "Comparison"]:
        assert text in html
    md = (out / "report.md").read_text()
    assert "| contract |" in md and "![laufende](figures/laufende.png)" in md
    wr = pl.read_csv(out / "tables" / "win_rates.csv")
    assert wr["games"].sum() == an.win_rates(an.scan(forced_runs["heuristic"]))["games"].sum()


def test_forced_report_shows_exact_fit(forced_runs, tmp_path):
    from analysis.report import build_report

    html = build_report(forced_runs["wenz"], tmp_path / "w").read_text()
    assert "exact" in html and "p-value" in html and "Wenz (Unter only)" in html


def test_compare_cli_and_self_comparison(forced_runs, tmp_path):
    same = an.compare(forced_runs["heuristic"], forced_runs["heuristic"])
    assert np.allclose(same["win_diff"].to_numpy(), 0) and np.allclose(same["payout_diff"].to_numpy(), 0)
    r = cli("compare", forced_runs["heuristic"], forced_runs["random"], "--json", "--out", tmp_path / "c")
    assert r.returncode == 0, r.stderr
    rows = [json.loads(x) for x in r.stdout.splitlines()]
    ruf = next(x for x in rows if x["contract"] == "rufspiel" and not x["tout"])
    assert ruf["win_diff_low"] <= ruf["win_diff"] <= ruf["win_diff_high"]
    assert (tmp_path / "c" / "report.html").is_file()
    # per declarer hand shape too: every shape's games add up to the contract's
    shapes = pl.read_csv(tmp_path / "c" / "tables" / "compare_by_shape.csv")
    ruf_shapes = shapes.filter((pl.col("contract") == "rufspiel") & ~pl.col("tout"))
    assert ruf_shapes["games_a"].sum() == ruf["games_a"] and ruf_shapes["games_b"].sum() == ruf["games_b"]
    assert "Per declarer hand shape" in (tmp_path / "c" / "report.md").read_text()


def test_bad_or_missing_dataset_is_a_one_line_error(tmp_path, forced_runs):
    cases = []
    cases.append(("report", tmp_path / "nope"))
    (tmp_path / "empty").mkdir()
    cases.append(("report", tmp_path / "empty"))
    bad = tmp_path / "badjson"
    bad.mkdir()
    (bad / "_manifest.json").write_text("{not json")
    cases.append(("report", bad))
    broken = tmp_path / "broken"
    broken.mkdir()
    m = json.loads((Path(forced_runs["wenz"]) / "_manifest.json").read_text())
    (broken / "_manifest.json").write_text(json.dumps(m))
    for s in m["shards"]:
        (broken / s["file"]).write_bytes(b"PAR1 this is not parquet")
    cases.append(("report", broken))
    missing = tmp_path / "missing"
    missing.mkdir()
    (missing / "_manifest.json").write_text(json.dumps(m))
    cases.append(("compare", missing))
    for cmd, path in cases:
        args = [cmd, path] if cmd == "report" else [cmd, forced_runs["wenz"], path]
        r = cli(*args)
        assert r.returncode == 2, (path, r.stderr)
        lines = r.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("simkit: error: "), r.stderr
    with pytest.raises(an.AnalysisError):
        an.scan(tmp_path / "nope")


def test_old_german_report_has_its_tables_and_the_sheep(tmp_path):
    out = tmp_path / "og"
    res = cli("run", "--rules", "old-german", "--parties", "300", "--out", out, "--workers", "1")
    assert res.returncode == 0, res.stderr
    rep = cli("report", out, "--out", tmp_path / "rep")
    assert rep.returncode == 0, rep.stderr
    html = (tmp_path / "rep" / "report.html").read_text()
    assert "old German" in html and "forced share" in html and "chooser" in html
    assert html.count("data:image/png;base64,") == 1 and (tmp_path / "rep" / "figures" / "sheep_partie_0.png").is_file()
    csv = (tmp_path / "rep" / "tables" / "win_rate_by_count.csv").read_text().splitlines()
    assert csv[0].startswith("count,deals,win_rate") and len(csv) == 6
    bad = cli("report", out, "--compare", out)
    assert bad.returncode == 2 and "Bavarian runs only" in bad.stderr
