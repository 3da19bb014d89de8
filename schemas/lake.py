"""Arrow schemas: the canonical record in Arrow form, and every table of the lake.

``RECORD`` mirrors :class:`schemas.hand.HandRecord` field for field (cards as
text, times as ISO text): it is what ingesters hand over in bulk. The lake
tables are flat, with cards as ``uint8`` codes, and partitioned by variant and
month (``variant=pineapple/month=2026-11``).
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

_KEY = [
    ("hand_key", pa.uint64()),
    ("batch", pa.string()),
]

HANDS = pa.schema(
    [
        *_KEY,
        ("content_hash", pa.uint64()),
        ("hand_id", pa.string()),
        ("source", pa.string()),
        ("variant", pa.string()),
        ("month", pa.string()),
        ("played_at", pa.timestamp("us", tz="UTC")),
        ("site", pa.string()),
        ("table", pa.string()),
        ("session", pa.string()),
        ("hand_number", pa.int64()),
        ("button", pa.int8()),
        ("house_rules", pa.string()),
        ("n_players", pa.int8()),
        ("source_file", pa.string()),
        ("source_line", pa.int64()),
    ]
)
"""One row per hand. ``hand_key`` hashes (source, session, hand_id); ``content_hash`` hashes what was played."""

BOARDS = pa.schema(
    [
        *_KEY,
        ("variant", pa.string()),
        ("month", pa.string()),
        ("seat", pa.int8()),
        ("player", pa.string()),
        ("cards", pa.list_(pa.uint8(), 13)),
        ("misset", pa.bool_()),
        ("fantasyland", pa.bool_()),
        ("fantasyland_cards", pa.int8()),
        ("surrendered", pa.bool_()),
        ("natural", pa.string()),
        ("discards", pa.list_(pa.uint8())),
        ("points", pa.int32()),
        ("stack", pa.int32()),
    ]
)
"""One row per player per hand; ``cards`` is top 3, middle 5, bottom 5 as codes (a misset classic
board keeps its 13 cards in the order recorded, with ``misset`` set: it fouls)."""

PLACEMENTS = pa.schema(
    [
        *_KEY,
        ("variant", pa.string()),
        ("month", pa.string()),
        ("seat", pa.int8()),
        ("street", pa.int8()),
        ("order", pa.int16()),
        ("card", pa.uint8()),
        ("row", pa.string()),
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

TABLES = {"hands": HANDS, "boards": BOARDS, "placements": PLACEMENTS, "batches": BATCHES, "quarantine": QUARANTINE}
