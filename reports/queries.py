"""The named queries a report runs, over one snapshot, each asked for once whichever section asks.

A report reads each game (variant) on its own: :meth:`QueryRunner.game` gives the sections of one game an
:class:`Asker` that fills every query's filters (the variant, the player, the days, the rule sets read) for that
game, so no section can forget one and read every game together.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from datetime import date
from typing import Any

import duckdb

from ofc.pipeline.lake.snapshot import Snapshot, later
from ofc.pipeline.query import lookup, named

__all__ = ["Asker", "QueryRunner", "Rows", "RowsKept", "Scope"]

Rows = list[dict[str, Any]]


@dataclass(frozen=True)
class Scope:
    """The filters every query of one game reads."""

    variant: str | None
    player: str | None
    since: date | None
    until: date | None
    lead: str | None
    compared: tuple[str, ...]


class RowsKept:
    """The rows of named queries over one state of the lake, kept from one report to the next (a server's pages).

    Pages of one game for different players share the queries of the whole field (its rankings, foul rates,
    scoring variants): 5 of the 22 a page runs over 10 M hands, a sixth of its time. Each report gets copies, so
    that what a section adds to its rows stays in that report. The newest state's rows alone are kept, the most
    recently asked first, ``most_rows`` rows in all at most (a row is a few hundred bytes).
    """

    def __init__(self, most_rows: int = 100_000) -> None:
        self.most_rows = most_rows
        self._lock = threading.Lock()
        self._state: tuple[str, ...] | None = None
        self._rows: OrderedDict[tuple[str, str], Rows] = OrderedDict()
        self._held = 0

    def get(self, state: tuple[str, ...], asked: tuple[str, str]) -> Rows | None:
        with self._lock:
            rows = self._rows.get(asked) if state == self._state else None
            if rows is not None:
                self._rows.move_to_end(asked)
        return None if rows is None else [dict(r) for r in rows]

    def put(self, state: tuple[str, ...], asked: tuple[str, str], rows: Rows) -> None:
        if len(rows) > self.most_rows:
            return
        kept = [dict(r) for r in rows]
        with self._lock:
            if state != self._state:
                if not later(state, self._state):
                    return  # a report over an older state, finishing late
                self._state, self._rows, self._held = state, OrderedDict(), 0
            self._held += len(kept) - len(self._rows.pop(asked, ()))
            self._rows[asked] = kept
            while self._held > self.most_rows:
                _, dropped = self._rows.popitem(last=False)
                self._held -= len(dropped)


class QueryRunner:
    """Runs named queries over one snapshot, keeping each one's rows and time.

    Sections are built side by side, each thread on its own cursor of the one connection (DuckDB runs their
    queries at once; most read small summaries and wait more than they compute). A query asked for again with
    the same values runs once: a second asker waits for the first's rows, so sections share what they read. Rows
    are shared: a section adds keys only to copies, or to the rows of queries no other section reads. ``kept``:
    rows kept from earlier reports over the same snapshot, taken from there and added to.
    """

    def __init__(self, snapshot: Snapshot, con: duckdb.DuckDBPyConnection, kept: RowsKept | None = None) -> None:
        self.snapshot, self.con, self.kept = snapshot, con, kept
        self.seconds: dict[str, float] = {}
        self._asked: dict[tuple[str, str], Future[Rows]] = {}
        self._lock = threading.Lock()
        self._local = threading.local()
        self._cursors: list[duckdb.DuckDBPyConnection] = []
        self._ahead = ThreadPoolExecutor(max_workers=2, thread_name_prefix="report-query")
        self.shared = lookup.SharedReads(snapshot, con)
        """The rows of the hands its queries look up, read once for all of them."""

    def game(self, scope: Scope) -> Asker:
        return Asker(self, scope)

    def rows(self, name: str, values: dict[str, Any]) -> Rows:
        """The rows of a named query with these values: run here, or those of the same query asked for before."""
        future, mine = self._claim(name, values)
        if mine:
            self._fill(future, name, values)
        return future.result()

    def start(self, name: str, values: dict[str, Any]) -> None:
        """Begin a query that a section will ask for later, beside whatever runs now."""
        future, mine = self._claim(name, values)
        if mine:
            self._ahead.submit(self._fill, future, name, values)

    def interrupt(self) -> None:
        with self._lock:
            for cursor in self._cursors:
                cursor.interrupt()

    def close(self) -> None:
        self._ahead.shutdown(cancel_futures=True)
        for cursor in self._cursors:
            cursor.close()

    def _claim(self, name: str, values: dict[str, Any]) -> tuple[Future[Rows], bool]:
        asked = _asked(name, values)
        with self._lock:
            if asked in self._asked:
                return self._asked[asked], False
            future = self._asked[asked] = Future()
        if self.kept is not None and (rows := self.kept.get(self.snapshot.batches, asked)) is not None:
            future.set_result(rows)
            return future, False
        return future, True

    def _fill(self, future: Future[Rows], name: str, values: dict[str, Any]) -> None:
        try:
            t0 = time.perf_counter()
            rows = named.run(
                self._cursor(), self.snapshot, name, values, check_filters=False, shared=self.shared
            ).to_pylist()
            with self._lock:
                self.seconds[name] = self.seconds.get(name, 0.0) + time.perf_counter() - t0
            if self.kept is not None:  # kept as read, before any section adds to them
                self.kept.put(self.snapshot.batches, _asked(name, values), rows)
            future.set_result(rows)
        except BaseException as exc:  # noqa: BLE001 (the asker raises it, whatever it is)
            future.set_exception(exc)

    def _cursor(self) -> duckdb.DuckDBPyConnection:
        """This thread's cursor: a connection object serves one thread at a time."""
        cursor = getattr(self._local, "cursor", None)
        if cursor is None:
            cursor = self._local.cursor = self.con.cursor()
            with self._lock:
                self._cursors.append(cursor)
        return cursor


def _asked(name: str, values: dict[str, Any]) -> tuple[str, str]:
    """A query and its values, as one key."""
    return name, repr(sorted(values.items()))


class Asker:
    """Named queries with one game's filters, and the rows each returned (what ``--json`` writes for the game)."""

    def __init__(self, runner: QueryRunner, scope: Scope) -> None:
        self.runner, self.scope = runner, scope
        self.rows: dict[str, Rows] = {}
        self._lock = threading.Lock()

    def __call__(self, name: str, **extra: Any) -> Rows:
        rows = self.runner.rows(name, self._values(name, extra))
        with self._lock:
            self.rows.setdefault(name, rows)
        return rows

    def start(self, name: str, **extra: Any) -> None:
        self.runner.start(name, self._values(name, extra))

    def _values(self, name: str, extra: dict[str, Any]) -> dict[str, Any]:
        scope = self.scope
        values: dict[str, Any] = {}
        for p in named.get(name).params:
            if p.type == "rules":
                values[p.name] = scope.lead
            elif p.type == "rules[]":
                values[p.name] = list(scope.compared)
            elif p.name in ("player", "variant", "since", "until"):
                values[p.name] = getattr(scope, p.name)
        values.update(extra)
        return values
