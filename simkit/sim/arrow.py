"""numpy columns to Arrow arrays and the Parquet writer settings of every results file simkit writes.

Why not ``pa.array(ndarray)``: its first call imports pandas (about 0.2 s in each worker process). Wrapping the
numpy buffers directly costs nothing and copies nothing but bit-packed booleans.

Writer settings (measured on 10^6 heuristic deals, see BENCHMARKS.md): encoding, not compression, is most of the
cost, so zstd runs at level 1; the increasing id columns are delta-encoded instead of dictionary-encoded (a
dictionary of unique values is wasted work); min/max statistics are kept only for the id columns, the only ones
whose row-group ranges let a reader skip anything (every row group holds every contract and seat). Together:
0.21 instead of 0.29 microseconds per deal and 6.9 instead of 9.2 bytes per deal.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pyarrow as pa

#: columns holding a row id that increases through a file: delta-encoded, with statistics
ID_COLUMNS = ("deal_id", "partie_id")


def column(values: np.ndarray, type_: pa.DataType, null: np.ndarray | None = None) -> pa.Array:
    """An Arrow array of the primitive ``type_`` over ``values``; ``null`` (bool mask) marks nulls."""
    n = len(values)
    validity = None
    null_count = 0
    if null is not None:
        null = np.asarray(null, np.bool_)
        null_count = int(null.sum())
        if null_count:
            validity = pa.py_buffer(np.packbits(~null, bitorder="little"))
    if pa.types.is_boolean(type_):
        data = np.packbits(np.asarray(values, np.bool_), bitorder="little")
    else:
        data = np.ascontiguousarray(values, dtype=type_.to_pandas_dtype())
    return pa.Array.from_buffers(type_, n, [validity, pa.py_buffer(data)], null_count=null_count)


def dictionary(codes: np.ndarray, labels: Sequence[str], null: np.ndarray | None = None) -> pa.DictionaryArray:
    """A dictionary-encoded string array: ``labels[codes[i]]``, null where ``null`` is set."""
    codes = np.asarray(codes, np.int8)
    if null is not None:
        codes = np.where(null, 0, codes).astype(np.int8)
    return pa.DictionaryArray.from_arrays(column(codes, pa.int8(), null), strings(tuple(labels)))


@functools.cache
def strings(labels: tuple[str, ...]) -> pa.StringArray:
    """A string array of ``labels`` (built from its buffers: ``pa.array`` of a list would import pandas too)."""
    data = [s.encode() for s in labels]
    offsets = np.cumsum([0] + [len(b) for b in data], dtype=np.int32)
    return pa.Array.from_buffers(pa.string(), len(labels), [None, pa.py_buffer(offsets), pa.py_buffer(b"".join(data))])


def table(columns: Mapping[str, pa.Array], schema: pa.Schema) -> pa.Table:
    return pa.Table.from_arrays([columns[f.name] for f in schema], schema=schema)


def write_options(schema: pa.Schema) -> dict[str, Any]:
    """Keyword arguments for ``pyarrow.parquet.ParquetWriter`` for a file of ``schema``."""
    ids = [f.name for f in schema if f.name in ID_COLUMNS]
    return dict(compression="zstd", compression_level=1,
                use_dictionary=[f.name for f in schema if f.name not in ids],
                column_encoding={c: "DELTA_BINARY_PACKED" for c in ids},
                write_statistics=ids or False)
