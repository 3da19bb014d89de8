"""A connection narrowed to some boards (``sql/narrowed.sql``): summed again from the boards, its summaries are the
rescore's own when nothing is narrowed; narrowed, each table holds the boards asked for, checked against the
rescore's summaries where they carry the dimension, and against polars over the lake's tables where they do not."""

from __future__ import annotations

import duckdb
import polars as pl
import pytest

from ofc.pipeline.query import db
from ofc.pipeline.query.db import Narrowing, NarrowingError, connect
from ofc.pipeline.query.players import FilterError
from ofc.reports.html import render
from ofc.reports.report import Options, build
from ofc.schemas.lake import TABLES
from tests.test_report_lake import INJECTION, ReportLake, shared_lake


@pytest.fixture(scope="module")
def report_lake(tmp_path_factory: pytest.TempPathFactory) -> ReportLake:
    return shared_lake(tmp_path_factory)


def rows(con: duckdb.DuckDBPyConnection, table: str, where: str = "true", values: dict | None = None) -> pl.DataFrame:
    columns = ", ".join(f'"{c}"' for c in TABLES[table].names)
    found = pl.from_arrow(con.sql(f"SELECT {columns} FROM {table} WHERE {where}", params=values).to_arrow_table())
    assert isinstance(found, pl.DataFrame)
    return found.sort(found.columns, nulls_last=True)


def one(con: duckdb.DuckDBPyConnection, sql: str, values: dict | None = None) -> tuple:
    (row,) = con.execute(sql, values).fetchall()
    return row


def same(a: pl.DataFrame, b: pl.DataFrame) -> bool:
    return a.height == b.height and a.schema == b.schema and a.equals(b)


KEYS = {
    "board_summary": ["n_players", "position", "fantasyland", "fantasyland_cards"],
    "board_counts": ["counted", "value"],
    "player_sessions": ["session", "n_players"],
}


def sums(con: duckdb.DuckDBPyConnection, table: str) -> pl.DataFrame:
    """A summary's sums by its groups: a rescore writes a group's rows source batch by source batch."""
    keys = ["rules", "rules_key", "native", "variant", "player", "day", *KEYS[table]]
    summed = [c for c in TABLES[table].names if c not in keys and c != "first_hand"]
    how = {"first_played": "min", "last_played": "max"}
    found = pl.from_arrow(
        con.sql(
            f"SELECT {', '.join(keys)}, "
            + ", ".join(f"{how.get(c, 'sum')}({c}) AS {c}" for c in summed)
            + f" FROM {table} GROUP BY ALL"
        ).to_arrow_table()
    )
    assert isinstance(found, pl.DataFrame)
    return found.sort(found.columns, nulls_last=True)


def sides(con: duckdb.DuckDBPyConnection) -> pl.DataFrame:
    """Each pair from each player's side (pair_sides), summed by player, opponent, game, day and rule set."""
    found = pl.from_arrow(
        con.sql(
            "SELECT rule_set, variant, day, player, opponent, sum(matchups) AS matchups, sum(points) AS points, "
            "sum(squares) AS squares, sum(scoops) AS scoops, sum(scooped) AS scooped "
            "FROM (SELECT DISTINCT rules_key AS rule_set FROM board_results), "
            "LATERAL (SELECT * FROM pair_sides(rule_set, NULL, NULL, NULL, NULL)) GROUP BY ALL"
        ).to_arrow_table()
    )
    assert isinstance(found, pl.DataFrame)
    return found.sort(found.columns, nulls_last=True)


@pytest.mark.parametrize("table", KEYS)
def test_the_sums_again_are_the_rescores_own(report_lake: ReportLake, table: str) -> None:
    snapshot = report_lake.lake.snapshot()
    stored, again = sums(connect(snapshot), table), sums(connect(snapshot, Narrowing()), table)
    assert stored.height > 0
    assert same(stored, again)


def test_the_pairs_again_are_the_rescores_own(report_lake: ReportLake) -> None:
    snapshot = report_lake.lake.snapshot()
    stored, again = sides(connect(snapshot)), sides(connect(snapshot, Narrowing()))
    assert stored.height > 0
    assert same(stored, again)


def test_a_sessions_first_hand_is_its_first_played(report_lake: ReportLake) -> None:
    narrowed = connect(report_lake.lake.snapshot(), Narrowing())
    found = narrowed.execute(
        "SELECT count(*), count_if(h.played_at IS NOT DISTINCT FROM s.first_played) FROM player_sessions s "
        "JOIN lake_hands h ON h.hand_key = s.first_hand"
    ).fetchall()
    assert found[0][0] > 0
    assert found[0][0] == found[0][1]


def test_a_table_size_and_a_position_keep_the_rescores_rows_of_them(report_lake: ReportLake) -> None:
    snapshot = report_lake.lake.snapshot()
    stored = connect(snapshot)
    for size in (2, 3, 4):
        narrowed = connect(snapshot, Narrowing(table_size=size))
        assert same(rows(stored, "board_summary", "n_players = $n", {"n": size}), rows(narrowed, "board_summary"))
        assert same(rows(stored, "player_sessions", "n_players = $n", {"n": size}), rows(narrowed, "player_sessions"))
    for place in (0, 1, 2):
        narrowed = connect(snapshot, Narrowing(position=place))
        assert same(rows(stored, "board_summary", "position = $p", {"p": place}), rows(narrowed, "board_summary"))
    for played in (True, False):
        narrowed = connect(snapshot, Narrowing(fantasyland=played))
        assert same(rows(stored, "board_summary", "fantasyland = $f", {"f": played}), rows(narrowed, "board_summary"))
    both = connect(snapshot, Narrowing(table_size=3, position=2))
    where = "n_players = 3 AND position = 2"
    assert same(rows(stored, "board_summary", where), rows(both, "board_summary"))
    # board_counts keeps no table size: the royalties of the top row, counted, are the boards kept
    counted = one(both, "SELECT sum(boards) FROM board_counts WHERE counted = 'royalty_top'")
    assert counted == one(stored, f"SELECT sum(boards) FROM board_summary WHERE {where}")


def test_a_session_keeps_its_boards(report_lake: ReportLake) -> None:
    snapshot = report_lake.lake.snapshot()
    stored = connect(snapshot)
    for session in ("s3", "s7"):
        narrowed = connect(snapshot, Narrowing(session=session))
        values = {"s": session}
        assert same(rows(stored, "player_sessions", "session = $s", values), rows(narrowed, "player_sessions"))
        boards = one(stored, "SELECT count(*) FROM boards JOIN hands USING (hand_key) WHERE session = $s", values)
        assert one(narrowed, "SELECT count(*) FROM boards") == boards


@pytest.mark.parametrize("opponent", ["Ann", INJECTION])
def test_an_opponent_keeps_the_boards_against_them_and_the_pairs_with_them(
    report_lake: ReportLake, opponent: str
) -> None:
    snapshot = report_lake.lake.snapshot()
    stored = connect(snapshot)
    narrowed = connect(snapshot, Narrowing(opponent=opponent))
    # the pairs with them, from their opponents' sides only
    theirs_sides = sides(narrowed)
    assert theirs_sides.height > 0
    assert same(sides(stored).filter((pl.col("opponent") == opponent) & (pl.col("player") != opponent)), theirs_sides)
    boards = report_lake.frame("boards").select("hand_key", "seat", "player")
    theirs = boards.filter(pl.col("player") == opponent)["hand_key"].unique()
    against = boards.filter(pl.col("hand_key").is_in(theirs.implode()) & (pl.col("player") != opponent))
    assert against.height > 0
    kept = pl.from_arrow(narrowed.sql("SELECT hand_key, seat, player FROM boards").to_arrow_table())
    assert isinstance(kept, pl.DataFrame)
    assert kept.sort("hand_key", "seat").equals(against.sort("hand_key", "seat"))
    # every figure of boards reads them: the foul rate over every board is theirs
    fouled = one(narrowed, "SELECT count(*), count_if(fouled) FROM played_boards")
    results = report_lake.boards().join(against.select("hand_key", "seat"), on=["hand_key", "seat"])
    assert fouled == (results.height, results["fouled"].sum())


def test_on_a_seat_a_pair_counts_only_for_the_player_there(report_lake: ReportLake) -> None:
    snapshot = report_lake.lake.snapshot()
    stored = connect(snapshot)
    for place in (0, 1):
        on = sides(connect(snapshot, Narrowing(position=place))).filter(pl.col("rule_set").str.starts_with("ofc@"))
        # each board has a pair with every other board of its hand
        pairs = stored.execute(
            "SELECT player, sum(boards * (n_players - 1)) FROM board_summary "
            "WHERE rules_key LIKE 'ofc@%' AND position = $p GROUP BY player",
            {"p": place},
        ).fetchall()
        counted = on.group_by("player").agg(pl.col("matchups").sum())
        assert dict(pairs) == dict(counted.iter_rows())


def test_a_narrowing_that_keeps_too_many_boards_says_so(
    report_lake: ReportLake, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(db, "NARROWED_BOARDS", 10)
    with pytest.raises(NarrowingError, match=r"keeps [\d,]+ boards, more than the 10 a narrowed page sums") as told:
        connect(report_lake.lake.snapshot(), Narrowing(table_size=3))
    assert str(told.value).endswith("choose a game, a session or an opponent too")
    # what it asks for is what the narrowing has not got yet
    with pytest.raises(NarrowingError, match=r"boards of pineapple, more .*: choose a session or an opponent too$"):
        connect(report_lake.lake.snapshot(), Narrowing(position=0, variant="pineapple"))


def test_a_narrowed_report_says_what_it_keeps_and_every_figure_reads_it(report_lake: ReportLake) -> None:
    report = build(report_lake.lake, Options(min_hands=1, narrowing=Narrowing(table_size=2, position=1)))
    assert "boards at 2-player tables, 1st to act" in render(report)
    stored = connect(report_lake.lake.snapshot())
    (boards,) = one(stored, "SELECT sum(boards) FROM board_summary WHERE native AND n_players = 2 AND position = 1")
    (shown,) = (r for r in report.overview_rows if r["variant"] == "all variants")
    assert shown["hands"] == shown["boards"] == boards  # one board a hand is first to act
    # a player with no boards so narrowed is told so, with what narrowed them
    with pytest.raises(FilterError, match=r"^Bo has no boards at 2-player tables in pineapple$"):
        build(report_lake.lake, Options(player="Bo", variant="pineapple", narrowing=Narrowing(table_size=2)))
