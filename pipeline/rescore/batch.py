"""Rescoring as a pure function: an Arrow record batch of boards in, record batches of results out.

The input follows ``schemas.lake.RESCORE_INPUT``: the boards of whole hands (every board of a hand in the
same batch, in any order), each with its hand's button and house rules. The outputs follow
``PAIR_RESULTS`` and ``PLAYER_RESULTS``. Nothing here reads or writes files or keeps state between calls,
so the same call gives the same result anywhere: a local run maps it over chunks of the lake, and a
distributed engine can map it over partitions.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from pipeline.lake.hashing import hash_strings
from pipeline.rescore import kernels
from pipeline.rescore.hands import grouped, hand_keys, run_starts
from pipeline.score import kernels as engine_kernels
from pipeline.score.compile import NATURALS, CompiledRules
from pipeline.score.engine import NO_NATURAL, Boards, Prepared, Scored, prepare, score
from schemas.lake import LABEL, PAIR_RESULTS, PLAYER_RESULTS
from schemas.rules import RuleSet

_CODES = {
    engine_kernels.PLAYED: "played",
    engine_kernels.NATURAL: "natural",
    engine_kernels.SURRENDER: "surrender",
    engine_kernels.FOUL: "foul",
    engine_kernels.BOTH_FOULED: "both_fouled",
}
SETTLED = tuple(_CODES[code] for code in range(len(_CODES)))
"""The ``settled`` labels, indexed by the engine's settlement code."""

_NATURAL_NAMES = pa.array([n.value for n in NATURALS])


@dataclass(frozen=True)
class Table:
    """One batch of boards as the engine's columns, with the labels the outputs repeat."""

    boards: Boards
    hand_key: np.ndarray
    player: pa.DictionaryArray
    player_id: np.ndarray
    """(boards,) uint64: the hash of each board's player's name (``player_ids``)."""
    variant: pa.DictionaryArray
    month: pa.DictionaryArray
    recorded: pa.Array
    """The points the source recorded (int32, null where it recorded none)."""
    house_rules: pa.Array
    """The rules the hand's recorded points follow, as the source declared them."""
    played_at: pa.Array
    starts: np.ndarray
    """Where each hand's boards begin."""
    n_players: np.ndarray
    position: np.ndarray
    """Each board's place after its hand's button among the hand's seats: 0 is the button, 1 acts first."""
    fantasyland_dealt: pa.Array


def _label(values: pa.Array | pa.ChunkedArray) -> pa.DictionaryArray:
    """A string column as a dictionary array with distinct values (as it is, when it already is one)."""
    if isinstance(values, pa.ChunkedArray):
        values = values.combine_chunks()
    if pa.types.is_dictionary(values.type) and len(pc.unique(values.dictionary)) == len(values.dictionary):
        return pc.fill_null(values, "").cast(LABEL)
    return pc.dictionary_encode(pc.fill_null(values.cast(pa.string()), "")).cast(LABEL)


def player_ids(player: pa.DictionaryArray) -> np.ndarray:
    """Each name's 64-bit hash: hashed once per distinct name, then gathered."""
    return hash_strings(player.dictionary)[player.indices.to_numpy(zero_copy_only=False)]


def player_names(player: pa.DictionaryArray) -> dict[int, str]:
    """The names behind ``player_ids`` of these boards: ``RESULT_PLAYERS`` rows."""
    return dict(zip(hash_strings(player.dictionary).tolist(), player.dictionary.to_pylist(), strict=True))


def _constant_label(value: str, n: int) -> pa.DictionaryArray:
    return pa.DictionaryArray.from_arrays(pa.array(np.zeros(n, np.int32)), pa.array([value]))


def _flag(batch: pa.RecordBatch, name: str) -> np.ndarray:
    return pc.fill_null(batch.column(name), False).to_numpy(zero_copy_only=False).astype(bool)


def _owners(hand: np.ndarray, sizes: np.ndarray, player: pa.DictionaryArray) -> np.ndarray:
    """Board index of each board's player's first board in the hand: a criss-cross player's two boards share it."""
    code = player.indices.to_numpy(zero_copy_only=False)
    owner = np.arange(hand.size, dtype=np.int64)
    for d in range(1, int(sizes.max()) if sizes.size else 0):  # boards of a hand are adjacent
        later = np.flatnonzero((hand[d:] == hand[:-d]) & (code[d:] == code[:-d])) + d
        owner[later] = later - d  # the largest distance seen last: the earliest board
    return owner


def _positions(hand: np.ndarray, starts: np.ndarray, seat: np.ndarray, button: np.ndarray) -> np.ndarray:
    """Each board's place after the button among its hand's seats, whatever the seat numbers (1, 3, 5 ...)."""
    order = np.lexsort((seat, hand))
    rank = np.empty(hand.size, np.int64)
    rank[order] = np.arange(hand.size) - starts[hand[order]]
    sizes = np.diff(np.r_[starts, hand.size])
    before_button = np.add.reduceat((seat < button).astype(np.int64), starts) if hand.size else rank
    return ((rank - before_button[hand]) % sizes[hand]).astype(np.int8)


def winner_seats(hand: np.ndarray, starts: np.ndarray, seat: np.ndarray, points: np.ndarray) -> np.ndarray:
    """Per board, the seat of its hand's winner, the board with strictly the most points (-1 on a tie)."""
    if hand.size == 0:
        return np.zeros(0, np.int8)
    top = np.maximum.reduceat(points, starts)
    at_top = points == top[hand]
    alone = np.add.reduceat(at_top.astype(np.int64), starts) == 1
    winner = np.full(starts.size, -1, np.int64)
    won = np.flatnonzero(at_top & alone[hand])
    winner[hand[won]] = seat[won]
    return winner[hand].astype(np.int8)


def _optional(batch: pa.RecordBatch, name: str, kind: pa.DataType) -> pa.Array:
    """A column ``RESCORE_INPUT`` allows to be left out, as nulls when it is."""
    if name in batch.schema.names:
        return batch.column(name).cast(kind)
    return pa.nulls(batch.num_rows, kind)


def read_boards(batch: pa.RecordBatch) -> Table:
    """The engine's columns from a batch of ``RESCORE_INPUT`` rows (reordered so each hand's boards are adjacent)."""
    batch = grouped(batch)
    n = batch.num_rows
    hand_key = hand_keys(batch).copy()  # writable, as the compiled gathers take it
    starts = run_starts(hand_key)
    sizes = np.diff(np.r_[starts, n])
    hand = np.repeat(np.arange(starts.size, dtype=np.int64), sizes)
    seat = batch.column("seat").to_numpy(zero_copy_only=False).astype(np.int64)
    cards = batch.column("cards").flatten().to_numpy(zero_copy_only=False).reshape(n, 13)
    button = pc.fill_null(batch.column("button"), -1).to_numpy(zero_copy_only=False).astype(np.int64)
    if (button < 0).any():  # no button recorded: the hand's highest seat (the first player listed acts first)
        top = np.maximum.reduceat(seat, starts) if n else seat
        button = np.where(button < 0, top[hand], button)
    natural_names = batch.column("natural")
    if pa.types.is_dictionary(natural_names.type):
        natural_names = natural_names.cast(pa.string())
    natural = pc.fill_null(pc.index_in(natural_names, value_set=_NATURAL_NAMES), NO_NATURAL)
    player = _label(batch.column("player"))
    boards = Boards(
        hand=hand,
        seat=seat,
        cards=np.ascontiguousarray(cards, dtype=np.uint8),
        button=button,
        in_fantasyland=_flag(batch, "fantasyland"),
        surrendered=_flag(batch, "surrendered"),
        natural=natural.to_numpy(zero_copy_only=False).astype(np.int8),
        stack=pc.fill_null(batch.column("stack"), 0).to_numpy(zero_copy_only=False).astype(np.int64),
        owner=_owners(hand, sizes, player),
        misset=_flag(batch, "misset"),
    )
    return Table(
        boards=boards,
        hand_key=hand_key,
        player=player,
        player_id=player_ids(player),
        variant=_label(batch.column("variant")),
        month=_label(batch.column("month")),
        recorded=batch.column("points").cast(pa.int32()),
        house_rules=batch.column("house_rules"),
        played_at=_optional(batch, "played_at", pa.timestamp("us", tz="UTC")),
        starts=starts,
        n_players=sizes[hand].astype(np.int8),
        position=_positions(hand, starts, seat, button),
        fantasyland_dealt=_optional(batch, "fantasyland_cards", pa.int8()),
    )


def pair_results(t: Table, result: Scored, rules: RuleSet) -> pa.RecordBatch:
    """One row per pair: ``PAIR_RESULTS``."""
    p, f = result.pairs, result.boards
    n = p.a.size
    key = np.empty(n, np.uint64)
    i8 = np.empty((len(kernels.PAIR_I8), n), np.int8)
    i32 = np.empty((len(kernels.PAIR_I32), n), np.int32)
    flags = np.empty((2, n), np.bool_)
    kernels.pair_columns(
        *(np.asarray(x, np.int64) for x in (p.a, p.b)),
        t.hand_key,
        t.boards.seat,
        f.fouled,
        np.asarray(f.royalties, np.int64),
        p.rows,
        p.scoop,
        p.kind,
        *(
            np.asarray(x, np.int64)
            for x in (
                p.row_points,
                p.bonus,
                p.royalty_points,
                p.foul_points,
                p.natural_points,
                p.surrender_points,
                p.multiplier,
                p.points,
            )
        ),
        key,
        i8,
        i32,
        flags,
    )
    columns = {
        "hand_key": pa.array(key),
        "rules": _constant_label(rules.name, n),
        "rules_key": _constant_label(rules.key, n),
        "variant": t.variant.take(p.a),
        "month": t.month.take(p.a),
        "player_a": t.player.take(p.a),
        "player_b": t.player.take(p.b),
        "played_at": t.played_at.take(p.a),
        **{name: pa.array(i8[k]) for k, name in enumerate(kernels.PAIR_I8)},
        **{name: pa.array(i32[k]) for k, name in enumerate(kernels.PAIR_I32) if name != "settled"},
        "settled": pa.DictionaryArray.from_arrays(pa.array(i32[0]), pa.array(SETTLED)),
        "fouled_a": pa.array(flags[0]),
        "fouled_b": pa.array(flags[1]),
    }
    return pa.RecordBatch.from_pydict({name: columns[name] for name in PAIR_RESULTS.names}, schema=PAIR_RESULTS)


def player_results(t: Table, result: Scored, rules: RuleSet) -> pa.RecordBatch:
    """One row per board: ``PLAYER_RESULTS``."""
    f = result.boards
    n = t.hand_key.size
    i8 = np.empty((len(kernels.PLAYER_I8), n), np.int8)
    i32 = np.empty((len(kernels.PLAYER_I32), n), np.int32)
    kernels.player_columns(
        t.boards.seat,
        np.asarray(result.net, np.int64),
        np.asarray(f.royalties, np.int64),
        np.asarray(f.fantasyland_next, np.int64),
        i8,
        i32,
    )
    columns = {
        "hand_key": pa.array(t.hand_key),
        "rules": _constant_label(rules.name, n),
        "rules_key": _constant_label(rules.key, n),
        "variant": t.variant,
        "month": t.month,
        "player": t.player,
        "player_id": pa.array(t.player_id, pa.uint64()),
        **{name: pa.array(i8[k]) for k, name in enumerate(kernels.PLAYER_I8)},
        **{name: pa.array(i32[k]) for k, name in enumerate(kernels.PLAYER_I32)},
        "fouled": pa.array(f.fouled),
        "fantasyland": pa.array(t.boards.in_fantasyland),
        "fantasyland_entry": pa.array(f.fantasyland_entry),
        "fantasyland_stay": pa.array(f.fantasyland_stay),
        "recorded_points": t.recorded,
        "played_at": t.played_at,
        "n_players": pa.array(t.n_players),
        "position": pa.array(t.position),
        "fantasyland_dealt": t.fantasyland_dealt,
        "hand_winner": pa.array(winner_seats(t.boards.hand, t.starts, t.boards.seat, np.asarray(result.net))),
    }
    return pa.RecordBatch.from_pydict({name: columns[name] for name in PLAYER_RESULTS.names}, schema=PLAYER_RESULTS)


def score_table(
    t: Table, rules: RuleSet | CompiledRules, prepared: Prepared | None = None
) -> tuple[pa.RecordBatch, pa.RecordBatch]:
    """Pair and player results of boards already read, under one rule set."""
    rule_set = rules.rules if isinstance(rules, CompiledRules) else rules
    result = score(t.boards, rules, prepared)
    return pair_results(t, result, rule_set), player_results(t, result, rule_set)


def rescore_batch(boards: pa.RecordBatch, rules: RuleSet | CompiledRules) -> tuple[pa.RecordBatch, pa.RecordBatch]:
    """Pair results and player results of every hand in ``boards`` under ``rules``."""
    return score_table(read_boards(boards), rules)


def rescore_many(
    boards: pa.RecordBatch, rules: Sequence[RuleSet | CompiledRules]
) -> list[tuple[pa.RecordBatch, pa.RecordBatch]]:
    """``rescore_batch`` under each rule set, reading and evaluating the boards once."""
    t = read_boards(boards)
    prepared = prepare(t.boards)
    return [score_table(t, r, prepared) for r in rules]


def recorded_differences(t: Table, players: pa.RecordBatch, rules: RuleSet) -> tuple[int, int]:
    """(hands checked, hands whose recorded points differ): the hands whose declared house rules are ``rules``
    (by name or key) and that recorded points, compared board by board with ``players``, their results."""
    recorded = t.recorded
    if recorded.null_count == len(recorded):
        return 0, 0
    house = _label(t.house_rules)
    declared = np.isin(np.array(house.dictionary.to_pylist(), dtype=object), [rules.name, rules.key])
    checked = declared[house.indices.to_numpy(zero_copy_only=False)] & recorded.is_valid().to_numpy(False)
    if not checked.any():
        return 0, 0
    scored = players.column("points").to_numpy(zero_copy_only=False)
    differs = checked & (pc.fill_null(recorded, 0).to_numpy(zero_copy_only=False) != scored)
    hand = t.boards.hand
    return int(np.unique(hand[checked]).size), int(np.unique(hand[differs]).size)
