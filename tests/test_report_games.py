"""The report by game: every figure of a game is computed over that one variant, so a game's figures are the same
whether the lake holds it alone or beside every other variant; a classic game has no streets, dead streets,
Fantasyland or decisions; a club night of a few hands has standings; machine output survives a reader that reads
every number as a double."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import polars as pl
import pytest
from typer.testing import CliRunner

from ofc.pipeline.cli import app
from ofc.pipeline.ingest.ingest_run import ingest
from ofc.pipeline.lake.store import Lake
from ofc.pipeline.rescore.rescore_run import rescore
from ofc.pipeline.rules.files import load_rules
from ofc.reports.report import Options, build, game_data
from ofc.reports.sections.common import FANTASYLAND_COLUMNS, STREET_COLUMNS, auto_min_hands
from tests.test_report_lake import VARIANTS, make_records

RULES = ("ofc", "classic-2-4")
runner = CliRunner()


def _lake(root: Path, records: list[dict[str, Any]], rules: tuple[str, ...] = RULES) -> Lake:
    root.mkdir(parents=True, exist_ok=True)
    source = root / "hands.jsonl"
    source.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    lake = Lake(root / "lake")
    report = ingest([source], lake)
    assert report.totals.quarantined == 0, report.totals.reasons
    rescore(lake, [load_rules(name) for name in rules])
    return lake


@pytest.fixture(scope="module")
def records() -> list[dict[str, Any]]:
    return make_records(150, seed=11)  # 30 hands of each variant, in sessions of ten


@pytest.fixture(scope="module")
def mixed(records: list[dict[str, Any]], tmp_path_factory: pytest.TempPathFactory) -> Lake:
    return _lake(tmp_path_factory.mktemp("mixed"), records)


def _close(a: Any, b: Any, where: str = "") -> list[str]:
    """Where two JSON documents differ (floats to 1e-9, relative)."""
    if isinstance(a, dict) and isinstance(b, dict):
        if a.keys() != b.keys():
            return [f"{where}: keys {sorted(a.keys() ^ b.keys())}"]
        return [d for k in a for d in _close(a[k], b[k], f"{where}.{k}")]
    if isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            return [f"{where}: {len(a)} items against {len(b)}"]
        return [d for i, (x, y) in enumerate(zip(a, b, strict=True)) for d in _close(x, y, f"{where}[{i}]")]
    if isinstance(a, float) and isinstance(b, float):
        return [] if math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12) else [f"{where}: {a} != {b}"]
    return [] if a == b else [f"{where}: {a!r} != {b!r}"]


@pytest.mark.parametrize("variant", VARIANTS)
def test_a_game_reads_the_same_alone_or_beside_every_other(
    variant: str, records: list[dict[str, Any]], mixed: Lake, tmp_path: Path
) -> None:
    together = build(mixed, Options())
    assert [g.variant for g in together.games] == sorted(VARIANTS, key=lambda v: (-30, v))  # 30 hands each
    alone = build(_lake(tmp_path, [r for r in records if r["variant"] == variant]), Options())
    assert [g.variant for g in alone.games] == [variant]
    one, other = game_data(together.game(variant)), game_data(alone.game(variant))
    assert one["queries"], "the game read no query"
    assert {"results", "foul_rate", "scoring_variants"} <= set(one["queries"])
    assert one["hands"], "the game lists no hand"
    assert _close(json.loads(json.dumps(one)), json.loads(json.dumps(other))) == []


def test_every_game_has_its_own_figures_and_counts_only_are_added_up(
    mixed: Lake, records: list[dict[str, Any]]
) -> None:
    report = build(mixed, Options())
    data = report.data()
    assert set(data["games"]) == {r["variant"] for r in records}
    assert len(data["games"]) == 5
    overview = {s["label"]: s["value"] for s in data["overview"]["headline"]}
    assert overview["hands, all games"] == sum(
        next(s["value"] for s in g["headline"] if s["label"] == "hands") for g in data["games"].values()
    )
    assert data["overview"]["scope"] == "all games: counts only"
    for variant, game in data["games"].items():
        boards = next(s["value"] for s in game["headline"] if s["label"] == "boards")
        fouls = {r["dimension"]: r for r in game["queries"]["foul_rate"]}["all"]
        assert fouls["boards"] == boards, variant  # the foul rate counts this game's boards, no other's
        rates = 0
        for section, stats in game["sections"].items():
            for stat in stats:
                if isinstance(stat["value"], float):
                    assert stat["n"] is not None, (variant, section, stat["label"])  # every figure says its n
                    rates += 1
        assert rates > 0, variant  # every game has a foul rate at least


def _keys(doc: Any) -> set[str]:
    if isinstance(doc, dict):
        return set(doc) | {k for v in doc.values() for k in _keys(v)}
    if isinstance(doc, list):
        return {k for v in doc for k in _keys(v)}
    return set()


def test_a_classic_game_has_no_streets_fantasyland_or_decisions(mixed: Lake) -> None:
    report = build(mixed, Options())
    classic = report.game("classic")
    data = game_data(classic)
    assert not _keys(data) & (STREET_COLUMNS | FANTASYLAND_COLUMNS | {"decisions"})
    assert not {"dead_streets", "fantasyland", "decision_loss", "costly_decisions"} & set(data["queries"])
    assert {"player", "results", "fouls", "scoring"} <= {s.key for s in classic.sections}
    assert {s.key for s in classic.sections} <= {"player", "results", "fouls", "royalties", "scoring"}
    assert not any("Fantasyland" in line or "Decisions" in line for line in classic.left_out)
    assert not any(
        f.layout.title.text and "street" in f.layout.title.text.lower() for s in classic.sections for f in s.figures
    )
    assert all("streets" not in hand["boards"][0] for hand in classic.hands.values())
    # An open-face game has them all.
    pineapple = report.game("pineapple")
    assert {"fantasyland"} <= {s.key for s in pineapple.sections}
    assert "dead_streets" in game_data(pineapple)["queries"]
    assert any(b.get("streets") for hand in pineapple.hands.values() for b in hand["boards"])


def test_open_face_rules_without_fantasyland_have_no_fantasyland_figures(
    records: list[dict[str, Any]], tmp_path: Path
) -> None:
    rules = tmp_path / "no-fl.toml"
    rules.write_text(
        'extends = "pineapple"\nname = "pineapple-no-fl"\ndescription = "no Fantasyland"\n\n'
        "[fantasyland]\nenabled = false\n",
        encoding="utf-8",
    )
    lake = _lake(tmp_path, [r for r in records if r["variant"] == "pineapple"], ("pineapple",))
    rescore(lake, [load_rules(rules)])
    report = build(lake, Options(rules=(str(rules),)))
    game = report.game("pineapple")
    assert "fantasyland" not in {s.key for s in game.sections}
    assert any(line.startswith("Fantasyland: ") for line in game.left_out)
    assert not _keys(game_data(game)) & FANTASYLAND_COLUMNS


def test_the_minimum_for_rankings_follows_the_lake() -> None:
    assert auto_min_hands({"a": 8, "b": 8, "c": 8}) == 1
    assert auto_min_hands({"a": 600, "b": 5}) == 60
    assert auto_min_hands({"a": 2_000_000}) == 100
    assert auto_min_hands({}) == 1


def _club(root: Path) -> Lake:
    """A club night: eight Pineapple hands of three players."""
    records = [r for r in make_records(40, seed=5) if r["variant"] == "pineapple"][:8]
    for r in records:
        for p, name in zip(r["players"], ("Ann", "Bo", "Carla", "Dev"), strict=False):
            p["name"] = name
    return _lake(root, records, ("classic-2-4",))


def test_a_club_night_of_eight_hands_has_standings(tmp_path: Path) -> None:
    lake = _club(tmp_path)
    report = build(lake, Options())
    game = report.game("pineapple")
    assert game.min_hands == 1
    results = next(s for s in game.sections if s.key == "results")
    standings = next(t for t in results.tables if t.name == "results_by_player")
    assert len(standings.rows) == len(game.boards) >= 2
    assert not results.note
    assert all(s.small for s in results.headline if s.n is not None)  # marked: a small sample
    scoring = game_data(game)["queries"]["scoring_variants"]
    everyone = [r for r in scoring if r["player"] is None]
    hands = next(s.value for s in game.headline if s.label == "hands")
    assert {r["hands"] for r in everyone} == {hands}  # hands, not boards
    assert {r["boards"] for r in everyone} == {sum(game.boards.values())}


def test_which_rule_set_favours_whom_is_paired_hand_by_hand(tmp_path: Path) -> None:
    lake = _club(tmp_path)
    report = build(lake, Options())
    game = report.game("pineapple")
    rows = game_data(game)["queries"]["scoring_variants"]
    key = load_rules("classic-2-4").key
    files = [str(f) for f in lake.snapshot().files("board_results")]
    results = pl.read_parquet(files, hive_partitioning=True)
    boards = pl.read_parquet([str(f) for f in lake.snapshot().files("boards")], hive_partitioning=True)
    played = results.filter(pl.col("native")).select("hand_key", "seat", pl.col("points").alias("played"))
    played = played.join(boards.select("hand_key", "seat", "player"), on=["hand_key", "seat"])
    under = results.filter(pl.col("rules_key") == key).select("hand_key", "seat", "points")
    gains = under.join(played, on=["hand_key", "seat"]).with_columns(gain=pl.col("points") - pl.col("played"))
    assert gains.height == 24  # eight hands of three players
    assert set(gains["player"].to_list()) == {"Ann", "Bo", "Carla"}
    for player, mine in gains.group_by("player"):
        row = next(r for r in rows if r["rules_key"] == key and r["player"] == player[0])
        gain = mine["gain"].cast(pl.Float64)
        margin = 1.96 * gain.std() / math.sqrt(gain.len())
        assert row["gain_per_hand"] == pytest.approx(gain.mean())
        assert row["gain_ci_low"] == pytest.approx(gain.mean() - margin)
        assert row["gain_ci_high"] == pytest.approx(gain.mean() + margin)


def _walk(doc: Any) -> list[Any]:
    if isinstance(doc, dict):
        return [x for v in doc.values() for x in _walk(v)]
    if isinstance(doc, list):
        return [x for v in doc for x in _walk(v)]
    return [doc]


def test_report_json_survives_a_reader_of_doubles(mixed: Lake, tmp_path: Path) -> None:
    out = tmp_path / "r.json"
    result = runner.invoke(app, ["report", "--lake", str(mixed.root), "--json", "--out", str(out)])
    assert result.exit_code == 0, result.output
    text = out.read_text(encoding="utf-8")
    exact = json.loads(text)
    doubles = json.loads(text, parse_int=float)
    assert not [v for v in _walk(exact) if isinstance(v, int) and not isinstance(v, bool) and abs(v) >= 2**53]
    keys = set()
    for game, shown in zip(exact["games"].values(), doubles["games"].values(), strict=True):
        for name, rows in game["queries"].items():
            for row, read in zip(rows, shown["queries"][name], strict=True):
                if "hand_key" in row:
                    assert isinstance(read["hand_key"], str)
                    keys.add(read["hand_key"])
        for stat in game["headline"] + [s for stats in game["sections"].values() for s in stats]:
            assert set(stat) >= {"value", "ci_low", "ci_high", "n", "text"}
            assert not isinstance(stat["value"], str) or stat["text"] == stat["value"]
    assert keys
    hands = pl.read_parquet([str(f) for f in mixed.snapshot().files("hands")])
    assert {str(k) for k in hands["hand_key"].to_list()} >= keys  # every key finds its hand


def test_a_replaced_hand_is_counted_once(tmp_path: Path) -> None:
    """Hands a corrected file replaced are not counted again where the report says what lacks results."""
    records = [r for r in make_records(40, seed=5) if r["variant"] == "pineapple"][:8]
    for r in records[4:]:
        r["source"] = "later"  # a replace replaces the hands of its source
    lake = _lake(tmp_path, records[:4], ("classic-2-4", "ofc"))
    later = tmp_path / "later.jsonl"
    later.write_text("".join(json.dumps(r) + "\n" for r in records[4:]), encoding="utf-8")
    ingest([later], lake)
    rescore(lake, [load_rules("classic-2-4"), load_rules("ofc")])
    records[4]["players"][0]["name"] = "Renamed"  # one hand of the later file corrected
    later.write_text("".join(json.dumps(r) + "\n" for r in records[4:]), encoding="utf-8")
    ingest([later], lake, replace=True)
    rescore(lake, [load_rules("classic-2-4")])
    snapshot = lake.snapshot()
    assert sum(snapshot.hands(m) for m in snapshot.sources) == 8
    result = runner.invoke(
        app, ["report", "--lake", str(lake.root), "--rules", "classic-2-4", "--rules", "ofc", "--json"]
    )
    assert result.exit_code == 2
    assert "rule set ofc has not scored every hand: 4 hands in 2 batch(es)" in " ".join(result.output.split())
