"""The double-dummy search: fail-soft alpha-beta over card plays with an explicit stack (numba).

All hands are open. The declaring side maximises, the defenders minimise, one of two *measures* of the final
outcome:

* ``MEASURE_POINTS``: the declaring side's final card points (points already taken count), 0..120;
* ``MEASURE_TRICKS``: the declaring side's final number of tricks (for a Tout and for Schwarz).

Everything else the solver answers (win, payout, every card's value) is built from null-window searches on these
two measures (:mod:`simkit.solver.values`).

Rank space
----------
Inside the solver a card is not ``8 * suit + rank`` but its place in the contract's order: the side suits E, G,
H, S each take a run of consecutive ids, weakest first, and the trumps take the highest ids, weakest first
(:func:`simkit.solver.tables.solver_tables` builds the map from the engine's rule tables). So a card's id is its
trick strength, an effective suit is a range of bits, "the cards above x" is a shift, and the best card of a
suit in a hand is its highest bit. The rules are still the engine's: ``legal_cards`` and ``trick_step`` of
:mod:`simkit.engine.kernel`, given the masks and strengths of rank space, so the called-ace rules cannot drift.

Position state
--------------
``s`` is an int64 array (indices ``S_*``): the four remaining hands, the leader of the current trick, how many
cards it holds (``k``), its led effective suit, the seat/effective suit/id of its best card, its points and card
mask, the declaring side's points and tricks so far, whether the called suit is searched, and the points still
in the hands. The search changes ``s`` while it runs and leaves it as it found it.

Context
-------
``ctx`` (indices ``C_*``) is what does not change during a game: the called suit, the declaring side's seats
(``team`` bits), the holder of the called ace, its bit, the called suit's mask, the run-away minimum and the
table key of all of that. ``tabs`` holds the contract's card tables in rank space (``T_*`` rows).

Transposition table
-------------------
Keyed at trick boundaries (but not those with two cards a hand left, which :func:`two_tricks` solves faster than
a probe finds them) on what is left, not on how it was reached: the four remaining hands (with the cards of
each *run* of equal cards moved to its bottom, see :func:`table_key`), the leader, the searched flag, the measure,
the context key and a generation. It stores bounds ``[lo, hi]`` on the *remaining* measure (what the declaring
side still takes from here), which do not depend on what was taken before, plus the best move found. Only proven
bounds are stored, so one table serves every position of a game, every objective and many deals (a key holds the
whole remaining hands, so an entry is right for any deal that reaches that position: late in the game different
deals do meet); ``Workspace.clear`` starts a new generation. Two-way
buckets of one 64-byte line; the entry of an older generation, else the one with fewer cards left, is replaced.
A boundary's bucket is prefetched (:mod:`simkit.solver.prefetch`) before the bounds are computed and probed after
them, so the probe seldom waits for memory.

Speed
-----
* equivalent cards: two legal cards of one hand with no card still in play (other hands, current trick) between
  them in their effective suit, worth the same points (for the tricks measure: any points), play alike: only the
  weaker is searched (:func:`reduce_equivalent`); and when the side that takes the trick is already sure, such
  cards of different points are not alike but one dominates: the dearer one into the mover's side's trick, the
  cheaper one into the other side's (:func:`reduce_dominated`, the points measure inside the search; a root card's
  own value is still searched);
* move ordering by masks (:func:`gen_moves`): the table's move first; leading, the side cards sure to take their
  trick, then trumps from the top for the declaring side (its weakest cards once the defenders hold no trump)
  and cheap cards for the defenders; following, win cheaply against opponents (else load points if a partner
  behind can still take the trick; second in the trick, load them first), secure a partner's trick an opponent
  can still take and load points onto one he cannot;
* lower bounds from the declaring side's sure trumps, quick tricks and drawing trumps (:func:`guaranteed`): at
  trick boundaries (a lone declarer off lead who surely wins the next trick also as its leader afterwards,
  :func:`regain_bound`), and before a trick's last card when the trick is decided for it (:func:`trick_bound`);
  the defenders' side of both cost more time than it saved; the last trick evaluated directly, before
  the bounds and the table (it is forced); a forced card is played without reducing or ordering; with two cards
  a hand left, a position the bounds leave open is solved by :func:`two_tricks` (plain nested loops, no stack
  frames, no table), each line it plays out counted as a node.

numba 0.68 crashed loading a self-recursive ``cache=True`` function from the cache (DESIGN.md), hence the explicit
stack: frame ``p`` of ``fr`` keeps the node's window, best value, move list cursor and a snapshot of ``s``.
"""

from __future__ import annotations

import numpy as np
from numba import types

from simkit.engine.bits import cttz, msb, popcount
from simkit.engine.kernel import legal_cards, trick_step
from simkit.rules.tables import TRUMP
from simkit.engine.jitcache import Linked
from simkit.solver.jit import STAMP, solver_jit
from simkit.solver.prefetch import prefetch_row

MEASURE_POINTS = 0
MEASURE_TRICKS = 1

INF = 1 << 20  # larger than any measure

# --- position state ``s``
S_LEADER = 4  # 0..3 are the hands
S_K = 5  # cards in the current trick
S_LED = 6
S_BSEAT = 7
S_BEFF = 8
S_BEST = 9  # id of the best card of the current trick (its strength)
S_TP = 10  # points in the current trick
S_TRICK = 11  # mask of the current trick's cards
S_DP = 12  # declaring side's points so far
S_DT = 13  # declaring side's tricks so far
S_SEARCHED = 14  # 1 once the called suit has been led (always 1 outside a Rufspiel)
S_REMPTS = 15  # points of the cards still in the hands
NS = 16

# --- context ``ctx``
C_CALLED = 0  # called suit, -1 unless Rufspiel
C_TEAM = 1  # bit s set: seat s is on the declaring side
C_PARTNER = 2  # holder of the called ace (-1 unless Rufspiel)
C_ACE_BIT = 3  # the called ace (rank space)
C_CALLED_MASK = 4  # the called suit's cards (rank space)
C_RUN_MIN = 5
C_KEY = 6  # context part of the table key (variant, called, team, run-away minimum)
C_FLAGS = 7  # which speed-ups are on (FLAG_*); they change the work, never a value
C_MAXI = 8  # bit s set: seat s maximises the measure. The team itself in the classic contracts; the other seats in a
#            Bettel and a Ramsch, where the measured side wants as little as it can (no trick, few points)
C_STICH = 9  # 1: Stichzwang (a Bettel's player following suit must beat the best card of the trick if he can)
NC = 10

FLAG_BOUNDS = 1  # guaranteed(): sure trumps, quick tricks, drawing trumps
FLAG_RUNS = 2  # table keys relative to the runs of equal cards
FLAG_EQUIVALENT = 4  # equivalent cards searched once
FLAG_ENDGAME = 8  # two cards a hand left and nothing decided: two_tricks() instead of the general search
ALL_FLAGS = FLAG_BOUNDS | FLAG_RUNS | FLAG_EQUIVALENT | FLAG_ENDGAME

# --- card tables ``tabs`` (int64[N_TABS, 32]) of one contract, in rank space
T_EFF = 0  # effective suit of each id (0..3, TRUMP)
T_POINTS = 1  # card points of each id
T_BELOW = 2  # mask of the ids of the same effective suit below the id
T_ABOVE = 3  # mask of the ids of the same effective suit above the id
T_CLASS = 4  # columns 0..5: masks of the ids worth 0, 2, 3, 4, 10, 11 points (cheapest first)
T_RUNS = 5  # columns 2r, 2r+1: lowest id and length of run r (length 0 ends the list)
T_DEAR = 6  # move-ordering keys (higher first): dearest first (then strongest) ...
T_CHEAP = 7  # ... cheapest first (then weakest) ...
T_LOW = 8  # ... weakest first ...
T_LEAD = 9  # ... trumps from the top, then the dearest side cards
N_TABS = 10
MAX_RUNS = 8

_CLASS_POINTS = np.array([0, 2, 3, 4, 10, 11], np.int64)

# --- stack frame fields ``fr[p, F_*]`` (then the NS snapshot values from F_SNAP)
F_ALPHA = 0
F_BETA = 1
F_A0 = 2  # window searched (after the bounds narrowed it), for the store
F_B0 = 3
F_G = 4  # best value so far
F_MAX = 5  # 1: the declaring side moves
F_N = 6  # moves
F_I = 7  # next move
F_SLOT = 8  # table bucket of a trick-boundary node, -1 otherwise
F_BASE = 9  # measure already taken at a trick-boundary node
F_BEST = 10  # best move so far
F_K1 = 11  # table key of a trick-boundary node
F_K2 = 12
F_META = 13
F_SNAP = 14
NF = F_SNAP + NS
MAX_PLY = 33

# --- statistics ``stats``
ST_NODES = 0
ST_LIMIT = 1  # abort once nodes exceed this (the search then returns ABORTED)
ST_ABORTED = 2
ST_GEN = 3  # table generation: entries of older generations are ignored (clearing the table is O(1))
ST_PLY = 4  # nodes at each ply from the root (where the time goes)
N_STATS = ST_PLY + MAX_PLY + 1
ABORTED = -INF
GEN_SHIFT = 24

_M1 = np.uint64(0x9E3779B97F4A7C15)
_M2 = np.uint64(0xC2B2AE3D27D4EB4F)
_M3 = np.uint64(0x165667B19E3779F9)


# ------------------------------------------------------------------------------------------ table

@solver_jit(forceinline=True)
def table_key(s, ctx, tabs, measure, gen):
    """The table key of a trick-boundary position: the four hands *relative to what is left*, then the leader,
    the searched flag, the measure, the context and the generation.

    A *run* is a group of cards next to each other in one effective suit and worth the same points (the four Ober
    of a Rufspiel, its four Unter, the 9 8 7 of a suit). Which cards of a run were played does not matter to the
    rest of the game, only which seats hold the ones left, in order: so the cards left of each run are moved to its
    lowest ids (keeping their order and holders) before keying, and positions that differ only in which cards of
    a run are gone share one entry."""
    h0 = s[0]
    h1 = s[1]
    h2 = s[2]
    h3 = s[3]
    left = h0 | h1 | h2 | h3
    for r in range(MAX_RUNS if ctx[C_FLAGS] & FLAG_RUNS else 0):
        n = tabs[T_RUNS, 2 * r + 1]
        if n == 0:
            break
        lo = tabs[T_RUNS, 2 * r]
        rm = ((np.int64(1) << n) - 1) << lo
        present = left & rm
        if present == rm or present == 0:
            continue
        j = lo
        m = present
        while m != 0:
            x = cttz(m)
            m &= m - 1
            if x != j:  # move the card at x down to j (free: the cards below x moved already)
                bit = np.int64(1) << x
                nb = np.int64(1) << j
                if h0 & bit:
                    h0 ^= bit | nb
                elif h1 & bit:
                    h1 ^= bit | nb
                elif h2 & bit:
                    h2 ^= bit | nb
                else:
                    h3 ^= bit | nb
            j += 1
    k1 = h0 | (h1 << 32)
    k2 = h2 | (h3 << 32)
    meta = s[S_LEADER] | (s[S_SEARCHED] << 2) | (measure << 3) | (ctx[C_KEY] << 4) | (gen << GEN_SHIFT)
    return k1, k2, meta


@solver_jit(forceinline=True)
def slot_of(k1, k2, meta, mask):
    """Bucket of a key: the words folded together, then murmur3's finalizer so every card moves every bit."""
    h = np.uint64(k1) ^ (np.uint64(k2) * _M1) ^ (np.uint64(meta) * _M3)
    h ^= h >> np.uint64(33)
    h *= _M2
    h ^= h >> np.uint64(29)
    h *= _M1
    h ^= h >> np.uint64(32)
    return np.int64(h & np.uint64(mask)) & ~np.int64(1)  # even slot: the bucket is (slot, slot + 1)


@solver_jit(forceinline=True)
def tt_find(tt, slot, k1, k2, meta):
    """The entry of a key in its bucket, or -1."""
    for i in range(slot, slot + 2):
        if tt[i, 2] == meta and tt[i, 0] == k1 and tt[i, 1] == k2:
            return i
    return -1


@solver_jit(forceinline=True)
def tt_unpack(word):
    """(lo, hi, move) of an entry's value word."""
    return (word & 0xFFFF) - 32768, ((word >> 16) & 0xFFFF) - 32768, ((word >> 32) & 0xFF) - 1


@solver_jit(forceinline=True)
def tt_store(tt, slot, k1, k2, meta, lo, hi, move, cards_left):
    """Merge proven bounds into the key's entry, or replace the bucket's entry of an older generation or with
    fewer cards left (less work lost)."""
    i = tt_find(tt, slot, k1, k2, meta)
    if i >= 0:
        olo, ohi, omove = tt_unpack(tt[i, 3])
        lo = max(lo, olo)
        hi = min(hi, ohi)
        if move < 0:
            move = omove
    else:
        gen = meta >> GEN_SHIFT
        w0 = tt[slot, 3] >> 40
        w1 = tt[slot + 1, 3] >> 40
        if (tt[slot, 2] >> GEN_SHIFT) != gen:
            w0 = -1
        if (tt[slot + 1, 2] >> GEN_SHIFT) != gen:
            w1 = -1
        i = slot if w0 <= w1 else slot + 1
        tt[i, 0] = k1
        tt[i, 1] = k2
        tt[i, 2] = meta
    tt[i, 3] = (lo + 32768) | ((hi + 32768) << 16) | ((move + 1) << 32) | (cards_left << 40)


@solver_jit(forceinline=True)
def tt_store_result(tt, slot, k1, k2, meta, g, a, b, base, move, cards_left):
    """Store a fail-soft result ``g`` of the window (a, b) as bounds on the measure still to come (after ``base``):
    an upper bound if g <= a, a lower bound if g >= b, else the exact value."""
    lo = g - base
    hi = lo
    if g <= a:
        lo = -30000
    elif g >= b:
        hi = 30000
    tt_store(tt, slot, k1, k2, meta, lo, hi, move, cards_left)


# ------------------------------------------------------------------------------------------ moves

@solver_jit(forceinline=True)
def apply_card(s, c, ctx, tabs):
    """Play card ``c`` for the seat to move; completes the trick when it is the fourth card."""
    k = s[S_K]
    seat = (s[S_LEADER] + k) & 3
    bit = np.int64(1) << np.int64(c)
    s[seat] &= ~bit
    p = tabs[T_POINTS, c]
    s[S_REMPTS] -= p
    led, bseat, beff, best = trick_step(k, seat, tabs[T_EFF, c], c, s[S_LED], s[S_BSEAT], s[S_BEFF], s[S_BEST])
    if k == 3:
        if (ctx[C_TEAM] >> bseat) & 1:
            s[S_DP] += s[S_TP] + p
            s[S_DT] += 1
        if led == ctx[C_CALLED]:
            s[S_SEARCHED] = 1
        s[S_LEADER] = bseat
        s[S_K] = 0
        s[S_TP] = 0
        s[S_TRICK] = 0
        return
    s[S_LED] = led
    s[S_BSEAT] = bseat
    s[S_BEFF] = beff
    s[S_BEST] = best
    s[S_TP] += p
    s[S_TRICK] |= bit
    s[S_K] = k + 1


@solver_jit(forceinline=True)
def legal_now(s, ctx, suit_mask):
    """(seat to move, its legal cards) by the engine's legal_cards."""
    k = s[S_K]
    seat = (s[S_LEADER] + k) & 3
    hand = s[seat]
    led = s[S_LED]
    holder = s[S_SEARCHED] == 0 and seat == ctx[C_PARTNER]
    legal = legal_cards(hand, k, np.int64(suit_mask[led]), led == ctx[C_CALLED], holder, ctx[C_ACE_BIT],
                        ctx[C_CALLED_MASK], ctx[C_RUN_MIN])
    if ctx[C_STICH]:
        legal = stich_filter(legal, hand, k, np.int64(suit_mask[led]), s[S_BEST])
    return seat, legal


@solver_jit(forceinline=True)
def stich_filter(legal, hand, k, follow, best):
    """Stichzwang (RULES.md 4.2) in rank space, as the engine's ``must_beat``: a player who follows suit must play
    one of his cards above ``best``, the trick's best card (in a Bettel, without trumps, always of the led suit; a
    card's id is its strength), if he holds one."""
    if k == 0 or (hand & follow) == 0:
        return legal
    beat = legal & ~((np.int64(2) << best) - 1)
    return beat if beat != 0 else legal


@solver_jit(forceinline=True)
def reduce_equivalent(s, seat, legal, ctx, tabs, measure):
    """The legal cards less those equivalent to a weaker legal card of the same hand: the next card below in its
    effective suit that is still in play is that legal card, worth the same points (any points for tricks). The
    unsearched called ace in its holder's hand is never reduced (the rules single it out)."""
    present = s[0] | s[1] | s[2] | s[3] | s[S_TRICK]
    special = ctx[C_ACE_BIT] if (s[S_SEARCHED] == 0 and seat == ctx[C_PARTNER]) else np.int64(0)
    out = legal
    m = legal & ~special
    while m != 0:
        c = cttz(m)
        m &= m - 1
        below = present & tabs[T_BELOW, c]
        if below == 0:
            continue
        d = msb(below)
        bd = np.int64(1) << d
        if (legal & bd) != 0 and bd != special and (measure == MEASURE_TRICKS or
                                                    tabs[T_POINTS, d] == tabs[T_POINTS, c]):
            out &= ~(np.int64(1) << c)
    return out


@solver_jit(forceinline=True)
def trick_decided(s, k, bseat, beff, best, team, suit_mask, tabs):
    """Is the side of ``bseat`` (best card ``best`` of effective suit ``beff``) sure to take the trick, whatever the
    players after the ``k``-th card play? Each of them is on that side or cannot beat the best card (he holds the
    led suit and none above it; or, void, no trump that beats it)."""
    side = (team >> bseat) & 1
    tm = np.int64(suit_mask[TRUMP])
    above = tabs[T_ABOVE, best]
    seat = (s[S_LEADER] + k + 1) & 3
    for _ in range(k + 1, 4):
        if ((team >> seat) & 1) != side:
            hand = s[seat]
            if beff == TRUMP:
                if hand & tm & above:
                    return False
            else:
                follow = hand & np.int64(suit_mask[beff])
                if (follow & above) != 0 or (follow == 0 and (hand & tm) != 0):
                    return False
        seat = (seat + 1) & 3
    return True


@solver_jit(forceinline=True)
def reduce_dominated(s, seat, legal, ctx, tabs, suit_mask):
    """The legal cards (points measure) less those equivalent to or dominated by a card of the same hand.

    Two cards of one hand with no card still in play between them in their effective suit are alike in every
    trick (whichever is played, the other has the same place among the cards left), so they differ only in which
    trick gets which card's points. When the side that takes this trick is already sure, whatever the players
    after this card play: if it is the mover's side, the dearer card now and the cheaper one later can only be
    better for him (the dearer one would at best come back later); if not, the cheaper one now. So of each such
    group only the dearest (or cheapest, the weaker on a tie) is searched; in a trick not yet decided, only cards
    worth the same points are merged (:func:`reduce_equivalent`). The unsearched called ace in its holder's hand
    is kept apart."""
    present = s[0] | s[1] | s[2] | s[3] | s[S_TRICK]
    special = ctx[C_ACE_BIT] if (s[S_SEARCHED] == 0 and seat == ctx[C_PARTNER]) else np.int64(0)
    team = ctx[C_TEAM]
    mine = (team >> seat) & 1
    k = s[S_K]
    out = legal & special
    keep = -1  # the card kept of the current group (decided trick)
    keep_pts = 0
    decided = False
    dear = False
    prev = -1
    m = legal & ~special
    while m != 0:
        c = cttz(m)
        m &= m - 1
        pts = tabs[T_POINTS, c]
        below = present & tabs[T_BELOW, c]
        if below != 0 and msb(below) == prev:  # next to the previous legal card: same group
            if decided:
                if (pts > keep_pts) if dear else (pts < keep_pts):
                    keep = c
                    keep_pts = pts
            elif pts != tabs[T_POINTS, prev]:
                out |= np.int64(1) << c
        else:
            if keep >= 0:
                out |= np.int64(1) << keep
            keep = -1
            _, bseat, beff, best = trick_step(k, seat, tabs[T_EFF, c], c, s[S_LED], s[S_BSEAT], s[S_BEFF],
                                              s[S_BEST])
            decided = trick_decided(s, k, bseat, beff, best, team, suit_mask, tabs)
            if decided:
                dear = ((team >> bseat) & 1) == mine
                keep = c
                keep_pts = pts
            else:
                out |= np.int64(1) << c
        prev = c
    if keep >= 0:
        out |= np.int64(1) << keep
    return out


@solver_jit(forceinline=True)
def side_cards(s, side):
    """The cards still held by the seats of ``side`` (a side's bits)."""
    out = np.int64(0)
    for o in range(4):
        if (side >> o) & 1:
            out |= s[o]
    return out


@solver_jit(forceinline=True)
def safe_tops(s, legal, other, theirs, tm, suit_mask):
    """The side-suit cards of ``legal`` above every card the seats of ``other`` (a side's bits; ``theirs``, their
    cards) hold in their suit, in the suits none of them can ruff (holding trumps but no card of the suit): led,
    each takes its trick."""
    out = np.int64(0)
    for su in range(4):
        sm = np.int64(suit_mask[su])
        tops = above_all(legal & sm, theirs & sm)
        if tops == 0:
            continue
        for o in range(4):
            if (other >> o) & 1 and (s[o] & tm) != 0 and (s[o] & sm) == 0:
                tops = 0
        out |= tops
    return out


@solver_jit(forceinline=True)
def partner_behind_beats(s, seat, k, team, best, tm, suit_mask, tabs):
    """Can a partner of ``seat`` who plays after it in the current trick (``seat`` plays its ``k``-th card) beat the
    best card ``best``? He must follow the led suit if he can; void, any trump beats a side card."""
    mine = (team >> seat) & 1
    led = s[S_LED]
    above = tabs[T_ABOVE, best]
    lm = np.int64(suit_mask[led])
    q = (seat + 1) & 3
    for _ in range(k + 1, 4):
        if ((team >> q) & 1) == mine:
            hand = s[q]
            follow = hand & lm
            if follow != 0:
                if s[S_BEFF] == led and (follow & above) != 0:
                    return True
            elif s[S_BEFF] == TRUMP:
                if (hand & tm & above) != 0:
                    return True
            elif (hand & tm) != 0:
                return True
        q = (q + 1) & 3
    return False


@solver_jit(forceinline=True)
def gen_moves(s, seat, moves, p, legal, ctx, tabs, suit_mask, hint, keys):
    """Write the cards of ``legal`` into ``moves[p]``, the likeliest cut-off first; return how many.

    The table's move first; then two groups, each in the order of one of the ``T_DEAR``.. ``T_LEAD`` rows.
    Leading: the side cards that surely take their trick (:func:`safe_tops`), dearest first; then the declaring
    side plays trumps from the top and its dearest side cards (once the defenders hold no trump: its weakest
    cards, trumps last), the defenders their cheapest cards. Following the partner's trick that no opponent after
    this card can take: load the dearest card that does not overtake, else overtake as low as possible; one an
    opponent can still take: the lowest card that makes it sure, else the cheapest card; following the opponents'
    trick: win as low as possible, else throw the cheapest card, or the dearest when a partner after this card can
    still take the trick (second in the trick with such a partner: the dearest cards first, winning or not).
    (Cashing sure tricks first and winning cheaply keep the strong cards for later: measured, about a third fewer
    nodes than cashing every side ace first and winning with the dearest card; securing a partner's open trick
    instead of loading points onto it, 6-7% fewer; loading points for a partner behind who can still win, 8-15%
    fewer; keeping the trumps back once the defenders have none, which spares the search their free discards, a
    quarter fewer in a Wenz or Geier.)
    ``keys`` is an int64[8] scratch array."""
    team = ctx[C_TEAM]
    mine = (team >> seat) & 1
    k = s[S_K]
    tm = np.int64(suit_mask[TRUMP])
    if k == 0:
        other = 15 & ~team if mine else team
        theirs = side_cards(s, other)
        first = safe_tops(s, legal, other, theirs, tm, suit_mask)
        r1, r2 = T_DEAR, (T_LEAD if mine else T_CHEAP)
        if mine and (theirs & tm) == 0:
            r2 = T_LOW  # trumps drawn: they stay sure, so the weakest side cards before them (no free discards)
    else:
        best = s[S_BEST]
        beats = tabs[T_ABOVE, best] if s[S_BEFF] == TRUMP else tabs[T_ABOVE, best] | tm
        if ((team >> s[S_BSEAT]) & 1) != mine:
            first, r1, r2 = legal & beats, T_LOW, T_CHEAP
            if k < 3 and partner_behind_beats(s, seat, k, team, best, tm, suit_mask, tabs):
                r2 = T_DEAR  # cannot win it: load points for the partner who still can
                if k == 1:
                    first = 0  # second hand: leave the trick to the partner behind, the dearest cards first
        elif k == 3 or trick_decided(s, k - 1, s[S_BSEAT], s[S_BEFF], best, team, suit_mask, tabs):
            first, r1, r2 = legal & ~beats, T_DEAR, T_LOW
        else:  # the partner's trick, but an opponent after this card can still take it: secure it first
            first = np.int64(0)
            m = legal & beats
            while m != 0:
                c = cttz(m)
                m &= m - 1
                _, bs, be, bt = trick_step(k, seat, tabs[T_EFF, c], c, s[S_LED], s[S_BSEAT], s[S_BEFF], best)
                if trick_decided(s, k, bs, be, bt, team, suit_mask, tabs):
                    first |= np.int64(1) << c
            r1, r2 = T_LOW, T_CHEAP
    n = 0
    m = legal
    while m != 0:
        c = cttz(m)
        m &= m - 1
        if c == hint:
            key = 3 << 10
        elif (first >> c) & 1:
            key = (2 << 10) | tabs[r1, c]
        else:
            key = (1 << 10) | tabs[r2, c]
        j = n
        while j > 0 and keys[j - 1] < key:
            keys[j] = keys[j - 1]
            moves[p, j] = moves[p, j - 1]
            j -= 1
        keys[j] = key
        moves[p, j] = c
        n += 1
    return n


# ------------------------------------------------------------------------------------------ bounds

@solver_jit(forceinline=True)
def mask_points(m, tabs):
    """Card points of a mask."""
    return (2 * popcount(m & tabs[T_CLASS, 1]) + 3 * popcount(m & tabs[T_CLASS, 2])
            + 4 * popcount(m & tabs[T_CLASS, 3]) + 10 * popcount(m & tabs[T_CLASS, 4])
            + 11 * popcount(m & tabs[T_CLASS, 5]))


@solver_jit(forceinline=True)
def cheapest_points(hand, j, tabs):
    """The points of the ``j`` cheapest cards of ``hand`` (all of them if it holds fewer)."""
    total = 0
    for i in range(6):
        if j <= 0:
            break
        n = popcount(hand & tabs[T_CLASS, i])
        if n > j:
            n = j
        total += n * _CLASS_POINTS[i]
        j -= n
    return total


@solver_jit(forceinline=True)
def above_all(mine, theirs):
    """The cards of ``mine`` above every card of ``theirs`` (both within one effective suit)."""
    if theirs == 0:
        return mine
    return mine & ~((np.int64(2) << msb(theirs)) - 1)


@solver_jit(forceinline=True)
def trump_survivors(tr, opp_tr, tabs):
    """(points, tricks) a player's trumps ``tr`` surely win against the opposing trumps ``opp_tr``. Every card is
    played some time, and a trump of his loses its trick only to a higher opposing trump in the same trick; each
    opposing trump is in one trick, so it beats at most one of his. At most ``m`` of his trumps can be beaten, ``m``
    the largest matching of his trumps to higher opposing ones (his weakest first, each to the weakest free
    opposing trump above it); the rest win. Which ones lose is the opponents' choice: his dearest beatable ones."""
    sure = above_all(tr, opp_tr)
    beatable = tr & ~sure
    free = opp_tr
    m = 0
    b = beatable
    while b != 0:
        t = cttz(b)
        b &= b - 1
        up = free & tabs[T_ABOVE, t]
        if up == 0:  # nothing above this one, so nothing above the stronger ones either
            break
        free &= ~(up & -up)  # the weakest opposing trump above t is used
        m += 1
    keep = popcount(beatable) - m
    return mask_points(sure, tabs) + cheapest_points(beatable, keep, tabs), popcount(sure) + keep


@solver_jit(forceinline=True)
def stays_under(low, high, rounds):
    """Can a hand ``low`` follow ``rounds`` leads of ``high``'s cards from the top without ever beating one? (Its
    lowest card under the highest lead, its next lowest under the next, ...; a hand that runs out is fine.)"""
    a = low
    b = high
    for _ in range(rounds):
        if a == 0 or b == 0:
            return True
        if cttz(a) > msb(b):
            return False
        a &= a - 1
        b &= ~(np.int64(1) << msb(b))
    return True


@solver_jit(forceinline=True)
def guaranteed(s, side, tabs, suit_mask, enough, leader, cap_penalty):
    """(points, tricks) a side surely takes from a trick boundary on, whatever the other side does.

    * Sure trumps: trumps stronger than every trump of the other side. Each lands in a trick the side wins, so
      its points are the side's; one player's sure trumps win that many distinct tricks. A player's other trumps
      count too, as far as the opposing trumps cannot beat them all (:func:`trump_survivors`): every player's when
      the side is not on lead; on lead the leader's own, unless he draws trumps (then all of his win), while a
      partner's low trumps count as following the leader's trump leads instead (counting both would count a card
      twice).
    * When the side is on lead, the leader's plan (distinct tricks, each holding a card of his):
      - trump leads with his sure trumps; if they are at least as many as any opponent's trumps, he draws them all
        (each opponent must follow trump), after which every trump of his wins and no side card can be ruffed;
      - then he cashes his side-suit cards stronger than every opposing card of their suit, from the top, while
        every opponent who still holds a trump must follow suit (without drawing: as long as each of them does).
      Into those tricks each opponent, and the partner, must follow suit: at least their cheapest cards of the suit
      led (all of the opponents' trumps when they are drawn). The plan needs the leader to keep the lead: a
      partner who could be forced to beat a lead (his cards of the suit not all able to stay under the leads, or
      void in a side suit while he may still hold trumps) cancels the trump leads (the leader's sure trumps then
      count as a partner's do) or that suit.
    * Off lead, a lone declarer who holds a trump while the defenders hold none also takes a trick with each side
      card above their cards of its suit (:func:`safe_tops`; -10% nodes on `evaluate`'s payout levels).
    * Otherwise, into the distinct tricks one player of the side is sure to win, every opponent puts a card: at
      least his cheapest ones.
    The opponents' cards are not added up when the side's own cards already make ``enough`` points.

    ``leader``: who leads next. ``cap_penalty`` 1 makes the bound hold also after every opponent has played one
    more card of his hand as it is (see :func:`trick_bound`): that can only shrink what the opponents hold and
    make the side's cards surer, except that an opponent may be one card shorter in a suit."""
    tm = np.int64(suit_mask[TRUMP])
    opp = np.int64(0)
    max_opp_tr = 0
    for seat in range(4):
        if not (side >> seat) & 1:
            opp |= s[seat]
            nt = popcount(s[seat] & tm)
            if nt > max_opp_tr:
                max_opp_tr = nt
    opp_tr = opp & tm
    own = 0  # points of the side's own cards sure to land in its tricks
    most = 0  # distinct tricks one player of the side surely wins
    plan_in = 0  # points the others must put into the leader's plan tricks
    partner_done = -1  # a partner whose trumps all follow the leader's drawing
    on_lead = (side >> leader) & 1
    if on_lead:
        lead = s[leader]
        lead_tr = lead & tm
        sure = above_all(lead_tr, opp_tr)
        drawing = max_opp_tr > 0 and popcount(sure) >= max_opp_tr
        won = lead_tr if drawing else sure
        trump_leads = popcount(won)
        keeps_lead = True  # no partner can be forced to overtake a trump lead
        for o in range(4):
            if o != leader and (side >> o) & 1 and not stays_under(s[o] & tm, won, trump_leads):
                keeps_lead = False
        if not keeps_lead:  # no trump plan: his trumps that survive still win their tricks, wherever they fall
            drawing = False
            trump_leads = 0
        if drawing:  # every trump of his wins
            own += mask_points(lead_tr, tabs)
            plan = popcount(lead_tr)
        else:  # his sure trumps, and his others as far as the opposing trumps cannot beat them all
            surv_pts, plan = trump_survivors(lead_tr, opp_tr, tabs)
            own += surv_pts
        for su in range(4):
            sm = np.int64(suit_mask[su])
            mine = lead & sm
            if mine == 0:
                continue
            win = above_all(mine, opp & sm)
            q = popcount(win)
            if q == 0:
                continue
            forced_over = False  # a partner who could be made to beat the leader's card of this suit
            for o in range(4):
                if o != leader and (side >> o) & 1:
                    if s[o] & sm:
                        forced_over |= not stays_under(s[o] & sm, win, q)
                    elif (s[o] & tm) != 0 and not (drawing and popcount(s[o] & tm) <= trump_leads):
                        forced_over = True  # void: he might have nothing left but trumps
            if forced_over:
                continue
            if not drawing:
                cap = 8
                for o in range(4):
                    if not (side >> o) & 1 and (s[o] & tm) != 0:
                        ln = popcount(s[o] & sm)
                        if ln < cap:
                            cap = ln
                cap -= cap_penalty
                if cap <= 0:
                    continue
                if q > cap:  # cash the dearest ``cap`` of them
                    own -= cheapest_points(win, q - cap, tabs)
                    q = cap
            own += mask_points(win, tabs)
            plan += q
            for o in range(4):
                if o != leader:
                    plan_in += cheapest_points(s[o] & sm, q, tabs)
        for o in range(4):
            if o == leader:
                continue
            hand_tr = s[o] & tm
            if (side >> o) & 1:  # the partner follows the trump leads
                if drawing and popcount(hand_tr) <= trump_leads:
                    own += mask_points(hand_tr, tabs)
                    partner_done = o
                else:
                    sure_p = above_all(hand_tr, opp_tr)
                    plan_in += cheapest_points(hand_tr & ~sure_p, min(trump_leads, popcount(hand_tr))
                                               - popcount(sure_p), tabs)
            elif drawing:
                plan_in += mask_points(hand_tr, tabs)
            else:
                plan_in += cheapest_points(hand_tr, trump_leads, tabs)
        most = max(most, plan)
    for seat in range(4):
        if (side >> seat) & 1 and seat != leader and seat != partner_done:
            if on_lead:
                sure = above_all(s[seat] & tm, opp_tr)
                n_won = popcount(sure)
                own += mask_points(sure, tabs)
            else:
                pts, n_won = trump_survivors(s[seat] & tm, opp_tr, tabs)
                own += pts
                if opp_tr == 0 and (s[seat] & tm) != 0 and (side & (side - 1)) == 0:
                    # a lone declarer with a trump, the defenders with none: each of his side cards above theirs
                    # takes a trick. Before he is on lead he plays one only to win a trick of its suit (else he
                    # follows low, or ruffs a suit he is void in and so takes the lead); on lead he cashes them
                    tops = safe_tops(s, s[seat], 15 & ~side, opp, tm, suit_mask)
                    own += mask_points(tops, tabs)
                    n_won += popcount(tops)
            if n_won > most:
                most = n_won
    if own >= enough or most == 0:
        return own, most
    spread = 0  # any ``most`` distinct tricks: each opponent's cheapest cards
    for seat in range(4):
        if not (side >> seat) & 1:
            spread += cheapest_points(s[seat], most, tabs)
    return own + max(spread, plan_in), most


@solver_jit(forceinline=True)
def _wins_trick_then_leads(s, team, tabs, suit_mask, measure, trick_pts, enough, winner):
    """What the declaring side surely takes from here on when it takes the current trick (``trick_pts`` of its
    points are sure, the cards still to come add at least 0) and ``winner`` leads next: the trick, and what
    ``guaranteed`` promises it on the hands as they are, every opponent one card shorter (``cap_penalty`` 1)."""
    gp, gt = guaranteed(s, team, tabs, suit_mask, enough - trick_pts, winner, 1)
    if measure == MEASURE_POINTS:
        return trick_pts + gp
    return 1 + gt


@solver_jit(forceinline=True)
def trick_bound(s, ctx, tabs, suit_mask, measure, enough):
    """What the declaring side surely takes from here on (its gain in ``measure``) inside a trick it is already
    sure to win: its best card so far cannot be beaten by any player still to play, and every one of those is a
    defender. It then takes the trick (its cards so far; the others' cards, at least 0) and afterwards what
    ``guaranteed`` promises it on the hands as they are, the winner leading. 0 when the trick is not decided for
    it. (The defenders' side of this, a trick decided for them, decided next to nothing and cost 4% of the time.)"""
    k = s[S_K]
    best_seat = s[S_BSEAT]
    team = ctx[C_TEAM]
    if not (team >> best_seat) & 1:
        return 0
    for j in range(k, 4):
        if (team >> ((s[S_LEADER] + j) & 3)) & 1:
            return 0  # a partner is still to play: his card is his choice (and who leads next)
    if not trick_decided(s, k - 1, best_seat, s[S_BEFF], s[S_BEST], team, suit_mask, tabs):
        return 0
    return _wins_trick_then_leads(s, team, tabs, suit_mask, measure, s[S_TP], enough, best_seat)


@solver_jit(forceinline=True)
def _after_winning_with(s, x, card, team, tabs, suit_mask, measure, enough):
    """What the lone declarer ``x`` surely takes when he wins the current trick with ``card`` and then leads
    (:func:`_wins_trick_then_leads` on his hand without that card)."""
    hand = s[x]
    s[x] = hand & ~(np.int64(1) << card)
    v = _wins_trick_then_leads(s, team, tabs, suit_mask, measure, tabs[T_POINTS, card], enough, x)
    s[x] = hand
    return v


@solver_jit(forceinline=True)
def regain_bound(s, ctx, tabs, suit_mask, measure, enough, floor):
    """What a lone declarer not on lead surely takes from a trick boundary when he wins the next trick whatever
    the leader leads, and so leads after it; 0 when some lead could beat him, or when the bound is not above
    ``floor`` (what is already known).

    He wins a trump lead, or a lead of a side suit he is void in, with his best trump if it is above every other
    trump; and a lead of a side suit he holds with his best card of it, if that is above every other card of the
    suit and no opponent could ruff it (void in the suit, holding a trump). Which card he spends depends on the
    lead, so the bound is the least over the leads the leader can make (:func:`_after_winning_with`). (Before it,
    a lone declarer's bound off lead counted only his sure trumps: a Wenz's `payout` search 18% more nodes.)"""
    team = ctx[C_TEAM]
    x = cttz(team)
    tm = np.int64(suit_mask[TRUMP])
    hand = s[x]
    trumps = hand & tm
    defenders = 15 & ~team
    others = side_cards(s, defenders)
    top_trump_sure = trumps != 0 and ((others & tm) == 0 or msb(others & tm) < msb(trumps))
    safe = safe_tops(s, hand, defenders, others, tm, suit_mask)
    led_from = s[s[S_LEADER]]
    by_trump = (led_from & tm) != 0  # a trump lead, or a side suit he is void in: won with his best trump
    by_suit = np.int64(0)  # his best cards of the side suits he holds that may be led
    for su in range(4):
        sm = np.int64(suit_mask[su])
        if (led_from & sm) == 0:
            continue
        if (hand & sm) == 0:
            by_trump = True
        elif (safe & sm) == 0:
            return 0  # a defender can beat or ruff his best card of the suit
        else:
            by_suit |= np.int64(1) << msb(safe & sm)
    if by_trump and not top_trump_sure:
        return 0
    least = INF
    if by_trump:
        least = _after_winning_with(s, x, msb(trumps), team, tabs, suit_mask, measure, enough)
    m = by_suit
    while m != 0 and least > floor:
        c = cttz(m)
        m &= m - 1
        least = min(least, _after_winning_with(s, x, c, team, tabs, suit_mask, measure, enough))
    return least if floor < least < INF else 0


@solver_jit(forceinline=True)
def _final_trick(s, played, leader, team, tabs, measure):
    """Measure the declaring side wins in the last trick (it is forced): every hand holds one card besides those
    in ``played``."""
    led = 0
    bseat = 0
    beff = 0
    best = 0
    tp = 0
    for k in range(4):
        seat = (leader + k) & 3
        c = cttz(s[seat] & ~played)
        tp += tabs[T_POINTS, c]
        led, bseat, beff, best = trick_step(k, seat, tabs[T_EFF, c], c, led, bseat, beff, best)
    if (team >> bseat) & 1:
        return 1 if measure == MEASURE_TRICKS else tp
    return 0


@solver_jit(forceinline=True)
def _fold(is_max, v, g, a, b):
    """Fold a child's value ``v`` into a node's best value ``g`` and window (a, b): (g, a, b, cut-off)."""
    if is_max:
        if v > g:
            g = v
            a = max(a, g)
        return g, a, b, g >= b
    if v < g:
        g = v
        b = min(b, g)
    return g, a, b, g <= a


@solver_jit(forceinline=True)
def two_tricks(s, ctx, tabs, suit_mask, measure, a, b):
    """Fail-soft alpha-beta value of the measure the declaring side still takes from a trick boundary where every
    hand holds two cards, in the window (a, b): the next trick's lines (16 at most) by four nested loops, each line
    followed by the forced last trick. Cheaper than the general search once the bounds have not decided the
    position (before them it costs more than they do), and than a table probe.

    Returns (value, lines): ``lines`` is how many lines were played out, counted as nodes (each stands for the
    last-trick node the general search would have entered), so a node budget buys the same work either way."""
    team = ctx[C_TEAM]
    maxi = ctx[C_MAXI]
    stich = ctx[C_STICH]
    partner = ctx[C_PARTNER] if s[S_SEARCHED] == 0 else -1
    called = ctx[C_CALLED]
    ace = ctx[C_ACE_BIT]
    cmask = ctx[C_CALLED_MASK]
    run_min = ctx[C_RUN_MIN]
    q0 = s[S_LEADER]
    q1 = (q0 + 1) & 3
    q2 = (q0 + 2) & 3
    q3 = (q0 + 3) & 3
    x0 = (maxi >> q0) & 1
    x1 = (maxi >> q1) & 1
    x2 = (maxi >> q2) & 1
    x3 = (maxi >> q3) & 1
    win_one = 1 if measure == MEASURE_TRICKS else 0
    lines = 0
    g0 = -INF if x0 else INF
    a0 = a  # each level's window: its parent's, narrowed by its own moves so far
    b0 = b
    m0 = legal_cards(s[q0], 0, np.int64(0), False, q0 == partner, ace, cmask, run_min)
    while m0 != 0:
        c0 = cttz(m0)
        m0 &= m0 - 1
        led = tabs[T_EFF, c0]
        follow = np.int64(suit_mask[led])
        led_called = led == called
        g1 = -INF if x1 else INF
        a1 = a0
        b1 = b0
        m1 = legal_cards(s[q1], 1, follow, led_called, q1 == partner, ace, cmask, run_min)
        if stich:
            m1 = stich_filter(m1, s[q1], 1, follow, c0)
        while m1 != 0:
            c1 = cttz(m1)
            m1 &= m1 - 1
            _, bs1, be1, bt1 = trick_step(1, q1, tabs[T_EFF, c1], c1, led, q0, led, c0)
            g2 = -INF if x2 else INF
            a2 = a1
            b2 = b1
            m2 = legal_cards(s[q2], 2, follow, led_called, q2 == partner, ace, cmask, run_min)
            if stich:
                m2 = stich_filter(m2, s[q2], 2, follow, bt1)
            while m2 != 0:
                c2 = cttz(m2)
                m2 &= m2 - 1
                _, bs2, be2, bt2 = trick_step(2, q2, tabs[T_EFF, c2], c2, led, bs1, be1, bt1)
                g3 = -INF if x3 else INF
                m3 = legal_cards(s[q3], 3, follow, led_called, q3 == partner, ace, cmask, run_min)
                if stich:
                    m3 = stich_filter(m3, s[q3], 3, follow, bt2)
                while m3 != 0:
                    c3 = cttz(m3)
                    m3 &= m3 - 1
                    _, bs3, _, _ = trick_step(3, q3, tabs[T_EFF, c3], c3, led, bs2, be2, bt2)
                    v = 0
                    if (team >> bs3) & 1:
                        v = win_one if measure == MEASURE_TRICKS else (tabs[T_POINTS, c0] + tabs[T_POINTS, c1]
                                                                       + tabs[T_POINTS, c2] + tabs[T_POINTS, c3])
                    played = (np.int64(1) << c0) | (np.int64(1) << c1) | (np.int64(1) << c2) | (np.int64(1) << c3)
                    v += _final_trick(s, played, bs3, team, tabs, measure)
                    lines += 1
                    g3, _, _, cut = _fold(x3, v, g3, a2, b2)
                    if cut:
                        break
                g2, a2, b2, cut = _fold(x2, g3, g2, a2, b2)
                if cut:
                    break
            g1, a1, b1, cut = _fold(x1, g2, g1, a1, b1)
            if cut:
                break
        g0, a0, b0, cut = _fold(x0, g1, g0, a0, b0)
        if cut:
            break
    return g0, lines


# ------------------------------------------------------------------------------------------ search

@solver_jit
def search(s, ctx, tabs, suit_mask, measure, alpha, beta, tt, fr, moves, keys, stats):
    """Fail-soft alpha-beta value of the position ``s`` in the window (alpha, beta) for ``measure``.

    Returns g: the exact final measure if alpha < g < beta; a lower bound if g >= beta; an upper bound if
    g <= alpha. ``ABORTED`` when the node limit ``stats[ST_LIMIT]`` was exceeded (``stats[ST_ABORTED]`` = 1).
    ``s`` is unchanged on return."""
    mask = tt.shape[0] - 1
    team = ctx[C_TEAM]
    nodes = stats[ST_NODES]
    limit = stats[ST_LIMIT]
    gen = stats[ST_GEN]
    flags = ctx[C_FLAGS]
    p = 0
    fr[0, F_ALPHA] = alpha
    fr[0, F_BETA] = beta
    ret = 0
    # a state machine: 0 enter the node at ply p; 1 try its next move; 2 a child returned ``ret`` to ply p
    phase = 0
    while True:
        if phase == 0:
            nodes += 1
            stats[ST_PLY + p] += 1
            if nodes > limit:
                stats[ST_NODES] = nodes
                stats[ST_ABORTED] = 1
                if p > 0:  # leave the root position as it was
                    for j in range(NS):
                        s[j] = fr[0, F_SNAP + j]
                return ABORTED
            a = fr[p, F_ALPHA]
            b = fr[p, F_BETA]
            k = s[S_K]
            if measure == MEASURE_POINTS:
                base = s[S_DP]
                room = s[S_REMPTS] + s[S_TP]
            else:
                base = s[S_DT]
                room = popcount(s[(s[S_LEADER] + k) & 3])  # tricks still to finish, the current one included
            lo = base
            hi = base + room
            slot = -1
            hint = -1
            k1 = np.int64(0)
            k2 = np.int64(0)
            meta = np.int64(0)
            done = False
            endgame = False  # a trick boundary left to two_tricks()
            if k == 0:
                if room == 0 or s[0] == 0:
                    done = True
                    ret = base
                elif b <= lo or hi <= a:
                    pass  # decided by what is taken and what is left
                elif (s[0] & (s[0] - 1)) == 0:  # the last trick is forced: cheaper than the bounds and the table
                    done = True
                    ret = base + _final_trick(s, np.int64(0), s[S_LEADER], team, tabs, measure)
                else:
                    # the table, except with two cards a hand left when two_tricks() follows: enumerating those
                    # lines is cheaper than a probe (a cache miss) and a store; its bucket is fetched while the
                    # bounds are computed (the key is wasted where they decide, and still the time is less)
                    endgame = (flags & FLAG_ENDGAME) != 0 and popcount(s[0]) == 2
                    if not endgame:
                        k1, k2, meta = table_key(s, ctx, tabs, measure, gen)
                        slot = slot_of(k1, k2, meta, mask)
                        prefetch_row(tt, slot)
                    if flags & FLAG_BOUNDS:
                        # what the declaring side is sure of (on evaluate's work it decides 41% of the boundaries
                        # here, before the probe)
                        gp, gt = guaranteed(s, team, tabs, suit_mask, b - base if measure == MEASURE_POINTS else INF,
                                            s[S_LEADER], 0)
                        lo = base + (gp if measure == MEASURE_POINTS else gt)
                        if lo < b and (team & (team - 1)) == 0 and not (team >> s[S_LEADER]) & 1:
                            lo = base + max(lo - base, regain_bound(s, ctx, tabs, suit_mask, measure,
                                                                    b - base if measure == MEASURE_POINTS else INF,
                                                                    lo - base))
                    if lo < b and slot >= 0:
                        i = tt_find(tt, slot, k1, k2, meta)
                        if i >= 0:
                            tlo, thi, hint = tt_unpack(tt[i, 3])
                            if base + tlo > lo:
                                lo = base + tlo
                            if base + thi < hi:
                                hi = base + thi
                    # (no bound from the defenders' sure tricks: it decided about 1% of the boundaries and cost
                    # more time than it saved, DEVELOPERS.md)
            elif flags & FLAG_BOUNDS and k == 3 and lo < b and hi > a:
                # the trick's last card, the trick already decided for the declaring side (earlier in the trick
                # the test costs more time than its cut-offs save)
                lo = base + trick_bound(s, ctx, tabs, suit_mask, measure,
                                        b - base if measure == MEASURE_POINTS else INF)
            if not done:
                if lo >= b:
                    ret = lo
                    done = True
                elif hi <= a or lo == hi:
                    ret = hi
                    done = True
            if done:
                if p == 0:
                    stats[ST_NODES] = nodes
                    return ret
                p -= 1
                phase = 2
                continue
            if lo > a:
                a = lo
            if hi < b:
                b = hi
            if endgame:
                g2, lines = two_tricks(s, ctx, tabs, suit_mask, measure, a - base, b - base)
                ret = base + g2
                nodes += lines
                if p == 0:
                    stats[ST_NODES] = nodes
                    return ret
                p -= 1
                phase = 2
                continue
            fr[p, F_ALPHA] = a
            fr[p, F_BETA] = b
            fr[p, F_SLOT] = slot
            if slot >= 0:  # what the store at the node's end needs (only trick boundaries store)
                fr[p, F_A0] = a
                fr[p, F_B0] = b
                fr[p, F_BASE] = base
                fr[p, F_K1] = k1
                fr[p, F_K2] = k2
                fr[p, F_META] = meta
            seat, legal = legal_now(s, ctx, suit_mask)
            is_max = (ctx[C_MAXI] >> seat) & 1
            fr[p, F_MAX] = is_max
            fr[p, F_G] = -INF if is_max else INF
            fr[p, F_BEST] = -1
            if (legal & (legal - 1)) == 0:  # a forced card: nothing to reduce or order
                moves[p, 0] = cttz(legal)
                fr[p, F_N] = 1
            else:
                if not flags & FLAG_EQUIVALENT:
                    red = legal
                elif measure == MEASURE_POINTS and ctx[C_MAXI] == team:
                    # (dominance argues from the mover wanting points in his own side's tricks: not in a Ramsch)
                    red = reduce_dominated(s, seat, legal, ctx, tabs, suit_mask)
                else:
                    red = reduce_equivalent(s, seat, legal, ctx, tabs, measure)
                fr[p, F_N] = gen_moves(s, seat, moves, p, red, ctx, tabs, suit_mask, hint, keys)
            fr[p, F_I] = 0
            if fr[p, F_N] > 1 or slot >= 0 or p == 0:  # (a single move inside a trick never restores ``s``)
                for j in range(NS):
                    fr[p, F_SNAP + j] = s[j]
            phase = 1
        elif phase == 1:
            i = fr[p, F_I]
            if i < fr[p, F_N]:
                if i > 0:
                    for j in range(NS):
                        s[j] = fr[p, F_SNAP + j]
                fr[p, F_I] = i + 1
                apply_card(s, moves[p, i], ctx, tabs)
                fr[p + 1, F_ALPHA] = fr[p, F_ALPHA]
                fr[p + 1, F_BETA] = fr[p, F_BETA]
                p += 1
                phase = 0
                continue
            # every move searched (or a cut-off): store and return. ``s`` is left as the last child left it: the
            # parent restores its own snapshot before its next move, and only the root must hand ``s`` back
            g = fr[p, F_G]
            slot = fr[p, F_SLOT]
            if slot >= 0:
                tt_store_result(tt, slot, fr[p, F_K1], fr[p, F_K2], fr[p, F_META], g, fr[p, F_A0], fr[p, F_B0],
                                fr[p, F_BASE], fr[p, F_BEST],
                                popcount(fr[p, F_SNAP] | fr[p, F_SNAP + 1] | fr[p, F_SNAP + 2] | fr[p, F_SNAP + 3]))
            ret = g
            if p == 0:
                for j in range(NS):
                    s[j] = fr[0, F_SNAP + j]
                stats[ST_NODES] = nodes
                return ret
            p -= 1
            phase = 2
        else:  # a child returned ``ret`` to ply p
            if ret == ABORTED:
                stats[ST_NODES] = nodes
                return ABORTED
            cut = False
            if fr[p, F_MAX]:
                if ret > fr[p, F_G]:
                    fr[p, F_G] = ret
                    fr[p, F_BEST] = moves[p, fr[p, F_I] - 1]
                    if ret > fr[p, F_ALPHA]:
                        fr[p, F_ALPHA] = ret
                    cut = ret >= fr[p, F_BETA]
            else:
                if ret < fr[p, F_G]:
                    fr[p, F_G] = ret
                    fr[p, F_BEST] = moves[p, fr[p, F_I] - 1]
                    if ret < fr[p, F_BETA]:
                        fr[p, F_BETA] = ret
                    cut = ret <= fr[p, F_ALPHA]
            if cut:
                fr[p, F_I] = fr[p, F_N]
            phase = 1


def _array(dtype, ndim):
    return types.Array(dtype, ndim, "C")


#: the one signature :func:`search` is compiled for; every other kernel calls it through :data:`SEARCH`
SEARCH_SIG = types.int64(_array(types.int64, 1), _array(types.int64, 1), _array(types.int64, 2),
                         _array(types.uint32, 1), types.int64, types.int64, types.int64, _array(types.int64, 2),
                         _array(types.int64, 2), _array(types.int8, 2), _array(types.int64, 1),
                         _array(types.int64, 1))
#: :func:`search` compiled once and called by symbol (simkit.engine.jitcache.Linked): linked into each of the
#: ten kernels that call it, its code was optimized and generated ten times over
SEARCH = Linked(search, SEARCH_SIG, "simkit_solver_search_" + STAMP.hex()[:16], what="the solver's search")
