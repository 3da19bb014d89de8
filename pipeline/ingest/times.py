"""ISO 8601 times read by compiled code: the common shape in bulk, anything else by Python's parser.

Times in histories are nearly always ``2026-11-01T20:00:00Z`` or an offset or fraction away from it; those
are read straight from the bytes (by the JSONL scanner, and over whole Arrow columns here). Others
(``2026-11-01``, a space instead of ``T``, odd fractions) go to ``datetime.fromisoformat`` one by one.
A naive time is UTC (``schemas.hand.NAIVE_TIMEZONE``).
"""

from __future__ import annotations

from datetime import UTC, datetime

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from numba import njit

from schemas.hand import NAIVE_TIMEZONE


@njit(cache=True, nogil=True, inline="always")
def _digits(buf: np.ndarray, p: int, n: int) -> int:
    v = 0
    for k in range(n):
        c = buf[p + k]
        if c < 48 or c > 57:
            return -1
        v = v * 10 + (c - 48)
    return v


@njit(cache=True, nogil=True)
def _days_from_civil(y: int, m: int, d: int) -> int:
    if m <= 2:
        y -= 1
    era = (y if y >= 0 else y - 399) // 400
    yoe = y - era * 400
    doy = (153 * (m + (-3 if m > 2 else 9)) + 2) // 5 + d - 1
    doe = yoe * 365 + yoe // 4 - yoe // 100 + doy
    return era * 146097 + doe - 719468


@njit(cache=True, nogil=True)
def iso_time(buf: np.ndarray, s: int, t: int) -> tuple[int, bool]:
    """``YYYY-MM-DDTHH:MM:SS[.fff|.ffffff][Z|+HH:MM|-HH:MM]`` as UTC microseconds (naive: UTC), or not ok.

    Only this common shape is read here; any other time is left to the general path.
    """
    n = t - s
    if n < 19 or buf[s + 4] != 45 or buf[s + 7] != 45 or buf[s + 10] != 84 or buf[s + 13] != 58 or buf[s + 16] != 58:
        return 0, False
    year, month, day = _digits(buf, s, 4), _digits(buf, s + 5, 2), _digits(buf, s + 8, 2)
    hour, minute, second = _digits(buf, s + 11, 2), _digits(buf, s + 14, 2), _digits(buf, s + 17, 2)
    if year < 1 or month < 1 or month > 12 or day < 1 or hour < 0 or hour > 23 or minute < 0 or minute > 59:
        return 0, False
    if second < 0 or second > 59:
        return 0, False
    leap = year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)
    month_days = 29 if month == 2 and leap else (28 if month == 2 else (30 if month in (4, 6, 9, 11) else 31))
    if day > month_days:
        return 0, False
    p = s + 19
    micros = 0
    if p < t and buf[p] == 46:
        width = 0
        while p + 1 + width < t and 48 <= buf[p + 1 + width] <= 57:
            width += 1
        if width != 3 and width != 6:
            return 0, False
        micros = _digits(buf, p + 1, width) * (1000 if width == 3 else 1)
        p += 1 + width
    offset = 0
    if p < t:
        if buf[p] == 90 and p + 1 == t:
            p += 1
        elif (buf[p] == 43 or buf[p] == 45) and p + 6 == t and buf[p + 3] == 58:
            oh, om = _digits(buf, p + 1, 2), _digits(buf, p + 4, 2)
            if oh < 0 or oh > 23 or om < 0 or om > 59:
                return 0, False
            offset = (oh * 60 + om) * (1 if buf[p] == 43 else -1)
            p += 6
        else:
            return 0, False
    days = _days_from_civil(year, month, day)
    seconds = days * 86400 + hour * 3600 + minute * 60 + second - offset * 60
    return seconds * 1_000_000 + micros, True


@njit(cache=True, nogil=True)
def _column(data: np.ndarray, offsets: np.ndarray, valid: np.ndarray, out: np.ndarray, ok: np.ndarray) -> None:
    for i in range(out.size):
        if valid[i]:
            out[i], ok[i] = iso_time(data, offsets[i], offsets[i + 1])


def parse_times(values: pa.Array) -> tuple[pa.Array, np.ndarray]:
    """UTC timestamps (µs) of ISO strings, null where null; and the positions of strings that are not times."""
    arr = values.cast(pa.large_string())
    _, offsets_buf, data_buf = arr.buffers()
    offsets = np.frombuffer(offsets_buf, dtype=np.int64)[arr.offset : arr.offset + len(arr) + 1]
    data = np.frombuffer(data_buf, dtype=np.uint8) if data_buf is not None else np.zeros(1, np.uint8)
    valid = np.asarray(pc.is_valid(arr), dtype=np.bool_)
    micros = np.zeros(len(arr), dtype=np.int64)
    ok = np.zeros(len(arr), dtype=np.bool_)
    _column(data, offsets, valid, micros, ok)
    bad = []
    for i in np.flatnonzero(valid & ~ok).tolist():  # the uncommon shapes only
        try:
            t = datetime.fromisoformat(arr[i].as_py())
        except ValueError:
            bad.append(i)
            continue
        t = (t if t.tzinfo else t.replace(tzinfo=NAIVE_TIMEZONE)).astimezone(UTC)
        micros[i] = (t - _EPOCH) // _MICROSECOND
        ok[i] = True
    stamps = pa.array(micros, pa.timestamp("us", tz="UTC"), mask=~ok)
    return stamps, np.array(bad, dtype=np.int64)


_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_MICROSECOND = datetime(1970, 1, 1, 0, 0, 0, 1, tzinfo=UTC) - _EPOCH
