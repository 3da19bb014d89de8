"""The report's tables: each column with a header people read and one way of showing its values.

A table keeps its rows' raw values; :mod:`reports.html` writes each cell as its formatted text with the raw
value beside it (``data-v``), which the page sorts by and saves as CSV.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Any, Literal

__all__ = ["KINDS", "TEXT_KINDS", "Column", "Kind", "Table", "cell_text", "interval_columns", "plain", "raw_text"]

Kind = Literal["text", "int", "num", "signed", "pct", "day", "time", "hand"]
KINDS: tuple[str, ...] = ("text", "int", "num", "signed", "pct", "day", "time", "hand")
"""text; int: whole numbers with separators; num: two decimals; signed: with a + or - sign; pct: a share as a
percentage to one decimal; day, time: ISO, UTC; hand: a link that opens the hand viewer."""
TEXT_KINDS = frozenset({"text", "hand", "day", "time"})
"""The kinds shown and sorted as text (left-aligned); the others are numbers."""


@dataclass(frozen=True)
class Column:
    key: str
    header: str
    kind: Kind = "num"
    empty: str = ""
    """What a null shows as."""


def interval_columns(kind: Kind, low: str = "ci_low", high: str = "ci_high") -> list[Column]:
    """The two bounds of a figure's 95% interval, shown as the figure is."""
    return [Column(low, "95% low", kind), Column(high, "95% high", kind)]


@dataclass
class Table:
    caption: str
    name: str
    """The CSV file's name when the table is saved (``name.csv``)."""
    rows: list[dict[str, Any]]
    columns: list[Column]
    note: str = ""
    limit: int = 5000
    """Rows written to the page at most (``--json`` has them all)."""
    hands: dict[str, str] = field(default_factory=dict)
    """For a ``hand`` column: each hand id's link text."""
    counts: str | None = None
    """The column holding what each row was counted over (hands, boards): a row counted over fewer than
    ``headline.SMALL_SAMPLE`` is marked as a small sample."""
    drill: Callable[[dict[str, Any]], dict[str, Any] | None] | None = None
    """What each row counts, as the boards a served page lists for it (:mod:`reports.drill`; None: nothing)."""


def cell_text(value: Any, kind: str, empty: str = "") -> str:
    """A value as its column shows it."""
    if value is None:
        return empty
    if kind in ("text", "hand"):
        return str(value)
    if isinstance(value, bool):
        return "yes" if value else "no"
    if kind == "day":
        return value.isoformat() if isinstance(value, date) else str(value)
    if kind == "time":
        return value.strftime("%Y-%m-%d %H:%M") if isinstance(value, datetime) else str(value)
    if not isinstance(value, int | float):
        return str(value)
    if kind == "int":
        return f"{value:,.0f}"
    if kind == "pct":
        return f"{round(value * 100, 1) + 0.0:.1f}%"  # + 0.0: a share that rounds to nothing shows no sign
    if kind == "signed":
        return f"{value:+,}" if isinstance(value, int) else f"{round(value, 2) + 0.0:+,.2f}"
    return f"{round(value, 2) + 0.0:,.2f}"


def plain(value: float) -> float:
    """A float without its noise: sums of products leave ``4.3e-19`` where the figure is 0, and a rounded ``-0.0``
    would show its sign."""
    return round(value, 12) + 0.0


def raw_text(value: Any) -> str:
    """A value as a table keeps it for sorting and CSV: every digit that means something."""
    if value is None:
        return ""
    if isinstance(value, date | datetime):
        return value.isoformat()
    if isinstance(value, float):
        return repr(plain(value))
    return str(value)
