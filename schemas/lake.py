"""Arrow schemas: the canonical record in Arrow form, and every table of the lake.

``RECORD`` mirrors :class:`schemas.hand.HandRecord` field for field (cards as
text, times as ISO text): it is what ingesters hand over in bulk. The lake
tables are flat, with cards as ``uint8`` codes, and partitioned by variant and
month (``variant=pineapple/month=2026-11``); the result tables of a rescore by
rule set, then variant (``rules_key=ofc@1a2b3c4d5e6f/variant=pineapple``).
"""

from __future__ import annotations

import pyarrow as pa

CARDS = pa.list_(pa.string())

PLACEMENT = pa.struct([("street", pa.int64()), ("card", pa.string()), ("row", pa.string())])

PLAYER = pa.struct(
    [
        ("name", pa.string()),
        ("seat", pa.int64()),
        ("top", CARDS),
        ("middle", CARDS),
        ("bottom", CARDS),
        ("fantasyland", pa.bool_()),
        ("fantasyland_cards", pa.int64()),
        ("surrendered", pa.bool_()),
        ("natural", pa.string()),
        ("discards", CARDS),
        ("placements", pa.list_(PLACEMENT)),
        ("points", pa.int64()),
        ("stack", pa.int64()),
    ]
)

RECORD = pa.schema(
    [
        ("hand_id", pa.string()),
        ("source", pa.string()),
        ("variant", pa.string()),
        ("played_at", pa.string()),
        ("site", pa.string()),
        ("table", pa.string()),
        ("session", pa.string()),
        ("hand_number", pa.int64()),
        ("button", pa.int64()),
        ("house_rules", pa.string()),
        ("players", pa.list_(PLAYER)),
    ]
)
"""A batch of canonical hand records, nested as in JSON."""

PARTITIONS = ("variant", "month")
"""Hive partition columns of the hand, board and placement tables."""


def _required(name: str, kind: pa.DataType) -> pa.Field:
    """A column never null. Parquet then stores no definition levels for it, which made writing the placements
    table (all of whose columns are required) nearly twice as fast."""
    return pa.field(name, kind, nullable=False)


_KEY = [
    _required("hand_key", pa.uint64()),
    _required("batch", pa.string()),
]

HANDS = pa.schema(
    [
        *_KEY,
        _required("content_hash", pa.uint64()),
        ("record_hash", pa.uint64()),
        _required("hand_id", pa.string()),
        ("source", pa.string()),
        _required("variant", pa.string()),
        _required("month", pa.string()),
        ("played_at", pa.timestamp("us", tz="UTC")),
        ("site", pa.string()),
        ("table", pa.string()),
        ("session", pa.string()),
        ("hand_number", pa.int64()),
        ("button", pa.int8()),
        ("house_rules", pa.string()),
        _required("n_players", pa.int8()),
        _required("source_file", pa.string()),
        _required("source_line", pa.int64()),
    ]
)
"""One row per hand. ``hand_key`` hashes (source, session, hand_id); ``content_hash`` hashes what was played (the
deal: variant, seats and cards); ``record_hash`` everything the hand records but its identity (null in files
written before it was kept)."""

CARDS13 = pa.binary(13)
"""A board's 13 card codes (top 3, middle 5, bottom 5) as 13 bytes: written and read at a small fraction of the
cost of a list of 13 numbers (27 M boards decoded in 0.1 s, as a list in 2.4 s). ``ofc sql`` shows them as a list
of codes; lakes of format 2 and before hold the list (``pipeline.lake.board_cards`` reads both)."""

BOARDS = pa.schema(
    [
        *_KEY,
        _required("variant", pa.string()),
        _required("month", pa.string()),
        _required("seat", pa.int8()),
        _required("player", pa.string()),
        _required("cards", CARDS13),
        _required("misset", pa.bool_()),
        _required("fantasyland", pa.bool_()),
        _required("fantasyland_cards", pa.int8()),
        _required("surrendered", pa.bool_()),
        ("natural", pa.string()),
        _required("discards", pa.list_(pa.uint8())),
        ("points", pa.int32()),
        ("stack", pa.int32()),
        ("streets", pa.string()),
        ("discard_streets", pa.string()),
    ]
)
"""One row per player per hand; ``cards`` is top 3, middle 5, bottom 5 as codes, a byte each (a misset classic
board keeps its 13 cards in the order recorded, with ``misset`` set: it fouls). ``streets``: the street each
card of ``cards`` was placed at, one digit a card (``"1111122334455"``), and ``discard_streets`` the same for
``discards``; both null when the history records no placements. They are the placements table folded into the
board, so that a rescore finds where a fouled board went dead without reading that table."""

PLACEMENTS = pa.schema(
    [
        *_KEY,
        _required("variant", pa.string()),
        _required("month", pa.string()),
        _required("seat", pa.int8()),
        _required("street", pa.int8()),
        _required("order", pa.int16()),
        _required("card", pa.uint8()),
        _required("row", pa.string()),
    ]
)
"""One row per placed or discarded card, in the order it happened (``order`` within the player's hand)."""

BATCHES = pa.schema(
    [
        ("batch", pa.string()),
        ("kind", pa.string()),
        ("started_at", pa.timestamp("us", tz="UTC")),
        ("finished_at", pa.timestamp("us", tz="UTC")),
        ("sources", pa.list_(pa.string())),
        ("records_read", pa.int64()),
        ("accepted", pa.int64()),
        ("quarantined", pa.int64()),
        ("duplicates", pa.int64()),
        ("version", pa.string()),
    ]
)
"""One row per ingest or simulation run."""

QUARANTINE = pa.schema(
    [
        ("batch", pa.string()),
        ("source_file", pa.string()),
        ("line", pa.int64()),
        ("byte_offset", pa.int64()),
        ("hand_id", pa.string()),
        ("reason", pa.string()),
        ("raw", pa.string()),
    ]
)
"""Records that could not be accepted, with where they were and why."""

RESULT_PARTITIONS = ("rules_key", "variant", "native")
"""Hive partition columns of the result tables: one folder per rule set, then per variant, then whether the rows
are the boards as played (``native=true``: scored under the rules their hands were played by), so that the
figures read as played are whole files: over 10 M hands, filtering the rows took as long as the query
(0.49 s against 0.13 s to count fouls by dead street). Not by month: a report reads every month, and month
folders split the results into row groups of a few thousand rows, which doubled the time of a scan."""

LABEL = pa.dictionary(pa.int32(), pa.string())
"""A string column with few distinct values (rule set, player, settlement), stored dictionary-encoded."""

RESCORE_INPUT = pa.schema(
    [
        ("hand_key", pa.uint64()),
        ("session", pa.string()),
        ("played_at", pa.timestamp("us", tz="UTC")),
        ("variant", pa.string()),
        ("month", pa.string()),
        ("button", pa.int8()),
        ("house_rules", pa.string()),
        ("seat", pa.int8()),
        ("player", pa.string()),
        ("cards", CARDS13),
        ("misset", pa.bool_()),
        ("fantasyland", pa.bool_()),
        ("fantasyland_cards", pa.int8()),
        ("surrendered", pa.bool_()),
        ("natural", pa.string()),
        ("stack", pa.int32()),
        ("points", pa.int32()),
        ("streets", pa.string()),
        ("discards", pa.list_(pa.uint8())),
        ("discard_streets", pa.string()),
    ]
)
"""What rescoring reads: the boards of whole hands (the ``boards`` table's columns; strings may be
dictionary-encoded, ``cards`` a list of 13 codes as well as 13 bytes) with their hand's facts from ``hands``
(``button`` null: the highest seat). Only ``hand_key``, ``variant``, ``month``, ``seat``, ``player`` and ``cards``
are required: a column left out is null (no button, no house rules, not in Fantasyland, ...), and without
``streets`` no board has a dead street."""

RESCORE_REQUIRED = ("hand_key", "variant", "month", "seat", "player", "cards")
"""The columns of ``RESCORE_INPUT`` a batch must have."""


def _results(columns: list[tuple[str, pa.DataType]], optional: tuple[str, ...] = ()) -> pa.Schema:
    """A result table's schema: columns never null are declared so, and Parquet stores no null flags for them."""
    return pa.schema([pa.field(name, kind, nullable=name in optional) for name, kind in columns])


_RESULT_KEY = [
    ("hand_key", pa.uint64()),
    ("rules", LABEL),
    ("rules_key", LABEL),
    ("native", pa.bool_()),
    ("variant", LABEL),
]
"""Every result row's hand, rule set (name and name@hash), whether that is the hand's native rule set, and its
variant (the partitions a query on one rule set, or on the hands as played, reads alone). The month it was
played in is the hand's (``hands``)."""

BOARD_RESULTS = _results(
    [
        *_RESULT_KEY,
        ("seat", pa.int8()),
        ("fouled", pa.bool_()),
        ("dead_street", pa.int8()),
        ("natural", LABEL),
        ("surrendered", pa.bool_()),
        ("royalty_top", pa.int32()),
        ("royalty_middle", pa.int32()),
        ("royalty_bottom", pa.int32()),
        ("fantasyland_entry", pa.bool_()),
        ("fantasyland_stay", pa.bool_()),
        ("fantasyland_next", pa.int8()),
        ("points", pa.int32()),
        ("scoops", pa.int8()),
        ("scooped", pa.int8()),
        ("winner_seat", pa.int8()),
    ],
    optional=("dead_street", "natural"),
)
"""One row per board per hand per rule set: the board's key (``hand_key``, ``seat``), the rule set (``rules``,
``rules_key``; ``native``: it is the rule set the hand was played by) and only what that rule set decides:
``fouled``; ``dead_street`` (the street after which a fouled board with placements could no longer avoid the
foul, under this rule set's order rule); the ``natural`` it paid and whether it honoured a surrender
(``surrendered``); royalties per row; Fantasyland earned (``fantasyland_entry``), kept (``fantasyland_stay``)
and ``fantasyland_next``, the cards of the player's next hand when it is a Fantasyland hand (else 0); net
``points`` (a hand sums to zero); the opponents it ``scoops`` and is ``scooped`` by; ``winner_seat``, the hand's
board with strictly the most points (-1 on a tie). What the record says (the player, the cards, the hand's time
and session, Fantasyland played, the points it recorded) is in ``hands`` and ``boards``, once, and the views
join the two by key (``scored_boards``, ``played_boards``). Rows are written in key order within each chunk:
a third fewer bytes for the keys."""

PAIR_RESULTS = _results(
    [
        *_RESULT_KEY,
        ("seat_a", pa.int8()),
        ("seat_b", pa.int8()),
        ("settled", LABEL),
        ("row_top", pa.int8()),
        ("row_middle", pa.int8()),
        ("row_bottom", pa.int8()),
        ("scoop", pa.int8()),
        ("points", pa.int32()),
    ],
)
"""One row per pair of boards per hand per rule set, keyed by (``hand_key``, ``seat_a``, ``seat_b``); every figure
is A's (B's is its negative). ``settled``: played, natural, surrender, foul or both_fouled. ``row_*``: +1 A won
the row, -1 B did, 0 a tie; ``scoop``: +1 A scooped, -1 B did; ``points``: what B paid A, after every bonus,
royalty, penalty and cap of the rules. The players, their boards' royalties and fouls are the boards' (the view
``scored_pairs`` sets them beside)."""

_SUMMARY_KEY = [*_RESULT_KEY[1:], ("player", LABEL), ("day", pa.date32())]
"""A summary row's rule set, partition and player, and the day (UTC) its hands were played: the filters every
report takes (rule set, variant, player, first day) apply to the summaries as to the results."""

BOARD_SUMMARY = _results(
    [
        *_SUMMARY_KEY,
        ("n_players", pa.int8()),
        ("position", pa.int8()),
        ("fantasyland", pa.bool_()),
        ("fantasyland_cards", pa.int8()),
        ("boards", pa.int64()),
        ("points", pa.int64()),
        ("squares", pa.int64()),
        ("won", pa.int64()),
        ("fouls", pa.int64()),
        ("entries", pa.int64()),
        ("stays", pa.int64()),
        ("royalty_top", pa.int64()),
        ("royalty_middle", pa.int64()),
        ("royalty_bottom", pa.int64()),
        ("royalty_squares", pa.int64()),
        ("with_royalty", pa.int64()),
        ("native_points", pa.int64()),
        ("winner_changes", pa.int64()),
        ("gain_squares", pa.int64()),
    ],
    optional=("day",),
)
"""``board_results`` summed by player, day, table size, seat (``position``) and Fantasyland (the cards dealt, 0
out of it), per rule set: what every report figure about boards reads, written by the rescore that wrote the
results, so that a report over millions of hands reads thousands of rows. Sums of the boards in each group:
``boards``, net ``points`` and their ``squares`` (for standard deviations), boards ``won`` (more than 0 points),
``fouls``, Fantasyland ``entries`` and ``stays``, royalties per row, the squares of their total and the boards
``with_royalty``, ``native_points`` (the same boards as played), ``winner_changes`` (boards whose hand's
winner differs from the hand's as played) and ``gain_squares``, the squares of each board's points less its points
as played: the spread of the paired differences that say which rule set favours whom, with an interval."""

PLAYER_SESSIONS = _results(
    [
        *_SUMMARY_KEY,
        ("session", LABEL),
        ("n_players", pa.int8()),
        ("boards", pa.int64()),
        ("points", pa.int64()),
        ("fouls", pa.int64()),
        ("entries", pa.int64()),
        ("fantasyland_hands", pa.int64()),
        ("first_played", pa.timestamp("us", tz="UTC")),
        ("last_played", pa.timestamp("us", tz="UTC")),
        ("first_hand", pa.uint64()),
    ],
    optional=("day", "session", "first_played", "last_played"),
)
"""``board_results`` summed by player, session and day (and table size), per rule set: each player's sessions,
with the first and last time played and the hand played first (``first_hand``)."""

BOARD_COUNTS = _results(
    [
        *_SUMMARY_KEY,
        ("counted", LABEL),
        ("value", pa.int32()),
        ("boards", pa.int64()),
    ],
    optional=("day", "value"),
)
"""``board_results`` counted by the value of one column, per rule set, player and day: each row's royalty
(``counted``: royalty_top, royalty_middle, royalty_bottom; every value, 0 too) and the dead street of each fouled
board (dead_street; null for a board without placements)."""

PAIR_SUMMARY = _results(
    [
        *_SUMMARY_KEY[:4],
        ("player_a", LABEL),
        ("player_b", LABEL),
        ("day", pa.date32()),
        ("matchups", pa.int64()),
        ("points", pa.int64()),
        ("squares", pa.int64()),
        ("a_scoops", pa.int64()),
        ("b_scoops", pa.int64()),
    ],
    optional=("day",),
)
"""``pair_results`` summed by the two players and the day, per rule set: ``matchups`` (pairs), A's net
``points`` and their ``squares``, and the scoops each way."""

NOTABLE_KINDS = ("fouled", "biggest win", "biggest loss", "fantasyland", "winner changes")
NOTABLE_PER_MONTH = 12
_AS_PLAYED = ("native_points", "native_fouled", "native_fantasyland_entry", "native_rules")
NOTABLE_BOARDS = _results(
    [
        *_SUMMARY_KEY,
        ("kind", LABEL),
        ("hand_key", pa.uint64()),
        ("played_at", pa.timestamp("us", tz="UTC")),
        ("points", pa.int32()),
        ("fouled", pa.bool_()),
        ("fantasyland", pa.bool_()),
        ("fantasyland_cards", pa.int8()),
        ("fantasyland_entry", pa.bool_()),
        ("native_points", pa.int32()),
        ("native_fouled", pa.bool_()),
        ("native_fantasyland_entry", pa.bool_()),
        ("native_rules", LABEL),
    ],
    optional=("day", "played_at", "fantasyland_cards", *_AS_PLAYED),
)
"""The boards a report lists for a second look, kept per rule set, player, variant and month: of each ``kind``
(``NOTABLE_KINDS``) the first ``NOTABLE_PER_MONTH`` in that kind's order (among the boards of one rescore's
chunk), so that the first of any span of months are among them. Fouled boards the costliest first, biggest
wins and losses the most points first (then the latest, then by hand key), Fantasyland boards and boards whose
hand's winner differs from the hand's as played (``winner changes``) the latest first (then by hand key). A
board of several kinds has a row for each. ``native_points``, ``native_fouled``, ``native_fantasyland_entry`` and
``native_rules`` are the board's as played and its hand's rule set: a list of winner changes read as played needs
no other table (null in lakes rescored before they were kept)."""

SUMMARY_TABLES = {
    "board_summary": BOARD_SUMMARY,
    "board_counts": BOARD_COUNTS,
    "player_sessions": PLAYER_SESSIONS,
    "pair_summary": PAIR_SUMMARY,
    "notable_boards": NOTABLE_BOARDS,
}
"""Sums of the result tables, written beside them by the same rescore."""

ANALYSIS_PARTITIONS = ("analysis", "variant")
"""Hive partition columns of the analysis tables: the analysis settings (``ofc analyse``'s rollouts, moves
compared and seed, and the method's version: each its own set of figures), then the variant."""

_ANALYSIS_KEY = [
    _required("hand_key", pa.uint64()),
    _required("batch", pa.string()),
    _required("analysis", pa.string()),
    _required("variant", pa.string()),
    _required("month", pa.string()),
    _required("content_hash", pa.uint64()),
    ("hand_id", pa.string()),
    ("played_at", pa.timestamp("us", tz="UTC")),
    _required("rules_key", pa.string()),
    _required("seat", pa.int8()),
    _required("player", pa.string()),
]
"""Every analysis row's hand (with the ``content_hash`` it was analysed as: a hand corrected since is analysed
again), the analysis and partition, the hand's native rule set, and the board."""

DECISIONS = pa.schema(
    [
        *_ANALYSIS_KEY,
        _required("n_players", pa.int8()),
        _required("street", pa.int8()),
        _required("kind", pa.string()),
        _required("dealt", pa.list_(pa.uint8())),
        _required("seen", pa.list_(pa.uint8())),
        _required("played", pa.string()),
        _required("best", pa.string()),
        _required("played_rows", pa.string()),
        _required("best_rows", pa.string()),
        _required("ev_played", pa.float64()),
        _required("ev_best", pa.float64()),
        _required("ev_lost", pa.float64()),
        _required("se", pa.float64()),
        _required("foul_played", pa.float64()),
        _required("foul_best", pa.float64()),
        _required("rollouts", pa.int32()),
        _required("moves", pa.int16()),
        _required("compared", pa.int8()),
        _required("seed", pa.uint64()),
    ]
)
"""One row per decision of an analysed board (``ofc analyse``): a street's placement (``kind``: ``initial``, the
first five cards; ``placement``, a street without a discard; ``discard``, a Pineapple street's two placed and
one discarded) or a Fantasyland setting (``fantasyland``). ``dealt``: the cards decided on; ``seen``: every card
the player had seen (their own board and discards, the open boards as they stood, ``dealt``). ``played`` and
``best``: the move played and the best move found, in words (``top Kh · middle Qs · discard 7c``);
``played_rows`` and ``best_rows`` the same as one letter per card of ``dealt`` (``t`` top, ``m`` middle, ``b``
bottom, ``x`` discard). ``ev_played`` and ``ev_best``: their expected points (net against every opponent, plus
the worth of the Fantasyland the board earns) over ``rollouts`` paired rollouts; ``ev_lost = ev_best -
ev_played`` (0 when the move played is the best), ``se`` its standard error: of the paired difference between
the move played and the best other move compared. ``foul_played`` and ``foul_best``: the share of those same
``rollouts`` in which the board of the move played, and of the best move, ended fouled (a Fantasyland setting
is a whole board: 0 or 1); ``foul_played - foul_best`` is the chance of a foul the decision added. Null in the
rows of analyses by methods before ``v3``, which did not record them. ``moves``: the legal moves; ``compared``:
those rolled out (the move played and the planner's best); ``seed``: the decision's own seed."""

ANALYSED_BOARDS = pa.schema(
    [
        *_ANALYSIS_KEY,
        _required("decisions", pa.int16()),
        ("skipped", pa.string()),
    ]
)
"""One row per board an analysis looked at: how many decisions it wrote for it, or why it wrote none
(``skipped``: a classic hand, placements not recorded, ...). An analysis run reads it to find what is left to
do, as a rescore reads its manifests."""

ANALYSIS_TABLES = {"decisions": DECISIONS, "analysed_boards": ANALYSED_BOARDS}

RESULT_TABLES = {"board_results": BOARD_RESULTS, "pair_results": PAIR_RESULTS, **SUMMARY_TABLES}
LATER_COLUMNS = {"notable_boards": _AS_PLAYED}
"""Columns a result table gained within the current result format: files written before them lack them, and
read as null (a reader that needs them finds the values elsewhere)."""

TABLES = {
    "hands": HANDS,
    "boards": BOARDS,
    "placements": PLACEMENTS,
    "batches": BATCHES,
    "quarantine": QUARANTINE,
    "board_results": BOARD_RESULTS,
    "pair_results": PAIR_RESULTS,
    **SUMMARY_TABLES,
    **ANALYSIS_TABLES,
}

TABLE_PARTITIONS = {
    "hands": PARTITIONS,
    "boards": PARTITIONS,
    "placements": PARTITIONS,
    "board_results": RESULT_PARTITIONS,
    "pair_results": RESULT_PARTITIONS,
    **dict.fromkeys(SUMMARY_TABLES, RESULT_PARTITIONS),
    **dict.fromkeys(ANALYSIS_TABLES, ANALYSIS_PARTITIONS),
}
"""Each partitioned table's hive partition columns, outermost first."""
