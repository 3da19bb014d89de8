"""A compiled scanner that takes the common case of canonical JSONL without a general JSON parser.

Each line is parsed and checked in one compiled pass over its bytes. A line is *taken* only when it is
exactly the common case: one JSON object with the canonical field names, strings without escapes,
two-letter cards, rows of 3 / 5 / 5, no surrender or natural, and every check of
:mod:`pipeline.ingest.validate` passing. Anything else (a bad card, an escaped name, a misset board, a
record that would be quarantined) is *left* for the general path: Arrow's reader, then the validator,
which names the precise reason. The scanner never rejects a record, it only takes or leaves it, so what
becomes of a record and the lake rows it turns into are the same on either path; the tests compare the
two on valid, invalid and mutated records.

The keys it knows are the fields of the models in :mod:`schemas.hand`, read by name
(:mod:`pipeline.ingest.jsonl_keys`); the limits it checks are those of :mod:`pipeline.ingest.checks`, the
validator's. A line's hand object and the checks of the whole hand are here, with the lines shared among
threads; the JSON is read by :mod:`pipeline.ingest.jsonl_tokens`, a player's fields by
:mod:`pipeline.ingest.jsonl_fields`, and the hands taken become columns in :mod:`pipeline.ingest.jsonl_columns`.
"""

from __future__ import annotations

import hashlib
import threading
from pathlib import Path

import numba
import numpy as np
from numba import njit, prange
from numba.extending import is_jitted

from ofc.pipeline import raw_pointers
from ofc.pipeline.game import BOARD, MAX_SEAT, ROW_ENDS
from ofc.pipeline.ingest import jsonl_columns, jsonl_fields, jsonl_keys, jsonl_lines, jsonl_tokens, times
from ofc.pipeline.ingest.checks import (
    CLASSIC,
    DISCARD_ROW,
    FANTASYLAND_MASK,
    FIRST_STREET,
    LAST_STREET,
    MAX_DEALT,
    MAX_DISCARDS,
    MAX_PLAYERS,
    MAX_PLAYERS_OF,
    MIN_PLAYERS,
    NORMAL_DISCARDS,
    STREET_DISCARDED,
    STREET_PLACED,
)
from ofc.pipeline.ingest.columns import TEXT_FIELDS, Scanned
from ofc.pipeline.ingest.jsonl_columns import taken_columns
from ofc.pipeline.ingest.jsonl_fields import scan_player
from ofc.pipeline.ingest.jsonl_keys import (
    B_DISCARDS,
    B_FL,
    B_FL_CARDS,
    B_HAS_PLACEMENTS,
    B_PLACEMENTS,
    B_POINTS,
    B_POINTS_OK,
    B_SEAT,
    H_BUTTON,
    H_BUTTON_OK,
    H_NUMBER,
    H_NUMBER_OK,
    H_PLAYED,
    H_PLAYED_NAIVE,
    H_PLAYED_OK,
    H_PLAYERS,
    H_VARIANT,
    HAND_ID_SLOT,
    HAND_KEY_LOOKUP,
    HAND_KEY_WORDS,
    K_BUTTON,
    K_HAND_ID,
    K_HAND_NUMBER,
    K_PLAYED_AT,
    K_PLAYERS,
    K_VARIANT,
    TEXT_SLOT,
    VARIANT_LOOKUP,
    VARIANT_WORDS,
)
from ofc.pipeline.ingest.jsonl_tokens import (
    NULL,
    after_item,
    find_word,
    next_member,
    read_int,
    read_key,
    read_literal,
    read_string,
    skip_ws,
)
from ofc.pipeline.ingest.times import iso_time
from ofc.pipeline.raw_pointers import address

# The limits of :mod:`pipeline.ingest.checks`, as the compiled code reads them (numba freezes a global when it
# compiles). A line outside any of them is left to the general path, which names the reason.
_TOP_END, _MIDDLE_END = ROW_ENDS[0], ROW_ENDS[1]
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
    p = skip_ws(buf, p, e)
    if p >= e or buf[p] != 123:
        return False
    p = skip_ws(buf, p + 1, e)
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
    closed = False
    while not closed:
        k, p = read_key(buf, p, e, HAND_KEY_WORDS, HAND_KEY_LOOKUP)
        if p < 0 or k < 0 or seen & (1 << k):
            return False
        seen |= 1 << k
        if k == K_PLAYERS:
            if p >= e or buf[p] != 91:
                return False
            p = skip_ws(buf, p + 1, e)
            n = 0
            while True:
                if n >= MAX_PLAYERS:
                    return False
                p = scan_player(buf, p, e, i * MAX_PLAYERS + n, bspan, bint, bcards, pl)
                if p < 0:
                    return False
                n += 1
                p, ended = after_item(buf, p, e, 93)
                if p < 0:
                    return False
                if ended:
                    break
            hint[i, H_PLAYERS] = n
        elif k == K_HAND_NUMBER or k == K_BUTTON:  # noqa: SIM109 - compiled code: integer compares
            q = read_literal(buf, p, e, NULL)
            if q >= 0:
                p = q
            else:
                v, p = read_int(buf, p, e)
                if p < 0 or v < 0 or (k == K_BUTTON and v > MAX_SEAT):
                    return False
                col = H_NUMBER if k == K_HAND_NUMBER else H_BUTTON
                hint[i, col] = v
                hint[i, col + 1] = 1
        elif k == K_VARIANT or k == K_PLAYED_AT or TEXT_SLOT[k] >= 0:  # noqa: SIM109 - compiled code: integer compares
            q = read_literal(buf, p, e, NULL)
            if q >= 0:
                if k == K_HAND_ID or k == K_VARIANT:  # noqa: SIM109 - required
                    return False
                p = q
            else:
                s, t, p = read_string(buf, p, e)
                if p < 0:
                    return False
                if k == K_VARIANT:
                    hint[i, H_VARIANT] = find_word(buf, s, t, VARIANT_WORDS, VARIANT_LOOKUP)
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
                    f = TEXT_SLOT[k]
                    if k == K_HAND_ID and t == s:
                        return False
                    hspan[i, f, 0] = s
                    hspan[i, f, 1] = t
        else:  # a field the scanner does not read (LEFT)
            return False
        p, closed = next_member(buf, p, e)
        if p < 0:
            return False
    if skip_ws(buf, p, e) != e or hspan[i, HAND_ID_SLOT, 0] < 0 or hint[i, H_VARIANT] < 0 or hint[i, H_PLAYERS] == 0:
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


# ---------------------------------------------------------------- compiled with the constants and code of today

_compiled_modules = (jsonl_tokens, jsonl_keys, jsonl_fields, jsonl_columns, jsonl_lines, times, raw_pointers)
"""The other modules whose kernels the scanner's inline or call (its own, the times' reader, the raw pointers),
and whose constants they read."""


def _constants(namespace: dict) -> bytes:
    """The constants among a module's globals, as bytes (but those of the check here)."""
    found = []
    for name, value in sorted(namespace.items()):
        if name.startswith(("__", "_compiled")):
            continue
        if isinstance(value, np.ndarray):
            found.append(f"{name}:{value.dtype.str}{value.shape}:".encode() + value.tobytes())
        elif isinstance(value, int | np.integer | str | tuple):
            found.append(f"{name}={value!r};".encode())
    return b"".join(found)


def _constants_digest() -> int:
    """A digest of every constant the scanner's kernels may read, and of the code of its other modules: the
    globals of this module and of those, many of them from others (but those of this check itself), and their
    source."""
    digest = hashlib.sha256()
    for module in _compiled_modules:
        digest.update(Path(module.__file__).read_bytes())
        digest.update(_constants(vars(module)))
    digest.update(_constants(globals()))
    return int.from_bytes(digest.digest()[:7], "little")


_compiled_digest = _constants_digest()


@njit(cache=True, nogil=True)
def _compiled_constants() -> int:
    return _compiled_digest


_compiled_checked = False
_compiled_lock = threading.Lock()


def _from_cache(kernel: object) -> bool:
    """Whether a kernel this process has called was loaded from numba's cache (not compiled here)."""
    return is_jitted(kernel) and any(kernel.stats.cache_hits.values())  # type: ignore[attr-defined]


def _compiled_current() -> None:
    """Make sure the scanner's kernels are compiled with today's constants and code.

    Numba freezes a global's value when it compiles a kernel, and renews its cache when the kernel's own file
    changes, not when a value the file takes from another module does: the record's layout
    (:mod:`schemas.hand`), the checks (:mod:`pipeline.ingest.checks`), the game's facts (:mod:`pipeline.game`);
    nor when code it inlines or calls from another file does (the scanner's other modules). When the cached
    kernels were compiled with other values or other code, all of them are compiled again, but those this process
    compiled itself. So they are when the kernel holding the digest was compiled here: its file changed (or there
    was no cache), and it cannot tell what the cached kernels of the other files were compiled with.
    """
    global _compiled_checked
    if _compiled_checked:
        return
    with _compiled_lock:
        if not _compiled_checked and (
            _compiled_constants() != _compiled_digest or not _from_cache(_compiled_constants)
        ):
            for namespace in (*map(vars, _compiled_modules), globals()):
                for f in list(namespace.values()):
                    if not (is_jitted(f) and f.py_func.__module__ == namespace["__name__"]):
                        continue
                    if _from_cache(f) or not f.overloads:  # not yet called: its cache is emptied
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
    arrays = (taken, hspan, hint, bspan, bint, bcards, pl)
    _scan_lines(bounds, buf, starts, ends, arrays)
    return taken_columns(buf, lines, arrays)
