"""Compiled gathers from the engine's result arrays into the narrow columns the result tables store.

The engine works in int64 (some of its columns are strided views of one array); the tables keep int8
and int32. Gathering each pair's board facts and narrowing every column in one pass costs a fraction of
doing it column by column in numpy. The passes are serial: they run on the writer threads, beside the
scoring, where every core is already busy. The signatures accept any memory layout, so one compiled
version serves every rule set; compiled once and cached.
"""

from __future__ import annotations

import numpy as np
from numba import njit

PAIR_I8 = ("seat_a", "seat_b", "row_top", "row_middle", "row_bottom", "scoop")
PAIR_I32 = ("settled", "points")
BOARD_I8 = ("seat", "fantasyland_next", "scoops", "scooped", "winner_seat")
BOARD_I32 = ("points", "royalty_top", "royalty_middle", "royalty_bottom")

_PAIR_SIGNATURE = (
    "void(int64[:], int64[:], uint64[:], int64[:], int8[:, :], int8[:], int64[:], int64[:], "
    "uint64[:], int8[:, :], int32[:, :])"
)
_BOARD_SIGNATURE = (
    "void(int64[:], int64[:], int64[:, :], int64[:], int64[:], int64[:], int8[:], int8[:], int8[:, :], int32[:, :])"
)


@njit(_PAIR_SIGNATURE, cache=True, nogil=True)
def pair_columns(
    a: np.ndarray,
    b: np.ndarray,
    hand_key: np.ndarray,
    seat: np.ndarray,
    rows: np.ndarray,
    scoop: np.ndarray,
    kind: np.ndarray,
    points: np.ndarray,
    key_out: np.ndarray,
    i8: np.ndarray,
    i32: np.ndarray,
) -> None:
    """Fill ``key_out`` (P), ``i8`` (6, P) and ``i32`` (2, P) in the orders above."""
    for p in range(a.size):
        x, y = a[p], b[p]
        key_out[p] = hand_key[x]
        i8[0, p] = seat[x]
        i8[1, p] = seat[y]
        i8[2, p] = rows[p, 0]
        i8[3, p] = rows[p, 1]
        i8[4, p] = rows[p, 2]
        i8[5, p] = scoop[p]
        i32[0, p] = kind[p]
        i32[1, p] = points[p]


@njit(_BOARD_SIGNATURE, cache=True, nogil=True)
def board_columns(
    seat: np.ndarray,
    net: np.ndarray,
    royalties: np.ndarray,
    fantasyland_next: np.ndarray,
    a: np.ndarray,
    b: np.ndarray,
    scoop: np.ndarray,
    winner: np.ndarray,
    i8: np.ndarray,
    i32: np.ndarray,
) -> None:
    """Fill ``i8`` (5, N) and ``i32`` (4, N) in the orders above; scoops are counted from the pairs."""
    for i in range(seat.size):
        i8[0, i] = seat[i]
        i8[1, i] = fantasyland_next[i]
        i8[2, i] = 0
        i8[3, i] = 0
        i8[4, i] = winner[i]
        i32[0, i] = net[i]
        i32[1, i] = royalties[i, 0]
        i32[2, i] = royalties[i, 1]
        i32[3, i] = royalties[i, 2]
    for p in range(a.size):
        if scoop[p] > 0:
            i8[2, a[p]] += 1
            i8[3, b[p]] += 1
        elif scoop[p] < 0:
            i8[2, b[p]] += 1
            i8[3, a[p]] += 1
