"""One source batch through the rescore: read, score under every job, build and write, commit.

Three kinds of work overlap. A reader thread decodes the next chunk of whole hands while this thread
scores the current one under each job; each result table has its own thread that builds the table's
columns from the engine's arrays and encodes them to Parquet (both release the GIL). A short queue between
scoring and the writers bounds memory. The result batch's manifest is the commit point: until it is written
nothing is visible, and an error leaves only staging files the next writer removes.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable, Iterator
from concurrent.futures import Future

import numba
import pyarrow as pa

from ofc.pipeline import __version__
from ofc.pipeline.lake.batch_writer import BatchWriter
from ofc.pipeline.lake.snapshot import RESULT_FORMAT
from ofc.pipeline.lake.store import Lake
from ofc.pipeline.read_ahead import ahead, result_of, serial_thread
from ofc.pipeline.rescore.plan import KIND, Work
from ofc.pipeline.rescore.source import READ_ROWS, Partition, partitions, read_partition
from ofc.pipeline.rescore.step import (
    JobScores,
    Scorer,
    ScoringInput,
    board_sums,
    build_boards,
    build_pairs,
    pair_sums,
    read_boards,
    recorded_check,
)
from ofc.pipeline.rescore.step import score_job as score_one
from ofc.pipeline.rescore.totals import RuleTotals
from ofc.pipeline.rules.native import Natives
from ofc.pipeline.rules.royalty_names import royalty_hands

PENDING = 4
"""Result tables waiting for their writer at most: with the read size, what bounds memory."""


def _tables(lake: Lake, work: Work, natives: Natives, rows: int) -> Iterator[ScoringInput]:
    """The source batch's boards, chunk by chunk of whole hands, as the engine's columns.

    The month partitions of a variant are read one after another into chunks of about ``rows`` boards: the
    results are not split by month, and each chunk becomes one row group of each result file.
    """
    by_variant: dict[str, list[Partition]] = {}
    for part in partitions(lake.root, work.source):
        by_variant.setdefault(part.variant, []).append(part)
    for parts in by_variant.values():
        held: list[pa.RecordBatch] = []
        size = 0
        for part in parts:
            for chunk in read_partition(part, rows):
                if held and size + chunk.num_rows > rows:  # never more than ``rows``: they bound the memory
                    yield read_boards(_joined(held), natives)
                    held, size = [], 0
                held.append(chunk)
                size += chunk.num_rows
        if held:
            yield read_boards(_joined(held), natives)


def _joined(batches: list[pa.RecordBatch]) -> pa.RecordBatch:
    """Batches of whole hands as one (each batch's labels are unified into one dictionary)."""
    return batches[0] if len(batches) == 1 else pa.concat_batches(batches)


def write_pairs(writer: BatchWriter, table: ScoringInput, s: JobScores) -> RuleTotals:
    """A job's pair results and their sums, written; their counts (``seconds``: building them)."""
    t0 = time.thread_time()
    pairs = build_pairs(table, s)
    seconds = time.thread_time() - t0
    writer.write("pair_results", pa.Table.from_batches([pairs]))
    for name, rows in pair_sums(table, s, pairs).items():
        writer.write(name, rows)
    return RuleTotals(s.job.rules.name, s.job.key, pairs=pairs.num_rows, seconds=seconds)


def write_boards(writer: BatchWriter, table: ScoringInput, s: JobScores) -> tuple[RuleTotals, pa.RecordBatch]:
    """A job's board results, written, and the check of recorded points; their counts, and the results (which
    their sums are taken from)."""
    t0 = time.thread_time()
    boards = build_boards(table, s)
    checked, differing = recorded_check(table, s)
    seconds = time.thread_time() - t0
    writer.write("board_results", pa.Table.from_batches([boards]))
    counts = {"boards": boards.num_rows, "recorded_checked": checked, "recorded_differing": differing}
    return RuleTotals(s.job.rules.name, s.job.key, seconds=seconds, **counts), boards


def write_board_sums(writer: BatchWriter, table: ScoringInput, s: JobScores, boards: pa.RecordBatch) -> None:
    """A job's board results summed (``board_summary``, ``board_counts``, ``player_sessions``,
    ``notable_boards``), written."""
    for name, rows in board_sums(table, s, boards).items():
        writer.write(name, rows)


class _Writers:
    """Each result table built and written on its own thread, a few chunks behind the scoring; the boards' sums
    on a third, as they take as long as the boards themselves (the three keep two cores busy)."""

    def __init__(self, writer: BatchWriter) -> None:
        self.writer = writer
        self.pools = {t: serial_thread(f"rescore-{t}") for t in ("boards", "sums", "pairs")}
        self.pending: deque[tuple[Future[RuleTotals], RuleTotals]] = deque()

    def put(self, table: ScoringInput, scoring: JobScores, totals: RuleTotals) -> None:
        boards = self.pools["boards"].submit(write_boards, self.writer, table, scoring)
        sums = self.pools["sums"].submit(self._sums, table, scoring, boards)
        pairs = self.pools["pairs"].submit(write_pairs, self.writer, table, scoring)
        self.pending.append((pairs, totals))
        self.pending.append((sums, totals))
        while len(self.pending) > 2 * PENDING:
            self._settle()

    def _sums(self, table: ScoringInput, s: JobScores, boards: Future[tuple[RuleTotals, pa.RecordBatch]]) -> RuleTotals:
        counts, results = result_of(boards)
        write_board_sums(self.writer, table, s, results)
        return counts

    def _settle(self) -> None:
        future, totals = self.pending.popleft()
        totals.add(result_of(future))

    def flush(self) -> None:
        while self.pending:
            self._settle()

    def close(self) -> None:
        for pool in self.pools.values():
            pool.shutdown(cancel_futures=True)


def _share(n: int, i: int, parts: int) -> int:
    """The ``i``-th of ``parts`` whole shares of ``n`` (they add up to ``n``)."""
    return n * (i + 1) // parts - n * i // parts


def commit_results(writer: BatchWriter, work: Work, totals: list[RuleTotals], hands: int) -> None:
    """Commit a source batch's results: the manifest says what they cover, under which rule sets, and which
    earlier results of the same source they replace."""
    counts = {"read": hands, "accepted": hands, "quarantined": 0, "duplicates": 0}
    groups = [g.record() for g in work.groups]
    extra = {
        "format": RESULT_FORMAT,
        "covers": [{"batch": work.batch, **t.cover(), "groups": groups} for t in totals],
        "replaces": work.replaces,
        "rule_sets": [j.rules.model_dump(mode="json") for j in work.jobs],
        "royalty_hands": {j.key: royalty_hands(j.rules) for j in work.jobs},
    }
    writer.commit({**counts, "version": __version__}, [{"path": work.batch, "batch": work.batch}], extra)


def score_source(
    lake: Lake, work: Work, natives: Natives, on_hands: Callable[[int], None]
) -> tuple[str, list[RuleTotals]]:
    """Score one source batch under ``work.jobs`` and commit the results as one batch: (its id, its counts)."""
    totals = [RuleTotals(j.rules.name, j.key, batches=1, native_only=j.native_only) for j in work.jobs]
    hands = 0
    writer = lake.begin(KIND)
    writers = _Writers(writer)
    reader = serial_thread("rescore-read")
    threads = numba.get_num_threads()
    numba.set_num_threads(1)  # for this thread only: the reader and the writers keep the other cores busy
    tables = ahead(_tables(lake, work, natives, READ_ROWS), reader) if work.jobs else None  # None: hide only
    try:
        for table in tables or ():
            n_hands = int(table.starts.size)
            t0 = time.thread_time()
            scorer = Scorer(table)  # every board evaluated once, whatever the number of rule sets
            shared = (time.thread_time() - t0) / max(len(work.jobs), 1)
            for i, (job, t) in enumerate(zip(work.jobs, totals, strict=True)):
                t0 = time.thread_time() - shared
                scoring = score_one(table, scorer, job)
                t.seconds += time.thread_time() - t0
                t.hands += scoring.hands
                t.not_applied(scoring.not_applied, scoring.why)
                if scoring.scored is not None:
                    writers.put(table, scoring, t)
                on_hands(_share(n_hands, i, len(work.jobs)))  # progress moves rule set by rule set
            scorer = scoring = None  # the writers hold what they need: each job's scores, not every job's
            hands += n_hands
        writers.flush()
        commit_results(writer, work, totals, hands)
        return writer.batch, totals
    except BaseException:
        writers.close()  # let the task being written finish, drop the rest, then clear the staging
        writer.abort()
        raise
    finally:
        numba.set_num_threads(threads)
        if tables is not None:  # the reader's last chunk ends while its pool still runs, not whenever this is
            tables.close()  # collected: an error's traceback may keep it for long
        reader.shutdown(cancel_futures=True)
        writers.close()
