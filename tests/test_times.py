"""Naive ``played_at`` times read in ``schemas.hand.NAIVE_TIMEZONE`` the same way on every path.

The compiled readers (the JSONL scanner, and the bulk parser the validator uses) must give the instant
Python gives: ``datetime.fromisoformat(text).replace(tzinfo=NAIVE_TIMEZONE)`` for a naive time, the
time's own offset otherwise, whatever the zone (fixed, with summer time, with half-hour shifts).
"""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta, timezone, tzinfo
from zoneinfo import ZoneInfo

import numpy as np
import pyarrow as pa
import pytest

import ofc.schemas.hand
from ofc.pipeline.ingest.times import parse_times
from ofc.schemas.hand import HandRecord
from tests.test_ingest_scan import assert_same_both_ways, read_jsonl, sorted_rows

ZONES = [
    ZoneInfo("Europe/Berlin"),
    ZoneInfo("America/St_Johns"),
    ZoneInfo("Australia/Lord_Howe"),
    timezone(timedelta(hours=-5, minutes=-45)),
    UTC,
]
TEXTS = [
    "2026-11-01T20:00:00",
    "2026-07-01T20:00:00",
    "2026-07-01T20:00:00.123",
    "2026-07-01T20:00:00.123456",
    "2026-11-01T20:00:00Z",
    "2026-11-01T20:00:00.123Z",
    "2026-11-01T20:00:00.123456Z",
    "2026-11-01T20:00:00+02:00",
    "2026-11-01T20:00:00.123456+05:30",
    "2026-11-01T20:00:00-03:30",
    "2026-11-01T20:00:00.123-08:00",
    "2026-03-29T02:30:00",  # Berlin: a time that never was (clocks went 02:00 -> 03:00)
    "2026-10-25T02:30:00",  # Berlin: a time that was twice (clocks went 03:00 -> 02:00)
    "2026-03-29T02:59:59.999999",  # Berlin: the last microsecond of the earlier offset, then the first of the later
    "2026-03-29T03:00:00",
    "2026-10-25T02:59:59.999999",
    "2026-10-25T03:00:00",
    "2026-03-08T02:30:00.250",  # St John's: never was
    "2026-11-01T01:30:00",  # St John's: twice
    "2026-04-05T01:45:00",  # Lord Howe: twice (a half-hour shift)
    "2026-10-04T02:15:00",  # Lord Howe: never was
    "1893-04-01T00:03:00",  # Berlin's change from local mean time
    "2026-11-01 20:00:00",  # the next three are not the scanner's shape: the general path reads them
    "2026-11-01",
    "2026-11-01T20:00:00.5Z",
]
NOT_SCANNED = 3
EDGES = ["0001-01-01T00:00:00", "0001-01-01 00:00:00+01:00", "9999-12-31T23:59:59.999999", "9999-12-31"]
"""Naive times whose instant may lie outside years 1 to 9999."""
_EPOCH = datetime(1970, 1, 1)
_MICROSECOND = timedelta(microseconds=1)


def _record(i: int, played_at: str) -> dict:
    """A plain OFC hand, the scanner's common case but for its time."""
    ann = {"name": "ann", "top": ["As", "Ad", "2c"], "middle": ["Kh", "Kd", "3c", "4c", "5d"]}
    bob = {"name": "bob", "top": ["Qs", "Jd", "2d"], "middle": ["Th", "Td", "3d", "4d", "6d"]}
    ann["bottom"] = ["7h", "8h", "9h", "Jh", "2h"]
    bob["bottom"] = ["7s", "8s", "9s", "Js", "2s"]
    return {"hand_id": f"h{i}", "variant": "ofc", "played_at": played_at, "players": [ann, bob]}


def _python_micros(text: str, zone: tzinfo) -> int:
    """Python's reading of ``text`` as UTC microseconds, naive in ``zone`` (``astimezone`` without its
    limit to years 1 to 9999)."""
    t = datetime.fromisoformat(text)
    t = t if t.tzinfo else t.replace(tzinfo=zone)
    return (t.replace(tzinfo=None) - _EPOCH) // _MICROSECOND - t.utcoffset() // _MICROSECOND


@pytest.mark.parametrize("zone", ZONES, ids=str)
def test_scanner_and_general_path_read_naive_times_in_the_naive_zone(
    zone: tzinfo, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each time through the scanner, and through Arrow's reader and the validator, is the instant the
    record model gives it."""
    monkeypatch.setattr(ofc.schemas.hand, "NAIVE_TIMEZONE", zone)
    records = [_record(i, text) for i, text in enumerate(TEXTS)]
    data = "".join(json.dumps(r) + "\n" for r in records).encode()
    taken, accepted = assert_same_both_ways(data, pytest.MonkeyPatch())  # undoes only its own patches
    assert (taken, accepted) == (len(TEXTS) - NOT_SCANNED, len(TEXTS))
    played = [row["played_at"] for row in sorted_rows(read_jsonl(data)[0])["hands"]]
    assert played == [HandRecord.model_validate(r).played_at.astimezone(UTC) for r in records]
    micros = [(t.replace(tzinfo=None) - _EPOCH) // _MICROSECOND for t in played]
    assert micros == [_python_micros(t, zone) for t in TEXTS]


@pytest.mark.parametrize("zone", ZONES, ids=str)
def test_bulk_times_read_naive_times_in_the_naive_zone(zone: tzinfo, monkeypatch: pytest.MonkeyPatch) -> None:
    """A year of naive times 7 minutes 13.25 seconds apart (past every change of the clocks), random times
    of any year in every shape, and the odd shapes Python's parser reads."""
    monkeypatch.setattr(ofc.schemas.hand, "NAIVE_TIMEZONE", zone)
    rng = np.random.default_rng(17)
    start = datetime(2026, 1, 1)
    texts = [(start + timedelta(seconds=433.25 * k)).isoformat(timespec="milliseconds") for k in range(72_800)]
    for _ in range(3000):
        t = datetime(1, 1, 2) + timedelta(seconds=int(rng.integers(0, 315_000_000_000)))
        t = t.replace(microsecond=int(rng.integers(0, 1_000_000)))
        offset = timezone(timedelta(minutes=int(rng.integers(-23 * 60 - 59, 23 * 60 + 60))))
        shapes = [
            t.isoformat(timespec="seconds"),
            t.isoformat(timespec="microseconds"),
            t.isoformat(timespec="milliseconds") + "Z",
            t.replace(tzinfo=offset).isoformat(timespec="microseconds"),
            t.isoformat(sep=" ", timespec="seconds"),
        ]
        texts.append(shapes[int(rng.integers(0, len(shapes)))])
    texts += TEXTS
    stamps, bad = parse_times(pa.array([*texts, None, "not a time"]))
    assert bad.tolist() == [len(texts) + 1]
    assert stamps.cast(pa.int64()).to_pylist() == [*(_python_micros(t, zone) for t in texts), None, None]


@pytest.mark.parametrize("zone", ZONES, ids=str)
def test_instants_beyond_the_calendar_are_read(zone: tzinfo, monkeypatch: pytest.MonkeyPatch) -> None:
    """A time near year 1 or 9999 whose instant is outside them is still read, on both of the bulk
    parser's paths (compiled and Python's)."""
    monkeypatch.setattr(ofc.schemas.hand, "NAIVE_TIMEZONE", zone)
    stamps, bad = parse_times(pa.array(EDGES))
    assert bad.size == 0
    assert stamps.cast(pa.int64()).to_pylist() == [_python_micros(t, zone) for t in EDGES]
