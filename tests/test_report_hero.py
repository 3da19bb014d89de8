"""Whom a report features and what it leaves out: players found without regard to case and under aliases, filters
that match nothing refused with the closest matches, rankings above a minimum of hands, rule sets by name (their
latest versions), and the hands the viewer opens checked against the lake's own results."""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

import polars as pl
import pytest
from typer.testing import CliRunner

from ofc.pipeline.cli import app
from ofc.pipeline.config import Config, ConfigError, load_config
from ofc.pipeline.lake.store import Lake
from ofc.pipeline.query.players import FilterError
from ofc.pipeline.rules.files import load_rules
from ofc.pipeline.rules.native import deal_only_difference
from ofc.reports.html import render
from ofc.reports.report import Options, build
from tests.test_report_lake import ReportLake, make_records, shared_lake

runner = CliRunner()


@pytest.fixture(scope="module")
def report_lake(tmp_path_factory: pytest.TempPathFactory) -> ReportLake:
    return shared_lake(tmp_path_factory)


def _report(lake: ReportLake, *args: str, env: dict[str, str] | None = None) -> tuple[int, dict, str]:
    result = runner.invoke(app, ["report", "--lake", str(lake.lake.root), "--json", *args], env=env)
    data = json.loads(result.stdout) if result.exit_code == 0 else {}
    return result.exit_code, data, result.output


def _visible(page: str) -> str:
    """The page's text without its scripts (what a reader sees, and the hand data)."""
    return re.sub(r"<script.*?</script>", "", page, flags=re.S)


def _players(game: dict) -> set[str]:
    return {r["group"] for r in game["queries"]["results"] if r["dimension"] == "player"}


def test_a_player_is_found_without_regard_to_case(report_lake: ReportLake) -> None:
    code, data, output = _report(report_lake, "--player", "aNN")
    assert code == 0, output
    assert data["filters"]["player"] == "Ann"
    played = set(report_lake.boards().filter(pl.col("player") == "Ann")["variant"].to_list())
    assert set(data["games"]) == played  # the games Ann played, each featuring her
    for game in data["games"].values():
        assert game["featured"] == "Ann"
        assert _players(game) == {"Ann"}


def test_an_unknown_player_is_an_error_naming_the_closest(report_lake: ReportLake) -> None:
    code, _, output = _report(report_lake, "--player", "Anne")
    assert code == 2
    assert "no player 'Anne'" in output
    assert "Ann" in output.split("closest names:")[1]
    assert "Traceback" not in output


def test_a_variant_or_day_that_matches_nothing_is_an_error(report_lake: ReportLake) -> None:
    code, _, output = _report(report_lake, "--variant", "pinapple")
    assert code == 2
    assert "did you mean 'pineapple'" in output
    code, _, output = _report(report_lake, "--since", "2031-01-01")
    assert code == 2
    assert "no hands were played on or after 2031-01-01" in output


def test_without_a_player_each_game_features_its_player_with_most_hands(report_lake: ReportLake) -> None:
    boards = report_lake.boards()
    code, data, output = _report(report_lake)
    assert code == 0, output
    assert data["filters"]["player"] is None
    assert set(data["games"]) == set(boards["variant"].to_list())
    for variant, game in data["games"].items():
        counts = Counter(boards.filter(pl.col("variant") == variant)["player"].to_list())
        expected = min(counts, key=lambda p: (-counts[p], p))
        assert game["featured"] == expected
        hands = next(s for s in game["sections"]["player"] if s["label"] == "hands")
        assert hands["value"] == counts[expected]


def test_the_featured_player_can_be_set_once(report_lake: ReportLake, tmp_path: Path) -> None:
    code, data, _ = _report(report_lake, env={"OFC_PLAYER": "carla", "OFC_CONFIG": str(tmp_path / "none.toml")})
    assert code == 2  # a settings file named but missing is an error, not ignored
    settings = tmp_path / "ofc.toml"
    settings.write_text('player = "carla"\nmin_hands = 3\n', encoding="utf-8")
    code, data, output = _report(report_lake, env={"OFC_CONFIG": str(settings)})
    assert code == 0, output
    boards = report_lake.boards()
    carla = set(boards.filter(pl.col("player") == "Carla")["variant"].to_list())
    assert {v for v, g in data["games"].items() if g["featured"] == "Carla"} == carla
    assert data["filters"]["player"] is None  # featured, not a filter: every player is there
    assert all(len(_players(g)) > 1 for g in data["games"].values())
    assert data["filters"]["min_hands"] == 3
    assert {g["min_hands"] for g in data["games"].values()} == {3}
    code, data, _ = _report(report_lake, env={"OFC_CONFIG": str(settings), "OFC_PLAYER": "Bo"})
    bo = set(boards.filter(pl.col("player") == "Bo")["variant"].to_list())
    assert {v for v, g in data["games"].items() if g["featured"] == "Bo"} == bo  # the variable wins


def test_aliases_read_as_one_player(report_lake: ReportLake, tmp_path: Path) -> None:
    settings = tmp_path / "ofc.toml"
    settings.write_text('[aliases]\nAnn = ["Bo"]\n', encoding="utf-8")
    boards = report_lake.boards()
    both = boards.filter(pl.col("player").is_in(["Ann", "Bo"]))
    code, data, output = _report(report_lake, "--player", "bo", "--min-hands", "1", env={"OFC_CONFIG": str(settings)})
    assert code == 0, output
    assert data["filters"]["player"] == "Ann"
    results = [{r["dimension"]: r for r in g["queries"]["results"]}["all"] for g in data["games"].values()]
    assert sum(r["hands"] for r in results) == both.height
    assert sum(r["points"] for r in results) == both["points"].sum()
    assert "Bo" not in {r["opponent"] for g in data["games"].values() for r in g["queries"]["head_to_head"]}
    pairs = report_lake.pairs()
    shared = pairs.filter(pl.col("player_a").is_in(["Ann", "Bo"]) & pl.col("player_b").is_in(["Ann", "Bo"]))
    together = shared.filter(pl.col("player_a") != pl.col("player_b"))["hand_key"].n_unique()
    assert any(n.startswith(f"{together:,} hands seat Ann twice") for n in data["notes"]), data["notes"]


def test_a_featured_alias_is_its_player(report_lake: ReportLake, tmp_path: Path) -> None:
    settings = tmp_path / "ofc.toml"
    settings.write_text('player = "BO"\n[aliases]\nAnn = ["Bo"]\n', encoding="utf-8")
    code, data, output = _report(report_lake, env={"OFC_CONFIG": str(settings)})
    assert code == 0, output
    assert any(g["featured"] == "Ann" for g in data["games"].values())
    assert not any(g["featured"] == "Bo" for g in data["games"].values())
    assert not [n for n in data["notes"] if "no hands here" in n]


def test_settings_are_checked() -> None:
    with pytest.raises(ValueError, match="alias of both"):
        Config.model_validate({"aliases": {"Ann": ["x"], "Bo": ["x"]}})
    assert Config.model_validate({"aliases": {"Ann": ["a1", "a2"]}}).alias_map() == {"a1": "Ann", "a2": "Ann"}


def test_a_settings_file_that_does_not_parse_names_itself(tmp_path: Path) -> None:
    bad = tmp_path / "ofc.toml"
    bad.write_text("min_hands = 0\n", encoding="utf-8")
    with pytest.raises(ConfigError, match=r"ofc.toml: min_hands"):
        load_config(bad)


def test_rankings_leave_out_players_with_few_hands_and_say_so(report_lake: ReportLake) -> None:
    boards = report_lake.boards().filter(pl.col("variant") == "pineapple")
    counts = Counter(boards["player"].to_list())
    limit = sorted(counts.values())[len(counts) // 2] + 1
    report = build(report_lake.lake, Options(min_hands=limit))
    game = report.game("pineapple")
    table = next(t for s in game.sections for t in s.tables if t.name == "results_by_player")
    assert {r["group"] for r in table.rows} == {p for p, n in counts.items() if n >= limit}
    left = sum(1 for n in counts.values() if n < limit)
    assert f"{left:,} players with fewer than {limit:,} hands left out (--min-hands)." == table.note
    assert f"fewer than {limit:,} hands" in render(report)


def test_rule_sets_are_named_not_hashed(report_lake: ReportLake) -> None:
    report = build(report_lake.lake, Options(min_hands=1))
    page = _visible(render(report))
    for key in report_lake.rule_keys:
        name, digest = key.rsplit("@", 1)
        assert digest[:6] not in page
        assert name in page


@pytest.fixture(scope="module")
def versions(tmp_path_factory: pytest.TempPathFactory) -> tuple[Lake, Path, list[str]]:
    """A small lake rescored under two versions of one house rule file, and under the pineapple presets."""
    from ofc.pipeline.ingest.ingest_run import ingest
    from ofc.pipeline.rescore.rescore_run import rescore

    root = tmp_path_factory.mktemp("versions")
    history = root / "hands.jsonl"
    records = [r for r in make_records(60) if r["variant"] in ("pineapple", "ofc")]
    history.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    lake = Lake(root / "lake")
    ingest([history], lake)
    house = root / "house.toml"
    keys = []
    for scoop in (3, 6):
        house.write_text(f'name = "house"\nextends = "ofc"\n[scoring]\nscoop_bonus = {scoop}\n', encoding="utf-8")
        rules = load_rules(house)
        rescore(lake, [rules])
        keys.append(rules.key)
    rescore(lake, [load_rules("pineapple"), load_rules("progressive-pineapple")])
    return lake, house, keys


def test_earlier_versions_are_left_out_unless_asked(versions: tuple[Lake, Path, list[str]]) -> None:
    lake, _, (old, new) = versions
    report = build(lake, Options(min_hands=1))
    assert new in report.compared
    assert old not in report.compared
    assert report.name(new) == "house"
    every = build(lake, Options(min_hands=1, all_versions=True))
    assert old in every.compared
    assert new in every.compared
    assert every.name(old) == f"house ({old.rsplit('@', 1)[1][:6]})"  # two versions shown: told apart
    assert every.name(new) == f"house ({new.rsplit('@', 1)[1][:6]}, latest)"
    assert every.name(new) != every.name(old)


def test_rules_are_taken_by_path(versions: tuple[Lake, Path, list[str]], tmp_path: Path) -> None:
    lake, house, (_, new) = versions
    out = tmp_path / "missing" / "folder" / "r.html"
    result = runner.invoke(app, ["report", "--lake", str(lake.root), "--rules", str(house), "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert out.is_file()  # the folders were made
    report = build(lake, Options(rules=(str(house),), min_hands=1))
    assert report.lead == new
    edited = tmp_path / "house.toml"
    edited.write_text('name = "house"\nextends = "ofc"\n[scoring]\nscoop_bonus = 9\n', encoding="utf-8")
    refused = runner.invoke(app, ["report", "--lake", str(lake.root), "--rules", str(edited), "--json"])
    assert refused.exit_code == 2
    assert "run ofc rescore --rules" in refused.output


def test_rules_that_differ_only_in_the_deal_are_explained(versions: tuple[Lake, Path, list[str]]) -> None:
    diff = deal_only_difference(load_rules("progressive-pineapple"), load_rules("pineapple"))
    assert diff is not None
    assert "fantasyland.entry_cards" in diff
    assert deal_only_difference(load_rules("classic-2-4"), load_rules("classic-1-6")) is None
    assert deal_only_difference(load_rules("ofc"), load_rules("ofc")) == []
    lake, _, _ = versions
    report = build(lake, Options(variant="pineapple", rules=("pineapple", "progressive-pineapple"), min_hands=1))
    scoring = next(s for s in report.game("pineapple").sections if s.key == "scoring")
    assert "progressive-pineapple scores every hand here exactly as played" in scoring.note
    assert "the cards a Fantasyland entry deals" in scoring.note


def test_the_listed_hands_agree_with_the_lake(report_lake: ReportLake) -> None:
    report = build(report_lake.lake, Options(min_hands=1))
    listed = [r for s in report.sections for t in s.tables if t.name == "hands" for r in t.rows]
    assert listed
    assert {r["hand"] for r in listed} == set(report.hands)
    boards = report_lake.boards()
    for hand in report.hands.values():
        mine = boards.filter(pl.col("hand_key") == int(hand["id"]))  # hand ids repeat across sessions
        assert len(hand["boards"]) == mine.height
        net = Counter()
        for pair in hand["pairs"]:
            net[pair["a"]] += pair["points"]
            net[pair["b"]] -= pair["points"]
        for board in hand["boards"]:
            row = mine.filter(pl.col("player") == board["player"]).row(0, named=True)
            assert board["points"] == row["points"] == net[board["player"]]
            assert [len(r["cards"]) for r in board["rows"]] == [3, 5, 5]
            if not board["fouled"]:
                paid = row["royalty_top"] + row["royalty_middle"] + row["royalty_bottom"]
                assert board["royalties"] == paid
            if board.get("streets"):
                placed = sorted(c["card"] for s in board["streets"] for c in s["placed"])
                assert placed == sorted(c for r in board["rows"] for c in r["cards"])


def test_sessions_and_running_totals_add_up(report_lake: ReportLake) -> None:
    report = build(report_lake.lake, Options(min_hands=1))
    game = report.game("pineapple")
    who = game.featured
    mine = report_lake.boards().filter((pl.col("player") == who) & (pl.col("variant") == "pineapple"))
    sessions = game.ask.rows["session_summary"]
    assert sum(r["hands"] for r in sessions) == mine.height
    assert sum(r["points"] for r in sessions) == mine["points"].sum()
    assert sum(r["fouls"] for r in sessions) == mine["fouled"].sum()
    running = [r for r in game.ask.rows["running_totals"] if r["player"] == who]
    timed = mine.filter(pl.col("played_at").is_not_null())
    assert running[-1]["hands"] == timed.height
    assert running[-1]["points"] == timed["points"].sum()
    assert [r["hands"] for r in running] == sorted(r["hands"] for r in running)


def test_the_running_totals_say_whose_lines_they_draw(report_lake: ReportLake) -> None:
    """A player chosen, the running totals are theirs alone and the section says no more; featured without a
    choice, they are drawn beside the players with the most hands, and the section says so."""
    for player, others in (("Ann", False), (None, True)):
        report = build(report_lake.lake, Options(player=player, variant="pineapple", min_hands=1))
        game = report.game("pineapple")
        drawn = {r["player"] for r in game.ask.rows["running_totals"]}
        section = next(s for s in game.sections if s.key == "player")
        assert (len(drawn) > 1) is others, drawn
        assert ("beside the players with the most hands" in section.intro) is others, section.intro


def test_a_filter_error_is_the_library_error_too(report_lake: ReportLake) -> None:
    with pytest.raises(FilterError, match="no player"):
        build(report_lake.lake, Options(player="nobody at all"))


def test_a_named_query_finds_its_player_or_names_the_closest(report_lake: ReportLake) -> None:
    lake = ["--lake", str(report_lake.lake.root)]
    found = runner.invoke(app, ["sql", "results", *lake, "-p", "player=ann", "--json"])
    assert found.exit_code == 0, found.output
    rows = [json.loads(line) for line in found.stdout.splitlines()]
    assert {r["group"] for r in rows if r["dimension"] == "player"} == {"Ann"}
    missing = runner.invoke(app, ["sql", "results", *lake, "-p", "player=annie"])
    assert missing.exit_code == 2
    assert "closest names: Ann" in missing.output
    typo = runner.invoke(app, ["sql", "foul_rate", *lake, "-p", "variant=pinapple"])
    assert typo.exit_code == 2
    assert "did you mean 'pineapple'" in typo.output


def test_listed_hands_keep_each_kind_in_its_own_order(report_lake: ReportLake) -> None:
    report = build(report_lake.lake, Options(min_hands=1))
    rows = report.game("pineapple").ask.rows["notable_hands"]
    kinds = [r["kind"] for r in rows]
    assert kinds == sorted(kinds, key=["fouled", "biggest win", "biggest loss", "fantasyland", "winner changes"].index)
    wins = [r["points"] for r in rows if r["kind"] == "biggest win"]
    losses = [r["points"] for r in rows if r["kind"] == "biggest loss"]
    fouls = [r["points"] for r in rows if r["kind"] == "fouled"]
    assert wins
    assert all(p > 0 for p in wins)
    assert wins == sorted(wins, reverse=True)
    assert losses
    assert all(p < 0 for p in losses)
    assert losses == sorted(losses)
    assert fouls == sorted(fouls)
    assert all(r["fouled"] for r in rows if r["kind"] == "fouled")


def test_a_player_filter_reaches_the_winner_changes(report_lake: ReportLake) -> None:
    key = report_lake.rule_keys[0]
    report = build(report_lake.lake, Options(player="Ann", min_hands=1))
    checked = 0
    for game in report.games:
        if key not in game.compared:
            continue
        checked += 1
        rows = {r["variant"]: r for r in game.ask.rows["winner_changes"] if r["rules_key"] == key}
        mine = report_lake.boards(key).filter((pl.col("player") == "Ann") & (pl.col("variant") == game.variant))
        assert rows[game.variant]["hands"] == mine.height
        changed = mine.filter(pl.col("winner_seat") != pl.col("native_winner_seat")).height
        assert rows[game.variant]["changed"] == changed
    assert checked


def test_running_totals_follow_every_hand_of_a_small_player(report_lake: ReportLake) -> None:
    report = build(report_lake.lake, Options(player="Ann", min_hands=1))
    played = set(report_lake.boards().filter(pl.col("player") == "Ann")["variant"].to_list())
    assert {game.variant for game in report.games} == played
    assert len(played) == 5  # Ann plays every variant of the test lake
    for game in report.games:
        running = game.ask.rows["running_totals"]
        mine = report_lake.boards().filter((pl.col("player") == "Ann") & (pl.col("variant") == game.variant))
        mine = mine.sort("played_at", "session", "hand_number")
        assert [r["hands"] for r in running] == list(range(1, mine.height + 1))[-len(running) :]
        assert running[-1]["points"] == mine["points"].sum()


def test_a_classic_report_has_no_fantasyland_or_decisions(report_lake: ReportLake) -> None:
    report = build(report_lake.lake, Options(variant="classic", min_hands=1))
    assert [g.variant for g in report.games] == ["classic"]
    assert not {"fantasyland", "decisions"} & {s.key for s in report.sections}
    assert not any("Fantasyland" in line or "Decisions" in line for line in report.game("classic").left_out)


def test_a_featured_player_the_lake_does_not_have_is_said(report_lake: ReportLake) -> None:
    report = build(report_lake.lake, Options(featured="nobody", min_hands=1))
    assert any("'nobody'" in n and "no hands here" in n for n in report.notes)


def test_a_hand_id_of_the_page_reads_in_sql(report_lake: ReportLake) -> None:
    report = build(report_lake.lake, Options(min_hands=1))
    hand = next(iter(report.hands.values()))
    args = ["sql", "hand_boards", "--lake", str(report_lake.lake.root), "-p", f"hands={hand['id']}", "--json"]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    assert len(result.stdout.splitlines()) == len(hand["boards"])


def test_an_output_under_a_file_is_a_usage_error(report_lake: ReportLake, tmp_path: Path) -> None:
    (tmp_path / "file").write_text("x")
    out = tmp_path / "file" / "r.html"
    result = runner.invoke(app, ["report", "--lake", str(report_lake.lake.root), "--out", str(out)])
    assert result.exit_code == 2
    assert "is a file, not a folder" in result.output


@pytest.mark.parametrize(
    ("value", "kind", "shown"),
    [
        (-1e-9, "pct", "0.0%"),
        (0.1234, "pct", "12.3%"),
        (-0.0001, "num", "0.00"),
        (0.0, "signed", "+0.00"),
        (-6.1, "signed", "-6.10"),
        (5, "signed", "+5"),
        (1234567, "int", "1,234,567"),
        (None, "num", ""),
    ],
)
def test_numbers_show_one_precision_per_kind_and_no_noise(value: float | None, kind: str, shown: str) -> None:
    from ofc.reports.tables import cell_text, raw_text

    assert cell_text(value, kind) == shown
    assert raw_text(4.3e-19) == "0.0"


def test_running_totals_in_slices_of_time_end_at_each_players_total(report_lake: ReportLake) -> None:
    """The path for players with many hands (here forced with exact=0): slices of time, thinned to `steps`."""
    from ofc.pipeline.query import named
    from ofc.pipeline.query.db import connect

    snapshot = report_lake.lake.snapshot()
    rows = named.run(connect(snapshot), snapshot, "running_totals", {"exact": 0, "steps": 7}).to_pylist()
    boards = report_lake.boards()
    counts = boards.group_by("player").len().sort(["len", "player"], descending=[True, False])
    most = set(counts["player"].head(8).to_list())  # the query's default: the 8 players with the most hands
    assert {r["player"] for r in rows} == most
    assert len(most) == 8
    for player in most:
        mine = [r for r in rows if r["player"] == player]
        theirs = boards.filter(pl.col("player") == player)
        assert len(mine) <= 8
        assert [r["hands"] for r in mine] == sorted({r["hands"] for r in mine})
        assert (mine[-1]["hands"], mine[-1]["points"]) == (theirs.height, theirs["points"].sum())
