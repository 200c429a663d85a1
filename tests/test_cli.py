"""The command line as a user runs it: output, exit status, one-line errors."""

import json

import pytest

from simkit_cli import simkit as run


def test_rules_lists_and_prints_presets(tmp_path):
    out = run("rules")
    assert out.returncode == 0 and "stargames" in out.stdout and "sauspiel-short" in out.stdout
    out = run("rules", "sauspiel-short")
    assert out.returncode == 0 and 'deck = "short"' in out.stdout and "base_rufspiel = 20" in out.stdout
    # what `rules NAME` prints is itself a valid ruleset file
    f = tmp_path / "copy.toml"
    f.write_text(out.stdout)
    again = run("rules", f)
    assert again.returncode == 0 and again.stdout == out.stdout


def test_rules_errors_are_one_line():
    out = run("rules", "nope")
    assert out.returncode == 2
    assert out.stderr.strip().count("\n") == 0 and "unknown ruleset preset 'nope'" in out.stderr


def test_unknown_option_is_one_line_exit_2():
    out = run("replay", "x.jsonl", "--bogus")
    assert out.returncode == 2 and out.stderr.strip() == "simkit: error: No such option: --bogus"


def test_replay_missing_file():
    out = run("replay", "does-not-exist.jsonl")
    assert out.returncode == 2 and out.stderr.strip() == "simkit: error: replay file does-not-exist.jsonl does not exist"


def test_replay_json_real_games(real_games_file):
    out = run("replay", real_games_file, "--json")
    assert out.returncode == 0
    lines = out.stdout.splitlines()
    assert len(lines) == 30
    objs = [json.loads(x) for x in lines]
    keys = {"id", "ok", "error", "payouts", "declarer_points", "declarer_tricks", "laufende", "schneider",
            "schwarz", "won"}
    assert all(keys <= set(o) and o["ok"] and o["error"] is None for o in objs)
    assert out.stderr.strip() == "30 of 30 agree"


def test_replay_table_and_failures(tmp_path, real_games_file):
    lines = real_games_file.read_text().splitlines()[:3]
    bad = json.loads(lines[1])
    bad["tricks"][0]["cards"][1] = "EO"  # seat 1 does not hold EO
    f = tmp_path / "mixed.jsonl"
    f.write_text("\n".join([lines[0], "{broken", json.dumps(bad), lines[2]]) + "\n")
    out = run("replay", f, "--json")
    assert out.returncode == 1
    objs = [json.loads(x) for x in out.stdout.splitlines()]
    assert [o["ok"] for o in objs] == [True, False, False, True]
    assert objs[1]["id"] is None and "not valid JSON" in objs[1]["error"]
    assert objs[2]["error"].startswith("trick 1, seat 1, card EO: seat 1 does not hold this card; legal cards:")
    assert out.stderr.strip() == "2 of 3 agree"
    table = run("replay", f)
    assert table.returncode == 1 and "ERROR: trick 1, seat 1, card EO" in table.stdout
    assert "2 of 3 agree" in table.stdout


@pytest.mark.parametrize("text,value", [("1e6", 10**6), ("1000000", 10**6), ("1_000_000", 10**6), ("1M", 10**6),
                                        ("500k", 500_000), ("2.5e3", 2500)])
def test_parse_count_accepts_what_users_type(text, value):
    from simkit.cli_shared import parse_count
    assert parse_count(text) == value


@pytest.mark.parametrize("text", ["0", "-5", "abc", "1.5", "1e19", "9223372036854775808"])
def test_parse_count_rejects(text):
    from simkit.cli_shared import UserError, parse_count
    with pytest.raises(UserError, match="--deals"):
        parse_count(text)


def test_random_play_summary_json():
    out = run("random-play", "--deals", "20k", "--contract", "wenz", "--seed", "3", "--json")
    assert out.returncode == 0, out.stderr
    s = json.loads(out.stdout)
    assert s["deals"] == s["played"] == 20_000 and s["contract"] == "wenz"
    assert 0 < s["declarer_win_rate"] < 1 and 0 <= s["mean_declarer_points"] <= 120
    again = json.loads(run("random-play", "--deals", "20k", "--contract", "wenz", "--seed", "3", "--json").stdout)
    assert {k: v for k, v in again.items() if k != "deals_per_second"} == \
        {k: v for k, v in s.items() if k != "deals_per_second"}


@pytest.mark.parametrize("args,message", [
    (["--deals", "0"], "--deals must be a positive whole number"),
    (["--contract", "bock"], "unknown contract 'bock'"),
    (["--contract", "ramsch"], "random-play plays the contracts of RULES.md 2.1"),
    (["--deck", "medium"], "--deck must be long or short"),
    (["--contract", "rufspiel", "--tout-share", "0.5"], "cannot be played Tout"),
    (["--rules", "nope"], "unknown ruleset preset"),
])
def test_random_play_bad_input(args, message):
    out = run("random-play", *args)
    assert out.returncode == 2 and message in out.stderr and out.stderr.count("\n") == 1
