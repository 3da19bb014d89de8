"""Scoresheets kept as Excel workbooks (``.xlsx``, ``.xlsm``): each sheet read as a scoresheet.

A sheet holds what a scoresheet CSV holds (``pipeline.ingest.scoresheet``): a
header row naming the columns, by the same names and the same other names
(``--map`` too), then one row per player per hand. The header is the sheet's
first non-empty row, wherever it is. Every sheet is read, or only those
``--sheet`` names. A sheet with nothing in it is passed over. A sheet whose
first row is not a scoresheet header is one problem, as a CSV file's would be.

Problems name the sheet and the row as Excel numbers them, with the column as
the header names it: ``sheet 'Night 1', row 7, column Score: not an integer:
'3.5'``. A hand's ``line`` in the quarantine is its first row's number.

Cells are read as Excel shows their values: a whole number as ``3``, not
``3.0``; a date cell in the ``date`` column as the date and time it shows
(calamine reads the workbook's date system). Each sheet is its own session by
default, ``<file> <sheet>`` (and the day of its first dated hand), so that
hand 1 of two sheets is two hands.

The workbook is parsed by calamine (through ``fastexcel``, the engine of
polars' ``read_excel``) into Arrow columns of text. Rows then go through the
scoresheet's reader one by one, as a CSV's lines do.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from typing import Any, BinaryIO

import pyarrow as pa

from pipeline.errors import InputError
from pipeline.ingest.base import Chunk, Problem
from pipeline.ingest.scoresheet import SheetReader, file_stem
from pipeline.suggest import closest, did_you_mean

ZIP = b"PK\x03\x04"
PARTS = (b"xl/workbook", b"xl/worksheets/", b"xl/_rels/", b"xl/styles")
"""Names inside an Office Open XML zip that only a workbook has (a document has ``word/``, slides ``ppt/``)."""
MAX_BYTES = 1 << 30
"""Largest workbook read: it is parsed whole in memory."""
_NUMBER = re.compile(r"-?[0-9]+(\.[0-9]+)?([eE][+-]?[0-9]+)?")


class WorkbookError(InputError):
    """A workbook that cannot be opened, or a sheet asked for that it does not have."""


class WorkbookIngester:
    """Excel workbooks of scoresheets, every sheet or those named."""

    name = "workbook"

    def __init__(self, mapped: Mapping[str, str] | None = None, sheets: Sequence[str] = ()) -> None:
        self.mapped = dict(mapped or {})
        """The sheets' own column names (``--map``)."""
        self.sheets = tuple(sheets)
        """The sheets to read (``--sheet``); empty: every sheet."""

    def plain(self) -> WorkbookIngester:
        return self

    def with_columns(self, mapped: Mapping[str, str]) -> WorkbookIngester:
        return WorkbookIngester({**self.mapped, **mapped}, self.sheets)

    def with_sheets(self, sheets: Sequence[str]) -> WorkbookIngester:
        return WorkbookIngester(self.mapped, sheets)

    def sniff(self, head: bytes) -> bool:
        """A zip whose first entries are a workbook's parts."""
        return head.startswith(ZIP) and any(part in head for part in PARTS)

    def read(self, stream: BinaryIO, source: str) -> Iterator[Chunk]:
        import fastexcel

        data = stream.read(MAX_BYTES + 1)
        if len(data) > MAX_BYTES:
            raise WorkbookError(f"{source}: a workbook over {MAX_BYTES:,} bytes is not read (save it as CSV)")
        try:
            book = fastexcel.read_excel(data)
        except (fastexcel.FastExcelError, OSError, ValueError) as exc:
            raise WorkbookError(f"{source}: not a readable Excel workbook ({_first_line(exc)})") from None
        names = [str(name) for name in book.sheet_names]
        stem = file_stem(source) or "workbook"
        chunks = 0
        for sheet in self._chosen(names, source):
            reader = SheetReader(source, self.mapped, stem=f"{stem} {sheet}", sheet=sheet)
            try:
                rows = _rows(book, sheet, reader)
            except fastexcel.FastExcelError as exc:  # one broken sheet: the others are still read
                reader.failed = True
                reader.problems.append(Problem(1, 0, f"sheet {sheet!r}: cannot be read ({_first_line(exc)})"))
                rows = iter(())
            if rows is None:
                continue
            for line, cells in rows:
                reader.feed_cells(line, cells)
            reader.finish()
            chunks += 1
            yield reader.chunk(0)
        if not chunks:
            reader = SheetReader(source, self.mapped, sheet=names[0] if names else "")
            reader.finish()
            yield reader.chunk(0)
        yield Chunk.from_dicts([], [], [], [], len(data))

    def _chosen(self, names: list[str], source: str) -> list[str]:
        """The sheets to read, in the workbook's order; a name it does not have is an error with the closest."""
        if not self.sheets:
            return names
        folded = {name.casefold(): name for name in names}
        chosen = set()
        for asked in self.sheets:
            found = folded.get(asked.casefold())
            if found is None:
                hint = did_you_mean(closest(asked, names))
                raise WorkbookError(f"{source}: no sheet {asked!r}{hint} (sheets: {', '.join(map(repr, names))})")
            chosen.add(found)
        return [name for name in names if name in chosen]


def _first_line(exc: BaseException) -> str:
    return (str(exc).strip().splitlines() or [type(exc).__name__])[0]


def _rows(book: Any, sheet: str, reader: SheetReader) -> Iterator[tuple[int, list[str]]] | None:
    """(row number, cells as text) of each row of a sheet; None for an empty sheet.

    The date column's date cells are read a second time as dates: as text calamine gives their serial number.
    """
    table = book.load_sheet(sheet, header_row=None, skip_rows=0, dtypes="string", eager=True)
    if table.num_rows == 0 or table.num_columns == 0:
        return None
    columns = [col.to_pylist() for col in table.columns]
    names = table.schema.names

    def rows() -> Iterator[tuple[int, list[str]]]:
        dates: list[Any] | None = None
        date_at = -1
        for index in range(table.num_rows):
            cells = [c[index] or "" for c in columns]
            if reader.columns and "date" in reader.columns and dates is None:
                date_at = reader.columns["date"]
                dates = _dates(book, sheet, names[date_at], table.num_rows)
            if dates is not None and _NUMBER.fullmatch(cells[date_at].strip()) and dates[index] is not None:
                cells[date_at] = dates[index].isoformat()
            yield index + 1, cells

    return rows()


def _dates(book: Any, sheet: str, column: str, rows: int) -> list[Any]:
    """A column's cells as date-times (None where a cell is not one)."""
    import fastexcel

    try:
        loaded = book.load_sheet(
            sheet, header_row=None, skip_rows=0, use_columns=[column], dtypes={column: "datetime"}, eager=True
        )
    except fastexcel.FastExcelError:
        return [None] * rows  # the serial numbers stay as they are, and the date check names them
    values = loaded.column(0)
    return values.to_pylist() if pa.types.is_timestamp(values.type) and loaded.num_rows == rows else [None] * rows


INGESTER = WorkbookIngester()
