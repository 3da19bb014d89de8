"""Rescoring as a pure function: an Arrow record batch of boards in, record batches of results out.

The input follows ``schemas.lake.RESCORE_INPUT``: the boards of whole hands (every board of a hand in the
same batch, in any order) with their hands' facts. For each job (a rule set, for every hand it applies to or
only for the hands native to it) the output is one ``BOARD_RESULTS`` and one ``PAIR_RESULTS`` batch. Every
board is evaluated once whatever the number of jobs; each hand is also scored under its native rule set, the
baseline written beside every result; the street a fouled board went dead at is found once per order rule.
Nothing here reads or writes files or keeps state between calls, so the same call gives the same result
anywhere: a local run maps it over chunks of the lake, and a distributed engine can map it over partitions.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ofc.pipeline.errors import InputError
from ofc.pipeline.evaluate.dead import NEVER, board_dead_streets
from ofc.pipeline.game import default_buttons, facts, turns
from ofc.pipeline.lake.board_cards import card_matrix
from ofc.pipeline.rescore import result_kernels
from ofc.pipeline.rescore.plan import Job
from ofc.pipeline.rescore.summaries import (
    DAY_US,
    NO_TIME,
    Baseline,
    Groups,
    board_summaries,
    constant_label,
    label,
    pair_summary,
    times_of,
)
from ofc.pipeline.rescore.whole_hands import hand_keys, in_key_order, run_starts
from ofc.pipeline.rules.compile import NATURALS, CompiledRules, compile_rules
from ofc.pipeline.rules.native import Natives, cannot_apply
from ofc.pipeline.score import pair_kernels
from ofc.pipeline.score.engine import NO_NATURAL, Boards, Prepared, Scored, prepare, score
from ofc.schemas.lake import BOARD_RESULTS, LABEL, PAIR_RESULTS, RESCORE_INPUT, RESCORE_REQUIRED
from ofc.schemas.rules import RuleSet

__all__ = [
    "SETTLED",
    "Results",
    "ScoringInput",
    "board_results",
    "pair_results",
    "read_boards",
    "rescore_batch",
    "rescore_many",
]

_CODES = {
    pair_kernels.PLAYED: "played",
    pair_kernels.NATURAL: "natural",
    pair_kernels.SURRENDER: "surrender",
    pair_kernels.FOUL: "foul",
    pair_kernels.BOTH_FOULED: "both_fouled",
}
SETTLED = tuple(_CODES[code] for code in range(len(_CODES)))
"""The ``settled`` labels, indexed by the engine's settlement code."""

_NATURAL_NAMES = pa.array([n.value for n in NATURALS])
_FACTS = ("session", "played_at")
"""The hand's facts the summaries group by."""


@dataclass(frozen=True)
class ScoringInput:
    """One batch of boards as the engine's columns, with what the results repeat beside them."""

    boards: Boards
    hand_key: np.ndarray
    order: np.ndarray
    """Where each board was in the batch read (the lake's order: as its hands were recorded)."""
    starts: np.ndarray
    """Where each hand's boards begin (boards are grouped by hand)."""
    facts: dict[str, pa.Array]
    """Per board, its hand's ``_FACTS`` (the summaries group by them)."""
    player: pa.DictionaryArray
    variant: pa.DictionaryArray
    n_players: np.ndarray
    position: np.ndarray
    """Each board's place after its hand's button among the hand's seats: 0 is the button, 1 acts first."""
    recorded: pa.Array
    """The points the source recorded (int32, null where it recorded none)."""
    fantasyland_dealt: pa.Array
    """Cards dealt to a board played in Fantasyland (int8), null for the others."""
    streets: np.ndarray
    """(N, 13) the street each card was placed at, 0 for a board without placements."""
    placed: np.ndarray
    """Per board: its placements are recorded (every card has its street)."""
    discard_offsets: np.ndarray
    discards: np.ndarray
    discard_streets: np.ndarray
    native: np.ndarray
    """Per board, the index of its hand's native rule set in ``natives``."""
    natives: list[RuleSet]
    native_keys: list[str]
    """The keys of ``natives``."""
    variant_names: list[str]
    """``variant.dictionary`` as Python strings."""

    @property
    def n(self) -> int:
        return self.hand_key.size

    @cached_property
    def groups(self) -> Groups:
        """The boards grouped as the summaries group them: once, for every rule set's summaries."""
        times = times_of(self.facts["played_at"])
        return Groups(
            player=self.player,
            variant=self.variant,
            session=label(self.facts["session"]),
            day=np.where(times == NO_TIME, -1, times // DAY_US),
            times=times,
            player_codes=self.player.indices.to_numpy(zero_copy_only=False).astype(np.int64),
            n_players=np.asarray(self.n_players, np.int64),
            position=np.asarray(self.position, np.int64),
            fantasyland=np.asarray(self.boards.in_fantasyland, np.bool_),
            fantasyland_cards=self.fantasyland_dealt.fill_null(0).to_numpy(zero_copy_only=False).astype(np.int64),
            hand_key=np.asarray(self.hand_key),
            order=np.asarray(self.order, np.int64),
        )


@dataclass
class Results:
    """One job's results for a batch of boards."""

    job: Job
    boards: pa.RecordBatch
    pairs: pa.RecordBatch
    hands: int
    """Hands scored."""
    not_applied: dict[str, int] = field(default_factory=dict)
    """Hands left out because the rule set cannot apply to their variant (per variant), with why."""
    why: dict[str, str] = field(default_factory=dict)
    recorded_checked: int = 0
    """Hands scored under their native rules here that recorded points."""
    recorded_differing: int = 0
    """Of those, hands whose recorded points differ from ours."""
    summaries: dict[str, pa.Table] = field(default_factory=dict)
    """The results' sums (``SUMMARY_TABLES``) by table name."""


# ------------------------------------------------------------------ reading


def _label(values: pa.Array | pa.ChunkedArray) -> pa.DictionaryArray:
    """A string column as a dictionary array with distinct values (as it is, when it already is one)."""
    if isinstance(values, pa.ChunkedArray):
        values = values.combine_chunks()
    if pa.types.is_dictionary(values.type) and len(pc.unique(values.dictionary)) == len(values.dictionary):
        return pc.fill_null(values, "").cast(LABEL)
    return pc.dictionary_encode(pc.fill_null(values.cast(pa.string()), "")).cast(LABEL)


def _column(batch: pa.RecordBatch, name: str) -> pa.Array:
    """A ``RESCORE_INPUT`` column, as nulls when the batch leaves it out."""
    kind = RESCORE_INPUT.field(name).type
    if name in batch.schema.names:
        column = batch.column(name)
        return column if pa.types.is_dictionary(column.type) else column.cast(kind)
    return pa.nulls(batch.num_rows, kind)


def _flag(batch: pa.RecordBatch, name: str) -> np.ndarray:
    return pc.fill_null(_column(batch, name), False).to_numpy(zero_copy_only=False).astype(bool)


def _numbers(batch: pa.RecordBatch, name: str, fill: int) -> np.ndarray:
    return pc.fill_null(_column(batch, name), fill).to_numpy(zero_copy_only=False).astype(np.int64)


def _owners(hand: np.ndarray, sizes: np.ndarray, player: pa.DictionaryArray) -> np.ndarray:
    """Board index of each board's player's first board in the hand: a criss-cross player's two boards share it."""
    code = player.indices.to_numpy(zero_copy_only=False)
    owner = np.arange(hand.size, dtype=np.int64)
    for d in range(1, int(sizes.max()) if sizes.size else 0):  # boards of a hand are adjacent
        later = np.flatnonzero((hand[d:] == hand[:-d]) & (code[d:] == code[:-d])) + d
        owner[later] = later - d  # the largest distance seen last: the earliest board
    return owner


def _positions(hand: np.ndarray, starts: np.ndarray, seat: np.ndarray, button: np.ndarray) -> np.ndarray:
    """Each board's place after the button among its hand's seats, whatever the seat numbers (1, 3, 5 ...): the
    button (the last to act) is 0, the first to act 1."""
    sizes = np.diff(np.r_[starts, hand.size])
    return ((turns(hand, starts, seat, button) + 1) % sizes[hand]).astype(np.int8)


def _natives(variant: pa.DictionaryArray, house_rules: pa.Array, natives: Natives) -> tuple[np.ndarray, list[RuleSet]]:
    """Per board the index of its native rule set, and those rule sets: resolved once per distinct pair."""
    house = _label(house_rules) if house_rules.null_count < len(house_rules) else None
    v = variant.indices.to_numpy(zero_copy_only=False).astype(np.int64)
    h = house.indices.to_numpy(zero_copy_only=False).astype(np.int64) if house is not None else np.zeros_like(v)
    valid = house_rules.is_valid().to_numpy(zero_copy_only=False) if house is not None else np.zeros(v.size, bool)
    width = len(house.dictionary) + 1 if house is not None else 1
    pair = v * width + np.where(valid, h + 1, 0)
    distinct, inverse = np.unique(pair, return_inverse=True)
    variants = variant.dictionary.to_pylist()
    names = house.dictionary.to_pylist() if house is not None else []
    rule_sets: dict[str, RuleSet] = {}
    index = np.empty(distinct.size, dtype=np.int64)
    for i, code in enumerate(distinct.tolist()):
        vi, hi = divmod(code, width)
        rules = natives.resolve(variants[vi], names[hi - 1] if hi else None).rules
        index[i] = list(rule_sets).index(rules.key) if rules.key in rule_sets else len(rule_sets)
        rule_sets.setdefault(rules.key, rules)
    return index[inverse.ravel()], list(rule_sets.values())


def _digits(column: pa.Array, n: int, width: int | None) -> np.ndarray:
    """Street digits of a string column as numbers (0 where null); ``width`` per row, or the flat values."""
    column = column.cast(pa.string()) if not pa.types.is_string(column.type) else column
    if width is not None:
        filled = pc.fill_null(column, "0" * width)
        raw = np.frombuffer(filled.buffers()[2], dtype=np.uint8)
        offsets = np.frombuffer(filled.buffers()[1], dtype=np.int32)[filled.offset : filled.offset + n + 1]
        if n and (np.diff(offsets) != width).any():
            raise InputError(f"streets: {width} digits a board expected")
        out = raw[offsets[0] : offsets[0] + n * width].reshape(n, width).astype(np.int8) - ord("0")
        return np.where((out >= 0) & (out <= 9), out, 0).astype(np.int8)
    raw = np.frombuffer(column.buffers()[2], dtype=np.uint8) if len(column) and column.buffers()[2] else b""
    offsets = np.frombuffer(column.buffers()[1], dtype=np.int32)[column.offset : column.offset + n + 1]
    return np.frombuffer(bytes(raw), dtype=np.uint8)[offsets[0] : offsets[-1]].astype(np.int8) - ord("0")


def read_boards(batch: pa.RecordBatch, natives: Natives | None = None) -> ScoringInput:
    """The engine's columns from a batch of ``RESCORE_INPUT`` rows (reordered so each hand's boards are adjacent)."""
    missing = [c for c in RESCORE_REQUIRED if c not in batch.schema.names]
    if missing:
        raise InputError(f"a rescore input batch needs the columns {', '.join(missing)}")
    natives = natives or Natives()
    batch, order = in_key_order(batch)
    n = batch.num_rows
    hand_key = hand_keys(batch).copy()  # writable, as the compiled gathers take it
    starts = run_starts(hand_key)
    sizes = np.diff(np.r_[starts, n])
    hand = np.repeat(np.arange(starts.size, dtype=np.int64), sizes)
    seat = batch.column("seat").to_numpy(zero_copy_only=False).astype(np.int64)
    cards = np.ascontiguousarray(card_matrix(batch.column("cards")))
    button = _numbers(batch, "button", -1)
    if (button < 0).any():  # no button recorded
        button = np.where(button < 0, default_buttons(hand, seat), button)
    natural_names = _column(batch, "natural")
    if pa.types.is_dictionary(natural_names.type):
        natural_names = natural_names.cast(pa.string())
    natural = pc.fill_null(pc.index_in(natural_names, value_set=_NATURAL_NAMES), NO_NATURAL)
    player = _label(batch.column("player"))
    variant = _label(batch.column("variant"))
    variant_names = variant.dictionary.to_pylist()
    faces = np.array([facts(v).open_face for v in variant_names], dtype=bool)
    in_fantasyland = _flag(batch, "fantasyland") & faces[variant.indices.to_numpy(zero_copy_only=False)]
    boards = Boards(
        hand=hand,
        seat=seat,
        cards=cards,
        button=button,
        in_fantasyland=in_fantasyland,
        surrendered=_flag(batch, "surrendered"),
        natural=natural.to_numpy(zero_copy_only=False).astype(np.int8),
        stack=_numbers(batch, "stack", 0),
        owner=_owners(hand, sizes, player),
        misset=_flag(batch, "misset"),
        open_face=faces[variant.indices.to_numpy(zero_copy_only=False)],
    )
    discards = _column(batch, "discards")
    if discards.null_count:
        discards = pc.fill_null(discards, pa.scalar([], pa.list_(pa.uint8())))
    offsets = discards.offsets.to_numpy().astype(np.int64)
    streets = _digits(_column(batch, "streets"), n, 13)
    discard_streets = _digits(pc.fill_null(_column(batch, "discard_streets"), ""), n, None)
    if discard_streets.size != offsets[-1] - offsets[0]:  # no street recorded for the discards
        discard_streets = np.zeros(offsets[-1] - offsets[0], dtype=np.int8)
    dealt = pc.fill_null(_column(batch, "fantasyland_cards"), 0).to_numpy(zero_copy_only=False)
    native, rule_sets = _natives(variant, _column(batch, "house_rules"), natives)
    return ScoringInput(
        boards=boards,
        hand_key=hand_key,
        order=order,
        starts=starts,
        facts={name: _column(batch, name) for name in _FACTS},
        player=player,
        variant=variant,
        n_players=sizes[hand].astype(np.int8),
        position=_positions(hand, starts, seat, button),
        recorded=_column(batch, "points").cast(pa.int32()),
        fantasyland_dealt=pa.array(dealt.astype(np.int8), mask=~in_fantasyland | (dealt <= 0)),
        streets=streets,
        placed=(streets > 0).all(axis=1) if n else np.zeros(0, dtype=bool),
        discard_offsets=offsets - offsets[0],
        discards=discards.values.to_numpy(zero_copy_only=False)[offsets[0] : offsets[-1]].astype(np.uint8),
        discard_streets=discard_streets,
        native=native,
        natives=rule_sets,
        native_keys=[r.key for r in rule_sets],
        variant_names=variant_names,
    )


# ------------------------------------------------------------------ scoring


class Scorer:
    """Scores one table under rule sets, each once: the boards are evaluated once for all of them.

    Held only while the table's jobs are scored: each job's result tables need its own scores, the baseline and
    the table's ``DeadStreets``, not the scores of the others.
    """

    def __init__(self, table: ScoringInput) -> None:
        self.table = table
        self.prepared: Prepared = prepare(table.boards)
        self._scored: dict[str, Scored] = {}
        self._native: Baseline | None = None
        self.dead = DeadStreets(table)

    def score(self, rules: CompiledRules, key: str) -> Scored:
        """The table scored under ``rules`` (whose key is ``key``)."""
        if key not in self._scored:
            self._scored[key] = score(self.table.boards, rules, self.prepared)
        return self._scored[key]

    def native(self) -> Baseline:
        """Per board, its net points, its hand's winner seat, its foul and its Fantasyland entry under the hand's
        native rules, and their name."""
        if self._native is None:
            t = self.table
            points = np.zeros(t.n, dtype=np.int64)
            winners = np.full(t.n, -1, dtype=np.int8)
            fouled = np.zeros(t.n, dtype=np.bool_)
            entry = np.zeros(t.n, dtype=np.bool_)
            for i, (rules, key) in enumerate(zip(t.natives, t.native_keys, strict=True)):
                mine = t.native == i
                scored = self.score(compile_rules(rules), key)
                net = scored.net
                points[mine] = net[mine]
                winners[mine] = winner_seats(t.boards.hand, t.starts, t.boards.seat, net)[mine]
                fouled[mine] = np.asarray(scored.boards.fouled)[mine]
                entry[mine] = np.asarray(scored.boards.fantasyland_entry)[mine]
            names = np.array([r.name for r in t.natives], dtype=object)[t.native]
            self._native = Baseline(points, winners, fouled, entry, names)
        return self._native


class DeadStreets:
    """The street each fouled board of a table went dead at, found once per order rule for all its jobs.

    Not thread-safe: a local rescore asks it from the one thread that builds the table's board results.
    """

    def __init__(self, table: ScoringInput) -> None:
        self.table = table
        self._known: dict[tuple[bool, bool, int], np.ndarray] = {}

    def __call__(self, rules: CompiledRules, fouled: np.ndarray) -> np.ndarray:
        """Per board, the street it went dead at under the rule set's order rule (``NEVER`` for a board that
        did not foul or has no placements)."""
        t = self.table
        order = (rules.lowball, not rules.rules.scoring.bottom_may_equal_middle, rules.qualifier)
        judged = fouled & t.placed
        if order not in self._known:
            self._known[order] = np.full(t.n, NEVER, dtype=np.int8)
        known = self._known[order]
        todo = np.flatnonzero(judged & (known == NEVER))
        if todo.size:
            lo = t.discard_offsets
            known[todo] = board_dead_streets(
                t.boards.cards[todo],
                t.streets[todo],
                np.r_[0, np.cumsum(lo[todo + 1] - lo[todo])],
                _ranges(t.discards, lo[todo], lo[todo + 1]),
                _ranges(t.discard_streets, lo[todo], lo[todo + 1]),
                lowball=order[0],
                strict=order[1],
                qualifier=order[2],
            )
        return np.where(judged, known, NEVER)


def _ranges(values: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """``values[lo[0]:hi[0]]``, ``values[lo[1]:hi[1]]``, ... end to end."""
    lengths = hi - lo
    if not lengths.sum():
        return values[:0]
    starts = np.repeat(lo - (np.cumsum(lengths) - lengths), lengths)
    return values[starts + np.arange(int(lengths.sum()))]


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


def rows_of(t: ScoringInput, job: Job) -> tuple[np.ndarray | None, dict[str, int], dict[str, str]]:
    """The boards a job scores (None: all of them), and the hands per variant it leaves out, with why."""
    codes = t.variant.indices.to_numpy(zero_copy_only=False)
    reasons = [cannot_apply(job.rules, v) for v in t.variant_names]
    applies = np.array([r is None for r in reasons], dtype=bool)[codes]
    keep = applies
    if job.native_only:
        mine = [i for i, key in enumerate(t.native_keys) if key == job.key]
        keep = keep & np.isin(t.native, mine)
    first = t.starts
    skipped = np.bincount(codes[first][~applies[first]], minlength=len(t.variant_names))
    not_applied = {t.variant_names[i]: int(k) for i, k in enumerate(skipped.tolist()) if k}
    why = {v: reasons[i] or "" for i, v in enumerate(t.variant_names) if v in not_applied}
    return (None if keep.all() else keep), not_applied, why


# ------------------------------------------------------------------ building


def pair_results(t: ScoringInput, result: Scored, job: Job, native: np.ndarray) -> pa.RecordBatch:
    """One row per pair: ``PAIR_RESULTS``. ``native``: per board, the rule set is its hand's native one."""
    p = result.pairs
    n = p.a.size
    key = np.empty(n, np.uint64)
    i8 = np.empty((len(result_kernels.PAIR_I8), n), np.int8)
    i32 = np.empty((len(result_kernels.PAIR_I32), n), np.int32)
    result_kernels.pair_columns(
        *(np.asarray(x, np.int64) for x in (p.a, p.b)),
        t.hand_key,
        t.boards.seat,
        p.rows,
        p.scoop,
        *(np.asarray(x, np.int64) for x in (p.kind, p.points)),
        key,
        i8,
        i32,
    )
    columns = {
        "hand_key": pa.array(key),
        "rules": constant_label(job.rules.name, n),
        "rules_key": constant_label(job.key, n),
        "native": pa.array(native[p.a]),
        "variant": t.variant.take(p.a),
        **{name: pa.array(i8[k]) for k, name in enumerate(result_kernels.PAIR_I8)},
        "settled": pa.DictionaryArray.from_arrays(pa.array(i32[0]), pa.array(SETTLED)),
        "points": pa.array(i32[1]),
    }
    return pa.RecordBatch.from_pydict({name: columns[name] for name in PAIR_RESULTS.names}, schema=PAIR_RESULTS)


def board_results(t: ScoringInput, result: Scored, job: Job, native: np.ndarray, dead: np.ndarray) -> pa.RecordBatch:
    """One row per board: ``BOARD_RESULTS``. ``native``: per board, the rule set is its hand's native one;
    ``dead``: dead streets (``NEVER`` for none)."""
    f, p = result.boards, result.pairs
    n = t.n
    i8 = np.empty((len(result_kernels.BOARD_I8), n), np.int8)
    i32 = np.empty((len(result_kernels.BOARD_I32), n), np.int32)
    result_kernels.board_columns(
        t.boards.seat,
        np.asarray(result.net, np.int64),
        np.asarray(f.royalties, np.int64),
        np.asarray(f.fantasyland_next, np.int64),
        np.asarray(p.a, np.int64),
        np.asarray(p.b, np.int64),
        np.asarray(p.scoop, np.int8),
        winner_seats(t.boards.hand, t.starts, t.boards.seat, np.asarray(result.net)),
        i8,
        i32,
    )
    natural = f.natural
    columns = {
        "hand_key": pa.array(t.hand_key),
        "rules": constant_label(job.rules.name, n),
        "rules_key": constant_label(job.key, n),
        "native": pa.array(native),
        "variant": t.variant,
        "fouled": pa.array(f.fouled),
        "dead_street": pa.array(dead, mask=dead == NEVER),
        "natural": pa.DictionaryArray.from_arrays(
            pa.array(np.maximum(natural, 0).astype(np.int32), mask=natural < 0), _NATURAL_NAMES
        ),
        "surrendered": pa.array(f.surrendered),
        "fantasyland_entry": pa.array(f.fantasyland_entry),
        "fantasyland_stay": pa.array(f.fantasyland_stay),
        **{name: pa.array(i8[k]) for k, name in enumerate(result_kernels.BOARD_I8)},
        **{name: pa.array(i32[k]) for k, name in enumerate(result_kernels.BOARD_I32)},
    }
    return pa.RecordBatch.from_pydict({name: columns[name] for name in BOARD_RESULTS.names}, schema=BOARD_RESULTS)


def _job(job: Job | RuleSet) -> Job:
    return job if isinstance(job, Job) else Job(job)


@dataclass
class JobScores:
    """A job scored on a table: what its result tables are built from."""

    job: Job
    dead: DeadStreets
    scored: Scored | None
    """None when the job scores none of the table's boards."""
    keep: np.ndarray | None
    """The boards the job scores (None: all)."""
    native: np.ndarray
    """Per board: the job's rule set is its hand's native one."""
    baseline: Baseline
    hands: int
    not_applied: dict[str, int]
    why: dict[str, str]


def score_job(t: ScoringInput, scorer: Scorer, job: Job) -> JobScores:
    """Score one job on a table read (``scorer`` shares the evaluation between jobs)."""
    keep, not_applied, why = rows_of(t, job)
    native = np.array([key == job.key for key in t.native_keys], dtype=bool)[t.native]
    if keep is not None and not keep.any():
        nothing = Baseline(*(np.zeros(0, dtype=np.int8) for _ in Baseline._fields))
        return JobScores(job, scorer.dead, None, keep, native, nothing, 0, not_applied, why)
    scored = scorer.score(compile_rules(job.rules), job.key)
    hands = int(t.starts.size if keep is None else keep[t.starts].sum())
    return JobScores(job, scorer.dead, scored, keep, native, scorer.native(), hands, not_applied, why)


def build_boards(t: ScoringInput, s: JobScores) -> pa.RecordBatch:
    """The job's ``BOARD_RESULTS``, with the street each fouled board went dead at (found here, once per order
    rule for all the table's jobs: a local rescore builds a table's boards on one thread, beside the scoring)."""
    if s.scored is None:
        return _empty(BOARD_RESULTS)
    fouled = s.scored.boards.fouled if s.keep is None else s.scored.boards.fouled & s.keep
    dead = s.dead(compile_rules(s.job.rules), fouled)
    out = board_results(t, s.scored, s.job, s.native, dead)
    return out if s.keep is None else out.filter(pa.array(s.keep))


def build_pairs(t: ScoringInput, s: JobScores) -> pa.RecordBatch:
    """The job's ``PAIR_RESULTS``."""
    if s.scored is None:
        return _empty(PAIR_RESULTS)
    out = pair_results(t, s.scored, s.job, s.native)
    return out if s.keep is None else out.filter(pa.array(s.keep[s.scored.pairs.a]))


def recorded_check(t: ScoringInput, s: JobScores) -> tuple[int, int]:
    """(hands checked, hands whose recorded points differ) among the hands this job scores natively."""
    if s.scored is None:
        return 0, 0
    return recorded_differences(t, s.scored, s.native if s.keep is None else s.native & s.keep)


def board_sums(t: ScoringInput, s: JobScores, boards: pa.RecordBatch) -> dict[str, pa.Table]:
    """The summaries of the job's ``BOARD_RESULTS`` (``boards``): ``board_summary``, ``board_counts``,
    ``player_sessions``, ``notable_boards``."""
    if s.scored is None:
        return {}
    return board_summaries(t.groups, boards, s.keep, (s.job.rules.name, s.job.key), s.baseline)


def pair_sums(t: ScoringInput, s: JobScores, pairs: pa.RecordBatch) -> dict[str, pa.Table]:
    """The summary of the job's ``PAIR_RESULTS`` (``pairs``): ``pair_summary``."""
    if s.scored is None:
        return {}
    a, b = np.asarray(s.scored.pairs.a), np.asarray(s.scored.pairs.b)
    if s.keep is not None:
        kept = s.keep[a]
        a, b = a[kept], b[kept]
    return {"pair_summary": pair_summary(t.groups, pairs, a, b, (s.job.rules.name, s.job.key))}


def results(t: ScoringInput, scorer: Scorer, job: Job) -> Results:
    """One job's results for a table already read, with their summaries."""
    s = score_job(t, scorer, job)
    checked, differing = recorded_check(t, s)
    boards, pairs = build_boards(t, s), build_pairs(t, s)
    sums = board_sums(t, s, boards) | pair_sums(t, s, pairs)
    return Results(job, boards, pairs, s.hands, s.not_applied, s.why, checked, differing, sums)


def _empty(schema: pa.Schema) -> pa.RecordBatch:
    return pa.RecordBatch.from_pylist([], schema=schema)


def recorded_differences(t: ScoringInput, scored: Scored, native: np.ndarray) -> tuple[int, int]:
    """(hands checked, hands whose recorded points differ): the hands scored here under their native rules that
    recorded points, compared board by board."""
    recorded = t.recorded
    if recorded.null_count == len(recorded):
        return 0, 0
    checked = native & recorded.is_valid().to_numpy(zero_copy_only=False)
    if not checked.any():
        return 0, 0
    differs = checked & (pc.fill_null(recorded, 0).to_numpy(zero_copy_only=False) != np.asarray(scored.net))
    hands = np.add.reduceat(np.stack([checked, differs], axis=1).astype(np.int64), t.starts) > 0
    return int(hands[:, 0].sum()), int(hands[:, 1].sum())


def rescore_many(
    boards: pa.RecordBatch, jobs: Sequence[Job | RuleSet], natives: Natives | None = None
) -> list[Results]:
    """Every job's results for the hands in ``boards``, reading and evaluating the boards once.

    A job is a rule set (every hand it applies to) or a :class:`~pipeline.rescore.plan.Job`; ``natives``
    finds each hand's native rule set (by default: presets only).
    """
    t = read_boards(boards, natives)
    scorer = Scorer(t)
    return [results(t, scorer, _job(job)) for job in jobs]


def rescore_batch(
    boards: pa.RecordBatch, rules: RuleSet, natives: Natives | None = None
) -> tuple[pa.RecordBatch, pa.RecordBatch]:
    """Board results and pair results of every hand in ``boards`` that ``rules`` apply to."""
    r = rescore_many(boards, [rules], natives)[0]
    return r.boards, r.pairs
