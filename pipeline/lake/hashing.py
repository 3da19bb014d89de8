"""Stable 64-bit hashes (FNV-1a) for deduplication keys kept in the lake.

Library hash functions (polars, DuckDB) may change between versions, and these
keys outlive any version: they are computed here, over Arrow string buffers
and fixed-width byte rows, by a compiled kernel.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from numba import njit

_OFFSET = np.uint64(0xCBF29CE484222325)
_PRIME = np.uint64(0x100000001B3)


@njit(cache=True, nogil=True)
def _fnv_strings(data: np.ndarray, offsets: np.ndarray, out: np.ndarray) -> None:
    for i in range(out.shape[0]):
        h = _OFFSET
        for j in range(offsets[i], offsets[i + 1]):
            h = (h ^ np.uint64(data[j])) * _PRIME
        out[i] = h


@njit(cache=True, nogil=True)
def _fnv_rows(rows: np.ndarray, out: np.ndarray) -> None:
    for i in range(rows.shape[0]):
        h = _OFFSET
        for j in range(rows.shape[1]):
            h = (h ^ np.uint64(rows[i, j])) * _PRIME
        out[i] = h


@njit(cache=True, nogil=True)
def _fnv_joined(datas: tuple, offsets: tuple, sep: np.ndarray, out: np.ndarray) -> None:
    for i in range(out.shape[0]):
        h = _OFFSET
        for j in range(len(datas)):
            if j:
                for c in sep:
                    h = (h ^ np.uint64(c)) * _PRIME
            data, offset = datas[j], offsets[j]
            for k in range(offset[i], offset[i + 1]):
                h = (h ^ np.uint64(data[k])) * _PRIME
        out[i] = h


def _buffers(values: pa.Array | pa.ChunkedArray) -> tuple[np.ndarray, np.ndarray]:
    """A string column's UTF-8 bytes and offsets (nulls as empty strings)."""
    arr = pc.fill_null(values, "")
    arr = arr.combine_chunks() if isinstance(arr, pa.ChunkedArray) else arr
    arr = arr.cast(pa.large_string())
    _, offsets_buf, data_buf = arr.buffers()
    offsets = np.frombuffer(offsets_buf, dtype=np.int64)[arr.offset : arr.offset + len(arr) + 1]
    data = np.frombuffer(data_buf, dtype=np.uint8) if data_buf is not None else np.zeros(0, np.uint8)
    return data, offsets


def hash_strings(values: pa.Array | pa.ChunkedArray) -> np.ndarray:
    """FNV-1a of each string's UTF-8 bytes (nulls hash as empty strings)."""
    data, offsets = _buffers(values)
    out = np.empty(offsets.size - 1, dtype=np.uint64)
    _fnv_strings(data, offsets, out)
    return out


def hash_joined(columns: list[pa.Array], sep: str) -> np.ndarray:
    """:func:`hash_strings` of the columns' strings joined by ``sep``, without building the joined strings."""
    parts = [_buffers(c) for c in columns]
    out = np.empty(len(columns[0]), dtype=np.uint64)
    _fnv_joined(tuple(d for d, _ in parts), tuple(o for _, o in parts), np.frombuffer(sep.encode(), np.uint8), out)
    return out


def hash_rows(rows: np.ndarray) -> np.ndarray:
    """FNV-1a of each row of a 2-D ``uint8`` array."""
    out = np.empty(rows.shape[0], dtype=np.uint64)
    _fnv_rows(np.ascontiguousarray(rows, dtype=np.uint8), out)
    return out
