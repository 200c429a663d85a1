"""The report's club-rule sections (analysis/club.py) and `simkit compare` of house rules, on runs written here row
by row with the columns docs/club-rules.md "Rows of a run" documents (so they do not wait for the kernel to play
the club rules): known counts, intervals, figures, and each section only where the run has such rows."""

import json
from pathlib import Path

import numpy as np
import polars as pl
import pytest

from analysis import club
from analysis.dataset import scan
from analysis.report import build_compare, build_report
from simkit.rules import load_ruleset
from simkit.sim import manifest as mf
from simkit.sim.stock import session_columns, settle_rows

from simkit_cli import simkit as cli

KINDS = ("pass", "rufspiel", "solo", "wenz", "geier", "farbwenz", "farbgeier", "bettel", "sie", "ramsch")


def complete(df: pl.DataFrame) -> pl.DataFrame:
    """The schema's columns these tests do not look at (docs/schema.md), with neutral values."""
    n = df.height
    extra = {"suit": pl.Series([None] * n, dtype=pl.String), "doubling": np.zeros(n, np.uint8),
             "declarer_tricks": np.zeros(n, np.uint8), "schneider": np.zeros(n, bool), "schwarz": np.zeros(n, bool),
             "laufende": np.zeros(n, np.uint8), "laufende_mit": np.zeros(n, bool), "impossible": np.zeros(n, bool)}
    return df.with_columns(**{k: v for k, v in extra.items() if k not in df.columns}).with_columns(
        pl.col("contract").cast(pl.Categorical), pl.col("suit").cast(pl.Categorical))


def write_run(out: Path, df: pl.DataFrame, rules, **identity) -> Path:
    """A run directory as `simkit run` leaves it: one Parquet shard and its manifest."""
    out.mkdir(parents=True)
    df = complete(df)
    df.write_parquet(out / "part-000000.parquet")
    m = {"format": mf.FORMAT, "simkit_version": "test", "created": "2026-12-04T00:00:00Z", "game": "bavarian",
         "ruleset": json.loads(json.dumps(rules.to_dict())), "strategies": ["heuristic"] * 4, "seed": 3,
         "deals": df.height, "shard_size": df.height, "contract": None, "declarer": None,
         "store_hands": "hand_0" in df.columns, "store_bids": False, **identity,
         "shards": [{"file": "part-000000.parquet", "start": 0, "stop": df.height, "rows": df.height}]}
    mf.save(out, m)
    return out


def club_rows(n: int, seed: int, *, ramsch=True, bettel=True, knocks=True, hands=True) -> pl.DataFrame:
    """``n`` deals with plausible club rows: Rufspiele, solos, Bettel, Ramsch (loser's points, Durchmarsch,
    Jungfrauen), knocks, payouts that sum to zero."""
    rng = np.random.default_rng(seed)
    kinds = ["rufspiel", "solo"] + (["bettel"] if bettel else []) + (["ramsch"] if ramsch else [])
    contract = rng.choice(kinds, n, p=None)
    declarer = rng.integers(0, 4, n)
    partner = np.where(contract == "rufspiel", (declarer + rng.integers(1, 4, n)) % 4, -1)
    won = rng.random(n) < 0.6
    points = rng.integers(0, 121, n)
    durch = (contract == "ramsch") & (rng.random(n) < 0.05)
    won = np.where(contract == "ramsch", durch, won)
    points = np.where(contract == "ramsch", np.where(durch, 120, rng.integers(35, 121, n)), points)
    jung = np.where(contract == "ramsch", rng.integers(0, 3, n), 0)
    knocked = rng.integers(0, 16, n) * (rng.random(n) < 0.3) if knocks else np.zeros(n, int)
    mult = 2 ** np.array([bin(k).count("1") for k in knocked])
    price = np.where(contract == "rufspiel", 20, np.where(contract == "ramsch", 10, 50)) * mult
    pay = np.zeros((n, 4), np.int64)
    sign = np.where(won, 1, -1)
    for i in range(n):
        d = declarer[i]
        if contract[i] == "rufspiel":
            pay[i] = -sign[i] * price[i]
            pay[i, [d, partner[i]]] = sign[i] * price[i]
        elif contract[i] == "ramsch":  # the loser pays each other player (a Durchmarsch: is paid)
            s = 1 if durch[i] else -1
            pay[i] = -s * price[i]
            pay[i, d] = 3 * s * price[i]
        else:
            pay[i] = -sign[i] * price[i]
            pay[i, d] = 3 * sign[i] * price[i]
    suit = pl.Series([{"rufspiel": "eichel", "solo": "herz"}.get(c) for c in contract], dtype=pl.String)
    cols = {"deal_id": np.arange(n, dtype=np.uint64), "contract": contract, "tout": np.zeros(n, bool), "suit": suit,
            "declarer": declarer.astype(np.int8), "partner": partner.astype(np.int8), "won": won,
            "declarer_points": points.astype(np.uint8), **{f"payout_{s}": pay[:, s].astype(np.int32) for s in range(4)},
            "durchmarsch": durch, "jungfrauen": jung.astype(np.uint8)}
    if knocks:
        cols["knocked"] = knocked.astype(np.uint8)
    if hands:
        deck = np.argsort(rng.random((n, 32)), axis=1)
        for s in range(4):
            cols[f"hand_{s}"] = (np.uint64(1) << deck[:, 8 * s:8 * s + 8].astype(np.uint64)).sum(axis=1).astype(
                np.uint32)
    df = pl.DataFrame(cols)
    return df.with_columns(pl.col("contract").cast(pl.Categorical))


@pytest.fixture(scope="module")
def club_run(tmp_path_factory):
    df = club_rows(6000, 1)
    return write_run(tmp_path_factory.mktemp("club") / "run", df, load_ruleset("club")), df


def test_ramsch_tables_count_the_rows(club_run):
    out, df = club_run
    t = club.ramsch_tables(scan(out))
    r = df.filter(pl.col("contract") == "ramsch")
    rates = {row["measure"]: row for row in t["ramsch_rates"].iter_rows(named=True)}
    share = rates["Ramsch (share of all deals)"]
    assert share["count"] == r.height and share["of"] == 6000 and share["low"] < share["share"] < share["high"]
    assert rates["Durchmarsch (share of Ramsch)"]["count"] == r["durchmarsch"].sum()
    assert rates["with a Jungfrau (share of Ramsch)"]["count"] == (r["jungfrauen"] > 0).sum()
    lost = r.filter(~pl.col("durchmarsch"))["declarer_points"].to_numpy().astype(int)
    pts = t["ramsch_loser_points"]
    assert pts["games"].sum() == len(lost)
    row = pts.filter(pl.col("points") == "61-70").row(0, named=True)
    assert row["games"] == ((lost >= 61) & (lost <= 70)).sum()
    seats = t["ramsch_seats"]
    assert seats["mean"][0] == pytest.approx(r["payout_0"].cast(pl.Float64).mean())
    assert (seats["low"] < seats["mean"]).all() and seats["games"][0] == r.height
    assert t["ramsch_jungfrauen"]["games"].sum() == r.height


def test_bettel_win_rates_by_seat_and_shape(club_run):
    out, df = club_run
    t = club.bettel_tables(scan(out))
    b = df.filter(pl.col("contract") == "bettel")
    rates = t["bettel_win_rates"]
    assert rates["games"][0] == b.height and rates["wins"][0] == b["won"].sum()
    assert rates.filter(pl.col("seat") == "2")["games"][0] == (b["declarer"] == 2).sum()
    shape = t["bettel_by_shape"]
    assert shape["games"].sum() == b.height and (shape["low"] <= shape["win_rate"]).all()
    # one declarer's hand worked by hand: its suit lengths, longest first
    i = 0
    hand = int(b[f"hand_{b['declarer'][i]}"][i])
    lengths = sorted((bin((hand >> (8 * s)) & 0xFF).count("1") for s in range(4)), reverse=True)
    assert "-".join(map(str, lengths)) in shape["shape"].to_list()
    assert t["bettel_by_top_cards"]["games"].sum() == b.height
    assert t["bettel_by_top_cards"]["top_cards"].max() <= 8


def test_bettel_shape_of_known_hands():
    eichel_all = sum(1 << c for c in range(8))  # every Eichel card: 8-0-0-0, four of them A, K, O ... three
    mixed = (1 << 0) | (1 << 1) | (1 << 8) | (1 << 9) | (1 << 10) | (1 << 16) | (1 << 24) | (1 << 31)  # 3-2-2-1
    shape, tops = club.bettel_shapes(np.array([eichel_all, mixed, mixed]), np.array([True, False, True]))
    assert dict(zip(shape["shape"], shape["games"])) == {"8-0-0-0": 1, "3-2-2-1": 2}
    assert dict(zip(tops["top_cards"], tops["games"])) == {3: 1, 1: 2}  # Schellen-Ass in the mixed hand
    assert shape.filter(pl.col("shape") == "3-2-2-1")["win_rate"][0] == 0.5


def test_klopfen_tables(club_run):
    out, df = club_run
    t = club.klopfen_tables(scan(out))
    k = df["knocked"].to_numpy().astype(int)
    count = np.array([bin(x).count("1") for x in k])
    rates = t["klopfen_rates"]
    assert rates["count"][0] == (k > 0).sum() and rates["count"][1] == (k & 1).sum()
    m = t["klopfen_multiplier"].row(0, named=True)
    assert m["mean"] == pytest.approx((2.0 ** count).mean()) and m["low"] < m["mean"] < m["high"]
    dist = t["klopfen_knocks"]
    assert dict(zip(dist["knocks"], dist["deals"])) == {c: int((count == c).sum()) for c in np.unique(count)}


def stock_session_rows(sessions: int, m: int, seed: int, rules) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    n = sessions * m
    kind = rng.choice([-1, 0, 0, 1], n)
    declarer = np.where(kind >= 0, rng.integers(0, 4, n), -1)
    partner = np.where(kind == 0, (declarer + 1) % 4, -1)
    won = rng.random(n) < 0.6
    game = np.zeros((n, 4), np.int64)
    sc = session_columns(np.arange(n), m)
    st = settle_rows(kind, declarer, partner, won, None, game, sc["first"], rules)
    return pl.DataFrame({"deal_id": np.arange(n, dtype=np.uint64),
                         "contract": np.array(KINDS)[kind + 1], "tout": np.zeros(n, bool),
                         "suit": pl.Series([{0: "gras", 1: "schellen"}.get(k) for k in kind], dtype=pl.String),
                         "declarer": declarer.astype(np.int8), "partner": partner.astype(np.int8), "won": won,
                         "declarer_points": np.zeros(n, np.uint8),
                         **{f"payout_{s}": st["payouts"][:, s] for s in range(4)},
                         "session": sc["session"], **{f"player_{s}": sc["players"][:, s] for s in range(4)},
                         "stock_before": st["stock_before"], "stock_after": st["stock_after"]})


def test_stock_tables_over_sessions(tmp_path):
    rules = load_ruleset("sauspiel").replace(all_pass="stock", stock={"price": 10})
    df = stock_session_rows(60, 20, 2, rules)
    out = write_run(tmp_path / "s", df, rules, sessions={"sessions": 60, "session_deals": 20})
    t = club.stock_tables(scan(out))
    summary = {r["measure"]: r for r in t["stock_summary"].iter_rows(named=True)}
    mean = summary["mean stock before a deal"]
    assert mean["value"] == pytest.approx(df["stock_before"].cast(pl.Float64).mean())
    assert mean["low"] < mean["value"] < mean["high"]
    won = ((df["stock_before"] > 0) & (df["stock_after"] == 0)).sum()
    assert summary["stock won (share of deals)"]["value"] == pytest.approx(won / df.height)
    assert summary["stock won per session"]["value"] == pytest.approx(won / 60)
    dist = dict(zip(t["stock_distribution"]["measure"], t["stock_distribution"]["value"]))
    assert dist["largest"] == df["stock_before"].max()
    assert dist["empty before a deal (share)"] == pytest.approx((df["stock_before"] == 0).mean())
    players = t["stock_players"]
    # player 0's whole change: his seat's payout in every deal
    p0 = sum(np.where(df[f"player_{s}"].to_numpy() == 0, df[f"payout_{s}"].to_numpy(), 0) for s in range(4))
    assert players["mean"][0] == pytest.approx(p0.mean())
    # the four players together paid what the stock holds at the sessions' ends
    ends = df.filter(pl.col("deal_id") % 20 == 19)["stock_after"].sum()
    assert players["mean"].sum() * df.height == pytest.approx(-ends)


def test_report_shows_each_club_section_only_with_its_rows(club_run, tmp_path):
    out, _ = club_run
    html = build_report(out, tmp_path / "rep").read_text()
    for title in ("Ramsch", "Bettel", "Klopfen"):
        assert f">{title}</h2>" in html
    assert ">Stock</h2>" not in html
    for fig in ("ramsch", "bettel", "klopfen"):
        assert f"alt='{fig}'" in html and (tmp_path / "rep" / "figures" / f"{fig}.png").stat().st_size > 1000
    assert (tmp_path / "rep" / "tables" / "bettel_by_shape.csv").is_file()
    plain = write_run(tmp_path / "plain", club_rows(500, 4, ramsch=False, bettel=False, knocks=False),
                      load_ruleset("sauspiel"))
    assert club.club_sections(scan(plain)) == ([], {})
    html = build_report(plain, tmp_path / "rep2").read_text()
    assert ">Ramsch</h2>" not in html and ">Klopfen</h2>" not in html
    # a club run whose deals nobody knocked has no Klopfen section; without hands, Bettel has no shapes
    quiet = write_run(tmp_path / "quiet", club_rows(500, 5, knocks=True, hands=False).with_columns(
        pl.lit(0, pl.UInt8).alias("knocked")), load_ruleset("club"))
    secs, tables = club.club_sections(scan(quiet))
    assert [s.title for s in secs] == ["Ramsch", "Bettel"] and "bettel_by_shape" not in tables
    stock_rules = load_ruleset("sauspiel").replace(all_pass="stock", stock={"price": 10})
    stock = write_run(tmp_path / "stock", stock_session_rows(30, 10, 1, stock_rules), stock_rules,
                      sessions={"sessions": 30, "session_deals": 10})
    html = build_report(stock, tmp_path / "rep3").read_text()
    assert ">Stock</h2>" in html and "alt='stock'" in html


# ------------------------------------------------------------------------------------------ house rules

def test_sd_interval_covers_the_spread():
    from simkit.stats import sd_interval

    rng = np.random.default_rng(7)
    hits = 0
    for _ in range(300):
        x = rng.normal(3.0, 2.0, 1500)
        sd, lo, hi, _ = sd_interval(len(x), x.sum(), (x * x).sum(), (x * x).sum(), (x ** 4).sum(), (x ** 3).sum())
        assert sd == pytest.approx(x.std(ddof=1))
        hits += lo <= 2.0 <= hi
    assert 0.92 <= hits / 300 <= 0.98


def test_house_rules_known_answers(tmp_path):
    a_rules = load_ruleset("club")
    b_rules = load_ruleset("sauspiel")
    da = club_rows(4000, 11, hands=False)
    db = club_rows(4000, 12, ramsch=False, bettel=False, knocks=False, hands=False)
    a = scan(write_run(tmp_path / "a", da, a_rules))
    b = scan(write_run(tmp_path / "b", db, b_rules))
    t = club.house_rules(a, b)
    assert t["seat"].to_list() == ["0 forehand", "1", "2", "3 dealer", "all"]
    r0 = t.row(0, named=True)
    pa0, pb0 = da["payout_0"].to_numpy().astype(float), db["payout_0"].to_numpy().astype(float)
    assert r0["mean_a"] == pytest.approx(pa0.mean()) and r0["sd_a"] == pytest.approx(pa0.std(ddof=1))
    assert r0["mean_diff"] == pytest.approx(pa0.mean() - pb0.mean())
    assert r0["sd_diff_low"] < r0["sd_diff"] < r0["sd_diff_high"]
    pooled = np.concatenate([da[f"payout_{s}"].to_numpy() for s in range(4)]).astype(float)
    allrow = t.row(4, named=True)
    assert allrow["mean_a"] == pytest.approx(0.0) and allrow["sd_a"] == pytest.approx(pooled.std(), rel=1e-3)
    same = club.house_rules(a, a)
    assert np.allclose(same["mean_diff"].to_numpy(), 0) and np.allclose(same["sd_diff"].to_numpy(), 0)
    diff = club.rules_diff(a, b)
    keys = set(diff["key"])
    assert {"all_pass", "klopfen", "contracts", "ramsch.price"} <= keys and "name" not in keys and "deck" not in keys
    assert dict(zip(diff["key"], diff["a"]))["all_pass"] == "ramsch"
    assert dict(zip(diff["key"], diff["b"]))["ramsch.price"] == "the Rufspiel base"  # sauspiel leaves it out
    assert club.rules_diff(a, a).height == 0
    assert not club.tariffs_differ(a, b)  # club uses the sauspiel tariff
    assert "same tariff" in club.unit_note(a, b)


def test_house_rules_in_rufspiel_bases_when_the_tariffs_differ(tmp_path):
    da = club_rows(2000, 3, hands=False)
    a = scan(write_run(tmp_path / "a", da, load_ruleset("club")))
    b = scan(write_run(tmp_path / "b", da, load_ruleset("club").replace(base_rufspiel=10, base_solo=25)))
    assert club.tariffs_differ(a, b) and "tariffs differ" in club.unit_note(a, b)
    t = club.house_rules_tables(a, b)
    bases = t["player_result_in_rufspiel_bases"]
    assert bases["mean_a"][0] == pytest.approx(da["payout_0"].cast(pl.Float64).mean() / 20)
    assert bases["mean_b"][0] == pytest.approx(da["payout_0"].cast(pl.Float64).mean() / 10)


def test_simkit_compare_names_the_rules_and_reports_the_spread(tmp_path):
    a = write_run(tmp_path / "a", club_rows(3000, 21, hands=False), load_ruleset("club"))
    b = write_run(tmp_path / "b", club_rows(3000, 22, ramsch=False, bettel=False, knocks=False, hands=False),
                  load_ruleset("sauspiel"))
    r = cli("compare", a, b, "--out", tmp_path / "c")
    assert r.returncode == 0, r.stderr
    assert "all_pass" in r.stdout and "ramsch" in r.stdout and "throw-in" in r.stdout
    assert "SD A-B" in r.stdout and "all" in r.stdout and "same tariff" in r.stdout
    html = (tmp_path / "c" / "report.html").read_text()
    assert "House rules" in html and "alt='house_rules'" in html
    assert pl.read_csv(tmp_path / "c" / "tables" / "rules_diff.csv")["key"].to_list()
    j = cli("compare", a, b, "--json")
    rows = [json.loads(x) for x in j.stdout.splitlines()]
    house = [x for x in rows if x.get("table") == "player_result"]
    assert [x["seat"] for x in house] == ["0 forehand", "1", "2", "3 dealer", "all"]
    assert any(x.get("table") == "rules_diff" and x["key"] == "all_pass" for x in rows)
    assert any(x.get("contract") == "rufspiel" for x in rows)
