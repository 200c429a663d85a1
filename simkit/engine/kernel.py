"""The whole-deal kernel: legal moves, tricks, the called-ace rules, Laufende, scoring and payouts.

Everything is ``@njit(cache=True)``. The kernel reads only the rule tables of simkit.rules.tables (passed as
separate arrays); there is no per-contract branch in the trick loop, only the Rufspiel's called-ace state, which
is switched off (``searched = True``) for every other contract.

Conventions: seat 0 leads the first trick, play goes clockwise (seat + 1 mod 4), the trick winner leads next.
Masks are handled as int64 inside the kernel (only the low 32 bits are ever set).

Policy seam
-----------
:func:`choose_card` is the single place a card is chosen. It dispatches on an integer ``policy`` id with an ``if``
chain (DESIGN.md: ~0.4 ns and the on-disk cache survives). A policy gets:

* ``legal``: the mask of legal cards (never empty); it must return one of them;
* ``hand``: the mask of the seat's remaining cards (its own hand only), ``seat``;
* ``played``: the mask of every card played so far in the deal (earlier tricks and the current one);
* ``trick``: int8[4] the cards of the current trick in play order, ``n_in_trick`` of them valid (0 = leading),
  ``leader`` the seat that led it, ``trick_no`` 0-based;
* the contract: ``variant`` (0..14), ``called`` suit (-1 unless Rufspiel), ``tout``, ``declarer``;
* ``strength``, ``eff_suit`` rows of the rule tables for this variant (int16[32], int8[32]);
* ``rng``: the uint64 splitmix64 state of the deal's play stream; it returns ``(card, rng)``.

A fair policy must not look at the other seats' hands; none are passed. Policy 0 (:data:`POLICY_RANDOM`) is
uniform over the legal cards: ``n = popcount(legal)``; if ``n == 1`` that card (no draw); else
``r = below(rng, n)`` (splitmix64 output's high 32 bits mod n) and the r-th set bit, lowest card index first.
Add a policy by adding an ``elif policy == ...`` branch (and its constant).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from simkit.engine.bits import cttz, nth_bit, popcount
from simkit.engine.deal import deal_row, deck_cards, setup_one
from simkit.engine.deal import DEPENDENCIES as _DEAL_DEPS
from simkit.engine.jitcache import announce, files, jit, source_stamp, stamp_module
from simkit.engine.rng import STREAM_PLAY, below, stream_state
from simkit.rules.tables import (
    DURCHMARSCH_ALL,
    DURCHMARSCH_NONE,
    P_BASE_SOLO,
    P_DURCHMARSCH,
    P_HAND_SIZE,
    P_JUNGFRAU,
    P_LAUF_RATE,
    P_RAMSCH_PRICE,
    P_RAMSCH_TIE,
    P_RUN_AWAY_MIN,
    P_SCHNEIDER,
    P_SCHWARZ,
    P_TOUT_MULT,
    P_TOUT_MULT_LAUF,
    TRUMP,
)

#: the files its kernels compile in: the on-disk cache is keyed on all of them (simkit.engine.jitcache)
DEPENDENCIES = files("engine/kernel") + _DEAL_DEPS

POLICY_RANDOM = 0
POLICY_LOWEST = 1  # the lowest card index among the legal cards (deterministic; handy in tests)


@njit(cache=True, inline="always")
def choose_card(policy, legal, hand, seat, played, trick, n_in_trick, leader, trick_no,
                variant, called, tout, declarer, strength_row, eff_row, rng):
    """Pick one card of ``legal`` for ``seat`` (see the module docstring for what a policy may see)."""
    if policy == POLICY_RANDOM:
        n = popcount(legal)
        if n == 1:
            return cttz(legal), rng
        r, rng = below(rng, n)
        return nth_bit(legal, r), rng
    # POLICY_LOWEST and any unknown id
    return cttz(legal), rng


@njit(cache=True, inline="always")
def laufende(team_cards, order, n_trumps):
    """(count, mit): consecutive trumps from the top of ``order`` held by the side that holds the top trump;
    ``mit`` is True when that side is the one whose cards are ``team_cards`` (the declaring side)."""
    side = (team_cards >> np.int64(order[0])) & 1
    n = 1
    while n < n_trumps and ((team_cards >> np.int64(order[n])) & 1) == side:
        n += 1
    return n, side == 1


@njit(cache=True, inline="always")
def called_ace_setup(hw, called, declarer, called_mask):
    """The Rufspiel's called-ace state from the dealt hands ``hw`` (int64[4]); ``called`` -1 for every other
    contract. Returns (partner, searched, ace_bit, team, team_cards): ``searched`` True switches the called-ace
    rules off (no called suit); ``team`` is the bit set of the declaring side's seats, ``team_cards`` its cards."""
    partner = -1
    searched = True
    ace_bit = np.int64(0)
    if called >= 0:
        ace_bit = np.int64(1) << np.int64(8 * called + 7)
        for s in range(4):
            if hw[s] & ace_bit:
                partner = s
        searched = False
    team = np.int64(1) << np.int64(declarer)
    team_cards = hw[declarer]
    if partner >= 0:
        team |= np.int64(1) << np.int64(partner)
        team_cards |= hw[partner]
    return partner, searched, ace_bit, team, team_cards


@njit(cache=True, inline="always")
def legal_cards(hand, k, follow, led_called, holder, ace_bit, called_mask, run_min):
    """The legal cards (mask) of a seat holding ``hand`` as the k-th card of a trick (RULES.md 2.4).

    ``follow``: the cards of the led effective suit (ignored when k == 0); ``led_called``: the trick was led
    with the called suit; ``holder``: the seat holds the called ace and the called suit is not yet searched
    (always False outside a Rufspiel); ``called_mask``: the called suit's non-trump cards; ``run_min``: cards
    of the called suit needed to run away."""
    if k == 0:
        legal = hand
        if holder and (hand & (hand - 1)) != 0:
            cs = hand & called_mask
            if popcount(cs) < run_min:  # may not run away: no low called-suit card
                legal = hand & ~(cs & ~ace_bit)
        return legal
    f = hand & follow
    legal = f if f != 0 else hand
    if holder:
        if led_called:
            legal = ace_bit  # rule 1: the searched ace must be played
        elif f == 0:
            x = hand & ~ace_bit  # rule 2: no discarding the ace, unless it is the last card
            if x != 0:
                legal = x
    return legal


@njit(cache=True, inline="always")
def must_beat(legal, best_str, sv):
    """Stichzwang (RULES.md 4.2, ``[bettel] stichzwang``): a player following suit must beat the trick's best card
    (strength ``best_str``; in a Bettel it is always of the led suit) if he can: of ``legal`` (his cards of the
    led suit) those stronger than it, or ``legal`` when none is."""
    m = legal
    beat = np.int64(0)
    while m:
        c = cttz(m)
        m &= m - 1
        if sv[c] > best_str:
            beat |= np.int64(1) << np.int64(c)
    return beat if beat != 0 else legal


@njit(cache=True, inline="always")
def trick_step(k, seat, e, st, led, best_seat, best_eff, best_str):
    """Fold the k-th card of a trick (effective suit ``e``, strength ``st``, played by ``seat``) into the trick
    state; returns (led, best_seat, best_eff, best_str)."""
    if k == 0:
        return e, seat, e, st
    if (e == best_eff or e == TRUMP) and st > best_str:
        return led, seat, e, st
    return led, best_seat, best_eff, best_str


@njit(cache=True, inline="always")
def spread(won, price, team, solo):
    """The payouts of a deal settled at ``price``: each seat of ``team`` (a bit per seat) gets +price if the
    declaring side ``won`` (else -price), three times that when ``solo`` (one seat against three); every other
    seat the opposite. Returns (payout0, payout1, payout2, payout3). :func:`score` and :func:`club_score` share it."""
    sign = price if won else -price
    mine = 3 * sign if solo else sign
    p0 = mine if team & 1 else -sign
    p1 = mine if team & 2 else -sign
    p2 = mine if team & 4 else -sign
    p3 = mine if team & 8 else -sign
    return p0, p1, p2, p3


@njit(cache=True, inline="always")
def score(dp, dt, tout, hs, lauf, lauf_min_v, base_v, params, dbl, team, partner):
    """Result of a played deal (RULES.md 2.5, 2.6): declaring side's points ``dp`` and tricks ``dt``, hand size
    ``hs``, Laufende ``lauf``; returns (won, schneider, schwarz, price, payout0, payout1, payout2, payout3)."""
    if tout:
        won = dt == hs
        schneider = False
        schwarz = False
    else:
        won = dp >= 61
        schneider = (won and dp >= 91) or ((not won) and dp <= 30)
        schwarz = dt == 0 or dt == hs
    rate = params[P_LAUF_RATE]
    lpay = rate * lauf if lauf >= lauf_min_v else 0
    if tout:
        mult = params[P_TOUT_MULT]
        if params[P_TOUT_MULT_LAUF] != 0:
            price = mult * (base_v + lpay)
        else:
            price = mult * base_v + lpay
    else:
        price = base_v + lpay
        if schneider:
            price += params[P_SCHNEIDER]
        if schwarz:
            price += params[P_SCHWARZ]
    price = price << np.int64(dbl)
    p0, p1, p2, p3 = spread(won, price, team, partner < 0)
    return won, schneider, schwarz, price, p0, p1, p2, p3


@njit(cache=True, inline="always")
def club_score(sie, dt, hs, base_v, params, dbl, team):
    """Result of a Bettel (``sie`` False: won iff the declarer took no trick ``dt``; price ``base_v``, the Bettel
    price) or a Sie (won; price 4 x (solo base + Laufende rate x hand size ``hs``)), ``dbl`` doublings and knocks
    together; no Laufende, Schneider or Schwarz; paid as a solo by the declarer's seat (the one bit of ``team``).
    Returns what :func:`score` returns."""
    if sie:
        won = True
        price = 4 * (params[P_BASE_SOLO] + params[P_LAUF_RATE] * hs)
    else:
        won = dt == 0
        price = base_v
    price = price << np.int64(dbl)
    p0, p1, p2, p3 = spread(won, price, team, True)
    return won, False, False, price, p0, p1, p2, p3


@njit(cache=True, inline="always")
def ramsch_score(pts, tricks, high, hs, params, knocks):
    """Result of a Ramsch (RULES.md 4.4, docs/club-rules.md): ``pts``, ``tricks`` and ``high`` (the strength of the
    highest trump the seat played, 0 for none) are 4-tuples by seat, ``knocks`` the Klopfen doublings. Returns
    (seat, durchmarsch, jungfrauen, price, payout0..3): ``seat`` the Durchmarsch winner or else the loser (most
    points; ties by ``[ramsch] tie``, then the earliest seat), ``jungfrauen`` the players without a trick."""
    price = params[P_RAMSCH_PRICE] << np.int64(knocks)
    dm = params[P_DURCHMARSCH]
    more_tricks = params[P_RAMSCH_TIE] == 1
    jf = 0
    for s in range(4):
        if tricks[s] == 0:
            jf += 1
    seat = -1
    if dm != DURCHMARSCH_NONE:
        for s in range(4):  # every trick wins under every option; N points (61..120) under a threshold
            if tricks[s] == hs or (dm != DURCHMARSCH_ALL and pts[s] >= dm):
                seat = s
    if seat >= 0:
        # the winner is paid the price by each other player (no Jungfrau doubling of a Durchmarsch)
        return (seat, True, jf, price, 3 * price if seat == 0 else -price, 3 * price if seat == 1 else -price,
                3 * price if seat == 2 else -price, 3 * price if seat == 3 else -price)
    seat = 0
    key = 0
    for s in range(4):
        # tie-break key among equal points: (tricks with "more-tricks"), then the highest trump played (< 256)
        k = (tricks[s] * 256 + high[s]) if more_tricks else high[s]
        if s == 0 or pts[s] > pts[seat] or (pts[s] == pts[seat] and k > key):
            seat = s
            key = k
    jm = params[P_JUNGFRAU]  # 0 none, 1 double-all, 2 double-each, 3 double-each-multiple
    g0 = g1 = g2 = g3 = 0
    total = 0
    for s in range(4):
        if s == seat:
            continue
        g = price
        if jm == 1:
            g = price << np.int64(jf)
        elif tricks[s] == 0:
            if jm == 2:
                g = 2 * price
            elif jm == 3:
                g = price << np.int64(jf)
        total += g
        if s == 0:
            g0 = g
        elif s == 1:
            g1 = g
        elif s == 2:
            g2 = g
        else:
            g3 = g
    return (seat, False, jf, price, -total if seat == 0 else g0, -total if seat == 1 else g1,
            -total if seat == 2 else g2, -total if seat == 3 else g3)


@jit(source_stamp(DEPENDENCIES), helper=True)  # compiled once for both batch kernels, inlined by LLVM
def play_deal(h0, h1, h2, h3, v, called, tout, declarer, dbl, policy, rng,
              strength, eff_suit, suit_mask, lorder, n_trumps, lauf_min, base_price, points, params,
              hw, trick, trace_legal, trace_played, row):
    """Play and score one deal. ``hw`` int64[4] and ``trick`` int8[4] are scratch arrays. When
    ``trace_legal.shape[0] > 0`` the legal mask and the card of every decision go to ``trace_*[row, 4*t + k]``
    (trick t, k-th card of the trick from its leader).

    Returns (declarer_points, defender_points, declarer_tricks, partner, laufende, laufende_mit, schneider,
    schwarz, won, price, payout0, payout1, payout2, payout3).
    """
    hs = params[P_HAND_SIZE]
    hw[0] = np.int64(h0)
    hw[1] = np.int64(h1)
    hw[2] = np.int64(h2)
    hw[3] = np.int64(h3)
    sv = strength[v]
    ev = eff_suit[v]
    tracing = trace_legal.shape[0] > 0
    run_min = params[P_RUN_AWAY_MIN]
    called_mask = np.int64(suit_mask[v, called]) if called >= 0 else np.int64(0)
    partner, searched, ace_bit, team, team_cards = called_ace_setup(hw, called, declarer, called_mask)
    lauf, mit = laufende(team_cards, lorder[v], n_trumps[v])

    leader = 0
    dp = 0
    fp = 0
    dt = 0
    played = np.int64(0)
    for t in range(hs):
        seat = leader
        led = 0
        best_seat = 0
        best_eff = 0
        best_str = 0
        tp = 0
        for k in range(4):
            hand = hw[seat]
            legal = legal_cards(hand, k, np.int64(suit_mask[v, led]), led == called,
                                (not searched) and seat == partner, ace_bit, called_mask, run_min)
            c, rng = choose_card(policy, legal, hand, seat, played, trick, k, leader, t,
                                 v, called, tout, declarer, sv, ev, rng)
            if tracing:
                trace_legal[row, 4 * t + k] = legal
                trace_played[row, 4 * t + k] = c
            bit = np.int64(1) << np.int64(c)
            hw[seat] = hand & ~bit
            played |= bit
            trick[k] = c
            tp += points[c]
            led, best_seat, best_eff, best_str = trick_step(k, seat, ev[c], sv[c], led, best_seat, best_eff,
                                                            best_str)
            seat = (seat + 1) & 3
        if led == called:
            searched = True
        if (team >> np.int64(best_seat)) & 1:
            dp += tp
            dt += 1
        else:
            fp += tp
        leader = best_seat

    won, schneider, schwarz, price, p0, p1, p2, p3 = score(dp, dt, tout, hs, lauf, lauf_min[v], base_price[v],
                                                           params, dbl, team, partner)
    return dp, fp, dt, partner, lauf, mit, schneider, schwarz, won, price, p0, p1, p2, p3


@njit(cache=True, inline="always")
def _store(i, r, declarer_points, defender_points, declarer_tricks, partner, laufende_, laufende_mit,
           schneider, schwarz, won, price, payouts):
    declarer_points[i] = r[0]
    defender_points[i] = r[1]
    declarer_tricks[i] = r[2]
    partner[i] = r[3]
    laufende_[i] = r[4]
    laufende_mit[i] = r[5]
    schneider[i] = r[6]
    schwarz[i] = r[7]
    won[i] = r[8]
    price[i] = r[9]
    payouts[i, 0] = r[10]
    payouts[i, 1] = r[11]
    payouts[i, 2] = r[12]
    payouts[i, 3] = r[13]


@njit(cache=True, inline="always")
def _clear(i, declarer_points, defender_points, declarer_tricks, partner, laufende_, laufende_mit,
           schneider, schwarz, won, price, payouts):
    declarer_points[i] = 0
    defender_points[i] = 0
    declarer_tricks[i] = 0
    partner[i] = -1
    laufende_[i] = 0
    laufende_mit[i] = False
    schneider[i] = False
    schwarz[i] = False
    won[i] = False
    price[i] = 0
    for s in range(4):
        payouts[i, s] = 0


@njit(cache=True)
def play_batch(hands, variants, called_suits, touts, declarers, doublings, policy, seed, start,
               strength, eff_suit, suit_mask, lorder, n_trumps, lauf_min, base_price, points, params,
               declarer_points, defender_points, declarer_tricks, partner, laufende_, laufende_mit,
               schneider, schwarz, won, price, payouts, trace_legal, trace_played):
    """Play given deals; deal i uses the play stream of (seed, start + i). Rows with declarer < 0 are skipped
    (all results zero, partner -1)."""
    n = hands.shape[0]
    hw = np.zeros(4, np.int64)
    trick = np.zeros(4, np.int8)
    for i in range(n):
        d = declarers[i]
        if d < 0:
            _clear(i, declarer_points, defender_points, declarer_tricks, partner, laufende_, laufende_mit,
                   schneider, schwarz, won, price, payouts)
            continue
        rng = stream_state(seed, start + i, STREAM_PLAY)
        c = called_suits[i] if variants[i] == 0 else -1
        r = play_deal(np.int64(hands[i, 0]), np.int64(hands[i, 1]), np.int64(hands[i, 2]), np.int64(hands[i, 3]),
                      np.int64(variants[i]), np.int64(c), touts[i], np.int64(d), np.int64(doublings[i]), policy, rng,
                      strength, eff_suit, suit_mask, lorder, n_trumps, lauf_min, base_price, points, params,
                      hw, trick, trace_legal, trace_played, i)
        _store(i, r, declarer_points, defender_points, declarer_tricks, partner, laufende_, laufende_mit,
               schneider, schwarz, won, price, payouts)


@njit(cache=True)
def simulate_batch(seed, start, kind, tout_share, policy,
                   strength, eff_suit, suit_mask, lorder, n_trumps, lauf_min, base_price, points, params,
                   deck_mask, hands, variants, called_suits, touts, declarers,
                   declarer_points, defender_points, declarer_tricks, partner, laufende_, laufende_mit,
                   schneider, schwarz, won, price, payouts):
    """Deal + random setup (deal.setup_one) + play + score of deals start .. start+n-1 (n = hands.shape[0]),
    in one pass. Equivalent to random_setups followed by play_batch with the same seed and start."""
    n = hands.shape[0]
    hs = params[P_HAND_SIZE]
    cards = deck_cards(deck_mask)
    work = np.empty(32, np.int8)
    hw = np.zeros(4, np.int64)
    trick = np.zeros(4, np.int8)
    ruf_masks = suit_mask[0]
    no_trace_l = np.zeros((0, 1), np.uint32)
    no_trace_p = np.zeros((0, 1), np.int8)
    for i in range(n):
        idx = start + i
        h0, h1, h2, h3 = deal_row(seed, idx, cards, work, hs, hands, i)
        v, c, t, d, ok = setup_one(seed, idx, h0, h1, h2, h3, kind, tout_share, ruf_masks)
        variants[i] = v
        called_suits[i] = c
        touts[i] = t
        declarers[i] = d
        if not ok:
            _clear(i, declarer_points, defender_points, declarer_tricks, partner, laufende_, laufende_mit,
                   schneider, schwarz, won, price, payouts)
            continue
        rng = stream_state(seed, idx, STREAM_PLAY)
        r = play_deal(np.int64(h0), np.int64(h1), np.int64(h2), np.int64(h3), np.int64(v), np.int64(c), t,
                      np.int64(d), np.int64(0), policy, rng,
                      strength, eff_suit, suit_mask, lorder, n_trumps, lauf_min, base_price, points, params,
                      hw, trick, no_trace_l, no_trace_p, i)
        _store(i, r, declarer_points, defender_points, declarer_tricks, partner, laufende_, laufende_mit,
               schneider, schwarz, won, price, payouts)


stamp_module(globals(), DEPENDENCIES)
announce(play_batch, "the random-play kernel (given deals)")
announce(simulate_batch, "the random-play kernel")
