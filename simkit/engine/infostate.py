"""The public state a strategy sees (``info``, layout in simkit.strategies.api), written in one place.

The whole-deal kernel (simkit.engine.game) calls these as the deal goes on, and ``simkit analyze --strategy``
(simkit.analyze.advice) calls the same functions while it walks a recorded game, so a strategy asked about a real
game sees exactly what it would have seen had the kernel dealt and played it. Inlined into the kernel (no cost
there); callable from Python as well.
"""

from __future__ import annotations

from numba import njit

from simkit.engine.jitcache import files, stamp_module
from simkit.strategies.api import DEPENDENCIES as _API_DEPS
from simkit.strategies.api import (
    I_BIDS,
    I_DEAL,
    I_DECLARER,
    I_DOUBLINGS,
    I_HAND_SIZE,
    I_HISTORY_CARDS,
    I_HISTORY_LEADER,
    I_HISTORY_WINNER,
    I_KIND,
    I_KNOCKED,
    I_KONTRA_SEAT,
    I_LEADER,
    I_N_IN_TRICK,
    I_PARTNER_SHOWN,
    I_PHASE,
    I_PLAYED,
    I_PLAYED_BY,
    I_POINTS,
    I_RE_SEAT,
    I_SEARCHED,
    I_SUIT,
    I_TOUT,
    I_TRICK,
    I_TRICK_NO,
    I_TRICKS_WON,
    I_VARIANT,
    NOT_ASKED,
    PHASE_BID,
    PHASE_DOUBLE,
    PHASE_KLOPFEN,
    PHASE_PLAY,
)

#: the files its kernels compile in: the on-disk cache is keyed on all of them (simkit.engine.jitcache)
DEPENDENCIES = files("engine/infostate") + _API_DEPS


@njit(cache=True, inline="always")
def info_new_deal(info, idx, hand_size):
    """Before the first bid: nothing known but the deal's number and the hand size."""
    info[:] = 0
    info[I_DEAL] = idx
    info[I_HAND_SIZE] = hand_size
    for s in range(4):
        info[I_BIDS + s] = NOT_ASKED
        info[I_TRICK + s] = -1
    info[I_KIND] = -1
    info[I_SUIT] = -1
    info[I_DECLARER] = -1
    info[I_VARIANT] = -1
    info[I_KONTRA_SEAT] = -1
    info[I_RE_SEAT] = -1
    info[I_PARTNER_SHOWN] = -1
    for t in range(8):
        info[I_HISTORY_LEADER + t] = -1
        info[I_HISTORY_WINNER + t] = -1
    for j in range(32):
        info[I_HISTORY_CARDS + j] = -1
    info[I_PHASE] = PHASE_BID


@njit(cache=True, inline="always")
def info_klopfen(info):
    """Klopfen is asked (RULES.md 4.1), before the bidding; ``info[I_KNOCKED]`` gathers who knocks."""
    info[I_PHASE] = PHASE_KLOPFEN


@njit(cache=True, inline="always")
def info_knock(info, seat):
    info[I_KNOCKED] |= 1 << seat


@njit(cache=True, inline="always")
def info_start_bidding(info):
    info[I_PHASE] = PHASE_BID


@njit(cache=True, inline="always")
def info_bid(info, seat, code):
    info[I_BIDS + seat] = code


@njit(cache=True, inline="always")
def info_contract(info, kind, suit, tout, declarer, variant):
    """The game is fixed; Kontra and Re are asked next."""
    info[I_KIND] = kind
    info[I_SUIT] = suit
    info[I_TOUT] = tout
    info[I_DECLARER] = declarer
    info[I_VARIANT] = variant
    info[I_PHASE] = PHASE_DOUBLE


@njit(cache=True, inline="always")
def info_kontra(info, seat):
    info[I_DOUBLINGS] = 1
    info[I_KONTRA_SEAT] = seat


@njit(cache=True, inline="always")
def info_re(info, seat):
    info[I_DOUBLINGS] = 2
    info[I_RE_SEAT] = seat


@njit(cache=True, inline="always")
def info_start_play(info):
    info[I_PHASE] = PHASE_PLAY


@njit(cache=True, inline="always")
def info_start_trick(info, t, leader):
    info[I_TRICK_NO] = t
    info[I_LEADER] = leader
    info[I_HISTORY_LEADER + t] = leader


@njit(cache=True, inline="always")
def info_to_play(info, k):
    """The ``k``-th card of the trick (0: the lead) is asked for next."""
    info[I_N_IN_TRICK] = k


@njit(cache=True, inline="always")
def info_card(info, t, k, seat, card, played, is_called_ace):
    """Card ``card`` was played by ``seat`` as card ``k`` of trick ``t``; ``played`` is every card played so far
    (this one included)."""
    info[I_TRICK + k] = card
    info[I_PLAYED] = played
    info[I_PLAYED_BY + seat] |= 1 << card
    info[I_HISTORY_CARDS + 4 * t + k] = card
    if is_called_ace:
        info[I_PARTNER_SHOWN] = seat


@njit(cache=True, inline="always")
def info_end_trick(info, t, winner, trick_points, searched_now):
    """Trick ``t`` went to ``winner`` with ``trick_points``; ``searched_now`` when it searched the called suit."""
    if searched_now:
        info[I_SEARCHED] = 1
    info[I_POINTS + winner] += trick_points
    info[I_TRICKS_WON + winner] += 1
    info[I_HISTORY_WINNER + t] = winner
    for s in range(4):
        info[I_TRICK + s] = -1


stamp_module(globals(), DEPENDENCIES)
