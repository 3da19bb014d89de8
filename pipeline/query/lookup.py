"""The rows of a few hands, read without decoding the lake's tables whole.

A named query that looks hands up by key (``@lookup TABLE`` under its parameters, with a ``hands`` parameter)
reads ``wanted_TABLE``: that table's rows of those hands, fetched before the query runs (only the columns the
query names: a list of cards costs whether it is used or not). DuckDB decodes every column a query reads in each
row group holding one of the hands, and a few dozen hands of a year are in nearly every row group: over 10 M
hands, the boards of 60 hands and their placements took 2.7 s. Polars decodes the key column, then the other
columns only where a key matched: the same rows in 0.4 to 0.7 s a table. Sorting result files by key does
not pay: 40 hands among 5.0 M results of one rule set took 58 ms as written and 48 ms sorted in row groups of
16,384 rows, in twice the bytes (docs/rescore.md, "Finding hands by key").
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import duckdb
import pyarrow as pa
import pyarrow.compute as pc

from pipeline.lake.board_cards import card_codes
from pipeline.lake.snapshot import Snapshot
from pipeline.query.db import partition_values, plain_schema
from pipeline.query.players import NAME_COLUMNS, alias_case
from schemas.lake import CARDS13, PARTITIONS, RESULT_PARTITIONS, TABLE_PARTITIONS, TABLES

__all__ = ["hand_rows", "register"]


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
) -> pa.Table:
    """Every row of ``table`` whose ``hand_key`` is in ``keys``, with the table's columns and types (partition
    folders as columns); for a result table, only those of ``rule_sets`` (a key, or None for each hand's own).
    ``columns``: read only these (and the key); the others are null. ``months``: the (variant, month) the hands
    were played in, when known: a table in those folders reads only them, a result table only those variants'.
    ``variants``: only hands of these variants (a table with a variant folder reads only theirs)."""
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
    import polars as pl  # here: only the queries that look hands up need it, and it takes 0.09 s to load

    wanted = pl.Series("hand_key", list(keys), dtype=pl.UInt64)
    frames = []
    for values, files in groups.items():
        scan = pl.scan_parquet(files, missing_columns="insert").filter(pl.col("hand_key").is_in(wanted.implode()))
        if read is not None:
            scan = scan.select([c for c in read if c not in parts])
        constants = [pl.lit(v).alias(k) for k, v in zip(parts, values, strict=True)]
        frames.append(scan.with_columns(constants) if constants else scan)
    found = [_conformed(f.to_arrow(), schema) for f in pl.collect_all(frames)]
    return pa.concat_tables(found) if found else schema.empty_table()


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
) -> pa.Table:
    """Make ``wanted_TABLE`` on ``con`` the rows of those hands, read as the table's view reads them: cards as their
    codes (``hand_rows``), and players under their aliases' names (``columns``: the only ones read, see
    ``hand_rows``); the rows as read."""
    rows = hand_rows(snapshot, table, keys, rule_sets, columns, months, variants)
    replace = [alias_case(c, aliases) for c in NAME_COLUMNS if c in rows.column_names] if aliases else []
    # Both names live on ``con`` alone: two cursors looking up other hands at once each read their own.
    con.register(f"wanted_{table}_read", rows)
    columns = f"* REPLACE ({', '.join(replace)})" if replace else "*"
    con.execute(f"CREATE OR REPLACE TEMP VIEW wanted_{table} AS SELECT {columns} FROM wanted_{table}_read")
    return rows
