"""The columns accepted hands become before they are lake rows: what the validator, the JSONL scanner and the
simulator all hand over to :func:`pipeline.ingest.validate.lake_rows`.

Readers that check records in compiled code (canonical JSONL's scanner, the simulator) attach theirs to a
chunk as :class:`Scanned`; the validator turns the rest into the same columns.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyarrow as pa

TEXT_FIELDS = ("hand_id", "source", "site", "table", "session", "house_rules")
"""The fields of a hand record kept as the text they are."""


@dataclass
class HandColumns:
    """Accepted hands, one value per hand: what both the validator and the JSONL scanner hand over."""

    text: dict[str, pa.Array]
    """The strings of TEXT_FIELDS."""
    variant: np.ndarray
    played_at: pa.Array
    hand_number: pa.Array
    button: pa.Array
    lines: np.ndarray


@dataclass
class BoardColumns:
    """Accepted boards; ``hand`` is the row of :class:`HandColumns` each belongs to."""

    hand: np.ndarray
    in_hand: np.ndarray
    seat: np.ndarray
    name: pa.Array
    cards: np.ndarray
    """(boards, 13) codes: top 3, middle 5, bottom 5 (a misset board in the order given)."""
    misset: np.ndarray
    fantasyland: np.ndarray
    fantasyland_cards: np.ndarray
    surrendered: np.ndarray
    natural: pa.Array
    discards: pa.ListArray
    points: pa.Array
    stack: pa.Array
    streets: pa.Array | None = None
    """The street each card was placed at, when a reader found it as it read the placements (else the validator
    finds it): see :func:`pipeline.ingest.validate.street_layout`."""
    discard_streets: pa.Array | None = None


@dataclass
class PlacementColumns:
    """Accepted placements; ``board`` is the row of :class:`BoardColumns` each belongs to."""

    board: np.ndarray
    street: np.ndarray
    order: np.ndarray
    card: np.ndarray
    row: np.ndarray
    """Index into PLACEMENT_ROWS."""


@dataclass
class Scanned:
    """Records a reader or the simulator already checked in compiled code, as the validator's columns.

    ``taken`` are their positions among the chunk's records; ``left`` those left to the general checks.
    """

    taken: np.ndarray
    left: np.ndarray
    hands: HandColumns
    boards: BoardColumns
    placements: PlacementColumns
