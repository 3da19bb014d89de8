"""ISO 8601 times read by compiled code: the common shape in bulk, anything else by Python's parser.

Times in histories are nearly always ``2026-11-01T20:00:00Z`` or an offset or fraction away from it; those
are read straight from the bytes (by the JSONL scanner, and over whole Arrow columns here). Others
(``2026-11-01``, a space instead of ``T``, odd fractions) go to ``datetime.fromisoformat`` one by one.

A naive time is read in ``schemas.hand.NAIVE_TIMEZONE``, as the record model reads it. Every path here
only reads its wall-clock time and marks it naive; :func:`to_utc` then applies the zone to whole arrays,
so the rule is written once and a zone with summer time costs a few calls per day of times, not one per
time. The zone is looked up when used, so whatever sets that one name sets it for every path.
"""

from __future__ import annotations

from datetime import datetime, timedelta, tzinfo

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from numba import njit

import ofc.schemas.hand


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
def iso_time(buf: np.ndarray, s: int, t: int) -> tuple[int, bool, bool]:
    """``YYYY-MM-DDTHH:MM:SS[.fff|.ffffff][Z|+HH:MM|-HH:MM]`` as UTC microseconds: (value, ok, naive).

    A naive time's value is its wall-clock time, to be read in the naive zone by :func:`to_utc`; the
    zone may have summer time, which compiled code cannot look up. Only this common shape is read here;
    any other time is left to the general path.
    """
    n = t - s
    if n < 19 or buf[s + 4] != 45 or buf[s + 7] != 45 or buf[s + 10] != 84 or buf[s + 13] != 58 or buf[s + 16] != 58:
        return 0, False, False
    year, month, day = _digits(buf, s, 4), _digits(buf, s + 5, 2), _digits(buf, s + 8, 2)
    hour, minute, second = _digits(buf, s + 11, 2), _digits(buf, s + 14, 2), _digits(buf, s + 17, 2)
    if year < 1 or month < 1 or month > 12 or day < 1 or hour < 0 or hour > 23 or minute < 0 or minute > 59:
        return 0, False, False
    if second < 0 or second > 59:
        return 0, False, False
    leap = year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)
    month_days = 29 if month == 2 and leap else (28 if month == 2 else (30 if month in (4, 6, 9, 11) else 31))
    if day > month_days:
        return 0, False, False
    p = s + 19
    micros = 0
    if p < t and buf[p] == 46:
        width = 0
        while p + 1 + width < t and 48 <= buf[p + 1 + width] <= 57:
            width += 1
        if width != 3 and width != 6:
            return 0, False, False
        micros = _digits(buf, p + 1, width) * (1000 if width == 3 else 1)
        p += 1 + width
    offset = 0
    naive = p == t
    if not naive:
        if buf[p] == 90 and p + 1 == t:
            p += 1
        elif (buf[p] == 43 or buf[p] == 45) and p + 6 == t and buf[p + 3] == 58:
            oh, om = _digits(buf, p + 1, 2), _digits(buf, p + 4, 2)
            if oh < 0 or oh > 23 or om < 0 or om > 59:
                return 0, False, False
            offset = (oh * 60 + om) * (1 if buf[p] == 43 else -1)
            p += 6
        else:
            return 0, False, False
    days = _days_from_civil(year, month, day)
    seconds = days * 86400 + hour * 3600 + minute * 60 + second - offset * 60
    return seconds * 1_000_000 + micros, True, naive


@njit(cache=True, nogil=True)
def _column(
    data: np.ndarray, offsets: np.ndarray, valid: np.ndarray, out: np.ndarray, ok: np.ndarray, naive: np.ndarray
) -> None:
    for i in range(out.size):
        if valid[i]:
            out[i], ok[i], naive[i] = iso_time(data, offsets[i], offsets[i + 1])


def parse_times(values: pa.Array) -> tuple[pa.Array, np.ndarray]:
    """UTC timestamps (µs) of ISO strings, null where null; and the positions of strings that are not times."""
    arr = values.cast(pa.large_string())
    _, offsets_buf, data_buf = arr.buffers()
    offsets = np.frombuffer(offsets_buf, dtype=np.int64)[arr.offset : arr.offset + len(arr) + 1]
    data = np.frombuffer(data_buf, dtype=np.uint8) if data_buf is not None else np.zeros(1, np.uint8)
    valid = np.asarray(pc.is_valid(arr), dtype=np.bool_)
    micros = np.zeros(len(arr), dtype=np.int64)
    ok = np.zeros(len(arr), dtype=np.bool_)
    naive = np.zeros(len(arr), dtype=np.bool_)
    _column(data, offsets, valid, micros, ok, naive)
    bad = []
    for i in np.flatnonzero(valid & ~ok).tolist():  # the uncommon shapes only
        try:
            t = datetime.fromisoformat(arr[i].as_py())
        except ValueError:
            bad.append(i)
            continue
        # In whole microseconds: ``astimezone`` fails for an instant outside years 1 to 9999.
        micros[i] = (t.replace(tzinfo=None) - _EPOCH) // _MICROSECOND
        if t.tzinfo is None:
            naive[i] = True
        else:
            micros[i] -= t.utcoffset() // _MICROSECOND
        ok[i] = True
    stamps = pa.array(to_utc(micros, naive), pa.timestamp("us", tz="UTC"), mask=~ok)
    return stamps, np.array(bad, dtype=np.int64)


def to_utc(micros: np.ndarray, naive: np.ndarray) -> np.ndarray:
    """``micros`` with its ``naive`` entries, wall-clock times, read in ``schemas.hand.NAIVE_TIMEZONE``."""
    if not naive.any():
        return micros
    out = micros.copy()
    wall = micros[naive]
    out[naive] = wall - naive_offsets(wall, ofc.schemas.hand.NAIVE_TIMEZONE)
    return out


def naive_offsets(wall: np.ndarray, zone: tzinfo) -> np.ndarray:
    """The UTC offset (µs) ``zone`` gives each wall-clock time (µs since 1970), as Python does.

    That is ``datetime.replace(tzinfo=zone).utcoffset()``: a time the clocks skipped or repeated gets the
    offset from before the change. A fixed zone is one subtraction; any other is asked about each day the
    times fall on, not each time.
    """
    fixed = zone.utcoffset(None)
    if fixed is not None:
        return np.full(wall.shape, fixed // _MICROSECOND, dtype=np.int64)
    days, day = np.unique(wall // _DAY, return_inverse=True)
    per_day = np.array([_day(zone, first) for first in (days * _DAY).tolist()], np.int64).reshape(-1, 3)
    before, after, change = per_day[day.reshape(wall.shape)].T
    return np.where(wall >= change, after, before)


def _day(zone: tzinfo, first: int) -> tuple[int, int, int]:
    """A day's offsets at its start and its end, and the first wall-clock time (µs) with the latter.

    Found by bisection where they differ: no zone changes its offset twice in one day.
    """
    lo, hi = first, first + _DAY - 1
    before, after = _offset(zone, lo), _offset(zone, hi)
    while before != after and hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (mid, hi) if _offset(zone, mid) == before else (lo, mid)
    return before, after, hi


def _offset(zone: tzinfo, wall: int) -> int:
    """``zone``'s UTC offset (µs) at one wall-clock time, as Python reads a naive time in it."""
    return (_EPOCH + timedelta(microseconds=wall)).replace(tzinfo=zone).utcoffset() // _MICROSECOND


_EPOCH = datetime(1970, 1, 1)
_MICROSECOND = timedelta(microseconds=1)
_DAY = 86_400_000_000
