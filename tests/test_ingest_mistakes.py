"""A club's scoresheet with the mistakes clubs make, and what ``ofc validate`` must say of each: the row as the
sheet shows it, the hand, the player and the column as the header names it, one line a problem. The same sheets
as workbooks say the same, in the workbook's words (its sheet and row).

The sheets are in ``tests/data/scoresheets/``: ``friday.csv`` is a Pineapple night of eight hands typed right, and
every other file is it with one kind of mistake.
"""

from __future__ import annotations

import csv
import re
from pathlib import Path

import pytest
import xlsxwriter
from typer.testing import CliRunner

from ofc.pipeline.cli import app

SHEETS = Path(__file__).resolve().parent / "data" / "scoresheets"
SHEET = "Friday"
runner = CliRunner()

CARD_TWICE = "Js is dealt twice in this hand; the other is at line 8 (Ann), column Back"
SWAPPED = "every row has 5 cards under Front and 3 under Back: are the two headers swapped?"
SPELLED = (
    "'Katrin' (7 lines) and 'Katrine' (1 line) look like one player written two ways: correct the sheet, or make "
    "one an alias of the other in ofc.toml ([aliases])"
)
NOT_A_DATE = "column Date: not a date as YYYY-MM-DD"
ROWS_5 = list(zip((5, 6, 7), ("Ann", "Bo", "Katrin"), strict=True))
ROWS_8 = list(zip((8, 9, 10), ("Ann", "Bo", "Katrin"), strict=True))

# Each sheet: the lines ofc validate prints for it (its name stands for the file), and whether it has bad records.
MISTAKES: dict[str, tuple[list[str], bool]] = {
    "friday": ([], False),
    "bad-card": (["{f}:7 (hand 2, Katrin), column Front: not a card: '9hh'"], True),
    "card-twice": ([f"{{f}}:9 (hand 3, Bo), column Front: {CARD_TWICE}"], True),
    "missing-score": (
        ["{f}:14 (hand 5, Ann), column Score: missing, while the others have theirs (Bo +30, Katrin -9)"],
        True,
    ),
    "score-as-text": (["{f}:12 (hand 4, Bo), column Score: not an integer: 'minus 7'"], True),
    "scores-off": (["{f}:17-19 (hand 6), column Score: they sum to +3, not 0 (Ann +28, Bo -27, Katrin +2)"], True),
    "shifted-row": (
        ["{f}:10 (hand 3, Katrin): 7 cells where the header has 8: a cell is missing, or the row is shifted"],
        True,
    ),
    "swapped-headers": ([f"{{f}}:{a}-{a + 2} (hand {h}): {SWAPPED}" for h, a in enumerate(range(2, 26, 3), 1)], True),
    "name-two-ways": ([f"{{f}}: {SPELLED}"], False),
    "title-and-blank-rows": (["{f}: line 1: read as the sheet's title, above its header"], False),
    "dates-three-ways": (
        [
            *(f"{{f}}:{n} (hand 2, {p}), {NOT_A_DATE}: '20/11/2026 20:20' (write 2026-11-20 20:20)" for n, p in ROWS_5),
            *(f"{{f}}:{n} (hand 3, {p}), {NOT_A_DATE}: '20.11.2026 20:25' (write 2026-11-20 20:25)" for n, p in ROWS_8),
        ],
        True,
    ),
}


WORKBOOK = {
    # A workbook's rows have a cell under every header: a cell left out shifts the rest, and the first that no
    # longer fits its column is named.
    "shifted-row": (["{f}:10 (hand 3, Katrin), column FL: not true/false/yes/no/y/n/1/0: '2'"], True),
}
"""Where a workbook says something else than the CSV, and why."""


def _workbook(csv_path: Path, out: Path) -> Path:
    """The sheet as a club's workbook: one sheet, every cell typed as the CSV has it, blank cells left empty."""
    book = xlsxwriter.Workbook(str(out))
    sheet = book.add_worksheet(SHEET)
    for r, row in enumerate(csv.reader(csv_path.open(encoding="utf-8"))):
        for c, value in enumerate(row):
            if value:
                sheet.write_string(r, c, value)
    book.close()
    return out


def _in_workbook(line: str, name: str) -> str:
    """A CSV's line as the same sheet in a workbook says it: its sheet and rows where the CSV has lines."""
    line = re.sub(r"^\{f\}:(\d+)-(\d+)", rf"{name}, sheet '{SHEET}', rows \1-\2", line)
    line = re.sub(r"^\{f\}:(\d+)", rf"{name}, sheet '{SHEET}', row \1", line)
    line = line.replace("{f}: line ", f"{name}: sheet '{SHEET}', row ").replace("{f}: '", f"{name}: sheet '{SHEET}': '")
    return (
        line.replace("{f}", name).replace(" line ", " row ").replace(" lines)", " rows)").replace("1 line)", "1 row)")
    )


def _said(path: Path, *options: str) -> tuple[list[str], int]:
    result = runner.invoke(app, ["validate", str(path), "--variant", "pineapple", *options])
    return [line for line in result.output.splitlines() if line.startswith(path.name)], result.exit_code


def _mistakes(lines: list[str]) -> list[str]:
    """The lines about the sheet's mistakes, without what recognising the rules of its recorded points says."""
    return [line for line in lines if "reproduces" not in line]


def _relative(path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(path.parent)
    return Path(path.name)


@pytest.mark.parametrize("case", MISTAKES)
def test_each_mistake_is_said_at_its_cell(case: str, monkeypatch: pytest.MonkeyPatch) -> None:
    expected, bad = MISTAKES[case]
    path = _relative(SHEETS / f"{case}.csv", monkeypatch)
    lines, code = _said(path)
    expected_lines = [e.replace("{f}", path.name) for e in expected]
    assert _mistakes(lines) == expected_lines
    assert code == (1 if bad else 0)


@pytest.mark.parametrize("case", MISTAKES)
def test_a_workbook_says_the_same_in_its_words(case: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    expected, bad = WORKBOOK.get(case, MISTAKES[case])
    book = _relative(_workbook(SHEETS / f"{case}.csv", tmp_path / f"{case}.xlsx"), monkeypatch)
    lines, code = _said(book)
    assert _mistakes(lines) == [_in_workbook(e, book.name) for e in expected]
    assert code == (1 if bad else 0)


def test_a_mapped_column_the_sheet_does_not_have_names_the_closest(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = _relative(SHEETS / "german-headers.csv", monkeypatch)
    lines, code = _said(path, "--map", "hand=Partie,player=Spieler,date=Datm")
    assert lines == [
        f"{path.name}:1: --map date=datm: the header has no column 'datm'; did you mean 'Datum'? (its columns: "
        "Datum, Partie, Spieler, Front, Mid, Back, FL, Punkte)"
    ]
    assert code == 1
    lines, code = _said(path, "--map", "hand=Partie,player=Spieler,date=Datum,points=Punkte")
    assert _mistakes(lines) == []
    assert code == 0
