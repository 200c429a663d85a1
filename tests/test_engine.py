"""Engine-only tests: rule tables, dealing, invariants on every row of random batches, determinism under chunking.

The rule-by-rule comparison against the plain-Python referee lives elsewhere; here the kernel's trace is replayed
with numpy (trick winners, card points) and a small independent legal-move check runs on a sample of decisions.
"""

from __future__ import annotations

import numpy as np
import pytest

from simkit.cards import DECK_MASKS, format_card, parse_card
from simkit.engine import (
    POLICY_LOWEST,
    ceiling_play,
    deal,
    deal_batch,
    play_random,
    random_setups,
    simulate_random,
    tables_for,
)
from simkit.engine.bits import cttz, nth_bit, popcount
from simkit.rules import Contract, Ruleset
from simkit.rules.contracts import FARBGEIER, FARBWENZ, GEIER, RUFSPIEL, SOLO, WENZ
from simkit.rules.tables import TRUMP, VARIANT_KIND, build_tables, variant_index, variant_of

LONG = Ruleset()
SHORT = Ruleset(deck="short")
RULESETS = {"long": LONG, "short": SHORT}
KINDS = ("rufspiel", "solo", "wenz", "geier", "farbwenz", "farbgeier")


def C(s: str) -> int:
    return parse_card(s)


# ------------------------------------------------------------------------------------------------ tables


def test_variant_index():
    assert variant_index(Contract(RUFSPIEL, 1)) == 0
    assert [variant_index(Contract(SOLO, s)) for s in range(4)] == [1, 2, 3, 4]
    assert variant_index(Contract(WENZ)) == 5
    assert variant_index(Contract(GEIER)) == 6
    assert [variant_index(Contract(FARBWENZ, s)) for s in range(4)] == [7, 8, 9, 10]
    assert [variant_index(Contract(FARBGEIER, s, True)) for s in range(4)] == [11, 12, 13, 14]
    assert variant_of(SOLO, 2) == 3 and variant_of(RUFSPIEL, 3) == 0 and variant_of(WENZ, None) == 5


@pytest.mark.parametrize("deck", ["long", "short"])
def test_tables_sanity(deck):
    t = build_tables(RULESETS[deck])
    short = deck == "short"
    expect = {0: 14, 1: 14, 5: 4, 6: 4, 7: 11, 11: 11}
    for v, n in expect.items():
        assert t.n_trumps[v] == n - (2 if short and n > 4 else 0)
    assert t.hand_size == (6 if short else 8) and t.deck_mask == DECK_MASKS[deck]
    assert t.points.sum() == 120
    for v in range(16):
        masks = [int(m) for m in t.suit_mask[v]]
        union = 0
        for m in masks:
            assert union & m == 0  # every card in exactly one effective suit
            union |= m
        assert union == t.deck_mask
        for c in range(32):
            if t.deck_mask >> c & 1:
                assert masks[t.eff_suit[v, c]] >> c & 1
        trumps = [int(c) for c in t.laufende_order[v] if c >= 0]
        assert len(trumps) == t.n_trumps[v] and masks[TRUMP] == sum(1 << c for c in trumps)
        st = t.strength[v]
        assert all(st[a] > st[b] for a, b in zip(trumps, trumps[1:]))  # the order runs from the top
        side_max = max(st[c] for c in range(32) if t.eff_suit[v, c] != TRUMP)
        if trumps:  # the Bettel (15) has none
            assert min(st[c] for c in trumps) > side_max
    assert t.n_trumps[15] == 0  # RULES.md 4.2: the Bettel's suits rank A K O U Z 9 8 7
    bettel = sorted((c for c in range(8) if t.deck_mask >> c & 1), key=lambda c: -t.strength[15, c])
    assert [format_card(c) for c in bettel] == ["EA", "EK", "EO", "EU", "EZ", "E9"] + ([] if short else ["E8", "E7"])
    # spot checks
    s0 = t.strength[0]
    assert [C(x) for x in ("EO", "GO", "HO", "SO", "EU")] == list(t.laufende_order[0, :5])
    assert t.eff_suit[0, C("GO")] == TRUMP and t.eff_suit[0, C("HA")] == TRUMP and t.eff_suit[0, C("GA")] == 1
    assert s0[C("GA")] > s0[C("GZ")] > s0[C("GK")] > s0[C("G9")]
    w = t.strength[5]
    assert t.eff_suit[5, C("EO")] == 0 and w[C("EK")] > w[C("EO")] > w[C("E9")]
    assert list(t.laufende_order[5, :4]) == [C("EU"), C("GU"), C("HU"), C("SU")]
    g = t.strength[6]
    assert t.eff_suit[6, C("EU")] == 0 and g[C("EK")] > g[C("EU")] > g[C("E9")]
    fw = t.strength[variant_of(FARBWENZ, 3)]
    assert fw[C("SU")] > fw[C("SA")] > fw[C("SK")] > fw[C("SO")] > fw[C("S9")]
    assert t.eff_suit[variant_of(FARBWENZ, 3), C("SO")] == TRUMP
    fg = t.strength[variant_of(FARBGEIER, 1)]
    assert fg[C("SO")] > fg[C("GA")] > fg[C("GK")] > fg[C("GU")] > fg[C("G9")]
    sh = t.strength[variant_of(SOLO, 0)]
    assert sh[C("SU")] > sh[C("EA")] > sh[C("EZ")] and t.eff_suit[1, C("HA")] == 2
    assert list(VARIANT_KIND) == [0, 1, 1, 1, 1, 2, 3, 4, 4, 4, 4, 5, 5, 5, 5, 6]
    assert t.lauf_min[5] == 2 and t.lauf_min[6] == 2 and t.lauf_min[0] == 3 and t.lauf_min[7] == 3


def test_bits():
    from numba import njit

    @njit
    def f(m, r):
        return popcount(m), cttz(m), nth_bit(m, r)

    assert f(np.uint32(0b1011000), 2) == (3, 3, 6)
    assert f(np.uint32(0x80000000), 0) == (1, 31, 31)


# ------------------------------------------------------------------------------------------------ dealing


@pytest.mark.parametrize("deck", ["long", "short"])
def test_deal(deck):
    hs = 8 if deck == "long" else 6
    h = deal_batch(7, 100, 5000, deck)
    assert h.dtype == np.uint32 and h.shape == (5000, 4)
    assert (np.bitwise_count(h) == hs).all()
    u = h[:, 0] | h[:, 1] | h[:, 2] | h[:, 3]
    assert (u == DECK_MASKS[deck]).all()
    assert (np.bitwise_count(u) == 4 * hs).all()  # sizes add up and the union is the deck: disjoint
    parts = np.vstack([deal_batch(7, 100, 1234, deck), deal_batch(7, 1334, 3766, deck)])
    assert (parts == h).all()
    assert (deal(7, 100 + 42, deck) == h[42]).all()
    assert not (deal_batch(8, 100, 5000, deck) == h).all()
    # every card lands with every seat about equally often
    seat0 = np.array([(h[:, 0] >> c) & 1 for c in range(32)]).sum(1)
    assert (seat0[[c for c in range(32) if DECK_MASKS[deck] >> c & 1]] > 5000 / 4 * 0.85).all()


def test_random_setups_rufspiel_callable():
    s = random_setups(5, 0, 20000, "rufspiel")
    t = tables_for(LONG)
    ok = s["valid"]
    assert ok.mean() > 0.99
    rows = np.nonzero(ok)[0]
    d = s["declarers"][rows].astype(int)
    cs = s["called_suits"][rows].astype(int)
    hand = s["hands"][rows, d].astype(np.int64)
    assert np.isin(cs, (0, 1, 3)).all()
    assert ((hand >> (8 * cs + 7)) & 1 == 0).all()
    assert ((hand & t.suit_mask[0, cs].astype(np.int64)) != 0).all()
    bad = ~ok
    assert (s["declarers"][bad] == -1).all() and (s["called_suits"][bad] == -1).all()


# ------------------------------------------------------------------------------------------------ invariants


def replay_trace(s, r, t):
    """Replay the traced cards with numpy: check each card comes from the right seat's hand and recompute the
    declaring side's points and tricks from the trick winners. Returns (declarer_points, declarer_tricks)."""
    n, hs = len(s["hands"]), t.hand_size
    rows = np.arange(n)
    P = r["trace_played"].astype(np.int64).reshape(n, hs, 4)
    L = r["trace_legal"].astype(np.int64).reshape(n, hs, 4)
    hands = s["hands"].astype(np.int64).copy()
    v = s["variants"].astype(np.int64)
    team = (1 << s["declarers"].astype(np.int64)) | np.where(r["partner"] >= 0, 1 << r["partner"].astype(np.int64), 0)
    leader = np.zeros(n, np.int64)
    dpts = np.zeros(n, np.int64)
    dtr = np.zeros(n, np.int64)
    for tr in range(hs):
        cards = P[:, tr, :]
        seats = (leader[:, None] + np.arange(4)) % 4
        bit = np.int64(1) << cards
        assert ((L[:, tr, :] & bit) != 0).all(), "played card not legal"
        assert ((L[:, tr, :] & ~hands[rows[:, None], seats]) == 0).all(), "legal card not in hand"
        assert ((hands[rows[:, None], seats] & bit) != 0).all(), "card not in the seat's hand"
        hands[rows[:, None], seats] &= ~bit
        eff = t.eff_suit[v[:, None], cards]
        st = t.strength[v[:, None], cards]
        bk = np.zeros(n, np.int64)
        for k in range(1, 4):
            beats = ((eff[:, k] == eff[rows, bk]) | (eff[:, k] == TRUMP)) & (st[:, k] > st[rows, bk])
            bk = np.where(beats, k, bk)
        winner = seats[rows, bk]
        mine = (team >> winner) & 1 == 1
        dpts += np.where(mine, t.points[cards].sum(1), 0)
        dtr += mine
        leader = winner
    assert (hands == 0).all()
    return dpts, dtr


def check_invariants(s, r, t):
    n, hs = len(s["hands"]), t.hand_size
    v = s["variants"].astype(np.int64)
    dp = r["declarer_points"].astype(np.int64)
    assert (dp + r["defender_points"] == 120).all()
    assert (r["payouts"].sum(1) == 0).all()
    dtr = r["declarer_tricks"].astype(np.int64)
    assert (~r["schwarz"] | (dtr == 0) | (dtr == hs)).all()
    tout = s["touts"]
    assert (~tout | (~r["schneider"] & ~r["schwarz"])).all()
    assert (r["won"] == np.where(tout, dtr == hs, dp >= 61)).all()
    ruf = v == 0
    partner = r["partner"].astype(np.int64)
    assert (partner[~ruf] == -1).all()
    cs = s["called_suits"].astype(np.int64)[ruf]
    ph = s["hands"][ruf, partner[ruf]].astype(np.int64)
    assert ((ph >> (8 * cs + 7)) & 1 == 1).all()
    assert (partner[ruf] != s["declarers"][ruf]).all()
    assert (r["laufende"] >= 1).all() and (r["laufende"] <= t.n_trumps[v]).all()
    # price from the fields (RULES 2.6) and payouts from the price
    lpay = np.where(r["laufende"] >= t.lauf_min[v], r["laufende"].astype(np.int64), 0)
    plain = t.base_price[v] + r["schneider"] + r["schwarz"] + lpay
    price = np.where(tout, 2 * (t.base_price[v] + lpay), plain) << s["doublings"].astype(np.int64)
    assert (r["price"] == price).all()
    sign = np.where(r["won"], price, -price)
    seat = np.arange(4)
    team = (seat[None, :] == s["declarers"][:, None]) | (seat[None, :] == partner[:, None])
    expect = np.where(team, np.where(ruf, 1, 3)[:, None] * sign[:, None], -sign[:, None])
    assert (r["payouts"] == expect).all()
    # trace replay: legality containment, trick winners, points
    rp, rt = replay_trace(s, r, t)
    assert (rp == dp).all() and (rt == dtr).all()
    # Laufende from the hands
    hands = s["hands"].astype(np.int64)
    tc = np.zeros(n, np.int64)
    for k in range(4):
        tc |= np.where(team[:, k], hands[:, k], 0)
    order = t.laufende_order[v].astype(np.int64)
    side = (tc >> order[:, 0]) & 1
    cnt = np.ones(n, np.int64)
    run = np.ones(n, bool)
    for j in range(1, order.shape[1]):
        run &= (j < t.n_trumps[v]) & (((tc >> np.maximum(order[:, j], 0)) & 1) == side)
        cnt += run
    assert (cnt == r["laufende"]).all() and (r["laufende_mit"] == (side == 1)).all()


@pytest.mark.parametrize("deck", ["long", "short"])
@pytest.mark.parametrize("kind", KINDS)
def test_invariants_every_row(kind, deck):
    rules = RULESETS[deck]
    t = tables_for(rules)
    n = 30000
    s = random_setups(11, 1000, n, kind, deck, tout_share=0.2)
    s["doublings"] = np.random.default_rng(3).integers(0, 3, n).astype(np.int8)
    r = play_random(s["hands"], s["variants"], s["called_suits"], s["touts"], s["declarers"], s["doublings"],
                    rules, seed=99, start_index=1000, trace=True)
    ok = s["valid"]
    s = {k: a[ok] for k, a in s.items()}
    r = {k: a[ok] for k, a in r.items()}
    check_invariants(s, r, t)
    if kind in ("solo", "farbwenz", "farbgeier"):
        assert len(np.unique(s["variants"])) == 4
    if kind != "rufspiel":
        assert 0.15 < s["touts"].mean() < 0.25


# ------------------------------------------------------------------------------------------------ legal moves


def ref_legal(hand, k, led, trick_led_called, searched, is_partner, called, eff_row, run_min):
    """Legal cards from RULES 2.4 written out plainly (lists, not masks)."""
    cards = [c for c in range(32) if hand >> c & 1]
    ace = 8 * called + 7 if called >= 0 else None
    if k == 0:
        if is_partner and not searched and len(cards) > 1:
            own = [c for c in cards if eff_row[c] == called]
            if len(own) < run_min:
                return [c for c in cards if eff_row[c] != called or c == ace]
        return cards
    follow = [c for c in cards if eff_row[c] == led]
    if is_partner and not searched:
        if trick_led_called:
            return [ace]
        if not follow and len(cards) > 1:
            return [c for c in cards if c != ace]
    return follow or cards


@pytest.mark.parametrize("deck", ["long", "short"])
@pytest.mark.parametrize("kind,run_min", [("rufspiel", 4), ("rufspiel", 2), ("rufspiel", 3), ("wenz", 4),
                                          ("farbgeier", 4)])
def test_legal_moves_against_plain_rules(kind, deck, run_min):
    rules = RULESETS[deck].replace(run_away_min=run_min)
    t = tables_for(rules)
    n = 400
    s = random_setups(21, 0, n, kind, deck)
    r = play_random(s["hands"], s["variants"], s["called_suits"], s["touts"], s["declarers"], 0, rules,
                    seed=5, trace=True)
    hs = t.hand_size
    ran_away = 0
    for i in range(n):
        if not s["valid"][i]:
            continue
        v = int(s["variants"][i])
        called = int(s["called_suits"][i]) if v == 0 else -1
        eff = t.eff_suit[v]
        hands = [int(x) for x in s["hands"][i]]
        partner = int(r["partner"][i])
        searched = called < 0
        leader = 0
        for tr in range(hs):
            led = None
            best = None
            for k in range(4):
                seat = (leader + k) % 4
                c = int(r["trace_played"][i, 4 * tr + k])
                legal = int(r["trace_legal"][i, 4 * tr + k])
                if k == 0:
                    led = int(eff[c])
                    if seat == partner and not searched and led == called and c != 8 * called + 7:
                        ran_away += 1
                want = ref_legal(hands[seat], k, led, led == called, searched, seat == partner, called, eff, run_min)
                assert legal == sum(1 << x for x in want), (i, tr, k)
                hands[seat] &= ~(1 << c)
                if best is None or ((eff[c] == eff[best] or eff[c] == TRUMP) and t.strength[v, c] > t.strength[v, best]):
                    best, bseat = c, seat
            if led == called:
                searched = True
            leader = bseat
    if kind == "rufspiel" and run_min == 2:
        assert ran_away > 0


def test_called_ace_rules_by_hand():
    """Hand-built Rufspiel on Gras, seat 2 declares, seat 1 holds the Gras ace; POLICY_LOWEST plays the lowest
    card index, so seat 0 leads its lowest card."""
    from simkit.cards import parse_hands

    def first_trick(hands):
        hs = np.array([parse_hands(hands)], np.uint32)
        r = play_random(hs, 0, 1, False, 2, 0, LONG, policy=POLICY_LOWEST, trace=True)
        assert r["partner"][0] == 1
        return r["trace_legal"][0, :4], r["trace_played"][0, :4]

    def m(cards):
        return sum(1 << C(x) for x in cards.split())

    # Gras led first: the partner must play the ace (rule 1)
    legal, played = first_trick(["G8 G7 HO HU H7 SZ S8 S9", "GA GK E8 SO SU HA H8 SA",
                                 "EO GO EU GU HZ HK G9 S7", "EA EK E9 EZ E7 GZ SK H9"])
    assert played[0] == C("G7") and legal[0] == m("G8 G7 HO HU H7 SZ S8 S9")
    assert legal[1] == m("GA") and legal[2] == m("G9") and legal[3] == m("GZ")
    # Eichel led, the partner cannot follow: anything but the ace (rule 2)
    legal, played = first_trick(["E7 G8 HO HU H7 SZ S8 S9", "GA GK G7 SO SU HA H8 SA",
                                 "EO GO EU GU HZ HK G9 S7", "EA EK E9 EZ E8 GZ SK H9"])
    assert played[0] == C("E7")
    assert legal[1] == m("GK G7 SO SU HA H8 SA")
    assert legal[2] == m("EO GO EU GU HZ HK G9 S7")  # Eichel Ober/Unter are trumps: cannot follow Eichel


# ------------------------------------------------------------------------------------------------ determinism


@pytest.mark.parametrize("kind", ["rufspiel", "farbwenz"])
def test_chunking_and_fused_path_identical(kind):
    n = 20000
    s = random_setups(3, 500, n, kind, "long", tout_share=0.1)
    whole = play_random(s["hands"], s["variants"], s["called_suits"], s["touts"], s["declarers"], 1, LONG,
                        seed=3, start_index=500, trace=True)
    cuts = [0, 1, 777, 5000, 13001, n]
    pieces = []
    for a, b in zip(cuts, cuts[1:]):
        pieces.append(play_random(s["hands"][a:b], s["variants"][a:b], s["called_suits"][a:b], s["touts"][a:b],
                                  s["declarers"][a:b], 1, LONG, seed=3, start_index=500 + a, trace=True))
    for key, arr in whole.items():
        assert (np.concatenate([p[key] for p in pieces]) == arr).all(), key
    again = play_random(s["hands"], s["variants"], s["called_suits"], s["touts"], s["declarers"], 1, LONG,
                        seed=3, start_index=500)
    assert all((again[k] == whole[k]).all() for k in again)
    fused = simulate_random(3, 500, n, kind, LONG, tout_share=0.1)
    base = play_random(s["hands"], s["variants"], s["called_suits"], s["touts"], s["declarers"], 0, LONG,
                       seed=3, start_index=500)
    for key in ("hands", "variants", "called_suits", "touts", "declarers"):
        assert (fused[key] == s[key]).all(), key
    for key, arr in base.items():
        assert (fused[key] == arr).all(), key
    other = play_random(s["hands"], s["variants"], s["called_suits"], s["touts"], s["declarers"], 0, LONG,
                        seed=4, start_index=500)
    assert not (other["declarer_points"] == base["declarer_points"]).all()


def test_result_dtypes():
    s = random_setups(1, 0, 10, "solo")
    r = play_random(s["hands"], s["variants"], s["called_suits"], s["touts"], s["declarers"], 0, None, trace=True)
    want = dict(declarer_points=np.uint8, defender_points=np.uint8, declarer_tricks=np.uint8, partner=np.int8,
                laufende=np.uint8, laufende_mit=np.bool_, schneider=np.bool_, schwarz=np.bool_, won=np.bool_,
                price=np.int64, payouts=np.int32, trace_legal=np.uint32, trace_played=np.int8)
    assert {k: a.dtype for k, a in r.items()} == {k: np.dtype(d) for k, d in want.items()}
    assert r["payouts"].shape == (10, 4) and r["trace_legal"].shape == (10, 32)


def test_ceiling_runs():
    p = ceiling_play(1, 0, 20000)
    assert p.dtype == np.uint8 and (p <= 120).all() and 50 < p.mean() < 70


def test_play_random_rejects_impossible_rows():
    h = deal_batch(2, 0, 200)
    seat_with_ea = int(np.nonzero((h[0] >> 7) & 1)[0][0])
    with pytest.raises(ValueError, match="holds"):
        play_random(h[:1], 0, 0, False, seat_with_ea)
    with pytest.raises(ValueError, match="Tout"):
        play_random(h[:1], 0, 3, True, seat_with_ea)
    with pytest.raises(ValueError, match="called suit"):
        play_random(h[:1], 0, 2, False, seat_with_ea)
    with pytest.raises(ValueError, match="variants"):
        play_random(h[:1], 15, -1, False, 0)
    skipped = play_random(h[:2], 5, -1, False, [-1, 1])
    assert skipped["partner"][0] == -1 and skipped["price"][0] == 0 and skipped["price"][1] > 0
