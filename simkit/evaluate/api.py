"""``simkit.evaluate``: every declaration a hand may make, and passing, over the same sampled deals.

The hand sits at ``seat``; the other cards of the deck are dealt to the other three seats uniformly at random,
deal ``i`` from stream (seed, i, STREAM_DEAL) (:func:`sample_deals`), so the deals depend only on (seed, hand, seat,
deck) and deal ``i`` is the same however the work is split. Every option is played on the same deals (paired):

* a declaration: the whole-deal kernel (:func:`simkit.engine.game.play_games`) in forced mode, the hand's seat
  declaring that contract on the given hands; Kontra/Re and every card as the strategies decide;
* ``pass``: the same kernel with bidding, the hand's seat's bid a forced pass and the other seats bidding as the
  strategy does; a deal all four pass pays 0;
* ``play="dd"``: the same deals and contracts (the pass option's contract as the strategies bid it), each opening
  position solved double dummy (every hand open, perfect play by all four) with the solver's ``payout`` objective,
  without doublings: an upper bound of what the cards allow, not what a table plays.

Per option: ``win`` (the share of deals where the hand's seat ends on the winning side; for a declaration, the
declaring side wins), ``schneider``/``schwarz`` (the share of deals decided Schneider/Schwarz, either way, as the
kernel's columns; a Tout never), ``payout`` (the mean payout to the hand's seat in the tariff's units), each with a
95% interval (Wilson for shares, normal for the mean). The recommendation is the option of the highest mean payout;
how sure it is: the 95% interval of the paired per-deal difference between it and the runner-up.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from numba import njit

from simkit.engine.jitcache import announce, source_stamp, stamp
from simkit.engine.rng import STREAM_DEAL, below, stream_state
from simkit.rules.contracts import (BETTEL, FARBGEIER, FARBWENZ, GEIER, KIND_NAMES, RAMSCH, RUFSPIEL, SIE, SOLO, WENZ,
                                    Contract)
from simkit.stats import json_safe, mean_interval_of, wilson

PLAY_DD = "dd"
CHUNK = 20_000  # deals a task with a strategy's play
PARALLEL_MIN_GAMES = 500_000  # fewer games (deals x options) are played in this process (forking costs more)
CHUNK_DD = 100  # deals a task with the solver: a progress step every second or two, and the task's fixed cost
# (a play_games call per option, about 1.5 ms each) about 1% of its time
COLUMNS = ("declaration", "kind", "suit", "tout", "win", "win_low", "win_high", "payout", "payout_low",
           "payout_high", "schneider", "schneider_low", "schneider_high", "schwarz", "schwarz_low", "schwarz_high",
           "recommended")
#: ``simkit evaluate --json``'s ``club`` object (a ruleset with the club rules): what the figures assume
CLUB_KEYS = ("klopfen", "knocks", "multiplier", "all_pass", "ramsch", "stock")
JSON_KEYS = ("declaration", "win", "win_low", "win_high", "payout", "payout_low", "payout_high", "schneider",
             "schwarz", "recommended")


class EvaluateError(ValueError):
    """Bad evaluate options (one line for the user)."""


# ------------------------------------------------------------------------------------------------ deals

def _sample_py(seed, start, n, rest, hand, seat, hand_size, out):
    """Row ``i`` of ``out``: ``hand`` at ``seat``, the cards ``rest`` (int8, ascending) shuffled by Fisher-Yates on
    stream (seed, start + i, STREAM_DEAL) and dealt in order to the other seats, ``hand_size`` each."""
    m = rest.shape[0]
    work = np.empty(m, np.int8)
    one = np.uint32(1)
    for i in range(n):
        for j in range(m):
            work[j] = rest[j]
        s = stream_state(seed, start + i, STREAM_DEAL)
        for j in range(m - 1, 0, -1):
            r, s = below(s, j + 1)
            t = work[j]
            work[j] = work[r]
            work[r] = t
        k = 0
        for p in range(4):
            if p == seat:
                out[i, p] = hand
                continue
            h = np.uint32(0)
            for _ in range(hand_size):
                h |= one << np.uint32(work[k])
                k += 1
            out[i, p] = h


# keyed on this file and the RNG it inlines (simkit.engine.jitcache), so a change of either recompiles it
_sample_kernel = announce(stamp(njit(cache=True)(_sample_py), source_stamp(
    [Path(__file__).resolve(), Path(__file__).resolve().parent.parent / "engine" / "rng.py"])), "evaluate's dealer")


def sample_deals(hand, seat: int, start: int, n: int, rules=None, seed: int = 0) -> np.ndarray:
    """Deals ``start .. start+n-1`` (uint32[n, 4]) with ``hand`` (a mask or card notation) at ``seat`` and the
    deck's other cards dealt uniformly at random to the other three seats."""
    rules = _rules(rules)
    mask = _hand_mask(hand, rules)
    rest = np.array([c for c in range(32) if (_deck_mask(rules) >> c) & 1 and not (mask >> c) & 1], np.int8)
    out = np.empty((int(n), 4), np.uint32)
    _sample_kernel(np.uint64(seed), np.int64(start), np.int64(n), rest, np.uint32(mask), np.int64(_seat(seat)),
                   np.int64(rules.hand_size), out)
    return out


def _deck_mask(rules) -> int:
    from simkit.cards import DECK_MASKS

    return DECK_MASKS[rules.deck]


# ------------------------------------------------------------------------------------------ declarations

@dataclass(frozen=True)
class Option:
    """One thing the hand's seat can do: a declaration (``contract``) or passing (``contract`` None)."""

    label: str
    contract: Contract | None

    @property
    def forced(self):
        c = self.contract
        return (c.kind, c.suit, c.tout)


def _label(c: Contract | None) -> str:
    if c is None:
        return "pass"
    from simkit.cards import SUIT_NAMES

    s = KIND_NAMES[c.kind]
    if c.suit is not None:
        s += " " + SUIT_NAMES[c.suit]
    return s + (" tout" if c.tout else "")


def declarations(hand, rules=None) -> list[Contract]:
    """Every declaration ``hand`` may make under ``rules``, in bidding order: each callable Rufspiel (a suit of
    Eichel, Gras, Schellen whose ace the hand lacks and of which it holds a non-trump card), Bettel where enabled,
    then every enabled solo-type contract (each trump suit where it has one), then the same solo-types Tout where
    Touts are allowed, and Sie when the ruleset has ``sie`` and the hand is the Sie hand (RULES.md 4.3)."""
    from simkit.rules.tables import build_tables

    rules = _rules(rules)
    mask = _hand_mask(hand, rules)
    ruf_masks = build_tables(rules).suit_mask[0]
    out = []
    if "rufspiel" in rules.contracts:
        for s in (0, 1, 3):
            if not (mask >> (8 * s + 7)) & 1 and mask & int(ruf_masks[s]):
                out.append(Contract(RUFSPIEL, s))
    if KIND_NAMES[BETTEL] in rules.contracts:  # any hand may declare Bettel (RULES.md 4.2)
        out.append(Contract(BETTEL))
    plain = []
    for kind in (SOLO, WENZ, GEIER, FARBWENZ, FARBGEIER):
        if KIND_NAMES[kind] not in rules.contracts:
            continue
        if kind in (SOLO, FARBWENZ, FARBGEIER):
            plain += [Contract(kind, s) for s in range(4)]
        else:
            plain.append(Contract(kind))
    out += plain
    if rules.tout:
        out += [Contract(c.kind, c.suit, True) for c in plain]
    if getattr(rules, "sie", False):
        from simkit.reference import is_sie_hand

        if is_sie_hand(mask, rules.deck):
            out.append(Contract(SIE))
    return out


# --------------------------------------------------------------------------------------------- the work

def _play_chunk(seed, start, m, rules, hand, seat, options, play, stock=0):
    """Per option and deal of deals ``start .. start+m-1``: the hand's seat's payout, whether its side won, and
    whether the deal was decided Schneider / Schwarz. Returns four arrays of shape (len(options), m), and per deal
    the knocks (equal for every option: they come before the bidding) and whether the pass option's deal was
    played as a Ramsch."""
    from simkit.engine.game import play_games

    hands = sample_deals(hand, seat, start, m, rules, seed)
    k = len(options)
    pay = np.zeros((k, m), np.int64)
    win = np.zeros((k, m), np.bool_)
    schneider = np.zeros((k, m), np.bool_)
    schwarz = np.zeros((k, m), np.bool_)
    dd = play == PLAY_DD
    from simkit.strategies import seat_strategies

    seats = seat_strategies("heuristic" if dd else play)  # resolved once for every option's play_games call
    ws = None
    if dd:  # the process's table, kept from task to task (its entries hold for any deal; a new 32 MB table a task
        # cost about 1% of the time)
        from simkit.solver.api import default_workspace

        ws = default_workspace()
    knocks = np.zeros(m, np.int64)
    ramsch = np.zeros(m, np.bool_)
    for j, opt in enumerate(options):
        if opt.contract is None:
            g = play_games(seed, start, m, rules, seats=seats, hands=hands, passer=seat)
            ramsch = g["kind"] == RAMSCH
        else:
            g = play_games(seed, start, m, rules, seats=seats, hands=hands, contract=opt.forced, declarer=seat)
        knocks = _popcount4(g["knocked"])
        if dd:
            pay[j], win[j], schneider[j], schwarz[j], won_decl = _dd_figures(g, rules, seat, ws)
        else:
            pay[j], win[j], schneider[j], schwarz[j] = _seat_figures(g, seat)
            won_decl = g["won"]
        if rules.all_pass == "stock":  # the seat's whole change: the game plus its share of the stock
            # dd values a deal without doublings, so without knocks as well
            pay[j] += stock_change(g, won_decl, None if dd else g["knocked"], rules, stock)[:, seat]
    return pay, win, schneider, schwarz, knocks, ramsch


def _popcount4(bits) -> np.ndarray:
    """The number of seats that knocked (``knocked`` holds a bit per seat)."""
    b = np.asarray(bits, np.int64)
    return (b & 1) + (b >> 1 & 1) + (b >> 2 & 1) + (b >> 3 & 1)


def stock_change(g, won, knocked, rules, stock: int) -> np.ndarray:
    """int64[n, 4]: what the stock adds to each seat's payout in deals ``g`` (kernel columns) that each start with
    ``stock`` in the stock (RULES.md 4.4, docs/club-rules.md "Stock"). ``won``: the declaring side won;
    ``knocked``: a bit per seat that knocked (None: no knocks). The deals of an evaluation are independent, so this
    is the run's settlement (simkit.sim.stock.settle_rows) with every row starting from ``stock``: one writing of
    the rule for runs and evaluations (the referee's stays apart, to check it)."""
    from simkit.sim.stock import settle_rows

    n = len(g["kind"])
    settled = settle_rows(g["kind"], g["declarer"], g["partner"], won, knocked, np.zeros((n, 4), np.int64),
                          np.zeros(n, np.bool_), rules, impossible=g["impossible"], stock=stock, carry=False)
    return settled["payouts"].astype(np.int64)


def _on_declaring_side(g, seat):
    return (g["declarer"] == seat) | (g["partner"] == seat)


def _seat_figures(g, seat):
    """(payout, won, schneider, schwarz) of ``seat`` in each deal the kernel played (a passed deal: 0, no)."""
    played = g["kind"] >= 0
    pay = g["payouts"][:, seat].astype(np.int64)
    mine = _on_declaring_side(g, seat)
    won = played & np.where(mine, g["won"], ~g["won"])
    return pay, won, played & g["schneider"], played & g["schwarz"]


def _dd_figures(g, rules, seat, ws):
    """The same figures with each deal's opening position solved (payout objective, no doublings, no knocks), and
    whether the declaring side won. The bulk solver values a Bettel exactly (level 1: the declarer took no trick)
    and a Sie by derivation (it cannot be lost, RULES.md 4.3: level 5, its price); neither has Schneider or
    Schwarz."""
    from simkit.solver.api import solve_played

    g = dict(g)
    g["doublings"] = np.zeros_like(g["doublings"])
    r = solve_played(g, rules, "payout", workspace=ws)
    played = r["solved"]
    v = r["value"].astype(np.int64)  # the declarer's payout
    level = r["level"].astype(np.int64)
    kind = np.asarray(g["kind"])
    mine = _on_declaring_side(g, seat)
    solo = kind != RUFSPIEL
    pay = np.where(played, np.where(mine, v, np.where(solo, -(v // 3), -v)), 0)
    tout = g["tout"]
    classic = kind < BETTEL
    won_decl = np.where(classic, np.where(tout, level >= 1, level >= 3), level >= 1)
    won = played & np.where(mine, won_decl, ~won_decl)
    schneider = played & classic & ~tout & ((level <= 1) | (level >= 4))
    schwarz = played & classic & ~tout & ((level == 0) | (level == 5))
    return pay, won, schneider, schwarz, won_decl


# ---------------------------------------------------------------------------------------------- figures

# ------------------------------------------------------------------------------------------------ API

@dataclass
class Evaluation:
    """What :func:`evaluate_hand` returns: ``rows`` (one dict per option, best first, keys :data:`COLUMNS`) and
    ``attrs`` (what :func:`evaluate` puts into ``DataFrame.attrs``). No pandas needed (the command is faster
    without importing it)."""

    rows: list
    attrs: dict

    def to_frame(self):
        import pandas as pd

        df = pd.DataFrame(self.rows, columns=list(COLUMNS))
        df.attrs.update(self.attrs)
        return df


def evaluate(hand, *, seat: int = 0, rules=None, deals: int = 10_000, play: str = "heuristic", seed: int = 0,
             workers: int | None = None, progress=None, stock: int = 0):
    """What ``hand`` is worth at ``seat`` (0 is forehand: bids first, leads the first trick): every declaration
    it may make under ``rules`` (:func:`declarations`) and passing, each played on the same ``deals`` sampled
    deals (:func:`sample_deals`).

    ``play``: a strategy name :func:`simkit.strategies.resolve` knows (at all four seats: their bids for the
    pass option, Kontra/Re, every card), or ``"dd"`` (the solver's double-dummy payout, see the module notes).
    ``workers``: processes (default: all cores, but one for fewer than :data:`PARALLEL_MIN_GAMES` games with a
    strategy's play; the figures never depend on it). ``progress(k)`` is called as
    deals are done.

    Returns a pandas DataFrame, one row per option sorted by mean payout (best first), columns :data:`COLUMNS`
    (``declaration`` e.g. ``"solo herz tout"``, ``"rufspiel gras"``, ``"pass"``; ``kind``/``suit`` names or None;
    shares in 0..1, payouts in tariff units per deal). ``df.attrs`` holds ``hand``, ``seat``, ``deals``, ``play``,
    ``seed``, ``rules``, ``recommendation``, ``runner_up`` and ``difference``/``difference_low``/
    ``difference_high``: the mean paired per-deal payout difference best minus runner-up and its 95% interval.

    The club rules (RULES.md 4, docs/evaluate.md "The club rules"): Bettel and Sie are offered where the ruleset
    enables them; ``pass`` is what passing means under ``all_pass`` (a Ramsch when the others pass too, a payment
    into the stock, or a throw-in); the strategies knock as they decide (the same knocks in every option of a
    deal), and ``attrs`` then also holds ``knocks`` (the mean number of knocks a deal), ``multiplier`` (the mean
    2^knocks) and ``ramsch`` (the share of the pass option's deals played as a Ramsch). ``stock``: with
    ``all_pass = "stock"``, the stock before the deal (a non-negative even amount; a Rufspiel settles it).
    """
    return evaluate_hand(hand, seat=seat, rules=rules, deals=deals, play=play, seed=seed, workers=workers,
                         progress=progress, stock=stock).to_frame()


def evaluate_hand(hand, *, seat: int = 0, rules=None, deals: int = 10_000, play: str = "heuristic", seed: int = 0,
                  workers: int | None = None, progress=None, stock: int = 0) -> Evaluation:
    """:func:`evaluate` without pandas: the rows and attributes as an :class:`Evaluation`."""
    rules = _rules(rules)
    mask = _hand_mask(hand, rules)
    seat = _seat(seat)
    n = int(deals)
    if n < 1:
        raise EvaluateError(f"deals must be at least 1, not {deals}")
    play = _play(play)
    stock = _stock(stock, rules)
    if play == PLAY_DD:
        _dd_supported(rules)
    options = [Option(_label(c), c) for c in declarations(mask, rules)] + [Option("pass", None)]
    chunk = CHUNK_DD if play == PLAY_DD else CHUNK
    if play != PLAY_DD:
        from simkit.strategies import seat_strategies, value_table

        value_table.prepare(seat_strategies(play), rules)  # the value table, once, before the workers start
    if workers is None:  # all cores, unless the work is so small that starting the processes costs more
        small = play != PLAY_DD and n * len(options) < PARALLEL_MIN_GAMES
        workers = 1 if small else os.cpu_count() or 1
    if workers < 1:
        raise EvaluateError(f"workers must be at least 1, not {workers}")
    if workers > 1:  # chunks small enough that every worker gets work
        floor = 1 if play == PLAY_DD else 1_000
        chunk = max(floor, min(chunk, -(-n // workers)))
    jobs = [(seed, a, min(chunk, n - a), rules, mask, seat, options, play, stock) for a in range(0, n, chunk)]
    if workers > 1 and len(jobs) > 1:  # load (or compile) the kernels before forking: the workers inherit them
        _play_chunk(seed, 0, 1, rules, mask, seat, options, play, stock)
    from simkit.parallel import map_jobs

    parts = []
    for part, job in zip(map_jobs(_play_chunk, jobs, workers), jobs):
        parts.append(part)
        if progress:
            progress(job[2])
    pay, win, schneider, schwarz = (np.concatenate([p[q] for p in parts], axis=1) for q in range(4))
    knocks, ramsch = (np.concatenate([p[q] for p in parts]) for q in (4, 5))
    rows = []
    for j, opt in enumerate(options):
        c = opt.contract
        mean, lo, hi = mean_interval_of(pay[j])
        row = dict(declaration=opt.label, kind=KIND_NAMES[c.kind] if c else None,
                   suit=_suit_name(c.suit) if c and c.suit is not None else None, tout=bool(c and c.tout),
                   payout=mean, payout_low=lo, payout_high=hi)
        for name, arr in (("win", win[j]), ("schneider", schneider[j]), ("schwarz", schwarz[j])):
            k = int(arr.sum())
            row[name] = k / n
            row[name + "_low"], row[name + "_high"] = wilson(k, n)
        rows.append(row)
    order = sorted(range(len(options)), key=lambda j: (-rows[j]["payout"], j))
    best = order[0]
    second = order[1] if len(order) > 1 else None
    for j in range(len(rows)):
        rows[j]["recommended"] = j == best
    from simkit.cards import format_hand

    d, dlo, dhi = mean_interval_of(pay[best] - pay[second]) if second is not None else (float("nan"),) * 3
    attrs = dict(hand=format_hand(mask), seat=seat, deals=n, play=play, seed=int(seed), rules=rules.name,
                 recommendation=options[best].label, runner_up=options[second].label if second is not None else None,
                 difference=d, difference_low=dlo, difference_high=dhi)
    if club_rules(rules):
        attrs.update(klopfen=bool(rules.klopfen), knocks=float(knocks.mean()),
                     multiplier=float((1 << knocks).mean()), all_pass=rules.all_pass,
                     ramsch=float(ramsch.mean()), stock=stock)
    return Evaluation([rows[j] for j in order], attrs)


def club_rules(rules) -> bool:
    """Does the ruleset have any of the club rules (RULES.md 4)?"""
    return bool(rules.klopfen or KIND_NAMES[BETTEL] in rules.contracts or rules.sie or rules.all_pass != "throw-in")


def to_json(result) -> dict:
    """The ``simkit evaluate --json`` object of an :func:`evaluate` DataFrame or an :class:`Evaluation`."""
    a = result.attrs
    records = result.rows if isinstance(result, Evaluation) else result.to_dict("records")

    options = [{k: (bool(r[k]) if k == "recommended" else json_safe(r[k]) if k != "declaration" else r[k])
                for k in JSON_KEYS} for r in records]
    out = {"hand": a["hand"], "seat": a["seat"], "deals": a["deals"], "play": a["play"], "rules": a["rules"],
           "seed": a["seed"], "options": options,
           "recommendation": a["recommendation"],
           "difference": {"versus": a["runner_up"], "mean": json_safe(a["difference"]),
                          "low": json_safe(a["difference_low"]), "high": json_safe(a["difference_high"])}}
    if "all_pass" in a:  # a ruleset with the club rules
        out["club"] = {k: a[k] for k in CLUB_KEYS}
    return out


# ------------------------------------------------------------------------------------------------ input

def _rules(rules):
    from simkit.rules.ruleset import Ruleset, RulesetError, load_ruleset

    r = rules if isinstance(rules, Ruleset) else load_ruleset(rules)
    if getattr(r, "game", "bavarian") != "bavarian" or not isinstance(r, Ruleset):
        raise RulesetError(f"ruleset {r.name} is the {getattr(r, 'game', '?')} game; evaluate plays the Bavarian "
                           f"game")
    return r


def _hand_mask(hand, rules) -> int:
    """A hand as a mask: card notation (checked: the deck's hand size, no card twice, every card in the deck) or
    a mask (the same checks)."""
    from simkit.cards import DECK_MASKS, CardError, format_card, parse_hand

    if isinstance(hand, (int, np.integer)) and not isinstance(hand, bool):
        mask = int(hand)
        if mask < 0 or mask >> 32:
            raise CardError(f"hand mask {hand} is not a set of cards")
        outside = mask & ~DECK_MASKS[rules.deck]
        if outside:
            raise CardError(f"card {format_card((outside & -outside).bit_length() - 1)} is not in the "
                            f"{rules.deck} deck")
        if bin(mask).count("1") != rules.hand_size:
            raise CardError(f"hand has {bin(mask).count('1')} cards, expected {rules.hand_size}")
        return mask
    return parse_hand(hand, size=rules.hand_size, deck=rules.deck)


def _seat(seat) -> int:
    if isinstance(seat, bool) or int(seat) != seat or int(seat) not in range(4):
        raise EvaluateError(f"seat must be 0, 1, 2 or 3 (0 leads the first trick), not {seat!r}")
    return int(seat)


def _play(play) -> str:
    """``"dd"`` or a strategy name (checked by resolving it: an unknown name raises StrategyError)."""
    from simkit.strategies import resolve

    key = str(play).strip()
    if key.lower() == PLAY_DD:
        return PLAY_DD
    resolve(key)
    return key


def _stock(stock, rules) -> int:
    """The stock before the deal: a non-negative even amount (a Rufspiel splits it in halves), only with
    ``all_pass = "stock"``."""
    if isinstance(stock, bool) or not isinstance(stock, (int, np.integer)) or stock < 0 or stock % 2:
        raise EvaluateError(f"stock must be a non-negative even number (a Rufspiel splits it in halves), not "
                            f"{stock!r}")
    if stock >= 2**31:  # half of it is a payout (int32 columns, as a run's)
        raise EvaluateError(f"stock must be below 2^31, not {stock}")
    if stock and rules.all_pass != "stock":
        raise EvaluateError(f"stock applies only with all_pass = \"stock\" (ruleset {rules.name} has all_pass = "
                            f"\"{rules.all_pass}\")")
    return int(stock)


def _dd_supported(rules) -> None:
    """``play="dd"`` needs a four-player double-dummy value for every contract an option may end in. The solver
    values a Bettel exactly (solved deal by deal in :func:`_dd_figures`) and a Sie needs none (it cannot be lost);
    for a Ramsch it has only each seat's own bound (docs/solver.md), not the value of the deal, so a ruleset that
    plays a Ramsch when everybody passes is refused."""
    if rules.all_pass == "ramsch":
        raise EvaluateError(f"play dd: the solver has no four-player value of a Ramsch, only each seat's bound "
                            f"(ruleset {rules.name} plays one when everybody passes); evaluate with a strategy's "
                            f"play (heuristic) instead")


def _suit_name(s: int) -> str:
    from simkit.cards import SUIT_NAMES

    return SUIT_NAMES[s]
