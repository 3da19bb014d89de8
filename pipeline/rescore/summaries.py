"""The result tables summed into the small tables a report reads (``schemas.lake.SUMMARY_TABLES``), chunk by
chunk as a rescore writes them.

A report over 10 M hands read 25 M board rows several times over, for a few thousand numbers; the summaries
hold those numbers' sums by player and day (then by table size, seat and Fantasyland, or by session), and every
figure is a sum of sums. The groups depend on the boards alone, not on the rule set, so a chunk is grouped once
(:class:`Groups`, shared by every rule set scored on it) and each rule set's results are only added up into
them, in one compiled pass per table.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import NamedTuple

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from numba import njit

from ofc.schemas.lake import (
    BOARD_COUNTS,
    BOARD_SUMMARY,
    NOTABLE_BOARDS,
    NOTABLE_KINDS,
    NOTABLE_PER_MONTH,
    PAIR_SUMMARY,
    PLAYER_SESSIONS,
)

__all__ = [
    "COUNTED",
    "DAY_US",
    "NO_TIME",
    "Baseline",
    "Groups",
    "board_summaries",
    "constant_label",
    "label",
    "pair_summary",
    "times_of",
]

DAY_US = 86_400_000_000
_SIGN = np.int64(np.iinfo(np.int64).min)
"""Flipping the top bit orders unsigned hand keys as signed integers do."""
NO_TIME = np.iinfo(np.int64).min
"""A board with no time recorded."""
COUNTED = ("royalty_top", "royalty_middle", "royalty_bottom", "dead_street")
"""The columns ``board_counts`` counts boards by the value of (``counted``)."""
_DENSE = 4
"""Combinations up to this many per row are numbered through a table of flags, more by sorting: the table costs
its size, the sort its rows' logarithm (over a chunk of 131,072 boards, a table of 4 M flags took longer than
everything else the summaries do)."""


class Baseline(NamedTuple):
    """Per board, what its hand's native rules decided: the figures set beside every rule set's (its gains, its
    winner changes) and the notable boards' values as played, which the results do not repeat."""

    points: np.ndarray
    winner_seat: np.ndarray
    fouled: np.ndarray
    fantasyland_entry: np.ndarray
    rules: np.ndarray
    """The native rule set's name (objects)."""


def _codes(values: pa.DictionaryArray) -> tuple[np.ndarray, int]:
    """A label column's codes, nulls as one more code; and how many codes."""
    n = len(values.dictionary)
    return values.indices.fill_null(n).to_numpy(zero_copy_only=False).astype(np.int64), n + 1


def label(values: pa.Array) -> pa.DictionaryArray:
    """A label column dictionary-encoded once per chunk, so that every rule set's summary takes codes."""
    return values if pa.types.is_dictionary(values.type) else pc.dictionary_encode(values)


def times_of(values: pa.Array) -> np.ndarray:
    """Microseconds since 1970, ``NO_TIME`` where none is recorded."""
    return values.cast(pa.int64()).fill_null(NO_TIME).to_numpy(zero_copy_only=False)


def number(columns: list[np.ndarray], sizes: list[int]) -> tuple[np.ndarray, np.ndarray]:
    """Rows grouped by their values in ``columns`` (each in ``0 .. size - 1``): each row's group, numbered from
    0, and one row of each group."""
    n = columns[0].size if columns else 0
    total = 1
    for s in sizes:
        total *= max(int(s), 1)
    if n == 0:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    if total >= 1 << 62:  # too many combinations for one integer: group by the columns themselves
        stacked = np.stack(columns, axis=1)
        _, first, index = np.unique(stacked, axis=0, return_index=True, return_inverse=True)
        return index.reshape(-1).astype(np.int64), first.astype(np.int64)
    key = np.zeros(n, np.int64)
    for c, s in zip(columns, sizes, strict=True):
        key = key * max(int(s), 1) + c
    if total <= _DENSE * n + 1024:
        present = np.zeros(total, np.bool_)
        present[key] = True
        numbers = np.cumsum(present) - 1
        index = numbers[key]
        first = np.empty(int(numbers[-1]) + 1, np.int64)
        first[index[::-1]] = np.arange(n - 1, -1, -1)
        return index, first
    _, first, index = np.unique(key, return_index=True, return_inverse=True)
    return index.astype(np.int64), first.astype(np.int64)


@dataclass(frozen=True)
class Groups:
    """A chunk's boards grouped as ``board_summary`` groups them, and by player and day or month alone, with each
    group's values; computed once per chunk whatever the number of rule sets."""

    player: pa.Array
    variant: pa.Array
    session: pa.Array
    day: np.ndarray
    """Days since 1970 (UTC), -1 for a board with no time."""
    times: np.ndarray
    player_codes: np.ndarray
    n_players: np.ndarray
    position: np.ndarray
    fantasyland: np.ndarray
    fantasyland_cards: np.ndarray
    hand_key: np.ndarray
    order: np.ndarray
    """Each board's place in the batch as read: a group's first hand, where none has a time, is the first recorded."""

    def _by_player(self, period: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Each board's (variant, player, period) group, and one board of each; ``period``: days or months since
        1970 (-1 for a board without a time, grouped apart)."""
        codes, n = _from_zero(period, self.day >= 0)
        return number(
            [self.variant.indices.to_numpy(zero_copy_only=False).astype(np.int64), self.player_codes, codes],
            [len(self.variant.dictionary), len(self.player.dictionary), n],
        )

    @cached_property
    def player_day(self) -> tuple[np.ndarray, np.ndarray]:
        """Each board's (variant, player, day) group, and one board of each."""
        return self._by_player(self.day)

    @cached_property
    def player_month(self) -> tuple[np.ndarray, np.ndarray]:
        """Each board's (variant, player, month) group, and one board of each: ``notable_boards``' groups."""
        return self._by_player(self.day.astype("datetime64[D]").astype("datetime64[M]").astype(np.int64))

    @cached_property
    def recorded(self) -> np.ndarray:
        """The boards in the order they were recorded (``order``): where a group's first hand is looked for."""
        return np.argsort(self.order, kind="stable")

    @cached_property
    def latest_first(self) -> tuple[np.ndarray, np.ndarray]:
        """Keys that order boards the latest first (a board without a time last), then by hand key: the ties
        of every ``notable_boards`` order."""
        latest = np.where(self.times == NO_TIME, np.iinfo(np.int64).max, -np.maximum(self.times, NO_TIME + 1))
        return latest, self.hand_key.astype(np.uint64).view(np.int64) ^ _SIGN

    @cached_property
    def boards(self) -> tuple[np.ndarray, np.ndarray]:
        """Each board's ``board_summary`` group (less the rule set's ``native``), and one board of each: its
        (variant, player, day) group split by table size, seat and Fantasyland."""
        day_group, first = self.player_day
        cards = np.where(self.fantasyland, self.fantasyland_cards, 0) + self.fantasyland  # 0: out of Fantasyland
        return number(
            [day_group, self.n_players, self.position, cards],
            [first.size, _span(self.n_players), _span(self.position), _span(cards)],
        )

    @cached_property
    def sessions(self) -> tuple[np.ndarray, np.ndarray]:
        """Each board's ``player_sessions`` group (less ``native``), and one board of each: its (variant, player,
        day) group split by session and table size."""
        day_group, first = self.player_day
        sessions, n_sessions = _codes(self.session)
        return number([day_group, sessions, self.n_players], [first.size, n_sessions, _span(self.n_players)])

    def labels(self, rows: np.ndarray, rules: tuple[str, str]) -> dict[str, pa.Array]:
        """The key columns every summary starts with, for groups represented by the boards ``rows``."""
        day = self.day[rows]
        return {
            "rules": constant_label(rules[0], rows.size),
            "rules_key": constant_label(rules[1], rows.size),
            "variant": self.variant.take(pa.array(rows)),
            "player": self.player.take(pa.array(rows)),
            "day": pa.array(day.astype(np.int32), type=pa.date32(), mask=day < 0),
        }


def _from_zero(values: np.ndarray, known: np.ndarray) -> tuple[np.ndarray, int]:
    """``values`` where ``known`` as codes from 0, every other one after them; and how many codes."""
    low = int(values[known].min()) if known.any() else 0
    high = int(values[known].max()) if known.any() else -1
    return np.where(known, values - low, high - low + 1), high - low + 2


def _split(
    group: np.ndarray, first: np.ndarray, rows: np.ndarray | None, native: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """A rule set's boards (``rows`` of the chunk, None for all) numbered by their chunk ``group`` (``first``: a
    board of each) split by ``native``; and a board of each. A rule set is native to every board of a chunk or to
    none of them more often than not: then the chunk's groups are its own."""
    if rows is None and (native.size == 0 or native.min() == native.max()):
        return group, first
    return number([group if rows is None else group[rows], native], [first.size, 2])


def _with_native(group: np.ndarray, rows: np.ndarray | None, native: np.ndarray) -> tuple[np.ndarray, int]:
    """A rule set's boards (``rows`` of the chunk, None for all) in their chunk ``group`` split by ``native``;
    and how many groups."""
    base = (group if rows is None else group[rows]) * 2 + native
    return base, int(base.max(initial=0)) + 1


def _span(values: np.ndarray) -> int:
    """How many codes ``values`` (0 and up) may take."""
    return int(values.max(initial=0)) + 1


def constant_label(value: str, n: int) -> pa.DictionaryArray:
    """A label column holding one value ``n`` times (a rule set's name on every row)."""
    return pa.DictionaryArray.from_arrays(pa.array(np.zeros(n, np.int32)), pa.array([value]))


def _numbers(batch: pa.RecordBatch, name: str) -> np.ndarray:
    return batch.column(name).to_numpy(zero_copy_only=False)


_BOARD_SUMS = (
    "boards",
    "points",
    "squares",
    "won",
    "fouls",
    "entries",
    "stays",
    "royalty_top",
    "royalty_middle",
    "royalty_bottom",
    "royalty_squares",
    "with_royalty",
    "native_points",
    "winner_changes",
    "gain_squares",
)


@njit(cache=True, nogil=True)
def _sum_boards(
    group, n, points, fouled, entry, stay, top, middle, bottom, native_points, winner, native_winner, fantasyland
):
    """Per group: the ``_BOARD_SUMS``, then the boards played in Fantasyland."""
    sums = np.zeros((n, 16), np.int64)
    for i in range(group.size):
        g = group[i]
        p = np.int64(points[i])
        royalty = np.int64(top[i]) + np.int64(middle[i]) + np.int64(bottom[i])
        sums[g, 0] += 1
        sums[g, 1] += p
        sums[g, 2] += p * p
        sums[g, 3] += p > 0
        sums[g, 4] += fouled[i]
        sums[g, 5] += entry[i]
        sums[g, 6] += stay[i]
        sums[g, 7] += top[i]
        sums[g, 8] += middle[i]
        sums[g, 9] += bottom[i]
        sums[g, 10] += royalty * royalty
        sums[g, 11] += royalty > 0
        sums[g, 12] += native_points[i]
        sums[g, 13] += winner[i] != native_winner[i]
        gain = p - np.int64(native_points[i])
        sums[g, 14] += gain * gain
        sums[g, 15] += fantasyland[i]
    return sums


@njit(cache=True, nogil=True)
def _first_and_last(group, n, times, hands, order):
    """Per group: the first and last time played, and the hand played first (the first recorded, among boards
    without a time or played at the same time); ``order``: the boards in the order they were recorded."""
    first = np.full(n, np.iinfo(np.int64).max, np.int64)
    last = np.full(n, np.iinfo(np.int64).min, np.int64)
    hand = np.zeros(n, np.uint64)
    seen = np.zeros(n, np.bool_)
    for j in range(group.size):
        i = order[j]
        g = group[i]
        t = times[i]
        if not seen[g]:
            seen[g] = True
            hand[g] = hands[i]
        if t != np.iinfo(np.int64).min:
            if t < first[g]:
                first[g] = t
                hand[g] = hands[i]
            last[g] = max(last[g], t)
    return first, last, hand


_SUMMED = (
    "points",
    "fouled",
    "fantasyland_entry",
    "fantasyland_stay",
    "royalty_top",
    "royalty_middle",
    "royalty_bottom",
    "native_points",
    "winner_seat",
    "native_winner_seat",
)


def board_summaries(
    groups: Groups,
    boards: pa.RecordBatch,
    keep: np.ndarray | None,
    rules: tuple[str, str],
    baseline: Baseline,
) -> dict[str, pa.Table]:
    """``board_summary``, ``board_counts``, ``player_sessions`` and ``notable_boards`` of one rule set's
    ``board_results`` for a chunk (``keep``: the chunk's boards it holds, None for all; ``rules``: the rule set's
    name and key; ``baseline``: every board's as played)."""
    rows = None if keep is None else np.flatnonzero(keep)

    def kept(values: np.ndarray) -> np.ndarray:
        return values if rows is None else values[rows]

    native = _numbers(boards, "native").astype(np.int64)
    played = {"native_points": kept(baseline.points), "native_winner_seat": kept(baseline.winner_seat)}
    columns = [played[c] if c in played else _numbers(boards, c) for c in _SUMMED]
    fantasyland = kept(groups.fantasyland)

    group, first = groups.boards
    index, where = _split(group, first, rows, native)
    sums = _sum_boards(index, where.size, *columns, fantasyland)
    at = rows[where] if rows is not None else where  # a board of each summary row
    cards = groups.fantasyland_cards[at]
    in_fantasyland = groups.fantasyland[at]
    summary = {
        **groups.labels(at, rules),
        "native": pa.array(native[where].astype(np.bool_)),
        "n_players": pa.array(groups.n_players[at].astype(np.int8)),
        "position": pa.array(groups.position[at].astype(np.int8)),
        "fantasyland": pa.array(in_fantasyland),
        "fantasyland_cards": pa.array(np.where(in_fantasyland, cards, 0).astype(np.int8)),
        **{name: pa.array(sums[:, k]) for k, name in enumerate(_BOARD_SUMS)},
    }

    group, first = groups.sessions
    index, where = _split(group, first, rows, native)
    sums = _sum_boards(index, where.size, *columns, fantasyland)
    recorded = groups.recorded if rows is None else np.argsort(groups.order[rows], kind="stable")
    first_t, last_t, hand = _first_and_last(index, where.size, kept(groups.times), kept(groups.hand_key), recorded)
    at = rows[where] if rows is not None else where
    sessions = {
        **groups.labels(at, rules),
        "native": pa.array(native[where].astype(np.bool_)),
        "session": groups.session.take(pa.array(at)),
        "n_players": pa.array(groups.n_players[at].astype(np.int8)),
        "boards": pa.array(sums[:, 0]),
        "points": pa.array(sums[:, 1]),
        "fouls": pa.array(sums[:, 4]),
        "entries": pa.array(sums[:, 5]),
        "fantasyland_hands": pa.array(sums[:, 15]),
        "first_played": _timestamps(first_t),
        "last_played": _timestamps(last_t),
        "first_hand": pa.array(hand),
    }
    return {
        "board_summary": _table(summary, BOARD_SUMMARY),
        "board_counts": _counts(groups, boards, rows, native, rules),
        "player_sessions": _table(sessions, PLAYER_SESSIONS),
        "notable_boards": _notable(groups, boards, rows, native, rules, Baseline(*(kept(b) for b in baseline))),
    }


def _timestamps(values: np.ndarray) -> pa.Array:
    none = (values == np.iinfo(np.int64).max) | (values == np.iinfo(np.int64).min)
    return pa.array(np.where(none, 0, values), type=pa.timestamp("us", tz="UTC"), mask=none)


@njit(cache=True, nogil=True)
def _tally(base, n_base, top, middle, bottom, dead, fouled, span):
    """Per group of ``base`` and value (``value + 1``, so that a dead street's -1 counts too): boards by each row's
    royalty, and fouled boards by dead street; with the first board of each."""
    counts = np.zeros((4, n_base, span), np.int64)
    first = np.full((4, n_base, span), -1, np.int64)
    for i in range(base.size):
        g = base[i]
        for k in range(4):
            if k == 3 and not fouled[i]:
                continue
            v = (top[i] if k == 0 else middle[i] if k == 1 else bottom[i] if k == 2 else dead[i]) + 1
            if counts[k, g, v] == 0:
                first[k, g, v] = i
            counts[k, g, v] += 1
    return counts, first


_TALLIED = 1 << 22
"""Cells of (column, group, value) counted in one table; more are numbered by sorting (``number``)."""


def _counts(
    groups: Groups, boards: pa.RecordBatch, rows: np.ndarray | None, native: np.ndarray, rules: tuple[str, str]
) -> pa.Table:
    """``board_counts``: boards by each row's royalty, and fouled boards by dead street, over (player and day,
    native, value); in one compiled pass over a table of counts when it is small, as it is (a few players a
    day in a chunk), else one numbering a column."""
    base, n_base = _with_native(groups.player_day[0], rows, native)
    fouled = _numbers(boards, "fouled").astype(np.bool_)
    dead = boards.column("dead_street").cast(pa.int64()).fill_null(-1).to_numpy(zero_copy_only=False)
    columns = [_numbers(boards, c).astype(np.int64) for c in COUNTED[:3]] + [dead]
    span = max(int(c.max(initial=0)) for c in columns) + 2
    if columns[0].size and min(int(c.min()) for c in columns) >= -1 and 4 * n_base * span <= _TALLIED:
        tally, firsts = _tally(base, n_base, *columns, fouled, span)
        kind, _, shifted = np.nonzero(tally)
        sizes = tally[tally > 0]
        board = firsts[tally > 0]
        value = shifted - 1
    else:
        kinds, values, found, counted = [], [], [], []
        for k, value in enumerate(columns):
            only = fouled if k == 3 else None
            at = base if only is None else base[only]
            value = value if only is None else value[only]
            low = int(value.min(initial=0))
            index, first = number([at, value - low], [n_base, int(value.max(initial=0)) - low + 1])
            counted.append(np.bincount(index, minlength=first.size))
            kinds.append(np.full(first.size, k, np.int64))
            values.append(value[first])
            found.append(first if only is None else np.flatnonzero(only)[first])
        board, kind = np.concatenate(found), np.concatenate(kinds)  # a board of each count, among the rule set's
        value, sizes = np.concatenate(values), np.concatenate(counted)
    at = board if rows is None else rows[board]
    counts = {
        **groups.labels(at, rules),
        "native": pa.array(native[board].astype(np.bool_)),
        "counted": pa.DictionaryArray.from_arrays(pa.array(kind.astype(np.int32)), pa.array(COUNTED)),
        "value": pa.array(value.astype(np.int32), mask=(kind == 3) & (value < 0)),
        "boards": pa.array(sizes.astype(np.int64)),
    }
    return _table(counts, BOARD_COUNTS)


@njit(inline="always")
def _before(first, second, third, i, j):
    """Row ``i`` comes before row ``j``: by ``first``, then ``second``, then ``third``."""
    if first[i] != first[j]:
        return first[i] < first[j]
    if second[i] != second[j]:
        return second[i] < second[j]
    return third[i] < third[j]


@njit(cache=True, nogil=True)
def _firsts(group, n, wanted, first, second, third, k):
    """Per group, the first ``k`` of the ``wanted`` rows in the order of (first, second, third): a flag per row.
    Each group's first rows are kept in order as the rows go by; most rows are after them and cost one
    comparison."""
    kept = np.full((n, k), -1, np.int64)
    count = np.zeros(n, np.int64)
    for i in range(group.size):
        if not wanted[i]:
            continue
        g = group[i]
        c = count[g]
        if c == k:
            if not _before(first, second, third, i, kept[g, k - 1]):
                continue
            c = k - 1
        else:
            count[g] = c + 1
        while c > 0 and _before(first, second, third, i, kept[g, c - 1]):
            kept[g, c] = kept[g, c - 1]
            c -= 1
        kept[g, c] = i
    flags = np.zeros(group.size, np.bool_)
    for g in range(n):
        for c in range(count[g]):
            flags[kept[g, c]] = True
    return flags


def _notable(
    groups: Groups,
    boards: pa.RecordBatch,
    rows: np.ndarray | None,
    native: np.ndarray,
    rules: tuple[str, str],
    played: Baseline,
) -> pa.Table:
    """``notable_boards``: of each kind, the first ``NOTABLE_PER_MONTH`` boards per player, variant and month (and
    native) in the order the query ``notable_hands`` lists them, each with its values as played (``played``: the
    chunk's kept boards)."""
    base, n_base = _with_native(groups.player_month[0], rows, native)
    latest, hand = (k if rows is None else k[rows] for k in groups.latest_first)
    fantasyland = groups.fantasyland if rows is None else groups.fantasyland[rows]
    points = _numbers(boards, "points").astype(np.int64)
    nothing = np.zeros(points.size, np.int64)
    fouled = _numbers(boards, "fouled").astype(np.bool_)
    changed = _numbers(boards, "winner_seat") != played.winner_seat
    orders = {
        "fouled": (fouled, points, latest, hand),
        "biggest win": (points > 0, -points, latest, hand),
        "biggest loss": (points < 0, points, latest, hand),
        "fantasyland": (fantasyland, latest, nothing, hand),
        "winner changes": (changed, latest, nothing, hand),
    }
    picked, kinds = [], []
    for k, kind in enumerate(NOTABLE_KINDS):
        wanted, first, second, third = orders[kind]
        at = np.flatnonzero(_firsts(base, n_base, wanted, first, second, third, NOTABLE_PER_MONTH))
        picked.append(at)
        kinds.append(np.full(at.size, k, np.int32))
    board = np.concatenate(picked)
    taken = pa.array(board)
    at = board if rows is None else rows[board]  # the boards in the chunk's order, as the groups hold them
    in_fantasyland = groups.fantasyland[at]
    cards = groups.fantasyland_cards[at]
    notable = {
        **groups.labels(at, rules),
        "native": pa.array(native[board].astype(np.bool_)),
        "kind": pa.DictionaryArray.from_arrays(pa.array(np.concatenate(kinds)), pa.array(NOTABLE_KINDS)),
        "hand_key": pa.array(groups.hand_key[at]),
        "played_at": _timestamps(groups.times[at]),
        "fantasyland": pa.array(in_fantasyland),
        "fantasyland_cards": pa.array(cards.astype(np.int8), mask=~in_fantasyland | (cards <= 0)),
        **{c: boards.column(c).take(taken) for c in ("points", "fouled", "fantasyland_entry")},
        "native_points": pa.array(played.points[board].astype(np.int32)),
        "native_fouled": pa.array(played.fouled[board]),
        "native_fantasyland_entry": pa.array(played.fantasyland_entry[board]),
        "native_rules": pa.array(played.rules[board], pa.string()),
    }
    return _table(notable, NOTABLE_BOARDS)


@njit(cache=True, nogil=True)
def _sum_pairs(group, n, points, scoop):
    """Per group: matchups, points, squares, A's scoops, B's scoops."""
    sums = np.zeros((n, 5), np.int64)
    for i in range(group.size):
        g = group[i]
        p = np.int64(points[i])
        sums[g, 0] += 1
        sums[g, 1] += p
        sums[g, 2] += p * p
        sums[g, 3] += scoop[i] > 0
        sums[g, 4] += scoop[i] < 0
    return sums


def pair_summary(
    groups: Groups, pairs: pa.RecordBatch, a: np.ndarray, b: np.ndarray, rules: tuple[str, str]
) -> pa.Table:
    """``pair_summary`` of one rule set's ``pair_results`` for a chunk, whose pairs are the boards ``a`` and ``b``
    (indices into the chunk)."""
    group, _ = groups.player_day
    native = _numbers(pairs, "native").astype(np.int64)
    index, where = number(
        [group[a], groups.player_codes[b], native],
        [int(group.max(initial=0)) + 1, len(groups.player.dictionary), 2],
    )
    sums = _sum_pairs(index, where.size, _numbers(pairs, "points"), _numbers(pairs, "scoop"))
    at_a, at_b = a[where], b[where]
    labels = groups.labels(at_a, rules)
    summary = {
        **{k: v for k, v in labels.items() if k != "player"},
        "native": pa.array(native[where].astype(np.bool_)),
        "player_a": labels["player"],
        "player_b": groups.player.take(pa.array(at_b)),
        **{
            name: pa.array(sums[:, k])
            for k, name in enumerate(("matchups", "points", "squares", "a_scoops", "b_scoops"))
        },
    }
    return _table(summary, PAIR_SUMMARY)


def _table(columns: dict[str, pa.Array], schema: pa.Schema) -> pa.Table:
    out = {}
    for f in schema:
        column = columns[f.name]
        if pa.types.is_dictionary(f.type) and not pa.types.is_dictionary(column.type):
            column = pc.dictionary_encode(column)
        out[f.name] = column.cast(f.type)
    return pa.Table.from_pydict(out, schema=schema)
