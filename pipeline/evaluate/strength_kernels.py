"""Compiled kernels: one table gather per row, parallel over rows.

Each kernel reads C-contiguous ``uint8`` card codes and the direct tables of
:mod:`pipeline.evaluate.lookup_tables`, passed as arguments rather than captured as
globals so the on-disk compilation cache stays valid whatever they hold. An
out-of-range code or an impossible rank pattern reads the INVALID slot; each
kernel returns how many rows did, and the caller raises. Compilation is cached
beside this file, so only the first run of a fresh install pays for it.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from ofc.pipeline.evaluate.lookup_tables import FLUSH_OFFSET, INVALID


@njit(inline="always", cache=True)
def row5(c0: np.uint8, c1: np.uint8, c2: np.uint8, c3: np.uint8, c4: np.uint8, table, digits) -> np.uint16:
    flush = (((c0 ^ c1) | (c0 ^ c2) | (c0 ^ c3) | (c0 ^ c4)) & 3) == 0
    k = digits[0, c0] + digits[1, c1] + digits[2, c2] + digits[3, c3] + digits[4, c4] + flush * FLUSH_OFFSET
    return table[min(k, table.shape[0] - 1)]


@njit(inline="always", cache=True)
def row3(c0: np.uint8, c1: np.uint8, c2: np.uint8, table, digits) -> np.uint16:
    return table[min(digits[0, c0] + digits[1, c1] + digits[2, c2], table.shape[0] - 1)]


@njit(parallel=True, cache=True, nogil=True)
def lookup5(cards: np.ndarray, table: np.ndarray, digits: np.ndarray, out: np.ndarray) -> int:
    """``out[i]`` = value of the 5-card row ``cards[i]`` in ``table``; returns the count of invalid rows."""
    bad = 0
    for i in prange(cards.shape[0]):
        v = row5(cards[i, 0], cards[i, 1], cards[i, 2], cards[i, 3], cards[i, 4], table, digits)
        out[i] = v
        bad += v == INVALID
    return bad


@njit(parallel=True, cache=True, nogil=True)
def lookup3(cards: np.ndarray, table: np.ndarray, digits: np.ndarray, out: np.ndarray) -> int:
    """``out[i]`` = value of the 3-card row ``cards[i]`` in ``table``; returns the count of invalid rows."""
    bad = 0
    for i in prange(cards.shape[0]):
        v = row3(cards[i, 0], cards[i, 1], cards[i, 2], table, digits)
        out[i] = v
        bad += v == INVALID
    return bad


@njit(parallel=True, cache=True, nogil=True)
def lookup_boards(
    boards: np.ndarray,
    table5: np.ndarray,
    digits5: np.ndarray,
    table3: np.ndarray,
    digits3: np.ndarray,
    out: np.ndarray,
) -> int:
    """Strengths of top, middle and bottom of (N, 13) boards into ``out`` (N, 3); returns invalid rows."""
    bad = 0
    for i in prange(boards.shape[0]):
        b = boards[i]
        top = row3(b[0], b[1], b[2], table3, digits3)
        mid = row5(b[3], b[4], b[5], b[6], b[7], table5, digits5)
        bot = row5(b[8], b[9], b[10], b[11], b[12], table5, digits5)
        out[i, 0] = top
        out[i, 1] = mid
        out[i, 2] = bot
        bad += (top == INVALID) + (mid == INVALID) + (bot == INVALID)
    return bad
