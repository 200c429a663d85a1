"""The worlds a seat cannot tell apart: what it knows about the hidden cards, and exactly uniform samples of them.

A *world* is one assignment of the cards the seat has not seen (``unseen``: the deck minus its hand minus every card
played) to the other three seats, each getting as many as it still holds. It is *consistent* when the deal so far
could have happened with those hands: every card played was legal (RULES.md 2.4) and every bid was a valid
declaration (RULES.md 2.2). What that rules out, read from the public state ``info`` alone:

* **voids**: a seat that did not follow the led effective suit has none of it (no rule lets a seat holding the
  suit play another; the called-ace rules only ever force a card *of* the suit);
* **the called ace** (Rufspiel, while it is unseen): the declarer does not hold it; a seat that played in the trick
  that first led the called suit without playing it does not hold it; if that trick was led with a low card of the
  suit by a seat holding the ace, that seat was running away, so it held at least ``run_away_min`` cards of the
  suit then;
* **Rufspiel bids** (the declarer's, and any other seat's that bid a Rufspiel and was outbid): that seat held a
  card of the called suit and not its ace when it bid.

Passing or bidding low rules nothing out (any hand may pass), so bids constrain only through what a declaration
requires.

Sampling is *exact counting* for the per-card constraints and *rejection* for the rest: every unseen card has a
set of seats that may hold it (voids, the ace), the cards fall into at most seven classes by that set, and a small
dynamic programme counts the assignments of class sizes to the seats' free places (products of binomials); a world
is drawn class by class with probability proportional to those counts (so each assignment of cards is equally
likely), then the cards of a class are split uniformly. The few cardinality constraints (the declarer's called-suit
card, the runaway's count) are checked on the drawn world and it is redrawn when one fails, which keeps the draw
uniform over the consistent worlds. Every draw uses the seat's own random stream.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from simkit.engine.bits import cttz, nth_bit, popcount
from simkit.engine.jitcache import files, stamp_module
from simkit.rules.contracts import RUFSPIEL
from simkit.rules.tables import P_DECK_MASK, P_RUN_AWAY_MIN
from simkit.strategies.api import DEPENDENCIES as _API_DEPS
from simkit.strategies.api import (
    I_BIDS,
    I_DECLARER,
    I_HAND_SIZE,
    I_HISTORY_CARDS,
    I_HISTORY_LEADER,
    I_KIND,
    I_PLAYED,
    I_PLAYED_BY,
    I_SUIT,
    I_VARIANT,
    rng_u64,
)

#: the files its kernels compile in: the on-disk cache is keyed on all of them (simkit.engine.jitcache)
DEPENDENCIES = files("strategies/worlds", "rules/contracts", "rules/tables") + _API_DEPS

MAX_CONS = 8  # cardinality constraints (at most: three bidders' Rufspiel suits, the declarer's, the runaway)
# a constraint row: popcount((world[seat] | extra) & mask) >= need, checked only when world[seat] & cond != 0
# (cond 0: always)
K_SEAT, K_MASK, K_NEED, K_EXTRA, K_COND = range(5)
N_KCOLS = 5
MAX_REDRAWS = 100_000  # a consistent world exists whenever the state is real; this only bounds a broken one

# work array ``work`` (int64) layout
W_ALLOWED = 0  # 32 words: bit s set if seat s may hold unseen card c
W_NEED = 32  # 4 words: cards each seat still holds (0 for the asking seat)
W_NCONS = 36  # number of constraint rows
W_CONS = 37  # MAX_CONS * N_KCOLS words
W_CLASS_CARDS = W_CONS + MAX_CONS * N_KCOLS  # 8 words: the cards of class j
W_CLASS_SEATS = W_CLASS_CARDS + 8  # 8 words: the class's allowed seats as bits over the three other seats
W_NCLASS = W_CLASS_SEATS + 8
W_OTHERS = W_NCLASS + 1  # 3 words: the other seats, in seat order
W_UNSEEN = W_OTHERS + 3
W_SIZE = W_UNSEEN + 1

# count table ``counts`` int64[8, 9, 9, 9]: counts[j, r0, r1, r2] = assignments of classes j.. to free places r
COUNT_SHAPE = (8, 9, 9, 9)


def binomials() -> np.ndarray:
    """Pascal's triangle up to 32 (int64), the sampler's only table."""
    b = np.zeros((33, 33), np.int64)
    for n in range(33):
        b[n, 0] = 1
        for k in range(1, n + 1):
            b[n, k] = b[n - 1, k - 1] + b[n - 1, k]
    return b


BINOM = binomials()


@njit(cache=True, inline="always")
def _add_cons(work, seat, mask, need, extra, cond):
    j = work[W_NCONS]
    if j < MAX_CONS:
        base = W_CONS + N_KCOLS * j
        work[base + K_SEAT] = seat
        work[base + K_MASK] = mask
        work[base + K_NEED] = need
        work[base + K_EXTRA] = extra
        work[base + K_COND] = cond
        work[W_NCONS] = j + 1


@njit(cache=True, inline="always")
def _rufspiel_bidder(work, seat, x, info, suit_mask):
    """``seat`` declared (or bid) a Rufspiel calling suit ``x``: it held a non-trump card of x and not its ace."""
    ace = np.int64(1) << np.int64(8 * x + 7)
    if work[W_UNSEEN] & ace:
        work[W_ALLOWED + 8 * x + 7] &= ~(np.int64(1) << seat)
    _add_cons(work, seat, np.int64(suit_mask[0, x]) & ~ace, 1, info[I_PLAYED_BY + seat], 0)


@njit(cache=True)
def knowledge(hand, me, info, eff_suit, suit_mask, params, work):
    """What seat ``me`` (holding ``hand``) knows about the unseen cards, from ``info`` alone, into ``work``
    (layout ``W_*``). Returns the number of unseen cards."""
    for j in range(W_SIZE):
        work[j] = 0
    deck = params[P_DECK_MASK]
    hs = info[I_HAND_SIZE]
    v = info[I_VARIANT]
    unseen = deck & ~info[I_PLAYED] & ~hand
    work[W_UNSEEN] = unseen
    others = np.int64(15) & ~(np.int64(1) << me)
    m = unseen
    while m != 0:
        work[W_ALLOWED + cttz(m)] = others
        m &= m - 1
    j = 0
    for s in range(4):
        if s != me:
            work[W_NEED + s] = hs - popcount(info[I_PLAYED_BY + s])
            work[W_OTHERS + j] = s
            j += 1
    # voids: a seat that did not follow the led effective suit holds none of it
    for t in range(8):
        lead = info[I_HISTORY_CARDS + 4 * t]
        if lead < 0:
            break
        leader = info[I_HISTORY_LEADER + t]
        e = eff_suit[v, lead]
        for k in range(1, 4):
            c = info[I_HISTORY_CARDS + 4 * t + k]
            if c < 0:
                break
            if eff_suit[v, c] != e:
                bit = np.int64(1) << ((leader + k) & 3)
                m = unseen & np.int64(suit_mask[v, e])
                while m != 0:
                    work[W_ALLOWED + cttz(m)] &= ~bit
                    m &= m - 1
    # what a Rufspiel bid requires (bids are NOT_ASKED when the contract was forced; the declarer is below)
    for s in range(4):
        b = info[I_BIDS + s]
        if s != me and b >= 0 and (b & 7) == RUFSPIEL:
            _rufspiel_bidder(work, s, ((b >> 3) & 7) - 1, info, suit_mask)
    decl = info[I_DECLARER]
    if info[I_KIND] == RUFSPIEL:
        called = info[I_SUIT]
        if decl != me:
            _rufspiel_bidder(work, decl, called, info, suit_mask)
        ace_card = 8 * called + 7
        ace = np.int64(1) << np.int64(ace_card)
        if unseen & ace:
            called_mask = np.int64(suit_mask[v, called])
            for t in range(8):  # the trick that first led the called suit
                lead = info[I_HISTORY_CARDS + 4 * t]
                if lead < 0:
                    break
                if (called_mask >> lead) & 1:
                    leader = info[I_HISTORY_LEADER + t]
                    for k in range(1, 4):
                        if info[I_HISTORY_CARDS + 4 * t + k] < 0:
                            break
                        work[W_ALLOWED + ace_card] &= ~(np.int64(1) << ((leader + k) & 3))
                    if leader != me:  # if the leader holds the ace, he ran away: he had run_away_min of the suit
                        later = np.int64(0)
                        for u in range(t, 8):
                            for k in range(4):
                                c = info[I_HISTORY_CARDS + 4 * u + k]
                                if c >= 0 and ((leader - info[I_HISTORY_LEADER + u]) & 3) == k:
                                    later |= np.int64(1) << c
                        _add_cons(work, leader, called_mask, params[P_RUN_AWAY_MIN], later & called_mask, ace)
                    break
    # the unseen cards in classes by the set of seats that may hold them (bits over the three other seats)
    nclass = 0
    for code in range(1, 8):
        cards = np.int64(0)
        m = unseen
        while m != 0:
            c = cttz(m)
            m &= m - 1
            a = work[W_ALLOWED + c]
            x = 0
            for i in range(3):
                if (a >> work[W_OTHERS + i]) & 1:
                    x |= 1 << i
            if x == code:
                cards |= np.int64(1) << c
        if cards != 0:
            work[W_CLASS_CARDS + nclass] = cards
            work[W_CLASS_SEATS + nclass] = code
            nclass += 1
    work[W_NCLASS] = nclass
    return popcount(unseen)


@njit(cache=True, inline="always")
def _ways(m, x0, x1, binom):
    return binom[m, x0] * binom[m - x0, x1]


@njit(cache=True)
def count_worlds(work, counts, binom):
    """Fill ``counts[j, r0, r1, r2]``: the number of ways to place the cards of classes j.. when the three other
    seats have r0, r1, r2 free places (per-card constraints only). Returns the total for the seats' real needs
    (0: no assignment fits, the state is inconsistent)."""
    nclass = work[W_NCLASS]
    n0 = work[W_NEED + work[W_OTHERS]]
    n1 = work[W_NEED + work[W_OTHERS + 1]]
    n2 = work[W_NEED + work[W_OTHERS + 2]]
    total = 0
    for j in range(nclass):
        total += popcount(work[W_CLASS_CARDS + j])
    if total != n0 + n1 + n2 or n0 > 8 or n1 > 8 or n2 > 8:
        return 0
    counts[nclass, 0, 0, 0] = 1
    after = 0  # cards of the classes after j
    for j in range(nclass - 1, -1, -1):
        m = popcount(work[W_CLASS_CARDS + j])
        a = work[W_CLASS_SEATS + j]
        rem = after + m  # cards of classes j..
        for r0 in range(min(n0, rem) + 1):
            for r1 in range(min(n1, rem - r0) + 1):
                r2 = rem - r0 - r1
                if r2 > n2:
                    continue
                ways = np.int64(0)
                for x0 in range(min(m, r0) + 1 if a & 1 else 1):
                    for x1 in range(min(m - x0, r1) + 1 if a & 2 else 1):
                        x2 = m - x0 - x1
                        if x2 > r2 or (x2 > 0 and (a & 4) == 0):
                            continue
                        q0 = r0 - x0
                        q1 = r1 - x1
                        q2 = r2 - x2
                        if q0 + q1 + q2 == after:
                            ways += _ways(m, x0, x1, binom) * counts[j + 1, q0, q1, q2]
                counts[j, r0, r1, r2] = ways
        after = rem
    return counts[0, n0, n1, n2]


@njit(cache=True, inline="always")
def below64(info, n):
    """A uniform draw in 0..n-1 (n >= 1, int64) from the seat's stream, without modulo bias (draws of 64 bits
    below 2**64 mod n are redrawn)."""
    un = np.uint64(n)
    low = (np.uint64(0) - un) % un
    while True:
        x = rng_u64(info)
        if x >= low:
            return np.int64(x % un)


@njit(cache=True, inline="always")
def _take(cards, k, info):
    """``k`` cards of ``cards`` chosen uniformly (as a mask)."""
    out = np.int64(0)
    for _ in range(k):
        c = nth_bit(cards, below64(info, popcount(cards)))
        bit = np.int64(1) << c
        out |= bit
        cards &= ~bit
    return out


@njit(cache=True, inline="always")
def _draw_once(work, counts, binom, info, world):
    others0 = work[W_OTHERS]
    others1 = work[W_OTHERS + 1]
    others2 = work[W_OTHERS + 2]
    r0 = work[W_NEED + others0]
    r1 = work[W_NEED + others1]
    r2 = work[W_NEED + others2]
    for j in range(work[W_NCLASS]):
        cards = work[W_CLASS_CARDS + j]
        m = popcount(cards)
        a = work[W_CLASS_SEATS + j]
        u = below64(info, counts[j, r0, r1, r2])
        c0 = 0
        c1 = 0
        found = False
        for x0 in range(min(m, r0) + 1 if a & 1 else 1):
            for x1 in range(min(m - x0, r1) + 1 if a & 2 else 1):
                x2 = m - x0 - x1
                if x2 > r2 or (x2 > 0 and (a & 4) == 0):
                    continue
                w = _ways(m, x0, x1, binom) * counts[j + 1, r0 - x0, r1 - x1, r2 - x2]
                if u < w:
                    c0 = x0
                    c1 = x1
                    found = True
                    break
                u -= w
            if found:
                break
        g0 = _take(cards, c0, info)
        cards &= ~g0
        g1 = _take(cards, c1, info)
        world[others0] |= g0
        world[others1] |= g1
        world[others2] |= cards & ~g1
        r0 -= c0
        r1 -= c1
        r2 -= m - c0 - c1


@njit(cache=True, inline="always")
def satisfies(work, world):
    """The world meets every cardinality constraint."""
    for j in range(work[W_NCONS]):
        base = W_CONS + N_KCOLS * j
        h = world[work[base + K_SEAT]]
        cond = work[base + K_COND]
        if cond != 0 and (h & cond) == 0:
            continue
        if popcount((h | work[base + K_EXTRA]) & work[base + K_MASK]) < work[base + K_NEED]:
            return False
    return True


@njit(cache=True)
def draw_world(hand, me, work, counts, binom, info, world):
    """One world, uniform over the consistent ones, into ``world`` (int64[4]: every seat's current hand, the
    asking seat's own included). ``count_worlds`` must have returned > 0. Returns the number of draws it took, or
    -1 if no draw met the cardinality constraints (an inconsistent state)."""
    for tries in range(1, MAX_REDRAWS + 1):
        for s in range(4):
            world[s] = 0
        world[me] = hand
        _draw_once(work, counts, binom, info, world)
        if satisfies(work, world):
            return tries
    return -1


stamp_module(globals(), DEPENDENCIES)
