"""A player's fields as the compiled JSONL scanner reads them: its name and numbers, its rows and discards as card
codes, its placements.

Each value is checked against the limits of :mod:`pipeline.ingest.checks` as it is read, and anything outside
them, or not in the form the scanner takes, leaves the line: the general path names the reason. Placements are
most of a line's bytes, so the form ``json.dumps`` writes them in is matched whole, eight bytes at a time, before
they are read key by key.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ofc.pipeline.cards import NO_CARD, RANK_BYTE, SUIT_BYTE
from ofc.pipeline.game import BOARD, MAX_SEAT, PLACEMENT_ROWS, ROW_SIZES, ROW_STARTS, ROWS
from ofc.pipeline.ingest.checks import (
    FANTASYLAND_DEALT,
    FIRST_STREET,
    LAST_STREET,
    MAX_DEALT,
    MAX_DISCARDS,
    POINTS_MAX,
    STACK_MAX,
    STACK_MIN,
)
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
    K_CARD,
    K_DISCARDS,
    K_FANTASYLAND,
    K_FANTASYLAND_CARDS,
    K_NAME,
    K_NATURAL,
    K_PLACEMENTS,
    K_POINTS,
    K_ROW,
    K_SEAT,
    K_STACK,
    K_STREET,
    K_SURRENDERED,
    PLACEMENT_KEY_LOOKUP,
    PLACEMENT_KEY_WORDS,
    PLACEMENT_KEYS,
    PLAYER_KEY_LOOKUP,
    PLAYER_KEY_WORDS,
    ROW_LOOKUP,
    ROW_OF_KEY,
    ROW_WORDS,
)
from ofc.pipeline.ingest.jsonl_tokens import (
    NULL,
    find_word,
    mask8,
    next_item,
    next_member,
    open_list,
    read_bool,
    read_int,
    read_key,
    read_literal,
    read_string,
    skip_ws,
    stretch,
    word8,
)
from ofc.pipeline.raw_pointers import load8

# The limits of :mod:`pipeline.ingest.checks`, as the compiled code reads them (numba freezes a global when it
# compiles). A line outside any of them is left to the general path, which names the reason.
_FL_FEWEST, _FL_MOST = FANTASYLAND_DEALT[0], FANTASYLAND_DEALT[-1]
_ROW_SIZES = np.array(ROW_SIZES, dtype=np.int64)
_ROW_STARTS = np.array(ROW_STARTS, dtype=np.int64)
_ALL_ROWS = (1 << len(ROWS)) - 1


@njit(cache=True, nogil=True, inline="always")
def _card(buf: np.ndarray, p: int, e: int) -> tuple[int, int]:
    """A two-letter card string: (code, next) or next = -1."""
    s, t, q = read_string(buf, p, e)
    if q < 0 or t - s != 2:
        return 0, -1
    r = RANK_BYTE[buf[s]]
    u = SUIT_BYTE[buf[s + 1]]
    if r == NO_CARD or u == NO_CARD:
        return 0, -1
    return r * 4 + u, q


@njit(cache=True, nogil=True)
def _cards(
    buf: np.ndarray,
    p: int,
    e: int,
    out: np.ndarray,
    b: int,
    at: int,
    cap: int,
) -> tuple[int, int]:
    """A list of at most ``cap`` cards into ``out[b, at:]``: (count, next) or next = -1; null is no list (-1 count).

    ``out`` and ``b`` rather than the row ``out[b]``: a view would count references to ``out`` from every
    thread of a parallel scan, and those shared counts cost more than the scan itself.
    """
    items, p = open_list(buf, p, e)
    if items <= 0:
        return items, p
    n = 0
    while True:
        if n >= cap:
            return 0, -1
        code, p = _card(buf, p, e)
        if p < 0:
            return 0, -1
        out[b, at + n] = code
        n += 1
        done, p = next_item(buf, p, e, n)
        if done or p < 0:
            return done, p


# ``{"street": 2, "card": "Kc", "row": "middle"}`` exactly as json.dumps writes a placement, keys in this order:
# its fixed bytes compared in words of 8 bytes. The street digit is at 11, the card at 23, the row name at 36.
_PL_A, _PL_B, _PL_STREET_AT = stretch(f'{{"{PLACEMENT_KEYS[K_STREET]}": ')
_PL_C, _PL_D, _PL_CARD_OPEN = stretch(f', "{PLACEMENT_KEYS[K_CARD]}": "')
_PL_E, _PL_F, _PL_ROW_OPEN = stretch(f'", "{PLACEMENT_KEYS[K_ROW]}": "')
_PL_CARD_AT = _PL_STREET_AT + 1 + _PL_CARD_OPEN
_PL_ROW_AT = _PL_CARD_AT + 2 + _PL_ROW_OPEN
_PL_ROW_TEXT = [f'{row}"}}'.encode() for row in PLACEMENT_ROWS]
"""Each row name with the closing bytes after it (``middle"}``), up to 16 bytes."""
assert max(map(len, _PL_ROW_TEXT)) <= 16
_PL_ROWS = np.array([word8(t) for t in _PL_ROW_TEXT], dtype=np.uint64)
_PL_ROW_MASKS = np.array([mask8(min(len(t), 8)) for t in _PL_ROW_TEXT], dtype=np.uint64)
_PL_ROW_TAILS = np.array([word8(t, len(t) - 8) if len(t) > 8 else 0 for t in _PL_ROW_TEXT], dtype=np.uint64)
"""The last eight bytes of a row name's text longer than a word (``iscard"}``); 0 for the others."""
_PL_ROW_ENDS = np.array([_PL_ROW_AT + len(t) for t in _PL_ROW_TEXT], dtype=np.int64)
"""Where the placement ends (after its ``}``), by row."""
_PL_LONGEST = _PL_ROW_AT + max(8, *map(len, _PL_ROW_TEXT))
"""Bytes the longest placement of this form takes (every word it reads lies within them)."""


def _by_first_byte(names: list[bytes]) -> np.ndarray:
    """Each byte's name among ``names``, which start with different bytes; -1 for a byte none starts with."""
    out = np.full(256, -1, dtype=np.int64)
    for i, name in enumerate(names):
        assert out[name[0]] < 0, "the names must start with different bytes"
        out[name[0]] = i
    return out


_PL_ROW_OF_BYTE = _by_first_byte(_PL_ROW_TEXT)
"""The row a name may be, by its first byte: the name is then compared with that row's alone, not tried against
each in turn (which row comes next is anyone's guess, and a branch guessed wrong costs more than a comparison):
4% off the scan of the benchmark's hands."""


@njit(cache=True, nogil=True, inline="always")
def _compact_placement(buf: np.ndarray, p: int, e: int, pl: np.ndarray, b: int, n: int) -> int:
    """``{"street": 2, "card": "Kc", "row": "middle"}`` exactly as written by json.dumps; the next position or -1.

    Most placements look like this, and comparing its fixed bytes eight at a time is much cheaper than
    tokenizing them.
    """
    if p + _PL_LONGEST > e:
        return -1
    if load8(buf, p) != _PL_A or load8(buf, p + _PL_STREET_AT - 8) != _PL_B:
        return -1
    c = p + _PL_STREET_AT + 1
    if load8(buf, c) != _PL_C or load8(buf, c + _PL_CARD_OPEN - 8) != _PL_D:
        return -1
    c = p + _PL_CARD_AT + 2
    if load8(buf, c) != _PL_E or load8(buf, c + _PL_ROW_OPEN - 8) != _PL_F:
        return -1
    street = buf[p + _PL_STREET_AT]
    if not (49 <= street <= 57):  # one digit, 1 to 9
        return -1
    r = RANK_BYTE[buf[p + _PL_CARD_AT]]
    u = SUIT_BYTE[buf[p + _PL_CARD_AT + 1]]
    if r == NO_CARD or u == NO_CARD:
        return -1
    row = _PL_ROW_OF_BYTE[buf[p + _PL_ROW_AT]]
    if row < 0 or load8(buf, p + _PL_ROW_AT) & _PL_ROW_MASKS[row] != _PL_ROWS[row]:
        return -1
    end = p + _PL_ROW_ENDS[row]
    if _PL_ROW_TAILS[row] != 0 and load8(buf, end - 8) != _PL_ROW_TAILS[row]:
        return -1
    pl[b, n, 0] = street - 48
    pl[b, n, 1] = r * 4 + u
    pl[b, n, 2] = row
    return end


@njit(cache=True, nogil=True, inline="always")
def _placement(buf: np.ndarray, p: int, e: int, pl: np.ndarray, b: int, n: int) -> int:
    """A placement object at ``p`` (its ``{``) read key by key, in any layout, into ``pl[b, n]``; the next position
    or -1."""
    p = skip_ws(buf, p + 1, e)
    street, card, row = -1, -1, -1
    closed = False
    while not closed:
        k, p = read_key(buf, p, e, PLACEMENT_KEY_WORDS, PLACEMENT_KEY_LOOKUP)
        if p < 0 or k < 0:
            return -1
        if k == K_STREET and street < 0:
            street, p = read_int(buf, p, e)
            if p < 0 or street < FIRST_STREET or street > LAST_STREET:
                return -1
        elif k == K_CARD and card < 0:
            card, p = _card(buf, p, e)
        elif k == K_ROW and row < 0:
            s, t, p = read_string(buf, p, e)
            if p < 0:
                return -1
            row = find_word(buf, s, t, ROW_WORDS, ROW_LOOKUP)
            if row < 0:
                return -1
        else:
            return -1
        p, closed = next_member(buf, p, e)
        if p < 0:
            return -1
    if street < 0 or card < 0 or row < 0:
        return -1
    pl[b, n, 0] = street
    pl[b, n, 1] = card
    pl[b, n, 2] = row
    return p


@njit(cache=True, nogil=True)
def _scan_placements(buf: np.ndarray, p: int, e: int, pl: np.ndarray, b: int) -> tuple[int, int]:
    """A placements list into ``pl[b]``: (count, next) or next = -1; null gives count -1."""
    items, p = open_list(buf, p, e)
    if items <= 0:
        return items, p
    n = 0
    while True:
        if n >= MAX_DEALT or p >= e or buf[p] != 123:
            return 0, -1
        q = _compact_placement(buf, p, e, pl, b, n)  # the layout json.dumps writes, matched byte for byte
        if q < 0:
            q = _placement(buf, p, e, pl, b, n)
            if q < 0:
                return 0, -1
        n += 1
        done, p = next_item(buf, q, e, n)
        if done or p < 0:
            return done, p


@njit(cache=True, nogil=True)
def scan_player(
    buf: np.ndarray,
    p: int,
    e: int,
    b: int,
    bspan: np.ndarray,
    bint: np.ndarray,
    bcards: np.ndarray,
    pl: np.ndarray,
) -> int:
    """One player object into board slot ``b``; the next position, or -1 to leave the line."""
    if p >= e or buf[p] != 123:
        return -1
    p = skip_ws(buf, p + 1, e)
    seen = 0
    rows = 0
    bint[b, B_SEAT] = -1
    bint[b, B_FL] = 0
    bint[b, B_FL_CARDS] = 0
    bint[b, B_DISCARDS] = 0
    bint[b, B_PLACEMENTS] = 0
    bint[b, B_HAS_PLACEMENTS] = 0
    bint[b, B_POINTS_OK] = 0
    bint[b, B_STACK_OK] = 0
    bspan[b, 0] = -1
    if p < e and buf[p] == 125:
        return -1
    closed = False
    while not closed:
        k, p = read_key(buf, p, e, PLAYER_KEY_WORDS, PLAYER_KEY_LOOKUP)
        if p < 0 or k < 0 or seen & (1 << k):
            return -1
        seen |= 1 << k
        if k == K_NAME:
            s, t, p = read_string(buf, p, e)
            if p < 0 or t == s:
                return -1
            bspan[b, 0] = s
            bspan[b, 1] = t
        elif k == K_SEAT or k == K_FANTASYLAND_CARDS or k == K_POINTS or k == K_STACK:  # noqa: SIM109 - compiled code: integer compares
            q = read_literal(buf, p, e, NULL)
            if q >= 0:
                p = q
            else:
                v, p = read_int(buf, p, e)
                if p < 0:
                    return -1
                if k == K_SEAT:
                    if v < 0 or v > MAX_SEAT:
                        return -1
                    bint[b, B_SEAT] = v
                elif k == K_FANTASYLAND_CARDS:
                    if v < _FL_FEWEST or v > _FL_MOST:
                        return -1
                    bint[b, B_FL_CARDS] = v
                elif k == K_POINTS:
                    if v < -POINTS_MAX or v > POINTS_MAX:
                        return -1
                    bint[b, B_POINTS] = v
                    bint[b, B_POINTS_OK] = 1
                else:
                    if v < STACK_MIN or v > STACK_MAX:
                        return -1
                    bint[b, B_STACK] = v
                    bint[b, B_STACK_OK] = 1
        elif ROW_OF_KEY[k] >= 0:  # top, middle, bottom
            r = ROW_OF_KEY[k]
            width = _ROW_SIZES[r]
            n, p = _cards(buf, p, e, bcards, b, _ROW_STARTS[r], width)
            if p < 0 or n != width:
                return -1
            rows |= 1 << r
        elif k == K_FANTASYLAND:
            v, p = read_bool(buf, p, e)
            bint[b, B_FL] = v
        elif k == K_SURRENDERED:  # only a plain false is taken
            v, p = read_bool(buf, p, e)
            if v:
                return -1
        elif k == K_NATURAL:  # only null is taken
            p = read_literal(buf, p, e, NULL)
        elif k == K_DISCARDS:
            n, p = _cards(buf, p, e, bcards, b, BOARD, MAX_DISCARDS)
            bint[b, B_DISCARDS] = max(n, 0)
        elif k == K_PLACEMENTS:
            n, p = _scan_placements(buf, p, e, pl, b)
            if p >= 0 and n == 0:
                return -1
            bint[b, B_PLACEMENTS] = max(n, 0)
            bint[b, B_HAS_PLACEMENTS] = n > 0
        else:  # a field the scanner does not read (LEFT)
            return -1
        p, closed = next_member(buf, p, e)
        if p < 0:
            return -1
    if bspan[b, 0] < 0 or rows != _ALL_ROWS:
        return -1
    return p
