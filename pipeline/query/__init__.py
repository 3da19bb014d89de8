"""Reading the lake with DuckDB: plain SQL over views of the committed files, and named queries."""

from ofc.pipeline.query.db import QueryError, connect, run_query
from ofc.pipeline.query.named import NamedQueryError, parse_assignments, queries, run

__all__ = [
    "NamedQueryError",
    "QueryError",
    "connect",
    "parse_assignments",
    "queries",
    "run",
    "run_query",
]
