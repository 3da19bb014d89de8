"""The boards of one committed batch, streamed as record batches of whole hands with their hands' facts.

A batch's boards and hands are written chunk by chunk in the same order, each partition (variant, month)
to its own files, with every board of a hand in one write: so a partition's boards files read in order
hold each hand's boards together, and its hands files hold the hands in the same order. Reading both
streams side by side joins them without an index; the trailing hand of each read is held back until the
next read shows it complete (``hands.whole_hands``). Memory is bounded by the read size, whatever the batch's size.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from pipeline.lake.store import LakeError
from pipeline.rescore.hands import hand_keys, run_starts, whole_hands

BOARD_COLUMNS = [
    "hand_key",
    "seat",
    "player",
    "cards",
    "misset",
    "fantasyland",
    "fantasyland_cards",
    "surrendered",
    "natural",
    "stack",
    "points",
]
HAND_COLUMNS = ["hand_key", "button", "house_rules", "n_players", "played_at"]
READ_ROWS = 1 << 18
"""Boards per read: large enough for the engine's vector work, small enough to keep memory flat."""


@dataclass(frozen=True)
class Partition:
    """One (variant, month) folder of a batch: its boards and hands files, in the order they were written."""

    variant: str
    month: str
    boards: list[Path] = field(default_factory=list)
    hands: list[Path] = field(default_factory=list)


def _parse(relative: str) -> tuple[str, str, str]:
    """``boards/variant=x/month=y/file`` -> (table, variant, month)."""
    table, *dirs, _ = relative.split("/")
    parts = dict(d.split("=", 1) for d in dirs)
    return table, parts.get("variant", ""), parts.get("month", "")


def _write_order(relative: str) -> int:
    """A batch's files are numbered in the order they were opened: ``<batch>-<n>.parquet``."""
    return int(relative.rsplit("-", 1)[1].split(".", 1)[0])


def partitions(root: Path, manifest: dict[str, Any]) -> list[Partition]:
    """The partitions of a committed batch that hold boards."""
    found: dict[tuple[str, str], Partition] = {}
    for relative in sorted(manifest["files"], key=_write_order):
        table, variant, month = _parse(relative)
        if table in ("boards", "hands"):
            part = found.setdefault((variant, month), Partition(variant, month))
            getattr(part, table).append(root / relative)
    return [p for p in found.values() if p.boards]


def count_hands(part: Partition) -> int:
    """Hands in a partition, from the files' footers."""
    return sum(pq.ParquetFile(f).metadata.num_rows for f in part.hands)


def _batches(files: list[Path], columns: list[str], rows: int, labels: list[str]) -> Iterator[pa.RecordBatch]:
    """The files' rows in order, ``rows`` at a time; ``labels`` columns come dictionary-encoded (no string copies)."""
    for f in files:
        yield from pq.ParquetFile(f, read_dictionary=labels).iter_batches(batch_size=rows, columns=columns)


class _Hands:
    """The partition's hands, handed out in order, as many at a time as a read of boards holds."""

    def __init__(self, part: Partition) -> None:
        self._stream = _batches(part.hands, HAND_COLUMNS, READ_ROWS, ["house_rules"])
        self._buffer: list[pa.RecordBatch] = []
        self._rows = 0
        self.where = f"variant={part.variant}/month={part.month}"

    def take(self, n: int) -> pa.RecordBatch:
        """The next ``n`` hands."""
        while self._rows < n:
            nxt = next(self._stream, None)
            if nxt is None:
                raise LakeError(f"{self.where}: the boards name more hands than the hands files hold")
            self._buffer.append(nxt)
            self._rows += nxt.num_rows
        joined = pa.concat_batches(self._buffer) if len(self._buffer) > 1 else self._buffer[0]
        rest = joined.slice(n)
        self._buffer, self._rows = ([rest], rest.num_rows) if rest.num_rows else ([], 0)
        return joined.slice(0, n)

    def finish(self) -> None:
        """Every hand was handed out: none is left without boards."""
        if self._rows or any(b.num_rows for b in self._stream):
            raise LakeError(f"{self.where}: the hands files hold hands without boards")


def _with_hands(boards: pa.RecordBatch, hands: _Hands, part: Partition) -> pa.RecordBatch:
    """Boards of whole hands, with each hand's button, house rules and time, checked to be the same hands in order."""
    keys = hand_keys(boards)
    starts = run_starts(keys)
    sizes = np.diff(np.r_[starts, keys.size])
    facts = hands.take(starts.size)
    same = np.array_equal(facts.column("hand_key").to_numpy(), keys[starts])
    if not same or not np.array_equal(facts.column("n_players").to_numpy(zero_copy_only=False), sizes):
        raise LakeError(f"{hands.where}: boards and hands are not stored in the same order")
    per_board = pa.array(np.repeat(np.arange(starts.size), sizes))
    n = boards.num_rows
    columns = {name: boards.column(name) for name in BOARD_COLUMNS}
    columns["variant"] = pa.DictionaryArray.from_arrays(pa.array(np.zeros(n, np.int32)), pa.array([part.variant]))
    columns["month"] = pa.DictionaryArray.from_arrays(pa.array(np.zeros(n, np.int32)), pa.array([part.month]))
    columns["button"] = facts.column("button").take(per_board)
    columns["house_rules"] = facts.column("house_rules").take(per_board)
    columns["played_at"] = facts.column("played_at").take(per_board)
    return pa.RecordBatch.from_pydict(columns)


def read_partition(part: Partition, rows: int = READ_ROWS) -> Iterator[pa.RecordBatch]:
    """``RESCORE_INPUT`` batches of whole hands: every board of the partition once, in stored order."""
    hands = _Hands(part)
    for batch in whole_hands(_batches(part.boards, BOARD_COLUMNS, rows, ["player"])):
        yield _with_hands(batch, hands, part)
    hands.finish()
