"""An analysis run: the decisions of the chosen boards weighed by rollouts, and committed to the lake.

Boards are chosen by player, variant and days played; those an earlier run of the same settings analysed (as
their hand stands now: a corrected hand is analysed again) are left out, so a run picks up where the last one
stopped. Hands are weighed a chunk at a time and each chunk is committed as a batch: an interrupted run loses
at most the chunk it was weighing. Every board looked at gets a row in ``analysed_boards``: its decisions, or
why it has none.
"""

from __future__ import annotations

import itertools
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import date

import duckdb
import numpy as np
import polars as pl
import pyarrow as pa
import pyarrow.compute as pc

from ofc.pipeline import __version__
from ofc.pipeline.analyse.defaults import DEFAULT_MOVES, DEFAULT_ROLLOUTS
from ofc.pipeline.analyse.estimate import (
    Estimates,
    context,
    fantasyland_worth,
    weigh_fantasyland,
    weigh_streets,
)
from ofc.pipeline.analyse.positions import (
    Hands,
    Positions,
    board_problems,
    decisions_of,
    kind_of,
    positions,
    row_letters,
)
from ofc.pipeline.cards import format_cards
from ofc.pipeline.errors import InputError
from ofc.pipeline.game import PLACEMENT_ROWS, Deal, facts, table_order
from ofc.pipeline.lake.store import Lake
from ofc.pipeline.query.db import connect
from ofc.pipeline.query.players import LakeFilters
from ofc.pipeline.rules.native import Natives
from ofc.schemas.lake import ANALYSED_BOARDS, DECISIONS
from ofc.schemas.rules import RuleSet, Variant

__all__ = [
    "BOARDS",
    "METHOD",
    "PLACEMENTS",
    "AnalyseError",
    "AnalysisFilters",
    "AnalysisSummary",
    "Settings",
    "analyse",
    "replayable",
]

METHOD = 3
"""The version of the method: a change to how decisions are weighed or what is written of them is a new analysis,
never mixed with old (3: the foul chances of the move played and of the best move)."""
CHUNK = 500
"""Hands weighed and committed together: about half a minute of work on two cores."""
STEP = 25
"""Hands weighed at a time within a chunk, the progress told after each (about a second of work): the bar moves
by hand, not by chunk. 300 three-handed Pineapple hands took 10.4 and 11.3 s so, against 12.0 and 9.8 s a
chunk at a time (alternated runs: no cost beyond their spread); 10 at a time cost a tenth more."""
_VARIANTS = frozenset(v.value for v in Variant)

Progress = Callable[[int, int], None]


class AnalyseError(InputError):
    """An analysis that cannot run as asked (a filter that matches nothing)."""


@dataclass(frozen=True)
class Settings:
    """How decisions are weighed; runs of the same settings and seed give the same table."""

    rollouts: int = DEFAULT_ROLLOUTS
    moves: int = DEFAULT_MOVES
    seed: int = 0

    @property
    def key(self) -> str:
        """The analysis these settings make (the ``analysis`` partition of its tables)."""
        return f"r{self.rollouts}-m{self.moves}-s{self.seed}-v{METHOD}"

    @classmethod
    def of(cls, key: str) -> Settings:
        """The settings an analysis of this method was made with, read back from its key."""
        found = re.fullmatch(r"r(\d+)-m(\d+)-s(\d+)-v(\d+)", key)
        if found is None or int(found.group(4)) != METHOD:
            raise AnalyseError(f"analysis {key!r} was not made by this version's method (v{METHOD}): run ofc analyse")
        rollouts, moves, seed, _ = (int(g) for g in found.groups())
        return cls(rollouts=rollouts, moves=moves, seed=seed)


@dataclass(frozen=True)
class AnalysisFilters:
    player: str | None = None
    variant: str | None = None
    since: date | None = None
    until: date | None = None
    session: str | None = None
    hands: int | None = None
    """The latest this many hands the other filters keep (None: all of them)."""


@dataclass
class AnalysisSummary:
    analysis: str
    player: str | None = None
    """The player weighed, as the lake spells them (None: every seat)."""
    boards: int = 0
    hands: int = 0
    decisions: int = 0
    forced: int = 0
    already: int = 0
    """Boards an earlier run of these settings analysed."""
    skipped: dict[str, int] = field(default_factory=dict)
    ev_lost: float = 0.0
    batches: list[str] = field(default_factory=list)
    fantasyland_worth: dict[str, list[float]] = field(default_factory=dict)
    seconds: float = 0.0

    @property
    def hands_per_second(self) -> float:
        return self.hands / self.seconds if self.seconds else 0.0

    @property
    def ev_lost_per_hand(self) -> float | None:
        """Points lost per board weighed (None: none was)."""
        return self.ev_lost / self.boards if self.boards else None


_CHOSEN = """
-- The boards the filters choose, each flagged when an earlier run of these settings weighed it as it stands;
-- of the latest $hands hands only, when a number is asked for.
WITH chosen AS (
    SELECT
        h.hand_key, h.played_at, b.seat, weighed_before($analysis, h.hand_key, b.seat, h.content_hash) AS done
    FROM hands h
    JOIN boards b ON b.hand_key = h.hand_key
    JOIN variants v ON v.variant = h.variant
    WHERE v.open_face
      AND ($variant IS NULL OR h.variant = $variant)
      AND played_between(h.played_at, $since, $until)
      AND ($session IS NULL OR h.session = $session)
      AND ($player IS NULL OR b.player = $player)
),
latest AS (
    SELECT hand_key, count(*) AS boards, count(*) FILTER (WHERE done) AS done
    FROM chosen
    GROUP BY hand_key
    ORDER BY max(played_at) DESC NULLS LAST, hand_key DESC
    LIMIT $hands
)
SELECT * FROM latest ORDER BY hand_key
"""

BOARDS = """
-- Every board of the hands of a chunk, the chosen ones flagged, numbered in the order listed (board_row);
-- "chunk" holds the hands' keys.
SELECT row_number() OVER (ORDER BY h.hand_key, b.seat) - 1 AS board_row,
       h.hand_key, h.content_hash, h.hand_id, h.played_at, h.variant, h.month, h.house_rules,
       coalesce(h.button, max(b.seat) OVER (PARTITION BY h.hand_key)) AS button,
       b.seat, b.player, b.fantasyland, coalesce(b.fantasyland_cards, 0) AS fantasyland_cards,
       ($player IS NULL OR b.player = $player)
           AND NOT weighed_before($analysis, h.hand_key, b.seat, h.content_hash) AS wanted
FROM chunk c
JOIN hands h ON h.hand_key = c.hand_key
JOIN boards b ON b.hand_key = h.hand_key
ORDER BY h.hand_key, b.seat
"""

PLACEMENTS = """
-- Every placement of the hands of a chunk, by its board's number in BOARDS, in the order made.
WITH numbered AS (
    SELECT b.hand_key, b.seat, row_number() OVER (ORDER BY b.hand_key, b.seat) - 1 AS board_row
    FROM boards b
    JOIN chunk c USING (hand_key)
)
SELECT n.board_row, p.street, p.card, p.row
FROM placements p
JOIN numbered n USING (hand_key, seat)
ORDER BY n.board_row, p."order"
"""


def _checked(con: duckdb.DuckDBPyConnection, filters: AnalysisFilters) -> AnalysisFilters:
    """The filters with the player as the lake spells them; one that matches nothing is an error naming the
    closest, and classic hands, set at once, have no decisions to weigh."""
    if filters.variant in _VARIANTS and not facts(filters.variant).open_face:
        raise AnalyseError(f"{filters.variant} hands are set all at once: there are no street decisions to weigh")
    found = LakeFilters(con).check(filters.player, filters.variant, filters.since, filters.until)
    if filters.session is not None:
        LakeFilters(con).check_session(filters.session)
    return replace(filters, player=found.player)


def _mix(x: np.ndarray) -> np.ndarray:
    """splitmix64's finaliser, elementwise on uint64."""
    with np.errstate(over="ignore"):
        x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        return x ^ (x >> np.uint64(31))


def decision_seeds(seed: int, hand_key: np.ndarray, seat: np.ndarray, street: np.ndarray) -> np.ndarray:
    """Each decision's own seed, from the run's and the decision's place alone: the same whatever else is
    analysed beside it, in whatever order."""
    with np.errstate(over="ignore"):
        x = _mix(np.uint64(seed) + np.uint64(0x9E3779B97F4A7C15) * hand_key.astype(np.uint64))
        return _mix(x ^ (seat.astype(np.uint64) * np.uint64(64) + street.astype(np.uint64)))


def _move_words(dealt: np.ndarray, rows: np.ndarray) -> list[str]:
    """Each move in words: ``top Kh · middle Qs 8d · discard 7c``."""
    names = format_cards(np.where(dealt == 255, 0, dealt).ravel()).reshape(dealt.shape)
    out = []
    for cards, where in zip(names.tolist(), rows.tolist(), strict=True):
        parts = []
        for r, label in enumerate(PLACEMENT_ROWS):
            chosen = [c for c, w in zip(cards, where, strict=True) if w == r]
            if chosen:
                parts.append(f"{label} {' '.join(chosen)}")
        out.append(" · ".join(parts))
    return out


def _lists(values: np.ndarray, keep: np.ndarray) -> pa.Array:
    """Rows of ``values`` (m, k) as lists of the entries ``keep`` marks."""
    sizes = keep.sum(axis=1)
    offsets = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int32)
    return pa.ListArray.from_arrays(pa.array(offsets), pa.array(values[keep], type=pa.uint8()))


def _seen(own: np.ndarray, boards: np.ndarray) -> pa.Array:
    """Every card a player had seen: their own (m, c) and the open boards (m, P, 13), as sorted lists."""
    m = own.shape[0]
    mask = np.zeros((m, 256), dtype=bool)
    at = np.arange(m)[:, None]
    mask[at, own] = True
    mask[at, boards.reshape(m, -1)] = True
    mask[:, 255] = False
    cards = np.broadcast_to(np.arange(256, dtype=np.uint8), mask.shape)
    return _lists(np.ascontiguousarray(cards), mask)


def analyse(
    lake: Lake,
    settings: Settings | None = None,
    filters: AnalysisFilters | None = None,
    on_progress: Progress | None = None,
    *,
    given: list[RuleSet] | None = None,
) -> AnalysisSummary:
    """Weigh every decision of the chosen boards not yet analysed under ``settings``; commit a batch a chunk."""
    settings = settings or Settings()
    filters = filters or AnalysisFilters()
    t0 = time.perf_counter()
    summary = AnalysisSummary(settings.key)
    with lake.locked():
        snapshot = lake.snapshot()
        con = connect(snapshot)
        filters = _checked(con, filters)
        summary.player = filters.player
        params = {
            "player": filters.player,
            "variant": filters.variant,
            "since": filters.since,
            "until": filters.until,
            "session": filters.session,
            "hands": filters.hands,
            "analysis": settings.key,
        }
        chosen = con.sql(_CHOSEN, params=params).to_arrow_table()
        if not chosen.num_rows:
            raise AnalyseError(
                "no open-face hands match"
                + (f" in session {filters.session!r}" if filters.session else "")
                + ": classic hands are set all at once, with nothing to weigh"
            )
        natives = Natives(recorded=list(snapshot.rule_sets.values()), given=given or [])
        boards = chosen.column("boards").to_numpy()
        done = chosen.column("done").to_numpy()
        summary.already = int(done.sum())
        todo = chosen.column("hand_key").to_numpy()[done < boards]
        total = int(todo.size)
        if on_progress:
            on_progress(0, total)
        board_params = {"player": filters.player, "analysis": settings.key}

        def weighed(hands: int) -> None:
            summary.hands += hands
            if on_progress:
                on_progress(summary.hands, total)

        for lo in range(0, total, CHUNK):
            con.register("chunk", pa.table({"hand_key": todo[lo : lo + CHUNK]}))
            rows = con.sql(BOARDS, params=board_params).to_arrow_table()
            placed = con.sql(PLACEMENTS).to_arrow_table()
            con.unregister("chunk")
            wanted = rows.column("wanted").to_numpy(zero_copy_only=False)
            summary.batches.append(_weigh_chunk(lake, rows, wanted, placed, settings, natives, summary, weighed))
    summary.seconds = time.perf_counter() - t0
    return summary


def _weigh_chunk(
    lake: Lake,
    rows: pa.Table,
    wanted: np.ndarray,
    placed: pa.Table,
    settings: Settings,
    natives: Natives,
    summary: AnalysisSummary,
    weighed: Callable[[int], None],
) -> str:
    """Weigh the wanted boards of some hands (``rows``: all their boards, a hand's together; ``placed``: all their
    placements) ``STEP`` hands at a time, telling ``weighed`` after each, and commit them as one batch; its name."""
    writer = lake.begin("analysis")
    decisions: list[pa.Table] = []
    boards_out: list[pa.Table] = []
    try:
        keys = rows.column("hand_key").to_numpy()
        starts = np.flatnonzero(np.r_[True, keys[1:] != keys[:-1]])
        bounds = np.r_[starts[::STEP], keys.size]
        for first, (lo, hi) in zip(range(0, starts.size, STEP), itertools.pairwise(bounds.tolist()), strict=True):
            step = rows.slice(lo, hi - lo)
            # One group of boards per (variant, house rules): each resolves to its hands' native rule set.
            groups = (
                pl.from_arrow(step.select(["variant", "house_rules"]))
                .with_row_index("at")
                .group_by(["variant", "house_rules"], maintain_order=True)
                .agg(pl.col("at"))
            )
            for variant, house, at in groups.iter_rows():
                rules = natives.resolve(variant, house).rules
                index = np.asarray(at, dtype=np.int64)
                picked = wanted[lo:hi][index]
                d, b = _weigh_rules(step.take(pa.array(index)), picked, placed, rules, settings, summary)
                decisions.append(d)
                boards_out.append(b)
            weighed(min(STEP, starts.size - first))  # the step's hands
        for name, parts in (("decisions", decisions), ("analysed_boards", boards_out)):
            for t in parts:
                batch = pa.array([writer.batch] * t.num_rows, type=pa.string())
                writer.write(name, t.set_column(t.schema.get_field_index("batch"), "batch", batch))
        n = sum(t.num_rows for t in boards_out)
        skipped = sum(int(np.sum(np.asarray(t.column("skipped").is_valid()))) for t in boards_out)
        writer.commit(
            {"read": n, "accepted": n - skipped, "quarantined": skipped, "duplicates": 0, "version": __version__},
            [],
            {"analysis": settings.key, "settings": settings.__dict__ | {"method": METHOD}},
        )
    except BaseException:
        writer.abort()
        raise
    return writer.batch


def replayable(
    rows: pa.Table, wanted: np.ndarray, placed: pa.Table, deal: Deal
) -> tuple[pa.Table, np.ndarray, Hands, np.ndarray]:
    """Boards of whole hands (``rows``, as :data:`BOARDS` lists them; ``placed``: their placements) in acting order
    within each hand (the button last), with ``wanted`` in the same order, their placements as :class:`Hands`,
    and why a board cannot be replayed (None where it can)."""
    keys = rows.column("hand_key").to_numpy()
    seat = rows.column("seat").to_numpy().astype(np.int64)
    button = rows.column("button").to_numpy().astype(np.int64)
    order = np.lexsort((table_order(seat, button), keys))
    rows, wanted, keys = rows.take(pa.array(order)), wanted[order], keys[order]
    starts = np.flatnonzero(np.r_[True, keys[1:] != keys[:-1]])
    hand_start = np.r_[starts, keys.size].astype(np.int64)
    fantasyland = rows.column("fantasyland").to_numpy(zero_copy_only=False).astype(bool)
    fl_cards = rows.column("fantasyland_cards").to_numpy().astype(np.int64)

    # Placements of these boards, grouped by board in acting order (the others' left out).
    listed = rows.column("board_row").to_numpy()
    placed_on = placed.column("board_row").to_numpy()
    here = np.full(max(int(listed.max()), int(placed_on.max(initial=0))) + 1, -1, dtype=np.int64)
    here[listed] = np.arange(listed.size)
    owner = here[placed_on]
    take = np.flatnonzero(owner >= 0)
    take = take[np.argsort(owner[take], kind="stable")]
    row_code = pc.index_in(placed.column("row"), value_set=pa.array(PLACEMENT_ROWS))
    hands = Hands(
        hand_start=hand_start,
        fantasyland=fantasyland,
        place_start=np.searchsorted(owner[take], np.arange(keys.size + 1)).astype(np.int64),
        street=placed.column("street").to_numpy().astype(np.int64)[take],
        card=placed.column("card").to_numpy().astype(np.uint8)[take],
        row=pc.fill_null(row_code, 3).to_numpy(zero_copy_only=False).astype(np.int64)[take],
    )
    problems = board_problems(hands, deal, fl_cards)
    hand_of = hands.hand_of
    open_bad = (problems != "") & ~fantasyland
    hand_bad = np.zeros(hand_start.size - 1, dtype=bool)
    np.logical_or.at(hand_bad, hand_of, open_bad)
    skipped = np.where(problems != "", problems, None).astype(object)
    others = hand_bad[hand_of] & (problems == "")
    skipped[others] = "another seat's placements cannot be replayed, so the boards it saw are not known"
    return rows, wanted, hands, skipped


def _weigh_rules(
    rows: pa.Table, wanted: np.ndarray, placed: pa.Table, rules: RuleSet, settings: Settings, summary: AnalysisSummary
) -> tuple[pa.Table, pa.Table]:
    """The decisions of boards of hands played under one rule set, and what became of each board."""
    variant = rows.column("variant")[0].as_py()
    deal = facts(variant).deal
    rows, wanted, hands, skipped = replayable(rows, wanted, placed, deal)
    keys = rows.column("hand_key").to_numpy()
    seat = rows.column("seat").to_numpy().astype(np.int64)
    fantasyland = hands.fantasyland
    fl_cards = rows.column("fantasyland_cards").to_numpy().astype(np.int64)
    analysed = wanted & (skipped == None)  # noqa: E711 (elementwise)

    players = hands.players
    todo = decisions_of(hands, deal, analysed)
    n_dec = np.zeros(keys.size, dtype=np.int64)
    tables = []
    for p in np.unique(players[todo.board]).tolist():
        worth = fantasyland_worth(rules, p, settings.seed)
        summary.fantasyland_worth[f"{rules.key} x{p}"] = [round(w, 2) for w in worth]
        ctx = context(rules, p, settings.rollouts, settings.moves, worth)
        at_p = players[todo.board] == p
        for s in range(1, deal.streets + 1):
            for fl in (False, True):
                sel = at_p & (todo.street == s) & (fantasyland[todo.board] == fl)
                if not sel.any():
                    continue
                board, street = todo.board[sel], todo.street[sel]
                width = int(fl_cards[board].max()) if fl else deal.dealt[s - 1]
                pos = positions(hands, board, street, p, width)
                seeds = decision_seeds(settings.seed, keys[board], seat[board], street)
                est = weigh_fantasyland(ctx, pos, seeds) if fl else weigh_streets(ctx, pos, s - 1, seeds)
                kind = kind_of(deal, s, fl)
                keep = est.legal > 1
                summary.forced += int((~keep).sum())
                np.add.at(n_dec, board[keep], 1)
                if keep.any():
                    tables.append(_decision_rows(rows, board, street, pos, est, keep, kind, seeds, p, settings, rules))
    summary.decisions += int(n_dec.sum())
    for reason in skipped[wanted & (skipped != None)].tolist():  # noqa: E711
        summary.skipped[reason] = summary.skipped.get(reason, 0) + 1
    summary.boards += int(wanted.sum())
    base = _key_columns(rows, np.flatnonzero(wanted), settings, rules)
    base["decisions"] = pa.array(n_dec[wanted], type=pa.int16())
    base["skipped"] = pa.array(skipped[wanted].tolist(), type=pa.string())
    boards_table = pa.table(base, schema=ANALYSED_BOARDS)
    decisions = pa.concat_tables(tables) if tables else DECISIONS.empty_table()
    if decisions.num_rows:
        summary.ev_lost += float(np.sum(decisions.column("ev_lost").to_numpy()))
    return decisions, boards_table


def _key_columns(rows: pa.Table, at: np.ndarray, settings: Settings, rules: RuleSet) -> dict[str, pa.Array]:
    take = pa.array(at, type=pa.int64())
    n = at.size
    return {
        "hand_key": rows.column("hand_key").take(take),
        "batch": pa.array([""] * n, type=pa.string()),  # the batch's name, once it is known
        "analysis": pa.array([settings.key] * n, type=pa.string()),
        "variant": rows.column("variant").take(take),
        "month": rows.column("month").take(take),
        "content_hash": rows.column("content_hash").take(take),
        "hand_id": rows.column("hand_id").take(take),
        "played_at": rows.column("played_at").take(take).cast(pa.timestamp("us", tz="UTC")),
        "rules_key": pa.array([rules.key] * n, type=pa.string()),
        "seat": rows.column("seat").take(take).cast(pa.int8()),
        "player": rows.column("player").take(take).cast(pa.string()),
    }


def _decision_rows(
    rows: pa.Table,
    board: np.ndarray,
    street: np.ndarray,
    pos: Positions,
    est: Estimates,
    keep: np.ndarray,
    kind: str,
    seeds: np.ndarray,
    players: int,
    settings: Settings,
    rules: RuleSet,
) -> pa.Table:
    at = np.flatnonzero(keep)
    m = at.size
    dealt = pos.dealt[at]
    played = pos.played[at]
    best = est.best[at]
    present = dealt != 255
    played = np.where(present, played, 4)
    best = np.where(present, best, 4)
    cols = _key_columns(rows, board[at], settings, rules)
    ev_played, ev_best = est.ev_played[at], est.ev_best[at]
    lost = np.maximum(ev_best - ev_played, 0.0)
    cols |= {
        "n_players": pa.array(np.full(m, players, dtype=np.int8)),
        "street": pa.array(street[at].astype(np.int8)),
        "kind": pa.array([kind] * m, type=pa.string()),
        "dealt": _lists(dealt, present),
        "seen": _seen(pos.own[at], pos.boards[at]),
        "played": pa.array(_move_words(dealt, played), type=pa.string()),
        "best": pa.array(_move_words(dealt, best), type=pa.string()),
        "played_rows": pa.array(row_letters(played).tolist(), type=pa.string()),
        "best_rows": pa.array(row_letters(best).tolist(), type=pa.string()),
        "ev_played": pa.array(ev_played),
        "ev_best": pa.array(ev_best),
        "ev_lost": pa.array(lost),
        "se": pa.array(est.se[at]),
        "foul_played": pa.array(est.foul_played[at]),
        "foul_best": pa.array(est.foul_best[at]),
        "rollouts": pa.array(est.rollouts[at].astype(np.int32)),
        "moves": pa.array(est.legal[at].astype(np.int16)),
        "compared": pa.array(est.compared[at].astype(np.int8)),
        "seed": pa.array(seeds[at].astype(np.uint64)),
    }
    return pa.table(cols, schema=DECISIONS)
