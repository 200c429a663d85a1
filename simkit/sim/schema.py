"""The Parquet schema of a Bavarian results dataset (documented for users in docs/schema.md).

One row per deal. ``columns_from_games`` turns the column dict of ``simkit.engine.game.play_games`` into a
pyarrow Table with the exact names and types below; nothing else in simkit decides column names or types.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa

from simkit.cards import SUIT_NAMES
from simkit.rules.contracts import KIND_NAMES

#: contract column values; index = kind + 1 (kind -1 is a passed deal)
CONTRACT_VALUES = ("pass",) + KIND_NAMES
SUIT_VALUES = SUIT_NAMES

_dict_string = pa.dictionary(pa.int8(), pa.string())

BASE_FIELDS = [
    pa.field("deal_id", pa.uint64(), nullable=False),
    pa.field("contract", _dict_string, nullable=False),
    pa.field("tout", pa.bool_(), nullable=False),
    pa.field("suit", _dict_string, nullable=True),
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
    *[pa.field(f"bid_{s}", pa.int16(), nullable=False) for s in range(4)],
    pa.field("kontra_seat", pa.int8(), nullable=False),
    pa.field("re_seat", pa.int8(), nullable=False),
    pa.field("impossible", pa.bool_(), nullable=False),
]
HAND_FIELDS = [pa.field(f"hand_{s}", pa.uint32(), nullable=False) for s in range(4)]


def schema(store_hands: bool, metadata: dict[str, str] | None = None) -> pa.Schema:
    fields = BASE_FIELDS + (HAND_FIELDS if store_hands else [])
    return pa.schema(fields, metadata={k.encode(): v.encode() for k, v in (metadata or {}).items()})


def _dictionary(codes: np.ndarray, values: tuple[str, ...], null_code: int | None = None) -> pa.Array:
    """A dictionary array from integer codes; ``null_code`` marks nulls."""
    codes = np.asarray(codes, np.int8)
    mask = codes == null_code if null_code is not None else None
    return pa.DictionaryArray.from_arrays(
        pa.array(np.where(mask, 0, codes) if mask is not None else codes, pa.int8(), mask=mask),
        pa.array(values, pa.string()))


def columns_from_games(g: dict[str, np.ndarray], store_hands: bool, schema_: pa.Schema) -> pa.Table:
    """A pyarrow Table (exact schema) from the columns of ``play_games``."""
    kind = np.asarray(g["kind"], np.int8)
    suit = np.asarray(g["suit"], np.int8)
    cols = {
        "deal_id": pa.array(np.asarray(g["deal_id"], np.uint64)),
        "contract": _dictionary(kind + 1, CONTRACT_VALUES),
        "tout": pa.array(np.asarray(g["tout"], np.bool_)),
        "suit": _dictionary(np.where(kind < 0, -1, suit), SUIT_VALUES, null_code=-1),
        "declarer": pa.array(np.asarray(g["declarer"], np.int8)),
        "partner": pa.array(np.asarray(g["partner"], np.int8)),
        "doubling": pa.array(np.asarray(g["doublings"], np.uint8)),
        "declarer_points": pa.array(np.asarray(g["declarer_points"], np.uint8)),
        "declarer_tricks": pa.array(np.asarray(g["declarer_tricks"], np.uint8)),
        "won": pa.array(np.asarray(g["won"], np.bool_)),
        "schneider": pa.array(np.asarray(g["schneider"], np.bool_)),
        "schwarz": pa.array(np.asarray(g["schwarz"], np.bool_)),
        "laufende": pa.array(np.asarray(g["laufende"], np.uint8)),
        "laufende_mit": pa.array(np.asarray(g["laufende_mit"], np.bool_)),
    }
    payouts = np.asarray(g["payouts"], np.int32)
    bids = np.asarray(g["bids"], np.int16)
    for s in range(4):
        cols[f"payout_{s}"] = pa.array(np.ascontiguousarray(payouts[:, s]))
    for s in range(4):
        cols[f"bid_{s}"] = pa.array(np.ascontiguousarray(bids[:, s]))
    cols["kontra_seat"] = pa.array(np.asarray(g["kontra_seat"], np.int8))
    cols["re_seat"] = pa.array(np.asarray(g["re_seat"], np.int8))
    n = len(kind)
    cols["impossible"] = pa.array(np.asarray(g.get("impossible", np.zeros(n, np.bool_)), np.bool_))
    if store_hands:
        hands = np.asarray(g["hands"], np.uint32)
        for s in range(4):
            cols[f"hand_{s}"] = pa.array(np.ascontiguousarray(hands[:, s]))
    return pa.Table.from_pydict(cols, schema=schema_)
