"""The rows of a few hands, read without decoding the lake's tables whole.

A named query that looks hands up by key (``@lookup TABLE`` under its parameters, with a ``hands`` parameter)
reads ``wanted_TABLE``: that table's rows of those hands, fetched before the query runs (only the columns the
query names: a list of cards costs whether it is used or not). DuckDB decodes every column a query reads in each
row group holding one of the hands, and a few dozen hands of a year are in nearly every row group: over 10 M
hands, the boards of 60 hands and their placements took 2.7 s. Polars decodes the key column, then the other
columns only where a key matched: the same rows in 0.4 to 0.7 s a table. Sorting result files by key does
not pay: 40 hands among 5.0 M results of one rule set took 58 ms as written and 48 ms sorted in row groups of
16,384 rows, in twice the bytes (docs/rescore.md, "Finding hands by key").

A hand or a few (a hand's page) are found by the Bloom filter of hand keys that files carry in each row group
(``pipeline.lake.file_layout.KEY_FILTERED``): DuckDB tests a row group's filter and reads only those that may
hold the hand, where polars decodes every key.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator, Mapping, Sequence
from concurrent.futures import Future
from contextlib import contextmanager
from functools import lru_cache
from typing import Any

import duckdb
import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from ofc.pipeline.lake.board_cards import card_codes
from ofc.pipeline.lake.snapshot import Snapshot
from ofc.pipeline.query.db import partition_values, plain_schema
from ofc.pipeline.query.players import NAME_COLUMNS, alias_case
from ofc.schemas.lake import CARDS13, PARTITIONS, RESULT_PARTITIONS, TABLE_PARTITIONS, TABLES

__all__ = ["FEW_KEYS", "SharedReads", "few", "hand_rows", "register"]

FEW_KEYS = 4
"""Up to this many hands are looked up through the files' key filters, one hand at a time (DuckDB tests a
filter against one key, not a list). Over 10 M hands, the results of 1 hand under every rule set took 62 ms
through the filters and 389 by polars; of 4 hands 248 against 429; of 8 hands 480 against 413."""


def few(keys: Sequence[int]) -> bool:
    """Whether these hands are few enough to be found through the files' key filters."""
    return len(keys) <= FEW_KEYS


def _wanted(values: dict[str, str], rule_sets: Sequence[str] | None) -> bool:
    """A result file of the rule sets read: ``rule_sets`` (None among them: the hands' own, ``native=true``)."""
    if rule_sets is None:
        return True
    return any((values.get("native") == "true") if key is None else values.get("rules_key") == key for key in rule_sets)


def hand_rows(
    snapshot: Snapshot,
    table: str,
    keys: Sequence[int],
    rule_sets: Sequence[str | None] | None = None,
    columns: Sequence[str] | None = None,
    months: set[tuple[str, str]] | None = None,
    variants: set[str] | None = None,
    con: duckdb.DuckDBPyConnection | None = None,
) -> pa.Table:
    """Every row of ``table`` whose ``hand_key`` is in ``keys``, with the table's columns and types (partition
    folders as columns); for a result table, only those of ``rule_sets`` (a key, or None for each hand's own).
    ``columns``: read only these (and the key); the others are null. ``months``: the (variant, month) the hands
    were played in, when known: a table in those folders reads only them, a result table only those variants'.
    ``variants``: only hands of these variants (a table with a variant folder reads only theirs). ``con``: a
    connection of this thread, by which up to ``FEW_KEYS`` hands are found through the files' key filters."""
    schema = _shown(TABLES[table])
    read = None if columns is None else [c for c in schema.names if c in columns or c == "hand_key"]
    parts = TABLE_PARTITIONS.get(table, ())
    groups: dict[tuple[str, ...], list[str]] = {}
    for f in snapshot.files(table):
        values = partition_values(str(f.relative_to(snapshot.root)))
        if variants is not None and "variant" in parts and values.get("variant") not in variants:
            continue
        if parts == RESULT_PARTITIONS and not _wanted(values, rule_sets):
            continue
        if months is not None and parts == PARTITIONS and (values.get("variant"), values.get("month")) not in months:
            continue
        if months is not None and parts == RESULT_PARTITIONS and values.get("variant") not in {v for v, _ in months}:
            continue
        groups.setdefault(tuple(values.get(k, "") for k in parts), []).append(str(f))
    if not keys or not groups:
        return schema.empty_table()
    found = []
    if con is not None and few(keys):
        filtered: dict[tuple[str, ...], list[str]] = {}
        rest: dict[tuple[str, ...], list[str]] = {}
        for values, files in groups.items():
            for f in files:
                (filtered if _filters_keys(f) else rest).setdefault(values, []).append(f)
        if filtered:
            found.append(_conformed(_filtered_rows(con, filtered, parts, read, keys), schema))
        if not rest:
            return found[0]
        groups = rest
    # lazy: polars takes 0.13 s to load, and only the lookups need it
    import polars as pl

    wanted = pl.Series("hand_key", list(keys), dtype=pl.UInt64)
    frames = []
    for values, files in groups.items():
        scan = pl.scan_parquet(files, missing_columns="insert").filter(pl.col("hand_key").is_in(wanted.implode()))
        if read is not None:
            scan = scan.select([c for c in read if c not in parts])
        constants = [pl.lit(v).alias(k) for k, v in zip(parts, values, strict=True)]
        frames.append(scan.with_columns(constants) if constants else scan)
    found += [_conformed(f.to_arrow(), schema) for f in pl.collect_all(frames)]
    return pa.concat_tables(found) if found else schema.empty_table()


@lru_cache(maxsize=1 << 16)
def _filters_keys(path: str) -> bool:
    """Whether a file's row groups carry a filter of their hand keys (files written before they did: not). A
    committed file never changes, so its footer is read once."""
    meta = pq.read_metadata(path)
    if meta.num_row_groups == 0:
        return False
    first = meta.row_group(0)
    found = (first.column(i) for i in range(first.num_columns))
    return any(c.path_in_schema == "hand_key" and c.bloom_filter_offset is not None for c in found)


def _filtered_rows(
    con: duckdb.DuckDBPyConnection,
    groups: dict[tuple[str, ...], list[str]],
    parts: tuple[str, ...],
    read: list[str] | None,
    keys: Sequence[int],
) -> pa.Table:
    """The rows of a few hands in files that filter hand keys, hand by hand (a filter is tested for one key), with
    each file's partition values as columns."""
    paths = [f for files in groups.values() for f in files]
    values = [list(v) for v, files in groups.items() for _ in files]
    body = "* EXCLUDE (filename)" if read is None else ", ".join(f'"{c}"' for c in read if c not in parts)
    folders = "".join(f', $values[list_position($paths, filename)][{i + 1}] AS "{k}"' for i, k in enumerate(parts))
    files = "read_parquet($paths, union_by_name = true, filename = true, hive_partitioning = false)"
    sql = f"SELECT {body}{folders} FROM {files} WHERE hand_key = $key"
    found = [
        con.sql(sql, params={"paths": paths, "values": values, "key": k}).to_arrow_table()
        for k in dict.fromkeys(int(k) for k in keys)  # a key asked for twice is read once, as polars reads it
    ]
    return pa.concat_tables(found, promote_options="permissive")


def _shown(schema: pa.Schema) -> pa.Schema:
    """A table's columns as a lookup returns them: labels as plain strings, cards as the list of their codes."""
    plain = plain_schema(schema)
    return pa.schema([f.with_type(pa.list_(pa.uint8())) if f.type == CARDS13 else f for f in plain])


def _conformed(found: pa.Table, schema: pa.Schema) -> pa.Table:
    """Rows read from one partition's files in ``schema``'s columns and types."""
    arrays = []
    for field in schema:
        if field.name in found.column_names:
            column = found.column(field.name)
            if field.type == pa.bool_() and column.type != pa.bool_():  # a partition folder's true / false
                column = pc.equal(column, "true")
            if field.name == "cards":  # 13 bytes, or a list of 13 codes in an older lake
                column = card_codes(column)
            arrays.append(column.cast(field.type))
        else:
            arrays.append(pa.nulls(found.num_rows, field.type))
    return pa.Table.from_arrays(arrays, schema=schema)


def _under(rows: pa.Table, rule_sets: Sequence[str | None]) -> pa.Table:
    """A result table's rows of those rule sets (None: each hand's own)."""
    keys = [k for k in rule_sets if k is not None]
    keep = pc.is_in(rows.column("rules_key"), pa.array(keys, pa.string()))
    if None in rule_sets:
        keep = pc.or_(keep, rows.column("native"))
    return rows.filter(keep)


_Where = tuple[str, tuple[int, ...], frozenset[tuple[str, str]] | None, frozenset[str] | None]


def _covers(
    at: _Where, read: frozenset[str | None] | None, where: _Where, wanted: frozenset[str | None] | None
) -> bool:
    """A read of ``at`` under ``read`` holds every row asked of ``where`` under ``wanted``: the same table and
    hands, every folder asked for (None: all of them) and every rule set."""

    def within(asked: frozenset[Any] | None, held: frozenset[Any] | None) -> bool:
        return held is None or (asked is not None and asked <= held)

    return (
        at[:2] == where[:2]
        and within(where[2], at[2])
        and within(where[3], at[3])
        and (read is None or (wanted is not None and wanted <= read))
    )


def _within(rows: pa.Table, table: str, months: set[tuple[str, str]] | None, variants: set[str] | None) -> pa.Table:
    """Rows read for more folders, cut to those asked for (as ``hand_rows`` would have read them)."""
    keep = pa.array(np.ones(rows.num_rows, dtype=bool))
    if variants is not None:
        keep = pc.and_(keep, pc.is_in(rows.column("variant"), pa.array(sorted(variants), pa.string())))
    if months is not None and TABLE_PARTITIONS.get(table, ()) == PARTITIONS:  # (results: asked by variant)
        joined = pc.binary_join_element_wise(rows.column("variant"), rows.column("month"), "\x00")
        keep = pc.and_(keep, pc.is_in(joined, pa.array(sorted(f"{v}\x00{m}" for v, m in months), pa.string())))
    return rows.filter(keep)


class SharedReads:
    """The rows of a few hands, read once for the queries that look them up together (a hand's page runs
    ``hand_boards`` and ``hand_pairs`` on the same hands at once): every column of a table, and a query whose rule
    sets and folders are among those another one read takes its rows from that read, filtered in memory. On the
    10 M-hand benchmark lake the viewer's lookups of 40 hands took 1.22 s where reading them query by query took
    1.62 s (docs/rescore.md). A read that fails is not kept: the next asker reads again."""

    def __init__(self, snapshot: Snapshot, con: duckdb.DuckDBPyConnection | None = None) -> None:
        self.snapshot, self.con = snapshot, con
        self._lock = threading.Lock()
        self._reads: list[tuple[_Where, frozenset[str | None] | None, Future[pa.Table]]] = []

    @contextmanager
    def _cursor(self, keys: Sequence[int]) -> Iterator[duckdb.DuckDBPyConnection | None]:
        """A cursor of the thread's own to find a few hands through the files' key filters (None: polars reads
        them); the connection is shared by the threads asking."""
        if self.con is None or not few(keys):
            yield None
            return
        with self._lock:
            cursor = self.con.cursor()
        try:
            yield cursor
        finally:
            cursor.close()

    def rows(
        self,
        table: str,
        keys: Sequence[int],
        rule_sets: Sequence[str | None] | None,
        months: set[tuple[str, str]] | None,
        variants: set[str] | None,
    ) -> pa.Table:
        """``hand_rows`` of the table, every column."""
        if TABLE_PARTITIONS.get(table, ()) != RESULT_PARTITIONS:
            rule_sets = None  # a table of facts: one set of rows whatever rules are read
        elif months is not None:  # results have no month folders: the months say only which variants
            in_months = {v for v, _ in months}
            variants, months = (in_months if variants is None else variants & in_months), None
        where: _Where = (
            table,
            tuple(keys),
            None if months is None else frozenset(months),
            None if variants is None else frozenset(variants),
        )
        wanted = None if rule_sets is None else frozenset(rule_sets)
        with self._lock:
            found = [(at, read, future) for at, read, future in self._reads if _covers(at, read, where, wanted)]
            at, read, future = found[0] if found else (where, wanted, Future())
            if not found:
                self._reads.append((where, wanted, future))
        if not found:
            try:
                with self._cursor(keys) as cursor:
                    future.set_result(hand_rows(self.snapshot, table, keys, rule_sets, None, months, variants, cursor))
            except BaseException as exc:  # noqa: BLE001 (raised below, to this asker and any waiting)
                with self._lock:
                    self._reads.remove((where, wanted, future))
                future.set_exception(exc)
        rows = future.result()
        if rule_sets is not None and read != wanted:
            rows = _under(rows, rule_sets)
        return rows if at == where else _within(rows, table, months, variants)


def register(
    con: duckdb.DuckDBPyConnection,
    snapshot: Snapshot,
    table: str,
    keys: Sequence[int],
    rule_sets: Sequence[str | None] | None,
    aliases: Mapping[str, str],
    columns: Sequence[str] | None = None,
    months: set[tuple[str, str]] | None = None,
    variants: set[str] | None = None,
    shared: SharedReads | None = None,
) -> pa.Table:
    """Make ``wanted_TABLE`` on ``con`` the rows of those hands, read as the table's view reads them: cards as their
    codes (``hand_rows``), and players under their aliases' names (``columns``: the only ones read, see
    ``hand_rows``; ``shared``: from reads shared with other queries, every column); the rows as read."""
    if shared is not None:
        rows = shared.rows(table, keys, rule_sets, months, variants)
    else:
        rows = hand_rows(snapshot, table, keys, rule_sets, columns, months, variants, con)
    replace = [alias_case(c, aliases) for c in NAME_COLUMNS if c in rows.column_names] if aliases else []
    # Both names live on ``con`` alone: two cursors looking up other hands at once each read their own.
    con.register(f"wanted_{table}_read", rows)
    columns = f"* REPLACE ({', '.join(replace)})" if replace else "*"
    con.execute(f"CREATE OR REPLACE TEMP VIEW wanted_{table} AS SELECT {columns} FROM wanted_{table}_read")
    return rows
