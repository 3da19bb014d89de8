"""What the compiled JSONL scanner reads of a record, and where it keeps what it read.

The keys are the fields of the models in :mod:`schemas.hand`, read by name: a key's code is its place in its
model, so a field added there is a key the scanner knows at once, and ``tests/test_record_layout.py`` fails until
the scanner reads it (``SCANNED``) or leaves it to the general path with a reason (``LEFT``). What a line holds
is kept in integer columns, one row a hand and one a board, until the taken hands become columns of their own.
"""

from __future__ import annotations

import numpy as np

from ofc.pipeline.game import PLACEMENT_ROWS, ROWS
from ofc.pipeline.ingest.checks import VARIANT_NAMES
from ofc.pipeline.ingest.columns import TEXT_FIELDS
from ofc.pipeline.ingest.jsonl_tokens import word_table
from ofc.schemas.hand import HandRecord, Placement, PlayerRecord

HAND_KEYS = tuple(HandRecord.model_fields)
"""A record's keys, as :class:`schemas.hand.HandRecord` declares them: a key's code in the scanner is its place
here."""
PLAYER_KEYS = tuple(PlayerRecord.model_fields)
PLACEMENT_KEYS = tuple(Placement.model_fields)

SCANNED = {
    "hand": (*TEXT_FIELDS, "variant", "played_at", "hand_number", "button", "players"),
    "player": (
        "name",
        "seat",
        *ROWS,
        "fantasyland",
        "fantasyland_cards",
        "surrendered",
        "natural",
        "discards",
        "placements",
        "points",
        "stack",
    ),
    "placement": ("street", "card", "row"),
}
"""The fields the scanner reads, of a hand, of a player and of a placement. Some it takes only in their common
form (a surrender only when false, a natural only when null) and leaves the line otherwise."""
LEFT: dict[str, dict[str, str]] = {"hand": {}, "player": {}, "placement": {}}
"""Fields of the models the scanner does not read, each with the reason: a line that has one is left to the
general path. So is a line with a field in neither list, and ``tests/test_record_layout.py`` fails on that field."""

# Each key the scanner reads, by name; any other key leaves the line.
K_HAND_ID, K_VARIANT, K_PLAYED_AT, K_HAND_NUMBER, K_BUTTON, K_PLAYERS = map(
    HAND_KEYS.index, ("hand_id", "variant", "played_at", "hand_number", "button", "players")
)
K_NAME, K_SEAT, K_FANTASYLAND, K_FANTASYLAND_CARDS, K_SURRENDERED, K_NATURAL = map(
    PLAYER_KEYS.index, ("name", "seat", "fantasyland", "fantasyland_cards", "surrendered", "natural")
)
K_DISCARDS, K_PLACEMENTS, K_POINTS, K_STACK = map(PLAYER_KEYS.index, ("discards", "placements", "points", "stack"))
K_STREET, K_CARD, K_ROW = map(PLACEMENT_KEYS.index, ("street", "card", "row"))
TEXT_SLOT = np.array([TEXT_FIELDS.index(k) if k in TEXT_FIELDS else -1 for k in HAND_KEYS], dtype=np.int64)
"""Each hand key's place among TEXT_FIELDS, -1 for a key not text."""
HAND_ID_SLOT = TEXT_FIELDS.index("hand_id")
ROW_OF_KEY = np.array([ROWS.index(k) if k in ROWS else -1 for k in PLAYER_KEYS], dtype=np.int64)
"""Each player key's place among ROWS (the rows are keys of their own), -1 for a key not a row."""
assert max(len(HAND_KEYS), len(PLAYER_KEYS), len(PLACEMENT_KEYS)) < 63, "the keys seen are bits of one integer"

# The words a key or a value is looked up among (see :func:`pipeline.ingest.jsonl_tokens.find_word`).
HAND_KEY_WORDS, HAND_KEY_LOOKUP = word_table(list(HAND_KEYS))
PLAYER_KEY_WORDS, PLAYER_KEY_LOOKUP = word_table(list(PLAYER_KEYS))
PLACEMENT_KEY_WORDS, PLACEMENT_KEY_LOOKUP = word_table(list(PLACEMENT_KEYS))
VARIANT_WORDS, VARIANT_LOOKUP = word_table(list(VARIANT_NAMES))
ROW_WORDS, ROW_LOOKUP = word_table(list(PLACEMENT_ROWS))

# Column indices of the per-hand and per-board integer outputs.
H_VARIANT, H_PLAYERS, H_PLAYED, H_PLAYED_OK, H_NUMBER, H_NUMBER_OK, H_BUTTON, H_BUTTON_OK, H_PLAYED_NAIVE = range(9)
B_SEAT, B_FL, B_FL_CARDS, B_DISCARDS, B_PLACEMENTS, B_HAS_PLACEMENTS, B_POINTS, B_POINTS_OK, B_STACK, B_STACK_OK = (
    range(10)
)
