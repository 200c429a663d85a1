"""Inference for pimc: how likely a world makes what its seat has seen, under the ``people`` model (or the
heuristic's: pimc's ``model`` entry, :data:`MODEL_HEURISTIC` below).

pimc's worlds (simkit.strategies.worlds) are drawn uniformly among the hidden deals consistent with what the seat
knows. But the other seats did not play at random: a seat that led a low trump rarely held the top ones. The
likelihood of a world is the probability, under a model of how the others play, of everything they were seen to do
given that world's hands:

* **card play**: for every card another seat played so far, the people model's probability (the softmax of its
  card scores, simkit.strategies.people.model) of that card among the seat's legal cards, given the hand that seat
  held then in this world and the public state at that moment. The state is rebuilt from the info words by
  replaying the history with the same functions the kernel writes them with (simkit.engine.infostate), so the
  model sees what it would have seen had it been asked then. A forced card (one legal card) has probability 1;
  the heuristic's card (a feature of the model) is the one the heuristic would have played there.
* **bids** (``infer_bids``): each other seat's bid or pass, under the people bidding model (the softmax over
  passing and each declaration its dealt hand may make).

Each probability is floored (``infer_floor``: one card people rarely play does not rule a world out) and the
model's scores may be flattened by a temperature (``infer_temperature``). The log-likelihood is their sum.
Under the heuristic's model (``model=heuristic``) a seat is a player that always plays the heuristic's card and bids
the heuristic's bid: those have probability 1, anything else the floor. It needs no people weights.

The sum falls apart by seat: each seat's part (:func:`seat_log_likelihood`) depends only on the hand that seat
holds in the world, since the info words each of its cards was played under are public. So a decision replays the
deal once (:func:`public_steps`) and pimc computes each seat's part once per hand it meets among its candidate
worlds; :func:`world_log_likelihood` is the sum of the parts.

The people weights sit in pimc's config where the people model's config keeps them (from
simkit.strategies.people.model.BID_W_AT), bound by pimc's ``bind`` for the rulesets that have them.
"""

from __future__ import annotations

import numpy as np

from simkit.engine import infostate as _infostate
from simkit.engine import kernel as _kernel
from simkit.engine.bits import popcount
from simkit.engine.infostate import info_card, info_end_trick, info_start_trick, info_to_play
from simkit.engine.jitcache import files, jit, source_stamp, stamp_module
from simkit.engine.kernel import legal_cards, trick_step
from simkit.rules.contracts import RUFSPIEL
from simkit.rules.tables import P_DECK_MASK, P_RUN_AWAY_MIN
from simkit.strategies import heuristic as _h
from simkit.strategies.api import (
    I_BIDS,
    I_HAND_SIZE,
    I_HISTORY_CARDS,
    I_HISTORY_LEADER,
    I_HISTORY_WINNER,
    I_KIND,
    I_LEADER,
    I_N_IN_TRICK,
    I_PARTNER_SHOWN,
    I_PLAYED,
    I_PLAYED_BY,
    I_POINTS,
    I_SEARCHED,
    I_SUIT,
    I_TRICK,
    I_TRICK_NO,
    I_TRICKS_WON,
    I_VARIANT,
    INFO_SIZE,
    NOT_ASKED,
    PASS,
)
from simkit.strategies.people import model as _people
from simkit.strategies.people.model import WORK_SIZE, card_scores

#: the files its kernels compile in (the people model's, the kernel's legal cards and trick rule, the info writers)
DEPENDENCIES = sorted(set(files("strategies/inference", "engine/jitcache", "rules/contracts", "rules/tables")
                          + _people.DEPENDENCIES + _infostate.DEPENDENCIES + _kernel.DEPENDENCIES
                          + _h.DEPENDENCIES))
_STAMP = source_stamp(DEPENDENCIES)

#: the play models a world's likelihood is computed under (pimc's ``model`` entry): the people model's softmax;
#: the heuristic as a player that always plays its card and bids its bid (probability 1, anything else the floor)
MODEL_PEOPLE, MODEL_HEURISTIC = 1, 2
#: the smallest floor taken (so a world's weight, exp of at most ~35 floored logs, never underflows)
MIN_FLOOR = 1e-6
#: int64 work words: the replayed info, then the public steps (:func:`public_steps`)
R_INFO = 0
R_STEPS = R_INFO + INFO_SIZE
#: a public step (a card another seat played): the info words its seat saw, then what the trick was then
E_SEAT, E_CARD, E_K, E_LED, E_BEST_CARD, E_BEST_SEAT, E_TP, E_SEARCHED = range(INFO_SIZE, INFO_SIZE + 8)
STEP_SIZE = INFO_SIZE + 8
R_SIZE = R_STEPS + 32 * STEP_SIZE
#: float64 work words: the people model's scores
F_SIZE = WORK_SIZE


@jit(_STAMP, helper=True)
def _log_prob(scores, n, j, temperature):
    """log of the softmax probability of choice ``j`` among ``scores[:n]`` at ``temperature`` (> 0)."""
    top = scores[0]
    for i in range(1, n):
        if scores[i] > top:
            top = scores[i]
    z = 0.0
    for i in range(n):
        z += np.exp((scores[i] - top) / temperature)
    return (scores[j] - top) / temperature - np.log(z)


@jit(_STAMP, helper=True)
def bid_log_prob(hand, seat, code, params, strength, config, temperature, work):
    """log P(``code``, a bid or PASS | the dealt ``hand`` at ``seat``) under the people bidding model (its
    ``_bid``: passing scores 0, each declaration the hand may make its weights' score); -inf for a bid the model
    never makes (a Tout)."""
    n = _people.bid_scores(hand, seat, strength, params, config, work)
    scores = work[_people.B_SCORES:_people.B_CAND]
    cand = work[_people.B_CAND:_people.B_ACC]
    j = 0 if code == PASS else -1
    for i in range(n):
        k = np.int64(cand[2 * i])
        s = np.int64(cand[2 * i + 1])
        if code != PASS and ((code >> 6) & 1) == 0 and (code & 7) == k and ((code >> 3) & 7) - 1 == s:
            j = i + 1
    if j < 0:
        return -np.inf
    return _log_prob(scores, n + 1, j, temperature)


@jit(_STAMP)
def world_log_likelihood(world, me, info, strength, eff_suit, params, config, suit_mask, points, floor, temperature,
                         bids, model, rw, fw):
    """The log-likelihood of a world (``world``: the hidden hands now, int64[4]) for seat ``me``: the sum over every
    card another seat played so far (and, ``bids``, each other seat's bid) of log max(model probability, floor),
    under ``model`` (MODEL_PEOPLE, MODEL_HEURISTIC). ``config`` holds the heuristic's entries and value table and,
    for the people model, its weights (from people.model.BID_W_AT on); ``rw``/``fw`` int64[R_SIZE] and
    float64[F_SIZE] work space. The sum of :func:`seat_log_likelihood` over the other seats."""
    n_steps = public_steps(me, info, eff_suit, strength, points, rw)
    ll = 0.0
    for s in range(4):
        if s != me:
            ll += seat_log_likelihood(world[s], s, info, n_steps, strength, eff_suit, params, config, suit_mask,
                                      floor, temperature, bids, model, rw, fw)
    return ll


@jit(_STAMP)
def public_steps(me, info, eff_suit, strength, points, rw):
    """Replay the deal from its first card and keep, for every card a seat other than ``me`` played, the info
    words that seat saw then and the trick so far (a step of ``STEP_SIZE`` words from ``rw[R_STEPS]``). All of it
    is public: the same for every world, so a decision replays once (:func:`seat_log_likelihood` reads it).
    Returns the number of steps."""
    v = info[I_VARIANT]
    r = rw[R_INFO:R_INFO + INFO_SIZE]
    r[:] = info
    r[I_TRICK_NO] = 0
    r[I_LEADER] = 0
    r[I_N_IN_TRICK] = 0
    r[I_PLAYED] = 0
    r[I_SEARCHED] = 0
    r[I_PARTNER_SHOWN] = -1
    for s in range(4):
        r[I_TRICK + s] = -1
        r[I_PLAYED_BY + s] = 0
        r[I_POINTS + s] = 0
        r[I_TRICKS_WON + s] = 0
    for t in range(8):
        r[I_HISTORY_LEADER + t] = -1
        r[I_HISTORY_WINNER + t] = -1
    for j in range(32):
        r[I_HISTORY_CARDS + j] = -1
    called = info[I_SUIT] if info[I_KIND] == RUFSPIEL else -1
    ace_bit = np.int64(1) << np.int64(8 * called + 7) if called >= 0 else np.int64(0)
    searched = called < 0
    played = np.int64(0)
    now_t = info[I_TRICK_NO]
    n_steps = 0
    for t in range(now_t + 1):
        nk = 4 if t < now_t else info[I_N_IN_TRICK]
        if nk == 0:
            break
        leader = info[I_HISTORY_LEADER + t]
        info_start_trick(r, t, leader)
        led = 0
        best_seat = 0
        best_eff = 0
        best_str = 0
        best_card = -1
        tp = 0
        for k in range(nk):
            p = (leader + k) & 3
            c = info[I_HISTORY_CARDS + 4 * t + k]
            info_to_play(r, k)
            if p != me:
                at = R_STEPS + n_steps * STEP_SIZE
                step = rw[at:at + STEP_SIZE]
                step[:INFO_SIZE] = r
                step[E_SEAT] = p
                step[E_CARD] = c
                step[E_K] = k
                step[E_LED] = led
                step[E_BEST_CARD] = best_card if k > 0 else -1
                step[E_BEST_SEAT] = best_seat
                step[E_TP] = tp
                step[E_SEARCHED] = 1 if searched else 0
                n_steps += 1
            bit = np.int64(1) << c
            played |= bit
            info_card(r, t, k, p, c, played, bit == ace_bit)
            tp += points[c]
            led, best_seat, best_eff, best_str = trick_step(k, p, eff_suit[v, c], strength[v, c], led, best_seat,
                                                            best_eff, best_str)
            if best_seat == p:
                best_card = c
        if nk == 4:
            if led == called:
                searched = True
            info_end_trick(r, t, best_seat, tp, led == called)
    return n_steps


@jit(_STAMP)
def seat_log_likelihood(hand_now, s, info, n_steps, strength, eff_suit, params, config, suit_mask, floor,
                        temperature, bids, model, rw, fw):
    """Seat ``s``'s part of a world's log-likelihood, given the hand it holds now in that world (``hand_now``): its
    bid (``bids``) and every card it played with a choice, under the people model (``model`` MODEL_PEOPLE) or the
    heuristic (MODEL_HEURISTIC: its own bid and card have probability 1, every other the floor; the bid as the
    heuristic's bidder makes it with the bids of the seats before, which ``info`` holds), each probability floored at
    ``floor``; ``rw`` holds the ``n_steps`` public steps of :func:`public_steps`. A world's likelihood is the sum
    of its seats' parts, and a part depends on that seat's hand alone (pimc computes it once per hand)."""
    log_floor = np.log(max(floor, MIN_FLOOR))
    temperature = max(temperature, 1e-3)
    v = info[I_VARIANT]
    kind = info[I_KIND]
    deck = params[P_DECK_MASK]
    hand = hand_now | info[I_PLAYED_BY + s]  # as dealt
    ll = 0.0
    if bids and info[I_BIDS + s] != NOT_ASKED:
        if model == MODEL_HEURISTIC:
            if _h._bid(hand, s, info, strength, params, config, config.shape[0]) != info[I_BIDS + s]:
                ll += log_floor
        else:
            ll += max(bid_log_prob(hand, s, info[I_BIDS + s], params, strength, config, temperature, fw), log_floor)
    called = info[I_SUIT] if kind == RUFSPIEL else -1
    ace_bit = np.int64(1) << np.int64(8 * called + 7) if called >= 0 else np.int64(0)
    called_mask = np.int64(suit_mask[v, called]) if called >= 0 else np.int64(0)
    holder = (hand & ace_bit) != 0  # this seat holds the called ace in this world
    run_min = params[P_RUN_AWAY_MIN]
    tm = _h._trump_mask(kind, info[I_SUIT], deck)
    for i in range(n_steps):
        at = R_STEPS + i * STEP_SIZE
        if rw[at + E_SEAT] != s:
            continue
        step = rw[at:at + STEP_SIZE]
        c = step[E_CARD]
        k = step[E_K]
        led = step[E_LED]
        legal = legal_cards(hand, k, np.int64(suit_mask[v, led]), led == called,
                            step[E_SEARCHED] == 0 and holder, ace_bit, called_mask, run_min)
        if ((legal >> c) & 1) == 0:  # cannot happen in a consistent world: the least likely
            ll += log_floor
        elif (legal & (legal - 1)) != 0:  # a choice (a forced card tells nothing)
            r = step[:INFO_SIZE]
            out = deck & ~r[I_PLAYED] & ~hand
            hc = _h._play(hand, legal, s, r, strength, eff_suit, config, deck, tm, out, step[E_BEST_CARD],
                          step[E_BEST_SEAT], step[E_TP])
            if model == MODEL_HEURISTIC:
                if hc != c:
                    ll += log_floor
            else:
                n = card_scores(hand, legal, s, r, strength, eff_suit, config, deck, hc, fw)
                j = popcount(legal & ((np.int64(1) << c) - 1))
                ll += max(_log_prob(fw, n, j, temperature), log_floor)
        hand &= ~(np.int64(1) << c)
    return ll


stamp_module(globals(), DEPENDENCIES)
