"""Whole boards: the three row strengths in one pass, and the order rule.

A board is 13 codes: top 3, middle 5, bottom 5. On the shared scale the order
rule "bottom >= middle >= top" is two integer comparisons per board; a top can
never equal a middle, so only the bottom/middle tie depends on house rules.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from ofc.pipeline.evaluate import lookup_tables
from ofc.pipeline.evaluate.rows import as_rows, checked, is_polars
from ofc.pipeline.game import ROW_ENDS, ROW_STARTS, ROWS

TOP, MIDDLE, BOTTOM = (slice(a, b) for a, b in zip(ROW_STARTS, ROW_ENDS, strict=True))
ROW_NAMES = ROWS


class BoardStrengths(NamedTuple):
    """Strength of each row of N boards (``uint16`` columns on the shared scale)."""

    top: np.ndarray
    middle: np.ndarray
    bottom: np.ndarray


def evaluate_boards(boards: Any) -> BoardStrengths:
    """Row strengths of (N, 13) boards, or a polars/Arrow column of 13-card lists."""
    rows = as_rows(boards, 13)
    out = np.empty((rows.shape[0], 3), dtype=np.uint16)
    # lazy: the compiled kernels take 0.14 s to load; loaded by bulk work only
    from ofc.pipeline.evaluate import strength_kernels

    bad = strength_kernels.lookup_boards(
        rows,
        lookup_tables.table5_direct(),
        lookup_tables.DIGITS5,
        lookup_tables.TABLE3_DIRECT,
        lookup_tables.DIGITS3,
        out,
    )
    checked(out, bad, rows)
    return BoardStrengths(out[:, 0], out[:, 1], out[:, 2])


def fouled(top: Any, middle: Any, bottom: Any, *, bottom_may_equal_middle: bool = True) -> np.ndarray:
    """The order rule on strength columns: True where a board is fouled.

    ``bottom_may_equal_middle=False`` is the reading in which each row must
    beat the one above it, so an exact bottom/middle tie fouls.
    """
    t, m, b = (x.to_numpy() if is_polars(x) else np.asarray(x) for x in (top, middle, bottom))
    bottom_breaks = b < m if bottom_may_equal_middle else b <= m
    return (t > m) | bottom_breaks
