"""Row evaluation over whole columns: strengths, categories, defining ranks, 2-7 values.

Inputs are (N, 3) or (N, 5) arrays of card codes, or polars/Arrow columns of
lists; the answer comes back as the same kind of column (numpy, polars, Arrow). Cards
in a row are assumed distinct (ingest validates that); an impossible rank
pattern or a code above 51 raises :class:`InvalidRowError` naming the rows.
"""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING, Any, Final, NamedTuple

import numpy as np

from ofc.pipeline.errors import InputError
from ofc.pipeline.evaluate import lookup_tables
from ofc.pipeline.evaluate.lookup_tables import CATEGORY_NAMES, FLUSH_OFFSET, INVALID

if TYPE_CHECKING:
    import polars as pl

ROYAL: Final = "royal flush"
FEW_ROWS: Final = 4096
"""Fewer rows than this are looked up with numpy: loading the compiled kernels (0.5 s and more on a cold start)
costs far more than the rows, and a command that names a few rows (a rule file's thresholds, a report's hands)
never loads them."""


class InvalidRowError(InputError):
    """Rows that hold a code outside 0..51 or a rank pattern no deck can deal."""

    def __init__(self, rows: np.ndarray, cards: np.ndarray) -> None:
        self.rows = rows
        shown = "; ".join(f"row {int(r)}: {cards[r].tolist()}" for r in rows[:5])
        more = f" (and {rows.size - 5} more)" if rows.size > 5 else ""
        super().__init__(f"invalid card codes (each must be 0..51, no card twice): {shown}{more}")


def is_polars(obj: object) -> bool:
    return type(obj).__module__.startswith("polars")


def _is_arrow(obj: object) -> bool:
    return type(obj).__module__.startswith("pyarrow")


def as_rows(cards: Any, width: int) -> np.ndarray:
    """Any supported column of rows as a C-contiguous (N, width) ``uint8`` array."""
    if _is_arrow(cards):
        # lazy: polars takes 0.13 s to load, which a command reading no columns never pays
        import polars as pl

        cards = pl.Series(pl.from_arrow(cards))
    if is_polars(cards):
        # lazy: polars takes 0.13 s to load, which a command reading no columns never pays
        import polars as pl

        if cards.null_count():
            raise InputError(f"column {cards.name!r} has {cards.null_count()} null rows")
        if isinstance(cards.dtype, pl.List):
            cards = cards.list.to_array(width)
        arr = cards.to_numpy()
    else:
        arr = np.asarray(cards)
    if arr.ndim == 1 and arr.size == width and arr.dtype != object:
        arr = arr.reshape(1, width)
    if arr.ndim != 2 or arr.shape[1] != width:
        raise InputError(f"expected rows of {width} card codes, got an array of shape {arr.shape}")
    if arr.dtype != np.uint8:
        if not np.issubdtype(arr.dtype, np.integer):
            raise InputError(f"card codes must be integers, got {arr.dtype}")
        out_of_range = (arr < 0) | (arr > 51)
        if out_of_range.any():
            rows = np.flatnonzero(out_of_range.any(axis=1))
            raise InvalidRowError(rows, arr)
        arr = arr.astype(np.uint8)
    return np.ascontiguousarray(arr)


def _wrap(values: np.ndarray, like: Any, name: str) -> Any:
    """Answer in the caller's kind of column: polars for polars, Arrow for Arrow, else numpy."""
    if is_polars(like):
        # lazy: polars takes 0.13 s to load, which a command reading no columns never pays
        import polars as pl

        return pl.Series(name, values)
    if _is_arrow(like):
        # lazy: a row of Python values needs no Arrow
        import pyarrow as pa

        return pa.array(values)
    return values


def checked(out: np.ndarray, bad: int, rows: np.ndarray) -> np.ndarray:
    if bad:
        flat = out.reshape(out.shape[0], -1)
        raise InvalidRowError(np.flatnonzero((flat == INVALID).any(axis=1)), rows)
    return out


def _few(rows: np.ndarray, table: np.ndarray, digits: np.ndarray, *, flush: bool) -> np.ndarray:
    """The kernels' gather (``strength_kernels.row5``, ``strength_kernels.row3``) in numpy, for a few rows."""
    index = sum(digits[i, rows[:, i]] for i in range(rows.shape[1]))
    if flush:
        suits = rows & 3
        index = index + (suits == suits[:, :1]).all(axis=1) * FLUSH_OFFSET
    return table[np.minimum(index, table.shape[0] - 1)]


def _lookup5(rows: np.ndarray, table: np.ndarray) -> np.ndarray:
    """Each 5-card row's value in ``table`` (a direct layout of :mod:`lookup_tables`); a bad row raises."""
    if rows.shape[0] < FEW_ROWS:
        out = _few(rows, table, lookup_tables.DIGITS5, flush=True)
        return checked(out, int((out == INVALID).sum()), rows)
    # lazy: the compiled kernels take 0.14 s to load; a few rows are looked up with numpy
    from ofc.pipeline.evaluate import strength_kernels

    out = np.empty(rows.shape[0], dtype=np.uint16)
    return checked(out, strength_kernels.lookup5(rows, table, lookup_tables.DIGITS5, out), rows)


def strength5(cards: Any) -> Any:
    """Strength of 5-card rows on the shared scale (``uint16``, higher is better)."""
    rows = as_rows(cards, 5)
    return _wrap(_lookup5(rows, lookup_tables.table5_direct()), cards, "strength")


def strength3(cards: Any) -> Any:
    """Strength of 3-card (top) rows on the shared scale: trips, pair or high card only."""
    rows = as_rows(cards, 3)
    if rows.shape[0] < FEW_ROWS:
        out = _few(rows, lookup_tables.TABLE3_DIRECT, lookup_tables.DIGITS3, flush=False)
        return _wrap(checked(out, int((out == INVALID).sum()), rows), cards, "strength")
    # lazy: the compiled kernels take 0.14 s to load; a few rows are looked up with numpy
    from ofc.pipeline.evaluate import strength_kernels

    out = np.empty(rows.shape[0], dtype=np.uint16)
    bad = strength_kernels.lookup3(rows, lookup_tables.TABLE3_DIRECT, lookup_tables.DIGITS3, out)
    return _wrap(checked(out, bad, rows), cards, "strength")


def _width(cards: Any) -> int:
    if is_polars(cards):
        # lazy: polars takes 0.13 s to load, which a command reading no columns never pays
        import polars as pl

        if isinstance(cards.dtype, pl.Array):
            return int(cards.dtype.size)
        return int(cards.list.len().max() or 0)
    if _is_arrow(cards):
        return _width(_to_polars(cards))
    return int(np.shape(cards)[-1])


def _to_polars(obj: Any) -> pl.Series:
    # lazy: polars takes 0.13 s to load, which a command reading no columns never pays
    import polars as pl

    return pl.Series(pl.from_arrow(obj))


def strength(cards: Any) -> Any:
    """Strength of 3- or 5-card rows, chosen by the row width."""
    width = _width(cards)
    if width == 5:
        return strength5(cards)
    if width == 3:
        return strength3(cards)
    raise InputError(f"a row has 3 or 5 cards, got {width}")


def lowball27(cards: Any) -> Any:
    """2-7 lowball value of 5-card rows: 0 is 7-5-4-3-2, smaller is better.

    Aces are high, straights and flushes count against the hand, and
    A-2-3-4-5 is an ace-high hand, not a straight.
    """
    rows = as_rows(cards, 5)
    return _wrap(_lookup5(rows, lookup_tables.low5_direct()), cards, "lowball27")


class RowFacts(NamedTuple):
    """What a strength means, as columns: used for royalty lookups and reports."""

    category: np.ndarray
    """0 high card .. 8 straight flush (``CATEGORY_NAMES``)."""
    royal: np.ndarray
    """True for an ace-high straight flush."""
    rank1: np.ndarray
    """Pair / trips / quads rank, higher pair, straight top (3 = wheel), highest card."""
    rank2: np.ndarray
    """Lower pair, full-house pair, first kicker; -1 when none."""
    n_cards: np.ndarray
    """3 for a top-row strength, 5 otherwise."""


def _gather(table: np.ndarray, values: Any, name: str) -> Any:
    v = values.to_numpy() if is_polars(values) else np.asarray(values)
    if v.size and int(v.max()) >= table.size:
        raise InputError(f"not a value of this scale: {int(v.max())} (at most {table.size - 1})")
    return _wrap(table[v], values, name)


def category(strengths: Any) -> Any:
    """Category code (0 high card .. 8 straight flush) of each strength."""
    return _gather(lookup_tables.CATEGORY, strengths, "category")


def is_royal(strengths: Any) -> Any:
    return _gather(_royal_table(), strengths, "royal")


def row_facts(strengths: Any) -> RowFacts:
    """Category, royal flag and defining ranks of each strength, as numpy columns."""
    s = strengths.to_numpy() if is_polars(strengths) else np.asarray(strengths)
    return RowFacts(
        lookup_tables.CATEGORY[s],
        _royal_table()[s],
        lookup_tables.RANK1[s],
        lookup_tables.RANK2[s],
        lookup_tables.N_CARDS[s],
    )


def lowball_category(values: Any) -> Any:
    """Category of each 2-7 value under lowball rules (the wheel is a high card)."""
    return _gather(lookup_tables.LOW_CATEGORY, values, "lowball_category")


def lowball_high_rank(values: Any) -> Any:
    """Highest card of each 2-7 value: 5 (a 7) for a seven-low, 8 (a ten) for a ten-low."""
    return _gather(lookup_tables.LOW_RANK1, values, "lowball_high_rank")


def describe(strengths: Any) -> Any:
    """Readable name of each strength, e.g. ``pair of queens, king kicker`` (a gather)."""
    return _gather(_strength_names(), strengths, "hand")


@cache
def _royal_table() -> np.ndarray:
    return (lookup_tables.CATEGORY == lookup_tables.STRAIGHT_FLUSH) & (lookup_tables.RANK1 == lookup_tables.ACE)


_RANK_NAMES: Final = (
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "jack",
    "queen",
    "king",
    "ace",
)
_PLURAL: Final = tuple(n + ("es" if n == "six" else "s") for n in _RANK_NAMES)


@cache
def _strength_names() -> np.ndarray:
    """One name per class (7,917 of them), built once for display."""
    columns = (lookup_tables.CATEGORY.tolist(), lookup_tables.RANK1.tolist(), lookup_tables.RANK2.tolist())
    return np.array([_name(*facts) for facts in zip(*columns, strict=True)])


def _name(cat: int, r1: int, r2: int) -> str:
    hi = _RANK_NAMES[r1]
    kicker = f", {_RANK_NAMES[r2]} kicker" if r2 >= 0 else ""
    if cat == lookup_tables.STRAIGHT_FLUSH:
        return ROYAL if r1 == lookup_tables.ACE else f"{hi}-high straight flush"
    if cat in (lookup_tables.STRAIGHT, lookup_tables.FLUSH):
        return f"{hi}-high {CATEGORY_NAMES[cat]}"
    if cat == lookup_tables.HIGH_CARD:
        return f"{hi}-{_RANK_NAMES[r2]} high"
    if cat == lookup_tables.FULL_HOUSE:
        return f"full house, {_PLURAL[r1]} over {_PLURAL[r2]}"
    if cat == lookup_tables.TWO_PAIR:
        return f"two pair, {_PLURAL[r1]} and {_PLURAL[r2]}"
    base = {lookup_tables.PAIR: "pair of", lookup_tables.TRIPS: "three", lookup_tables.QUADS: "four"}[cat]
    return f"{base} {_PLURAL[r1]}{kicker}"
