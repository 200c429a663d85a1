"""The run's stock settlement (simkit.sim.stock, a numba loop over a session's rows) against the referee's
(simkit.reference.settle_stock, plain Python from RULES.md 4.4): two independent writings of one rule, deal by
deal over random sessions."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from simkit.reference import GameResult, settle_stock
from simkit.rules import load_ruleset
from simkit.rules.contracts import KIND_NAMES
from simkit.sim.stock import settle_rows

RULES = {d: load_ruleset("sauspiel").replace(all_pass="stock", klopfen=True, stock={"doubling": d})
         for d in ("games-and-stock", "games")}


@st.composite
def deal_rows(draw):
    kind = draw(st.sampled_from([-1, -1, 0, 0, 0, 1, 2, 6]))  # throw-ins and Rufspiele most, a solo, a Wenz, a Bettel
    declarer = -1 if kind < 0 else draw(st.integers(0, 3))
    partner = -1 if kind != 0 else draw(st.integers(0, 3).filter(lambda s: s != declarer))
    won = kind >= 0 and draw(st.booleans())
    knocked = draw(st.integers(0, 15))
    price = 0 if kind < 0 else 20 * draw(st.integers(1, 8)) << bin(knocked).count("1")
    sign = 1 if won else -1
    if kind < 0:
        payouts = (0, 0, 0, 0)
    elif kind == 0:
        payouts = tuple(sign * price if s in (declarer, partner) else -sign * price for s in range(4))
    else:
        payouts = tuple(3 * sign * price if s == declarer else -sign * price for s in range(4))
    return kind, declarer, partner, won, knocked, payouts


def _result(kind, declarer, partner, won, knocked, payouts) -> GameResult | None:
    if kind < 0:
        return None
    return GameResult(contract=KIND_NAMES[kind], suit=None, tout=False, declarer=declarer,
                      partner=None if partner < 0 else partner, declarer_points=0, declarer_tricks=0, won=won,
                      schneider=False, schwarz=False, laufende=0, laufende_mit=False, laufende_paid=False,
                      doublings=0, price=0, payouts=payouts, knocks=bin(knocked).count("1"))


@settings(max_examples=200, deadline=None)
@given(rows=st.lists(deal_rows(), min_size=1, max_size=40), doubling=st.sampled_from(sorted(RULES)))
def test_a_session_settles_as_the_referee_settles_each_deal(rows, doubling):
    rules = RULES[doubling]
    cols = list(zip(*rows))
    first = np.zeros(len(rows), bool)
    first[0] = True
    got = settle_rows(np.array(cols[0]), np.array(cols[1]), np.array(cols[2]), np.array(cols[3]),
                      np.array(cols[4]), np.array(cols[5]), first, rules)
    stock = 0
    for i, row in enumerate(rows):
        assert int(got["stock_before"][i]) == stock
        changes, stock = settle_stock(rules, _result(*row), stock, bin(row[4]).count("1"))
        assert tuple(int(x) for x in got["payouts"][i]) == changes, f"deal {i} of {rows}"
        assert int(got["stock_after"][i]) == stock
