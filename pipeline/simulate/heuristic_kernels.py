"""Compiled placement of the ``heuristic`` bot: a handful of features per row, combined by rules.

The planner (:mod:`pipeline.simulate.planner_kernels`) weighs every row's outcome
distribution jointly and costs tens of microseconds a decision; this bot
keeps only what a player glances at, so a decision costs about a
microsecond. Each row, for every subset of the street's cards it could
receive, is summarised once (``H_*``): the level it has made (category plus
rank, the planner's one scale for every row; exact once the row is
complete), at most two improvements its share of the cards to come may
bring (pairing its live ranks, two pair, trips, a full house, a flush or
straight draw of three or more), each with a level and a chance, its
expected royalty, and on top what pairing up would earn (royalty and
Fantasyland) and the level that takes.

A placement then costs a few comparisons. The chance of a foul is that of
the lower row of each ordered pair (top < middle <= bottom; with a 2-7
middle, top < bottom and the middle must qualify) ending at or below the
upper row's made level; the middle improves past the bottom only when it
must (``P_AVOID``). A board certain to foul is never chosen when another is
not. Royalties and row strength count while the board stays valid, a foul
costs ``P_FOUL``; what the top earns (a pair of queens and Fantasyland)
counts only as far as the row below has already made more, so the top is
built up only when it is safe. A discard is the card the best placement
leaves out: cards seen elsewhere are dead in every draw, so a card drawing
to them helps less. On a first street of five, the top takes one card at
most (or a pair) and a middle expected stronger than the bottom is not
weighed: both are out of order from the start.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from ofc.pipeline.evaluate.strength_kernels import row3, row5
from ofc.pipeline.simulate.model import (
    I_LOWBALL,
    I_QUALIFIER,
    I_STRICT,
    N_CATEGORIES,
    O_FL_PAIR,
    O_FL_TRIPS,
    O_FL_VALUE,
    O_LEVEL,
    O_LOW_HIGH,
    O_PARAMS,
    O_ROY_BOT,
    O_ROY_CAT,
    O_ROY_MID,
    O_ROY_TOP,
    O_TOP_PAIR,
    O_TOP_TRIPS,
)
from ofc.pipeline.simulate.planner_kernels import (
    FLUSH,
    FULL_HOUSE,
    HIGH,
    LOWEST_BIT,
    P_TYPICAL,
    PAIR,
    QUADS,
    STRAIGHT,
    TEN,
    TRIPS,
    TWO_PAIR,
    UNSEEN_SUITS,
    WINDOWS,
    at_least,
    fantasyland_cards,
    popcount,
)

# Row summary fields.
H_USED, H_LEVEL, H_EXPECT, H_OPEN, H_ROY, H_FL, H_DRAW, H_DRAW_LEVEL, H_QUALIFY, H_STRENGTH, H_WIN = range(11)
H_UP1, H_P1, H_UP2, H_P2, H_SURE = range(11, 16)
"""Whether some placement gives the row this subset, its made level, expected level, open slots, royalty (top:
with its Fantasyland as it stands), that Fantasyland alone, the top's expected gain from pairing up and the
level that takes, the chance a 2-7 middle qualifies (1 elsewhere), the strength of a complete row (-1 before),
the row points its expected level wins against a typical row (-1..1; 0 on a 2-7 middle); then its two
improvements (level and chance each; staying at its made level takes the rest), and how certain its made level
is, for the top's earnings above it (the slope of :func:`_sure`)."""
N_FIELDS = 16

# The bot's judgement (``PARAMS`` order).
P_FOUL, P_SPREAD, P_AVOID, P_SURE_OPEN, P_WIN, P_FRESH, P_DRAW, P_DEAD = range(8)
P_EMPTY_TOP, P_EMPTY_LEVEL, P_EMPTY_P1, P_EMPTY_P2, P_EMPTY_BOTTOM = range(8, 13)
PARAMS = np.array([8.0, 0.15, 0.7, 0.1, 0.6, 0.12, 1.0, 1000.0, 0.5, 0.8, 0.55, 0.3, 0.5])
"""Foul cost (points); uncertainty of a row's level (base, and per open slot of the row below the top) when
counting what the top earns as safe; chance a player steers clear of an improvement that breaks the order; row
points per level above typical; chance, per open slot beyond the first, that new cards pair each other; weight
of the top's draw; the extra cost of a board certain to foul; then an empty row: the top's expected level, a
5-card row's level if nothing comes, its chances of a pair and of two pair or better, and how much higher the
latter sits at the bottom."""

SUIT_BITS = sum(1 << (4 * r) for r in range(13))
"""Bits of one suit's cards (suit 0; shift by the suit for the others) in a 52-bit card mask."""
HIGHEST_BIT = np.array([m.bit_length() - 1 for m in range(1 << 13)], dtype=np.int8)
"""Index of the highest set bit of a 13-bit rank mask (-1 for none)."""


def _straight_windows() -> tuple[np.ndarray, np.ndarray]:
    """For each 13-bit rank mask, the cards missing from the best straight holding all of it (-1: none) and
    that straight's index in WINDOWS (the highest among the nearest)."""
    masks = np.arange(1 << 13)
    windows = np.array(WINDOWS)
    fits = (masks[:, None] & ~windows[None, :]) == 0
    missing = (
        np.array([bin(w).count("1") for w in WINDOWS])[None, :]
        - np.array([bin(m).count("1") for m in range(1 << 13)])[:, None]
    )
    # the fewest missing, then the highest window: windows are in ascending order
    key = np.where(fits, missing * 16 - np.arange(len(WINDOWS))[None, :], 1 << 10)
    best = np.argmin(key, axis=1)
    need = np.where(fits.any(axis=1), missing[masks, best], -1).astype(np.int8)
    return need, best.astype(np.int8)


STRAIGHT_NEED, STRAIGHT_WINDOW = _straight_windows()
CHUNK = 64
"""Tables per parallel task: scratch is allocated once a task, not once a table."""


@njit(inline="always", cache=True)
def _hit(odds: float, draws: float) -> float:
    """Chance that one of some live cards, ``odds`` of each pick, comes in ``draws`` picks: 1 - exp(-x), as a
    Padé fraction."""
    x = odds * draws
    return x * (6.0 + x) / (6.0 + x * (4.0 + x))


@njit(inline="always", cache=True)
def _add(c: int, s1: int, s2: int, s3: int, s4: int, suits: int) -> tuple[int, int, int, int, int]:
    """Card ``c`` added to rank masks of ranks held at least once .. four times, and to a suit mask."""
    b = 1 << (c >> 2)
    return s1 | b, s2 | (s1 & b), s3 | (s2 & b), s4 | (s3 & b), suits | (1 << (c & 3))


@njit(inline="always", cache=True)
def _one_suit(suits: int) -> bool:
    """Whether a 4-bit suit mask holds exactly one suit."""
    return suits != 0 and (suits & (suits - 1)) == 0


@njit(inline="always", cache=True)
def _sure(margin: float, scale: float) -> float:
    """How surely a row stays above another, from the margin it has made times its certainty (a linear ramp)."""
    return min(1.0, max(0.0, 0.5 + margin * scale))


@njit(inline="always", cache=True)
def _describe(
    s1: int,
    s2: int,
    s3: int,
    s4: int,
    suits: int,
    n: int,
    row: int,
    strength: int,
    odds: np.ndarray,
    future: float,
    per_open: np.ndarray,
    f: np.ndarray,
    ints: np.ndarray,
    params: np.ndarray,
    h: np.ndarray,
    at: int,
) -> None:
    """Summarise a row of ``n`` cards into ``h[at]`` (all but H_WIN). ``s1``..``s4`` are the rank masks of its
    ranks held at least once .. four times, ``suits`` its suit mask; ``strength`` is set when it is complete."""
    cap = 3 if row == 0 else 5
    o = cap - n
    h[at, H_USED] = 1.0
    h[at, H_OPEN] = o
    h[at, H_FL] = 0.0
    h[at, H_DRAW] = 0.0
    h[at, H_DRAW_LEVEL] = 0.0
    h[at, H_QUALIFY] = 1.0
    h[at, H_STRENGTH] = strength
    h[at, H_P1] = 0.0
    h[at, H_P2] = 0.0
    draws = per_open[o, 0]
    share = per_open[o, 1]
    seen1, seen2, seen3, quads = s1, s2, s3, s4
    hi = HIGHEST_BIT[seen1]

    if row == 1 and ints[I_LOWBALL] == 1:
        # A 2-7 middle only has to qualify: five different ranks, ten or lower, no straight or flush.
        h[at, H_LEVEL] = 0.0
        h[at, H_EXPECT] = 0.0
        if n == cap:
            ok = strength <= ints[I_QUALIFIER]
            h[at, H_QUALIFY] = 1.0 if ok else 0.0
            h[at, H_ROY] = f[O_ROY_MID + strength] if ok else 0.0
            return
        h[at, H_ROY] = 0.0
        if seen2 or hi > TEN:
            h[at, H_QUALIFY] = 0.0
            return
        outs = 0.0
        for r in range(TEN + 1):
            if not (seen1 >> r) & 1:
                outs += odds[r]
        h[at, H_QUALIFY] = at_least(o, int(future), min(1.0, outs) * 0.9)
        h[at, H_ROY] = 0.5 * f[O_LOW_HIGH + max(hi, 5 + (o + 1) // 2)]
        return

    if n == cap:
        level = f[O_LEVEL + strength]
        h[at, H_LEVEL] = level
        h[at, H_EXPECT] = level
        if cap == 3:
            fl = 0.0
            if seen3:
                fl = f[O_FL_TRIPS + HIGHEST_BIT[seen3]]
            elif seen2:
                fl = f[O_FL_PAIR + HIGHEST_BIT[seen2]]
            h[at, H_FL] = fl
            h[at, H_ROY] = f[O_ROY_TOP + strength] + fl
        else:
            h[at, H_ROY] = f[(O_ROY_MID if row == 1 else O_ROY_BOT) + strength]
        return

    if n == 0:
        h[at, H_LEVEL] = 0.0
        h[at, H_ROY] = 0.0
        if row == 0:
            h[at, H_EXPECT] = params[P_EMPTY_TOP]
            return
        # An empty row: most often a pair, a fair chance of two pair or better.
        h[at, H_LEVEL] = params[P_EMPTY_LEVEL]
        h[at, H_UP1] = PAIR + 0.5
        h[at, H_P1] = params[P_EMPTY_P1]
        h[at, H_UP2] = TWO_PAIR + 0.5 + (row - 1) * params[P_EMPTY_BOTTOM]
        h[at, H_P2] = params[P_EMPTY_P2]
        _settle(h, at, 0.0, 0.0, 0.0)
        return

    pairs = seen2 & ~seen3
    trips = seen3 & ~quads
    if quads:
        cat, rank = QUADS, HIGHEST_BIT[quads]
    elif trips and pairs:
        cat, rank = FULL_HOUSE, HIGHEST_BIT[trips]
    elif trips:
        cat, rank = TRIPS, HIGHEST_BIT[trips]
    elif pairs & (pairs - 1):
        cat, rank = TWO_PAIR, HIGHEST_BIT[pairs]
    elif pairs:
        cat, rank = PAIR, HIGHEST_BIT[pairs]
    else:
        cat, rank = HIGH, hi
    floor = cat + (rank + 1.25) / 14.0
    h[at, H_LEVEL] = floor

    if cap == 3:
        # The top is kept from improving when it can: its expected level is what it holds, and pairing up
        # is a draw (royalty and Fantasyland) taken only when the middle stays above it.
        h[at, H_EXPECT] = floor
        if cat == TRIPS:
            fl = f[O_FL_TRIPS + rank]
            h[at, H_FL] = fl
            h[at, H_ROY] = f[O_TOP_TRIPS + rank] + fl
        elif cat == PAIR:
            fl = f[O_FL_PAIR + rank]
            h[at, H_FL] = fl
            h[at, H_ROY] = f[O_TOP_PAIR + rank] + fl
            p = _hit(odds[rank], draws)
            h[at, H_DRAW] = p * (f[O_TOP_TRIPS + rank] + f[O_FL_TRIPS + rank] - h[at, H_ROY])
            h[at, H_DRAW_LEVEL] = TRIPS + (rank + 1.5) / 14.0
        else:
            h[at, H_ROY] = 0.0
            gain = 0.0
            rest = seen1
            while rest:
                r = LOWEST_BIT[rest]
                rest &= rest - 1
                gain += _hit(odds[r], draws) * (f[O_TOP_PAIR + r] + f[O_FL_PAIR + r])
            h[at, H_DRAW] = gain
            h[at, H_DRAW_LEVEL] = PAIR + (hi + 1.5) / 14.0
        return

    # A 5-card row being built: staying as it is, or one of two improvements (the likelier first).
    cats = O_ROY_CAT + (row - 1) * N_CATEGORIES
    roy = f[cats + cat]
    fresh = per_open[o, 2]
    p1 = p2 = 0.0
    up1 = up2 = floor
    r1 = r2 = roy
    if cat == HIGH:
        outs = 0.0
        ranked = 0.0
        rest = seen1
        while rest:
            r = LOWEST_BIT[rest]
            outs += odds[r]
            ranked += odds[r] * r
            rest &= rest - 1
        p1 = min(1.0, _hit(outs, draws) + fresh)
        up1 = PAIR + ((ranked / outs if outs > 0.0 else hi) + 1.5) / 14.0
        r1 = f[cats + PAIR]
    elif cat <= TRIPS:
        kick = 0.0
        rest = seen1 & ~seen2
        while rest:
            kick += odds[LOWEST_BIT[rest]]
            rest &= rest - 1
        made = 0.0
        rest = seen2 & ~quads
        while rest:
            made += odds[LOWEST_BIT[rest]]
            rest &= rest - 1
        if cat == PAIR:
            p1, up1, r1 = (
                min(1.0, _hit(kick, draws) + fresh),
                TWO_PAIR + (rank + 1.5) / 14.0,
                f[cats + TWO_PAIR],
            )
            p2, up2, r2 = _hit(made, draws), TRIPS + (rank + 1.5) / 14.0, f[cats + TRIPS]
        elif cat == TWO_PAIR:
            p1, up1, r1 = _hit(made, draws), FULL_HOUSE + (rank + 1.5) / 14.0, f[cats + FULL_HOUSE]
        else:
            p1, up1, r1 = (
                min(1.0, _hit(kick, draws) + 0.5 * fresh),
                FULL_HOUSE + (rank + 1.5) / 14.0,
                f[cats + FULL_HOUSE],
            )
            p2, up2, r2 = _hit(made, draws), QUADS + (rank + 1.5) / 14.0, f[cats + QUADS]
    elif cat == FULL_HOUSE:
        p1, up1, r1 = _hit(odds[rank], draws), QUADS + (rank + 1.5) / 14.0, f[cats + QUADS]
    if n >= 2 and share > 0 and cat <= PAIR:
        # A flush or straight draw replaces the rarer improvement when it is likelier.
        p = 0.0
        level = floor
        if n >= 3 and _one_suit(suits):
            per = min(1.0, odds[UNSEEN_SUITS + LOWEST_BIT[suits]] * share / o)
            p = per
            for _ in range(1, o):
                p *= per
            level = FLUSH + (hi + 1.5) / 14.0
            value = f[cats + FLUSH]
        if cat == HIGH and share >= o and STRAIGHT_NEED[seen1] == o:
            w = STRAIGHT_WINDOW[seen1]
            per = share / o
            q = 1.0
            need = WINDOWS[w] & ~seen1
            while need:
                q *= min(1.0, odds[LOWEST_BIT[need]] * per)
                need &= need - 1
            if q > p:
                p, level, value = q, STRAIGHT + (w + 4.5) / 14.0, f[cats + STRAIGHT]
        if p > p2:
            p2, up2, r2 = p, level, value
    total = p1 + p2
    if total > 1.0:
        p1 /= total
        p2 /= total
    h[at, H_UP1] = up1
    h[at, H_P1] = p1
    h[at, H_UP2] = up2
    h[at, H_P2] = p2
    _settle(h, at, roy, r1, r2)


@njit(inline="always", cache=True)
def _settle(h: np.ndarray, at: int, r0: float, r1: float, r2: float) -> None:
    """Expected level and royalty of a row from its three outcomes (staying at H_LEVEL, H_UP1, H_UP2)."""
    p1 = h[at, H_P1]
    p2 = h[at, H_P2]
    p0 = 1.0 - p1 - p2
    h[at, H_EXPECT] = p0 * h[at, H_LEVEL] + p1 * h[at, H_UP1] + p2 * h[at, H_UP2]
    h[at, H_ROY] = p0 * r0 + p1 * r1 + p2 * r2


@njit(inline="always", cache=True)
def _below(h: np.ndarray, lo: int, level: float, inclusive: bool) -> float:
    """Chance that row ``h[lo]`` ends below ``level`` (or at it, when ``inclusive``)."""
    p = 0.0
    p1 = h[lo, H_P1]
    p2 = h[lo, H_P2]
    for lv, q in ((h[lo, H_LEVEL], 1.0 - p1 - p2), (h[lo, H_UP1], p1), (h[lo, H_UP2], p2)):
        if lv < level or (inclusive and lv == level):
            p += q
    return p


@njit(inline="always", cache=True)
def _order(h: np.ndarray, u: int, lo: int, strict: bool, avoid: float) -> float:
    """Chance that row ``h[u]`` ends above row ``h[lo]`` (or level with it, when ``strict``). The upper row
    improves only when it must: an improvement that would break the order is taken with chance 1 - ``avoid``."""
    p1 = h[lo, H_P1]
    p2 = h[lo, H_P2]
    stay = h[u, H_LEVEL]
    moves = h[u, H_P1] + h[u, H_P2] > 0.0
    risk = 0.0
    for lv, q in ((h[lo, H_LEVEL], 1.0 - p1 - p2), (h[lo, H_UP1], p1), (h[lo, H_UP2], p2)):
        if q <= 0.0:
            continue
        if stay > lv or (strict and stay == lv):
            risk += q
        elif moves:
            risk += q * (1.0 - avoid) * (1.0 - _below(h, u, lv, not strict))
    return risk


@njit(inline="always", cache=True)
def _value(h: np.ndarray, t: int, m: int, b: int, f: np.ndarray, ints: np.ndarray, params: np.ndarray) -> float:
    """Worth of the placement whose top, middle and bottom are summaries ``h[t]``, ``h[m]``, ``h[b]``: royalties,
    row strength and the top's draw while the board stays valid, less a foul (-inf where it does not fit)."""
    if h[t, H_USED] == 0.0 or h[m, H_USED] == 0.0 or h[b, H_USED] == 0.0:
        return -np.inf
    foul = params[P_FOUL]
    lowball = ints[I_LOWBALL] == 1
    avoid = params[P_AVOID]
    if lowball:
        upper = _order(h, t, b, True, avoid)
        safe = h[m, H_QUALIFY] * (1.0 - upper)
        above = b
    else:
        upper = _order(h, t, m, True, avoid)
        lower = _order(h, m, b, ints[I_STRICT] == 1, avoid)
        if lower == 1.0:
            return -foul - params[P_DEAD]
        safe = (1.0 - upper) * (1.0 - lower)
        above = m
    if safe <= 0.0 or upper == 1.0:
        return -foul - params[P_DEAD]
    earned = h[t, H_WIN] + h[m, H_WIN] + h[b, H_WIN] + h[m, H_ROY] + h[b, H_ROY]
    if h[t, H_OPEN] == 0 and h[m, H_OPEN] == 0 and h[b, H_OPEN] == 0:
        if h[t, H_FL] == 0.0 and not lowball:
            return earned + h[t, H_ROY]
        cards = fantasyland_cards(h[t, H_STRENGTH], h[m, H_STRENGTH], h[b, H_STRENGTH], ints)
        return earned + h[t, H_ROY] - h[t, H_FL] + f[O_FL_VALUE + cards]
    # What the top earns counts only as far as the row below has already made more (Fantasyland when safe).
    scale = h[above, H_SURE]
    if h[t, H_ROY] > 0.0:
        earned += h[t, H_ROY] * _sure(h[above, H_LEVEL] - h[t, H_LEVEL], scale)
    if h[t, H_DRAW] > 0.0:
        earned += params[P_DRAW] * h[t, H_DRAW] * _sure(h[above, H_LEVEL] - h[t, H_DRAW_LEVEL], scale)
    return safe * earned - (1.0 - safe) * foul


@njit(inline="always", cache=True)
def _summarise(
    s1: int,
    s2: int,
    s3: int,
    s4: int,
    suits: int,
    n: int,
    row: int,
    strength: int,
    odds: np.ndarray,
    future: float,
    per_open: np.ndarray,
    f: np.ndarray,
    ints: np.ndarray,
    params: np.ndarray,
    h: np.ndarray,
    at: int,
) -> None:
    """Summarise a row into ``h[at]`` (see :func:`_describe`), with the row points its expected level wins."""
    _describe(s1, s2, s3, s4, suits, n, row, strength, odds, future, per_open, f, ints, params, h, at)
    h[at, H_SURE] = per_open[np.int64(h[at, H_OPEN]), 3]
    if row == 1 and ints[I_LOWBALL] == 1:
        h[at, H_WIN] = 0.0
    else:
        x = params[P_WIN] * (h[at, H_EXPECT] - f[O_PARAMS + P_TYPICAL + row])
        h[at, H_WIN] = x / np.sqrt(1.0 + x * x)


@njit(inline="always", cache=True)
def _as_bottom(h: np.ndarray, mid: int, at: int, f: np.ndarray, params: np.ndarray) -> None:
    """The bottom's summary ``h[at]`` of the same cards as the middle's ``h[mid]``: only royalties and row
    points differ (a complete row's royalty by its strength, a partial row's by its outcomes' categories)."""
    for x in range(N_FIELDS):
        h[at, x] = h[mid, x]
    if h[at, H_OPEN] == 0:
        h[at, H_ROY] = f[O_ROY_BOT + np.int64(h[at, H_STRENGTH])]
    else:
        cats = O_ROY_CAT + N_CATEGORIES
        p1 = h[at, H_P1]
        p2 = h[at, H_P2]
        r0 = f[cats + np.int64(h[at, H_LEVEL])]
        r1 = f[cats + np.int64(h[at, H_UP1])]
        r2 = f[cats + np.int64(h[at, H_UP2])]
        h[at, H_ROY] = (1.0 - p1 - p2) * r0 + p1 * r1 + p2 * r2
    x = params[P_WIN] * (h[at, H_EXPECT] - f[O_PARAMS + P_TYPICAL + 2])
    h[at, H_WIN] = x / np.sqrt(1.0 + x * x)


@njit(inline="always", cache=True)
def _summaries(
    board: np.ndarray,
    counts: np.ndarray,
    dealt: np.ndarray,
    max_placed: int,
    odds: np.ndarray,
    future: float,
    per_open: np.ndarray,
    model: tuple,
    params: np.ndarray,
    h: np.ndarray,
    buf: np.ndarray,
) -> None:
    """Every row's summary for every subset of the street's cards it may receive: row ``r`` with subset ``mask``
    at ``h[(r << k) | mask]``; ``buf`` is scratch.

    On a first street of five the top takes one card at most, or a pair: two odd cards there only narrow the
    board before the middle and bottom have shown anything.
    """
    f, ints, table5, digits5, table3, digits3, low5 = model
    lowball = ints[I_LOWBALL] == 1
    k = dealt.shape[0]
    for row in range(3):
        start = 0 if row == 0 else (3 if row == 1 else 8)
        cap = 3 if row == 0 else 5
        have = counts[row]
        b1 = b2 = b3 = b4 = b_suits = 0
        for j in range(have):
            c = np.int64(board[start + j])
            buf[j] = c
            b1, b2, b3, b4, b_suits = _add(c, b1, b2, b3, b4, b_suits)
        # An empty bottom with an empty middle above it (not 2-7) is the middle's summary, paid as a bottom.
        same = row == 2 and have == 0 and counts[1] == 0 and not lowball
        for mask in range(1 << k):
            at = (row << k) | mask
            add = popcount(mask)
            if add > max_placed or have + add > cap:
                h[at, H_USED] = 0.0
                continue
            if same and mask != 0:
                _as_bottom(h, (1 << k) | mask, at, f, params)
                continue
            n = have
            s1, s2, s3, s4, suits = b1, b2, b3, b4, b_suits
            for j in range(k):
                if (mask >> j) & 1:
                    c = np.int64(dealt[j])
                    buf[n] = c
                    s1, s2, s3, s4, suits = _add(c, s1, s2, s3, s4, suits)
                    n += 1
            if row == 0 and k == 5 and add >= 2 and s2 != s1:
                h[at, H_USED] = 0.0
                continue
            strength = -1
            if n == cap:
                if cap == 3:
                    strength = np.int64(row3(buf[0], buf[1], buf[2], table3, digits3))
                else:
                    table = low5 if (row == 1 and lowball) else table5
                    strength = np.int64(row5(buf[0], buf[1], buf[2], buf[3], buf[4], table, digits5))
            _summarise(s1, s2, s3, s4, suits, n, row, strength, odds, future, per_open, f, ints, params, h, at)


@njit(inline="always", cache=True)
def _weigh(h: np.ndarray, k: int, masks: np.ndarray, f: np.ndarray, ints: np.ndarray, params: np.ndarray) -> float:
    """One action's worth (-inf where it does not fit or is not weighed). On a first street of five (not 2-7),
    a middle expected stronger than the bottom is not weighed at all: it is out of order from the start."""
    m = (1 << k) | masks[1]
    b = (2 << k) | masks[2]
    if k == 5 and ints[I_LOWBALL] == 0 and h[m, H_EXPECT] > h[b, H_EXPECT]:
        return -np.inf
    return _value(h, masks[0], m, b, f, ints, params)


@njit(inline="always", cache=True)
def _best(h: np.ndarray, k: int, act_masks: np.ndarray, f: np.ndarray, ints: np.ndarray, params: np.ndarray) -> int:
    """The first of the best actions."""
    best = 0
    best_value = -np.inf
    for a in range(act_masks.shape[0]):
        v = _weigh(h, k, act_masks[a], f, ints, params)
        if v > best_value:
            best = a
            best_value = v
    return best


@njit(inline="always", cache=True)
def _bits(x: np.uint64) -> int:
    """Set bits of a 64-bit word (SWAR popcount)."""
    x = x - ((x >> np.uint64(1)) & np.uint64(0x5555555555555555))
    x = (x & np.uint64(0x3333333333333333)) + ((x >> np.uint64(2)) & np.uint64(0x3333333333333333))
    x = (x + (x >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
    return int((x * np.uint64(0x0101010101010101)) >> np.uint64(56))


@njit(inline="always", cache=True)
def _odds(own: np.ndarray, boards: np.ndarray, hidden: np.ndarray, t: int, odds: np.ndarray) -> None:
    """The chance that the next card this player draws is of each rank, then of each suit, into ``odds``: the
    cards it has not seen (own cards, every open board) over all of them. As
    :func:`pipeline.simulate.planner_kernels.seen` for one table, without a pass over the deck."""
    known = np.uint64(0)
    for j in range(own.shape[0]):
        if own[j] < 52:
            known |= np.uint64(1) << np.uint64(own[j])
    for p in range(boards.shape[1]):
        if not hidden[t, p]:
            for j in range(13):
                if boards[t, p, j] < 52:
                    known |= np.uint64(1) << np.uint64(boards[t, p, j])
    each = 1.0 / max(1, 52 - _bits(known))
    for r in range(13):
        odds[r] = (4 - _bits((known >> np.uint64(4 * r)) & np.uint64(15))) * each
    for s in range(4):
        odds[UNSEEN_SUITS + s] = (13 - _bits(known & (np.uint64(SUIT_BITS) << np.uint64(s)))) * each


def per_open(future: int, slots: int, params: np.ndarray) -> np.ndarray:
    """(6, 4) by a row's open slots: the cards to come it may claim (its share of the open slots), for draws
    that need several of them (with some room to choose), the chance new cards pair each other in it, and the
    certainty of its made level (:data:`H_SURE`). The same for every table of a street: computed once."""
    out = np.zeros((6, 4))
    for o in range(6):
        draws = min(future, o * future / slots) if o and future and slots else 0.0
        out[o, 0] = draws
        out[o, 1] = min(future, 1.5 * draws)
        out[o, 2] = params[P_FRESH] * max(0, o - 1) * min(1.0, future / max(slots, 1))
        out[o, 3] = 0.5 / (params[P_SPREAD] + params[P_SURE_OPEN] * o)
    return out


@njit(parallel=True, cache=True, nogil=True)
def heuristic_choice(
    board: np.ndarray,
    counts: np.ndarray,
    dealt: np.ndarray,
    own: np.ndarray,
    boards: np.ndarray,
    hidden: np.ndarray,
    t: np.ndarray,
    act_masks: np.ndarray,
    max_placed: int,
    future: int,
    per_open: np.ndarray,
    model: tuple,
    params: np.ndarray,
    out: np.ndarray,
) -> None:
    """The heuristic's action for each of ``m`` boards (index into the street's actions; the first best).

    Table ``i`` is the player's ``board[i]`` with ``counts[i]`` cards per row, this street's ``dealt[i]``; what
    it has seen is its ``own[i]`` cards (255: none) and the boards of table ``t[i]`` in ``boards`` but those
    ``hidden`` (in Fantasyland).
    """
    m = board.shape[0]
    k = dealt.shape[1]
    f, ints = model[0], model[1]
    for c in prange((m + CHUNK - 1) // CHUNK):
        h = np.empty((3 << k, N_FIELDS))
        buf = np.empty(5, dtype=np.int64)
        odds = np.empty(17)
        for i in range(c * CHUNK, min(m, (c + 1) * CHUNK)):
            _odds(own[i], boards, hidden, t[i], odds)
            _summaries(board[i], counts[i], dealt[i], max_placed, odds, future, per_open, model, params, h, buf)
            out[i] = _best(h, k, act_masks, f, ints, params)


@njit(cache=True, nogil=True)
def heuristic_values(
    board: np.ndarray,
    counts: np.ndarray,
    dealt: np.ndarray,
    own: np.ndarray,
    boards: np.ndarray,
    hidden: np.ndarray,
    t: np.ndarray,
    act_masks: np.ndarray,
    max_placed: int,
    future: int,
    per_open: np.ndarray,
    model: tuple,
    params: np.ndarray,
    out: np.ndarray,
) -> None:
    """The heuristic's worth of every action (m, A): -inf where it does not fit or is not weighed."""
    k = dealt.shape[1]
    f, ints = model[0], model[1]
    h = np.empty((3 << k, N_FIELDS))
    buf = np.empty(5, dtype=np.int64)
    odds = np.empty(17)
    for i in range(board.shape[0]):
        _odds(own[i], boards, hidden, t[i], odds)
        _summaries(board[i], counts[i], dealt[i], max_placed, odds, future, per_open, model, params, h, buf)
        for a in range(act_masks.shape[0]):
            out[i, a] = _weigh(h, k, act_masks[a], f, ints, params)
