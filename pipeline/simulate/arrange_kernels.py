"""Compiled search kernels behind :mod:`pipeline.simulate.arrange`, parallel over hands.

Every kernel first evaluates each 3- and 5-card subset of a hand once (with
the evaluator's direct tables and row functions), then searches settings as
triples of subset indices, so a setting costs a few gathers from small
per-hand arrays. Subsets are listed in colex order over 17 positions: the
first ``C(k, 5)`` five-card subsets are exactly those of a hand's first ``k``
cards, so one table serves every hand size.

Rows are compared on a per-row *goodness* scale: the strength for top and
bottom, and for the middle either the strength or, on a 2-7 middle,
``N_LOW - 1 - lowball value`` (higher is better everywhere). The model tables
passed in are indexed by goodness.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from ofc.pipeline.evaluate.strength_kernels import row3, row5


@njit(inline="always", cache=True)
def _goodness(
    hand: np.ndarray,
    comb3: np.ndarray,
    comb5: np.ndarray,
    n3: int,
    n5: int,
    lowball: bool,
    n_low: int,
    table5: np.ndarray,
    low5: np.ndarray,
    digits5: np.ndarray,
    table3: np.ndarray,
    digits3: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Goodness of every 3-subset as a top, and of every 5-subset as a bottom and as a middle."""
    top = np.empty(n3, np.int64)
    for j in range(n3):
        c = comb3[j]
        top[j] = row3(hand[c[0]], hand[c[1]], hand[c[2]], table3, digits3)
    bottom = np.empty(n5, np.int64)
    middle = np.empty(n5, np.int64)
    for j in range(n5):
        c = comb5[j]
        a, b, d, e, f = hand[c[0]], hand[c[1]], hand[c[2]], hand[c[3]], hand[c[4]]
        bottom[j] = row5(a, b, d, e, f, table5, digits5)
        middle[j] = n_low - 1 - row5(a, b, d, e, f, low5, digits5) if lowball else bottom[j]
    return top, middle, bottom


@njit(inline="always", cache=True)
def _records(goodness: np.ndarray, row: int, additive, win, lose, royalty) -> np.ndarray:
    """Per subset, what the model says of it in ``row``: goodness, additive value, P(win), P(lose), royalty,
    side by side so a setting reads one cache line per row."""
    out = np.empty((goodness.shape[0], 5))
    for j in range(goodness.shape[0]):
        g = goodness[j]
        out[j, 0], out[j, 1], out[j, 2] = g, additive[row, g], win[row, g]
        out[j, 3], out[j, 4] = lose[row, g], royalty[row, g]
    return out


@njit(parallel=True, cache=True, nogil=True)
def best_classic(
    cards: np.ndarray,
    comb3: np.ndarray,
    comb5: np.ndarray,
    split_top: np.ndarray,
    split_first: np.ndarray,
    split_second: np.ndarray,
    table5: np.ndarray,
    low5: np.ndarray,
    digits5: np.ndarray,
    table3: np.ndarray,
    digits3: np.ndarray,
    additive: np.ndarray,
    win: np.ndarray,
    lose: np.ndarray,
    royalty: np.ndarray,
    lowball: bool,
    strict: bool,
    qualifier: int,
    n_low: int,
    one_per_board: bool,
    own_weight: float,
    majority: float,
    scoop: float,
    constant: float,
    best: np.ndarray,
    best_value: np.ndarray,
) -> None:
    """Best setting of each 13-card hand under the classic model: ``best[i]`` = (top, middle, bottom).

    A valid setting is worth ``sum(additive) + scoop * (P(scoop) - P(scooped)) + majority * (P(more rows) -
    P(fewer rows)) + own_weight * own royalties + constant``, the row outcomes taken as independent. On a 2-7
    middle the splits are the 72,072 ordered settings (first 5 the middle); otherwise each split into top and
    two fives is listed once (36,036) and the stronger five is the bottom, since the other way round fouls.
    Fouled settings are skipped; ``best[i]`` is -1 when every setting fouls.
    """
    n3, n5 = 286, 1287
    for i in prange(cards.shape[0]):
        gt, gm, gb = _goodness(cards[i], comb3, comb5, n3, n5, lowball, n_low, table5, low5, digits5, table3, digits3)
        top = _records(gt, 0, additive, win, lose, royalty)
        mid = _records(gm, 1, additive, win, lose, royalty)
        bot = _records(gb, 2, additive, win, lose, royalty)
        value, bt, bm, bb = -np.inf, -1, -1, -1
        for s in range(split_top.shape[0]):
            t, m, b = split_top[s], split_first[s], split_second[s]
            if lowball:
                if mid[m, 0] < qualifier or top[t, 0] >= bot[b, 0]:
                    continue
            else:
                if bot[m, 0] > bot[b, 0]:
                    m, b = b, m
                if (strict and mid[m, 0] == bot[b, 0]) or top[t, 0] >= mid[m, 0]:
                    continue
            w0, w1, w2 = top[t, 2], mid[m, 2], bot[b, 2]
            l0, l1, l2 = top[t, 3], mid[m, 3], bot[b, 3]
            v = top[t, 1] + mid[m, 1] + bot[b, 1] + scoop * (w0 * w1 * w2 - l0 * l1 * l2)
            if majority != 0.0:
                e0, e1, e2 = 1.0 - w0 - l0, 1.0 - w1 - l1, 1.0 - w2 - l2
                # distribution of (won - lost) over top and middle, then the bottom decides the sign
                d2, dm2 = w0 * w1, l0 * l1
                d1, dm1 = w0 * e1 + e0 * w1, l0 * e1 + e0 * l1
                d0 = w0 * l1 + l0 * w1 + e0 * e1
                ahead = d2 + d1 * (w2 + e2) + d0 * w2
                behind = dm2 + dm1 * (l2 + e2) + d0 * l2
                v += majority * (ahead - behind)
            if own_weight != 0.0:
                r0, r1, r2 = top[t, 4], mid[m, 4], bot[b, 4]
                v += own_weight * (max(r0, max(r1, r2)) if one_per_board else r0 + r1 + r2)
            if v > value:
                value, bt, bm, bb = v, t, m, b
        best[i, 0], best[i, 1], best[i, 2] = bt, bm, bb
        best_value[i] = value + constant if bt >= 0 else -np.inf


@njit(inline="always", cache=True)
def _greedy(
    gt: np.ndarray,
    gm: np.ndarray,
    gb: np.ndarray,
    mask3: np.ndarray,
    mask5: np.ndarray,
    n3: int,
    n5: int,
    below: bool,
) -> tuple[int, int, int]:
    """Strongest bottom, then the best middle of the rest (strictly below the bottom when ``below`` and one
    is), then the strongest top of what remains."""
    b = 0
    for j in range(1, n5):
        if gb[j] > gb[b]:
            b = j
    m = -1
    for j in range(n5):
        if (mask5[j] & mask5[b]) == 0 and (not below or gm[j] < gb[b]) and (m < 0 or gm[j] > gm[m]):
            m = j
    if m < 0:
        for j in range(n5):
            if (mask5[j] & mask5[b]) == 0 and (m < 0 or gm[j] > gm[m]):
                m = j
    used = mask5[b] | mask5[m]
    t = -1
    for j in range(n3):
        if (mask3[j] & used) == 0 and (t < 0 or gt[j] > gt[t]):
            t = j
    return t, m, b


@njit(parallel=True, cache=True, nogil=True)
def greedy_set(
    cards: np.ndarray,
    counts: np.ndarray,
    comb3: np.ndarray,
    mask3: np.ndarray,
    comb5: np.ndarray,
    mask5: np.ndarray,
    n3_of: np.ndarray,
    n5_of: np.ndarray,
    table5: np.ndarray,
    low5: np.ndarray,
    digits5: np.ndarray,
    table3: np.ndarray,
    digits3: np.ndarray,
    lowball: bool,
    strict: bool,
    n_low: int,
    out: np.ndarray,
) -> None:
    """``out[i]``: (top, middle, bottom) subset indices of the greedy setting of hand ``i``'s ``counts[i]`` cards."""
    for i in prange(cards.shape[0]):
        n3, n5 = n3_of[counts[i]], n5_of[counts[i]]
        gt, gm, gb = _goodness(cards[i], comb3, comb5, n3, n5, lowball, n_low, table5, low5, digits5, table3, digits3)
        out[i, 0], out[i, 1], out[i, 2] = _greedy(gt, gm, gb, mask3, mask5, n3, n5, strict and not lowball)


@njit(inline="always", cache=True)
def _order_desc(keys: np.ndarray, n: int, size: int) -> np.ndarray:
    """Indices ``0..n-1`` by key descending, equal keys by index (a stable counting sort over ``size`` keys)."""
    start = np.zeros(size + 1, np.int64)
    for j in range(n):
        start[size - keys[j]] += 1
    for v in range(1, size + 1):
        start[v] += start[v - 1]
    order = np.empty(n, np.int64)
    for j in range(n):
        bucket = size - 1 - keys[j]
        order[start[bucket]] = j
        start[bucket] += 1
    return order


@njit(inline="always", cache=True)
def _suffix_max(values: np.ndarray, order: np.ndarray, n: int) -> np.ndarray:
    """``out[p]`` = the largest value among ``order[p:]``; ``out[n]`` = -inf."""
    out = np.empty(n + 1)
    out[n] = -np.inf
    for p in range(n - 1, -1, -1):
        out[p] = max(out[p + 1], values[order[p]])
    return out


@njit(inline="always", cache=True)
def _first_below(sorted_desc: np.ndarray, n: int, x: int) -> int:
    """First position of a descending array whose value is below ``x`` (``n`` when none is)."""
    lo, hi = 0, n
    while lo < hi:
        mid = (lo + hi) // 2
        if sorted_desc[mid] < x:
            hi = mid
        else:
            lo = mid + 1
    return lo


@njit(parallel=True, cache=True, nogil=True)
def best_fantasyland(
    cards: np.ndarray,
    counts: np.ndarray,
    comb3: np.ndarray,
    mask3: np.ndarray,
    comb5: np.ndarray,
    mask5: np.ndarray,
    n3_of: np.ndarray,
    n5_of: np.ndarray,
    table5: np.ndarray,
    low5: np.ndarray,
    digits5: np.ndarray,
    table3: np.ndarray,
    digits3: np.ndarray,
    royalty: np.ndarray,
    condition: np.ndarray,
    tie: np.ndarray,
    stay_value: float,
    lowball: bool,
    strict: bool,
    qualifier: int,
    n_low: int,
    size: int,
    one_per_board: bool,
    out: np.ndarray,
) -> None:
    """Exact best setting of 13 of each hand's ``counts[i]`` cards, by branch and bound.

    A valid setting is worth its royalties (summed, or the largest with ``one_per_board``) plus ``stay_value``
    when any row meets a condition, plus the small ``tie`` terms; no row is worth more than ``head = royalty +
    stay_value * condition + tie``, the bound. Bottoms are visited strongest first; middles (at most as
    strong as the bottom, or qualifying lows) and tops (below the middle, or below the bottom on a 2-7
    middle) by goodness, each loop stopping once the best value still reachable by the rest, a suffix
    maximum of ``head``, cannot beat the best found. When no setting is valid (a 2-7 hand with no
    qualifying low) the greedy setting is returned.
    """
    for i in prange(cards.shape[0]):
        n3, n5 = n3_of[counts[i]], n5_of[counts[i]]
        gt, gm, gb = _goodness(cards[i], comb3, comb5, n3, n5, lowball, n_low, table5, low5, digits5, table3, digits3)
        head_t, head_m, head_b = np.empty(n3), np.empty(n5), np.empty(n5)
        for j in range(n3):
            head_t[j] = royalty[0, gt[j]] + stay_value * condition[0, gt[j]] + tie[0, gt[j]]
        for j in range(n5):
            head_m[j] = royalty[1, gm[j]] + stay_value * condition[1, gm[j]] + tie[1, gm[j]]
            head_b[j] = royalty[2, gb[j]] + stay_value * condition[2, gb[j]] + tie[2, gb[j]]
        order_b = _order_desc(gb, n5, size)
        sorted_b = np.empty(n5, np.int64)
        for p in range(n5):
            sorted_b[p] = gb[order_b[p]]
        max_b = _suffix_max(head_b, order_b, n5)
        order_t = _order_desc(gt, n3, size)
        sorted_t = np.empty(n3, np.int64)
        for p in range(n3):
            sorted_t[p] = gt[order_t[p]]
        max_t = _suffix_max(head_t, order_t, n3)
        if lowball:  # middles: qualifying lows only, best first; unrelated to the bottom's strength
            order_m = _order_desc(gm, n5, size)
            n_mid = 0
            while n_mid < n5 and gm[order_m[n_mid]] >= qualifier:
                n_mid += 1
        else:  # middles: the same list as bottoms
            order_m = order_b
            n_mid = n5
        max_m = _suffix_max(head_m, order_m, n_mid)

        best, bt, bm, bb = -np.inf, -1, -1, -1
        for pb in range(n5):
            s_b = sorted_b[pb]
            if lowball:
                m_from = 0
            else:  # first middle at most as strong as this bottom (below it when ties foul)
                m_from = pb
                while m_from > 0 and sorted_b[m_from - 1] == s_b:
                    m_from -= 1
            t_from = _first_below(sorted_t, n3, s_b)
            if max_b[pb] + max_m[m_from] + max_t[t_from] <= best:
                break  # no bottom from here on can beat the best
            b = order_b[pb]
            if strict and not lowball:
                while m_from < n5 and sorted_b[m_from] == s_b:
                    m_from += 1
            if head_b[b] + max_m[m_from] + max_t[t_from] <= best:
                continue
            for pm in range(m_from, n_mid):
                m = order_m[pm]
                if not lowball:
                    # The middles come strongest first (the bottoms' order, the same goodness), so the first
                    # top below the middle only moves right: a step or two here, not a binary search.
                    while t_from < n3 and sorted_t[t_from] >= gm[m]:
                        t_from += 1
                if head_b[b] + max_m[pm] + max_t[t_from] <= best:
                    break
                if (mask5[m] & mask5[b]) != 0 or head_b[b] + head_m[m] + max_t[t_from] <= best:
                    continue
                used = mask5[m] | mask5[b]
                for pt in range(t_from, n3):
                    if head_b[b] + head_m[m] + max_t[pt] <= best:
                        break
                    t = order_t[pt]
                    if (mask3[t] & used) != 0:
                        continue
                    r0, r1, r2 = royalty[0, gt[t]], royalty[1, gm[m]], royalty[2, gb[b]]
                    v = max(r0, max(r1, r2)) if one_per_board else r0 + r1 + r2
                    if condition[0, gt[t]] or condition[1, gm[m]] or condition[2, gb[b]]:
                        v += stay_value
                    v += tie[0, gt[t]] + tie[1, gm[m]] + tie[2, gb[b]]
                    if v > best:
                        best, bt, bm, bb = v, t, m, b
        if bt < 0:
            bt, bm, bb = _greedy(gt, gm, gb, mask3, mask5, n3, n5, strict and not lowball)
        out[i, 0], out[i, 1], out[i, 2] = bt, bm, bb
