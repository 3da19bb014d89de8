"""The summaries a rescore writes beside its results hold exactly the sums of those results: each checked
against the same sums taken row by row from ``board_results`` and ``pair_results`` (every rule set, as played
and not, every group), on the report test lake and on a lake split into many small chunks."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import duckdb
import numpy as np
import pytest

from ofc.pipeline.lake.store import Lake
from ofc.pipeline.query.db import connect
from ofc.pipeline.rescore import score_source, summaries
from ofc.pipeline.rescore.rescore_run import rescore
from ofc.pipeline.rescore.summaries import _firsts, number
from ofc.pipeline.rules.files import load_rules
from ofc.schemas.lake import NOTABLE_KINDS as KINDS
from ofc.schemas.lake import NOTABLE_PER_MONTH
from tests.test_report_lake import ReportLake, shared_lake

_DAY = "DATE '1970-01-01' + CAST(epoch_us(played_at) // 86400000000 AS INTEGER)"
WIDE = "wide_boards"
"""Every board result with its facts, its place at the table and its result as played: what the summaries sum."""
LAKE_WIDE = """
CREATE OR REPLACE TEMP VIEW wide_boards AS
SELECT c.*, s.position FROM compared_boards c JOIN seated_boards s USING (hand_key, seat)
"""
BATCH_WIDE = """
CREATE OR REPLACE TEMP VIEW wide_boards AS
WITH facts AS (
    SELECT hand_key, seat, player, played_at, fantasyland AND variant <> 'classic' AS fantasyland,
        CASE WHEN fantasyland AND variant <> 'classic' AND fantasyland_cards > 0 THEN fantasyland_cards END
            AS fantasyland_cards,
        count(*) OVER (PARTITION BY hand_key) AS n_players,
        coalesce(button, max(seat) OVER (PARTITION BY hand_key)) AS button_seat
    FROM input
)
SELECT r.*, f.* EXCLUDE (hand_key, seat, button_seat),
    row_number() OVER (PARTITION BY f.hand_key ORDER BY (f.seat - f.button_seat + 255) % 256) % f.n_players
        AS position,
    NULL::INTEGER AS native_points, NULL::TINYINT AS native_winner_seat
FROM board_results r JOIN facts f USING (hand_key, seat)
"""
"""The same from a rescore's input batch (``input``) and one result, outside a lake: no results as played."""

BOARD_SUMS = f"""
SELECT rules, rules_key, native, variant, player, {_DAY} AS day, n_players, position, fantasyland,
    CASE WHEN fantasyland THEN coalesce(fantasyland_cards, 0) ELSE 0 END AS fantasyland_cards,
    count(*) AS boards, sum(points) AS points, sum(points::BIGINT * points) AS squares,
    count(*) FILTER (WHERE points > 0) AS won, count(*) FILTER (WHERE fouled) AS fouls,
    count(*) FILTER (WHERE fantasyland_entry) AS entries, count(*) FILTER (WHERE fantasyland_stay) AS stays,
    sum(royalty_top) AS royalty_top, sum(royalty_middle) AS royalty_middle, sum(royalty_bottom) AS royalty_bottom,
    sum((royalty_top + royalty_middle + royalty_bottom)::BIGINT * (royalty_top + royalty_middle + royalty_bottom))
        AS royalty_squares,
    count(*) FILTER (WHERE royalty_top + royalty_middle + royalty_bottom > 0) AS with_royalty,
    sum(native_points) AS native_points, count(*) FILTER (WHERE winner_seat <> native_winner_seat) AS winner_changes,
    sum((points - native_points)::BIGINT * (points - native_points)) AS gain_squares
FROM {WIDE} GROUP BY ALL
"""
SUMMARY_SUMS = """
SELECT rules, rules_key, native, variant, player, day, n_players, position, fantasyland, fantasyland_cards,
    sum(boards) AS boards, sum(points) AS points, sum(squares) AS squares, sum(won) AS won, sum(fouls) AS fouls,
    sum(entries) AS entries, sum(stays) AS stays, sum(royalty_top) AS royalty_top,
    sum(royalty_middle) AS royalty_middle, sum(royalty_bottom) AS royalty_bottom,
    sum(royalty_squares) AS royalty_squares, sum(with_royalty) AS with_royalty, sum(native_points) AS native_points,
    sum(winner_changes) AS winner_changes, sum(gain_squares) AS gain_squares
FROM board_summary GROUP BY ALL
"""
SESSION_SUMS = f"""
SELECT rules_key, native, variant, player, {_DAY} AS day, session, n_players, count(*) AS boards,
    sum(points) AS points, count(*) FILTER (WHERE fouled) AS fouls, count(*) FILTER (WHERE fantasyland_entry),
    count(*) FILTER (WHERE fantasyland), min(played_at), max(played_at)
FROM {WIDE} GROUP BY ALL
"""
PLAYER_SESSION_SUMS = """
SELECT rules_key, native, variant, player, day, session, n_players, sum(boards), sum(points), sum(fouls), sum(entries),
    sum(fantasyland_hands), min(first_played), max(last_played)
FROM player_sessions GROUP BY ALL
"""
PAIR_SUMMARY_SUMS = """
SELECT rules_key, native, variant, player_a, player_b, day, sum(matchups), sum(points), sum(squares), sum(a_scoops),
    sum(b_scoops)
FROM pair_summary GROUP BY ALL
"""
COUNT_SUMS = f"""
SELECT rules_key, native, variant, player, {_DAY} AS day, 'royalty_top' AS counted, royalty_top AS value,
    count(*) AS boards FROM {WIDE} GROUP BY ALL
UNION ALL SELECT rules_key, native, variant, player, {_DAY}, 'royalty_middle', royalty_middle, count(*)
    FROM {WIDE} GROUP BY ALL
UNION ALL SELECT rules_key, native, variant, player, {_DAY}, 'royalty_bottom', royalty_bottom, count(*)
    FROM {WIDE} GROUP BY ALL
UNION ALL SELECT rules_key, native, variant, player, {_DAY}, 'dead_street', dead_street, count(*)
    FROM {WIDE} WHERE fouled GROUP BY ALL
"""
PAIR_SUMS = f"""
SELECT rules_key, native, variant, player_a, player_b, {_DAY} AS day, count(*) AS matchups, sum(points) AS points,
    sum(points::BIGINT * points) AS squares, count(*) FILTER (WHERE scoop > 0) AS a_scoops,
    count(*) FILTER (WHERE scoop < 0) AS b_scoops
FROM scored_pairs GROUP BY ALL
"""

NOTABLE_ORDER = """
    CASE kind WHEN 'fouled' THEN points WHEN 'biggest win' THEN -points WHEN 'biggest loss' THEN points ELSE 0 END,
    played_at DESC NULLS LAST, hand_key"""
NOTABLE_KINDS = f"""
SELECT 'fouled' AS kind, * FROM {WIDE} WHERE fouled
UNION ALL SELECT 'biggest win', * FROM {WIDE} WHERE points > 0
UNION ALL SELECT 'biggest loss', * FROM {WIDE} WHERE points < 0
UNION ALL SELECT 'fantasyland', * FROM {WIDE} WHERE fantasyland
UNION ALL SELECT 'winner changes', * FROM {WIDE} WHERE winner_seat <> native_winner_seat
"""
NOTABLE_COLUMNS = (
    "kind, rules_key, native, variant, player, day, hand_key, played_at, points, fouled, fantasyland, "
    "fantasyland_cards, fantasyland_entry"
)


def notable_first(per_month: int) -> str:
    """Of each kind, each group's first ``per_month`` boards, taken from ``board_results`` by a window."""
    return f"""
SELECT {NOTABLE_COLUMNS} FROM (
    SELECT *, {_DAY} AS day, row_number() OVER (
        PARTITION BY kind, rules_key, native, variant, player, date_trunc('month', {_DAY})
        ORDER BY {NOTABLE_ORDER}) AS n
    FROM ({NOTABLE_KINDS})
)
WHERE n <= {per_month}
"""


def _rows(con: duckdb.DuckDBPyConnection, sql: str) -> list[tuple[object, ...]]:
    return sorted((tuple(r.values()) for r in con.sql(sql).to_arrow_table().to_pylist()), key=repr)


def _same(con: duckdb.DuckDBPyConnection, expected: str, got: str) -> int:
    want, have = _rows(con, expected), _rows(con, got)
    assert have == want
    return len(want)


def _not_compared(sql: str) -> str:
    """Board sums without those against the hands as played."""
    return f"SELECT * EXCLUDE (native_points, winner_changes, gain_squares) FROM ({sql})"


def check(con: duckdb.DuckDBPyConnection, per_month: int = NOTABLE_PER_MONTH) -> None:
    con.execute(LAKE_WIDE)
    assert _same(con, BOARD_SUMS, SUMMARY_SUMS) > 10
    assert (
        _same(
            con,
            COUNT_SUMS,
            "SELECT rules_key, native, variant, player, day, counted, value, sum(boards) "
            "FROM board_counts GROUP BY ALL",
        )
        > 10
    )
    assert _same(con, PAIR_SUMS, PAIR_SUMMARY_SUMS) > 10
    # Of each kind, every player's first boards of each day are kept, and each board kept is one of its kind.
    firsts = notable_first(per_month)
    assert len(_rows(con, firsts)) > 10
    assert not _rows(con, f"{firsts} EXCEPT ALL SELECT {NOTABLE_COLUMNS} FROM notable_boards")
    kinds = f"SELECT {NOTABLE_COLUMNS} FROM (SELECT *, {_DAY} AS day FROM ({NOTABLE_KINDS}))"
    assert not _rows(con, f"SELECT {NOTABLE_COLUMNS} FROM notable_boards EXCEPT ALL {kinds}")
    assert {k for (k,) in con.sql("SELECT DISTINCT kind FROM notable_boards").fetchall()} == set(KINDS)
    # Each kept board's result as played and its hand's rule set are the native result's.
    kept = "SELECT n.kind, n.rules_key, n.hand_key, n.player"
    assert (
        _same(
            con,
            f"{kept}, p.points, p.fouled, p.fantasyland_entry, p.rules FROM notable_boards n "
            "JOIN played_boards p USING (hand_key, player)",
            f"{kept}, native_points, native_fouled, native_fantasyland_entry, native_rules FROM notable_boards n",
        )
        > 10
    )
    # The hand played first in a group is one of the group's, and played at the group's first time.
    assert con.sql(
        "SELECT count(*) FROM player_sessions s ANTI JOIN scored_boards r ON r.hand_key = s.first_hand "
        "AND r.rules_key = s.rules_key AND r.player = s.player "
        "AND r.played_at IS NOT DISTINCT FROM s.first_played"
    ).fetchall() == [(0,)]


@pytest.fixture(scope="module")
def report_lake(tmp_path_factory: pytest.TempPathFactory) -> ReportLake:
    return shared_lake(tmp_path_factory)


def test_the_summaries_are_the_sums_of_the_results(report_lake: ReportLake) -> None:
    con = connect(report_lake.lake)
    assert con.sql("SELECT count(DISTINCT rules_key) FROM board_summary").fetchall()[0][0] >= 4
    check(con)


def test_the_summaries_add_up_over_chunks(
    report_lake: ReportLake, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Chunks of a few hands: every group is split over many chunks, and summed back the same."""
    lake = Lake(tmp_path / "lake")
    shutil.copytree(report_lake.lake.root, lake.root)
    for m in lake.root.joinpath("_manifests").iterdir():
        if json.loads(m.read_text()).get("kind") == "rescore":
            m.unlink()  # the hands only: scored again below
    monkeypatch.setattr(score_source, "READ_ROWS", 40)
    monkeypatch.setattr(summaries, "NOTABLE_PER_MONTH", 2)  # most months have more boards of a kind than that
    rescore(lake, [load_rules("ofc"), load_rules("classic-2-4"), load_rules("taiwanese")])
    check(connect(lake), per_month=2)


def test_grouping_numbers_rows_by_their_values() -> None:
    rng = np.random.default_rng(3)
    a, b = rng.integers(0, 5, 1000), rng.integers(0, 300, 1000)
    for sizes in ([5, 300], [5, 1 << 40], [1 << 40, 1 << 30]):  # a table of flags, a sort, the columns themselves
        index, first = number([a, b], sizes)
        pairs = list(zip(a.tolist(), b.tolist(), strict=True))
        assert len(first) == len(set(pairs))
        assert [pairs[i] for i in first[index]] == pairs  # each row's group names its values
        assert index[first].tolist() == list(range(len(first)))  # each group's row is in it
    assert number([np.zeros(0, np.int64)], [3])[0].size == 0


def test_the_pure_function_returns_the_summaries_of_its_results() -> None:
    """``rescore_many`` (what a distributed engine maps over batches) returns each job's summaries beside its
    results: the same sums, for a job over every hand and for one over the hands native to it."""
    from ofc.pipeline.rescore.plan import Job
    from ofc.pipeline.rescore.step import rescore_many
    from tests.test_rescore_batch import random_boards

    boards = random_boards(300, seed=5)
    classic, ofc = load_rules("classic-2-4"), load_rules("ofc")
    # No hand is native to classic-2-4 (the classic hands are classic-1-6's): its native job scores nothing.
    jobs = [classic, Job(classic, native_only=True), ofc, Job(ofc, native_only=True)]
    results = rescore_many(boards, jobs)
    ofc_boards = boards.column("variant").to_pylist().count("ofc")
    assert [r.boards.num_rows for r in results] == [boards.num_rows, 0, boards.num_rows, ofc_boards]
    assert 0 < ofc_boards < boards.num_rows
    for result in results:
        con = duckdb.connect()
        con.execute("SET TimeZone = 'UTC'")
        con.register("input", boards)
        con.register("board_results", result.boards)
        con.register("pair_results", result.pairs)
        con.execute(BATCH_WIDE)
        players = "SELECT hand_key, seat, player FROM input"
        con.execute(
            f"CREATE VIEW scored_pairs AS SELECT p.*, a.player AS player_a, b.player AS player_b, h.played_at "
            f"FROM pair_results p JOIN ({players}) a ON a.hand_key = p.hand_key AND a.seat = p.seat_a "
            f"JOIN ({players}) b ON b.hand_key = p.hand_key AND b.seat = p.seat_b "
            "JOIN (SELECT DISTINCT hand_key, played_at FROM input) h ON h.hand_key = p.hand_key"
        )
        for name, rows in result.summaries.items():
            con.register(name, rows)
        if result.boards.num_rows == 0:
            assert all(t.num_rows == 0 for t in result.summaries.values())
            continue
        assert _same(con, _not_compared(BOARD_SUMS), _not_compared(SUMMARY_SUMS)) > 0
        assert _same(con, PAIR_SUMS, PAIR_SUMMARY_SUMS) > 0


def test_the_first_rows_of_each_group_are_kept_in_order() -> None:
    """The compiled pass that keeps each group's first rows, against sorting every group's rows."""
    rng = np.random.default_rng(5)
    n = 5000
    group = rng.integers(0, 40, n)
    wanted = rng.random(n) < 0.7
    first, second, third = rng.integers(-3, 3, n), rng.integers(0, 4, n), rng.permutation(n).astype(np.int64)
    for k in (1, 3, 12, 500):
        kept = _firsts(group, 40, wanted, first, second, third, k)
        expected = np.zeros(n, np.bool_)
        for g in range(40):
            rows = np.flatnonzero((group == g) & wanted)
            order = np.lexsort((third[rows], second[rows], first[rows]))
            expected[rows[order[:k]]] = True
        assert (kept == expected).all()
