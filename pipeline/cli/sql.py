"""``ofc sql``: read-only SQL over the lake's views, or a named query from ``sql/queries`` with bound parameters."""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer
from rich.table import Table
from rich.text import Text

from pipeline.cli.console import EXIT_USAGE, fail, out, print_json
from pipeline.cli.ingest import lake_option
from pipeline.paths import default_lake

if TYPE_CHECKING:
    import pyarrow as pa

MAX_ROWS = 200
_NAMED = re.compile(r"^[a-z][a-z0-9_]*$")


def _list(as_json: bool) -> None:
    from pipeline.query.named import queries

    found = queries()
    if as_json:
        print_json(
            [
                {
                    "name": q.name,
                    "description": q.description,
                    "params": [
                        {"name": p.name, "type": p.type, "optional": p.optional, "default": p.default, "help": p.help}
                        for p in q.params
                    ],
                }
                for q in found.values()
            ]
        )
        return
    table = Table("query", "parameters", "answers", title="named queries: ofc sql NAME --param key=value")
    for q in found.values():
        table.add_row(Text(q.name), Text("\n".join(p.describe() for p in q.params)), Text(q.description))
    out.print(table)


def _show(result: pa.Table, csv: bool, as_json: bool) -> None:
    if csv:
        import pyarrow.csv as pacsv

        pacsv.write_csv(result, sys.stdout.buffer)
        return
    if as_json:
        for row in result.to_pylist():
            print_json({k: _plain(v) for k, v in row.items()})
        return
    table = Table()
    for name in result.column_names:
        table.add_column(Text(name))
    for row in result.slice(0, MAX_ROWS).to_pylist():
        table.add_row(*(Text("" if v is None else str(v)) for v in row.values()))  # data is text, never markup
    out.print(table)
    if result.num_rows > MAX_ROWS:
        out.print(f"{result.num_rows:,} rows; the first {MAX_ROWS} shown (use --csv or --json for all)")


def _plain(value: Any) -> Any:
    """JSON for values JSON has no type for (days, times): ISO text."""
    return value.isoformat() if hasattr(value, "isoformat") else value


def sql(
    query: str = typer.Argument(
        None,
        help='A query, e.g. "SELECT variant, count(*) FROM hands GROUP BY ALL", or the name of a named query '
        "(ofc sql --list).",
        show_default=False,
    ),
    lake: Path | None = lake_option(),
    param: list[str] | None = typer.Option(
        None, "--param", "-p", help="A named query's parameter, key=value; repeat for several.", show_default=False
    ),
    list_: bool = typer.Option(False, "--list", help="List the named queries and their parameters."),
    csv: bool = typer.Option(False, "--csv", help="Print CSV."),
    as_json: bool = typer.Option(False, "--json", help="Print JSON lines (--list: one JSON document)."),
) -> None:
    """Run read-only SQL against the lake, or a named query with its parameters.

    Views: hands, boards, placements, batches, quarantine, board_results, pair_results, played_boards,
    hand_boards, players, recorded_mismatches, variants, royalty_hands. Named queries (ofc sql --list)
    take their values with --param key=value: every value is a bound parameter, never part of the SQL
    text.
    """
    from pipeline.lake.store import Lake
    from pipeline.query.db import connect, run_query
    from pipeline.query.named import parse_assignments, queries, run

    if list_:
        _list(as_json)
        return
    if not query:
        fail("give a query, a named query's name, or --list", EXIT_USAGE)
    store = Lake(lake or default_lake())
    snapshot = store.snapshot()  # every statement of the command reads this one state of the lake
    named = _NAMED.match(query.strip()) is not None
    if param and not named:
        fail("--param goes with a named query (ofc sql --list shows them)", EXIT_USAGE)
    if named:
        if query.strip() not in queries():
            fail(f"no named query {query.strip()!r} (ofc sql --list shows them)", EXIT_USAGE)
        result = run(connect(snapshot), snapshot, query.strip(), parse_assignments(param or []))
    else:
        result = run_query(connect(snapshot), query)
    _show(result, csv, as_json)
