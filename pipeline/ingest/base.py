"""What every ingester produces: chunks of canonical records in Arrow form, and the records it could not read.

An ingester turns a byte stream into :class:`Chunk` s. Each record read from
the source ends up in exactly one place: a row of ``records`` (to be validated
and stored) or a :class:`Problem` (to be quarantined with its reason). Chunks
are bounded (a few thousand records) so memory stays flat however large the
input is.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, BinaryIO, Protocol

import numpy as np
import pyarrow as pa

from ofc.pipeline.errors import InputError
from ofc.pipeline.ingest.columns import Scanned
from ofc.schemas.lake import RECORD

RAW_LIMIT = 1000
"""Characters of a bad record kept in quarantine."""
SHOW = 60
"""Characters of a bad value quoted in a reason: one bad field cannot bloat the quarantine."""


FIELD_PATH = re.compile(r"^((?:players\[\d+\]\.)?[a-z_]+(?:\[\d+\])?): ")
"""A reason that starts with the field it is about: ``players[1].middle[2]: not a card: 'Xd'``."""
_LINE = re.compile(r"^line (\d+): ")


@dataclass(frozen=True)
class Place:
    """Where a fault is, in its source's own words: the line (a workbook's sheet and row), the hand and the player,
    and the column as the sheet's header names it or the field as the record names it."""

    line: int = 0
    """1-based line of the file, or row of a workbook sheet (0 when the format has no lines)."""
    last: int = 0
    """The last line of a span (a hand's rows), or 0."""
    sheet: str | None = None
    hand: str | None = None
    player: str | None = None
    column: str | None = None
    """The column as a scoresheet's header names it (``Front``, ``Score``)."""
    field: str | None = None
    """The field as a record names it (``players[2].top[1]``), for formats without columns."""

    def lines(self) -> str:
        span = f"{self.line}-{self.last}" if self.last > self.line else str(self.line)
        return span

    def text(self, source: str) -> str:
        """The place after the file's name: ``friday.csv:7 (hand 2, Katrin), column Front``, ``club.xlsx, sheet
        '8 Nov', row 7 (hand 2, Katrin), column Front``, ``hands.jsonl:5: players[2].top[1]``."""
        if self.sheet is not None:
            at = f"{source}, sheet {self.sheet!r}, row{'s' if self.last > self.line else ''} {self.lines()}"
        else:
            at = f"{source}:{self.lines()}" if self.line else source
        return at + self._after()

    def near(self, other: Place) -> str:
        """This place as seen from ``other``, in the same source: what differs only."""
        if self.sheet is not None:
            at = f"row {self.lines()}" + (f" of sheet {self.sheet!r}" if self.sheet != other.sheet else "")
        else:
            at = f"line {self.lines()}" if self.line and self.line != other.line else ""
        who = self.player if self.player and self.player != other.player else None
        if who:
            at = f"{at} ({who})" if at else who
        column = f"column {self.column}" if self.column else self.field or ""
        return ", ".join(p for p in (at, column) if p) or "the same place"

    def _after(self) -> str:
        who = ", ".join(x for x in (f"hand {self.hand}" if self.hand else "", self.player or "") if x)
        out = f" ({who})" if who else ""
        if self.column:
            return out + f", column {self.column}"
        return out + (f": {self.field}" if self.field else "")


@dataclass(frozen=True)
class Issue:
    """One fault of a record: where it is, and what is wrong there."""

    place: Place
    message: str

    def text(self, source: str) -> str:
        return f"{self.place.text(source)}: {self.message}"


class FaultError(InputError):
    """A structural fault of one record a reader met: its text becomes the record's :class:`Problem` reason, and
    ``raw``, when given, is the text of the offending line (else the reader quarantines the record's own)."""

    def __init__(self, reason: str, raw: str | None = None) -> None:
        super().__init__(reason)
        self.raw = raw


@dataclass(frozen=True)
class Problem:
    """A record that could not be read, and where it was."""

    line: int
    """1-based line of the record's first line in its file (0 when the format has no lines)."""
    offset: int
    """Byte offset of the record in its (decompressed) file."""
    reason: str
    """What is wrong, naming the field: ``players[1].middle[2]: not a card: 'Xd'``."""
    hand_id: str | None = None
    raw: str = ""
    """The record's text, cut to RAW_LIMIT characters."""
    found: tuple[Issue, ...] = ()
    """Each fault where it is, when the reader knows more than the line (a scoresheet's cells)."""

    @classmethod
    def of(cls, issues: list[Issue], offset: int, hand_id: str | None = None, raw: str = "") -> Problem:
        """A record with these faults: at the line of the first, the reason saying each where it is."""
        first = issues[0].place
        reason = "; ".join(_stored(issue, k > 0 and issue.place.line != first.line) for k, issue in enumerate(issues))
        return cls(first.line, offset, reason, hand_id, raw, tuple(issues))

    @property
    def issues(self) -> tuple[Issue, ...]:
        """Each fault where it is: those the reader found, else the reason at the record's line (the field its
        reason starts with, when it does)."""
        if self.found:
            return self.found
        reason, line = self.reason, self.line
        named = _LINE.match(reason)  # a reason about another line than the record's first: at that line
        if named is not None:
            reason, line = reason[named.end() :], int(named.group(1))
        path = FIELD_PATH.match(reason)
        place = Place(line, hand=self.hand_id, field=path.group(1) if path else None)
        return (Issue(place, reason[path.end() :] if path else reason),)


def _stored(issue: Issue, line: bool) -> str:
    """An issue as the quarantine keeps it, beside its file and line: ``(hand 2, Katrin), column Front: not a card:
    '9hh'``; with ``line``, where it is (``line 8 (hand 2, Bo), ...``), for a record's faults after the first."""
    place = issue.place
    at = ""
    if line and place.sheet is not None:
        at = f"row {place.lines()}"
    elif line and place.line:
        at = f"line {place.lines()}"
    head = (at + place._after()).strip().removeprefix(": ")
    return f"{head}: {issue.message}" if head else issue.message


class Locator(Protocol):
    """Says where a field of one record is in its source (a scoresheet's row and column)."""

    def place(self, path: str | None) -> Place:
        """Where the record's field ``path`` (``players[2].top[1]``, ``points``; None: the record) is."""
        ...


@dataclass(frozen=True)
class RecordPlaces:
    """A record of a site's history: its line, the site's hand id and each player's name; a field is named as the
    record names it, within its player (``Katrin: top[1]``)."""

    line: int
    hand: str | None
    players: tuple[str, ...]

    def place(self, path: str | None) -> Place:
        found = _PLAYER.match(path or "")
        if found is None:
            return Place(self.line, hand=self.hand, field=path)
        i = int(found.group(1))
        player = self.players[i] if i < len(self.players) else None
        return Place(self.line, hand=self.hand, player=player, field=path[found.end() :])  # type: ignore[index]


_PLAYER = re.compile(r"^players\[(\d+)\]\.")


@dataclass
class Chunk:
    """Records read from one source, in source order."""

    records: pa.Table
    """Canonical records, schema :data:`schemas.lake.RECORD`."""
    lines: np.ndarray
    """Source line of each record (int64)."""
    offsets: np.ndarray
    """Byte offset of each record (int64)."""
    problems: list[Problem] = field(default_factory=list)
    bytes_read: int = 0
    """Bytes of input consumed to produce this chunk (drives the progress bar)."""
    scanned: Scanned | None = None
    """Records the reader already took and checked in compiled code (canonical JSONL's common case)."""
    guessed: frozenset[str] = frozenset()
    """Record fields the source does not hold and the reader inferred (``variant``, ``house_rules``): a label
    given on the command line replaces them, and recognition may (``pipeline.ingest.labels``)."""
    places: list[Locator | None] | None = None
    """Where each record's fields are in the source, one per row of ``records`` (None: a field is named by its
    path, at the record's line)."""
    notes: list[str] = field(default_factory=list)
    """What a reader noticed that is not wrong but may be (a name spelled two ways)."""

    def place(self, row: int, path: str | None) -> Place:
        """Where the field ``path`` of record ``row`` is in the source."""
        locator = self.places[row] if self.places is not None else None
        if locator is not None:
            return locator.place(path)
        return Place(int(self.lines[row]), field=path)

    def keep(self, rows: np.ndarray) -> list[Locator | None] | None:
        """The places of the records kept (``rows``: a mask or indices), for a chunk of those records."""
        if self.places is None:
            return None
        picked = np.flatnonzero(rows) if rows.dtype == bool else rows
        return [self.places[i] for i in picked.tolist()]

    @property
    def count(self) -> int:
        """Records read: in ``records``, in ``scanned`` and in ``problems``."""
        taken = 0 if self.scanned is None else self.scanned.taken.size
        return self.records.num_rows + taken + len(self.problems)

    @classmethod
    def from_dicts(
        cls,
        records: list[dict],
        lines: list[int],
        offsets: list[int],
        problems: list[Problem],
        bytes_read: int,
        places: list[Locator | None] | None = None,
    ) -> Chunk:
        """Build a chunk from canonical records as dicts (keys as in :class:`schemas.hand.HandRecord`)."""
        return cls(
            records=pa.Table.from_pylist(records, schema=RECORD),
            lines=np.asarray(lines, dtype=np.int64),
            offsets=np.asarray(offsets, dtype=np.int64),
            problems=problems,
            bytes_read=bytes_read,
            places=places,
        )


def show(value: Any) -> str:
    """A value quoted in a reason, kept short so one bad field cannot bloat the quarantine."""
    text = repr(value)
    return text if len(text) <= SHOW else text[: SHOW - 3] + "..."


def list_of(value: Any, path: str, what: str, item: type, item_what: str) -> list[Any]:
    """``value`` as a list whose every item is an ``item``, or the fault that names the first that is not:
    ``players: expected a list of players, got 3``, ``players[1]: expected an object, got 'Ann'``."""
    if not isinstance(value, list):
        raise FaultError(f"{path}: expected a list of {what}, got {show(value)}")
    for i, x in enumerate(value):
        if not isinstance(x, item):
            raise FaultError(f"{path}[{i}]: expected {item_what}, got {show(x)}")
    return value


def is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def unstorable(obj: Any) -> tuple[str, str] | None:
    """(path, text) of the first string Arrow cannot store, if any.

    A lone surrogate written as a ``\\ud800`` escape parses fine but makes the table fail to build.
    Only lines with an escape need this walk. It uses a stack, not recursion, so deep nesting is safe.
    """
    stack: list[tuple[str, Any]] = [("", obj)]
    while stack:
        path, value = stack.pop()
        if isinstance(value, str):
            try:
                value.encode("utf-8")
            except UnicodeEncodeError:
                return path or "(line)", value
        elif isinstance(value, dict):
            for key, item in reversed(value.items()):
                stack.append((f"{path}.{key}" if path else str(key), item))
                stack.append((f"{path}.{key}" if path else str(key), key))
        elif isinstance(value, list):
            stack.extend((f"{path}[{i}]", item) for i, item in reversed(list(enumerate(value))))
    return None


class Pending:
    """Records and problems of a reader that builds records one by one, waiting to become its next chunk."""

    def __init__(self) -> None:
        self.records: list[dict] = []
        self.lines: list[int] = []
        self.offsets: list[int] = []
        self.problems: list[Problem] = []
        self.places: list[Locator | None] = []
        self.consumed = 0
        """Bytes read since the last chunk."""

    def __len__(self) -> int:
        return len(self.records) + len(self.problems)

    def take(self, record: dict, line: int, offset: int) -> None:
        """A record of a site's history: its faults will name the site's hand id and the player."""
        self.records.append(record)
        self.lines.append(line)
        self.offsets.append(offset)
        names = tuple(str(p.get("name") or "") for p in record.get("players") or () if isinstance(p, dict))
        self.places.append(RecordPlaces(line, record.get("hand_id"), names))

    def chunk(self, guessed: frozenset[str] = frozenset()) -> Chunk:
        """What is pending as a chunk (``Chunk.guessed``: ``guessed``); nothing is pending after."""
        chunk = Chunk.from_dicts(self.records, self.lines, self.offsets, self.problems, self.consumed, self.places)
        chunk.guessed = guessed
        self.records, self.lines, self.offsets, self.problems, self.consumed = [], [], [], [], 0
        self.places = []
        return chunk


class Ingester(Protocol):
    """One source format."""

    name: str
    """The format's name for ``--format``."""

    def sniff(self, head: bytes) -> bool:
        """Whether the first bytes of a file (up to 64 KiB, decompressed) look like this format."""
        ...

    def read(self, stream: BinaryIO, source: str) -> Iterator[Chunk]:
        """Read a whole (decompressed) stream; ``source`` names the file in problems and records."""
        ...

    def plain(self) -> Ingester:
        """The same reader with every record in ``Chunk.records`` (none taken by a compiled scanner), for
        what must see or change each record."""
        ...
