"""What every ingester produces: chunks of canonical records in Arrow form, and the records it could not read.

An ingester turns a byte stream into :class:`Chunk` s. Each record read from
the source ends up in exactly one place: a row of ``records`` (to be validated
and stored) or a :class:`Problem` (to be quarantined with its reason). Chunks
are bounded (a few thousand records) so memory stays flat however large the
input is.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, BinaryIO, Protocol

import numpy as np
import pyarrow as pa

from pipeline.ingest.columns import Scanned
from schemas.lake import RECORD

RAW_LIMIT = 1000
"""Characters of a bad record kept in quarantine."""
SHOW = 60
"""Characters of a bad value quoted in a reason: one bad field cannot bloat the quarantine."""


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

    @property
    def count(self) -> int:
        """Records read: in ``records``, in ``scanned`` and in ``problems``."""
        taken = 0 if self.scanned is None else self.scanned.taken.size
        return self.records.num_rows + taken + len(self.problems)

    @classmethod
    def from_dicts(
        cls, records: list[dict], lines: list[int], offsets: list[int], problems: list[Problem], bytes_read: int
    ) -> Chunk:
        """Build a chunk from canonical records as dicts (keys as in :class:`schemas.hand.HandRecord`)."""
        return cls(
            records=pa.Table.from_pylist(records, schema=RECORD),
            lines=np.asarray(lines, dtype=np.int64),
            offsets=np.asarray(offsets, dtype=np.int64),
            problems=problems,
            bytes_read=bytes_read,
        )


def show(value: Any) -> str:
    """A value quoted in a reason, kept short so one bad field cannot bloat the quarantine."""
    text = repr(value)
    return text if len(text) <= SHOW else text[: SHOW - 3] + "..."


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
        self.consumed = 0
        """Bytes read since the last chunk."""

    def __len__(self) -> int:
        return len(self.records) + len(self.problems)

    def take(self, record: dict, line: int, offset: int) -> None:
        self.records.append(record)
        self.lines.append(line)
        self.offsets.append(offset)

    def chunk(self, guessed: frozenset[str] = frozenset()) -> Chunk:
        """What is pending as a chunk (``Chunk.guessed``: ``guessed``); nothing is pending after."""
        chunk = Chunk.from_dicts(self.records, self.lines, self.offsets, self.problems, self.consumed)
        chunk.guessed = guessed
        self.records, self.lines, self.offsets, self.problems, self.consumed = [], [], [], [], 0
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
