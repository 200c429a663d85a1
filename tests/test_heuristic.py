"""The built-in heuristic strategy: decisions on hand-built positions, legality, and its quality in play."""

from __future__ import annotations

import importlib.util
import math
import sys
from pathlib import Path

import numpy as np
import pytest

from simkit.cards import parse_card
from simkit.rules.contracts import RUFSPIEL, SOLO, WENZ
from simkit.rules.ruleset import Ruleset
from simkit.rules.tables import build_tables
from simkit.strategies import heuristic as h
from simkit.strategies.api import (
    I_BIDS, I_DECLARER, I_DOUBLINGS, I_KIND, I_LEADER, I_N_IN_TRICK, I_PARTNER_SHOWN, I_PHASE, I_PLAYED,
    I_PLAYED_BY, I_SUIT, I_TRICK, I_VARIANT, INFO_SIZE, NOT_ASKED, PASS, PHASE_DOUBLE, PHASE_PLAY, bid_code,
    decode_bid,
)

REPO = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("duplicate_match", REPO / "scripts" / "duplicate_match.py")
dm = importlib.util.module_from_spec(_spec)
sys.modules["duplicate_match"] = dm
_spec.loader.exec_module(dm)

_tune_spec = importlib.util.spec_from_file_location("tune", REPO / "scripts" / "tune.py")
tune = importlib.util.module_from_spec(_tune_spec)
_tune_spec.loader.exec_module(tune)

T = build_tables(Ruleset())
CFG = h.DEFAULT_CONFIG


def mask(text: str) -> int:
    return sum(1 << parse_card(c) for c in text.split())


def bidding_info(bids=()):
    info = np.zeros(INFO_SIZE, np.int64)
    info[I_BIDS:I_BIDS + 4] = NOT_ASKED
    for s, b in enumerate(bids):
        info[I_BIDS + s] = b
    info[I_KIND] = info[I_SUIT] = info[I_DECLARER] = info[I_VARIANT] = info[I_PARTNER_SHOWN] = -1
    return info


def do_bid(hand, seat=1, bids=(), tables=T, config=CFG):
    code = h.bid(np.int64(mask(hand)), seat, bidding_info(bids), tables.strength, tables.eff_suit, tables.params,
                 config)
    return decode_bid(code)


def play_info(kind, suit, declarer, variant, trick=(), leader=0, played=(), played_by=None, partner=-1):
    info = bidding_info()
    info[I_PHASE] = PHASE_PLAY
    info[I_KIND], info[I_SUIT], info[I_DECLARER], info[I_VARIANT] = kind, suit, declarer, variant
    info[I_LEADER] = leader
    info[I_N_IN_TRICK] = len(trick)
    info[I_TRICK:I_TRICK + 4] = -1
    for k, c in enumerate(trick):
        info[I_TRICK + k] = parse_card(c)
        info[I_PLAYED] |= 1 << parse_card(c)
        info[I_PLAYED_BY + (leader + k) % 4] |= 1 << parse_card(c)
    for c in played:
        info[I_PLAYED] |= 1 << parse_card(c)
    for s, cards in (played_by or {}).items():
        info[I_PLAYED_BY + s] |= mask(cards)
    info[I_PARTNER_SHOWN] = partner
    return info


def do_play(hand, info, legal=None):
    hm = mask(hand)
    lm = hm if legal is None else mask(legal)
    c = h.play(np.int64(hm), np.int64(lm), int((info[I_LEADER] + info[I_N_IN_TRICK]) % 4), info, T.strength,
               T.eff_suit, T.params, CFG)
    assert lm >> c & 1
    return c


# --------------------------------------------------------------------------------------------- exports

def test_exports():
    assert len(h.CONFIG_NAMES) == len(h.DEFAULT_CONFIG) == len(set(h.CONFIG_NAMES))
    assert h.DEFAULT_CONFIG.dtype == np.float64
    assert isinstance(h.DESCRIPTION, str) and "\n" not in h.DESCRIPTION
    doc = (REPO / "docs" / "heuristic.md").read_text()
    for name in h.CONFIG_NAMES:  # every config entry is documented
        assert f"`{name}`" in doc
    for i, name in enumerate(h.CONFIG_NAMES):  # the kernel's index constants C_<NAME> point at their entries
        const = getattr(h, "C_" + name.upper(), None)
        assert const is None or const == i, name
        assert f"| {i} | `{name}` |" in doc  # the documented table keeps the same order


# --------------------------------------------------------------------------------------------- bidding

def test_four_ober_two_unter_bids_a_solo():
    kind, suit, tout = do_bid("EO GO HO SO EU GU SA E7")
    # Eichel: seven trumps and the standing Schellen Ass beat seven trumps and a lone E7. No Tout: six top trumps
    # cannot be sure to pull the opponents' seven
    assert kind == SOLO and suit == 0 and not tout
    kind, suit, tout = do_bid("EO GO HO SO EU GU S7 S8")
    assert kind == SOLO and suit == 3 and tout  # the six top trumps pull the six others: a Tout


def test_weak_hand_passes():
    assert do_bid("E7 E8 G9 GK S7 S9 HK SU") is None


def test_rufspiel_calls_the_shortest_callable_suit_never_an_own_ace():
    # 4 trumps and the Eichel ace (cannot call it); Gras two cards, Schellen one card -> calls Schellen
    kind, suit, _ = do_bid("EO HO GU HA EA G7 G8 S8")
    assert kind == RUFSPIEL and suit == 3
    kind, suit, _ = do_bid("EO HO GU HA H9 EA G7 G8")
    assert kind == RUFSPIEL and suit == 1
    # nothing callable: only aces / no side cards of E, G, S -> no Rufspiel
    assert do_bid("EO HO GU HA H9 EA GA SA") is None or do_bid("EO HO GU HA H9 EA GA SA")[0] != RUFSPIEL


def test_no_bid_below_an_earlier_declaration():
    hand = "EO HO GU HA H9 EA G7 S8"
    assert do_bid(hand, seat=1)[0] == RUFSPIEL
    assert do_bid(hand, seat=1, bids=(bid_code(RUFSPIEL, 0, False),)) is None  # equal rank: earlier seat wins
    assert do_bid(hand, seat=2, bids=(PASS, bid_code(WENZ, -1, False))) is None


def test_only_enabled_contracts_and_tout_when_allowed():
    only_ruf = build_tables(Ruleset(contracts=("rufspiel",)))
    assert do_bid("EO GO HO SO EU GU S7 S8", tables=only_ruf) is None or \
        do_bid("EO GO HO SO EU GU S7 S8", tables=only_ruf)[0] == RUFSPIEL
    monster = "EO GO HO SO EU GU HU SU"
    assert do_bid(monster)[2]  # a Tout
    no_tout = build_tables(Ruleset(tout=False))
    assert not do_bid(monster, tables=no_tout)[2]


def test_wenz_on_unters_and_aces():
    kind, _, _ = do_bid("EU GU HU EA EZ GA SA SZ")
    assert kind == WENZ


def test_no_long_deck_wenz_without_a_standing_side_card():
    def kind(hand, **kw):
        bid = do_bid(hand, **kw)
        return None if bid is None else bid[0]

    no_ace = "EU GU HU SU EK E9 GZ G9"  # four Unter score th_wenz alone; without an ace they lose 2 games in 3
    assert kind(no_ace) != WENZ
    old = CFG.copy()
    old[h.CONFIG_NAMES.index("wg_min_stand")] = 0
    assert kind(no_ace, config=old) == WENZ  # the rule, nothing else, keeps it from a Wenz
    assert kind("EU GU HU SU EA E9 GZ G9") == WENZ
    # short deck: four Unter among six cards win without an ace (wg_min_stand_short = 0, measured)
    assert kind("EU GU HU SU EK GZ", tables=build_tables(Ruleset(deck="short"))) == WENZ


def test_no_long_deck_farbsolo_on_five_trumps():
    hand = "EO GO HO HA HZ EA GA SA"  # Herz solo: 5 trumps, score 10.25 from forehand: over th_solo
    assert do_bid(hand, seat=0)[0] != SOLO
    five = CFG.copy()
    five[h.CONFIG_NAMES.index("solo_min_trumps")] = 5
    assert do_bid(hand, seat=0, config=five)[:2] == (SOLO, 2)
    assert do_bid("EO GO HO HA HZ H9 EA GA", seat=0)[:2] == (SOLO, 2)  # six trumps


def test_short_deck_thresholds_are_lowered_by_short_shift():
    short = build_tables(Ruleset(deck="short"))
    hand = "EO GU HA H9 EK G9"  # Rufspiel score 4 + 0.5 (Ober) + 0.25 (Unter) + 0.5 (EO) + 0.5 (Schellen void) = 5.75
    assert do_bid(hand, tables=short)[0] == RUFSPIEL  # th_rufspiel 6 less short_shift 0.75
    no_shift = CFG.copy()
    no_shift[h.CONFIG_NAMES.index("short_shift")] = 0
    assert do_bid(hand, tables=short, config=no_shift) is None
    # Kontra: a defender's score against a Rufspiel; 5.75 is below kontra_rufspiel (6.5) but not below 6.5 - 0.75
    info = play_info(RUFSPIEL, 3, 0, 0)
    info[I_PHASE] = PHASE_DOUBLE
    defender = mask("GO HU HA H9 EK SK")  # 4 + 0.5 + 0.25 + 0.5 (GO) + 0.5 (Gras void) = 5.75
    assert h.double(np.int64(defender), 1, info, short.strength, short.eff_suit, short.params, CFG) == 1
    assert h.double(np.int64(defender), 1, info, short.strength, short.eff_suit, short.params, no_shift) == 0


# --------------------------------------------------------------------------------------------- doubling

def test_kontra_on_strong_defender_hands_only():
    info = play_info(RUFSPIEL, 0, 0, 0)
    info[I_PHASE] = PHASE_DOUBLE
    strong = mask("EO GO HO EU HA HZ HK GA")
    weak = mask("E7 E8 G9 GK S7 S9 HK SU")
    args = (info, T.strength, T.eff_suit, T.params, CFG)
    assert h.double(np.int64(strong), 1, *args) == 1
    assert h.double(np.int64(weak), 1, *args) == 0
    info[I_DOUBLINGS] = 1  # Re is asked of the declaring side only
    assert h.double(np.int64(strong), 0, *args) == 1
    assert h.double(np.int64(weak), 0, *args) == 0


# --------------------------------------------------------------------------------------------- play

def test_declarer_pulls_trumps_with_the_top_trump():
    info = play_info(SOLO, 2, 0, 1 + 2)  # Herz solo by seat 0, seat 0 leads
    assert do_play("EO GO HU HA HZ H7 GA S7", info) == parse_card("EO")


def test_defender_searches_the_called_ace():
    info = play_info(RUFSPIEL, 1, 2, 0, leader=1)  # seat 2 calls the Gras ace; seat 1 (defender) leads
    assert do_play("SO HU H8 G7 GK E9 EK S9", info) == parse_card("G7")


def test_defender_schmiert_on_partners_sure_trick():
    # Herz solo by seat 0; seat 2 leads EA, seat 3 follows, the declarer follows with E8; seat 1 (a defender)
    # cannot follow Eichel and schmiert the Zehn on his partner's ace.
    info = play_info(SOLO, 2, 0, 1 + 2, trick=("EA", "E7", "E8"), leader=2)
    c = do_play("GZ G7 S9 SK HK", info)
    assert c == parse_card("GZ")


def test_rufspiel_partner_schmiert_on_declarers_winning_trick():
    # Rufspiel called Eichel by seat 0; seat 2 holds the Eichel ace (partner, he knows). Seat 0 led EO (the top
    # trump), seat 1 followed with H7; seat 2 has no trump left and schmiert (not the called ace: illegal before
    # the search, so the legal set excludes it)
    info = play_info(RUFSPIEL, 0, 0, 0, trick=("EO", "H7"), leader=0)
    c = do_play("EA GZ G7 S8 SK", info, legal="GZ G7 S8 SK")
    assert c == parse_card("GZ")


def test_no_points_to_the_opponents_when_losing():
    # Herz solo by seat 0; declarer leads HA, defender seat 1 can't beat with anything sensible? He holds only a
    # low trump and side cards: must follow trump with H7 (the only trump).
    info = play_info(SOLO, 2, 0, 3, trick=("EO",), leader=0)
    assert do_play("H7 GA GZ SK", info, legal="H7") == parse_card("H7")
    # void in trump: throws the cheapest card, not the ace or the ten
    assert do_play("GA GZ SK S7", info) == parse_card("S7")


def test_takes_a_rich_trick_cheaply_when_last():
    # Rufspiel called Gras by seat 1; seat 0 leads SA, seat 1 SZ?? -> last seat 3 is void in Schellen
    info = play_info(RUFSPIEL, 1, 1, 0, trick=("SA", "SZ", "SK"), leader=0)
    c = do_play("HO H7 G9 E8", info)
    assert c == parse_card("H7")  # the lowest trump takes 25 points


def test_keeps_a_high_trump_off_an_empty_trick():
    info = play_info(RUFSPIEL, 1, 1, 0, trick=("S7", "S8"), leader=0)  # seat 2 is to play, seat 3 after him
    c = do_play("EO GO E8 E9", info)
    assert c in (parse_card("E8"), parse_card("E9"))


# --------------------------------------------------------------------------------------------- legality

@pytest.mark.parametrize("rules", [
    Ruleset(),
    Ruleset(deck="short"),
    Ruleset(contracts=("rufspiel", "solo", "wenz", "geier", "farbwenz", "farbgeier")),
    Ruleset(max_doublings=2, re_by_partner=False, tout=False),
], ids=["long", "short", "all-contracts", "no-tout"])
def test_only_legal_bids_and_cards_over_many_deals(rules):
    """The referee checks every declaration (Game() rejects an impossible call) and every card."""
    t = build_tables(rules)
    rng = np.random.default_rng(11)
    hs = dm.HeuristicSeat()
    rs = dm.RandomSeat(rng, rules, p_bid=0.3)
    kinds = set()
    for i in range(150):
        hands = dm.deal_hands(rng, rules)
        seats = [hs, hs, hs, hs] if i % 2 else [hs, rs, hs, rs]
        d = dm.play_deal_referee(rules, t, hands, seats)
        kinds.add(d.kind)
        assert sum(d.payouts) == 0
    assert RUFSPIEL in kinds


def test_random_positions_return_legal_cards():
    """Random hands, contracts and partial tricks: play() returns a card of ``legal`` every time."""
    rng = np.random.default_rng(5)
    for _ in range(3000):
        perm = rng.permutation(32)
        v = int(rng.integers(15))
        kind = int(h.VARIANT_KIND_OF[v]) if hasattr(h, "VARIANT_KIND_OF") else [0, 1, 1, 1, 1, 2, 3, 4, 4, 4, 4, 5,
                                                                               5, 5, 5][v]
        suit = [0, 0, 1, 2, 3, -1, -1, 0, 1, 2, 3, 0, 1, 2, 3][v]
        if kind == 0:
            suit = int(rng.choice([0, 1, 3]))
        n_hand = int(rng.integers(1, 9))
        n_trick = int(rng.integers(0, 4))
        hand = sum(1 << int(c) for c in perm[:n_hand])
        trick = [int(c) for c in perm[n_hand:n_hand + n_trick]]
        played = sum(1 << int(c) for c in perm[n_hand:n_hand + n_trick + int(rng.integers(0, 12))])
        k = int(rng.integers(1, n_hand + 1))
        legal = sum(1 << int(c) for c in perm[:k])
        info = play_info(kind, suit, int(rng.integers(4)), v, leader=int(rng.integers(4)))
        info[I_N_IN_TRICK] = n_trick
        for j, c in enumerate(trick):
            info[I_TRICK + j] = c
        info[I_PLAYED] = played
        seat = int((info[I_LEADER] + n_trick) % 4)
        c = h.play(np.int64(hand), np.int64(legal), seat, info, T.strength, T.eff_suit, T.params, CFG)
        assert legal >> c & 1


# --------------------------------------------------------------------------------------------- quality

def _duplicate(n, seed):
    if dm.kernel_available():
        return dm.kernel_duplicate(n, seed)
    return dm.referee_duplicate(n, seed)


def _all_heuristic(n, seed):
    if dm.kernel_available():
        return dm.kernel_all_heuristic(n, seed)
    return dm.referee_all_heuristic(n, seed)


def test_heuristic_beats_random_in_a_duplicate_match():
    n = 20000 if dm.kernel_available() else 300
    x = _duplicate(n, 123) / 2
    m, lo, hi = dm.mean_ci(x)
    assert lo > 0, (m, lo, hi)


def test_realistic_contracts_under_heuristic_play():
    n = 40000 if dm.kernel_available() else 1500
    kinds, won = _all_heuristic(n, 99)
    st = dm.contract_stats(kinds, won)
    assert st["passed_share"] < 0.5
    assert 0.6 <= st["declarer_win_share"] <= 0.85, st
    shares = {k: v["share"] for k, v in st["contracts"].items()}
    assert max(shares, key=shares.get) == "rufspiel"
    assert not math.isnan(st["declarer_win_share"])


def test_tune_ab_is_zero_for_equal_sides_and_sees_a_change():
    short = Ruleset(deck="short")
    same = tune.ab("bid_margin_short", 0.1, 0.1, 2_000, short)
    assert same["b_minus_a_per_deal"] == 0 and same["differ"] == 0
    changed = tune.ab("bid_margin_short", 0.1, 0.5, 4_000, short)
    assert changed["differ"] > 0.2  # 0.5 throws in about a quarter more of the short-deck deals
    with pytest.raises(SystemExit, match="unknown config entry"):
        tune.ab("no_such_entry", 0, 1, 10)


# ------------------------------------------------------------------------------------------- club rules

from simkit.cards import format_card  # noqa: E402
from simkit.rules.contracts import BETTEL, RAMSCH, SIE, Contract  # noqa: E402
from simkit.rules.ruleset import load_ruleset  # noqa: E402
from simkit.rules.tables import P_ENABLED, P_STICHZWANG, V_BETTEL, V_RUFSPIEL, V_SOLO  # noqa: E402
from simkit.strategies.api import (  # noqa: E402
    I_HISTORY_CARDS, I_HISTORY_LEADER, I_KNOCKED, I_TRICK_NO, I_TRICKS_WON, PHASE_KLOPFEN,
)

CLUB = build_tables(load_ruleset("club"))
CLUB_SHORT = build_tables(load_ruleset("club-short"))


def _with_sie(tables):
    params = tables.params.copy()
    params[P_ENABLED] |= 1 << SIE
    return tables._replace(params=params)


def test_private_constants_match_the_rule_tables():
    from simkit.rules import tables as rt
    assert (h._BETTEL, h._SIE, h._RAMSCH, h._BETTEL_VARIANT) == (BETTEL, SIE, RAMSCH, rt.V_BETTEL)
    assert (h._P_DECK_MASK, h._P_ENABLED, h._P_TOUT_ALLOWED, h._P_STICHZWANG) == (
        rt.P_DECK_MASK, rt.P_ENABLED, rt.P_TOUT_ALLOWED, rt.P_STICHZWANG)
    assert h._N_VARIANTS == rt.N_VARIANTS


def test_bid_rank_follows_bid_order():
    """The heuristic's rank of every declarable bid orders them as simkit.rules.contracts does."""
    codes = [(Contract(k, 0 if k in (0, 1, 4, 5) else None, tout), bid_code(k, 0 if k in (0, 1, 4, 5) else -1, tout))
             for k in range(6) for tout in ((False,) if k == 0 else (False, True))]
    codes += [(Contract(BETTEL, None), bid_code(BETTEL, -1, False)), (Contract(SIE, None), bid_code(SIE, -1, False))]
    for a, ca in codes:
        for b, cb in codes:
            assert (a.bid_rank < b.bid_rank) == (h._bid_rank(ca) < h._bid_rank(cb)), (a, b)


def test_trump_masks_of_the_club_kinds():
    deck = (1 << 32) - 1
    assert h._trump_mask(BETTEL, -1, deck) == 0
    assert h._trump_mask(SIE, -1, deck) == h._trump_mask(1, 2, deck)  # the Herz solo
    assert h._trump_mask(RAMSCH, -1, deck) == h._trump_mask(0, 0, deck)  # the Rufspiel's
    for kind, v in ((BETTEL, V_BETTEL), (SIE, V_SOLO + 2), (RAMSCH, V_RUFSPIEL)):
        tm = h._trump_mask(kind, -1, deck)
        assert tm == sum(1 << c for c in range(32) if CLUB.eff_suit[v, c] == 4)


def test_a_sie_hand_declares_sie_when_enabled():
    sie = "EO GO HO SO EU GU HU SU"
    assert do_bid(sie, seat=2, bids=(PASS, bid_code(1, 0, True)), tables=_with_sie(CLUB)) == (SIE, -1, False)
    assert do_bid(sie, seat=0, tables=CLUB)[0] != SIE  # not enabled in `club`
    assert do_bid("EO GO HO SO EU GU", tables=_with_sie(CLUB_SHORT)) == (SIE, -1, False)
    assert do_bid("EO GO HO SO EU HU", tables=_with_sie(CLUB_SHORT))[0] != SIE  # HU instead of GU: no Sie


SAFE_BETTEL = "E7 E8 G7 G9 GU H7 S7 S8"   # danger 0: every card has as many own cards under it as opponent cards
DANGEROUS_BETTEL = "EA EK G8 GZ H9 HO S7 SK"


def test_bettel_danger_counts_the_opponent_cards_under_each_card():
    deck = np.int64((1 << 32) - 1)
    assert h.bettel_danger(np.int64(mask(SAFE_BETTEL)), deck, CLUB.strength) == 0
    assert h.bettel_danger(np.int64(mask("E8")), deck, CLUB.strength) == 1  # the 7 is out
    assert h.bettel_danger(np.int64(mask("E7 EZ")), deck, CLUB.strength) == 1  # Bettel order 7 8 9 Z: 8, 9 out
    assert h.bettel_danger(np.int64(mask("E7 E8 E9 EZ")), deck, CLUB.strength) == 0
    assert h.bettel_danger(np.int64(mask(DANGEROUS_BETTEL)), deck, CLUB.strength) > 10


def test_bettel_danger_equals_its_definition_on_random_hands():
    """The suit-at-a-time bettel_danger against its definition card by card (plain Python), long and short deck."""
    from simkit.cards import DECK_MASKS

    rng = np.random.default_rng(36)
    for tables, deck_name, size in ((CLUB, "long", 8), (CLUB_SHORT, "short", 6)):
        deck = DECK_MASKS[deck_name]
        cards = [c for c in range(32) if deck >> c & 1]
        rank = tables.strength[15]  # Bettel: no trumps, A K O U Z 9 8 7 in each suit
        for _ in range(3000):
            hand = sum(1 << int(c) for c in rng.choice(cards, size, replace=False))
            want = 0
            for c in (c for c in cards if hand >> c & 1):
                under = [x for x in cards if x >> 3 == c >> 3 and rank[x] < rank[c]]
                opp = sum(1 for x in under if not hand >> x & 1)
                want += max(0, opp - (len(under) - opp))
            assert h.bettel_danger(np.int64(hand), np.int64(deck), tables.strength) == want, hex(hand)


def test_a_safe_hand_declares_bettel_a_dangerous_one_does_not():
    assert do_bid(SAFE_BETTEL, tables=CLUB) == (BETTEL, -1, False)
    assert do_bid(SAFE_BETTEL, bids=(bid_code(0, 0, False),), tables=CLUB) == (BETTEL, -1, False)  # over a Rufspiel
    assert do_bid(SAFE_BETTEL, bids=(bid_code(BETTEL, -1, False),), tables=CLUB) is None  # an earlier Bettel wins
    assert do_bid(DANGEROUS_BETTEL, tables=CLUB) is None
    assert do_bid(SAFE_BETTEL, tables=T) is None  # Bettel not enabled: the classic bid (a pass)
    # a hand the heuristic declares a solo-type contract with declares it, not a Bettel, however eager for Bettel
    eager = CFG.copy()
    eager[h.C_BETTEL_MAX_DANGER] = 99
    assert do_bid("EO GO HO SO EU GU HA HZ", tables=CLUB, config=eager)[0] == 1
    assert do_bid("E7 G8 S9 EK H7 G9 S8 E8", tables=CLUB, config=eager) == (BETTEL, -1, False)
    # with Stichzwang the limit is lower
    params = CLUB.params.copy()
    params[P_STICHZWANG] = 1
    four = "E7 E8 E9 EK GU H7 S7 S8"  # danger 4: the Gras Unter alone
    assert h.bettel_danger(np.int64(mask(four)), np.int64((1 << 32) - 1), CLUB.strength) == 4
    assert do_bid(four, tables=CLUB) == (BETTEL, -1, False)
    assert do_bid(four, tables=CLUB._replace(params=params)) is None


def _club_play(hand, info, tables=CLUB, legal=None):
    hm = mask(hand)
    lm = hm if legal is None else mask(legal)
    c = h.play(np.int64(hm), np.int64(lm), int((info[I_LEADER] + info[I_N_IN_TRICK]) % 4), info, tables.strength,
               tables.eff_suit, tables.params, CFG)
    assert lm >> c & 1
    return format_card(c)


def test_bettel_declarer_ducks_under_the_trick_and_discards_danger():
    # seat 1 declares; seat 0 led EK: the highest card under it (A K O U Z 9 8 7: the Ober), not the 7
    info = play_info(BETTEL, -1, 1, V_BETTEL, trick=("EK",), leader=0)
    assert _club_play("EA EO E7 G7", info, legal="EA EO E7") == "EO"
    # only cards over it: the lowest (a later player may go higher)
    info = play_info(BETTEL, -1, 1, V_BETTEL, trick=("E8",), leader=0)
    assert _club_play("EA E9 G7", info, legal="EA E9") == "E9"
    # void in the led suit: away with the most dangerous card (GA: six cards of Gras under it are out)
    info = play_info(BETTEL, -1, 1, V_BETTEL, trick=("E8",), leader=0)
    assert _club_play("GA G7 S7 S8", info) == "GA"
    # leading (forehand): the lowest card of the suit with the most cards out over it
    info = play_info(BETTEL, -1, 0, V_BETTEL)
    assert _club_play("E7 E8 E9 EU G8", info) in ("G8",)


def test_bettel_defenders_keep_the_trick_low_and_never_overtake_him():
    # the declarer (seat 3) plays after me: keep the trick's best card low, away with a high card under it
    info = play_info(BETTEL, -1, 3, V_BETTEL, trick=("EO",), leader=1)
    assert _club_play("EA EK EU E7", info, legal="EA EK EU E7") == "EU"
    # the declarer took the lead with E9 (under my cards? no: I hold E8): stay under him
    info = play_info(BETTEL, -1, 1, V_BETTEL, trick=("E7", "E9"), leader=0)
    assert _club_play("EA E8 G7", info, legal="EA E8") == "E8"
    # leading: a low card of a suit he may still hold; not of a suit he showed void in
    info = play_info(BETTEL, -1, 1, V_BETTEL, leader=0)
    info[I_TRICK_NO] = 1
    info[I_HISTORY_LEADER] = 0
    info[I_HISTORY_CARDS:I_HISTORY_CARDS + 4] = [parse_card(c) for c in ("S9", "G9", "SA", "SK")]
    info[I_PLAYED] = mask("S9 G9 SA SK")
    assert _club_play("S7 E8 EA", info) == "E8"


def test_ramsch_throws_points_on_another_players_trick():
    # seat 0 led EA (it wins): I (seat 1) follow with my Zehn, not the 7
    info = play_info(RAMSCH, -1, -1, V_RUFSPIEL, trick=("EA",), leader=0)
    assert _club_play("EZ E7 GA", info, legal="EZ E7") == "EZ"
    # void: the dearest card, a side ace before a low trump
    info = play_info(RAMSCH, -1, -1, V_RUFSPIEL, trick=("E9", "EK"), leader=0)
    assert _club_play("GA H7 S8", info) == "GA"
    # last and must take it: the fewest points
    info = play_info(RAMSCH, -1, -1, V_RUFSPIEL, trick=("SU", "H7", "H8"), leader=1)
    assert _club_play("EO HU", info) == "HU"
    # a trump under the best one is thrown too (the Ass, 11 points, on the Ober's trick)
    info = play_info(RAMSCH, -1, -1, V_RUFSPIEL, trick=("HO", "H7", "H8"), leader=1)
    assert _club_play("EO HA", info) == "HA"
    # leading: a low card others can beat, not a sure winner
    info = play_info(RAMSCH, -1, -1, V_RUFSPIEL, leader=2)
    assert _club_play("EO GA G7 S9", info) in ("G7", "S9")


def test_ramsch_stops_a_durchmarsch():
    # seat 0 has taken the first three tricks and leads GA: I take it with my trump, though it costs points
    info = play_info(RAMSCH, -1, -1, V_RUFSPIEL, trick=("GA", "G7", "G8"), leader=0)
    info[I_TRICK_NO] = 3
    info[I_TRICKS_WON] = 3
    assert _club_play("EU S7 SZ", info) == "EU"
    # without a runner I throw the Zehn instead
    info[I_TRICKS_WON], info[I_TRICKS_WON + 2] = 2, 1
    assert _club_play("EU S7 SZ", info) == "SZ"


def _knock(cards, seat=1, tables=CLUB, knocked=0, config=CFG):
    info = bidding_info()
    info[I_PHASE] = PHASE_KLOPFEN
    info[I_KNOCKED] = knocked
    return h.klopfen(np.int64(mask(cards)), seat, info, tables.strength, tables.eff_suit, tables.params, config)


def test_klopfen_on_a_strong_part_hand_only():
    assert _knock("EO GO HU EA") == 1
    assert _knock("E7 G8 S9 EK") == 0
    assert _knock("H7 H8 G9 SK") == 0
    assert _knock("EO GU EA", tables=CLUB_SHORT) == 1
    assert _knock("E9 GK SA", tables=CLUB_SHORT) == 0


def test_earlier_knocks_raise_the_klopfen_threshold():
    """The threshold rises by th_klopfen_raise(_short) per earlier knock (the fit finds 0 at its margin of one
    base price, docs/heuristic.md; here a raise of 0.3 in each deck). Short deck: EO GU H9 scores
    0.90 + 0.76 + 0.19 = 1.85 (shipped weights)."""
    cfg = CFG.copy()
    cfg[h.C_TH_KLOPFEN_SHORT], cfg[h.C_TH_KLOPFEN_RAISE_SHORT] = 1.8, 0.3
    cfg[h.C_TH_KLOPFEN], cfg[h.C_TH_KLOPFEN_RAISE] = 2.0, 0.3
    d = h.DEFAULT_CONFIG
    assert 1.8 <= 3 * d[h.C_K_TRUMP] + d[h.C_K_OBER] + d[h.C_K_UNTER] < 2.1
    assert _knock("EO GU H9", seat=2, tables=CLUB_SHORT, config=cfg) == 1
    assert _knock("EO GU H9", seat=2, tables=CLUB_SHORT, knocked=0b01, config=cfg) == 0
    assert _knock("EO GU H9", seat=2, tables=CLUB_SHORT, knocked=0b10, config=cfg) == 0
    strong = "EO GO HU"  # 3 x 0.19 + 2 x 0.71 + 0.57 = 2.56: over the threshold after one knock, not after three
    assert _knock(strong, seat=3, tables=CLUB_SHORT, knocked=0b001, config=cfg) == 1
    assert _knock(strong, seat=3, tables=CLUB_SHORT, knocked=0b111, config=cfg) == 0
    # the long deck reads its own pair: EO GO HU EA scores 3.13, under 2.0 + 4 x 0.3 only
    assert _knock("EO GO HU EA", seat=3, knocked=0b111, config=cfg) == 1
    cfg[h.C_TH_KLOPFEN_RAISE] = 0.4
    assert _knock("EO GO HU EA", seat=3, knocked=0b111, config=cfg) == 0
    assert _knock("EO GO HU EA", seat=3, knocked=0b111, tables=CLUB) == 1  # shipped: no raise


def test_the_klopfen_fit_replays_the_kernels_knocks():
    """scripts/club_heuristic.py klopfen fits on the knocks it replays from the cards each seat saw: its draw of
    those cards and its knocking rule must be the kernel's and heuristic._klopfen's (else the fit is of another
    policy). 20,000 club deals of each deck, every knock the same."""
    spec = importlib.util.spec_from_file_location("club_heuristic", REPO / "scripts" / "club_heuristic.py")
    ch = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(ch)
    from simkit.engine import game
    from simkit.engine.game import play_games
    from simkit.rules.tables import build_tables

    cfg = h.DEFAULT_CONFIG
    w = np.array([cfg[getattr(h, "C_" + nm.upper())] for nm in ch.K_NAMES])
    for name, th_at, up_at in (("club", h.C_TH_KLOPFEN, h.C_TH_KLOPFEN_RAISE),
                               ("club-short", h.C_TH_KLOPFEN_SHORT, h.C_TH_KLOPFEN_RAISE_SHORT)):
        rules = load_ruleset(name)
        t = build_tables(rules)
        rows = play_games(3, 0, 20_000, rules)
        seen = ch._kernel_seen(3, rows["hands"], t.hand_size, rules.knock_cards, game._SUBSETS, game._N_SUBSETS)
        k, before = ch._knocks(ch._features(seen.astype(np.uint32), t.params[11]) @ w, cfg[th_at], cfg[up_at])
        np.testing.assert_array_equal((k * (1 << np.arange(4))).sum(1), rows["knocked"])
        assert k.any() and (before > 0).any()
    # and with a raise (the rule the kernel plays with a config of the caller's)
    cfg = cfg.copy()
    cfg[h.C_TH_KLOPFEN], cfg[h.C_TH_KLOPFEN_RAISE] = 1.8, 0.4
    rules = load_ruleset("club")
    t = build_tables(rules)
    from simkit.strategies import resolve

    rows = play_games(3, 0, 20_000, rules, seats=(resolve("heuristic").with_config(cfg),) * 4)
    seen = ch._kernel_seen(3, rows["hands"], t.hand_size, rules.knock_cards, game._SUBSETS, game._N_SUBSETS)
    k, before = ch._knocks(ch._features(seen.astype(np.uint32), t.params[11]) @ w, 1.8, 0.4)
    np.testing.assert_array_equal((k * (1 << np.arange(4))).sum(1), rows["knocked"])
    assert (before[k] > 0).any()


def test_no_kontra_in_the_club_contracts_and_re_in_a_sie():
    for kind, v in ((BETTEL, V_BETTEL), (SIE, V_SOLO + 2), (RAMSCH, V_RUFSPIEL)):
        info = play_info(kind, -1, 0 if kind != RAMSCH else -1, v)
        info[I_PHASE] = PHASE_DOUBLE
        for cards in ("EO GO HO SO EU GU EA GA", "E7 E8 G7 G8 S7 S8 H7 H8"):
            assert h.double(np.int64(mask(cards)), 1, info, CLUB.strength, CLUB.eff_suit, CLUB.params, CFG) == 0
    info = play_info(SIE, -1, 0, V_SOLO + 2)
    info[I_DOUBLINGS] = 1
    assert h.double(np.int64(mask("EO GO HO SO EU GU HU SU")), 0, info, CLUB.strength, CLUB.eff_suit, CLUB.params,
                    CFG) == 1


def test_classic_bids_unchanged_by_the_club_entries():
    """The club entries change no classic decision: under `sauspiel` random hands bid as under a config whose
    club entries would declare and knock everything."""
    eager = CFG.copy()
    eager[h.C_BETTEL_MAX_DANGER] = eager[h.C_BETTEL_MAX_DANGER_SHORT] = 99
    rng = np.random.default_rng(36)
    for _ in range(300):
        hand = sum(1 << int(c) for c in rng.permutation(32)[:8])
        for seat in range(4):
            a = h.bid(np.int64(hand), seat, bidding_info(), T.strength, T.eff_suit, T.params, CFG)
            b = h.bid(np.int64(hand), seat, bidding_info(), T.strength, T.eff_suit, T.params, eager)
            assert a == b
            assert decode_bid(a) is None or decode_bid(a)[0] in range(6)


@pytest.mark.parametrize("kind,variant", [(BETTEL, V_BETTEL), (SIE, V_SOLO + 2), (RAMSCH, V_RUFSPIEL)])
@pytest.mark.parametrize("tables", [CLUB, CLUB_SHORT], ids=["long", "short"])
def test_random_club_positions_return_legal_cards(kind, variant, tables):
    rng = np.random.default_rng(kind)
    cards = [c for c in range(32) if (tables.deck_mask >> c) & 1]
    for _ in range(1500):
        perm = rng.permutation(cards)
        n_hand = int(rng.integers(1, tables.hand_size + 1))
        n_trick = int(rng.integers(0, 4))
        hand = sum(1 << int(c) for c in perm[:n_hand])
        trick = [int(c) for c in perm[n_hand:n_hand + n_trick]]
        k = int(rng.integers(1, n_hand + 1))
        legal = sum(1 << int(c) for c in perm[:k])
        info = play_info(kind, -1, -1 if kind == RAMSCH else int(rng.integers(4)), variant,
                         leader=int(rng.integers(4)))
        info[I_N_IN_TRICK] = n_trick
        for j, c in enumerate(trick):
            info[I_TRICK + j] = c
        info[I_PLAYED] = sum(1 << int(c) for c in perm[n_hand:n_hand + n_trick + int(rng.integers(0, 8))])
        info[I_TRICK_NO] = int(rng.integers(0, 4))
        info[I_TRICKS_WON + int(rng.integers(4))] = info[I_TRICK_NO]
        seat = int((info[I_LEADER] + n_trick) % 4)
        c = h.play(np.int64(hand), np.int64(legal), seat, info, tables.strength, tables.eff_suit, tables.params, CFG)
        assert legal >> c & 1
