"""Lookup tables behind the single strength scale.

Every row, 3 or 5 cards, gets a ``strength``: a dense ``uint16`` rank over the
union of the 7,462 five-card classes and the 455 three-card classes, so the
order rule and every row comparison is plain integer arithmetic on columns.

A class is ordered by its category, then by its ranks grouped by multiplicity
(largest group first, higher rank first), with missing cards counting below
any card. That makes a top ``Q-Q-K`` lower than a middle ``Q-Q-K-5-3`` and a
top ``Q-Q-A`` higher than a middle ``Q-Q-K-3-2``, and it means a 3-card row
can never equal a 5-card row.

The class tables are small: 5-card rows by the colex rank of their sorted
rank multiset (``C(17, 5) = 6,188`` slots) plus a flush flag, 24 KB. The
kernels read a direct table instead, indexed by the five ranks as dealt
(``13**5`` slots, plus a flush half and one INVALID slot): it costs 1.5 MB,
still inside a core's L2 cache, and saves sorting each row, which more than
halves the time per row. Per-position digit tables turn a card code into its
share of that index, so a code above 51 lands on the INVALID slot without a
branch. Everything is built with numpy in milliseconds; the direct tables on
first use.
"""

from __future__ import annotations

from functools import cache
from itertools import combinations_with_replacement
from typing import Final

import numpy as np

N_RANKS: Final = 13
RANK_CHARS: Final = "23456789TJQKA"
ACE: Final = 12
FIVE_HIGH: Final = 3  # top rank of the wheel A-2-3-4-5

HIGH_CARD, PAIR, TWO_PAIR, TRIPS, STRAIGHT, FLUSH, FULL_HOUSE, QUADS, STRAIGHT_FLUSH = range(9)
CATEGORY_NAMES: Final = (
    "high card",
    "pair",
    "two pair",
    "three of a kind",
    "straight",
    "flush",
    "full house",
    "four of a kind",
    "straight flush",
)

INVALID: Final = 0xFFFF
"""Table value of an impossible rank pattern (five of a rank, a flush with a pair)."""
NO_RANK: Final = -1
N_SLOTS5: Final = 6188  # C(17, 5): multisets of 5 ranks out of 13, by colex rank
FLUSH_OFFSET: Final = N_RANKS**5
_DIGITS: Final = 5
_BASE: Final = 14  # rank + 1 as a digit, 0 for a missing card


def _binomial_offsets(width: int) -> np.ndarray:
    """``T[i, r] = C(r + i, i + 1)``: sum over a sorted multiset gives its colex rank."""
    n = N_RANKS + width
    c = np.zeros((n, width + 1), dtype=np.int64)
    c[:, 0] = 1
    for k in range(1, width + 1):
        c[1:, k] = np.cumsum(c[:-1, k - 1])  # Pascal: C(n, k) = sum_{m<n} C(m, k-1)
    return np.stack([c[i : i + N_RANKS, i + 1] for i in range(width)]).astype(np.int32)


_COLEX5: Final = _binomial_offsets(5)


def _counts(ranks: np.ndarray) -> np.ndarray:
    return (ranks[:, :, None] == np.arange(N_RANKS)).sum(axis=1)


def _classify(ranks: np.ndarray, flush: bool, wheel_is_straight: bool = True) -> tuple[np.ndarray, ...]:
    """Category, ordering key and defining ranks of sorted rank multisets.

    ``ranks`` has shape (M, 3) or (M, 5), ascending per row. Returns
    ``(valid, category, key, rank1, rank2)``.
    """
    m, width = ranks.shape
    counts = _counts(ranks)
    maxc = counts.max(axis=1)
    pairs = (counts == 2).sum(axis=1)
    distinct = maxc == 1

    # Ranks ordered by (group size, rank), both descending: the tie-break digits.
    group = np.take_along_axis(counts, ranks, axis=1)
    order = np.argsort(-(group * 16 + ranks), axis=1, kind="stable")
    digits = np.take_along_axis(ranks, order, axis=1)

    category = np.full(m, HIGH_CARD, dtype=np.int64)
    category[maxc == 2] = PAIR
    category[pairs == 2] = TWO_PAIR
    category[maxc == 3] = TRIPS
    category[(maxc == 3) & (pairs == 1)] = FULL_HOUSE
    category[maxc == 4] = QUADS
    top = digits[:, 0].copy()
    if width == 5:
        wheel = np.all(ranks == [0, 1, 2, 3, ACE], axis=1) & wheel_is_straight
        straight = distinct & ((ranks[:, 4] - ranks[:, 0] == 4) | wheel)
        top[wheel] = FIVE_HIGH
        if flush:
            category[:] = np.where(straight, STRAIGHT_FLUSH, FLUSH)
        else:
            category[straight] = STRAIGHT
    else:
        straight = np.zeros(m, dtype=bool)
    valid = distinct if flush else maxc <= 4

    padded = np.zeros((m, _DIGITS), dtype=np.int64)
    padded[:, :width] = digits + 1
    padded[straight, 0] = top[straight] + 1
    padded[straight, 1:] = 0
    key = category * _BASE**_DIGITS + padded @ (_BASE ** np.arange(_DIGITS - 1, -1, -1))

    first_group = np.take_along_axis(group, order, axis=1)[:, 0]
    rank2 = np.where(first_group < width, digits[np.arange(m), np.minimum(first_group, width - 1)], NO_RANK)
    rank2[straight] = NO_RANK
    return valid, category, key, top, rank2


def _multisets(width: int) -> np.ndarray:
    return np.array(list(combinations_with_replacement(range(N_RANKS), width)), dtype=np.int64)


def _colex5(ranks: np.ndarray) -> np.ndarray:
    return _COLEX5[np.arange(5), ranks].sum(axis=1)


def _dense(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    uniq = np.unique(keys)
    return uniq, np.searchsorted(uniq, keys)


def _build() -> dict[str, np.ndarray]:
    five = _multisets(5)
    three_sorted = _multisets(3)
    idx5 = _colex5(five)

    parts = [_classify(five, flush=False), _classify(five, flush=True), _classify(three_sorted, flush=False)]
    keys = np.concatenate([p[2][p[0]] for p in parts])
    uniq, _ = _dense(keys)
    n = uniq.size

    def strengths(part: tuple[np.ndarray, ...]) -> np.ndarray:
        return np.where(part[0], np.searchsorted(uniq, part[2]), INVALID)

    table5 = np.full((2, N_SLOTS5), INVALID, dtype=np.uint16)
    table5[0, idx5] = strengths(parts[0])
    table5[1, idx5] = strengths(parts[1])

    # 3-card rows: index by the three ranks as dealt, no sorting needed.
    raw3 = np.indices((N_RANKS,) * 3).reshape(3, -1).T
    sorted3 = np.sort(raw3, axis=1)
    slot3 = np.searchsorted(
        three_sorted @ np.array([N_RANKS**2, N_RANKS, 1]), sorted3 @ np.array([N_RANKS**2, N_RANKS, 1])
    )
    table3 = strengths(parts[2])[slot3].astype(np.uint16)

    category = np.empty(n, dtype=np.uint8)
    rank1 = np.empty(n, dtype=np.int8)
    rank2 = np.empty(n, dtype=np.int8)
    n_cards = np.empty(n, dtype=np.uint8)
    for part, width in zip(parts, (5, 5, 3), strict=True):
        valid, cat, key, r1, r2 = part
        s = np.searchsorted(uniq, key[valid])
        category[s], rank1[s], rank2[s], n_cards[s] = cat[valid], r1[valid], r2[valid], width

    # 2-7 lowball: the same 5-card classes with the wheel as ace-high, ranked
    # from the best low (7-5-4-3-2) up.
    low = [_classify(five, flush=f, wheel_is_straight=False) for f in (False, True)]
    low_uniq, _ = _dense(np.concatenate([p[2][p[0]] for p in low]))
    low5 = np.full((2, N_SLOTS5), INVALID, dtype=np.uint16)
    low_category = np.empty(low_uniq.size, dtype=np.uint8)
    low_rank1 = np.empty(low_uniq.size, dtype=np.int8)
    for f, (valid, cat, key, r1, _r2) in enumerate(low):
        v = np.searchsorted(low_uniq, key[valid])
        low5[f, idx5[valid]] = v
        low_category[v], low_rank1[v] = cat[valid], r1[valid]

    return {
        "table5": table5.ravel(),
        "table3": table3,
        "category": category,
        "rank1": rank1,
        "rank2": rank2,
        "n_cards": n_cards,
        "low5": low5.ravel(),
        "low_category": low_category,
        "low_rank1": low_rank1,
    }


_T: Final = _build()

TABLE5: Final[np.ndarray] = _T["table5"]
"""Strength by ``flush * 6188 + colex(sorted ranks)``."""
TABLE3: Final[np.ndarray] = _T["table3"]
"""Strength by ``r0 * 169 + r1 * 13 + r2`` for the ranks of a 3-card row in any order."""
LOW5: Final[np.ndarray] = _T["low5"]
"""2-7 lowball value (0 = 7-5-4-3-2, the best low), indexed like TABLE5."""

N_STRENGTHS: Final = int(_T["category"].size)
CATEGORY: Final[np.ndarray] = _T["category"]
"""Category of each strength (0 high card .. 8 straight flush)."""
RANK1: Final[np.ndarray] = _T["rank1"]
"""The rank that defines each strength: the pair, trips or quads rank, the higher
pair, the top of a straight (3 for the wheel), the highest card otherwise."""
RANK2: Final[np.ndarray] = _T["rank2"]
"""The next defining rank: the lower pair, the pair of a full house, the first
kicker; -1 when there is none (straights, a 3-card trips)."""
N_CARDS: Final[np.ndarray] = _T["n_cards"]
"""3 or 5: how many cards each strength is made of."""
LOW_CATEGORY: Final[np.ndarray] = _T["low_category"]
"""Category of each lowball value under 2-7 rules (the wheel is a high card)."""
LOW_RANK1: Final[np.ndarray] = _T["low_rank1"]
"""Highest card of each lowball value (7 for a seven-low, and so on)."""


def _digits(width: int, invalid: int) -> np.ndarray:
    """``D[i, code]``: what card ``code`` in position ``i`` adds to a direct-table index."""
    d = np.full((width, 256), invalid, dtype=np.int32)
    ranks = np.arange(52) >> 2
    for i in range(width):
        d[i, :52] = ranks * N_RANKS ** (width - 1 - i)
    return d


DIGITS5: Final = _digits(5, 2 * FLUSH_OFFSET)
DIGITS3: Final = _digits(3, N_RANKS**3)
TABLE3_DIRECT: Final = np.append(TABLE3, np.uint16(INVALID))
"""TABLE3 with the INVALID slot the digit tables point bad codes at."""


def _sort5(r: np.ndarray) -> np.ndarray:
    """Column-wise sorting network: sorts (M, 5) rows ascending without a per-row call."""
    c = [r[:, i].copy() for i in range(5)]
    for a, b in ((0, 1), (3, 4), (2, 4), (2, 3), (0, 3), (0, 2), (1, 4), (1, 3), (1, 2)):
        c[a], c[b] = np.minimum(c[a], c[b]), np.maximum(c[a], c[b])
    return np.stack(c, axis=1)


def expand5(by_slot: np.ndarray) -> np.ndarray:
    """Spread a (2 x 6188) class table over every 5-rank sequence as dealt.

    Layout: ``[non-flush 13**5 | flush 13**5 | INVALID]``, read by the kernels at
    ``sum(DIGITS5[i, card_i]) + flush * FLUSH_OFFSET``, clamped to the last slot.
    """
    dealt = np.indices((N_RANKS,) * 5, dtype=np.int8).reshape(5, -1).T
    slot = _colex5(_sort5(dealt).astype(np.intp))
    out = np.empty(2 * FLUSH_OFFSET + 1, dtype=np.uint16)
    out[:FLUSH_OFFSET] = by_slot[slot]
    out[FLUSH_OFFSET:-1] = by_slot[N_SLOTS5 + slot]
    out[-1] = INVALID
    return out


@cache
def table5_direct() -> np.ndarray:
    """Strength of every 5-card row, in the kernels' direct layout."""
    return expand5(TABLE5)


@cache
def low5_direct() -> np.ndarray:
    """2-7 lowball value of every 5-card row, in the kernels' direct layout."""
    return expand5(LOW5)
