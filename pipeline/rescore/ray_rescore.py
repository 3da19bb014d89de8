"""Rescoring on a Ray cluster: the same results as a local rescore, scored by many processes.

Each source batch is one Ray Data pipeline. A read task per (variant, month) partition streams its boards in
blocks of whole hands (``source.read_partition``, as the local engine reads them); ``map_batches`` scores each
block under every job on whichever worker is free and writes the result rows into the batch's staging folder
under a name of its own; the driver adopts the files the workers hand back and commits them with one manifest,
as a local rescore does. Until that manifest is written nothing is visible: a worker killed midway leaves files
in staging that no manifest names (Ray runs its block again), a driver killed midway leaves only staging, which
the next writer clears, and a rerun scores the batch afresh.

The lake must be where every worker sees it at the same path (a shared file system).
"""

from __future__ import annotations

import json
import secrets
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pyarrow as pa

from ofc.pipeline.errors import InputError
from ofc.pipeline.rescore.plan import KIND, Work
from ofc.pipeline.rescore.source import READ_ROWS, Slice, partitions, read_slice, slices
from ofc.pipeline.rescore.totals import RuleTotals

if TYPE_CHECKING:
    from ofc.pipeline.lake.store import Lake
    from ofc.pipeline.rules.native import Natives

__all__ = ["INSTALL", "RayUnavailableError", "connect", "score_source_ray"]

INSTALL = "pip install 'ofc-analytics[ray]'"


class RayUnavailableError(InputError):
    """``--engine ray`` without Ray installed."""


def connect(address: str | None = None, num_cpus: int | None = None) -> Any:
    """Ray, started locally (``address`` None) or joined to a cluster; an error saying how to install it."""
    try:
        import ray
    except ImportError:
        raise RayUnavailableError(f"--engine ray needs Ray, which is not installed: {INSTALL}") from None
    if not ray.is_initialized():
        options: dict[str, Any] = {"address": address} if address else {"num_cpus": num_cpus}
        ray.init(**options, include_dashboard=False, log_to_driver=False, configure_logging=False)
    return ray


SLICE_HANDS = 100_000
"""Hands a read task reads: a partition is cut in slices of whole hands, read side by side."""


def _read_tasks(lake_root: Path, work: Work) -> list[Any]:
    """A read task per slice of each partition of the source batch: blocks of whole hands, in stored order."""
    from ray.data import ReadTask
    from ray.data.block import BlockMetadata

    def reader(piece: Slice) -> Callable[[], Iterator[pa.Table]]:
        # A slice is one block: each block scored writes a file per result table, so few large blocks write
        # few files (a slice of 100,000 hands is about 40 MB, well under Ray's 128 MB blocks, never split).
        return lambda: iter([pa.Table.from_batches(list(read_slice(piece, READ_ROWS)))])

    return [
        ReadTask(reader(piece), BlockMetadata(num_rows=None, size_bytes=None, exec_stats=None, input_files=None))
        for part in partitions(lake_root, work.source)
        for piece in slices(part, SLICE_HANDS)
    ]


def _score_block(block: pa.Table, lake_root: str, batch: str, work: Work, natives: Natives) -> pa.Table:
    """Score one block of whole hands under every job, write its results into the batch's staging, and hand
    back (as one row of JSON) the files written and the counts of each job."""
    from dataclasses import asdict
    from datetime import UTC, datetime

    from ofc.pipeline.lake.batch_writer import BatchWriter
    from ofc.pipeline.lake.store import Lake
    from ofc.pipeline.rescore.score_source import write_board_sums, write_boards, write_pairs
    from ofc.pipeline.rescore.step import Scorer, read_boards
    from ofc.pipeline.rescore.step import score_job as score_one

    started = time.perf_counter()
    records = block.combine_chunks().to_batches()
    table = read_boards(records[0] if len(records) == 1 else pa.concat_batches(records), natives)
    writer = BatchWriter(Lake(Path(lake_root)), batch, KIND, datetime.now(UTC), part=secrets.token_hex(4))
    scorer = Scorer(table)
    totals = []
    for job in work.jobs:
        t = RuleTotals(job.rules.name, job.key)
        t0 = time.thread_time()
        s = score_one(table, scorer, job)
        t.seconds = time.thread_time() - t0
        t.hands = s.hands
        t.not_applied(s.not_applied, s.why)
        if s.scored is not None:
            t.add(write_pairs(writer, table, s))
            counts, boards = write_boards(writer, table, s)
            write_board_sums(writer, table, s, boards)
            t.add(counts)
        totals.append(asdict(t))
    handed = {"hands": int(table.starts.size), "wall": time.perf_counter() - started, "files": writer.handed()}
    return pa.table({"handed": [json.dumps({**handed, "totals": totals})]})


def score_source_ray(
    lake: Lake, work: Work, natives: Natives, on_hands: Callable[[int], None], ray: Any
) -> tuple[str, list[RuleTotals]]:
    """Score one source batch on the cluster and commit its results as one batch: (its id, its counts)."""
    from ray.data import Datasource, read_datasource

    from ofc.pipeline.rescore.score_source import commit_results

    tasks = _read_tasks(lake.root, work)

    class _Boards(Datasource):  # type: ignore[misc]
        def get_read_tasks(self, parallelism: int, **_: Any) -> list[Any]:
            return tasks

        def estimate_inmemory_data_size(self) -> int | None:
            return None

    from ray.data import DataContext

    # Ray Data keeps part of the cluster for each operator; here reading is a sliver of the work, and what it
    # would keep idle is a scoring task's CPU (on 2 CPUs, one scoring task at a time instead of two).
    DataContext.get_current().op_resource_reservation_enabled = False
    totals = [RuleTotals(j.rules.name, j.key, batches=1, native_only=j.native_only) for j in work.jobs]
    writer = lake.begin(KIND)
    hands = 0
    blocks: list[float] = []
    """Wall seconds of each block on its worker."""
    try:
        if work.jobs and tasks:
            # One read task a partition, never split: a block holds whole hands. Reading is light beside
            # scoring, so it does not hold a whole CPU that a scoring task could use.
            boards = read_datasource(_Boards(), override_num_blocks=len(tasks), num_cpus=0.25)
            scored = boards.map_batches(
                _score_block,
                fn_kwargs={"lake_root": str(lake.root), "batch": writer.batch, "work": work, "natives": natives},
                batch_size=None,  # a block is a batch: whole hands, never split
                batch_format="pyarrow",
            )
            for out in scored.iter_batches(batch_size=None, batch_format="pyarrow"):
                for text in out.column("handed").to_pylist():
                    handed = json.loads(text)
                    blocks.append(handed["wall"])
                    writer.adopt(handed["files"])
                    for t, got in zip(totals, handed["totals"], strict=True):
                        t.add(RuleTotals(**{**got, "batches": 0}))
                    hands += handed["hands"]
                    on_hands(handed["hands"])
        commit_results(writer, work, totals, hands)
        return writer.batch, totals
    except BaseException:
        writer.abort()
        raise
