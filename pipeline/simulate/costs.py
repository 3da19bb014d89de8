"""Rough costs of the simulator's work, in microseconds per item: whether a kernel is worth spreading over threads,
and how much slow work goes in one portion between two looks at the clock."""

from __future__ import annotations

__all__ = [
    "ARRANGE_PARALLEL_US",
    "ARRANGE_US",
    "CLASSIC_US",
    "HEURISTIC_PARALLEL_US",
    "SCORE_US",
    "SECONDS_PER_US",
    "heuristic_us",
    "street_us",
]

SECONDS_PER_US = 8e-6
"""Wall seconds a portion of slow work is first assumed to take per microsecond of its estimate: pessimistic (a
busy machine), so that the first portion is short; later ones are sized from what the earlier ones took."""
# Rough microseconds of work per item, to decide whether a kernel is worth spreading over threads.
SCORE_US = 0.5
"""Scoring one board."""
ARRANGE_US = 300.0
"""Setting one Fantasyland or classic hand with the arranger."""
ARRANGE_PARALLEL_US = 2_000.0
"""The arrangers run a few long tasks a launch: spread over threads from a handful of hands."""
CLASSIC_US = 5.0
"""The quick classic setting of one hand."""


def heuristic_us(cards: int) -> float:
    """The heuristic's decision on one board: a first street of five is a few times a later street."""
    return 3.0 if cards == 5 else 1.0


HEURISTIC_PARALLEL_US = 1_000.0
"""Work from which the heuristic spreads a street over threads: it launches once per seat and street, for
every table at once, and two threads nearly halve even a few milliseconds of it on a busy machine (measured:
a first street of 2,000 tables from 9 to 5 ms, a later one from 2.4 to 1.8 ms)."""


def street_us(cards: int) -> float:
    """The planner's decision on one board: a first street of five is six times a later street."""
    return 30.0 if cards == 5 else 5.0
