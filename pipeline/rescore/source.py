"""The boards of one committed batch, streamed as record batches of whole hands with their hands' facts.

A batch's boards and hands are written chunk by chunk in the same order, each partition (variant, month)
to its own files, with every board of a hand in one write: so a partition's boards files read in order
hold each hand's boards together, and its hands files hold the hands in the same order. Reading both
streams side by side joins them without an index, and checks on every read that the keys agree; the
trailing hand of each read is held back until the next read shows it complete (``whole_hands.whole_hands``).
Memory is bounded by the read size, whatever the batch's size.

Boards ingested before the lake kept each card's street (``streets``) have it filled in from the
placements table, so their fouled boards still get the street they went dead at.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from itertools import pairwise
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from ofc.pipeline.lake.board_cards import card_matrix
from ofc.pipeline.lake.snapshot import SourceBatch
from ofc.pipeline.lake.store import LakeError
from ofc.pipeline.rescore.whole_hands import hand_keys, run_starts, whole_hands
from ofc.schemas.lake import BOARDS, HANDS, PARTITIONS, RESCORE_INPUT

__all__ = ["Partition", "Slice", "count_hands", "groups", "partitions", "read_partition", "read_slice", "slices"]

BOARD_COLUMNS = [n for n in RESCORE_INPUT.names if n in BOARDS.names and n not in PARTITIONS]
"""The boards' columns a rescore reads: those of ``RESCORE_INPUT`` the boards table holds."""
HAND_FACTS = [n for n in RESCORE_INPUT.names if n in HANDS.names and n not in (*BOARD_COLUMNS, *PARTITIONS)]
"""The hands' facts each board is given: what the scoring, the native rules and the summaries need (the results
keep none of them: they are joined by key)."""
HAND_COLUMNS = ["hand_key", *HAND_FACTS, "n_players"]
"""The hands' columns read: the facts, with the key and the players to check them against the boards by."""
LABELS = ["player", "session", "house_rules"]
"""String columns read dictionary-encoded: few distinct values, no string copies."""
READ_ROWS = 1 << 17
"""Boards per read: large enough for the engine's vector work, small enough to keep memory flat (rescoring a
million hands under six rule sets peaks at about 0.8 GB with reads of 131,072 boards, 1.0 GB with 196,608 and
1.1 GB with 262,144, for the same time)."""


@dataclass(frozen=True)
class Partition:
    """One (variant, month) folder of a batch: its files of each table, in the order they were written."""

    variant: str
    month: str
    boards: list[Path] = field(default_factory=list)
    hands: list[Path] = field(default_factory=list)
    placements: list[Path] = field(default_factory=list)


def _parse(relative: str) -> tuple[str, str, str]:
    """``boards/variant=x/month=y/file`` -> (table, variant, month)."""
    table, *dirs, _ = relative.split("/")
    parts = dict(d.split("=", 1) for d in dirs)
    return table, parts.get("variant", ""), parts.get("month", "")


def _write_order(relative: str) -> int:
    """A batch's files are numbered in the order they were opened: ``<batch>-<n>.parquet``; a file rewritten for
    it later (hands removed) is ``<batch>-<n>.<later batch>.parquet`` and keeps its place."""
    name = relative.rsplit("/", 1)[-1]
    return int(name.split(".", 1)[0].rsplit("-", 1)[1])


def partitions(root: Path, source: SourceBatch) -> list[Partition]:
    """The partitions of a committed batch that hold boards."""
    found: dict[tuple[str, str], Partition] = {}
    for relative in sorted(source.files, key=_write_order):
        table, variant, month = _parse(relative)
        if table in ("boards", "hands", "placements"):
            part = found.setdefault((variant, month), Partition(variant, month))
            getattr(part, table).append(root / relative)
    return [p for p in found.values() if p.boards]


def count_hands(part: Partition) -> int:
    """Hands in a partition, from the files' footers."""
    return sum(pq.ParquetFile(f).metadata.num_rows for f in part.hands)


def groups(root: Path, source: SourceBatch) -> list[tuple[str, str | None, int]]:
    """(variant, house rules, hands) of a batch's hands: one read of one column."""
    counts: Counter[tuple[str, str | None]] = Counter()
    for part in partitions(root, source):
        for f in part.hands:
            column = pq.read_table(f, columns=["house_rules"]).column("house_rules")
            for row in pc.value_counts(column).to_pylist():
                counts[(part.variant, row["values"])] += row["counts"]
    return [(v, h, n) for (v, h), n in counts.items()]


def _batches(files: list[Path], columns: list[str], rows: int) -> Iterator[pa.RecordBatch]:
    """The files' rows in order, ``rows`` at a time; labels come dictionary-encoded (no string copies)."""
    for f in files:
        parquet = pq.ParquetFile(f, read_dictionary=[c for c in LABELS if c in columns])
        present = [c for c in columns if c in parquet.schema_arrow.names]
        yield from parquet.iter_batches(batch_size=rows, columns=present)


class _Hands:
    """The partition's hands, handed out in order, as many at a time as a read of boards holds."""

    def __init__(self, part: Partition, stream: Iterator[pa.RecordBatch] | None = None) -> None:
        self._stream = stream if stream is not None else _batches(part.hands, HAND_COLUMNS, READ_ROWS)
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
    """Boards of whole hands with each hand's facts, checked to be the same hands in the same order."""
    keys = hand_keys(boards)
    starts = run_starts(keys)
    sizes = np.diff(np.r_[starts, keys.size])
    facts = hands.take(starts.size)
    same = np.array_equal(facts.column("hand_key").to_numpy(), keys[starts])
    if not same or not np.array_equal(facts.column("n_players").to_numpy(zero_copy_only=False), sizes):
        raise LakeError(f"{hands.where}: boards and hands are not stored in the same order")
    per_board = pa.array(np.repeat(np.arange(starts.size), sizes))
    n = boards.num_rows
    columns = {name: boards.column(name) for name in boards.schema.names}
    columns["variant"] = pa.DictionaryArray.from_arrays(pa.array(np.zeros(n, np.int32)), pa.array([part.variant]))
    columns["month"] = pa.DictionaryArray.from_arrays(pa.array(np.zeros(n, np.int32)), pa.array([part.month]))
    for name in HAND_FACTS:
        columns[name] = facts.column(name).take(per_board)
    return pa.RecordBatch.from_pydict(columns)


def _placement_streets(part: Partition, boards: pa.Table) -> pa.Table:
    """``streets`` and ``discard_streets`` for boards written before the boards table kept them, from the
    partition's placements (matched on hand and seat)."""
    # lazy: polars (0.13 s) and the validator (0.7 s), for a lake from before boards kept streets only
    import polars as pl

    from ofc.pipeline.ingest.validate import street_layout

    b = pl.from_arrow(boards.select(["hand_key", "seat"])).with_row_index("board")
    if part.placements:
        columns = ["hand_key", "seat", "street", "card", "row"]
        p = pl.from_arrow(pa.concat_tables(pq.read_table(f, columns=columns) for f in part.placements))
        p = p.join(b, on=["hand_key", "seat"]).with_columns(pl.col("row").cast(pl.String))
    else:  # a partition with no placements (classic hands, histories of final rows only)
        p = pl.DataFrame(schema={"board": pl.UInt32, "street": pl.Int8, "card": pl.UInt8, "row": pl.String})
    rows = p["row"].replace_strict({"top": 0, "middle": 1, "bottom": 2, "discard": 3}, return_dtype=pl.Int64)
    cards = card_matrix(boards.column("cards"))
    layout = street_layout(
        p["board"].to_numpy().astype(np.int64),
        p["card"].to_numpy().astype(np.uint8),
        rows.to_numpy(),
        p["street"].to_numpy().astype(np.int64),
        cards,
        boards.column("discards").combine_chunks(),
    )
    return boards.append_column("streets", layout["streets"]).append_column(
        "discard_streets", layout["discard_streets"]
    )


def _boards(part: Partition, rows: int) -> Iterator[pa.RecordBatch]:
    names = pq.ParquetFile(part.boards[0]).schema_arrow.names
    if "streets" in names:
        yield from _batches(part.boards, BOARD_COLUMNS, rows)
        return
    older = [c for c in BOARD_COLUMNS if c in names]
    for f in part.boards:  # a lake written before each card's street was kept: a file at a time
        table = pq.read_table(f, columns=older, read_dictionary=["player"])
        yield from _placement_streets(part, table).to_batches(max_chunksize=rows)


def read_partition(part: Partition, rows: int = READ_ROWS) -> Iterator[pa.RecordBatch]:
    """``RESCORE_INPUT`` batches of whole hands: every board of the partition once, in stored order."""
    hands = _Hands(part)
    for batch in whole_hands(_boards(part, rows)):
        yield _with_hands(batch, hands, part)
    hands.finish()


@dataclass(frozen=True)
class Slice:
    """A run of whole hands of a partition, read apart from the rest (by a cluster's worker): its boards
    ``board_lo`` to ``board_hi`` and its hands ``hand_lo`` to ``hand_hi`` in stored order."""

    part: Partition
    board_lo: int
    board_hi: int
    hand_lo: int
    hand_hi: int


def slices(part: Partition, hands_each: int) -> list[Slice]:
    """The partition cut into runs of about ``hands_each`` whole hands, found from the boards' hand keys alone;
    one slice for a partition written before boards kept their streets (read whole, joined to placements)."""
    names = pq.ParquetFile(part.boards[0]).schema_arrow.names
    if "streets" not in names:
        return [Slice(part, 0, -1, 0, -1)]
    keys = np.concatenate([pq.read_table(f, columns=["hand_key"]).column("hand_key").to_numpy() for f in part.boards])
    starts = np.r_[run_starts(keys), keys.size]
    hands = starts.size - 1
    n = max(1, -(-hands // max(hands_each, 1)))
    cuts = [hands * k // n for k in range(n + 1)]
    return [Slice(part, int(starts[a]), int(starts[b]), a, b) for a, b in pairwise(cuts) if b > a]


def _rows_between(files: list[Path], columns: list[str], lo: int, hi: int, rows: int) -> Iterator[pa.RecordBatch]:
    """Rows ``lo`` to ``hi`` of the files taken in order, reading only the row groups that hold them."""
    at = 0
    for f in files:
        parquet = pq.ParquetFile(f, read_dictionary=[c for c in LABELS if c in columns])
        present = [c for c in columns if c in parquet.schema_arrow.names]
        for g in range(parquet.num_row_groups):
            size = parquet.metadata.row_group(g).num_rows
            if at + size <= lo or at >= hi:
                at += size
                continue
            for batch in parquet.iter_batches(batch_size=rows, row_groups=[g], columns=present):
                a, b = max(lo - at, 0), min(hi - at, batch.num_rows)
                if b > a:
                    yield batch.slice(a, b - a)
                at += batch.num_rows


def read_slice(piece: Slice, rows: int = READ_ROWS) -> Iterator[pa.RecordBatch]:
    """``RESCORE_INPUT`` batches of the slice's whole hands, as ``read_partition`` gives the partition's."""
    part = piece.part
    if piece.board_hi < 0:
        yield from read_partition(part, rows)
        return
    hands = _Hands(part, _rows_between(part.hands, HAND_COLUMNS, piece.hand_lo, piece.hand_hi, READ_ROWS))
    for batch in whole_hands(_rows_between(part.boards, BOARD_COLUMNS, piece.board_lo, piece.board_hi, rows)):
        yield _with_hands(batch, hands, part)
    hands.finish()
