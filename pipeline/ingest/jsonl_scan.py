"""A compiled scanner that takes the common case of canonical JSONL without a general JSON parser.

Each line is parsed and checked in one compiled pass over its bytes. A line is *taken* only when it is
exactly the common case: one JSON object with the canonical field names, strings without escapes,
two-letter cards, rows of 3 / 5 / 5, no surrender or natural, and every check of
:mod:`pipeline.ingest.validate` passing. Anything else (a bad card, an escaped name, a misset board, a
record that would be quarantined) is *left* for the general path: Arrow's reader, then the validator,
which names the precise reason. The scanner never rejects a record, it only takes or leaves it, so what
becomes of a record and the lake rows it turns into are the same on either path; the tests compare the
two on valid, invalid and mutated records.

The keys it knows are the fields of the models in :mod:`schemas.hand`, read by name; the limits it checks are
those of :mod:`pipeline.ingest.checks`, the validator's.
"""

from __future__ import annotations

import hashlib
import threading

import numba
import numpy as np
import pyarrow as pa
from numba import njit, prange
from numba.extending import is_jitted

from ofc.pipeline.cards import NO_CARD, RANK_BYTE, SUIT_BYTE
from ofc.pipeline.game import BOARD, MAX_SEAT, PLACEMENT_ROWS, ROW_ENDS, ROW_SIZES, ROW_STARTS, ROWS
from ofc.pipeline.ingest.checks import (
    CLASSIC,
    DISCARD_ROW,
    FANTASYLAND_DEALT,
    FANTASYLAND_MASK,
    FIRST_STREET,
    LAST_STREET,
    MAX_DEALT,
    MAX_DISCARDS,
    MAX_PLAYERS,
    MAX_PLAYERS_OF,
    MIN_PLAYERS,
    NORMAL_DISCARDS,
    POINTS_MAX,
    ROW_OF_PLACE,
    STACK_MAX,
    STACK_MIN,
    STREET_DISCARDED,
    STREET_PLACED,
    VARIANT_NAMES,
)
from ofc.pipeline.ingest.columns import TEXT_FIELDS, BoardColumns, HandColumns, PlacementColumns, Scanned
from ofc.pipeline.ingest.times import iso_time, to_utc
from ofc.pipeline.raw_pointers import address, load8
from ofc.schemas.hand import HandRecord, Placement, PlayerRecord


def _words(words: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """Words as one byte array and offsets, followed by an index by length and first and last byte.

    Every word list here is told apart by those, so a lookup is one table read and one comparison
    instead of a search.
    """
    encoded = [w.encode() for w in words]
    data = np.frombuffer(b"".join(encoded), dtype=np.uint8).copy()
    offsets = np.cumsum([0, *map(len, encoded)]).astype(np.int64)
    index = np.full((64, 256), -1, dtype=np.int64)
    for i, w in enumerate(encoded):
        slot = (w[0] * 31 + w[-1]) & 255
        assert index[len(w), slot] < 0, "the words of a list must differ in length, first or last byte"
        index[len(w), slot] = i
    return data, np.concatenate([offsets, index.ravel()])


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
_TEXT_SLOT = np.array([TEXT_FIELDS.index(k) if k in TEXT_FIELDS else -1 for k in HAND_KEYS], dtype=np.int64)
"""Each hand key's place among TEXT_FIELDS, -1 for a key not text."""
_HAND_ID_SLOT = TEXT_FIELDS.index("hand_id")
_ROW_OF_KEY = np.array([ROWS.index(k) if k in ROWS else -1 for k in PLAYER_KEYS], dtype=np.int64)
"""Each player key's place among ROWS (the rows are keys of their own), -1 for a key not a row."""
assert max(len(HAND_KEYS), len(PLAYER_KEYS), len(PLACEMENT_KEYS)) < 63, "the keys seen are bits of one integer"

_HK, _HKO = _words(list(HAND_KEYS))
_PK, _PKO = _words(list(PLAYER_KEYS))
_LK, _LKO = _words(list(PLACEMENT_KEYS))
_VK, _VKO = _words(list(VARIANT_NAMES))
_RK, _RKO = _words(list(PLACEMENT_ROWS))
_TRUE = np.frombuffer(b"true", dtype=np.uint8).copy()
_FALSE = np.frombuffer(b"false", dtype=np.uint8).copy()
_NULL = np.frombuffer(b"null", dtype=np.uint8).copy()

# The limits of :mod:`pipeline.ingest.checks`, as the compiled code reads them (numba freezes a global when it
# compiles). A line outside any of them is left to the general path, which names the reason.
_FL_FEWEST, _FL_MOST = FANTASYLAND_DEALT[0], FANTASYLAND_DEALT[-1]
_TOP_END, _MIDDLE_END = ROW_ENDS[0], ROW_ENDS[1]
_ROW_SIZES = np.array(ROW_SIZES, dtype=np.int64)
_ROW_STARTS = np.array(ROW_STARTS, dtype=np.int64)
_ALL_ROWS = (1 << len(ROWS)) - 1
_STREET_BITS = 5
"""A board's cards placed (and discarded) on each street are counted in 5 bits a street of one integer."""
_STREET_COUNT = (1 << _STREET_BITS) - 1
assert MAX_DEALT <= _STREET_COUNT
assert _STREET_BITS * (LAST_STREET + 1) < 63


def _by_street(counts: np.ndarray) -> np.ndarray:
    """Per variant, its cards placed (or discarded) on each street as counters of _STREET_BITS bits."""
    return np.array([sum(int(c) << _STREET_BITS * s for s, c in enumerate(row)) for row in counts], dtype=np.int64)


_PLACED = _by_street(STREET_PLACED)
_DROPPED = _by_street(STREET_DISCARDED)
_FANTASYLAND_PLACED = BOARD << _STREET_BITS * FIRST_STREET
"""A Fantasyland board places a whole board on the first street (and discards the rest there)."""

# Column indices of the per-hand and per-board integer outputs.
H_VARIANT, H_PLAYERS, H_PLAYED, H_PLAYED_OK, H_NUMBER, H_NUMBER_OK, H_BUTTON, H_BUTTON_OK, H_PLAYED_NAIVE = range(9)
B_SEAT, B_FL, B_FL_CARDS, B_DISCARDS, B_PLACEMENTS, B_HAS_PLACEMENTS, B_POINTS, B_POINTS_OK, B_STACK, B_STACK_OK = (
    range(10)
)


# ---------------------------------------------------------------- JSON primitives (position in, position out)

# The scanner's functions see the bytes as a raw pointer (:mod:`pipeline.raw_pointers`): passed as an
# array to the dozens of small parsing steps of every line, the reference counts took over half of the scan.


@njit(cache=True, nogil=True, inline="always")
def _ws(buf: np.ndarray, p: int, e: int) -> int:
    while p < e and (buf[p] == 32 or buf[p] == 9 or buf[p] == 10 or buf[p] == 13):
        p += 1
    return p


@njit(cache=True, nogil=True, inline="always")
def _string(buf: np.ndarray, p: int, e: int) -> tuple[int, int, int]:
    """A string without escapes or control characters, in valid UTF-8: (start, end, next) or next = -1."""
    if p >= e or buf[p] != 34:
        return 0, 0, -1
    p += 1
    start = p
    while p < e:
        c = buf[p]
        if c == 34:
            return start, p, p + 1
        if c == 92 or c < 32:
            return 0, 0, -1
        if c < 128:
            p += 1
            continue
        # UTF-8: the well-formed sequences of Unicode's table 3-7, nothing else.
        if 0xC2 <= c <= 0xDF:
            n, lo, hi = 1, 0x80, 0xBF
        elif c == 0xE0:
            n, lo, hi = 2, 0xA0, 0xBF
        elif 0xE1 <= c <= 0xEC or c == 0xEE or c == 0xEF:
            n, lo, hi = 2, 0x80, 0xBF
        elif c == 0xED:
            n, lo, hi = 2, 0x80, 0x9F
        elif c == 0xF0:
            n, lo, hi = 3, 0x90, 0xBF
        elif 0xF1 <= c <= 0xF3:
            n, lo, hi = 3, 0x80, 0xBF
        elif c == 0xF4:
            n, lo, hi = 3, 0x80, 0x8F
        else:
            return 0, 0, -1
        if p + n >= e or not (lo <= buf[p + 1] <= hi):
            return 0, 0, -1
        for k in range(2, n + 1):
            if not (0x80 <= buf[p + k] <= 0xBF):
                return 0, 0, -1
        p += n + 1
    return 0, 0, -1


@njit(cache=True, nogil=True, inline="always")
def _int(buf: np.ndarray, p: int, e: int) -> tuple[int, int]:
    """A JSON integer of at most 18 digits: (value, next) or next = -1 (fractions and exponents are left)."""
    neg = False
    if p < e and buf[p] == 45:
        neg = True
        p += 1
    start = p
    v = 0
    while p < e and 48 <= buf[p] <= 57:
        v = v * 10 + (buf[p] - 48)
        p += 1
    digits = p - start
    if digits == 0 or digits > 18 or (digits > 1 and buf[start] == 48):
        return 0, -1
    if p < e and (buf[p] == 46 or buf[p] == 101 or buf[p] == 69):
        return 0, -1
    return (-v if neg else v), p


@njit(cache=True, nogil=True, inline="always")
def _literal(buf: np.ndarray, p: int, e: int, lit: np.ndarray) -> int:
    if p + lit.size > e:
        return -1
    for k in range(lit.size):
        if buf[p + k] != lit[k]:
            return -1
    return p + lit.size


@njit(cache=True, nogil=True, inline="always")
def _word(buf: np.ndarray, s: int, t: int, words: np.ndarray, offsets: np.ndarray) -> int:
    """Index of the bytes ``buf[s:t]`` among ``words`` (see :func:`_words`), or -1."""
    n = t - s
    if n <= 0 or n >= 64:
        return -1
    index = offsets.size - 64 * 256  # offsets of the words, then the index
    w = offsets[index + n * 256 + ((np.int64(buf[s]) * 31 + buf[t - 1]) & 255)]
    if w < 0:
        return -1
    a = offsets[w]
    for k in range(n):
        if buf[s + k] != words[a + k]:
            return -1
    return w


@njit(cache=True, nogil=True, inline="always")
def _key(buf: np.ndarray, p: int, e: int, words: np.ndarray, offsets: np.ndarray) -> tuple[int, int]:
    """An object key and its colon: (index among ``words`` or -1, position of the value) or -1."""
    s, t, p = _string(buf, p, e)
    if p < 0:
        return -1, -1
    k = _word(buf, s, t, words, offsets)
    p = _ws(buf, p, e)
    if p >= e or buf[p] != 58:
        return -1, -1
    return k, _ws(buf, p + 1, e)


@njit(cache=True, nogil=True, inline="always")
def _after_item(buf: np.ndarray, p: int, e: int, close: int) -> tuple[int, bool]:
    """After a value in an array or object: (next position, closed) or -1 when neither ',' nor the close."""
    p = _ws(buf, p, e)
    if p < e and buf[p] == 44:
        return _ws(buf, p + 1, e), False
    if p < e and buf[p] == close:
        return p + 1, True
    return -1, False


@njit(cache=True, nogil=True, inline="always")
def _bool(buf: np.ndarray, p: int, e: int) -> tuple[int, int]:
    """true / false / null as 1 / 0 / 0: (value, next) or next = -1."""
    q = _literal(buf, p, e, _TRUE)
    if q >= 0:
        return 1, q
    q = _literal(buf, p, e, _FALSE)
    if q >= 0:
        return 0, q
    return 0, _literal(buf, p, e, _NULL)


@njit(cache=True, nogil=True, inline="always")
def _card(buf: np.ndarray, p: int, e: int) -> tuple[int, int]:
    """A two-letter card string: (code, next) or next = -1."""
    s, t, q = _string(buf, p, e)
    if q < 0 or t - s != 2:
        return 0, -1
    r = RANK_BYTE[buf[s]]
    u = SUIT_BYTE[buf[s + 1]]
    if r == NO_CARD or u == NO_CARD:
        return 0, -1
    return r * 4 + u, q


@njit(cache=True, nogil=True, inline="always")
def _open_list(buf: np.ndarray, p: int, e: int) -> tuple[int, int]:
    """The start of a JSON list at ``p``: (1, first item) when it has items, (0, next) when empty, (-1, next)
    for null, (0, -1) for anything else."""
    q = _literal(buf, p, e, _NULL)
    if q >= 0:
        return -1, q
    if p >= e or buf[p] != 91:
        return 0, -1
    p = _ws(buf, p + 1, e)
    if p < e and buf[p] == 93:
        return 0, p + 1
    return 1, p


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
    items, p = _open_list(buf, p, e)
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
        p, closed = _after_item(buf, p, e, 93)
        if p < 0:
            return 0, -1
        if closed:
            return n, p


# ---------------------------------------------------------------- one line


def _word8(text: bytes, at: int = 0) -> np.uint64:
    """Bytes ``text[at:at + 8]`` as :func:`~pipeline.raw_pointers.load8` reads them (zero-padded)."""
    return np.frombuffer(text[at : at + 8].ljust(8, b"\0"), dtype=np.uint64)[0]


def _mask8(size: int) -> np.uint64:
    """The bits of the first ``size`` bytes of a word, in native order."""
    return _word8(b"\xff" * size)


def _stretch(text: str) -> tuple[np.uint64, np.uint64, int]:
    """Fixed bytes, 9 to 16 of them, as two words that cover them (the first eight bytes, the last eight)."""
    raw = text.encode()
    assert 8 < len(raw) <= 16, text
    return _word8(raw), _word8(raw, len(raw) - 8), len(raw)


# ``{"street": 2, "card": "Kc", "row": "middle"}`` exactly as json.dumps writes a placement, keys in this order:
# its fixed bytes compared in words of 8 bytes. The street digit is at 11, the card at 23, the row name at 36.
_PL_A, _PL_B, _PL_STREET_AT = _stretch(f'{{"{PLACEMENT_KEYS[K_STREET]}": ')
_PL_C, _PL_D, _PL_CARD_OPEN = _stretch(f', "{PLACEMENT_KEYS[K_CARD]}": "')
_PL_E, _PL_F, _PL_ROW_OPEN = _stretch(f'", "{PLACEMENT_KEYS[K_ROW]}": "')
_PL_CARD_AT = _PL_STREET_AT + 1 + _PL_CARD_OPEN
_PL_ROW_AT = _PL_CARD_AT + 2 + _PL_ROW_OPEN
_PL_ROW_TEXT = [f'{row}"}}'.encode() for row in PLACEMENT_ROWS]
"""Each row name with the closing bytes after it (``middle"}``), up to 16 bytes."""
assert max(map(len, _PL_ROW_TEXT)) <= 16
_PL_ROWS = np.array([_word8(t) for t in _PL_ROW_TEXT], dtype=np.uint64)
_PL_ROW_MASKS = np.array([_mask8(min(len(t), 8)) for t in _PL_ROW_TEXT], dtype=np.uint64)
_PL_ROW_TAILS = np.array([_word8(t, len(t) - 8) if len(t) > 8 else 0 for t in _PL_ROW_TEXT], dtype=np.uint64)
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


@njit(cache=True, nogil=True)
def _scan_placements(buf: np.ndarray, p: int, e: int, pl: np.ndarray, b: int) -> tuple[int, int]:
    """A placements list into ``pl[b]``: (count, next) or next = -1; null gives count -1."""
    items, p = _open_list(buf, p, e)
    if items <= 0:
        return items, p
    n = 0
    while True:
        if n >= MAX_DEALT or p >= e or buf[p] != 123:
            return 0, -1
        q = _compact_placement(buf, p, e, pl, b, n)
        if q >= 0:  # the layout json.dumps writes, matched byte for byte
            n += 1
            p, closed = _after_item(buf, q, e, 93)
            if p < 0:
                return 0, -1
            if closed:
                return n, p
            continue
        p = _ws(buf, p + 1, e)
        street, card, row = -1, -1, -1
        while True:
            k, p = _key(buf, p, e, _LK, _LKO)
            if p < 0 or k < 0:
                return 0, -1
            if k == K_STREET and street < 0:
                street, p = _int(buf, p, e)
                if p < 0 or street < FIRST_STREET or street > LAST_STREET:
                    return 0, -1
            elif k == K_CARD and card < 0:
                card, p = _card(buf, p, e)
            elif k == K_ROW and row < 0:
                s, t, p = _string(buf, p, e)
                if p < 0:
                    return 0, -1
                row = _word(buf, s, t, _RK, _RKO)
                if row < 0:
                    return 0, -1
            else:
                return 0, -1
            if p < 0:
                return 0, -1
            p, closed = _after_item(buf, p, e, 125)
            if p < 0:
                return 0, -1
            if closed:
                break
        if street < 0 or card < 0 or row < 0:
            return 0, -1
        pl[b, n, 0] = street
        pl[b, n, 1] = card
        pl[b, n, 2] = row
        n += 1
        p, closed = _after_item(buf, p, e, 93)
        if p < 0:
            return 0, -1
        if closed:
            return n, p


@njit(cache=True, nogil=True)
def _scan_player(
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
    p = _ws(buf, p + 1, e)
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
    while True:
        k, p = _key(buf, p, e, _PK, _PKO)
        if p < 0 or k < 0 or seen & (1 << k):
            return -1
        seen |= 1 << k
        if k == K_NAME:
            s, t, p = _string(buf, p, e)
            if p < 0 or t == s:
                return -1
            bspan[b, 0] = s
            bspan[b, 1] = t
        elif k == K_SEAT or k == K_FANTASYLAND_CARDS or k == K_POINTS or k == K_STACK:  # noqa: SIM109 - compiled code: integer compares
            q = _literal(buf, p, e, _NULL)
            if q >= 0:
                p = q
            else:
                v, p = _int(buf, p, e)
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
        elif _ROW_OF_KEY[k] >= 0:  # top, middle, bottom
            r = _ROW_OF_KEY[k]
            width = _ROW_SIZES[r]
            n, p = _cards(buf, p, e, bcards, b, _ROW_STARTS[r], width)
            if p < 0 or n != width:
                return -1
            rows |= 1 << r
        elif k == K_FANTASYLAND:
            v, p = _bool(buf, p, e)
            bint[b, B_FL] = v
        elif k == K_SURRENDERED:  # only a plain false is taken
            v, p = _bool(buf, p, e)
            if v:
                return -1
        elif k == K_NATURAL:  # only null is taken
            p = _literal(buf, p, e, _NULL)
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
        if p < 0:
            return -1
        p, closed = _after_item(buf, p, e, 125)
        if p < 0:
            return -1
        if closed:
            break
    if bspan[b, 0] < 0 or rows != _ALL_ROWS:
        return -1
    return p


@njit(cache=True, nogil=True)
def _same_bytes(buf: np.ndarray, a0: int, a1: int, b0: int, b1: int) -> bool:
    if a1 - a0 != b1 - b0:
        return False
    for k in range(a1 - a0):  # noqa: SIM110 - compiled code, no generators
        if buf[a0 + k] != buf[b0 + k]:
            return False
    return True


@njit(cache=True, nogil=True)
def _check_hand(
    buf: np.ndarray,
    i: int,
    hint: np.ndarray,
    bspan: np.ndarray,
    bint: np.ndarray,
    bcards: np.ndarray,
    pl: np.ndarray,
) -> bool:
    """Every check of the validator, on one scanned hand: whether it passes them all."""
    variant = hint[i, H_VARIANT]
    n = hint[i, H_PLAYERS]
    classic = variant == CLASSIC
    if n < MIN_PLAYERS or n > MAX_PLAYERS_OF[variant]:
        return False
    hand_mask = np.uint64(0)
    hand_count = 0
    seats = 0
    scored = 0
    total = 0
    for j in range(n):
        b = i * MAX_PLAYERS + j
        if bint[b, B_POINTS_OK]:
            scored += 1
            total += bint[b, B_POINTS]
        seat = bint[b, B_SEAT]
        if seat < 0:
            seat = j
            bint[b, B_SEAT] = j
        if seats & (1 << seat):
            return False
        seats |= 1 << seat
        for j2 in range(j):
            b2 = i * MAX_PLAYERS + j2
            if _same_bytes(buf, bspan[b, 0], bspan[b, 1], bspan[b2, 0], bspan[b2, 1]):
                return False
        fl = bint[b, B_FL] == 1
        flc = bint[b, B_FL_CARDS]
        if fl and classic:
            return False
        if flc > 0 and not fl:
            return False
        if flc > 0 and not (FANTASYLAND_MASK[variant] >> flc) & 1:
            return False
        nd = bint[b, B_DISCARDS]
        expected = (flc - BOARD if flc > 0 else -1) if fl else NORMAL_DISCARDS[variant]
        if nd > 0 and expected >= 0 and nd != expected:
            return False
        # The board's cards, row by row (top, middle, bottom, discards), as 52-bit masks.
        f0 = f1 = f2 = f3 = np.uint64(0)
        for c in range(BOARD + nd):
            bit = np.uint64(1) << np.uint64(bcards[b, c])
            if c < _TOP_END:
                f0 |= bit
            elif c < _MIDDLE_END:
                f1 |= bit
            elif c < BOARD:
                f2 |= bit
            else:
                f3 |= bit
        hand_mask |= f0 | f1 | f2 | f3
        hand_count += BOARD + nd
        if bint[b, B_HAS_PLACEMENTS]:
            # Placed cards per row must be the final rows exactly; cards placed and discarded per street
            # (5-bit counters packed per street) must follow the variant's deal.
            p0 = p1 = p2 = p3 = np.uint64(0)
            placed = np.int64(0)
            dropped = np.int64(0)
            for q in range(bint[b, B_PLACEMENTS]):
                street = np.int64(pl[b, q, 0])
                row = pl[b, q, 2]
                if street > LAST_STREET:
                    return False
                bit = np.uint64(1) << np.uint64(pl[b, q, 1])
                if row == 0:
                    if p0 & bit:
                        return False
                    p0 |= bit
                elif row == 1:
                    if p1 & bit:
                        return False
                    p1 |= bit
                elif row == 2:
                    if p2 & bit:
                        return False
                    p2 |= bit
                else:
                    if p3 & bit:
                        return False
                    p3 |= bit
                if row == DISCARD_ROW:
                    dropped += np.int64(1) << (_STREET_BITS * street)
                else:
                    placed += np.int64(1) << (_STREET_BITS * street)
            if p0 != f0 or p1 != f1 or p2 != f2 or p3 != f3:
                return False
            if fl:
                first = _STREET_BITS * FIRST_STREET
                want_p = np.int64(_FANTASYLAND_PLACED)
                # The cards dealt, when recorded; otherwise the first street's discards as placed.
                want_d = (np.int64(flc - BOARD) << first) if flc > 0 else dropped & (np.int64(_STREET_COUNT) << first)
            else:
                want_p, want_d = _PLACED[variant], _DROPPED[variant]
            if placed != want_p or dropped != want_d:
                return False
    # Recorded points: every player's or none, summing to zero.
    if (scored > 0 and scored < n) or (scored == n and total != 0):
        return False
    # No card twice in the hand, across rows and discards.
    bits = 0
    m = hand_mask
    while m:
        m &= m - np.uint64(1)
        bits += 1
    return bits == hand_count


@njit(cache=True, nogil=True)
def _scan_line(
    buf: np.ndarray,
    p: int,
    e: int,
    i: int,
    hspan: np.ndarray,
    hint: np.ndarray,
    bspan: np.ndarray,
    bint: np.ndarray,
    bcards: np.ndarray,
    pl: np.ndarray,
) -> bool:
    p = _ws(buf, p, e)
    if p >= e or buf[p] != 123:
        return False
    p = _ws(buf, p + 1, e)
    for f in range(hspan.shape[1]):
        hspan[i, f, 0] = -1
        hspan[i, f, 1] = -1
    hint[i, H_VARIANT] = -1
    hint[i, H_PLAYERS] = 0
    hint[i, H_PLAYED_OK] = 0
    hint[i, H_PLAYED_NAIVE] = 0
    hint[i, H_NUMBER_OK] = 0
    hint[i, H_BUTTON_OK] = 0
    seen = 0
    while True:
        k, p = _key(buf, p, e, _HK, _HKO)
        if p < 0 or k < 0 or seen & (1 << k):
            return False
        seen |= 1 << k
        if k == K_PLAYERS:
            if p >= e or buf[p] != 91:
                return False
            p = _ws(buf, p + 1, e)
            n = 0
            while True:
                if n >= MAX_PLAYERS:
                    return False
                p = _scan_player(buf, p, e, i * MAX_PLAYERS + n, bspan, bint, bcards, pl)
                if p < 0:
                    return False
                n += 1
                p, closed = _after_item(buf, p, e, 93)
                if p < 0:
                    return False
                if closed:
                    break
            hint[i, H_PLAYERS] = n
        elif k == K_HAND_NUMBER or k == K_BUTTON:  # noqa: SIM109 - compiled code: integer compares
            q = _literal(buf, p, e, _NULL)
            if q >= 0:
                p = q
            else:
                v, p = _int(buf, p, e)
                if p < 0 or v < 0 or (k == K_BUTTON and v > MAX_SEAT):
                    return False
                col = H_NUMBER if k == K_HAND_NUMBER else H_BUTTON
                hint[i, col] = v
                hint[i, col + 1] = 1
        elif k == K_VARIANT or k == K_PLAYED_AT or _TEXT_SLOT[k] >= 0:  # noqa: SIM109 - compiled code: integer compares
            q = _literal(buf, p, e, _NULL)
            if q >= 0:
                if k == K_HAND_ID or k == K_VARIANT:  # noqa: SIM109 - required
                    return False
                p = q
            else:
                s, t, p = _string(buf, p, e)
                if p < 0:
                    return False
                if k == K_VARIANT:
                    hint[i, H_VARIANT] = _word(buf, s, t, _VK, _VKO)
                    if hint[i, H_VARIANT] < 0:
                        return False
                elif k == K_PLAYED_AT:
                    us, ok, naive = iso_time(buf, s, t)
                    if not ok:
                        return False
                    hint[i, H_PLAYED] = us
                    hint[i, H_PLAYED_OK] = 1
                    hint[i, H_PLAYED_NAIVE] = naive  # a wall-clock time, read in the naive zone after the scan
                else:
                    f = _TEXT_SLOT[k]
                    if k == K_HAND_ID and t == s:
                        return False
                    hspan[i, f, 0] = s
                    hspan[i, f, 1] = t
        else:  # a field the scanner does not read (LEFT)
            return False
        p, closed = _after_item(buf, p, e, 125)
        if p < 0:
            return False
        if closed:
            break
    if _ws(buf, p, e) != e or hspan[i, _HAND_ID_SLOT, 0] < 0 or hint[i, H_VARIANT] < 0 or hint[i, H_PLAYERS] == 0:
        return False
    return _check_hand(buf, i, hint, bspan, bint, bcards, pl)


@njit(cache=True, nogil=True)
def _scan_range(lo: int, hi: int, buf: np.ndarray, starts: np.ndarray, ends: np.ndarray, out: tuple) -> None:
    """Lines ``lo .. hi`` into ``out``: taken, hspan, hint, bspan, bint, bcards, pl (see :func:`scan`)."""
    taken, hspan, hint, bspan, bint, bcards, pl = out
    data = address(buf)
    for i in range(lo, hi):
        taken[i] = _scan_line(data, starts[i], ends[i], i, hspan, hint, bspan, bint, bcards, pl)


@njit(parallel=True, cache=True, nogil=True)
def _scan_lines(bounds: np.ndarray, buf: np.ndarray, starts: np.ndarray, ends: np.ndarray, out: tuple) -> None:
    """One range of lines a thread, each scanned by compiled serial code.

    A ``prange`` over the lines themselves would scale not at all: the loop body compiled for the
    parallel region runs no faster on two threads than on one.
    """
    for t in prange(bounds.size - 1):
        _scan_range(bounds[t], bounds[t + 1], buf, starts, ends, out)


PARALLEL_LINES = 512
"""Fewer lines are scanned on one thread: starting the thread pool would cost more than it saves."""


_NEWLINES = _word8(b"\n" * 8)
_LOW7 = _word8(b"\x7f" * 8)


@njit(cache=True, nogil=True)
def _newline_positions(data: np.ndarray, out: np.ndarray) -> int:
    """Positions of the newlines of ``data`` into ``out`` while it has room; returns how many there are.

    Eight bytes a step, the word skipped whole unless one of its bytes is a newline: lines are long, so
    nearly every word is skipped. Far cheaper than comparing every byte into a temporary array.
    """
    buf = address(data)
    n = data.size
    room = out.size
    found = 0
    p = 0
    while p + 8 <= n:
        x = load8(buf, p) ^ _NEWLINES
        # The high bit of a byte is set where x has a zero byte, where the byte was a newline (exactly).
        if ~(((x & _LOW7) + _LOW7) | x | _LOW7) != 0:
            for k in range(8):
                if buf[p + k] == 10:
                    if found < room:
                        out[found] = p + k
                    found += 1
        p += 8
    while p < n:
        if buf[p] == 10:
            if found < room:
                out[found] = p
            found += 1
        p += 1
    return found


def newlines(data: np.ndarray) -> np.ndarray:
    """Positions of the newline bytes of ``data`` (``uint8``), ascending."""
    out = np.empty(data.size // 256 + 64, dtype=np.int64)
    found = _newline_positions(data, out)
    if found > out.size:  # short lines: once more, with room for all of them
        out = np.empty(found, dtype=np.int64)
        _newline_positions(data, out)
    return out[:found]


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


# ---------------------------------------------------------------- compiled with the constants of today


def _constants_digest() -> int:
    """A digest of every constant the kernels here may read: this module's globals, many of them from others
    (but those of this check itself)."""
    digest = hashlib.sha256()
    for name, value in sorted(globals().items()):
        if name.startswith(("__", "_compiled")):
            continue
        if isinstance(value, np.ndarray):
            digest.update(f"{name}:{value.dtype.str}{value.shape}:".encode() + value.tobytes())
        elif isinstance(value, int | np.integer | str | tuple):
            digest.update(f"{name}={value!r};".encode())
    return int.from_bytes(digest.digest()[:7], "little")


_compiled_digest = _constants_digest()


@njit(cache=True, nogil=True)
def _compiled_constants() -> int:
    return _compiled_digest


_compiled_checked = False
_compiled_lock = threading.Lock()


def _compiled_current() -> None:
    """Make sure the kernels here are compiled with today's constants.

    Numba freezes a global's value when it compiles a kernel, and renews its cache when the kernel's own file
    changes, not when a value the file takes from another module does: the record's layout
    (:mod:`schemas.hand`), the checks (:mod:`pipeline.ingest.checks`), the game's facts (:mod:`pipeline.game`).
    When the cached kernels were compiled with other values, all of them are compiled again.
    """
    global _compiled_checked
    if _compiled_checked:
        return
    with _compiled_lock:
        if not _compiled_checked and _compiled_constants() != _compiled_digest:
            for f in list(globals().values()):
                if is_jitted(f) and f.py_func.__module__ == __name__:
                    f.recompile()
        _compiled_checked = True


def scan(buf: np.ndarray, starts: np.ndarray, ends: np.ndarray, lines: np.ndarray) -> Scanned:
    """Scan the lines ``buf[starts[i]:ends[i]]`` (source line numbers ``lines``): the taken ones as columns."""
    _compiled_current()
    n = starts.size
    taken = np.zeros(n, dtype=np.bool_)
    hspan = np.empty((n, len(TEXT_FIELDS), 2), dtype=np.int64)
    hint = np.zeros((n, 9), dtype=np.int64)
    slots = n * MAX_PLAYERS
    bspan = np.empty((slots, 2), dtype=np.int64)
    bint = np.zeros((slots, 10), dtype=np.int64)
    bcards = np.zeros((slots, BOARD + MAX_DISCARDS), dtype=np.uint8)
    pl = np.zeros((slots, MAX_DEALT, 3), dtype=np.uint8)
    parts = max(1, min(numba.get_num_threads(), n // PARALLEL_LINES))
    bounds = np.linspace(0, n, parts + 1).astype(np.int64)
    _scan_lines(bounds, buf, starts, ends, (taken, hspan, hint, bspan, bint, bcards, pl))

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
