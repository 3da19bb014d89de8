"""JSON read straight from its bytes, for the compiled JSONL scanner: each step takes a position and returns the next.

A general parser builds values the scanner would throw away; these steps only say where a value is and whether
it is in the form the scanner takes, so that a line is read in one pass with nothing allocated. A step that
meets anything else returns -1 and the line is left to the general path. Words (keys, the names of values) are
found by one table read (:func:`word_table`), and fixed bytes are compared eight at a time as the integers
:func:`~pipeline.raw_pointers.load8` reads (:func:`word8`).

The steps see the bytes as a raw pointer (:mod:`pipeline.raw_pointers`): passed as an array to the dozens of
small parsing steps of every line, the reference counts took over half of the scan.
"""

from __future__ import annotations

import numpy as np
from numba import njit


def word_table(words: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """Words as one byte array and offsets, followed by an index by length and first and last byte.

    Every word list of the scanner is told apart by those, so a lookup (:func:`find_word`) is one table read and
    one comparison instead of a search.
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


def word8(text: bytes, at: int = 0) -> np.uint64:
    """Bytes ``text[at:at + 8]`` as :func:`~pipeline.raw_pointers.load8` reads them (zero-padded)."""
    return np.frombuffer(text[at : at + 8].ljust(8, b"\0"), dtype=np.uint64)[0]


def mask8(size: int) -> np.uint64:
    """The bits of the first ``size`` bytes of a word, in native order."""
    return word8(b"\xff" * size)


def stretch(text: str) -> tuple[np.uint64, np.uint64, int]:
    """Fixed bytes, 9 to 16 of them, as two words that cover them (the first eight bytes, the last eight)."""
    raw = text.encode()
    assert 8 < len(raw) <= 16, text
    return word8(raw), word8(raw, len(raw) - 8), len(raw)


_TRUE = np.frombuffer(b"true", dtype=np.uint8).copy()
_FALSE = np.frombuffer(b"false", dtype=np.uint8).copy()
NULL = np.frombuffer(b"null", dtype=np.uint8).copy()


@njit(cache=True, nogil=True, inline="always")
def skip_ws(buf: np.ndarray, p: int, e: int) -> int:
    while p < e and (buf[p] == 32 or buf[p] == 9 or buf[p] == 10 or buf[p] == 13):
        p += 1
    return p


@njit(cache=True, nogil=True, inline="always")
def read_string(buf: np.ndarray, p: int, e: int) -> tuple[int, int, int]:
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
def read_int(buf: np.ndarray, p: int, e: int) -> tuple[int, int]:
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
def read_literal(buf: np.ndarray, p: int, e: int, lit: np.ndarray) -> int:
    if p + lit.size > e:
        return -1
    for k in range(lit.size):
        if buf[p + k] != lit[k]:
            return -1
    return p + lit.size


@njit(cache=True, nogil=True, inline="always")
def find_word(buf: np.ndarray, s: int, t: int, words: np.ndarray, offsets: np.ndarray) -> int:
    """Index of the bytes ``buf[s:t]`` among ``words`` (see :func:`word_table`), or -1."""
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
def read_key(buf: np.ndarray, p: int, e: int, words: np.ndarray, offsets: np.ndarray) -> tuple[int, int]:
    """An object key and its colon: (index among ``words`` or -1, position of the value) or -1."""
    s, t, p = read_string(buf, p, e)
    if p < 0:
        return -1, -1
    k = find_word(buf, s, t, words, offsets)
    p = skip_ws(buf, p, e)
    if p >= e or buf[p] != 58:
        return -1, -1
    return k, skip_ws(buf, p + 1, e)


@njit(cache=True, nogil=True, inline="always")
def after_item(buf: np.ndarray, p: int, e: int, close: int) -> tuple[int, bool]:
    """After a value in an array or object: (next position, closed) or -1 when neither ',' nor the close."""
    p = skip_ws(buf, p, e)
    if p < e and buf[p] == 44:
        return skip_ws(buf, p + 1, e), False
    if p < e and buf[p] == close:
        return p + 1, True
    return -1, False


@njit(cache=True, nogil=True, inline="always")
def next_member(buf: np.ndarray, p: int, e: int) -> tuple[int, bool]:
    """After a member of an object, whose value ends at ``p`` (-1 when the value could not be read): (the next
    key, False), (after the object, True), or -1 when neither follows."""
    if p < 0:
        return -1, False
    return after_item(buf, p, e, 125)


@njit(cache=True, nogil=True, inline="always")
def next_item(buf: np.ndarray, p: int, e: int, n: int) -> tuple[int, int]:
    """After the ``n``-th item of a list, which ends at ``p``: (0, the next item) when another follows, (n, after
    the list) when the list ends there, (0, -1) when neither does."""
    p, closed = after_item(buf, p, e, 93)
    return (n if closed else 0), p


@njit(cache=True, nogil=True, inline="always")
def read_bool(buf: np.ndarray, p: int, e: int) -> tuple[int, int]:
    """true / false / null as 1 / 0 / 0: (value, next) or next = -1."""
    q = read_literal(buf, p, e, _TRUE)
    if q >= 0:
        return 1, q
    q = read_literal(buf, p, e, _FALSE)
    if q >= 0:
        return 0, q
    return 0, read_literal(buf, p, e, NULL)


@njit(cache=True, nogil=True, inline="always")
def open_list(buf: np.ndarray, p: int, e: int) -> tuple[int, int]:
    """The start of a JSON list at ``p``: (1, first item) when it has items, (0, next) when empty, (-1, next)
    for null, (0, -1) for anything else."""
    q = read_literal(buf, p, e, NULL)
    if q >= 0:
        return -1, q
    if p >= e or buf[p] != 91:
        return 0, -1
    p = skip_ws(buf, p + 1, e)
    if p < e and buf[p] == 93:
        return 0, p + 1
    return 1, p
