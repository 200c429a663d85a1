"""The Parquet schema of a Bavarian results dataset (documented for users in docs/schema.md).

One row per deal. ``columns_from_games`` turns the column dict of ``simkit.engine.game.play_games`` into a
pyarrow Table with the exact names and types below; nothing else in simkit decides column names or types.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa

from simkit.cards import SUIT_NAMES
from simkit.rules.contracts import BETTEL, KIND_NAMES
from simkit.sim import arrow

#: contract column values; index = kind + 1 (kind -1 is a passed deal)
CONTRACT_VALUES = ("pass",) + KIND_NAMES
SUIT_VALUES = SUIT_NAMES

BASE_FIELDS = [
    pa.field("deal_id", pa.uint64(), nullable=False),
    pa.field("contract", arrow.DICT_STRING, nullable=False),
    pa.field("tout", pa.bool_(), nullable=False),
    pa.field("suit", arrow.DICT_STRING, nullable=True),
    pa.field("declarer", pa.int8(), nullable=False),
    pa.field("partner", pa.int8(), nullable=False),
    pa.field("doubling", pa.uint8(), nullable=False),
    pa.field("declarer_points", pa.uint8(), nullable=False),
    pa.field("declarer_tricks", pa.uint8(), nullable=False),
    pa.field("won", pa.bool_(), nullable=False),
    pa.field("schneider", pa.bool_(), nullable=False),
    pa.field("schwarz", pa.bool_(), nullable=False),
    pa.field("laufende", pa.uint8(), nullable=False),
    pa.field("laufende_mit", pa.bool_(), nullable=False),
    *[pa.field(f"payout_{s}", pa.int32(), nullable=False) for s in range(4)],
    pa.field("impossible", pa.bool_(), nullable=False),
]
#: who said Kontra and Re (-1: nobody); with ``--store-bids`` and with ``--store-play`` (a replay record names them)
DOUBLING_FIELDS = [
    pa.field("kontra_seat", pa.int8(), nullable=False),
    pa.field("re_seat", pa.int8(), nullable=False),
]
#: ``--store-bids``: the auction and the doublings (opt-in: they add 37% to the file and 3% to a run's time; measured)
BID_FIELDS = [
    *[pa.field(f"bid_{s}", pa.int16(), nullable=False) for s in range(4)],
    *DOUBLING_FIELDS,
]
#: the club rules (RULES.md 4, docs/club-rules.md): who knocked (a bit per seat), when the ruleset has ``klopfen``
KLOPFEN_FIELDS = [pa.field("knocked", pa.uint8(), nullable=False)]
#: a Ramsch's Durchmarsch and its players without a trick, when the ruleset has ``all_pass = "ramsch"``
RAMSCH_FIELDS = [
    pa.field("durchmarsch", pa.bool_(), nullable=False),
    pa.field("jungfrauen", pa.uint8(), nullable=False),
]
HAND_FIELDS = [pa.field(f"hand_{s}", pa.uint32(), nullable=False) for s in range(4)]
#: ``--dd``: the double-dummy value of the opening position of the contract played (null for passed deals)
DD_FIELDS = [
    pa.field("dd_points", pa.uint8(), nullable=True),
    pa.field("dd_won", pa.bool_(), nullable=True),
]

#: runs in sessions (``--sessions``): the session and the player at each seat (the deal rotates); with a stock
#: (``all_pass = "stock"``) the stock before and after the deal, and the payouts are each seat's whole change
SESSION_FIELDS = [
    pa.field("session", pa.uint32(), nullable=False),
    *[pa.field(f"player_{s}", pa.uint8(), nullable=False) for s in range(4)],
]
STOCK_FIELDS = [
    pa.field("stock_before", pa.int64(), nullable=False),
    pa.field("stock_after", pa.int64(), nullable=False),
]


def play_type(hand_size: int) -> pa.DataType:
    """``--store-play``: the type of the ``play`` column, every card of the deal in play order (4 * hand size)."""
    return pa.list_(pa.field("element", pa.uint8(), nullable=False), 4 * hand_size)


def schema(store_hands: bool, metadata: dict[str, str] | None = None, store_bids: bool = False,
           dd: bool = False, store_play: bool = False, hand_size: int = 8, klopfen: bool = False,
           ramsch: bool = False, sessions: bool = False, stock: bool = False) -> pa.Schema:
    """The schema of a run's files; ``klopfen`` and ``ramsch`` add the club rules' columns (written only when the
    ruleset has Klopfen or plays Ramsch, so every other run's files are as before), ``sessions`` the session and
    player columns, ``stock`` the stock's."""
    fields = (BASE_FIELDS + (KLOPFEN_FIELDS if klopfen else []) + (RAMSCH_FIELDS if ramsch else [])
              + (SESSION_FIELDS if sessions else []) + (STOCK_FIELDS if stock else [])
              + (BID_FIELDS if store_bids else DOUBLING_FIELDS if store_play else [])
              + (HAND_FIELDS if store_hands else []) + (DD_FIELDS if dd else [])
              + ([pa.field("play", play_type(hand_size), nullable=True)] if store_play else []))
    return pa.schema(fields, metadata=metadata)


def columns_from_games(g: dict[str, np.ndarray], schema_: pa.Schema) -> pa.Table:
    """A pyarrow Table of ``schema_`` (see :func:`schema`) from the columns of ``play_games``."""
    kind = np.asarray(g["kind"], np.int8)
    suit = np.asarray(g["suit"], np.int8)
    n = len(kind)
    cols = {
        "contract": arrow.dictionary(kind + 1, CONTRACT_VALUES),
        "suit": arrow.dictionary(suit, SUIT_VALUES, null=(kind < 0) | (suit < 0)),  # Wenz and Geier: no suit
        "doubling": g["doublings"],
        "impossible": g.get("impossible", np.zeros(n, np.bool_)),
    }
    if "dd_points" in g:  # null where the deal was passed or a Ramsch; dd_points also for a Bettel (no points)
        unsolved = ~np.asarray(g["dd_solved"], np.bool_)
        cols["dd_points"] = arrow.column(g["dd_points"], pa.uint8(), null=unsolved | (kind == BETTEL))
        cols["dd_won"] = arrow.column(g["dd_won"], pa.bool_(), null=unsolved)
    if "play" in schema_.names:  # the kernel's trace of the cards played; null where nothing was played
        cols["play"] = play_column(g["trace_played"], kind < 0, schema_.field("play").type)
    per_seat = {"payout": "payouts", "bid": "bids", "hand": "hands", "player": "players"}  # column prefix -> (n, 4) array
    for f in schema_:
        if f.name in cols:
            values = cols[f.name]
        elif f.name.split("_")[0] in per_seat and f.name[-1].isdigit():
            values = g[per_seat[f.name.split("_")[0]]][:, int(f.name[-1])]
        else:
            values = g[f.name]
        cols[f.name] = values if isinstance(values, pa.Array) else arrow.column(values, f.type)
    return arrow.table(cols, schema_)


def play_column(played: np.ndarray, null: np.ndarray, type_: pa.DataType) -> pa.FixedSizeListArray:
    """The ``play`` column from ``trace_played`` (int8[n, 4 * hand size], card indices in play order)."""
    played = np.asarray(played)
    if played.shape[1] != type_.list_size:
        raise ValueError(f"trace of {played.shape[1]} cards for a play column of {type_.list_size}")
    values = arrow.column(played.reshape(-1), pa.uint8())  # card indices 0..31: int8 and uint8 alike
    null = np.asarray(null, np.bool_)
    mask = arrow.column(null, pa.bool_()) if null.any() else None
    return pa.FixedSizeListArray.from_arrays(values, type=type_, mask=mask)
