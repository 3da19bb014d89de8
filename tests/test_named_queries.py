"""Each named query against a direct computation (polars over the result files) on the small test lake: as
played (each hand under its own rules) unless a test says otherwise."""

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

from ofc.pipeline.evaluate import category, evaluate_boards
from ofc.pipeline.lake.snapshot import Snapshot
from ofc.pipeline.lake.store import Lake
from ofc.pipeline.query import named
from ofc.pipeline.query.db import connect
from ofc.pipeline.query.players import FilterError
from tests.test_report_lake import INJECTION, XSS, ReportLake, shared_lake


@pytest.fixture(scope="module")
def report_lake(tmp_path_factory: pytest.TempPathFactory) -> ReportLake:
    return shared_lake(tmp_path_factory)


@pytest.fixture(scope="module")
def snapshot(report_lake: ReportLake) -> Snapshot:
    return report_lake.lake.snapshot()


@pytest.fixture(scope="module")
def con(snapshot: Snapshot) -> duckdb.DuckDBPyConnection:
    return connect(snapshot)


@pytest.fixture(scope="module")
def boards(report_lake: ReportLake) -> pl.DataFrame:
    return report_lake.boards()


def run(con: duckdb.DuckDBPyConnection, lake: ReportLake, name: str, **params: Any) -> list[dict[str, Any]]:
    return named.run(con, lake.lake.snapshot(), name, params).to_pylist()


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


def _hands(report_lake: ReportLake) -> pl.DataFrame:
    return report_lake.frame("hands").select("hand_key", "button", "n_players", "played_at", "session")


def test_the_wide_views_put_together_game_by_game_hold_every_row_once(con: duckdb.DuckDBPyConnection) -> None:
    """Over a lake of several games, scored_boards and compared_boards are their macros of each game put end to
    end: the same rows as one join of every game's files, each once."""
    from ofc.pipeline.query.db import PER_GAME

    games = [g for (g,) in con.execute("SELECT DISTINCT variant FROM hands ORDER BY 1").fetchall()]
    assert len(games) > 2
    for view, macro in PER_GAME.items():
        (sql,) = con.execute("SELECT sql FROM duckdb_views() WHERE view_name = $v", {"v": view}).fetchall()[0]
        assert all(f"{macro}('{g}')" in sql for g in games), sql
        digest = "count(*), sum(hash(hand_key, seat, rules_key, points, player, played_at))"
        game_by_game = con.execute(f"SELECT {digest} FROM {view}").fetchall()
        assert game_by_game == con.execute(f"SELECT {digest} FROM {macro}(NULL)").fetchall()
        assert game_by_game[0][0] > 0


def test_a_games_players_counted_from_every_games_are_the_same(con: duckdb.DuckDBPyConnection) -> None:
    """The players of one game, taken from the count of every game's (what a served page counts once), are those
    counted for that game alone, for every game and span of days."""
    from ofc.pipeline.query.players import LakeFilters

    for since, until in ((None, None), (date(2026, 3, 2), date(2026, 3, 20))):
        every = LakeFilters(con)
        games = every.boards_by_variant(None, since, until)
        assert len(games) > 2
        for variant in [*games, "pineapple-27", "nonesuch"]:
            alone = LakeFilters(con).boards_by_variant(variant, since, until)
            assert every.boards_by_variant(variant, since, until) == alone


def test_foul_rate(con: duckdb.DuckDBPyConnection, report_lake: ReportLake, boards: pl.DataFrame) -> None:
    rows = run(con, report_lake, "foul_rate")
    players = by([r for r in rows if r["dimension"] == "player"], "group")
    direct = boards.group_by("player").agg(pl.len().alias("n"), pl.col("fouled").sum().alias("k"))
    assert len(players) == direct.height
    for player, n, k in direct.rows():
        assert (players[player]["boards"], players[player]["fouled"]) == (n, k)
        assert players[player]["ci_low"] == pytest.approx(wilson(k, n)[0])
        assert players[player]["ci_high"] == pytest.approx(wilson(k, n)[1])
    # The seat relative to the button, from the hands table: a hand with none recorded has it on the highest seat.
    hands = _hands(report_lake).drop("n_players")
    seated = boards.join(hands, on="hand_key")
    top = pl.col("seat").max().over("hand_key")
    button = pl.col("button").cast(pl.Int64).fill_null(top)
    rank = pl.col("seat").rank("ordinal").over("hand_key").cast(pl.Int64) - 1
    before = (pl.col("seat") < button).sum().over("hand_key")
    seated = seated.with_columns(((rank - before + pl.col("n_players")) % pl.col("n_players")).alias("pos"))
    seats = by([r for r in rows if r["dimension"] == "seat"], "group")
    for n_players, pos, n, k in seated.group_by("n_players", "pos").agg(pl.len(), pl.col("fouled").sum()).rows():
        label = f"{n_players} players, " + ("button", "1st to act", "2nd to act", "3rd to act")[pos]
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
    """As played, each rule set counts the boards played under it; the hand named is the one the cards make."""
    from ofc.pipeline.evaluate import CATEGORY_NAMES

    rows = run(con, report_lake, "royalty_frequency")
    assert {r["rules_key"] for r in rows} == set(boards["rules_key"].unique().to_list())
    for (key,), mine in boards.group_by("rules_key"):
        cards = np.array(mine["cards"].to_list(), dtype=np.uint8).reshape(-1, 13)
        strengths = evaluate_boards(cards)
        for i, row in enumerate(("top", "middle", "bottom")):
            points = mine[f"royalty_{row}"].to_numpy()
            values, counts = np.unique(points, return_counts=True)
            got = by([r for r in rows if r["row"] == row and r["rules_key"] == key], "points")
            assert sorted(got) == values.tolist()
            for value, count in zip(values.tolist(), counts.tolist(), strict=True):
                assert got[value]["boards_made"] == count
                assert got[value]["frequency"] == pytest.approx(count / mine.height)
                lowball_middle = row == "middle" and "pineapple-27" in key
                if value > 0 and not lowball_middle:
                    made = {CATEGORY_NAMES[c] for c in category(strengths[i][points == value]).tolist()}
                    assert made <= set(got[value]["category"].split(" / ")), (key, row, value)


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
    assert "classic" not in {r["variant"] for r in rows}
    table = by([r for r in rows if r["variant"] != "all variants"], "variant", "hand_kind", "cards")
    open_face = boards.filter(pl.col("variant") != "classic")
    inside = open_face.filter(pl.col("fantasyland"))
    for variant, cards, n, stays, fouls, points in (
        inside.group_by("variant", pl.col("fantasyland_cards").fill_null(0))  # 0: the count was not recorded
        .agg(pl.len(), pl.col("fantasyland_stay").sum(), pl.col("fouled").sum(), pl.col("points").mean())
        .rows()
    ):
        row = table[(variant, "fantasyland", cards)]
        assert (row["hands"], row["stays"], row["fouls"]) == (n, stays, fouls)
        assert row["stay_rate"] == pytest.approx(stays / n)
        assert row["points_per_hand"] == pytest.approx(points)
    normal = open_face.filter(~pl.col("fantasyland"))
    for variant, n, entries in normal.group_by("variant").agg(pl.len(), pl.col("fantasyland_entry").sum()).rows():
        row = table[(variant, "normal", None)]
        assert (row["hands"], row["entries"]) == (n, entries)
        assert row["entry_rate"] == pytest.approx(entries / n)
    overall = by([r for r in rows if r["variant"] == "all variants"], "hand_kind")
    assert overall["fantasyland"]["hands"] == inside.height
    assert overall["normal"]["entries"] == normal["fantasyland_entry"].sum()


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


def test_scoring_variants(con: duckdb.DuckDBPyConnection, report_lake: ReportLake, boards: pl.DataFrame) -> None:
    keys = report_lake.rule_keys
    rows = run(con, report_lake, "scoring_variants")
    assert [r["rules_key"] for r in rows if r["player"] is None] == [None, *keys]
    rows = by(rows, "rules_key", "player")
    assert rows[(None, None)]["boards"] == boards.height
    assert rows[(None, None)]["hands"] == boards["hand_key"].n_unique()  # hands, each once, not boards
    for key in keys:
        frame = report_lake.boards(key)
        assert rows[(key, None)]["boards"] == frame.height
        assert rows[(key, None)]["hands"] == frame["hand_key"].n_unique()
        assert rows[(key, None)]["stddev"] == pytest.approx(frame["points"].cast(pl.Float64).std())
        played = frame.join(
            boards.select("hand_key", "seat", pl.col("points").alias("played")), on=["hand_key", "seat"]
        )
        for player, n, mean, gain, sd in (
            played.group_by("player")
            .agg(
                pl.len(),
                pl.col("points").mean(),
                (pl.col("points") - pl.col("played")).mean().alias("gain"),
                (pl.col("points") - pl.col("played")).cast(pl.Float64).std().alias("sd"),
            )
            .rows()
        ):
            row = rows[(key, player)]
            assert (row["hands"], row["boards"]) == (n, n)
            assert row["points_per_hand"] == pytest.approx(mean)
            assert row["gain_per_hand"] == pytest.approx(gain)
            if n > 1:  # the gain's interval is over the paired differences
                margin = 1.96 * sd / n**0.5
                assert (row["gain_ci_low"], row["gain_ci_high"]) == pytest.approx((gain - margin, gain + margin))


def _winners(frame: pl.DataFrame) -> pl.DataFrame:
    top = frame.with_columns(pl.col("points").max().over("hand_key").alias("top")).filter(
        pl.col("points") == pl.col("top")
    )
    return top.group_by("hand_key").agg(
        pl.col("variant").first(), pl.when(pl.len() == 1).then(pl.col("player").first()).alias("winner")
    )


@pytest.mark.parametrize("since", [None, "2026-03-05"])
def test_winner_changes(
    con: duckdb.DuckDBPyConnection, report_lake: ReportLake, boards: pl.DataFrame, since: str | None
) -> None:
    rows = by(run(con, report_lake, "winner_changes", since=since), "rules_key", "variant")
    for key in report_lake.rule_keys:
        other = report_lake.boards(key)
        if since is not None:
            other = other.filter(pl.col("played_at").dt.date() >= date.fromisoformat(since))
        both = _winners(other).join(_winners(boards), on="hand_key", suffix="_played")
        changed = both.with_columns((pl.col("winner").ne_missing(pl.col("winner_played"))).alias("changed"))
        for variant, n, k in changed.group_by("variant").agg(pl.len(), pl.col("changed").sum()).rows():
            assert (rows[(key, variant)]["hands"], rows[(key, variant)]["changed"]) == (n, k)
        assert rows[(key, "all variants")]["hands"] == both.height
        assert rows[(key, "all variants")]["changed"] == changed["changed"].sum()
    assert sum(r["changed"] for r in rows.values()) > 0


def _pairs(report_lake: ReportLake) -> pl.DataFrame:
    """Pairs as played, named from the boards table (not from the results)."""
    names = report_lake.frame("boards").select("hand_key", "seat", "player")
    pairs = report_lake.pairs().drop("player_a", "player_b")
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


def test_board_scoops_agree_with_the_pairs(report_lake: ReportLake, boards: pl.DataFrame) -> None:
    pairs = report_lake.pairs()
    won = (
        pl.concat(
            [
                pairs.filter(pl.col("scoop") > 0).select("hand_key", pl.col("seat_a").alias("seat")),
                pairs.filter(pl.col("scoop") < 0).select("hand_key", pl.col("seat_b").alias("seat")),
            ]
        )
        .group_by("hand_key", "seat")
        .len()
    )
    counted = boards.filter(pl.col("scoops") > 0).select("hand_key", "seat", pl.col("scoops").cast(pl.UInt32))
    assert sorted(counted.rows()) == sorted(won.rows())


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
        points = mine.filter(pl.col("session") == session).sort("played_at", "hand_number")["points"].to_list()
        assert [r["cumulative_points"] for r in sessions if r["session"] == session] == np.cumsum(points).tolist()


def test_overview(con: duckdb.DuckDBPyConnection, report_lake: ReportLake) -> None:
    rows = by(run(con, report_lake, "overview"), "variant")
    hands = report_lake.frame("hands")
    assert rows["all variants"]["hands"] == hands.height
    assert rows["all variants"]["boards"] == report_lake.frame("boards").height
    for variant, n in hands.group_by("variant").agg(pl.len()).rows():
        assert rows[variant]["hands"] == n


def test_overview_of_a_player_counts_the_hands_they_played(
    con: duckdb.DuckDBPyConnection, report_lake: ReportLake
) -> None:
    """A player's hands, boards and days come from the summaries: the same as counting the hands they sat in."""
    hands, boards = report_lake.frame("hands"), report_lake.frame("boards")
    for player in boards["player"].value_counts(sort=True)["player"].to_list()[:3]:
        mine = hands.join(boards.filter(pl.col("player") == player).select("hand_key"), on="hand_key")
        rows = by(run(con, report_lake, "overview", player=player), "variant")
        assert rows["all variants"]["hands"] == mine.height > 0
        assert rows["all variants"]["boards"] == mine["n_players"].sum()
        for variant, n, seats, first in (
            mine.group_by("variant")
            .agg(pl.len(), pl.col("n_players").sum(), pl.col("played_at").min().dt.date())
            .rows()
        ):
            assert (rows[variant]["hands"], rows[variant]["boards"], rows[variant]["first_day"]) == (n, seats, first)


def test_filters_are_bound_values(
    con: duckdb.DuckDBPyConnection, report_lake: ReportLake, boards: pl.DataFrame
) -> None:
    # A player named like an injection is just a name: their rows, and only theirs.
    rows = run(con, report_lake, "results", player=INJECTION)
    assert {r["group"] for r in rows if r["dimension"] == "player"} == {INJECTION}
    assert by(rows, "dimension")["all"]["hands"] == boards.filter(pl.col("player") == INJECTION).height
    with pytest.raises(FilterError, match="no player"):  # matches nothing: an error, not an empty result
        run(con, report_lake, "results", player="nobody' OR '1'='1")
    for name in XSS:
        assert by(run(con, report_lake, "foul_rate", player=name), "dimension")["all"]["boards"] > 0
    since = date(2026, 3, 5)
    recent = boards.filter(pl.col("played_at").dt.date() >= since)
    assert by(run(con, report_lake, "results", since=since.isoformat()), "dimension")["all"]["hands"] == recent.height
    pineapple = boards.filter(pl.col("variant") == "pineapple")
    assert by(run(con, report_lake, "foul_rate", variant="pineapple"), "dimension")["all"]["boards"] == pineapple.height
    h2h = run(con, report_lake, "head_to_head", player=XSS[0], since=since.isoformat())
    pairs = _pairs(report_lake).filter(
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
        ("results", {"rules": "classic-2"}, "did you mean 'classic-2-4'"),
        ("results", {"rules": "taiwanese"}, r"under rules 'taiwanese'\. It has: .*ofc rescore --rules taiwanese"),
        ("results", {"rules": "classic-plain"}, r"'classic-plain'\. It has: .*ofc rescore --rules classic-plain"),
        ("cumulative", {"players": "many"}, "whole number"),
        ("no_such_query", {}, "no named query"),
        ("resluts", {}, "did you mean 'results'"),
    ],
)
def test_bad_parameters_are_named(
    con: duckdb.DuckDBPyConnection, report_lake: ReportLake, name: str, params: dict[str, str], message: str
) -> None:
    with pytest.raises(named.NamedQueryError, match=message):
        named.run(con, report_lake.lake.snapshot(), name, params)


def test_rules_by_name_or_key(con: duckdb.DuckDBPyConnection, report_lake: ReportLake) -> None:
    key = report_lake.rule_keys[1]
    by_name = run(con, report_lake, "results", rules=key.split("@")[0])
    assert by_name == run(con, report_lake, "results", rules=key)
    assert by_name != run(con, report_lake, "results")
    assert by(by_name, "dimension")["all"]["hands"] == report_lake.boards(key).height


def test_a_rule_set_scored_only_for_its_own_hands_is_not_read_as_if(
    con: duckdb.DuckDBPyConnection, report_lake: ReportLake
) -> None:
    """Pineapple scored only the Pineapple hands (their own rules): reading every hand as if played under it
    would leave the others out without a word, so it is refused with what to run."""
    with pytest.raises(named.NamedQueryError, match="ofc rescore --rules pineapple"):
        run(con, report_lake, "results", rules="pineapple")


def test_a_query_reads_the_state_its_snapshot_saw(report_lake: ReportLake, tmp_path: Path) -> None:
    """A batch committed after the snapshot was taken is seen by none of the command's queries."""
    from ofc.pipeline.ingest.ingest_run import ingest
    from tests.test_report_lake import make_records

    copy = tmp_path / "lake"
    shutil.copytree(report_lake.lake.root, copy)
    lake = Lake(copy)
    before = lake.snapshot()
    con = connect(before)
    hands = named.run(con, before, "overview").to_pylist()[-1]["hands"]
    records = make_records(20, seed=99)
    for r in records:
        r["source"] = "later"
    path = tmp_path / "later.jsonl"
    path.write_text("".join(__import__("json").dumps(r) + "\n" for r in records), encoding="utf-8")
    ingest([path], lake)
    assert named.run(con, before, "overview").to_pylist()[-1]["hands"] == hands
    after = lake.snapshot()
    assert named.run(connect(after), after, "overview").to_pylist()[-1]["hands"] == hands + 20


def test_results_of_an_older_format_are_refused(report_lake: ReportLake, tmp_path: Path) -> None:
    """Manifests record the result format; results of an older one are not read, and a query says what to run."""
    import json

    copy = tmp_path / "lake"
    shutil.copytree(report_lake.lake.root, copy)
    lake = Lake(copy)
    manifest = next(p for p in sorted((copy / "_manifests").glob("*.json")) if '"rescore"' in p.read_text())
    doc = json.loads(manifest.read_text())
    doc.pop("format")
    manifest.write_text(json.dumps(doc))
    snapshot = lake.snapshot()
    assert snapshot.has_stale
    said = (
        r"older version.*ofc rescore --lake \S+ scores them again \([\d,]+ hands under \d+ rule sets?, (about|under) "
    )
    with pytest.raises(named.NamedQueryError, match=said):
        named.run(connect(snapshot), snapshot, "results")


@pytest.mark.parametrize("rules", [None, "ofc", "classic-2-4"])
def test_shares_add_up_whichever_rules_are_read(
    con: duckdb.DuckDBPyConnection, report_lake: ReportLake, rules: str | None
) -> None:
    """Each variant's dead streets add up to its fouled boards, as played and as if played under a rule set: a
    partition filter that one of a query's two scans lost would count every rule set's boards in the shares."""
    rows = run(con, report_lake, "dead_streets", rules=rules)
    key = next((k for k in report_lake.rule_keys if rules and k.startswith(f"{rules}@")), None)
    boards = report_lake.boards(key)
    variants = {r["variant"] for r in rows}
    # Every variant with a fouled board read this way, and no other: four or five of the lake's five variants.
    assert variants == set(boards.filter(pl.col("fouled"))["variant"].to_list())
    assert len(variants) == (5 if rules is None else 4)
    for variant in variants:
        mine = [r for r in rows if r["variant"] == variant]
        fouled = boards.filter((pl.col("variant") == variant) & pl.col("fouled")).height
        assert sum(r["boards_dead"] for r in mine) == fouled
        assert sum(r["share_of_fouled"] for r in mine) == pytest.approx(1)
        assert mine[-1]["cumulative_share"] == pytest.approx(1)
        total = boards.filter(pl.col("variant") == variant).height
        assert sum(r["share_of_boards"] for r in mine) == pytest.approx(fouled / total)


def _direct(con: duckdb.DuckDBPyConnection, sql: str, **params: Any) -> list[dict[str, Any]]:
    return con.sql(sql, params=params).to_arrow_table().to_pylist()


@pytest.mark.parametrize("aliased", [False, True])
def test_hands_looked_up_are_the_lakes_rows(report_lake: ReportLake, snapshot: Snapshot, aliased: bool) -> None:
    """hand_boards and hand_pairs read the hands' rows fetched apart (``@lookup``): the same rows, cards, aliases
    and rule sets as DuckDB reads from the lake's own views, whichever rule set is read."""
    from ofc.pipeline.query.players import apply_aliases

    con = connect(snapshot)
    if aliased:
        apply_aliases(con, {XSS[0]: "Ann"})
    keys = [k for (k,) in con.sql("SELECT DISTINCT hand_key FROM hand_boards ORDER BY hand_key LIMIT 25").fetchall()]
    wanted = ",".join(map(str, keys))
    for rules in (None, report_lake.rule_keys[1]):
        boards = named.run(con, snapshot, "hand_boards", {"hands": wanted, "rules": rules}).to_pylist()
        expected = _direct(
            con,
            """SELECT r.hand_key, r.hand_id, r.seat, r.player, r.cards, r.points, r.royalty_bottom,
                      b.streets, b.discards
               FROM scored_boards r LEFT JOIN boards b USING (hand_key, seat)
               JOIN seated_boards s USING (hand_key, seat)
               WHERE list_contains($keys, r.hand_key)
                 AND CASE WHEN $rules IS NULL THEN r.native ELSE r.rules_key = $rules END
               ORDER BY r.hand_key, s.position""",
            keys=keys,
            rules=rules,
        )
        got = [{k: b[k] for k in expected[0]} for b in boards]
        assert got == expected
        assert len(got) >= 40
        pairs = named.run(con, snapshot, "hand_pairs", {"hands": wanted, "rules": rules}).to_pylist()
        expected_pairs = _direct(
            con,
            "SELECT hand_key, player_a, player_b, settled, points FROM scored_pairs "
            "WHERE list_contains($keys, hand_key) AND CASE WHEN $rules IS NULL THEN native ELSE rules_key = $rules END "
            "ORDER BY hand_key, rules, seat_a, seat_b",
            keys=keys,
            rules=rules,
        )
        assert [{k: p[k] for k in expected_pairs[0]} for p in pairs if p["player_b"] is not None] == expected_pairs
        compared = [(p["hand_key"], p["rules"], p["player_a"], p["points"]) for p in pairs if p["player_b"] is None]
        expected_compared = _direct(
            con,
            "SELECT hand_key, rules, player, points FROM scored_boards "
            "WHERE list_contains($keys, hand_key) AND list_contains($compared, rules_key) "
            "ORDER BY hand_key, rules, seat",
            keys=keys,
            compared=report_lake.rule_keys,
        )
        assert compared == [tuple(r.values()) for r in expected_compared]
        assert compared
    if aliased:
        assert XSS[0] not in {b["player"] for b in boards}


def test_hands_looked_up_in_their_variant_are_the_same_rows(con: duckdb.DuckDBPyConnection, snapshot: Snapshot) -> None:
    """Given the hands' variant, a lookup reads that variant's files alone: the rows of its hands are those found
    without it, and the hands of other variants are left out."""
    rows = con.sql("SELECT hand_key, variant FROM hands ORDER BY hand_key").fetchall()
    variants = sorted({v for _, v in rows})
    assert len(variants) > 1
    wanted = ",".join(str(k) for k, _ in rows[:60])
    for query in ("hand_boards", "hand_pairs"):
        every = named.run(con, snapshot, query, {"hands": wanted}).to_pylist()
        for variant in variants:
            mine = {k for k, v in rows[:60] if v == variant}
            if not mine:
                continue
            got = named.run(con, snapshot, query, {"hands": wanted, "variant": variant}).to_pylist()
            assert got == [r for r in every if r["hand_key"] in mine]
            assert got
    other = next(v for v in variants if v != rows[0][1])
    with pytest.raises(named.NamedQueryError, match="no results for hand"):
        named.run(con, snapshot, "hand_boards", {"hands": str(rows[0][0]), "variant": other})


def test_hands_looked_up_through_shared_reads_are_the_same_rows_read_once(
    report_lake: ReportLake, con: duckdb.DuckDBPyConnection, snapshot: Snapshot, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The viewer's queries share one read of each table's rows of their hands: under the rules read and the
    rule sets compared, each query returns the rows it returns alone, and a table's files are read once for all
    of them (hand_boards' results under the hands' own rules come from hand_pairs' read under every rule set)."""
    from ofc.pipeline.query import lookup

    keys = [k for (k,) in con.sql("SELECT hand_key FROM hands ORDER BY hand_key LIMIT 30").fetchall()]
    wanted = ",".join(map(str, keys))
    reads: list[tuple[str, object]] = []
    real = lookup.hand_rows

    def counted(snapshot: Snapshot, table: str, *args: object, **kwargs: object) -> object:
        reads.append((table, args[1] if len(args) > 1 else kwargs.get("rule_sets")))
        return real(snapshot, table, *args, **kwargs)

    for rules in (None, report_lake.rule_keys[1]):
        values = {"hands": wanted, "rules": rules}
        alone = {q: named.run(con, snapshot, q, values).to_pylist() for q in ("hand_pairs", "hand_boards")}
        monkeypatch.setattr(lookup, "hand_rows", counted)
        reads.clear()
        shared = lookup.SharedReads(snapshot)
        for q in ("hand_pairs", "hand_boards", "hand_pairs"):
            assert named.run(con, snapshot, q, values, shared=shared).to_pylist() == alone[q]
        monkeypatch.setattr(lookup, "hand_rows", real)
        assert sorted(table for table, _ in reads) == ["board_results", "boards", "hands", "pair_results"]
        assert len(alone["hand_boards"]) >= 60
        assert any(p["player_b"] is None for p in alone["hand_pairs"])
    shared = lookup.SharedReads(snapshot)
    every = shared.rows("board_results", keys, [None, *report_lake.rule_keys], None, None)
    for subset in ([None], [report_lake.rule_keys[1]], [None, report_lake.rule_keys[0]]):
        got = shared.rows("board_results", keys, subset, None, None).sort_by([("hand_key", "ascending")])
        alone_rows = lookup.hand_rows(snapshot, "board_results", keys, subset).sort_by([("hand_key", "ascending")])
        order = ["hand_key", "rules_key", "seat"]
        assert sorted(got.select(order).to_pylist(), key=str) == sorted(alone_rows.select(order).to_pylist(), key=str)
        assert 0 < got.num_rows < every.num_rows
    # Rows read from every variant's files serve a read of one variant's, or of some months', cut to them.
    facts = lookup.SharedReads(snapshot)
    every_hand = facts.rows("hands", keys, None, None, None)
    variant = every_hand.column("variant")[0].as_py()
    month = every_hand.column("month")[0].as_py()
    monkeypatch.setattr(lookup, "hand_rows", counted)
    reads.clear()
    mine = facts.rows("hands", keys, None, None, {variant})
    in_month = facts.rows("hands", keys, None, {(variant, month)}, None)
    monkeypatch.setattr(lookup, "hand_rows", real)
    assert reads == []
    assert sorted(mine.column("hand_key").to_pylist()) == sorted(
        lookup.hand_rows(snapshot, "hands", keys, variants={variant}).column("hand_key").to_pylist()
    )
    assert sorted(in_month.column("hand_key").to_pylist()) == sorted(
        lookup.hand_rows(snapshot, "hands", keys, months={(variant, month)}).column("hand_key").to_pylist()
    )
    assert 0 < in_month.num_rows <= mine.num_rows < every_hand.num_rows


def test_a_few_hands_found_by_the_files_key_filters_are_the_rows_read_whole(
    report_lake: ReportLake, con: duckdb.DuckDBPyConnection, snapshot: Snapshot, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Up to FEW_KEYS hands are found through the Bloom filter of hand keys every file of a looked-up table
    carries: the rows, columns, types and folder values of reading the keys whole, for every table, rule set and
    folder asked for, in a lake whose older files carry no filter too; a key the lake lacks finds nothing, and a
    key asked for twice finds its rows once."""
    from ofc.pipeline.query import lookup

    tables = ("hands", "boards", "board_results", "pair_results")
    for table in tables:
        files = [str(f) for f in snapshot.files(table)]
        assert files, table
        assert all(lookup._filters_keys(f) for f in files), table
    rows = con.sql("SELECT hand_key, variant, month FROM hands ORDER BY hand_key").fetchall()
    picked = [rows[0], rows[len(rows) // 3], rows[-1], rows[len(rows) // 2]]
    assert len({v for _, v, _ in picked}) > 1

    def same(table: str, keys: list[int], *args: Any, reading: duckdb.DuckDBPyConnection) -> None:
        whole = lookup.hand_rows(snapshot, table, keys, *args)
        found = lookup.hand_rows(snapshot, table, keys, *args, con=reading)
        assert found.schema == whole.schema
        assert sorted(found.to_pylist(), key=repr) == sorted(whole.to_pylist(), key=repr)
        assert found.num_rows > 0 or not keys

    reading = con.cursor()
    for n in range(1, lookup.FEW_KEYS + 1):
        keys = [k for k, _, _ in picked[:n]]
        for table in tables:
            same(table, keys, reading=reading)
        same("board_results", keys, [None], reading=reading)
        same("pair_results", keys, [report_lake.rule_keys[1]], ["hand_key", "points"], reading=reading)
        same("boards", keys, None, ["seat", "cards"], {(v, m) for _, v, m in picked[:n]}, reading=reading)
        same("hands", keys, None, None, None, {picked[0][1]}, reading=reading)
    assert lookup.hand_rows(snapshot, "board_results", [12345], con=reading).num_rows == 0
    twice = [picked[0][0], picked[1][0], picked[0][0]]  # a key asked for twice: its rows once
    for table in tables:
        same(table, twice, reading=reading)
    # Files written before the filters are read whole beside those that carry one.
    monkeypatch.setattr(lookup, "_filters_keys", lambda path: hash(path) % 2 == 0)
    for table in tables:
        same(table, [k for k, _, _ in picked[:2]], reading=reading)


def test_a_hand_key_the_lake_does_not_hold_is_an_error(con: duckdb.DuckDBPyConnection, snapshot: Snapshot) -> None:
    for hands, said in (("123", "no results for hand 123"), ("abc", "whole numbers"), ("", "at least one hand key")):
        with pytest.raises(named.NamedQueryError, match=said):
            named.run(con, snapshot, "hand_boards", {"hands": hands})


def _notable_expected(
    report_lake: ReportLake, player: str, rules: str | None, variant: str | None, since: date | None, hands: int
) -> list[tuple[Any, ...]]:
    """notable_hands computed from the board results by polars: each kind's boards of the player in its order."""
    results = report_lake.results().filter(pl.col("player") == player)
    if variant:
        results = results.filter(pl.col("variant") == variant)
    if since:
        results = results.filter(pl.col("played_at").dt.date() >= since)
    mine = results.filter(pl.col("native") if rules is None else pl.col("rules_key") == rules)
    # Latest first: a board without a time comes after every board with one; then the lowest key.
    latest = [pl.col("played_at").is_null(), pl.col("played_at"), pl.col("hand_key")]
    latest_desc = [False, True, False]
    kinds = {
        "fouled": (pl.col("fouled"), [pl.col("points"), *latest], [False, *latest_desc]),
        "biggest win": (pl.col("points") > 0, [pl.col("points"), *latest], [True, *latest_desc]),
        "biggest loss": (pl.col("points") < 0, [pl.col("points"), *latest], [False, *latest_desc]),
        "fantasyland": (pl.col("fantasyland"), latest, latest_desc),
    }
    out = []
    for kind, (where, order, descending) in kinds.items():
        listed = mine.filter(where).sort(order, descending=descending).head(hands)
        out += [(kind, *_listed(r), None) for r in listed.iter_rows(named=True)]
    changed = (
        results.filter(
            pl.col("rules_key").is_in(report_lake.rule_keys) & (pl.col("winner_seat") != pl.col("native_winner_seat"))
        )
        .group_by("hand_key")
        .agg(pl.col("rules").min().alias("changed_under"))
    )
    listed = mine.join(changed, on="hand_key").sort(latest, descending=latest_desc).head(hands)
    out += [("winner changes", *_listed(r), r["changed_under"]) for r in listed.iter_rows(named=True)]
    return out


def _listed(r: dict[str, Any]) -> tuple[Any, ...]:
    """What notable_hands says of a board: its hand, the rule set read, its points, foul and Fantasyland entry."""
    return (r["hand_key"], r.get("scored_under", r.get("rules")), r["points"], r["fouled"], r["fantasyland_entry"])


@pytest.mark.parametrize("hands", [12, 20])  # from the notable boards kept per day; more: from every board
def test_notable_hands_are_each_kinds_first(
    con: duckdb.DuckDBPyConnection, report_lake: ReportLake, snapshot: Snapshot, hands: int
) -> None:
    players = [p for (p,) in con.sql("SELECT player FROM played_boards GROUP BY 1 ORDER BY count(*) DESC").fetchall()]
    cases = [
        (players[0], None, None, None),
        (players[1], report_lake.rule_keys[1], None, None),
        (players[0], None, "pineapple", date(2026, 3, 5)),
        (players[2], report_lake.rule_keys[0], None, date(2026, 3, 5)),
    ]
    for player, rules, variant, since in cases:
        values = {"player": player, "rules": rules, "variant": variant, "since": since, "hands": hands}
        rows = named.run(con, snapshot, "notable_hands", values).to_pylist()
        got = [(r["kind"], *_listed(r), r["changed_under"]) for r in rows]
        assert got == _notable_expected(report_lake, player, rules, variant, since, hands)
        assert {r[0] for r in got} >= {"fouled", "biggest win", "biggest loss"}


def test_hands_whose_winner_changes_under_several_rule_sets_are_each_listed_once(
    con: duckdb.DuckDBPyConnection, report_lake: ReportLake, snapshot: Snapshot
) -> None:
    """A hand whose winner changes under two rule sets has a candidate under each: asked for as many hands as
    the player has such hands, every one is listed, once, under the first rule set by name."""
    results = report_lake.results()
    changed = results.filter(
        pl.col("rules_key").is_in(report_lake.rule_keys) & (pl.col("winner_seat") != pl.col("native_winner_seat"))
    )
    per_player = changed.group_by("player").agg(
        pl.col("hand_key").n_unique().alias("hands"), (pl.len() - pl.col("hand_key").n_unique()).alias("twice")
    )
    player, hands, twice = per_player.filter(pl.col("hands") <= 12).sort("twice", "hands", "player").row(-1)
    assert twice  # some of the player's hands change under both rule sets
    rows = named.run(con, snapshot, "notable_hands", {"player": player, "hands": hands}).to_pylist()
    got = [(r["kind"], *_listed(r), r["changed_under"]) for r in rows]
    assert got == _notable_expected(report_lake, player, None, None, None, hands)
    assert len([r for r in got if r[0] == "winner changes"]) == hands


def test_a_player_seated_twice_under_two_names_has_each_latest_hand_listed_once(
    report_lake: ReportLake, snapshot: Snapshot
) -> None:
    """Two names read as one player (an alias) seat the player twice in the hands both played, a candidate for
    each seat: the latest hands whose winner changes are every one listed, once each."""
    results = report_lake.results()
    changed = results.filter(
        pl.col("rules_key").is_in(report_lake.rule_keys) & (pl.col("winner_seat") != pl.col("native_winner_seat"))
    )
    latest = [pl.col("played_at").is_null(), pl.col("played_at"), pl.col("hand_key")]
    together = (
        changed.group_by("hand_key")
        .agg(pl.col("player").unique().sort(), pl.col("played_at").first(), pl.col("rules_key").first())
        .filter(pl.col("player").list.len() > 1)
        .sort(latest, descending=[False, True, False])
    )
    first, second = together["player"][0][:2]  # the two at the latest such hand
    compared = together["rules_key"][0]  # one rule set: a candidate a seat
    theirs = (
        changed.filter(pl.col("player").is_in([first, second]) & (pl.col("rules_key") == compared))
        .group_by("hand_key")
        .agg(pl.col("played_at").first())
        .sort(latest, descending=[False, True, False])
    )
    hands = 2
    rows = named.run(connect(snapshot, aliases={second: first}), snapshot, "notable_hands",
                     {"player": first, "hands": hands, "compared": compared}).to_pylist()  # fmt: skip
    assert [r["hand_key"] for r in rows if r["kind"] == "winner changes"] == theirs["hand_key"].head(hands).to_list()


def test_notable_hands_of_a_lake_rescored_before_the_boards_as_played_were_kept(
    con: duckdb.DuckDBPyConnection, report_lake: ReportLake, snapshot: Snapshot, tmp_path: Path
) -> None:
    """notable_boards files without the columns added since (``LATER_COLUMNS``) read them as null, and the winner
    changes are then found among the results: the same list as from a lake that has them."""
    from ofc.schemas.lake import LATER_COLUMNS

    older = tmp_path / "lake"
    shutil.copytree(report_lake.lake.root, older)
    rewritten = 0
    for path in older.rglob("*.parquet"):
        if "notable_boards" in path.parts:
            table = pq.read_table(path)
            pq.write_table(table.drop_columns(list(LATER_COLUMNS["notable_boards"])), path)
            rewritten += 1
    assert rewritten
    older_snapshot = Lake(older).snapshot()
    older_con = connect(older_snapshot)
    assert older_con.sql("SELECT count(native_points) FROM notable_boards").fetchall() == [(0,)]
    player = con.sql("SELECT player FROM played_boards GROUP BY 1 ORDER BY count(*) DESC").fetchall()[0][0]
    for rules in (None, report_lake.rule_keys[1]):
        values = {"player": player, "rules": rules, "hands": 12}
        got = named.run(older_con, older_snapshot, "notable_hands", values).to_pylist()
        assert got == named.run(con, snapshot, "notable_hands", values).to_pylist()
        assert any(r["kind"] == "winner changes" for r in got)


def test_scored_boards_holds_every_column_of_hand_boards(con: duckdb.DuckDBPyConnection) -> None:
    """scored_boards writes hand_boards' columns out (for its join order): the two stay alike, row for row."""
    facts = [c for (c,) in con.sql("SELECT column_name FROM (DESCRIBE hand_boards)").fetchall()]
    scored = [c for (c,) in con.sql("SELECT column_name FROM (DESCRIBE scored_boards)").fetchall()]
    assert scored[: len(facts)] == facts
    listed = ", ".join(f'"{c}"' for c in facts)
    assert (
        con.sql(
            f"SELECT {listed} FROM scored_boards WHERE native EXCEPT ALL SELECT {listed} FROM hand_boards"
        ).fetchall()
        == []
    )
    assert (
        con.sql(
            f"SELECT {listed} FROM hand_boards EXCEPT ALL SELECT {listed} FROM scored_boards WHERE native"
        ).fetchall()
        == []
    )


PAGE_QUERIES = (
    "cumulative", "dead_streets", "fantasyland", "foul_rate", "head_to_head", "notable_hands", "overview", "results",
    "royalty_frequency", "royalty_points", "scoops", "scoring_variants", "session_summary", "sessions",
    "winner_changes",
)  # fmt: skip
"""The queries of a player's page that a server runs for many players at once."""


def test_a_players_page_queries_can_be_run_for_many_players_at_once() -> None:
    """A query of a player's page whose order could not be said over its output columns would be run player by
    player again on every page: each stays one that can be run for many at once."""
    assert [n for n in PAGE_QUERIES if named.for_players_sql(named.get(n)) is None] == []
    takes_player = [q.name for q in named.queries().values() if any(p.name == "player" for p in q.params)]
    assert set(PAGE_QUERIES) <= set(takes_player)


@pytest.mark.parametrize("rules", [None, "classic-2-4"])
def test_a_query_for_many_players_gives_each_the_rows_of_their_own(
    con: duckdb.DuckDBPyConnection, snapshot: Snapshot, rules: str | None
) -> None:
    """Run for every player at once (laterally, one plan), each query gives a player exactly the rows, in the
    order, that it gives the player alone (the players with the most hands and the fewest): in one game and in
    all of them, over some days and all of them, as played and as if played under a rule set."""
    players = [p for (p,) in con.sql("SELECT player FROM boards GROUP BY 1 ORDER BY count(*) DESC, 1").fetchall()]
    alone = [players[0], players[1], players[-1]]  # the most hands, and the fewest
    variants = [v for (v,) in con.sql("SELECT DISTINCT variant FROM hands ORDER BY 1").fetchall()]
    in_lake = named.RuleSetsInLake(snapshot)
    compared = in_lake.compared(None)
    checked = owned = 0
    for name in sorted(n for n, q in named.queries().items() if named.for_players_sql(q) is not None):
        query = named.get(name)
        takes = {p.name for p in query.params}
        for variant, since in [(None, None), (variants[-1], date(2026, 3, 5))]:
            values: dict[str, Any] = {"variant": variant, "since": since}
            if "rules" in takes:
                values["rules"] = compared if query.param("rules").type == "rules[]" else rules
            if "compared" in takes:
                values["compared"] = compared
            values = {k: v for k, v in values.items() if k in takes}
            one_rule_set = values.get("rules") is not None and query.param("rules").type == "rules"
            if one_rule_set and variant is not None and in_lake.problem(in_lake.resolve(rules), variant):
                continue  # a rule set that does not apply to the game
            # each text parameter but the player: given its own value, or each player's own name
            texts = [p.name for p in query.params if p.type == "text" and p.name not in ("player", "hands")]
            for own in [(), *((t,) for t in texts)]:
                # featured, a player is shown however few their hands: none other is
                fewest = {"min_hands": 1 << 30} if own and "min_hands" in takes else {}
                together = named.run_for_players(con, snapshot, name, {**values, **fewest}, players, own)
                assert together is not None
                assert set(together) == set(players)
                for player in alone:
                    asked = {**values, **fewest, "player": player, **dict.fromkeys(own, player)}
                    rows = named.run(con, snapshot, name, asked, check_filters=False)
                    assert together[player].to_pylist() == rows.to_pylist(), (name, variant, since, player, own)
                    checked += rows.num_rows
                    owned += bool(own)
    assert checked > 500
    assert owned  # running totals featuring each player


@pytest.mark.parametrize(
    ("sql", "split"),
    [
        ("SELECT a FROM t ORDER BY a;", ("SELECT a FROM t ", "a")),
        (
            "SELECT a FROM (SELECT a FROM t ORDER BY b LIMIT 3) ORDER BY a DESC, 'ORDER BY x'",
            ("SELECT a FROM (SELECT a FROM t ORDER BY b LIMIT 3) ", "a DESC, 'ORDER BY x'"),
        ),
        ("SELECT a FROM t ORDER BY a DESC -- or ORDER BY c\n", ("SELECT a FROM t ", "a DESC")),
        ("SELECT a FROM t ORDER BY a LIMIT $n", None),
        ("SELECT a FROM t ORDER BY a; SELECT 1", None),
        ("SELECT a FROM (SELECT a FROM t ORDER BY b)", None),
        ("SELECT 'ORDER BY' AS a /* ORDER BY b */ FROM t", None),
    ],
)
def test_the_order_of_a_query_is_its_last_order_by_outside_parentheses(sql: str, split: tuple[str, str] | None) -> None:
    assert named._last_order_by(sql) == split
