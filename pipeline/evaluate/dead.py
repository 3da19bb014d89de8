"""The street at which a board became impossible to complete without fouling ("dead").

After each street a player's board holds some cards in each row, and the cards that player has not seen
(neither placed nor discarded) could still fill the empty slots. The board is dead when no completion
avoids a foul: on the usual order rule when no middle the board can still make lies between the weakest
top and the strongest bottom it can still make; on a 2-7 lowball middle when the top can no longer stay
below the bottom or the middle can no longer qualify.

Exact where it matters, conservative elsewhere: each row's reachable hands are enumerated exactly (its
fixed cards plus any unseen cards for its empty slots, suits included, so flushes are possible only when
the cards allow them), but the three rows are completed independently, as if two rows could share an unseen
card, and opponents' face-up cards count as unseen. Both relax the problem, so a board is never called dead
too early; it can be called dead later than a perfect solver would (when only a shared card would save
it, or it needs cards an opponent holds). On a complete board the answer is exact, so a board that did not
foul is never dead and a fouled board with placements is dead by its last street at the latest.

A row with k empty slots is queried in two ways, both exact: with k <= 2 its completions are enumerated
(at most 91 rank pairs, each as a flush and not); with more empty slots the hand classes are scanned in
strength order from the bound of interest until one is reachable, which happens within a few classes
because a row with three free slots reaches nearly every hand. Deadness only grows street by street, so
each board is checked at its last street and, when dead there, at the two before, then binary-searched.
"""

from __future__ import annotations

from functools import cache
from itertools import combinations_with_replacement
from typing import Final, NamedTuple

import numba
import numpy as np
from numba import njit, prange

from ofc.pipeline.evaluate import lookup_tables, lowball27, strength3, strength5
from ofc.pipeline.evaluate.lookup_tables import FLUSH_OFFSET
from ofc.pipeline.raw_pointers import address

NEVER: Final = -1
"""``dead_streets``' value for a board that never became impossible (or had no placements to judge)."""
ROW_CODES: Final = {"top": 0, "middle": 1, "bottom": 2, "discard": 3}
"""Placement rows as the kernel reads them."""
HIGHEST, LOWEST, ANY = 0, 1, 2
"""What ``_query`` looks for."""
_UNBOUNDED = np.int64(1) << np.int64(40)
_MAX_CARDS = 32
"""More placements than any variant deals to one board (17 at most): a board with more is not judged."""
PARALLEL_BOARDS = 256
"""Fewer boards are judged on one thread."""


class HandClasses(NamedTuple):
    """Every hand class of one width on one scale, sorted by value (ascending), with its rank pattern."""

    value: np.ndarray
    """(C,) int64: strength, or 2-7 value for the lowball scale (lower is better there)."""
    counts: np.ndarray
    """(C, 13) int64: cards of each rank."""
    flush: np.ndarray
    """(C,) bool: the class is a flush (five cards of one suit)."""
    paired: np.ndarray
    """(C,) bool: two cards share a rank, so the row can never be a flush."""
    ranks: np.ndarray
    """(C,) int64: the 13-bit mask of the ranks the class holds: a row whose cards' ranks are not all in it
    cannot become the class, which a scan tells at a glance before counting cards."""


def _representatives(width: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One row of card codes per rank multiset (and per multiset of distinct ranks again, as a flush).

    Returns (codes (C, width), counts (C, 13), flush (C,)). Repeated ranks take suits 0, 1, 2...; a
    non-flush row of distinct ranks gets one card of another suit; a flush row is all clubs.
    """
    ranks = np.array(list(combinations_with_replacement(range(13), width)), dtype=np.int64)
    counts = (ranks[:, :, None] == np.arange(13)).sum(axis=1)
    ranks, counts = ranks[counts.max(axis=1) <= 4], counts[counts.max(axis=1) <= 4]
    occurrence = (ranks[:, :, None] == ranks[:, None, :]).cumsum(axis=2)[:, np.arange(width), np.arange(width)] - 1
    distinct = counts.max(axis=1) == 1
    suits = occurrence.copy()
    suits[distinct, 0] = 1
    codes = ranks * 4 + suits
    if width == 3:
        return codes.astype(np.uint8), counts, np.zeros(len(codes), dtype=bool)
    flush_codes = ranks[distinct] * 4
    all_codes = np.concatenate([codes, flush_codes]).astype(np.uint8)
    all_counts = np.concatenate([counts, counts[distinct]])
    flush = np.r_[np.zeros(len(codes), dtype=bool), np.ones(int(distinct.sum()), dtype=bool)]
    return all_codes, all_counts, flush


def _classes(codes: np.ndarray, counts: np.ndarray, flush: np.ndarray, value: np.ndarray) -> HandClasses:
    order = np.argsort(value, kind="stable")
    return HandClasses(
        value=value[order].astype(np.int64),
        counts=np.ascontiguousarray(counts[order]),
        flush=flush[order],
        paired=counts[order].max(axis=1) >= 2,
        ranks=((counts[order] > 0) * (1 << np.arange(13))).sum(axis=1).astype(np.int64),
    )


@cache
def hand_classes() -> tuple[HandClasses, HandClasses, HandClasses]:
    """(top rows, 5-card rows by strength, 5-card rows by 2-7 value), valued by the evaluator itself."""
    c3, k3, f3 = _representatives(3)
    c5, k5, f5 = _representatives(5)
    return (
        _classes(c3, k3, f3, strength3(c3)),
        _classes(c5, k5, f5, strength5(c5)),
        _classes(c5, k5, f5, lowball27(c5)),
    )


@njit(inline="always", cache=True)
def _bits(x: np.int64) -> np.int64:
    return (x & 1) + ((x >> 1) & 1) + ((x >> 2) & 1) + ((x >> 3) & 1)


# The working state of one board check lives in one int64 array per thread, read through a pointer
# (:mod:`pipeline.raw_pointers`): arrays handed to the dozens of inlined steps of a check cost more in reference
# counts than the check itself. Its layout:
_FIXED = 0  # rank counts of each row's cards, 3 x 13
_RANKS = 39  # ranks of each row's cards, 3 x 5
_COUNT = 54  # cards in each row, 3
_SUITS = 57  # suits of each row's cards (4-bit masks), 3
_AVAIL = 60  # suits still unseen of each rank (4-bit masks), 13
_ENUM = 73  # a row's ranks while its completions are enumerated, 5
_SCRATCH = 78


@njit(cache=True, inline="always")
def _reachable(cls: tuple, j: int, width: int, s: object, row: int, suits: int) -> bool:
    """Can row ``row`` (its cards in ``s``, of suits ``suits``) become class ``j`` of ``cls`` from the unseen?"""
    counts, flush, paired = cls[1], cls[2][j] != 0, cls[3][j] != 0
    union = 0
    for r in range(13):
        need = counts[j * 13 + r] - s[_FIXED + row * 13 + r]
        if need < 0 or need > _bits(s[_AVAIL + r]):
            return False
        if need > 0:
            union |= s[_AVAIL + r]
    if width == 3 or (paired and not flush):
        return True
    if flush:
        for suit in range(4):
            if suits != 0 and suits != (1 << suit):
                continue
            ok = True
            for r in range(13):
                if counts[j * 13 + r] - s[_FIXED + row * 13 + r] > 0 and (s[_AVAIL + r] >> suit) & 1 == 0:
                    ok = False
                    break
            if ok:
                return True
        return False
    # Five distinct ranks, not a flush: at least two suits among the fixed and the added cards.
    if _bits(suits) >= 2:
        return True
    if suits == 0:
        return _bits(union) >= 2
    return (union & ~suits) != 0


@njit(cache=True, inline="always")
def _value(s: object, width: int, flush: bool, tables: tuple) -> np.int64:
    """The class value of the ranks at ``s[_ENUM:]`` (a flush or not) by the evaluator's direct tables, as
    :func:`pipeline.evaluate.strength_kernels.row5` and ``row3`` read them."""
    t5, d5, n5, t3, d3, n3 = tables
    if width == 3:
        k = d3[s[_ENUM] * 4] + d3[256 + s[_ENUM + 1] * 4 + 1] + d3[512 + s[_ENUM + 2] * 4 + 2]
        return np.int64(t3[min(k, n3 - 1)])
    k = d5[s[_ENUM] * 4 + (0 if flush else 1)]
    for i in range(1, 5):
        k += d5[256 * i + s[_ENUM + i] * 4]
    if flush:
        k += FLUSH_OFFSET
    return np.int64(t5[min(k, n5 - 1)])


@njit(cache=True, inline="always")
def _query(
    mode: int, lo: np.int64, hi: np.int64, width: int, row: int, s: object, cls: tuple, tables: tuple
) -> np.int64:
    """A value row ``row`` can reach; -1 when none. ``HIGHEST``: the highest. ``LOWEST``: the lowest in ``lo .. hi``.
    ``ANY``: one in ``lo .. hi``, the first found (all a caller asking whether the range is reachable needs).

    ``cls``: the :class:`HandClasses` of the row's width, as pointers and their count.
    """
    cls_value, cls_ranks, n = cls[0], cls[4], cls[5]
    row_suits = s[_SUITS + row]
    n_row = s[_COUNT + row]
    want_max = mode == HIGHEST
    k = width - n_row
    if k > 2:
        held = 0
        for i in range(n_row):
            held |= 1 << s[_RANKS + row * 5 + i]
        if want_max:
            for j in range(n - 1, -1, -1):
                if cls_ranks[j] & held == held and _reachable(cls, j, width, s, row, row_suits):
                    return cls_value[j]
            return -1
        first, last = 0, n  # the first class valued lo or more
        while first < last:
            mid = (first + last) // 2
            if cls_value[mid] < lo:
                first = mid + 1
            else:
                last = mid
        for j in range(first, n):
            if cls_value[j] > hi:
                return -1
            if cls_ranks[j] & held == held and _reachable(cls, j, width, s, row, row_suits):
                return cls_value[j]
        return -1
    # One or two empty slots: every rank (pair) added, each checked in constant time.
    best = np.int64(-1)
    paired_fixed = False
    for i in range(n_row):
        r = s[_RANKS + row * 5 + i]
        s[_ENUM + i] = r
        paired_fixed |= s[_FIXED + row * 13 + r] >= 2
    one_suit = _bits(row_suits) == 1
    for r1 in range(13 if k >= 1 else 1):
        a1 = s[_AVAIL + r1]
        if k >= 1 and a1 == 0:
            continue
        for r2 in range(r1 if k == 2 else 0, 13 if k == 2 else 1):
            a2 = s[_AVAIL + r2]
            if k == 2 and (a2 == 0 or (r1 == r2 and _bits(a1) < 2)):
                continue
            paired = paired_fixed
            if k >= 1:
                s[_ENUM + n_row] = r1
                paired |= s[_FIXED + row * 13 + r1] >= 1
            if k == 2:
                s[_ENUM + n_row + 1] = r2
                paired |= r1 == r2 or s[_FIXED + row * 13 + r2] >= 1
            # Not a flush: always for a top row or a pair; for five distinct ranks, a second suit must be there.
            other = 0 if k == 0 else (a1 if k >= 1 else 0) | (a2 if k == 2 else 0)
            plain = width == 3 or paired or not one_suit or (other & ~row_suits) != 0
            # A flush: five distinct ranks, the fixed cards of one suit, and each added rank in that suit.
            flush = width == 5 and not paired and one_suit
            if flush and k >= 1:
                flush = (a1 & row_suits) != 0 and (k == 1 or (a2 & row_suits) != 0)
            for as_flush in (False, True):
                if not (flush if as_flush else plain):
                    continue
                v = _value(s, width, as_flush, tables)
                if want_max:
                    best = max(best, v)
                elif lo <= v <= hi:
                    if mode == ANY:
                        return v
                    if best < 0 or v < best:
                        best = v
    return best


@njit(cache=True, nogil=True, inline="always")
def _dead(
    a: int,
    b: int,
    cards: object,
    rows: object,
    streets: object,
    upto: int,
    lowball: bool,
    strict: bool,
    qualifier: int,
    c3: tuple,
    c5: tuple,
    low5: tuple,
    tables: tuple,
    low_tables: tuple,
    s: object,
) -> int:
    """1 when the board of placements ``a:b`` is dead once every card of streets <= ``upto`` is placed, 0 when
    not, -1 bad data. Arguments are pointers (see :func:`_dead_range`); ``s`` is the thread's working state."""
    for i in range(_AVAIL):
        s[i] = 0
    for i in range(_AVAIL, _AVAIL + 13):
        s[i] = 15
    for i in range(a, b):
        if streets[i] > upto:
            continue
        c = np.int64(cards[i])
        row = np.int64(rows[i])
        if c > 51 or (s[_AVAIL + (c >> 2)] >> (c & 3)) & 1 == 0:
            return -1
        s[_AVAIL + (c >> 2)] &= ~(1 << (c & 3))
        if row == 3:
            continue
        if row < 0 or row > 3 or s[_COUNT + row] >= (3 if row == 0 else 5):
            return -1
        s[_RANKS + row * 5 + s[_COUNT + row]] = c >> 2
        s[_COUNT + row] += 1
        s[_FIXED + row * 13 + (c >> 2)] += 1
        s[_SUITS + row] |= 1 << (c & 3)
    # The bottom's best and the top's lowest, then any middle between them (a 2-7 middle: one that qualifies).
    bottom = _query(HIGHEST, 0, 0, 5, 2, s, c5, tables)
    top = _query(LOWEST, 0, _UNBOUNDED, 3, 0, s, c3, tables)
    if top < 0 or bottom < 0 or top > bottom:
        return 1
    if lowball:
        low = _query(ANY, 0, qualifier, 5, 1, s, low5, low_tables)
        return 0 if low >= 0 else 1
    ceiling = bottom - 1 if strict else bottom
    middle = _query(ANY, top, ceiling, 5, 1, s, c5, tables)
    return 0 if middle >= 0 else 1


@njit(cache=True, inline="always")
def _pointers(classes: tuple) -> tuple:
    """A :class:`HandClasses` as pointers (its flags as bytes), and how many classes it has."""
    value, counts, flush, paired, ranks = classes
    return address(value), address(counts), address(flush), address(paired), address(ranks), value.shape[0]


_MAX_STREETS = 64
"""Streets a board may name (0 .. 63): more than any variant deals; a board with others is not judged."""


@njit(cache=True, nogil=True)
def _dead_range(lo: int, hi: int, inputs: tuple, c3: tuple, c5: tuple, low5: tuple, out: np.ndarray) -> None:
    """Boards ``lo .. hi``, with working state allocated once for all of them, not once per check.

    ``inputs``, ``c3``, ``c5``, ``low5``: as :func:`_dead_streets` has them.
    """
    offsets, cards, rows, streets, lowball, strict, qualifier, t5, d5, t3, d3, tl5 = inputs
    state = np.zeros(_SCRATCH, dtype=np.int64)
    s = address(state)
    p_cards, p_rows, p_streets = address(cards), address(rows), address(streets)
    p3, p5, pl5 = _pointers(c3), _pointers(c5), _pointers(low5)
    tables = (address(t5), address(d5), t5.shape[0], address(t3), address(d3), t3.shape[0])
    low_tables = (address(tl5), address(d5), tl5.shape[0], address(t3), address(d3), t3.shape[0])
    order = np.empty(_MAX_STREETS, dtype=np.int64)
    for i in range(lo, hi):
        a, b = offsets[i], offsets[i + 1]
        out[i] = NEVER
        if b == a or b - a > _MAX_CARDS:
            continue
        # The board's streets, in order.
        present = np.uint64(0)
        judged = True
        for j in range(a, b):
            street = np.int64(streets[j])
            if street < 0 or street >= _MAX_STREETS:
                judged = False
                break
            present |= np.uint64(1) << np.uint64(street)
        if not judged:
            continue
        n = 0
        for street in range(_MAX_STREETS):
            if (present >> np.uint64(street)) & np.uint64(1):
                order[n] = street
                n += 1
        # Dead at the last street? Most boards that foul in play die there or just before, and a late check
        # (few empty slots) is the cheapest: walk back two streets, then binary-search the earlier ones.
        # One call site, so the check is compiled inline once.
        last = n - 1
        probe = last
        steps = -1  # -1: the last street still to check; 0..2: walking back; 3: searching
        first = 0
        while True:
            upto = order[probe]
            dead = (
                _dead(
                    a,
                    b,
                    p_cards,
                    p_rows,
                    p_streets,
                    upto,
                    lowball[i],
                    strict,
                    qualifier,
                    p3,
                    p5,
                    pl5,
                    tables,
                    low_tables,
                    s,
                )
                == 1
            )
            if steps < 0:
                if not dead:
                    break
                steps = 0
            elif steps < 3:
                if not dead:
                    steps = 3
                    break
                last = probe
                steps += 1
            elif dead:
                last = probe
            else:
                first = probe + 1
            if steps < 2 and last > 0:
                probe = last - 1
            elif steps >= 2 and first < last:
                steps = 3
                probe = (first + last) // 2
            else:
                break
        if steps < 0:
            continue
        out[i] = order[last]


@njit(parallel=True, cache=True, nogil=True)
def _dead_streets(bounds: np.ndarray, inputs: tuple, c3: tuple, c5: tuple, low5: tuple, out: np.ndarray) -> None:
    """One range of boards a thread (``bounds``), each range judged by compiled serial code.

    ``inputs``: offsets, cards, rows, streets, lowball, strict, qualifier and the five tables (see
    :func:`dead_streets`); ``c3``, ``c5``, ``low5``: the hand classes (apart: a parallel loop takes no tuple
    of tuples). A ``prange`` over the boards themselves would allocate inside the parallel region, which
    scales poorly.
    """
    for t in prange(bounds.size - 1):
        _dead_range(bounds[t], bounds[t + 1], inputs, c3, c5, low5, out)


def _as_bytes(classes: HandClasses) -> tuple[np.ndarray, ...]:
    """The classes' arrays with the flags as bytes, which compiled code reads through pointers."""
    return tuple(a.view(np.uint8) if a.dtype == np.bool_ else a for a in classes)


def dead_streets(
    offsets: np.ndarray,
    cards: np.ndarray,
    rows: np.ndarray,
    streets: np.ndarray,
    *,
    lowball: np.ndarray | bool = False,
    strict: bool = False,
    qualifier: int = 0,
) -> np.ndarray:
    """Per board, the first street after which it could no longer avoid a foul; ``NEVER`` (-1) otherwise.

    Board ``i``'s placed and discarded cards are ``cards[offsets[i]:offsets[i + 1]]`` (codes), with their
    ``rows`` (``ROW_CODES``: 0 top, 1 middle, 2 bottom, 3 discard) and ``streets``, in any order.
    ``lowball`` (one flag, or one per board) plays the middle as 2-7 that must be ``qualifier`` or better
    (a 2-7 value, as a rule set compiles it); ``strict`` makes a bottom equal to the middle a foul. A board
    with no placements, or with placements that cannot be a board (a card twice, a row overfilled), is
    ``NEVER``.
    """
    offsets = np.ascontiguousarray(offsets, dtype=np.int64)
    n = offsets.size - 1
    flags = np.broadcast_to(np.asarray(lowball, dtype=bool), (n,)).copy()
    out = np.empty(n, dtype=np.int8)
    top, five, low = hand_classes()
    parts = max(1, min(numba.get_num_threads(), n // PARALLEL_BOARDS))
    inputs = (
        offsets,
        np.ascontiguousarray(cards, dtype=np.uint8),
        np.ascontiguousarray(rows, dtype=np.int8),
        np.ascontiguousarray(streets, dtype=np.int8),
        flags,
        strict,
        int(qualifier),
        lookup_tables.table5_direct(),
        lookup_tables.DIGITS5,
        lookup_tables.TABLE3_DIRECT,
        lookup_tables.DIGITS3,
        lookup_tables.low5_direct(),
    )
    bounds = np.linspace(0, n, parts + 1).astype(np.int64)
    _dead_streets(bounds, inputs, _as_bytes(top), _as_bytes(five), _as_bytes(low), out)
    return out


_SLOT_ROWS = np.array([0] * 3 + [1] * 5 + [2] * 5, dtype=np.int8)
"""The row of each of a board's 13 slots (top 3, middle 5, bottom 5)."""


def board_dead_streets(
    cards: np.ndarray,
    streets: np.ndarray,
    discard_offsets: np.ndarray,
    discards: np.ndarray,
    discard_streets: np.ndarray,
    *,
    lowball: np.ndarray | bool = False,
    strict: bool = False,
    qualifier: int = 0,
) -> np.ndarray:
    """``dead_streets`` of boards laid out as the lake's boards table stores them.

    ``cards`` (B, 13) codes, top to bottom; ``streets`` (B, 13) the street each was placed at, 0 for a board
    with no placements (``NEVER``); board ``i``'s discards are ``discards[discard_offsets[i]:discard_offsets[i +
    1]]``, discarded at ``discard_streets`` (the same positions).
    """
    cards = np.asarray(cards, dtype=np.uint8)
    streets = np.asarray(streets, dtype=np.int8)
    n = cards.shape[0]
    discard_offsets = np.asarray(discard_offsets, dtype=np.int64)
    placed = (streets > 0).all(axis=1) if n else np.zeros(0, dtype=bool)
    n_discards = np.where(placed, np.diff(discard_offsets), 0)
    sizes = np.where(placed, 13, 0) + n_discards
    offsets = np.r_[0, np.cumsum(sizes)].astype(np.int64)
    total = int(offsets[-1])
    flat_cards = np.empty(total, dtype=np.uint8)
    flat_rows = np.empty(total, dtype=np.int8)
    flat_streets = np.empty(total, dtype=np.int8)
    # Each placed board's 13 slots first, then its discards.
    slots = (offsets[:-1][placed][:, None] + np.arange(13)).ravel()
    flat_cards[slots] = cards[placed].ravel()
    flat_rows[slots] = np.tile(_SLOT_ROWS, int(placed.sum()))
    flat_streets[slots] = streets[placed].ravel()
    if n_discards.any():
        owner = np.repeat(np.arange(n), n_discards)
        within = np.arange(owner.size) - np.repeat(np.cumsum(n_discards) - n_discards, n_discards)
        source = discard_offsets[:-1][owner] + within
        target = offsets[:-1][owner] + 13 + within
        flat_cards[target] = np.asarray(discards, dtype=np.uint8)[source]
        flat_rows[target] = ROW_CODES["discard"]
        flat_streets[target] = np.asarray(discard_streets, dtype=np.int8)[source]
    return dead_streets(
        offsets, flat_cards, flat_rows, flat_streets, lowball=lowball, strict=strict, qualifier=qualifier
    )
