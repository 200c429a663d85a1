"""A big search as the teacher of the best-card weights (``simkit train best --teacher-worlds``).

The best-card weights (simkit.strategies.people.best) are fitted to each card's double-dummy loss in the one deal
that was really dealt: the right target on average, but one draw of the hidden cards per decision, so a noisy one.
Where pimc plays those weights' card unsearched (its first trick, and its leads while a hand is long:
docs/strategies.md), a search too dear for play can still teach: ``worlds`` worlds drawn as pimc draws them
(resampled by the people model's inference), each solved with no node limit for the exact card points, give each
legal card's mean card points for the seat's side, an average over many draws of the hidden cards. The weights are
then fitted to a mix of the two losses (``BestSettings.teacher_mix``).

Deterministic: pimc's draws come from the decision's random stream (simkit.analyze.advice.walk), so the same
game, weights and ``worlds`` give the same values in any process.
"""

from __future__ import annotations

import numpy as np

from simkit.engine.bits import popcount
from simkit.rules.contracts import BETTEL
from simkit.strategies import pimc
from simkit.strategies.api import I_KIND, I_TOUT


#: the teacher's candidate worlds per world (pimc's infer_candidates when the shipped weights were taught; pinned,
#: like lead_worlds=1, late_cards=0 and solve_order=0, so that a teacher cache stays valid when pimc's defaults move)
TEACHER_CANDIDATES = 16
#: the teacher's infer_floor (pimc's when the shipped weights were taught; pinned for the same reason)
TEACHER_FLOOR = 0.02


def teacher_config(rules, bid_w: np.ndarray, play_w: np.ndarray, worlds: int) -> np.ndarray:
    """pimc's config for teaching: its inference with these people weights, ``worlds`` worlds and no node limit,
    every decision searched (no best-card or people card unsearched), exact card points from the first trick on
    and the payout kept apart from them (``point_value`` 0), so that both can be read back from the sums."""
    spec = dict(worlds=worlds, node_budget=0, people_tricks=0, best_card=0, best_lead_cards=0, points_from=1,
                point_value=0, win_only_tricks=0, inference=1, infer_candidates=TEACHER_CANDIDATES, lead_worlds=1,
                late_cards=0, solve_order=0, infer_floor=TEACHER_FLOOR)
    config = pimc.DEFAULT_CONFIG.copy()
    for name, value in spec.items():
        config[pimc.CONFIG_NAMES.index(name)] = value
    from simkit.strategies import values

    return np.ascontiguousarray(pimc.with_people_weights(values.bind(config, rules), bid_w, play_w))


class SearchTeacher:
    """``teacher(hand, legal, seat, info)``: each legal card's loss in mean card points for the seat's side against
    the best card's, from a pimc search of ``worlds`` worlds (float64[32], NaN off the legal cards), or None
    where it does not teach (see :meth:`teaches`) or found no world."""

    def __init__(self, rules, bid_w: np.ndarray, play_w: np.ndarray, worlds: int, lead_cards: int):
        from simkit.engine.batch import tables_for

        self.tables = tables_for(rules)
        self.worlds = int(worlds)
        self.lead_cards = int(lead_cards)
        self.config = teacher_config(rules, bid_w, play_w, worlds)

    def teaches(self, trick: int, lead: bool, hand: int, info: np.ndarray) -> bool:
        """The decisions pimc plays by the best-card weights by default (its first trick, its leads with at least
        ``lead_cards`` in hand) in a classic contract that is no Tout (those are solved for points)."""
        if info[I_KIND] >= BETTEL or info[I_TOUT] != 0:
            return False
        return trick == 1 or (lead and popcount(np.int64(hand)) >= self.lead_cards)

    def __call__(self, hand: int, legal: int, seat: int, info: np.ndarray) -> np.ndarray | None:
        t = self.tables
        sums, solved = pimc.search_sums(np.int64(hand), np.int64(legal), np.int64(seat), info, t.strength,
                                        t.eff_suit, t.params, self.config)
        if solved == 0:
            return None
        scale = float(pimc.POINTS_SCALE)
        cards = [c for c in range(32) if legal >> c & 1]
        # each world's gain is payout * POINTS_SCALE + side points (< POINTS_SCALE summed over the worlds)
        points = sums[cards] - np.floor(sums[cards] / scale) * scale
        out = np.full(32, np.nan)
        out[cards] = (points.max() - points) / self.worlds  # resampled worlds' weights sum to ``worlds``
        return out
