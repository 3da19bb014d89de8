"""A lake batch written on worker threads while the next chunk is read and checked."""

from __future__ import annotations

from collections import deque
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

import pyarrow as pa

from ofc.pipeline.lake.batch_writer import BatchWriter
from ofc.pipeline.read_ahead import result_of

__all__ = ["BackgroundWriter"]


class BackgroundWriter:
    """A batch writer whose writes run on worker threads: one per table, so each table's rows stay in order.

    Parquet encoding and compression release the GIL, so writing one chunk's rows overlaps reading and
    checking the next, and the placements (most of the bytes) are encoded while the boards and hands are.
    At most MAX_PENDING writes wait, which bounds the memory they hold; an error in a write surfaces at the
    next write, at ``commit`` or at ``abort``. A table's rows are handed over GROUP_ROWS or more at a time.
    """

    MAX_PENDING = 8
    GROUP_ROWS = 1 << 16
    """Rows of a table gathered before they are written: a chunk's few thousand hands and boards, each chunk a
    row group of its own, cost a tenth more to encode (a chunk's placements are more than this already)."""

    def __init__(self, writer: BatchWriter) -> None:
        self.writer = writer
        self.batch = writer.batch
        self._pools: dict[str, ThreadPoolExecutor] = {}
        self._pending: deque[Future[None]] = deque()
        self._gathered: dict[str, list[pa.Table]] = {}

    def write(self, table: str, data: pa.Table) -> None:
        if data.num_rows:
            gathered = self._gathered.setdefault(table, [])
            gathered.append(data)
            if sum(t.num_rows for t in gathered) >= self.GROUP_ROWS:
                self._submit(table)
        while len(self._pending) > self.MAX_PENDING:
            result_of(self._pending.popleft())

    def _submit(self, table: str) -> None:
        gathered = self._gathered.pop(table, [])
        if not gathered:
            return
        # Parts may code their months in integers of other widths: the wider is taken.
        data = gathered[0] if len(gathered) == 1 else pa.concat_tables(gathered, promote_options="permissive")
        if table not in self._pools:
            self._pools[table] = ThreadPoolExecutor(1, thread_name_prefix=f"ofc-write-{table}")
        self._pending.append(self._pools[table].submit(self.writer.write, table, data))

    def drain(self) -> None:
        """Write every row so far and wait for the writes (the pools stay for more)."""
        for table in list(self._gathered):
            self._submit(table)
        while self._pending:
            result_of(self._pending.popleft())

    def _drain(self) -> None:
        try:
            self.drain()
        finally:
            for pool in self._pools.values():
                pool.shutdown()

    def commit(
        self, summary: dict[str, Any], sources: list[dict[str, Any]], extra: dict[str, Any] | None = None
    ) -> dict[str, Any]:
        self._drain()
        return self.writer.commit(summary, sources, extra)

    def abort(self) -> None:
        """Throw the batch away: writes not started are cancelled, the running ones finish (the files they write
        to are about to be closed), their errors are dropped (the error that ended the batch is raised already),
        and the staging goes, even if a second interrupt comes meanwhile."""
        try:
            self._gathered.clear()
            for future in self._pending:
                future.cancel()
            for pool in self._pools.values():
                pool.shutdown(wait=True, cancel_futures=True)
        finally:
            self._pending.clear()
            self.writer.abort()
