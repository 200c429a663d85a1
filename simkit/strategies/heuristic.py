"""The built-in ``heuristic`` strategy: what a sound club player does, written down as plain rules.

Bidding scores the hand for every enabled contract (trumps, Ober/Unter, the top trumps, standing side cards, free
suits, forehand) and declares the highest-ranking contract whose score reaches its threshold, unless an earlier seat
already declared something at least as high. The Rufspiel calls the callable suit in which the hand is shortest.
In play the declaring side pulls trumps, the defenders search the called ace, everybody schmiert on a trick his
known partner surely wins, high trumps are spent only on tricks worth it, and the cheapest card goes when a trick
is lost. Kontra and Re on strong hands. Every number is in the config table (``CONFIG_NAMES``/``DEFAULT_CONFIG``);
docs/heuristic.md explains each rule and entry.

Only popcounts, bit scans and table lookups (the strongest card of a suit is a bit scan: side suits rank like
their bits, Ober and Unter by suit); loops run at most over the legal cards; nothing is allocated, so the entry
points are compiled without numba's reference counting (``_nrt=False``: no atomic incref/decref of the array
arguments on every call, which cost about a third of a heuristic deal).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from numba import carray, njit, types
from numba.extending import intrinsic

from simkit.engine.bits import cttz, msb as _msb, popcount
from simkit.engine.jitcache import jit, source_stamp, stamp_module
from simkit.strategies.api import (
    BID_SIG, DOUBLE_SIG, I_BIDS, I_DECLARER, I_DOUBLINGS, I_HISTORY_CARDS, I_HISTORY_LEADER, I_KIND, I_LEADER,
    I_KNOCKED, I_N_IN_TRICK, I_PARTNER_SHOWN, I_PLAYED, I_PLAYED_BY, I_SEARCHED, I_SUIT, I_TRICK, I_TRICK_NO,
    I_TRICKS_WON, I_VARIANT, INFO_SIZE, PASS, PLAY_SIG, bid_code, bid_kind, bid_suit, sie_mask,
)

_HERE = Path(__file__).resolve().parent
#: the cache stamp of every kernel here: this file and what its kernels inline
DEPENDENCIES = [_HERE / "heuristic.py", _HERE / "api.py", _HERE.parent / "engine" / "bits.py",
                _HERE.parent / "engine" / "jitcache.py"]
_STAMP = source_stamp(DEPENDENCIES)
# The larger helpers are compiled once each and inlined by LLVM (simkit.engine.jitcache.jit); numba's IR inlining
# of all of them made the game kernel's cold compile 56 s instead of 24 s (CPU, 2026-12-04). The bidding score
# (_hand_score, _kind_score, _sure_tout, _call_suit) stays IR-inlined: as LLVM-inlined functions the heuristic's
# deals were about 5% slower (interleaved runs), IR-inlined they are as fast as before for +3 s of compile.
_helper = jit(_STAMP, helper=True, _nrt=False)
# The play of the club contracts is compiled as functions of their own, not forced inline into the classic play:
# a classic deal keeps the code it had (sauspiel deals per second unchanged within the noise, 2026-12-04)
_club = jit(_STAMP, _nrt=False)


def _kernel(sig):
    return jit(_STAMP, sig, what="the heuristic")


USES_SCRATCH = False  # the kernel need not keep info[I_SCRATCH:] for its seats
DESCRIPTION = ("rule-based club player: bids, Kontras and Res by the expected payout of its hand under the ruleset's "
               "tariff, pulls trumps, searches the called ace, schmiert, saves high trumps")

# ------------------------------------------------------------------------------------------ config table
#: (name, default, meaning); docs/heuristic.md repeats this table. Scores are in "trump units".
_CONFIG = (
    ("w_trump", 1.0, "score per trump (Rufspiel, solo, Farbwenz, Farbgeier)"),
    ("w_ober", 0.5, "extra score per Ober among the trumps"),
    ("w_unter", 0.25, "extra score per Unter among the trumps"),
    ("w_top", 0.5, "extra score for each of the two highest trumps of the contract"),
    ("w_stand", 0.75, "score per standing side card (ace, ace+ten, ... from the top of a side suit)"),
    ("w_void", 0.5, "score per free side suit (void), only with at least 2 trumps"),
    ("w_forehand", 0.5, "bonus for seat 0 (forehand, leads the first trick) in solo-type contracts"),
    ("w_wg_trump", 1.5, "score per trump in Wenz and Geier (replaces w_trump: only 4 trumps exist)"),
    ("th_rufspiel", 6.0, "minimum score to declare a Rufspiel"),
    ("th_solo", 10.0, "minimum score to declare a Farbsolo"),
    ("th_wenz", 7.0, "minimum score to declare a Wenz"),
    ("th_geier", 7.0, "minimum score to declare a Geier"),
    ("th_farbwenz", 9.5, "minimum score to declare a Farbwenz"),
    ("th_farbgeier", 9.5, "minimum score to declare a Farbgeier"),
    ("tout_slack", 0.0, "Tout when every side card stands and the unbroken top trumps are at least the "
                        "opponents' trumps minus this"),
    ("kontra_rufspiel", 6.5, "a defender's own score (in the Rufspiel's trumps) to say Kontra"),
    ("kontra_solo", 7.5, "a defender's own score (in the solo's trumps) to say Kontra against a solo-type game"),
    ("re_margin", 1.5, "the declarer says Re when his score exceeds the contract's threshold by this"),
    ("take_min_points", 10.0, "trick points that make it worth spending a high trump (or an unsafe ruff)"),
    ("high_trumps", 4.0, "how many of the top trumps count as high (Wenz/Geier: at most 2)"),
    ("wg_min_stand", 1.0, "long deck: a Wenz or Geier needs at least this many standing side cards (with four "
                          "trumps and no ace it loses two games in three)"),
    ("wg_min_stand_short", 0.0, "the same in the short deck (there four trumps are two thirds of the hand)"),
    ("solo_min_trumps", 6.0, "long deck: a Farbsolo needs at least this many trumps"),
    ("solo_min_trumps_short", 5.0, "the same in the short deck"),
    ("short_shift", 0.75, "short deck: subtracted from every score threshold (declaring, Kontra, Re): six cards "
                         "score less than eight"),
    ("bidding", 1.0, "0: declare by the score thresholds above; 1: by value, the expected payout under the "
                     "ruleset's tariff learned for each score (simkit.strategies.values)"),
    ("doubling", 1.0, "0: Kontra and Re by the score thresholds above; 1: by value, as ``bidding``"),
    ("bid_margin", 0.2, "long deck, bidding by value: declare the contract of the highest expected payout when that "
                        "is at least this share of its stake (base price x the seats that pay it)"),
    ("bid_margin_short", 0.1, "the same in the short deck"),
    ("kontra_margin", 0.0, "bidding by value: Kontra when the defender's expected payout is at least this many "
                           "Rufspiel base prices"),
    ("re_value", 1.0, "bidding by value: Re when the declarer's expected payout is at least this many Rufspiel "
                      "base prices"),
    # the club rules (RULES.md 4; docs/heuristic.md "Club rules"): weights fitted by scripts/club_heuristic.py
    ("k_trump", 0.19, "Klopfen score per trump (Rufspiel order) among the cards seen"),
    ("k_ober", 0.71, "Klopfen: extra score per Ober among the cards seen"),
    ("k_unter", 0.57, "Klopfen: extra score per Unter among the cards seen"),
    ("k_ace", 0.57, "Klopfen: score per side ace among the cards seen"),
    ("k_forehand", 0.02, "Klopfen: score of sitting at seat 0"),
    ("th_klopfen", 2.09, "long deck: knock when the Klopfen score of the cards seen reaches this (plus the raise "
                         "per earlier knock; best responses on club self-play, docs/heuristic.md)"),
    ("th_klopfen_short", 2.09, "the same in the short deck"),
    ("th_klopfen_raise", 0.0, "long deck: the Klopfen threshold rises by this for every earlier knock (a knock "
                              "before mine hints at a strong hand elsewhere and doubles my stake too)"),
    ("th_klopfen_raise_short", 0.0, "the same in the short deck"),
    ("bettel_max_danger", 4.0, "long deck: declare Bettel when the hand's danger (heuristic.bettel_danger: the "
                               "opponents' cards under each own card beyond the own cards under it, summed) is at "
                               "most this (the heuristic then wins 4 Bettels in 5 against itself)"),
    ("bettel_max_danger_short", 3.0, "the same in the short deck"),
    ("bettel_stichzwang", 2.0, "with Stichzwang (a player following suit must beat): subtracted from the maximum "
                               "danger"),
)
CONFIG_NAMES = tuple(c[0] for c in _CONFIG)
DEFAULT_CONFIG = np.array([c[1] for c in _CONFIG], dtype=np.float64)
CONFIG_DOC = {c[0]: c[2] for c in _CONFIG}
_N_CONFIG = len(_CONFIG)

C_W_TRUMP, C_W_OBER, C_W_UNTER, C_W_TOP, C_W_STAND, C_W_VOID, C_W_FOREHAND, C_W_WG_TRUMP = range(8)
C_TH_RUFSPIEL = 8  # + kind: thresholds of the 6 kinds in kind order (rufspiel, solo, wenz, geier, farbwenz, fgeier)
C_TOUT_SLACK, C_KONTRA_RUFSPIEL, C_KONTRA_SOLO, C_RE_MARGIN, C_TAKE_MIN_POINTS, C_HIGH_TRUMPS = range(14, 20)
C_WG_MIN_STAND, C_WG_MIN_STAND_SHORT, C_SOLO_MIN_TRUMPS, C_SOLO_MIN_TRUMPS_SHORT, C_SHORT_SHIFT = range(20, 25)
C_BIDDING, C_DOUBLING, C_BID_MARGIN, C_BID_MARGIN_SHORT, C_KONTRA_MARGIN, C_RE_VALUE = range(25, 31)
C_K_TRUMP, C_K_OBER, C_K_UNTER, C_K_ACE, C_K_FOREHAND, C_TH_KLOPFEN, C_TH_KLOPFEN_SHORT = range(31, 38)
C_TH_KLOPFEN_RAISE, C_TH_KLOPFEN_RAISE_SHORT = 38, 39
C_BETTEL_MAX_DANGER, C_BETTEL_MAX_DANGER_SHORT, C_BETTEL_STICHZWANG = range(40, 43)
assert _N_CONFIG <= 96  # the named entries stay in front of the value table (VALUES_AT)

# The value table (bidding by value) sits behind the named entries, from VALUES_AT on (room is left for the
# entries of strategies built on this one, such as pimc), filled from the ruleset by simkit.strategies.values.bind:
# declarer values [kind][forehand?][score bin], then defender values [kind][score bin], in Rufspiel base prices.
N_KINDS = 6
N_BINS = 64
BIN_WIDTH = 0.25  # scores are sums of quarter units with the default weights: one bin per score
VALUES_AT = 96
DECLARER_AT = VALUES_AT
DEFENDER_AT = DECLARER_AT + N_KINDS * 2 * N_BINS
STAKE_AT = DEFENDER_AT + N_KINDS * N_BINS  # per kind: base price x paying seats, in Rufspiel base prices
CONFIG_LEN = STAKE_AT + N_KINDS

# ------------------------------------------------------------------------------------------ constants
_OBERS = 0x10101010
_UNTERS = 0x08080808
_OU = _OBERS | _UNTERS
_ACES = 0x80808080
_TENS = 0x40404040
_LOWS = 0x07070707  # 7, 8, 9: no points
_SUIT0 = 0xFF
_P_DECK_MASK = 11
_P_ENABLED = 12
_P_TOUT_ALLOWED = 13
_TRUMP = 4
_BETTEL, _SIE, _RAMSCH = 6, 7, 8  # the club contract kinds (simkit.rules.contracts)
_BETTEL_VARIANT = 15  # its row of strength / eff_suit (simkit.rules.tables.V_BETTEL): A K O U Z 9 8 7, no trumps
_P_STICHZWANG = 20
# Kinds from the highest bid rank down (solo, wenz, farbwenz, geier, farbgeier, rufspiel).
_KINDS_HIGH_FIRST = (1, 2, 4, 3, 5, 0)
_RANK_POINTS = 0x0B0A040302000000  # byte r: card points of rank r


@njit(cache=True, inline="always")
def _points(c):
    return (_RANK_POINTS >> (8 * (c & 7))) & 0xFF


@_helper
def _bid_rank(code):
    """Bidding rank (RULES.md 2.2, 4.2, 4.3; simkit.rules.contracts.BID_ORDER): Rufspiel < Bettel < Farbgeier <
    Geier < Farbwenz < Wenz < Solo; Tout adds 7; Sie above every Tout."""
    if code < 0:
        return -1
    r = (0xE1243560 >> (4 * (code & 7))) & 0xF  # nibble k: the rank of kind k (kind 7, Sie: 14)
    if (code >> 6) & 1:
        r += 7
    return r


@_helper
def _trump_mask(kind, suit, deck):
    """Cards that are trump in contract (kind, suit); the Rufspiel's trump suit is Herz. A Ramsch has the
    Rufspiel's trumps, a Sie the Herz solo's, a Bettel none (``suit`` is -1 for all three)."""
    if kind == 0 or kind == _RAMSCH:
        m = _OU | (_SUIT0 << 16)
    elif kind == 1:
        m = _OU | (_SUIT0 << (8 * suit))
    elif kind == _SIE:
        m = _OU | (_SUIT0 << 16)
    elif kind == _BETTEL:
        m = 0
    elif kind == 2:
        m = _UNTERS
    elif kind == 3:
        m = _OBERS
    elif kind == 4:
        m = _UNTERS | (_SUIT0 << (8 * suit))
    else:
        m = _OBERS | (_SUIT0 << (8 * suit))
    return m & deck


@_helper
def _variant(kind, suit):
    if kind == 0:
        return 0
    if kind == 1:
        return 1 + suit
    if kind == 2:
        return 5
    if kind == 3:
        return 6
    if kind == 4:
        return 7 + suit
    return 11 + suit


@njit(cache=True, inline="always")
def _suit_cards(kind):
    """The Ober/Unter that rank above the trump suit's own cards in contract ``kind`` (by suit, E strongest)."""
    if kind == 0 or kind == 1 or kind == _SIE or kind == _RAMSCH:
        return _OU
    if kind == 2 or kind == 4:
        return _UNTERS
    return _OBERS


@_helper
def _top_trump(m, kind):
    """The strongest trump of a non-empty trump mask: Ober before Unter, Eichel first; then the highest bit."""
    ou = _suit_cards(kind)
    if m & ou & _OBERS:
        return _ctz(m & ou & _OBERS)
    if m & ou & _UNTERS:
        return _ctz(m & ou & _UNTERS)
    return _msb(m)


@_helper
def _low_trump(m, kind):
    """The weakest trump of a non-empty trump mask."""
    ou = _suit_cards(kind)
    rest = m & ~ou
    if rest:
        return _ctz(rest)
    if m & ou & _UNTERS:
        return _msb(m & ou & _UNTERS)
    return _msb(m & ou & _OBERS)


@njit(cache=True, inline="always")
def _ctz(m):
    return cttz(m)


@njit(cache=True, inline="always")
def _side(e, tm, deck):
    return (_SUIT0 << (8 * e)) & ~tm & deck


@njit(cache=True, inline="always")
def _above(c):
    """Bits above card c (side suits rank like their bits)."""
    return ~((2 << c) - 1) & 0xFFFFFFFF


@njit(cache=True, inline="always")
def _suits_with(m):
    """Bit 8e set for every suit e of which ``m`` holds a card (the other bits clear)."""
    m = m | (m >> 4)
    m = m | (m >> 2)
    return (m | (m >> 1)) & 0x01010101


@njit(cache=True, inline="always")
def _n_standing(side):
    """Standing cards among the side cards ``side``: Ass, Ass+Zehn, Ass+Zehn+Koenig of a suit (ranks 7, 6, 5 are
    adjacent bits)."""
    a = side & _ACES
    az = a & (side << 1)
    return popcount(a) + popcount(az) + popcount(az & (side << 2))


@njit(cache=True, inline="always")
def _hand_score(hand, kind, suit, seat, deck, config):
    """The bidding score of ``hand`` for contract (kind, suit): popcounts only."""
    tm = _trump_mask(kind, suit, deck)
    tr = hand & tm
    nt = popcount(tr)
    if kind == 2 or kind == 3:
        s = config[C_W_WG_TRUMP] * nt
    else:
        s = config[C_W_TRUMP] * nt + config[C_W_OBER] * popcount(tr & _OBERS) + config[C_W_UNTER] * popcount(
            tr & _UNTERS)
    # the two highest trumps: EO GO, or EU GU in Wenz/Farbwenz
    top = 0x808 if (kind == 2 or kind == 4) else 0x1010
    s += config[C_W_TOP] * popcount(tr & top)
    side = hand & ~tm
    s += config[C_W_STAND] * _n_standing(side)
    if nt >= 2:
        # free side suits: a suit with side cards in the deck, none of them in the hand (bit 8e: suit e has one)
        full = _suits_with(deck & ~tm)
        s += config[C_W_VOID] * popcount(full & ~_suits_with(side))
    if seat == 0 and kind != 0:
        s += config[C_W_FOREHAND]
    return s


@njit(cache=True, inline="always")
def _call_suit(hand, deck):
    """The suit to call in a Rufspiel: callable (no own ace, a non-trump card of the suit), fewest cards, then most
    points (a Zehn to schmier on the partner's ace); -1 if none is callable."""
    best = -1
    best_key = 1 << 30
    for s in (0, 1, 3):
        side = hand & (_SUIT0 << (8 * s)) & ~_OU & deck
        if side == 0 or side & _ACES:
            continue
        key = popcount(side) * 64 - 10 * popcount(side & _TENS) - 4 * ((side >> (8 * s + 5)) & 1)
        if key < best_key:
            best_key = key
            best = s
    return best


@njit(cache=True, inline="always")
def _sure_tout(hand, kind, suit, deck, strength, config):
    """Every side card stands (wins from the top of its suit) and the unbroken run of top trumps can pull the
    opponents' trumps (all but ``tout_slack`` of them)."""
    tm = _trump_mask(kind, suit, deck)
    for t in range(4):
        full = _side(t, tm, deck)
        held = hand & full
        if held and (full & ~held & (~((1 << _ctz(held)) - 1))) != 0:
            return False  # a card of the suit above my lowest one is out: my lowest may lose
    v = _variant(kind, suit)
    n_tr = popcount(tm)
    idx = 0  # bit i: I hold the trump i places from the top
    m = hand & tm
    while m:
        c = _ctz(m)
        m &= m - 1
        idx |= 1 << (100 + n_tr - strength[v, c])
    run = _ctz(~idx)
    return run + config[C_TOUT_SLACK] >= n_tr - popcount(hand & tm)


# ------------------------------------------------------------------------------------------------ bid

NO_SCORE = -1e9  # the score of a contract kind the heuristic never declares with this hand


@njit(cache=True, inline="always")
def _kind_score(hand, seat, kind, deck, short, config):
    """(score, suit) of ``hand`` for contract kind ``kind`` with its best suit (a Rufspiel: the suit to call), or
    (NO_SCORE, -1) when the heuristic never declares it: no callable ace, no suit giving a Farbsolo
    ``solo_min_trumps`` trumps, a Wenz or Geier without ``wg_min_stand`` standing side cards."""
    if kind == 0:
        call = _call_suit(hand, deck)
        if call < 0:
            return NO_SCORE, -1
        return _hand_score(hand, 0, 0, seat, deck, config), call
    if kind == 2 or kind == 3:
        need = config[C_WG_MIN_STAND_SHORT] if short else config[C_WG_MIN_STAND]
        if _n_standing(hand & ~_trump_mask(kind, 0, deck)) < need:
            return NO_SCORE, -1
        return _hand_score(hand, kind, 0, seat, deck, config), -1
    solo_min = config[C_SOLO_MIN_TRUMPS_SHORT] if short else config[C_SOLO_MIN_TRUMPS]
    best = NO_SCORE
    best_suit = -1
    for t in range(4):
        if kind == 1 and popcount(hand & _trump_mask(1, t, deck)) < solo_min:
            continue
        x = _hand_score(hand, kind, t, seat, deck, config)
        if x > best:
            best = x
            best_suit = t
    return best, best_suit


@njit(cache=True, inline="always")
def score_bin(score):
    """The value table's bin of a hand score (``BIN_WIDTH`` wide from 0, the last bin open-ended)."""
    b = np.int64(score * (1.0 / BIN_WIDTH))
    return min(max(b, 0), N_BINS - 1)


@njit(cache=True, inline="always")
def declarer_value(config, kind, seat, score):
    """The expected payout (Rufspiel base prices) to a declarer of ``kind`` at ``seat`` with ``score``."""
    return config[DECLARER_AT + (2 * kind + (1 if seat == 0 else 0)) * N_BINS + score_bin(score)]


@njit(cache=True, inline="always")
def defender_value(config, kind, score):
    """The expected payout (Rufspiel base prices) to a defender of ``kind`` with his own ``score`` in it."""
    return config[DEFENDER_AT + kind * N_BINS + score_bin(score)]


@njit(cache=True, inline="always")
def _by_value(config, n_config, entry):
    """Declaring (``entry`` C_BIDDING) or doubling (C_DOUBLING) by value: chosen in the config, and the value table
    bound (simkit.strategies.values.bind)."""
    return config[entry] == 1.0 and n_config >= CONFIG_LEN


@_helper
def _best_contract(hand, seat, strength, params, config, n_config, min_rank):
    """The heuristic's declaration of a higher rank than ``min_rank``, or PASS.

    By thresholds: the highest-ranking enabled contract whose score reaches its threshold (PASS when that one does
    not outrank ``min_rank``). By value: the contract of the highest expected payout among those that outrank
    ``min_rank`` and expect at least ``bid_margin`` times their stake (ties: the higher rank)."""
    deck = params[_P_DECK_MASK]
    enabled = params[_P_ENABLED]
    short = popcount(deck) != 32
    value = _by_value(config, n_config, C_BIDDING)
    shift = config[C_SHORT_SHIFT] if short else 0.0
    margin = config[C_BID_MARGIN_SHORT] if short else config[C_BID_MARGIN]
    best_code = PASS
    best_e = 0.0
    for kind in _KINDS_HIGH_FIRST:
        if not (enabled >> kind) & 1:
            continue
        sc, suit = _kind_score(hand, seat, kind, deck, short, config)
        if sc == NO_SCORE:
            continue
        if value:
            if _bid_rank(bid_code(kind, suit, False)) <= min_rank:
                continue
            e = declarer_value(config, kind, seat, sc)
            if e < margin * config[STAKE_AT + kind]:
                continue
            if e > best_e or best_code == PASS:
                best_e = e
                best_code = bid_code(kind, suit, False)
        elif sc >= config[C_TH_RUFSPIEL + kind] - shift:
            best_code = bid_code(kind, suit, False)
            break
    if best_code == PASS:
        return PASS
    kind = bid_kind(best_code)
    suit = bid_suit(best_code)
    if params[_P_TOUT_ALLOWED] != 0 and kind != 0 and _sure_tout(hand, kind, suit, deck, strength, config):
        best_code = bid_code(kind, suit, True)
    if _bid_rank(best_code) <= min_rank:  # an earlier seat wins ties: my bid would simply lose
        return PASS
    return best_code


# per rank r (7 8 9 U O K Z A = 0..7), the ranks of its suit below it in a Bettel (A K O U Z 9 8 7), byte r
_BETTEL_BELOW = 0x7F075F4F47030100


@_helper
def bettel_danger(hand, deck, strength):
    """How likely ``hand`` is to take a trick in a Bettel (0: safe): over every own card, the opponents' cards of
    its suit below it beyond the own cards below it, summed. When the suit is led, each opponent card under mine
    can be answered by one of my lower cards; a card with more opponent cards under it than own ones can be forced
    to take the trick (an 8 alone under the 7 led; 7-Zehn once the 8 and the 9 are led). A void is safe.

    Asked at nearly every bid where Bettel is enabled, so it takes two popcounts per own card over a mask of the
    ranks below it (the card by card double loop cost a quarter of the heuristic's deals per second under
    ``club``, BENCHMARKS.md)."""
    danger = 0
    m = hand
    while m:
        c = _ctz(m)
        m &= m - 1
        below = ((_BETTEL_BELOW >> (8 * (c & 7))) & 0xFF) << (c & 0x18)  # popcounts, not a loop over the suit
        d = popcount(below & deck & ~hand) - popcount(below & hand)
        if d > 0:
            danger += d
    return danger


@_helper
def _bid(hand, seat, info, strength, params, config, n_config):
    min_rank = -1
    for s in range(seat):
        min_rank = max(min_rank, _bid_rank(info[I_BIDS + s]))
    enabled = params[_P_ENABLED]
    deck = params[_P_DECK_MASK]
    # Sie cannot be lost and outranks everything: always declared when held (RULES.md 4.3)
    if (enabled >> _SIE) & 1 and hand == sie_mask(8 if popcount(deck) == 32 else 6):
        return bid_code(_SIE, -1, False)
    code = _best_contract(hand, seat, strength, params, config, n_config, min_rank)
    # Bettel (RULES.md 4.2): with a hand that ducks every trick, unless the heuristic would declare a solo-type
    # contract (it ranks above and pays as much); over its own Rufspiel, since a safe Bettel wins more
    if (enabled >> _BETTEL) & 1 and (code == PASS or bid_kind(code) == 0) and min_rank < 1 \
            and n_config >= _N_CONFIG:
        limit = config[C_BETTEL_MAX_DANGER_SHORT] if popcount(deck) != 32 else config[C_BETTEL_MAX_DANGER]
        if params[_P_STICHZWANG] != 0:
            limit -= config[C_BETTEL_STICHZWANG]
        if bettel_danger(hand, deck, strength) <= limit:
            return bid_code(_BETTEL, -1, False)
    return code


@_helper
def _klopfen(hand, seat, knocked, params, config, n_config):
    """Knock (RULES.md 4.1) when the cards seen (``hand``, part of the hand) make the knock worth it: a linear score
    of their Rufspiel trumps, Ober, Unter and side aces (and forehand) reaches a threshold that rises with every
    earlier knock (``knocked``: a bit per seat). Weights and thresholds are fitted on club self-play by
    scripts/club_heuristic.py (docs/heuristic.md)."""
    if n_config < _N_CONFIG:
        return 0
    tr = hand & _trump_mask(0, 0, params[_P_DECK_MASK])
    s = (config[C_K_TRUMP] * popcount(tr) + config[C_K_OBER] * popcount(tr & _OBERS)
         + config[C_K_UNTER] * popcount(tr & _UNTERS) + config[C_K_ACE] * popcount(hand & _ACES & ~tr))
    if seat == 0:
        s += config[C_K_FOREHAND]
    if popcount(params[_P_DECK_MASK]) != 32:
        th = config[C_TH_KLOPFEN_SHORT] + config[C_TH_KLOPFEN_RAISE_SHORT] * popcount(knocked)
    else:
        th = config[C_TH_KLOPFEN] + config[C_TH_KLOPFEN_RAISE] * popcount(knocked)
    return 1 if s >= th - 1e-9 else 0  # the score is a sum of two-decimal weights: no rounding decides


# --------------------------------------------------------------------------------------------- double


@_helper
def _double(hand, seat, info, params, config, n_config):
    kind = info[I_KIND]
    suit = info[I_SUIT]
    decl = info[I_DECLARER]
    deck = params[_P_DECK_MASK]
    if kind >= _BETTEL:
        # the club contracts (the value tables hold only the six classic kinds): a Sie cannot be lost, so its
        # declarer answers a Kontra with Re; a defender cannot see whether the Bettel declarer's hand ducks, and
        # the declarer chose it as safe already: no Kontra, no Re. A Ramsch has no doubling.
        return 1 if kind == _SIE and seat == decl and info[I_DOUBLINGS] == 1 else 0
    declaring_side = seat == decl or (kind == 0 and ((hand >> (8 * suit + 7)) & 1) == 1)
    sc = _hand_score(hand, kind, suit if kind != 0 else 0, seat, deck, config)
    value = _by_value(config, n_config, C_DOUBLING)
    shift = config[C_SHORT_SHIFT] if popcount(deck) != 32 else 0.0
    if info[I_DOUBLINGS] == 0:
        if declaring_side:
            return 0
        if value:
            return 1 if defender_value(config, kind, sc) >= config[C_KONTRA_MARGIN] else 0
        th = config[C_KONTRA_RUFSPIEL] if kind == 0 else config[C_KONTRA_SOLO]
        return 1 if sc >= th - shift else 0
    if not declaring_side:
        return 0
    if value:
        return 1 if declarer_value(config, kind, seat, sc) >= config[C_RE_VALUE] else 0
    return 1 if sc >= config[C_TH_RUFSPIEL + kind] + config[C_RE_MARGIN] - shift else 0


# ----------------------------------------------------------------------------------------------- play


@njit(cache=True, inline="always")
def _beats(new, best, v, strength, eff_suit):
    e = eff_suit[v, new]
    return (e == eff_suit[v, best] or e == _TRUMP) and strength[v, new] > strength[v, best]


@_helper
def _higher_out(c, out, v, kind, tm, deck, strength, eff_suit):
    """Is a card of ``out`` in the effective suit of ``c`` stronger than ``c``?"""
    if (tm >> c) & 1:
        ot = out & tm
        return ot != 0 and strength[v, _top_trump(ot, kind)] > strength[v, c]
    return (out & _side(c >> 3, tm, deck) & _above(c)) != 0


@_helper
def trick_so_far(info, v, strength, eff_suit):
    """(the card winning the trick in progress, its seat, the trick's card points so far); (-1, -1, 0) before
    its first card."""
    n = info[I_N_IN_TRICK]
    if n == 0:
        return -1, -1, 0
    leader = info[I_LEADER]
    best = info[I_TRICK]
    winner = leader
    pts = _points(best)
    for k in range(1, n):
        c = info[I_TRICK + k]
        pts += _points(c)
        if _beats(c, best, v, strength, eff_suit):
            best = c
            winner = (leader + k) & 3
    return best, winner, pts


@_helper
def _is_safe(c, out, n_after, v, kind, tm, deck, strength, eff_suit):
    """Will ``c`` (winning the trick now) still win it after ``n_after`` more players? Sure for a top trump; for a
    side card when nothing higher of its suit is out and the suit is likely still held by the others (or no trump
    is out to ruff it)."""
    if n_after == 0:
        return True
    if _higher_out(c, out, v, kind, tm, deck, strength, eff_suit):
        return False
    if (tm >> c) & 1 or (out & tm) == 0:
        return True
    return popcount(out & _side(c >> 3, tm, deck)) >= n_after + 1


@njit(cache=True, inline="always")
def _throw_cost(c, v, tm, strength):
    """What it costs to give a card away: twice its points, plus for a trump 6 + its rank from the bottom."""
    cost = 2 * _points(c)
    if (tm >> c) & 1:
        cost += 6 + (strength[v, c] - 100)
    return cost


@_helper
def _cheapest(mask, v, kind, tm, strength):
    """The card of ``mask`` that costs least to give away (:func:`_throw_cost`): a side card of at most 3 points
    (lowest rank first) when there is one, else the cheaper of the lowest side card and the weakest trump."""
    side = mask & ~tm
    c_side = -1
    if side:
        for r in range(8):
            rm = side & (0x01010101 << r)
            if rm:
                c_side = _ctz(rm)
                break
        if r <= 4:  # 7 8 9 U O: at most 3 points, cheaper than any trump
            return c_side
    tr = mask & tm
    if tr == 0:
        return c_side
    c_tr = _low_trump(tr, kind)
    if c_side >= 0 and _throw_cost(c_side, v, tm, strength) <= _throw_cost(c_tr, v, tm, strength):
        return c_side
    return c_tr


@_helper
def _trumps_above(b, kind, tm):
    """The trumps stronger than trump ``b``: Ober before Unter (Eichel first), then the trump suit by rank."""
    ou = _suit_cards(kind)
    below = (1 << b) - 1
    if (ou & _OBERS) and ((_OBERS >> b) & 1):
        return tm & _OBERS & below
    if (ou & _UNTERS) and ((_UNTERS >> b) & 1):
        return (tm & ou & _OBERS) | (tm & _UNTERS & below)
    return (tm & ou) | (tm & ~ou & _above(b))


@_helper
def _schmier(mask, v, tm, strength):
    """The card to give a trick the partner surely wins: most points, a side Zehn before a side Ass, never an
    Ober/Unter trump while another card with points is there."""
    side = mask & ~tm
    if side & _TENS:
        return _ctz(side & _TENS)
    if side & _ACES:
        return _ctz(side & _ACES)
    best = -1
    best_key = -(1 << 30)
    m = mask
    while m:
        c = _ctz(m)
        m &= m - 1
        p = _points(c)
        if (tm >> c) & 1:
            r = c & 7
            if r == 3 or r == 4:
                p = -10 - (strength[v, c] - 100)  # Ober/Unter trumps are kept
            else:
                p -= 1
        key = p * 64 - strength[v, c]
        if key > best_key:
            best_key = key
            best = c
    return best


@_helper
def _team(x, seat, kind, decl, partner, i_am_partner):
    """1 if seat ``x`` is on my side, 0 if against me, -1 if I cannot tell yet."""
    if x == seat:
        return 1
    if kind != 0:
        return 1 if (x == decl) == (seat == decl) else 0
    mine = seat == decl or i_am_partner
    if x == decl:
        return 1 if mine else 0
    if partner >= 0:
        return 1 if (x == partner) == mine else 0
    if i_am_partner:
        return 0  # I am the partner: every other non-declarer is a defender
    return -1


@_helper
def _lead(hand, legal, seat, info, v, kind, tm, deck, strength, eff_suit, declaring, out):
    my_tr = legal & tm
    out_tr = out & tm
    # 1. declaring side pulls trumps: the top trump when it is the highest out, else a low trump while longer
    if declaring and my_tr and out_tr:
        top = _top_trump(my_tr, kind)
        if strength[v, top] > strength[v, _top_trump(out_tr, kind)]:
            return top
        if kind != 2 and kind != 3 and popcount(hand & tm) >= popcount(out_tr):
            return _cheapest(my_tr, v, kind, tm, strength)
    # 2. search the called ace (Rufspiel, before the search): the defenders, and the declarer himself once his
    #    trump leads are done (the partner's ace takes it): the cheapest card of the called suit
    if kind == 0 and info[I_SEARCHED] == 0:
        called = legal & _side(info[I_SUIT], tm, deck)
        if called and not ((hand >> (8 * info[I_SUIT] + 7)) & 1):
            return _ctz(called)
    # 3. a standing side card (no higher card of its suit out), most points first, while the others still hold
    #    the suit (else it is ruffed) or no trump is out
    side = legal & ~tm
    best = -1
    best_p = -1
    for e in range(4):
        full = _side(e, tm, deck)
        held = side & full
        if held == 0:
            continue
        c = _msb(held)
        if (out & full & _above(c)) == 0 and (out_tr == 0 or popcount(out & full) >= 2):
            p = _points(c) * 8 + (c & 7)
            if p > best_p:
                best_p = p
                best = c
    if best >= 0:
        return best
    # 4. a low card of a side suit: the declaring side from its shortest suit (to ruff later), the defenders
    #    from their longest (the declarer must ruff); the cheapest card of it
    if side:
        best_key = 1 << 30
        for e in range(4):
            held = side & _side(e, tm, deck)
            if held == 0:
                continue
            c = _ctz(held)
            n = popcount(held)
            key = _points(c) * 32 + (n if declaring else 8 - n)
            if key < best_key:
                best_key = key
                best = c
        return best
    # 5. only trumps: the cheapest
    return _cheapest(legal, v, kind, tm, strength)


@njit(cache=True, inline="always")
def _suit_of(c):
    return _SUIT0 << (8 * (c >> 3))


@_helper
def _b_extreme(mask, v, strength, highest):
    """The strongest (``highest``) or weakest card of a non-empty mask in variant ``v``."""
    best = -1
    m = mask
    while m:
        c = _ctz(m)
        m &= m - 1
        if best < 0 or (strength[v, c] > strength[v, best]) == highest:
            best = c
    return best


@_helper
def _b_below(c, mask, v, strength):
    """The cards of ``mask`` in the suit of ``c`` that are weaker than ``c`` (no trumps: the Bettel)."""
    r = 0
    m = mask & _suit_of(c)
    while m:
        x = _ctz(m)
        m &= m - 1
        if strength[v, x] < strength[v, c]:
            r |= 1 << x
    return r


@_club
def _bettel_play(hand, legal, seat, info, strength, out, best, winner):
    """A Bettel (RULES.md 4.2): the declarer ducks, the defenders try to make him take a trick."""
    v = info[I_VARIANT]
    decl = info[I_DECLARER]
    n = info[I_N_IN_TRICK]
    if seat == decl:
        if n == 0:
            # leading (forehand, first trick): the lowest card of the suit where most cards above it are out
            c_best = -1
            key_best = -1
            for e in range(4):
                held = legal & (_SUIT0 << (8 * e))
                if held == 0:
                    continue
                c = _b_extreme(held, v, strength, False)
                key = popcount(out & (_SUIT0 << (8 * e)) & ~_b_below(c, out, v, strength))  # out cards above c
                if key > key_best:
                    key_best = key
                    c_best = c
            return c_best
        under = _b_below(best, legal, v, strength)
        if under:
            return _b_extreme(under, v, strength, True)  # the highest card that stays under: away with danger
        if legal & _suit_of(best):
            return _b_extreme(legal, v, strength, False)  # over it anyway: the lowest, a later card may go higher
        # void in the led suit: discard the most dangerous card (most opponent cards under it beyond my own)
        c_best = -1
        key_best = -(1 << 30)
        m = legal
        while m:
            c = _ctz(m)
            m &= m - 1
            key = (popcount(_b_below(c, out, v, strength)) - popcount(_b_below(c, hand, v, strength))) * 64 \
                + strength[v, c]
            if key > key_best:
                key_best = key
                c_best = c
        return c_best
    # a defender: the suits the declarer may still hold (cards of it are out, and he has followed it so far)
    void = 0
    for t in range(info[I_TRICK_NO]):
        lead_c = info[I_HISTORY_CARDS + 4 * t]
        dc = info[I_HISTORY_CARDS + 4 * t + ((decl - info[I_HISTORY_LEADER + t]) & 3)]
        if (dc >> 3) != (lead_c >> 3):
            void |= _suit_of(lead_c)
    k_decl = (decl - info[I_LEADER]) & 3  # the declarer's place in the trick in progress
    if n > k_decl and (info[I_TRICK + k_decl] >> 3) != (info[I_TRICK] >> 3):
        void |= _suit_of(info[I_TRICK])
    his = out & ~void
    if n == 0:
        # lead the card of a suit he may hold with the fewest out cards under it (he cannot duck), the lowest
        c_best = -1
        key_best = 1 << 30
        m = legal
        while m:
            c = _ctz(m)
            m &= m - 1
            if (his & _suit_of(c)) == 0:
                continue
            key = popcount(_b_below(c, out, v, strength)) * 64 + strength[v, c]
            if key < key_best:
                key_best = key
                c_best = c
        if c_best >= 0:
            return c_best
        return _b_extreme(legal, v, strength, False)
    under = _b_below(best, legal, v, strength)
    nonwin = under | (legal & ~_suit_of(best))  # the cards that do not take the trick from ``best``
    if n > k_decl:
        if winner == decl and nonwin:
            return _b_extreme(nonwin, v, strength, True)  # he takes it: stay under him, away with a high card
        return _b_extreme(legal, v, strength, True)  # the trick is lost for him or I must overtake: a high card
    # he plays after me: keep the trick's best card low (he must get under it), away with a high card
    if nonwin:
        return _b_extreme(nonwin, v, strength, True)
    return _b_extreme(legal, v, strength, False)


@_club
def _ramsch_play(hand, legal, seat, info, strength, eff_suit, deck, tm, out, best, winner, pts):
    """A Ramsch (RULES.md 4.4): everyone for himself, the most card points lose. Lead low cards others can
    beat; throw the dearest cards on a trick another takes; take a trick only with the cheapest card; stop a
    player who has taken every trick so far (a Durchmarsch) when I can."""
    v = info[I_VARIANT]
    n = info[I_N_IN_TRICK]
    if n == 0:
        c_best = -1
        key_best = 1 << 30
        m = legal
        while m:
            c = _ctz(m)
            m &= m - 1
            sure = not _higher_out(c, out, v, _RAMSCH, tm, deck, strength, eff_suit)
            key = (1000 if sure else 0) + 4 * _points(c) + strength[v, c]
            if key < key_best:
                key_best = key
                c_best = c
        return c_best
    n_after = 3 - n
    if (tm >> best) & 1:
        beaters = legal & _trumps_above(best, _RAMSCH, tm)
    else:
        beaters = (legal & tm) | (legal & _side(best >> 3, tm, deck) & _above(best))
    t = info[I_TRICK_NO]
    if beaters and winner != seat and t >= 2 and info[I_TRICKS_WON + winner] == t:
        # he has taken every trick so far: stop him, with my cheapest card that surely wins, else my strongest
        m = beaters
        c_best = -1
        while m:
            c = _ctz(m)
            m &= m - 1
            if (n_after == 0 or _is_safe(c, out, n_after, v, _RAMSCH, tm, deck, strength, eff_suit)) and (
                    c_best < 0 or strength[v, c] < strength[v, c_best]):
                c_best = c
        if c_best >= 0:
            return c_best
        return _b_extreme(beaters, v, strength, True)
    nonbeat = legal & ~beaters
    if nonbeat:
        # the trick goes to another: throw my dearest card (points first, then the strongest: a later winner)
        c_best = -1
        key_best = -1
        m = nonbeat
        while m:
            c = _ctz(m)
            m &= m - 1
            key = _points(c) * 256 + strength[v, c]
            if key > key_best:
                key_best = key
                c_best = c
        return c_best
    c_best = -1
    key_best = 1 << 30
    m = beaters
    while m:
        c = _ctz(m)
        m &= m - 1
        # last: the trick is mine, take it with the fewest points and away with a strong card; else the weakest
        # card that beats (a later player may take it over)
        key = _points(c) * 256 - strength[v, c] if n_after == 0 else strength[v, c] * 256 + _points(c)
        if key < key_best:
            key_best = key
            c_best = c
    return c_best


@_helper
def _play(hand, legal, seat, info, strength, eff_suit, config, deck, tm, out, best, winner, pts):
    """The card to play (``legal`` has at least two cards): ``tm`` the contract's trump mask, ``out`` the cards
    neither played nor in my hand; when following, ``best`` the card winning the trick so far, ``winner`` its
    seat and ``pts`` the trick's card points so far."""
    v = info[I_VARIANT]
    kind = info[I_KIND]
    if kind == _BETTEL:
        return _bettel_play(hand, legal, seat, info, strength, out, best, winner)
    if kind == _RAMSCH:
        return _ramsch_play(hand, legal, seat, info, strength, eff_suit, deck, tm, out, best, winner, pts)
    decl = info[I_DECLARER]
    n = info[I_N_IN_TRICK]
    partner = info[I_PARTNER_SHOWN]
    i_am_partner = False
    if kind == 0:
        ace = 8 * info[I_SUIT] + 7
        i_am_partner = (((hand | info[I_PLAYED_BY + seat]) >> ace) & 1) == 1
    declaring = seat == decl or i_am_partner

    if n == 0:
        return _lead(hand, legal, seat, info, v, kind, tm, deck, strength, eff_suit, declaring, out)

    n_after = 3 - n
    rel = _team(winner, seat, kind, decl, partner, i_am_partner)
    friends_after = True  # is every player after me on my side?
    for k in range(1, n_after + 1):
        if _team((seat + k) & 3, seat, kind, decl, partner, i_am_partner) != 1:
            friends_after = False

    # 1. my partner wins the trick and keeps it: schmieren
    if rel == 1:
        if friends_after or _is_safe(best, out, n_after, v, kind, tm, deck, strength, eff_suit):
            return _schmier(legal, v, tm, strength)
        return _cheapest(legal, v, kind, tm, strength)

    # 2. an opponent (or an unknown player) wins: the cards of mine that beat him
    if (tm >> best) & 1:
        winners = legal & _trumps_above(best, kind, tm)
    else:
        winners = (legal & tm) | (legal & _side(best >> 3, tm, deck) & _above(best))
    if winners:
        last = n_after == 0 or friends_after
        n_high = int(config[C_HIGH_TRUMPS])
        if (kind == 2 or kind == 3) and n_high > 2:
            n_high = 2
        high_from = popcount(tm) - n_high  # strength - 100 above this: a high trump
        worth = pts >= config[C_TAKE_MIN_POINTS]
        # a side card following suit that surely wins takes with its most points
        side_w = winners & ~tm
        if side_w:
            c = _msb(side_w)
            if last or _is_safe(c, out, n_after, v, kind, tm, deck, strength, eff_suit):
                return c
        tw = winners & tm
        if tw:
            low = _low_trump(tw, kind)  # the cheapest trump that beats
            top = _top_trump(tw, kind)
            if last or _is_safe(low, out, n_after, v, kind, tm, deck, strength, eff_suit):
                if strength[v, low] - 100 <= high_from or worth or (pts > 0 and last):
                    return low
            elif _is_safe(top, out, n_after, v, kind, tm, deck, strength, eff_suit):
                if strength[v, top] - 100 <= high_from or worth:
                    return top
            elif worth:
                # an unsure winner: the strongest trump that is not high, else the cheapest that beats
                m = tw
                c_best = low
                while m:
                    c = _ctz(m)
                    m &= m - 1
                    if strength[v, c] - 100 <= high_from and strength[v, c] > strength[v, c_best]:
                        c_best = c
                return c_best
    return _cheapest(legal, v, kind, tm, strength)


@intrinsic
def data_ptr(typingctx, arr):
    """The data pointer of a C-contiguous array (for :func:`play_kernel`)."""
    if not isinstance(arr, types.Array):
        return None
    sig = types.CPointer(arr.dtype)(arr)

    def codegen(context, builder, signature, args):
        return context.make_array(signature.args[0])(context, builder, args[0]).data

    return sig, codegen


_N_VARIANTS = 16  # rows of strength / eff_suit (simkit.rules.tables)

#: signature of :func:`play_kernel`
PLAY_KERNEL_SIG = types.int64(types.int64, types.int64, types.int64, types.CPointer(types.int64),
                              types.CPointer(types.int16), types.CPointer(types.int8), types.CPointer(types.float64),
                              types.int64, types.int64, types.int64, types.int64, types.int64, types.int64)


@_kernel(PLAY_KERNEL_SIG)
def play_kernel(hand, legal, seat, info_p, strength_p, eff_suit_p, config_p, deck, tm, out, best, winner, pts):
    """:func:`play` as the whole-deal kernel calls it (simkit.engine.game), with what the kernel already knows:
    ``legal`` has at least two cards, ``out`` the cards neither played (the trick in progress included) nor in
    the hand, ``tm`` is ``_trump_mask`` of the contract, and (when following) ``best``/``winner``/``pts`` describe the trick so far
    exactly as :func:`play` works them out (the kernel's trick_step is the same rule as :func:`_beats`). The
    arrays come as data pointers (:func:`data_ptr`; ``info`` int64[INFO_SIZE], ``strength``/``eff_suit``
    [15, 32], ``config`` float64[len(DEFAULT_CONFIG)]): 12 arguments instead of 40. The same card as :func:`play`."""
    info = carray(info_p, (INFO_SIZE,))
    strength = carray(strength_p, (_N_VARIANTS, 32))
    eff_suit = carray(eff_suit_p, (_N_VARIANTS, 32))
    config = carray(config_p, (_N_CONFIG,))
    return _play(hand, legal, seat, info, strength, eff_suit, config, deck, tm, out, best, winner, pts)


_P = types.CPointer
#: signatures of :func:`bid_kernel` and :func:`double_kernel`
BID_KERNEL_SIG = types.int64(types.int64, types.int64, _P(types.int64), _P(types.int16), _P(types.int64), types.int64,
                             _P(types.float64), types.int64)
DOUBLE_KERNEL_SIG = types.int64(types.int64, types.int64, _P(types.int64), _P(types.int64), types.int64,
                                _P(types.float64), types.int64)


@_kernel(BID_KERNEL_SIG)
def bid_kernel(hand, seat, info_p, strength_p, params_p, n_params, config_p, n_config):
    """:func:`bid` as the whole-deal kernel calls it: the arrays as data pointers (see :func:`play_kernel`)."""
    return _bid(hand, seat, carray(info_p, (INFO_SIZE,)), carray(strength_p, (_N_VARIANTS, 32)),
                carray(params_p, (n_params,)), carray(config_p, (n_config,)), n_config)


@_kernel(DOUBLE_KERNEL_SIG)
def double_kernel(hand, seat, info_p, params_p, n_params, config_p, n_config):
    """:func:`double` as the whole-deal kernel calls it: the arrays as data pointers (see :func:`play_kernel`)."""
    return _double(hand, seat, carray(info_p, (INFO_SIZE,)), carray(params_p, (n_params,)),
                   carray(config_p, (n_config,)), n_config)


#: signature of :func:`klopfen_kernel` (that of :func:`double_kernel`)
KLOPFEN_KERNEL_SIG = DOUBLE_KERNEL_SIG


@_kernel(KLOPFEN_KERNEL_SIG)
def klopfen_kernel(hand, seat, info_p, params_p, n_params, config_p, n_config):
    """:func:`klopfen` as the whole-deal kernel calls it: the arrays as data pointers (see :func:`play_kernel`)."""
    return _klopfen(hand, seat, carray(info_p, (INFO_SIZE,))[I_KNOCKED], carray(params_p, (n_params,)),
                    carray(config_p, (n_config,)), n_config)


# The api entry points call the kernel entries (each decision body is compiled once: cold compile time).


@_kernel(BID_SIG)
def bid(hand, seat, info, strength, eff_suit, params, config):
    return bid_kernel(hand, seat, data_ptr(info), data_ptr(strength), data_ptr(params), params.shape[0],
                      data_ptr(config), config.shape[0])


@_kernel(DOUBLE_SIG)
def double(hand, seat, info, strength, eff_suit, params, config):
    return double_kernel(hand, seat, data_ptr(info), data_ptr(params), params.shape[0], data_ptr(config),
                         config.shape[0])


@_kernel(BID_SIG)
def klopfen(hand, seat, info, strength, eff_suit, params, config):
    """1 to knock (RULES.md 4.1), asked before the bidding with ``hand`` the cards the seat has seen."""
    return klopfen_kernel(hand, seat, data_ptr(info), data_ptr(params), params.shape[0], data_ptr(config),
                          config.shape[0])


@_kernel(PLAY_SIG)
def play(hand, legal, seat, info, strength, eff_suit, params, config):
    if (legal & (legal - 1)) == 0:
        return _ctz(legal)
    v = info[I_VARIANT]
    deck = params[_P_DECK_MASK]
    tm = _trump_mask(info[I_KIND], info[I_SUIT], deck)
    n = info[I_N_IN_TRICK]
    trick = 0
    for k in range(n):
        trick |= 1 << info[I_TRICK + k]
    out = deck & ~info[I_PLAYED] & ~hand & ~trick
    best, winner, pts = trick_so_far(info, v, strength, eff_suit)
    return play_kernel(hand, legal, seat, data_ptr(info), data_ptr(strength), data_ptr(eff_suit), data_ptr(config),
                       deck, tm, out, best, winner, pts)


stamp_module(globals(), DEPENDENCIES)
