"""One source batch through the rescore: read, score under every rule set, build and write, commit.

Three kinds of work overlap. A reader thread decodes the next chunk of whole hands while this thread
scores the current one under each rule set; each result table has its own thread that builds the
table's columns from the engine's arrays and encodes them to Parquet (both release the GIL). A short
queue between scoring and the writers bounds memory. The result batch's manifest is the commit point:
until it is written nothing is visible, and an error leaves only staging files the next writer removes.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor

import numba
import pyarrow as pa

from pipeline import __version__
from pipeline.ahead import ahead
from pipeline.lake.store import RESULT_TABLES, BatchWriter, Lake
from pipeline.rescore.batch import (
    Table,
    pair_results,
    player_names,
    player_results,
    read_boards,
    recorded_differences,
)
from pipeline.rescore.plan import KIND, Work
from pipeline.rescore.report import RuleTotals
from pipeline.rescore.source import READ_ROWS, partitions, read_partition
from pipeline.score.compile import CompiledRules, compile_rules
from pipeline.score.engine import Scored, prepare, score

PENDING = 4
"""Result tables waiting for their writer at most: with the read size, what bounds memory."""


def _tables(lake: Lake, work: Work, rows: int) -> Iterator[Table]:
    """The source batch's boards, chunk by chunk of whole hands, as the engine's columns."""
    for part in partitions(lake.root, work.source):
        for chunk in read_partition(part, rows):
            yield read_boards(chunk)


class _Writers:
    """Each result table built and written on its own thread, a few chunks behind the scoring."""

    def __init__(self, writer: BatchWriter) -> None:
        self.writer = writer
        self.pools = {t: ThreadPoolExecutor(1, thread_name_prefix=f"rescore-{t}") for t in RESULT_TABLES}
        self.pending: deque[tuple[Future[RuleTotals], RuleTotals]] = deque()
        self.names: dict[int, str] = {}
        """The names behind the player ids written."""

    def put(self, table: Table, result: Scored, rules: CompiledRules, totals: RuleTotals) -> None:
        for name, build in (("pair_results", self._pairs), ("player_results", self._players)):
            self.pending.append((self.pools[name].submit(build, table, result, rules), totals))
        while len(self.pending) > PENDING:
            self._settle()

    def _pairs(self, table: Table, result: Scored, rules: CompiledRules) -> RuleTotals:
        t0 = time.thread_time()
        pairs = pair_results(table, result, rules.rules)
        seconds = time.thread_time() - t0
        self.writer.write("pair_results", pa.Table.from_batches([pairs]))
        return RuleTotals(rules.rules.name, rules.rules.key, pairs=pairs.num_rows, seconds=seconds)

    def _players(self, table: Table, result: Scored, rules: CompiledRules) -> RuleTotals:
        t0 = time.thread_time()
        players = player_results(table, result, rules.rules)
        checked, differing = recorded_differences(table, players, rules.rules)
        seconds = time.thread_time() - t0
        self.writer.write("player_results", pa.Table.from_batches([players]))
        counts = {"boards": players.num_rows, "recorded_checked": checked, "recorded_differing": differing}
        return RuleTotals(rules.rules.name, rules.rules.key, seconds=seconds, **counts)

    def _settle(self) -> None:
        future, totals = self.pending.popleft()
        totals.add(future.result())

    def flush(self) -> None:
        while self.pending:
            self._settle()
        ids = pa.array(list(self.names), pa.uint64())
        self.writer.write("result_players", pa.table({"player_id": ids, "player": list(self.names.values())}))

    def close(self) -> None:
        for pool in self.pools.values():
            pool.shutdown(cancel_futures=True)


def score_source(lake: Lake, work: Work, on_hands: Callable[[int], None]) -> tuple[str, list[RuleTotals]]:
    """Score one source batch under ``work.rules`` and commit the results as one batch: (its id, its counts)."""
    compiled = [compile_rules(r) for r in work.rules]
    totals = [RuleTotals(r.name, r.key, batches=1) for r in work.rules]
    hands = 0
    writer = lake.begin(KIND)
    writers = _Writers(writer)
    reader = ThreadPoolExecutor(1, thread_name_prefix="rescore-read")
    threads = numba.get_num_threads()
    numba.set_num_threads(1)  # for this thread only: the reader and the writers keep the other cores busy
    try:
        for table in ahead(_tables(lake, work, READ_ROWS), reader):
            n_hands = int(table.boards.hand[-1]) + 1
            t0 = time.thread_time()
            prepared = prepare(table.boards)  # every board evaluated once, whatever the number of rule sets
            shared = (time.thread_time() - t0) / len(compiled)
            for c, t in zip(compiled, totals, strict=True):
                t0 = time.thread_time() - shared
                result = score(table.boards, c, prepared)
                t.seconds += time.thread_time() - t0
                t.hands += n_hands
                writers.put(table, result, c, t)
            writers.names.update(player_names(table.player))  # once a chunk, whatever the rule sets
            hands += n_hands
            on_hands(n_hands)
        writers.flush()
        counts = {"read": hands, "accepted": hands, "quarantined": 0, "duplicates": 0}
        extra = {
            "covers": [{"batch": work.batch, **t.cover()} for t in totals],
            "replaces": work.replaces,
            "rule_sets": [r.model_dump(mode="json") for r in work.rules],
        }
        writer.commit({**counts, "version": __version__}, [{"path": work.batch, "batch": work.batch}], extra)
        return writer.batch, totals
    except BaseException:
        writers.close()  # let the task being written finish, drop the rest, then clear the staging
        writer.abort()
        raise
    finally:
        numba.set_num_threads(threads)
        reader.shutdown(cancel_futures=True)
        writers.close()
        writers.close()
