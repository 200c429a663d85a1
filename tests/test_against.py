"""Recorded deals (simkit.analyze.records.read_deals: thrown-in deals, gzip, every kind of bad line) and a run held
against recorded games (analysis.against, `simkit report --against`, `simkit compare RUN GAMES`): figures checked
against counts made independently here, bad records counted, the CLI's errors."""

import gzip
import json
from collections import Counter

import numpy as np
import polars as pl
import pyarrow.parquet as pq
import pytest

from analysis.against import AgainstError, against, load_games
from conftest import SHARED
from simkit.analyze.records import DealRecord, open_text, read_deals, read_file, read_settled
from simkit.cards import cards_of, format_card, parse_hands
from simkit.engine.deal import deal
from simkit.replay import replay
from simkit.rules import load_ruleset
from simkit.sim import RunOptions, run
from simkit.sim import export as ex
from simkit.stats import diff_proportions, wilson

from simkit_cli import simkit as cli

REAL_GAMES = SHARED / "real-games" / "sauspiel-20k.jsonl.gz"

GOOD = {
    "id": "t1", "deck": "long", "contract": "solo", "declarer": 0, "suit": "schellen", "tout": False,
    "hands": [["EO", "GO", "HO", "SO", "EU", "GU", "SA", "S7"],
              ["EA", "EZ", "EK", "E9", "E8", "E7", "G7", "G8"],
              ["GA", "GZ", "GK", "G9", "HA", "HZ", "HK", "H9"],
              ["HU", "SU", "SZ", "SK", "S9", "S8", "H8", "H7"]],
    "klopfen": [], "kontra": [],
    "tricks": [{"leader": 0, "cards": c.split()} for c in [
        "EO E7 G9 S8", "GO E8 GK S9", "HO E9 GZ SK", "SO EK GA SZ",
        "EU G7 H9 SU", "GU G8 HK HU", "SA EZ HZ H7", "S7 EA HA H8"]],
}
THROWN = {"id": "p1", "deck": "long", "contract": None, "declarer": None, "suit": None, "tout": False,
          "hands": GOOD["hands"], "klopfen": [], "kontra": [], "tricks": []}


def rec(base, **changes):
    r = json.loads(json.dumps(base))
    for k, v in changes.items():
        if v is ...:
            r.pop(k, None)
        else:
            r[k] = v
    return r


def line(r) -> str:
    return json.dumps(r)


# ------------------------------------------------------------------------------------------ read_deals

def test_good_and_thrown_in_deals():
    lines = [line(GOOD), "", line(THROWN), line(rec(THROWN, id=..., suit=..., tricks=...))]
    out = list(read_deals(lines))
    assert [n for n, _, _ in out] == [1, 3, 4] and all(e is None for _, _, e in out)
    played, thrown, anonymous = (d for _, d, _ in out)
    assert isinstance(played, DealRecord) and played.line == 1 and played.deal_id == "t1"
    assert played.deck == "long" and played.hands == tuple(parse_hands(GOOD["hands"]))
    assert played.game is not None and played.game.contract_label == "solo" and len(played.game.plays) == 32
    assert thrown.game is None and thrown.deal_id == "p1" and thrown.hands == played.hands
    assert anonymous.deal_id == "line 4" and anonymous.deck == "long"
    # the deck defaults to the ruleset's: a short-deck deal without "deck" under a short ruleset
    hands = [[format_card(c) for c in cards_of(int(h))] for h in deal(1, 2, "short")]
    short = rec(THROWN, deck=..., hands=hands)
    (n, d, e), = read_deals([line(short)], load_ruleset("sauspiel-short"))
    assert e is None and d.deck == "short" and d.hands == tuple(int(h) for h in deal(1, 2, "short"))
    (_, d, result, _), = read_settled([line(GOOD)], "sauspiel")
    assert result.payouts == replay(GOOD, "sauspiel").payouts


BAD = [
    (rec(THROWN, declarer=1), "contract null (thrown in) but declarer 1"),
    (rec(THROWN, tricks=GOOD["tricks"]), "but 8 tricks recorded"),
    (rec(THROWN, tricks=...), None),  # absent tricks: fine
    (rec(THROWN, suit="eichel"), "but suit 'eichel'"),
    (rec(THROWN, tout=True), "but tout True"),
    (rec(THROWN, kontra=[1]), "but kontra [1]"),
    (rec(THROWN, expected_payouts=[30, -10, -10, -10]), "pays nothing"),
    (rec(THROWN, declarer=...), "record has no 'declarer'"),
    (rec(THROWN, hands=[GOOD["hands"][0][:7]] + GOOD["hands"][1:]), "seat 0: hand has 7 cards, expected 8"),
    (rec(THROWN, hands=[GOOD["hands"][1]] + GOOD["hands"][1:]), "duplicate card"),
    (rec(THROWN, hands=GOOD["hands"][:3]), "a deal has 4 hands, got 3"),
    (rec(THROWN, hands=5), "hands must be a list"),
    (rec(THROWN, hands=...), "record has no 'hands'"),
    (rec(THROWN, deck="short"), "not in the short deck"),
    (rec(THROWN, deck="huge"), "deck must be"),
    (rec(THROWN, colour="red"), "unknown record key 'colour'"),
    (rec(GOOD, tricks=...), "record has no 'tricks'"),
    (rec(GOOD, tricks=GOOD["tricks"][:7]), "7 tricks recorded, a long-deck game has 8"),
    (rec(GOOD, tricks=[]), "0 tricks recorded"),
    (rec(GOOD, tricks=[{"leader": 0, "cards": "EO E7 G9 H8".split()}] + GOOD["tricks"][1:]), "must follow trump"),
    (rec(GOOD, declarer=None), "declarer must be a seat"),
    (rec(GOOD, contract=...), "record has no 'contract'"),
    (rec(GOOD, hands=5), "malformed record"),  # a type no check foresaw: still only this line's error
    ("{not json", "not valid JSON"),
    (line(GOOD)[:200], "not valid JSON"),  # a truncated line
    ("[1, 2]", "must be a JSON object"),
    (b'{"id": "\xff"}\n', "not valid UTF-8"),
]


@pytest.mark.parametrize("bad,message", BAD, ids=[str(i) for i in range(len(BAD))])
def test_every_kind_of_bad_line_is_that_line_s_error(bad, message):
    text = bad if isinstance(bad, (str, bytes)) else line(bad)
    good = line(GOOD).encode() if isinstance(text, bytes) else line(GOOD)
    out = list(read_deals([good, text, good]))
    assert [n for n, _, _ in out] == [1, 2, 3]
    assert out[0][2] is None and out[2][2] is None and out[2][1].deal_id == "t1"  # the next line goes on
    n, deal_, error = out[1]
    if message is None:
        assert error is None and deal_.game is None
    else:
        assert deal_ is None and error.startswith("line 2: ") and message in error, error


def test_gzip_plain_and_magic_bytes(tmp_path):
    lines = [line(rec(GOOD, id=f"g{i}")) if i % 3 else line(rec(THROWN, id=f"g{i}")) for i in range(30)]
    plain, gz, nosuffix = tmp_path / "a.jsonl", tmp_path / "a.jsonl.gz", tmp_path / "b.jsonl"
    plain.write_text("\n".join(lines) + "\n")
    with gzip.open(gz, "wt", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")
    nosuffix.write_bytes(gz.read_bytes())  # gzip found by its magic bytes
    want = [(n, d.deal_id, d.game is None) for n, d, _ in read_deals(plain)]
    assert len(want) == 30 and sum(t for _, _, t in want) == 10
    for p in (gz, nosuffix):
        assert [(n, d.deal_id, d.game is None) for n, d, _ in read_deals(p)] == want
        with open_text(p) as f:
            assert f.read().splitlines() == lines
    assert [g.game_id for _, g, e in read_file(gz) if g is not None] == [f"g{i}" for i in range(30) if i % 3]
    errors = [e for _, g, e in read_file(gz) if e is not None]
    assert len(errors) == 10 and "thrown-in deal (contract null) has no game to grade" in errors[0]


def test_truncated_and_corrupt_gzip_are_an_error_where_reading_stopped(tmp_path):
    rng = np.random.default_rng(0)
    lines = []
    for i in range(400):  # random hands, so the stream does not compress to nothing
        hands = deal(7, i, "long")
        lines.append(line(rec(THROWN, id=f"r{i}-{rng.integers(1 << 60)}",
                              hands=[[format_card(c) for c in cards_of(int(h))] for h in hands])))
    full = gzip.compress(("\n".join(lines) + "\n").encode())
    cut = tmp_path / "cut.jsonl.gz"
    cut.write_bytes(full[: len(full) // 2])
    out = list(read_deals(cut))
    *good, last = out
    assert 0 < len(good) < 400 and all(e is None for _, _, e in good)
    assert [n for n, _, _ in good] == list(range(1, len(good) + 1))
    assert last[1] is None and last[0] == len(good) + 1
    assert last[2] == f"line {len(good) + 1}: the gzip file ends early (truncated); reading stopped here"
    assert list(read_file(cut))[-1][2] == last[2]
    fake = tmp_path / "fake.jsonl.gz"
    fake.write_text(line(THROWN) + "\n")
    (n, d, e), = read_deals(fake)
    assert n == 1 and d is None and e.startswith("line 1: the gzip data is corrupt")


# ------------------------------------------------------------------------------------------ a run and its games

def _names(mask: int) -> list[str]:
    return [format_card(c) for c in cards_of(int(mask))]


@pytest.fixture(scope="module")
def games_run(tmp_path_factory):
    """A small sauspiel run with its play stored, and every one of its deals as a record (thrown-in deals from
    the stored hands)."""
    base = tmp_path_factory.mktemp("against")
    out = base / "run"
    run(RunOptions(deals=2000, seed=3, rules=load_ruleset("sauspiel"), store_play=True, store_hands=True), out,
        workers=1)
    played = {r["id"]: r for r in ex.export_records(out)}
    rows = sorted(pq.read_table(sorted(out.glob("part-*.parquet"))).to_pylist(), key=lambda r: r["deal_id"])
    records = []
    for r in rows:
        rid = f"3:{r['deal_id']}"
        if r["contract"] == "pass":
            records.append({"id": rid, "deck": "long", "contract": None, "declarer": None, "suit": None,
                            "hands": [_names(r[f"hand_{s}"]) for s in range(4)], "tricks": []})
        else:
            records.append(played[rid])
    path = base / "all.jsonl.gz"
    with gzip.open(path, "wt", encoding="utf-8") as f:
        f.writelines(json.dumps(x) + "\n" for x in records)
    return out, path, rows, records


def test_a_run_against_its_own_games_differs_by_nothing(games_run):
    out, path, rows, _ = games_run
    ag = against(out, path)
    assert ag.games.bad == 0 and ag.games.other_deck == 0 and ag.games.used == len(rows) == 2000
    assert ag.games.thrown_in == sum(r["contract"] == "pass" for r in rows) > 0
    for name, t in ag.tables.items():
        assert t.height > 0, name
        for side in ("n", "k", "") if "run_k" in t.columns else ("n", "mean"):
            a, b = t[f"run_{side}" if side else "run"], t[f"real_{side}" if side else "real"]
            assert a.to_list() == b.to_list(), (name, side)
        d = t["diff"] if "diff" in t.columns else t["mean_diff"]
        assert np.allclose(d.drop_nulls().to_numpy(), 0.0), name


def _independent(results, rules):
    """The figures of the tables counted here in plain Python from (contract, tout, won, points, schneider,
    schwarz, laufende) tuples, contract "pass" for a thrown-in deal."""
    played = [r for r in results if r[0] != "pass"]
    mins = lambda c: rules.tariff.laufende_min_wenz_geier if c in ("wenz", "geier") else rules.tariff.laufende_min
    by = Counter((c, t) for c, t, *_ in played)
    f = {"deals": len(results), "passed": len(results) - len(played), "played": len(played), "games": dict(by)}
    for key in by:
        g = [r for r in played if (r[0], r[1]) == key]
        f[key] = {"wins": sum(r[2] for r in g), "mean": sum(r[3] for r in g) / len(g),
                  "0-30": sum(r[3] <= 30 for r in g), "31-60": sum(31 <= r[3] <= 60 for r in g),
                  "61-90": sum(61 <= r[3] <= 90 for r in g), "91-120": sum(r[3] >= 91 for r in g),
                  "Schneider": sum(r[4] for r in g), "Schwarz": sum(r[5] for r in g),
                  "paid": sum(r[6] >= mins(key[0]) for r in g), "laufende": Counter(r[6] for r in g)}
    return f


def test_figures_agree_with_an_independent_count(games_run, tmp_path):
    out, _, rows, records = games_run
    rules = load_ruleset("sauspiel")
    real = records[::7]  # a different sample than the run
    bad_lines = ["{not json", line(rec(THROWN, declarer=2)), json.dumps(real[1])[:150],
                 line(rec(GOOD, tricks=GOOD["tricks"][:5]))]
    short = [line(rec(THROWN, id=f"s{i}", deck="short", hands=[_names(h) for h in deal(9, i, "short")]))
             for i in range(3)]
    text = [json.dumps(x) for x in real]
    text[3:3] = bad_lines  # lines 4..7 bad
    text += short + [""]
    path = tmp_path / "real.jsonl"
    path.write_text("\n".join(text) + "\n")
    ag = against(out, path)
    assert ag.games.bad == 4 and ag.games.other_deck == 3 and ag.games.used == len(real)
    assert [e.split(":")[0] for e in ag.games.errors] == ["line 4", "line 5", "line 6", "line 7"]
    assert ag.games.lines == len(real) + 4 + 3

    def settle(r):
        if r["contract"] is None:
            return ("pass", False, False, 0, False, False, 0)
        g = replay(r, rules)
        return (g.contract, g.tout, g.won, g.declarer_points, g.schneider, g.schwarz, g.laufende)

    mine = _independent([settle(r) for r in real], rules)
    theirs = _independent([(r["contract"], r["tout"], r["won"], r["declarer_points"], r["schneider"], r["schwarz"],
                            r["laufende"]) for r in rows], rules)
    t = ag.tables
    p = t["passed"].row(0, named=True)
    assert (p["run_k"], p["run_n"], p["real_k"], p["real_n"]) == (theirs["passed"], 2000, mine["passed"], len(real))
    assert p["real"] == mine["passed"] / len(real)
    assert (p["real_low"], p["real_high"]) == pytest.approx(wilson(mine["passed"], len(real)))
    d = diff_proportions(theirs["passed"], 2000, mine["passed"], len(real))
    assert (p["diff"], p["diff_low"], p["diff_high"]) == pytest.approx(tuple(float(x) for x in d))
    for r in t["contract_mix"].iter_rows(named=True):
        key = (r["contract"], r["tout"])
        assert r["real_k"] == mine["games"].get(key, 0) and r["real_n"] == mine["played"]
        assert r["run_k"] == theirs["games"].get(key, 0) and r["run_n"] == theirs["played"]
    assert set(t["contract_mix"].select("contract", "tout").iter_rows()) == set(mine["games"]) | set(theirs["games"])
    for r in t["win_rates"].iter_rows(named=True):
        key = (r["contract"], r["tout"])
        if key[0] == "all":
            assert r["real_n"] == mine["played"] and r["real_k"] == sum(mine[k]["wins"] for k in mine["games"])
            continue
        for side, f in (("real", mine), ("run", theirs)):
            n = f["games"].get(key, 0)
            assert r[f"{side}_n"] == n
            if n:
                assert r[f"{side}_k"] == f[key]["wins"] and r[side] == pytest.approx(f[key]["wins"] / n)
            else:
                assert r[side] is None and r["diff"] is None
    for r in t["points"].iter_rows(named=True):
        key = (r["contract"], r["tout"])
        if key in mine["games"]:
            assert r["real_mean"] == pytest.approx(mine[key]["mean"])
        if key in theirs["games"]:
            assert r["run_mean"] == pytest.approx(theirs[key]["mean"])
    for r in t["points_bins"].iter_rows(named=True):
        key = (r["contract"], r["tout"])
        if key in mine["games"]:
            assert r["real_k"] == mine[key][r["bin"]], (key, r["bin"])
    assert set(t["points_bins"]["bin"]) == {"0-30", "31-60", "61-90", "91-120", "Schneider", "Schwarz"}
    for r in t["laufende"].iter_rows(named=True):
        key = (r["contract"], r["tout"])
        if key in mine["games"]:
            assert r["real_k"] == mine[key]["paid"] and r["minimum"] == (2 if key[0] in ("wenz", "geier") else 3)
    for r in t["laufende_counts"].iter_rows(named=True):
        key = (r["contract"], r["tout"])
        if key in mine["games"]:
            assert r["real_k"] == mine[key]["laufende"][r["laufende"]] and r["real_n"] == mine["games"][key]
        if key in theirs["games"]:
            assert r["run_k"] == theirs[key]["laufende"][r["laufende"]]


def test_no_usable_record_or_none_of_the_run_s_deck_is_an_error(games_run, tmp_path):
    out = games_run[0]
    with pytest.raises(AgainstError, match="does not exist"):
        against(out, tmp_path / "nope.jsonl")
    bad = tmp_path / "bad.jsonl"
    bad.write_text("{x\n[1]\n")
    with pytest.raises(AgainstError, match="no usable record") as e:
        against(out, bad)
    assert e.value.bad == 2 and e.value.errors[0].startswith("line 1: ")
    short = tmp_path / "short.jsonl"
    short.write_text(line(rec(THROWN, deck="short", hands=[_names(h) for h in deal(9, 0, "short")])) + "\n")
    with pytest.raises(AgainstError, match="no long-deck deal"):
        against(out, short)
    empty = tmp_path / "empty.jsonl"
    empty.write_text("\n")
    with pytest.raises(AgainstError, match="it is empty"):
        load_games(empty)


# ------------------------------------------------------------------------------------------ the command

def simkit_in_process(capsys, *args):
    """``simkit ARGS`` in this process (no start-up cost): (exit status, stdout, stderr)."""
    from simkit.cli import main

    with pytest.raises(SystemExit) as e:
        main([str(a) for a in args])
    out = capsys.readouterr()
    return e.value.code, out.out, out.err


def test_report_and_compare_against_games(games_run, tmp_path, capsys, monkeypatch):
    import analysis.report

    # the run's own sections are tested in test_analysis.py; here only the section against the games
    monkeypatch.setattr(analysis.report, "run_sections", lambda ds: ([], {}))
    out, path, _, records = games_run
    games = tmp_path / "g.jsonl"
    bad = [f'{{"broken {i}' for i in range(23)]
    games.write_text("\n".join(bad + [json.dumps(x) for x in records[:600]]) + "\n")
    rep = tmp_path / "rep"
    code, _, err = simkit_in_process(capsys, "report", out, "--against", games, "--out", rep)
    assert code == 0, err
    warnings = [x for x in err.splitlines() if x.startswith("simkit: warning: ")]
    assert len(warnings) == 21 and warnings[0].startswith("simkit: warning: line 1: not valid JSON")
    assert warnings[-1] == "simkit: warning: ... and 3 more bad records (23 in all), skipped"
    assert "600 long-deck deals used" in err and "23 bad records skipped" in err
    html = (rep / "report.html").read_text()
    assert "Against recorded games" in html and "Bad records skipped (23)" in html
    for f in ("against_overview", "against_points", "against_points_bins", "against_laufende"):
        assert f"alt='{f}'" in html and (rep / "figures" / f"{f}.png").stat().st_size > 1000
    md = (rep / "report.md").read_text()
    assert "## Against recorded games" in md and "| bad records skipped | 23 (listed below) |" in md
    wr = pl.read_csv(rep / "tables" / "against_win_rates.csv")
    assert {"run", "run_low", "run_high", "real", "real_low", "real_high", "diff", "diff_low", "diff_high"} <= set(
        wr.columns)
    assert len(pl.read_csv(rep / "tables" / "against_bad_records.csv")) == 23
    assert not list(tmp_path.glob(".rep.tmp-*"))  # the staging directory is gone

    code, stdout, err = simkit_in_process(capsys, "compare", out, games, "--json")
    assert code == 0, err
    rows = [json.loads(x) for x in stdout.splitlines()]
    assert rows[0]["table"] == "records" and rows[0]["bad"] == 23 and rows[0]["used"] == 600
    tables = Counter(x["table"] for x in rows)
    assert set(tables) == {"records", "passed", "contract_mix", "win_rates", "points", "points_bins", "laufende",
                           "laufende_counts"}
    wr_json = [x for x in rows if x["table"] == "win_rates"]
    assert [x["real_k"] for x in wr_json] == wr["real_k"].to_list()
    t = cli("compare", out, games)  # once as a user runs it: its own process
    assert t.returncode == 0, t.stderr
    assert "Declaring side's win rate per contract" in t.stdout and "run - real" in t.stdout
    assert len([x for x in t.stderr.splitlines() if x.startswith("simkit: warning: ")]) == 21


def test_command_errors_write_nothing(games_run, tmp_path, capsys):
    out = games_run[0]
    bad = tmp_path / "bad.jsonl.gz"
    bad.write_bytes(gzip.compress(b"{x\n[1]\n"))
    short = tmp_path / "short.jsonl"
    short.write_text(line(rec(THROWN, deck="short", hands=[_names(h) for h in deal(9, 0, "short")])) + "\n")
    for games, message in ((tmp_path / "missing.jsonl", "does not exist"), (bad, "no usable record"),
                           (short, "no long-deck deal")):
        rep = tmp_path / "rep"
        for args in (("report", out, "--against", games, "--out", rep), ("compare", out, games, "--out", rep)):
            code, _, err = simkit_in_process(capsys, *args)
            assert code == 2, (args, err)
            last = err.strip().splitlines()[-1]
            assert last.startswith("simkit: error: ") and message in last, err
            assert not rep.exists() and not list(tmp_path.glob(".rep.tmp-*"))
    code, _, err = simkit_in_process(capsys, "compare", out, bad)
    assert code == 2 and err.splitlines()[0] == "simkit: warning: line 1: not valid JSON (Expecting property " \
        "name enclosed in double quotes at column 2; a truncated or corrupt line?)"
    code, _, err = simkit_in_process(capsys, "report", out, "--rules", "sauspiel")
    assert code == 2 and "--rules applies to the --against games" in err
    r = cli("report", out, "--against", bad, "--out", tmp_path / "rep")  # its own process: exit status, one line
    assert r.returncode == 2 and r.stderr.strip().splitlines()[-1].startswith("simkit: error: ")


# ------------------------------------------------------------------------------------------ the real games

def test_real_games_file(games_run):
    if not REAL_GAMES.is_file():
        pytest.skip(f"real games not available ({REAL_GAMES} is absent)")
    g = load_games(REAL_GAMES, "long", load_ruleset("sauspiel"))
    assert g.bad == 0 and g.lines == 20_000 and g.decks == {"long": 7614, "short": 12_386}
    mix = Counter(g.frame["contract"].to_list())  # the table of the file's README
    assert mix == {"rufspiel": 3771, "solo": 995, "wenz": 549, "farbwenz": 289, "geier": 74, "pass": 1936}
    ag = against(games_run[0], g)
    p = ag.tables["passed"].row(0, named=True)
    assert p["real_k"] == 1936 and p["real_n"] == 7614
    wr = ag.tables["win_rates"].filter(pl.col("contract") == "rufspiel").row(0, named=True)
    assert wr["real_n"] == 3771 and 0.5 < wr["real"] < 1.0
