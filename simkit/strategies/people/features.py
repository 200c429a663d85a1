"""What the ``people`` model looks at: features of a declaration (bidding) and of a legal card (play).

One body of code serves training and play: each feature function is written once (``_play_features_of``,
``_bid_features_of``) and instantiated twice, storing every feature (:func:`play_features`, :func:`bid_features`:
``simkit train people`` calls them at every decision of the recorded games, through simkit.analyze.advice.walk,
the same ``info`` words the kernel writes) or adding each one into the score as it is computed
(:func:`play_scores`, :func:`bid_score`: the strategy, inside the whole-deal kernel). So a model never sees other
features than it was fitted on. Everything here is popcounts, bit scans and table lookups over what the seat may
see (its hand, the ``info`` words, the rule tables); nothing is allocated (the caller passes the buffer).

Play: ``N_PLAY`` numbers for each legal card (ascending card order) and the decision's *context* (``N_CONTEXTS``:
the seat's role in the contract group times its place in the trick); the model scores a card as
``weights[context] . features(card)`` and plays by the softmax over the legal cards. Bidding: ``N_BID`` numbers
for one declaration (kind, suit) of a hand; each kind has its own weight vector and passing scores 0.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from numba import njit

from simkit.engine.bits import cttz, msb as _msb, popcount
from simkit.engine.jitcache import jit, source_stamp, unliteral
from simkit.strategies.api import (
    I_DECLARER,
    I_HAND_SIZE,
    I_HISTORY_CARDS,
    I_HISTORY_LEADER,
    I_KIND,
    I_LEADER,
    I_N_IN_TRICK,
    I_PARTNER_SHOWN,
    I_PLAYED,
    I_PLAYED_BY,
    I_SEARCHED,
    I_SUIT,
    I_TRICK,
    I_TRICK_NO,
    I_VARIANT,
)
from simkit.strategies.heuristic import DEFAULT_CONFIG as _HCONF
from simkit.strategies.heuristic import (
    _beats, _hand_score, _is_safe, _points, _team, _trump_mask, trick_so_far,
)

_OBERS = 0x10101010
_UNTERS = 0x08080808
_ACES = 0x80808080
_TENS = 0x40404040
_KINGS = 0x20202020
_SUIT0 = 0xFF
_TRUMP = 4
_HERE = Path(__file__).resolve().parent
#: numba keys a cache on the function's own file; these functions inline the heuristic's helpers and constants
DEPENDENCIES = [_HERE / "features.py", _HERE.parent / "heuristic.py", _HERE.parent / "api.py",
                _HERE.parent.parent / "engine" / "bits.py", _HERE.parent.parent / "engine" / "jitcache.py"]


def _jit(fn):
    return jit(source_stamp(DEPENDENCIES))(fn)


def _helper(fn):
    """One body of features, compiled once as its own function and inlined by LLVM into its callers
    (simkit.engine.jitcache.jit); not cached (a closure), so compiled only when a kernel that calls it is."""
    return unliteral(njit(forceinline=True)(fn))


_HEURISTIC_CONFIG = _HCONF.copy()  # the heuristic's hand score with its default weights (a bidding feature)
_INV3, _INV11, _INV30 = 1.0 / 3.0, 1.0 / 11.0, 1.0 / 30.0  # multiplications: a division costs several
_VARIANT_BASE = np.array([0, 1, 5, 6, 7, 11], np.int64)  # a contract kind's first variant (simkit.rules.tables)

# ------------------------------------------------------------------------------------------------- play

#: names of the play features, in buffer order (docs/strategies.md explains them)
PLAY_FEATURES = (
    "trump", "points", "ace", "ten", "king", "ober", "unter", "trump_rank", "boss", "n_higher_out",
    "lowest_own", "highest_own", "suit_len", "suit_out", "weakest_legal", "strongest_legal", "cheapest_legal",
    "dearest_legal", "heuristic",
    # following (zero when leading)
    "follows", "beats", "beats_sure", "beats_x_trick_points", "mate_wins_points", "mate_wins_beats",
    "opp_wins_points", "opp_wins_beats", "unknown_wins_points", "ruff", "discard_points", "beat_trump_rank",
    "last_x_beats_points",
    # leading (zero when following)
    "suit_led_before", "first_round_ace", "opp_void", "mate_void", "lead_trump_out",
    # the Rufspiel's called suit
    "called_suit", "called_ace", "search",
    # the deal so far
    "late_trump", "late_points", "my_trumps_x_trump", "out_trumps_zero_trump",
    # more of the trick
    "lowest_beater", "mate_sure_points", "mate_after_points", "trump_rank_sq", "opp_after_beats",
    # leading a trump: into a stronger one, pulling with the top, none left out; the last one I hold
    "lead_trump_under", "lead_trump_pull", "lead_last_trump", "lead_trump_none_out",
    # issue 30 (the solo-type defence, the Wenz/Geier declarer). Following: points an opponent after me may still
    # take, points given to a teammate's trick no opponent plays to any more ("schmieren"), points into a suit an
    # opponent after me has shown void in (while trumps are out), a trump with an opponent still to play.
    # Leading: a side suit an opponent is void in while trumps are out, a trump while I hold as many as are out
    # (pulling), a side suit's top card while trumps are out, points with an opponent next, any side card while
    # trumps are out, a trump by the trumps out per trump of mine
    "exposed_points", "mate_wins_opp_done_points", "opp_after_void_points", "lead_opp_void_ruff",
    "lead_trump_majority", "lead_side_boss_trumps_out", "lead_opp_next_points", "lead_side_trumps_out",
    "follow_trump_opp_after", "lead_trump_x_out_frac",
)
N_PLAY = len(PLAY_FEATURES)
HEURISTIC_FEATURE = PLAY_FEATURES.index("heuristic")
MAX_LEGAL = 8
#: role groups: Rufspiel declarer, partner, defender; solo-type (Farbsolo, Farbwenz, Farbgeier) declarer,
#: defender; Wenz/Geier declarer, defender; the two defences again where the declarer has already played to the
#: trick. Context = 4 * group + the seat's place in the trick, + 4 * N_GROUPS from the middle of the deal on.
N_GROUPS = 9
#: the deal's halves: tricks before the middle of the hand and from it on (trick number >= hand size / 2)
N_PHASES = 2
N_CONTEXTS = 4 * N_GROUPS * N_PHASES
#: a hidden unit of the best-card network (simkit.strategies.people.best): its weights of the play features, of
#: each context, its bias and its output weight (pimc's kernel reads this layout)
MLP_ROW = N_PLAY + N_CONTEXTS + 2
GROUP_NAMES = ("rufspiel declarer", "rufspiel partner", "rufspiel defender", "solo declarer", "solo defender",
               "wenz/geier declarer", "wenz/geier defender", "solo defender, declarer played",
               "wenz/geier defender, declarer played")


@njit(cache=True, inline="always")
def _bit(m, c):
    return (m >> c) & 1


@njit(cache=True, inline="always")
def _suit_cards(e, tm, deck):
    """Cards of effective suit ``e`` (4: trump) in the deck."""
    if e == _TRUMP:
        return tm
    return (np.int64(_SUIT0) << np.int64(8 * e)) & ~tm & deck


@njit(cache=True, inline="always")
def _rank_mask(trumps, v, strength):
    """The trumps ``trumps`` in rank space: bit r - 1 for the trump r places from the bottom (strength 100 + r),
    so the trumps above one of rank r are ``mask >> r``."""
    out = np.int64(0)
    m = trumps
    while m:
        x = cttz(m)
        m &= m - 1
        out |= np.int64(1) << np.int64(strength[v, x] - 101)
    return out


# How a feature is written: stored (training: a row of features per card) or added to the card's score (play:
# only the features that are not zero cost anything; the sum stays in a register, ``finish`` stores it).
@njit(cache=True, inline="always")
def _store(f, w, at, row, acc, j, x):
    f[row, j] = x
    return acc


@njit(cache=True, inline="always")
def _store_clear(f, row):
    for j in range(f.shape[1]):
        f[row, j] = 0.0
    return 0.0


@njit(cache=True, inline="always")
def _store_1d(f, w, at, row, acc, j, x):
    f[j] = x
    return acc


@njit(cache=True, inline="always")
def _store_1d_clear(f, row):
    for j in range(f.shape[0]):
        f[j] = 0.0
    return 0.0


@njit(cache=True, inline="always")
def _store_finish(f, row, acc):
    pass


@njit(cache=True, inline="always")
def _score(acc_out, w, at, row, acc, j, x):
    return acc + w[at + j] * x


@njit(cache=True, inline="always")
def _score_clear(acc_out, row):
    return 0.0


@njit(cache=True, inline="always")
def _score_finish(acc_out, row, acc):
    acc_out[row] = acc


@njit(cache=True, inline="always")
def _beaters(best, legal, v, strength, eff_suit):
    """The legal cards that beat ``best``."""
    out = np.int64(0)
    m = legal
    while m:
        x = cttz(m)
        m &= m - 1
        if _beats(x, best, v, strength, eff_suit):
            out |= np.int64(1) << x
    return out


def _play_features_of(put, clear, finish):
    """play_features writing each feature with ``put`` (stored for training, or added to the score)."""
    def play_features(hand, legal, seat, info, strength, eff_suit, deck, heur_card, f, w, w_at):
        """Write the features of every legal card into ``f[k, :N_PLAY]`` (k-th legal card in ascending order) and
        return the context. ``heur_card`` is the card the heuristic would play (a feature), -1 if unknown."""
        v = info[I_VARIANT]
        kind = info[I_KIND]
        suit = info[I_SUIT]
        decl = info[I_DECLARER]
        n = info[I_N_IN_TRICK]
        hs = info[I_HAND_SIZE]
        t_no = info[I_TRICK_NO]
        partner = info[I_PARTNER_SHOWN]
        tm = _trump_mask(kind, suit, deck)
        n_all_tr = popcount(tm)
        inv_ntr = 1.0 / n_all_tr
        inv_hs = 1.0 / hs
        trick = np.int64(0)
        for k in range(n):
            trick |= np.int64(1) << info[I_TRICK + k]
        out = deck & ~info[I_PLAYED] & ~hand & ~trick  # cards another seat may still hold
        i_am_partner = False
        ace = -1
        if kind == 0:
            ace = 8 * suit + 7
            i_am_partner = _bit(hand | info[I_PLAYED_BY + seat], ace) == 1
        # the role group and the context
        if kind == 0:
            g = 0 if seat == decl else (1 if i_am_partner else 2)
        elif kind == 2 or kind == 3:
            g = 5 if seat == decl else 6
        else:
            g = 3 if seat == decl else 4
        if g == 4 or g == 6:  # a defender after the declarer's card in this trick: he cannot take it any more
            if n > 0 and ((decl - seat) & 3) > 3 - n:
                g = 7 if g == 4 else 8
        ctx = 4 * g + n + (4 * N_GROUPS if 2 * t_no >= hs else 0)
        at = w_at + ctx * N_PLAY  # the context's weights (score mode)
        # the trick so far
        best, winner, pts = trick_so_far(info, v, strength, eff_suit)
        led_e = eff_suit[v, info[I_TRICK]] if n > 0 else -1
        rel = _team(winner, seat, kind, decl, partner, i_am_partner) if n > 0 else 1
        beaters = _beaters(best, legal, v, strength, eff_suit) if n > 0 else np.int64(0)
        mate_sure = n > 0 and _is_safe(best, out, 3 - n, v, kind, tm, deck, strength, eff_suit)
        mate_after = False  # a known teammate plays after me in this trick
        opp_after = False  # a known opponent does
        for k in range(1, 4 - n):
            tx = _team((seat + k) & 3, seat, kind, decl, partner, i_am_partner)
            if tx == 1:
                mate_after = True
            elif tx == 0:
                opp_after = True
        # voids shown (the completed tricks and the one in progress) and leads per effective suit (completed tricks)
        void = np.int64(0)  # bit 5 * x + e: seat x has shown void in effective suit e
        leads = np.int64(0)  # 4 bits per effective suit: how often it was led in completed tricks
        opp_void = np.int64(0)  # who has shown void in which suit: known opponents, known teammates (bit e)
        mate_void = np.int64(0)
        # read only where a feature needs them: leading, or following a side suit with an opponent still to play and
        # trumps out (opp_after_void_points)
        need_voids = n == 0 or (opp_after and led_e != _TRUMP and (out & tm) != 0)
        for t in range(t_no if need_voids else 0):
            lc = info[I_HISTORY_CARDS + 4 * t]
            le = eff_suit[v, lc]
            leads += np.int64(1) << np.int64(4 * le)
            ld = info[I_HISTORY_LEADER + t]
            for k in range(1, 4):
                c = info[I_HISTORY_CARDS + 4 * t + k]
                if eff_suit[v, c] != le:
                    void |= np.int64(1) << np.int64(5 * ((ld + k) & 3) + le)
        if n > 1 and need_voids:  # and the trick in progress
            ld = info[I_LEADER]
            for k in range(1, n):
                if eff_suit[v, info[I_TRICK + k]] != led_e:
                    void |= np.int64(1) << np.int64(5 * ((ld + k) & 3) + led_e)
        for x in range(4 if n == 0 else 0):  # for the lead features
            if x == seat:
                continue
            vx = (void >> np.int64(5 * x)) & 31
            tx = _team(x, seat, kind, decl, partner, i_am_partner)
            if tx == 1:
                mate_void |= vx
            elif tx == 0:
                opp_void |= vx
        opp_after_void = False  # a known opponent after me has shown void in the led suit
        opp_next = n == 0 and _team((seat + 1) & 3, seat, kind, decl, partner, i_am_partner) == 0  # leading
        if n > 0 and need_voids:
            for k in range(1, 4 - n):
                x = (seat + k) & 3
                if _team(x, seat, kind, decl, partner, i_am_partner) == 0 and (void >> np.int64(5 * x + led_e)) & 1:
                    opp_after_void = True
        # the legal cards' extremes
        weakest = -1
        strongest = -1
        cheap = 99
        dear = -1
        m = legal
        while m:
            c = cttz(m)
            m &= m - 1
            key = strength[v, c]
            if weakest < 0 or key < strength[v, weakest]:
                weakest = c
            if strongest < 0 or key > strength[v, strongest]:
                strongest = c
            p = _points(c)
            cheap = min(cheap, p)
            dear = max(dear, p)
        my_tr = popcount(hand & tm)
        out_tr = popcount(out & tm)
        out_rank = np.int64(0)  # only a trump candidate reads them
        my_rank = np.int64(0)
        beat_rank = np.int64(0)
        if legal & tm:
            out_rank = _rank_mask(out & tm, v, strength)
            my_rank = _rank_mask(hand & tm, v, strength)
            beat_rank = _rank_mask(beaters & tm, v, strength)
        late = t_no / max(hs - 1, 1)
        row = 0
        m = legal
        while m:
            c = cttz(m)
            m &= m - 1
            acc = clear(f, row)
            e = eff_suit[v, c]
            p = _points(c)
            is_tr = e == _TRUMP
            tr_rank = (strength[v, c] - 100) * inv_ntr if is_tr else 0.0
            r = c & 7
            suit_all = _suit_cards(e, tm, deck)
            mine = hand & suit_all
            if is_tr:  # counts of stronger cards by shifts in rank space
                rc = strength[v, c] - 100
                n_hi_out = popcount(out_rank >> rc)
                n_mine_above = popcount(my_rank >> rc)
                n_beat_above = popcount(beat_rank >> rc)
            else:  # a side suit ranks like its bits
                above = ~((np.int64(2) << np.int64(c)) - 1) & np.int64(0xFFFFFFFF)
                n_hi_out = popcount(out & suit_all & above)
                n_mine_above = popcount(mine & above)
                n_beat_above = popcount(beaters & above)
            acc = put(f, w, at, row, acc, 0, 1.0 if is_tr else 0.0)
            acc = put(f, w, at, row, acc, 1, p * _INV11)
            acc = put(f, w, at, row, acc, 2, 1.0 if r == 7 else 0.0)
            acc = put(f, w, at, row, acc, 3, 1.0 if r == 6 else 0.0)
            acc = put(f, w, at, row, acc, 4, 1.0 if r == 5 else 0.0)
            acc = put(f, w, at, row, acc, 5, 1.0 if r == 4 else 0.0)
            acc = put(f, w, at, row, acc, 6, 1.0 if r == 3 else 0.0)
            if is_tr:
                acc = put(f, w, at, row, acc, 7, tr_rank)  # 1 for the top trump
            acc = put(f, w, at, row, acc, 8, 1.0 if n_hi_out == 0 else 0.0)
            acc = put(f, w, at, row, acc, 9, min(n_hi_out, 4) * 0.25)
            acc = put(f, w, at, row, acc, 10, 1.0 if n_mine_above == popcount(mine) - 1 else 0.0)
            acc = put(f, w, at, row, acc, 11, 1.0 if n_mine_above == 0 else 0.0)
            acc = put(f, w, at, row, acc, 12, popcount(mine) * inv_hs)
            acc = put(f, w, at, row, acc, 13, popcount(out & suit_all) * 0.125)
            acc = put(f, w, at, row, acc, 14, 1.0 if c == weakest else 0.0)
            acc = put(f, w, at, row, acc, 15, 1.0 if c == strongest else 0.0)
            acc = put(f, w, at, row, acc, 16, 1.0 if p == cheap else 0.0)
            acc = put(f, w, at, row, acc, 17, 1.0 if p == dear else 0.0)
            if n > 0:
                follows = e == led_e
                beats = _beats(c, best, v, strength, eff_suit)
                n_after = 3 - n
                # the heuristic's _is_safe: nothing stronger out, and no ruff to fear while others must follow
                sure = beats and (n_after == 0 or (n_hi_out == 0 and (
                    is_tr or out_tr == 0 or popcount(out & suit_all) >= n_after + 1)))
                acc = put(f, w, at, row, acc, 19, 1.0 if follows else 0.0)
                acc = put(f, w, at, row, acc, 20, 1.0 if beats else 0.0)
                acc = put(f, w, at, row, acc, 21, 1.0 if sure else 0.0)
                if beats:
                    acc = put(f, w, at, row, acc, 22, pts * _INV30)
                if rel == 1:
                    acc = put(f, w, at, row, acc, 23, p * _INV11)
                    acc = put(f, w, at, row, acc, 24, 1.0 if beats else 0.0)
                elif rel == 0:
                    acc = put(f, w, at, row, acc, 25, 0.0 if beats else p * _INV11)
                    acc = put(f, w, at, row, acc, 26, 1.0 if beats else 0.0)
                else:
                    acc = put(f, w, at, row, acc, 27, p * _INV11)
                if not follows:
                    if is_tr:
                        acc = put(f, w, at, row, acc, 28, 1.0)
                    else:
                        acc = put(f, w, at, row, acc, 29, p * _INV11)
                if beats and is_tr:
                    acc = put(f, w, at, row, acc, 30, tr_rank)
                if n == 3 and beats:
                    acc = put(f, w, at, row, acc, 31, (pts + p) * _INV30)
                if beats and n_beat_above == popcount(beaters) - 1:
                    acc = put(f, w, at, row, acc, 44, 1.0)  # the weakest of my cards that beat the trick
                if rel == 1 and mate_sure:
                    acc = put(f, w, at, row, acc, 45, p * _INV11)
                if mate_after:
                    acc = put(f, w, at, row, acc, 46, p * _INV11)
                if beats and opp_after:
                    acc = put(f, w, at, row, acc, 48, 1.0)
                if opp_after and not sure:
                    acc = put(f, w, at, row, acc, 53, p * _INV11)
                if rel == 1 and not opp_after:
                    acc = put(f, w, at, row, acc, 54, p * _INV11)
                if opp_after_void and led_e != _TRUMP and out_tr > 0:
                    acc = put(f, w, at, row, acc, 55, p * _INV11)
                if is_tr and opp_after:
                    acc = put(f, w, at, row, acc, 61, 1.0)
            else:
                nl = (leads >> np.int64(4 * e)) & 15
                acc = put(f, w, at, row, acc, 32, min(nl, 3) * _INV3)
                if not is_tr and r == 7 and nl == 0:
                    acc = put(f, w, at, row, acc, 33, 1.0)
                acc = put(f, w, at, row, acc, 34, _bit(opp_void, e))
                acc = put(f, w, at, row, acc, 35, _bit(mate_void, e))
                if is_tr:
                    acc = put(f, w, at, row, acc, 36, out_tr * 0.125)
                    # a linear score cannot tell these leads apart by the trump's rank and count alone
                    if n_hi_out > 0:
                        acc = put(f, w, at, row, acc, 49, 1.0)
                    elif out_tr > 0:
                        acc = put(f, w, at, row, acc, 50, 1.0)
                    else:
                        acc = put(f, w, at, row, acc, 52, 1.0)
                    if my_tr == 1:
                        acc = put(f, w, at, row, acc, 51, 1.0)
                    if out_tr > 0 and my_tr >= out_tr:
                        acc = put(f, w, at, row, acc, 57, 1.0)
                    acc = put(f, w, at, row, acc, 62, out_tr / max(my_tr, 1) * 0.25)
                else:
                    if out_tr > 0:
                        acc = put(f, w, at, row, acc, 60, 1.0)
                        if n_hi_out == 0:
                            acc = put(f, w, at, row, acc, 58, 1.0)
                        if _bit(opp_void, e):
                            acc = put(f, w, at, row, acc, 56, 1.0)
                if opp_next:
                    acc = put(f, w, at, row, acc, 59, p * _INV11)
            if kind == 0 and not is_tr and (c >> 3) == suit:
                acc = put(f, w, at, row, acc, 37, 1.0)
                if c == ace:
                    acc = put(f, w, at, row, acc, 38, 1.0)
                if n == 0 and info[I_SEARCHED] == 0:
                    acc = put(f, w, at, row, acc, 39, 1.0)
            if is_tr:
                acc = put(f, w, at, row, acc, 40, late)
                acc = put(f, w, at, row, acc, 42, my_tr * inv_hs)
                if out_tr == 0:
                    acc = put(f, w, at, row, acc, 43, 1.0)
            acc = put(f, w, at, row, acc, 41, late * p * _INV11)
            if is_tr:
                acc = put(f, w, at, row, acc, 47, tr_rank * tr_rank)
            # last, so a card's score is the rest's sum plus this weight: the strategy may then ask the heuristic
            # only when its card could change the choice (simkit.strategies.people.model._pick_lazy)
            acc = put(f, w, at, row, acc, HEURISTIC_FEATURE, 1.0 if c == heur_card else 0.0)
            finish(f, row, acc)
            row += 1
        return ctx

    return play_features


# ------------------------------------------------------------------------------------------------- bids

#: names of the bidding features of one declaration (kind, suit) of a hand
BID_FEATURES = (
    "bias", "trumps", "trumps_sq", "obers", "unters", "top_run", "top4", "trump_points", "side_aces", "side_tens",
    "tens_with_ace", "side_kings", "free_suits", "side_singletons", "seat1", "seat2", "seat3", "call_len1",
    "call_len2", "call_ten", "call_king", "trumps_x_free", "many_trumps",
    "heuristic_score", "heuristic_score_sq", "trumps_hs-4", "trumps_hs-3", "trumps_hs-2", "trumps_hs-1",
    "standing", "losers", "longest_side", "longest_side_ace",
    "top1", "top2", "trumps_x_top1", "aces_x_top1",
)
N_BID = len(BID_FEATURES)


def _bid_features_of(put, clear, finish):
    """bid_features writing each feature with ``put``."""
    def bid_features(hand, seat, kind, suit, deck, hs, strength, f, w, at):
        """Write the features of declaring (kind, suit) with ``hand`` at ``seat`` into ``f[:N_BID]``."""
        acc = clear(f, 0)
        inv_hs = 1.0 / hs
        tm = _trump_mask(kind, suit, deck)
        v = _VARIANT_BASE[kind] + (suit if kind in (1, 4, 5) else 0)
        tr = hand & tm
        nt = popcount(tr)
        n_all = popcount(tm)
        acc = put(f, w, at, 0, acc, 0, 1.0)
        acc = put(f, w, at, 0, acc, 1, nt * inv_hs)
        acc = put(f, w, at, 0, acc, 2, (nt * inv_hs) * (nt * inv_hs))
        acc = put(f, w, at, 0, acc, 3, popcount(tr & _OBERS) * 0.25)
        acc = put(f, w, at, 0, acc, 4, popcount(tr & _UNTERS) * 0.25)
        # the unbroken run of top trumps, and how many of the top four trumps are held
        run = 0
        top4 = 0
        m = tr
        held = np.int64(0)  # bit i: the trump i places from the top
        while m:
            c = cttz(m)
            m &= m - 1
            held |= np.int64(1) << np.int64(n_all - (strength[v, c] - 100))
        run = cttz(~held)  # bit 0 is the top trump
        top4 = popcount(held & 15)
        acc = put(f, w, at, 0, acc, 5, min(run, 4) * 0.25)
        acc = put(f, w, at, 0, acc, 6, top4 * 0.25)
        tp = (11 * popcount(tr & _ACES) + 10 * popcount(tr & _TENS) + 4 * popcount(tr & _KINGS)
              + 3 * popcount(tr & _OBERS) + 2 * popcount(tr & _UNTERS))
        acc = put(f, w, at, 0, acc, 7, tp * _INV30)
        side = hand & ~tm
        acc = put(f, w, at, 0, acc, 8, popcount(side & _ACES) * _INV3)
        acc = put(f, w, at, 0, acc, 9, popcount(side & _TENS) * _INV3)
        acc = put(f, w, at, 0, acc, 10, popcount(side & _TENS & (side >> 1)) * _INV3)
        acc = put(f, w, at, 0, acc, 11, popcount(side & _KINGS) * _INV3)
        # side suits: free and single (no ace) suits; the cards that stand from the top (A, A Z, A Z K ...), the
        # rest (losers); the longest suit
        free = 0
        single = 0
        stand = 0
        longest = 0
        longest_ace = 0
        for e in range(4):
            full = _suit_cards(e, tm, deck)
            if full == 0:
                continue
            b = (side >> np.int64(8 * e)) & 0xFF  # the suit's ranks 7 8 9 U O K Z A as bits 0..7
            k = popcount(b)
            ace_e = (b >> 7) & 1
            if k == 0:
                free += 1
            elif k == 1 and ace_e == 0:
                single += 1
            gaps = ~b & 0xFF
            stand += 8 if gaps == 0 else 7 - _msb(gaps)  # the run of held cards from the ace down
            if k > longest or (k == longest and ace_e):
                longest = k
                longest_ace = ace_e
        acc = put(f, w, at, 0, acc, 12, free * _INV3)
        acc = put(f, w, at, 0, acc, 13, single * _INV3)
        if seat > 0:
            acc = put(f, w, at, 0, acc, 13 + seat, 1.0)
        acc = put(f, w, at, 0, acc, 21, (nt * inv_hs) * (free * _INV3))
        acc = put(f, w, at, 0, acc, 22, 1.0 if nt >= hs - 2 else 0.0)
        hsc = _hand_score(hand, kind, suit, seat, deck, _HEURISTIC_CONFIG) * 0.1
        acc = put(f, w, at, 0, acc, 23, hsc)
        acc = put(f, w, at, 0, acc, 24, hsc * hsc)
        for j in range(4):
            if nt == hs - 4 + j:
                acc = put(f, w, at, 0, acc, 25 + j, 1.0)
        acc = put(f, w, at, 0, acc, 29, stand * _INV3)
        acc = put(f, w, at, 0, acc, 30, (popcount(side) - stand) * inv_hs)
        acc = put(f, w, at, 0, acc, 31, longest * inv_hs)
        acc = put(f, w, at, 0, acc, 32, float(longest_ace) * longest * inv_hs)
        # the top trump itself (a Wenz's EU, a Geier's EO) and the top two
        if held & 1:
            acc = put(f, w, at, 0, acc, 33, 1.0)
            acc = put(f, w, at, 0, acc, 35, nt * inv_hs)
            acc = put(f, w, at, 0, acc, 36, popcount(side & _ACES) * _INV3)
        if (held & 3) == 3:
            acc = put(f, w, at, 0, acc, 34, 1.0)
        if kind == 0 and suit >= 0:
            acc = called_suit(hand, suit, deck, f, w, at, acc)
        finish(f, 0, acc)
        return v

    def called_suit(hand, suit, deck, f, w, at, acc):
        """The features of a Rufspiel's called suit ``suit``, added last: the other features do not depend on
        it, so the strategy sums them once for all the suits it may call (``bid_features`` with suit -1) and
        adds these per suit, the same floating-point sum as ``bid_features`` with the suit."""
        called = hand & _suit_cards(suit, _trump_mask(0, suit, deck), deck)
        k = popcount(called)
        acc = put(f, w, at, 0, acc, 17, 1.0 if k == 1 else 0.0)
        acc = put(f, w, at, 0, acc, 18, 1.0 if k == 2 else 0.0)
        acc = put(f, w, at, 0, acc, 19, float(_bit(called, 8 * suit + 6)))
        acc = put(f, w, at, 0, acc, 20, float(_bit(called, 8 * suit + 5)))
        return acc

    called_suit = _helper(called_suit)
    return bid_features, called_suit


_NO_WEIGHTS = np.zeros(1)
_play_store = _helper(_play_features_of(_store, _store_clear, _store_finish))
_bid_store = _helper(_bid_features_of(_store_1d, _store_1d_clear, _store_finish)[0])
#: the model's scores: ``acc[k] = w[w_at + N_PLAY * context:] . features of the k-th legal card``; returns the
#: context (simkit.strategies.people.model)
play_scores = _helper(_play_features_of(_score, _score_clear, _score_finish))
#: ``acc[0] = w[at:at + N_BID] . features of the declaration``
_bid_score_of = _bid_features_of(_score, _score_clear, _score_finish)
bid_score = _helper(_bid_score_of[0])
#: ``called_suit_score(hand, suit, deck, acc_out, w, at, acc)``: ``acc`` (bid_score of the Rufspiel with suit -1)
#: plus the called suit's features; the same sum as bid_score with the suit
called_suit_score = _bid_score_of[1]


@_jit
def play_features(hand, legal, seat, info, strength, eff_suit, deck, heur_card, f):
    """Write the features of every legal card into ``f[k, :N_PLAY]`` (k-th legal card in ascending order) and
    return the context. ``heur_card`` is the card the heuristic would play (a feature), -1 if unknown."""
    return _play_store(hand, legal, seat, info, strength, eff_suit, deck, heur_card, f, _NO_WEIGHTS, 0)


@_jit
def bid_features(hand, seat, kind, suit, deck, hs, strength, f):
    """Write the features of declaring (kind, suit) with ``hand`` at ``seat`` into ``f[:N_BID]``; returns the
    contract's variant."""
    return _bid_store(hand, seat, kind, suit, deck, hs, strength, f, _NO_WEIGHTS, 0)
