"""Compiled bot decisions for open-face streets: the planner's board value, its choice, and Monte-Carlo rollouts.

The planner (the ``planner`` bot; ``mc`` ranks and rolls out with it) values
a partial board as expected points against one opponent. Each row is
summarised on its own as a few outcomes (staying as it is, pairing one of its
ranks, trips, two pair, a full house, a flush, a straight), each with a level
(category plus rank, one scale for every row), a chance (counted with the
cards still live for this player, and for draws that need several cards, with
the share of the cards to come the row can claim) and what it earns (royalty;
on top, the Fantasyland it would give). The rows are then taken jointly, as
if they drew independently: the board is valid in the combinations where top
< middle <= bottom, royalties and Fantasyland count only there, an
improvement that would break the order is mostly avoided (nobody has to pair
their top), and the chance of a foul costs ``foul_cost``. A complete row's
level follows the strength scale, so finished rows compare exactly as the
scorer compares them.

A street's candidate placements differ only in which of the street's cards
each row receives, so every row is summarised once per subset of those cards
and each placement costs one combination: 90 row summaries and 243
combinations for a first street of five, 21 and 27 for a Pineapple street.

Rollouts complete boards street by street with the planner's choice, from
a private random stream per table (xorshift, seeded by the caller), so the
results do not depend on how the work is split between threads.

``model`` is :meth:`pipeline.simulate.model.PlannerModel.args`: the float and int
tables (offsets ``O_*`` and ``I_*``) and the evaluator's direct tables.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from ofc.pipeline.evaluate.strength_kernels import row3, row5
from ofc.pipeline.simulate.model import (
    I_COMBINED,
    I_LOWBALL,
    I_QUALIFIER,
    I_STRICT,
    I_TIER_CARDS,
    I_TIER_ROW,
    I_TIER_THRESHOLD,
    I_TIERS,
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

# Weights (Weights.params order), relative to O_PARAMS.
P_FOUL, P_AVOID, P_WIN_SLOPE = range(3)
P_TYPICAL, P_EMPTY, P_FRESH = 3, 6, 9
# Row summary fields.
F_FLOOR, F_EXPECT, F_FL, F_STRENGTH, F_OPEN, F_QUALIFY, F_WIN, F_COUNT, F_STAY, F_TOTAL, F_OUT = range(11)
"""A row summary: its level now, expected level, Fantasyland worth as it stands (top), strength when complete
(-1 before), open slots, chance a 2-7 middle qualifies, expected row points, then its outcomes: F_COUNT of
them from F_OUT, in level order, each (level, chance, royalty and Fantasyland earned, chance and earnings of
the outcomes below it); F_STAY is where staying as it is went, F_TOTAL the expected earnings."""
O_SIZE = 5
MAX_OUTCOMES = 9
MIN_CHANCE = 0.02
N_FEATURES = F_OUT + O_SIZE * MAX_OUTCOMES
# Hand categories (pipeline.evaluate.lookup_tables).
HIGH, PAIR, TWO_PAIR, TRIPS, STRAIGHT, FLUSH, FULL_HOUSE, QUADS = range(8)
TEN = 8
UNSEEN_SUITS = 13
NO_CARD = 255
WINDOWS = (0x100F, *(0x1F << low for low in range(9)))
"""Rank masks of the ten straights, the wheel first."""
LOWEST_BIT = np.array([(m & -m).bit_length() - 1 for m in range(1 << 13)], dtype=np.int8)
"""Index of the lowest set bit of a 13-bit rank mask (-1 for none): loops visit only the ranks present."""


# ----------------------------------------------------------------------------- random streams


@njit(inline="always", cache=True)
def _mix(x: np.uint64) -> np.uint64:
    """splitmix64: turns a seed (and seed + k) into well-spread stream states."""
    x = x + np.uint64(0x9E3779B97F4A7C15)
    x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    x = x ^ (x >> np.uint64(31))
    return x | np.uint64(1)


@njit(inline="always", cache=True)
def _next(state: np.ndarray) -> np.uint64:
    """xorshift64* step on ``state[0]``."""
    x = state[0]
    x ^= x >> np.uint64(12)
    x ^= x << np.uint64(25)
    x ^= x >> np.uint64(27)
    state[0] = x
    return x * np.uint64(0x2545F4914F6CDD1D)


@njit(inline="always", cache=True)
def _randint(state: np.ndarray, n: int) -> int:
    """Uniform in 0..n-1."""
    return int((_next(state) >> np.uint64(32)) % np.uint64(n))


# ----------------------------------------------------------------------------- row summaries


@njit(inline="always", cache=True)
def _hit(outs: float, unseen: float, draws: float) -> float:
    """Chance that at least one of ``outs`` live cards comes in ``draws`` picks."""
    if outs <= 0.0 or draws <= 0.0 or unseen <= 0.0:
        return 0.0
    p = outs / unseen
    if p >= 1.0:
        return 1.0
    return 1.0 - (1.0 - p) ** draws


@njit(inline="always", cache=True)
def at_least(k: int, n: int, p: float) -> float:
    """P(Binomial(n, p) >= k)."""
    if k <= 0:
        return 1.0
    if n < k or p <= 0.0:
        return 0.0
    if p >= 1.0:
        return 1.0
    below = 0.0
    term = (1.0 - p) ** n  # P(X = 0)
    ratio = p / (1.0 - p)
    for j in range(k):
        below += term
        term = term * (n - j) / (j + 1) * ratio
    return max(0.0, 1.0 - below)


@njit(inline="always", cache=True)
def _win(level: float, row: int, f: np.ndarray) -> float:
    """Expected row points from a row's expected level: +1 always won, -1 always lost."""
    z = f[O_PARAMS + P_WIN_SLOPE] * (level - f[O_PARAMS + P_TYPICAL + row])
    return 2.0 / (1.0 + np.exp(-z)) - 1.0


@njit(inline="always", cache=True)
def popcount(x: int) -> int:
    n = 0
    while x:
        x &= x - 1
        n += 1
    return n


@njit(cache=True)
def _outcome(feats: np.ndarray, row: int, mask: int, level: float, p: float, value: float) -> None:
    """Add an improvement the row may make: its level, its chance and what it earns (royalty, Fantasyland).

    Chances below MIN_CHANCE are left out: they barely move a value and each outcome costs comparisons.
    """
    if p >= MIN_CHANCE:
        k = int(feats[row, mask, F_COUNT])
        at = F_OUT + O_SIZE * k
        feats[row, mask, at] = level
        feats[row, mask, at + 1] = p
        feats[row, mask, at + 2] = value
        feats[row, mask, F_COUNT] = k + 1


@njit(cache=True)
def _settle(
    feats: np.ndarray, row: int, mask: int, floor: float, value: float, strength: float, o: int, qualify: float,
    fl: float, f: np.ndarray, lowball: bool,
) -> None:  # fmt: skip
    """Slot 0 is staying at ``floor`` (earning ``value``): scale the improvements to at most certainty, sort the
    outcomes by level with running sums of chance and earnings, then the expected level and row points."""
    n_out = int(feats[row, mask, F_COUNT])
    total = 0.0
    for k in range(1, n_out):
        total += feats[row, mask, F_OUT + O_SIZE * k + 1]
    scale = 1.0 / total if total > 1.0 else 1.0
    feats[row, mask, F_OUT] = floor
    feats[row, mask, F_OUT + 1] = 1.0 - total * scale
    feats[row, mask, F_OUT + 2] = value
    for k in range(1, n_out):
        feats[row, mask, F_OUT + O_SIZE * k + 1] *= scale
    stay = 0
    for k in range(1, n_out):  # insertion sort of a handful of outcomes
        j = k
        while j > 0 and feats[row, mask, F_OUT + O_SIZE * (j - 1)] > feats[row, mask, F_OUT + O_SIZE * j]:
            a, b = F_OUT + O_SIZE * (j - 1), F_OUT + O_SIZE * j
            for x in range(3):
                feats[row, mask, a + x], feats[row, mask, b + x] = feats[row, mask, b + x], feats[row, mask, a + x]
            stay = j if stay == j - 1 else (j - 1 if stay == j else stay)
            j -= 1
    below_p = 0.0
    below_v = 0.0
    expect = 0.0
    for k in range(n_out):
        at = F_OUT + O_SIZE * k
        feats[row, mask, at + 3] = below_p
        feats[row, mask, at + 4] = below_v
        p = feats[row, mask, at + 1]
        below_p += p
        below_v += p * feats[row, mask, at + 2]
        expect += p * feats[row, mask, at]
    feats[row, mask, F_TOTAL] = below_v
    feats[row, mask, F_STAY] = stay
    feats[row, mask, F_FLOOR] = floor
    feats[row, mask, F_EXPECT] = expect
    feats[row, mask, F_FL] = fl
    feats[row, mask, F_STRENGTH] = strength
    feats[row, mask, F_OPEN] = o
    feats[row, mask, F_QUALIFY] = qualify
    feats[row, mask, F_WIN] = 0.0 if (row == 1 and lowball) else _win(expect, row, f)


@njit(inline="always", cache=True)
def _summarise(
    cards: np.ndarray,
    n: int,
    row: int,
    strength: int,
    live: np.ndarray,
    unseen: float,
    future: float,
    slots: float,
    f: np.ndarray,
    ints: np.ndarray,
    feats: np.ndarray,
    mask: int,
) -> None:
    """Summarise a row holding ``cards[:n]`` into ``feats[row, mask]`` (see F_*).

    ``strength`` is the row's strength when it is complete (its 2-7 value on a lowball
    middle); ``future`` cards are still to come to this player for ``slots`` open slots.
    The row's prospects are a few outcomes (level, chance, earnings): staying as it is,
    pairing one of its ranks, trips, two pair, a full house, a straight or a flush.
    """
    cap = 3 if row == 0 else 5
    o = cap - n
    lowball = ints[I_LOWBALL] == 1
    feats[row, mask, F_COUNT] = 1
    draws = 0.0
    if o > 0 and future > 0 and slots > 0:
        draws = min(future, o * future / slots)

    if row == 1 and lowball:
        # A 2-7 middle: five different ranks, ten or lower, no straight or flush. Its order against the
        # other rows does not matter; it qualifies or fouls the board.
        if n == cap:
            ok = strength <= ints[I_QUALIFIER]
            roy = f[O_ROY_MID + strength] if ok else 0.0
            _settle(feats, row, mask, 0.0, roy, strength, 0, 1.0 if ok else 0.0, 0.0, f, lowball)
            return
        hi = -1
        bits = 0
        for i in range(n):
            r = np.int64(cards[i]) >> 2
            hi = max(hi, r)
            bits |= 1 << r
        if popcount(bits) != n or hi > TEN:
            _settle(feats, row, mask, 0.0, 0.0, -1.0, o, 0.0, 0.0, f, lowball)
            return
        outs = 0.0
        for r in range(TEN + 1):
            if not (bits >> r) & 1:
                outs += live[r]
        q = at_least(o, int(future), min(1.0, outs / max(unseen, 1.0)) * 0.9)
        roy = 0.5 * f[O_LOW_HIGH + max(hi, 5 + (o + 1) // 2)]
        _settle(feats, row, mask, 0.0, roy, -1.0, o, q, 0.0, f, lowball)
        return

    if n == 0:
        level = f[O_PARAMS + P_EMPTY + row]
        _outcome(feats, row, mask, level + 1.0, 0.3, 0.0)
        _settle(feats, row, mask, level - 0.4, 0.0, -1.0, o, 1.0, 0.0, f, lowball)
        return

    # Ranks, groups and suits of the cards so far.
    hi = -1
    suited = True
    s0 = np.int64(cards[0]) & 3
    bits = 0
    npairs = 0
    pair_hi = -1
    pair_lo = -1
    trips = -1
    quads = -1
    for i in range(n):
        c = np.int64(cards[i])
        r = c >> 2
        if (c & 3) != s0:
            suited = False
        hi = max(hi, r)
        if (bits >> r) & 1:
            continue
        bits |= 1 << r
        m = 0
        for j in range(n):
            if np.int64(cards[j]) >> 2 == r:
                m += 1
        if m == 2:
            npairs += 1
            if r > pair_hi:
                pair_lo = pair_hi
                pair_hi = r
            else:
                pair_lo = max(pair_lo, r)
        elif m == 3:
            trips = r
        elif m == 4:
            quads = r
    distinct = npairs == 0 and trips < 0 and quads < 0

    if n == cap:
        level = f[O_LEVEL + strength]
        fl = 0.0
        if cap == 3:
            roy = f[O_ROY_TOP + strength]
            if trips >= 0:
                fl = f[O_FL_TRIPS + trips]
            elif pair_hi >= 0:
                fl = f[O_FL_PAIR + pair_hi]
        else:
            roy = f[(O_ROY_MID if row == 1 else O_ROY_BOT) + strength]
        _settle(feats, row, mask, level, roy + fl, strength, 0, 1.0, fl, f, lowball)
        return

    # A row still being built: what it holds, then what it may become. Levels of hands not yet
    # complete sit mid-way within their category and rank.
    fresh = f[O_PARAMS + P_FRESH] * max(0, o - 1) * min(1.0, future / max(slots, 1.0))
    if quads >= 0:
        cat, rank = QUADS, quads
    elif trips >= 0 and npairs > 0:
        cat, rank = FULL_HOUSE, trips
    elif trips >= 0:
        cat, rank = TRIPS, trips
    elif npairs == 2:
        cat, rank = TWO_PAIR, pair_hi
    elif npairs == 1:
        cat, rank = PAIR, pair_hi
    else:
        cat, rank = HIGH, hi
    floor = cat + (rank + 1.25) / 14.0
    if cap == 3:
        fl = 0.0
        if cat == TRIPS:
            fl = f[O_FL_TRIPS + trips]
            roy = f[O_TOP_TRIPS + trips] + fl
        elif cat == PAIR:
            fl = f[O_FL_PAIR + pair_hi]
            roy = f[O_TOP_PAIR + pair_hi] + fl
            p = _hit(live[pair_hi], unseen, draws)
            gain = f[O_TOP_TRIPS + pair_hi] + f[O_FL_TRIPS + pair_hi]
            _outcome(feats, row, mask, TRIPS + (pair_hi + 1.5) / 14.0, p, gain)
        else:
            roy = 0.0
            rest = bits
            while rest:
                r = LOWEST_BIT[rest]
                rest &= rest - 1
                p = _hit(live[r], unseen, draws)
                _outcome(feats, row, mask, PAIR + (r + 1.5) / 14.0, p, f[O_TOP_PAIR + r] + f[O_FL_PAIR + r])
            _outcome(feats, row, mask, PAIR + 0.35, fresh * 0.5, 0.0)
        _settle(feats, row, mask, floor, roy, -1.0, o, 1.0, fl, f, lowball)
        return

    cats = O_ROY_CAT + (row - 1) * N_CATEGORIES
    roy = f[cats + cat]
    if cat == HIGH:
        total = 0.0
        rest = bits
        while rest:
            r = LOWEST_BIT[rest]
            rest &= rest - 1
            p = _hit(live[r], unseen, draws)
            total += p
            _outcome(feats, row, mask, PAIR + (r + 1.5) / 14.0, p, f[cats + PAIR])
        _outcome(feats, row, mask, PAIR + 0.45, fresh, f[cats + PAIR])
        if o >= 3:
            # with room for it, a second pair or trips often follows the first
            _outcome(feats, row, mask, TWO_PAIR + (hi + 1.5) / 14.0, 0.5 * total * total, f[cats + TWO_PAIR])
    elif cat == PAIR:
        p = _hit(live[pair_hi], unseen, draws)
        _outcome(feats, row, mask, TRIPS + (pair_hi + 1.5) / 14.0, p, f[cats + TRIPS])
        kick = 0.0
        rest = bits & ~(1 << pair_hi)
        while rest:
            kick += live[LOWEST_BIT[rest]]
            rest &= rest - 1
        p2 = _hit(kick, unseen, draws)
        _outcome(feats, row, mask, TWO_PAIR + (pair_hi + 1.5) / 14.0, p2 + (1.0 - p2) * fresh, f[cats + TWO_PAIR])
    elif cat == TWO_PAIR:
        p = _hit(live[pair_hi] + live[pair_lo], unseen, draws)
        _outcome(feats, row, mask, FULL_HOUSE + 0.5, p, f[cats + FULL_HOUSE])
    elif cat == TRIPS:
        kick = 0.0
        rest = bits & ~(1 << trips)
        while rest:
            kick += live[LOWEST_BIT[rest]]
            rest &= rest - 1
        p = _hit(kick, unseen, draws)
        _outcome(feats, row, mask, FULL_HOUSE + (trips + 1.5) / 14.0, p + (1.0 - p) * fresh * 0.5, f[cats + FULL_HOUSE])
        _outcome(feats, row, mask, QUADS + (trips + 1.5) / 14.0, _hit(live[trips], unseen, draws), f[cats + QUADS])
    elif cat == FULL_HOUSE:
        _outcome(feats, row, mask, QUADS + (trips + 1.5) / 14.0, _hit(live[trips], unseen, draws), f[cats + QUADS])
    # Draws that need several cards get this row's share of the cards to come, with some room to choose.
    share = min(future, 1.5 * draws)
    if suited and n >= 2 and future > 0:
        p = at_least(o, int(share + 0.5), live[UNSEEN_SUITS + s0] / max(unseen, 1.0))
        _outcome(feats, row, mask, FLUSH + (hi + 1.5) / 14.0, p, f[cats + FLUSH])
    if distinct and n >= 2 and share >= o:
        # Each missing rank of a straight must come: about share / o picks at it each (linearised).
        best = 0.0
        top = 0
        per = share / o / max(unseen, 1.0)
        for w in range(10):
            window = WINDOWS[w]
            if bits & ~window:
                continue
            p = 1.0
            need = window & ~bits
            while need:
                p *= min(1.0, live[LOWEST_BIT[need]] * per)
                need &= need - 1
            if p > best:
                best = p
                top = w + 3
        _outcome(feats, row, mask, STRAIGHT + (top + 1.5) / 14.0, best, f[cats + STRAIGHT])
    _settle(feats, row, mask, floor, roy, -1.0, o, 1.0, 0.0, f, lowball)


# ----------------------------------------------------------------------------- boards


@njit(cache=True)
def _cut(feats: np.ndarray, row: int, mask: int, level: float, inclusive: bool) -> tuple[float, float]:
    """Chance that ``row`` ends below ``level`` (or at it, when ``inclusive``), and its earnings in those cases."""
    n_out = int(feats[row, mask, F_COUNT])
    for k in range(n_out):
        at = F_OUT + O_SIZE * k
        lv = feats[row, mask, at]
        if lv > level or (lv == level and not inclusive):
            return feats[row, mask, at + 3], feats[row, mask, at + 4]
    return 1.0, feats[row, mask, F_TOTAL]


@njit(cache=True)
def _below(feats: np.ndarray, row: int, mask: int, level: float, avoid: float) -> tuple[float, float]:
    """Chance that ``row`` ends strictly below ``level``, and its earnings then. An improvement that would rise
    above is avoided with chance ``avoid`` (the row stays as it is instead) when staying is below."""
    p, v = _cut(feats, row, mask, level, False)
    stay = F_OUT + O_SIZE * int(feats[row, mask, F_STAY])
    if feats[row, mask, stay] < level:
        moved = avoid * (1.0 - p)
        p += moved
        v += moved * feats[row, mask, stay + 2]
    return p, v


@njit(cache=True)
def _above(feats: np.ndarray, row: int, mask: int, level: float, strict: bool) -> tuple[float, float]:
    """Chance that ``row`` ends at or above ``level`` (strictly above when ``strict``), and its earnings then."""
    p, v = _cut(feats, row, mask, level, strict)
    return 1.0 - p, feats[row, mask, F_TOTAL] - v


@njit(cache=True)
def fantasyland_cards(top: float, middle: float, bottom: float, ints: np.ndarray) -> int:
    """Cards of the Fantasyland a complete valid board earns (0: none), as the scorer reads the tiers."""
    lowball = ints[I_LOWBALL] == 1
    cards = 0
    met = np.zeros(3, dtype=np.bool_)
    for k in range(ints[I_TIERS]):
        row = ints[I_TIER_ROW + k]
        value = top if row == 0 else (middle if row == 1 else bottom)
        threshold = ints[I_TIER_THRESHOLD + k]
        if (value <= threshold) if (row == 1 and lowball) else (value >= threshold):
            met[row] = True
            cards = max(cards, ints[I_TIER_CARDS + k])
    if ints[I_COMBINED] > 0 and met[0] + met[1] + met[2] >= 2:
        cards = ints[I_COMBINED]
    return cards


@njit(inline="always", cache=True)
def _value(feats: np.ndarray, m0: int, m1: int, m2: int, f: np.ndarray, ints: np.ndarray) -> float:
    """Expected points of a board against one opponent, from its rows' outcomes taken jointly.

    The board is valid when top < middle <= bottom (on a 2-7 middle: top < bottom, and the middle
    qualifies); royalties and Fantasyland count only in the valid cases, row points scale with the
    chance of being valid, and a foul costs ``foul_cost``.
    """
    avoid = f[O_PARAMS + P_AVOID]
    win = feats[0, m0, F_WIN] + feats[1, m1, F_WIN] + feats[2, m2, F_WIN]
    p_valid = 0.0
    earned = 0.0
    if ints[I_LOWBALL] == 1:
        for k in range(int(feats[2, m2, F_COUNT])):
            at = F_OUT + O_SIZE * k
            pb = feats[2, m2, at + 1]
            a, ra = _below(feats, 0, m0, feats[2, m2, at], avoid)
            p_valid += pb * a
            earned += pb * (ra + a * feats[2, m2, at + 2])
        q = feats[1, m1, F_QUALIFY]
        p_valid *= q
        earned = q * earned + p_valid * feats[1, m1, F_OUT + 2]
    else:
        strict = ints[I_STRICT] == 1
        stay = int(feats[1, m1, F_STAY])
        at = F_OUT + O_SIZE * stay
        a, ra = _below(feats, 0, m0, feats[1, m1, at], avoid)
        b, rb = _above(feats, 2, m2, feats[1, m1, at], strict)
        stay_valid = a * b
        stay_earned = ra * b + a * feats[1, m1, at + 2] * b + a * rb
        for j in range(int(feats[1, m1, F_COUNT])):
            at = F_OUT + O_SIZE * j
            pm = feats[1, m1, at + 1]
            if j == stay:
                p_valid += pm * stay_valid
                earned += pm * stay_earned
                continue
            a, ra = _below(feats, 0, m0, feats[1, m1, at], avoid)
            b, rb = _above(feats, 2, m2, feats[1, m1, at], strict)
            valid = a * b
            got = ra * b + a * feats[1, m1, at + 2] * b + a * rb
            if valid < stay_valid:  # an improvement that hurts the order is mostly left alone
                valid = (1.0 - avoid) * valid + avoid * stay_valid
                got = (1.0 - avoid) * got + avoid * stay_earned
            p_valid += pm * valid
            earned += pm * got
    if feats[0, m0, F_OPEN] == 0 and feats[1, m1, F_OPEN] == 0 and feats[2, m2, F_OPEN] == 0:
        if p_valid <= 0.0:
            return -f[O_PARAMS + P_FOUL]
        cards = fantasyland_cards(feats[0, m0, F_STRENGTH], feats[1, m1, F_STRENGTH], feats[2, m2, F_STRENGTH], ints)
        return earned - feats[0, m0, F_FL] + f[O_FL_VALUE + cards] + win
    return earned + p_valid * win - (1.0 - p_valid) * f[O_PARAMS + P_FOUL]


@njit(cache=True)
def _action_values(
    board: np.ndarray,
    counts: np.ndarray,
    dealt: np.ndarray,
    k: int,
    act_masks: np.ndarray,
    max_placed: int,
    live: np.ndarray,
    unseen: float,
    future: float,
    slots: float,
    model: tuple,
    feats: np.ndarray,
    buf: np.ndarray,
    values: np.ndarray,
) -> None:
    """The planner's value of every action (``-inf`` where it does not fit) into ``values``.

    ``feats`` (3, 2**k, N_FEATURES) and ``buf`` (5,) are scratch; a summary no action
    may use is marked by a NaN floor.
    """
    f, ints, table5, digits5, table3, digits3, low5 = model
    lowball = ints[I_LOWBALL] == 1
    nsub = 1 << k
    for row in range(3):
        start = 0 if row == 0 else (3 if row == 1 else 8)
        cap = 3 if row == 0 else 5
        have = counts[row]
        for j in range(have):
            buf[j] = board[start + j]
        for mask in range(nsub):
            add = 0
            n = have
            for j in range(k):
                if (mask >> j) & 1:
                    add += 1
                    if n < 5:
                        buf[n] = dealt[j]
                    n += 1
            if add > max_placed or n > cap:
                feats[row, mask, F_FLOOR] = np.nan
                continue
            strength = -1
            if n == cap:
                if cap == 3:
                    strength = np.int64(row3(buf[0], buf[1], buf[2], table3, digits3))
                else:
                    table = low5 if (row == 1 and lowball) else table5
                    strength = np.int64(row5(buf[0], buf[1], buf[2], buf[3], buf[4], table, digits5))
            _summarise(buf, n, row, strength, live, unseen, future, slots, f, ints, feats, mask)
    for a in range(act_masks.shape[0]):
        m0, m1, m2 = act_masks[a, 0], act_masks[a, 1], act_masks[a, 2]
        if np.isnan(feats[0, m0, F_FLOOR]) or np.isnan(feats[1, m1, F_FLOOR]) or np.isnan(feats[2, m2, F_FLOOR]):
            values[a] = -np.inf
        else:
            values[a] = _value(feats, m0, m1, m2, f, ints)


@njit(inline="always", cache=True)
def _apply(board: np.ndarray, counts: np.ndarray, dealt: np.ndarray, rows: np.ndarray) -> None:
    for j in range(dealt.shape[0]):
        r = rows[j]
        if r < 3:
            start = 0 if r == 0 else (3 if r == 1 else 8)
            board[start + counts[r]] = dealt[j]
            counts[r] += 1


@njit(inline="always", cache=True)
def _argmax(values: np.ndarray) -> int:
    best = 0
    for a in range(1, values.shape[0]):
        if values[a] > values[best]:
            best = a
    return best


@njit(parallel=True, cache=True, nogil=True)
def planner_values(
    boards: np.ndarray,
    counts: np.ndarray,
    dealt: np.ndarray,
    act_masks: np.ndarray,
    max_placed: int,
    live: np.ndarray,
    unseen: np.ndarray,
    future: int,
    slots: int,
    model: tuple,
    out: np.ndarray,
) -> None:
    """The planner's value of every action (m, A) for each of ``m`` boards."""
    k = dealt.shape[1]
    for i in prange(boards.shape[0]):
        feats = np.empty((3, 1 << k, N_FEATURES))
        buf = np.empty(5, dtype=np.uint8)
        _action_values(
            boards[i], counts[i], dealt[i], k, act_masks, max_placed, live[i], unseen[i], future, slots,
            model, feats, buf, out[i],
        )  # fmt: skip


@njit(parallel=True, cache=True, nogil=True)
def planner_choice(
    boards: np.ndarray,
    counts: np.ndarray,
    dealt: np.ndarray,
    act_masks: np.ndarray,
    max_placed: int,
    live: np.ndarray,
    unseen: np.ndarray,
    future: int,
    slots: int,
    model: tuple,
    out: np.ndarray,
) -> None:
    """The planner's action for each of ``m`` boards (the first best on a tie)."""
    k = dealt.shape[1]
    for i in prange(boards.shape[0]):
        feats = np.empty((3, 1 << k, N_FEATURES))
        buf = np.empty(5, dtype=np.uint8)
        values = np.empty(act_masks.shape[0])
        _action_values(
            boards[i], counts[i], dealt[i], k, act_masks, max_placed, live[i], unseen[i], future, slots,
            model, feats, buf, values,
        )  # fmt: skip
        out[i] = _argmax(values)


@njit(cache=True, nogil=True)
def random_choice(counts: np.ndarray, act_adds: np.ndarray, seed: np.uint64, out: np.ndarray) -> None:
    """A uniformly random action among those that fit, for each board."""
    state = np.empty(1, dtype=np.uint64)
    state[0] = _mix(seed)
    for i in range(counts.shape[0]):
        fits = 0
        for a in range(act_adds.shape[0]):
            if (
                counts[i, 0] + act_adds[a, 0] <= 3
                and counts[i, 1] + act_adds[a, 1] <= 5
                and counts[i, 2] + act_adds[a, 2] <= 5
            ):
                fits += 1
        pick = _randint(state, fits)
        for a in range(act_adds.shape[0]):
            if (
                counts[i, 0] + act_adds[a, 0] <= 3
                and counts[i, 1] + act_adds[a, 1] <= 5
                and counts[i, 2] + act_adds[a, 2] <= 5
            ):
                if pick == 0:
                    out[i] = a
                    break
                pick -= 1


@njit(cache=True, nogil=True)
def seen(own: np.ndarray, boards: np.ndarray, hidden: np.ndarray, live: np.ndarray, unseen: np.ndarray) -> np.ndarray:
    """Cards each player has seen (own cards, open boards) as a 52-bit mask; live cards per rank and suit."""
    m = own.shape[0]
    out = np.zeros(m, dtype=np.uint64)
    for i in range(m):
        bits = np.uint64(0)
        for j in range(own.shape[1]):
            if own[i, j] < 52:
                bits |= np.uint64(1) << np.uint64(own[i, j])
        for p in range(boards.shape[1]):
            if hidden[i, p]:
                continue
            for j in range(boards.shape[2]):
                if boards[i, p, j] < 52:
                    bits |= np.uint64(1) << np.uint64(boards[i, p, j])
        out[i] = bits
        for f in range(17):
            live[i, f] = 0.0
        count = 0
        for c in range(52):
            if not (bits >> np.uint64(c)) & np.uint64(1):
                live[i, c >> 2] += 1.0
                live[i, UNSEEN_SUITS + (c & 3)] += 1.0
                count += 1
        unseen[i] = count
    return out


# ----------------------------------------------------------------------------- rollouts


@njit(cache=True)
def _complete(
    board: np.ndarray,
    counts: np.ndarray,
    pool: np.ndarray,
    at: int,
    first_street: int,
    street_dealt: np.ndarray,
    street_discards: np.ndarray,
    actions: tuple,
    live: np.ndarray,
    unseen: float,
    model: tuple,
    feats: tuple,
    buf: np.ndarray,
    values: tuple,
) -> int:
    """Play streets ``first_street``.. (0-based) with cards from ``pool[at:]``; returns the next unused index."""
    n_streets = street_dealt.shape[0]
    for st in range(first_street, n_streets):
        k = street_dealt[st]
        dealt = pool[at : at + k]
        at += k
        future = 0
        slots = 13
        for later in range(n_streets):
            if later > st:
                future += street_dealt[later]
            if later <= st:
                slots -= street_dealt[later] - street_discards[later]
        kind = 0 if st == 0 else 1
        rows_table, masks = actions[kind]
        v = values[kind]
        _action_values(
            board, counts, dealt, k, masks, k - street_discards[st], live, unseen, future, slots, model,
            feats[kind], buf, v,
        )  # fmt: skip
        _apply(board, counts, dealt, rows_table[_argmax(v)])
    return at


@njit(parallel=True, cache=True, nogil=True)
def rollouts(
    boards: np.ndarray,
    counts: np.ndarray,
    me: np.ndarray,
    active: np.ndarray,
    dealt: np.ndarray,
    candidates: np.ndarray,
    street: int,
    street_dealt: np.ndarray,
    street_discards: np.ndarray,
    placed_after: np.ndarray,
    first_actions: tuple,
    later_actions: tuple,
    known: np.ndarray,
    live: np.ndarray,
    unseen: np.ndarray,
    seeds: np.ndarray,
    model: tuple,
    share: int,
    out_me: np.ndarray,
    out_others: np.ndarray,
) -> None:
    """Complete every board of each table ``R`` times from the cards this player has not seen.

    For table ``i``: ``me[i]`` places this street's ``dealt[i]`` with each ``candidates[i, c]`` (an
    index into the street's actions, -1 for none), then plays the later streets with the planner,
    into ``out_me[i, c, r]``. Every other ``active`` seat completes its board once per rollout into
    ``out_others[i, r, seat]``, from the cards it still has to be dealt (its current street too when it
    has not acted yet). A rollout's cards are the same for every candidate (common random numbers).
    ``street`` is 0-based; ``placed_after[s]`` is how many cards a board holds after street ``s``.

    With ``share`` above 1, the other boards are played out once every ``share`` rollouts, and the rollouts
    between deal this player's cards afresh from the cards those boards left (the same distribution: this
    player's cards given the others'), which costs a fraction of the others' completions when this player's
    cards matter most.
    """
    m = boards.shape[0]
    players = boards.shape[1]
    n_rollouts = out_me.shape[2]
    n_streets = street_dealt.shape[0]
    cur_rows = (first_actions if street == 0 else later_actions)[0]
    for i in prange(m):
        pool = np.empty(52, dtype=np.uint8)
        size = 0
        for c in range(52):
            if not (known[i] >> np.uint64(c)) & np.uint64(1):
                pool[size] = c
                size += 1
        need = 0
        for s in range(street + 1, n_streets):
            need += street_dealt[s]
        own_need = need
        first_of = np.zeros(players, dtype=np.int64)
        for p in range(players):
            if active[i, p] and p != me[i]:
                placed = counts[i, p, 0] + counts[i, p, 1] + counts[i, p, 2]
                done = 0
                while done < n_streets and placed_after[done] <= placed:
                    done += 1
                first_of[p] = done
                for s in range(done, n_streets):
                    need += street_dealt[s]
        need = min(need, size)
        feats = (np.empty((3, 32, N_FEATURES)), np.empty((3, 8, N_FEATURES)))
        values = (np.empty(first_actions[1].shape[0]), np.empty(later_actions[1].shape[0]))
        buf = np.empty(5, dtype=np.uint8)
        board = np.empty(13, dtype=np.uint8)
        cnt = np.empty(3, dtype=np.int64)
        state = np.empty(1, dtype=np.uint64)
        actions = (first_actions, later_actions)
        for r in range(n_rollouts):
            state[0] = _mix(seeds[i] + np.uint64(r))
            if r % share and own_need > 0:
                # The others' boards of the last full deal stand; this player's cards come from the rest.
                rest = size - need
                for j in range(own_need):
                    pick = j + _randint(state, own_need + rest - j)
                    if pick >= own_need:
                        pick += need - own_need
                    pool[j], pool[pick] = pool[pick], pool[j]
                out_others[i, r] = out_others[i, r - r % share]
            else:
                for j in range(need):
                    pick = j + _randint(state, size - j)
                    pool[j], pool[pick] = pool[pick], pool[j]
                at = own_need
                for p in range(players):
                    if not active[i, p] or p == me[i]:
                        continue
                    board[:] = boards[i, p]
                    cnt[:] = counts[i, p]
                    at = _complete(
                        board, cnt, pool, at, first_of[p], street_dealt, street_discards, actions, live[i],
                        unseen[i], model, feats, buf, values,
                    )  # fmt: skip
                    out_others[i, r, p] = board
            for c in range(candidates.shape[1]):
                a = candidates[i, c]
                if a < 0:
                    continue
                board[:] = boards[i, me[i]]
                cnt[:] = counts[i, me[i]]
                _apply(board, cnt, dealt[i], cur_rows[a])
                _complete(
                    board, cnt, pool, 0, street + 1, street_dealt, street_discards, actions, live[i],
                    unseen[i], model, feats, buf, values,
                )  # fmt: skip
                out_me[i, c, r] = board


# ----------------------------------------------------------------------------- classic


@njit(parallel=True, cache=True, nogil=True)
def greedy_classic(hands: np.ndarray, comb13: np.ndarray, comb8: np.ndarray, model: tuple, out: np.ndarray) -> None:
    """A quick classic setting: the best five of 13 at the bottom, the best five of the other eight in the
    middle (the lowest, on a 2-7 middle), the last three on top. Never fouls on a normal middle."""
    _, ints, table5, digits5, _, _, low5 = model
    lowball = ints[I_LOWBALL] == 1
    middle_table = low5 if lowball else table5
    for i in prange(hands.shape[0]):
        h = hands[i]
        best = -1
        pick = 0
        for j in range(comb13.shape[0]):
            c = comb13[j]
            s = np.int64(row5(h[c[0]], h[c[1]], h[c[2]], h[c[3]], h[c[4]], table5, digits5))
            if s > best:
                best = s
                pick = j
        used = np.zeros(13, dtype=np.bool_)
        for t in range(5):
            used[comb13[pick, t]] = True
            out[i, 8 + t] = h[comb13[pick, t]]
        rest = np.empty(8, dtype=np.uint8)
        n = 0
        for t in range(13):
            if not used[t]:
                rest[n] = h[t]
                n += 1
        best = -(1 << 20)
        pick = 0
        for j in range(comb8.shape[0]):
            c = comb8[j]
            s = np.int64(row5(rest[c[0]], rest[c[1]], rest[c[2]], rest[c[3]], rest[c[4]], middle_table, digits5))
            score = -s if lowball else s
            if score > best:
                best = score
                pick = j
        taken = np.zeros(8, dtype=np.bool_)
        for t in range(5):
            out[i, 3 + t] = rest[comb8[pick, t]]
            taken[comb8[pick, t]] = True
        n = 0
        for t in range(8):
            if not taken[t]:
                out[i, n] = rest[t]
                n += 1
