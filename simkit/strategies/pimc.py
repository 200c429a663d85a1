"""The built-in ``pimc`` strategy: perfect-information Monte Carlo over the double-dummy solver.

At a decision with more than one legal card the seat deals the cards it has not seen ``worlds`` times, each world
drawn exactly uniformly among those consistent with everything it knows (simkit.strategies.worlds), solves each
world with every hand open for the ``payout`` objective (simkit.solver: the outcome level of each legal card, lost
Schwarz .. won Schwarz, priced by the tariff with that world's Laufende and partner), and plays the card with the
best total payout to its own seat over the worlds. From trick ``points_from`` on a world is solved for each card's
exact card points instead, the level derived from them, and a card's gain is its payout plus ``point_value`` base
prices for each of its card points (0: the points only break the payout's ties). Ties otherwise go
to the preferred card: the ``people`` model's likeliest where the ruleset has people weights (``people_card``),
else the heuristic's, so pimc plays like people (or the heuristic) wherever the solver sees no difference; in the
first ``people_tricks`` tricks the people card is played unsearched, and a lead may use ``lead_budget`` times the
node budget. Where the people weights file has best-card weights (the people features fitted to the double-dummy
best card, simkit.strategies.people.best; ``best_card``), their card replaces the people card there, on the leads
with at least ``best_lead_cards`` cards in hand (unsearched) and as the tie-break, and the time those leads free
goes to more worlds and nodes for the rest (``worlds`` and ``node_budget`` of -1: :func:`bind`).

Bidding, Kontra and Re are pimc's own (``bid_eval`` and ``double_eval``, on by default; off, they are the
heuristic's, whose config is the first part of pimc's: by the value table of the ruleset's tariff,
simkit.strategies.values): (:func:`bid_eval`, :func:`double_eval`, simkit.strategies.pimc_bid): the mean payout of each
candidate declaration (and of passing, of Kontra or Re) over worlds consistent with the bids, each played out by
the heuristic at all four seats and priced by the tariff. Both entries are always brought (slots N_BID_EVAL and
N_DOUBLE of simkit.strategies.natives); switched off they return the value-table bidder's answer, computed as the
kernel computes it for a native seat without them, so the rows are those of before.

Inference (``inference``: 2, the default, where the ruleset has people weights; 1 always; simkit.strategies.inference):
the worlds are no longer alike. Each is weighed by its
likelihood under the ``people`` model: the product, over every unforced card another seat played so far (and
their bids, ``infer_bids``), of the model's probability of that card given that world's hand for the seat and the
public state then, each floored at ``infer_floor``. With ``infer_candidates`` 1 the solved worlds' payouts are
summed with those weights; with k > 1, k x ``worlds`` candidates are drawn and ``worlds`` of them resampled by
weight (systematic resampling; a world drawn twice is solved once and counted twice); a world's log-likelihood
is the sum of its other seats' parts, each a function of that seat's hand alone, computed once per hand in a
decision (:func:`_seat_part`). The people weights of the
ruleset are bound into the config (:func:`bind`; sauspiel and sauspiel-short); elsewhere asking for inference is a
one-line error (with ``inference=1``; the default 2 plays without it there). Measured (docs/strategies.md,
"Inference"); off, with the other switches of later (``points_from``, ``people_card``, ``people_tricks``,
``lead_budget``) off too, the rows are those of before.
The model is the ``model`` entry: ``people`` (the default) or ``heuristic`` (a player that always plays the
heuristic's card and bids its bid; needs no weights, so its inference runs on every ruleset). Both are compiled
into :func:`decide` (simkit.strategies.inference); a plug-in's play cannot be a model.

Reproducible: the worlds are drawn from the seat's own random stream, and every decision starts a fresh generation
of the solver's table, so a choice depends only on what the seat knows and its stream, never on what the process
solved before (which a node limit would otherwise make visible).

Config (appended to the heuristic's; docs/strategies.md):
``worlds`` worlds per decision; ``node_budget`` search nodes per decision (no world is started once they are used
up; a world whose own solve needs more is left out; with no world solved the heuristic's card is played);
``win_only_tricks`` the first tricks in which a world is asked only whether each card wins; ``bid_weight`` the
heuristic-bidder weighting of worlds; ``inference``, ``infer_floor``, ``infer_temperature``, ``infer_candidates``,
``infer_bids`` the inference above; ``ramsch_cards`` the hand size from which a Ramsch decision is searched;
``bid_eval``, ``bid_worlds``, ``bid_min_worlds``, ``bid_eval_max``, ``bid_eval_slack``, ``bid_eval_margin``,
``double_eval`` the bidding and doubling by its own evaluation; ``points_from``, ``people_card``, ``lead_budget``,
``people_tricks``, ``best_card``, ``best_lead_cards``, ``point_value``, ``points_budget``, ``levels_budget``,
``lead_worlds`` the points, the preferred card and the budgets above; ``late_cards``, ``late_worlds``,
``late_candidates`` the more worlds of a late decision (a seat with few cards left: its worlds are small searches,
and a few worlds' Monte Carlo error is what it loses most by);
``root_cards``, ``root_gap`` the people model's likeliest cards as the only ones searched (off).

The club contracts: a Bettel is searched for the declarer's win, a Ramsch for the seat's own fewest card points
with the other three against it (a bound, docs/solver.md), but only once the seat holds at most ``ramsch_cards``
cards: before that a Ramsch world needs far more nodes than the budget (docs/strategies.md, "Ramsch"), so the
heuristic's card is played. A Sie cannot be lost: never searched.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from simkit.engine import kernel as _kernel
from simkit.engine.bits import cttz, nth_bit, popcount
from simkit.engine.jitcache import Linked, files, requires, source_stamp, stamp, stamp_module, unliteral
from simkit.engine.kernel import laufende, score
from simkit.rules.contracts import BETTEL, RAMSCH, RUFSPIEL, SIE
from simkit.rules.tables import P_DECK_MASK, P_HAND_SIZE, P_RUN_AWAY_MIN, P_STICHZWANG, P_TOUT_ALLOWED
from simkit.solver import jit as _solver_jit
from simkit.solver.search import (
    ALL_FLAGS,
    C_FLAGS,
    C_KEY,
    C_MAXI,
    C_STICH,
    C_TEAM,
    FLAG_BOUNDS,
    MEASURE_POINTS,
    MEASURE_TRICKS,
    ST_ABORTED,
    ST_GEN,
    ST_LIMIT,
    ST_NODES,
    SEARCH,
    apply_card,
)
from simkit.solver.values import OBJ_LEVEL, OBJ_POINTS, at_least, card_values_among, open_position
from simkit.strategies import heuristic as _heuristic
from simkit.strategies.api import (
    I_BIDS,
    I_DECLARER,
    I_DOUBLINGS,
    I_HAND_SIZE,
    I_HISTORY_CARDS,
    I_KIND,
    I_KNOCKED,
    I_LEADER,
    I_PLAYED_BY,
    I_RNG,
    I_SUIT,
    I_TOUT,
    I_TRICK_NO,
    I_VARIANT,
    INFO_SIZE,
    NOT_ASKED,
    PASS,
    rng_u64,
)
from simkit.strategies import inference as _inference
from simkit.strategies.people import model as _people_model
from simkit.strategies.people.features import MAX_LEGAL, MLP_ROW, N_CONTEXTS, N_PLAY, play_features, play_scores
from simkit.strategies import worlds as _worlds
from simkit.strategies import pimc_bid as _pimc_bid
from simkit.strategies.natives import DECIDE_SIG, EVAL_SIG, N_BID_EVAL, N_DECIDE, N_DOUBLE
from simkit.strategies.worlds import count_worlds, draw_world, knowledge

USES_SCRATCH = False
SLOW = True  # milliseconds a deal: runs use small shards (simkit.sim.runner)
DESCRIPTION = ("perfect-information Monte Carlo: samples the hidden cards consistently with all the seat knows "
               "(weighed by the people model where the ruleset has its weights), solves each world for the payout "
               "and card points, plays the best mean; bids, Kontras and Res by worlds played out under the tariff")

_OWN = (
    ("worlds", -1.0, "worlds sampled per decision (more: stronger and slower); -1: 16 where best-card weights "
                     "are bound (their unsearched leads free the time), else 12"),
    ("node_budget", -1.0, "search nodes per decision (0: no limit): no world is started once they are used up, "
                          "and a world whose own solve needs more is left out; -1: 35,000 where best-card weights "
                          "are bound, else 25,000"),
    ("win_only_tricks", 0.0, "in the first this many tricks a world only asks whether each card wins (the cheap "
                             "question), not its Schneider/Schwarz level"),
    ("bid_weight", 1.0, "a world's weight is multiplied by this for each other seat whose bid the heuristic would "
                        "not have made with that world's hand (1: all worlds alike; 0: such worlds are redrawn)"),
    ("inference", 2.0, "weigh the worlds by how likely the model (model) makes what the other seats did "
                       "(simkit.strategies.inference): 2 where the ruleset has people weights, 1 always (an error "
                       "without them, unless model=heuristic, which needs none), 0: all worlds alike"),
    ("infer_floor", 0.01, "inference: the least probability one observed card or bid counts with"),
    ("infer_temperature", 1.0, "inference: the temperature of the model's softmax (above 1: flatter)"),
    ("infer_candidates", 16.0, "inference: k > 1: draw k x worlds candidates and solve worlds of them resampled by "
                              "likelihood; 1: solve the sampled worlds, each weighted by its likelihood"),
    ("infer_bids", 1.0, "inference: 1: the other seats' bids and passes count too (the people bidding model)"),
    ("ramsch_cards", 5.0, "a Ramsch: search only once the seat holds at most this many cards (earlier a Ramsch "
                          "world rarely fits node_budget), before that play the heuristic's card; 0: never search"),
    # bidding and doubling by its own evaluation (simkit.strategies.pimc_bid)
    ("bid_eval", 1.0, "1: declare by the mean payout of each candidate declaration (and of passing) over worlds "
                      "played out by the heuristic; 0: as the value-table bidder (the heuristic's)"),
    ("bid_worlds", 32.0, "bid_eval/double_eval: worlds consistent with the bids that are played out"),
    ("bid_min_worlds", 8.0, "bid_eval/double_eval: with fewer consistent worlds found (in 4 x bid_worlds draws) "
                            "the seat bids or doubles as the value-table bidder"),
    ("bid_eval_max", 4.0, "bid_eval: candidate declarations evaluated at most (besides passing; up to 7)"),
    ("bid_eval_slack", 2.0, "bid_eval: candidates are the declarations the value table prices within this many "
                            "Rufspiel base prices of the best (and of 0)"),
    ("bid_eval_margin", 0.0, "bid_eval: declare when the best candidate beats passing by at least this many "
                             "Rufspiel base prices"),
    ("double_eval", 1.0, "1: Kontra and Re by the mean payout over worlds consistent with the bids, played out "
                         "by the heuristic (against kontra_margin and re_value); 0: as the value-table doubler"),
    ("points_from", 3.0, "from this trick on (1 = every trick) a world of a classic contract is solved for the "
                         "exact card points of each card, its payout level derived from them, and among cards of "
                         "equal total payout the one with the most card points for the seat's side is played; "
                         "0: payout levels only"),
    ("people_card", 1.0, "1: where the ruleset has people weights, the people model's card (its likeliest) is the "
                         "tie-break and the fallback in place of the heuristic's; 0: the heuristic's"),
    ("lead_budget", 2.0, "a lead (the first card of a trick) may search this many times node_budget"),
    ("people_tricks", 1.0, "with people_card on and the ruleset's people weights: in the first this many tricks "
                           "the people model's card is played without a search"),
    ("root_cards", 0.0, "with people_card on and the ruleset's people weights: search only the people model's "
                        "likeliest this many legal cards (0: all)"),
    ("root_gap", 0.0, "with people_card on and the ruleset's people weights: search only the cards whose "
                      "people-model log-probability is within this of the likeliest's (0: all)"),
    ("best_card", 2.0, "where the ruleset's people weights have best-card weights (simkit train best): 1: the "
                       "cards played unsearched (people_tricks, best_lead_cards) are their likeliest card in place of "
                       "the people model's; 2: the fallback too, and a tie goes to the tied card they score highest; "
                       "0: off"),
    ("best_lead_cards", 6.0, "with best_card: a lead with at least this many cards in hand is the best-card "
                             "weights' likeliest card, unsearched (the long deck's first three tricks, the short "
                             "deck's first; 0: every lead)"),
    ("point_value", 1.0, "in points mode (points_from): what one card point for the seat's side is worth against the "
                         "payout, in the contract's base prices: a card's gain in a world is its payout plus this "
                         "times base price times its points; 0: the payout first, the points only break its ties"),
    ("lead_worlds", 2.0, "a lead that is searched solves this many times worlds, from as many times the "
                         "candidates (within lead_budget)"),
    ("best_mlp", 2.0, "with best_card, where the weights file has a best-card network (simkit train best "
                      "--mlp-hidden): 2: the cards played unsearched and the tie-break of the searched decisions "
                      "are scored by the best-card weights plus the network; 1: the unsearched cards only; 0: by "
                      "the weights alone"),
    ("model", 1.0, "the play model the inference weighs the worlds by, written by name: people (its card and bid "
                   "probabilities) or heuristic (a player that always plays the heuristic's card and bids its bid)"),
    ("tie_people", 2.0, "with best_card 2: a tie at the best sum goes to the tied card whose best-card score plus "
                        "this times its people-model score (logit) is highest (0: the best-card score alone)"),
    ("late_cards", 5.0, "a decision where the seat holds at most this many cards (the long deck's last five tricks, "
                        "the short deck's last five: smaller searches) solves late_worlds x worlds, resampled from "
                        "late_candidates x that many candidates (at most 1,024), within the node budget; 0: off"),
    ("late_worlds", 2.0, "late_cards: the worlds of a late decision, in multiples of worlds"),
    ("late_candidates", 8.0, "late_cards: a late decision's candidate worlds per world solved (infer_candidates' "
                             "counterpart there)"),
    ("solve_order", 1.0, "with resampled worlds (infer_candidates, late_candidates > 1): 1: the worlds drawn most "
                         "often are solved first, so where the node budget runs out the likeliest were solved; 0: "
                         "in the order they were drawn"),
    ("last_cards", 3.0, "a decision where the seat holds at most this many cards (the long deck's last three "
                        "tricks, tiny searches) solves last_worlds x worlds in place of late_worlds x; 0: off"),
    ("last_worlds", 4.0, "last_cards: the worlds of such a decision, in multiples of worlds"),
    ("tie_mlp", 1.0, "with best_card 2, where the weights file has a tie network (simkit train tie): "
                     "1: the searched decisions' tie-break and fallback are scored by the best-card weights plus "
                     "it in place of the best-card network; 0: as best_mlp says"),
    ("points_budget", 2.0, "a follow in the first trick solved for exact card points (points_from: the long "
                           "deck's third trick, the dearest exact searches) may search this many times "
                           "node_budget"),
    ("levels_budget", 1.5, "a follow in the last trick solved for payout levels only (the trick before points_from: "
                           "the long deck's second trick) may search this many times node_budget"),
)
#: config entries written by name (``pimc[model=people]``): entry -> {name: the number the config keeps}
CONFIG_CHOICES = {"model": {"people": float(_inference.MODEL_PEOPLE), "heuristic": float(_inference.MODEL_HEURISTIC)}}
N_HEURISTIC = len(_heuristic.DEFAULT_CONFIG)
CONFIG_NAMES = _heuristic.CONFIG_NAMES + tuple(c[0] for c in _OWN)
DEFAULT_CONFIG = np.concatenate([_heuristic.DEFAULT_CONFIG, np.array([c[1] for c in _OWN], np.float64)])
CONFIG_DOC = {**_heuristic.CONFIG_DOC, **{c[0]: c[2] for c in _OWN}}
C_WORLDS = N_HEURISTIC
C_NODE_BUDGET = N_HEURISTIC + 1
C_WIN_ONLY_TRICKS = N_HEURISTIC + 2
C_BID_WEIGHT = N_HEURISTIC + 3
C_INFERENCE, C_INFER_FLOOR, C_INFER_TEMPERATURE, C_INFER_CANDIDATES, C_INFER_BIDS = range(N_HEURISTIC + 4,
                                                                                        N_HEURISTIC + 9)
C_RAMSCH_CARDS = N_HEURISTIC + 9
C_BID_EVAL, C_BID_WORLDS, C_BID_MIN_WORLDS, C_BID_EVAL_MAX, C_BID_EVAL_SLACK, C_BID_EVAL_MARGIN, C_DOUBLE_EVAL = range(
    N_HEURISTIC + 10, N_HEURISTIC + 17)
C_POINTS_FROM = N_HEURISTIC + 17
C_PEOPLE_CARD = N_HEURISTIC + 18
C_LEAD_BUDGET = N_HEURISTIC + 19
C_PEOPLE_TRICKS = N_HEURISTIC + 20
C_ROOT_CARDS = N_HEURISTIC + 21
C_ROOT_GAP = N_HEURISTIC + 22
C_BEST_CARD = N_HEURISTIC + 23
C_BEST_LEAD_CARDS = N_HEURISTIC + 24
C_POINT_VALUE = N_HEURISTIC + 25
C_LEAD_WORLDS = N_HEURISTIC + 26
C_BEST_MLP = N_HEURISTIC + 27
C_MODEL = N_HEURISTIC + 28
C_TIE_PEOPLE = N_HEURISTIC + 29
C_LATE_CARDS, C_LATE_WORLDS, C_LATE_CANDIDATES = range(N_HEURISTIC + 30, N_HEURISTIC + 33)
C_SOLVE_ORDER = N_HEURISTIC + 33
C_LAST_CARDS, C_LAST_WORLDS = N_HEURISTIC + 34, N_HEURISTIC + 35
C_TIE_MLP = N_HEURISTIC + 36
C_POINTS_BUDGET = N_HEURISTIC + 37
C_LEVELS_BUDGET = N_HEURISTIC + 38
assert len(CONFIG_NAMES) <= _heuristic.VALUES_AT
#: what ``worlds=-1`` and ``node_budget=-1`` (the defaults) stand for: without best-card weights, with them (bind)
AUTO_WORLDS = (12, 16)
AUTO_NODE_BUDGET = (25_000, 35_000)  # 40,000 until 2026-12-06 (docs/strategies.md)
#: candidate worlds drawn for resampling at most (infer_candidates x worlds is cut to this)
MAX_CANDIDATES = 1024
#: slots of the per-seat memo of likelihood parts (a power of two, at least twice MAX_CANDIDATES: short probes)
MEMO_BITS = 11
MEMO_SLOTS = 1 << MEMO_BITS
assert MEMO_SLOTS >= 2 * MAX_CANDIDATES
WEIGHT_ONE = 16  # a world's weight per seat whose bid fits its hand; bid_weight is taken in sixteenths of it

bid = _heuristic.bid
_PEOPLE_CONFIG_LEN = _people_model.CONFIG_LEN  # the people weights behind the value table (bind)
#: the best-card weights (simkit.strategies.people.best) behind the people weights, where the file has them
BEST_W_AT = _PEOPLE_CONFIG_LEN
_BEST_CONFIG_LEN = BEST_W_AT + N_CONTEXTS * N_PLAY
#: the best-card network behind them, where the file has one: its number of hidden units, then one row per unit
#: (simkit.strategies.people.features.MLP_ROW: weights of the play features, of each context, bias, output)
BEST_MLP_AT = _BEST_CONFIG_LEN
double = _heuristic.double

DEFAULT_TABLE_BITS = 18  # 2^18 entries (8 MB): the worlds of one decision are small searches

# the workspace tuple (see :func:`workspace`)
PW_TABS, PW_SUIT, PW_ID, PW_TT, PW_FR, PW_MOVES, PW_KEYS, PW_STATS = range(8)
PW_WORK, PW_COUNTS, PW_BINOM, PW_WORLD, PW_STATE, PW_STATE2, PW_CTX, PW_VALS, PW_SUMS, PW_THR = range(8, 18)
PW_IWORK, PW_FWORK = 18, 19  # the inference's work words
# PW_IWORK: the likelihood's (inference.R_SIZE), then the candidate worlds (4 words each), then their
# multiplicities, then the memo's keys (a hand + 1 per slot, 0 empty; MEMO_SLOTS per seat)
IW_CAND = _inference.R_SIZE
IW_MULT = IW_CAND + 4 * MAX_CANDIDATES
IW_MEMO = IW_MULT + MAX_CANDIDATES
IW_BID = IW_MEMO + 4 * MEMO_SLOTS  # then the bid evaluation's (simkit.strategies.pimc_bid, B_*)
IW_SIZE = IW_BID + _pimc_bid.B_SIZE
# PW_FWORK: the likelihood's (inference.F_SIZE), the weighted payout sums per card, the candidates'
# log-likelihoods, the memo's values (the likelihood part of the hand in the same slot of IW_MEMO)
FW_SUMS = _inference.F_SIZE
FW_LOGW = FW_SUMS + 32
FW_MEMO = FW_LOGW + MAX_CANDIDATES
FW_BID = FW_MEMO + 4 * MEMO_SLOTS  # then the bid evaluation's (BF_*)
FW_FEAT = FW_BID + _pimc_bid.BF_SIZE  # then the play features of the legal cards (the best-card network's input)
FW_NONZERO = FW_FEAT + MAX_LEGAL * N_PLAY  # then the indices of one card's features that are not 0
FW_PREF = FW_NONZERO + N_PLAY  # then the tie-break's score of each legal card (by card)
FW_SIZE = FW_PREF + 32

#: the files its kernels compile in (the on-disk cache is keyed on all of them, simkit.engine.jitcache): the
#: heuristic too (its config length places pimc's entries, C_WORLDS, ..., constants compiled into decide), and every
#: file of the solver's stamp, whose search it calls by a symbol named after that stamp
DEPENDENCIES = sorted(set(files("strategies/pimc", "engine/jitcache") + _worlds.DEPENDENCIES
                          + _heuristic.DEPENDENCIES + _kernel.DEPENDENCIES + _solver_jit.DEPENDENCIES
                          + _inference.DEPENDENCIES + _pimc_bid.DEPENDENCIES))


_STAMP = source_stamp(DEPENDENCIES)


def _jit(fn):
    return requires(unliteral(stamp(njit(cache=True, _nrt=False)(fn), _STAMP)), (SEARCH,))


@njit(cache=True, inline="always")
def _seat_payout(dp, dt, tout, hs, lauf, lauf_min_v, base_v, params, dbl, team, partner, seat):
    w, sn, sw, pr, p0, p1, p2, p3 = score(dp, dt, tout, hs, lauf, lauf_min_v, base_v, params, dbl, team, partner)
    if seat == 0:
        return p0
    if seat == 1:
        return p1
    if seat == 2:
        return p2
    return p3


@njit(cache=True, inline="always")
def _cost(c, v, points, eff_suit):
    """Tie order among equally good cards: fewest points, then a side card before a trump, then the weakest."""
    return np.int64(points[c]) * 64 + (32 if eff_suit[v, c] == 4 else 0) + c


@njit(cache=True, inline="always")
def _bid_weight(world, seat, info, strength, params, config, w_miss):
    """The weight of a world (``world``: the hidden hands now; with the cards each seat played, the hands as
    dealt): WEIGHT_ONE per other seat whose bid the heuristic (pimc's own bidder, under this config) would have
    made with its dealt hand, ``w_miss`` per seat whose it would not."""
    w = np.int64(1)
    for s2 in range(4):
        if s2 == seat:
            continue
        dealt = world[s2] | info[I_PLAYED_BY + s2]
        fits = _heuristic._bid(dealt, s2, info, strength, params, config, config.shape[0]) == info[I_BIDS + s2]
        w *= WEIGHT_ONE if fits else w_miss
    return w


@njit(cache=True, inline="always")
def _start_likelihoods(seat, info, strength, eff_suit, points, iw):
    """A decision's inference starts here: the deal's public steps replayed once (inference.public_steps) and the
    memo of seat parts emptied. Returns the number of steps, for :func:`_log_likelihood`."""
    iw[IW_MEMO:IW_MEMO + 4 * MEMO_SLOTS] = 0
    return _inference.public_steps(seat, info, eff_suit, strength, points, iw[0:_inference.R_SIZE])


@njit(cache=True, inline="always")
def _log_likelihood(world, seat, info, n_steps, strength, eff_suit, params, config, suit_mask, iw, fw):
    """The world's log-likelihood under the people model (inference.world_log_likelihood, with the inference
    knobs of ``config``): the sum of its other seats' parts, each a function of that seat's hand alone, taken
    from the memo (late in a deal few hands are left) or computed once (:func:`_seat_part`)."""
    keys = iw[IW_MEMO:IW_MEMO + 4 * MEMO_SLOTS]
    parts = fw[FW_MEMO:FW_MEMO + 4 * MEMO_SLOTS]
    ll = 0.0
    for s2 in range(4):
        if s2 != seat:
            ll += _seat_part(world[s2], s2, info, n_steps, strength, eff_suit, params, config, suit_mask, keys,
                             parts, iw, fw)
    return ll


@njit(cache=True, inline="always")
def _seat_part(h, s2, info, n_steps, strength, eff_suit, params, config, suit_mask, keys, parts, iw, fw):
    """Seat ``s2``'s likelihood part for hand ``h`` (inference.seat_log_likelihood), from the memo (``keys``,
    ``parts``: MEMO_SLOTS per seat, open addressing) or computed and stored there (not stored once the seat's
    slots are all taken: worlds drawn one by one, infer_candidates=1, may outnumber them)."""
    slot = np.int64((np.uint64(h) * np.uint64(0x9E3779B97F4A7C15)) >> np.uint64(64 - MEMO_BITS))
    base = s2 * MEMO_SLOTS
    probes = 0
    while keys[base + slot] != 0 and probes < MEMO_SLOTS:
        if keys[base + slot] == h + 1:
            return parts[base + slot]
        slot = (slot + 1) & (MEMO_SLOTS - 1)
        probes += 1
    part = _inference.seat_log_likelihood(h, s2, info, n_steps, strength, eff_suit, params, config, suit_mask,
                                          config[C_INFER_FLOOR], config[C_INFER_TEMPERATURE],
                                          config[C_INFER_BIDS] > 0, _model(config), iw[0:_inference.R_SIZE],
                                          fw[0:_inference.F_SIZE])
    if probes < MEMO_SLOTS:
        keys[base + slot] = h + 1
        parts[base + slot] = part
    return part


@njit(cache=True, inline="always")
def _model(config):
    """The inference's play model (inference.MODEL_PEOPLE, MODEL_HEURISTIC): the ``model`` entry."""
    return np.int64(config[C_MODEL]) if config.shape[0] > C_MODEL else np.int64(_inference.MODEL_PEOPLE)


@njit(cache=True, inline="always")
def _resample(hand, seat, info, strength, eff_suit, params, config, suit_mask, points, work, counts, binom, world,
              iw, fw, n_cand, n_worlds):
    """Draw ``n_cand`` candidate worlds into ``iw[IW_CAND:]`` and pick ``n_worlds`` of them with probability
    proportional to their likelihood (systematic resampling: one uniform draw, each candidate taken about
    n_worlds x its share of the total likelihood times); their multiplicities go to ``iw[IW_MULT:]``. Returns how
    many candidates were drawn (0: none)."""
    logw = fw[FW_LOGW:FW_LOGW + MAX_CANDIDATES]
    n_steps = _start_likelihoods(seat, info, strength, eff_suit, points, iw)
    n = 0
    top = -np.inf
    for i in range(n_cand):
        if draw_world(hand, seat, work, counts, binom, info, world) < 0:
            break
        for s2 in range(4):
            iw[IW_CAND + 4 * i + s2] = world[s2]
        logw[i] = _log_likelihood(world, seat, info, n_steps, strength, eff_suit, params, config, suit_mask, iw, fw)
        top = max(top, logw[i])
        n += 1
    total = 0.0
    for i in range(n):
        logw[i] = np.exp(logw[i] - top)  # relative to the likeliest: no underflow of the total
        total += logw[i]
    step = total / n_worlds
    u = (rng_u64(info) >> np.uint64(11)) * (1.0 / 9007199254740992.0) * step
    acc = 0.0
    for i in range(n):  # the points u, u + step, ... that fall into this candidate's share
        lo = acc
        acc += logw[i]
        k = 0
        while u < acc and k < n_worlds:
            if u >= lo:
                k += 1
            u += step
        iw[IW_MULT + i] = k
    return n


def _decide(hand, legal, seat, info, strength, eff_suit, params, config, heur_card, suit_mask, lorder, n_trumps,
            lauf_min, base_price, points, pw):
    """The card pimc plays (``legal`` has at least two cards; ``heur_card`` is the heuristic's choice, the
    tie-break and the fallback). Also leaves, in ``pw[PW_SUMS]`` (with inference: the float64
    ``pw[PW_FWORK][FW_SUMS:]``, weighted by likelihood), the summed payout of each legal card and in
    ``pw[PW_THR][16]`` the number of worlds solved, in ``pw[PW_THR][17]`` how many of the draws they stand for."""
    tabs_all = pw[PW_TABS]
    id_all = pw[PW_ID]
    stats = pw[PW_STATS]
    work = pw[PW_WORK]
    counts = pw[PW_COUNTS]
    world = pw[PW_WORLD]
    s = pw[PW_STATE]
    ctx = pw[PW_CTX]
    vals = pw[PW_VALS]
    sums = pw[PW_SUMS]
    thr = pw[PW_THR]  # [0:5] threshold measures, [5:10] values, [10:16] payout per level, [16] worlds solved,
    # [17] the draws they stand for (resampled: the multiplicities summed; else one each)
    ws = (pw[PW_TT], pw[PW_FR], pw[PW_MOVES], pw[PW_KEYS], stats)
    for c in range(32):
        sums[c] = 0
    thr[16] = 0
    thr[17] = 0
    kind = info[I_KIND]
    # which decisions are searched at all (the kernel asks every one; docs/strategies.md): a Sie cannot be lost, so
    # every card is as good; a Ramsch only near its end: with more cards a world needs 10^5..10^6 nodes (measured,
    # BENCHMARKS.md), far over the budget, and a search that is cut off costs the budget and decides nothing
    if kind == SIE or (kind == RAMSCH and popcount(hand) > np.int64(config[C_RAMSCH_CARDS])):
        return heur_card
    n_worlds = np.int64(config[C_WORLDS])
    budget = np.int64(config[C_NODE_BUDGET])
    if n_worlds < 0:  # -1 left unbound (bind resolves it): the values without best-card weights
        n_worlds = np.int64(AUTO_WORLDS[0])
    if budget < 0:
        budget = np.int64(AUTO_NODE_BUDGET[0])
    if info[I_LEADER] == seat and config.shape[0] > C_LEAD_BUDGET:  # a lead: the widest and dearest choice
        budget = np.int64(budget * config[C_LEAD_BUDGET])
        if config.shape[0] > C_LEAD_WORLDS:
            n_worlds = max(np.int64(round(n_worlds * config[C_LEAD_WORLDS])), np.int64(1))
    # a late decision (late_cards): its worlds are small searches, so it solves more of them (a few worlds' Monte
    # Carlo error is what a late decision loses most by: docs/strategies.md, "Late decisions")
    late = config.shape[0] > C_LATE_CANDIDATES and popcount(hand) <= np.int64(config[C_LATE_CARDS])
    if late:
        more = config[C_LATE_WORLDS]
        if config.shape[0] > C_LAST_WORLDS and popcount(hand) <= np.int64(config[C_LAST_CARDS]):
            more = config[C_LAST_WORLDS]  # the last tricks: a world is a few dozen nodes
        n_worlds = max(np.int64(round(n_worlds * more)), np.int64(1))
    if budget <= 0:
        budget = np.int64(1) << np.int64(62)
    # the card played where the worlds cannot decide, and the tie-break: the heuristic's, or the people model's
    # (the people model knows the six classic contracts only: a Bettel or a Ramsch keeps the heuristic's card)
    people = config.shape[0] >= _PEOPLE_CONFIG_LEN and kind < BETTEL
    ranked = False  # the tie-break's scores of the legal cards are in pw[PW_FWORK][FW_PREF:] (best_card 2)
    pref = heur_card
    searched = legal  # the cards searched: all, or the people model's likeliest (root_cards, root_gap)
    if people and config.shape[0] > C_PEOPLE_CARD and config[C_PEOPLE_CARD] > 0:
        scores = pw[PW_FWORK][0:_inference.F_SIZE]
        unsearched = info[I_TRICK_NO] < np.int64(config[C_PEOPLE_TRICKS])
        # the best-card weights, where bound: their card where the search is weakest (docs/strategies.md); a
        # lead's search costs by the cards left in hand, not by the trick's number (decks differ)
        best_card = np.int64(config[C_BEST_CARD]) if config.shape[0] >= _BEST_CONFIG_LEN else np.int64(0)
        if best_card > 0 and (unsearched or (info[I_LEADER] == seat and
                                             popcount(hand) >= np.int64(config[C_BEST_LEAD_CARDS]))):
            return _best_card(hand, legal, seat, info, strength, eff_suit, params, config, heur_card, scores,
                              pw[PW_FWORK][FW_FEAT:FW_NONZERO + N_PLAY], _net_at(config, False))
        pref, searched = _people_card(hand, legal, seat, info, strength, eff_suit, params, config, heur_card,
                                      scores)
        if unsearched:
            return pref
        if best_card > 1:  # the tie-break's score of each card: first the people model's share (tie_people)
            tie_people = config[C_TIE_PEOPLE] if config.shape[0] > C_TIE_PEOPLE else 0.0
            _scores_by_card(legal, scores, tie_people, pw[PW_FWORK][FW_PREF:FW_PREF + 32], False)
            pref = _best_card(hand, legal, seat, info, strength, eff_suit, params, config, heur_card, scores,
                              pw[PW_FWORK][FW_FEAT:FW_NONZERO + N_PLAY], _net_at(config, True))
            searched |= np.int64(1) << np.int64(pref)
            # a tie at the best sum goes to the tied card these scores (plus the people model's share) rank
            # highest; the inference reuses ``scores`` as work space, so they are kept by card
            _scores_by_card(legal, scores, 1.0, pw[PW_FWORK][FW_PREF:FW_PREF + 32], True)
            ranked = True
    knowledge(hand, seat, info, eff_suit, suit_mask, params, work)
    if count_worlds(work, counts, pw[PW_BINOM]) == 0:
        return pref
    v = info[I_VARIANT]
    decl = info[I_DECLARER]
    tout = info[I_TOUT] != 0
    dbl = info[I_DOUBLINGS]
    hs = info[I_HAND_SIZE]
    called = info[I_SUIT] if kind == RUFSPIEL else -1
    ace_bit = np.int64(1) << np.int64(8 * called + 7) if called >= 0 else np.int64(0)
    tabs = tabs_all[v]
    smv = pw[PW_SUIT][v]
    idv = id_all[v]
    among = np.int64(0)  # the searched cards in rank space
    m = searched
    while m != 0:
        c = cttz(m)
        m &= m - 1
        among |= np.int64(1) << np.int64(idv[c])
    guide = heur_card if (searched >> np.int64(heur_card)) & 1 else pref  # whose value guesses the next world's
    ace_id = idv[8 * called + 7] if called >= 0 else -1
    # the payout chain (simkit.solver.api._chain) and a (points, tricks) outcome at each of its levels. The club
    # contracts (simkit.solver.api): a Bettel's one threshold is "the declarer takes a trick", each level paid as
    # the seat's share in units of the price (the same in every world, so the choice is the same); a Ramsch is
    # this seat's own card points with the other three against it, the fewer the better
    club = kind == BETTEL or kind == RAMSCH
    kobj = OBJ_POINTS if kind == RAMSCH else OBJ_LEVEL
    win_only = info[I_TRICK_NO] < np.int64(config[C_WIN_ONLY_TRICKS])
    # exact card points (a classic contract from trick points_from on): the payout level follows from them, and
    # the points break the ties the levels leave (a card that gives away points is worse when it costs nothing
    # in the worlds drawn: it costs in the worlds that were not)
    p_from = np.int64(config[C_POINTS_FROM]) if config.shape[0] > C_POINTS_FROM else np.int64(0)
    by_points = (p_from > 0 and info[I_TRICK_NO] + 1 >= p_from and not club and not tout and not win_only)
    if by_points:
        kobj = OBJ_POINTS
    # the follows of two tricks solve fewest worlds in the budget and may search a multiple of it: the first trick
    # of exact points, the dearest exact searches (points_budget; docs/strategies.md, "The first trick of points"),
    # and the trick before it, the last of payout levels (levels_budget; "More worlds for the searched leads")
    factor_at = -1  # the config entry of this follow's budget factor (-1: none)
    if p_from > 0 and info[I_LEADER] != seat and not club and not tout and budget < np.int64(1) << np.int64(61):
        if by_points and info[I_TRICK_NO] + 1 == p_from:
            factor_at = C_POINTS_BUDGET
        elif info[I_TRICK_NO] + 2 == p_from:
            factor_at = C_LEVELS_BUDGET
    if factor_at >= 0 and config.shape[0] > factor_at:
        budget = np.int64(budget * config[factor_at])
    # points mode: a card point's weight against the payout, in 1/POINT_UNITS of a cent (0: lexicographic)
    point_value = config[C_POINT_VALUE] if config.shape[0] > C_POINT_VALUE else 0.0
    point_coef = np.int64(round(point_value * base_price[v] * POINT_UNITS)) if point_value > 0 else np.int64(0)
    if kind == BETTEL:
        n_thr = 1
        thr[0] = MEASURE_TRICKS
        thr[5] = 1
        thr[10] = 3 if seat == decl else -1  # level 0: the declarer took no trick, he wins
        thr[11] = -3 if seat == decl else 1
    elif kind == RAMSCH:
        n_thr = 0
    elif tout:
        n_thr = 1
        thr[0] = MEASURE_TRICKS
        thr[5] = hs
    elif win_only:
        n_thr = 1
        thr[0] = MEASURE_POINTS
        thr[5] = 61
    else:
        n_thr = 5
        thr[0] = MEASURE_TRICKS
        thr[5] = 1
        thr[1] = MEASURE_POINTS
        thr[6] = 31
        thr[2] = MEASURE_POINTS
        thr[7] = 61
        thr[3] = MEASURE_POINTS
        thr[8] = 91
        thr[4] = MEASURE_TRICKS
        thr[9] = hs
    thr_m = thr[0:5]
    thr_v = thr[5:10]
    stats[ST_GEN] += 1  # a fresh table: this decision's choice depends on this decision alone
    guess = np.int64(n_thr // 2 + 1) if kobj == OBJ_LEVEL else np.int64(30)
    if by_points:  # the declaring side's points so far and half the points still out
        guess = np.int64(60)
    solved = 0
    next_guess = guess
    used = np.int64(0)  # nodes searched in this decision
    # weighting by the bids: only when the bids were made (not in forced games) and bid_weight < 1
    w_miss = np.int64(round(config[C_BID_WEIGHT] * WEIGHT_ONE))
    weigh = w_miss < WEIGHT_ONE and info[I_BIDS + seat] != NOT_ASKED
    # inference (simkit.strategies.inference): the people model only with its weights bound into the config, the
    # heuristic anywhere (its card and bid are in every config); neither knows a Bettel or a Ramsch
    infer = config[C_INFERENCE] > 0 and kind < BETTEL and (people or _model(config) == _inference.MODEL_HEURISTIC)
    iw = pw[PW_IWORK]
    fw = pw[PW_FWORK]
    fsums = fw[FW_SUMS:FW_SUMS + 32]
    n_cand = 0  # resampling: the candidates drawn (0: the worlds are drawn one by one below)
    n_steps = 0  # inference: the public steps replayed for the likelihoods (_start_likelihoods)
    if infer:
        for c in range(32):
            fsums[c] = 0.0
        k_cand = np.int64(config[C_LATE_CANDIDATES] if late else config[C_INFER_CANDIDATES])
        if k_cand <= 1:
            n_steps = _start_likelihoods(seat, info, strength, eff_suit, points, iw)
        else:
            n_cand = _resample(hand, seat, info, strength, eff_suit, params, config, suit_mask, points, work,
                               counts, pw[PW_BINOM], world, iw, fw, min(k_cand * n_worlds, MAX_CANDIDATES), n_worlds)
            if n_cand == 0:
                return pref
    n_draws = n_cand if n_cand > 0 else n_worlds * (4 if weigh and w_miss == 0 else 1)  # redraws for weight 0
    # solve_order: the candidates in passes of falling multiplicity (the worlds drawn most often first), so that
    # where the budget runs out the likeliest worlds were solved; one pass in the order drawn otherwise
    top_mult = np.int64(1)
    ordered = n_cand > 0 and config.shape[0] > C_SOLVE_ORDER and config[C_SOLVE_ORDER] > 0
    if ordered:
        for i in range(n_cand):
            top_mult = max(top_mult, iw[IW_MULT + i])
    for i_flat in range(top_mult * n_draws):
        level = top_mult - i_flat // n_draws  # this pass's multiplicity
        i_draw = i_flat % n_draws
        if used >= budget or solved >= n_worlds:
            break
        like = 1.0  # the world's likelihood (inference), its multiplicity when resampled
        if n_cand > 0:
            if iw[IW_MULT + i_draw] == 0 or (ordered and iw[IW_MULT + i_draw] != level):
                continue
            like = np.float64(iw[IW_MULT + i_draw])
            for s2 in range(4):
                world[s2] = iw[IW_CAND + 4 * i_draw + s2]
        else:
            if draw_world(hand, seat, work, counts, pw[PW_BINOM], info, world) < 0:
                break
            if infer:
                like = np.exp(_log_likelihood(world, seat, info, n_steps, strength, eff_suit, params, config,
                                              suit_mask, iw, fw))
        # the hands as dealt in this world: its declaring side and Laufende
        h0 = world[0] | info[I_PLAYED_BY]
        h1 = world[1] | info[I_PLAYED_BY + 1]
        h2 = world[2] | info[I_PLAYED_BY + 2]
        h3 = world[3] | info[I_PLAYED_BY + 3]
        weight = np.int64(1)
        if weigh:
            weight = _bid_weight(world, seat, info, strength, params, config, w_miss)
            if weight == 0:
                continue
        if club:  # the measured seat (the declarer; a Ramsch: this seat) wants as little as it can
            open_position(h0, h1, h2, h3, info[I_HISTORY_CARDS:I_HISTORY_CARDS + 32], -1, -1,
                          seat if kind == RAMSCH else decl, params[P_RUN_AWAY_MIN], v, tabs, smv, idv, s, ctx)
            ctx[C_FLAGS] = ALL_FLAGS & ~FLAG_BOUNDS
            ctx[C_MAXI] = 15 & ~ctx[C_TEAM]
            ctx[C_KEY] |= np.int64(1) << np.int64(16)
            if kind == BETTEL and params[P_STICHZWANG] != 0:
                ctx[C_STICH] = 1
                ctx[C_KEY] |= np.int64(1) << np.int64(15)
        else:
            _classic_world(h0, h1, h2, h3, world, info, called, ace_bit, ace_id, decl, v, lorder, n_trumps, lauf_min,
                           base_price, params, dbl, tout, win_only, hs, n_thr, seat, thr, tabs, smv, idv, s, ctx)
        stats[ST_NODES] = 0
        stats[ST_ABORTED] = 0
        stats[ST_LIMIT] = budget  # a world may finish past the budget (a decision costs at most twice it)
        lm = card_values_among(s, ctx, tabs, smv, kobj, thr_m, thr_v, n_thr, guess, ws, vals, pw[PW_STATE2], among)
        used += stats[ST_NODES]
        if lm < 0:  # this world alone needs more than the budget
            continue
        if by_points:
            next_guess = vals[idv[guide]]
            before = stats[ST_NODES]
            ok = _points_to_gains(s, ctx, tabs, smv, idv, searched, hs, seat, thr, vals, ws, pw[PW_STATE2],
                                  point_coef)
            used += stats[ST_NODES] - before
            if not ok:
                continue
        solved += 1
        thr[17] += np.int64(like) if n_cand > 0 else np.int64(1)
        m = searched
        while m != 0:
            c = cttz(m)
            m &= m - 1
            if by_points:
                gain = vals[idv[c]]
            elif kind == RAMSCH:
                gain = -vals[idv[c]]
            else:
                gain = thr[10 + vals[idv[c]]]
            if infer:
                fsums[c] += like * weight * gain
            else:
                sums[c] += weight * gain
        guess = next_guess if by_points else vals[idv[guide]]
    thr[16] = solved
    if solved == 0:
        return pref
    best = pref
    m = searched
    # the best total; on a tie the tied card the tie-break's scores rank highest (ranked: the best-card score plus
    # tie_people x the people model's), else the preferred card, else the cheapest, then the weakest
    while m != 0:
        c = cttz(m)
        m &= m - 1
        if infer:
            better = fsums[c] > fsums[best]
            tie = fsums[c] == fsums[best]
        else:
            better = sums[c] > sums[best]
            tie = sums[c] == sums[best]
        if tie:
            cheaper = _cost(c, v, points, eff_suit) < _cost(best, v, points, eff_suit)
            if ranked:
                pc = pw[PW_FWORK][FW_PREF + c]
                pb = pw[PW_FWORK][FW_PREF + best]
                better = pc > pb or (pc == pb and cheaper)
            else:
                better = best != pref and cheaper
        if better:
            best = c
    return best


@njit(cache=True, inline="always")
def _scores_by_card(legal, scores, weight, by_card, add):
    """``by_card[c]`` = (``by_card[c]`` if ``add`` else 0) + ``weight`` x the score of legal card ``c`` (``scores``
    in the order of the legal cards)."""
    m = legal
    j = 0
    while m != 0:
        c = cttz(m)
        m &= m - 1
        by_card[c] = (by_card[c] if add else 0.0) + weight * scores[j]
        j += 1


@njit(cache=True, inline="always")
def _people_card(hand, legal, seat, info, strength, eff_suit, params, config, heur_card, scores):
    """The people model's likeliest card of ``legal`` (its weights bound into ``config``, :func:`bind`), and the
    cards to search: its ``root_cards`` likeliest (all: 0) whose log-probability is within ``root_gap`` of the
    likeliest's (any: 0)."""
    n = _people_model.card_scores(hand, legal, seat, info, strength, eff_suit, config, params[P_DECK_MASK],
                                  heur_card, scores)
    k = _likeliest(scores, n)
    top = nth_bit(legal, k)
    n_keep = np.int64(config[C_ROOT_CARDS]) if config.shape[0] > C_ROOT_CARDS else np.int64(0)
    gap = config[C_ROOT_GAP] if config.shape[0] > C_ROOT_GAP else 0.0
    if (n_keep <= 0 or n_keep >= n) and gap <= 0:
        return top, legal
    # the scores are the model's logits: a gap in them is a gap in log-probability
    floor = scores[k] - gap if gap > 0 else -np.inf
    keep = np.int64(0)
    for i in range(n):
        if scores[i] < floor:
            continue
        above = 0  # the cards scored higher (ties: the earlier first)
        for j in range(n):
            if scores[j] > scores[i] or (scores[j] == scores[i] and j < i):
                above += 1
        if n_keep <= 0 or above < n_keep:
            keep |= np.int64(1) << np.int64(nth_bit(legal, i))
    return top, keep


@njit(cache=True, inline="always")
def _net_at(config, searched):
    """Where the network that scores a decision is bound in ``config`` (0: none, the best-card weights alone): an
    unsearched decision's, the best-card network (``best_mlp`` >= 1); a searched decision's fallback and
    tie-break, the tie network where one is bound and ``tie_mlp`` is on, else the best-card network
    (``best_mlp`` 2). Bound behind the best-card weights: the best-card network's units and rows, then the tie
    network's (:func:`with_people_weights`)."""
    if config.shape[0] <= BEST_MLP_AT:
        return np.int64(0)
    tie_at = BEST_MLP_AT + 1 + np.int64(config[BEST_MLP_AT]) * MLP_ROW
    if searched:
        if config.shape[0] > tie_at and config[C_TIE_MLP] > 0:
            return tie_at
        return BEST_MLP_AT if config[C_BEST_MLP] > 1 and config[BEST_MLP_AT] > 0 else np.int64(0)
    return BEST_MLP_AT if config[C_BEST_MLP] > 0 and config[BEST_MLP_AT] > 0 else np.int64(0)


@njit(cache=True, inline="always")
def _best_card(hand, legal, seat, info, strength, eff_suit, params, config, heur_card, scores, work, net):
    """The best-card weights' likeliest card of ``legal`` (bound behind the people weights, :func:`bind`), scored
    with the network bound at ``config[net]`` too where ``net`` > 0 (:func:`_net_at`; ``work``: work space of
    (MAX_LEGAL + 1) x N_PLAY float64)."""
    n = popcount(legal)
    if net > 0:
        feats = work[0:MAX_LEGAL * N_PLAY].reshape((MAX_LEGAL, N_PLAY))
        ctx = play_features(hand, legal, seat, info, strength, eff_suit, params[P_DECK_MASK], heur_card, feats)
        _mlp_scores(feats, n, ctx, config, scores, work[MAX_LEGAL * N_PLAY:(MAX_LEGAL + 1) * N_PLAY], net)
    else:
        play_scores(hand, legal, seat, info, strength, eff_suit, params[P_DECK_MASK], heur_card, scores, config,
                    BEST_W_AT)
    return nth_bit(legal, _likeliest(scores, n))


@njit(cache=True, inline="always")
def _mlp_scores(feats, n, ctx, config, scores, nonzero, net):
    """``scores[k]``: the k-th card's best-card weights' score plus the output of the network bound at
    ``config[net]`` (its number of units, then its rows; simkit.strategies.people.best.mlp_scores, the reference):
    the sum over hidden units of out x max(0, in . features + in_context + bias). Only the features that are not
    0 are summed (about 13 of 63; ``nonzero`` holds their indices)."""
    w_at = BEST_W_AT + ctx * N_PLAY
    units = np.int64(config[net])
    for k in range(n):
        m = 0
        s = 0.0
        for j in range(N_PLAY):
            if feats[k, j] != 0.0:
                nonzero[m] = j
                m += 1
                s += feats[k, j] * config[w_at + j]
        for u in range(units):
            row = net + 1 + u * MLP_ROW
            a = config[row + N_PLAY + ctx] + config[row + N_PLAY + N_CONTEXTS]
            for i in range(m):
                j = np.int64(nonzero[i])
                a += feats[k, j] * config[row + j]
            if a > 0.0:
                s += a * config[row + N_PLAY + N_CONTEXTS + 1]
        scores[k] = s


@njit(cache=True, inline="always")
def _likeliest(scores, n):
    """The index of the highest of ``scores[:n]`` (the first on a tie)."""
    k = 0
    for i in range(1, n):
        if scores[i] > scores[k]:
            k = i
    return k


#: points mode: a card's gain is its payout times this plus its card points for the seat's side (so the points
#: only break ties of the payout summed over the worlds: up to 136 equally weighted worlds of 120 points stay under
#: one unit of payout)
POINTS_SCALE = 1 << 14
#: points mode with ``point_value``: a card's gain is its payout times this plus its points times the point's
#: value in these units (a cent of payout is POINT_UNITS)
POINT_UNITS = 64


@njit(cache=True, inline="always")
def _points_to_gains(s, ctx, tabs, smv, idv, legal, hs, seat, thr, vals, ws, s2, point_coef):
    """Points mode: turn each legal card's exact points for the declaring side (``vals``, rank space) into its
    gain, the seat's payout at the level those points reach times POINTS_SCALE plus the seat's side's points (with
    ``point_coef`` > 0: the payout times POINT_UNITS plus the side's points times ``point_coef``).
    The level follows from the points except at their ends: 0 points may still be a trick (not Schwarz), 120
    points may leave the other side a trick, so those ask the tricks threshold. False on the node limit."""
    mine = (ctx[C_TEAM] >> np.int64(seat)) & 1
    m = legal
    while m != 0:
        c = cttz(m)
        m &= m - 1
        r = idv[c]
        dp = vals[r]
        if dp <= 0 or dp >= 120:
            for j in range(s.shape[0]):
                s2[j] = s[j]
            apply_card(s2, np.int8(r), ctx, tabs)
            t = at_least(s2, ctx, tabs, smv, MEASURE_TRICKS, 1 if dp <= 0 else hs, ws)
            if t < 0:
                return False
            lv = (1 if t == 1 else 0) if dp <= 0 else (5 if t == 1 else 4)
        elif dp < 31:
            lv = 1
        elif dp < 61:
            lv = 2
        elif dp < 91:
            lv = 3
        else:
            lv = 4
        side = dp if mine else 120 - dp
        if point_coef > 0:
            vals[r] = thr[10 + lv] * POINT_UNITS + side * point_coef
        else:
            vals[r] = thr[10 + lv] * POINTS_SCALE + side
    return True


@njit(cache=True, inline="always")
def _classic_world(h0, h1, h2, h3, world, info, called, ace_bit, ace_id, decl, v, lorder, n_trumps, lauf_min,
                   base_price, params, dbl, tout, win_only, hs, n_thr, seat, thr, tabs, smv, idv, s, ctx):
    """A world of a classic contract: its declaring side, the seat's payout at each level (``thr[10:]``) and the
    position in rank space (the dealt hands, then every card played so far)."""
    partner = -1
    if called >= 0:
        if h0 & ace_bit:
            partner = 0
        elif h1 & ace_bit:
            partner = 1
        elif h2 & ace_bit:
            partner = 2
        else:
            partner = 3
    team = np.int64(1) << np.int64(decl)
    team_cards = world[decl] | info[I_PLAYED_BY + decl]
    if partner >= 0:
        team |= np.int64(1) << np.int64(partner)
        team_cards |= world[partner] | info[I_PLAYED_BY + partner]
    lauf, mit = laufende(team_cards, lorder[v], n_trumps[v])
    for lv in range(n_thr + 1):
        if tout:
            dp = 120 if lv == 1 else 0
            dt = hs if lv == 1 else hs - 1
        elif win_only:
            dp = 61 if lv == 1 else 60
            dt = 1
        else:
            dp = (0, 30, 60, 61, 91, 120)[lv]
            dt = hs if lv == 5 else (0 if lv == 0 else 1)
        thr[10 + lv] = _seat_payout(dp, dt, tout, hs, lauf, lauf_min[v], base_price[v], params, dbl, team,
                                    partner, seat)
    # the position in rank space: the dealt hands, then every card played so far
    open_position(h0, h1, h2, h3, info[I_HISTORY_CARDS:I_HISTORY_CARDS + 32], called, ace_id, decl,
                  params[P_RUN_AWAY_MIN], v, tabs, smv, idv, s, ctx)
    ctx[C_FLAGS] = ALL_FLAGS


decide = _jit(_decide)


# ----------------------------------------------------------------------- bidding by its own evaluation

def _bid_eval(hand, seat, info, strength, eff_suit, params, config, suit_mask, lorder, n_trumps, lauf_min,
              base_price, points, pw):
    """pimc's bid (simkit.strategies.pimc_bid): with ``bid_eval`` on (and the ruleset one it covers), the candidate
    of the highest mean payout over worlds played out, if it beats passing; else the value-table bidder's bid,
    computed exactly as the kernel computes a native seat's bid without this entry."""
    dp = _heuristic.data_ptr
    n_config = config.shape[0]
    heur = _heuristic.bid_kernel(hand, seat, dp(info), dp(strength), dp(params), params.shape[0], dp(config),
                                 n_config)
    if config[C_BID_EVAL] <= 0 or n_config < _heuristic.CONFIG_LEN or not _pimc_bid.evaluable(params):
        return heur
    # the worlds come from a stream of their own, seeded from the seat's: its card decisions draw what they would
    # without this bid, as when asked through the record path (which replays no bids)
    saved = info[I_RNG]
    info[I_RNG] = saved ^ _pimc_bid.BID_SALT
    code = _bid_by_worlds(hand, seat, info, strength, eff_suit, params, config, suit_mask, lorder, n_trumps,
                          lauf_min, base_price, points, pw, heur)
    info[I_RNG] = saved
    return code


@njit(cache=True, inline="always")
def _bid_by_worlds(hand, seat, info, strength, eff_suit, params, config, suit_mask, lorder, n_trumps, lauf_min,
                   base_price, points, pw, heur):
    """:func:`_bid_eval` once the evaluation is on: the candidates, the worlds, the best mean."""
    iw = pw[PW_IWORK][IW_BID:IW_BID + _pimc_bid.B_SIZE]
    fw = pw[PW_FWORK][FW_BID:FW_BID + _pimc_bid.BF_SIZE]
    pinfo = iw[_pimc_bid.B_INFO:_pimc_bid.B_INFO + INFO_SIZE]
    world = iw[_pimc_bid.B_WORLD:_pimc_bid.B_WORLD + 4]
    hw = iw[_pimc_bid.B_HW:_pimc_bid.B_HW + 4]
    codes = iw[_pimc_bid.B_CODES:_pimc_bid.B_CODES + _pimc_bid.MAX_CAND]
    nc = _pimc_bid.MAX_CAND
    sums = fw[_pimc_bid.BF_SUMS:_pimc_bid.BF_SUMS + nc + 1]  # [nc]: passing
    touts = fw[_pimc_bid.BF_TOUT:_pimc_bid.BF_TOUT + nc + 1]
    max_n = min(max(np.int64(config[C_BID_EVAL_MAX]), np.int64(1)), np.int64(nc - 1))
    n = _pimc_bid.candidates(hand, seat, info, params, config, suit_mask, heur, config[C_BID_EVAL_SLACK], max_n,
                             codes, touts)
    if n == 0:  # nothing the value table thinks worth a look: pass (the value-table bidder passes too)
        return heur
    for j in range(nc + 1):
        sums[j] = 0.0
        touts[j] = 0.0
    n_worlds = np.int64(config[C_BID_WORLDS])
    deck = params[P_DECK_MASK]
    hs = params[P_HAND_SIZE]
    acc = 0
    left = 4 * n_worlds  # draws allowed
    while acc < n_worlds:
        left = _pimc_bid.next_consistent_world(hand, seat, deck, hs, info, iw, world, pinfo, strength, params,
                                               config, suit_mask, left)
        if left < 0:
            break
        acc += 1
        m, _mt = _pimc_bid.deal_after_bid(world, seat, PASS, info, pinfo, hw, strength, eff_suit, params, config,
                                          suit_mask, lorder, n_trumps, lauf_min, base_price, points)
        sums[nc] += m
        for j in range(n):
            m, mt = _pimc_bid.deal_after_bid(world, seat, codes[j], info, pinfo, hw, strength, eff_suit, params,
                                             config, suit_mask, lorder, n_trumps, lauf_min, base_price, points)
            sums[j] += m
            touts[j] += mt
    if acc < max(np.int64(config[C_BID_MIN_WORLDS]), np.int64(1)):
        return heur
    best = PASS
    best_v = sums[nc] + config[C_BID_EVAL_MARGIN] * base_price[0] * acc
    tout_ok = params[P_TOUT_ALLOWED] != 0
    for j in range(n):
        c = codes[j]
        if sums[j] > best_v:
            best = c
            best_v = sums[j]
        if tout_ok and (c & 7) != 0 and (c >> 6) == 0 and touts[j] > best_v:
            best = c | 64
            best_v = touts[j]
    return best


def _double_eval(hand, seat, info, strength, eff_suit, params, config, suit_mask, lorder, n_trumps, lauf_min,
                 base_price, points, pw):
    """pimc's Kontra or Re (simkit.strategies.pimc_bid): with ``double_eval`` on, by the mean payout to this seat
    over worlds consistent with the bids, played out from the contract as it stands, against the value-table
    doubler's thresholds (``kontra_margin``, ``re_value``, in Rufspiel base prices); else the value-table
    doubler's answer, computed exactly as the kernel computes a native seat's."""
    dp = _heuristic.data_ptr
    n_config = config.shape[0]
    heur = _heuristic.double_kernel(hand, seat, dp(info), dp(params), params.shape[0], dp(config), n_config)
    kind = info[I_KIND]
    if config[C_DOUBLE_EVAL] <= 0 or n_config < _heuristic.CONFIG_LEN or kind >= BETTEL:
        return heur
    su = info[I_SUIT]
    decl = info[I_DECLARER]
    dbl = info[I_DOUBLINGS]
    declaring = seat == decl or (kind == RUFSPIEL and ((hand >> np.int64(8 * su + 7)) & 1) == 1)
    if declaring == (dbl == 0):  # Kontra is the defenders', Re the declaring side's
        return 0
    saved = info[I_RNG]  # a stream of its own, as the bid's
    info[I_RNG] = saved ^ _pimc_bid.DOUBLE_SALT
    a = _double_by_worlds(hand, seat, info, strength, eff_suit, params, config, suit_mask, lorder, n_trumps,
                          lauf_min, base_price, points, pw, heur, kind, su, decl, dbl)
    info[I_RNG] = saved
    return a


@njit(cache=True, inline="always")
def _double_by_worlds(hand, seat, info, strength, eff_suit, params, config, suit_mask, lorder, n_trumps, lauf_min,
                      base_price, points, pw, heur, kind, su, decl, dbl):
    """:func:`_double_eval` once the evaluation is on: 1 for Kontra or Re."""
    iw = pw[PW_IWORK][IW_BID:IW_BID + _pimc_bid.B_SIZE]
    pinfo = iw[_pimc_bid.B_INFO:_pimc_bid.B_INFO + INFO_SIZE]
    world = iw[_pimc_bid.B_WORLD:_pimc_bid.B_WORLD + 4]
    hw = iw[_pimc_bid.B_HW:_pimc_bid.B_HW + 4]
    n_worlds = np.int64(config[C_BID_WORLDS])
    deck = params[P_DECK_MASK]
    hs = params[P_HAND_SIZE]
    nk = popcount(info[I_KNOCKED])
    acc = 0
    total = 0.0
    left = 4 * n_worlds  # draws allowed
    while acc < n_worlds:
        left = _pimc_bid.next_consistent_world(hand, seat, deck, hs, info, iw, world, pinfo, strength, params,
                                               config, suit_mask, left)
        if left < 0:
            break
        acc += 1
        for i in range(INFO_SIZE):  # the public state as it stands (bids, contract, Kontra)
            pinfo[i] = info[i]
        m, _mt = _pimc_bid.play_out(world, seat, pinfo, hw, kind, su, info[I_TOUT], decl, dbl, nk, strength,
                                    eff_suit, params, config, suit_mask, lorder, n_trumps, lauf_min, base_price,
                                    points)
        total += m
    if acc < max(np.int64(config[C_BID_MIN_WORLDS]), np.int64(1)):
        return heur
    mean = total / acc / (base_price[0] << np.int64(dbl))  # in Rufspiel base prices, undoubled
    if dbl == 0:
        return 1 if mean >= config[_heuristic.C_KONTRA_MARGIN] else 0
    return 1 if mean >= config[_heuristic.C_RE_VALUE] else 0


# no solver in these two: compiled without it
bid_eval = unliteral(stamp(njit(cache=True, _nrt=False)(_bid_eval), _STAMP))
double_eval = unliteral(stamp(njit(cache=True, _nrt=False)(_double_eval), _STAMP))


# ------------------------------------------------------------------------------------------- workspace

def workspace(rule_tables, table_bits: int = DEFAULT_TABLE_BITS) -> tuple:
    """The arrays a pimc seat needs, for the rules of ``rule_tables`` (simkit.rules.tables.RuleTables): the
    solver's rank-space tables, its table and stack, and the sampler's work arrays, a tuple of
    simkit.strategies.natives.WORKSPACE_TYPE. One per process or kernel call; pimc seats of one deal share it (each
    decision starts a fresh table generation)."""
    from simkit.solver.api import Workspace
    from simkit.solver.search import NC, NS
    from simkit.solver.tables import solver_tables_from
    from simkit.strategies.worlds import BINOM, COUNT_SHAPE, W_SIZE

    st = solver_tables_from(rule_tables)
    w = Workspace(table_bits)
    return (st.tabs, st.suit_mask, st.id_of, w.table, w.frames, w.moves, w.keys, w.stats,
            np.zeros(W_SIZE, np.int64), np.zeros(COUNT_SHAPE, np.int64), BINOM.copy(), np.zeros(4, np.int64),
            np.zeros(NS, np.int64), np.zeros(NS, np.int64), np.zeros(NC, np.int64), np.zeros(32, np.int64),
            np.zeros(32, np.int64), np.zeros(18, np.int64), np.zeros(IW_SIZE, np.int64), np.zeros(FW_SIZE))


#: :func:`decide` compiled once for the interface's DECIDE_SIG, called by the whole-deal kernel through its address
#: (slot N_DECIDE of its ``natives``, 0 without a pimc seat): the kernel neither contains the solver nor needs it
#: compiled, nor imports this module
DECIDE = Linked(decide, DECIDE_SIG, "simkit_pimc_decide_" + _STAMP.hex()[:16], what="pimc's decision kernel",
                needs=(SEARCH,))


#: :func:`bid_eval` and :func:`double_eval` compiled for the interface's EVAL_SIG (slots N_BID_EVAL, N_DOUBLE)
BID_EVAL = Linked(bid_eval, EVAL_SIG, "simkit_pimc_bid_" + _STAMP.hex()[:16], what="pimc's bidding kernel")
DOUBLE_EVAL = Linked(double_eval, EVAL_SIG, "simkit_pimc_double_" + _STAMP.hex()[:16],
                     what="pimc's doubling kernel")


def natives() -> dict[int, int]:
    """What the whole-deal kernel calls by address for a pimc seat (simkit.strategies.natives): its decision, its
    bid and its Kontra/Re (each the value-table bidder's answer unless ``bid_eval``/``double_eval`` is on)."""
    return {N_DECIDE: DECIDE.address, N_BID_EVAL: BID_EVAL.address, N_DOUBLE: DOUBLE_EVAL.address}


# ------------------------------------------------------------------------------------------------ binding

def bind(config: np.ndarray, rules) -> np.ndarray:
    """The config a run under ``rules`` passes (Strategy.bind): the heuristic's value table behind the named
    entries (simkit.strategies.values.bind) and, where ``inference`` or ``people_card`` asks for the people model
    and the ruleset has its weights, those weights behind the table, where the people model keeps them, and behind
    them (``best_card`` > 0) the file's best-card weights where it has them (``simkit train best``). Without
    weights pimc plays without them (inference off, the heuristic's card as tie-break), except that ``inference=1``
    asked explicitly is a StrategyError (one line). ``worlds`` and ``node_budget`` of -1 become their values with
    or without best-card weights (AUTO_WORLDS, AUTO_NODE_BUDGET)."""
    out, best = _bind_weights(config, rules)
    out = out.copy()
    if out[C_WORLDS] < 0:
        out[C_WORLDS] = AUTO_WORLDS[best]
    if out[C_NODE_BUDGET] < 0:
        out[C_NODE_BUDGET] = AUTO_NODE_BUDGET[best]
    return out


def _bind_weights(config: np.ndarray, rules) -> tuple[np.ndarray, bool]:
    """:func:`bind`'s weights: (the config with them, whether best-card weights are among them)."""
    from simkit.strategies import values
    from simkit.strategies.people import weights as people_weights
    from simkit.strategies.strategy import StrategyError

    out = values.bind(config, rules)
    if len(out) > C_MODEL and out[C_MODEL] not in CONFIG_CHOICES["model"].values():
        raise StrategyError(f"pimc's config entry 'model' is {out[C_MODEL]:g}: the inference's play model is one of "
                            f"{', '.join(CONFIG_CHOICES['model'])} (written by name)", strategy="pimc")
    inference = out[C_INFERENCE] if len(out) > C_INFERENCE else 0.0
    people_card = len(out) > C_PEOPLE_CARD and out[C_PEOPLE_CARD] > 0
    if inference <= 0 and not people_card:
        return out, False
    try:
        path, bid_w, play_w, _ = people_weights.find(rules)
    except StrategyError as e:
        if len(out) > C_MODEL and out[C_MODEL] == _inference.MODEL_HEURISTIC:  # needs no weights: inference stays
            return out, False
        if inference != 1:  # where the ruleset has weights (the default): without them, no inference
            if inference > 0:
                out = out.copy()
                out[C_INFERENCE] = 0.0
            return out, False
        raise StrategyError(f"pimc[inference=1] needs the people model's weights for ruleset {rules.name!r}: {e}",
                            strategy="pimc") from None
    best_w = people_weights.load_best(path)
    if best_w is None or not people_card or len(out) <= C_BEST_CARD or out[C_BEST_CARD] <= 0:
        return with_people_weights(out, bid_w, play_w), False
    mlp = people_weights.load_best_mlp(path) if len(out) > C_BEST_MLP and out[C_BEST_MLP] > 0 else None
    tie = people_weights.load_tie_mlp(path) if len(out) > C_TIE_MLP and out[C_TIE_MLP] > 0 else None
    return with_people_weights(out, bid_w, play_w, best_w, mlp, tie), True


def with_people_weights(config: np.ndarray, bid_w: np.ndarray, play_w: np.ndarray,
                        best_w: np.ndarray | None = None, best_mlp: np.ndarray | None = None,
                        tie_mlp: np.ndarray | None = None) -> np.ndarray:
    """``config`` (its value table bound) with these people weights behind it, the best-card weights, where
    given, behind them, and behind those the best-card network (float64[units, MLP_ROW]) where given (its number
    of units, then its rows), then the tie network where given (the same; the best-card network's units 0 where
    there is none): what :func:`bind` passes, for weights not (yet) in a file (simkit.strategies.teacher)."""
    full = np.zeros(_PEOPLE_CONFIG_LEN)
    full[: min(len(config), _heuristic.CONFIG_LEN)] = config[: _heuristic.CONFIG_LEN]
    full[_people_model.BID_W_AT: _people_model.PLAY_W_AT] = bid_w.ravel()
    full[_people_model.PLAY_W_AT:] = play_w.ravel()
    if best_w is None:
        return full
    parts = [full, best_w.ravel()]
    if best_mlp is not None or tie_mlp is not None:  # a tie network is read behind the best-card network's place
        nets = [best_mlp if best_mlp is not None else np.zeros((0, MLP_ROW))] + ([tie_mlp] if tie_mlp is not None
                                                                                 else [])
        for net in nets:
            parts += [np.array([len(net)], np.float64), np.asarray(net, np.float64).ravel()]
    return np.concatenate(parts)


# --------------------------------------------------------------------------- asked from Python (records)

_PY_WORKSPACES: dict = {}


def _python_context(strength, eff_suit, params):
    """(rule tables, workspace) for the rules behind these tables (memoised): ``play`` below is asked with the
    arrays of the api signature only."""
    from simkit.engine.batch import _TABLE_CACHE

    key = (strength.tobytes(), eff_suit.tobytes(), params.tobytes())
    if key not in _PY_WORKSPACES:
        match = [t for t in _TABLE_CACHE.values() if np.array_equal(t.params, params)
                 and np.array_equal(t.strength, strength) and np.array_equal(t.eff_suit, eff_suit)]
        if not match:
            raise ValueError("pimc.play needs the rule tables of simkit.engine.batch.tables_for(ruleset)")
        _PY_WORKSPACES[key] = (match[0], workspace(match[0]))
    return _PY_WORKSPACES[key]


def play(hand, legal, seat, info, strength, eff_suit, params, config):
    """The api's ``play`` (simkit.strategies.api), for callers outside the kernel (``simkit analyze --strategy``):
    the same :func:`decide` the kernel calls, on a workspace kept per ruleset in this process."""
    legal = int(legal)
    if legal & (legal - 1) == 0:
        return (legal & -legal).bit_length() - 1
    return _decide_here(hand, legal, seat, info, strength, eff_suit, params, config)[0]


def search_sums(hand, legal, seat, info, strength, eff_suit, params, config) -> tuple[np.ndarray, int]:
    """:func:`play`'s search, returning what it weighed instead of the card, where inference is on (the people
    weights bound): each card's summed gain over the worlds solved (float64[32], each world times its weight; in
    points mode with ``point_value`` 0 a world's gain is the seat's payout times POINTS_SCALE plus its side's card
    points) and the number of worlds solved (0: no search, the sums mean nothing). For a decision with a choice
    (simkit.strategies.teacher)."""
    _, pw = _decide_here(hand, legal, seat, info, strength, eff_suit, params, config)
    return pw[PW_FWORK][FW_SUMS:FW_SUMS + 32].copy(), int(pw[PW_THR][16])


def _decide_here(hand, legal, seat, info, strength, eff_suit, params, config):
    """:func:`decide` on this process's workspace for these rule tables: (the card, the workspace it left)."""
    t, pw = _python_context(strength, eff_suit, params)
    hc = int(_heuristic.play(hand, legal, seat, info, strength, eff_suit, params, config))
    card = int(decide(np.int64(hand), np.int64(legal), np.int64(seat), info, strength, eff_suit, params, config,
                      np.int64(hc), t.suit_mask, t.laufende_order, t.n_trumps, t.lauf_min, t.base_price, t.points,
                      pw))
    return card, pw


stamp_module(globals(), DEPENDENCIES)
