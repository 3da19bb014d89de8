"""A hand is a duplicate only when it is the same hand with the same content; anything else that collides with
a hand already there is quarantined with its reason, never dropped."""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path

import numpy as np
import pytest

from ofc.pipeline.ingest.duplicates import CONFLICT_CARDS, CONFLICT_DEAL, CONFLICT_DETAILS, DUPLICATE, NEW, Known
from ofc.pipeline.ingest.ingest_run import IngestReport, ingest
from ofc.pipeline.lake.store import Lake
from ofc.pipeline.paths import SAMPLES
from ofc.pipeline.query.db import connect

EXAMPLES = SAMPLES / "worked-examples.jsonl"
CLUB = SAMPLES / "scoresheet" / "club-night.csv"


def records() -> list[dict]:
    return [json.loads(line) for line in EXAMPLES.read_text().splitlines()]


def write(path: Path, recs: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in recs))
    return path


def counts(report: IngestReport) -> tuple[int, int, int, int]:
    t = report.totals
    assert t.read == t.accepted + t.quarantined + t.duplicates
    return t.read, t.accepted, t.quarantined, t.duplicates


def reasons(lake: Lake) -> list[str]:
    with connect(lake) as con:
        return [r[0] for r in con.execute("SELECT reason FROM quarantine ORDER BY line").fetchall()]


def changed(record: dict, **what: object) -> dict:
    out = copy.deepcopy(record)
    for path, value in what.items():
        target = out
        *head, last = path.split("__")
        for part in head:
            target = target[int(part)] if part.isdigit() else target[part]
        target[int(last) if last.isdigit() else last] = value
    return out


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        ({"players__0__top": ["Qh", "Qd", "5c"]}, "imported before with other cards"),
        ({"players__0__points": 7, "players__1__points": -7}, "the same cards but other points, players or times"),
        ({"players__1__name": "Someone else"}, "the same cards but other points, players or times"),
        ({"played_at": "2024-01-02T03:04:05Z"}, "the same cards but other points, players or times"),
    ],
)
def test_the_same_hand_id_with_other_content_is_quarantined(tmp_path: Path, change: dict, expected: str) -> None:
    lake = Lake(tmp_path / "lake")
    recs = records()
    assert counts(ingest([write(tmp_path / "a.jsonl", recs)], lake)) == (4, 4, 0, 0)
    again = [changed(recs[0], **change), *recs[1:]]
    assert counts(ingest([write(tmp_path / "b.jsonl", again)], lake)) == (4, 0, 1, 3)
    [reason] = reasons(lake)
    assert reason.startswith("hand E1")
    assert expected in reason
    with connect(lake) as con:  # the lake keeps the first version, whole
        assert con.execute("SELECT count(*) FROM hands").fetchone()[0] == 4


def test_within_one_file_too(tmp_path: Path) -> None:
    recs = records()
    other = changed(recs[0], players__0__top=["Qh", "Qd", "5c"])
    report = ingest([write(tmp_path / "a.jsonl", [*recs, recs[0], other])], Lake(tmp_path / "lake"))
    assert counts(report) == (6, 4, 1, 1)


def test_the_same_cards_under_another_id(tmp_path: Path) -> None:
    recs = records()
    lake = Lake(tmp_path / "lake")
    ingest([write(tmp_path / "a.jsonl", recs)], lake)
    renamed = changed(recs[1], hand_id="E2-again")  # a renamed file: the same hand, the same record
    differs = changed(recs[2], hand_id="E3-again", players__0__points=99, players__1__points=-99)  # other details
    assert counts(ingest([write(tmp_path / "b.jsonl", [renamed, differs])], lake)) == (2, 0, 1, 1)
    [reason] = reasons(lake)
    assert "the same cards and seats as a hand already imported under another id" in reason


def test_a_rejected_hand_never_makes_a_later_one_a_duplicate(tmp_path: Path) -> None:
    recs = records()
    lake = Lake(tmp_path / "lake")
    ingest([write(tmp_path / "a.jsonl", recs[:1])], lake)
    conflict = changed(recs[0], players__0__top=["Qh", "Qd", "5c"])  # E1 again with other cards: quarantined
    new = changed(conflict, hand_id="E1-next")  # a new hand with those cards: new, since E1's copy was refused
    invalid = changed(recs[1], hand_id="bad", players__0__top=["Qh", "Qd"])  # rejected by the checks
    valid = changed(recs[1], hand_id="E2-next")
    report = ingest([write(tmp_path / "b.jsonl", [conflict, new, invalid, valid])], lake)
    assert counts(report) == (4, 2, 2, 0)
    with connect(lake) as con:
        ids = {r[0] for r in con.execute("SELECT hand_id FROM hands").fetchall()}
    assert {"E1-next", "E2-next"} <= ids
    # Nothing left to accept later: a second run finds every accepted hand there and the conflict still refused.
    report = ingest([write(tmp_path / "c.jsonl", [conflict, new, valid])], lake)
    assert counts(report) == (3, 0, 1, 2)


def _other_night(text: str, day: str) -> str:
    """The same sheet on another day with other cards (every suit swapped)."""
    swap = {"h": "d", "d": "h", "c": "s", "s": "c"}
    lines = text.splitlines()
    out = [lines[0]]
    for line in lines[1:]:
        cells = line.split(",")
        cells[0] = cells[0].replace("2024-11-08", day)
        for i in (4, 5, 6):
            cells[i] = re.sub(r"([2-9TJQKA])([hdcs])", lambda m: m.group(1) + swap[m.group(2)], cells[i])
        out.append(",".join(cells))
    return "\n".join(out) + "\n"


def test_two_club_nights_in_files_of_one_name_are_two_sessions(tmp_path: Path) -> None:
    (tmp_path / "nov08").mkdir()
    (tmp_path / "nov15").mkdir()
    first = tmp_path / "nov08" / "club-night.csv"
    first.write_text(CLUB.read_text())
    second = tmp_path / "nov15" / "club-night.csv"
    second.write_text(_other_night(CLUB.read_text(), "2024-11-15"))
    lake = Lake(tmp_path / "lake")
    assert counts(ingest([first], lake)) == (6, 6, 0, 0)
    assert counts(ingest([second], lake)) == (6, 6, 0, 0)
    with connect(lake) as con:
        sessions = con.execute("SELECT session, count(*) FROM hands GROUP BY 1 ORDER BY 1").fetchall()
    assert sessions == [("club-night 2024-11-08", 6), ("club-night 2024-11-15", 6)]


def test_a_corrected_sheet_is_quarantined_hand_by_hand(tmp_path: Path) -> None:
    lines = CLUB.read_text().splitlines()
    lines[1] = lines[1].replace(",20", ",14")  # hand 1: Ann's points and one of Carla's cards corrected
    lines[3] = lines[3].replace("Kc 9c 2d", "Kc 9c 3s").replace(",-36", ",-30")
    corrected = tmp_path / "fixed" / "club-night.csv"
    corrected.parent.mkdir()
    corrected.write_text("\n".join(lines) + "\n")
    lake = Lake(tmp_path / "lake")
    ingest([CLUB], lake)
    assert counts(ingest([corrected], lake)) == (6, 0, 1, 5)
    [reason] = reasons(lake)
    assert reason.startswith("hand 1 of session 'club-night 2024-11-08'")
    assert "other cards" in reason


def test_classify_in_source_order() -> None:
    u = np.uint64
    known = Known(lambda: (np.array([1], u), np.array([10], u), np.array([100], u)))
    key = np.array([1, 1, 2, 3, 3, 4, 5], u)
    deal = np.array([10, 11, 10, 12, 12, 12, 13], u)
    record = np.array([100, 101, 100, 102, 103, 104, 0], u) + u(0)
    record[6] = 105
    line = np.array([1, 2, 3, 4, 5, 6, 7])
    status = known.classify(key, deal, record, line).tolist()
    assert status == [DUPLICATE, CONFLICT_CARDS, DUPLICATE, NEW, CONFLICT_DETAILS, CONFLICT_DEAL, NEW]
    # What was accepted is remembered for the next chunk; the refused are not.
    status = known.classify(np.array([3, 5, 6], u), np.array([12, 13, 11], u), np.array([102, 105, 101], u), line[:3])
    assert status.tolist() == [DUPLICATE, DUPLICATE, NEW]


def test_hands_committed_before_records_were_hashed_compare_by_deal() -> None:
    u = np.uint64
    known = Known(lambda: (np.array([1], u), np.array([10], u), np.array([0], u)))
    status = known.classify(np.array([1, 1], u), np.array([10, 11], u), np.array([7, 8], u), np.array([1, 2]))
    assert status.tolist() == [DUPLICATE, CONFLICT_CARDS]
