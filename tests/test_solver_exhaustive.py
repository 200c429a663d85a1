"""The fast double-dummy solver (simkit.solver) against the exhaustive oracle (tests/exhaustive.py).

Every position comes from a replay record that stops at the card to play (at a trick boundary or after 1-3 cards of
the current trick). For each position and each objective ("points", "win", "payout") the solver's values must equal
the oracle's plain minimax values card by card, its seat to move the referee's, and its best cards exactly the cards
with the optimal value for that side; ``threshold`` must answer "can the declaring side reach k points / t tricks"
as the oracle's values say.

The samples cover every contract kind (Farbwenz and Farbgeier included, which the default ruleset does not enable
for bidding but a replay record may carry), Touts, both decks, and the called-ace situations of the Rufspiel:
the first lead of the unsearched called suit forcing the ace, the ace that may not be discarded before the last
trick, running away (with ``run_away_min`` lowered so it happens with few cards), the ace kept to the last trick.
Each steered test counts its situation and asserts it occurred, so a generator that drifts fails instead of passing
vacuously. Payouts are also checked with a record tariff override, klopfen and Kontra/Re.

The oracle is slow by design: positions have at most 3 cards a hand here; ``-m slow`` runs 4-card positions and a
bigger bulk sample.
"""

import random
from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from exhaustive import (
    KINDS, after, best_cards, describe, exhaustive_values, game_from_record, holds_unsearched_ace, maximises, named,
    random_position, sample_positions,
)
from simkit.cards import SUIT_NAMES
from simkit.rules import load_ruleset
from simkit.solver import Position, solve, threshold

SOLVER_OBJECTIVES = ("points", "win", "payout")
SOLO_KINDS = ("solo", "wenz", "geier", "farbwenz", "farbgeier")
CALLABLE = ("eichel", "gras", "schellen")
TARIFF = {"base": 20, "schneider": 10, "schwarz": 10, "laufende": 10, "laufende_min": 3}
DECKS = ("long", "short")


# ----------------------------------------------------------------------------------------------- checking

def check(record, game, rules=None, *, thresholds=True) -> dict[str, dict[int, int]]:
    """Solver against oracle on one position; returns the oracle's values by objective (for the callers' counts).

    ``rules`` is what ``Position.from_record`` gets (a Ruleset, a preset name or None); the oracle's ``game`` must
    have been built with the same rules.
    """
    assert _same_state(game_from_record(record, rules), game), "the generator's record does not rebuild its game"
    pos = Position.from_record(record, rules)
    oracle = {o: exhaustive_values(game, o) for o in (*SOLVER_OBJECTIVES, "tricks")}
    where = describe(record, game)
    for o in SOLVER_OBJECTIVES:
        sol = solve(pos, o)
        want = oracle[o]
        assert sol.to_move == game.to_play, f"{o}: to_move {sol.to_move}, referee {game.to_play}\n{where}"
        assert sol.values == want, f"{o}: solver {named(sol.values)} != oracle {named(want)}\n{where}"
        best = list(sol.best)
        assert len(best) == len(set(best)) and set(best) == best_cards(game, want), \
            f"{o}: best {sorted(best)} but oracle values {named(want)}\n{where}"
        assert isinstance(sol.nodes, int) and sol.nodes >= 0
    if thresholds:
        pick = max if maximises(game) else min
        pv, tv = pick(oracle["points"].values()), pick(oracle["tricks"].values())
        for k in sorted({pv - 1, pv, pv + 1, 0, 61, 91, 120} & set(range(121))):
            assert threshold(pos, points=k) == (pv >= k), f"threshold(points={k}), oracle value {pv}\n{where}"
        for t in sorted({tv - 1, tv, tv + 1, 0, game.n_tricks} & set(range(game.n_tricks + 1))):
            assert threshold(pos, tricks=t) == (tv >= t), f"threshold(tricks={t}), oracle value {tv}\n{where}"
    return oracle


def _same_state(a, b) -> bool:
    return ([sorted(h) for h in a.hands], a.current, a.tricks, a.leader, a.searched, a.doublings, a.tariff,
            a.team) == ([sorted(h) for h in b.hands], b.current, b.tricks, b.leader, b.searched, b.doublings,
                        b.tariff, b.team)


def seats_played(game) -> set[int]:
    return {(game.leader + i) % 4 for i in range(len(game.current))}


def is_called(game, c) -> bool:
    return game.called_ace is not None and game.eff(c) == game.contract.suit


def suit_for(kind: str, i: int) -> str | None:
    if kind == "rufspiel":
        return CALLABLE[i % 3]
    if kind in ("wenz", "geier"):
        return None
    return SUIT_NAMES[i % 4]


# ------------------------------------------------------------------------------------------ bulk samples

@pytest.mark.parametrize("deck", DECKS)
@pytest.mark.parametrize("kind", KINDS)
def test_every_contract_kind(kind, deck):
    """Random positions of one kind and deck: every trump suit / called suit, Touts (solo types), 1-3 cards a
    hand, 0-3 cards of the current trick played, random Kontra/Re."""
    rng = random.Random(f"kind-{kind}-{deck}")
    seen = Counter()
    n = 24
    for i in range(n):
        tout = kind != "rufspiel" and i % 6 == 5
        record, game = random_position(rng, deck=deck, kind=kind, suit=suit_for(kind, i), tout=tout,
                                       cards_left=(1, 2, 2, 3)[i % 4], mid_trick=(i // 4) % 4, kontra="random",
                                       greedy=0.5 if tout else 0.0, strong_declarer=6 if tout else 0)
        oracle = check(record, game, None if i % 2 else game.rules)
        seen["mid", len(game.current)] += 1
        seen["left", len(game.hands[game.to_play])] += 1
        seen["suit", record["suit"]] += 1
        seen["tout"] += record["tout"]
        seen["choice"] += len(set(oracle["points"].values())) > 1
        seen["kontra"] += bool(record["kontra"])
    assert all(seen["mid", m] for m in range(4)), seen
    assert all(seen["left", k] for k in (1, 2, 3)), seen
    expected_suits = {"rufspiel": CALLABLE, "wenz": (None,), "geier": (None,)}.get(kind, SUIT_NAMES)
    assert all(seen["suit", s] for s in expected_suits), seen
    assert seen["tout"] == (0 if kind == "rufspiel" else n // 6)
    assert seen["choice"] >= 2, seen  # positions where the card played matters
    assert seen["kontra"] > 0


def test_touts():
    """Touts with a strong declarer and greedy play before the position, so some are still winnable: the win value
    must be 1 exactly when the declarer can take every remaining trick."""
    rng = random.Random("touts")
    seen = Counter()
    for i in range(48):
        deck = DECKS[i % 2]
        kind = SOLO_KINDS[i % 5]
        record, game = random_position(rng, deck=deck, kind=kind, suit=suit_for(kind, i), tout=True,
                                       cards_left=(2, 3)[i % 2], mid_trick=(i // 2) % 4, greedy=0.9,
                                       strong_declarer=6 if deck == "long" else 5, kontra="random")
        oracle = check(record, game, game.rules)
        wins = set(oracle["win"].values())
        seen["won"] += 1 in wins
        seen["lost"] += 0 in wins
        seen["decides"] += wins == {0, 1}  # the card chosen decides the Tout
    assert seen["won"] >= 10 and seen["lost"] >= 10 and seen["decides"] >= 1, seen


def test_tariff_override_and_doublings():
    """A record tariff (Rufspiel/solo base 20, Schneider/Schwarz/Laufende 10 from 3), klopfen and Kontra/Re,
    under the default preset and under ``sauspiel``: payout values must differ from the plain default ones."""
    rng = random.Random("tariff")
    seen = Counter()
    for i in range(36):
        kind = KINDS[i % 6]
        preset = ("sauspiel", None)[i % 2]
        tariff = TARIFF if i % 3 else None
        klopfen = rng.sample(range(4), rng.randrange(3))
        record, game = random_position(rng, deck=DECKS[i // 2 % 2], kind=kind, suit=suit_for(kind, i),
                                       tout=kind != "rufspiel" and i % 5 == 0, cards_left=(2, 2, 3)[i % 3],
                                       rules=preset, tariff=tariff, klopfen=klopfen, kontra="random", greedy=0.4)
        oracle = check(record, game, preset)
        plain = dict(record, klopfen=[], kontra=[])
        plain.pop("tariff", None)
        plain_payouts = exhaustive_values(game_from_record(plain), "payout")
        seen["differs"] += plain_payouts != oracle["payout"]
        seen["doublings", game.doublings + game.knocks] += 1  # Kontra/Re and Klopfen each double
        seen["tariff"] += tariff is not None
        seen.update(("abs", abs(v)) for v in oracle["payout"].values())
    assert seen["differs"] >= 30, seen
    assert all(seen["doublings", d] for d in (0, 1, 2, 3)), seen
    assert len([k for k in seen if isinstance(k, tuple) and k[0] == "abs"]) >= 8, seen


# ------------------------------------------------------------------------------- the called ace (Rufspiel)

def test_first_lead_of_the_called_suit_forces_the_ace():
    """The called suit has not been searched, the holder still has the ace, and the current trick was led with a
    called-suit card: the holder must play the ace (checked at the root, where it is his only legal card, and
    deeper in the tree when he plays later in the trick)."""
    rng = random.Random("forced ace")
    seen = Counter()

    def pred(g):
        return (holds_unsearched_ace(g) and g.current and is_called(g, g.current[0])
                and g.partner not in seats_played(g))

    for deck in DECKS:
        cards_left = 3 if deck == "long" else 2
        for record, game in sample_positions(rng, 14, pred, deck=deck, kind="rufspiel", cards_left=cards_left,
                                             mid_trick=None, unsearched=True, lead_called=True):
            oracle = check(record, game, game.rules)
            if game.to_play == game.partner:
                assert set(oracle["points"]) == {game.called_ace}
                seen["holder at root"] += 1
            else:
                seen["holder later"] += 1
    # Trick boundary: a seat other than the holder may lead the unsearched called suit (the ace is forced inside
    # the tree).
    def pred_lead(g):
        return (holds_unsearched_ace(g) and not g.current and g.to_play != g.partner
                and any(is_called(g, c) for c in g.legal_cards()))

    for record, game in sample_positions(rng, 12, pred_lead, deck="long", kind="rufspiel", cards_left=3,
                                         mid_trick=0, unsearched=True):
        oracle = check(record, game, None)
        seen["called lead possible"] += any(is_called(game, c) for c in oracle["points"])
    assert seen["holder at root"] >= 5 and seen["holder later"] >= 5 and seen["called lead possible"] == 12, seen


def test_called_ace_not_discarded_before_the_last_trick():
    """The holder cannot follow a side suit or trump lead: with more than one card left he may not discard the
    unsearched called ace; in the last trick he may."""
    rng = random.Random("no discard")
    seen = Counter()

    def pred(g):
        if not (g.current and g.to_play == g.partner and holds_unsearched_ace(g)):
            return False
        led = g.eff(g.current[0])
        return led != g.contract.suit and not any(g.eff(c) == led for c in g.hands[g.partner])

    for deck in DECKS:
        for cards_left in (1, 2, 3):
            n = 5 if cards_left == 3 else 6
            for record, game in sample_positions(rng, n, pred, deck=deck, kind="rufspiel", cards_left=cards_left,
                                                 mid_trick=None, unsearched=True, greedy=0.3):
                oracle = check(record, game, game.rules)
                if cards_left == 1:
                    assert set(oracle["points"]) == {game.called_ace}
                    seen["last trick discard"] += 1
                else:
                    assert game.called_ace not in oracle["points"]
                    seen["kept"] += 1
    assert seen["last trick discard"] == 12 and seen["kept"] == 22, seen


def test_running_away():
    """run_away_min lowered to 2 or 3 so the holder may lead a low card of the called suit with few cards; the
    sample has holders leading with running away legal, and (with 3) holders who hold too few to run away."""
    seen = Counter()
    rng = random.Random("running away")
    # (run_away_min, deck, called-suit cards dealt to the holder): the first four can run away at the root, the
    # last two hold too few called cards to run away (ace + 1 < 3; ace + 2 < 4).
    configs = ((2, "long", 3), (3, "long", 3), (2, "short", 3), (3, "short", 3), (3, "long", 2), (4, "short", 3))
    for run_away_min, deck, holder_called in configs:
        rules = load_ruleset().replace(run_away_min=run_away_min)

        def pred(g):
            return not g.current and g.to_play == g.partner and holds_unsearched_ace(g) and \
                any(is_called(g, c) and c != g.called_ace for c in g.hands[g.partner])

        for record, game in sample_positions(rng, 6, pred, deck=deck, kind="rufspiel", cards_left=3, mid_trick=0,
                                             rules=rules, unsearched=True, holder_called=holder_called, greedy=0.5):
            oracle = check(record, game, rules)
            n_called = sum(is_called(game, c) for c in game.hands[game.partner])
            runs = [c for c in oracle["points"] if is_called(game, c) and c != game.called_ace]
            assert bool(runs) == (n_called >= run_away_min), describe(record, game)
            seen["runs away", run_away_min] += bool(runs)
            seen["may not", run_away_min] += not runs
            # after a running-away lead the suit counts as searched: the ace is an ordinary card from the next trick
            for c in runs[:1]:
                g = after(game, c)
                while g.current:
                    g = after(g, g.legal_cards()[0])
                assert g.searched
    assert seen["runs away", 2] == 12 and seen["runs away", 3] >= 9, seen
    assert seen["may not", 3] >= 2 and seen["may not", 4] >= 4, seen


def test_ace_kept_to_the_last_trick():
    """The called suit is never searched and the holder keeps the ace into the last two tricks: somewhere in the
    tree he discards it in the last trick (legal there only)."""
    rng = random.Random("last trick")
    seen = Counter()

    def discards_in_last_trick(g) -> bool:
        """Is there a line where the holder plays the unsearched ace on a non-called lead in the last trick?"""
        if g.is_over:
            return False
        for c in g.legal_cards():
            if (c == g.called_ace and not g.searched and len(g.hands[g.to_play]) == 1 and g.current
                    and not is_called(g, g.current[0])):
                return True
            if discards_in_last_trick(after(g, c)):
                return True
        return False

    for deck in DECKS:
        for record, game in sample_positions(rng, 12, holds_unsearched_ace, deck=deck, kind="rufspiel", cards_left=2,
                                             mid_trick=None, unsearched=True, greedy=0.3):
            check(record, game, None if deck == "long" else game.rules)
            seen["held"] += 1
            seen["discarded last"] += discards_in_last_trick(game)
    assert seen["held"] == 24 and seen["discarded last"] >= 5, seen


# ------------------------------------------------------------------------------------------- thresholds

def test_threshold_sweep():
    """Every k from 0 to 120 and every t on a few small positions."""
    rng = random.Random("sweep")
    for i in range(8):
        kind = KINDS[i % 6]
        record, game = random_position(rng, deck=DECKS[i % 2], kind=kind, suit=suit_for(kind, i), cards_left=2,
                                       tout=False)
        pos = Position.from_record(record, game.rules)
        pick = max if maximises(game) else min
        pv = pick(exhaustive_values(game, "points").values())
        tv = pick(exhaustive_values(game, "tricks").values())
        assert [threshold(pos, points=k) for k in range(121)] == [pv >= k for k in range(121)], describe(record, game)
        assert [threshold(pos, tricks=t) for t in range(game.n_tricks + 1)] == \
            [tv >= t for t in range(game.n_tricks + 1)], describe(record, game)


# ------------------------------------------------------------------------------------------ hypothesis

@settings(max_examples=60, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2 ** 32 - 1), kind=st.sampled_from(KINDS), deck=st.sampled_from(DECKS),
       cards_left=st.sampled_from([1, 2, 2, 3]), mid=st.integers(0, 3), tout=st.booleans(),
       tariff=st.sampled_from([None, TARIFF]), run_away_min=st.sampled_from([2, 3, 4]))
def test_hypothesis_positions(seed, kind, deck, cards_left, mid, tout, tariff, run_away_min):
    rules = load_ruleset().replace(run_away_min=run_away_min)
    record, game = random_position(random.Random(seed), deck=deck, kind=kind, tout=tout and kind != "rufspiel",
                                   cards_left=cards_left, mid_trick=mid, rules=rules, tariff=tariff, kontra="random",
                                   unsearched=kind == "rufspiel" and seed % 2 == 0,
                                   holder_called=3 if kind == "rufspiel" and seed % 3 == 0 else 0,
                                   greedy=0.5 if tout else 0.0, strong_declarer=5 if tout else 0)
    check(record, game, rules)


# ------------------------------------------------------------------------------------------------- slow

@pytest.mark.slow
@pytest.mark.parametrize("deck", DECKS)
@pytest.mark.parametrize("kind", KINDS)
def test_four_cards_a_hand(kind, deck):
    """4 cards a hand (up to ~331k lines for the oracle): a few positions per kind and deck."""
    rng = random.Random(f"four-{kind}-{deck}")
    for i in range(3):
        record, game = random_position(rng, deck=deck, kind=kind, suit=suit_for(kind, i), cards_left=4,
                                       mid_trick=(0, 2, 3)[i], tout=kind != "rufspiel" and i == 2,
                                       strong_declarer=6 if kind != "rufspiel" and i == 2 else 0,
                                       greedy=0.5, kontra="random", tariff=TARIFF if i == 1 else None,
                                       unsearched=kind == "rufspiel")
        check(record, game, game.rules, thresholds=i == 0)


@pytest.mark.slow
def test_bulk_three_cards():
    rng = random.Random("bulk")
    rules = load_ruleset().replace(run_away_min=2)
    seen = Counter()
    for i in range(600):
        kind = KINDS[i % 6]
        record, game = random_position(rng, deck=DECKS[i // 6 % 2], kind=kind, suit=suit_for(kind, i // 12),
                                       cards_left=3, mid_trick=None, tout=kind != "rufspiel" and i % 7 == 0,
                                       rules=rules if i % 2 else None, tariff=TARIFF if i % 3 == 0 else None,
                                       kontra="random", unsearched=kind == "rufspiel" and i % 4 < 2,
                                       holder_called=3 if kind == "rufspiel" and i % 4 == 0 else 0,
                                       greedy=0.5 if i % 5 == 0 else 0.0)
        check(record, game, game.rules)
        seen[kind] += 1
    assert len(seen) == 6
