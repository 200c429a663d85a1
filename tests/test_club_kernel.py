"""The club rules (RULES.md 4) in the whole-deal kernel: Klopfen, Bettel, Sie and Ramsch.

Every row of many seeded deals under ``club``, ``club-short`` and variants of their keys is checked against what
the rule book says, worked out here in plain Python from the traced cards (the trick winners by the referee's
``trick_winner``, which writes the trump orders out from the rule book): zero-sum payouts, 120 points, the Ramsch
loser or Durchmarsch winner and its payouts under every Jungfrau option, a Bettel won iff the declarer took no
trick, Stichzwang in the legal cards, every price x 2^(doublings + knocks), the same rows in any chunking.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numba import njit

from simkit import reference as ref
from simkit.cards import CARD_POINTS
from simkit.engine.game import play_games
from simkit.rules.contracts import BETTEL, RAMSCH, RUFSPIEL, SIE, Contract
from simkit.rules.ruleset import load_ruleset
from simkit.strategies import StrategyError
from simkit_cli import simkit as cli

CLUB = load_ruleset("club")
SHORT = load_ruleset("club-short")
VARIANTS = {
    "club": CLUB,
    "club-short": SHORT,
    "double-all": CLUB.replace(ramsch={"jungfrau": "double-all", "durchmarsch": "all"}),
    "double-each": CLUB.replace(ramsch={"jungfrau": "double-each", "durchmarsch": "none", "tie": "more-tricks"}),
    "double-each-multiple": SHORT.replace(ramsch={"jungfrau": "double-each-multiple", "durchmarsch": 61}),
    "stichzwang": CLUB.replace(bettel={"stichzwang": True, "price": 10}, sie=True),
    "stichzwang-short": SHORT.replace(bettel={"stichzwang": True}, klopfen_cards=2),
    "stock": CLUB.replace(all_pass="stock"),
}
# random bids (Bettel and Sie among them) and knocks; the heuristic keeps the games realistic
SEATS = ("random[bid_probability=0.15]", "heuristic", "random[bid_probability=0.15]", "heuristic")


def _tricks(row_hands, played, contract, hs):
    """Per seat: card points and tricks taken, and the cards each seat played, from a traced deal."""
    pts, tricks, by = [0] * 4, [0] * 4, [[] for _ in range(4)]
    leader = 0
    for t in range(hs):
        cards = [int(c) for c in played[4 * t: 4 * t + 4]]
        for k, c in enumerate(cards):
            by[(leader + k) % 4].append(c)
        w = ref.trick_winner(cards, leader, contract)
        pts[w] += sum(CARD_POINTS[c] for c in cards)
        tricks[w] += 1
        leader = w
    return pts, tricks, by


def _ramsch_expected(pts, tricks, by, rules, knocks):
    """(seat, durchmarsch, jungfrauen, payouts) of a Ramsch by RULES.md 4.4, written independently of the kernel."""
    price = rules.ramsch_price * 2 ** knocks
    hs = rules.hand_size
    dm = rules.ramsch.durchmarsch
    jf = sum(1 for t in tricks if t == 0)
    for s in range(4):
        if dm != "none" and (tricks[s] == hs or (dm != "all" and pts[s] >= dm)):
            return s, True, jf, [3 * price if x == s else -price for x in range(4)]
    trumps = ref.trump_order(Contract(RAMSCH), rules.deck)

    def highest(s):  # rank of the highest trump played: larger is higher, -1 for none
        mine = [len(trumps) - trumps.index(c) for c in by[s] if c in trumps]
        return max(mine, default=-1)

    most = max(pts)
    tied = [s for s in range(4) if pts[s] == most]
    if rules.ramsch.tie == "more-tricks":
        top = max(tricks[s] for s in tied)
        tied = [s for s in tied if tricks[s] == top]
    loser = max(tied, key=lambda s: (highest(s), -s))  # no trump among them: the earliest seat
    pay = [0] * 4
    for s in range(4):
        if s == loser:
            continue
        j = rules.ramsch.jungfrau
        if j == "double-all":
            pay[s] = price * 2 ** jf
        elif j == "double-each" and tricks[s] == 0:
            pay[s] = 2 * price
        elif j == "double-each-multiple" and tricks[s] == 0:
            pay[s] = price * 2 ** jf
        else:
            pay[s] = price
    pay[loser] = -sum(pay)
    return loser, False, jf, pay


def _check_stichzwang(hands, played, contract, hs):
    """Every card following the led suit beats the trick's best card when its player had one that does."""
    hand = [int(h) for h in hands]
    leader = 0
    for t in range(hs):
        cards = [int(c) for c in played[4 * t: 4 * t + 4]]
        best = cards[0]
        for k, c in enumerate(cards):
            s = (leader + k) % 4
            if k > 0:
                same = [x for x in range(32) if hand[s] >> x & 1 and x // 8 == cards[0] // 8]
                if same and any(ref.beats(x, best, contract) for x in same):
                    assert ref.beats(c, best, contract), (t, s, c, best, same)
                if ref.beats(c, best, contract):
                    best = c
            hand[s] &= ~(1 << c)
        leader = ref.trick_winner(cards, leader, contract)


def _classic_price(row, rules, knocks):
    contract = ref.contract_from_row(int(row["kind"]), int(row["suit"]), bool(row["tout"]))
    price, _ = ref.price_of(contract, rules.tariff, schneider=bool(row["schneider"]), schwarz=bool(row["schwarz"]),
                            laufende=int(row["laufende"]), doublings=int(row["doublings"]) + knocks)
    return price


@pytest.mark.parametrize("name", sorted(VARIANTS))
def test_every_row_follows_the_rule_book(name):
    rules = VARIANTS[name]
    n = 3000
    out = play_games(36, 0, n, rules, SEATS, trace=True)
    hs = rules.hand_size
    kind = out["kind"]
    assert (out["payouts"].sum(axis=1) == 0).all()
    played = kind >= 0
    assert ((out["declarer_points"].astype(int) + out["defender_points"])[played] == 120).all()
    seen = set()
    for i in np.flatnonzero(played):
        row = {k: v[i] for k, v in out.items()}
        k = int(kind[i])
        knocks = int(row["knocked"]).bit_count()
        contract = ref.contract_from_row(k, int(row["suit"]), bool(row["tout"]))
        pts, tricks, by = _tricks(row["hands"], row["trace_played"], contract, hs)
        d = int(row["declarer"])
        seen.add(k)
        if k == RAMSCH:
            assert not rules.all_pass != "ramsch"
            seat, dm, jf, pay = _ramsch_expected(pts, tricks, by, rules, knocks)
            assert (d, bool(row["durchmarsch"]), int(row["jungfrauen"])) == (seat, dm, jf), i
            assert list(row["payouts"]) == pay, i
            assert bool(row["won"]) == dm and int(row["price"]) == rules.ramsch_price * 2 ** knocks
            assert (int(row["declarer_points"]), int(row["declarer_tricks"])) == (pts[d], tricks[d])
            assert dm or pts[d] == max(pts)
            assert int(row["doublings"]) == 0 and int(row["partner"]) == -1 and int(row["laufende"]) == 0
            continue
        assert not row["durchmarsch"] and row["jungfrauen"] == 0
        sign = 1 if row["won"] else -1
        if k == BETTEL:
            assert bool(row["won"]) == (tricks[d] == 0), i
            assert int(row["price"]) == rules.bettel_price * 2 ** (int(row["doublings"]) + knocks)
            assert int(row["laufende"]) == 0 and not row["schneider"] and not row["schwarz"]
            if rules.bettel.stichzwang:
                _check_stichzwang(row["hands"], row["trace_played"], contract, hs)
        elif k == SIE:
            assert row["won"] and int(row["laufende"]) == hs and tricks[d] == hs
            t = rules.tariff
            assert int(row["price"]) == 4 * (t.base_solo + t.laufende * hs) * 2 ** (int(row["doublings"]) + knocks)
        else:
            assert int(row["price"]) == _classic_price(row, rules, knocks), i
        p = int(row["price"]) * sign
        if k == RUFSPIEL:
            team = {d, int(row["partner"])}
            assert all(int(row["payouts"][s]) == (p if s in team else -p) for s in range(4))
        else:
            assert all(int(row["payouts"][s]) == (3 * p if s == d else -p) for s in range(4))
    assert BETTEL in seen
    assert (RAMSCH in seen) == (rules.all_pass == "ramsch")
    if rules.all_pass != "ramsch":  # throw-in or stock: the passed deals stay passed rows
        assert (kind == -1).any()
    if rules.klopfen:
        assert (out["knocked"] != 0).any()


def test_knocks_double_the_price_of_the_same_game():
    """The same deal and the same cards with and without knocks: the price is x 2^knocks, nothing else changes.
    A plug-in seat that always knocks against one that never does, on the same seeds, with the same decisions."""
    from simkit.strategies import plugins, random_play

    class Knocker:
        bid, double, play = random_play.bid, random_play.double, random_play.play
        klopfen = njit(lambda hand, seat, info, strength, eff_suit, params, config: 1)
        config = random_play.DEFAULT_CONFIG

    class Silent:
        bid, double, play = random_play.bid, random_play.double, random_play.play
        config = random_play.DEFAULT_CONFIG

    knock, silent = plugins.from_object("knock", Knocker), plugins.from_object("silent", Silent)
    a = play_games(5, 0, 2000, CLUB, (knock, silent, knock, silent))
    b = play_games(5, 0, 2000, CLUB, (silent,) * 4)
    assert (a["knocked"] == 0b0101).all() and (b["knocked"] == 0).all()
    for col in ("kind", "declarer", "declarer_points", "won", "doublings"):
        assert (a[col] == b[col]).all(), col
    assert (a["price"] == 4 * b["price"]).all()
    assert (a["payouts"] == 4 * b["payouts"]).all()
    assert (a["kind"] == RAMSCH).any() and (a["kind"] == BETTEL).any()


def test_same_rows_in_any_chunking():
    whole = play_games(8, 100, 1500, CLUB, SEATS, trace=True)
    parts = [play_games(8, 100 + a, b - a, CLUB, SEATS, trace=True) for a, b in ((0, 400), (400, 1100), (1100, 1500))]
    for k, v in whole.items():
        assert (np.concatenate([p[k] for p in parts]) == v).all(), k


def test_forced_sie_bettel_and_ramsch():
    hs = 8
    # seat 2 holds every Ober and Unter: a Sie; the other seats the rest, dealt in card order
    sie = 0x18181818
    rest = [c for c in range(32) if not sie >> c & 1]
    hands = np.array([[sum(1 << c for c in rest[:8]), sum(1 << c for c in rest[8:16]), sie,
                       sum(1 << c for c in rest[16:])]], np.uint32)
    rules = CLUB.replace(sie=True, klopfen=False)
    out = play_games(1, 0, 1, rules, "heuristic", contract="sie", declarer=2, hands=hands)
    assert out["kind"][0] == SIE and out["won"][0] and out["laufende"][0] == hs
    assert out["price"][0] == 4 * (50 + 10 * 8) << int(out["doublings"][0])
    assert out["declarer_tricks"][0] == hs and out["declarer_points"][0] == 120
    bad = play_games(1, 0, 1, rules, "heuristic", contract="sie", declarer=0, hands=hands)
    assert bad["impossible"][0] and bad["kind"][0] == -1 and (bad["payouts"][0] == 0).all()
    r = play_games(3, 0, 200, CLUB, "heuristic", contract="ramsch")
    assert (r["kind"] == RAMSCH).all() and (r["payouts"].sum(axis=1) == 0).all()
    with pytest.raises(ValueError, match="no declarer"):
        play_games(3, 0, 1, CLUB, "heuristic", contract="ramsch", declarer=1)
    b = play_games(3, 0, 200, CLUB, "heuristic", contract="bettel", declarer=1)
    assert (b["kind"] == BETTEL).all() and (b["won"] == (b["declarer_tricks"] == 0)).all()


def test_native_seats_play_club_contracts_as_the_heuristic():
    """The people model knows only the six classic contracts: in a Bettel or a Ramsch its seats play (and knock)
    exactly as the heuristic. pimc with ``ramsch_cards=0`` plays a Ramsch as the heuristic (by default it searches
    its last cards: tests/test_pimc.py) and a Bettel with its solver (solver.md: the Bettel objective)."""
    # the people weights' ruleset; no Kontra (a native seat doubles from its own config, not the heuristic's)
    rules = load_ruleset("sauspiel").replace(klopfen=True, all_pass="ramsch", max_doublings=0)
    for contract, declarer in (("ramsch", None), ("bettel", 2)):  # forced mode plays Bettel where not enabled
        a = play_games(4, 0, 300, rules, "people", contract=contract, declarer=declarer, trace=True)
        b = play_games(4, 0, 300, rules, "heuristic", contract=contract, declarer=declarer, trace=True)
        for k in a:
            assert (a[k] == b[k]).all(), (contract, k)
        a = play_games(4, 0, 20, rules, "pimc[ramsch_cards=0]", contract=contract, declarer=declarer, trace=True)
        if contract == "ramsch":
            for k in a:
                assert (a[k] == b[k][:20]).all(), ("pimc", contract, k)
        else:  # pimc's own Bettel play: other cards than the heuristic's somewhere, every row still a Bettel
            assert (a["trace_played"] != b["trace_played"][:20]).any()
            assert (a["won"] == (a["declarer_tricks"] == 0)).all() and (a["kind"] == BETTEL).all()


def test_bids_of_the_club_contracts():
    from simkit.engine.game import bid_rank
    from simkit.strategies.api import bid_code

    p = __import__("simkit.engine.batch", fromlist=["tables_for"]).tables_for
    sie_rules = p(CLUB.replace(sie=True))
    off = p(load_ruleset("sauspiel"))
    ruf = sie_rules.suit_mask[0]
    sie_hand = 0x18181818
    other = 0x000000FF | 0x18180000
    assert bid_rank(bid_code(SIE, -1, False), sie_hand, sie_rules.params, ruf) == 14
    assert bid_rank(bid_code(SIE, -1, False), other, sie_rules.params, ruf) == -2  # not a Sie hand
    assert bid_rank(bid_code(BETTEL, -1, False), other, sie_rules.params, ruf) == 1
    assert bid_rank(bid_code(BETTEL, -1, True), other, sie_rules.params, ruf) == -2  # no Bettel Tout
    assert bid_rank(bid_code(BETTEL, 2, False), other, sie_rules.params, ruf) == -2  # no suit
    assert bid_rank(bid_code(BETTEL, -1, False), other, off.params, ruf) == -2  # not enabled
    assert bid_rank(bid_code(SIE, -1, False), sie_hand, off.params, ruf) == -2
    solo_tout = bid_rank(bid_code(1, 0, True), other, sie_rules.params, ruf)
    assert bid_rank(bid_code(RUFSPIEL, 0, False), other, sie_rules.params, ruf) < 1 < solo_tout < 14


def test_a_bad_knock_is_a_one_line_error():
    from simkit.strategies import plugins, random_play

    class Bad:
        bid, double, play = random_play.bid, random_play.double, random_play.play
        klopfen = njit(lambda hand, seat, info, strength, eff_suit, params, config: 2)

    with pytest.raises(StrategyError, match=r"seat 0\) answered 2 when asked whether to knock .* deal 0"):
        play_games(1, 0, 5, CLUB, plugins.from_object("bad", Bad))
    # without klopfen in the ruleset it is never asked
    play_games(1, 0, 5, load_ruleset("sauspiel"), plugins.from_object("bad", Bad))


def test_seen_cards_are_a_uniform_subset_of_the_hand():
    from simkit.engine.game import _seen_cards
    from simkit.engine.rng import next_u64

    @njit
    def draw(hand, hs, n, reps):
        counts = np.zeros(32, np.int64)
        bad = 0
        st = np.uint64(12345)
        for _ in range(reps):
            x, st = next_u64(st)
            seen = _seen_cards(hand, hs, n, x & np.uint64(0xFFFFFFFF))
            m = seen
            c = 0
            while m:
                b = m & -m
                counts[np.int64(np.log2(np.float64(b)))] += 1
                m ^= b
                c += 1
            if c != n or (seen & ~hand) != 0:
                bad += 1
        return counts, bad

    for hand, hs, n in ((0x81422418, 8, 4), (0x81422418, 8, 1), (0x80C0C010, 6, 3),
                        (0x80C0C010, 6, 6)):
        counts, bad = draw(np.int64(hand), hs, n, 40000)
        assert bad == 0
        held = [c for c in range(32) if hand >> c & 1]
        assert set(np.flatnonzero(counts)) == set(held)
        expect = 40000 * n / hs
        assert all(abs(counts[c] - expect) < 5 * expect ** 0.5 for c in held), counts[held]


def test_commands_take_the_club_rules_and_the_bulk_solver_skips_ramsch_rows(tmp_path):
    """analyze, solve and evaluate take a club ruleset (tests/test_solver_club.py, tests/test_analyze_club.py,
    tests/test_evaluate.py); the solver's bulk path skips the Ramsch rows of a run (``--dd``) like passed deals and
    solves the Bettel and Sie rows (tests/test_solver_club.py checks their values); the value table counts without
    Klopfen and Ramsch."""
    from simkit.solver.api import solve_played
    from simkit.strategies.value_table import _counting_rules

    for args in (["analyze", str(tmp_path / "x.jsonl")], ["solve", str(tmp_path / "x.jsonl")]):
        r = cli(*args, "--rules", "club")  # the club ruleset is taken: the missing file is what is wrong
        assert r.returncode == 2 and "does not exist" in r.stderr, (args, r.stderr)
    g = play_games(2, 0, 300, CLUB, SEATS)
    few = {k: v[:40] for k, v in g.items()}
    assert (few["kind"] == RAMSCH).any() and (few["kind"] == BETTEL).any()
    solved = solve_played(few, CLUB, "win")["solved"]
    assert not solved[few["kind"] == RAMSCH].any() and solved[(few["kind"] >= 0) & (few["kind"] != RAMSCH)].all()
    counting = _counting_rules(CLUB)
    assert not counting.klopfen and counting.all_pass == "throw-in" and "bettel" not in counting.contracts


def test_run_with_the_club_rules(tmp_path):
    """`simkit run --rules club` end to end: the club columns, every row zero-sum, 120 points, the summary's mix."""
    import json

    import pyarrow.parquet as pq

    out = tmp_path / "club"
    r = cli("run", "--rules", "club", "--deals", "20000", "--seed", "3", "--out", out, "--json",
            "--seats", "random,heuristic,random,heuristic")
    assert r.returncode == 0, r.stderr
    summary = json.loads(r.stdout)
    assert {"ramsch", "bettel"} <= set(summary["contracts"]) and summary["knocked_share"] > 0
    t = pq.read_table(sorted(out.glob("part-*.parquet"))).to_pandas()
    assert {"knocked", "durchmarsch", "jungfrauen"} <= set(t.columns)
    assert (t[[f"payout_{s}" for s in range(4)]].sum(axis=1) == 0).all()
    played = t[t.contract != "pass"]
    assert set(t.contract) <= {"rufspiel", "solo", "wenz", "farbwenz", "bettel", "ramsch"}
    ramsch = t[t.contract == "ramsch"]
    assert len(ramsch) and (ramsch.durchmarsch == ramsch.won).all() and ramsch.suit.isna().all()
    assert (played.declarer >= 0).all() and not t[t.contract != "ramsch"].durchmarsch.any()
    plain = cli("run", "--rules", "sauspiel", "--deals", "1000", "--out", tmp_path / "plain")
    assert plain.returncode == 0, plain.stderr
    cols = pq.read_schema(next((tmp_path / "plain").glob("part-*.parquet"))).names
    assert not {"knocked", "durchmarsch", "jungfrauen"} & set(cols)  # other rulesets' files are as before


@pytest.mark.parametrize("name", ["club", "club-short", "double-each", "stichzwang-short"])
def test_kernel_against_the_referee(name):
    """simkit.verify replays every traced club deal in the referee decision by decision (legal cards, results)."""
    from simkit.verify import check_whole_deals

    rep = check_whole_deals(1500, 9, seats=SEATS, rules=VARIANTS[name])
    assert rep.mismatches == []
    assert {"ramsch", "bettel", "knocked"} <= set(rep.seen)
    for contract, declarer in (("ramsch", None), ("bettel", 1)):
        rep = check_whole_deals(300, 9, seats="heuristic", rules=VARIANTS[name], contract=contract,
                                declarer=declarer)
        assert rep.mismatches == [] and rep.games == 300


def test_export_of_a_club_run(tmp_path):
    """`simkit export` writes a club run's games as replay records: the knocks as ``klopfen``, a Ramsch without a
    declarer; every record replays to the run's payouts."""
    import json

    out = tmp_path / "run"
    r = cli("run", "--rules", "club", "--deals", "1500", "--store-play", "--seats",
            "random,heuristic,random,heuristic", "--out", out)
    assert r.returncode == 0, r.stderr
    assert cli("export", out, "--out", tmp_path / "games.jsonl").returncode == 0
    records = [json.loads(line) for line in (tmp_path / "games.jsonl").read_text().splitlines()]
    ramsch = [x for x in records if x["contract"] == "ramsch"]
    assert ramsch and all(x["declarer"] is None and x["suit"] is None for x in ramsch)
    assert any(x["klopfen"] for x in records) and all("klopfen" in x for x in records)
    assert any(x["contract"] == "bettel" for x in records)
    rep = cli("replay", tmp_path / "games.jsonl", "--rules", "club")
    assert rep.returncode == 0 and f"{len(records)} of {len(records)} agree" in rep.stdout, rep.stdout[-500:]


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2 ** 32 - 1), deck=st.sampled_from(["long", "short"]),
       tie=st.sampled_from(["highest-trump", "more-tricks"]),
       durchmarsch=st.sampled_from(["all", "none", 61, 91, 120]),
       jungfrau=st.sampled_from(["none", "double-all", "double-each", "double-each-multiple"]),
       stichzwang=st.booleans(), knock_cards=st.integers(0, 6), seats=st.sampled_from([SEATS, ("random",) * 4]))
def test_kernel_against_the_referee_on_random_club_rulesets(seed, deck, tie, durchmarsch, jungfrau, stichzwang,
                                                             knock_cards, seats):
    """Any combination of the club keys: every decision and every result of the kernel as the referee has it."""
    from simkit.verify import check_whole_deals

    rules = CLUB.replace(deck=deck, klopfen_cards=knock_cards, sie=True,
                         ramsch={"tie": tie, "durchmarsch": durchmarsch, "jungfrau": jungfrau},
                         bettel={"stichzwang": stichzwang})
    rep = check_whole_deals(60, seed, seats=seats, rules=rules, chunk=60)
    assert rep.mismatches == [] and rep.games > 0
