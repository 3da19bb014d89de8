"""How a table's rows become Parquet files: the lake's format, the partition folders, each table's file schema,
encodings and statistics."""

from __future__ import annotations

from functools import cache
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from ofc.pipeline.lake.board_cards import card_bytes
from ofc.schemas.lake import CARDS13, PARTITIONS, TABLE_PARTITIONS, TABLES
from ofc.schemas.lake import RESULT_TABLES as RESULT_SCHEMAS

__all__ = [
    "COMPRESSION",
    "KEY_FILTERED",
    "LAKE_FORMAT",
    "LOW_CARDINALITY",
    "PARTITIONED",
    "PLAIN_FILES",
    "RESULT_TABLES",
    "RETIRED_TABLES",
    "ROWS_PER_FILE",
    "ROW_GROUP_ROWS",
    "conform",
    "file_schema",
    "folder_value",
    "key_filter",
    "partition_dir",
    "writer_options",
]

PARTITIONED = tuple(TABLE_PARTITIONS)
RESULT_TABLES = tuple(RESULT_SCHEMAS)
RETIRED_TABLES = ("player_results", "result_players")
"""Result tables of an older format: their files are deleted once a rescore has replaced them."""
ROWS_PER_FILE = 4_000_000
ROW_GROUP_ROWS = 1 << 20
"""At most this many rows in a row group (each write of a chunk makes its own)."""
COMPRESSION = "zstd"
LAKE_FORMAT = 3
"""The lake's format, recorded in every manifest (``lake_format``; manifests without it are format 1). Format 2 adds
``carries`` (files rewritten for an earlier batch when hands are removed or replaced) and never deletes a file
but in a vacuum; format 3 stores each fact once: the result tables hold a board's or a pair's key and what the
rule set decides, and the views join them to the hands and boards (results of format 2 are scored again by
``ofc rescore``). A lake holding a newer format is refused: this version would misread it."""


def partition_dir(row: dict[str, Any], columns: tuple[str, ...] = PARTITIONS) -> str:
    return "/".join(f"{k}={folder_value(row[k])}" for k in columns)


def folder_value(value: object) -> str:
    """A partition value as its folder names it: ``true`` / ``false`` for a flag, as readers parse it."""
    return str(value).lower() if isinstance(value, bool) else str(value)


def writer_options(table: str, schema: pa.Schema) -> dict[str, Any]:
    """How a table's files are written.

    Statistics are kept only where a query may filter on a column's range: the hands' times, numbers and keys.
    Boards and placements are read whole or joined by hand key, whose values are hashes spread over the whole
    range in every row group, so their statistics would skip nothing and cost a third of the write.
    Columns whose values are all distinct (hand keys) or already tiny integers are not dictionary-encoded:
    hashing every value into a dictionary took as long as writing the rest (see ``_PLAIN``).
    Result tables are large and derived, so they are written for speed and for the reports that scan them:
    zstd, every column dictionary-encoded (read fastest: DuckDB groups by the codes) but those unique to a hand or
    a board (hand keys and ids, cards), the hand keys delta-encoded (a board's rows repeat its key: 40% fewer
    bytes than plain), and statistics on the small numbers, flags and times only (``_RANGED``). The points and
    royalties were delta-encoded while the results repeated each board's facts; in the narrow results, a
    dictionary makes 1 M hands' board results of 6 rule sets 12% smaller (48.8 MB against 55.7) and summed 10%
    faster, written as fast."""
    if table not in RESULT_TABLES:
        plain = _PLAIN.get(table, {})
        return {
            "compression": COMPRESSION,
            "write_statistics": table not in _NO_STATISTICS,
            "use_dictionary": [n for n in schema.names if n not in plain],
            "column_encoding": {n: e for n, e in plain.items() if e and n in schema.names},
        }
    ranged = [f.name for f in schema if f.type in _RANGED]
    return {
        "compression": COMPRESSION,
        "use_dictionary": [n for n in schema.names if n not in _UNIQUE_RESULT_COLUMNS],
        "column_encoding": {"hand_key": "DELTA_BINARY_PACKED"},
        "write_statistics": ranged,
    }


KEY_FILTERED = ("hands", "boards", "board_results", "pair_results", "decisions", "analysed_boards")
"""Tables whose files carry in each row group a Bloom filter of its hand keys, so that a reader looking for one
hand reads only the row groups that may hold it, where without them it decodes every key (docs/rescore.md,
"Finding hands by key"). Not the placements: no page looks them up by hand, and their filters took 4% of an
ingest."""
KEY_FILTER_FPP = 0.1
"""The filters' false-positive rate asked for. A filter is a power of two bytes: a row group of a rescore's 32,768
three-player hands gets 32 KB, a third of a byte a board (11 bytes a hand over 6 rule sets' board and pair
results), and over 10 M hands one hand's results under every rule set are found in 62 ms, 389 without."""


KEY_FILTER_HANDS = 131_072
"""The fewest hands a file's filters are made for. Each row group's filter is then cut to the hands it holds, so
a file whose first rows are a few hands (a month begun at the end of a chunk) still filters the full row groups
after them; making them for 1 M hands took 5% longer to write, for 131,072 no longer than for the hands of the
rows given."""


def key_filter(table: str, data: pa.Table) -> dict[str, Any]:
    """The writer option that makes ``table``'s files filter hand keys: made for the distinct hands of the first
    rows written or ``KEY_FILTER_HANDS``, whichever is more (a row group repeats a hand's key on each of its boards
    or pairs)."""
    if table not in KEY_FILTERED or "hand_key" not in data.column_names:
        return {}
    first = data.column("hand_key").slice(0, ROW_GROUP_ROWS)
    distinct = pc.count_distinct(first).as_py() if len(first) > KEY_FILTER_HANDS else 0  # fewer rows: fewer hands
    return {"bloom_filter_options": {"hand_key": {"ndv": max(distinct, KEY_FILTER_HANDS), "fpp": KEY_FILTER_FPP}}}


_UNIQUE_RESULT_COLUMNS = frozenset({"hand_key", "hand_id", "cards"})
_RANGED = (pa.bool_(), pa.int8(), pa.timestamp("us", tz="UTC"))
"""Result columns written with their range (statistics): flags, small numbers a report groups by, times. With a
small known range DuckDB groups by an index instead of a hash (counting boards by table size and seat: 0.19 s
against 0.36 over 10 M hands); points and royalties are summed, not grouped by, and go without."""
_PLAIN: dict[str, dict[str, str | None]] = {
    "hands": {"hand_key": None, "content_hash": None, "record_hash": None},
    "boards": {"hand_key": None, "cards": None},
    "placements": {
        "hand_key": None,
        "seat": None,
        "order": None,
        "street": "DELTA_BINARY_PACKED",
        "card": "DELTA_BINARY_PACKED",
    },
}
"""Columns written without a dictionary, in plain encoding (None) or the one named: the fastest that kept the
files about as small, measured column by column (the placements' card: 0.53 µs a hand against 0.63)."""
_NO_STATISTICS = ("boards", "placements")
PLAIN_FILES = ("hands", "placements")
"""Tables whose types Parquet round-trips without the stored Arrow schema (no fixed-size lists)."""
LOW_CARDINALITY = ("batch", "row", "source_file")
"""String columns repeated on every row of a batch: written from dictionary codes, never as millions of strings."""


@cache
def file_schema(table: str) -> pa.Schema:
    """The Arrow schema of ``table``'s files: the table's, less its hive partition columns.

    Low-cardinality strings are dictionary-encoded in memory; Parquet stores them as strings either way,
    and files are written without the Arrow schema, so every reader sees plain strings.
    """
    parts = TABLE_PARTITIONS.get(table, ()) if table in PARTITIONED else ()
    fields = []
    for f in TABLES[table]:
        if f.name in parts:
            continue
        if f.name in LOW_CARDINALITY and f.type == pa.string() and table in PLAIN_FILES:
            f = f.with_type(pa.dictionary(pa.int32(), pa.string()))
        fields.append(f)
    return pa.schema(fields)


def conform(data: pa.Table, schema: pa.Schema) -> pa.Table:
    """``data``'s columns in ``schema``'s order and types (a plain string column is dictionary-encoded if asked)."""
    columns = []
    for f in schema:
        column = data.column(f.name)
        if pa.types.is_dictionary(f.type) and not pa.types.is_dictionary(column.type):
            column = pc.dictionary_encode(column)
        if f.type == CARDS13:
            column = card_bytes(column)
        columns.append(column.cast(f.type))
    return pa.Table.from_arrays(columns, schema=schema)
