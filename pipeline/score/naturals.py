"""Which declared naturals the 13 cards really make, and how strong each is.

Only boards that declare a natural are checked (the scorer never assumes
one), so this works on a small subset of a batch: rank and suit histograms,
then a few integer tests per board. Three straights is a lookup of the rank
histogram among the 660 histograms three straights can make.
"""

from __future__ import annotations

from functools import cache

import numpy as np

from ofc.pipeline.rules.compile import NATURALS
from ofc.schemas.rules import Natural

_BASE5 = 5 ** np.arange(13, dtype=np.int64)
_JQK = [9, 10, 11]
_RED = [1, 2]
"""Diamonds and hearts (``pipeline.cards``: clubs 0, diamonds 1, hearts 2, spades 3)."""


def _histogram(values: np.ndarray, size: int) -> np.ndarray:
    n = values.shape[0]
    flat = (np.arange(n)[:, None] * size + values).ravel()
    return np.bincount(flat, minlength=n * size).reshape(n, size)


def _straight_ranks(width: int) -> list[list[int]]:
    """Rank sets of every straight of ``width`` cards, ace high and low (A-2-3, A-2-3-4-5)."""
    out = [[(low + i) % 13 for i in range(width)] for low in range(13 - width + 1)]
    out.append([12, *range(width - 1)])
    return out


@cache
def _three_straight_keys() -> np.ndarray:
    keys = set()
    fives = _straight_ranks(5)
    for top in _straight_ranks(3):
        for i, mid in enumerate(fives):
            for bot in fives[i:]:
                counts = np.bincount(top + mid + bot, minlength=13)
                if counts.max() <= 4:
                    keys.add(int(counts @ _BASE5))
    return np.array(sorted(keys), dtype=np.int64)


def natural_kinds(cards: np.ndarray) -> np.ndarray:
    """(N, 5) booleans: which natural each 13-card board makes, in ``NATURALS`` order."""
    ranks, suits = cards >> 2, cards & 3
    rank_counts = _histogram(ranks.astype(np.int64), 13)
    by_suit = _histogram(suits.astype(np.int64), 4)
    suit_counts = np.sort(by_suit, axis=1)[:, ::-1]
    flush_patterns = np.array([[13, 0, 0, 0], [10, 3, 0, 0], [8, 5, 0, 0], [5, 5, 3, 0]])
    red = by_suit[:, _RED].sum(axis=1)
    one_colour = np.maximum(red, cards.shape[1] - red)
    groups = np.stack([(rank_counts == k).sum(axis=1) for k in range(5)], axis=1)  # ranks held 0..4 times
    made = {
        Natural.DRAGON: (rank_counts == 1).all(axis=1),
        Natural.SIX_PAIRS: (rank_counts // 2).sum(axis=1) >= 6,
        Natural.THREE_STRAIGHTS: np.isin(rank_counts @ _BASE5, _three_straight_keys()),
        Natural.THREE_FLUSHES: (suit_counts[:, None, :] == flush_patterns[None]).all(axis=2).any(axis=1),
        Natural.NO_PEOPLE: rank_counts[:, _JQK].sum(axis=1) == 0,
        Natural.THIRTEEN_ONE_COLOUR: one_colour == 13,
        Natural.TWELVE_ONE_COLOUR: one_colour >= 12,
        # One rank three times, the other ten cards pairs (quads two of them): 3 + 5 * 2.
        Natural.TRIPLE_FIVE_PAIRS: (groups[:, 3] == 1) & (groups[:, 2] + 2 * groups[:, 4] == 5),
    }
    return np.stack([made[k] for k in NATURALS], axis=1)


def natural_strength(cards: np.ndarray, kind: np.ndarray, row_strengths: np.ndarray) -> np.ndarray:
    """Within-kind tie-break: six pairs by the highest pair; a triple and five pairs by the triple; straights and
    flushes by bottom, middle, top. Other kinds tie."""
    rank_counts = _histogram((cards >> 2).astype(np.int64), 13)
    highest_pair = 12 - np.argmax((rank_counts >= 2)[:, ::-1], axis=1)
    triple = 12 - np.argmax((rank_counts == 3)[:, ::-1], axis=1)
    rows = row_strengths.astype(np.int64)
    by_rows = (rows[:, 2] << 32) | (rows[:, 1] << 16) | rows[:, 0]
    six = NATURALS.index(Natural.SIX_PAIRS)
    by_rows_kinds = [NATURALS.index(Natural.THREE_STRAIGHTS), NATURALS.index(Natural.THREE_FLUSHES)]
    out = np.zeros(cards.shape[0], dtype=np.int64)
    out = np.where(kind == six, highest_pair, out)
    out = np.where(kind == NATURALS.index(Natural.TRIPLE_FIVE_PAIRS), triple, out)
    return np.where(np.isin(kind, by_rows_kinds), by_rows, out)
