"""``ofc sql``: read-only SQL over the lake's views, or a named query from ``sql/queries`` with bound parameters."""

from __future__ import annotations

import json
import math
import re
import sys
from collections.abc import Sequence
from datetime import timedelta
from decimal import Decimal
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer
from rich.cells import cell_len
from rich.table import Table
from rich.text import Text

from ofc.pipeline.cli.console import EXIT_USAGE, fail, out, print_json
from ofc.pipeline.cli.options import JSON_LINES_HELP, existing_lake, lake_option

if TYPE_CHECKING:
    import pyarrow as pa

MAX_ROWS = 200
_NAMED = re.compile(r"^[a-z][a-z0-9_]*$")


def _list(as_json: bool) -> None:
    from ofc.pipeline.query.named import queries

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


CARD_LISTS = frozenset({"cards", "top", "middle", "bottom", "discards"})
"""Columns of the lake's tables and views that hold a list of card codes: shown as cards in a table."""
CARD = "card"
NOISE = 1e-10
"""A float closer to 0 than this is what rounding leaves of a zero (``3.8e-17``): shown as 0. The lake's figures
(points, counts, rates, means) are never that small; --json and --csv keep every digit."""


WRAP = 20
"""The narrowest a table column of text wider than this may wrap to (a longer word sets its own): narrower, a row
is a column of single words, hard to read."""
EDGES = 3
"""What a table column takes beside its text: a space either side and the rule on its right."""


def _show(result: pa.Table, csv: bool, as_json: bool, vertical: bool) -> None:
    if csv:
        import pyarrow.csv as pacsv

        pacsv.write_csv(_flat(_keys_as_text(result)), sys.stdout.buffer)
        return
    if as_json:
        for row in _keys_as_text(result).to_pylist():
            print_json({k: plain(v) for k, v in row.items()})
        return
    shown = result.slice(0, MAX_ROWS)
    fields = list(shown.schema)
    columns = [_cells(field, shown.column(i).to_pylist()) for i, field in enumerate(fields)]
    spans = [_span([field.name, *cells]) for field, cells in zip(fields, columns, strict=True)]
    width = out.width
    kept = None if vertical else _kept(spans, width, shown.num_rows)
    if kept is None:
        _print_lines([field.name for field in fields], columns)
    else:
        out.print(_table(fields[:kept], columns, _widths(spans[:kept], width)))
        if kept < len(fields):
            out.print(_left_out([field.name for field in fields[kept:]], len(fields), width))
    if result.num_rows > MAX_ROWS:
        out.print(f"{result.num_rows:,} rows; the first {MAX_ROWS} shown (use --csv or --json for all)")


def _span(texts: list[str]) -> tuple[int, int]:
    """The narrowest a table column of ``texts`` reads well at (its longest word, text wider than :data:`WRAP`
    wrapped no narrower than that) and its width with no text wrapped."""
    lines = [line for text in texts for line in text.splitlines()]
    whole = max((cell_len(line) for line in lines), default=0)
    word = max((cell_len(w) for line in lines for w in line.split()), default=0)
    return max(1, word, min(whole, WRAP)), max(1, whole)


def _table_width(widths: list[int]) -> int:
    return sum(w + EDGES for w in widths) + 1  # the table's left edge


def _kept(spans: list[tuple[int, int]], width: int, rows: int) -> int | None:
    """How many of the leading columns the table shows: as many as fit ``width`` at their narrowest (a column cut
    to "ha…" says nothing). None, rows one at a time, when that is fewer than half of them: a table of a few
    columns hides most of each row."""
    kept, used = 0, _table_width([])
    for need, _ in spans:
        used += need + EDGES
        if used > width:
            break
        kept += 1
    return None if rows and 2 * kept < len(spans) else kept


def _widths(spans: list[tuple[int, int]], width: int) -> Sequence[int | None]:
    """Each column's width: None for all when they fit unwrapped (rich lays the table out as ever), else each as
    wide as it is up to a cap, the largest that fits, and never under its narrowest."""
    if _table_width([whole for _, whole in spans]) <= width:
        return [None] * len(spans)
    for cap in range(max(whole for _, whole in spans), 0, -1):
        widths = [max(need, min(whole, cap)) for need, whole in spans]
        if _table_width(widths) <= width:
            return widths
    return [need for need, _ in spans]


def _table(fields: list[pa.Field], columns: list[list[str]], widths: Sequence[int | None]) -> Table:
    table = Table()
    for field, width in zip(fields, widths, strict=True):
        table.add_column(Text(field.name), justify="right" if _numeric(field) else "left", width=width)
    for row in zip(*columns[: len(fields)], strict=True):
        table.add_row(*(Text(cell) for cell in row))  # data is text, never markup
    if not columns:
        table.add_row()
    return table


def _print_lines(names: list[str], columns: list[list[str]]) -> None:
    """Each row as DuckDB's line mode prints it: ``name = value`` a line, the names aligned, a blank line between
    rows; every column and each value whole, however many columns there are."""
    pad = max(map(cell_len, names), default=0)
    indent = "\n" + " " * (pad + 3)
    for i, row in enumerate(zip(*columns, strict=True)):
        lines = Text("\n" if i else "")
        for name, value in zip(names, row, strict=True):
            lines.append(" " * (pad - cell_len(name)) + name, style="bold")
            lines.append(" =" + (" " + value.replace("\n", indent) if value else "") + "\n")
        out.print(lines, end="")


def _left_out(names: list[str], total: int, width: int) -> Text:
    return Text(
        f"{len(names)} of {total} columns left out to fit {width} characters: {', '.join(names)} "
        "(--vertical shows every column, --csv or --json every value in full)"
    )


def _keys_as_text(result: pa.Table) -> pa.Table:
    """``result`` with every key as its decimal digits in text, wherever it is (in a list or a struct too).

    A key is any unsigned 64-bit integer (hand_key, hashes: most exceed 2^53) and a signed 64-bit one named as an
    identifier (``pipeline.query.keys``, which says why); counts and sums stay numbers.
    """
    import pyarrow as pa

    return result.cast(pa.schema([f.with_type(_key_text_type(f.type, f.name)) for f in result.schema]))


def _key_text_type(kind: pa.DataType, name: str) -> pa.DataType:
    """``kind`` with each key in it as text: a list's items are named by the list, a struct's fields by their own
    names, a map's keys and values by the map."""
    import pyarrow as pa

    from ofc.pipeline.query.keys import is_key

    if pa.types.is_uint64(kind) or (pa.types.is_int64(kind) and is_key(name)):
        return pa.string()
    if pa.types.is_map(kind):
        return pa.map_(_key_text_type(kind.key_type, name), _key_text_type(kind.item_type, name))
    if pa.types.is_list(kind) or pa.types.is_large_list(kind) or pa.types.is_fixed_size_list(kind):
        item = kind.value_field.with_type(_key_text_type(kind.value_type, name))
        if pa.types.is_fixed_size_list(kind):
            return pa.list_(item, kind.list_size)
        return pa.large_list(item) if pa.types.is_large_list(kind) else pa.list_(item)
    if pa.types.is_struct(kind):
        return pa.struct([f.with_type(_key_text_type(f.type, f.name)) for f in kind])
    return kind


def _flat(result: pa.Table) -> pa.Table:
    """``result`` with the columns a CSV file cannot hold as they are (lists, structs, intervals, bytes) as
    text: the JSON that ``--json`` prints for them (a board's cards: ``[40, 41, ...]``)."""
    import pyarrow as pa

    for i, field in enumerate(result.schema):
        kind = field.type
        binary = pa.types.is_binary(kind) or pa.types.is_large_binary(kind) or pa.types.is_fixed_size_binary(kind)
        if pa.types.is_nested(kind) or pa.types.is_interval(kind) or binary:
            texts = [_text(plain(v)) for v in result.column(i).to_pylist()]
            result = result.set_column(i, field.name, pa.array(texts, pa.string()))
    return result


def _text(value: Any) -> str | None:
    return value if value is None or isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def _numeric(field: pa.Field) -> bool:
    import pyarrow as pa

    kind = field.type
    return not _cards(field) and (pa.types.is_integer(kind) or pa.types.is_floating(kind) or pa.types.is_decimal(kind))


def _cards(field: pa.Field) -> bool:
    """Whether a column holds card codes: one of the lake's card columns, by its name and type."""
    import pyarrow as pa

    kind = field.type
    if field.name == CARD:
        return pa.types.is_uint8(kind)
    listed = pa.types.is_list(kind) or pa.types.is_fixed_size_list(kind) or pa.types.is_large_list(kind)
    return field.name in CARD_LISTS and listed and pa.types.is_uint8(kind.value_type)


def _cells(field: pa.Field, values: list[Any]) -> list[str]:
    """A column's values as people read them: cards as cards, numbers rounded (see :func:`number`)."""
    import pyarrow as pa

    from ofc.pipeline.query.keys import is_key

    kind = field.type
    if _cards(field) and field.name in CARD_LISTS:
        return [_card_list(v) for v in values]
    if _cards(field):
        return ["" if v is None else _card(v) for v in values]
    if pa.types.is_uint64(kind) or (pa.types.is_integer(kind) and is_key(field.name)):
        return ["" if v is None else str(v) for v in values]
    return [number(v) for v in values]


def _card(code: int) -> str:
    from ofc.pipeline.cards import format_card

    return format_card(code) if 0 <= code <= 51 else "??"


def _card_list(codes: list[int] | None) -> str:
    if codes is None:
        return ""
    names = [_card(c) for c in codes]
    if len(names) == 13:  # a board: its rows
        return " / ".join(" ".join(row) for row in (names[:3], names[3:8], names[8:]))
    return " ".join(names)


def number(value: Any) -> str:
    """A value for a table: whole numbers with thousands separators, others to 4 significant digits (never in
    exponent form between 0.0001 and 10^15), a float that is noise next to 0 (:data:`NOISE`) as 0, lists and
    structs of them likewise; anything else as text."""
    if value is None:
        return ""
    if isinstance(value, list | tuple):
        return "[" + ", ".join(number(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}: {number(v)}" for k, v in value.items()) + "}"
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, Decimal):
        value = int(value) if value == value.to_integral_value() else float(value)
    if isinstance(value, int):
        return f"{value:,}"
    if not isinstance(value, float):
        return str(value)
    size = abs(value)
    if not math.isfinite(value) or size >= 1e15:
        return f"{value:.4g}" if math.isfinite(value) else str(value)
    if size < NOISE:
        return "0"
    if size >= 1000:
        return f"{value:,.0f}"
    if size < 1e-4:
        return f"{value:.4g}"
    text = f"{value:.{3 - math.floor(math.log10(size))}f}"
    text = text.rstrip("0").rstrip(".") if "." in text else text
    return "0" if text == "-0" else text


def plain(value: Any) -> Any:
    """A value as JSON has it, in full precision: a whole decimal as an integer, another as a float; days and
    times as ISO text; bytes as hex; a float that is not finite as null."""
    if isinstance(value, Decimal):
        return int(value) if value == value.to_integral_value() else float(value)
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if hasattr(value, "months") and hasattr(value, "nanoseconds"):  # an interval
        return {"months": value.months, "days": value.days, "nanoseconds": value.nanoseconds}
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [plain(v) for v in value]
    if isinstance(value, bytes):
        return value.hex()
    if hasattr(value, "isoformat"):
        return value.isoformat()
    if isinstance(value, timedelta):
        return value.total_seconds()
    if value is None or isinstance(value, str | int | bool):
        return value
    return str(value)  # intervals, UUIDs, ...


def sql(
    query: str = typer.Argument(
        None,
        metavar="QUERY",
        help='A query, e.g. "SELECT variant, count(*) FROM hands GROUP BY ALL", or the name of a named query '
        "(ofc sql --list).",
        show_default=False,
    ),
    lake: Path | None = lake_option(),
    param: list[str] | None = typer.Option(
        None,
        "--param",
        "-p",
        metavar="KEY=VALUE",
        help="A named query's parameter; repeat for several.",
        show_default=False,
    ),
    list_: bool = typer.Option(False, "--list", help="List the named queries and their parameters."),
    csv: bool = typer.Option(False, "--csv", help="Print CSV (every row, full precision, cards as codes)."),
    as_json: bool = typer.Option(
        False, "--json", help=f"{JSON_LINES_HELP[:-1]}; full precision, cards as codes (--list: one document)."
    ),
    vertical: bool = typer.Option(
        False, "--vertical", help="Print each row as lines of column = value: every column, each value whole."
    ),
) -> None:
    """Run read-only SQL against the lake, or a named query with its parameters.

    Tables: hands, boards, placements, batches, quarantine; each rule set's results, board_results and
    pair_results (a board's or pair's key and what the rule set decided). Views: scored_boards (each board's facts
    beside its result under each rule set), played_boards (as played), compared_boards (beside the result as
    played), seated_boards, scored_pairs, hand_boards, players, quarantine_status, recorded_mismatches,
    variants, royalty_hands. Named queries (ofc sql --list) take their values with --param key=value: every
    value is a bound parameter, never part of the SQL text.

    Cards are stored as codes (rank * 4 + suit). The table printed for people shows the card columns
    (card, cards, top, middle, bottom, discards) as cards and rounds numbers to 4 significant digits; in
    SQL, card_text(card) gives 'As', cards_text(top) 'Qh Qd 4c' and board_text(cards) the 13 cards as
    'top / middle / bottom', e.g. "SELECT player, board_text(cards) FROM hand_boards".

    A table wider than the terminal keeps the leading columns that fit and names those left out; when fewer than
    half fit, each row is printed as lines of column = value instead, as --vertical prints it.
    """
    from ofc.pipeline.config import load_config
    from ofc.pipeline.query.db import connect, run_query
    from ofc.pipeline.query.named import run
    from ofc.pipeline.query.players import apply_aliases

    chosen = [option for option, given in (("--csv", csv), ("--json", as_json), ("--vertical", vertical)) if given]
    if len(chosen) > 1:
        fail(f"{' and '.join(chosen)} each choose the output: give one", EXIT_USAGE)
    if list_:
        _list(as_json)
        return
    if not query:
        fail("give a query, a named query's name, or --list", EXIT_USAGE)
    name = query.strip() if _NAMED.match(query.strip()) else None
    if param and name is None:
        fail("--param goes with a named query (ofc sql --list shows them)", EXIT_USAGE)
    values = _params(name, param or []) if name is not None else {}
    config = load_config()
    if values.get("player"):
        values["player"] = config.canonical(values["player"])
    snapshot = existing_lake(lake).snapshot()  # every statement of the command reads this one state of the lake
    con = connect(snapshot)
    apply_aliases(con, config.alias_map())  # players read under the names the settings file gives them
    result = run(con, snapshot, name, values) if name is not None else run_query(con, query)
    _show(result, csv, as_json, vertical)


def _params(name: str, assignments: list[str]) -> dict[str, str]:
    """The values given to the named query ``name``: a query or a parameter that does not exist is a usage error
    naming the closest that do, said before the lake is opened."""
    from ofc.pipeline.query.named import NamedQueryError, get, parse_assignments

    try:
        query = get(name)
        values = parse_assignments(assignments)
        for key in values:
            query.param(key)
    except NamedQueryError as exc:  # says the closest names
        fail(str(exc), EXIT_USAGE)
    return values
