"""An in-process DuckDB connection over a lake, read-only for whatever SQL it is given.

Each lake table is a view over exactly the files its committed manifests list
(so a batch being written or left by a crash is never seen, nor results a
forced rescore replaced), with the hive partitions (variant, month; the
result tables also rules_key) as columns. The derived views in ``sql/views.sql``
are created on top. Then the connection is locked down: files can be read only
inside the lake, nothing can be written, and ad-hoc SQL may only query.
"""

from __future__ import annotations

from pathlib import Path

import duckdb
import pyarrow as pa

from pipeline.lake.store import PARTITIONED, Lake
from schemas.lake import TABLES

SQL_DIR = Path(__file__).resolve().parent.parent.parent / "sql"
QUERY_STATEMENTS = {duckdb.StatementType.SELECT, duckdb.StatementType.EXPLAIN}


class QueryError(ValueError):
    """SQL that cannot be run: not a query, or DuckDB rejected it."""


def connect(lake: Lake) -> duckdb.DuckDBPyConnection:
    """A fresh in-memory connection with every lake table and derived view defined."""
    con = duckdb.connect(config={"threads": 2})
    for name, schema in TABLES.items():
        files = [str(f) for f in lake.files(name)]
        if files:
            rel = con.read_parquet(files, hive_partitioning=name in PARTITIONED, union_by_name=True)
        else:
            rel = con.from_arrow(pa.Table.from_batches([], schema=schema))
        rel.create_view(name)
    con.execute((SQL_DIR / "views.sql").read_text(encoding="utf-8"))
    root = str(lake.root.resolve())
    con.execute("SET allowed_directories = $dirs", {"dirs": [root]})
    con.execute("SET parquet_metadata_cache = true")  # committed files never change
    con.execute("SET enable_external_access = false")
    con.execute("SET lock_configuration = true")
    return con


def run_query(con: duckdb.DuckDBPyConnection, sql: str, params: dict[str, object] | None = None) -> pa.Table:
    """Run query statements only (SELECT, WITH, DESCRIBE, SUMMARIZE, EXPLAIN); the last one's result."""
    try:
        statements = con.extract_statements(sql)
    except duckdb.Error as exc:
        raise QueryError(str(exc)) from None
    if not statements:
        raise QueryError("no SQL statement given")
    for st in statements:
        if st.type not in QUERY_STATEMENTS:
            raise QueryError(f"only queries are allowed here, not {st.type.name}: {st.query.strip()[:60]!r}")
    try:
        *first, last = statements
        for st in first:
            con.execute(st.query, params or None)
        rel = con.sql(last.query, params=params or None)
        return rel.to_arrow_table() if rel is not None else pa.table({})
    except duckdb.Error as exc:
        raise QueryError(str(exc).split("\n")[0]) from None
