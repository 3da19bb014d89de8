"""Each named query against a direct computation (polars joins on keys) on the small test lake."""

from __future__ import annotations

import math
import shutil
from datetime import date
from pathlib import Path
from typing import Any

import duckdb
import numpy as np
import polars as pl
import pyarrow.parquet as pq
import pytest

from pipeline.evaluate import category, evaluate_boards
from pipeline.lake.store import Lake
from pipeline.query import named, relations
from pipeline.query.db import connect
from tests.test_report_lake import INJECTION, XSS, ReportLake, shared_lake


@pytest.fixture(scope="module")
def report_lake(tmp_path_factory: pytest.TempPathFactory) -> ReportLake:
    return shared_lake(tmp_path_factory)


@pytest.fixture(scope="module")
def con(report_lake: ReportLake) -> duckdb.DuckDBPyConnection:
    return connect(report_lake.lake)


@pytest.fixture(scope="module")
def boards(report_lake: ReportLake) -> pl.DataFrame:
    return report_lake.boards(report_lake.rule_keys[0])


def run(con: duckdb.DuckDBPyConnection, lake: ReportLake, name: str, **params: Any) -> list[dict[str, Any]]:
    return named.run(con, lake.lake, name, params).to_pylist()


def by(rows: list[dict[str, Any]], *keys: str) -> dict[Any, dict[str, Any]]:
    return {tuple(r[k] for k in keys) if len(keys) > 1 else r[keys[0]]: r for r in rows}


def wilson(k: int, n: int) -> tuple[float, float]:
    p, z = k / n, 1.96
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return centre - half, centre + half


def test_queries_declare_what_they_use() -> None:
    found = named.queries()
    assert {"foul_rate", "dead_streets", "royalty_frequency", "fantasyland", "scoring_variants", "results"} <= set(
        found
    )
    for q in found.values():
        assert q.description, q.name
        for p in q.params:
            assert p.type in named.TYPES


def test_foul_rate(con: duckdb.DuckDBPyConnection, report_lake: ReportLake, boards: pl.DataFrame) -> None:
    rows = run(con, report_lake, "foul_rate")
    players = by([r for r in rows if r["dimension"] == "player"], "group")
    direct = boards.group_by("player").agg(pl.len().alias("n"), pl.col("fouled").sum().alias("k"))
    assert len(players) == direct.height
    for player, n, k in direct.rows():
        assert (players[player]["boards"], players[player]["fouled"]) == (n, k)
        assert players[player]["ci_low"] == pytest.approx(wilson(k, n)[0])
        assert players[player]["ci_high"] == pytest.approx(wilson(k, n)[1])
    button = pl.col("button").fill_null(pl.col("n_players") - 1)  # none recorded: the highest seat
    position = boards.with_columns(((pl.col("seat") - button + pl.col("n_players")) % pl.col("n_players")).alias("pos"))
    seats = by([r for r in rows if r["dimension"] == "seat"], "group")
    for n_players, pos, n, k in position.group_by("n_players", "pos").agg(pl.len(), pl.col("fouled").sum()).rows():
        label = f"{n_players} players, " + ("button" if pos == 0 else f"button + {pos}")
        assert (seats[label]["boards"], seats[label]["fouled"]) == (n, k)
    fl = by([r for r in rows if r["dimension"] == "fantasyland"], "group")
    inside = boards.filter(pl.col("fantasyland"))
    assert fl["in Fantasyland"]["boards"] == inside.height
    assert fl["in Fantasyland"]["fouled"] == inside["fouled"].sum()
    total = by(rows, "dimension")["all"]
    assert total["boards"] == boards.height
    assert total["foul_rate"] == pytest.approx(boards["fouled"].mean())


def test_dead_streets(con: duckdb.DuckDBPyConnection, report_lake: ReportLake, boards: pl.DataFrame) -> None:
    rows = by(run(con, report_lake, "dead_streets"), "variant", "street")
    fouled = boards.filter(pl.col("fouled"))
    direct = fouled.group_by("variant", "dead_street").agg(pl.len()).rows()
    assert len(rows) == len(direct)
    for variant, street, n in direct:
        row = rows[(variant, street)]
        assert row["boards_dead"] == n
        assert row["share_of_fouled"] == pytest.approx(n / fouled.filter(pl.col("variant") == variant).height)
        assert row["share_of_boards"] == pytest.approx(n / boards.filter(pl.col("variant") == variant).height)


def test_royalty_frequency_names_the_hands_the_cards_make(
    con: duckdb.DuckDBPyConnection, report_lake: ReportLake, boards: pl.DataFrame
) -> None:
    rows = run(con, report_lake, "royalty_frequency")
    cards = np.array(boards["cards"].to_list(), dtype=np.uint8)
    strengths = evaluate_boards(cards)
    from pipeline.evaluate import CATEGORY_NAMES

    for i, row in enumerate(("top", "middle", "bottom")):
        points = boards[f"royalty_{row}"].to_numpy()
        values, counts = np.unique(points, return_counts=True)
        mine = by([r for r in rows if r["row"] == row], "points")
        assert sorted(mine) == values.tolist()
        for value, count in zip(values.tolist(), counts.tolist(), strict=True):
            assert mine[value]["boards_made"] == count
            assert mine[value]["frequency"] == pytest.approx(count / boards.height)
            if value > 0:  # the hand named is the one the cards make
                made = {CATEGORY_NAMES[c] for c in category(strengths[i][points == value]).tolist()}
                assert made <= set(mine[value]["category"].split(" / ")), (row, value)


def test_royalty_points(con: duckdb.DuckDBPyConnection, report_lake: ReportLake, boards: pl.DataFrame) -> None:
    rows = by([r for r in run(con, report_lake, "royalty_points") if r["dimension"] == "player"], "group")
    total = pl.col("royalty_top") + pl.col("royalty_middle") + pl.col("royalty_bottom")
    direct = boards.group_by("player").agg(
        pl.len(), pl.col("royalty_top").mean(), total.mean().alias("t"), (total > 0).mean().alias("s")
    )
    for player, n, top, per_board, share in direct.rows():
        assert rows[player]["boards"] == n
        assert rows[player]["top"] == pytest.approx(top)
        assert rows[player]["per_board"] == pytest.approx(per_board)
        assert rows[player]["share_with_royalty"] == pytest.approx(share)


def test_fantasyland(con: duckdb.DuckDBPyConnection, report_lake: ReportLake, boards: pl.DataFrame) -> None:
    rows = run(con, report_lake, "fantasyland")
    table = by([r for r in rows if r["variant"] != "all variants"], "variant", "hand_kind", "cards")
    inside = boards.filter(pl.col("fantasyland"))
    for variant, cards, n, stays, fouls, points in (
        inside.group_by("variant", "fantasyland_cards")
        .agg(pl.len(), pl.col("fantasyland_stay").sum(), pl.col("fouled").sum(), pl.col("points").mean())
        .rows()
    ):
        row = table[(variant, "fantasyland", cards)]
        assert (row["hands"], row["stays"], row["fouls"]) == (n, stays, fouls)
        assert row["stay_rate"] == pytest.approx(stays / n)
        assert row["points_per_hand"] == pytest.approx(points)
    normal = boards.filter(~pl.col("fantasyland"))
    for variant, n, entries in normal.group_by("variant").agg(pl.len(), pl.col("fantasyland_entry").sum()).rows():
        row = table[(variant, "normal", None)]
        assert (row["hands"], row["entries"]) == (n, entries)
        assert row["entry_rate"] == pytest.approx(entries / n)
    overall = by([r for r in rows if r["variant"] == "all variants"], "hand_kind")
    assert overall["fantasyland"]["hands"] == inside.height


def _mean_interval(values: np.ndarray) -> tuple[float, float, float]:
    mean, sd = values.mean(), values.std(ddof=1)
    return mean, mean - 1.96 * sd / math.sqrt(values.size), mean + 1.96 * sd / math.sqrt(values.size)


def test_results(con: duckdb.DuckDBPyConnection, report_lake: ReportLake, boards: pl.DataFrame) -> None:
    rows = by([r for r in run(con, report_lake, "results") if r["dimension"] == "player"], "group")
    assert set(rows) == set(boards["player"].unique().to_list())
    for player in rows:
        points = boards.filter(pl.col("player") == player)["points"].to_numpy().astype(float)
        r = rows[player]
        assert (r["hands"], r["points"]) == (points.size, points.sum())
        if points.size > 1:
            mean, low, high = _mean_interval(points)
            assert (r["points_per_hand"], r["ci_low"], r["ci_high"]) == pytest.approx((mean, low, high))
            assert r["stddev"] == pytest.approx(points.std(ddof=1))
        assert r["won_share"] == pytest.approx((points > 0).mean())


def test_scoring_variants(con: duckdb.DuckDBPyConnection, report_lake: ReportLake) -> None:
    keys = report_lake.rule_keys
    rows = by(run(con, report_lake, "scoring_variants"), "rules_key", "player")
    per = {key: report_lake.boards(key) for key in keys}
    for key, frame in per.items():
        assert rows[(key, None)]["hands"] == frame.height
        assert rows[(key, None)]["stddev"] == pytest.approx(frame["points"].cast(pl.Float64).std())
        for player, mean in frame.group_by("player").agg(pl.col("points").mean()).rows():
            base = per[keys[0]].filter(pl.col("player") == player)["points"].mean()
            assert rows[(key, player)]["points_per_hand"] == pytest.approx(mean)
            assert rows[(key, player)]["gain_per_hand"] == pytest.approx(mean - base)


def _winners(frame: pl.DataFrame) -> pl.DataFrame:
    top = frame.with_columns(pl.col("points").max().over("hand_key").alias("top")).filter(
        pl.col("points") == pl.col("top")
    )
    return top.group_by("hand_key").agg(
        pl.col("variant").first(), pl.when(pl.len() == 1).then(pl.col("player").first()).alias("winner")
    )


def test_winner_changes(con: duckdb.DuckDBPyConnection, report_lake: ReportLake) -> None:
    base, other = report_lake.rule_keys
    rows = by(run(con, report_lake, "winner_changes"), "rules_key", "variant")
    both = _winners(report_lake.boards(base)).join(_winners(report_lake.boards(other)), on="hand_key", suffix="_b")
    changed = both.with_columns((pl.col("winner").ne_missing(pl.col("winner_b"))).alias("changed"))
    for variant, n, k in changed.group_by("variant").agg(pl.len(), pl.col("changed").sum()).rows():
        assert (rows[(other, variant)]["hands"], rows[(other, variant)]["changed"]) == (n, k)
    assert rows[(other, "all variants")]["hands"] == both.height
    assert rows[(other, "all variants")]["changed"] == changed["changed"].sum() > 0


def _pairs(report_lake: ReportLake) -> pl.DataFrame:
    names = report_lake.frame("boards").select("hand_key", "seat", "player")
    pairs = report_lake.frame("pair_results").filter(pl.col("rules_key") == report_lake.rule_keys[0])
    pairs = pairs.join(names.rename({"seat": "seat_a", "player": "player_a"}), on=["hand_key", "seat_a"])
    return pairs.join(names.rename({"seat": "seat_b", "player": "player_b"}), on=["hand_key", "seat_b"])


def test_head_to_head_and_scoops(con: duckdb.DuckDBPyConnection, report_lake: ReportLake) -> None:
    pairs = _pairs(report_lake)
    sides = pl.concat(
        [
            pairs.select(pl.col("player_a").alias("player"), pl.col("player_b").alias("opponent"), "points", "scoop"),
            pairs.select(
                pl.col("player_b").alias("player"),
                pl.col("player_a").alias("opponent"),
                -pl.col("points"),
                -pl.col("scoop"),
            ),
        ]
    )
    h2h = by(run(con, report_lake, "head_to_head"), "player", "opponent")
    direct = sides.group_by("player", "opponent").agg(
        pl.len(), pl.col("points").sum().alias("p"), (pl.col("scoop") > 0).sum().alias("s")
    )
    assert len(h2h) == direct.height
    for player, opponent, n, points, scoops in direct.rows():
        row = h2h[(player, opponent)]
        assert (row["matchups"], row["points"], row["scoops"]) == (n, points, scoops)
    scoops = by(run(con, report_lake, "scoops"), "player")
    counts = sides.group_by("player").agg(
        pl.len(), (pl.col("scoop") > 0).sum().alias("made"), (pl.col("scoop") < 0).sum().alias("taken")
    )
    for player, n, made, taken in counts.rows():
        assert (scoops[player]["matchups"], scoops[player]["scoops"], scoops[player]["scooped"]) == (n, made, taken)


def test_cumulative_and_sessions(con: duckdb.DuckDBPyConnection, report_lake: ReportLake, boards: pl.DataFrame) -> None:
    player = "Ann"
    rows = run(con, report_lake, "cumulative", player=player)
    mine = boards.filter((pl.col("player") == player) & pl.col("played_at").is_not_null())
    daily = mine.group_by(pl.col("played_at").dt.date().alias("day")).agg(pl.col("points").sum()).sort("day")
    assert [r["day"] for r in rows] == daily["day"].to_list()
    assert [r["cumulative_points"] for r in rows] == daily["points"].cum_sum().to_list()
    sessions = run(con, report_lake, "sessions", player=player, sessions=2)
    latest = mine.group_by("session").agg(pl.col("played_at").max()).sort("played_at", descending=True).head(2)
    assert {r["session"] for r in sessions} == set(latest["session"].to_list())
    for session in latest["session"].to_list():
        points = mine.filter(pl.col("session") == session).sort("played_at")["points"].to_list()
        assert [r["cumulative_points"] for r in sessions if r["session"] == session] == np.cumsum(points).tolist()


def test_overview(con: duckdb.DuckDBPyConnection, report_lake: ReportLake) -> None:
    rows = by(run(con, report_lake, "overview"), "variant")
    hands = report_lake.frame("hands")
    assert rows["all variants"]["hands"] == hands.height
    assert rows["all variants"]["boards"] == report_lake.frame("boards").height
    for variant, n in hands.group_by("variant").agg(pl.len()).rows():
        assert rows[variant]["hands"] == n


def test_filters_are_bound_values(
    con: duckdb.DuckDBPyConnection, report_lake: ReportLake, boards: pl.DataFrame
) -> None:
    # A player named like an injection is just a name: their rows, and only theirs.
    rows = run(con, report_lake, "results", player=INJECTION)
    assert {r["group"] for r in rows if r["dimension"] == "player"} == {INJECTION}
    assert by(rows, "dimension")["all"]["hands"] == boards.filter(pl.col("player") == INJECTION).height
    assert run(con, report_lake, "results", player="nobody' OR '1'='1") == []
    for name in XSS:
        assert by(run(con, report_lake, "foul_rate", player=name), "dimension")["all"]["boards"] > 0
    since = date(2026, 3, 5)
    recent = boards.filter(pl.col("played_at").dt.date() >= since)
    assert by(run(con, report_lake, "results", since=since.isoformat()), "dimension")["all"]["hands"] == recent.height
    pineapple = boards.filter(pl.col("variant") == "pineapple")
    assert by(run(con, report_lake, "foul_rate", variant="pineapple"), "dimension")["all"]["boards"] == pineapple.height
    h2h = run(con, report_lake, "head_to_head", player=XSS[0], since=since.isoformat())
    pairs = _pairs(report_lake).join(report_lake.frame("hands").select("hand_key", "played_at"), on="hand_key")
    pairs = pairs.filter(
        (pl.col("played_at").dt.date() >= since) & ((pl.col("player_a") == XSS[0]) | (pl.col("player_b") == XSS[0]))
    )
    assert sum(r["matchups"] for r in h2h) == pairs.height


@pytest.mark.parametrize(
    ("name", "params", "message"),
    [
        ("results", {"colour": "red"}, "has no parameter 'colour'"),
        ("results", {"since": "last tuesday"}, "takes a date"),
        ("sessions", {}, "needs --param player"),
        ("results", {"rules": "no-such-rules"}, "no results under rules 'no-such-rules'"),
        ("cumulative", {"players": "many"}, "whole number"),
        ("no_such_query", {}, "no named query"),
    ],
)
def test_bad_parameters_are_named(
    con: duckdb.DuckDBPyConnection, report_lake: ReportLake, name: str, params: dict[str, str], message: str
) -> None:
    with pytest.raises(named.NamedQueryError, match=message):
        named.run(con, report_lake.lake, name, params)


def test_rules_by_name_or_key(con: duckdb.DuckDBPyConnection, report_lake: ReportLake) -> None:
    key = report_lake.rule_keys[1]
    by_name = run(con, report_lake, "results", rules=key.split("@")[0])
    assert by_name == run(con, report_lake, "results", rules=key)
    assert by_name != run(con, report_lake, "results")


def test_keyed_join_gives_the_same_rows(
    con: duckdb.DuckDBPyConnection, report_lake: ReportLake, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Partitions whose results are not one row per board are joined on keys: the same answers."""
    fast = {n: run(con, report_lake, n) for n in ("foul_rate", "fantasyland", "dead_streets", "cumulative")}
    monkeypatch.setattr(relations, "aligned", lambda part, key: False)
    patched = connect(report_lake.lake)  # a connection keeps the relations it last defined
    for name, rows in fast.items():
        slow = run(patched, report_lake, name)
        assert sorted(map(str, slow)) == sorted(map(str, rows)), name


def test_results_without_hand_facts_or_ids(
    con: duckdb.DuckDBPyConnection, report_lake: ReportLake, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Results rescored before the hand's facts and player ids were written beside them: the same answers, by
    joins, and by ids hashed from the names."""
    player = report_lake.boards(report_lake.rule_keys[0])["player"][0]
    cases = {
        "foul_rate": {},
        "fantasyland": {},
        "cumulative": {},
        "sessions": {"player": player},
        "results": {"player": player},
        "scoring_variants": {},
        "royalty_points": {},
        "winner_changes": {},
        "winner_changes ": {"since": "2026-03-05"},
    }
    fast = {name: run(con, report_lake, name.strip(), **params) for name, params in cases.items()}
    relations._TOTALS.clear()
    monkeypatch.setattr(relations, "FACTS", relations.FACTS | {"not_written"})
    monkeypatch.setattr(relations, "_IDS", relations._IDS | {"not_written"})
    monkeypatch.setattr(relations, "_WINNERS", relations._WINNERS | {"not_written"})
    patched = connect(report_lake.lake)  # a connection keeps the relations it last defined
    for name, params in cases.items():
        assert run(patched, report_lake, name.strip(), **params) == fast[name], name
    relations._TOTALS.clear()


def test_results_files_of_two_versions_in_one_lake(
    report_lake: ReportLake, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Some result files written before the hand facts, ids and winners, the rest after, side by side in one
    positional join (one branch per variant): the same answers."""
    cases = {"results": {}, "foul_rate": {}, "fantasyland": {}, "scoring_variants": {}, "winner_changes": {}}
    expected = {name: run(connect(report_lake.lake), report_lake, name, **p) for name, p in cases.items()}
    copy = tmp_path / "lake"
    shutil.copytree(report_lake.lake.root, copy)
    older = Lake(copy)
    newer = ("played_at", "n_players", "position", "fantasyland_dealt", "player_id", "hand_winner")
    monkeypatch.setattr(relations, "BRANCHES", 1)
    found = relations.parts(older, older.manifests(), report_lake.rule_keys)
    runs = [c.players[k] for k in report_lake.rule_keys for c in relations.chunks([p for p in found if k in p.players])]
    rewrite = [files[0] for files in runs if len(files) > 1]  # the first file of a branch of several
    assert rewrite
    for f in rewrite:
        table = pq.read_table(f, partitioning=None)
        pq.write_table(table.drop_columns([c for c in newer if c in table.column_names]), f)
    relations._TOTALS.clear()
    moved = ReportLake(copy, older, report_lake.rule_keys)
    for name, params in cases.items():
        assert run(connect(older), moved, name, **params) == expected[name], name
    relations._TOTALS.clear()


@pytest.mark.parametrize("since", [None, "2026-03-05"])
def test_winner_changes_from_points_when_no_winner_is_stored(
    con: duckdb.DuckDBPyConnection, report_lake: ReportLake, monkeypatch: pytest.MonkeyPatch, since: str | None
) -> None:
    """Results that do not name the hand's winner: each hand found from the table sizes and its points walked."""
    params = {"since": since} if since else {}
    stored = run(con, report_lake, "winner_changes", **params)
    assert sum(r["changed"] for r in stored) > 0
    relations._TOTALS.clear()
    monkeypatch.setattr(relations, "_WINNERS", relations._WINNERS | {"not_written"})
    assert run(connect(report_lake.lake), report_lake, "winner_changes", **params) == stored
    relations._TOTALS.clear()


def test_pair_results_without_names_are_walked(
    con: duckdb.DuckDBPyConnection, report_lake: ReportLake, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Pair results rescored before they named their players: the same totals, walked beside the boards."""
    cases = {"head_to_head": {}, "scoops": {}, "head_to_head ": {"since": "2026-03-05"}}
    fast = {name: run(con, report_lake, name.strip(), **params) for name, params in cases.items()}
    relations._TOTALS.clear()
    monkeypatch.setattr(relations, "_NAMED_PAIRS", relations._NAMED_PAIRS | {"not_written"})
    patched = connect(report_lake.lake)  # a connection keeps the relations it last defined
    for name, params in cases.items():
        assert run(patched, report_lake, name.strip(), **params) == fast[name], name
    relations._TOTALS.clear()


def test_misaligned_tables_stop_the_query() -> None:
    """The hand-level walk refuses pairs whose hand or seats are not where the hands say."""
    n_players = np.array([2, 2])
    hand_keys = np.array([10, 20], dtype=np.uint64)
    seats = np.array([0, 1, 0, 1])
    players = np.array([0, 1, 0, 1], dtype=np.int32)
    keep = np.ones(2, dtype=bool)
    variant = np.zeros(2, dtype=np.int64)
    out = np.zeros((4, 5), dtype=np.int64)
    args = (np.array([3, -3]), np.array([1, -1], dtype=np.int8), 2, out)
    good = relations._pair_totals(
        n_players, hand_keys, keep, variant, seats, players, hand_keys, np.array([0, 0]), np.array([1, 1]), *args
    )
    assert good
    assert out[1].tolist() == [2, 0, 18, 1, 1]
    swapped = hand_keys[::-1].copy()
    assert not relations._pair_totals(
        n_players, hand_keys, keep, variant, seats, players, swapped, np.array([0, 0]), np.array([1, 1]), *args
    )
    assert not relations._pair_totals(
        n_players, hand_keys, keep, variant, seats, players, hand_keys, np.array([0, 0]), np.array([3, 1]), *args
    )
    first = np.array([0, 2, 4])
    points = np.array([2, -2, 5, -5])
    a, b = np.zeros(2, dtype=np.int8), np.zeros(2, dtype=np.int8)
    assert relations._winners(first, points, a)
    assert relations._winners(first, -points, b)
    assert a.tolist() == [0, 0]
    assert b.tolist() == [1, 1]  # the other player wins both hands under the second points
    shifted = np.array([-2, 5, -5, 2])  # not one row per board in the same order: a hand does not sum to zero
    assert not relations._winners(first, shifted, b)
    tie = np.array([0, 0, 5, -5])
    assert relations._winners(first, tie, b)
    assert b.tolist() == [-1, 0]
    starts = np.zeros(4, dtype=np.int64)
    assert relations._hand_starts(np.array([2, 2, 3, 3, 3], dtype=np.int8), starts) == 2
    assert starts[:3].tolist() == [0, 2, 5]
    assert relations._hand_starts(np.array([2, 3, 3, 3], dtype=np.int8), starts) == -1  # a hand's boards disagree
    assert relations._hand_starts(np.array([3, 3], dtype=np.int8), starts) == -1  # the last hand is cut
