"""The hands the compiled JSONL scanner took, as the columns every ingester's hands become.

The scanner keeps what it reads in working arrays of fixed width, a row for every line and every board slot,
taken or not; here the taken rows are gathered once into the hands, boards and placements columns of
:mod:`pipeline.ingest.columns`, text straight from the bytes it was read from, and the streets of each board's
cards laid out while its placements are at hand.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
from numba import njit

from ofc.pipeline.game import BOARD
from ofc.pipeline.ingest.checks import DISCARD_ROW, MAX_PLAYERS, ROW_OF_PLACE
from ofc.pipeline.ingest.columns import TEXT_FIELDS, BoardColumns, HandColumns, PlacementColumns, Scanned
from ofc.pipeline.ingest.jsonl_keys import (
    B_DISCARDS,
    B_FL,
    B_FL_CARDS,
    B_HAS_PLACEMENTS,
    B_PLACEMENTS,
    B_POINTS,
    B_POINTS_OK,
    B_SEAT,
    B_STACK,
    B_STACK_OK,
    H_BUTTON,
    H_BUTTON_OK,
    H_NUMBER,
    H_NUMBER_OK,
    H_PLAYED,
    H_PLAYED_NAIVE,
    H_PLAYED_OK,
    H_PLAYERS,
    H_VARIANT,
)
from ofc.pipeline.ingest.times import to_utc


@njit(cache=True, nogil=True)
def _gather(buf: np.ndarray, spans: np.ndarray, offsets: np.ndarray, out: np.ndarray) -> None:
    for i in range(spans.shape[0]):
        s = spans[i, 0]
        o = offsets[i]
        for k in range(spans[i, 1] - s):
            out[o + k] = buf[s + k]


_NO_TEXT_ROWS = 1 << 16
_NO_TEXT = pa.nulls(_NO_TEXT_ROWS, pa.string())
"""A column of no text, sliced for a chunk (the scanner takes no natural, and a field may be absent throughout)."""


def _no_text(n: int) -> pa.Array:
    return _NO_TEXT.slice(0, n) if n <= _NO_TEXT_ROWS else pa.nulls(n, pa.string())


def _strings(buf: np.ndarray, spans: np.ndarray) -> pa.Array:
    """An Arrow string array of byte spans of ``buf`` (a span starting at -1 is null)."""
    valid = spans[:, 0] >= 0
    if not valid.any():  # a field no record of the chunk has
        return _no_text(spans.shape[0])
    lengths = np.where(valid, spans[:, 1] - spans[:, 0], 0)
    offsets = np.zeros(spans.shape[0] + 1, dtype=np.int32)
    np.cumsum(lengths, out=offsets[1:])
    data = np.empty(int(offsets[-1]), dtype=np.uint8)
    _gather(buf, np.where(valid[:, None], spans, 0), offsets, data)
    bitmap = None if valid.all() else pa.array(valid).buffers()[1]
    return pa.Array.from_buffers(pa.string(), spans.shape[0], [bitmap, pa.py_buffer(offsets), pa.py_buffer(data)])


def _numbers(values: np.ndarray, given: np.ndarray, kind: pa.DataType) -> pa.Array:
    """An Arrow column of ``values`` where ``given``, null elsewhere (no validity when all are given)."""
    if given.all():
        return pa.array(values, kind)
    return pa.array(values, kind, mask=~given)


@njit(cache=True, nogil=True)
def _board_rows(
    slots: np.ndarray,
    bint: np.ndarray,
    bcards: np.ndarray,
    pl: np.ndarray,
    ints: np.ndarray,
    cards: np.ndarray,
    d_offsets: np.ndarray,
    d_cards: np.ndarray,
    p_board: np.ndarray,
    p_street: np.ndarray,
    p_order: np.ndarray,
    p_card: np.ndarray,
    p_row: np.ndarray,
    digits: np.ndarray,
    d_digits: np.ndarray,
) -> None:
    """The board slots ``slots`` as flat columns, in one pass: their integers (``ints``, bint's columns), cards,
    discards, placements, and the street each card was placed or discarded at (``digits``, ``d_digits``: as
    :func:`pipeline.ingest.validate.street_layout` writes them, from placements already checked to be the final
    rows and discards). Each board's data is read once, while the cache holds it: the streets found apart, from
    the flat placements, took 0.45 s over 1.65 M hands."""
    noted = np.zeros(64, dtype=np.uint8)
    d = 0
    k = 0
    for j in range(slots.size):
        s = slots[j]
        for c in range(bint.shape[1]):
            ints[j, c] = bint[s, c]
        for c in range(BOARD):
            cards[j, c] = bcards[s, c]
            digits[j, c] = 48
        d_offsets[j] = d
        nd = bint[s, B_DISCARDS]
        for c in range(nd):
            d_cards[d + c] = bcards[s, BOARD + c]
            d_digits[d + c] = 48
        n = bint[s, B_PLACEMENTS]
        for q in range(n):
            row = pl[s, q, 2]
            p_board[k] = j
            p_street[k] = pl[s, q, 0]
            p_order[k] = q
            p_card[k] = pl[s, q, 1]
            p_row[k] = row
            k += 1
            noted[pl[s, q, 1]] = np.uint8((min(row, DISCARD_ROW) + 1) << 4) | np.uint8(min(pl[s, q, 0], 9))
        if n:
            for c in range(BOARD):
                t = noted[cards[j, c]]
                if t >> 4 == ROW_OF_PLACE[c] + 1:
                    digits[j, c] = 48 + (t & 15)
            for c in range(nd):
                t = noted[d_cards[d + c]]
                if t >> 4 == DISCARD_ROW + 1:
                    d_digits[d + c] = 48 + (t & 15)
            for q in range(n):
                noted[pl[s, q, 1]] = 0
        d += nd
    d_offsets[slots.size] = d


def taken_columns(buf: np.ndarray, lines: np.ndarray, arrays: tuple) -> Scanned:
    """The lines a scan took, as columns: ``arrays`` are its working arrays (taken, hspan, hint, bspan, bint, bcards,
    pl: see :func:`pipeline.ingest.jsonl_scan.scan`), ``lines`` the source line number of each line scanned."""
    taken, hspan, hint, bspan, bint, bcards, pl = arrays
    hands = np.flatnonzero(taken)
    h = hint[hands]
    n_players = h[:, H_PLAYERS]
    slot_used = np.arange(MAX_PLAYERS)[None, :] < n_players[:, None]
    board_slots = (hands[:, None] * MAX_PLAYERS + np.arange(MAX_PLAYERS)[None, :])[slot_used]
    m = board_slots.size
    n_discards = int(bint[board_slots, B_DISCARDS].sum())
    n_pl = int(bint[board_slots, B_PLACEMENTS].sum())
    b = np.empty((m, bint.shape[1]), dtype=np.int64)
    cards = np.empty((m, BOARD), dtype=np.uint8)
    d_offsets = np.empty(m + 1, dtype=np.int32)
    d_cards = np.empty(n_discards, dtype=np.uint8)
    p_board = np.empty(n_pl, dtype=np.int64)
    p_street = np.empty(n_pl, dtype=np.int8)
    p_order = np.empty(n_pl, dtype=np.int16)
    p_card = np.empty(n_pl, dtype=np.uint8)
    p_row = np.empty(n_pl, dtype=np.int8)
    digits = np.empty((m, BOARD), dtype=np.uint8)
    d_digits = np.empty(n_discards, dtype=np.uint8)
    _board_rows(
        board_slots, bint, bcards, pl, b, cards, d_offsets, d_cards, p_board, p_street, p_order, p_card, p_row,
        digits, d_digits,
    )  # fmt: skip
    placed = b[:, B_HAS_PLACEMENTS] == 1
    validity = None if placed.all() else pa.array(placed).buffers()[1]
    return Scanned(
        taken=hands,
        left=np.flatnonzero(~taken),
        hands=HandColumns(
            text={f: _strings(buf, hspan[hands, j]) for j, f in enumerate(TEXT_FIELDS)},
            variant=h[:, H_VARIANT],
            played_at=_numbers(
                to_utc(h[:, H_PLAYED], h[:, H_PLAYED_NAIVE] == 1),
                h[:, H_PLAYED_OK] == 1,
                pa.timestamp("us", tz="UTC"),
            ),
            hand_number=_numbers(h[:, H_NUMBER], h[:, H_NUMBER_OK] == 1, pa.int64()),
            button=_numbers(h[:, H_BUTTON], h[:, H_BUTTON_OK] == 1, pa.int64()),
            lines=lines[hands],
        ),
        boards=BoardColumns(
            hand=np.repeat(np.arange(hands.size), n_players),
            in_hand=np.nonzero(slot_used)[1],
            seat=b[:, B_SEAT],
            name=_strings(buf, bspan[board_slots]),
            cards=cards,
            misset=np.zeros(m, dtype=bool),
            fantasyland=b[:, B_FL] == 1,
            fantasyland_cards=b[:, B_FL_CARDS],
            surrendered=np.zeros(m, dtype=bool),
            natural=_no_text(m),
            discards=pa.ListArray.from_arrays(pa.array(d_offsets), pa.array(d_cards)),
            points=_numbers(b[:, B_POINTS], b[:, B_POINTS_OK] == 1, pa.int64()),
            stack=_numbers(b[:, B_STACK], b[:, B_STACK_OK] == 1, pa.int64()),
            streets=pa.StringArray.from_buffers(
                m, pa.py_buffer(np.arange(0, BOARD * m + 1, BOARD, dtype=np.int32)), pa.py_buffer(digits), validity
            ),
            discard_streets=pa.StringArray.from_buffers(m, pa.py_buffer(d_offsets), pa.py_buffer(d_digits), validity),
        ),
        placements=PlacementColumns(board=p_board, street=p_street, order=p_order, card=p_card, row=p_row),
    )
