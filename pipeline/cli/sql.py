"""``ofc sql``: read-only SQL over the lake's views."""

from __future__ import annotations

import sys
from pathlib import Path

import typer
from rich.table import Table

from pipeline.cli.console import EXIT_USAGE, fail, out, print_json
from pipeline.cli.ingest import lake_option
from pipeline.paths import default_lake

MAX_ROWS = 200


def sql(
    query: str = typer.Argument(..., help='A query, e.g. "SELECT variant, count(*) FROM hands GROUP BY ALL".'),
    lake: Path | None = lake_option(),
    csv: bool = typer.Option(False, "--csv", help="Print CSV."),
    as_json: bool = typer.Option(False, "--json", help="Print JSON lines."),
) -> None:
    """Run read-only SQL against the lake.

    Views: hands, boards, placements, batches, quarantine, hand_boards, players.
    """
    from pipeline.lake.store import Lake
    from pipeline.query.db import QueryError, connect, run_query

    try:
        result = run_query(connect(Lake(lake or default_lake())), query)
    except QueryError as exc:
        fail(str(exc), EXIT_USAGE)
    if csv:
        import pyarrow.csv as pacsv

        pacsv.write_csv(result, sys.stdout.buffer)
        return
    if as_json:
        for row in result.to_pylist():
            print_json(row)
        return
    table = Table(*result.column_names)
    for row in result.slice(0, MAX_ROWS).to_pylist():
        table.add_row(*("" if v is None else str(v) for v in row.values()))
    out.print(table)
    if result.num_rows > MAX_ROWS:
        out.print(f"{result.num_rows:,} rows; the first {MAX_ROWS} shown (use --csv or --json for all)")
