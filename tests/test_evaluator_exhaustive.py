"""Every 5-card and 3-card hand of one deck, against the known counts and an independent evaluator."""

from __future__ import annotations

import numpy as np
import pytest

from ofc.pipeline.evaluate import (
    CATEGORY_NAMES,
    N_STRENGTHS,
    InvalidRowError,
    is_royal,
    lowball27,
    row_facts,
    strength3,
    strength5,
)
from ofc.pipeline.evaluate.rows import FEW_ROWS

FIVE_CARD_COUNTS = {
    "straight flush": 40,
    "four of a kind": 624,
    "full house": 3_744,
    "flush": 5_108,
    "straight": 10_200,
    "three of a kind": 54_912,
    "two pair": 123_552,
    "pair": 1_098_240,
    "high card": 1_302_540,
}


def test_five_card_category_counts(all_fives: np.ndarray) -> None:
    s = strength5(all_fives)
    counts = np.bincount(row_facts(s).category, minlength=9)
    assert {CATEGORY_NAMES[c]: int(n) for c, n in enumerate(counts)} == FIVE_CARD_COUNTS
    assert int(is_royal(s).sum()) == 4
    assert np.unique(s).size == 7_462
    assert (row_facts(s).n_cards == 5).all()


def test_three_card_category_counts(all_threes: np.ndarray) -> None:
    s = strength3(all_threes)
    counts = np.bincount(row_facts(s).category, minlength=9)
    assert counts.tolist() == [18_304, 3_744, 0, 52, 0, 0, 0, 0, 0]
    assert np.unique(s).size == 455
    assert (row_facts(s).n_cards == 3).all()
    assert not is_royal(s).any()


def test_one_scale_for_both_row_sizes(all_fives: np.ndarray, all_threes: np.ndarray) -> None:
    five, three = np.unique(strength5(all_fives)), np.unique(strength3(all_threes))
    assert np.intersect1d(five, three).size == 0  # a top can never equal a middle
    assert five.size + three.size == N_STRENGTHS
    assert max(five.max(), three.max()) == N_STRENGTHS - 1


@pytest.mark.slow
def test_five_card_order_matches_phevaluator(all_fives: np.ndarray) -> None:
    from phevaluator import evaluate_cards

    # phevaluator uses the same codes (rank * 4 + suit, suits c d h s); rank 1 is the best hand.
    theirs = np.fromiter((evaluate_cards(*h) for h in all_fives.tolist()), dtype=np.int32, count=len(all_fives))
    ours = strength5(all_fives).astype(np.int32)
    pairs = np.unique(np.stack([theirs, ours], axis=1), axis=0)
    # One of our strengths per phevaluator class, and the order reversed exactly.
    assert pairs.shape[0] == 7_462
    assert np.unique(pairs[:, 0]).size == 7_462
    assert (np.diff(pairs[:, 1]) < 0).all()


def test_lowball_is_the_high_order_without_the_wheel(all_fives: np.ndarray) -> None:
    high, low = strength5(all_fives).astype(np.int64), lowball27(all_fives).astype(np.int64)
    ranks = np.sort(all_fives >> 2, axis=1)
    wheel = (ranks == [0, 1, 2, 3, 12]).all(axis=1)
    pairs = np.unique(np.stack([high[~wheel], low[~wheel]], axis=1), axis=0)
    # Away from A-2-3-4-5 the 2-7 order is the high-hand order (smaller is better).
    assert np.unique(pairs[:, 0]).size == pairs.shape[0]
    assert (np.diff(pairs[:, 1]) > 0).all()
    assert np.unique(low).size == 7_462


def test_a_few_rows_read_as_many_do() -> None:
    """Fewer than ``FEW_ROWS`` rows are looked up with numpy, more by the compiled kernels: the same values, and
    the same rows refused."""
    rng = np.random.default_rng(11)
    n = 3 * FEW_ROWS
    rows = rng.permuted(np.tile(np.arange(52, dtype=np.uint8), (n, 1)), axis=1)[:, :5]
    rows[: n // 20, 1:] = (rows[: n // 20, :1] + np.array([4, 8, 12, 16], dtype=np.uint8)) % 52  # straight flushes
    parts = np.array_split(np.arange(n), 7)
    for look_up, width in ((strength5, 5), (lowball27, 5), (strength3, 3)):
        many = look_up(rows[:, :width])
        few = np.concatenate([look_up(rows[p, :width]) for p in parts])
        assert (few == many).all()
    bad = rows[:100].copy()
    bad[[3, 40], 2] = 60
    for width in (3, 5):
        for count in (100, FEW_ROWS + 100):
            with pytest.raises(InvalidRowError, match=r"row 3: .*row 40:"):
                strength5(np.resize(bad, (count, 5))) if width == 5 else strength3(np.resize(bad, (count, 5))[:, :3])
