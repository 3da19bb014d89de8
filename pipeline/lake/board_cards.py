"""A board's 13 cards as the lake stores them, 13 bytes (``schemas.lake.CARDS13``), and as readers take them.

Lakes of format 2 and before store the boards' cards as a list of 13 codes; every reader here takes both. A list
of 13 numbers cost 2.4 s to decode over 27 M boards where the bytes cost 0.1 s, and as much more to write.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa

from ofc.schemas.lake import CARDS13

__all__ = ["card_bytes", "card_codes", "card_matrix"]


def _one(column: pa.Array | pa.ChunkedArray) -> pa.Array:
    """One array; bytes of any binary type (polars reads them as large binary) as ``CARDS13``."""
    column = column.combine_chunks() if isinstance(column, pa.ChunkedArray) else column
    if pa.types.is_binary(column.type) or pa.types.is_large_binary(column.type):
        column = column.cast(CARDS13)
    return column


def card_matrix(column: pa.Array | pa.ChunkedArray) -> np.ndarray:
    """The cards as an (n, 13) ``uint8`` array, from bytes or from lists of 13 codes."""
    column = _one(column)
    n = len(column)
    if column.type == CARDS13:
        data = np.frombuffer(column.buffers()[1], dtype=np.uint8)
        return data[column.offset * 13 : (column.offset + n) * 13].reshape(n, 13)
    return column.flatten().to_numpy(zero_copy_only=False).astype(np.uint8, copy=False).reshape(n, 13)


def card_bytes(column: pa.Array | pa.ChunkedArray) -> pa.Array:
    """The cards as ``CARDS13``, as the lake writes them (no copy when they are already)."""
    column = _one(column)
    if column.type == CARDS13:
        return column
    matrix = np.ascontiguousarray(card_matrix(column))
    return pa.FixedSizeBinaryArray.from_buffers(CARDS13, len(column), [None, pa.py_buffer(matrix.tobytes())])


def card_codes(column: pa.Array | pa.ChunkedArray) -> pa.Array:
    """The cards as a list of 13 codes each, as queries and readers show them."""
    column = _one(column)
    if column.type != CARDS13:
        return column.cast(pa.list_(pa.uint8()))
    values = pa.array(card_matrix(column).reshape(-1))
    return pa.ListArray.from_arrays(pa.array(np.arange(0, 13 * len(column) + 1, 13, dtype=np.int32)), values)
