"""The solver's speed-ups change the work, never a value.

Positions with 4-6 cards a hand (too big for the exhaustive oracle of test_solver_exhaustive.py) are solved twice:
with every speed-up (bounds from sure trumps, quick tricks and drawing trumps; table keys relative to runs of
equal cards; equivalent cards) and with none (plain alpha-beta with the transposition table). And each bound is
checked on its own against the exact value: what ``guaranteed`` promises a side, the side must be able to take.
"""

from __future__ import annotations

import random

import pytest

from simkit.cards import DECK_MASKS, HAND_SIZE, cards_of
from simkit.reference import Game
from simkit.rules import Contract, load_ruleset
from simkit.rules.contracts import FARBGEIER, FARBWENZ, GEIER, RUFSPIEL, SOLO, WENZ
from simkit.solver import Position, Workspace, solve, threshold
from simkit.solver.api import _kernel_position
from simkit.solver.search import (C_TEAM, S_BSEAT, S_DP, S_DT, S_K, S_LEADER, S_REMPTS, S_TP, guaranteed,
                                  regain_bound, trick_bound)

PLAIN = Workspace(table_bits=16, flags=0)
FAST = Workspace(table_bits=18)


def _random_contract(rng: random.Random, hands: list[int], deck: str) -> tuple[Contract, int] | None:
    kind = rng.choice([RUFSPIEL, RUFSPIEL, SOLO, WENZ, GEIER, FARBWENZ, FARBGEIER])
    declarer = rng.randrange(4)
    if kind == RUFSPIEL:
        rules = load_ruleset().replace(deck=deck)
        options = []
        for suit in (0, 1, 3):
            try:
                Game(rules, hands, Contract(RUFSPIEL, suit), declarer)
                options.append(suit)
            except ValueError:
                pass
        if not options:
            return None
        return Contract(RUFSPIEL, rng.choice(options)), declarer
    suit = rng.randrange(4) if kind in (SOLO, FARBWENZ, FARBGEIER) else None
    return Contract(kind, suit, tout=kind != RUFSPIEL and rng.random() < 0.1), declarer


def _random_deal(rng: random.Random) -> tuple[str, list[int]]:
    """A deck drawn at random and its cards dealt at random: (deck, the four hands as masks)."""
    deck = rng.choice(["long", "short"])
    cards = cards_of(DECK_MASKS[deck])
    rng.shuffle(cards)
    hs = HAND_SIZE[deck]
    return deck, [sum(1 << c for c in cards[i * hs:(i + 1) * hs]) for i in range(4)]


def random_positions(seed: int, n: int, cards_left: tuple[int, ...]):
    """Opening deals played at random down to ``cards_left`` cards a hand, some stopped inside a trick."""
    rng = random.Random(seed)
    out = []
    while len(out) < n:
        deck, hands = _random_deal(rng)
        hs = HAND_SIZE[deck]
        picked = _random_contract(rng, hands, deck)
        if picked is None:
            continue
        contract, declarer = picked
        rules = load_ruleset().replace(deck=deck, run_away_min=rng.choice([2, 3, 4]))
        pos = Position.opening(hands, contract, declarer, rules, doublings=rng.randrange(3))
        left = rng.choice([c for c in cards_left if c <= hs])
        plays = 4 * (hs - left) + rng.choice([0, 0, 1, 2, 3])
        plays = min(plays, 4 * hs - 1)
        for _ in range(plays):
            pos = pos.after(rng.choice(pos.legal_cards()))
        out.append(pos)
    return out


@pytest.mark.parametrize("seed", range(4))
def test_speedups_do_not_change_values(seed):
    for pos in random_positions(1000 + seed, 25, (4, 5)):
        for objective in ("points", "win", "payout"):
            fast = solve(pos, objective, workspace=FAST)
            plain = solve(pos, objective, workspace=PLAIN)
            assert fast.values == plain.values, (str(pos), objective)
            assert fast.best == plain.best


@pytest.mark.parametrize("seed", range(3))
def test_guaranteed_bounds_hold(seed):
    """``guaranteed`` is a promise: the declaring side can take at least its gain, and the defenders at least
    theirs, from any trick boundary (checked with the exact threshold searches of the plain search)."""
    checked = 0
    for pos in random_positions(2000 + seed, 60, (3, 4, 5, 6, 8)):
        while pos.game.current:  # back to the trick boundary
            pos = Position(pos.rules, pos.contract, pos.declarer, pos.hands, pos.plays[:-1], pos.doublings)
        if pos.is_over:
            continue
        s, ctx, tabs, masks, _ = _kernel_position(pos, PLAIN)
        assert s[S_K] == 0
        dp, rem, team = int(s[S_DP]), int(s[S_REMPTS]), int(ctx[C_TEAM])
        gain, gain_tricks = guaranteed(s.copy(), team, tabs, masks, 1 << 20, int(s[S_LEADER]), 0)
        loss, loss_tricks = guaranteed(s.copy(), 15 & ~team, tabs, masks, 1 << 20, int(s[S_LEADER]), 0)
        assert threshold(pos, points=dp + gain, workspace=PLAIN)
        assert not threshold(pos, points=dp + rem - loss + 1, workspace=PLAIN)
        dt = sum(1 for _, _, w in pos.game.tricks if w in pos.team)
        left = len(pos.game.hands[0])
        assert threshold(pos, tricks=dt + gain_tricks, workspace=PLAIN)
        assert not threshold(pos, tricks=dt + left - loss_tricks + 1, workspace=PLAIN)
        checked += gain > 0 or loss > 0
    assert checked > 30  # the bounds promised something in most positions



def declared_positions(seed: int, n_deals: int, cards_left: tuple[int, ...], preset: str = "sauspiel"):
    """Positions of games the heuristic declared and played (far more structured than random play: long trump
    holdings, partners with the top trumps), at trick boundaries with ``cards_left`` cards a hand and one card into
    the trick after them."""
    from simkit.engine.game import play_games
    from simkit.rules.contracts import KINDS_WITH_SUIT

    rules = load_ruleset(preset)
    g = play_games(seed, 0, n_deals, rules, trace=True)
    hs = rules.hand_size
    out = []
    for i in range(n_deals):
        k = int(g["kind"][i])
        if k < 0:
            continue
        c = Contract(k, int(g["suit"][i]) if k in KINDS_WITH_SUIT else None, bool(g["tout"][i]))
        pos = Position.opening([int(h) for h in g["hands"][i]], c, int(g["declarer"][i]), rules)
        plays = [int(x) for x in g["trace_played"][i]]
        for left in cards_left:
            cut = 4 * (hs - left)
            out.append(pos.after(*plays[:cut]))
            out.append(pos.after(*plays[:cut + 1 + (i % 3)]))
    return out


@pytest.mark.parametrize("preset", ["sauspiel", "sauspiel-short"])
def test_bounds_hold_in_declared_games(preset):
    """Both bounds on positions of declared games: a partner holding a single high trump, forced to overtake the
    leader's trump lead, once broke the leader's plan (found grading 10^5 games; the position is kept below)."""
    checked = 0
    for pos in declared_positions(41, 120, (4, 5), preset):
        s, ctx, tabs, masks, _ = _kernel_position(pos, PLAIN)
        dp, dt, team = int(s[S_DP]), int(s[S_DT]), int(ctx[C_TEAM])
        left = len(pos.game.hands[pos.to_move])
        if s[S_K] == 0:
            rem = int(s[S_REMPTS])
            gain, gain_t = guaranteed(s.copy(), team, tabs, masks, 1 << 20, int(s[S_LEADER]), 0)
            loss, loss_t = guaranteed(s.copy(), 15 & ~team, tabs, masks, 1 << 20, int(s[S_LEADER]), 0)
        else:
            rem = int(s[S_REMPTS]) + int(s[S_TP])
            gain = trick_bound(s.copy(), ctx, tabs, masks, 0, 1 << 20)
            gain_t = trick_bound(s.copy(), ctx, tabs, masks, 1, 1 << 20)
            loss = loss_t = 0  # inside a trick only the declaring side's bound is used
        if gain:
            assert threshold(pos, points=dp + gain, workspace=PLAIN), str(pos)
        if loss:
            assert not threshold(pos, points=dp + rem - loss + 1, workspace=PLAIN), str(pos)
        if gain_t:
            assert threshold(pos, tricks=dt + gain_t, workspace=PLAIN), str(pos)
        if loss_t:
            assert not threshold(pos, tricks=dt + left - loss_t + 1, workspace=PLAIN), str(pos)
        checked += bool(gain or loss)
    assert checked > 100


OVERTAKE_CASES = [  # (hands, called suit, declarer, plays): a defender leads, his partner's only trump is higher
    (["EO GO SU HA G8 G7 S9 S7", "EU GU HK H9 H8 EZ SA SK", "HO SO HZ EA EK E7 GK SZ", "HU H7 E9 E8 GA GZ G9 S8"], 1,
     0, "EO H8 HZ H7 GO H9 SO HU G7 SK GK GA S8 S7 SA SZ"),
    (["E7 E8 EU EO G9 GA HU HZ", "G7 GU H7 HO HA S9 SO SA", "E9 EK GO GK S8 SU SK SZ", "EZ EA G8 GZ H8 H9 HK S7"], 0,
     0, "EO H7 SU HK E7 G7 E9 EA EZ E8 HA EK SA S8 S7 HZ GA GU GK G8"),
]


@pytest.mark.parametrize("case", range(len(OVERTAKE_CASES)))
def test_partner_forced_to_overtake_the_trump_lead(case):
    """Positions where the defender on lead would draw trumps and cash a side card, but his partner holds a higher
    trump as his only one and must overtake the first trump lead, so the leader loses the lead. ``guaranteed``
    once counted the whole plan (found grading 10^5 games: a card's value differed from the position after it)."""
    from simkit.cards import parse_card, parse_hands

    hands, called, declarer, plays = OVERTAKE_CASES[case]
    pos = Position.opening(parse_hands(hands), Contract(RUFSPIEL, called), declarer, load_ruleset("sauspiel"))
    cards = [parse_card(c) for c in plays.split()]
    pos = pos.after(*cards)
    s, ctx, tabs, masks, _ = _kernel_position(pos, PLAIN)
    dp, rem, team = int(s[S_DP]), int(s[S_REMPTS]), int(ctx[C_TEAM])
    gain, _ = guaranteed(s.copy(), team, tabs, masks, 1 << 20, int(s[S_LEADER]), 0)
    loss, _ = guaranteed(s.copy(), 15 & ~team, tabs, masks, 1 << 20, int(s[S_LEADER]), 0)
    assert threshold(pos, points=dp + gain, workspace=PLAIN)
    assert not threshold(pos, points=dp + rem - loss + 1, workspace=PLAIN)
    before = Position(pos.rules, pos.contract, pos.declarer, pos.hands, pos.plays[:-1])
    last = pos.plays[-1]
    for objective in ("points", "win"):  # a card's value is the value of the position after it
        assert (solve(before, objective, workspace=Workspace(table_bits=16)).values[last]
                == solve(pos, objective, workspace=Workspace(table_bits=16)).value
                == solve(pos, objective, workspace=PLAIN).value)


@pytest.mark.parametrize("seed", range(3))
def test_dominated_cards_are_never_better(seed):
    """``reduce_dominated`` (the points measure inside the search) keeps, of every group of alike cards in one hand,
    one at least as good for the mover as each card it drops: the exact value of the position after each legal card
    (plain search) decides. Random and declared positions, every card of a trick."""
    from simkit.solver.search import legal_now, reduce_dominated

    dropped = 0
    positions = random_positions(4000 + seed, 120, (2, 3, 4, 5)) + declared_positions(50 + seed, 25, (3, 4))
    for pos in positions:
        if pos.is_over:
            continue
        s, ctx, tabs, masks, card_of = _kernel_position(pos, PLAIN)
        seat, legal = legal_now(s, ctx, masks)
        kept = reduce_dominated(s.copy(), seat, legal, ctx, tabs, masks)
        assert kept & ~legal == 0 and kept != 0
        if kept == legal:
            continue
        values = solve(pos, "points", workspace=PLAIN).values  # every legal card, exactly
        ids = {int(card_of[i]): i for i in range(32) if (legal >> i) & 1}
        maximise = pos.to_move in pos.team
        kept_values = [v for c, v in values.items() if (kept >> ids[c]) & 1]
        best_kept = max(kept_values) if maximise else min(kept_values)
        for c, v in values.items():
            if not (kept >> ids[c]) & 1:
                dropped += 1
                assert (v <= best_kept) if maximise else (v >= best_kept), (str(pos), c)
    assert dropped > 40


def test_two_tricks_is_exact():
    """``two_tricks`` (two cards a hand, nested loops) gives the exact measure still to come with an open window,
    and with any window a fail-soft answer: the exact value inside it, else a bound on the right side of it."""
    from simkit.solver.search import MEASURE_POINTS, MEASURE_TRICKS, two_tricks

    rng = random.Random(9)
    checked = 0
    for pos in random_positions(5000, 150, (2,)):
        while pos.game.current:  # back to the trick boundary
            pos = Position(pos.rules, pos.contract, pos.declarer, pos.hands, pos.plays[:-1], pos.doublings)
        s, ctx, tabs, masks, _ = _kernel_position(pos, PLAIN)
        dp, dt = int(s[S_DP]), int(s[S_DT])
        exact_points = solve(pos, "points", workspace=PLAIN).value - dp
        assert two_tricks(s.copy(), ctx, tabs, masks, MEASURE_POINTS, -1, 1 << 20)[0] == exact_points
        tricks = max(t for t in range(3) if threshold(pos, tricks=dt + t, workspace=PLAIN))
        assert two_tricks(s.copy(), ctx, tabs, masks, MEASURE_TRICKS, -1, 1 << 20)[0] == tricks
        for _ in range(3):
            a = rng.randrange(-1, 60)
            b = a + rng.randrange(1, 30)
            g, lines = two_tricks(s.copy(), ctx, tabs, masks, MEASURE_POINTS, a, b)
            assert 1 <= lines <= 16
            if a < g < b:
                assert g == exact_points
            elif g <= a:
                assert exact_points <= g
            else:
                assert exact_points >= g
        checked += 1
    assert checked == 150


@pytest.mark.parametrize("seed", range(3))
def test_trick_bounds_hold(seed):
    """Inside a trick decided for the declaring side, ``trick_bound`` is a promise too (checked like the bounds
    above), and it promises nothing inside a trick the defenders are sure to take."""
    decided = 0
    for pos in random_positions(3000 + seed, 300, (3, 4, 5, 6)):
        if not pos.game.current:
            continue
        s, ctx, tabs, masks, _ = _kernel_position(pos, PLAIN)
        dp, dt = int(s[S_DP]), int(s[S_DT])
        gain = trick_bound(s.copy(), ctx, tabs, masks, 0, 1 << 20)
        gain_t = trick_bound(s.copy(), ctx, tabs, masks, 1, 1 << 20)
        if not (gain or gain_t):
            continue
        decided += 1
        assert (int(ctx[C_TEAM]) >> int(s[S_BSEAT])) & 1, str(pos)
        assert threshold(pos, points=dp + gain, workspace=PLAIN)
        assert threshold(pos, tricks=dt + gain_t, workspace=PLAIN)
    assert decided > 8


@pytest.mark.parametrize("seed", range(2))
def test_regain_bound_holds(seed):
    """``regain_bound`` (a lone declarer off lead who wins the next trick whatever is led) is a promise too, on
    random play and on declared solos, and it promises something often enough to be tested."""
    promised = 0
    positions = random_positions(4000 + seed, 200, (3, 4, 5)) + declared_positions(43 + seed, 400, (3, 4, 5))
    for pos in positions:
        while pos.game.current:  # back to the trick boundary
            pos = Position(pos.rules, pos.contract, pos.declarer, pos.hands, pos.plays[:-1], pos.doublings)
        if pos.is_over or len(pos.team) != 1 or pos.to_move in pos.team:
            continue
        s, ctx, tabs, masks, _ = _kernel_position(pos, PLAIN)
        gain = regain_bound(s.copy(), ctx, tabs, masks, 0, 1 << 20, 0)
        gain_t = regain_bound(s.copy(), ctx, tabs, masks, 1, 1 << 20, 0)
        if gain_t:
            promised += 1
            assert gain_t >= 1
            assert threshold(pos, points=int(s[S_DP]) + gain, workspace=PLAIN), str(pos)
            assert threshold(pos, tricks=int(s[S_DT]) + gain_t, workspace=PLAIN), str(pos)
    assert promised > 25


def _trumps_drawn_positions(seed: int, n: int):
    """Trick boundaries where a defender leads against a lone declarer who holds a trump and a side card above
    every defender's card of its suit, the defenders holding no trump: games in which the declarer leads his top
    trump whenever he is on lead (so the defenders' trumps run out) and every other card is random."""
    from simkit.rules.tables import TRUMP
    from simkit.solver.search import safe_tops

    rng = random.Random(seed)
    out = []
    while len(out) < n:
        deck, hands = _random_deal(rng)
        kind = rng.choice([SOLO, WENZ, GEIER, FARBWENZ, FARBGEIER])
        contract = Contract(kind, rng.randrange(4) if kind in (SOLO, FARBWENZ, FARBGEIER) else None)
        declarer = rng.randrange(4)
        pos = Position.opening(hands, contract, declarer, load_ruleset().replace(deck=deck))
        while not pos.is_over:
            s, ctx, tabs, masks, card_of = _kernel_position(pos, PLAIN)
            tm = int(masks[TRUMP])
            defenders = 0
            for seat in range(4):
                if seat != declarer:
                    defenders |= int(s[seat])
            mine = int(s[declarer])
            if pos.to_move != declarer and not pos.game.current and not defenders & tm and mine & tm:
                if safe_tops(s, mine, 15 & ~(1 << declarer), defenders, tm, masks):
                    out.append(pos)
                    break
            legal = pos.legal_cards()
            if pos.to_move == declarer and not pos.game.current and mine & tm:
                pos = pos.after(int(card_of[(mine & tm).bit_length() - 1]))  # his top trump
            else:
                pos = pos.after(rng.choice(legal))
    return out


def test_sure_side_cards_of_a_lone_declarer_off_lead():
    """Off lead, with the defenders out of trumps, a lone declarer holding a trump takes a trick with every side
    card above the defenders' cards of its suit (he ruffs or wins his way onto lead before he would have to throw
    one): ``guaranteed`` counts them, and the promise holds."""
    from simkit.rules.tables import TRUMP
    from simkit.solver.search import mask_points

    beyond_trumps = 0
    for pos in _trumps_drawn_positions(7, 60):
        s, ctx, tabs, masks, _ = _kernel_position(pos, PLAIN)
        team, leader = int(ctx[C_TEAM]), int(s[S_LEADER])
        gain, gain_t = guaranteed(s.copy(), team, tabs, masks, 1 << 20, leader, 0)
        assert threshold(pos, points=int(s[S_DP]) + gain, workspace=PLAIN), str(pos)
        assert threshold(pos, tricks=int(s[S_DT]) + gain_t, workspace=PLAIN), str(pos)
        trumps = int(s[pos.declarer]) & int(masks[TRUMP])
        beyond_trumps += gain_t > bin(trumps).count("1") and gain >= mask_points(trumps, tabs)
    assert beyond_trumps == 60


def test_trump_survivors_matches_brute_force():
    """``trump_survivors``: the opposing trumps beat at most a maximum matching of a player's trumps to higher
    opposing ones (found here by trying every subset), and he keeps the points of the cheapest of the rest."""
    from itertools import combinations

    from simkit.rules.tables import TRUMP
    from simkit.solver.search import T_EFF, T_POINTS, trump_survivors
    from simkit.solver.tables import solver_tables

    st = solver_tables(load_ruleset())
    tabs = st.tabs[0]  # a Rufspiel: the trumps are ids 18..31
    trumps = list(range(18, 32))
    assert all(tabs[T_EFF, c] == TRUMP for c in trumps)
    rng = random.Random(5)

    def beatable_by_matching(mine, theirs):
        for size in range(len(mine), -1, -1):
            for subset in combinations(mine, size):
                # Hall's condition on sorted lists: the k-th strongest of the subset needs k higher opposing trumps
                if all(sum(o > t for o in theirs) >= i + 1 for i, t in enumerate(sorted(subset, reverse=True))):
                    return size
        return 0

    for _ in range(300):
        cards = rng.sample(trumps, rng.randint(1, 9))
        cut = rng.randint(0, len(cards))
        mine, theirs = cards[:cut], cards[cut:]
        m = beatable_by_matching(mine, theirs)
        pts, tricks = trump_survivors(sum(1 << c for c in mine), sum(1 << c for c in theirs), tabs)
        assert tricks == len(mine) - m
        sure = [c for c in mine if all(c > o for o in theirs)]
        rest = sorted((int(tabs[T_POINTS, c]) for c in mine if c not in sure))[:len(mine) - m - len(sure)]
        assert pts == sum(int(tabs[T_POINTS, c]) for c in sure) + sum(rest)
