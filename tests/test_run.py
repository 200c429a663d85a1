"""`simkit run`: the Parquet dataset, invariants on every row, reproducibility, faults and bad input."""

import errno
import json
import signal
import subprocess
import time
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq
import pytest

from simkit.cards import cards_of
from simkit.reference import count_laufende, price_of
from simkit.rules import Contract, load_ruleset
from simkit.rules.contracts import KIND_NAMES
from simkit.sim import RunError, RunOptions, run
from simkit.sim import runner as runner_mod

from simkit_cli import REPO, SIMKIT, read_parts as read, simkit as cli


EXPECTED_TYPES = {
    "deal_id": "uint64", "contract": "dictionary<values=string, indices=int8, ordered=0>", "tout": "bool",
    "suit": "dictionary<values=string, indices=int8, ordered=0>", "declarer": "int8", "partner": "int8",
    "doubling": "uint8", "declarer_points": "uint8", "declarer_tricks": "uint8", "won": "bool",
    "schneider": "bool", "schwarz": "bool", "laufende": "uint8", "laufende_mit": "bool",
    **{f"payout_{s}": "int32" for s in range(4)}, **{f"hand_{s}": "uint32" for s in range(4)},
}


@pytest.fixture(scope="module")
def small_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("runs") / "r"
    summary = run(RunOptions(deals=60_000, seed=11, store_hands=True, shard_size=20_000), out, workers=1)
    return out, summary


def test_schema_and_types(small_run):
    out, _ = small_run
    schema = pq.read_schema(next(out.glob("part-*.parquet")))
    for name, typ in EXPECTED_TYPES.items():
        assert str(schema.field(name).type) == typ, name
    assert not {"bid_0", "kontra_seat", "re_seat"} & set(schema.names)  # only with --store-bids
    meta = json.loads(schema.metadata[b"simkit"])
    assert meta["seed"] == 11 and meta["strategies"] == ["heuristic"] * 4 and meta["ruleset"]["name"] == "stargames"
    m = json.loads((out / "_manifest.json").read_text())
    assert m["complete"] and [(s["start"], s["stop"]) for s in m["shards"]] == [(0, 20_000), (20_000, 40_000),
                                                                               (40_000, 60_000)]


def test_invariants_on_every_row(small_run):
    out, summary = small_run
    df = read(out)
    assert len(df) == 60_000 and (df.deal_id.to_numpy() == np.arange(60_000)).all()
    pay = df[[f"payout_{s}" for s in range(4)]].to_numpy()
    assert (pay.sum(axis=1) == 0).all()
    assert df.declarer_points.between(0, 120).all()
    played = df[df.contract != "pass"]
    assert len(played) > 0.5 * len(df)
    hs = 8
    assert played[played.schwarz].declarer_tricks.isin([0, hs]).all()
    rules = load_ruleset()
    for row in played.itertuples():
        hands = [getattr(row, f"hand_{s}") for s in range(4)]
        kind = KIND_NAMES.index(row.contract)
        suit = ["eichel", "gras", "herz", "schellen"].index(row.suit) if isinstance(row.suit, str) else None
        contract = Contract(kind, suit, bool(row.tout))
        team = {row.declarer}
        if kind == 0:
            ace = 8 * suit + 7
            assert hands[row.partner] >> ace & 1  # the partner holds the called ace
            team.add(row.partner)
        else:
            assert row.partner == -1
        lauf, mit = count_laufende(contract, hands, team, "long")
        assert (lauf, mit) == (row.laufende, row.laufende_mit)
        price, _ = price_of(contract, rules.tariff, schneider=row.schneider, schwarz=row.schwarz,
                            laufende=row.laufende, doublings=row.doubling)
        sign = 1 if row.won else -1
        for s in range(4):
            mult = (1 if kind == 0 else 3) if s in team else 1
            want = sign * price * mult if s in team else -sign * price
            assert getattr(row, f"payout_{s}") == want
    assert summary["deals"] == 60_000 and summary["complete"]


def test_store_bids_adds_the_auction_and_the_doublings(tmp_path, small_run):
    run(RunOptions(deals=20_000, seed=11, store_bids=True, shard_size=20_000), tmp_path / "b", workers=1)
    df = read(tmp_path / "b")
    assert pq.read_schema(tmp_path / "b" / "part-000000.parquet").field("bid_0").type == "int16"
    base = read(small_run[0]).iloc[:20_000]
    for col in ("contract", "declarer", "doubling", "payout_0"):  # the same deals, more columns
        assert (df[col].to_numpy() == base[col].to_numpy()).all()
    assert ((df.kontra_seat >= 0) == (df.doubling >= 1)).all() and ((df.re_seat >= 0) == (df.doubling == 2)).all()
    played = df[df.contract != "pass"]
    bids = played[[f"bid_{s}" for s in range(4)]].to_numpy()
    # the declarer's declaration is the contract played: kind + 8 * (suit + 1) + 64 * tout
    suit = np.array([{"eichel": 0, "gras": 1, "herz": 2, "schellen": 3}.get(x, -1) for x in played.suit])
    code = np.array([KIND_NAMES.index(c) for c in played.contract]) + 8 * (suit + 1) + 64 * played.tout.to_numpy()
    assert (bids[np.arange(len(played)), played.declarer.to_numpy()] == code).all()
    assert (df[df.contract == "pass"][[f"bid_{s}" for s in range(4)]] == -1).all().all()
    with pytest.raises(RunError, match="store-bids"):
        RunOptions(deals=10, rules=load_ruleset("old-german"), store_bids=True)


def test_identical_rows_for_any_workers_chunks_and_backend(tmp_path, small_run):
    ref = read(small_run[0])
    opts = RunOptions(deals=60_000, seed=11, store_hands=True, shard_size=15_000)
    run(opts, tmp_path / "w2", workers=2, chunk=7_000)
    assert read(tmp_path / "w2").equals(ref)
    run(RunOptions(deals=60_000, seed=11, store_hands=True, shard_size=30_000), tmp_path / "dask",
        workers=2, backend="dask-local")
    assert read(tmp_path / "dask").equals(ref)


def test_interrupted_run_resumes_without_gaps_or_duplicates(tmp_path, small_run):
    out = tmp_path / "r"
    opts = RunOptions(deals=60_000, seed=11, store_hands=True, shard_size=20_000)
    calls = []

    def stop_after_first(k):
        calls.append(k)
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        run(opts, out, workers=1, progress=stop_after_first)
    m = json.loads((out / "_manifest.json").read_text())
    assert [s["start"] for s in m["shards"]] == [0] and not m["complete"]
    assert sorted(p.name for p in out.iterdir()) == ["_manifest.json", "part-000000.parquet"]
    with pytest.raises(RunError, match="already exists"):
        run(opts, out, workers=1)
    # what a kill between the shard's rename and the manifest's rename would leave: a file the manifest does not
    # list (here a broken one); --resume drops it and plays its range again
    (out / "part-000002.parquet").write_bytes(b"not parquet")
    run(opts, out, workers=1, resume=True)
    assert read(out).equals(read(small_run[0]))


def test_killed_process_leaves_complete_shards_then_resumes(tmp_path):
    out = tmp_path / "k"
    args = ["run", "--deals", "400k", "--seed", "5", "--out", out, "--workers", "1", "--strategy", "random"]
    proc = subprocess.Popen([*SIMKIT, *map(str, args)], cwd=REPO, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    deadline = time.time() + 120
    while time.time() < deadline and not list(out.glob("part-*.parquet")):
        time.sleep(0.05)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    m = json.loads((out / "_manifest.json").read_text())
    listed = {s["file"] for s in m["shards"]}
    assert listed == {p.name for p in out.glob("part-*.parquet")}
    for name in listed:
        pq.read_table(out / name)  # complete and readable
    res = cli(*args, "--resume", "--json")
    assert res.returncode == 0, res.stderr
    assert json.loads(res.stdout)["complete"]
    df = pq.read_table(sorted(out.glob("part-*.parquet")), columns=["deal_id"]).to_pandas()
    assert (np.sort(df.deal_id.to_numpy()) == np.arange(400_000)).all()
    assert not [p for p in out.iterdir() if ".tmp-" in p.name]


def test_full_disk_keeps_complete_shards(tmp_path, monkeypatch):
    out = tmp_path / "full"
    real = runner_mod.play_shard
    count = {"n": 0}

    def failing(opts, a, b, run_dir, chunk=runner_mod.CHUNK):
        count["n"] += 1
        if count["n"] == 2:
            raise OSError(errno.ENOSPC, "No space left on device", str(Path(run_dir) / "part-000001.parquet"))
        return real(opts, a, b, run_dir, chunk)

    monkeypatch.setattr(runner_mod, "play_shard", failing)
    with pytest.raises(OSError):
        run(RunOptions(deals=40_000, seed=2, shard_size=20_000, seats=("random",) * 4), out, workers=1)
    m = json.loads((out / "_manifest.json").read_text())
    assert [s["file"] for s in m["shards"]] == ["part-000000.parquet"]
    assert len(pq.read_table(out / "part-000000.parquet")) == 20_000


@pytest.mark.parametrize("args,message", [
    (["--deals", "0"], "--deals must be a positive whole number"),
    (["--deals", "-5"], "--deals must be a positive whole number"),
    (["--deals", "lots"], "--deals must be a number"),
    (["--deals", "1e19"], "below 2^63"),
    (["--deals", "100", "--strategy", "nonsense"], "unknown strategy 'nonsense'"),
    (["--deals", "100", "--rules", "nope"], "unknown ruleset preset 'nope'"),
    (["--deals", "100", "--contract", "ramsch", "--declarer", "0"], "does not allow ramsch"),
    (["--deals", "100", "--contract", "wenz", "--declarer", "7"], "--declarer must be a seat 0..3"),
    (["--deals", "100", "--contract", "farbwenz", "--suit", "gras", "--declarer", "0"], "does not allow"),
    (["--deals", "100", "--seats", "random,random"], "--seats needs four"),
    (["--deals", "100", "--backend", "dask"], "--backend dask needs --scheduler"),
])
def test_bad_input_is_one_line_exit_2_and_writes_nothing(tmp_path, args, message):
    out = tmp_path / "bad"
    res = cli("run", *args, "--out", out)
    assert res.returncode == 2, res.stdout + res.stderr
    assert message in res.stderr and res.stderr.count("\n") == 1
    assert not out.exists()


def test_existing_out_needs_resume_or_force(tmp_path):
    out = tmp_path / "o"
    assert cli("run", "--deals", "1000", "--out", out, "--strategy", "random").returncode == 0
    again = cli("run", "--deals", "1000", "--out", out, "--strategy", "random")
    assert again.returncode == 2 and "already exists" in again.stderr
    forced = cli("run", "--deals", "2000", "--out", out, "--strategy", "random", "--force", "--json")
    assert forced.returncode == 0 and json.loads(forced.stdout)["deals"] == 2000
    other = cli("run", "--deals", "3000", "--out", out, "--strategy", "random", "--resume")
    assert other.returncode == 2 and "differ" in other.stderr and "deals" in other.stderr
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "notes.txt").write_text("keep me")
    refused = cli("run", "--deals", "1000", "--out", tmp_path / "mine", "--force")
    assert refused.returncode == 2 and "did not write" in refused.stderr
    assert (tmp_path / "mine" / "notes.txt").exists()


def test_unwritable_out_is_a_clear_error(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    res = cli("run", "--deals", "1000", "--out", blocker / "sub", "--strategy", "random")
    assert res.returncode == 2 and "cannot create --out" in res.stderr


def test_forced_mode_records_impossible_rufspiel(tmp_path):
    out = tmp_path / "f"
    res = cli("run", "--deals", "20000", "--contract", "rufspiel", "--suit", "schellen", "--declarer", "1",
              "--out", out, "--json", "--store-hands")
    assert res.returncode == 0, res.stderr
    df = read(out)
    assert len(df) == 20_000
    imp = df[df.impossible]
    assert len(imp) > 0 and (imp.contract == "pass").all()
    ok = df[~df.impossible]
    assert (ok.contract == "rufspiel").all() and (ok.declarer == 1).all() and (ok.suit == "schellen").all()
    for row in imp.head(200).itertuples():
        h = row.hand_1
        assert (h >> 31 & 1) or not any(c >> 3 == 3 and c & 7 not in (3, 4) for c in cards_of(h))
