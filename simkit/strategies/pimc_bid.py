"""pimc's declaration, Kontra and Re by its own evaluation (``bid_eval``, ``double_eval``; docs/strategies.md).

The value-table bidder (simkit.strategies.values, the heuristic's) prices a hand by one number, the heuristic's
score of it, binned. Here the seat prices its own hand: it deals the cards it has not seen ``bid_worlds`` times
(uniformly, from its own random stream), keeps the worlds in which every seat that has bid would have made the same
choice, pass or declare, as the heuristic's bidder (and whose Rufspiel declarers may call the suit they called),
and plays each world out once per candidate declaration: the rest of the bidding, Kontra and Re by the heuristic,
every card by the heuristic's play kernel at all four seats, scored by the ruleset's tariff (Laufende, Schneider,
Schwarz, Tout, Klopfen). Passing is a candidate too: what the deal is worth to this seat when it passes (0 thrown
in, the defender's result when a later seat declares). The candidates are the declarations the value table prices
within ``bid_eval_slack`` Rufspiel base prices of the best (at most ``bid_eval_max``, the value-table bidder's own
choice always among them); a solo-type candidate is also scored as a Tout from the same playout (the heuristic's
play does not look at Tout). The seat declares the candidate of the highest mean payout when it beats passing by
``bid_eval_margin`` base prices. Kontra and Re likewise: the mean payout to this seat in worlds consistent with the
bids and the contract, against the value-table doubler's thresholds (``kontra_margin``, ``re_value``).

Playouts by the heuristic, not solves: a deal played out is a few microseconds, an 8-card opening solve per world
and declaration is milliseconds (docs/strategies.md has the measurements). The evaluation covers the classic
contracts under a throw-in when all pass; with Bettel or Sie enabled, or Ramsch or a stock when all pass, the seat
bids as the value-table bidder does (a fallback, not an error), and the same when too few consistent worlds are
found (``bid_min_worlds``).

Every function here is inlined into pimc's entries (simkit.strategies.pimc); they read only their arguments and
the seat's own random stream (``info[I_RNG]``), so a choice is reproducible.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from simkit.engine import infostate as _infostate
from simkit.engine import kernel as _kernel
from simkit.engine.bits import cttz, popcount
from simkit.engine.infostate import (
    info_bid,
    info_card,
    info_contract,
    info_end_trick,
    info_kontra,
    info_re,
    info_start_play,
    info_start_trick,
    info_to_play,
)
from simkit.engine.jitcache import files, stamp_module
from simkit.engine.kernel import called_ace_setup, laufende, legal_cards, score, trick_step
from simkit.rules.tables import (
    P_ALL_PASS,
    P_DECK_MASK,
    P_ENABLED,
    P_HAND_SIZE,
    P_MAX_DOUBLINGS,
    P_RE_BY_PARTNER,
    P_RUN_AWAY_MIN,
    P_TOUT_ALLOWED,
    TRUMP,
    V_RUFSPIEL,
)
from simkit.strategies import heuristic as _heuristic
from simkit.strategies.api import DEPENDENCIES as _API_DEPS
from simkit.strategies.api import (
    I_BIDS,
    I_DECLARER,
    I_DOUBLINGS,
    I_KIND,
    I_KNOCKED,
    I_SUIT,
    I_TOUT,
    INFO_SIZE,
    NOT_ASKED,
    PASS,
    bid_code,
    bid_kind,
    bid_suit,
    bid_tout,
    rng_below,
)

#: the files these helpers compile into pimc's entries
DEPENDENCIES = sorted(set(files("strategies/pimc_bid", "rules/tables") + _heuristic.DEPENDENCIES
                          + _kernel.DEPENDENCIES + _infostate.DEPENDENCIES + _API_DEPS))

_BETTEL, _SIE = 6, 7
#: the bid's and the doubling's worlds are drawn from the seat's stream XOR these (and the stream is restored after),
#: so the seat's card decisions draw what they would without them
BID_SALT = np.int64(0x3C6EF372FE94F82B)
DOUBLE_SALT = np.int64(0x1F83D9ABFB41BD6B)
#: the most candidate declarations evaluated (besides passing)
MAX_CAND = 8
# the integer work words (pimc's workspace, PW_IWORK from its offset IW_BID): a playout's info, the world's hands,
# the kernel's hand words, the unseen cards, the candidates' codes
B_INFO = 0
B_WORLD = B_INFO + INFO_SIZE
B_HW = B_WORLD + 4
B_CARDS = B_HW + 4
B_CODES = B_CARDS + 32
B_SIZE = B_CODES + MAX_CAND
# the float64 work words (PW_FWORK from FW_BID): per candidate its summed payout and, for solo types, as a Tout;
# slot MAX_CAND holds passing
BF_SUMS = 0
BF_TOUT = BF_SUMS + MAX_CAND + 1
BF_SIZE = BF_TOUT + MAX_CAND + 1

_dp = _heuristic.data_ptr
_h_bid = _heuristic.bid_kernel
_h_double = _heuristic.double_kernel
_h_play = _heuristic.play_kernel


@njit(cache=True, inline="always")
def evaluable(params):
    """The evaluation covers this ruleset: the classic contracts only, and a throw-in when all pass."""
    return ((params[P_ENABLED] >> _BETTEL) & 3) == 0 and params[P_ALL_PASS] == 0


@njit(cache=True, inline="always")
def _ruf_ok(code, hand, suit_mask):
    """A Rufspiel on suit s may be declared with ``hand``: not Herz, no ace of s, a non-trump card of s."""
    s = bid_suit(code)
    return s != 2 and ((hand >> np.int64(8 * s + 7)) & 1) == 0 and (hand & np.int64(suit_mask[0, s])) != 0


@njit(cache=True, inline="always")
def draw_world(hand, seat, deck, hs, info, iw, world):
    """Deal the cards this seat has not seen to the other three seats (uniformly: a Fisher-Yates shuffle drawn from
    the seat's stream, ``info[I_RNG]``) into ``world`` (int64[4]; its own seat gets ``hand``)."""
    cards = iw[B_CARDS:B_CARDS + 32]
    n = 0
    m = deck & ~hand
    while m != 0:
        cards[n] = cttz(m)
        m &= m - 1
        n += 1
    for i in range(n - 1, 0, -1):
        j = rng_below(info, i + 1)
        t = cards[i]
        cards[i] = cards[j]
        cards[j] = t
    k = 0
    for s in range(4):
        if s == seat:
            world[s] = hand
            continue
        h = np.int64(0)
        for _ in range(hs):
            h |= np.int64(1) << cards[k]
            k += 1
        world[s] = h
    return world


@njit(cache=True, inline="always")
def consistent(world, seat, info, pinfo, strength, params, config, suit_mask):
    """Every other seat that has bid would have made the same choice, pass or declare, as the heuristic's bidder
    with its hand in ``world`` (a people or pimc seat is judged by that model too), and a Rufspiel declarer holds
    a card of the suit it called and not its ace. ``pinfo`` is work space."""
    for s in range(4):
        pinfo[I_BIDS + s] = NOT_ASKED
    for s in range(4):
        b = info[I_BIDS + s]
        if b == NOT_ASKED:
            break
        if s != seat:
            if b != PASS and bid_kind(b) == 0 and not _ruf_ok(b, world[s], suit_mask):
                return False
            h = _h_bid(world[s], s, _dp(pinfo), _dp(strength), _dp(params), params.shape[0], _dp(config),
                       config.shape[0])
            if (h == PASS) != (b == PASS):
                return False
        pinfo[I_BIDS + s] = b
    return True


@njit(cache=True, inline="always")
def next_consistent_world(hand, seat, deck, hs, info, iw, world, pinfo, strength, params, config, suit_mask, left):
    """Draw worlds into ``world`` until one is consistent with the bids (:func:`consistent`), at most ``left``
    draws; returns the draws left after it, or -1 when none was consistent."""
    while left > 0:
        left -= 1
        draw_world(hand, seat, deck, hs, info, iw, world)
        if consistent(world, seat, info, pinfo, strength, params, config, suit_mask):
            return left
    return -1


@njit(cache=True, inline="always")
def play_out(world, me, pinfo, hw, k, su, tt, decl, dbl, nk, strength, eff_suit, params, config, suit_mask, lorder,
             n_trumps, lauf_min, base_price, points):
    """Play the contract (kind ``k``, suit ``su``, Tout ``tt``, declarer ``decl``; ``dbl`` doublings said,
    ``nk`` knocks) in ``world`` by the heuristic at all four seats, from the start of play; ``pinfo`` holds the
    public state up to here (bids, contract, Kontra/Re). Returns this seat's payout as played and, scored as a
    Tout from the same play, as a Tout (0 where a Tout is not possible)."""
    hs = params[P_HAND_SIZE]
    deck = params[P_DECK_MASK]
    run_min = params[P_RUN_AWAY_MIN]
    v = _heuristic._variant(k, su)
    called = su if k == 0 else -1
    called_mask = np.int64(suit_mask[v, called]) if called >= 0 else np.int64(0)
    for s in range(4):
        hw[s] = world[s]
    pt, searched, ace_bit, team, team_cards = called_ace_setup(hw, called, decl, called_mask)
    lauf, mit = laufende(team_cards, lorder[v], n_trumps[v])
    info_start_play(pinfo)
    htm = np.int64(suit_mask[v, TRUMP])
    sv = strength[v]
    ev = eff_suit[v]
    p_info = _dp(pinfo)
    p_strength = _dp(strength)
    p_eff = _dp(eff_suit)
    p_config = _dp(config)
    leader = 0
    dp = 0
    dt = 0
    played = np.int64(0)
    for t in range(hs):
        info_start_trick(pinfo, t, leader)
        seat = leader
        led = 0
        best_seat = 0
        best_eff = 0
        best_str = 0
        best_card = -1
        tp = 0
        for kk in range(4):
            hand = hw[seat]
            legal = legal_cards(hand, kk, np.int64(suit_mask[v, led]), led == called,
                                (not searched) and seat == pt, ace_bit, called_mask, run_min)
            info_to_play(pinfo, kk)
            if (legal & (legal - 1)) == 0:
                c = cttz(legal)
            else:
                c = _h_play(hand, legal, seat, p_info, p_strength, p_eff, p_config, deck, htm,
                            deck & ~played & ~hand, best_card if kk > 0 else -1, best_seat, tp)
            bit = np.int64(1) << c
            hw[seat] = hand & ~bit
            played |= bit
            info_card(pinfo, t, kk, seat, c, played, bit == ace_bit)
            tp += points[c]
            led, best_seat, best_eff, best_str = trick_step(kk, seat, ev[c], sv[c], led, best_seat, best_eff,
                                                            best_str)
            if best_seat == seat:
                best_card = c
            seat = (seat + 1) & 3
        searched_now = led == called
        if searched_now:
            searched = True
        if (team >> np.int64(best_seat)) & 1:
            dp += tp
            dt += 1
        info_end_trick(pinfo, t, best_seat, tp, searched_now)
        leader = best_seat
    w, sn, sw, pr, p0, p1, p2, p3 = score(dp, dt, tt != 0, hs, lauf, lauf_min[v], base_price[v], params, dbl + nk,
                                          team, pt)
    mine = (p0, p1, p2, p3)[me]
    mine_tout = 0
    if k != 0 and tt == 0 and params[P_TOUT_ALLOWED] != 0:
        w, sn, sw, pr, p0, p1, p2, p3 = score(dp, dt, True, hs, lauf, lauf_min[v], base_price[v], params, dbl + nk,
                                              team, pt)
        mine_tout = (p0, p1, p2, p3)[me]
    return mine, mine_tout


@njit(cache=True, inline="always")
def _doublings(world, pinfo, k, decl, pt, strength, params, config):
    """Kontra and Re by the heuristic at every seat of ``world`` (the kernel's order); returns the doublings."""
    max_dbl = params[P_MAX_DOUBLINGS]
    if max_dbl < 1:
        return 0
    dbl = 0
    for s in range(4):
        if s == decl or s == pt:
            continue
        if _h_double(world[s], s, _dp(pinfo), _dp(params), params.shape[0], _dp(config), config.shape[0]) == 1:
            dbl = 1
            info_kontra(pinfo, s)
            break
    if dbl == 1 and max_dbl >= 2:
        for q in range(2):
            s = decl if q == 0 else pt
            if q == 1 and (pt < 0 or params[P_RE_BY_PARTNER] == 0):
                break
            if _h_double(world[s], s, _dp(pinfo), _dp(params), params.shape[0], _dp(config), config.shape[0]) == 1:
                dbl = 2
                info_re(pinfo, s)
                break
    return dbl


@njit(cache=True, inline="always")
def deal_after_bid(world, me, code, info, pinfo, hw, strength, eff_suit, params, config, suit_mask, lorder,
                   n_trumps, lauf_min, base_price, points):
    """This seat bids ``code`` in ``world``: the later seats bid as the heuristic, the highest bid plays (an
    earlier seat wins a tie), Kontra and Re by the heuristic, then :func:`play_out`. Returns this seat's payout
    and its payout were the game a Tout (:func:`play_out`; 0 when thrown in)."""
    _infostate.info_new_deal(pinfo, info[2], params[P_HAND_SIZE])  # info[2]: the deal's number (I_DEAL)
    pinfo[I_KNOCKED] = info[I_KNOCKED]
    best = -1
    decl = -1
    for s in range(4):
        if s < me:
            b = info[I_BIDS + s]
        elif s == me:
            b = code
        else:
            b = _h_bid(world[s], s, _dp(pinfo), _dp(strength), _dp(params), params.shape[0], _dp(config),
                       config.shape[0])
        info_bid(pinfo, s, b)
        r = _heuristic._bid_rank(b)
        if r > best:
            best = r
            decl = s
    if decl < 0:
        return 0, 0
    b = pinfo[I_BIDS + decl]
    k = bid_kind(b)
    su = bid_suit(b)
    tt = bid_tout(b)
    info_contract(pinfo, k, su, tt, decl, _heuristic._variant(k, su))
    pt = -1
    if k == 0:
        ace = np.int64(1) << np.int64(8 * su + 7)
        for s in range(4):
            if world[s] & ace:
                pt = s
    dbl = _doublings(world, pinfo, k, decl, pt, strength, params, config)
    mine, mine_tout = play_out(world, me, pinfo, hw, k, su, tt, decl, dbl, popcount(info[I_KNOCKED]), strength,
                               eff_suit, params, config, suit_mask, lorder, n_trumps, lauf_min, base_price, points)
    return mine, (mine_tout if decl == me else mine)


@njit(cache=True, inline="always")
def candidates(hand, seat, info, params, config, suit_mask, first, slack, max_n, codes, vals):
    """The declarations worth evaluating: every classic declaration this seat may make above the bids before it
    (a Rufspiel on each suit it may call, a solo-type game on each suit) that the value table (bound into
    ``config``) prices within ``slack`` Rufspiel base prices of the best and of 0, the best first; ``first`` (the
    value-table bidder's choice, unless PASS) always first. Returns how many (at most ``max_n``) are in
    ``codes``; ``vals`` (float64) is work space."""
    deck = params[P_DECK_MASK]
    enabled = params[P_ENABLED]
    min_rank = -1
    for s in range(seat):
        min_rank = max(min_rank, _heuristic._bid_rank(info[I_BIDS + s]))
    n = 0
    top = 0.0
    for kind in range(6):
        if not (enabled >> kind) & 1:
            continue
        for su in range(4):
            if kind == 2 or kind == 3:
                if su > 0:
                    break
                su = -1
            code = bid_code(kind, su, False)
            if _heuristic._bid_rank(code) <= min_rank or code == first:
                continue
            if kind == 0 and not _ruf_ok(code, hand, suit_mask):
                continue
            sc = _heuristic._hand_score(hand, kind, su if su >= 0 else 0, seat, deck, config)
            e = _heuristic.declarer_value(config, kind, seat, sc)
            # insertion by value (codes[0..n) sorted, best first), at most max_n kept
            j = n if n < max_n else max_n - 1
            if n == max_n and e <= vals[j]:
                continue
            while j > 0 and vals[j - 1] < e:
                codes[j] = codes[j - 1]
                vals[j] = vals[j - 1]
                j -= 1
            codes[j] = code
            vals[j] = e
            if n < max_n:
                n += 1
            top = max(top, e)
    keep = 0
    if first != PASS:  # the value-table bidder's choice first (a Tout stays a Tout)
        for j in range(n - 1, -1, -1):
            codes[j + 1] = codes[j]
            vals[j + 1] = vals[j]
        codes[0] = first
        vals[0] = top
        n += 1
        keep = 1
    m = keep
    for j in range(keep, min(n, max_n)):
        if vals[j] >= top - slack:
            codes[m] = codes[j]
            m += 1
    return m


__all__ = ["B_SIZE", "BF_SIZE", "DEPENDENCIES", "MAX_CAND", "candidates", "consistent", "deal_after_bid", "draw_world",
           "evaluable", "play_out"]


stamp_module(globals(), DEPENDENCIES)
