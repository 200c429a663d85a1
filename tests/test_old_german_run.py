"""`simkit run --rules old-german` (--deals, --parties), resume, `simkit sheep`, and bad input."""

import json

import numpy as np
import pyarrow.parquet as pq
import pytest

from simkit.oldgerman import reference as R
from simkit.rules import load_ruleset
from simkit.sim import RunOptions, run

from simkit_cli import read_parts as deal_rows, simkit as cli


DEAL_TYPES = {
    "deal_id": "uint64", "chooser": "int8", "declaring_team": "uint8",
    "trump_suit": "dictionary<values=string, indices=int8, ordered=0>", "chooser_count": "uint8", "forced": "bool",
    "follow_up": "bool", "declarer_points": "uint8", "declarer_tricks": "uint8", "won": "bool", "double": "bool",
    "schwarz": "bool", "strokes_0": "uint8", "strokes_1": "uint8", "forehand": "int8", "tie": "bool",
}
PARTIE_TYPES = {"partie_id": "uint64", "winner_team": "uint8", "deals": "uint16", "strokes_0": "uint16",
                "strokes_1": "uint16", "won_by_schwarz": "bool"}


@pytest.fixture(scope="module")
def deals_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("og") / "deals"
    r = cli("run", "--rules", "old-german", "--deals", "30k", "--seed", "4", "--store-hands", "--out", out,
            "--workers", "1", "--json")
    assert r.returncode == 0, r.stderr
    return out, json.loads(r.stdout)


@pytest.fixture(scope="module")
def parties_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("og") / "parties"
    r = cli("run", "--rules", "old-german", "--parties", "3000", "--seed", "8", "--seats",
            "heuristic,random,heuristic,random", "--out", out, "--workers", "1", "--json")
    assert r.returncode == 0, r.stderr
    return out, json.loads(r.stdout)


def test_deals_run_columns_and_rows(deals_run):
    out, summary = deals_run
    schema = pq.read_schema(next(out.glob("part-*.parquet")))
    for name, typ in {**DEAL_TYPES, **{f"hand_{s}": "uint32" for s in range(4)}}.items():
        assert str(schema.field(name).type) == typ, name
    assert "partie_id" not in schema.names
    df = deal_rows(out)
    assert len(df) == 30_000 and (df.deal_id.to_numpy() == np.arange(30_000)).all()
    assert not df.follow_up.any() and (df.forehand == 0).all()
    assert (df.declaring_team == df.chooser % 2).all()
    assert summary["game"] == "old-german" and summary["deals"] == 30_000 and summary["complete"]
    assert abs(summary["forced_share"] - df.forced.mean()) < 1e-12
    suits = ["eichel", "gras", "herz", "schellen"]
    for row in df.head(400).itertuples():
        hands = [int(getattr(row, f"hand_{s}")) for s in range(4)]
        c = R.choose_trump(hands, 0)
        assert (c.chooser, suits[c.suit], c.count, c.forced) == (row.chooser, row.trump_suit, row.chooser_count,
                                                                 row.forced)
        s = R.score_deal(row.declarer_points, row.declarer_tricks, row.declaring_team, row.forced)
        assert (s.won, s.tie, s.double, s.schwarz, *s.strokes) == (row.won, row.tie, row.double, row.schwarz,
                                                                    row.strokes_0, row.strokes_1)


def test_parties_run_partie_rows_agree_with_deal_rows(parties_run):
    out, summary = parties_run
    assert (out / "_parties.parquet").is_file() and not list(out.glob("_parties-*"))
    ps = pq.read_schema(out / "_parties.parquet")
    assert {f.name: str(f.type) for f in ps} == PARTIE_TYPES
    parties = pq.read_table(out / "_parties.parquet").to_pandas()
    deals = deal_rows(out)
    assert str(pq.read_schema(next(out.glob("part-*.parquet"))).field("partie_id").type) == "uint64"
    assert (parties.partie_id.to_numpy() == np.arange(3000)).all()
    g = deals.groupby("partie_id")
    assert (g.size().to_numpy() == parties.deals.to_numpy()).all()
    assert (g.deal_no.max().to_numpy() == parties.deals.to_numpy() - 1).all()
    assert (g.strokes_0.sum().to_numpy() == parties.strokes_0.to_numpy()).all()
    assert (g.strokes_1.sum().to_numpy() == parties.strokes_1.to_numpy()).all()
    assert (g.schwarz.sum().to_numpy() == parties.won_by_schwarz.to_numpy()).all()
    head = 9
    normal = ~parties.won_by_schwarz.to_numpy()
    top = np.maximum(parties.strokes_0, parties.strokes_1).to_numpy()
    assert (top[normal] >= head).all() and (top[~normal] < head).all()
    assert (deals.forehand == deals.deal_no % 4).all()
    # a follow-up deal follows exactly a 60-60 tie in the same partie
    prev_tie = deals.groupby("partie_id").tie.shift(1, fill_value=False)
    assert (deals.follow_up == prev_tie).all()
    assert summary["parties"] == 3000 and summary["deals"] == len(deals)
    assert abs(summary["deals_per_partie"] - parties.deals.mean()) < 1e-9


def test_parties_run_is_the_same_for_any_workers_shards_and_backend(parties_run, tmp_path):
    out, _ = parties_run
    rules = load_ruleset("old-german")
    seats = ("heuristic", "random", "heuristic", "random")
    for name, workers, backend, shard in (("local", 2, "local", 1000), ("dask", 2, "dask-local", 1500)):
        opts = RunOptions(deals=3000, seed=8, rules=rules, seats=seats, parties=True, shard_size=shard)
        run(opts, tmp_path / name, workers=workers, backend=backend)
        assert deal_rows(tmp_path / name).equals(deal_rows(out)), name
        assert pq.read_table(tmp_path / name / "_parties.parquet").equals(pq.read_table(out / "_parties.parquet"))


def test_parties_run_resumes_after_an_interruption(tmp_path):
    rules = load_ruleset("old-german")
    opts = RunOptions(deals=900, seed=2, rules=rules, seats=("random",) * 4, parties=True, shard_size=300)

    class Stop(Exception):
        pass

    seen = []

    def progress(k):
        seen.append(k)
        if len(seen) == 2:
            raise Stop

    out = tmp_path / "r"
    with pytest.raises(Stop):
        run(opts, out, workers=1, progress=progress)
    m = json.loads((out / "_manifest.json").read_text())
    assert len(m["shards"]) == 2 and not m["complete"] and not (out / "_parties.parquet").exists()
    summary = run(opts, out, workers=1, resume=True)
    assert summary["complete"] and summary["parties"] == 900
    clean = tmp_path / "clean"
    run(opts, clean, workers=1)
    for name in ["_parties.parquet"] + [p.name for p in sorted(clean.glob("part-*.parquet"))]:
        assert pq.read_table(out / name).equals(pq.read_table(clean / name)), name
    # --force replaces a partie run (its files are all simkit's)
    run(opts, out, workers=1, force=True)


def test_sheep_draws_a_partie(parties_run, tmp_path):
    out, _ = parties_run
    parties = pq.read_table(out / "_parties.parquet").to_pandas()
    k = int(parties[parties.won_by_schwarz].partie_id.iloc[0])
    for partie in (0, k):
        png = tmp_path / f"s{partie}.png"
        r = cli("sheep", out, "--partie", partie, "--out", png)
        assert r.returncode == 0, r.stderr
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_sheep_geometry_and_marks():
    from simkit.oldgerman.sheep import chalk_marks, head_strokes_geometry

    assert len(head_strokes_geometry(9)) == 9 and len(head_strokes_geometry(12)) == 12
    assert len(head_strokes_geometry(20)) == 20
    marks = chalk_marks([1, 0, 0, 2], [0, 2, 0, 0], None, 9)
    assert marks == [[(1, "1"), (4, "4"), (4, "4")], [(2, "2"), (2, "2")]]
    marks = chalk_marks([1, 0], [0, 0], 1, 9)
    assert marks[1] == [(2, "S")] * 9 and marks[0] == [(1, "1")]


@pytest.mark.parametrize("args,message", [
    (["run", "--rules", "old-german", "--deals", "10", "--parties", "10"], "not both"),
    (["run", "--rules", "old-german", "--parties", "0"], "--parties must be a positive whole number"),
    (["run", "--parties", "10"], "--parties needs the old German game"),
    (["run", "--rules", "old-german", "--deals", "10", "--strategy", "greedy"], "random, heuristic"),
    (["run", "--rules", "old-german", "--deals", "10", "--deck", "short"], "long deck only"),
    (["run", "--rules", "old-german", "--deals", "10", "--contract", "wenz", "--declarer", "0"], "do not apply"),
    (["sheep", "nowhere", "--partie", "0"], "does not exist"),
    (["random-play", "--rules", "old-german", "--deals", "10"], "plays the Bavarian game"),
])
def test_bad_input_is_one_line_exit_2(args, message, tmp_path):
    r = cli(*args, *(["--out", tmp_path / "x"] if args[0] == "run" else []))
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and message in r.stderr, r.stderr
    assert not (tmp_path / "x").exists()


def test_sheep_refuses_a_deals_run_and_a_missing_partie(deals_run, parties_run):
    r = cli("sheep", deals_run[0], "--partie", 0)
    assert r.returncode == 2 and "not an old German partie run" in r.stderr
    r = cli("sheep", parties_run[0], "--partie", 3000)
    assert r.returncode == 2 and "--partie must be 0..2999" in r.stderr


def test_rules_prints_the_old_german_preset():
    r = cli("rules", "old-german")
    assert r.returncode == 0 and 'game = "old-german"' in r.stdout and "head_strokes = 9" in r.stdout


def test_analysis_tables(parties_run, tmp_path):
    from simkit.oldgerman.analysis import sheep_figure, tables

    out, summary = parties_run
    t = tables(out)
    w = t["win_rate_by_count"].set_index("count")
    assert w.deals.sum() == summary["deals"]
    for b, v in summary["win_rate_by_count"].items():
        assert w.loc[b, "deals"] == v["deals"]
        if v["deals"]:
            assert abs(w.loc[b, "win_rate"] - v["win_rate"]) < 1e-12
            assert w.loc[b, "ci_low"] <= w.loc[b, "win_rate"] <= w.loc[b, "ci_high"]
    s = t["deal_summary"].set_index("measure")
    assert abs(s.loc["forced share", "value"] - summary["forced_share"]) < 1e-12
    assert abs(s.loc["strokes per deal", "value"] - summary["strokes_per_deal"]) < 1e-12
    assert t["parties"].parties[0] == 3000
    assert sheep_figure(out, 5, tmp_path / "f.png").is_file()
