"""The Stock (RULES.md 4.4, docs/club-rules.md "Stock"): settlement on hand-worked sessions, the zero-sum invariant
on random rows, and runs in sessions (`simkit run --sessions N --session-deals M`)."""

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from simkit.rules import load_ruleset
from simkit.sim import RunError, RunOptions, run
from simkit.sim.stock import StockError, session_columns, settle_rows

from simkit_cli import read_parts as read, simkit as cli

PASS, RUF, SOLO, BETTEL, RAMSCH = -1, 0, 1, 6, 8


def stock_rules(price=10, doubling="games-and-stock"):
    return load_ruleset("sauspiel").replace(all_pass="stock", stock={"price": price, "doubling": doubling})


def settle(rows, rules, first=None):
    """rows: (kind, declarer, partner, won, knocked, payouts) in deal order; one session unless ``first``."""
    kind, dec, par, won, kn, pay = (np.array(c) for c in zip(*rows))
    first = np.arange(len(rows)) == 0 if first is None else np.array(first)
    return settle_rows(kind, dec, par, won, kn, pay, first, rules)


def test_hand_worked_session():
    rules = stock_rules(price=10)
    out = settle([
        (PASS, -1, -1, False, 0, [0, 0, 0, 0]),  # throw-in: each pays 10, stock 0 -> 40
        (SOLO, 2, -1, True, 0, [-50, -50, 150, -50]),  # a solo leaves it alone
        (RUF, 1, 3, False, 0, [20, -20, 20, -20]),  # lost: seats 1 and 3 pay half of 40 each, stock 40 -> 80
        (PASS, -1, -1, False, 0, [0, 0, 0, 0]),  # throw-in: 80 -> 120
        (BETTEL, 0, -1, True, 0, [60, -20, -20, -20]),  # Bettel leaves it alone
        (RAMSCH, 3, -1, False, 0, [10, 10, 10, -30]),  # so does a Ramsch
        (RUF, 0, 2, True, 0, [20, -20, 20, -20]),  # won: seats 0 and 2 take 60 each, stock 120 -> 0
        (RUF, 0, 1, True, 0, [20, 20, -20, -20]),  # an empty stock: nothing to take
    ], rules)
    assert out["stock_before"].tolist() == [0, 40, 40, 80, 120, 120, 120, 0]
    assert out["stock_after"].tolist() == [40, 40, 80, 120, 120, 120, 0, 0]
    assert out["payouts"].tolist() == [
        [-10, -10, -10, -10], [-50, -50, 150, -50], [20, -40, 20, -40], [-10, -10, -10, -10],
        [60, -20, -20, -20], [10, 10, 10, -30], [80, -20, 80, -20], [20, 20, -20, -20]]
    assert out["payouts"].dtype == np.int32 and out["stock_after"].dtype == np.int64


@pytest.mark.parametrize("doubling,pay", [("games-and-stock", [10, 20, 40, 80, 160]), ("games", [10] * 5)])
def test_knocks_double_the_throw_in_with_games_and_stock_only(doubling, pay):
    rules = stock_rules(price=10, doubling=doubling)
    knocked = [0, 0b0001, 0b1010, 0b0111, 0b1111]  # 0..4 knocks
    out = settle([(PASS, -1, -1, False, k, [0] * 4) for k in knocked], rules)
    assert out["payouts"][:, 0].tolist() == [-p for p in pay]
    assert out["stock_after"].tolist() == np.cumsum([4 * p for p in pay]).tolist()


def test_a_knocked_rufspiel_settles_the_stock_as_it_stands():
    rules = stock_rules(price=10)
    out = settle([(PASS, -1, -1, False, 0, [0] * 4),
                  (RUF, 3, 0, True, 0b11, [80, -80, -80, 80])], rules)  # two knocks: the game x 4, not the stock
    assert out["payouts"][1].tolist() == [100, -80, -80, 100] and out["stock_after"][1] == 0


def test_every_session_starts_with_an_empty_stock_and_a_chunk_carries_it():
    rules = stock_rules(price=5)
    rows = [(PASS, -1, -1, False, 0, [0] * 4)] * 4
    out = settle(rows, rules, first=[1, 0, 1, 0])
    assert out["stock_before"].tolist() == [0, 20, 0, 20]
    # a session continued in the next chunk: the stock before its first row is given
    kind, dec, par, won, kn, pay = (np.array(c) for c in zip(*rows[:2]))
    cont = settle_rows(kind, dec, par, won, kn, pay, np.zeros(2, bool), rules, stock=20)
    assert cont["stock_before"].tolist() == [20, 40]


def test_without_carry_every_row_starts_from_the_given_stock():
    """carry=False (simkit.evaluate's independent deals): each row is settled alone from ``stock``."""
    rules = stock_rules(price=10)
    rows = [(PASS, -1, -1, False, 0b1, [0] * 4), (RUF, 1, 3, False, 0, [20, -20, 20, -20]),
            (RUF, 0, 2, True, 0, [20, -20, 20, -20]), (SOLO, 2, -1, True, 0, [-50, -50, 150, -50])]
    kind, dec, par, won, kn, pay = (np.array(c) for c in zip(*rows))
    out = settle_rows(kind, dec, par, won, kn, pay, np.zeros(4, bool), rules, stock=60, carry=False)
    assert out["stock_before"].tolist() == [60] * 4
    assert out["stock_after"].tolist() == [140, 120, 0, 60]
    assert out["payouts"].tolist() == [[-20] * 4, [20, -50, 20, -50], [50, -20, 50, -20], [-50, -50, 150, -50]]


def test_the_default_stock_price_is_the_rufspiel_base_and_impossible_rows_are_no_throw_ins():
    rules = load_ruleset("sauspiel").replace(all_pass="stock")
    out = settle_rows(np.array([-1, -1]), np.array([-1, 0]), np.array([-1, -1]), np.zeros(2, bool), None,
                      np.zeros((2, 4)), np.array([True, False]), rules, impossible=np.array([False, True]))
    assert out["stock_after"].tolist() == [4 * rules.tariff.base_rufspiel] * 2


@pytest.mark.parametrize("change,message", [
    (dict(payouts=np.zeros((2, 3))), "payouts must be [2, 4]"),
    (dict(declarer=np.array([0, 0]), partner=np.array([0, 0])), "row 0: a Rufspiel needs a declarer and a partner"),
    (dict(won=np.zeros(3, bool)), "won must hold one value per row"),
    (dict(stock=-1), "the stock must be between 0"),
])
def test_bad_rows_are_one_line_errors(change, message):
    args = dict(kind=np.array([0, 0]), declarer=np.array([0, 1]), partner=np.array([1, 2]), won=np.zeros(2, bool),
                knocked=None, payouts=np.zeros((2, 4)), first=np.array([True, False]), rules=stock_rules())
    args.update(change)
    with pytest.raises(StockError, match=message.replace("[", r"\[")):
        settle_rows(**args)


def test_a_stock_outgrowing_its_column_is_an_error():
    rows = [(PASS, -1, -1, False, 0, [0] * 4)] + [(RUF, 0, 1, False, 0, [0] * 4)] * 40  # doubles 40 times
    with pytest.raises(StockError, match="outgrows its column"):
        settle(rows, stock_rules(price=10))


def _plain_settle(kind, dec, par, won, knocked, game, first, price, knocks_double):
    """The rule book in plain Python (whole changes), and whether every amount fits the int32 payout columns."""
    stock, rows, fits = 0, [], True
    for k, d, p, w, kn, g, f in zip(kind, dec, par, won, knocked, game, first):
        stock = 0 if f else stock
        change = [int(x) for x in g]
        if k == PASS:
            pay = price * 2 ** bin(kn).count("1") if knocks_double else price
            change = [c - pay for c in change]
            stock += 4 * pay
        elif k == RUF:
            share = stock // 2 if w else -(stock // 2)
            change[d] += share
            change[p] += share
            stock = 0 if w else 2 * stock
        fits &= all(-2**31 <= c < 2**31 for c in change)
        rows.append(change)
    return rows, fits


row = st.tuples(
    st.sampled_from([PASS, RUF, RUF, SOLO, BETTEL, RAMSCH]), st.permutations(range(4)), st.booleans(),
    st.integers(0, 15), st.integers(-300, 300), st.booleans())


@settings(max_examples=200, deadline=None)
@given(st.lists(row, min_size=1, max_size=60), st.integers(1, 50), st.sampled_from(["games-and-stock", "games"]))
def test_zero_sum_on_every_row_of_random_sessions(rows, price, doubling):
    kind = np.array([r[0] for r in rows])
    dec = np.array([r[1][0] if r[0] >= 0 else -1 for r in rows])
    par = np.array([r[1][1] if r[0] == RUF else -1 for r in rows])
    won = np.array([r[2] for r in rows])
    kn = np.array([r[3] for r in rows])
    game = np.array([[r[4], -r[4], r[4], -r[4]] if r[0] >= 0 else [0] * 4 for r in rows])
    first = np.array([i == 0 or r[5] for i, r in enumerate(rows)])
    expected, fits = _plain_settle(kind, dec, par, won, kn, game, first, price, doubling == "games-and-stock")
    if not fits:
        with pytest.raises(StockError, match="outgrows its column"):
            settle_rows(kind, dec, par, won, kn, game, first, stock_rules(price, doubling))
        return
    out = settle_rows(kind, dec, par, won, kn, game, first, stock_rules(price, doubling))
    assert out["payouts"].tolist() == expected
    before, after, pay = out["stock_before"], out["stock_after"], out["payouts"].astype(np.int64)
    assert (pay.sum(axis=1) + after - before == 0).all()
    assert (before >= 0).all() and (before[first] == 0).all()
    assert (after[:-1][~first[1:]] == before[1:][~first[1:]]).all()  # the stock carries inside a session
    ruf = kind == RUF
    assert (after[ruf & won] == 0).all() and (after[ruf & ~won] == 2 * before[ruf & ~won]).all()
    other = (kind > RUF)
    assert (after[other] == before[other]).all() and (pay[other] == game[other]).all()  # untouched
    assert (after % 4 == 0).all()  # four equal payments or two halves: its halves stay whole


def test_session_columns_rotate_the_deal():
    c = session_columns(np.arange(6, 12), 4)  # deals 2, 3 of session 1, then 0..3 of session 2
    assert c["session"].tolist() == [1, 1, 2, 2, 2, 2]
    assert c["first"].tolist() == [False, False, True, False, False, False]
    assert c["players"][:, 0].tolist() == [2, 3, 0, 1, 2, 3]  # seat 0 of deal j is player j % 4
    assert c["players"][0].tolist() == [2, 3, 0, 1]


# ------------------------------------------------------------------------------------------ runs in sessions

def stock_run_options(**kw):
    return RunOptions(seed=5, rules=stock_rules(price=10), sessions=kw.pop("sessions", 40),
                      session_deals=kw.pop("session_deals", 25), **kw)


@pytest.fixture(scope="module")
def stock_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("runs") / "stock"
    summary = run(stock_run_options(shard_size=250), out, workers=1)
    return out, summary


def test_a_run_in_sessions_settles_the_stock_on_every_row(stock_run):
    out, summary = stock_run
    df = read(out)
    assert len(df) == 1000 and (df.deal_id.to_numpy() == np.arange(1000)).all()
    assert (df.session.to_numpy() == np.arange(1000) // 25).all()
    j = np.arange(1000) % 25
    for k in range(4):
        assert (df[f"player_{k}"].to_numpy() == (k + j) % 4).all()
    pay = df[[f"payout_{s}" for s in range(4)]].to_numpy().astype(np.int64)
    before, after = df.stock_before.to_numpy(), df.stock_after.to_numpy()
    assert (pay.sum(axis=1) + after - before == 0).all()
    assert (before[j == 0] == 0).all() and (after[:-1][j[1:] > 0] == before[1:][j[1:] > 0]).all()
    passed = (df.contract == "pass").to_numpy()
    assert passed.any() and (after[passed] - before[passed] == 40).all()
    won = (df.contract == "rufspiel").to_numpy() & df.won.to_numpy() & (before > 0)
    assert won.any() and (after[won] == 0).all()
    st_ = summary["stock"]
    assert st_["won"] == int(won.sum()) and st_["throw_ins"] == int(passed.sum())
    assert st_["mean"] == pytest.approx(before.mean()) and st_["max"] == before.max()
    assert summary["sessions"] == {"sessions": 40, "session_deals": 25}
    m = json.loads((out / "_manifest.json").read_text())
    assert all(s["start"] % 25 == 0 and s["stop"] % 25 == 0 for s in m["shards"])  # whole sessions a shard


def test_sessions_rows_are_the_same_for_any_workers_and_chunks_and_resume(tmp_path, stock_run):
    ref = read(stock_run[0])
    run(stock_run_options(shard_size=100), tmp_path / "w2", workers=2, chunk=30)  # chunks end inside sessions
    assert read(tmp_path / "w2").equals(ref)
    out = tmp_path / "resumed"
    opts = stock_run_options(shard_size=250)

    def stop(k):
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        run(opts, out, workers=1, progress=stop)
    with pytest.raises(RunError, match="differ from the run .* in: sessions"):
        run(stock_run_options(session_deals=50, sessions=20, shard_size=250), out, workers=1, resume=True)
    run(opts, out, workers=1, resume=True)
    assert read(out).equals(ref)


def test_sessions_without_a_stock_carry_player_ids_only(tmp_path):
    run(RunOptions(seed=5, sessions=3, session_deals=8), tmp_path / "r", workers=1)
    df = read(tmp_path / "r")
    assert len(df) == 24 and "stock_before" not in df and (df.player_2.to_numpy() == (2 + np.arange(24) % 8) % 4).all()
    run(RunOptions(deals=24, seed=5), tmp_path / "plain", workers=1)  # the same deals without sessions
    assert df.drop(columns=["session", *[f"player_{k}" for k in range(4)]]).equals(read(tmp_path / "plain"))


@pytest.mark.parametrize("kw,message", [
    (dict(deals=100, rules=stock_rules()), 'all_pass = "stock" needs sessions'),
    (dict(sessions=4), "--sessions and --session-deals go together"),
    (dict(sessions=0, session_deals=5), "--sessions must be between 1"),
    (dict(deals=21, sessions=4, session_deals=5), "--deals 21 is not --sessions x --session-deals (20)"),
    (dict(sessions=4, session_deals=5, shard_size=12), "must be a whole number of sessions of 5 deals"),
    (dict(sessions=4, session_deals=5, seats=("heuristic", "random", "heuristic", "random")),
     "--sessions needs one strategy at every seat"),
])
def test_bad_session_options(kw, message):
    with pytest.raises(RunError, match=message.replace("(", r"\(").replace(")", r"\)")):
        RunOptions(**kw)


@pytest.mark.parametrize("args,message", [
    (["--sessions", "3"], "--sessions N and --session-deals M go together"),
    (["--sessions", "3", "--session-deals", "4", "--deals", "12"], "give --sessions with --session-deals, or --deals"),
    (["--sessions", "0", "--session-deals", "4"], "--sessions must be a positive whole number"),
    (["--sessions", "2", "--session-deals", "x"], "--session-deals must be a number"),
    (["--deals", "10", "--rules", "STOCK"], 'all_pass = "stock" needs sessions'),
])
def test_bad_session_options_on_the_command_line(tmp_path, args, message):
    toml = tmp_path / "stock.toml"
    toml.write_text('name = "s"\ndeck = "long"\ncontracts = ["rufspiel", "solo"]\nall_pass = "stock"\n')
    out = tmp_path / "bad"
    res = cli("run", *[str(toml) if a == "STOCK" else a for a in args], "--out", out)
    assert res.returncode == 2, res.stdout + res.stderr
    assert message in res.stderr and res.stderr.count("\n") == 1
    assert not out.exists()


def test_simkit_run_sessions_prints_the_stock(tmp_path):
    toml = tmp_path / "stock.toml"
    toml.write_text('name = "s"\ndeck = "long"\ncontracts = ["rufspiel", "solo"]\nall_pass = "stock"\n'
                    '[stock]\nprice = 10\n')
    res = cli("run", "--rules", toml, "--sessions", "20", "--session-deals", "30", "--out", tmp_path / "r",
              "--workers", "1")
    assert res.returncode == 0, res.stderr
    assert "20 sessions of 30 deals" in res.stdout and "stock: mean" in res.stdout
    res = cli("run", "--rules", toml, "--sessions", "20", "--session-deals", "30", "--out", tmp_path / "r",
              "--workers", "1", "--json", "--force")
    s = json.loads(res.stdout)
    assert s["deals"] == 600 and s["stock"]["throw_ins"] > 0


def test_the_stock_tables_read_a_run_in_sessions(stock_run):
    from analysis import club
    from analysis.dataset import scan

    out, summary = stock_run
    t = club.stock_tables(scan(out))
    rows = {r["measure"]: r for r in t["stock_summary"].iter_rows(named=True)}
    assert rows["mean stock before a deal"]["value"] == pytest.approx(summary["stock"]["mean"])
    assert rows["stock won per session"]["value"] * 40 == pytest.approx(summary["stock"]["won"])
    assert t["stock_sessions"]["sessions"][0] == 40 and t["stock_players"].height == 4
