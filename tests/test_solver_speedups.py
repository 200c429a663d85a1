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
from simkit.solver.search import C_TEAM, S_DP, S_DT, S_K, S_LEADER, S_REMPTS, S_TP, guaranteed, trick_bound

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


def random_positions(seed: int, n: int, cards_left: tuple[int, ...]):
    """Opening deals played at random down to ``cards_left`` cards a hand, some stopped inside a trick."""
    rng = random.Random(seed)
    out = []
    while len(out) < n:
        deck = rng.choice(["long", "short"])
        cards = cards_of(DECK_MASKS[deck])
        rng.shuffle(cards)
        hs = HAND_SIZE[deck]
        hands = [sum(1 << c for c in cards[i * hs:(i + 1) * hs]) for i in range(4)]
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



@pytest.mark.parametrize("seed", range(3))
def test_trick_bounds_hold(seed):
    """Inside a trick whose winner is decided, ``trick_bound`` is a promise too (checked like the bounds above)."""
    decided = 0
    for pos in random_positions(3000 + seed, 150, (3, 4, 5, 6)):
        if not pos.game.current:
            continue
        s, ctx, tabs, masks, _ = _kernel_position(pos, PLAIN)
        dp, dt, rem_all = int(s[S_DP]), int(s[S_DT]), int(s[S_REMPTS]) + int(s[S_TP])
        gain, loss = trick_bound(s.copy(), ctx, tabs, masks, 0, 1 << 20, 1 << 20)
        gain_t, loss_t = trick_bound(s.copy(), ctx, tabs, masks, 1, 1 << 20, 1 << 20)
        if not (gain or loss or gain_t or loss_t):
            continue
        decided += 1
        assert threshold(pos, points=dp + gain, workspace=PLAIN)
        assert not threshold(pos, points=dp + rem_all - loss + 1, workspace=PLAIN)
        left = len(pos.game.hands[pos.to_move])  # tricks still to finish, this one included
        assert threshold(pos, tricks=dt + gain_t, workspace=PLAIN)
        assert not threshold(pos, tricks=dt + left - loss_t + 1, workspace=PLAIN)
    assert decided > 8
