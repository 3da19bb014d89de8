"""Check a chunk of canonical records and turn the good ones into lake rows, as column operations.

Every check runs over the whole chunk at once (hands, boards, cards and
placements as flat columns); a hand that fails any check gets one precise
reason naming its field, the first that failed in the order below, and goes
to quarantine. The rest become rows of the hands, boards and placements
tables. Checks: the hand's fields, 2-4 players (3 in Pineapple), names,
rows of 3 / 5 / 5 (a misset classic board is kept, it fouls), card syntax,
no card twice in a hand (rows and discards), Fantasyland, surrender and
naturals allowed by the variant, discards and Fantasyland card counts,
placements consistent with the final rows and with the variant's streets,
the played-at time.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from numba import njit

from ofc.pipeline.cards import CARD_NAMES, parse_card_column
from ofc.pipeline.game import BOARD, MAX_SEAT, PLACEMENT_ROWS, ROW_SIZES, ROWS, SEATS, facts
from ofc.pipeline.ingest.base import FIELD_PATH, RAW_LIMIT, Chunk, Issue, Problem
from ofc.pipeline.ingest.checks import (
    CLASSIC,
    DISCARD_ROW,
    FANTASYLAND_MASK,
    FIRST_STREET,
    LAST_STREET,
    MAX_PLAYERS,
    MAX_PLAYERS_OF,
    MIN_PLAYERS,
    NATURAL_NAMES,
    NORMAL_DISCARDS,
    POINTS_MAX,
    ROW_OF_PLACE,
    STACK_MAX,
    STACK_MIN,
    STREET_DISCARDED,
    STREET_PLACED,
    VARIANT_NAMES,
)
from ofc.pipeline.ingest.columns import TEXT_FIELDS, BoardColumns, HandColumns, PlacementColumns
from ofc.pipeline.ingest.times import parse_times
from ofc.pipeline.lake.hashing import combine, fold_columns, hash_joined, hash_rows, hash_strings
from ofc.pipeline.suggest import closest, did_you_mean
from ofc.schemas.lake import CARDS13
from ofc.schemas.rules import Dealing

_VARIANT_NAMES = pa.array(VARIANT_NAMES)
_ROW_NAMES = pa.array(PLACEMENT_ROWS)
_TOO_MANY_PLAYERS = [
    f"players: {'Pineapple' if f.dealing is Dealing.PINEAPPLE else f.variant.value} is played by at most "
    f"{f.max_players} players"
    for f in map(facts, VARIANT_NAMES)
]
"""Why a hand of each variant has too many players (where the variant seats fewer than MAX_PLAYERS)."""
UNKNOWN_MONTH = "unknown"
_MIX = np.uint64(0x9E3779B97F4A7C15)


@dataclass
class Validated:
    """The chunk's accepted hands as lake rows, and its rejected records."""

    hands: pa.Table
    boards: pa.Table
    placements: pa.Table
    problems: list[Problem]
    board_hand: np.ndarray
    """Row of ``hands`` each board belongs to."""
    placement_board: np.ndarray
    """Row of ``boards`` each placement belongs to."""

    @property
    def placement_hand(self) -> np.ndarray:
        """Row of ``hands`` each placement belongs to (taken when some hands are not kept)."""
        return self.board_hand[self.placement_board]

    def __add__(self, other: Validated) -> Validated:
        n, m = self.hands.num_rows, self.boards.num_rows
        return Validated(
            pa.concat_tables([self.hands, other.hands]),
            pa.concat_tables([self.boards, other.boards]),
            # The month codes are as narrow as each part's months allow: the wider is taken.
            pa.concat_tables([self.placements, other.placements], promote_options="permissive"),
            self.problems + other.problems,
            np.concatenate([self.board_hand, other.board_hand + n]),
            np.concatenate([self.placement_board, other.placement_board + m]),
        )


Fault = str | tuple[str, str, str]
"""A hand's reason: ``"players[1].top[2]: not a card: 'Xd'"``, or (field, message, the field of another place
the message is about) for a fault that is in two places (a card given twice)."""


class _Reasons:
    """First failure per hand; later checks never overwrite an earlier reason."""

    def __init__(self, n: int) -> None:
        self.reason = np.full(n, None, dtype=object)

    def add(self, hands: np.ndarray, message: Fault | list[Fault]) -> None:
        hands = np.asarray(hands, dtype=np.int64)
        messages = [message] * hands.size if isinstance(message, str | tuple) else message
        for h, m in zip(hands.tolist(), messages, strict=True):
            if self.reason[h] is None:
                self.reason[h] = m

    def failing(
        self,
        hands_mask: np.ndarray,
        boards_hand: np.ndarray,
        board_in_hand: np.ndarray,
        fmt: str,
        values: np.ndarray | pa.Array | None = None,
    ) -> None:
        """Report boards where ``hands_mask`` (per board) is set, formatting ``fmt`` with i and value."""
        idx = np.flatnonzero(hands_mask)
        if idx.size == 0:
            return
        idx = idx[self.reason[boards_hand[idx]] == None]  # noqa: E711 - object array comparison
        if idx.size == 0:
            return
        vals = _values_at(values, idx)
        msgs = [fmt.format(i=int(board_in_hand[b]), v=v) for b, v in zip(idx.tolist(), vals, strict=True)]
        self.add(boards_hand[idx], msgs)

    @property
    def bad(self) -> np.ndarray:
        return self.reason != None  # noqa: E711


def _values_at(values: np.ndarray | pa.Array | None, idx: np.ndarray) -> list:
    """The values at ``idx`` as Python objects, converting only those (messages are built for failures only)."""
    if values is None:
        return [None] * idx.size
    if isinstance(values, np.ndarray):
        return values[idx].tolist()
    return values.take(pa.array(idx)).to_pylist()


def _codes(col: pa.Array | pa.ChunkedArray, names: list[str] | tuple[str, ...]) -> np.ndarray:
    """Index of each string in ``names``; -1 for null or unknown (a hash lookup, not a Python comparison)."""
    return _np(pc.index_in(col, value_set=pa.array(list(names))), -1).astype(np.int64)


def _constant(value: str, n: int) -> pa.Array:
    return _coded(np.zeros(n, dtype=np.int32), pa.array([value], pa.string()))


def _coded(codes: np.ndarray, names: pa.Array) -> pa.DictionaryArray:
    """Strings as codes into ``names``: a column that repeats a few values costs one byte a row, not a string."""
    return pa.DictionaryArray.from_arrays(pa.array(codes.astype(np.int32, copy=False)), names)


def _np(col: pa.Array | pa.ChunkedArray, fill: object) -> np.ndarray:
    return pc.fill_null(col, fill).to_numpy(zero_copy_only=False)


def _lists(col: pa.Array) -> tuple[np.ndarray, pa.Array, np.ndarray]:
    """Per-list lengths (0 for null), the flat values, and each value's list index."""
    lengths = _np(pc.list_value_length(col), 0).astype(np.int64)
    return lengths, pc.list_flatten(col), np.repeat(np.arange(len(col)), lengths)


def validate(chunk: Chunk, source_file: str, batch: str) -> Validated:
    """Check every record of ``chunk``; see the module doc for what is checked.

    Records a reader already took and checked (``chunk.scanned``) only become lake rows.
    """
    s = chunk.scanned
    if s is None or s.taken.size == 0:
        return _validate_records(chunk, source_file, batch)
    taken = lake_rows(s.hands, s.boards, s.placements, [], source_file, batch)
    return taken + _validate_records(chunk, source_file, batch) if chunk.records.num_rows else taken


def _validate_records(chunk: Chunk, source_file: str, batch: str) -> Validated:
    rec = chunk.records
    n = rec.num_rows
    reasons = _Reasons(n)

    hand_id = rec.column("hand_id").combine_chunks()
    reasons.add(np.flatnonzero(_np(pc.utf8_length(pc.fill_null(hand_id, "")), 0) == 0), "hand_id: missing")
    variant_text = rec.column("variant").combine_chunks()
    variant = _codes(variant_text, VARIANT_NAMES)
    bad_variant = np.flatnonzero(variant < 0)
    reasons.add(
        bad_variant,
        [
            "variant: missing" if v is None else f"variant: unknown {v!r}{_variant_hint(str(v))}"
            for v in _values_at(variant_text, bad_variant)
        ],
    )

    players = rec.column("players").combine_chunks()
    n_players, boards, board_hand = _lists(players)
    board_start = np.cumsum(n_players) - n_players
    board_in_hand = np.arange(len(boards)) - board_start[board_hand]
    wrong_count = (n_players < MIN_PLAYERS) | (n_players > MAX_PLAYERS)
    reasons.add(
        np.flatnonzero(wrong_count),
        [f"players: a hand has {MIN_PLAYERS} to {MAX_PLAYERS} players, got {k}" for k in n_players[wrong_count]],
    )
    too_many = n_players > MAX_PLAYERS_OF[variant]
    reasons.add(np.flatnonzero(too_many), [_TOO_MANY_PLAYERS[v] for v in variant[too_many].tolist()])

    m = len(boards)
    b_variant = variant[board_hand]
    classic = b_variant == CLASSIC
    name = boards.field("name")
    no_name = _np(pc.utf8_length(pc.fill_null(name, "")), 0) == 0
    reasons.failing(no_name, board_hand, board_in_hand, "players[{i}].name: missing")
    # Names are unique in a hand, except criss-cross: two players with two boards each.
    same_name = _group_sizes(hash_strings(boards.field("name")) ^ (board_hand.astype(np.uint64) * _MIX))
    all_twice = np.bincount(board_hand, weights=same_name == 2, minlength=n) == n_players
    criss_cross = (n_players == 4) & all_twice
    reasons.failing(
        (same_name > 1) & ~criss_cross[board_hand],
        board_hand,
        board_in_hand,
        "players[{i}].name: {v!r} appears twice",
        name,
    )

    seat_given = _np(pc.is_valid(boards.field("seat")), False)
    seat = np.where(seat_given, _np(boards.field("seat"), 0), board_in_hand)
    reasons.failing(
        (seat < 0) | (seat > MAX_SEAT),
        board_hand,
        board_in_hand,
        f"players[{{i}}].seat: {{v}} is not 0..{MAX_SEAT}",
        seat,
    )
    reasons.failing(
        _group_sizes(board_hand * SEATS + np.clip(seat, 0, MAX_SEAT)) > 1,
        board_hand,
        board_in_hand,
        "players[{i}].seat: seat {v} is taken twice",
        seat,
    )

    # Rows: 3 / 5 / 5 (a classic history may record a misset board of 13 cards: it fouls).
    sizes = np.stack([_lists(boards.field(r))[0] for r in ROWS], axis=1)
    missing = np.stack([_np(pc.is_null(boards.field(r)), True) for r in ROWS], axis=1)
    for j, r in enumerate(ROWS):
        reasons.failing(missing[:, j], board_hand, board_in_hand, f"players[{{i}}].{r}: missing")
    misset = (sizes != ROW_SIZES).any(axis=1) & classic & (sizes.sum(axis=1) == BOARD)
    for j, (r, size) in enumerate(zip(ROWS, ROW_SIZES, strict=True)):
        wrong = (sizes[:, j] != size) & ~misset
        reasons.failing(
            wrong,
            board_hand,
            board_in_hand,
            f"players[{{i}}].{r}: expected {size} cards, got {{v}}",
            sizes[:, j],
        )

    # Cards of every row, then of the discards, parsed in one pass.
    discard_len = _lists(boards.field("discards"))[0]
    lengths = np.concatenate([sizes, discard_len[:, None]], axis=1)  # (m, 4): top, middle, bottom, discards
    tokens = pa.concat_arrays([pc.list_flatten(boards.field(f)).cast(pa.string()) for f in (*ROWS, "discards")])
    token_board = np.concatenate([np.repeat(np.arange(m), lengths[:, j]) for j in range(4)])
    token_row = np.repeat(np.arange(4), lengths.sum(axis=0))
    token_pos = np.concatenate([_positions(lengths[:, j]) for j in range(4)])
    codes, ok = parse_card_column(tokens)
    field_names = np.array([*ROWS, "discards"])
    bad_tok = np.flatnonzero(~ok)
    if bad_tok.size:
        token_text = _values_at(tokens, bad_tok)
        msgs = [
            f"players[{int(board_in_hand[token_board[t]])}].{field_names[token_row[t]]}[{int(token_pos[t])}]: "
            f"not a card: {text!r}"
            for t, text in zip(bad_tok.tolist(), token_text, strict=True)
        ]
        order = np.argsort(token_board[bad_tok], kind="stable")
        reasons.add(board_hand[token_board[bad_tok][order]], [msgs[i] for i in order.tolist()])
    # No card twice in a hand: a hand's 52-bit card mask has as many bits as it has cards.
    token_hand = board_hand[token_board]
    hand_cards, hand_count = _card_masks(token_hand[ok], codes[ok], n)
    repeated = np.flatnonzero(np.bitwise_count(hand_cards) != hand_count)
    if repeated.size:
        # Only in the hands that repeat a card: find which card, and both places, for the message. In reading
        # order (player by player, then top, middle, bottom, discards) the later place is the one at fault.
        sub = np.flatnonzero(np.isin(token_hand, repeated) & ok)
        order = np.lexsort((token_pos[sub], token_row[sub], token_board[sub], codes[sub], token_hand[sub]))
        dup_key = token_hand[sub][order] * 64 + codes[sub][order]
        same = np.flatnonzero(np.diff(dup_key) == 0)
        first, again = sub[order[same]], sub[order[same + 1]]

        def path(t: int) -> str:
            return f"players[{int(board_in_hand[token_board[t]])}].{field_names[token_row[t]]}[{int(token_pos[t])}]"

        msgs: list[Fault] = [
            (path(t), f"{CARD_NAMES[codes[t]]} is dealt twice in this hand", path(f))
            for t, f in zip(again.tolist(), first.tolist(), strict=True)
        ]
        reasons.add(board_hand[token_board[again]], msgs)

    # Fantasyland, surrender and naturals as the variant allows.
    fl = _np(boards.field("fantasyland"), False).astype(bool)
    fl_cards = _np(boards.field("fantasyland_cards"), 0).astype(np.int64)
    reasons.failing(fl & classic, board_hand, board_in_hand, "players[{i}].fantasyland: classic has no Fantasyland")
    allowed = ((FANTASYLAND_MASK[b_variant] >> np.clip(fl_cards, 0, 63)) & 1).astype(bool)
    reasons.failing(
        (fl_cards > 0) & ~fl,
        board_hand,
        board_in_hand,
        "players[{i}].fantasyland_cards: set, but the player is not in Fantasyland",
    )
    reasons.failing(
        (fl_cards > 0) & fl & ~classic & ~allowed,
        board_hand,
        board_in_hand,
        "players[{i}].fantasyland_cards: {v} cards are not dealt in Fantasyland in this variant",
        fl_cards,
    )
    surrendered = _np(boards.field("surrendered"), False).astype(bool)
    natural = boards.field("natural")
    declared = _np(pc.utf8_length(pc.fill_null(natural, "")), 0) > 0
    natural_code = _codes(natural, NATURAL_NAMES)
    reasons.failing(
        surrendered & ~classic, board_hand, board_in_hand, "players[{i}].surrendered: only classic has surrender"
    )
    reasons.failing(declared & ~classic, board_hand, board_in_hand, "players[{i}].natural: only classic has naturals")
    reasons.failing(
        declared & (natural_code < 0),
        board_hand,
        board_in_hand,
        "players[{i}].natural: unknown natural {v!r}",
        natural,
    )
    # Discards: none in OFC or classic; 4 in a normal Pineapple hand; dealt - 13 in Fantasyland.
    expected_discards = np.where(fl, np.where(fl_cards > 0, fl_cards - BOARD, -1), NORMAL_DISCARDS[b_variant])
    wrong_discards = (discard_len > 0) & (expected_discards >= 0) & (discard_len != expected_discards)
    reasons.failing(
        wrong_discards,
        board_hand,
        board_in_hand,
        "players[{i}].discards: {v} cards, but this hand discards a different number",
        discard_len,
    )

    # Placements: consistent with the final rows and discards, and with the variant's streets.
    pl_len, pl_flat, pl_board = _lists(boards.field("placements"))
    has_placements = _np(pc.is_valid(boards.field("placements")), False).astype(bool)
    pl_pos = _positions(pl_len)
    if len(pl_flat):
        pl_street = _np(pl_flat.field("street"), 0).astype(np.int64)
        pl_row = _codes(pl_flat.field("row"), PLACEMENT_ROWS)
        pl_codes, pl_ok = parse_card_column(pl_flat.field("card"))
        bad_pl = np.flatnonzero(~pl_ok | (pl_row < 0) | (pl_street < FIRST_STREET))
        if bad_pl.size:
            text = dict(zip(bad_pl.tolist(), _values_at(pl_flat, bad_pl), strict=True))
            msgs = [
                f"players[{int(board_in_hand[pl_board[t]])}].placements[{int(pl_pos[t])}]: "
                + (
                    "not a card: " + repr(text[t]["card"])
                    if not pl_ok[t]
                    else f"unknown row {text[t]['row']!r}"
                    if pl_row[t] < 0
                    else f"street {text[t]['street']} is not 1 or more"
                )
                for t in bad_pl.tolist()
            ]
            reasons.add(board_hand[pl_board[bad_pl]], msgs)
        # The placed cards, row by row, must be exactly the final rows and the discards.
        # Compared as card masks per board and row (placed twice shows as a count that differs).
        good = pl_ok & (pl_row >= 0)
        final_mask, final_count = _card_masks((token_board * 4 + token_row)[ok], codes[ok], 4 * m)
        placed_mask, placed_count = _card_masks((pl_board * 4 + pl_row)[good], pl_codes[good], 4 * m)
        differs = (final_mask != placed_mask) | (final_count != placed_count)
        mismatch = differs.reshape(m, 4).any(axis=1)
        reasons.failing(
            mismatch & has_placements,
            board_hand,
            board_in_hand,
            "players[{i}].placements: the placed cards differ from the final rows and discards",
        )
        # Streets: cards placed and discarded per street, against the variant's deal; a Fantasyland hand is
        # dealt at once (its discards as placed when the count dealt is not recorded). Any street after the
        # last counts in one column more, where no card is expected.
        streets = LAST_STREET + 2
        cell = (pl_board * streets + np.clip(pl_street, 0, streets - 1)) * 2 + (pl_row == DISCARD_ROW)
        per = np.bincount(cell, minlength=m * streets * 2).reshape(m, streets, 2)
        want = np.zeros((m, streets, 2), dtype=np.int64)
        want[~fl, : LAST_STREET + 1, 0] = STREET_PLACED[b_variant[~fl]]
        want[~fl, : LAST_STREET + 1, 1] = STREET_DISCARDED[b_variant[~fl]]
        want[fl, FIRST_STREET, 0] = BOARD
        want[fl, FIRST_STREET, 1] = np.where(fl_cards[fl] > 0, fl_cards[fl] - BOARD, per[fl, FIRST_STREET, 1])
        off = (per != want).any(axis=(1, 2)) & has_placements & (pl_len > 0)
        reasons.failing(
            off, board_hand, board_in_hand, "players[{i}].placements: streets do not follow the deal of this variant"
        )
    else:
        pl_street = pl_row = pl_codes = np.zeros(0, np.int64)

    played_text = rec.column("played_at").combine_chunks()
    played, bad_times = parse_times(played_text)
    reasons.add(bad_times, [f"played_at: not an ISO time: {v!r}" for v in _values_at(played_text, bad_times)])
    number = _np(rec.column("hand_number"), 0)
    reasons.add(np.flatnonzero(number < 0), [f"hand_number: {v} is negative" for v in number[number < 0]])
    button = _np(rec.column("button"), 0)
    off_table = (button < 0) | (button > MAX_SEAT)
    reasons.add(np.flatnonzero(off_table), [f"button: {v} is not a seat 0..{MAX_SEAT}" for v in button[off_table]])
    points = _np(boards.field("points"), 0)
    reasons.failing(
        np.abs(points) > POINTS_MAX, board_hand, board_in_hand, "players[{i}].points: {v} is too large", points
    )
    # Recorded points are a whole table's or none: every hand's points sum to zero (each pair's settlement is
    # paid by one to the other, whatever the rules). A hand where some are missing, or that does not add up,
    # has a typo somewhere in its rows, and is quarantined until the corrected record replaces it.
    recorded = _np(pc.is_valid(boards.field("points")), False).astype(bool)
    given = np.bincount(board_hand, weights=recorded, minlength=n).astype(np.int64)
    lacking = np.flatnonzero(((given > 0) & (given < n_players))[board_hand] & ~recorded)
    if lacking.size:
        lacking = lacking[np.unique(board_hand[lacking], return_index=True)[1]]  # the first of each hand
        shown = _points_of(boards, board_hand, board_hand[lacking], recorded)
        reasons.add(
            board_hand[lacking],
            [
                f"players[{int(board_in_hand[b])}].points: missing, while the others have theirs "
                f"({shown[int(board_hand[b])]})"
                for b in lacking.tolist()
            ],
        )
    total = np.bincount(board_hand, weights=np.where(recorded, points, 0), minlength=n).astype(np.int64)
    off = np.flatnonzero((given == n_players) & (n_players > 0) & (total != 0))
    if off.size:
        shown = _points_of(boards, board_hand, off, recorded)
        sums = total[off].tolist()
        reasons.add(
            off, [f"points: they sum to {t:+,}, not 0 ({shown[h]})" for h, t in zip(off.tolist(), sums, strict=True)]
        )
    stack = _np(boards.field("stack"), STACK_MIN)
    reasons.failing(
        (stack < STACK_MIN) | (stack > STACK_MAX),
        board_hand,
        board_in_hand,
        f"players[{{i}}].stack: {{v}} is not {STACK_MIN} to {STACK_MAX}",
        stack,
    )

    bad = reasons.bad
    problems = []
    if bad.any():
        hand_ids = rec.column("hand_id").to_pylist()
        raws = rec.filter(pa.array(bad)).to_pylist()
        for h, raw in zip(np.flatnonzero(bad).tolist(), raws, strict=True):
            text = record_text(raw)[:RAW_LIMIT]
            issue = _issue(chunk, h, reasons.reason[h])
            problems.append(Problem.of([issue], int(chunk.offsets[h]), hand_ids[h], text))

    # The accepted hands, their boards and placements, renumbered among themselves.
    k = np.flatnonzero(~bad)
    b = np.flatnonzero(~bad[board_hand])
    in_rows = token_row < len(ROWS)
    order = np.lexsort((token_row[in_rows], token_board[in_rows]))  # by board, then top, middle, bottom
    cards = _cards_by_board(codes[in_rows][order], token_board[in_rows][order], m)
    keep_pl = np.flatnonzero(~bad[board_hand[pl_board]]) if len(pl_board) else np.zeros(0, np.int64)
    hands = HandColumns(
        text={f: rec.column(f).combine_chunks().take(k) for f in TEXT_FIELDS},
        variant=variant[k],
        played_at=played.take(k),
        hand_number=rec.column("hand_number").combine_chunks().take(k),
        button=rec.column("button").combine_chunks().take(k),
        lines=chunk.lines[k],
    )
    board_columns = BoardColumns(
        hand=np.searchsorted(k, board_hand[b]),
        in_hand=board_in_hand[b],
        seat=seat[b],
        name=boards.field("name").take(b),
        cards=cards[b],
        misset=misset[b],
        fantasyland=fl[b],
        fantasyland_cards=fl_cards[b],
        surrendered=surrendered[b],
        natural=natural.take(pa.array(b, pa.int64())),
        discards=_take_lists(codes[~in_rows], token_board[~in_rows], m, b),
        points=boards.field("points").take(b),
        stack=boards.field("stack").take(b),
    )
    placement_columns = PlacementColumns(
        board=np.searchsorted(b, pl_board[keep_pl]),
        street=pl_street[keep_pl],
        order=pl_pos[keep_pl],
        card=pl_codes[keep_pl],
        row=pl_row[keep_pl],
    )
    return lake_rows(hands, board_columns, placement_columns, problems, source_file, batch)


def _variant_hint(said: str) -> str:
    """``; did you mean 'ofc'?`` for a misspelt variant, else the variants there are."""
    return did_you_mean(closest(said, VARIANT_NAMES, n=1)) or f" (known: {', '.join(VARIANT_NAMES)})"


def _issue(chunk: Chunk, row: int, fault: Fault) -> Issue:
    """A record's fault where its source has it: the sheet's cell, or the record's field at its line; a fault in
    two places names the other too."""
    if isinstance(fault, tuple):
        path, message, also = fault
    else:
        found = FIELD_PATH.match(fault)
        path, message, also = (found.group(1), fault[found.end() :], None) if found else (None, fault, None)
    place = chunk.place(row, path)
    if also is not None:
        message += f"; the other is at {chunk.place(row, also).near(place)}"
    return Issue(place, message)


def _points_of(
    boards: pa.StructArray, board_hand: np.ndarray, hands: np.ndarray, recorded: np.ndarray
) -> dict[int, str]:
    """Each of ``hands``' players with recorded points, with them: ``Ann +28, Bo -13``."""
    rows = np.flatnonzero(np.isin(board_hand, hands) & recorded)
    names = _values_at(boards.field("name"), rows)
    points = _values_at(boards.field("points"), rows)
    out: dict[int, list[str]] = {}
    for b, name, value in zip(rows.tolist(), names, points, strict=True):
        out.setdefault(int(board_hand[b]), []).append(f"{name} {value:+,}")
    return {h: ", ".join(parts) for h, parts in out.items()}


def lake_rows(
    h: HandColumns, b: BoardColumns, p: PlacementColumns, problems: list[Problem], source_file: str, batch: str
) -> Validated:
    """The hands, boards and placements tables of accepted hands, with their identity and content keys."""
    n = len(h.variant)
    month_code, month_names = _months(h.played_at)
    # A hand is identified within its source and session: club sheets number their hands 1, 2, ... each night.
    hand_key = hash_joined([h.text["source"], h.text["session"], h.text["hand_id"]], "\x1f")
    # What was played: the variant, then per board slot its seat and 13 cards.
    content = np.zeros((n, 1 + 4 * 14), dtype=np.uint8)
    content[:, 0] = np.clip(h.variant, 0, 255)
    slots = content[:, 1:].reshape(n, 4, 14)
    slot = np.clip(b.in_hand, 0, 3)
    slots[b.hand, slot, 1:] = b.cards
    slots[b.hand, slot, 0] = np.clip(b.seat, 0, 255)
    content_hash = hash_rows(content)

    # Strings repeated on many rows (variant, month, batch, row names) are dictionary codes.
    def variant(rows: np.ndarray) -> pa.Array:
        return _coded(h.variant[rows], _VARIANT_NAMES)

    def month(rows: np.ndarray) -> pa.Array:
        return _coded(month_code[rows], month_names)

    every = np.arange(n)
    hands = pa.table(
        {
            "hand_key": pa.array(hand_key, pa.uint64()),
            "batch": _constant(batch, n),
            "content_hash": pa.array(content_hash, pa.uint64()),
            "hand_id": h.text["hand_id"],
            "source": h.text["source"],
            "variant": variant(every),
            "month": month(every),
            "played_at": h.played_at,
            "site": h.text["site"],
            "table": h.text["table"],
            "session": h.text["session"],
            "hand_number": h.hand_number,
            "button": pc.cast(h.button, pa.int8()),
            "house_rules": h.text["house_rules"],
            "n_players": pa.array(np.bincount(b.hand, minlength=n), pa.int8()),
            "source_file": _constant(source_file, n),
            "source_line": pa.array(h.lines, pa.int64()),
        }
    )
    m = len(b.hand)
    boards = pa.table(
        {
            "hand_key": pa.array(hand_key[b.hand], pa.uint64()),
            "batch": _constant(batch, m),
            "variant": variant(b.hand),
            "month": month(b.hand),
            "seat": pa.array(b.seat, pa.int8()),
            "player": b.name,
            # As the lake keeps them, 13 bytes, taken from the codes in place (their hash is the codes' either way).
            "cards": pa.FixedSizeBinaryArray.from_buffers(
                CARDS13, m, [None, pa.py_buffer(np.ascontiguousarray(b.cards, dtype=np.uint8))]
            ),
            "misset": pa.array(b.misset, pa.bool_()),
            "fantasyland": pa.array(b.fantasyland, pa.bool_()),
            "fantasyland_cards": pa.array(np.where(b.fantasyland_cards > 0, b.fantasyland_cards, 0), pa.int8()),
            "surrendered": pa.array(b.surrendered, pa.bool_()),
            "natural": b.natural,
            "discards": b.discards,
            "points": pc.cast(b.points, pa.int32()),
            "stack": pc.cast(b.stack, pa.int32()),
            **(
                {"streets": b.streets, "discard_streets": b.discard_streets}
                if b.streets is not None and b.discard_streets is not None
                else street_layout(p.board, p.card, p.row, p.street, b.cards, b.discards)
            ),
        }
    )
    p_board = np.asarray(p.board, dtype=np.int64)
    p_key, p_seat, p_variant, p_month = _per_placement(
        p_board,
        np.asarray(b.hand, dtype=np.int64),
        np.asarray(b.seat, dtype=np.int64),
        hand_key,
        np.asarray(h.variant, dtype=np.int64),
        np.asarray(month_code, dtype=np.int64),
        _code_type(len(month_names)),
    )
    placements = pa.table(
        {
            "hand_key": pa.array(p_key, pa.uint64()),
            "batch": _constant(batch, p_board.size),
            "variant": pa.DictionaryArray.from_arrays(pa.array(p_variant), _VARIANT_NAMES),
            "month": pa.DictionaryArray.from_arrays(pa.array(p_month), month_names),
            "seat": pa.array(p_seat, pa.int8()),
            "street": pa.array(p.street, pa.int8()),
            "order": pa.array(p.order, pa.int16()),
            "card": pa.array(p.card, pa.uint8()),
            "row": _coded(np.clip(p.row, 0, 3), _ROW_NAMES),
        }
    )
    hands = hands.add_column(3, "record_hash", pa.array(record_hashes(hands, boards, b.hand, b.in_hand), pa.uint64()))
    return Validated(hands, boards, placements, problems, np.asarray(b.hand, dtype=np.int64), p_board)


def record_text(record: dict) -> str:
    """A quarantined record as canonical JSON (the fields it has, without the nulls the table filled in), so
    that it can be corrected and ingested again."""

    def plain(value: object) -> object:
        if isinstance(value, dict):
            return {k: plain(v) for k, v in value.items() if v is not None}
        if isinstance(value, list):
            return [plain(v) for v in value]
        if isinstance(value, datetime):
            return value.isoformat().replace("+00:00", "Z")
        return value

    return json.dumps(plain(record), ensure_ascii=False, separators=(", ", ": "))


HAND_RECORD = ("variant", "played_at", "site", "table", "hand_number", "button", "house_rules")
"""What a hand records besides its identity and its boards: with ``BOARD_RECORD``, what makes two versions of a
hand the same record."""
BOARD_RECORD = (
    "seat",
    "player",
    "cards",
    "misset",
    "fantasyland",
    "fantasyland_cards",
    "surrendered",
    "natural",
    "discards",
    "points",
    "stack",
    "streets",
    "discard_streets",
)


def record_hashes(hands: pa.Table, boards: pa.Table, board_hand: np.ndarray, slot: np.ndarray) -> np.ndarray:
    """Per hand, a hash of everything it records but its identity (source, session, hand id): two versions of a
    hand are the same record exactly when these agree (up to hash collisions). Never 0, which stands for a hand
    committed before records were hashed."""
    own = fold_columns([hands.column(c) for c in HAND_RECORD], hands.num_rows)
    board = fold_columns([boards.column(c) for c in BOARD_RECORD], boards.num_rows)
    total = combine(own, np.asarray(board_hand, np.int64), board, np.asarray(slot, np.uint64))
    total[total == 0] = 1
    return total


def _code_type(names: int) -> type[np.integer]:
    """The narrowest integer for codes into ``names`` names."""
    return np.int8 if names <= np.iinfo(np.int8).max else np.int16 if names <= np.iinfo(np.int16).max else np.int32


@njit(cache=True, nogil=True)
def _per_placement(
    board: np.ndarray,
    hand: np.ndarray,
    seat: np.ndarray,
    key: np.ndarray,
    variant: np.ndarray,
    month: np.ndarray,
    month_type: type,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Each placement's hand key, seat, variant and month codes: one pass, not four gathers. The codes are of the
    narrowest type their names allow (they only say which partition a placement goes to), and a placement's hand
    is left to be found when some hands are not kept: 11 bytes written a placement, not 25, and a third of the
    time (0.15 s over 1.65 M hands)."""
    n = board.size
    p_key = np.empty(n, dtype=np.uint64)
    p_seat = np.empty(n, dtype=np.int8)
    p_variant = np.empty(n, dtype=np.int8)
    p_month = np.empty(n, dtype=month_type)
    for i in range(n):
        j = board[i]
        h = hand[j]
        p_key[i] = key[h]
        p_seat[i] = seat[j]
        p_variant[i] = variant[h]
        p_month[i] = month[h]
    return p_key, p_seat, p_variant, p_month


def _months(played_at: pa.Array) -> tuple[np.ndarray, pa.Array]:
    """Each hand's month partition as a code into the month names (``2026-11``; ``unknown`` with no time).

    From the integer months since 1970, found once per distinct month: formatting every timestamp as text
    cost as much as building all the other columns.
    """
    micros = played_at.cast(pa.int64()).fill_null(np.iinfo(np.int64).min).to_numpy()
    known = micros != np.iinfo(np.int64).min
    months = np.where(known, micros, 0).astype("datetime64[us]").astype("datetime64[M]").astype(np.int64)
    months = np.where(known, months, np.iinfo(np.int64).min)
    if months.size and months.min() == months.max():  # a chunk of one month, the usual case
        distinct, code = months[:1], np.zeros(months.size, dtype=np.int64)
    else:
        distinct, code = np.unique(months, return_inverse=True)
    names = [str(np.datetime64(int(m), "M")) if m != np.iinfo(np.int64).min else UNKNOWN_MONTH for m in distinct]
    return code.ravel(), pa.array(names, pa.string())


def street_layout(
    board: np.ndarray, card: np.ndarray, row: np.ndarray, street: np.ndarray, cards: np.ndarray, discards: pa.ListArray
) -> dict[str, pa.Array]:
    """``streets`` and ``discard_streets``: the street each card of ``cards`` and of ``discards`` was placed or
    discarded at, one digit a card, null for a board with no placements.

    Placements are given flat (``board``, ``card``, ``row`` 0-3 with 3 a discard, ``street``). A rescore reads
    the layout to find where a fouled board went dead, without the placements table: 13 bytes a board against
    a table of 17 rows a board.
    """
    m = len(cards)
    offsets = discards.offsets.to_numpy().astype(np.int64)
    values = discards.values.to_numpy(zero_copy_only=False).astype(np.uint8)
    digits = np.full((m, 13), ord("0"), dtype=np.uint8)
    discard_digits = np.full(values.size, ord("0"), dtype=np.uint8)
    placed = np.zeros(m, dtype=bool)
    board = np.asarray(board, dtype=np.int64)
    card, row, street = np.asarray(card, dtype=np.uint8), np.asarray(row), np.asarray(street)
    if board.size and (np.diff(board) < 0).any():  # board by board, in their order on each board
        order = np.argsort(board, kind="stable")
        board, card, row, street = board[order], card[order], row[order], street[order]
    _street_digits(
        board,
        card,
        row,
        street,
        np.ascontiguousarray(cards, dtype=np.uint8),
        offsets - offsets[0],
        values[offsets[0] :],
        digits,
        discard_digits,
        placed,
    )
    validity = pa.array(placed).buffers()[1] if not placed.all() else None
    streets = pa.StringArray.from_buffers(
        m, pa.py_buffer(np.arange(0, 13 * m + 1, 13, dtype=np.int32)), pa.py_buffer(digits), validity
    )
    discard_streets = pa.StringArray.from_buffers(
        m, pa.py_buffer((offsets - offsets[0]).astype(np.int32)), pa.py_buffer(discard_digits), validity
    )
    return {"streets": streets, "discard_streets": discard_streets}


@njit(cache=True, nogil=True)
def _street_digits(
    board: np.ndarray,
    card: np.ndarray,
    row: np.ndarray,
    street: np.ndarray,
    cards: np.ndarray,
    offsets: np.ndarray,
    discards: np.ndarray,
    digits: np.ndarray,
    discard_digits: np.ndarray,
    placed: np.ndarray,
) -> None:
    """Write each placement's street as a digit where its card sits: in the board's row (``cards``) or among its
    discards. Placements were checked to be the final rows and discards.

    A board's placements are noted by card (row and street in one byte), then its cards read theirs: a search of
    the row for each placement, its branches unpredictable, took twice as long (0.89 s against 0.45 over 1.65 M
    hands). Placements come board by board (as read, or as the placements table keeps them), so one board's notes
    are all there is to keep.
    """
    noted = np.zeros(64, dtype=np.uint8)
    i = 0
    while i < board.size:
        j = board[i]
        start = i
        while i < board.size and board[i] == j:
            i += 1
        placed[j] = True
        for q in range(start, i):
            r = row[q]
            # A row (as the search did: any other number the bottom), or the discards.
            kind = DISCARD_ROW if r >= DISCARD_ROW else (0 if r == 0 else (1 if r == 1 else 2))
            d = np.uint8(min(max(street[q], 0), 9))
            if card[q] < 64:
                noted[card[q]] = np.uint8((kind + 1) << 4) | d
                continue
            # Not a card code: searched for, as it cannot be noted.
            if kind == DISCARD_ROW:
                for k in range(offsets[j], offsets[j + 1]):
                    if discards[k] == card[q]:
                        discard_digits[k] = 48 + d
                continue
            lo = 0 if kind == 0 else (3 if kind == 1 else 8)
            for k in range(lo, lo + (3 if kind == 0 else 5)):
                if cards[j, k] == card[q]:
                    digits[j, k] = 48 + d
        for k in range(13):
            c = cards[j, k]
            if c < 64:
                t = noted[c]
                if t >> 4 == ROW_OF_PLACE[k] + 1:
                    digits[j, k] = 48 + (t & 15)
        for k in range(offsets[j], offsets[j + 1]):
            c = discards[k]
            if c < 64:
                t = noted[c]
                if t >> 4 == DISCARD_ROW + 1:
                    discard_digits[k] = 48 + (t & 15)
        for q in range(start, i):
            if card[q] < 64:
                noted[card[q]] = 0


def _cards_by_board(flat: np.ndarray, board_of: np.ndarray, m: int) -> np.ndarray:
    """(m, 13) codes from row cards grouped by board (boards without 13 cards stay zero)."""
    out = np.zeros((m, 13), dtype=np.uint8)
    counts = np.bincount(board_of, minlength=m)
    full = counts == 13
    starts = np.cumsum(counts) - counts
    idx = starts[full][:, None] + np.arange(13)
    out[full] = flat[idx]
    return out


def _card_masks(group: np.ndarray, codes: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Per group: the 52-bit mask of its cards and how many cards it has."""
    mask = np.zeros(n, dtype=np.uint64)
    np.bitwise_or.at(mask, group, np.left_shift(np.uint64(1), codes.astype(np.uint64)))
    return mask, np.bincount(group, minlength=n)


def _take_lists(values: np.ndarray, owner: np.ndarray, m: int, rows: np.ndarray) -> pa.ListArray:
    """The lists of ``rows`` from values grouped by owner (owners in order, each 0..m-1)."""
    counts = np.bincount(owner, minlength=m)
    starts = np.cumsum(counts) - counts
    lengths = counts[rows]
    offsets = np.r_[0, np.cumsum(lengths)].astype(np.int32)
    idx = np.repeat(starts[rows] - offsets[:-1], lengths) + np.arange(offsets[-1])
    return pa.ListArray.from_arrays(pa.array(offsets), pa.array(values[idx].astype(np.uint8), pa.uint8()))


def _positions(lengths: np.ndarray) -> np.ndarray:
    """0, 1, ... within each list, for lists of the given lengths laid end to end."""
    starts = np.cumsum(lengths) - lengths
    return np.arange(int(lengths.sum())) - np.repeat(starts, lengths)


def _group_sizes(keys: np.ndarray) -> np.ndarray:
    """For each element, how many elements share its key."""
    _, inverse, counts = np.unique(keys, return_inverse=True, return_counts=True)
    return counts[inverse]
