"""The pair kernel: one pass over all pairs, in parallel, rule switches as scalars.

Each pair is settled by the first rule that applies (docs/scoring.md): a
natural (settled afterwards, see ``engine._natural_points``), a surrender, a
foul, or two valid boards compared row by row. Compiled once and cached.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

PLAYED, NATURAL, SURRENDER, FOUL, BOTH_FOULED = range(5)
"""How a pair was settled (the ``kind`` column)."""
BOTH, WINNER, REPLACE = range(3)
"""Royalty settlement codes."""


@njit(inline="always", cache=True)
def _sign(x: int) -> int:
    return (x > 0) - (x < 0)


@njit(parallel=True, cache=True, nogil=True)
def settle_pairs(
    a: np.ndarray,
    b: np.ndarray,
    strength: np.ndarray,
    tiebreak: np.ndarray,
    royalties: np.ndarray,
    fouled: np.ndarray,
    surrendered: np.ndarray,
    natural: np.ndarray,
    lowball: bool,
    use_tiebreak: bool,
    row_value: int,
    majority_bonus: int,
    majority_by_points: bool,
    scoop_bonus: int,
    scoop_no_row_lost: bool,
    scoop_multiplier: int,
    multiply_royalties: bool,
    settlement: int,
    foul_penalty: int,
    foul_pays_royalties: bool,
    surrender_cost: int,
    rows: np.ndarray,
    out: np.ndarray,
) -> None:
    """Fill ``rows`` (P, 3, zeroed by the caller) and ``out`` (8, P): kind, scoop, row points, bonus,
    royalty points (multiplied), foul points, surrender points and the base multiplier, each a contiguous row
    (the arithmetic on them afterwards is then over contiguous columns)."""
    for i in prange(a.shape[0]):
        x, y = a[i], b[i]
        kind = PLAYED
        scoop = row_pts = bonus = roy = foul = sur = 0
        mult = 1
        roy_mult = 1
        if natural[x] >= 0 or natural[y] >= 0:
            kind = NATURAL
        elif surrendered[x] or surrendered[y]:
            kind = SURRENDER
            sur = surrender_cost * (np.int64(surrendered[y]) - np.int64(surrendered[x]))
        elif fouled[x] and fouled[y]:
            kind = BOTH_FOULED
        elif fouled[x] or fouled[y]:
            kind = FOUL
            s = -1 if fouled[x] else 1
            for r in range(3):
                rows[i, r] = s
            scoop = s
            foul = s * foul_penalty
            if foul_pays_royalties:
                v = y if fouled[x] else x
                roy = s * (royalties[v, 0] + royalties[v, 1] + royalties[v, 2])
                if multiply_royalties:
                    roy_mult = scoop_multiplier
        else:
            won_x = won_y = 0
            for r in range(3):
                d = _sign(strength[x, r] - strength[y, r])
                if lowball and r == 1:
                    d = -d
                if d == 0 and use_tiebreak:
                    d = _sign(tiebreak[x, r] - tiebreak[y, r])
                rows[i, r] = d
                if d > 0:
                    won_x += 1
                    if settlement == REPLACE:
                        row_pts += royalties[x, r] if royalties[x, r] > 0 else row_value
                    elif settlement == WINNER:
                        roy += royalties[x, r]
                elif d < 0:
                    won_y += 1
                    if settlement == REPLACE:
                        row_pts -= royalties[y, r] if royalties[y, r] > 0 else row_value
                    elif settlement == WINNER:
                        roy -= royalties[y, r]
            if settlement != REPLACE:
                row_pts = row_value * (won_x - won_y)
            if settlement == BOTH:
                roy = (royalties[x, 0] + royalties[x, 1] + royalties[x, 2]) - (
                    royalties[y, 0] + royalties[y, 1] + royalties[y, 2]
                )
            if scoop_no_row_lost:  # won at least one row, lost none
                scoop = (won_x > 0 and won_y == 0) - (won_y > 0 and won_x == 0)
            else:
                scoop = (won_x == 3) - (won_y == 3)
            lead = won_x - won_y
            if majority_by_points:  # what each side collects before the majority bonus
                lead = row_pts + roy
            bonus = majority_bonus * _sign(lead) + scoop_bonus * scoop
            if scoop != 0:
                mult = scoop_multiplier
                if multiply_royalties:
                    roy_mult = scoop_multiplier
        out[0, i] = kind
        out[1, i] = scoop
        out[2, i] = row_pts
        out[3, i] = bonus
        out[4, i] = roy * roy_mult
        out[5, i] = foul
        out[6, i] = sur
        out[7, i] = mult


@njit(cache=True, nogil=True)
def net_points(a: np.ndarray, b: np.ndarray, points: np.ndarray, n: int) -> np.ndarray:
    """Per board, the sum of its pairs' points (A's as they are, B's negated): one pass, in integers."""
    out = np.zeros(n, dtype=np.int64)
    for p in range(a.shape[0]):
        out[a[p]] += points[p]
        out[b[p]] -= points[p]
    return out
