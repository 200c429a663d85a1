"""The old German game in Numba (``cache=True``): 3-2-3 dealing, trump choice, play, scoring, strokes, parties.

Everything reads the tables of :mod:`simkit.oldgerman.rules` (``strength``/``eff_suit``/``suit_mask`` per trump
suit); the trick is resolved by the same formula as the Bavarian kernel (:func:`simkit.engine.kernel.trick_step`).

Randomness (all counter-based, simkit.engine.rng): the shuffle of deal ``index`` of run ``seed`` is the same
Fisher-Yates as :func:`simkit.engine.deal.deal_one` (stream STREAM_DEAL); the cards then go out 3-2-3 starting at
forehand. Seat ``s``'s card play draws from stream (seed, index, STREAM_STRATEGY + s).

Policy seam: :func:`choose_card` is the one place a card is chosen, by integer policy id per seat
(:data:`POLICY_RANDOM`, :data:`POLICY_HEURISTIC`). A policy sees its own hand, the legal cards, every card played so
far, the trick in progress, the trump suit's table rows and which team declared -- never another hand.

Deal indices in a partie run: deal ``k`` of partie ``p`` uses index ``p * MAX_DEALS + k`` (:func:`deal_index`).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from simkit.engine.bits import cttz, nth_bit, popcount
from simkit.engine.jitcache import announce, files, jit, source_stamp, stamp_module
from simkit.engine.kernel import DEPENDENCIES as _KERNEL_DEPS
from simkit.engine.kernel import trick_step
from simkit.engine.rng import STREAM_DEAL, STREAM_STRATEGY, below, stream_state
from simkit.oldgerman.heuristic import DEPENDENCIES as _HEURISTIC_DEPS
from simkit.oldgerman.heuristic import heuristic_card

#: the files its kernels compile in: the on-disk cache is keyed on all of them (simkit.engine.jitcache)
DEPENDENCIES = files("oldgerman/kernel", "engine/rng") + _HEURISTIC_DEPS + _KERNEL_DEPS

POLICY_RANDOM = 0
POLICY_HEURISTIC = 1
POLICIES = {"random": POLICY_RANDOM, "heuristic": POLICY_HEURISTIC}

MAX_DEALS = 4096  # deals a partie may take before the kernel gives up (never reached: see docs/old-german.md)
UNTER_MASK = (1 << 3) | (1 << 11) | (1 << 19) | (1 << 27)
EU_BIT = 1 << 3
NO_TEAM = -1

# result tuple of play_one, by position
R_CHOOSER, R_SUIT, R_COUNT, R_FORCED, R_DP, R_DT, R_WON, R_TIE, R_DOUBLE, R_SCHWARZ, R_SCHWARZ_TEAM, R_S0, R_S1 = \
    range(13)


@njit(cache=True, inline="always")
def deal_index(partie, k):
    return partie * MAX_DEALS + k


@njit(cache=True, inline="always")
def deal_323(seed, index, forehand, work, hw):
    """Shuffle (as engine.deal.deal_one) and deal 3-2-3 from forehand into ``hw`` (int64[4])."""
    for i in range(32):
        work[i] = i
    s = stream_state(seed, index, STREAM_DEAL)
    for i in range(31, 0, -1):
        j, s = below(s, i + 1)
        t = work[i]
        work[i] = work[j]
        work[j] = t
    for k in range(4):
        hw[k] = 0
    pos = 0
    for packet in (3, 2, 3):
        for k in range(4):
            seat = (forehand + k) & 3
            for _ in range(packet):
                hw[seat] |= np.int64(1) << np.int64(work[pos])
                pos += 1


@njit(cache=True, inline="always")
def _mask_points(m, points):
    p = 0
    while m:
        c = cttz(m)
        m &= m - 1
        p += points[c]
    return p


@njit(cache=True, inline="always")
def player_count(hand, points):
    """(count, suit, points): Unter + the longest other suit (ties: more points, then E G H S); points of those
    cards, Unter included."""
    unters = hand & UNTER_MASK
    best_s = 0
    best_n = -1
    best_p = -1
    for s in range(4):
        m = hand & (np.int64(0xFF) << np.int64(8 * s)) & ~np.int64(UNTER_MASK)
        n = popcount(m)
        p = _mask_points(m, points)
        if n > best_n or (n == best_n and p > best_p):
            best_n = n
            best_p = p
            best_s = s
    return popcount(unters) + best_n, best_s, best_p + 2 * popcount(unters)


@njit(cache=True, inline="always")
def choose_trump(hw, forehand, points):
    """(chooser, suit, count, forced) per RULES.md 3 (see reference.choose_trump)."""
    chooser = -1
    b_count = -1
    b_points = -1
    b_suit = 0
    for k in range(4):
        seat = (forehand + k) & 3
        n, s, p = player_count(hw[seat], points)
        if n >= 5 and (n > b_count or (n == b_count and p > b_points)):
            chooser = seat
            b_count = n
            b_points = p
            b_suit = s
    if chooser >= 0:
        return chooser, b_suit, b_count, False
    for seat in range(4):
        if hw[seat] & EU_BIT:
            n, s, p = player_count(hw[seat], points)
            return seat, s, n, True
    return -1, 0, 0, True  # unreachable with a full deck


@njit(cache=True, inline="always")
def choose_card(policy, legal, hand, seat, played, trick, n_in_trick, leader, declaring_team,
                strength_row, eff_row, trump_mask, points, rng):
    """The policy seam: one card of ``legal`` for ``seat``; returns (card, rng)."""
    if policy == POLICY_HEURISTIC:
        return heuristic_card(legal, hand, seat, played, trick, n_in_trick, leader, declaring_team,
                              strength_row, eff_row, trump_mask, points), rng
    n = popcount(legal)  # POLICY_RANDOM: uniform, lowest card first, no draw when one card is legal
    if n == 1:
        return cttz(legal), rng
    r, rng = below(rng, n)
    return nth_bit(legal, r), rng


@njit(cache=True, inline="always")
def strokes_for(won, double, forced, follow_up_of, team):
    """(scoring team, strokes) for a deal that was not a tie (RULES.md 3 table)."""
    other = 1 - team
    if follow_up_of < 0:
        if won:
            return team, 2 if double else 1
        if forced:
            return other, 2 if double else 1
        return other, 4 if double else 2
    if follow_up_of == team:
        if won:
            return team, 3 if double else 2
        return other, 6 if double else 4
    if won:
        return team, 3 if double else 2
    return other, 5 if double else 3


@njit(cache=True, inline="always")
def score_deal(dp, dt, team, forced, follow_up_of):
    """(won, tie, double, schwarz, schwarz_team, strokes_0, strokes_1)."""
    if dt == 0 or dt == 8:
        st = team if dt == 8 else 1 - team
        return dt == 8, False, True, True, st, 0, 0
    if dp == 60:
        return False, True, False, False, -1, 0, 0
    won = dp >= 61
    double = dp >= 90 if won else 120 - dp >= 90
    t, n = strokes_for(won, double, forced, follow_up_of, team)
    if t == 0:
        return won, False, double, False, -1, n, 0
    return won, False, double, False, -1, 0, n


@jit(source_stamp(DEPENDENCIES), helper=True)  # compiled once for both kernels, inlined by LLVM
def play_one(dealt, seed, index, forehand, follow_up_of, policies, strength, eff_suit, suit_mask, points,
             hw, trick, rngs, trace_legal, trace_played, trace_row):
    """Choose trumps, play and score one deal from the hands ``dealt`` (int64[4], left unchanged; ``hw`` is
    scratch). With non-empty traces, row ``trace_row`` gets every decision's legal mask and card in play order.
    Returns (chooser, suit, count, forced, declarer points, declarer tricks, won, tie, double, schwarz,
    schwarz team, strokes_0, strokes_1)."""
    for s in range(4):
        hw[s] = dealt[s]
    chooser, suit, count, forced = choose_trump(hw, forehand, points)
    team = chooser & 1
    st = strength[suit]
    ef = eff_suit[suit]
    sm = suit_mask[suit]
    trump_mask = sm[4]
    for s in range(4):
        rngs[s] = stream_state(seed, index, STREAM_STRATEGY + s)
    tracing = trace_legal.shape[0] > 0
    played = np.int64(0)
    leader = forehand
    dp = 0
    dt = 0
    step = 0
    for t in range(8):
        led = 0
        best_seat = 0
        best_eff = 0
        best_str = 0
        pts = 0
        for k in range(4):
            seat = (leader + k) & 3
            hand = hw[seat]
            if k == 0:
                legal = hand
            else:
                f = hand & sm[led]
                legal = f if f != 0 else hand
            c, r = choose_card(policies[seat], legal, hand, seat, played, trick, k, leader, team,
                               st, ef, trump_mask, points, rngs[seat])
            rngs[seat] = r
            if tracing:
                trace_legal[trace_row, step] = legal
                trace_played[trace_row, step] = c
            step += 1
            hw[seat] = hand & ~(np.int64(1) << np.int64(c))
            played |= np.int64(1) << np.int64(c)
            trick[k] = c
            pts += points[c]
            led, best_seat, best_eff, best_str = trick_step(k, seat, ef[c], st[c], led, best_seat, best_eff,
                                                            best_str)
        if (best_seat & 1) == team:
            dp += pts
            dt += 1
        leader = best_seat
    won, tie, double, schwarz, schwarz_team, s0, s1 = score_deal(dp, dt, team, forced, follow_up_of)
    return chooser, suit, count, forced, dp, dt, won, tie, double, schwarz, schwarz_team, s0, s1


@njit(cache=True, inline="always")
def _store(i, r, index, forehand, follow_up_of, dealt, deal_id, forehand_o, chooser, suit, count, forced,
           follow_up, dp, dt, won, tie, double, schwarz, s0, s1, hands):
    deal_id[i] = index
    forehand_o[i] = forehand
    chooser[i] = r[0]
    suit[i] = r[1]
    count[i] = r[2]
    forced[i] = r[3]
    follow_up[i] = follow_up_of >= 0
    dp[i] = r[4]
    dt[i] = r[5]
    won[i] = r[6]
    tie[i] = r[7]
    double[i] = r[8]
    schwarz[i] = r[9]
    s0[i] = r[11]
    s1[i] = r[12]
    for s in range(4):
        hands[i, s] = dealt[s]


@njit(cache=True)
def deals_kernel(seed, start, policies, strength, eff_suit, suit_mask, points,
                 deal_id, forehand_o, chooser, suit, count, forced, follow_up, dp, dt, won, tie, double, schwarz,
                 s0, s1, hands, trace_legal, trace_played):
    """Independent deals start .. start + n - 1 (n = len(deal_id)): forehand seat 0, never a follow-up."""
    n = deal_id.shape[0]
    work = np.empty(32, np.int8)
    hw = np.zeros(4, np.int64)
    dealt = np.zeros(4, np.int64)
    trick = np.zeros(4, np.int8)
    rngs = np.zeros(4, np.uint64)
    for i in range(n):
        idx = start + i
        deal_323(seed, idx, 0, work, dealt)
        r = play_one(dealt, seed, idx, 0, -1, policies, strength, eff_suit, suit_mask, points,
                     hw, trick, rngs, trace_legal, trace_played, i)
        _store(i, r, idx, 0, -1, dealt, deal_id, forehand_o, chooser, suit, count, forced, follow_up,
               dp, dt, won, tie, double, schwarz, s0, s1, hands)


@njit(cache=True)
def parties_kernel(seed, first, n_parties, head_strokes, policies, strength, eff_suit, suit_mask, points,
                   deal_id, partie_id, deal_no, forehand_o, chooser, suit, count, forced, follow_up, dp, dt, won,
                   tie, double, schwarz, s0, s1, hands,
                   p_id, p_winner, p_deals, p_s0, p_s1, p_schwarz, trace_legal, trace_played):
    """Whole parties first .. first + n_parties - 1, deal rows into the first arrays (capacity len(deal_id)),
    one row per partie into the ``p_*`` arrays. Deal k of a partie is dealt by seat (3 + k) % 4, so forehand is
    seat k % 4; a 60-60 tie makes the next deal a follow-up deal of the team that declared in it.

    Returns (parties done, deal rows written); stops early (before a partie that might not fit) when the deal
    arrays are nearly full, and returns parties done = -1 - p if partie p reached MAX_DEALS deals."""
    cap = deal_id.shape[0]
    work = np.empty(32, np.int8)
    hw = np.zeros(4, np.int64)
    dealt = np.zeros(4, np.int64)
    trick = np.zeros(4, np.int8)
    rngs = np.zeros(4, np.uint64)
    row = 0
    for j in range(n_parties):
        p = first + j
        start_row = row
        strokes0 = 0
        strokes1 = 0
        fu = -1
        winner = -1
        by_schwarz = False
        k = 0
        while winner < 0:
            if k >= MAX_DEALS:
                return -1 - p, start_row
            if row >= cap:
                return j, start_row  # out of room: redo this partie in the next call
            idx = deal_index(p, k)
            fh = k & 3
            deal_323(seed, idx, fh, work, dealt)
            r = play_one(dealt, seed, idx, fh, fu, policies, strength, eff_suit, suit_mask, points,
                         hw, trick, rngs, trace_legal, trace_played, row)
            _store(row, r, idx, fh, fu, dealt, deal_id, forehand_o, chooser, suit, count, forced, follow_up,
                   dp, dt, won, tie, double, schwarz, s0, s1, hands)
            partie_id[row] = p
            deal_no[row] = k
            row += 1
            k += 1
            if r[9]:  # schwarz: a whole head at once, the strokes stay as they were
                winner = r[10]
                by_schwarz = True
                break
            strokes0 += r[11]
            strokes1 += r[12]
            fu = (r[0] & 1) if r[7] else -1
            if strokes0 >= head_strokes:
                winner = 0
            elif strokes1 >= head_strokes:
                winner = 1
        p_id[j] = p
        p_winner[j] = winner
        p_deals[j] = k
        p_s0[j] = strokes0
        p_s1[j] = strokes1
        p_schwarz[j] = by_schwarz
    return n_parties, row


# ------------------------------------------------------------------------------------------ Python API

DEAL_COLUMNS = ("deal_id", "forehand", "chooser", "trump_suit", "chooser_count", "forced", "follow_up",
                "declarer_points", "declarer_tricks", "won", "tie", "double", "schwarz", "strokes_0", "strokes_1")
_DTYPES = dict(deal_id=np.uint64, forehand=np.int8, chooser=np.int8, trump_suit=np.int8, chooser_count=np.uint8,
               forced=np.bool_, follow_up=np.bool_, declarer_points=np.uint8, declarer_tricks=np.uint8,
               won=np.bool_, tie=np.bool_, double=np.bool_, schwarz=np.bool_, strokes_0=np.uint8,
               strokes_1=np.uint8)


def policy_ids(seats) -> np.ndarray:
    from simkit.strategies import StrategyError

    bad = [s for s in seats if s not in POLICIES]
    if bad or len(seats) != 4:
        raise StrategyError(f"the old German game plays with the strategies {', '.join(POLICIES)} "
                            f"(four seats), not {', '.join(sorted(set(bad))) if bad else seats}")
    return np.array([POLICIES[s] for s in seats], np.int64)


def _tables():
    from simkit.oldgerman.rules import build_tables

    return build_tables()


def _deal_arrays(n: int) -> dict[str, np.ndarray]:
    d = {k: np.zeros(n, t) for k, t in _DTYPES.items()}
    d["hands"] = np.zeros((n, 4), np.uint32)
    return d


def _traces(n: int, trace: bool):
    if trace:
        return np.zeros((n, 32), np.uint32), np.full((n, 32), -1, np.int8)
    return np.zeros((0, 32), np.uint32), np.zeros((0, 32), np.int8)


def play_deals(seed: int, start: int, n: int, seats=("heuristic",) * 4, trace: bool = False) -> dict[str, np.ndarray]:
    """Independent deals ``start .. start + n - 1`` of run ``seed`` (forehand seat 0, no follow-ups).

    Returns a dict of columns (:data:`DEAL_COLUMNS`, ``hands`` uint32[n, 4] as dealt and ``declaring_team``);
    with ``trace``, also ``trace_legal`` uint32[n, 32] and ``trace_played`` int8[n, 32]: every decision's legal
    cards and the card played, in play order."""
    t = _tables()
    d = _deal_arrays(n)
    tl, tp = _traces(n, trace)
    deals_kernel(np.uint64(seed), np.int64(start), policy_ids(seats), t.strength, t.eff_suit, t.suit_mask,
                 t.points, d["deal_id"], d["forehand"], d["chooser"], d["trump_suit"], d["chooser_count"],
                 d["forced"], d["follow_up"], d["declarer_points"], d["declarer_tricks"], d["won"], d["tie"],
                 d["double"], d["schwarz"], d["strokes_0"], d["strokes_1"], d["hands"], tl, tp)
    d["declaring_team"] = (d["chooser"] & 1).astype(np.uint8)
    if trace:
        d["trace_legal"], d["trace_played"] = tl, tp
    return d


class PartieError(RuntimeError):
    pass


def play_parties(seed: int, first: int, n: int, head_strokes: int = 9, seats=("heuristic",) * 4,
                 trace: bool = False, chunk: int = 4096) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]]:
    """Whole parties ``first .. first + n - 1`` of run ``seed``: (deal columns with ``partie_id`` and ``deal_no``,
    partie columns ``partie_id``, ``winner_team``, ``deals``, ``strokes_0``, ``strokes_1``, ``won_by_schwarz``)."""
    t = _tables()
    pol = policy_ids(seats)
    deal_parts, partie_parts = [], []
    p = first
    stop = first + n
    while p < stop:
        m = min(chunk, stop - p)
        cap = 40 * m + MAX_DEALS
        d = _deal_arrays(cap)
        d["partie_id"] = np.zeros(cap, np.uint64)
        d["deal_no"] = np.zeros(cap, np.uint16)
        pa = dict(partie_id=np.zeros(m, np.uint64), winner_team=np.zeros(m, np.uint8), deals=np.zeros(m, np.uint16),
                  strokes_0=np.zeros(m, np.uint16), strokes_1=np.zeros(m, np.uint16),
                  won_by_schwarz=np.zeros(m, np.bool_))
        tl, tp = _traces(cap, trace)
        done, rows = parties_kernel(
            np.uint64(seed), np.int64(p), np.int64(m), np.int64(head_strokes), pol, t.strength, t.eff_suit,
            t.suit_mask, t.points, d["deal_id"], d["partie_id"], d["deal_no"], d["forehand"], d["chooser"],
            d["trump_suit"], d["chooser_count"], d["forced"], d["follow_up"], d["declarer_points"],
            d["declarer_tricks"], d["won"], d["tie"], d["double"], d["schwarz"], d["strokes_0"], d["strokes_1"],
            d["hands"], pa["partie_id"], pa["winner_team"], pa["deals"], pa["strokes_0"], pa["strokes_1"],
            pa["won_by_schwarz"], tl, tp)
        if done < 0:
            raise PartieError(f"partie {-1 - done} of seed {seed} did not end within {MAX_DEALS} deals")
        if trace:
            d["trace_legal"], d["trace_played"] = tl, tp
        deal_parts.append({k: v[:rows] for k, v in d.items()})
        partie_parts.append({k: v[:done] for k, v in pa.items()})
        p += done
    deals = {k: np.concatenate([x[k] for x in deal_parts]) for k in deal_parts[0]}
    parties = {k: np.concatenate([x[k] for x in partie_parts]) for k in partie_parts[0]}
    deals["declaring_team"] = (deals["chooser"] & 1).astype(np.uint8)
    return deals, parties


stamp_module(globals(), DEPENDENCIES)
announce(deals_kernel, "the old German game's kernel (deals)")
announce(parties_kernel, "the old German game's kernel (parties)")
