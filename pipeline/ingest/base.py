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
from typing import BinaryIO, Protocol

import numpy as np
import pyarrow as pa

from pipeline.ingest.columns import Scanned
from schemas.lake import RECORD

RAW_LIMIT = 1000
"""Characters of a bad record kept in quarantine."""


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
