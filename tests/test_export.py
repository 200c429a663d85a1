"""`simkit run --store-play` and `simkit export`: every exported game replays to exactly the payouts of its row
(every contract kind, both decks, Kontra and Re), the play column is the same for any sharding, workers or backend,
and bad input is one line, exit status 2, nothing written."""

import json

import pyarrow.parquet as pq
import pytest

from simkit.engine.game import play_games
from simkit.replay import replay
from simkit.rules import Contract, load_ruleset
from simkit.sim import RunError, RunOptions, run
from simkit.sim import export as ex

from simkit_cli import simkit as cli

ALL_CONTRACTS = 'contracts = ["rufspiel", "solo", "wenz", "geier", "farbwenz", "farbgeier"]\n'
#: forced contracts (kind, suit, tout) and the declaring seat: every kind, Touts, every seat
FORCED = [("rufspiel", "gras", False, 1), ("solo", "herz", False, 0), ("wenz", None, False, 2),
          ("geier", None, False, 3), ("farbwenz", "eichel", False, 0), ("farbgeier", "schellen", False, 1),
          ("solo", "gras", True, 2), ("wenz", None, True, 3)]
DEALS = 200


def table(out):
    return pq.read_table(sorted(out.glob("part-*.parquet")))


def rows_by_id(out) -> dict[int, dict]:
    return {r["deal_id"]: r for r in table(out).to_pylist()}


def check_replays(out, rules, records=None) -> list[dict]:
    """Every played row of the run is one record, and each replays to exactly its row."""
    records = list(ex.export_records(out)) if records is None else records
    rows = rows_by_id(out)
    played = [r for r in rows.values() if r["play"] is not None]
    assert len(records) == len(played) > 0
    assert all(r["contract"] != "pass" for r in played) and all(r["contract"] == "pass" for r in rows.values()
                                                                 if r["play"] is None)
    seed = json.loads((out / "_manifest.json").read_text())["seed"]
    for rec in records:
        s, i = map(int, rec["id"].split(":"))
        row = rows[i]
        assert s == seed
        assert rec["expected_payouts"] == [row[f"payout_{k}"] for k in range(4)]
        assert (rec["contract"], rec["suit"], rec["tout"], rec["declarer"]) == (row["contract"], row["suit"],
                                                                              row["tout"], row["declarer"])
        assert len(rec["kontra"]) == row["doubling"]
        res = replay(rec, rules)
        assert list(res.payouts) == rec["expected_payouts"], rec["id"]
        assert (res.declarer_points, res.declarer_tricks, res.laufende, res.schneider, res.schwarz, res.won) == (
            row["declarer_points"], row["declarer_tricks"], row["laufende"], row["schneider"], row["schwarz"],
            row["won"])
        # the play column is the record's cards in order
        assert [ex.CARD_NAMES[c] for c in row["play"]] == [c for t in rec["tricks"] for c in t["cards"]]
    return records


@pytest.fixture(scope="module")
def club_files(tmp_path_factory):
    """Rulesets with every contract enabled, one per deck: TOML files extending the sauspiel presets."""
    d = tmp_path_factory.mktemp("rules")
    files = {}
    for deck, preset in (("long", "sauspiel"), ("short", "sauspiel-short")):
        files[deck] = d / f"club-{deck}.toml"
        files[deck].write_text(f'extends = "{preset}"\n{ALL_CONTRACTS}')
    return files


@pytest.fixture(scope="module")
def forced_runs(tmp_path_factory, club_files):
    base = tmp_path_factory.mktemp("forced")
    runs = []
    for deck in ("long", "short"):
        rules = load_ruleset(club_files[deck])
        for j, (kind, suit, tout, seat) in enumerate(FORCED):
            out = base / f"{deck}-{kind}-{suit}-{tout}"
            run(RunOptions(deals=DEALS, seed=100 + j, rules=rules, contract=Contract.parse(kind, suit, tout),
                           declarer=seat, store_play=True), out, workers=1)
            runs.append((deck, kind, tout, out))
    return runs


@pytest.mark.parametrize("deck", ["long", "short"])
def test_every_contract_replays_to_its_payouts(forced_runs, deck):
    kontra = re = 0
    preset = "sauspiel" if deck == "long" else "sauspiel-short"
    seen = set()
    for d, kind, tout, out in forced_runs:
        if d != deck:
            continue
        plan = ex.plan_export(out)
        assert (plan.replay_rules, plan.carry_tariff) == (preset, False)  # only the enabled contracts differ
        records = check_replays(out, load_ruleset(preset))
        assert all(len(r["hands"][0]) == (8 if deck == "long" else 6) and r["deck"] == deck for r in records)
        seen |= {(r["contract"], r["tout"]) for r in records}
        kontra += sum(len(r["kontra"]) >= 1 for r in records)
        re += sum(len(r["kontra"]) == 2 for r in records)
    assert seen == {(kind, tout) for kind, _, tout, _ in FORCED}
    assert kontra > 0 and re > 0, (kontra, re)


@pytest.mark.parametrize("preset", ["sauspiel", "sauspiel-short"])
def test_bidding_runs_replay_with_their_preset(tmp_path, preset):
    out = tmp_path / "r"
    hands_and_bids = preset == "sauspiel"  # hands from the columns, and kontra_seat/re_seat from --store-bids
    run(RunOptions(deals=400, seed=9, rules=load_ruleset(preset), store_play=True, store_hands=hands_and_bids,
                   store_bids=hands_and_bids), out, workers=1)
    records = check_replays(out, load_ruleset(preset))
    assert len({r["contract"] for r in records}) >= 3 and any(r["kontra"] for r in records)
    assert ex.plan_export(out).stats["skipped"] == 0  # counted while records are read
    plan = ex.plan_export(out, (100, 300))
    part = list(plan.records())
    ids = [int(r["id"].split(":")[1]) for r in part]
    assert ids == sorted(ids) and ids[0] >= 100 and ids[-1] < 300
    assert plan.stats["records"] + plan.stats["skipped"] == 200
    assert part == [r for r in records if 100 <= int(r["id"].split(":")[1]) < 300]


def test_play_column_is_the_kernel_trace(tmp_path):
    rules = load_ruleset("sauspiel-short")
    out = tmp_path / "p"
    run(RunOptions(deals=500, seed=4, rules=rules, store_play=True, store_bids=True), out, workers=1)
    t = table(out)
    assert str(t.schema.field("play").type) == "fixed_size_list<element: uint8 not null>[24]"
    g = play_games(4, 0, 500, rules, trace=True)
    play = t.column("play").to_pylist()
    for i in range(500):
        if g["kind"][i] < 0:
            assert play[i] is None
        else:
            assert play[i] == g["trace_played"][i].tolist()
            assert sorted(play[i]) == sorted(c for c in range(32) if c % 8 >= 2)  # the whole short deck
    m = json.loads((out / "_manifest.json").read_text())
    assert m["store_play"] is True and m["store_bids"] is True
    assert set(t.schema.names) >= {"bid_0", "kontra_seat", "re_seat"}
    # a run without it has no such column and no manifest key
    run(RunOptions(deals=100, seed=4, rules=rules), tmp_path / "plain", workers=1)
    assert "play" not in table(tmp_path / "plain").schema.names
    assert "store_play" not in json.loads((tmp_path / "plain" / "_manifest.json").read_text())


def test_identical_play_for_any_workers_chunks_and_backend(tmp_path):
    def opts(shard):
        return RunOptions(deals=3000, seed=21, store_play=True, shard_size=shard)

    run(opts(1000), tmp_path / "ref", workers=1)
    ref = table(tmp_path / "ref")
    run(opts(700), tmp_path / "w2", workers=2, chunk=170)
    assert table(tmp_path / "w2").equals(ref)
    run(opts(1500), tmp_path / "dask", workers=2, backend="dask-local")
    assert table(tmp_path / "dask").equals(ref)
    assert ref.column("play").null_count == sum(c == "pass" for c in ref.column("contract").to_pylist())


def test_resume_keeps_store_play(tmp_path):
    out = tmp_path / "r"
    opts = RunOptions(deals=3000, seed=2, store_play=True, shard_size=1000)

    def stop(k):
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        run(opts, out, workers=1, progress=stop)
    with pytest.raises(RunError, match="store_play"):
        run(RunOptions(deals=3000, seed=2, shard_size=1000), out, workers=1, resume=True)
    # an incomplete run exports what it holds; a range reaching into the missing deals is refused
    assert {int(r["id"].split(":")[1]) for r in ex.export_records(out)} <= set(range(1000))
    with pytest.raises(ex.ExportError, match="resume"):
        ex.export_records(out, (500, 1500))
    run(opts, out, workers=1, resume=True)
    run(opts, tmp_path / "whole", workers=1)
    assert table(out).equals(table(tmp_path / "whole"))
    # and the reverse: a run without it is not resumed with it
    run(RunOptions(deals=100, seed=2), tmp_path / "plain", workers=1)
    with pytest.raises(RunError, match="store_play"):
        run(RunOptions(deals=100, seed=2, store_play=True), tmp_path / "plain", workers=1, resume=True)


def test_ruleset_files_travel_with_the_records(tmp_path):
    # tariff numbers a record can carry: the preset replays them
    f = tmp_path / "cheap.toml"
    f.write_text('extends = "sauspiel"\n[tariff]\nschneider = 15\nlaufende_min = 4\n')
    rules = load_ruleset(f)
    out = tmp_path / "cheap"
    run(RunOptions(deals=300, seed=3, rules=rules, store_play=True), out, workers=1)
    plan = ex.plan_export(out)
    assert (plan.replay_rules, plan.carry_tariff) == ("sauspiel", True)
    records = check_replays(out, load_ruleset("sauspiel"))
    assert all(r["tariff"]["schneider"] == 15 for r in records)
    # a Tout price no record can carry: the run's own ruleset, written by --rules-toml
    f2 = tmp_path / "tout3.toml"
    f2.write_text('extends = "sauspiel"\n[tariff]\ntout_multiplier = 3\n')
    out2 = tmp_path / "tout3"
    run(RunOptions(deals=200, seed=3, rules=load_ruleset(f2), contract=Contract.parse("wenz", None, True),
                   declarer=0, store_play=True), out2, workers=1)
    assert ex.plan_export(out2).replay_rules is None
    res = cli("export", out2, "--out", tmp_path / "t.jsonl", "--rules-toml", tmp_path / "run.toml")
    assert res.returncode == 0, res.stderr
    assert "no preset" not in res.stderr and f"--rules {tmp_path / 'run.toml'}" in res.stderr
    assert load_ruleset(tmp_path / "run.toml") == load_ruleset(f2)
    check_replays(out2, load_ruleset(tmp_path / "run.toml"),
                  [json.loads(line) for line in (tmp_path / "t.jsonl").read_text().splitlines()])


def test_cli_export_then_replay(forced_runs, tmp_path):
    out = next(o for d, k, t, o in forced_runs if d == "short" and k == "rufspiel")
    res = cli("export", out, "--out", tmp_path / "g.jsonl", "--deals", "20:150")
    assert res.returncode == 0, res.stderr
    assert res.stderr.strip().endswith(f"--rules sauspiel-short") and res.stderr.count("\n") == 1
    rep = cli("replay", tmp_path / "g.jsonl", "--rules", "sauspiel-short", "--json")
    assert rep.returncode == 0, rep.stderr
    lines = [json.loads(x) for x in rep.stdout.splitlines()]
    rows = rows_by_id(out)
    played = [i for i in range(20, 150) if rows[i]["play"] is not None]
    assert [int(x["id"].split(":")[1]) for x in lines] == played
    assert all(x["ok"] and x["agrees"] for x in lines)
    assert rep.stderr.strip() == f"{len(played)} of {len(played)} agree"
    stdout = cli("export", out, "--deals", "20:150")  # default: stdout, the same lines
    assert stdout.returncode == 0 and stdout.stdout == (tmp_path / "g.jsonl").read_text()


def test_bad_input_is_one_line_exit_2_and_writes_nothing(forced_runs, tmp_path):
    good = forced_runs[0][3]
    plain = tmp_path / "plain"
    run(RunOptions(deals=50, seed=1), plain, workers=1)
    og = tmp_path / "og"
    og.mkdir()
    (og / "_manifest.json").write_text(json.dumps({"format": "simkit-run/1", "game": "old-german", "shards": []}))
    target = tmp_path / "out.jsonl"
    cases = [
        ([tmp_path / "nowhere"], "is not a run directory"),
        ([tmp_path], "not a simkit run directory"),
        ([plain], "without --store-play"),
        ([og], "old-german game"),
        ([good, "--deals", "50:20"], "empty or reversed"),
        ([good, "--deals", "0:1000"], "reaches past the run's 200 deals"),
        ([good, "--deals", "a:b"], "--deals must be a range"),
        ([good, "--deals", "1:2:3"], "--deals must be a range"),
        ([good, "--deals", "-3:5"], "--deals must be a range"),
        ([good, "--out", tmp_path / "missing" / "x.jsonl"], "does not exist"),
    ]
    for args, message in cases:
        res = cli("export", *args, *([] if "--out" in args else ["--out", target]))
        assert res.returncode == 2, (args, res.stderr)
        assert res.stderr.startswith("simkit: error: ") and message in res.stderr and res.stderr.count("\n") == 1, (
            args, res.stderr)
        assert res.stdout == "" and not target.exists() and not list(tmp_path.glob(".*tmp-*"))
    res = cli("run", "--deals", "10", "--rules", "old-german", "--store-play", "--out", tmp_path / "og2")
    assert res.returncode == 2 and "--store-play does not apply to the old German game" in res.stderr
    assert not (tmp_path / "og2").exists()


def test_failure_while_writing_leaves_no_file(forced_runs, tmp_path, monkeypatch):
    out = forced_runs[0][3]
    target = tmp_path / "x.jsonl"
    target.write_text("old\n")
    real = ex.ExportPlan._batch

    def broken(self, batch, with_hands):
        yield from real(self, batch.slice(0, 5), with_hands)
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(ex.ExportPlan, "_batch", broken)
    with pytest.raises(OSError):
        ex.write_records(out, target)
    assert target.read_text() == "old\n" and sorted(p.name for p in tmp_path.iterdir()) == ["x.jsonl"]


def test_play_that_does_not_fit_the_deal_is_refused(tmp_path):
    out = tmp_path / "r"
    run(RunOptions(deals=50, seed=8, store_play=True), out, workers=1)
    m = json.loads((out / "_manifest.json").read_text())
    m["seed"] = 9  # other hands: the stored play cannot have come from them
    (out / "_manifest.json").write_text(json.dumps(m))
    with pytest.raises(ex.ExportError, match="does not fit"):
        list(ex.export_records(out))


def test_parse_deal_range():
    assert ex.parse_deal_range("10:20") == (10, 20)
    assert ex.parse_deal_range("1_000:") == (1000, None)
    assert ex.parse_deal_range(":2k") == (None, 2000)
    assert ex.parse_deal_range("7") == (7, 8)
    for bad in ("", ":x", "1.5:3", "1:2:3"):
        with pytest.raises(ex.ExportError):
            ex.parse_deal_range(bad)
