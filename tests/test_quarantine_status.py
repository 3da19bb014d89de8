"""The quarantine tells what is still open: a record a later reading of its file accepted, quarantined again or no
longer found is resolved (the ``quarantine_status`` view), and ``ofc quarantine`` lists the open ones first, each
with the command that fixes it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ofc.pipeline.cli import app
from ofc.pipeline.cli.quarantine import fix_for
from ofc.pipeline.ingest.ingest_run import ingest
from ofc.pipeline.lake.store import Lake
from ofc.pipeline.query.db import connect

runner = CliRunner()

HEADER = "date,hand,player,top,middle,bottom,points"
HAND_1 = [
    "2024-11-08 19:42,1,Ann,Qh Qd 4c,8s 8h 8c Kd 3h,5s 6s 7s 9s Js,18",
    "2024-11-08 19:42,1,Bo,6h 6d 2c,7h 8d 9d Th Jc,Ah Ad Ac 5c 5d,-18",
]
HAND_2 = [
    "2024-11-08 19:55,2,Ann,8c 8d 3s,6c 6d 6h Jd Js,Ts Tc Th Td 2h,20",
    "2024-11-08 19:55,2,Bo,Ac Kd 5h,2c 3c 7c 9c Qc,4h 5d 6s 7h 9h,-20",
]
HAND_3 = [
    "2024-11-08 20:10,3,Ann,Jh Jd 5c,9s 9c Ks Kc 2d,As Ad Ah 4s 4c,-7",
    "2024-11-08 20:10,3,Bo,3d 3c Qs,Th Tc 7s 7d 2s,8s 8h 8d 6c 6d,7",
]
BAD_CARD = [HAND_2[0], HAND_2[1].replace("9h,", "9hh,")]
BAD_POINTS = [HAND_3[0].replace(",-7", ",-7.5"), HAND_3[1]]


def sheet(path: Path, *hands: list[str]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join([HEADER, *(row for hand in hands for row in hand)]) + "\n")
    return path


def status(lake: Lake) -> list[tuple]:
    """(batch, hand, status, resolved_by, how) of every quarantined record, oldest batch first, by hand."""
    with connect(lake.snapshot()) as con:
        return con.execute(
            "SELECT batch, hand_id, status, resolved_by, how FROM quarantine_status ORDER BY batch, hand_id"
        ).fetchall()


@pytest.fixture
def bad(tmp_path: Path) -> tuple[Lake, Path, str]:
    """A lake holding a sheet with two bad hands (a card '9hh', points '-7.5'); the sheet and its batch."""
    lake = Lake(tmp_path / "lake")
    path = sheet(tmp_path / "friday.csv", HAND_1, BAD_CARD, BAD_POINTS)
    report = ingest([path], lake)
    assert (report.totals.accepted, report.totals.quarantined) == (1, 2)
    assert report.batch is not None
    return lake, path, report.batch


def test_bad_hands_are_open_until_their_file_is_read_again(bad: tuple[Lake, Path, str]) -> None:
    lake, _, first = bad
    assert status(lake) == [(first, "2", "open", None, None), (first, "3", "open", None, None)]


@pytest.mark.parametrize(
    ("hands", "hand_3", "open_again"),
    [
        pytest.param([HAND_1, HAND_2, HAND_3], "accepted", [], id="corrected-sheet-accepts-both"),
        pytest.param([HAND_1, HAND_2, BAD_POINTS], "quarantined again", ["3"], id="hand-still-bad-is-open-again"),
        pytest.param([HAND_1, HAND_2], "no longer in the file", [], id="hand-left-out-of-the-sheet"),
    ],
)
def test_reading_the_sheet_again_resolves_each_bad_hand_by_what_became_of_it(
    bad: tuple[Lake, Path, str], hands: list[list[str]], hand_3: str, open_again: list[str]
) -> None:
    """Hand 2 is corrected every time; hand 3 is corrected, still bad (its new record is open) or left out."""
    lake, path, first = bad
    second = ingest([sheet(path, *hands)], lake, replace=True).batch
    assert status(lake) == [
        (first, "2", "resolved", second, "accepted"),
        (first, "3", "resolved", second, hand_3),
        *((second, hand, "open", None, None) for hand in open_again),
    ]
    with connect(lake.snapshot()) as con:
        (still_open,) = con.execute("SELECT count(*) FROM quarantine_status WHERE status = 'open'").fetchone()
    assert still_open == len(open_again)


def test_the_corrected_sheet_saved_elsewhere_under_the_same_name_resolves(
    bad: tuple[Lake, Path, str], tmp_path: Path
) -> None:
    lake, _, first = bad
    other = ingest([sheet(tmp_path / "other" / "thursday.csv", HAND_1)], lake).batch
    assert [s for _, _, s, _, _ in status(lake)] == ["open", "open"]  # another file: nothing said about these
    moved = ingest([sheet(tmp_path / "fixed" / "friday.csv", HAND_1, HAND_2, HAND_3)], lake, replace=True).batch
    assert moved is not None
    assert moved > other
    assert status(lake) == [
        (first, "2", "resolved", moved, "accepted"),
        (first, "3", "resolved", moved, "accepted"),
    ]


def test_a_hand_accepted_after_a_reading_that_quarantined_it_again_is_resolved_as_accepted(
    bad: tuple[Lake, Path, str],
) -> None:
    lake, path, first = bad
    second = ingest([sheet(path, HAND_1, HAND_2, BAD_POINTS)], lake, replace=True).batch
    third = ingest([sheet(path, HAND_1, HAND_2, HAND_3)], lake, replace=True).batch
    assert status(lake) == [
        (first, "2", "resolved", second, "accepted"),
        (first, "3", "resolved", third, "accepted"),
        (second, "3", "resolved", third, "accepted"),
    ]


def _quarantine(lake: Lake, *args: str) -> str:
    result = runner.invoke(app, ["quarantine", "--lake", str(lake.root), *args])
    assert result.exit_code == 0, result.output
    return result.output


def _statuses(text: str) -> list[str]:
    """The status of each record of the table, in its order (a record's first line starts with it)."""
    cells = [line.split("│")[1].strip() for line in text.splitlines() if line.startswith("│")]
    return [c for c in cells if c in ("open", "resolved")]


def test_ofc_quarantine_lists_the_open_ones_first_with_their_fix(bad: tuple[Lake, Path, str]) -> None:
    lake, path, _ = bad
    before = _quarantine(lake)
    assert before.startswith("2 open, 0 resolved")
    assert _statuses(before) == ["open", "open"]
    fix = f"correct the sheet, then: ofc ingest --replace --lake {lake.root} {path}"
    assert f"to fix them:\n  {fix}  (2 records)" in before
    assert "correct the sheet, then" in before.split("to fix them:")[0]  # in each record's row too
    ingest([sheet(path, HAND_1, HAND_2, BAD_POINTS)], lake, replace=True)
    text = _quarantine(lake)
    assert text.startswith("1 open, 2 resolved")
    assert _statuses(text) == ["open", "resolved", "resolved"]
    assert f"{fix}  (1 record)" in text
    assert "accepted" in text
    assert "quarantined" in text


def test_only_the_latest_corrections_resolved_records_are_shown_unless_all(bad: tuple[Lake, Path, str]) -> None:
    lake, path, _ = bad
    ingest([sheet(path, HAND_1, HAND_2, BAD_POINTS)], lake, replace=True)
    ingest([sheet(path, HAND_1, HAND_2, HAND_3)], lake, replace=True)
    # hand 2 was resolved by the second batch, hand 3's two records by the third, the latest correction
    text = _quarantine(lake)
    assert text.startswith("0 open, 3 resolved")
    assert _statuses(text) == ["resolved", "resolved"]
    assert "1 resolved not shown (--all shows them)" in text
    assert "to fix them" not in text
    assert _statuses(_quarantine(lake, "--all")) == ["resolved"] * 3


def test_json_lines_hold_every_column_and_status_how_and_fix(bad: tuple[Lake, Path, str]) -> None:
    lake, path, _ = bad
    ingest([sheet(path, HAND_1, HAND_2, BAD_POINTS)], lake, replace=True)
    records = [json.loads(line) for line in _quarantine(lake, "--json").splitlines()]
    assert [(r["hand_id"], r["status"], r["how"]) for r in records] == [
        ("3", "open", None),
        ("2", "resolved", "accepted"),
        ("3", "resolved", "quarantined again"),
    ]
    columns = {"batch", "source_file", "line", "byte_offset", "hand_id", "reason", "raw", "resolved_by"}
    assert columns | {"status", "how", "fix"} == set(records[0])
    assert records[0]["fix"].endswith(f"ofc ingest --replace --lake {lake.root} {path}")
    assert records[1]["fix"] is None
    assert len([json.loads(line) for line in _quarantine(lake, "--json", "--limit", "1").splitlines()]) == 1


@pytest.mark.parametrize(
    ("reason", "fix"),
    [
        ("players[1].bottom[4]: not a card: '9hh'", "correct the sheet, then: ofc ingest --replace club.csv"),
        (
            "hand 3 of session 'club 2024-11-08' from scoresheet was imported before with other cards; to correct "
            "it, ingest the corrected file with --replace",
            "if the file is right: ofc ingest --replace club.csv",
        ),
        (
            "header: missing required column(s) top, middle (found: date, hand, player, vorne, mitte, bottom)",
            "ofc ingest --replace --map top=LABEL,middle=LABEL club.csv",
        ),
        (
            "sheet '8 Nov', row 1: header: missing required column(s) top (found: vorne)",
            "ofc ingest --replace --map top=LABEL club.csv",
        ),
        ("variant: missing", "ofc ingest --replace --variant VARIANT club.csv"),
        ("variant: the record says 'ofc'; --variant says 'pineapple'", "then: ofc ingest --replace club.csv"),
    ],
)
def test_each_kind_of_reason_has_its_fix(reason: str, fix: str) -> None:
    assert fix_for(reason, "club.csv").endswith(fix)


def test_a_fix_names_the_archive_and_quotes_a_path_with_spaces() -> None:
    assert fix_for("not valid JSON: x", "my hands/nov.zip!week 2/a.jsonl") == (
        "correct the file, then: ofc ingest --replace 'my hands/nov.zip'"
    )
