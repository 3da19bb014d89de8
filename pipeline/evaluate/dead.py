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
import pyarrow as pa
from numba import njit, prange

from pipeline.evaluate import lowball27, strength3, strength5, tables
from pipeline.evaluate.kernels import _row3, _row5

NEVER: Final = -1
"""``dead_streets``' value for a board that never became impossible (or had no placements to judge)."""
ROW_CODES: Final = {"top": 0, "middle": 1, "bottom": 2, "discard": 3}
"""Placement rows as the kernel reads them."""
_CAPACITY = np.array([3, 5, 5], dtype=np.int64)
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


@njit(cache=True, inline="always")
def _reachable(
    counts: np.ndarray,
    j: int,
    flush: bool,
    paired: bool,
    width: int,
    fixed: np.ndarray,
    row: int,
    suits: int,
    avail: np.ndarray,
) -> bool:
    """Can a row holding ``fixed[row]`` (rank counts, of suits ``suits``) become class ``j`` from ``avail``?

    ``avail[r]`` is the 4-bit mask of suits of rank ``r`` still unseen. Arrays come whole with an index, and
    this is inlined: a call with array views costs more than the check.
    """
    union = 0
    for r in range(13):
        need = counts[j, r] - fixed[row, r]
        if need < 0 or need > _bits(avail[r]):
            return False
        if need > 0:
            union |= avail[r]
    if width == 3 or (paired and not flush):
        return True
    if flush:
        for s in range(4):
            if suits != 0 and suits != (1 << s):
                continue
            ok = True
            for r in range(13):
                if counts[j, r] - fixed[row, r] > 0 and (avail[r] >> s) & 1 == 0:
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


@njit(cache=True)
def _value(
    ranks: np.ndarray, width: int, flush: bool, table5: np.ndarray, digits5: np.ndarray, table3, digits3
) -> np.int64:
    """The class value of ``ranks`` (a flush or not) by the evaluator's direct tables."""
    if width == 3:
        return np.int64(_row3(ranks[0] * 4, ranks[1] * 4 + 1, ranks[2] * 4 + 2, table3, digits3))
    s0 = 0 if flush else 1
    return np.int64(_row5(ranks[0] * 4 + s0, ranks[1] * 4, ranks[2] * 4, ranks[3] * 4, ranks[4] * 4, table5, digits5))


@njit(cache=True, inline="always")
def _query(
    mode: int,
    lo: np.int64,
    hi: np.int64,
    width: int,
    row: int,
    fixed: np.ndarray,
    n_fixed: np.ndarray,
    fixed_ranks: np.ndarray,
    suits: np.ndarray,
    avail: np.ndarray,
    classes: tuple,
    table5: np.ndarray,
    digits5: np.ndarray,
    table3: np.ndarray,
    digits3: np.ndarray,
    ranks: np.ndarray,
) -> np.int64:
    """A value row ``row`` can reach; -1 when none. ``HIGHEST``: the highest. ``LOWEST``: the lowest in ``lo .. hi``.
    ``ANY``: one in ``lo .. hi``, the first found (all a caller asking whether the range is reachable needs).

    ``classes`` is a :class:`HandClasses` of the row's width; ``ranks`` is scratch room for ``width`` ranks.
    Inlined, with whole arrays and a row index: a call passing a dozen arrays costs as much as the query.
    """
    cls_value, cls_counts, cls_flush, cls_paired, cls_ranks = classes
    row_suits = suits[row]
    n_row = n_fixed[row]
    want_max = mode == HIGHEST
    k = width - n_row
    if k > 2:
        n = cls_value.shape[0]
        held = 0
        for i in range(n_row):
            held |= 1 << fixed_ranks[row, i]
        if want_max:
            for j in range(n - 1, -1, -1):
                if cls_ranks[j] & held == held and _reachable(
                    cls_counts, j, cls_flush[j], cls_paired[j], width, fixed, row, row_suits, avail
                ):
                    return cls_value[j]
            return -1
        for j in range(np.searchsorted(cls_value, lo), n):
            if cls_value[j] > hi:
                return -1
            if cls_ranks[j] & held == held and _reachable(
                cls_counts, j, cls_flush[j], cls_paired[j], width, fixed, row, row_suits, avail
            ):
                return cls_value[j]
        return -1
    # One or two empty slots: every rank (pair) added, each checked in constant time.
    best = np.int64(-1)
    paired_fixed = False
    for i in range(n_row):
        ranks[i] = fixed_ranks[row, i]
        paired_fixed |= fixed[row, fixed_ranks[row, i]] >= 2
    one_suit = _bits(row_suits) == 1
    for r1 in range(13 if k >= 1 else 1):
        if k >= 1 and avail[r1] == 0:
            continue
        for r2 in range(r1 if k == 2 else 0, 13 if k == 2 else 1):
            if k == 2 and (avail[r2] == 0 or (r1 == r2 and _bits(avail[r1]) < 2)):
                continue
            paired = paired_fixed
            if k >= 1:
                ranks[n_row] = r1
                paired |= fixed[row, r1] >= 1
            if k == 2:
                ranks[n_row + 1] = r2
                paired |= r1 == r2 or fixed[row, r2] >= 1
            # Not a flush: always for a top row or a pair; for five distinct ranks, a second suit must be there.
            other = 0 if k == 0 else (avail[r1] if k >= 1 else 0) | (avail[r2] if k == 2 else 0)
            plain = width == 3 or paired or not one_suit or (other & ~row_suits) != 0
            # A flush: five distinct ranks, the fixed cards of one suit, and each added rank in that suit.
            flush = width == 5 and not paired and one_suit
            if flush and k >= 1:
                flush = (avail[r1] & row_suits) != 0 and (k == 1 or (avail[r2] & row_suits) != 0)
            for as_flush in (False, True):
                if not (flush if as_flush else plain):
                    continue
                v = _value(ranks, width, as_flush, table5, digits5, table3, digits3)
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
    cards: np.ndarray,
    rows: np.ndarray,
    streets: np.ndarray,
    upto: int,
    lowball: bool,
    strict: bool,
    qualifier: int,
    c3: tuple,
    c5: tuple,
    low5: tuple,
    t5: np.ndarray,
    d5: np.ndarray,
    t3: np.ndarray,
    d3: np.ndarray,
    tl5: np.ndarray,
    scratch: tuple,
) -> int:
    """1 when the board of placements ``a:b`` is dead once every card of streets <= ``upto`` is placed, 0 when
    not, -1 bad data. ``scratch``: the thread's working arrays (see :func:`_dead_range`)."""
    fixed, ranks, n_fixed, suits, avail, q = scratch
    fixed[:] = 0
    n_fixed[:] = 0
    suits[:] = 0
    avail[:] = 15
    for i in range(a, b):
        if streets[i] > upto:
            continue
        c = np.int64(cards[i])
        row = rows[i]
        if c > 51 or (avail[c >> 2] >> (c & 3)) & 1 == 0:
            return -1
        avail[c >> 2] &= ~(1 << (c & 3))
        if row == 3:
            continue
        if row < 0 or row > 3 or n_fixed[row] >= _CAPACITY[row]:
            return -1
        ranks[row, n_fixed[row]] = c >> 2
        n_fixed[row] += 1
        fixed[row, c >> 2] += 1
        suits[row] |= 1 << (c & 3)
    # The bottom's best and the top's lowest, then any middle between them (a 2-7 middle: one that qualifies).
    bottom = _query(HIGHEST, 0, 0, 5, 2, fixed, n_fixed, ranks, suits, avail, c5, t5, d5, t3, d3, q)
    top = _query(LOWEST, 0, _UNBOUNDED, 3, 0, fixed, n_fixed, ranks, suits, avail, c3, t5, d5, t3, d3, q)
    if top < 0 or bottom < 0 or top > bottom:
        return 1
    if lowball:
        low = _query(ANY, 0, qualifier, 5, 1, fixed, n_fixed, ranks, suits, avail, low5, tl5, d5, t3, d3, q)
        return 0 if low >= 0 else 1
    ceiling = bottom - 1 if strict else bottom
    middle = _query(ANY, top, ceiling, 5, 1, fixed, n_fixed, ranks, suits, avail, c5, t5, d5, t3, d3, q)
    return 0 if middle >= 0 else 1


_MAX_STREETS = 64
"""Streets a board may name (0 .. 63): more than any variant deals; a board with others is not judged."""


@njit(cache=True, nogil=True)
def _dead_range(
    lo: int,
    hi: int,
    offsets: np.ndarray,
    cards: np.ndarray,
    rows: np.ndarray,
    streets: np.ndarray,
    lowball: np.ndarray,
    strict: bool,
    qualifier: int,
    c3: tuple,
    c5: tuple,
    low5: tuple,
    t5: np.ndarray,
    d5: np.ndarray,
    t3: np.ndarray,
    d3: np.ndarray,
    tl5: np.ndarray,
    out: np.ndarray,
) -> None:
    """Boards ``lo .. hi``, with working arrays allocated once for all of them, not once per check."""
    scratch = (
        np.zeros((3, 13), dtype=np.int64),  # rank counts per row
        np.zeros((3, 5), dtype=np.int64),  # ranks per row
        np.zeros(3, dtype=np.int64),  # cards per row
        np.zeros(3, dtype=np.int64),  # suits per row (4-bit masks)
        np.zeros(13, dtype=np.int64),  # unseen suits per rank
        np.zeros(5, dtype=np.int64),  # a row's ranks while its completions are enumerated
    )
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
            dead = (
                _dead(
                    a,
                    b,
                    cards,
                    rows,
                    streets,
                    order[probe],
                    lowball[i],
                    strict,
                    qualifier,
                    c3,
                    c5,
                    low5,
                    t5,
                    d5,
                    t3,
                    d3,
                    tl5,
                    scratch,
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
def _dead_streets(
    bounds: np.ndarray,
    offsets: np.ndarray,
    cards: np.ndarray,
    rows: np.ndarray,
    streets: np.ndarray,
    lowball: np.ndarray,
    strict: bool,
    qualifier: int,
    c3: tuple,
    c5: tuple,
    low5: tuple,
    t5: np.ndarray,
    d5: np.ndarray,
    t3: np.ndarray,
    d3: np.ndarray,
    tl5: np.ndarray,
    out: np.ndarray,
) -> None:
    """One range of boards a thread (``bounds``), each range judged by compiled serial code.

    A ``prange`` over the boards themselves would allocate inside the parallel region, which scales poorly.
    """
    for t in prange(bounds.size - 1):
        _dead_range(
            bounds[t],
            bounds[t + 1],
            offsets,
            cards,
            rows,
            streets,
            lowball,
            strict,
            qualifier,
            c3,
            c5,
            low5,
            t5,
            d5,
            t3,
            d3,
            tl5,
            out,
        )


def dead_streets(
    offsets: np.ndarray,
    cards: np.ndarray,
    rows: np.ndarray,
    streets: np.ndarray,
    *,
    lowball: np.ndarray | bool = False,
    strict: bool = False,
    qualifier: int | None = None,
) -> np.ndarray:
    """Per board, the first street after which it could no longer avoid a foul; ``NEVER`` (-1) otherwise.

    Board ``i``'s placed and discarded cards are ``cards[offsets[i]:offsets[i + 1]]`` (codes), with their
    ``rows`` (``ROW_CODES``: 0 top, 1 middle, 2 bottom, 3 discard) and ``streets``, in any order.
    ``lowball`` (one flag, or one per board) plays the middle as 2-7 that must be ``qualifier`` or better
    (a 2-7 value; by default the ten-low of the ``pineapple-27`` preset); ``strict`` makes a bottom equal
    to the middle a foul. A board with no placements, or with placements that cannot be a board (a card
    twice, a row overfilled), is ``NEVER``.
    """
    offsets = np.ascontiguousarray(offsets, dtype=np.int64)
    n = offsets.size - 1
    flags = np.broadcast_to(np.asarray(lowball, dtype=bool), (n,)).copy()
    out = np.empty(n, dtype=np.int8)
    top, five, low = hand_classes()
    parts = max(1, min(numba.get_num_threads(), n // PARALLEL_BOARDS))
    _dead_streets(
        np.linspace(0, n, parts + 1).astype(np.int64),
        offsets,
        np.ascontiguousarray(cards, dtype=np.uint8),
        np.ascontiguousarray(rows, dtype=np.int8),
        np.ascontiguousarray(streets, dtype=np.int8),
        flags,
        strict,
        _ten_low() if qualifier is None else int(qualifier),
        tuple(top),
        tuple(five),
        tuple(low),
        tables.table5_direct(),
        tables.DIGITS5,
        tables.TABLE3_DIRECT,
        tables.DIGITS3,
        tables.low5_direct(),
        out,
    )
    return out


def board_dead_streets(
    n_boards: int,
    board: np.ndarray,
    cards: np.ndarray,
    rows: np.ndarray,
    streets: np.ndarray,
    lowball: np.ndarray,
    judge: np.ndarray | None = None,
) -> np.ndarray:
    """``dead_streets`` of ``n_boards`` boards from placements given flat with the board each belongs to.

    Only boards where ``judge`` is set are judged (the others are ``NEVER``): a caller that knows which boards
    fouled passes them, since a board that did not foul never went dead.
    """
    board = np.asarray(board, dtype=np.int64)
    take = np.argsort(board, kind="stable") if board.size and (np.diff(board) < 0).any() else slice(None)
    board = board[take]
    keep = judge[board] if judge is not None else slice(None)
    counts = np.bincount(board[keep], minlength=n_boards)
    return dead_streets(
        np.r_[0, np.cumsum(counts)],
        np.asarray(cards)[take][keep],
        np.asarray(rows)[take][keep],
        np.asarray(streets)[take][keep],
        lowball=lowball,
    )


def dead_street_column(boards: pa.Table, placements: pa.Table) -> pa.Array:
    """``dead_street`` for the lake's boards table: per board (``hand_key``, ``seat``, ``variant``), its dead street
    from its rows of the placements table (``hand_key``, ``seat``, ``street``, ``card``, ``row``); null when it
    never went dead or has no placements. A 2-7 middle is read from the variant (``pineapple-27``)."""
    import polars as pl

    b = pl.from_arrow(boards.select(["hand_key", "seat", "variant"])).with_row_index("board")
    variant = b["variant"].cast(pl.String)
    kinds = {v: lowball_variant(v) for v in variant.unique().to_list() if v is not None}  # a few variants, not rows
    lowball = variant.replace_strict(kinds, default=False, return_dtype=pl.Boolean).to_numpy()
    p = pl.from_arrow(placements.select(["hand_key", "seat", "street", "card", "row"]))
    p = p.join(b.select("hand_key", "seat", "board"), on=["hand_key", "seat"])
    rows = p["row"].cast(pl.String).replace_strict(ROW_CODES, return_dtype=pl.Int8).to_numpy()
    out = board_dead_streets(
        boards.num_rows, p["board"].to_numpy(), p["card"].to_numpy(), rows, p["street"].to_numpy(), lowball
    )
    return pa.array(out, pa.int8(), mask=out == NEVER)


@cache
def _ten_low() -> int:
    from pipeline.score.compile import compile_rules
    from schemas.rules import load_rules

    return compile_rules(load_rules("pineapple-27")).qualifier


@cache
def lowball_variant(variant: str) -> bool:
    """Whether the preset named like the variant plays a 2-7 middle (``pineapple-27``)."""
    from schemas.rules import RuleSetError, load_rules

    try:
        return load_rules(variant).game.lowball_middle
    except (RuleSetError, FileNotFoundError, ValueError):
        return False
