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
    BID_SIG, DOUBLE_SIG, I_BIDS, I_DECLARER, I_DOUBLINGS, I_KIND, I_LEADER, I_N_IN_TRICK, I_PARTNER_SHOWN,
    I_PLAYED, I_PLAYED_BY, I_SEARCHED, I_SUIT, I_TRICK, I_VARIANT, INFO_SIZE, PASS, PLAY_SIG, bid_code, bid_kind,
    bid_suit,
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

# The value table (bidding by value) sits behind the named entries, from VALUES_AT on (room is left for the
# entries of strategies built on this one, such as pimc), filled from the ruleset by simkit.strategies.values.bind:
# declarer values [kind][forehand?][score bin], then defender values [kind][score bin], in Rufspiel base prices.
N_KINDS = 6
N_BINS = 64
BIN_WIDTH = 0.25  # scores are sums of quarter units with the default weights: one bin per score
VALUES_AT = 64
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
# Kinds from the highest bid rank down (solo, wenz, farbwenz, geier, farbgeier, rufspiel).
_KINDS_HIGH_FIRST = (1, 2, 4, 3, 5, 0)
_RANK_POINTS = 0x0B0A040302000000  # byte r: card points of rank r


@njit(cache=True, inline="always")
def _points(c):
    return (_RANK_POINTS >> (8 * (c & 7))) & 0xFF


@_helper
def _bid_rank(code):
    """Bidding rank (RULES.md 2.2): Rufspiel < Farbgeier < Geier < Farbwenz < Wenz < Solo; Tout adds 6."""
    if code < 0:
        return -1
    r = (0x132450 >> (4 * (code & 7))) & 0xF  # nibble k: the rank of kind k
    if (code >> 6) & 1:
        r += 6
    return r


@_helper
def _trump_mask(kind, suit, deck):
    """Cards that are trump in contract (kind, suit); the Rufspiel's trump suit is Herz."""
    if kind == 0:
        m = _OU | (_SUIT0 << 16)
    elif kind == 1:
        m = _OU | (_SUIT0 << (8 * suit))
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
    if kind == 0 or kind == 1:
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


@_helper
def _bid(hand, seat, info, strength, params, config, n_config):
    min_rank = -1
    for s in range(seat):
        min_rank = max(min_rank, _bid_rank(info[I_BIDS + s]))
    return _best_contract(hand, seat, strength, params, config, n_config, min_rank)


# --------------------------------------------------------------------------------------------- double


@_helper
def _double(hand, seat, info, params, config, n_config):
    kind = info[I_KIND]
    suit = info[I_SUIT]
    decl = info[I_DECLARER]
    deck = params[_P_DECK_MASK]
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


@_helper
def _play(hand, legal, seat, info, strength, eff_suit, config, deck, tm, out, best, winner, pts):
    """The card to play (``legal`` has at least two cards): ``tm`` the contract's trump mask, ``out`` the cards
    neither played nor in my hand; when following, ``best`` the card winning the trick so far, ``winner`` its
    seat and ``pts`` the trick's card points so far."""
    v = info[I_VARIANT]
    kind = info[I_KIND]
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


_N_VARIANTS = 15  # rows of strength / eff_suit (simkit.rules.tables)

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
    """PLACEHOLDER (branch kernel36, so the kernel compiles): never knocks. Branch heur36 writes the real
    decision with this signature (simkit.strategies.api.KLOPFEN_SIG); take theirs when merging."""
    return 0


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
