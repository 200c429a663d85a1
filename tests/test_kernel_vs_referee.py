"""The Numba kernel against the plain-Python referee: every decision of many seeded random games.

At every decision the kernel's legal set must equal the referee's; at the end every result field (points,
tricks, partner, Laufende mit/ohne, Schneider, Schwarz, won, price, payouts) must be identical. Each contract type
and deck gets 10^5 games here (with Touts and random Kontra/Re levels mixed in); `pytest -m slow` runs 10^7.
"""

import pytest

from simkit.verify import check_random_games

KINDS = ["rufspiel", "solo", "wenz", "geier", "farbwenz", "farbgeier"]
CI_GAMES = 100_000


@pytest.mark.parametrize("deck", ["long", "short"])
@pytest.mark.parametrize("kind", KINDS)
def test_kernel_agrees_with_referee(kind, deck):
    seed = 1000 + KINDS.index(kind) * 10 + (deck == "short")
    report = check_random_games(kind, CI_GAMES, seed, deck=deck)
    assert report.mismatches == []
    # Rufspiel rows that nobody could call are not played; everything else is.
    assert report.games >= (0.9 if kind == "rufspiel" else 1.0) * CI_GAMES
    assert report.decisions == report.games * (32 if deck == "long" else 24)
    # the situations the rule book singles out did occur in this sample
    for situation in ("60-60", "laufende ohne paid", "schwarz"):
        assert report.seen.get(situation, 0) > 0, situation
    if kind == "rufspiel":
        assert report.seen.get("called ace forced", 0) > 0
        assert report.seen.get("called ace in the last trick", 0) > 0
        if deck == "long":  # with 6 cards a hand, 4 of the called suit is impossible
            assert report.seen.get("running away", 0) > 0
    if kind != "rufspiel":
        assert report.seen.get("tout lost in the last trick", 0) > 0


@pytest.mark.slow
@pytest.mark.parametrize("deck", ["long", "short"])
@pytest.mark.parametrize("kind", KINDS)
def test_kernel_agrees_with_referee_bulk(kind, deck):
    """10^7 games in all (12 contract/deck pairs); about an hour on two cores."""
    seed = 5000 + KINDS.index(kind) * 10 + (deck == "short")
    report = check_random_games(kind, 10_000_000 // 12 + 1, seed, deck=deck)
    assert report.mismatches == []
