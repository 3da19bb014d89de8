"""Simulated hands as canonical records: Arrow ``RECORD`` tables built from the batch's arrays, and JSONL.

Every nested column (players, rows, discards, placements) is assembled from
flat numpy columns and offsets, so a block of a hundred thousand hands costs
a few Arrow kernels, not a Python object per hand. The same table goes to the
lake (through the ingest checks) or, written by polars, to canonical JSONL
that ``ofc ingest`` reads back into the same hands.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import BinaryIO

import numpy as np
import polars as pl
import pyarrow as pa
import pyarrow.compute as pc

from ofc.pipeline.cards import CARD_NAMES
from ofc.pipeline.ingest.base import Chunk
from ofc.pipeline.ingest.checks import VARIANT_NAMES
from ofc.pipeline.ingest.columns import TEXT_FIELDS, BoardColumns, HandColumns, PlacementColumns, Scanned
from ofc.pipeline.rules.compile import NATURALS
from ofc.pipeline.simulate.played_hands import HandBatch
from ofc.schemas.hand import PLACEMENT_ROWS
from ofc.schemas.lake import PLACEMENT, PLAYER, RECORD

SOURCE = "simulator"
"""The ``source`` of every simulated record."""
_CARDS = pa.array(CARD_NAMES.tolist(), pa.string())
_ROWS = pa.array(list(PLACEMENT_ROWS), pa.string())
_NATURALS = pa.array([n.value for n in NATURALS], pa.string())
_NO_RECORDS = RECORD.empty_table()


@dataclass(frozen=True)
class RecordMeta:
    """What every record of a run shares, and how its identifiers are made."""

    run_id: str
    """Identifies the run's arguments; sessions and hand ids start with it, so reruns are recognised."""
    variant: str
    house_rules: str
    names: tuple[str, ...]
    """Player name of each seat."""
    start: datetime
    """When every session's first hand was played (aware)."""
    hand_seconds: int
    """Time between two hands of a session."""


def _cards(codes: np.ndarray) -> pa.Array:
    return _CARDS.take(pa.array(codes.reshape(-1).astype(np.int64)))


def _fixed_lists(values: pa.Array, width: int) -> pa.ListArray:
    offsets = np.arange(0, len(values) + 1, width, dtype=np.int32)
    return pa.ListArray.from_arrays(pa.array(offsets), values)


def _ragged_lists(values: pa.Array, counts: np.ndarray) -> pa.ListArray:
    offsets = np.concatenate([[0], np.cumsum(counts)]).astype(np.int32)
    return pa.ListArray.from_arrays(pa.array(offsets), values)


def _numbered(prefix: pa.Array | str, numbers: np.ndarray, width: int, sep: str) -> pa.Array:
    """``prefix + sep + number`` (zero-padded to ``width``) for every element, as Arrow string kernels."""
    text = pc.utf8_lpad(pa.array(numbers, pa.int64()).cast(pa.string()), width=width, padding="0")
    return pc.binary_join_element_wise(prefix, text, sep)


def _players(b: HandBatch, meta: RecordMeta) -> pa.Array:
    n, p = b.hands, b.players
    m = n * p
    seat = np.tile(np.arange(p, dtype=np.int64), n)
    names = pa.array(list(meta.names), pa.string()).take(pa.array(seat))
    rows = [_fixed_lists(_cards(b.cards[:, :, lo:hi]), hi - lo) for lo, hi in ((0, 3), (3, 8), (8, 13))]

    dealt = b.dealt_mask
    discard = dealt & (b.row == 3)
    discards = _ragged_lists(_cards(b.dealt[discard]), discard.sum(axis=2).reshape(m))
    placed = pa.StructArray.from_arrays(
        [
            pa.array(b.street[dealt].astype(np.int64)),
            _cards(b.dealt[dealt]),
            _ROWS.take(pa.array(b.row[dealt].astype(np.int64))),
        ],
        fields=list(PLACEMENT),
    )
    placements = _ragged_lists(placed, b.n_dealt.reshape(m))

    fl = b.fantasyland.reshape(m)
    natural = b.natural.reshape(m).astype(np.int64)
    arrays = {
        "name": names,
        "seat": pa.array(seat),
        "top": rows[0],
        "middle": rows[1],
        "bottom": rows[2],
        "fantasyland": pa.array(fl),
        "fantasyland_cards": pa.array(b.fantasyland_cards.reshape(m), pa.int64(), mask=~fl),
        "surrendered": pa.array(b.surrendered.reshape(m)),
        "natural": _NATURALS.take(pa.array(np.maximum(natural, 0), mask=natural < 0)),
        "discards": discards,
        "placements": placements,
        "points": pa.array(b.points.reshape(m), pa.int64()),
        "stack": pa.nulls(m, pa.int64()),
    }
    struct = pa.StructArray.from_arrays([arrays[f.name] for f in PLAYER], fields=list(PLAYER))
    return _fixed_lists(struct, p)


def _hand_columns(b: HandBatch, meta: RecordMeta) -> tuple[dict[str, pa.Array], np.ndarray]:
    """The per-hand text and number columns both forms share, and each hand's time (UTC microseconds)."""
    n = b.hands
    session = _numbered(meta.run_id, b.session, 6, "-")
    offsets = (b.hand_number - 1) * meta.hand_seconds
    start = np.datetime64(meta.start.replace(tzinfo=None) - meta.start.utcoffset(), "s")  # type: ignore[operator]
    played = (start + offsets.astype("timedelta64[s]")).astype("datetime64[us]")
    columns = {
        "hand_id": _numbered(session, b.hand_number, 1, "-"),
        "source": pa.array([SOURCE] * n, pa.string()),
        "site": pa.nulls(n, pa.string()),
        "table": _numbered("table", b.session, 6, "-"),
        "session": session,
        "hand_number": pa.array(b.hand_number, pa.int64()),
        "button": pa.array(b.button, pa.int64()),
        "house_rules": pa.array([meta.house_rules] * n, pa.string()),
    }
    return columns, played


def to_records(b: HandBatch, meta: RecordMeta) -> pa.Table:
    """The batch as canonical records (schema ``RECORD``), one row per hand in the batch's order."""
    n = b.hands
    columns, played = _hand_columns(b, meta)
    columns |= {
        "variant": pa.array([meta.variant] * n, pa.string()),
        "played_at": pa.array(np.datetime_as_string(played, unit="s", timezone="UTC"), pa.string()),
        "players": _players(b, meta),
    }
    return pa.Table.from_arrays([columns[f.name] for f in RECORD], schema=RECORD)


def _sound(b: HandBatch) -> np.ndarray:
    """Hands whose arrays make a valid record (see :func:`to_chunk`): no card twice, 13 cards on each board, and
    the cards placed on each row exactly the board's."""
    dealt = b.dealt_mask
    bit = np.left_shift(np.uint64(1), np.where(dealt, b.dealt, 0).astype(np.uint64)) * dealt
    hand = np.bitwise_or.reduce(bit.reshape(b.hands, -1), axis=1)
    ok = np.bitwise_count(hand) == b.n_dealt.sum(axis=1)
    board = np.left_shift(np.uint64(1), b.cards.astype(np.uint64))
    for row, (lo, hi) in enumerate(((0, 3), (3, 8), (8, 13))):
        final = np.bitwise_or.reduce(board[:, :, lo:hi], axis=2)
        placed = np.bitwise_or.reduce(bit * (b.row == row), axis=2)
        ok &= ((final == placed) & (np.bitwise_count(final) == hi - lo)).all(axis=1)
    return ok


def to_chunk(b: HandBatch, meta: RecordMeta, first_line: int) -> Chunk:
    """The batch ready for the lake: its hands as the validator's columns, already checked, as the JSONL scanner
    hands over the lines it took.

    The dealer's hands are valid by construction; what is checked here, over whole arrays, is what a defect
    in it could break (a card twice, a board that is not its placements). A hand failing that goes, as a
    canonical record, through every check of ingest, which names what is wrong with it. Both ways give the
    same lake rows (the tests compare them).
    """
    n, p = b.hands, b.players
    total = n
    lines = np.arange(first_line, first_line + n, dtype=np.int64)
    ok = _sound(b)
    taken, left = np.flatnonzero(ok), np.flatnonzero(~ok)
    records = to_records(b, meta).take(pa.array(left)) if left.size else _NO_RECORDS
    if left.size:
        b = b.take(taken)
        n = b.hands
    m = n * p
    columns, played = _hand_columns(b, meta)
    hands = HandColumns(
        text={f: columns[f] for f in TEXT_FIELDS},
        variant=np.full(n, VARIANT_NAMES.index(meta.variant), dtype=np.int64),
        played_at=pa.array(played.astype(np.int64), pa.timestamp("us", tz="UTC")),
        hand_number=columns["hand_number"],
        button=columns["button"],
        lines=lines[taken],
    )
    seat = np.tile(np.arange(p, dtype=np.int64), n)
    width = b.dealt.shape[2]
    dealt = b.dealt_mask
    discard = dealt & (b.row == 3)
    fl = b.fantasyland.reshape(m)
    natural = b.natural.reshape(m).astype(np.int64)
    boards = BoardColumns(
        hand=np.repeat(np.arange(n), p),
        in_hand=seat,
        seat=seat,
        name=pa.array(list(meta.names), pa.string()).take(pa.array(seat)),
        cards=b.cards.reshape(m, 13),
        misset=np.zeros(m, dtype=bool),
        fantasyland=fl,
        fantasyland_cards=np.where(fl, b.fantasyland_cards.reshape(m), 0),
        surrendered=b.surrendered.reshape(m),
        natural=_NATURALS.take(pa.array(np.maximum(natural, 0), mask=natural < 0)),
        discards=pa.ListArray.from_arrays(
            pa.array(np.r_[0, np.cumsum(discard.sum(axis=2).reshape(m))].astype(np.int32)),
            pa.array(b.dealt[discard], pa.uint8()),
        ),
        points=pa.array(b.points.reshape(m), pa.int64()),
        stack=pa.nulls(m, pa.int64()),
    )
    counts = b.n_dealt.reshape(m)
    placements = PlacementColumns(
        board=np.repeat(np.arange(m), counts),
        street=b.street[dealt],
        order=np.nonzero(dealt.reshape(m, width))[1],
        card=b.dealt[dealt],
        row=b.row[dealt],
    )
    return Chunk(
        records,
        lines[left],
        np.zeros(left.size, dtype=np.int64),
        bytes_read=total,
        scanned=Scanned(taken, left, hands, boards, placements),
    )


def write_jsonl(records: pa.Table, stream: BinaryIO) -> None:
    """Append ``records`` to ``stream`` as canonical JSONL, one hand per line."""
    pl.from_arrow(records).write_ndjson(stream)  # type: ignore[union-attr]
