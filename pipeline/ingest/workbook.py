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
(calamine reads the workbook's date system). A plain number in that column is
read as Excel would show it formatted as a date (``45604.5`` is 2024-11-08
12:00), unless it is out of Excel's years (1900 to 9999): then it stays as
written (``20241108``, which ISO's basic form reads as the same day). A sheet
whose cells span more than :data:`MAX_CELLS` (a stray entry far from the
table) is one problem, not read: calamine would hold the whole rectangle. Each sheet is its own session by
default, ``<file> <sheet>`` (and the day of its first dated hand), so that
hand 1 of two sheets is two hands.

The workbook is parsed by calamine (through ``fastexcel``, the engine of
polars' ``read_excel``) into Arrow columns of text. Rows then go through the
scoresheet's reader one by one, as a CSV's lines do.
"""

from __future__ import annotations

import io
import re
import xml.etree.ElementTree as ET
import zipfile
import zlib
from collections.abc import Iterator, Mapping, Sequence
from typing import Any, BinaryIO

import fastexcel
import pyarrow as pa
import pyarrow.compute as pc

from ofc.pipeline.errors import InputError
from ofc.pipeline.ingest.base import Chunk, Problem
from ofc.pipeline.ingest.scoresheet import SheetReader, file_stem
from ofc.pipeline.suggest import closest, did_you_mean

ZIP = b"PK\x03\x04"
PARTS = (b"xl/workbook", b"xl/worksheets/", b"xl/_rels/", b"xl/styles")
"""Names inside an Office Open XML zip that only a workbook has (a document has ``word/``, slides ``ppt/``)."""
MAX_BYTES = 1 << 30
"""Largest workbook read: it is parsed whole in memory."""
_NUMBER = re.compile(r"-?[0-9]+(\.[0-9]+)?([eE][+-]?[0-9]+)?")
_FIRST_DAY_MS = -2_208_988_800_000
"""1900-01-01 in milliseconds since 1970: Excel has no earlier date."""
_LAST_DAY_MS = 253_402_300_800_000
"""10000-01-01: nor a later one."""
MAX_CELLS = 10_000_000
"""Largest sheet read, in cells of the rectangle its cells span: calamine holds it whole (a stray entry in the
last cell, XFD1048576, would ask for 17 billion)."""
_CELL_REF = re.compile(rb'<c\b[^>]*?\br="([A-Z]{1,3})([0-9]{1,7})"')


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
        data = stream.read(MAX_BYTES + 1)
        if len(data) > MAX_BYTES:
            raise WorkbookError(f"{source}: a workbook over {MAX_BYTES:,} bytes is not read (save it as CSV)")
        try:
            book = fastexcel.read_excel(data)
        except (fastexcel.FastExcelError, OSError, ValueError) as exc:
            raise WorkbookError(f"{source}: not a readable Excel workbook ({_first_line(exc)})") from None
        names = [str(name) for name in book.sheet_names]
        stem = file_stem(source) or "workbook"
        spans = _spans(data)
        chunks = 0
        for sheet in self._chosen(names, source):
            reader = SheetReader(source, self.mapped, stem=f"{stem} {sheet}", sheet=sheet)
            if spans.get(sheet, 0) > MAX_CELLS:
                reader.failed = True
                reason = f"sheet {sheet!r}: its cells span {spans[sheet]:,} cells, over {MAX_CELLS:,}: not read"
                reader.problems.append(Problem(1, 0, reason + " (a stray entry far from the table?)"))
                reader.finish()
                chunks += 1
                yield reader.chunk(0)
                continue
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


def _column_number(letters: bytes) -> int:
    number = 0
    for letter in letters:
        number = number * 26 + letter - 64
    return number


def _spans(data: bytes) -> dict[str, int]:
    """Cells in the rectangle each sheet's cells span, read from the workbook's parts (before calamine, which
    would allocate that rectangle). Empty when the parts are not laid out as Excel writes them: then calamine
    is left to judge."""
    main = "{http://schemas.openxmlformats.org/spreadsheetml/2006/main}"
    rel = "{http://schemas.openxmlformats.org/officeDocument/2006/relationships}id"
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as zf:
            book = ET.fromstring(zf.read("xl/workbook.xml"))
            rels = ET.fromstring(zf.read("xl/_rels/workbook.xml.rels"))
            targets = {r.get("Id"): str(r.get("Target", "")) for r in rels}
            spans = {}
            for sheet in book.iter(f"{main}sheet"):
                target = targets.get(sheet.get(rel), "")
                part = target.lstrip("/") if target.startswith("/") else f"xl/{target}"
                rows, columns = [1 << 30, 0], [1 << 30, 0]
                try:
                    with zf.open(part) as fh:
                        tail = b""
                        while block := fh.read(1 << 20):
                            block = tail + block
                            cut = block.rfind(b"<")
                            for found in _CELL_REF.finditer(block, 0, cut if cut > 0 else len(block)):
                                column, row = _column_number(found.group(1)), int(found.group(2))
                                rows = [min(rows[0], row), max(rows[1], row)]
                                columns = [min(columns[0], column), max(columns[1], column)]
                            tail = block[cut:] if cut > 0 else b""
                except (EOFError, NotImplementedError, zlib.error, zipfile.BadZipFile):  # (a compression zipfile lacks)
                    continue  # the part is damaged inside the zip: calamine says so for this sheet
                if rows[1]:
                    spans[str(sheet.get("name"))] = (rows[1] - rows[0] + 1) * (columns[1] - columns[0] + 1)
            return spans
    except (KeyError, OSError, ValueError, zipfile.BadZipFile, ET.ParseError):
        return {}


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
                cells[date_at] = dates[index]
            yield index + 1, cells

    return rows()


def _dates(book: Any, sheet: str, column: str, rows: int) -> list[str | None]:
    """A column's cells as ISO date-times (None where a cell is not one, or is out of Excel's years)."""
    try:
        loaded = book.load_sheet(
            sheet, header_row=None, skip_rows=0, use_columns=[column], dtypes={column: "datetime"}, eager=True
        )
    except fastexcel.FastExcelError:
        return [None] * rows  # the serial numbers stay as they are, and the date check names them
    values = loaded.column(0)
    if not pa.types.is_timestamp(values.type) or loaded.num_rows != rows:
        return [None] * rows
    # In Arrow, not as Python date-times: a number far out of Excel's dates (20241108 typed in the column) stays
    # as it was, and the date check names it.
    ms = pc.cast(values.cast(pa.timestamp("ms")), pa.int64())
    sane = pc.and_(pc.greater_equal(ms, _FIRST_DAY_MS), pc.less(ms, _LAST_DAY_MS))
    return pc.if_else(sane, pc.strftime(values, format="%Y-%m-%dT%H:%M:%S"), None).to_pylist()


INGESTER = WorkbookIngester()
