"""The Stock (RULES.md 4.4, docs/club-rules.md "Stock"): settle a session's rows in deal order.

The stock is a running amount outside the four players. Per row, in deal order:

* a throw-in (every seat passed): every seat pays the stock price into it, x 2^knocks when ``[stock] doubling`` is
  ``"games-and-stock"`` (``"games"``: knocks double only games);
* a Rufspiel won: the declarer and his partner each take half the stock, and it is empty;
* a Rufspiel lost: the declarer and his partner each pay half the stock's amount into it (it doubles);
* anything else (a solo, Bettel, Sie, Ramsch, an impossible forced deal) leaves it alone.

A Rufspiel settles the stock as it stands (knocks do not double it). Each seat's payout becomes his whole change,
the game plus his share of the stock, so on every row ``sum(payouts) + stock_after - stock_before == 0``. The
stock starts empty at the first deal of every session. Every payment into it comes from four seats or two equal
halves, so a stock that starts empty stays even and its halves are whole.

This is written from the rule book, independently of the referee's ``settle_stock`` (simkit/reference.py), so that
the two can check each other.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from simkit.engine.jitcache import announce, files, stamp_module
from simkit.rules.contracts import RUFSPIEL

DEPENDENCIES = files("sim/stock", "rules/contracts")

#: the largest stock the kernel carries (a lost Rufspiel doubles it: past this the next doubling could overflow)
STOCK_LIMIT = 2**62
_INT32 = 2**31


class StockError(ValueError):
    """Rows that cannot be settled: bad shapes or seats, or amounts that overflow the columns."""


@njit(cache=True)
def _settle(kind, passed, declarer, partner, won, knocked, payouts, first, stock0, price, knocks_double, carry):
    """The stock through ``n`` rows: (stock before, stock after, whole changes int64[n, 4], status). ``carry``
    False: every row starts with ``stock0`` (deals settled alone).

    status -1: settled; r >= 0: row r overflows (the stock past STOCK_LIMIT or a payout past int32)."""
    n = kind.shape[0]
    before = np.empty(n, np.int64)
    after = np.empty(n, np.int64)
    out = np.empty((n, 4), np.int64)
    stock = np.int64(stock0)
    for r in range(n):
        if not carry:
            stock = np.int64(stock0)
        if first[r]:  # a session starts with an empty stock
            stock = 0
        before[r] = stock
        for s in range(4):
            out[r, s] = payouts[r, s]
        if passed[r]:
            pay = np.int64(price)
            if knocks_double:
                k = knocked[r]
                while k:  # x 2 per knock (a bit per seat)
                    if k & 1:
                        pay *= 2
                    k >>= 1
            for s in range(4):
                out[r, s] -= pay
            stock += 4 * pay
        elif kind[r] == RUFSPIEL and stock > 0:
            half = stock // 2
            d = declarer[r]
            p = partner[r]
            if won[r]:
                out[r, d] += half
                out[r, p] += half
                stock -= 2 * half
            else:
                out[r, d] -= half
                out[r, p] -= half
                stock += 2 * half
        after[r] = stock
        if stock > STOCK_LIMIT:
            return before, after, out, r
        for s in range(4):
            if out[r, s] >= _INT32 or out[r, s] < -_INT32:
                return before, after, out, r
    return before, after, out, -1


def settle_rows(kind, declarer, partner, won, knocked, payouts, first, rules, *, impossible=None, stock: int = 0,
                carry: bool = True) -> dict[str, np.ndarray]:
    """Settle the stock through rows in deal order; return ``stock_before``, ``stock_after`` (int64) and
    ``payouts`` (int32[n, 4], each seat's whole change).

    ``kind`` int (-1: passed), ``declarer``/``partner`` seats (-1 where none), ``won`` bool, ``knocked`` the bit
    per seat that knocked (None: nobody), ``payouts`` the games' payouts [n, 4], ``first`` bool: the row starts a
    session (the stock is emptied before it), ``rules`` the ruleset (``stock_price``, ``stock.doubling``),
    ``impossible``: forced deals that were not played (not throw-ins), ``stock``: the stock before the first row
    when it does not start a session (a session continued across chunks). ``carry`` False: the rows are
    independent deals that each start with ``stock`` (an evaluation's, simkit.evaluate), nothing carries.
    """
    kind = np.ascontiguousarray(kind, np.int8)
    n = len(kind)
    payouts = np.ascontiguousarray(payouts, np.int64)
    if payouts.shape != (n, 4):
        raise StockError(f"payouts must be [{n}, 4] for {n} rows, not {list(payouts.shape)}")
    if not 0 <= stock <= STOCK_LIMIT:
        raise StockError(f"the stock must be between 0 and 2^62, not {stock}")
    cols = {"declarer": declarer, "partner": partner, "won": won, "first": first}
    for name, v in cols.items():
        if np.shape(v) != (n,):
            raise StockError(f"{name} must hold one value per row ({n}), not shape {np.shape(v)}")
    declarer = np.ascontiguousarray(declarer, np.int8)
    partner = np.ascontiguousarray(partner, np.int8)
    ruf = kind == RUFSPIEL
    bad = ruf & ((declarer < 0) | (declarer > 3) | (partner < 0) | (partner > 3) | (declarer == partner))
    if bad.any():
        r = int(np.flatnonzero(bad)[0])
        raise StockError(f"row {r}: a Rufspiel needs a declarer and a partner, two seats 0..3 "
                         f"(declarer {declarer[r]}, partner {partner[r]})")
    passed = kind < 0
    if impossible is not None:
        passed &= ~np.asarray(impossible, np.bool_)
    knocked = np.zeros(n, np.uint8) if knocked is None else np.ascontiguousarray(knocked, np.uint8)
    before, after, out, status = _settle(kind, passed, declarer, partner, np.ascontiguousarray(won, np.bool_),
                                         knocked, payouts, np.ascontiguousarray(first, np.bool_), np.int64(stock),
                                         np.int64(rules.stock_price), rules.stock.doubling == "games-and-stock",
                                         bool(carry))
    if status >= 0:
        raise StockError(f"row {status}: the stock ({after[status]:,}) or a payout outgrows its column (the stock "
                         f"doubled too often in one session: use shorter sessions)")
    return {"stock_before": before, "stock_after": after, "payouts": out.astype(np.int32)}


def session_columns(deal_id: np.ndarray, session_deals: int) -> dict[str, np.ndarray]:
    """``session`` (uint32), ``players`` (uint8[n, 4]: the player at each seat; the deal rotates, so seat ``k`` of
    deal ``j`` of a session is player ``(k + j) % 4``) and ``first`` (the row starts its session) of deal ids."""
    deal_id = np.asarray(deal_id, np.int64)
    j = deal_id % session_deals
    players = ((np.arange(4)[None, :] + j[:, None]) % 4).astype(np.uint8)
    return {"session": (deal_id // session_deals).astype(np.uint32), "players": players, "first": j == 0}


stamp_module(globals(), DEPENDENCIES)
announce(_settle, "the stock settlement")
