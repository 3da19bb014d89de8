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


_NULL = np.uint64(0x6A09E667F3BCC909)
"""Stands for a null value, so that a null and a zero or an empty string hash apart."""


def mix(h: np.ndarray) -> np.ndarray:
    """The splitmix64 finaliser: every input bit moves every output bit (uint64 arithmetic wraps)."""
    h = (h ^ (h >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    h = (h ^ (h >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return h ^ (h >> np.uint64(31))


def column_hash(values: pa.Array | pa.ChunkedArray) -> np.ndarray:
    """One uint64 per value of an Arrow column: integers, flags and times by value, strings by their bytes,
    fixed-size and variable lists of small integers by their items; nulls apart from every value."""
    arr = values.combine_chunks() if isinstance(values, pa.ChunkedArray) else values
    kind = arr.type
    if pa.types.is_dictionary(kind):
        arr, kind = arr.cast(kind.value_type), kind.value_type
    if pa.types.is_string(kind) or pa.types.is_large_string(kind):
        out = hash_strings(arr)
    elif pa.types.is_fixed_size_list(kind):
        out = hash_rows(arr.flatten().to_numpy(zero_copy_only=False).reshape(len(arr), kind.list_size))
    elif pa.types.is_list(kind) or pa.types.is_large_list(kind):
        filled = pc.fill_null(arr, pa.scalar([], kind))
        items = filled.flatten().to_numpy(zero_copy_only=False).astype(np.uint8)
        offsets = filled.offsets.to_numpy().astype(np.int64)
        out = np.empty(len(arr), dtype=np.uint64)
        _fnv_strings(items, offsets - offsets[0], out)
    else:
        out = pc.fill_null(arr.cast(pa.int64()), 0).to_numpy(zero_copy_only=False).view(np.uint64)
    if arr.null_count:
        out = np.where(arr.is_null().to_numpy(zero_copy_only=False), _NULL, out)
    return mix(out.astype(np.uint64))


def fold(columns: list[np.ndarray], n: int) -> np.ndarray:
    """One hash per row from the columns' hashes, in order (so that swapping two columns' values changes it)."""
    h = np.full(n, _OFFSET, dtype=np.uint64)
    for c in columns:
        h = mix(h * _PRIME ^ c)
    return h
