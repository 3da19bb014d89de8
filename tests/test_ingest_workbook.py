"""Excel workbooks of scoresheets: every sheet or those named, cells as Excel shows them, problems naming the
sheet and the row."""

from __future__ import annotations

import io
import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
import xlsxwriter
from typer.testing import CliRunner

from ofc.pipeline.cli import app
from ofc.pipeline.ingest import ingest, scoresheet
from ofc.pipeline.ingest.base import Problem
from ofc.pipeline.ingest.workbook import INGESTER, WorkbookError
from ofc.pipeline.lake.store import Lake
from ofc.schemas.hand import HandRecord
from tests.test_ingest_scoresheet import BOARDS, NAMES, SAMPLE

ROOT = Path(__file__).resolve().parents[1]
LEAGUE = ROOT / "data" / "samples" / "workbook" / "club-league.xlsx"
HEADER = ["Hand #", "Played at", "Name", "Front", "Mid", "Back", "FL", "Score"]

Cell = str | int | float | bool | datetime | None


def workbook(path: Path, sheets: dict[str, list[list[Cell]]], start: tuple[int, int] = (0, 0)) -> Path:
    """Write a workbook: each sheet's rows from ``start`` (row, column), cells in Excel's own types."""
    book = xlsxwriter.Workbook(str(path))
    when = book.add_format({"num_format": "yyyy-mm-dd hh:mm"})
    for name, rows in sheets.items():
        sheet = book.add_worksheet(name)
        for r, row in enumerate(rows):
            for c, cell in enumerate(row):
                at = (start[0] + r, start[1] + c)
                if isinstance(cell, datetime):
                    sheet.write_datetime(*at, cell, when)
                elif cell is not None:
                    sheet.write(*at, cell)
    book.close()
    return path


def night(first: int, points: tuple[int, int, int], when: datetime | None = None) -> list[list[Cell]]:
    """One hand of three players, as a club writes it: numbers as numbers, the date as a date cell."""
    return [
        [first, when, NAMES[i], *BOARDS[i], "Y" if i == 0 else "", points[i]]
        for i in range(3)  # three players
    ]


def read(path: Path, reader: Any = INGESTER) -> tuple[list[dict], list[Problem]]:
    data = path.read_bytes()
    chunks = list(reader.read(io.BytesIO(data), str(path)))
    assert sum(c.bytes_read for c in chunks) == len(data)
    return [r for c in chunks for r in c.records.to_pylist()], [p for c in chunks for p in c.problems]


def test_every_sheet_is_read_with_cells_as_excel_shows_them(tmp_path: Path) -> None:
    eight = datetime(2024, 11, 8, 19, 30)
    path = workbook(
        tmp_path / "league.xlsx",
        {"8 Nov": [HEADER, *night(1, (3, -1, -2), eight)], "15 Nov": [HEADER, *night(1, (-6, 2, 4))]},
        start=(2, 1),  # the header wherever the club put it
    )
    records, problems = read(path)
    assert problems == []
    assert [(r["hand_id"], r["session"]) for r in records] == [("1", "league 8 Nov 2024-11-08"), ("1", "league 15 Nov")]
    first = records[0]
    assert first["hand_number"] == 1  # the number cell 1, not "1.0"
    assert datetime.fromisoformat(first["played_at"]) == eight.replace(tzinfo=UTC)  # a date cell, not its serial
    assert [(p["name"], p["points"], p["fantasyland"]) for p in first["players"]] == [
        ("Ann", 3, True),
        ("Bo", -1, False),
        ("Carla", -2, False),
    ]
    assert first["players"][1]["middle"] == BOARDS[1][1].split()
    assert [p["points"] for p in records[1]["players"]] == [-6, 2, 4]
    for record in records:
        HandRecord.model_validate(record)


def test_a_bad_cell_names_its_sheet_row_and_column(tmp_path: Path) -> None:
    bad = night(2, (3, -1, -2))
    bad[1][-1] = 3.5  # a score with a fraction
    path = workbook(tmp_path / "league.xlsx", {"8 Nov": [HEADER, *night(1, (3, -1, -2))], "15 Nov": [HEADER, *bad]})
    records, problems = read(path)
    assert [r["session"] for r in records] == ["league 8 Nov"]
    (problem,) = problems
    assert problem.line == 3  # the cell's row as Excel numbers it
    assert problem.hand_id == "2"
    assert [i.text("league.xlsx") for i in problem.issues] == [
        "league.xlsx, sheet '15 Nov', row 3 (hand 2, Bo), column Score: not an integer: '3.5'"
    ]


def test_a_sheet_that_is_not_a_scoresheet_is_one_problem_and_the_others_are_read(tmp_path: Path) -> None:
    totals = [["Name", "Total"], ["Ann", 12], ["Bo", -12]]
    path = workbook(tmp_path / "league.xlsx", {"Totals": totals, "Empty": [], "8 Nov": [HEADER, *night(1, (1, 0, -1))]})
    records, problems = read(path)
    assert len(records) == 1
    (problem,) = problems
    assert problem.line == 1
    (issue,) = problem.issues
    assert issue.text("league.xlsx").startswith(
        "league.xlsx, sheet 'Totals', row 1: header: missing required column(s) hand, top, middle"
    )


def test_hands_of_a_sheet_follow_the_scoresheet_rules(tmp_path: Path) -> None:
    """The same checks as a CSV's, in the sheet's words: a hand split in two places, a player named twice."""
    rows = [HEADER, *night(1, (1, 0, -1)), *night(2, (1, 0, -1))[:2], night(1, (1, 0, -1))[0]]
    rows[2][2] = "Ann"
    path = workbook(tmp_path / "x.xlsx", {"S": rows})
    records, problems = read(path)
    assert [r["hand_id"] for r in records] == ["2"]
    assert [(p.line, p.hand_id) for p in problems] == [(3, "1"), (7, "1")]
    said = [[i.text("x.xlsx") for i in p.issues] for p in problems]
    assert said == [
        ["x.xlsx, sheet 'S', row 3 (hand 1, Ann), column Name: 'Ann' plays twice in the hand; the other is at row 2"],
        [
            "x.xlsx, sheet 'S', row 7 (hand 1): the hand's rows are not together: it starts at row 2 too",
            "x.xlsx, sheet 'S', row 7 (hand 1): 1 player: a hand has 2 to 4",
        ],
    ]


def test_the_sample_reads_as_its_csv_would(tmp_path: Path) -> None:
    """The CSV sample saved as a workbook reads into the same records but for the session."""
    lines = SAMPLE.read_text(encoding="utf-8").splitlines()
    cells: list[list[Cell]] = [lines[0].split(",")]
    for line in lines[1:]:
        date, number, name, seat, top, middle, bottom, fl, points = line.split(",")
        cells.append([datetime.fromisoformat(date), int(number), name, int(seat), top, middle, bottom, fl, int(points)])
    book_records, problems = read(workbook(tmp_path / "club-night.xlsx", {"Sheet1": cells}))
    assert problems == []
    chunks = list(scoresheet.INGESTER.read(io.BytesIO(SAMPLE.read_bytes()), str(SAMPLE)))
    csv_records = [r for c in chunks for r in c.records.to_pylist()]
    assert [r["session"] for r in book_records] == ["club-night Sheet1 2024-11-08"] * len(csv_records)
    for record in (*book_records, *csv_records):
        record.pop("session")
        record["played_at"] = datetime.fromisoformat(record["played_at"])
    assert book_records == csv_records


def test_the_sample_league_reproduces_its_points() -> None:
    records, problems = read(LEAGUE)
    assert problems == []
    assert len(records) == 8
    assert {r["session"] for r in records} == {"club-league 8 Nov 2024-11-08", "club-league 15 Nov 2024-11-15"}


def test_sheets_are_chosen_by_name(tmp_path: Path) -> None:
    path = workbook(tmp_path / "league.xlsx", {"8 Nov": [HEADER, *night(1, (1, 0, -1))], "15 Nov": [HEADER]})
    records, _ = read(path, INGESTER.with_sheets(["8 nov"]))  # case does not matter
    assert len(records) == 1
    with pytest.raises(WorkbookError, match=r"no sheet '8 Nvo'; did you mean '8 Nov'\? \(sheets: '8 Nov', '15 Nov'\)"):
        read(path, INGESTER.with_sheets(["8 Nvo"]))


def test_a_map_names_a_workbooks_own_columns(tmp_path: Path) -> None:
    german = ["Partie", "Spieler", "Vorne", "Mitte", "Hinten", "Punkte"]
    rows: list[list[Cell]] = [german, *([7, NAMES[i], *BOARDS[i], [1, -1][i]] for i in range(2))]
    path = workbook(tmp_path / "verein.xlsx", {"Abend": rows})
    assert read(path)[0] == []
    reader = INGESTER.with_columns(scoresheet.column_map("hand=Partie,player=Spieler,top=Vorne,middle=Mitte"))
    reader = reader.with_columns(scoresheet.column_map("bottom=Hinten,points=Punkte"))
    records, problems = read(path, reader)
    assert problems == []
    assert [p["points"] for p in records[0]["players"]] == [1, -1]


def test_sniff() -> None:
    assert INGESTER.sniff(LEAGUE.read_bytes()[:65536])
    assert not INGESTER.sniff(SAMPLE.read_bytes())
    assert not INGESTER.sniff(b"PK\x03\x04\x14\x00word/document.xml")  # a zipped document, not a workbook


def test_ingest_validate_and_score_read_workbooks(tmp_path: Path) -> None:
    runner = CliRunner()
    lake = tmp_path / "lake"
    done = runner.invoke(app, ["ingest", str(LEAGUE), "--lake", str(lake), "--json"])
    assert done.exit_code == 0, done.output
    summary = json.loads(done.output)
    assert summary["files"][0]["format"] == "workbook"
    assert summary["total"]["accepted"] == 8
    assert "ofc reproduces the 8 ofc hands with recorded points" in summary["files"][0]["rules"][0]
    one = runner.invoke(app, ["validate", str(LEAGUE), "--sheet", "15 Nov", "--json"])
    assert json.loads(one.output)["total"]["read"] == 4
    scored = runner.invoke(app, ["score", str(LEAGUE), "--sheet", "8 Nov", "--json"])
    assert scored.exit_code == 0, scored.output
    assert len(scored.output.splitlines()) == 4
    missing = runner.invoke(app, ["validate", str(LEAGUE), "--sheet", "22 Nov"])
    assert missing.exit_code == 1
    assert "no sheet '22 Nov'" in missing.output


def test_a_file_that_is_not_a_workbook_is_refused_whole(tmp_path: Path) -> None:
    path = tmp_path / "broken.xlsx"
    path.write_bytes(LEAGUE.read_bytes()[:3000])
    report = ingest([path], Lake(tmp_path / "lake"), fmt="workbook")
    (file,) = report.files
    assert file.error.startswith(f"{path}: not a readable Excel workbook")
    assert file.counts() == {"read": 0, "accepted": 0, "quarantined": 0, "duplicates": 0}


def test_a_stray_cell_far_away_is_a_problem_for_its_sheet_not_a_crash(tmp_path: Path) -> None:
    path = tmp_path / "stray.xlsx"
    book = xlsxwriter.Workbook(str(path))
    stray = book.add_worksheet("Stray")
    for r, row in enumerate([HEADER, *night(1, (1, 0, -1))]):
        stray.write_row(r, 0, row)
    stray.write(1_048_575, 16_383, "x")  # the last cell, XFD1048576
    good = book.add_worksheet("Good")
    for r, row in enumerate([HEADER, *night(1, (1, 0, -1))]):
        good.write_row(r, 0, row)
    book.close()
    records, problems = read(path)
    assert [r["session"] for r in records] == ["stray Good"]
    (problem,) = problems
    assert problem.reason.startswith("sheet 'Stray': its cells span 17,179,869,184 cells, over 10,000,000: not read")


def test_numbers_in_the_date_column(tmp_path: Path) -> None:
    """Digits far out of Excel's dates are read as text (20241108: ISO's basic form of the date), an unformatted
    serial number as the date Excel gives it; neither is taken for a date-time centuries away."""
    rows = [HEADER, *night(1, (1, 0, -1)), *night(2, (1, 0, -1))]
    rows[1][1] = 20241108
    rows[4][1] = 45604.5  # Excel's 2024-11-08 12:00, shown unformatted
    rows[5][1] = 2e15  # neither
    records, problems = read(workbook(tmp_path / "x.xlsx", {"S": rows}))
    assert [r["played_at"] for r in records] == ["2024-11-08T00:00:00+00:00"]
    (problem,) = problems
    assert [i.text("x.xlsx") for i in problem.issues] == [
        "x.xlsx, sheet 'S', row 6 (hand 2, Bo), column Played at: not a date: '2000000000000000' (write it as "
        "YYYY-MM-DD, with the time as HH:MM after it if wanted)"
    ]


def test_a_sheet_damaged_inside_the_zip_is_a_problem_not_a_crash(tmp_path: Path) -> None:
    # The zip's directory is whole, but a sheet's compressed bytes are not: reading the part fails in zlib.
    data = bytearray(LEAGUE.read_bytes())
    part = b"xl/worksheets/sheet1.xml"
    header = data.rindex(b"PK\x03\x04", 0, data.index(part))  # the part's local header
    start = header + 30 + len(part) + int.from_bytes(data[header + 28 : header + 30], "little")
    size = int.from_bytes(data[header + 18 : header + 22], "little")
    data[start + size // 3 : start + size // 3 + 24] = b"\xff" * 24
    path = tmp_path / "damaged.xlsx"
    path.write_bytes(bytes(data))
    report = ingest([path], Lake(tmp_path / "lake"), fmt="workbook")
    (file,) = report.files
    assert file.error or file.quarantined, "the damaged sheet is reported"
    assert file.balanced()
