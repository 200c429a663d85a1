"""The built-in ``heuristic`` strategy: what a sound club player does, written down as plain rules.

Bidding scores the hand for every enabled contract (trumps, Ober/Unter, the top trumps, standing side cards, free
suits, forehand) and declares the highest-ranking contract whose score reaches its threshold, unless an earlier seat
already declared something at least as high. The Rufspiel calls the callable suit in which the hand is shortest.
In play the declaring side pulls trumps, the defenders search the called ace, everybody schmiert on a trick his
known partner surely wins, high trumps are spent only on tricks worth it, and the cheapest card goes when a trick
is lost. Kontra and Re on strong hands. Every number is in the config table (``CONFIG_NAMES``/``DEFAULT_CONFIG``);
docs/heuristic.md explains each rule and entry.

Only popcounts, table lookups and short loops over at most a hand's or a suit's cards; nothing is allocated.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from simkit.engine.bits import cttz, popcount
from simkit.strategies.api import (
    BID_SIG, DOUBLE_SIG, I_BIDS, I_DECLARER, I_DOUBLINGS, I_KIND, I_LEADER, I_N_IN_TRICK, I_PARTNER_SHOWN,
    I_PLAYED, I_PLAYED_BY, I_SEARCHED, I_SUIT, I_TRICK, I_VARIANT, PASS, PLAY_SIG, bid_code,
)

DESCRIPTION = ("rule-based club player: bids from hand strength with tunable thresholds, pulls trumps, searches the "
               "called ace, schmiert, saves high trumps")

# ------------------------------------------------------------------------------------------ config table
#: (name, default, meaning); docs/heuristic.md repeats this table. Scores are in "trump units".
_CONFIG = (
    ("w_trump", 1.0, "score per trump (Rufspiel, solo, Farbwenz, Farbgeier)"),
    ("w_ober", 0.5, "extra score per Ober among the trumps"),
    ("w_unter", 0.25, "extra score per Unter among the trumps"),
    ("w_top", 0.5, "extra score for each of the two highest trumps of the contract"),
    ("w_stand", 0.75, "score per standing side card (ace, ace+ten, ... from the top of a side suit)"),
    ("w_void", 0.5, "score per free side suit (void), only with at least 2 trumps"),
    ("w_forehand", 0.5, "bonus for seat 0 (forehand, leads the first trick) in solo-type contracts"),
    ("w_wg_trump", 1.5, "score per trump in Wenz and Geier (replaces w_trump: only 4 trumps exist)"),
    ("th_rufspiel", 5.5, "minimum score to declare a Rufspiel"),
    ("th_solo", 9.0, "minimum score to declare a Farbsolo"),
    ("th_wenz", 7.5, "minimum score to declare a Wenz"),
    ("th_geier", 7.5, "minimum score to declare a Geier"),
    ("th_farbwenz", 9.0, "minimum score to declare a Farbwenz"),
    ("th_farbgeier", 9.0, "minimum score to declare a Farbgeier"),
    ("tout_margin", 4.0, "a solo-type contract is declared Tout when its score exceeds its threshold by this"),
    ("kontra_rufspiel", 6.5, "a defender's own score (in the Rufspiel's trumps) to say Kontra"),
    ("kontra_solo", 7.5, "a defender's own score (in the solo's trumps) to say Kontra against a solo-type game"),
    ("re_margin", 1.5, "the declarer says Re when his score exceeds the contract's threshold by this"),
    ("take_min_points", 10.0, "trick points that make it worth spending a high trump (or an unsafe ruff)"),
    ("high_trumps", 4.0, "how many of the top trumps count as high (Wenz/Geier: at most 2)"),
)
CONFIG_NAMES = tuple(c[0] for c in _CONFIG)
DEFAULT_CONFIG = np.array([c[1] for c in _CONFIG], dtype=np.float64)
CONFIG_DOC = {c[0]: c[2] for c in _CONFIG}

C_W_TRUMP, C_W_OBER, C_W_UNTER, C_W_TOP, C_W_STAND, C_W_VOID, C_W_FOREHAND, C_W_WG_TRUMP = range(8)
C_TH_RUFSPIEL = 8  # + kind: thresholds of the 6 kinds in kind order (rufspiel, solo, wenz, geier, farbwenz, fgeier)
C_TOUT_MARGIN, C_KONTRA_RUFSPIEL, C_KONTRA_SOLO, C_RE_MARGIN, C_TAKE_MIN_POINTS, C_HIGH_TRUMPS = range(14, 20)

# ------------------------------------------------------------------------------------------ constants
_OBERS = 0x10101010
_UNTERS = 0x08080808
_ACES = 0x80808080
_SUIT0 = 0xFF
_P_DECK_MASK = 11
_P_ENABLED = 12
_P_TOUT_ALLOWED = 13
_TRUMP = 4
# Bid rank of each kind (RULES.md 2.2): Rufspiel < Farbgeier < Geier < Farbwenz < Wenz < Solo; Tout adds 6.
_RANK_OF_KIND = (0, 5, 4, 2, 3, 1)
# Kinds from the highest rank down (solo, wenz, farbwenz, geier, farbgeier, rufspiel).
_KINDS_HIGH_FIRST = (1, 2, 4, 3, 5, 0)
_POINTS = (0, 0, 0, 2, 3, 4, 10, 11)


@njit(cache=True, inline="always")
def _bid_rank(code):
    if code < 0:
        return -1
    kind = code & 7
    r = 0
    if kind == 1:
        r = 5
    elif kind == 2:
        r = 4
    elif kind == 3:
        r = 2
    elif kind == 4:
        r = 3
    elif kind == 5:
        r = 1
    if (code >> 6) & 1:
        r += 6
    return r


@njit(cache=True, inline="always")
def _trump_mask(kind, suit, deck):
    """Cards that are trump in contract (kind, suit); the Rufspiel's trump suit is Herz."""
    if kind == 0:
        m = _OBERS | _UNTERS | (_SUIT0 << 16)
    elif kind == 1:
        m = _OBERS | _UNTERS | (_SUIT0 << (8 * suit))
    elif kind == 2:
        m = _UNTERS
    elif kind == 3:
        m = _OBERS
    elif kind == 4:
        m = _UNTERS | (_SUIT0 << (8 * suit))
    else:
        m = _OBERS | (_SUIT0 << (8 * suit))
    return m & deck


@njit(cache=True, inline="always")
def _variant(kind, suit):
    if kind == 0:
        return 0
    if kind == 1:
        return 1 + suit
    if kind == 2:
        return 5
    if kind == 3:
        return 6
    if kind == 4:
        return 7 + suit
    return 11 + suit


@njit(cache=True, inline="always")
def _points(c):
    r = c & 7
    if r == 7:
        return 11
    if r == 6:
        return 10
    if r == 5:
        return 4
    if r == 4:
        return 3
    if r == 3:
        return 2
    return 0


@njit(cache=True, inline="always")
def _msb(m):
    """Index of the highest set bit of a non-empty mask."""
    i = 31
    while not (m >> i) & 1:
        i -= 1
    return i


@njit(cache=True, inline="always")
def _standing(held, full):
    """Cards of ``held`` that win from the top of side suit ``full`` (side suits rank like their bits)."""
    missing = full & ~held
    if missing == 0:
        return popcount(held)
    return popcount(held >> (_msb(missing) + 1))


@njit(cache=True)
def _hand_score(hand, kind, suit, seat, strength, deck, config):
    """The bidding score of ``hand`` for contract (kind, suit)."""
    tm = _trump_mask(kind, suit, deck)
    tr = hand & tm
    nt = popcount(tr)
    if kind == 2 or kind == 3:
        s = config[C_W_WG_TRUMP] * nt
    else:
        s = config[C_W_TRUMP] * nt + config[C_W_OBER] * popcount(tr & _OBERS) + config[C_W_UNTER] * popcount(
            tr & _UNTERS)
    # the two highest trumps: EO GO, or EU GU in Wenz/Farbwenz
    if kind == 2 or kind == 4:
        top = (1 << 3) | (1 << 11)
    else:
        top = (1 << 4) | (1 << 12)
    s += config[C_W_TOP] * popcount(tr & top)
    for t in range(4):
        full = (_SUIT0 << (8 * t)) & ~tm & deck
        if full == 0:
            continue
        held = hand & full
        if held == 0:
            if nt >= 2:
                s += config[C_W_VOID]
        else:
            s += config[C_W_STAND] * _standing(held, full)
    if seat == 0 and kind != 0:
        s += config[C_W_FOREHAND]
    return s


@njit(cache=True, inline="always")
def _call_suit(hand, deck):
    """The suit to call in a Rufspiel: callable (no own ace, a non-trump card of the suit), fewest cards, then most
    points (a ten to schmier on the partner's ace); -1 if none is callable."""
    best = -1
    best_key = 1 << 30
    for s in (0, 1, 3):
        if (hand >> (8 * s + 7)) & 1:
            continue
        side = hand & (_SUIT0 << (8 * s)) & ~(_OBERS | _UNTERS) & deck
        if side == 0:
            continue
        pts = 0
        m = side
        while m:
            c = cttz(m)
            m &= m - 1
            pts += _points(c)
        key = popcount(side) * 64 - pts
        if key < best_key:
            best_key = key
            best = s
    return best


# ------------------------------------------------------------------------------------------------ bid


@njit(cache=True)
def _best_contract(hand, seat, strength, params, config):
    """(code, margin) of the highest-ranking contract whose score reaches its threshold, or (PASS, 0)."""
    deck = params[_P_DECK_MASK]
    enabled = params[_P_ENABLED]
    for kind in _KINDS_HIGH_FIRST:
        if not (enabled >> kind) & 1:
            continue
        th = config[C_TH_RUFSPIEL + kind]
        if kind == 0:
            call = _call_suit(hand, deck)
            if call < 0:
                continue
            sc = _hand_score(hand, 0, 0, seat, strength, deck, config)
            if sc >= th:
                return bid_code(0, call, False), sc - th
            continue
        if kind == 2 or kind == 3:
            sc = _hand_score(hand, kind, 0, seat, strength, deck, config)
            best_suit = -1
        else:
            sc = -1e9
            best_suit = 0
            for s in range(4):
                x = _hand_score(hand, kind, s, seat, strength, deck, config)
                if x > sc:
                    sc = x
                    best_suit = s
        if sc >= th:
            tout = params[_P_TOUT_ALLOWED] != 0 and sc >= th + config[C_TOUT_MARGIN]
            return bid_code(kind, best_suit, tout), sc - th
    return PASS, 0.0


@njit(BID_SIG, cache=True)
def bid(hand, seat, info, strength, eff_suit, params, config):
    code, _ = _best_contract(hand, seat, strength, params, config)
    if code == PASS:
        return PASS
    mine = _bid_rank(code)
    for s in range(seat):
        if _bid_rank(info[I_BIDS + s]) >= mine:  # an earlier seat wins ties: my bid would simply lose
            return PASS
    return code


# --------------------------------------------------------------------------------------------- double


@njit(DOUBLE_SIG, cache=True)
def double(hand, seat, info, strength, eff_suit, params, config):
    kind = info[I_KIND]
    suit = info[I_SUIT]
    decl = info[I_DECLARER]
    deck = params[_P_DECK_MASK]
    declaring_side = seat == decl or (kind == 0 and ((hand >> (8 * suit + 7)) & 1) == 1)
    sc = _hand_score(hand, kind, suit if kind != 0 else 0, seat, strength, deck, config)
    if info[I_DOUBLINGS] == 0:
        if declaring_side:
            return 0
        th = config[C_KONTRA_RUFSPIEL] if kind == 0 else config[C_KONTRA_SOLO]
        return 1 if sc >= th else 0
    if not declaring_side:
        return 0
    return 1 if sc >= config[C_TH_RUFSPIEL + kind] + config[C_RE_MARGIN] else 0


# ----------------------------------------------------------------------------------------------- play


@njit(cache=True, inline="always")
def _beats(new, best, v, strength, eff_suit):
    e = eff_suit[v, new]
    return (e == eff_suit[v, best] or e == _TRUMP) and strength[v, new] > strength[v, best]


@njit(cache=True, inline="always")
def _side_mask(e, tm, deck):
    return (_SUIT0 << (8 * e)) & ~tm & deck


@njit(cache=True)
def _higher_out(c, out, v, tm, deck, strength, eff_suit):
    """Number of cards of ``out`` in the effective suit of ``c`` that are stronger than ``c``."""
    e = eff_suit[v, c]
    m = (tm if e == _TRUMP else _side_mask(e, tm, deck)) & out
    n = 0
    while m:
        o = cttz(m)
        m &= m - 1
        if strength[v, o] > strength[v, c]:
            n += 1
    return n


@njit(cache=True)
def _is_safe(c, out, n_after, v, tm, deck, strength, eff_suit):
    """Will ``c`` (winning the trick now) still win it after ``n_after`` more players? Sure for a top trump; for a
    side card when nothing higher of its suit is out and the suit is likely still held by the others (or no trump
    is out to ruff it)."""
    if n_after == 0:
        return True
    if _higher_out(c, out, v, tm, deck, strength, eff_suit) > 0:
        return False
    if eff_suit[v, c] == _TRUMP or (out & tm) == 0:
        return True
    return popcount(out & _side_mask(eff_suit[v, c], tm, deck)) >= n_after + 1


@njit(cache=True, inline="always")
def _throw_cost(c, v, tm, strength):
    """What it costs to give a card away: its points, plus the future of a trump."""
    cost = 2 * _points(c)
    if (tm >> c) & 1:
        cost += 6 + (strength[v, c] - 100)
    return cost


@njit(cache=True)
def _cheapest(mask, v, tm, strength):
    best = -1
    best_cost = 1 << 30
    m = mask
    while m:
        c = cttz(m)
        m &= m - 1
        cost = _throw_cost(c, v, tm, strength) * 64 + strength[v, c]
        if cost < best_cost:
            best_cost = cost
            best = c
    return best


@njit(cache=True)
def _schmier(mask, v, tm, strength):
    """The card to give a trick the partner surely wins: most points, Zehn before Ass, never an Ober/Unter trump
    while another card with points is there."""
    best = -1
    best_key = -(1 << 30)
    m = mask
    while m:
        c = cttz(m)
        m &= m - 1
        p = _points(c)
        r = c & 7
        if r == 6:
            p = 12  # the Zehn first: the Ass may still win a trick of its own
        if (tm >> c) & 1:
            if r == 3 or r == 4:
                p = -10 - (strength[v, c] - 100)  # Ober/Unter trumps are kept
            else:
                p -= 1
        key = p * 64 - strength[v, c]
        if key > best_key:
            best_key = key
            best = c
    return best


@njit(cache=True)
def _lowest(mask, v, strength):
    best = cttz(mask)
    m = mask
    while m:
        c = cttz(m)
        m &= m - 1
        if strength[v, c] < strength[v, best]:
            best = c
    return best


@njit(cache=True)
def _highest(mask, v, strength):
    best = cttz(mask)
    m = mask
    while m:
        c = cttz(m)
        m &= m - 1
        if strength[v, c] > strength[v, best]:
            best = c
    return best


@njit(cache=True, inline="always")
def _team(x, seat, kind, decl, partner, i_am_partner):
    """1 if seat ``x`` is on my side, 0 if against me, -1 if I cannot tell yet."""
    if x == seat:
        return 1
    if kind != 0:
        return 1 if (x == decl) == (seat == decl) else 0
    mine = seat == decl or i_am_partner
    if x == decl:
        return 1 if mine else 0
    if partner >= 0:
        return 1 if (x == partner) == mine else 0
    if i_am_partner:
        return 0  # I am the partner: every other non-declarer is a defender
    return -1


@njit(cache=True)
def _lead(hand, legal, seat, info, v, tm, deck, strength, eff_suit, config, declaring, out):
    kind = info[I_KIND]
    my_tr = legal & tm
    out_tr = out & tm
    # 1. declaring side pulls trumps: the top trump when held, else a low trump while longer in trumps
    if declaring and my_tr and out_tr:
        top = _highest(my_tr, v, strength)
        if _higher_out(top, out, v, tm, deck, strength, eff_suit) == 0:
            return top
        if kind != 2 and kind != 3 and popcount(hand & tm) >= popcount(out_tr):
            return _cheapest(my_tr, v, tm, strength)
    # 2. defenders search the called ace (Rufspiel, before the search): lowest card of the called suit
    if kind == 0 and info[I_SEARCHED] == 0:
        called = _side_mask(info[I_SUIT], tm, deck)
        ace = 8 * info[I_SUIT] + 7
        if not ((hand >> ace) & 1) and (legal & called):
            if not declaring or seat == info[I_DECLARER]:
                # the declarer leads it too once his trumps are done: the partner's ace takes it
                return _cheapest(legal & called, v, tm, strength)
    # 3. a standing side card (no higher card of its suit out), most points first
    side = legal & ~tm
    best = -1
    best_p = -1
    m = side
    while m:
        c = cttz(m)
        m &= m - 1
        if _higher_out(c, out, v, tm, deck, strength, eff_suit) == 0:
            p = _points(c) * 8 + (c & 7)
            e = c >> 3
            # only while the others still hold the suit (else it is ruffed), unless no trump is out
            if out_tr == 0 or popcount(out & _side_mask(e, tm, deck)) >= 2:
                if p > best_p:
                    best_p = p
                    best = c
    if best >= 0:
        return best
    # 4. a low card of a side suit: the declaring side from its shortest suit (to ruff later), the defenders
    #    from their longest (the declarer must ruff); never lead away from an unguarded Zehn if avoidable
    if side:
        best = -1
        best_key = 1 << 30
        for e in range(4):
            held = side & _side_mask(e, tm, deck)
            if held == 0:
                continue
            c = _cheapest(held, v, tm, strength)
            n = popcount(held)
            key = _throw_cost(c, v, tm, strength) * 16 + (n if declaring else 8 - n)
            if key < best_key:
                best_key = key
                best = c
        return best
    # 5. only trumps: the lowest
    return _cheapest(legal, v, tm, strength)


@njit(PLAY_SIG, cache=True)
def play(hand, legal, seat, info, strength, eff_suit, params, config):
    if (legal & (legal - 1)) == 0:
        return cttz(legal)
    v = info[I_VARIANT]
    kind = info[I_KIND]
    decl = info[I_DECLARER]
    deck = params[_P_DECK_MASK]
    tm = _trump_mask(kind, info[I_SUIT], deck)
    n = info[I_N_IN_TRICK]
    trick = 0
    for k in range(n):
        trick |= 1 << info[I_TRICK + k]
    out = deck & ~info[I_PLAYED] & ~hand & ~trick
    partner = info[I_PARTNER_SHOWN]
    i_am_partner = False
    if kind == 0:
        ace = 8 * info[I_SUIT] + 7
        i_am_partner = (((hand | info[I_PLAYED_BY + seat]) >> ace) & 1) == 1
    declaring = seat == decl or i_am_partner

    if n == 0:
        return _lead(hand, legal, seat, info, v, tm, deck, strength, eff_suit, config, declaring, out)

    # the trick so far
    leader = info[I_LEADER]
    best = info[I_TRICK]
    winner = leader
    pts = _points(best)
    for k in range(1, n):
        c = info[I_TRICK + k]
        pts += _points(c)
        if _beats(c, best, v, strength, eff_suit):
            best = c
            winner = (leader + k) & 3
    n_after = 3 - n
    rel = _team(winner, seat, kind, decl, partner, i_am_partner)
    # are all players after me on my side?
    friends_after = True
    for k in range(1, n_after + 1):
        if _team((seat + k) & 3, seat, kind, decl, partner, i_am_partner) != 1:
            friends_after = False

    # partner wins the trick (surely): schmieren
    if rel == 1 and (friends_after or _is_safe(best, out, n_after, v, tm, deck, strength, eff_suit)):
        return _schmier(legal, v, tm, strength)

    # winners I hold
    winners = 0
    m = legal
    while m:
        c = cttz(m)
        m &= m - 1
        if _beats(c, best, v, strength, eff_suit):
            winners |= 1 << c
    if rel != 1 and winners:
        last = n_after == 0 or friends_after
        n_tr = popcount(deck & tm)
        n_high = int(config[C_HIGH_TRUMPS])
        if (kind == 2 or kind == 3) and n_high > 2:
            n_high = 2
        worth = pts >= config[C_TAKE_MIN_POINTS]
        # sure winners: the cheapest one (a side card following suit brings its own points: the most valuable)
        safe = 0
        m = winners
        while m:
            c = cttz(m)
            m &= m - 1
            if last or _is_safe(c, out, n_after, v, tm, deck, strength, eff_suit):
                safe |= 1 << c
        if safe:
            side_safe = safe & ~tm
            if side_safe:
                return _schmier(side_safe, v, tm, strength)
            c = _cheapest(safe, v, tm, strength)
            high = strength[v, c] - 100 > n_tr - n_high
            if not high or worth or pts > 0 and last:
                return c
        else:
            # an unsure winner: the strongest trump that is not high when the trick is worth it
            if worth:
                c = _highest(winners, v, strength)
                if not (tm >> c) & 1 or strength[v, c] - 100 <= n_tr - n_high:
                    return c
                low = winners & tm
                c2 = _cheapest(low, v, tm, strength)
                return c2
    return _cheapest(legal, v, tm, strength)
