"""numpy columns to Arrow arrays and the Parquet writer settings of every results file simkit writes.

Why not ``pa.array(ndarray)``: its first call imports pandas (about 0.2 s in each worker process). Wrapping the
numpy buffers directly costs nothing and copies nothing but bit-packed booleans.

Writer settings (measured on 10^6 heuristic deals, see BENCHMARKS.md): encoding, not compression, is most of the
cost, so zstd runs at level 1; integer columns are delta-encoded (DELTA_BINARY_PACKED: no per-value hashing, 20%
faster than dictionary pages for these columns; bytes per deal 6.9 instead of 5.7), strings dictionary-encoded;
min/max statistics are kept only for the id columns, the only ones whose row-group ranges let a reader skip
anything (every row group holds every contract and seat). Writing a deal's row costs about 0.13 microseconds.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pyarrow as pa

#: the type of the string columns: int8 codes into a short list of labels (see :func:`dictionary`)
DICT_STRING = pa.dictionary(pa.int8(), pa.string())

#: columns holding a row id that increases through a file: they carry min/max statistics
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
    dtype = np.dtype(type_.to_pandas_dtype())
    values = np.asarray(values)
    if pa.types.is_boolean(type_):
        data = np.packbits(values.astype(np.bool_, copy=False), bitorder="little")
    elif values.dtype.kind in "iu" and values.dtype.itemsize == dtype.itemsize:  # e.g. int64 ids as uint64
        data = np.ascontiguousarray(values).view(dtype)
    else:
        data = np.ascontiguousarray(values, dtype=dtype)
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
    ints = [f.name for f in schema if pa.types.is_integer(f.type)]
    # lists of small integers (``play``: card indices 0..31) are dictionary-encoded by their leaf column: 5 bits a
    # value before compression, 19 bytes a long-deck deal against 29 plain (measured, 10^5 deals)
    lists = [f"{f.name}.list.element" for f in schema if pa.types.is_fixed_size_list(f.type)]
    return dict(compression="zstd", compression_level=1,
                use_dictionary=[f.name for f in schema if pa.types.is_dictionary(f.type)] + lists,
                column_encoding={c: "DELTA_BINARY_PACKED" for c in ints},
                write_statistics=[f.name for f in schema if f.name in ID_COLUMNS] or False)
