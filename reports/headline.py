"""A headline figure: a number with its 95% interval and the count it was computed from, shown as people read it
and kept as numbers for machines.

A figure read off a few boards looks as sure as one read off thousands unless it says how many it counts; every
figure here carries its ``n`` and is marked as a small sample below :data:`SMALL_SAMPLE`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ofc.reports.tables import Kind, cell_text

__all__ = ["SMALL_SAMPLE", "Stat", "count", "small"]

SMALL_SAMPLE = 30
"""Below this many hands (or boards, decisions) a figure is marked as a small sample: its interval is wide, and a
normal interval for a mean is only roughly right."""


def small(n: int | None) -> bool:
    """Whether a figure counted over ``n`` is a small sample."""
    return n is not None and n < SMALL_SAMPLE


def count(n: int | None, word: str) -> str:
    """``n`` things in words: "1 hand", "1,234 boards"."""
    n = n or 0
    return f"{n:,} {word if n == 1 else word + 's'}"


@dataclass(frozen=True)
class Stat:
    """One headline figure. ``value`` is a number (or a text for names and spans), ``low`` and ``high`` its 95%
    interval where it has one, ``n`` the hands, boards or decisions (``of``) it was computed from."""

    label: str
    value: float | int | str | None
    kind: Kind = "num"
    low: float | None = None
    high: float | None = None
    n: int | None = None
    of: str = "board"
    """What ``n`` counts, in the singular."""

    @property
    def text(self) -> str:
        """The figure as shown: "12.16 (11.70 to 12.61)"."""
        if self.value is None:
            return "n/a"
        shown = cell_text(self.value, self.kind)
        if self.low is not None and self.high is not None:
            return f"{shown} ({cell_text(self.low, self.kind)} to {cell_text(self.high, self.kind)})"
        return shown

    @property
    def basis(self) -> str:
        """What it was computed from: "of 1,802 boards", with the small-sample mark."""
        if self.n is None:
            return ""
        return f"of {count(self.n, self.of)}" + (" · small sample" if small(self.n) else "")

    @property
    def small(self) -> bool:
        return small(self.n)

    def data(self) -> dict[str, Any]:
        """The figure for ``--json``: numbers as numbers, the shown text apart."""
        return {
            "label": self.label,
            "value": self.value,
            "ci_low": self.low,
            "ci_high": self.high,
            "n": self.n,
            "of": self.of + "s" if self.n is not None else None,
            "small_sample": self.small,
            "text": self.text,
        }
