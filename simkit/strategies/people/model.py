"""The ``people`` strategy: bids and plays as the people of the sauspiel online room did, by a model fitted to
their games (simkit.strategies.people.train; docs/strategies.md, "people").

* **Bidding**: every declaration the hand may make (each callable Rufspiel, each Farbsolo, Wenz, Geier, each
  Farbwenz, ... as the ruleset enables them) gets a score ``bid_w[kind] . bid_features(declaration)``; passing
  scores 0; the seat *wants* a declaration drawn from the softmax of those scores (``bid_temperature`` scales it;
  0 takes the most likely). It says what it wants whatever the earlier seats said, so the declared contract is
  the highest-ranked one any seat wanted (the auction of the kernel) and a deal is thrown in when nobody wanted
  anything: the model the weights were fitted with.
* **Play**: each legal card gets ``play_w[context] . play_features(card)`` (the context is the seat's role and
  its place in the trick); the card is the most likely one (``play_temperature`` 0, the default) or drawn from
  the softmax at that temperature.
* **Kontra and Re**: the real games record none, so people double as the heuristic does (by value), from the
  heuristic's part of the config.

Config layout: the heuristic's named entries and value table (so its ``double`` reads the same words), then this
model's two named entries inside the heuristic's free room (``C_PLAY_TEMPERATURE``, ``C_BID_TEMPERATURE``), then
from ``WEIGHTS_AT`` the bidding weights ``[N_KINDS, N_BID]`` and the play weights ``[N_CONTEXTS, N_PLAY]``, filled
from the weights file of the ruleset when a run binds the strategy (simkit.strategies.people.weights).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from numba import carray, njit

from simkit.engine.jitcache import Linked, jit, source_stamp, stamp_module
from simkit.engine.bits import cttz, nth_bit, popcount
from simkit.strategies import heuristic as _h
from simkit.strategies import natives as _natives
from simkit.strategies.api import (
    BID_SIG,
    DOUBLE_SIG,
    I_RNG,
    INFO_SIZE,
    PASS,
    PLAY_SIG,
    bid_code,
)
from simkit.strategies.people import features as _features
from simkit.strategies.people.features import (
    HEURISTIC_FEATURE, MAX_LEGAL, N_BID, N_CONTEXTS, N_PLAY, bid_score, called_suit_score, play_scores,
)
from simkit.engine.rng import next_u64

USES_SCRATCH = False
DESCRIPTION = ("plays like people: bids and cards from a model fitted to 20,000 real games of the sauspiel room "
               "(rulesets sauspiel and sauspiel-short); Kontra and Re as the heuristic")

N_KINDS = 6
_OWN = (
    ("play_temperature", 0.0, "0: play the card people most likely play; t > 0: draw from the model's "
                              "probabilities at temperature t (1: as fitted)"),
    ("bid_temperature", 1.0, "1: want a declaration with the probability people do; 0: the most likely choice "
                             "(passing included)"),
)
N_HEURISTIC = len(_h.DEFAULT_CONFIG)
C_PLAY_TEMPERATURE = N_HEURISTIC
C_BID_TEMPERATURE = N_HEURISTIC + 1
assert C_BID_TEMPERATURE < _h.VALUES_AT
CONFIG_NAMES = _h.CONFIG_NAMES + tuple(c[0] for c in _OWN)
#: the named part only: binding to a ruleset (weights.bind) adds the value table and the weights
DEFAULT_CONFIG = np.concatenate([_h.DEFAULT_CONFIG, np.array([c[1] for c in _OWN], np.float64)])
CONFIG_DOC = {**_h.CONFIG_DOC, **{c[0]: c[2] for c in _OWN}}
WEIGHTS_AT = _h.CONFIG_LEN
BID_W_AT = WEIGHTS_AT
PLAY_W_AT = BID_W_AT + N_KINDS * N_BID
CONFIG_LEN = PLAY_W_AT + N_CONTEXTS * N_PLAY

_P_HAND_SIZE = 10
_P_DECK_MASK = 11
_P_ENABLED = 12
_N_VARIANTS = 15
_OU = 0x18181818
_OBERS = 0x10101010
_UNTERS = 0x08080808
#: the cache stamp: this file, the features (their sizes are compiled in here) and what they inline
DEPENDENCIES = [Path(__file__).resolve()] + _features.DEPENDENCIES + _natives.DEPENDENCIES + [
    Path(__file__).resolve().parents[2] / "engine" / "rng.py"]


_STAMP = source_stamp(DEPENDENCIES)


def _jit(sig=None):
    """njit with the on-disk cache keyed on :data:`DEPENDENCIES`; compiled, when first called, for ``sig`` only
    when given (simkit.engine.jitcache.jit)."""
    return jit(_STAMP, sig, what="the people model")


_helper = jit(_STAMP, helper=True)


@njit(cache=True, inline="always")
def _uniform(info):
    """A uniform float in [0, 1) from the asked seat's stream."""
    x, s = next_u64(np.uint64(info[I_RNG]))
    info[I_RNG] = np.int64(s)
    return (x >> np.uint64(11)) * (1.0 / 9007199254740992.0)


@_helper
def _choose(scores, n, temperature, info):
    """Index of the choice among ``scores[:n]``: the best at temperature 0, else a softmax draw (one rng draw)."""
    best = 0
    for i in range(1, n):
        if scores[i] > scores[best]:
            best = i
    if temperature <= 0.0 or n == 1:
        return best
    top = scores[best]
    total = 0.0
    for i in range(n):
        scores[i] = np.exp((scores[i] - top) / temperature)
        total += scores[i]
    u = _uniform(info) * total
    for i in range(n):
        u -= scores[i]
        if u < 0.0:
            return i
    return n - 1


# ------------------------------------------------------------------------------------------------ bidding

def _candidates(hand, params, out):
    """The declarations ``hand`` may make under ``params`` (enabled kinds, no Tout: the real games have none; a
    Farbsolo, Farbwenz or Farbgeier with at least half the hand in trumps), as (kind, suit) pairs at
    ``out[2 i], out[2 i + 1]`` (suit -1 for Wenz and Geier), in the order the weights
    file's training used; returns how many (at most 3 + 4 + 1 + 1 + 4 + 4 = 17)."""
    deck = params[_P_DECK_MASK]
    en = params[_P_ENABLED]
    hs = params[_P_HAND_SIZE]
    n = 0
    for kind in range(N_KINDS):
        if ((en >> kind) & 1) == 0:
            continue
        if kind == 0:
            for s in (0, 1, 3):
                side = hand & (np.int64(0xFF) << np.int64(8 * s)) & ~np.int64(_OU) & deck
                if side != 0 and ((hand >> np.int64(8 * s + 7)) & 1) == 0:
                    out[2 * n] = 0
                    out[2 * n + 1] = s
                    n += 1
        elif kind == 2 or kind == 3:
            out[2 * n] = kind
            out[2 * n + 1] = -1
            n += 1
        else:  # a trump suit: at least half the hand in trumps (people declared fewer 1 time in 3,800 solos)
            ou = np.int64(_OU) if kind == 1 else (np.int64(_UNTERS) if kind == 4 else np.int64(_OBERS))
            for s in range(4):
                if 2 * popcount(hand & deck & (ou | (np.int64(0xFF) << np.int64(8 * s)))) >= hs:
                    out[2 * n] = kind
                    out[2 * n + 1] = s
                    n += 1
    return n


MAX_CANDIDATES = 17
candidates = _jit()(_candidates)  # for training (simkit.strategies.people.train)
_candidates_inline = _helper(_candidates)
# a bid's work space: the scores (passing first), the candidates, one declaration's score being summed
B_SCORES = 0
B_CAND = MAX_CANDIDATES + 1
B_ACC = B_CAND + 2 * MAX_CANDIDATES
#: float64 words of the work space a decision needs (the kernel's ``work_f``): a bid's (above); a card's, the
#: scores of the legal cards
WORK_SIZE = max(B_ACC + 1, MAX_LEGAL)


@_helper
def bid_scores(hand, seat, strength, params, config, work):
    """The bidding model's scores for ``hand`` at ``seat``: passing (0) at ``work[B_SCORES]``, then each
    declaration the hand may make, its (kind, suit) at ``work[B_CAND + 2 i]``; returns how many declarations.
    Shared by the model's bid and pimc's inference (the likelihood of a bid)."""
    deck = params[_P_DECK_MASK]
    hs = params[_P_HAND_SIZE]
    cand = work[B_CAND:B_ACC]
    n = _candidates_inline(hand, params, cand)
    scores = work[B_SCORES:B_CAND]
    acc = work[B_ACC:B_ACC + 1]
    scores[0] = 0.0  # passing
    ruf_base = np.nan  # the Rufspiel's score but for the called suit's features: once for all its suits
    for i in range(n):
        k = np.int64(cand[2 * i])
        s = np.int64(cand[2 * i + 1])
        if k == 0:
            if np.isnan(ruf_base):
                bid_score(hand, seat, k, -1, deck, hs, strength, acc, config, BID_W_AT)
                ruf_base = acc[0]
            scores[i + 1] = called_suit_score(hand, s, deck, acc, config, BID_W_AT, ruf_base)
        else:
            bid_score(hand, seat, k, s, deck, hs, strength, acc, config, BID_W_AT + k * N_BID)
            scores[i + 1] = acc[0]
    return n


@_helper
def _bid(hand, seat, info, strength, params, config, work):
    n = bid_scores(hand, seat, strength, params, config, work)
    cand = work[B_CAND:B_ACC]
    scores = work[B_SCORES:B_CAND]
    j = _choose(scores, n + 1, config[C_BID_TEMPERATURE], info)
    if j == 0:
        return PASS
    return bid_code(np.int64(cand[2 * j - 2]), np.int64(cand[2 * j - 1]), False)


#: the native bid entry's signature (simkit.strategies.natives: the kernel calls it by address)
BID_KERNEL_SIG = _natives.BID_SIG


@_jit(BID_KERNEL_SIG)
def bid_kernel(hand, seat, info_p, strength_p, params_p, n_params, config_p, n_config, work_p):
    """:func:`bid` as the whole-deal kernel calls it (the arrays as data pointers, as the heuristic's; ``work_p``
    :data:`WORK_SIZE` float64 words of work space: nothing is allocated)."""
    return _bid(hand, seat, carray(info_p, (INFO_SIZE,)), carray(strength_p, (_N_VARIANTS, 32)),
                carray(params_p, (n_params,)), carray(config_p, (n_config,)), carray(work_p, (WORK_SIZE,)))


@_jit(BID_SIG)
def bid(hand, seat, info, strength, eff_suit, params, config):
    work = np.empty(WORK_SIZE)
    return bid_kernel(hand, seat, _h.data_ptr(info), _h.data_ptr(strength), _h.data_ptr(params), params.shape[0],
                      _h.data_ptr(config), config.shape[0], _h.data_ptr(work))


@_jit(DOUBLE_SIG)
def double(hand, seat, info, strength, eff_suit, params, config):
    """Kontra and Re as the heuristic says them (from the heuristic's part of the config)."""
    return _h.double_kernel(hand, seat, _h.data_ptr(info), _h.data_ptr(params), params.shape[0],
                            _h.data_ptr(config), config.shape[0])


# --------------------------------------------------------------------------------------------------- play

@_helper
def card_scores(hand, legal, seat, info, strength, eff_suit, config, deck, heur_card, scores):
    """The model's score of each legal card (ascending card order) into ``scores``; returns how many."""
    play_scores(hand, legal, seat, info, strength, eff_suit, deck, heur_card, scores, config, PLAY_W_AT)
    return popcount(legal)


@_helper
def _pick(hand, legal, seat, info, strength, eff_suit, config, deck, heur_card, scores):
    """The card of ``legal`` the model chooses (``scores``: work space for the legal cards' scores)."""
    n = card_scores(hand, legal, seat, info, strength, eff_suit, config, deck, heur_card, scores)
    return nth_bit(legal, _choose(scores, n, config[C_PLAY_TEMPERATURE], info))


@_helper
def _heuristic_matters(scores, n, w):
    """Could the heuristic's card, whichever it is, change the most likely card? ``scores[:n]``: the scores
    without the heuristic feature (it is added last, so with it a card's score is exactly its score here + ``w``).
    With ``w`` > 0 only when another card is within ``w`` of the best; with ``w`` < 0 only when the runner-up is
    within ``-w`` of the best (the best may be the heuristic's card); ties count as mattering."""
    if w == 0.0:
        return False
    best = 0
    for i in range(1, n):
        if scores[i] > scores[best]:
            best = i
    for i in range(n):
        if i == best:
            continue
        if (w > 0.0 and scores[i] + w >= scores[best]) or (w < 0.0 and scores[i] >= scores[best] + w):
            return True
    return False


@_helper
def _pick_lazy(hand, legal, seat, info, strength, eff_suit, config, deck, tm, out, best, winner, pts, info_p,
               strength_p, eff_suit_p, config_p, scores):
    """:func:`_pick` asking the heuristic for its card (a feature; a whole heuristic decision, an eighth of the
    model's time) only where it could change the choice: at temperature 0, when no card is within the feature's
    weight of the best. The same card as :func:`_pick` always."""
    temperature = config[C_PLAY_TEMPERATURE]
    # one call of the scores (their code is most of this entry's: a second copy of it would crowd the
    # instruction cache): with the heuristic's card when drawing at a temperature, without it at temperature 0
    hc = np.int64(-1)
    if temperature > 0.0:
        hc = _h.play_kernel(hand, legal, seat, info_p, strength_p, eff_suit_p, config_p, deck, tm, out, best, winner,
                            pts)
    n = popcount(legal)
    ctx = play_scores(hand, legal, seat, info, strength, eff_suit, deck, hc, scores, config, PLAY_W_AT)
    w = config[PLAY_W_AT + ctx * N_PLAY + HEURISTIC_FEATURE]
    if temperature <= 0.0 and _heuristic_matters(scores, n, w):
        hc = _h.play_kernel(hand, legal, seat, info_p, strength_p, eff_suit_p, config_p, deck, tm, out, best, winner,
                            pts)
        if (legal >> hc) & 1:
            scores[popcount(legal & ((np.int64(1) << hc) - 1))] += w
    return nth_bit(legal, _choose(scores, n, temperature, info))


#: the native play entry's signature (simkit.strategies.natives)
PLAY_KERNEL_SIG = _natives.PLAY_SIG


@_jit(PLAY_KERNEL_SIG)
def play_kernel(hand, legal, seat, info_p, strength_p, eff_suit_p, config_p, n_config, deck, tm, out, best, winner,
                pts, work_p):
    """:func:`play` as the whole-deal kernel calls it: ``legal`` has at least two cards; ``tm``, ``out``, ``best``,
    ``winner``, ``pts`` as for the heuristic's ``play_kernel`` (its card is one of the model's features);
    ``work_p`` points to :data:`WORK_SIZE` float64 words of work space (nothing is allocated)."""
    info = carray(info_p, (INFO_SIZE,))
    strength = carray(strength_p, (_N_VARIANTS, 32))
    eff_suit = carray(eff_suit_p, (_N_VARIANTS, 32))
    config = carray(config_p, (n_config,))
    return _pick_lazy(hand, legal, seat, info, strength, eff_suit, config, deck, tm, out, best, winner, pts, info_p,
                      strength_p, eff_suit_p, config_p, carray(work_p, (WORK_SIZE,)))


@_jit(PLAY_SIG)
def play(hand, legal, seat, info, strength, eff_suit, params, config):
    if (legal & (legal - 1)) == 0:
        return cttz(legal)
    hc = _h.play(hand, legal, seat, info, strength, eff_suit, params, config)
    deck = params[_P_DECK_MASK]
    return _pick(hand, legal, seat, info, strength, eff_suit, config, deck, hc, np.empty(WORK_SIZE))


#: the two kernels the whole-deal kernel calls for people seats, by address (simkit.engine.jitcache.Linked): the
#: whole-deal kernel does not contain the model, which is compiled only when a seat plays it
BID_KERNEL = Linked(bid_kernel, BID_KERNEL_SIG, "simkit_people_bid_" + _STAMP.hex()[:16],
                    what="the people model's bidding")
PLAY_KERNEL = Linked(play_kernel, PLAY_KERNEL_SIG, "simkit_people_play_" + _STAMP.hex()[:16],
                     what="the people model's play")

# every cached function here, the IR-inlined helpers included, is keyed on all the files it compiles in
stamp_module(globals(), DEPENDENCIES)
