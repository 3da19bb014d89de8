"""Arrow schemas: the canonical record in Arrow form, and every table of the lake.

``RECORD`` mirrors :class:`schemas.hand.HandRecord` field for field (cards as
text, times as ISO text): it is what ingesters hand over in bulk. The lake
tables are flat, with cards as ``uint8`` codes, and partitioned by variant and
month (``variant=pineapple/month=2026-11``); the result tables of a rescore by
rule set first (``rules_key=ofc@1a2b3c4d5e6f/variant=pineapple/month=2026-11``).
"""

from __future__ import annotations

import pyarrow as pa

CARDS = pa.list_(pa.string())

PLACEMENT = pa.struct([("street", pa.int64()), ("card", pa.string()), ("row", pa.string())])

PLAYER = pa.struct(
    [
        ("name", pa.string()),
        ("seat", pa.int64()),
        ("top", CARDS),
        ("middle", CARDS),
        ("bottom", CARDS),
        ("fantasyland", pa.bool_()),
        ("fantasyland_cards", pa.int64()),
        ("surrendered", pa.bool_()),
        ("natural", pa.string()),
        ("discards", CARDS),
        ("placements", pa.list_(PLACEMENT)),
        ("points", pa.int64()),
        ("stack", pa.int64()),
    ]
)

RECORD = pa.schema(
    [
        ("hand_id", pa.string()),
        ("source", pa.string()),
        ("variant", pa.string()),
        ("played_at", pa.string()),
        ("site", pa.string()),
        ("table", pa.string()),
        ("session", pa.string()),
        ("hand_number", pa.int64()),
        ("button", pa.int64()),
        ("house_rules", pa.string()),
        ("players", pa.list_(PLAYER)),
    ]
)
"""A batch of canonical hand records, nested as in JSON."""

PARTITIONS = ("variant", "month")
"""Hive partition columns of the hand, board and placement tables."""


def _required(name: str, kind: pa.DataType) -> pa.Field:
    """A column never null. Parquet then stores no definition levels for it, which made writing the placements
    table (all of whose columns are required) nearly twice as fast."""
    return pa.field(name, kind, nullable=False)


_KEY = [
    _required("hand_key", pa.uint64()),
    _required("batch", pa.string()),
]

HANDS = pa.schema(
    [
        *_KEY,
        _required("content_hash", pa.uint64()),
        _required("hand_id", pa.string()),
        ("source", pa.string()),
        _required("variant", pa.string()),
        _required("month", pa.string()),
        ("played_at", pa.timestamp("us", tz="UTC")),
        ("site", pa.string()),
        ("table", pa.string()),
        ("session", pa.string()),
        ("hand_number", pa.int64()),
        ("button", pa.int8()),
        ("house_rules", pa.string()),
        _required("n_players", pa.int8()),
        _required("source_file", pa.string()),
        _required("source_line", pa.int64()),
    ]
)
"""One row per hand. ``hand_key`` hashes (source, session, hand_id); ``content_hash`` hashes what was played."""

BOARDS = pa.schema(
    [
        *_KEY,
        _required("variant", pa.string()),
        _required("month", pa.string()),
        _required("seat", pa.int8()),
        _required("player", pa.string()),
        _required("cards", pa.list_(pa.uint8(), 13)),
        _required("misset", pa.bool_()),
        _required("fantasyland", pa.bool_()),
        _required("fantasyland_cards", pa.int8()),
        _required("surrendered", pa.bool_()),
        ("natural", pa.string()),
        _required("discards", pa.list_(pa.uint8())),
        ("points", pa.int32()),
        ("stack", pa.int32()),
        ("dead_street", pa.int8()),
    ]
)
"""One row per player per hand; ``cards`` is top 3, middle 5, bottom 5 as codes (a misset classic
board keeps its 13 cards in the order recorded, with ``misset`` set: it fouls). ``dead_street``: the
street after which a fouled board with recorded placements could no longer avoid the foul
(:mod:`pipeline.evaluate.dead`); null for the others."""

PLACEMENTS = pa.schema(
    [
        *_KEY,
        _required("variant", pa.string()),
        _required("month", pa.string()),
        _required("seat", pa.int8()),
        _required("street", pa.int8()),
        _required("order", pa.int16()),
        _required("card", pa.uint8()),
        _required("row", pa.string()),
    ]
)
"""One row per placed or discarded card, in the order it happened (``order`` within the player's hand)."""

BATCHES = pa.schema(
    [
        ("batch", pa.string()),
        ("kind", pa.string()),
        ("started_at", pa.timestamp("us", tz="UTC")),
        ("finished_at", pa.timestamp("us", tz="UTC")),
        ("sources", pa.list_(pa.string())),
        ("records_read", pa.int64()),
        ("accepted", pa.int64()),
        ("quarantined", pa.int64()),
        ("duplicates", pa.int64()),
        ("version", pa.string()),
    ]
)
"""One row per ingest or simulation run."""

QUARANTINE = pa.schema(
    [
        ("batch", pa.string()),
        ("source_file", pa.string()),
        ("line", pa.int64()),
        ("byte_offset", pa.int64()),
        ("hand_id", pa.string()),
        ("reason", pa.string()),
        ("raw", pa.string()),
    ]
)
"""Records that could not be accepted, with where they were and why."""

RESULT_PARTITIONS = ("rules_key", "variant", "month")
"""Hive partition columns of the result tables: one folder per rule set, then as the boards scored."""

LABEL = pa.dictionary(pa.int32(), pa.string())
"""A string column with few distinct values (rule set, player, settlement), stored dictionary-encoded."""

RESCORE_INPUT = pa.schema(
    [
        ("hand_key", pa.uint64()),
        ("variant", pa.string()),
        ("month", pa.string()),
        ("seat", pa.int8()),
        ("player", pa.string()),
        ("cards", pa.list_(pa.uint8(), 13)),
        ("misset", pa.bool_()),
        ("fantasyland", pa.bool_()),
        ("surrendered", pa.bool_()),
        ("natural", pa.string()),
        ("stack", pa.int32()),
        ("points", pa.int32()),
        ("button", pa.int8()),
        ("house_rules", pa.string()),
        ("played_at", pa.timestamp("us", tz="UTC")),
        ("fantasyland_cards", pa.int8()),
    ]
)
"""What rescoring reads: the boards of whole hands (as in ``BOARDS``; strings may be dictionary-encoded) with
their hand's ``button`` (null: the highest seat), ``house_rules`` (the rules its recorded points follow) and
``played_at``. ``played_at`` and ``fantasyland_cards`` may be left out: the results then hold nulls."""


def _results(columns: list[tuple[str, pa.DataType]], optional: tuple[str, ...] = ()) -> pa.Schema:
    """A result table's schema: columns never null are declared so, and Parquet stores no null flags for them."""
    return pa.schema([pa.field(name, kind, nullable=name in optional) for name, kind in columns])


_RESULT_KEY = [
    ("hand_key", pa.uint64()),
    ("rules", LABEL),
    ("rules_key", LABEL),
    ("variant", LABEL),
    ("month", LABEL),
]
"""Every result row's hand, rule set (name and name@hash) and partition."""

PAIR_RESULTS = _results(
    [
        *_RESULT_KEY,
        ("seat_a", pa.int8()),
        ("seat_b", pa.int8()),
        ("player_a", LABEL),
        ("player_b", LABEL),
        ("played_at", pa.timestamp("us", tz="UTC")),
        ("settled", LABEL),
        ("row_top", pa.int8()),
        ("row_middle", pa.int8()),
        ("row_bottom", pa.int8()),
        ("scoop", pa.int8()),
        ("fouled_a", pa.bool_()),
        ("fouled_b", pa.bool_()),
        ("royalties_a", pa.int32()),
        ("royalties_b", pa.int32()),
        ("row_points", pa.int32()),
        ("bonus", pa.int32()),
        ("royalty_points", pa.int32()),
        ("foul_points", pa.int32()),
        ("natural_points", pa.int32()),
        ("surrender_points", pa.int32()),
        ("multiplier", pa.int32()),
        ("points", pa.int32()),
    ],
    optional=("played_at",),
)
"""One row per pair of boards per hand per rule set; every figure is A's (B's is its negative).
``settled``: played, natural, surrender, foul or both_fouled. ``row_*``: +1 A won the row, -1 B did, 0 a tie;
``scoop``: +1 A scooped, -1 B did. ``points = (row_points + bonus) * multiplier + royalty_points + foul_points
+ natural_points + surrender_points``, then capped by table stakes when the rules have them. The players' names
and the hand's time ride along, so that head-to-head totals read this table alone."""

PLAYER_RESULTS = _results(
    [
        *_RESULT_KEY,
        ("seat", pa.int8()),
        ("player", LABEL),
        ("player_id", pa.uint64()),
        ("points", pa.int32()),
        ("royalty_top", pa.int32()),
        ("royalty_middle", pa.int32()),
        ("royalty_bottom", pa.int32()),
        ("fouled", pa.bool_()),
        ("fantasyland", pa.bool_()),
        ("fantasyland_entry", pa.bool_()),
        ("fantasyland_stay", pa.bool_()),
        ("fantasyland_cards", pa.int8()),
        ("recorded_points", pa.int32()),
        ("played_at", pa.timestamp("us", tz="UTC")),
        ("n_players", pa.int8()),
        ("position", pa.int8()),
        ("fantasyland_dealt", pa.int8()),
        ("hand_winner", pa.int8()),
    ],
    optional=("recorded_points", "played_at", "fantasyland_dealt"),
)
"""One row per board per hand per rule set: net points (zero-sum per hand), royalties per row, the foul, and
Fantasyland: ``fantasyland`` played in it, ``fantasyland_entry`` / ``fantasyland_stay`` earned, and
``fantasyland_cards`` the card count of the next hand when it is a Fantasyland hand (else 0).
``recorded_points`` is what the source recorded, if anything; ``player_id`` is a 64-bit hash of the name
(``pipeline.lake.hashing.hash_strings``, named in ``RESULT_PLAYERS``). The hand's facts a report groups by ride along,
so that it reads one table: ``played_at``, ``n_players``, ``position`` (the seat's place after the button among
the hand's seats: 0 is the button, 1 acts first), ``fantasyland_dealt`` (the cards dealt in a Fantasyland
hand, null otherwise) and ``hand_winner`` (the seat of the board with strictly the most points in the hand
under this rule set, -1 on a tie)."""

RESULT_PLAYERS = pa.schema([("player_id", pa.uint64()), ("player", pa.string())])
"""The names behind ``player_results.player_id`` in one result batch: a report groups its millions of rows by
the integer and names the few groups."""

TABLES = {
    "hands": HANDS,
    "boards": BOARDS,
    "placements": PLACEMENTS,
    "batches": BATCHES,
    "quarantine": QUARANTINE,
    "pair_results": PAIR_RESULTS,
    "player_results": PLAYER_RESULTS,
    "result_players": RESULT_PLAYERS,
}

TABLE_PARTITIONS = {
    "hands": PARTITIONS,
    "boards": PARTITIONS,
    "placements": PARTITIONS,
    "pair_results": RESULT_PARTITIONS,
    "player_results": RESULT_PARTITIONS,
}
"""Each partitioned table's hive partition columns, outermost first."""
