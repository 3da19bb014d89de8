"""Home-game scoresheets: CSV files with one row per player per hand.

Clubs keep score in a spreadsheet and export it; this module reads that export
into canonical hand records. The format, exactly:

**File.** UTF-8 text, with or without a byte-order mark; a line that is not
valid UTF-8 is read as Latin-1 (so a Latin-1 export keeps names like "Zoë").
Lines end with LF or CRLF. Blank lines, and rows whose fields are all empty
(what spreadsheets leave at the end), are skipped. Fields are split by the csv
module with the usual double-quote quoting; a quoted field may not span lines:
a row whose quote is not closed on its own line is a problem (its hand is
quarantined), and the next line is read as a row of its own.

**Header.** The first non-blank line names the columns, case-insensitive and
in any order, by the names below or the other names clubs use (:data:`ALIASES`:
``front`` / ``mid`` / ``back``, ``name``, ``hand #``, ``score``, ``fl`` and more;
``_``, ``-`` and ``.`` read as spaces). A cell's problem names its column as the
header does. Its delimiter, comma, semicolon or tab, is detected from it (the
one that yields the required columns) and used for the whole file. Required:

- ``hand``: the hand's id;
- ``player``: the player's name (not empty, not twice in one hand, case-insensitive);
- ``top``, ``middle``, ``bottom``: the row's cards separated by spaces or
  commas (``Qh Qd 4c``). Cards are split into tokens here and checked by the
  common validation step (spellings, row sizes, duplicates).

Optional, per player: ``seat`` (0 to 15, not twice in one hand; empty or
absent: the row's index within the hand), ``fantasyland`` (true/false/yes/no/y/n/1/0, empty is false)
and ``points`` (an integer, may be negative; empty is unknown). Integers are
plain digits with an optional sign (no decimals, no thousands separators). Optional, per
hand (the cell may be filled on any of the hand's rows; filled cells must
agree): ``date`` (an ISO date or date-time; a time without zone is UTC, see
:data:`schemas.hand.NAIVE_TIMEZONE`, a bare date is midnight in that zone),
``variant`` (ofc, pineapple, progressive-pineapple, pineapple-27, classic;
default ofc), ``rules`` (house rules, a preset name or free text), ``session``
(default: the file's name without directory and extensions, followed by the day
of the file's first dated hand, ``club-night 2024-11-08``: two nights kept in
files of the same name are two sessions, whose hands 1, 2, ... are different
hands), ``table``,
``site`` and ``button`` (0 to 15). Other columns are ignored.

**Hands.** A hand is a run of consecutive rows with the same ``hand`` value,
2 to 4 rows (one per player). A hand id that comes back after another hand is
an error: the later run is quarantined ("hand 7 appears in two places (lines 5
and 40)"). A row with the wrong number of fields still joins the hand named in
its ``hand`` field (or, if it is too short to have one, the current hand), so
that hand is quarantined rather than read without that player.

**Records.** ``source`` is ``"scoresheet"``, ``hand_id`` the ``hand`` value,
``hand_number`` its value when it is a whole number, else None. Players get no
placements, no discards, no natural, no stack, and are not surrendered.

**Problems.** Every hand becomes exactly one record or one :class:`Problem`
at the line (and byte offset) of its first row, its rows as ``raw``. The
reason lists every bad cell, each naming its line and column, joined by
``"; "``: ``line 7, column points: not an integer: 'x'``; a row that cannot be
split at all names only its line (``line 7: expected 9 fields, got 8``). A
header without the required columns, or naming one twice, is one problem for
the whole file (line of the header) and no records; a file with no header at
all is one problem at line 1.

Memory stays flat: only the current hand's rows are held (at most four rows
and :data:`RAW_LIMIT` characters of text, however long a run is), lines are
read at most :data:`MAX_LINE` bytes at a time, and records leave in chunks of
:data:`CHUNK_HANDS` hands. The one thing that grows is the map of hand ids to
their first line, needed to detect a hand split in two places.
"""

from __future__ import annotations

import csv
import re
import tomllib
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from difflib import SequenceMatcher
from pathlib import Path
from typing import Any, BinaryIO

import ofc.schemas.hand
from ofc.pipeline.errors import InputError
from ofc.pipeline.game import MAX_SEAT
from ofc.pipeline.ingest.base import RAW_LIMIT, Chunk, Issue, Place, Problem
from ofc.pipeline.ingest.checks import MAX_PLAYERS, MIN_PLAYERS, VARIANT_NAMES
from ofc.pipeline.suggest import closest, did_you_mean
from ofc.schemas.rules import Variant

CHUNK_HANDS = 5_000
"""Hands (records plus problems) per chunk."""
MAX_LINE = 1 << 20
"""Longest line read whole; a longer one is a problem, skipped without being held in memory."""
BOM = b"\xef\xbb\xbf"
DELIMITERS = (",", ";", "\t")
REQUIRED = ("hand", "player", "top", "middle", "bottom")
PLAYER_COLUMNS = ("seat", "fantasyland", "points")
HAND_COLUMNS = ("date", "variant", "rules", "session", "table", "site", "button")
KNOWN = frozenset(REQUIRED + PLAYER_COLUMNS + HAND_COLUMNS)
ALIASES = {
    **dict.fromkeys(("hand #", "hand no", "hand number", "hand id", "game #", "game no", "deal", "deal #"), "hand"),
    **dict.fromkeys(("name", "player name", "nick", "nickname"), "player"),
    **dict.fromkeys(("front", "top row", "front row", "front hand"), "top"),
    **dict.fromkeys(("mid", "centre", "center", "middle row", "middle hand"), "middle"),
    **dict.fromkeys(("back", "bottom row", "back row", "back hand"), "bottom"),
    **dict.fromkeys(("score", "net", "net points", "result", "pts"), "points"),
    **dict.fromkeys(("fl", "fantasy", "fantasy land", "in fantasyland"), "fantasyland"),
    **dict.fromkeys(("seat #", "seat no", "position", "pos"), "seat"),
    **dict.fromkeys(("played", "played at", "time", "datetime", "date time", "day"), "date"),
    **dict.fromkeys(("game type", "game variant"), "variant"),
    **dict.fromkeys(("house rules", "ruleset", "rule set"), "rules"),
    **dict.fromkeys(("dealer", "button seat"), "button"),
}
"""Other names clubs give the columns (compared after lower-casing and reading ``_``, ``-`` and ``.`` as spaces).
A name that could mean two things is left out: "game" (a deal's number or the variant), "total" (a hand's points
or a running total)."""
INT64_MAX = (1 << 63) - 1
VARIANTS = frozenset(VARIANT_NAMES)
TRUE = frozenset({"true", "yes", "y", "1"})
FALSE = frozenset({"false", "no", "n", "0", ""})
_INTEGER = re.compile(r"[+-]?[0-9]+")
TITLE_ROWS = 5
"""Rows above the header read as a title at most (a sheet's name, a merged cell, the night's date): a file whose
first rows hold no header after them is said to lack one at its first row."""
_DELIMITER_NAMES = {",": "comma", ";": "semicolon", "\t": "tab"}


class _CellError(ValueError):
    """A cell that does not hold what its column needs."""


def _decode(raw: bytes) -> str:
    """One line as text: UTF-8 when it is, else Latin-1 (which never fails)."""
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return raw.decode("latin-1")


def _split(text: str, delimiter: str) -> list[str]:
    """Fields of one line; raises csv.Error on broken quoting (strict, so an unclosed quote is caught)."""
    reader = csv.reader([text], delimiter=delimiter, strict=True, skipinitialspace=True)
    return next(reader, [])


def _plain(label: str) -> str:
    """A header label as it is compared: lower-cased, ``_``, ``-`` and ``.`` read as spaces, spaces single."""
    return " ".join(re.sub(r"[_.\-]+", " ", label.strip().lower()).split())


def column_name(label: str, mapped: Mapping[str, str] | None = None) -> str:
    """The column a header label names: the file's own map (``mapped``: plain label -> column) first, then
    ``ALIASES`` (``"Hand #"`` and ``"hand_no"`` are ``hand``, ``"Front"`` is ``top``); else the label as it
    reads."""
    plain = _plain(label)
    if mapped and plain in mapped:
        return mapped[plain]
    return ALIASES.get(plain, plain)


def column_map(spec: str) -> dict[str, str]:
    """The columns a ``--map`` gives, as plain label -> column: ``"player=Spieler,top=Vorne,..."`` or the path
    of a TOML file whose ``[columns]`` table says the same (``player = "Spieler"``). A column that is not one
    of the format's, or a label given twice, is an error naming it."""
    path = Path(spec)
    if path.suffix.lower() == ".toml" or path.is_file():
        try:
            table = tomllib.loads(path.read_text(encoding="utf-8")).get("columns")
        except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
            raise InputError(f"--map {spec}: {exc}") from None
        if not isinstance(table, dict) or not all(isinstance(v, str) for v in table.values()):
            raise InputError(f'--map {spec}: a [columns] table of column = "label" is needed')
        pairs = list(table.items())
    else:
        pairs = []
        for part in (p for p in spec.split(",") if p.strip()):
            column, sep, label = part.partition("=")
            if not sep:
                raise InputError(f"--map: {part.strip()!r} is not COLUMN=LABEL")
            pairs.append((column, label))
    out: dict[str, str] = {}
    for column, label in pairs:
        column, plain = column.strip().lower(), _plain(label)
        if column not in KNOWN:
            hint = did_you_mean(closest(column, sorted(KNOWN)))
            raise InputError(f"--map: no column {column!r}{hint} (columns: {', '.join(sorted(KNOWN))})")
        if not plain:
            raise InputError(f"--map: {column} is given no label")
        if out.get(plain, column) != column:
            raise InputError(f"--map: the label {label.strip()!r} is given to {out[plain]} and to {column}")
        out[plain] = column
    if not out:
        raise InputError("--map: no column given (COLUMN=LABEL[,COLUMN=LABEL...] or a .toml file)")
    return out


def _header(text: str, mapped: Mapping[str, str] | None = None) -> tuple[str, list[str]] | None:
    """The delimiter and the normalised column names of a header line, or None if no delimiter parses it.

    The delimiter that yields every required column wins; failing that, the one
    giving the most columns (so the missing-column problem names sensible columns).
    """
    best: tuple[str, list[str]] | None = None
    for delimiter in DELIMITERS:
        try:
            names = [column_name(n, mapped) for n in _split(text, delimiter)]
        except csv.Error:
            continue
        if set(REQUIRED) <= set(names):
            return delimiter, names
        if best is None or len(names) > len(best[1]):
            best = delimiter, names
    return best


def _lines(stream: BinaryIO) -> Iterator[tuple[bytes, int, bool]]:
    """Raw lines (terminator included), their length in bytes, and whether they were read whole.

    A line longer than MAX_LINE comes back cut (and flagged), the rest of it
    skipped, so one runaway line cannot fill memory.
    """
    while raw := stream.readline(MAX_LINE):
        size = len(raw)
        whole = size < MAX_LINE or raw.endswith(b"\n")
        if not whole:
            while rest := stream.readline(MAX_LINE):
                size += len(rest)
                if rest.endswith(b"\n"):
                    break
        yield raw, size, whole


def file_stem(source: str) -> str | None:
    """The file's name without directory and extensions: the default session."""
    name = re.split(r"[\\/]", source)[-1].split(".")[0]
    return name if name and name != "-" else None


def _int(text: str, low: int = -INT64_MAX, high: int = INT64_MAX) -> int:
    if not _INTEGER.fullmatch(text):
        raise _CellError(f"not an integer: {text!r}")
    value = int(text)
    if not low <= value <= high:
        raise _CellError(f"must be {low} to {high}: {text!r}" if high < INT64_MAX else f"out of range: {text!r}")
    return value


def _bool(text: str) -> bool:
    low = text.lower()
    if low in TRUE:
        return True
    if low in FALSE:
        return False
    raise _CellError(f"not true/false/yes/no/y/n/1/0: {text!r}")


_DAY_FIRST = re.compile(r"^(\d{1,2})[./-](\d{1,2})[./-](\d{4})(?:[ T](\d{1,2}:\d{2}(?::\d{2})?))?$")
"""A date typed with the day and the month first (``20.11.2026``, ``11/20/2026 20:15``): which of the two comes
first, the sheet does not say."""


def _date(text: str) -> datetime:
    try:
        when = datetime.fromisoformat(text)
    except ValueError:
        raise _CellError(_date_problem(text)) from None
    return when if when.tzinfo is not None else when.replace(tzinfo=ofc.schemas.hand.NAIVE_TIMEZONE)


def _date_problem(text: str) -> str:
    """Why a date cannot be read, and how to write it: a date whose day and month can be told apart is spelled
    out as it must be typed; one that could be either is said to be."""
    found = _DAY_FIRST.match(text.strip())
    if found is None:
        return f"not a date: {text!r} (write it as YYYY-MM-DD, with the time as HH:MM after it if wanted)"
    a, b, year, time = int(found[1]), int(found[2]), found[3], found[4]
    readings = []
    for day, month in ((a, b), (b, a)):
        try:
            readings.append(datetime(int(year), month, day).date().isoformat())
        except ValueError:
            continue
    readings = list(dict.fromkeys(readings))
    clock = f" {time}" if time else ""
    if len(readings) == 1:
        return f"not a date as YYYY-MM-DD: {text!r} (write {readings[0]}{clock})"
    if readings:
        return f"{text!r} could be {readings[0]} or {readings[1]}: write the date as YYYY-MM-DD"
    return f"not a date: {text!r} (write it as YYYY-MM-DD)"


def _variant(text: str) -> str:
    value = re.sub(r"[\s_]+", "-", text.lower())
    if value not in VARIANTS:
        raise _CellError(f"unknown variant: {text!r} (expected one of {', '.join(sorted(VARIANTS))})")
    return value


_HAND_PARSERS: dict[str, Callable[[str], Any]] = {
    "date": _date,
    "variant": _variant,
    "button": lambda t: _int(t, 0, MAX_SEAT),
    "rules": str,
    "session": str,
    "table": str,
    "site": str,
}


def spelled_two_ways(names: Mapping[str, Mapping[str, int]], unit: str = "line", sheet: str | None = None) -> list[str]:
    """Names that look like one player written two ways (``Katrin`` and ``katrin``, ``Katrin`` and ``Katrine``):
    not wrong, as two people may be so named, but a report would count two players. ``names``: each name folded,
    with its spellings and how many rows each is on."""
    spellings = {spelling: n for written in names.values() for spelling, n in written.items()}
    ordered = sorted(spellings, key=lambda w: (-spellings[w], w))
    out, said = [], set()
    where = f"sheet {sheet!r}: " if sheet is not None else ""
    for i, a in enumerate(ordered):
        for b in ordered[i + 1 :]:
            alike = a.casefold() == b.casefold() or (
                min(len(a), len(b)) >= 4 and SequenceMatcher(None, a.casefold(), b.casefold()).ratio() >= 0.8
            )
            if alike and b not in said:
                said.add(b)
                out.append(
                    f"{where}{a!r} ({_rows(spellings[a], unit)}) and {b!r} ({_rows(spellings[b], unit)}) look like one "
                    "player written two ways: correct the sheet, or make one an alias of the other in ofc.toml "
                    "([aliases])"
                )
    return out


def _swapped(fields: list[str], columns: Mapping[str, int]) -> bool:
    """Whether a row holds a bottom row's five cards under the top's column and the top's three under the bottom's."""
    return len(_cards(fields[columns["top"]])) == 5 and len(_cards(fields[columns["bottom"]])) == 3


def _rows(n: int, unit: str) -> str:
    return f"{n} {unit}" + ("s" if n != 1 else "")


def _cards(text: str) -> list[str]:
    """A row's card tokens, split faithfully (validation judges them)."""
    return text.replace(",", " ").split()


@dataclass
class _Row:
    line: int
    offset: int
    fields: list[str] | None
    error: str | None = None
    """Why the row cannot be read (it names no place: the row's is added)."""
    player: str | None = None
    """The player the row names, where it can be told."""


FIELD_COLUMNS = {
    "name": "player",
    "hand_id": "hand",
    "hand_number": "hand",
    "played_at": "date",
    "house_rules": "rules",
    **{c: c for c in ("top", "middle", "bottom", "points", "seat", "fantasyland", "variant")},
    **{c: c for c in ("session", "table", "site", "button")},
}
"""The record's fields a sheet's columns fill (the column for each)."""
_PLAYER_FIELD = re.compile(r"^players\[(\d+)\]\.([a-z_]+)")


@dataclass(frozen=True)
class SheetPlaces:
    """Where a scoresheet record's fields are: each player's row, and the column as the sheet's header names it."""

    sheet: str | None
    hand: str
    rows: tuple[tuple[int, str], ...]
    """Each player's (line or row, name), in the record's order."""
    labels: Mapping[str, str]

    def place(self, path: str | None) -> Place:
        first, last = self.rows[0][0], self.rows[-1][0]
        found = _PLAYER_FIELD.match(path or "")
        if found is not None and int(found[1]) < len(self.rows):
            line, name = self.rows[int(found[1])]
            column = self.labels.get(FIELD_COLUMNS.get(found[2], ""))
            field = None if column else path
            return Place(line, sheet=self.sheet, hand=self.hand, player=name, column=column, field=field)
        column = self.labels.get(FIELD_COLUMNS.get(path or "", ""))
        field = None if column or path in (None, "players") else path
        return Place(first, last, self.sheet, self.hand, column=column, field=field)


@dataclass
class _Hand:
    """The rows of the hand being read: at most MAX_PLAYERS kept, the rest only counted."""

    key: str | None
    line: int
    offset: int
    rows: list[_Row] = field(default_factory=list)
    count: int = 0
    raw: list[str] = field(default_factory=list)
    raw_chars: int = 0
    last: int = 0
    """The line of its last row (kept or not)."""

    def add(self, row: _Row, text: str) -> None:
        self.count += 1
        self.last = row.line
        if len(self.rows) < MAX_PLAYERS:
            self.rows.append(row)
        if self.raw_chars < RAW_LIMIT:
            self.raw.append(text[: RAW_LIMIT - self.raw_chars])
            self.raw_chars += len(self.raw[-1]) + 1


class ScoresheetIngester:
    """Home-game scoresheet CSV: one row per player per hand (see the module docstring)."""

    name = "scoresheet"

    def __init__(self, mapped: Mapping[str, str] | None = None) -> None:
        self.mapped = dict(mapped or {})
        """The file's own column names (``column_map``), read before the usual ones."""

    def plain(self) -> ScoresheetIngester:
        return self

    def with_columns(self, mapped: Mapping[str, str]) -> ScoresheetIngester:
        """This reader with the columns a ``--map`` names."""
        return ScoresheetIngester({**self.mapped, **mapped})

    def sniff(self, head: bytes) -> bool:
        """Whether one of the first non-blank lines (a title may stand above it) is a header with every required
        column."""
        head = head.removeprefix(BOM)
        lines = (_decode(raw).rstrip("\r\n") for raw in head.split(b"\n"))
        for text in [t for t in lines if t.strip(" ,;\t")][: TITLE_ROWS + 1]:
            found = _header(text, self.mapped)
            if found is not None and set(REQUIRED) <= set(found[1]):
                return True
        return False

    def read(self, stream: BinaryIO, source: str) -> Iterator[Chunk]:
        """Read the sheet hand by hand; yield a chunk every CHUNK_HANDS hands and at the end."""
        reader = SheetReader(source, self.mapped)
        consumed = reported = chunks = 0
        for line, (raw, size, whole) in enumerate(_lines(stream), start=1):
            offset = consumed
            consumed += size
            text = _decode(raw.removeprefix(BOM) if line == 1 else raw).rstrip("\r\n")
            reader.feed(line, offset, text, whole=whole)
            if reader.pending >= CHUNK_HANDS:
                yield reader.chunk(consumed - reported)
                reported = consumed
                chunks += 1
        reader.finish()
        if reader.pending or consumed > reported or not chunks:
            yield reader.chunk(consumed - reported)


class SheetReader:
    """The state of one file (or one workbook sheet) being read: header, current hand, finished records and
    problems."""

    def __init__(
        self, source: str, mapped: Mapping[str, str] | None = None, *, stem: str | None = None, sheet: str | None = None
    ) -> None:
        self.mapped = mapped
        self.stem = stem if stem is not None else file_stem(source)
        self.sheet = sheet
        """The workbook sheet being read: problems then say ``sheet 'Night 1', row 7`` where a CSV says ``line 7``."""
        self.unit = "line" if sheet is None else "row"
        self.night: str | None = None
        """The day of the file's first dated hand: with the file's name, the default session."""
        self.delimiter = ","
        self.columns: dict[str, int] | None = None
        self.labels: dict[str, str] = {}
        """Each known column as the header names it."""
        self.width = 0
        self.failed = False
        """The header was unusable: the rest of the file is skipped."""
        self.hand: _Hand | None = None
        self.seen: dict[str, int] = {}
        self.records: list[dict[str, Any]] = []
        self.lines: list[int] = []
        self.offsets: list[int] = []
        self.places: list[Any] = []
        self.problems: list[Problem] = []
        self.titles: list[tuple[int, int, str, list[str]]] = []
        """Rows above the header that are not one (a sheet's title): (line, offset, text, cells)."""
        self.names: dict[str, dict[str, int]] = {}
        """Each player's spellings (by name folded), with the rows each is written on."""
        self.notes: list[str] = []

    @property
    def pending(self) -> int:
        return len(self.records) + len(self.problems)

    def chunk(self, bytes_read: int) -> Chunk:
        out = Chunk.from_dicts(self.records, self.lines, self.offsets, self.problems, bytes_read, self.places)
        if self.columns is not None and "variant" not in self.columns:
            out.guessed = frozenset({"variant"})  # no variant column: every hand is read as OFC
        out.notes, self.notes = self.notes, []
        self.records, self.lines, self.offsets, self.problems, self.places = [], [], [], [], []
        return out

    def feed(self, line: int, offset: int, text: str, *, whole: bool = True) -> None:
        if self.failed or not text.strip():
            return
        if self.columns is None:
            self._read_header(line, offset, text)
            return
        if not whole:
            row = _Row(line, offset, None, f"longer than {MAX_LINE} bytes")
            self._add(row, self._lenient_key(text), text)
            return
        try:
            fields = _split(text, self.delimiter)
        except csv.Error as exc:
            reason = (
                "a quoted field is not closed on this line (fields spanning lines are not supported)"
                if "unexpected end of data" in str(exc)
                else "a carriage return inside an unquoted field"
                if "new-line character" in str(exc)
                else f"malformed CSV: {exc}"
            )
            self._add(_Row(line, offset, None, reason), self._lenient_key(text), text)
            return
        self._take(line, offset, fields, text)

    def feed_cells(self, line: int, cells: list[str]) -> None:
        """One row of a workbook sheet, its cells already as text (``line`` is the sheet's row number)."""
        if self.failed or not any(c.strip() for c in cells):
            return
        text = "\t".join(cells)
        if self.columns is None:
            self._header_or_title(line, 0, text, cells)
            return
        self._take(line, 0, cells, text)

    def at(self, line: int) -> str:
        """Where a row is, as a problem names it: ``line 7``, or ``sheet 'Night 1', row 7``."""
        return f"line {line}" if self.sheet is None else f"sheet {self.sheet!r}, row {line}"

    def _take(self, line: int, offset: int, fields: list[str], text: str) -> None:
        if not any(f.strip() for f in fields):
            return
        columns = self.columns or {}
        key = fields[columns["hand"]].strip() if columns["hand"] < len(fields) else None
        if len(fields) != self.width:
            at = columns.get("player", len(fields))
            player = fields[at].strip() or None if at < len(fields) else None
            delimiter = _DELIMITER_NAMES.get(self.delimiter, "delimiter")
            why = (
                "a cell is missing, or the row is shifted"
                if len(fields) < self.width
                else f"a cell holds a {delimiter} (quote it), or the row is shifted"
            )
            reason = f"{_rows(len(fields), 'cell')} where the header has {self.width}: {why}"
            self._add(_Row(line, offset, None, reason, player), key, text)
            return
        self._add(_Row(line, offset, fields), key, text)

    def _lenient_key(self, text: str) -> str | None:
        """The hand a broken or cut row most likely belongs to (the csv module's lenient reading)."""
        try:
            fields = next(csv.reader([text], delimiter=self.delimiter, skipinitialspace=True), [])
        except csv.Error:
            return None
        at = self.columns["hand"] if self.columns else len(fields)
        return fields[at].strip() if at < len(fields) else None

    def finish(self) -> None:
        """End of input: the last hand is complete; a file without a header is one problem; names spelled two
        ways are noted."""
        self._flush()
        if self.columns is None and not self.failed:
            if self.titles:  # rows, but none of them a header: the first is said to be wrong
                line, offset, text, cells = self.titles[0]
                self._use_header(line, offset, cells, text)
            else:
                where = "the file" if self.sheet is None else f"sheet {self.sheet!r}"
                self.problems.append(Problem(1, 0, f"no header row: {where} is empty or blank"))
        self.notes += spelled_two_ways(self.names, self.unit, self.sheet)

    def _read_header(self, line: int, offset: int, text: str) -> None:
        found = _header(text, self.mapped)
        if found is None:
            self.failed = True
            self.columns = {}
            reason = "header: malformed CSV, cannot split it by comma, semicolon or tab"
            self.problems.append(Problem(line, offset, reason, None, text[:RAW_LIMIT]))
            return
        self.delimiter = found[0]
        self._header_or_title(line, offset, text, _split(text, self.delimiter))

    def _header_or_title(self, line: int, offset: int, text: str, cells: list[str]) -> None:
        """The header, or a title row above it (a sheet's name typed or merged across its first row): the first of
        the first rows that names every required column is the header."""
        names = {column_name(c.strip(), self.mapped) for c in cells}
        if set(REQUIRED) <= names or len(self.titles) >= TITLE_ROWS:
            if self.titles and not set(REQUIRED) <= names:  # no header among the first rows: the first is wrong
                line, offset, text, cells = self.titles[0]
            self._use_header(line, offset, cells, text)
            return
        self.titles.append((line, offset, text, cells))

    def _use_header(self, line: int, offset: int, cells: list[str], text: str) -> None:
        """Take the header's labels as the columns, or fail the whole file (sheet) with one problem."""
        labels = [label.strip() for label in cells]
        names = [column_name(label, self.mapped) for label in labels]
        missing = [c for c in REQUIRED if c not in names]
        repeated = sorted({n for n in names if n in KNOWN and names.count(n) > 1})
        absent = [(label, c) for label, c in (self.mapped or {}).items() if label not in {_plain(x) for x in labels}]
        headers = [label for label in labels if label]
        if absent:
            label, column = absent[0]
            hint = did_you_mean(closest(label, headers, any_case=True))
            reason = (
                f"--map {column}={label}: the header has no column {label!r}{hint} "
                f"(its columns: {', '.join(headers) or 'none'})"
            )
        elif missing:
            shown = ", ".join(n for n in names if n) or "nothing"
            reason = f"header: missing required column(s) {', '.join(missing)} (found: {shown})"
        elif repeated:
            said = [
                f"{n} ({', '.join(repr(label) for label, m in zip(labels, names, strict=True) if m == n)})"
                for n in repeated
            ]
            reason = f"header: column(s) named more than once: {', '.join(said)}"
        else:
            self.columns = {n: i for i, n in enumerate(names) if n in KNOWN}
            # A cell's problem names its column as the header does ("column Score", "column Front").
            self.labels = {n: labels[i] for n, i in self.columns.items()}
            self.width = len(names)
            if self.titles:
                first, last = self.titles[0][0], self.titles[-1][0]
                said = self.at(first) + (f" to {last}" if last > first else "")
                self.notes.append(f"{said}: read as the sheet's title, above its header")
            return
        self.failed = True
        self.columns = {}
        self.problems.append(Problem.of([Issue(Place(line, sheet=self.sheet), reason)], offset, None, text[:RAW_LIMIT]))

    def _add(self, row: _Row, key: str | None, text: str) -> None:
        """Add a row to the current hand, or finish that hand and start the next."""
        if self.hand is not None and (key is None or key == self.hand.key):
            self.hand.add(row, text)
            return
        self._flush()
        self.hand = _Hand(key, row.line, row.offset)
        self.hand.add(row, text)

    def _flush(self) -> None:
        hand, self.hand = self.hand, None
        if hand is None:
            return
        result = self._build(hand)
        if isinstance(result, Problem):
            self.problems.append(result)
        else:
            self.records.append(result)
            self.lines.append(hand.line)
            self.offsets.append(hand.offset)
            rows = tuple((row.line, p["name"]) for row, p in zip(hand.rows, result["players"], strict=True))
            self.places.append(SheetPlaces(self.sheet, result["hand_id"], rows, self.labels))

    def _build(self, hand: _Hand) -> dict[str, Any] | Problem:
        """One hand's rows as a canonical record, or the Problem naming every bad cell where it is."""
        errors: list[Issue] = []
        hand_id = hand.key or None
        whole = Place(hand.line, hand.last if hand.last > hand.line else 0, self.sheet, hand_id)
        if hand_id is not None:
            first = self.seen.setdefault(hand_id, hand.line)
            if first != hand.line:
                errors.append(Issue(whole, f"the hand's rows are not together: it starts at {self.unit} {first} too"))
        columns = self.columns or {}
        values: dict[str, tuple[Any, str, int]] = {}
        names: dict[str, int] = {}
        seats: dict[int, int] = {}
        players = []
        swapped = [r for r in hand.rows if r.fields is not None and _swapped(r.fields, columns)]
        front, back = self.labels.get("top", "top"), self.labels.get("bottom", "bottom")
        if swapped and len(swapped) == len(hand.rows) > 1:  # the header's, not a row's: said once for the hand
            errors.append(
                Issue(whole, f"every row has 5 cards under {front} and 3 under {back}: are the two headers swapped?")
            )
        for index, row in enumerate(hand.rows):
            if row.fields is None:
                place = Place(row.line, sheet=self.sheet, hand=hand_id, player=row.player)
                errors.append(Issue(place, row.error or "unreadable"))
                continue
            bad: list[tuple[str, str]] = []
            cells = {column: row.fields[at].strip() for column, at in columns.items()}
            player = self._player(cells, index, bad)
            if row in swapped and len(swapped) < len(hand.rows):
                bad.append(
                    ("top", f"5 cards where a top row holds 3, and 3 under {back}: the two the wrong way round?")
                )
            self._hand_values(cells, row.line, values, bad, self.unit)
            if player["name"]:
                spelled = self.names.setdefault(player["name"].casefold(), {})
                spelled[player["name"]] = spelled.get(player["name"], 0) + 1
            if player["name"] and (other := names.setdefault(player["name"].casefold(), row.line)) != row.line:
                bad.append(
                    ("player", f"{player['name']!r} plays twice in the hand; the other is at {self.unit} {other}")
                )
            if (other := seats.setdefault(player["seat"], row.line)) != row.line:
                bad.append(
                    ("seat", f"seat {player['seat']} is taken twice in the hand; the other is at {self.unit} {other}")
                )
            who = player["name"] or None
            errors.extend(
                Issue(Place(row.line, sheet=self.sheet, hand=hand_id, player=who, column=self.labels.get(c, c)), m)
                for c, m in bad
            )
            players.append(player)
        if hand_id is not None and not MIN_PLAYERS <= hand.count <= MAX_PLAYERS:
            noun = "player" if hand.count == 1 else "players"
            errors.append(Issue(whole, f"{hand.count} {noun}: a hand has {MIN_PLAYERS} to {MAX_PLAYERS}"))
        if hand_id is None and not errors:
            column = self.labels.get("hand", "hand")
            errors.append(Issue(Place(hand.line, sheet=self.sheet, column=column), "empty: every row names its hand"))
        if errors:
            return Problem.of(errors, hand.offset, hand_id, "\n".join(hand.raw)[:RAW_LIMIT])
        got = {column: value for column, (value, _, _) in values.items()}
        number = int(hand_id) if hand_id.isascii() and hand_id.isdigit() else None
        return {
            "hand_id": hand_id,
            "source": "scoresheet",
            "variant": got.get("variant", Variant.OFC.value),
            "played_at": got["date"].isoformat() if "date" in got else None,
            "site": got.get("site"),
            "table": got.get("table"),
            "session": got.get("session", self._session(got.get("date"))),
            "hand_number": number if number is not None and number <= INT64_MAX else None,
            "button": got.get("button"),
            "house_rules": got.get("rules"),
            "players": players,
        }

    def _session(self, date: Any) -> str | None:
        """The default session: the file's name and the day its first dated hand was played."""
        if self.night is None and date is not None:
            self.night = date.date().isoformat()
        if self.night is None:
            return self.stem
        return f"{self.stem} {self.night}" if self.stem else self.night

    def _player(self, cells: dict[str, str], index: int, bad: list[tuple[str, str]]) -> dict[str, Any]:
        """One row's player; each bad cell is added to ``bad`` as (column, message)."""
        if not cells.get("hand", ""):
            bad.append(("hand", "empty"))
        name = cells.get("player", "")
        if not name:
            bad.append(("player", "empty"))
        seat, fantasyland, points = index, False, None
        try:
            if text := cells.get("seat", ""):
                seat = _int(text, 0, MAX_SEAT)
        except _CellError as exc:
            bad.append(("seat", str(exc)))
        try:
            fantasyland = _bool(cells.get("fantasyland", ""))
        except _CellError as exc:
            bad.append(("fantasyland", str(exc)))
        try:
            if text := cells.get("points", ""):
                points = _int(text)
        except _CellError as exc:
            bad.append(("points", str(exc)))
        top, middle, bottom = (_cards(cells.get(row, "")) for row in ("top", "middle", "bottom"))
        return {
            "name": name,
            "seat": seat,
            "top": top,
            "middle": middle,
            "bottom": bottom,
            "fantasyland": fantasyland,
            "fantasyland_cards": None,
            "surrendered": False,
            "natural": None,
            "discards": [],
            "placements": None,
            "points": points,
            "stack": None,
        }

    @staticmethod
    def _hand_values(
        cells: dict[str, str],
        line: int,
        values: dict[str, tuple[Any, str, int]],
        bad: list[tuple[str, str]],
        unit: str = "line",
    ) -> None:
        """Collect the hand-level cells of a row; a filled cell must agree with the hand's earlier rows."""
        for column in HAND_COLUMNS:
            text = cells.get(column, "")
            if not text:
                continue
            try:
                value = _HAND_PARSERS[column](text)
            except _CellError as exc:
                bad.append((column, str(exc)))
                continue
            first_value, first_text, first_line = values.setdefault(column, (value, text, line))
            if first_value != value:
                bad.append((column, f"{text!r} differs from {first_text!r} on {unit} {first_line}"))


INGESTER = ScoresheetIngester()
