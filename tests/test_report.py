"""``ofc report`` (HTML and JSON) and ``ofc sql`` with named queries, on the small test lake."""

from __future__ import annotations

import html
import json
import re
import threading
import time
from contextlib import closing
from pathlib import Path

import polars as pl
import pytest
from typer.testing import CliRunner

from ofc.pipeline.cli import app
from ofc.pipeline.query.db import connect
from ofc.reports import figures, queries
from ofc.reports.html import figure_json, render
from ofc.reports.queries import RowsKept
from ofc.reports.report import Options, build
from tests.test_report_lake import INJECTION, XSS, ReportLake, shared_lake


@pytest.fixture(scope="module")
def report_lake(tmp_path_factory: pytest.TempPathFactory) -> ReportLake:
    return shared_lake(tmp_path_factory)


runner = CliRunner()


@pytest.fixture(scope="module")
def page(report_lake: ReportLake, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    out = tmp_path_factory.mktemp("report") / "report.html"
    result = runner.invoke(app, ["report", "--lake", str(report_lake.lake.root), "--out", str(out)])
    assert result.exit_code == 0, result.output
    return out, out.read_text(encoding="utf-8")


def _scripts(text: str) -> list[str]:
    return re.findall(r"<script[^>]*>(.*?)</script>", text, flags=re.S)


def test_report_is_one_self_contained_page(page: tuple[Path, str]) -> None:
    _, text = page
    assert text.startswith("<!DOCTYPE html>")
    assert "Plotly.newPlot" in text
    assert "plotly.js" in text.lower()
    assert not re.search(r"""<(script|link)[^>]+(src|href)=["']?https?:""", text)  # nothing fetched
    charts = int(re.search(r'data-charts="(\d+)"', text).group(1))
    assert charts >= 10
    assert text.count('class="chart"') == charts
    assert '<section id="overview">' in text
    for section in ("player", "results", "fouls", "royalties", "fantasyland", "scoring"):
        assert f'<section id="pineapple-{section}">' in text
    for variant in ("classic", "ofc", "pineapple", "progressive-pineapple", "pineapple-27"):
        assert f'<div class="game" data-game="{variant}">' in text
        assert f'data-game="{variant}" aria-controls="game-{variant}"' in text  # its tab


def test_data_text_is_escaped_everywhere(page: tuple[Path, str]) -> None:
    _, text = page
    for name in XSS:
        assert name not in text  # neither raw in the page nor raw inside a script element
    assert html.escape(XSS[0]) in text  # shown as text in the tables
    scripts = _scripts(text)
    assert len(scripts) == text.count("<script")  # no script was closed early by a name
    for body in scripts[3:]:  # after the page's own scripts and plotly.js: the filters, hands and charts, as data
        assert "<" not in body
    assert "<img" not in text
    assert text.count("<script") == 5 + int(re.search(r'data-charts="(\d+)"', text).group(1))


def test_a_chart_cannot_be_broken_out_of() -> None:
    fig = figures.bars_with_intervals(
        [{"n": "</script><script>alert(1)</script>", "v": 1.0, "lo": 0.5, "hi": 1.5}], "n", "v", "lo", "hi", "t", "y"
    )
    body = figure_json(fig)
    assert "<" not in body
    assert ">" not in body
    assert json.loads(body)["data"][0]["x"] == ["&lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt;"]


def _figure(game: dict, section: str, label: str) -> dict:
    return next(s for s in game["sections"][section] if s["label"] == label)


def test_report_numbers_match_the_lake(report_lake: ReportLake) -> None:
    """Each game's figures against a direct computation over that game's boards alone."""
    report = build(report_lake.lake, Options(min_hands=1))
    data = report.data()
    assert data["filters"]["rules"] == "as played"
    hands = report_lake.frame("hands").height
    assert next(s for s in data["overview"]["headline"] if s["label"] == "hands, all games")["value"] == hands
    assert set(data["games"]) == set(report_lake.boards()["variant"].to_list())
    assert len(data["games"]) == 5  # one game a variant of the test lake
    for variant, game in data["games"].items():
        boards = report_lake.boards().filter(pl.col("variant") == variant)
        assert set(game["compared"]) <= set(report_lake.rule_keys)
        if variant == "pineapple":
            assert game["compared"] == report_lake.rule_keys
        fouls = {r["dimension"]: r for r in game["queries"]["foul_rate"]}["all"]
        assert fouls["boards"] == boards.height
        assert fouls["fouled"] == boards["fouled"].sum()
        rate = _figure(game, "fouls", "foul rate")
        assert rate["value"] == pytest.approx(boards["fouled"].mean())
        assert rate["n"] == boards.height
        assert rate["ci_low"] < rate["value"] < rate["ci_high"]
        for row in ("top", "middle", "bottom"):  # the game's boards as played, each counted once
            share = (boards[f"royalty_{row}"] > 0).mean()
            shown = [s for s in game["sections"].get("royalties", []) if s["label"] == f"{row}: boards with a royalty"]
            assert (shown[0]["value"] if shown else 0.0) == pytest.approx(share)
        if variant == "classic":
            assert "fantasyland" not in game["sections"]
            continue
        fl = boards.filter(pl.col("fantasyland"))
        normal = boards.filter(~pl.col("fantasyland"))
        assert _figure(game, "fantasyland", "entry rate")["value"] == pytest.approx(normal["fantasyland_entry"].mean())
        assert _figure(game, "fantasyland", "entry rate")["n"] == normal.height
        assert _figure(game, "fantasyland", "stay rate")["value"] == pytest.approx(fl["fantasyland_stay"].mean())
        foul = _figure(game, "fantasyland", "foul rate in Fantasyland")
        assert foul["value"] == pytest.approx(fl["fouled"].mean())


def test_report_for_one_player(report_lake: ReportLake, tmp_path: Path) -> None:
    out = tmp_path / "p.json"
    args = ["report", "--lake", str(report_lake.lake.root), "--player", INJECTION, "--json", "--out", str(out)]
    result = runner.invoke(app, [*args, "--rules", "classic-2-4", "--rules", "ofc", "--since", "2026-03-02"])
    assert result.exit_code == 0, result.output
    data = json.loads(out.read_text())
    assert data["filters"]["player"] == INJECTION
    assert data["filters"]["rules"] == report_lake.rule_keys[1]
    assert any("pineapple-27 hands are left out" in note for note in data["notes"])
    assert "pineapple-27" not in data["games"]
    mine = report_lake.boards(report_lake.rule_keys[1]).filter(
        (pl.col("player") == INJECTION) & (pl.col("played_at").dt.date() >= pl.date(2026, 3, 2))
    )
    assert data["games"]
    for variant, game in data["games"].items():
        assert game["compared"] == report_lake.rule_keys[::-1]
        results = game["queries"]["results"]
        assert {r["group"] for r in results if r["dimension"] == "player"} == {INJECTION}
        theirs = mine.filter(pl.col("variant") == variant)
        assert {r["dimension"]: r for r in results}["all"]["hands"] == theirs.height
        assert {r["opponent"] for r in game["queries"]["head_to_head"]} <= set(
            report_lake.boards(report_lake.rule_keys[1]).filter(pl.col("variant") == variant)["player"].to_list()
        ) - {INJECTION}


def test_report_needs_an_output_and_a_lake(tmp_path: Path) -> None:
    assert runner.invoke(app, ["report", "--lake", str(tmp_path)]).exit_code == 2
    result = runner.invoke(app, ["report", "--lake", str(tmp_path / "none"), "--out", str(tmp_path / "r.html")])
    assert result.exit_code == 2
    assert "not a lake" in result.output


def test_report_rejects_unknown_rules_and_days(report_lake: ReportLake, tmp_path: Path) -> None:
    base = ["report", "--lake", str(report_lake.lake.root), "--out", str(tmp_path / "r.html")]
    result = runner.invoke(app, [*base, "--rules", "nope"])
    assert result.exit_code == 2
    assert "no results under rules 'nope'" in result.output
    assert runner.invoke(app, [*base, "--since", "yesterday"]).exit_code == 2


def test_render_escapes_the_filters(report_lake: ReportLake) -> None:
    text = render(build(report_lake.lake, Options(player=XSS[1])))
    assert XSS[1] not in text
    assert html.escape(XSS[1]) in text


def test_sql_list(report_lake: ReportLake) -> None:
    result = runner.invoke(app, ["sql", "--list", "--json"])
    assert result.exit_code == 0
    listed = {q["name"]: q for q in json.loads(result.output)}
    assert {"foul_rate", "royalty_frequency", "fantasyland", "scoring_variants", "head_to_head"} <= set(listed)
    assert {p["name"] for p in listed["foul_rate"]["params"]} == {"rules", "player", "variant", "since", "until"}
    table = runner.invoke(app, ["sql", "--list"])
    assert table.exit_code == 0
    assert "head_to_head" in table.output


def test_sql_named_query_with_bound_parameters(report_lake: ReportLake) -> None:
    lake = ["--lake", str(report_lake.lake.root)]
    result = runner.invoke(app, ["sql", "results", *lake, "--param", f"player={INJECTION}", "--json"])
    assert result.exit_code == 0, result.output
    rows = [json.loads(line) for line in result.output.splitlines()]
    assert {r["group"] for r in rows if r["dimension"] == "player"} == {INJECTION}
    csv = runner.invoke(app, ["sql", "foul_rate", *lake, "-p", "variant=ofc", "--csv"])
    assert csv.exit_code == 0
    assert csv.output.startswith('"dimension","group"')
    table = runner.invoke(app, ["sql", "overview", *lake])
    assert table.exit_code == 0
    assert "all variants" in table.output
    bad = runner.invoke(app, ["sql", "results", *lake, "--param", "colour=red"])
    assert bad.exit_code == 2
    assert "no parameter 'colour'" in bad.output
    assert runner.invoke(app, ["sql", "results", *lake, "--param", "no-equals"]).exit_code == 2
    assert runner.invoke(app, ["sql", "no_such_query", *lake]).exit_code == 2


def test_sql_ad_hoc_stays_read_only(report_lake: ReportLake) -> None:
    lake = ["--lake", str(report_lake.lake.root)]
    ok = runner.invoke(app, ["sql", "SELECT count(*) AS n FROM hands", *lake, "--json"])
    assert ok.exit_code == 0
    assert json.loads(ok.output)["n"] == report_lake.frame("hands").height
    for statement in ("DROP VIEW hands", "CREATE TABLE x AS SELECT 1", "COPY hands TO '/tmp/x.csv'"):
        result = runner.invoke(app, ["sql", statement, *lake])
        assert result.exit_code == 2, statement
    markup = runner.invoke(app, ["sql", "SELECT '[/bold] [red]x' AS s", *lake])
    assert markup.exit_code == 0
    assert "[/bold] [red]x" in markup.output
    params = runner.invoke(app, ["sql", "SELECT 1", *lake, "--param", "a=b"])
    assert params.exit_code == 2


def test_a_lake_without_results(tmp_path: Path) -> None:
    """Before any rescore: the overview alone, and named queries that say what to run."""
    from ofc.pipeline.ingest.ingest_run import ingest
    from ofc.pipeline.lake.store import Lake
    from tests.test_report_lake import SAMPLES

    lake = Lake(tmp_path / "lake")
    ingest([SAMPLES / "worked-examples.jsonl"], lake)
    out = tmp_path / "r.html"
    result = runner.invoke(app, ["report", "--lake", str(lake.root), "--out", str(out)])
    assert result.exit_code == 0, result.output
    text = out.read_text(encoding="utf-8")
    assert 'data-charts="0"' in text
    assert "none yet: run ofc rescore" in text
    named = runner.invoke(app, ["sql", "results", "--lake", str(lake.root)])
    assert named.exit_code == 2
    assert "run ofc rescore first" in named.output


def test_kept_rows_are_copies_of_one_state() -> None:
    kept = RowsKept(most_rows=5)
    first, later = ("b1",), ("b1", "b2")
    kept.put(first, ("q", "a"), [{"x": 1}])
    taken = kept.get(first, ("q", "a"))
    assert taken == [{"x": 1}]
    taken[0]["x"] = 9  # a section adds to its copy
    assert kept.get(first, ("q", "a")) == [{"x": 1}]
    assert kept.get(later, ("q", "a")) is None  # another state of the lake
    kept.put(later, ("q", "b"), [{"x": 2}] * 3)
    assert kept.get(first, ("q", "a")) is None  # the newer state's rows alone are kept
    kept.put(first, ("q", "a"), [{"x": 1}])  # a report over the older state, finishing late
    assert kept.get(later, ("q", "a")) is None
    kept.put(later, ("q", "c"), [{"x": 3}] * 3)  # 6 rows: the least recent query goes
    assert kept.get(later, ("q", "b")) is None
    assert kept.get(later, ("q", "c")) == [{"x": 3}] * 3
    kept.put(later, ("q", "d"), [{"x": 4}] * 6)  # more than all it keeps: not kept
    assert kept.get(later, ("q", "d")) is None


def test_reports_share_the_rows_of_the_field(report_lake: ReportLake, monkeypatch: pytest.MonkeyPatch) -> None:
    """A served page of another player runs no query of its own: the field's were run for the first page, and
    the player's for every player of the game at once (running totals featuring each too); its figures are
    those of a report made alone."""
    ran: list[tuple[str, object]] = []
    run = queries.named.run

    def counted(con, snapshot, name, values, **kw):  # type: ignore[no-untyped-def]
        ran.append((name, values.get("player", "not asked")))
        return run(con, snapshot, name, values, **kw)

    monkeypatch.setattr(queries.named, "run", counted)
    snapshot = report_lake.lake.snapshot()
    players = sorted(set(report_lake.frame("boards")["player"].to_list()))
    kept = RowsKept()
    with closing(connect(snapshot)) as con:
        build(snapshot, Options(player=players[0], carry_hands=False), con, None, kept)
        ran.clear()
        shared = build(snapshot, Options(player=players[1], carry_hands=False), con, None, kept)
    field = [name for name, player in ran if player is None]
    own = {name for name, player in ran if player == players[1]}
    ran.clear()
    alone = build(snapshot, Options(player=players[1], carry_hands=False))
    assert shared.data() == alone.data()
    assert field == []  # the field's queries: not run again
    assert [name for name, player in ran if player is None]  # which a report made alone runs
    assert own == set()  # featuring the player too: run for the group
    assert len({name for name, player in ran if player == players[1]}) > 10


def test_players_asking_at_once_share_one_run_for_their_group(
    report_lake: ReportLake, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Pages of several players asking the same query at once: it runs once for each group of players, and each
    player gets their own rows, as the query gives them alone."""
    runs: list[tuple[str, ...]] = []
    run_for_players = queries.named.run_for_players

    def counted(con, snapshot, name, values, players, own=()):  # type: ignore[no-untyped-def]
        runs.append(tuple(players))
        return run_for_players(con, snapshot, name, values, players, own)

    monkeypatch.setattr(queries.named, "run_for_players", counted)
    snapshot = report_lake.lake.snapshot()
    players = sorted(set(report_lake.frame("boards")["player"].to_list()))
    kept = RowsKept(group=4)
    found: dict[str, list[dict[str, object]]] = {}
    with closing(connect(snapshot)) as con:
        start = threading.Barrier(len(players))

        def ask(player: str) -> None:
            start.wait()
            with closing(con.cursor()) as cursor:
                rows = kept.player_rows(cursor, snapshot, "foul_rate", {"player": player, "variant": None}, players)
            assert rows is not None
            found[player] = rows

        threads = [threading.Thread(target=ask, args=(p,)) for p in players]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        for player in players:
            alone = queries.named.run(con, snapshot, "foul_rate", {"player": player}, check_filters=False)
            assert found[player] == alone.to_pylist()
    assert len(players) > 4
    assert sorted(runs) == sorted({tuple(players[i : i + 4]) for i in range(0, len(players), 4)})


def test_pages_asking_for_the_same_hands_at_once_read_them_once(
    report_lake: ReportLake, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Pages listing overlapping hands, asked at once: each hand's facts are read by one of them, the others wait
    for that read, and each page gets the rows the query gives alone."""
    read: list[int] = []
    run = queries.named.run

    def slow(con, snapshot, name, values, **kw):  # type: ignore[no-untyped-def]
        if name == queries.HAND_FACTS:
            read.extend(int(k) for k in values["hands"].split(","))
            time.sleep(0.3)  # long enough for every page to ask meanwhile
        return run(con, snapshot, name, values, **kw)

    monkeypatch.setattr(queries.named, "run", slow)
    snapshot = report_lake.lake.snapshot()
    keys = sorted(set(report_lake.frame("hands")["hand_key"].to_list()))[:12]
    asked = [keys[0:6], keys[3:9], keys[6:12], keys[0:12]]
    kept = RowsKept()
    found: dict[int, object] = {}
    with closing(connect(snapshot)) as con:
        start = threading.Barrier(len(asked))

        def ask(i: int) -> None:
            start.wait()
            time.sleep(0.05 * i)  # the first asks first, the others while it reads
            with closing(con.cursor()) as cursor:
                found[i] = kept.hand_facts(cursor, snapshot, {"variant": None}, asked[i])

        threads = [threading.Thread(target=ask, args=(i,)) for i in range(len(asked))]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        for i, hands in enumerate(asked):
            alone = run(con, snapshot, queries.HAND_FACTS, {"hands": ",".join(map(str, hands))}, check_filters=False)
            assert found[i] == alone.to_pylist()
    assert sorted(read) == keys


def test_a_players_overview_counts_the_players_of_the_games_they_played(report_lake: ReportLake) -> None:
    """A player's overview lists the games they played: its count of players over all games is of those games'
    players, as each game's row counts them, not of games the player never sat at."""
    boards = report_lake.frame("boards")
    one_game = boards.group_by("player").agg(pl.col("variant").n_unique().alias("games")).filter(pl.col("games") == 1)
    player = sorted(one_game["player"].to_list())[0]
    (variant,) = boards.filter(pl.col("player") == player)["variant"].unique().to_list()
    report = build(report_lake.lake, Options(player=player, carry_hands=False))
    said = {s.label: s.value for s in report.overview.headline}
    assert said["games"] == 1
    assert said["players, all games"] == boards.filter(pl.col("variant") == variant)["player"].n_unique()
    assert said["players, all games"] < boards["player"].n_unique()
