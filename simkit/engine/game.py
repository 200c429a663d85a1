"""Whole deals in one Numba kernel: deal -> four bids -> the game is fixed -> Kontra/Re -> every card -> score.

Every decision is taken by the seat's strategy (simkit.strategies.api); built-in strategies are dispatched by
integer id, plug-ins are first-class functions (simkit.strategies.dispatch). The first :func:`play_games` (or
:func:`prepare`) of a process compiles the kernel (or loads it from numba's on-disk cache, about a second).

The sequence of a deal (deal ``i`` of a call is deal index ``start + i`` of run ``seed``):

1. **Dealing**: ``deal_row(seed, index)`` (simkit.engine.deal), the same hands as :func:`simkit.engine.deal.deal`.
1a. **Klopfen** (RULES.md 4.1, only when ``params[P_KLOPFEN]``): seats 0..3 in turn are asked ``klopfen`` with the
   ``params[P_KLOPFEN_CARDS]`` cards of their hand they have seen, drawn uniformly from stream (seed, index,
   STREAM_KLOPFEN) (:func:`_seen_cards`); ``info[I_KNOCKED]`` gathers a bit per knock; each knock doubles the price.
   Without Klopfen nothing is drawn or asked.
2. **Bidding** (RULES.md 2.2, 4.2, 4.3): seats 0, 1, 2, 3 in turn are asked ``bid``; each sees the bids so far in
   ``info[I_BIDS:I_BIDS+4]`` (``NOT_ASKED`` for later seats). The highest rank of
   ``simkit.rules.contracts.BID_ORDER`` wins (every Tout above every plain contract, in the same order, Sie above
   every Tout), the earlier seat on equal rank. Four passes: the row is recorded as passed (``kind`` -1, results 0)
   and nothing else is asked, unless ``params[P_ALL_PASS]`` is Ramsch (RULES.md 4.4): then the deal is played as a
   Ramsch (variant 0, no called ace, no Kontra, each seat for himself) and scored by
   simkit.engine.kernel.ramsch_score; its row's ``declarer`` is the loser or the Durchmarsch winner.
3. **Doubling** (RULES.md 2.3), after the contract is fixed and before the first card is led (so within "before
   the second card of the first trick"): if ``max_doublings >= 1`` every defender (every seat but the declarer and
   the Rufspiel partner) is asked ``double`` in seat order 0..3 until one says 1 (Kontra; nobody else is asked).
   After a Kontra, if ``max_doublings >= 2`` the declarer is asked for Re, and if he declines and
   ``re_by_partner`` holds, the Rufspiel partner. A seat tells the two questions apart by ``info[I_KONTRA_SEAT]``
   (-1: Kontra is asked; else Re).
4. **Play**: seat 0 leads the first trick; each card is ``play(hand, legal, ...)`` with ``legal`` computed by the
   kernel (every called-ace rule; simkit.engine.kernel.legal_cards), then the same trick resolution and scoring as
   simkit.engine.kernel (shared code). ``play`` is asked for every card, even when only one is legal. A Bettel with
   ``params[P_STICHZWANG]`` restricts ``legal`` by simkit.engine.kernel.must_beat; Bettel and Sie are scored by
   simkit.engine.kernel.club_score. Every price is multiplied by 2^(doublings + knocks).

A strategy error stops the kernel at that deal: an impossible declaration (a malformed code, a disabled contract,
a Tout where Touts are off or of a Rufspiel, a Rufspiel calling Herz, an ace he holds or a suit he has no non-trump
card of, a missing trump suit or a suit where the contract takes none), an answer of ``double`` other than 0/1,
or a card not in ``legal``. :func:`play_games` raises :class:`simkit.strategies.StrategyError` naming the strategy,
seat, deal and choice. A choice is never replaced.

Randomness: seat ``s``'s strategy draws from stream (seed, index, STREAM_STRATEGY + s), kept in ``info[I_RNG]``
while it is asked and saved between its calls; so results never depend on chunking. Scratch words
``info[I_SCRATCH:]`` are likewise kept per seat (zeroed at each deal's start) for every plug-in; a built-in whose
module sets ``USES_SCRATCH = False`` (``random`` and ``heuristic``) skips the save/restore (its seats
may then see another seat's scratch words, which such a strategy ignores).

Forced mode (``contract=``): no bidding (``bids`` all ``NOT_ASKED``); every deal is played as that contract by
``declarer``. A Rufspiel given without a suit calls a uniformly random callable suit (stream STREAM_FORCED). A
deal where the forced Rufspiel is impossible (the declarer can call no such ace) is recorded with ``kind`` -1 and
``impossible`` True.

Given hands (``hands=``, simkit.evaluate): the kernel plays the hands the caller wrote into ``hands`` instead of
dealing from (seed, index); everything else (the strategies' streams keyed on (seed, index), bidding or forced mode)
is unchanged. A forced pass (``passer=``): that seat's bid is PASS without asking its strategy (its stream is not
drawn from for the bid); the other seats bid as usual. Both are the words ``forced[4]`` (1: hands given) and
``forced[5]`` (the seat that passes, -1 none).
"""

from __future__ import annotations

import warnings

import numpy as np
from numba import njit, types
from numba.core.errors import NumbaExperimentalFeatureWarning

from simkit.engine.bits import cttz
from simkit.engine.jitcache import files, helper_copy, jit, source_stamp, stamp, stamp_module
from simkit.engine.deal import deal_row, deck_cards
from simkit.engine.infostate import (
    info_bid,
    info_card,
    info_contract,
    info_end_trick,
    info_klopfen,
    info_knock,
    info_kontra,
    info_new_deal,
    info_re,
    info_start_bidding,
    info_start_play,
    info_start_trick,
    info_to_play,
)
from simkit.engine.infostate import DEPENDENCIES as _INFO_DEPS
from simkit.engine.kernel import DEPENDENCIES as _KERNEL_DEPS
from simkit.engine.kernel import (
    _clear,
    called_ace_setup,
    club_score,
    laufende,
    legal_cards,
    must_beat,
    ramsch_score,
    score,
    trick_step,
)
from simkit.engine.rng import STREAM_FORCED, STREAM_KLOPFEN, STREAM_STRATEGY, below, next_u64, stream_state
from simkit.rules.contracts import BETTEL, BID_ORDER, FARBGEIER, FARBWENZ, GEIER, RAMSCH, RUFSPIEL, SIE, SOLO, WENZ
from simkit.rules.tables import (
    P_ALL_PASS,
    P_DECK_MASK,
    P_ENABLED,
    P_HAND_SIZE,
    P_KLOPFEN,
    P_KLOPFEN_CARDS,
    P_MAX_DOUBLINGS,
    P_RE_BY_PARTNER,
    P_RUN_AWAY_MIN,
    P_STICHZWANG,
    P_TOUT_ALLOWED,
    TRUMP,
    V_BETTEL,
    V_FARBGEIER,
    V_FARBWENZ,
    V_GEIER,
    V_SOLO,
    V_WENZ,
)
from simkit.strategies import dispatch
from simkit.strategies.api import DEPENDENCIES as _API_DEPS
from simkit.strategies.api import (
    BID_SIG,
    DOUBLE_SIG,
    I_KNOCKED,
    I_PLAYED_BY,
    I_POINTS,
    I_RNG,
    I_TRICKS_WON,
    I_SCRATCH,
    INFO_SIZE,
    N_SCRATCH,
    NOT_ASKED,
    PASS,
    KLOPFEN_SIG,
    PLAY_SIG,
    random_card,
    sie_mask,
)
from simkit.strategies.natives import DEPENDENCIES as _NATIVES_DEPS
from simkit.strategies.natives import (
    N_DECIDE,
    N_PLAY,
    WORKSPACE_TYPE,
    decide_at,
    empty_workspace,
    play_at,
    seat_natives,
)

# numba keys its on-disk cache on the source of this file only; the kernel also inlines the strategies' dispatch,
# random play, the heuristic's entries and the shared engine code, so the stamp is made of all of them (a change
# anywhere recompiles). A native seat's entries (people, pimc) are called by the addresses its strategy brings
# (simkit.strategies.natives): only their signatures (natives.py) are compiled into the kernel, not the solver or
# the model, and the kernel imports no strategy but the two it inlines (random, heuristic).
DEPENDENCIES = sorted(set(files("engine/game", "engine/jitcache") + _KERNEL_DEPS + _INFO_DEPS + _API_DEPS
                          + _NATIVES_DEPS + dispatch.DEPENDENCIES))
_STAMP = source_stamp(DEPENDENCIES)

# The helpers the kernel calls once a deal (dealing, the bids and doublings through the strategies' dispatch, the
# contract's set-up, scoring, a strategy error) are compiled once each as functions of their own and inlined by
# LLVM (simkit.engine.jitcache.helper_copy), instead of numba copying and typing their code inside the kernel (IR
# inlining): the kernel's own cold compile 9.6 s -> 7.0 s, the same speed (2-core host, interleaved runs). The
# per-card code (legal cards, the trick, the card loop's dispatch, info words) stays IR-inlined: as helpers too it
# saved only 0.3 s more.
def _helper(d):
    return helper_copy(d, _STAMP, "game", _nrt=False)


_local = jit(_STAMP, helper=True, _nrt=False)  # this module's own per-deal helpers


_deal_row = _helper(deal_row)
_info_new_deal = _helper(info_new_deal)
_info_bid = _helper(info_bid)
_info_contract = _helper(info_contract)
_info_kontra = _helper(info_kontra)
_info_re = _helper(info_re)
_info_start_play = _helper(info_start_play)
_call_bid = _helper(dispatch.call_bid)
_call_double = _helper(dispatch.call_double)
_call_klopfen = _helper(dispatch.call_klopfen)
_called_ace_setup = _helper(called_ace_setup)
_laufende = _helper(laufende)
_score = _helper(score)
_club_score = _helper(club_score)
_ramsch_score = _helper(ramsch_score)
_clear_row = _helper(_clear)

_h_play = dispatch._h_play_kernel
_data_ptr = dispatch._data_ptr

#: decision kinds in error reports
DECISION_BID = 0
DECISION_DOUBLE = 1
DECISION_PLAY = 2
DECISION_KLOPFEN = 3
DECISION_NAMES = ("bid", "double", "play", "klopfen")

#: err[] layout of a strategy error: deal index, seat, decision, value, trick (0-based), legal mask, hand
ERR_SIZE = 7

# the bidding rank of simkit.rules.contracts.BID_ORDER (7 plain ranks, a Tout adds 7), Sie above every Tout
_N_RANKS = len(BID_ORDER)
_KIND_RANK = np.array([BID_ORDER.index(k) for k in range(SIE)] + [2 * _N_RANKS], np.int64)
_NEEDS_SUIT = np.array([k in (RUFSPIEL, SOLO, FARBWENZ, FARBGEIER) for k in range(SIE + 1)], np.bool_)


@_local
def bid_rank(code, hand, params, ruf_masks):
    """Rank of a declaration (0..6, a Tout adds 7, Sie 14), -1 for a pass, -2 for an impossible declaration."""
    if code == PASS:
        return -1
    if code < 0 or code > 127:
        return -2
    k = code & 7
    s = ((code >> 3) & 7) - 1
    t = (code >> 6) & 1
    if k > SIE or s > 3 or ((params[P_ENABLED] >> k) & 1) == 0:
        return -2
    if _NEEDS_SUIT[k]:
        if s < 0:
            return -2
    elif s != -1:
        return -2
    if t != 0 and (k == RUFSPIEL or k >= BETTEL or params[P_TOUT_ALLOWED] == 0):
        return -2
    if k == RUFSPIEL:
        if s == 2 or ((hand >> np.int64(8 * s + 7)) & 1) != 0 or (hand & np.int64(ruf_masks[s])) == 0:
            return -2
    if k == SIE and hand != sie_mask(params[P_HAND_SIZE]):  # only with the top trumps of the solo order
        return -2
    return _KIND_RANK[k] + _N_RANKS * t


@_local
def variant_code(k, s):
    """The rule tables' variant of kind ``k`` with suit ``s`` (simkit.rules.tables.variant_of)."""
    if k == RUFSPIEL or k == RAMSCH:
        return 0
    if k == BETTEL:
        return V_BETTEL
    if k == SIE:  # a Herz solo (docs/club-rules.md)
        return V_SOLO + 2
    if k == SOLO:
        return V_SOLO + s
    if k == WENZ:
        return V_WENZ
    if k == GEIER:
        return V_GEIER
    if k == FARBWENZ:
        return V_FARBWENZ + s
    return V_FARBGEIER + s


@njit(cache=True, inline="always")
def _enter(info, seat, rngs, scratch, keep):
    info[I_RNG] = rngs[seat]
    if keep[seat]:
        for j in range(N_SCRATCH):
            info[I_SCRATCH + j] = scratch[seat, j]


@njit(cache=True, inline="always")
def _leave(info, seat, rngs, scratch, keep):
    rngs[seat] = info[I_RNG]
    if keep[seat]:
        for j in range(N_SCRATCH):
            scratch[seat, j] = info[I_SCRATCH + j]


# Klopfen's seen cards: every subset of m of h hand positions (h 6 or 8), as position masks, C(8, 4) = 70 at most
_SUBSETS = np.zeros((9, 9, 70), np.int64)
_N_SUBSETS = np.zeros((9, 9), np.int64)
for _h in (6, 8):
    for _pos in range(1 << _h):
        _m = bin(_pos).count("1")
        _SUBSETS[_h, _m, _N_SUBSETS[_h, _m]] = _pos
        _N_SUBSETS[_h, _m] += 1


@_local
def _seen_cards(hand, hs, n, h32):
    """``n`` of the ``hs`` cards of ``hand``, a subset drawn uniformly by the 32 random bits ``h32`` (Klopfen:
    what the seat has seen). One draw among the C(hs, n) subsets and a branch-free walk over the hand: four
    times a deal, drawing card by card (a chain of dependent steps) cost 0.2 us a deal."""
    pos = _SUBSETS[hs, n, np.int64((h32 * np.uint64(_N_SUBSETS[hs, n])) >> np.uint64(32))]
    seen = np.int64(0)
    m = hand
    for _ in range(hs):
        low = m & -m
        seen |= low & -(pos & 1)
        pos >>= 1
        m ^= low
    return seen


@_local
def _high_trump(cards, trumps, sv):
    """The strength of the highest trump among ``cards`` (0: none), for the Ramsch's tie rule."""
    m = cards & trumps
    hi = np.int64(0)
    while m:
        c = cttz(m)
        m &= m - 1
        if sv[c] > hi:
            hi = np.int64(sv[c])
    return hi


@_local
def _fail(err, idx, seat, decision, value, trick, legal, hand):
    err[0] = idx
    err[1] = seat
    err[2] = decision
    err[3] = value
    err[4] = trick
    err[5] = legal
    err[6] = hand


def _games_py(seed, start, sids, keep, bid_fns, dbl_fns, play_fns, klop_fns, configs,
              strength, eff_suit, suit_mask, lorder, n_trumps, lauf_min, base_price, points, params, forced,
              hands, bids, kind, suit, tout, declarer, partner, doublings, kontra_seat, re_seat, impossible,
              declarer_points, defender_points, declarer_tricks, laufende_, laufende_mit, schneider, schwarz,
              won, price, payouts, knocked, durchmarsch, jungfrauen, trace_legal, trace_played, err, cards, work,
              hw, info, rngs, scratch, decide_ws, work_f, natives):
    """Play deals start .. start+n-1 (n = hands.shape[0]). Returns n, or the row of the first strategy error
    (rows before it are complete; ``err`` describes the error).

    The kernel allocates nothing (the caller passes ``cards`` = deck_cards of the deck and the work arrays
    ``work`` int8[32], ``hw`` int64[4], ``info`` int64[INFO_SIZE], ``rngs`` int64[4], ``scratch``
    int64[4, N_SCRATCH], ``decide_ws``, the workspace of simkit.strategies.natives.WORKSPACE_TYPE that a seat's
    strategy brings for its decision entry (pimc's), and ``work_f``, the float64 work space of the native entries,
    as long as the longest ``native_work`` of the seats' strategies; ``natives`` int64[4, N_NATIVES], per seat the
    addresses of the entries its strategy brings (slots of simkit.strategies.natives), 0 where it brings none:
    simkit.strategies.natives.seat_natives), so it is compiled
    without reference counting (``_nrt=False``): numba's atomic incref/decref of every array passed to a strategy
    took about a third of a heuristic deal's time."""
    n = hands.shape[0]
    hs = params[P_HAND_SIZE]
    ruf_masks = suit_mask[0]
    tracing = trace_legal.shape[0] > 0
    run_min = params[P_RUN_AWAY_MIN]
    max_dbl = params[P_MAX_DOUBLINGS]
    re_partner = params[P_RE_BY_PARTNER] != 0
    fk = forced[0]
    given = forced[4] != 0
    passer = forced[5]
    deck = params[P_DECK_MASK]
    klopfen = params[P_KLOPFEN] != 0
    n_seen = params[P_KLOPFEN_CARDS]
    all_pass_ramsch = params[P_ALL_PASS] == 1
    stichzwang = params[P_STICHZWANG] != 0
    sie_hand = sie_mask(hs)
    p_info = _data_ptr(info)  # the heuristic's play_kernel takes data pointers
    p_strength = _data_ptr(strength)
    p_eff = _data_ptr(eff_suit)
    for i in range(n):
        idx = start + i
        if given:  # hands given by the caller (simkit.evaluate): row i of ``hands`` as filled in
            h0, h1, h2, h3 = hands[i, 0], hands[i, 1], hands[i, 2], hands[i, 3]
        else:
            h0, h1, h2, h3 = _deal_row(seed, idx, cards, work, hs, hands, i)
        hw[0] = np.int64(h0)
        hw[1] = np.int64(h1)
        hw[2] = np.int64(h2)
        hw[3] = np.int64(h3)
        # ---- public state at the deal's start
        _info_new_deal(info, idx, hs)
        for s in range(4):
            rngs[s] = np.int64(stream_state(seed, idx, STREAM_STRATEGY + s))
            if keep[s]:
                for j in range(N_SCRATCH):
                    scratch[s, j] = 0
        impossible[i] = False
        # ---- Klopfen (RULES.md 4.1): each seat from 0, on the cards it has seen (drawn from the deal's own
        # stream, docs/club-rules.md); nothing is drawn when the ruleset has no Klopfen
        nk = 0
        if klopfen:
            info_klopfen(info)
            kx, ks_state = next_u64(stream_state(seed, idx, STREAM_KLOPFEN))  # 32 random bits a seat
            ky, ks_state = next_u64(ks_state)
            for s in range(4):
                h32 = ((kx if s < 2 else ky) >> np.uint64(32 * (s & 1))) & np.uint64(0xFFFFFFFF)
                seen = _seen_cards(hw[s], hs, n_seen, h32)
                _enter(info, s, rngs, scratch, keep)
                a = _call_klopfen(sids[s], klop_fns, seen, s, info, strength, eff_suit, params, configs[s])
                _leave(info, s, rngs, scratch, keep)
                if a != 0 and a != 1:
                    _fail(err, idx, s, DECISION_KLOPFEN, a, 0, 0, seen)
                    return i
                if a == 1:
                    info_knock(info, s)
                    nk += 1
            info_start_bidding(info)
        knocked[i] = info[I_KNOCKED]
        durchmarsch[i] = False
        jungfrauen[i] = 0
        # ---- bidding or the forced contract
        k = -1
        su = -1
        tt = 0
        decl = -1
        if fk < 0:
            best = -1
            for s in range(4):
                if s == passer:  # this seat's pass is forced (simkit.evaluate: what passing is worth)
                    b = PASS
                else:
                    _enter(info, s, rngs, scratch, keep)
                    b = _call_bid(sids[s], bid_fns, hw[s], s, info, strength, eff_suit, params, configs[s],
                                  work_f, natives, suit_mask, lorder, n_trumps, lauf_min, base_price, points,
                                  decide_ws)
                    _leave(info, s, rngs, scratch, keep)
                bids[i, s] = b
                _info_bid(info, s, b)
                r = bid_rank(b, hw[s], params, ruf_masks)
                if r == -2:
                    _fail(err, idx, s, DECISION_BID, b, 0, 0, hw[s])
                    return i
                if r > best:
                    best = r
                    decl = s
            if decl >= 0:
                b = bids[i, decl]
                k = b & 7
                su = ((b >> 3) & 7) - 1
                tt = (b >> 6) & 1
        else:
            for s in range(4):
                bids[i, s] = NOT_ASKED
            k = fk
            su = forced[1]
            tt = forced[2]
            decl = forced[3]
            if k == SIE and hw[decl] != sie_hand:  # a forced Sie needs the Sie hand
                impossible[i] = True
                decl = -1
            if k == RUFSPIEL:
                hd = hw[decl]
                if su < 0:  # a uniformly random callable suit
                    cnt = 0
                    for x in (0, 1, 3):
                        if ((hd >> np.int64(8 * x + 7)) & 1) == 0 and (hd & np.int64(ruf_masks[x])) != 0:
                            cnt += 1
                    if cnt > 0:
                        rs = stream_state(seed, idx, STREAM_FORCED)
                        r, rs = below(rs, cnt)
                        for x in (0, 1, 3):
                            if ((hd >> np.int64(8 * x + 7)) & 1) == 0 and (hd & np.int64(ruf_masks[x])) != 0:
                                if r == 0:
                                    su = x
                                    break
                                r -= 1
                if su < 0 or ((hd >> np.int64(8 * su + 7)) & 1) != 0 or (hd & np.int64(ruf_masks[su])) == 0:
                    impossible[i] = True
                    decl = -1
        # an all-pass deal is a Ramsch with all_pass = "ramsch" (or forced); a throw-in or a stock payment (settled
        # after the kernel, simkit.sim) stays a passed row
        ramsch = k == RAMSCH or (decl < 0 and fk < 0 and all_pass_ramsch)
        if decl < 0 and not ramsch:  # passed (or an impossible forced contract)
            kind[i] = -1
            suit[i] = -1
            tout[i] = False
            declarer[i] = -1
            partner[i] = -1
            doublings[i] = 0
            kontra_seat[i] = -1
            re_seat[i] = -1
            _clear_row(i, declarer_points, defender_points, declarer_tricks, partner, laufende_, laufende_mit,
                       schneider, schwarz, won, price, payouts)
            continue
        if ramsch:
            k = RAMSCH
            su = -1
            tt = 0
        v = variant_code(k, su)
        called = su if k == RUFSPIEL else -1
        is_tout = tt != 0
        kind[i] = k
        suit[i] = su
        tout[i] = is_tout
        declarer[i] = decl
        _info_contract(info, k, su, tt, decl, v)
        called_mask = np.int64(suit_mask[v, called]) if called >= 0 else np.int64(0)
        if ramsch:  # everyone for himself: no side collects (each seat's points and tricks are in info)
            pt, searched, ace_bit, team = -1, True, np.int64(0), np.int64(0)
            lauf, mit = 0, False
        else:
            pt, searched, ace_bit, team, team_cards = _called_ace_setup(hw, called, decl, called_mask)
            if k == BETTEL:  # no trumps, no Laufende
                lauf, mit = 0, False
            elif k == SIE:  # the Laufende are the cards of the hand (docs/club-rules.md)
                lauf, mit = hs, True
            else:
                lauf, mit = _laufende(team_cards, lorder[v], n_trumps[v])
        partner[i] = pt
        # ---- Kontra and Re (none in a Ramsch)
        dbl = 0
        ks = -1
        rse = -1
        if max_dbl >= 1 and not ramsch:
            for s in range(4):
                if s == decl or s == pt:
                    continue
                _enter(info, s, rngs, scratch, keep)
                a = _call_double(sids[s], dbl_fns, hw[s], s, info, strength, eff_suit, params, configs[s],
                                 natives, suit_mask, lorder, n_trumps, lauf_min, base_price, points, decide_ws)
                _leave(info, s, rngs, scratch, keep)
                if a != 0 and a != 1:
                    _fail(err, idx, s, DECISION_DOUBLE, a, 0, 0, hw[s])
                    return i
                if a == 1:
                    ks = s
                    dbl = 1
                    _info_kontra(info, s)
                    break
            if dbl == 1 and max_dbl >= 2:
                for q in range(2):
                    s = decl if q == 0 else pt
                    if q == 1 and (pt < 0 or not re_partner):
                        break
                    _enter(info, s, rngs, scratch, keep)
                    a = _call_double(sids[s], dbl_fns, hw[s], s, info, strength, eff_suit, params,
                                     configs[s], natives, suit_mask, lorder, n_trumps, lauf_min, base_price,
                                     points, decide_ws)
                    _leave(info, s, rngs, scratch, keep)
                    if a != 0 and a != 1:
                        _fail(err, idx, s, DECISION_DOUBLE, a, 1, 0, hw[s])
                        return i
                    if a == 1:
                        rse = s
                        dbl = 2
                        _info_re(info, s)
                        break
        doublings[i] = dbl
        kontra_seat[i] = ks
        re_seat[i] = rse
        # ---- play
        _info_start_play(info)
        htm = np.int64(suit_mask[v, TRUMP])  # the contract's trumps (= heuristic._trump_mask for the classic six)
        stich = stichzwang and k == BETTEL
        classic = k < BETTEL  # the native play entries (people) know only the six classic contracts
        sv = strength[v]
        ev = eff_suit[v]
        leader = 0
        dp = 0
        fp = 0
        dt = 0
        played = np.int64(0)
        for t in range(hs):
            info_start_trick(info, t, leader)
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
                if stich and kk > 0 and (hand & np.int64(suit_mask[v, led])) != 0:
                    legal = must_beat(legal, best_str, sv)
                info_to_play(info, kk)
                _enter(info, seat, rngs, scratch, keep)
                # the play chain of simkit.strategies.dispatch, written out: inlining a helper here made the whole
                # kernel 1.4x slower (measured, numba 0.68), the same if-chain written here does not
                sid = sids[seat]
                if sid == dispatch.S_RANDOM:
                    c = random_card(legal, info)  # = random_play.play
                elif sid == dispatch.S_HEURISTIC:
                    if (legal & (legal - 1)) == 0:  # one legal card: what heuristic.play returns, without the call
                        c = cttz(legal)
                    else:  # heuristic.play given the trick so far (the kernel's best card, its seat, points)
                        c = _h_play(hand, legal, seat, p_info, p_strength, p_eff, _data_ptr(configs[seat]), deck,
                                    htm, deck & ~played & ~hand, best_card if kk > 0 else -1, best_seat, tp)
                elif sid == dispatch.S_NATIVE:  # the entries the seat's strategy brings (simkit.strategies.natives)
                    if (legal & (legal - 1)) == 0:
                        c = cttz(legal)
                    elif natives[seat, N_PLAY] != 0 and classic:
                        c = play_at(natives[seat, N_PLAY], hand, legal, seat, p_info, p_strength, p_eff,
                                    _data_ptr(configs[seat]), configs.shape[1], deck, htm, deck & ~played & ~hand,
                                    best_card if kk > 0 else -1, best_seat, tp, _data_ptr(work_f))
                    else:  # the decision entry is given the heuristic's card (pimc: its tie-break), or it is the card
                        c = _h_play(hand, legal, seat, p_info, p_strength, p_eff, _data_ptr(configs[seat]), deck,
                                    htm, deck & ~played & ~hand, best_card if kk > 0 else -1, best_seat, tp)
                        # asked in every contract: the entry chooses what it searches (pimc: a Bettel; a Ramsch
                        # only near its end, where a world fits its node budget; a Sie never)
                        if natives[seat, N_DECIDE] != 0:
                            c = decide_at(natives[seat, N_DECIDE], hand, legal, seat, info, strength, eff_suit,
                                          params, configs[seat], c, suit_mask, lorder, n_trumps, lauf_min,
                                          base_price, points, decide_ws)
                else:
                    c = play_fns[seat](hand, legal, seat, info, strength, eff_suit, params, configs[seat])
                _leave(info, seat, rngs, scratch, keep)
                if c < 0 or c > 31 or ((legal >> c) & 1) == 0:
                    _fail(err, idx, seat, DECISION_PLAY, c, t, legal, hand)
                    return i
                if tracing:
                    trace_legal[i, 4 * t + kk] = legal
                    trace_played[i, 4 * t + kk] = c
                bit = np.int64(1) << c
                hw[seat] = hand & ~bit
                played |= bit
                info_card(info, t, kk, seat, c, played, bit == ace_bit)
                tp += points[c]
                led, best_seat, best_eff, best_str = trick_step(kk, seat, ev[c], sv[c], led, best_seat, best_eff,
                                                                best_str)
                if best_seat == seat:  # this card leads the trick now (each seat plays once per trick)
                    best_card = c
                seat = (seat + 1) & 3
            searched_now = led == called
            if searched_now:
                searched = True
            if (team >> np.int64(best_seat)) & 1:
                dp += tp
                dt += 1
            else:
                fp += tp
            info_end_trick(info, t, best_seat, tp, searched_now)
            leader = best_seat
        if ramsch:
            decl, dm, jf, pr, p0, p1, p2, p3 = _ramsch_score(
                (info[I_POINTS], info[I_POINTS + 1], info[I_POINTS + 2], info[I_POINTS + 3]),
                (info[I_TRICKS_WON], info[I_TRICKS_WON + 1], info[I_TRICKS_WON + 2], info[I_TRICKS_WON + 3]),
                (_high_trump(info[I_PLAYED_BY], htm, sv), _high_trump(info[I_PLAYED_BY + 1], htm, sv),
                 _high_trump(info[I_PLAYED_BY + 2], htm, sv), _high_trump(info[I_PLAYED_BY + 3], htm, sv)),
                hs, params, nk)
            declarer[i] = decl
            dp = info[I_POINTS + decl]
            fp = info[I_POINTS] + info[I_POINTS + 1] + info[I_POINTS + 2] + info[I_POINTS + 3] - dp
            dt = info[I_TRICKS_WON + decl]
            w, sn, sw = dm, False, False
            durchmarsch[i] = dm
            jungfrauen[i] = jf
        elif k >= BETTEL:
            w, sn, sw, pr, p0, p1, p2, p3 = _club_score(k == SIE, dt, hs, base_price[v], params, dbl + nk, team)
        else:
            w, sn, sw, pr, p0, p1, p2, p3 = _score(dp, dt, is_tout, hs, lauf, lauf_min[v], base_price[v], params,
                                                  dbl + nk, team, pt)
        declarer_points[i] = dp
        defender_points[i] = fp
        declarer_tricks[i] = dt
        laufende_[i] = lauf
        laufende_mit[i] = mit
        schneider[i] = sn
        schwarz[i] = sw
        won[i] = w
        price[i] = pr
        payouts[i, 0] = p0
        payouts[i, 1] = p1
        payouts[i, 2] = p2
        payouts[i, 3] = p3
    return n


# ------------------------------------------------------------------------------------------ compilation

def _arr(dtype, ndim):
    return types.Array(dtype, ndim, "C")


_I64, _I8, _U8, _B, _U32 = types.int64, types.int8, types.uint8, types.boolean, types.uint32
KERNEL_SIG = types.int64(
    types.uint64, _I64, _arr(_I64, 1), _arr(_B, 1),
    types.UniTuple(types.FunctionType(BID_SIG), 4), types.UniTuple(types.FunctionType(DOUBLE_SIG), 4),
    types.UniTuple(types.FunctionType(PLAY_SIG), 4), types.UniTuple(types.FunctionType(KLOPFEN_SIG), 4),
    _arr(types.float64, 2),
    _arr(types.int16, 2), _arr(_I8, 2), _arr(_U32, 2), _arr(_I8, 2), _arr(_I8, 1), _arr(_I64, 1), _arr(_I64, 1),
    _arr(_I64, 1), _arr(_I64, 1), _arr(_I64, 1),
    _arr(_U32, 2), _arr(_I64, 2), _arr(_I8, 1), _arr(_I8, 1), _arr(_B, 1), _arr(_I8, 1), _arr(_I8, 1),
    _arr(_U8, 1), _arr(_I8, 1), _arr(_I8, 1), _arr(_B, 1),
    _arr(_U8, 1), _arr(_U8, 1), _arr(_U8, 1), _arr(_U8, 1), _arr(_B, 1), _arr(_B, 1), _arr(_B, 1), _arr(_B, 1),
    _arr(_I64, 1), _arr(types.int32, 2), _arr(_U8, 1), _arr(_B, 1), _arr(_U8, 1), _arr(_U32, 2), _arr(_I8, 2),
    _arr(_I64, 1),
    _arr(_I8, 1), _arr(_I8, 1), _arr(_I64, 1), _arr(_I64, 1), _arr(_I64, 1), _arr(_I64, 2), WORKSPACE_TYPE,
    _arr(types.float64, 1), _arr(_I64, 2),
)

_DISPATCHER = stamp(njit(cache=True, _nrt=False)(_games_py), _STAMP)  # compiled on first use


def _compile():
    from simkit.engine.notices import compile_notice

    disp = _DISPATCHER
    with warnings.catch_warnings(), compile_notice("the game kernel"):
        warnings.simplefilter("ignore", NumbaExperimentalFeatureWarning)
        disp.compile(KERNEL_SIG)
    disp.disable_compile()
    return disp


_KERNEL = []


def kernel():
    """The whole-deal kernel, compiled (or loaded from the cache) when first asked for, with a compile notice."""
    if not _KERNEL:
        _KERNEL.append(_compile())
    return _KERNEL[0]


def __getattr__(name):
    if name == "games_kernel":  # the kernel under its old name
        return kernel()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


# ------------------------------------------------------------------------------------------ Python API

RESULT_COLUMNS = ("declarer_points", "defender_points", "declarer_tricks", "laufende", "laufende_mit", "schneider",
                  "schwarz", "won", "price", "payouts", "knocked", "durchmarsch", "jungfrauen")


def _new_columns(n: int) -> dict[str, np.ndarray]:
    return dict(
        hands=np.empty((n, 4), np.uint32), bids=np.empty((n, 4), np.int64), kind=np.empty(n, np.int8),
        suit=np.empty(n, np.int8), tout=np.empty(n, np.bool_), declarer=np.empty(n, np.int8),
        partner=np.empty(n, np.int8), doublings=np.empty(n, np.uint8), kontra_seat=np.empty(n, np.int8),
        re_seat=np.empty(n, np.int8), impossible=np.empty(n, np.bool_),
        declarer_points=np.empty(n, np.uint8), defender_points=np.empty(n, np.uint8),
        declarer_tricks=np.empty(n, np.uint8), laufende=np.empty(n, np.uint8), laufende_mit=np.empty(n, np.bool_),
        schneider=np.empty(n, np.bool_), schwarz=np.empty(n, np.bool_), won=np.empty(n, np.bool_),
        price=np.empty(n, np.int64), payouts=np.empty((n, 4), np.int32), knocked=np.empty(n, np.uint8),
        durchmarsch=np.empty(n, np.bool_), jungfrauen=np.empty(n, np.uint8),
    )


_KERNEL_ORDER = ("hands", "bids", "kind", "suit", "tout", "declarer", "partner", "doublings", "kontra_seat",
                 "re_seat", "impossible", "declarer_points", "defender_points", "declarer_tricks", "laufende",
                 "laufende_mit", "schneider", "schwarz", "won", "price", "payouts", "knocked", "durchmarsch",
                 "jungfrauen")


def _forced_args(contract, declarer) -> np.ndarray:
    from simkit.rules.contracts import Contract, ContractError, parse_kind

    if contract is None:
        if declarer is not None:
            raise ValueError("declarer= needs contract= (forced mode)")
        return np.array([-1, -1, 0, -1], np.int64)
    if (contract.kind if isinstance(contract, Contract) else None if isinstance(contract, (tuple, list))
            else parse_kind(contract)) == RAMSCH:
        if declarer is not None:
            raise ValueError("a forced Ramsch has no declarer (everyone plays for himself): leave declarer= out")
        return np.array([RAMSCH, -1, 0, -1], np.int64)
    if declarer is None or int(declarer) not in range(4):
        raise ValueError(f"forced mode needs declarer= a seat 0..3, not {declarer!r}")
    if isinstance(contract, Contract):
        k, s, t = contract.kind, contract.suit, contract.tout
    elif isinstance(contract, (tuple, list)):
        k, s, t = (tuple(contract) + (None, False))[:3]
        c = Contract.parse(k, s, t) if not (parse_kind(k) == RUFSPIEL and s is None) else None
        k, s, t = (c.kind, c.suit, c.tout) if c else (RUFSPIEL, None, bool(t))
    else:
        k, s, t = parse_kind(contract), None, False
        if k in (SOLO, FARBWENZ, FARBGEIER):
            raise ContractError(f"{contract} needs a trump suit: pass contract=({contract!r}, suit)")
    if k == RUFSPIEL and t:
        raise ContractError("a Rufspiel cannot be played Tout")
    return np.array([k, -1 if s is None else s, int(bool(t)), int(declarer)], np.int64)


def play_games(seed: int, start: int, n: int, ruleset=None, seats=("heuristic",) * 4, trace: bool = False,
               contract=None, declarer: int | None = None, hands=None, passer: int | None = None
               ) -> dict[str, np.ndarray]:
    """Play complete deals ``start .. start+n-1`` of run ``seed`` and return one row per deal.

    ``seats``: four strategies (names for ``simkit.strategies.resolve`` or Strategy objects), or one for all.
    ``contract``/``declarer``: forced mode (no bidding): ``contract`` is a Contract, a kind name, or a tuple
    ``(kind, suit[, tout])``; a Rufspiel without a suit calls a random callable suit.
    ``hands``: uint32[n, 4] hands to play instead of dealing deal ``start + i`` from the seed (row ``i`` is deal
    index ``start + i`` for the strategies' random streams); each row four disjoint hands of the deck's hand size.
    ``passer``: a seat whose bid is a forced pass (the others bid as their strategies do); not with ``contract``.

    Columns: ``deal_id`` int64 (start + i), ``hands`` uint32[n, 4], ``bids`` int64[n, 4] (bid codes of
    simkit.strategies.api; NOT_ASKED in forced mode), ``kind`` int8 (-1: passed or impossible), ``suit`` int8
    (called suit of a Rufspiel, trump suit of Farbsolo/Farbwenz/Farbgeier, else -1), ``tout`` bool, ``declarer``,
    ``partner`` int8 (-1), ``doublings`` uint8 (0, 1 Kontra, 2 Re), ``kontra_seat``, ``re_seat`` int8 (-1),
    ``impossible`` bool (forced Rufspiel the declarer cannot call), and the result fields of simkit.engine.batch
    (``declarer_points``, ``defender_points``, ``declarer_tricks``, ``laufende``, ``laufende_mit``,
    ``schneider``, ``schwarz``, ``won``, ``price``, ``payouts`` int32[n, 4]); zeros for passed rows; the club
    rules' ``knocked`` uint8 (a bit per seat that knocked), ``durchmarsch`` bool and ``jungfrauen`` uint8 (of a
    Ramsch; docs/club-rules.md says what a Ramsch, Bettel or Sie row holds). ``contract`` may also be "bettel",
    "sie" (with a declarer) or "ramsch" (without). With
    ``trace``: ``trace_legal`` uint32[n, 4*h], ``trace_played`` int8[n, 4*h] (layout of simkit.engine.batch).

    Raises :class:`simkit.strategies.StrategyError` when a strategy makes an impossible choice.
    """
    from simkit.engine.batch import tables_for
    from simkit.rules.ruleset import load_ruleset
    from simkit.strategies import StrategyError, seat_strategies

    rules = load_ruleset(ruleset) if not _is_ruleset(ruleset) else ruleset
    t = tables_for(rules)
    strategies = seat_strategies(seats)
    n = int(n)
    if n < 0:
        raise ValueError("n must not be negative")
    forced = np.concatenate([_forced_args(contract, declarer), [0, -1]])
    if passer is not None:
        if contract is not None or int(passer) not in range(4):
            raise ValueError(f"passer= must be a seat 0..3 and needs bidding (no contract=), not {passer!r}")
        forced[5] = int(passer)
    if hands is not None:
        hands = _given_hands(hands, n, t)
        forced[4] = 1
    sids = np.array([s.builtin_id for s in strategies], np.int64)
    keep = np.array([s.uses_scratch for s in strategies], np.bool_)
    fns = [tuple(s.fn(j) for s in strategies) for j in range(4)]
    bound = [s.config_for(rules) for s in strategies]
    configs = np.zeros((4, max(1, max(len(c) for c in bound))), np.float64)
    for j, c in enumerate(bound):
        configs[j, : len(c)] = c
    out = _new_columns(n)
    if hands is not None:
        out["hands"][:] = hands
    ncols = 4 * t.hand_size
    tl = np.zeros((n if trace else 0, ncols), np.uint32)
    tp = np.zeros((n if trace else 0, ncols), np.int8)
    err = np.zeros(ERR_SIZE, np.int64)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", NumbaExperimentalFeatureWarning)
        done = kernel()(np.uint64(seed), np.int64(start), sids, keep, fns[0], fns[1], fns[2], fns[3], configs,
                            t.strength, t.eff_suit, t.suit_mask, t.laufende_order, t.n_trumps, t.lauf_min,
                            t.base_price, t.points, t.params, forced, *(out[k] for k in _KERNEL_ORDER),
                            tl, tp, err, deck_cards(np.uint32(t.params[P_DECK_MASK])), np.zeros(32, np.int8),
                            np.zeros(4, np.int64), np.zeros(INFO_SIZE, np.int64), np.zeros(4, np.int64),
                            np.zeros((4, N_SCRATCH), np.int64), _workspace(strategies, t),
                            np.zeros(max([1] + [s.native_work for s in strategies]), np.float64),
                            seat_natives(strategies))
    if done < n:
        raise StrategyError.from_kernel(err, strategies, rules, {k: v[done] for k, v in out.items()})
    out = {"deal_id": np.arange(start, start + n, dtype=np.int64), **out}
    if trace:
        out["trace_legal"] = tl
        out["trace_played"] = tp
    return out


def prepare(strategies=("heuristic",)) -> None:
    """Compile (or load) the kernel and every kernel that :func:`play_games` with seats of these ``strategies``
    (names or Strategy objects) calls by address (pimc, people): before forking workers, so that they inherit
    them instead of each compiling its own."""
    from simkit.strategies import resolve

    kernel()
    for s in strategies:
        resolve(s).natives()


def _workspace(strategies, rule_tables) -> tuple:
    """The workspace of the seats' decision entry: the first seat strategy's that brings one (pimc: the solver's
    table and the sampler's arrays; the seats of one call share it), an empty one of the same types if none."""
    for s in strategies:
        ws = s.workspace(rule_tables)
        if ws is not None:
            return ws
    return empty_workspace()


def _given_hands(hands, n: int, t) -> np.ndarray:
    """``hands`` as uint32[n, 4], checked: every hand of the deck's size, inside the deck, no card twice."""
    h = np.ascontiguousarray(hands, dtype=np.uint32)
    if h.shape != (n, 4):
        raise ValueError(f"hands= must have shape ({n}, 4), not {h.shape}")
    union = h[:, 0] | h[:, 1] | h[:, 2] | h[:, 3]
    bad = (np.bitwise_count(h) != t.hand_size).any(axis=1) | ((union & ~np.uint32(t.deck_mask)) != 0)
    bad |= np.bitwise_count(union) != 4 * t.hand_size  # disjoint: the union holds every card once
    if bad.any():
        raise ValueError(f"hands= row {int(np.flatnonzero(bad)[0])} is not a deal of the deck")
    return h


def _is_ruleset(x) -> bool:
    from simkit.rules.ruleset import Ruleset

    return isinstance(x, Ruleset)


stamp_module(globals(), DEPENDENCIES)
