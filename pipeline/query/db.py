"""An in-process DuckDB connection over one snapshot of a lake, read-only for whatever SQL it is given.

Each lake table is a view over exactly the files the snapshot's manifests list (so a batch being written or
left by a crash is never seen, nor results a forced rescore replaced, nor results of an older format), with
the partitions (variant, month; the result tables rules_key, variant and native) as columns. Two small tables
come from the code rather than the files: ``variants`` (each variant's preset, whether it is played open face
and with a 2-7 middle) and ``royalty_hands`` (the hand each royalty of each rule set pays for); and two macros,
``notable_per_month()``, the boards of each kind ``notable_boards`` keeps per player and month, and
``narrowed()``, whether the connection is narrowed. The macros of ``sql/macros.sql``, which read no table, come
first; the views and macros in ``sql/views.sql`` are created on top. Then the connection is locked down: files
can be read only inside the lake, nothing can be written, and ad-hoc SQL may only query.

A connection may be narrowed (:class:`Narrowing`) to the boards of one table size, session, opponent or place
after the button: ``sql/narrowed.sql`` then defines the tables every query reads over the lake's, so that every
figure follows.
"""

from __future__ import annotations

import tempfile
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from pathlib import Path

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq

from ofc.pipeline.errors import InputError
from ofc.pipeline.game import facts
from ofc.pipeline.lake.file_layout import RESULT_TABLES
from ofc.pipeline.lake.snapshot import Snapshot
from ofc.pipeline.lake.store import Lake
from ofc.pipeline.paths import SQL
from ofc.pipeline.query.players import apply_aliases
from ofc.pipeline.rules.native import VARIANT_PRESETS
from ofc.schemas.lake import CARDS13, LATER_COLUMNS, NOTABLE_PER_MONTH, SUMMARY_TABLES, TABLE_PARTITIONS, TABLES

__all__ = [
    "CARD_CODES",
    "SQL_DIR",
    "Narrowing",
    "NarrowingError",
    "QueryError",
    "connect",
    "partition_values",
    "plain_schema",
    "run_query",
]

SQL_DIR = SQL
QUERY_STATEMENTS = {duckdb.StatementType.SELECT, duckdb.StatementType.EXPLAIN}
CARD_CODES = "list_transform(range(13), lambda i: ('0x' || hex(cards)[2 * i + 1:2 * i + 2])::UTINYINT)"
"""A board's 13 bytes of ``cards`` as the list of codes queries see."""
MONTH_OF_FILE = "regexp_extract(filename, '/month=([^/]+)/', 1) AS month"


class QueryError(InputError):
    """SQL that cannot be run: not a query, or DuckDB rejected it."""


@dataclass(frozen=True)
class Narrowing:
    """The boards a connection reads: of hands at one table size (``table_size``), of one ``session``, or where
    one ``opponent`` sat (not the opponent's own boards), and of those the boards at one ``position`` after the
    button (0 the button, 1 the first to act), played in Fantasyland or not (``fantasyland``). None: any.
    ``variant`` only bounds the work: every query takes it too."""

    table_size: int | None = None
    position: int | None = None
    session: str | None = None
    opponent: str | None = None
    fantasyland: bool | None = None
    variant: str | None = None

    def __bool__(self) -> bool:
        kept = (self.table_size, self.position, self.session, self.opponent, self.fantasyland)
        return any(v is not None for v in kept)


NARROWED_BOARDS = 1_000_000
"""The most boards a narrowed connection sums again from their results. Over 10 M hands, the 820,500 boards of the
hands where one player sat took 24 s and stayed within the connection's memory (600 MB, spilling to disk); the 10 M
boards at one position did not fit."""


class NarrowingError(InputError):
    """A narrowing that keeps more boards than a connection sums again."""


NARROWED = ("hands", "boards", "board_results", "pair_results", "analysed_boards", "decisions", *SUMMARY_TABLES)
"""The lake's tables a narrowed connection defines again over its own (``lake_hands`` and so on)."""


def plain_schema(schema: pa.Schema) -> pa.Schema:
    """``schema`` with its labels as plain strings, as the files' are read."""
    return pa.schema([f.with_type(f.type.value_type) if pa.types.is_dictionary(f.type) else f for f in schema])


def _variants() -> str:
    """The ``variants`` table as SQL values: an Arrow table built from Python values would load pandas (0.2 s of
    every ``ofc sql``; pyarrow checks each input for pandas objects), which no query needs."""
    rows = []
    for v, preset in VARIANT_PRESETS.items():
        game = facts(v.value)
        rows.append(f"({_literal(v.value)}, {_literal(preset)}, {game.open_face}, {game.lowball_middle})")
    return f"SELECT * FROM (VALUES {', '.join(rows)}) AS variants(variant, preset, open_face, lowball_middle)"


ROYALTY_HANDS = {
    "rules_key": "VARCHAR",
    "row": "VARCHAR",
    "points": "INTEGER",
    "category": "VARCHAR",
    "category_order": "TINYINT",
    "hand": "VARCHAR",
}
"""The columns of ``royalty_hands``: per rule set, row and royalty paid, the hand that earns it."""


def _sql_value(value: str | int | None) -> str:
    if value is None:
        return "NULL"
    return _literal(value) if isinstance(value, str) else str(int(value))


def _royalty_hands(snapshot: Snapshot) -> str:
    """The ``royalty_hands`` table as SQL values: the rows the snapshot's result batches recorded, once per rule
    set. (An Arrow table built from Python values would load pandas: 0.2 s of every ``ofc sql``.)"""
    rows = snapshot.royalty_hands()
    typed = ", ".join(f"{name}::{kind} AS {name}" for name, kind in ROYALTY_HANDS.items())
    values = [f"({', '.join(_sql_value(r.get(c)) for c in ROYALTY_HANDS)})" for mine in rows.values() for r in mine]
    if not values:
        return f"SELECT {', '.join(f'NULL::{kind} AS {name}' for name, kind in ROYALTY_HANDS.items())} LIMIT 0"
    return f"SELECT {typed} FROM (VALUES {', '.join(values)}) AS t({', '.join(ROYALTY_HANDS)})"


def _literal(value: str) -> str:
    return "'" + value.replace("'", "''") + "'"


def partition_values(relative: str) -> dict[str, str]:
    """``board_results/rules_key=x/variant=y/native=true/file`` -> its folders' values."""
    return dict(part.split("=", 1) for part in relative.split("/")[1:-1] if "=" in part)


def _table(con: duckdb.DuckDBPyConnection, snapshot: Snapshot, name: str) -> str:
    """A lake table as one query with exactly its schema's columns (an empty table: none of its rows).

    Files that share their partition folder and their columns are read as one branch, with the folders' values
    as constants; the branches are put end to end. (The paths and values are the lake's own, from its manifests,
    written into the SQL as quoted literals.) A filter on a partition column then drops whole branches when the
    query is planned, and no hive partition filter is ever applied to a scan: in DuckDB 2.0 such a filter is lost
    when one query scans the same files twice (a window over an aggregate does), and sums come out over every
    partition. A rule set's name is its key's (``name@hash``), so a filter on ``rules`` drops branches too.

    The month folders of one variant are one branch, each row's month read from its file's path: planning binds
    every branch, and a year of months made 39 branches of the boards of three variants, whose planning took
    0.14 s of a 0.44 s query over 10 M hands (0.06 s of 0.37 s as one branch a variant). No query leaves out
    months by their folder.
    """
    schema = plain_schema(TABLES[name])
    empty = con.from_arrow(pa.Table.from_batches([], schema=schema))
    types = dict(zip(empty.columns, empty.types, strict=True))
    parts = TABLE_PARTITIONS.get(name, ())
    groups: dict[tuple[tuple[str, ...], frozenset[str]], list[str]] = {}
    for files in snapshot.files_by_batch(name).values():
        # A batch's files were written by one version: one footer tells their columns.
        columns = _columns(files[0], name)
        for f in files:
            values = partition_values(str(f.relative_to(snapshot.root)))
            values.pop("month", None)
            groups.setdefault((tuple(values.get(k, "") for k in parts), columns), []).append(str(f))
    branches = []
    for (values, columns), files in groups.items():
        select = []
        for field in schema:
            if field.name == "month":
                select.append(MONTH_OF_FILE)
            elif field.name in parts:
                value = values[parts.index(field.name)]
                select.append(f"{_literal(value)}::{types[field.name]} AS {field.name}")
            elif field.name == "rules" and "rules_key" in parts:  # a rule set's name: its key before the hash
                value = values[parts.index("rules_key")].rsplit("@", 1)[0]
                select.append(f"{_literal(value)}::{types[field.name]} AS rules")
            elif field.type == CARDS13:  # shown as the list of codes, whichever way the files hold them
                listed = f"{field.name}[]" in columns
                select.append(f'"{field.name}"::UTINYINT[] AS "{field.name}"' if listed else f"{CARD_CODES} AS cards")
            elif field.name in columns:
                select.append(f'"{field.name}"')
            else:  # a file written before the column existed
                select.append(f'NULL::{types[field.name]} AS "{field.name}"')
        listed = ", ".join(_literal(f) for f in files)
        # The folders' values are the constants above: DuckDB need not look for them in the paths (binding a
        # table of 11 branches: 18% less time).
        read = f"read_parquet([{listed}], hive_partitioning = false{', filename = true' if 'month' in parts else ''})"
        branches.append(f"SELECT {', '.join(select)} FROM {read}")
    if not branches:
        shown = {**types, **{f.name: "UTINYINT[]" for f in schema if f.type == CARDS13}}
        nothing = ", ".join(f'NULL::{shown[f.name]} AS "{f.name}"' for f in schema)
        return f"SELECT {nothing} WHERE false"
    return "\nUNION ALL\n".join(branches)


def _columns(path: Path, table: str) -> frozenset[str]:
    """The columns of a batch's files of ``table`` (result files of the current format: the schema's, save
    ``LATER_COLUMNS``); a column of cards stored as a list of codes (lake format 2 and before) is named
    ``cards[]``."""
    if table in RESULT_TABLES and table not in LATER_COLUMNS:
        return frozenset(TABLES[table].names)
    schema = pq.read_schema(path)
    listed = (pa.types.is_list, pa.types.is_fixed_size_list, pa.types.is_large_list)
    return frozenset(f"{f.name}[]" if f.name == "cards" and any(t(f.type) for t in listed) else f.name for f in schema)


def connect(
    source: Snapshot | Lake, narrowing: Narrowing | None = None, aliases: Mapping[str, str] | None = None
) -> duckdb.DuckDBPyConnection:
    """A fresh in-memory connection over one snapshot (a lake: its state now), every view and macro defined;
    narrowed to some boards when a ``narrowing`` is given (even one that keeps every board: the summaries are then
    summed again from the boards, as a narrowing sums them); with the players' ``aliases``
    (:func:`pipeline.query.players.apply_aliases`)."""
    snapshot = source.snapshot() if isinstance(source, Lake) else source
    con = duckdb.connect(config={"threads": 2})
    con.execute("SET enable_progress_bar = false")
    con.execute("SET preserve_insertion_order = false")  # what a query orders, it orders itself
    # Global, so that every cursor of the connection has them too (a report's sections run on their own).
    con.execute("SET GLOBAL TimeZone = 'UTC'")  # days and times are the lake's, in UTC, whatever the machine's zone
    con.execute("SET GLOBAL parquet_metadata_cache = true")  # committed files never change: each footer read once
    con.execute((SQL_DIR / "macros.sql").read_text(encoding="utf-8"))
    narrowed = narrowing is not None
    views = [
        f"CREATE VIEW {'lake_' if narrowed and name in NARROWED else ''}{name} AS {_table(con, snapshot, name)};"
        for name in TABLES
    ]
    con.execute("\n".join(views))  # one script: each view bound once (as relations, twice)
    con.execute(f"CREATE VIEW variants AS {_variants()}")
    con.execute(f"CREATE VIEW royalty_hands AS {_royalty_hands(snapshot)}")
    # Narrowed, the notable boards of each month are not those of the boards kept: notable_hands searches them all.
    con.execute(f"CREATE MACRO notable_per_month() AS {0 if narrowed else NOTABLE_PER_MONTH}")
    con.execute(f"CREATE MACRO narrowed() AS {narrowed}")  # whether the tables keep only some boards
    if narrowing is not None:  # the aliases first: the narrowing sums the players as they read
        apply_aliases(con, aliases or {}, {t: f"lake_{t}" for t in NARROWED})
        _narrow(con, narrowing)
    con.execute((SQL_DIR / "views.sql").read_text(encoding="utf-8"))
    _per_game(con, snapshot)
    root = str(snapshot.root.resolve())
    if narrowing is None:
        apply_aliases(con, aliases or {})
    con.execute("SET allowed_directories = $dirs", {"dirs": [root]})
    con.execute("SET enable_external_access = false")
    con.execute("SET lock_configuration = true")
    return con


PER_GAME = {"scored_boards": "boards_scored", "compared_boards": "boards_compared"}
"""The wide views defined again game by game over a lake of several games, from the macros of ``sql/views.sql``
that make them."""


def _per_game(con: duckdb.DuckDBPyConnection, snapshot: Snapshot) -> None:
    """Define each view of ``PER_GAME`` as its macro of each game the lake has, put end to end: a join of a game's
    results to its boards and hands then reads that game's files alone (sql/views.sql, scored_boards)."""
    games = sorted({partition_values(str(f.relative_to(snapshot.root)))["variant"] for f in snapshot.files("hands")})
    if len(games) < 2:
        return
    for view, macro in PER_GAME.items():
        each = "\nUNION ALL\n".join(f"SELECT * FROM {macro}({_literal(g)})" for g in games)
        con.execute(f"CREATE OR REPLACE VIEW {view} AS\n{each}")


def _narrow(con: duckdb.DuckDBPyConnection, narrowing: Narrowing) -> None:
    """Define the tables every query reads over the lake's (``lake_hands`` and so on), narrowed."""
    # Summed again from the boards: bounded, spilling to a folder of the system's, never the lake's.
    con.execute("SET memory_limit = '600MB'")
    con.execute("SET temp_directory = $dir", {"dir": str(Path(tempfile.gettempdir()) / "ofc-duckdb")})
    con.execute(
        "CREATE TABLE narrowing AS SELECT $table_size::TINYINT AS table_size, $position::TINYINT AS position, "
        "$session::VARCHAR AS session, $opponent::VARCHAR AS opponent, $fantasyland::BOOLEAN AS fantasyland, "
        "$variant::VARCHAR AS variant",
        asdict(narrowing),
    )
    first, *rest = con.extract_statements((SQL_DIR / "narrowed.sql").read_text(encoding="utf-8"))
    choose, games = _fewer(narrowing), f" of {narrowing.variant}" if narrowing.variant else ""
    try:
        con.execute(first.query)  # kept_boards
        (kept,) = con.execute("SELECT count(*) FROM kept_boards").fetchall()[0]
        if kept > NARROWED_BOARDS:
            raise NarrowingError(
                f"narrowed this way the lake keeps {kept:,} boards{games}, more than the {NARROWED_BOARDS:,} a "
                f"narrowed page sums again from their results: {choose}"
            )
        for statement in rest:
            con.execute(statement.query)
    except duckdb.OutOfMemoryException:
        raise NarrowingError(
            f"narrowed this way the lake keeps more boards{games} than a narrowed page sums again within its memory: "
            f"{choose}"
        ) from None
    except duckdb.IOException as exc:  # the folder it spills to: full, or not writable
        raise NarrowingError(f"could not sum the narrowed boards again: {exc}") from None


def _fewer(narrowing: Narrowing) -> str:
    """What would keep fewer boards: a game, a session or an opponent, of those the narrowing does not have."""
    missing = [
        what
        for what, given in (
            ("a game", narrowing.variant),
            ("a session", narrowing.session),
            ("an opponent", narrowing.opponent),
        )
        if given is None
    ]
    if not missing:
        return "narrow further"
    return "choose " + (f"{', '.join(missing[:-1])} or {missing[-1]}" if len(missing) > 1 else missing[0]) + " too"


def run_query(con: duckdb.DuckDBPyConnection, sql: str, params: dict[str, object] | None = None) -> pa.Table:
    """Run query statements only (SELECT, WITH, DESCRIBE, SUMMARIZE, EXPLAIN); the last one's result."""
    try:
        statements = con.extract_statements(sql)
    except duckdb.Error as exc:
        raise QueryError(_message(exc)) from None
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
        raise QueryError(_message(exc)) from None


def _message(exc: Exception) -> str:
    """DuckDB's message whole: its hints (``Did you mean "hands"?``, the candidate columns, the caret under the
    fault) are what tell a user how to fix the query."""
    return "\n".join(line.rstrip() for line in str(exc).strip().splitlines() if line.strip())
