"""The named queries a report runs, over one snapshot, each asked for once whichever section asks.

A report reads each game (variant) on its own: :meth:`QueryRunner.game` gives the sections of one game an
:class:`Asker` that fills every query's filters (the variant, the player, the days, the rule sets read) for that
game, so no section can forget one and read every game together.
"""

from __future__ import annotations

import bisect
import importlib
import importlib.util
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from datetime import date
from typing import Any

import duckdb
import pyarrow as pa

from ofc.pipeline.lake.snapshot import Snapshot, later
from ofc.pipeline.query import lookup, named

__all__ = ["Asker", "PlayersOf", "QueryRunner", "Rows", "RowsKept", "Scope"]

# pyarrow imports pandas, where it is installed, the first time it turns rows into Python values or values into
# rows. A report runs its queries and builds its sections on several threads at once, and a thread that meets
# pandas half imported by another fails ("partially initialized module 'pandas'"): pandas is imported here, once,
# before any thread.
if importlib.util.find_spec("pandas") is not None:
    importlib.import_module("pandas")

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

    A query of one player is run for a group of the game's players at once (``player_rows``): over 10 M hands the
    16 queries of a player's page take 2.8 s of processor time for the 60 players of a game together, where
    ``sessions`` alone takes 0.43 s for one player.
    """

    def __init__(self, most_rows: int = 100_000, group: int = 64, most_player_rows: int = 2_000_000) -> None:
        self.most_rows, self.group, self.most_player_rows = most_rows, group, most_player_rows
        self._lock = threading.Lock()
        self._state: tuple[str, ...] | None = None
        self._rows: OrderedDict[tuple[str, str], Rows] = OrderedDict()
        self._held = 0
        self._players: OrderedDict[tuple[str, str, tuple[str, ...]], Future[dict[str, pa.Table]]] = OrderedDict()
        self._player_rows: dict[tuple[str, str, tuple[str, ...]], int] = {}
        self._facts: dict[tuple[str | None, int], dict[str, Any]] = {}
        """Hands' facts (``HAND_FACTS``) by variant asked and key."""
        self._listed: dict[str | None, set[int]] = {}
        """Hands the groups' rows list whose facts are not read yet, by variant asked: read with the next ones asked."""
        self._reading: dict[tuple[str | None, int], Future[None]] = {}
        """Hands whose facts a page is reading, by variant asked: waited for by the others."""

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
            if not self._now(state):
                return  # a report over an older state, finishing late
            self._held += len(kept) - len(self._rows.pop(asked, ()))
            self._rows[asked] = kept
            while self._held > self.most_rows:
                _, dropped = self._rows.popitem(last=False)
                self._held -= len(dropped)

    def player_rows(
        self,
        con: duckdb.DuckDBPyConnection,
        snapshot: Snapshot,
        name: str,
        values: dict[str, Any],
        players: Sequence[str],
    ) -> Rows | None:
        """The rows of a query for one player (``values["player"]``), run for the ``group`` players around them
        among ``players`` (those of the game, by name) at once and kept for the pages after: a page of one player
        after another's then runs no query of its own. None where the query cannot be run so, or the player is
        not among ``players``."""
        player = values.get("player")
        # parameters given the player's own name (running totals featuring the player) take each player's
        own = tuple(sorted(k for k, v in values.items() if k != "player" and v == player))
        if player is None or named.for_players_sql(named.get(name), own) is None:
            return None
        found_at = bisect.bisect_left(players, player)  # (given by name)
        if found_at == len(players) or players[found_at] != player:
            return None
        at = found_at // self.group * self.group
        group = tuple(players[at : at + self.group])
        shared = {k: _EACH if k in own else v for k, v in values.items() if k != "player"}
        key = (name, _asked(name, shared)[1], group)
        state = snapshot.batches
        with self._lock:
            if not self._now(state):
                return None  # a page over an older state: its own queries
            future = self._players.get(key)
            mine = future is None
            if mine:
                future = self._players[key] = Future()
            else:
                self._players.move_to_end(key)
        assert future is not None
        if mine:
            try:
                found = named.run_for_players(con, snapshot, name, values, group, own)
                assert found is not None
            except BaseException as exc:
                with self._lock:
                    if self._players.get(key) is future:
                        del self._players[key]
                future.set_exception(exc)
                if isinstance(exc, named.NamedQueryError):
                    return None  # DuckDB could not plan it for many (or it was interrupted): the player's alone
                raise
            future.set_result(found)
            self._count(key, future, sum(t.num_rows for t in found.values()))
            self._list(values.get("variant"), found)
        else:
            try:
                found = future.result()
            except Exception:  # noqa: BLE001 (the first asker's failure, or its interruption: run alone)
                return None
        return found[player].to_pylist()

    def _count(self, key: tuple[str, str, tuple[str, ...]], future: Future[dict[str, pa.Table]], rows: int) -> None:
        """Hold at most ``most_player_rows`` rows of groups, the least recently asked dropped first."""
        with self._lock:
            if self._players.get(key) is not future:
                return  # the lake moved on meanwhile
            self._player_rows[key] = rows
            while sum(self._player_rows.values()) > self.most_player_rows and len(self._player_rows) > 1:
                oldest = next(k for k in self._players if k in self._player_rows and k != key)
                del self._players[oldest], self._player_rows[oldest]

    def hand_facts(
        self, con: duckdb.DuckDBPyConnection, snapshot: Snapshot, values: dict[str, Any], keys: Sequence[int]
    ) -> Rows | None:
        """The rows of ``HAND_FACTS`` for these hands: read together with those of every hand the groups' rows
        list (``player_rows``), so that the pages of the other players of a group read none, and a hand being
        read for another page is waited for, not read again (ten pages asked at once over 10 M hands each read
        about 50 hands' facts; reading them once took their processor time from 13.4 s to 12.5 s). None: the
        page reads its own (a state of the lake not the newest, or what it waited for not kept)."""
        variant, state = values.get("variant"), snapshot.batches
        with self._lock:
            if not self._now(state):
                return None
            elsewhere = {k: self._reading[variant, k] for k in keys if (variant, k) in self._reading}
            missing = {k for k in keys if (variant, k) not in self._facts and k not in elsewhere}
            if missing:
                missing |= {k for k in self._listed.pop(variant, set()) if (variant, k) not in self._reading}
                mine: Future[None] = Future()
                self._reading.update(((variant, k), mine) for k in missing)
        ours: Rows = []
        if missing:
            try:
                wanted = ",".join(str(k) for k in sorted(missing))
                ours = named.run(
                    con, snapshot, HAND_FACTS, {**values, "hands": wanted}, check_filters=False
                ).to_pylist()
            except BaseException as exc:
                self._read(state, variant, missing, mine, None)
                mine.set_exception(exc)
                raise
            self._read(state, variant, missing, mine, ours)
            mine.set_result(None)
        if any(other.exception() is not None for other in set(elsewhere.values())):  # (waits for each)
            return None
        with self._lock:
            found = {k: self._facts.get((variant, k)) for k in keys}
        if any(found[k] is None for k in elsewhere):
            return None  # what another page read is not kept (the lake moved on): the page reads its own
        found |= {r["hand_key"]: r for r in ours if r["hand_key"] in found}
        return [dict(row) for k in sorted(set(keys)) if (row := found.get(k)) is not None]

    def _read(
        self, state: tuple[str, ...], variant: str | None, keys: set[int], read: Future[None], rows: Rows | None
    ) -> None:
        """The facts of ``keys`` are read (``rows``; None: the read failed): kept while ``state`` is the newest."""
        with self._lock:
            for k in keys:
                if self._reading.get((variant, k)) is read:
                    del self._reading[variant, k]
            if rows is None or self._state != state:
                return
            if len(self._facts) > self.most_rows:
                self._facts.clear()  # a bound, as on the rows kept
            self._facts.update(((variant, r["hand_key"]), r) for r in rows)

    def _list(self, variant: str | None, found: dict[str, pa.Table]) -> None:
        """Note the hands a group's rows list, up to ``most_rows`` waiting at once."""
        listed = [t.column("hand_key") for t in found.values() if "hand_key" in t.column_names and t.num_rows]
        if not listed:
            return
        keys = {k for column in listed for k in column.to_pylist() if k is not None}
        with self._lock:
            waiting = self._listed.setdefault(variant, set())
            waiting |= {k for k in keys if (variant, k) not in self._facts}
            if len(waiting) > self.most_rows:
                self._listed[variant] = set()

    def _now(self, state: tuple[str, ...]) -> bool:
        """Whether ``state`` is the newest state seen (what is kept of an older one is dropped): under the lock."""
        if state == self._state:
            return True
        if not later(state, self._state):
            return False
        self._state, self._rows, self._held = state, OrderedDict(), 0
        self._players, self._player_rows, self._facts, self._listed, self._reading = OrderedDict(), {}, {}, {}, {}
        return True


HAND_FACTS = "hand_facts"
"""The query of each hand's id, session and number beside its key, one row a hand: what a page's lists of hands
show of each (``RowsKept.hand_facts``)."""

PlayersOf = Callable[[str | None], Sequence[str]]
"""The players of a game (None: of every game), as the lake spells them, by name: a query for one of them is run for
them all at once (``RowsKept.player_rows``)."""


class QueryRunner:
    """Runs named queries over one snapshot, keeping each one's rows and time.

    Sections are built side by side, each thread on its own cursor of the one connection (DuckDB runs their
    queries at once; most read small summaries and wait more than they compute). A query asked for again with
    the same values runs once: a second asker waits for the first's rows, so sections share what they read. Rows
    are shared: a section adds keys only to copies, or to the rows of queries no other section reads. ``kept``:
    rows kept from earlier reports over the same snapshot, taken from there and added to.
    """

    def __init__(
        self,
        snapshot: Snapshot,
        con: duckdb.DuckDBPyConnection,
        kept: RowsKept | None = None,
        players: PlayersOf | None = None,
    ) -> None:
        self.snapshot, self.con, self.kept, self.players = snapshot, con, kept, players
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
            rows = None
            if self.kept is not None and self.players is not None and values.get("player") is not None:
                field = self.players(values.get("variant"))
                rows = self.kept.player_rows(self._cursor(), self.snapshot, name, values, field)
            elif self.kept is not None and self.players is not None and name == HAND_FACTS:
                keys = [int(k) for k in str(values["hands"]).split(",") if k.strip()]
                rows = self.kept.hand_facts(self._cursor(), self.snapshot, values, keys)
            if rows is None:
                rows = named.run(
                    self._cursor(), self.snapshot, name, values, check_filters=False, shared=self.shared
                ).to_pylist()
                if self.kept is not None:  # kept as read, before any section adds to them
                    self.kept.put(self.snapshot.batches, _asked(name, values), rows)
            with self._lock:
                self.seconds[name] = self.seconds.get(name, 0.0) + time.perf_counter() - t0
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


_EACH = ("each player's own",)
"""What a group's key says of a parameter that takes each player's name (no value of a parameter is a tuple)."""


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
