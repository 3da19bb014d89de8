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
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, BinaryIO

import schemas.hand
from pipeline.game import MAX_SEAT
from pipeline.ingest.base import RAW_LIMIT, Chunk, Problem
from pipeline.ingest.checks import MAX_PLAYERS, MIN_PLAYERS, VARIANT_NAMES
from schemas.rules import Variant

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
    import tomllib
    from pathlib import Path

    from pipeline.errors import InputError
    from pipeline.suggest import closest, did_you_mean

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


def _date(text: str) -> datetime:
    try:
        when = datetime.fromisoformat(text)
    except ValueError:
        raise _CellError(f"not an ISO date or date-time: {text!r}") from None
    return when if when.tzinfo is not None else when.replace(tzinfo=schemas.hand.NAIVE_TIMEZONE)


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


def _cards(text: str) -> list[str]:
    """A row's card tokens, split faithfully (validation judges them)."""
    return text.replace(",", " ").split()


@dataclass
class _Row:
    line: int
    offset: int
    fields: list[str] | None
    error: str | None = None


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

    def add(self, row: _Row, text: str) -> None:
        self.count += 1
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
        """Whether the first non-blank line is a header with every required column."""
        head = head.removeprefix(BOM)
        for raw in head.split(b"\n"):
            text = _decode(raw).rstrip("\r\n")
            if text.strip():
                found = _header(text, self.mapped)
                return found is not None and set(REQUIRED) <= set(found[1])
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
        self.problems: list[Problem] = []

    @property
    def pending(self) -> int:
        return len(self.records) + len(self.problems)

    def chunk(self, bytes_read: int) -> Chunk:
        out = Chunk.from_dicts(self.records, self.lines, self.offsets, self.problems, bytes_read)
        if self.columns is not None and "variant" not in self.columns:
            out.guessed = frozenset({"variant"})  # no variant column: every hand is read as OFC
        self.records, self.lines, self.offsets, self.problems = [], [], [], []
        return out

    def feed(self, line: int, offset: int, text: str, *, whole: bool = True) -> None:
        if self.failed or not text.strip():
            return
        if self.columns is None:
            self._read_header(line, offset, text)
            return
        if not whole:
            row = _Row(line, offset, None, f"{self.at(line)}: longer than {MAX_LINE} bytes")
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
            self._add(_Row(line, offset, None, f"{self.at(line)}: {reason}"), self._lenient_key(text), text)
            return
        self._take(line, offset, fields, text)

    def feed_cells(self, line: int, cells: list[str]) -> None:
        """One row of a workbook sheet, its cells already as text (``line`` is the sheet's row number)."""
        if self.failed or not any(c.strip() for c in cells):
            return
        text = "\t".join(cells)
        if self.columns is None:
            self._use_header(line, 0, cells, text)
            return
        self._take(line, 0, cells, text)

    def at(self, line: int) -> str:
        """Where a row is, as a problem names it: ``line 7``, or ``sheet 'Night 1', row 7``."""
        return f"line {line}" if self.sheet is None else f"sheet {self.sheet!r}, row {line}"

    def _take(self, line: int, offset: int, fields: list[str], text: str) -> None:
        if not any(f.strip() for f in fields):
            return
        hand_at = self.columns["hand"]  # type: ignore[index]
        key = fields[hand_at].strip() if hand_at < len(fields) else None
        if len(fields) != self.width:
            self._add(
                _Row(line, offset, None, f"{self.at(line)}: expected {self.width} fields, got {len(fields)}"), key, text
            )
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
        """End of input: the last hand is complete; a file without a header is one problem."""
        self._flush()
        if self.columns is None and not self.failed:
            where = "the file" if self.sheet is None else f"sheet {self.sheet!r}"
            self.problems.append(Problem(1, 0, f"no header row: {where} is empty or blank"))

    def _read_header(self, line: int, offset: int, text: str) -> None:
        found = _header(text, self.mapped)
        if found is None:
            self.failed = True
            self.columns = {}
            reason = "header: malformed CSV, cannot split it by comma, semicolon or tab"
            self.problems.append(Problem(line, offset, reason, None, text[:RAW_LIMIT]))
            return
        self.delimiter = found[0]
        self._use_header(line, offset, _split(text, self.delimiter), text)

    def _use_header(self, line: int, offset: int, cells: list[str], text: str) -> None:
        """Take the header's labels as the columns, or fail the whole file (sheet) with one problem."""
        labels = [label.strip() for label in cells]
        names = [column_name(label, self.mapped) for label in labels]
        missing = [c for c in REQUIRED if c not in names]
        repeated = sorted({n for n in names if n in KNOWN and names.count(n) > 1})
        if missing:
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
            # A cell's problem names its column as the header does ("column score" for points).
            self.labels = {n: labels[i] if labels[i].lower() != n else n for n, i in self.columns.items()}
            self.width = len(names)
            return
        self.failed = True
        self.columns = {}
        where = "" if self.sheet is None else f"{self.at(line)}: "
        self.problems.append(Problem(line, offset, where + reason, None, text[:RAW_LIMIT]))

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

    def _build(self, hand: _Hand) -> dict[str, Any] | Problem:
        """One hand's rows as a canonical record, or the Problem naming every bad cell."""
        errors: list[str] = []
        hand_id = hand.key or None
        if hand_id is not None:
            first = self.seen.setdefault(hand_id, hand.line)
            if first != hand.line:
                errors.append(f"hand {hand_id} appears in two places ({self.unit}s {first} and {hand.line})")
        columns = self.columns or {}
        values: dict[str, tuple[Any, str, int]] = {}
        names: dict[str, int] = {}
        seats: dict[int, int] = {}
        players = []
        for index, row in enumerate(hand.rows):
            if row.fields is None:
                errors.append(row.error or f"{self.at(row.line)}: unreadable")
                continue
            bad: list[tuple[str, str]] = []
            cells = {column: row.fields[at].strip() for column, at in columns.items()}
            player = self._player(cells, index, bad)
            self._hand_values(cells, row.line, values, bad, self.unit)
            if player["name"] and (other := names.setdefault(player["name"].casefold(), row.line)) != row.line:
                twice = f"{player['name']!r} appears twice in the hand ({self.unit}s {other} and {row.line})"
                bad.append(("player", twice))
            if (other := seats.setdefault(player["seat"], row.line)) != row.line:
                bad.append(
                    ("seat", f"seat {player['seat']} appears twice in the hand ({self.unit}s {other} and {row.line})")
                )
            errors.extend(
                f"{self.at(row.line)}, column {self.labels.get(column, column)}: {message}" for column, message in bad
            )
            players.append(player)
        if hand_id is not None and not MIN_PLAYERS <= hand.count <= MAX_PLAYERS:
            noun = "player" if hand.count == 1 else "players"
            errors.append(f"hand {hand_id} has {hand.count} {noun} (a hand has {MIN_PLAYERS} to {MAX_PLAYERS})")
        if errors or hand_id is None:
            reason = "; ".join(errors) or "no hand id"
            return Problem(hand.line, hand.offset, reason, hand_id, "\n".join(hand.raw)[:RAW_LIMIT])
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
        return {
            "name": name,
            "seat": seat,
            "top": _cards(cells.get("top", "")),
            "middle": _cards(cells.get("middle", "")),
            "bottom": _cards(cells.get("bottom", "")),
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
