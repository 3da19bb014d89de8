"""Which values of a query's rows are keys, and keys as machine output gives them.

A hand key is a 64-bit number, most of them above 2^53: a JSON or CSV reader that holds every number as a double
(JavaScript, ``jq``, spreadsheets) rounds it, and the rounded key names no hand. Machine output therefore gives
every key as its decimal digits in text, and every other number as a number.
"""

from __future__ import annotations

import re
from datetime import date, datetime
from typing import Any

__all__ = ["KEY_NAME", "SAFE_INTEGER", "is_key", "machine_row", "machine_value"]

KEY_NAME = re.compile(r"(^|_)(keys?|hash(es)?|ids?|seeds?)$|^(first|last)_hand$")
"""Whole numbers that name something rather than count it: hand_key, content_hash, seed, first_hand."""
SAFE_INTEGER = 2**53
"""Integers from here on are not all exact as doubles."""


def is_key(name: str) -> bool:
    """Whether a column of whole numbers named ``name`` holds keys."""
    return KEY_NAME.search(name) is not None


def machine_value(name: str, value: Any) -> Any:
    """A row's value as machine output gives it: a key (by its column's name, or any whole number too large to be
    exact as a double) as decimal text, a day or time as ISO text, anything else as it is."""
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, int) and (is_key(name) or abs(value) >= SAFE_INTEGER):
        return str(value)
    if isinstance(value, date | datetime):
        return value.isoformat()
    return value


def machine_row(row: dict[str, Any], hidden: frozenset[str] = frozenset()) -> dict[str, Any]:
    """A row as machine output gives it, without the ``hidden`` columns."""
    return {k: machine_value(k, v) for k, v in row.items() if k not in hidden}
