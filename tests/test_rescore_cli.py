"""``ofc rescore`` on the command line: help, summary, JSON, errors, and the mismatches ``ofc sql`` lists."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ofc.pipeline.cli import app
from ofc.pipeline.paths import SAMPLES
from ofc.pipeline.rules.files import load_rules

runner = CliRunner()


@pytest.fixture
def lake(tmp_path: Path) -> Path:
    """The samples, with one worked example recording points that 1-6 scoring does not give."""
    records = [json.loads(line) for line in (SAMPLES / "worked-examples.jsonl").read_text().splitlines()]
    e3 = records[2]
    e3["hand_id"] = "E3-recorded"
    e3["players"][0]["points"], e3["players"][1]["points"] = 3, -3  # 2-4 figures; ofc (1-6) gives +2
    e3["players"][0]["seat"], e3["players"][1]["seat"] = 1, 0  # not the same hand as E3 to the lake
    extra = tmp_path / "recorded.jsonl"
    extra.write_text(json.dumps(e3) + "\n")
    root = tmp_path / "lake"
    result = runner.invoke(app, ["ingest", str(SAMPLES), str(extra), "--lake", str(root)])
    assert result.exit_code == 0, result.output
    return root


def test_help_names_the_command_and_its_options() -> None:
    top = runner.invoke(app, ["--help"])
    assert "rescore" in top.output
    result = runner.invoke(app, ["rescore", "--help"])
    assert result.exit_code == 0
    for option in ("--rules", "--lake", "--force", "--json", "recorded_mismatches"):
        assert option in result.output


def test_summary_then_nothing_new(lake: Path) -> None:
    result = runner.invoke(app, ["rescore", "--lake", str(lake), "-r", "ofc", "-r", "classic-2-4"])
    assert result.exit_code == 0, result.output
    assert "ofc@" not in result.output  # rule sets by name: the hash only tells two versions apart
    assert "│ ofc " in result.output
    assert "│ classic-2-4 " in result.output
    assert "committed 1 result batch" in result.output
    # Each hand that recorded points is checked under its own rules: the 4 poker-arena hands, the 6 of the
    # scoresheet, the 8 of the workbook and the fpdb hand agree, the edited example does not.
    assert "on 1 of 20 hands" in result.output
    assert "recorded_mismatches" in result.output
    again = runner.invoke(app, ["rescore", "--lake", str(lake)])  # default: the rule sets already there
    assert again.exit_code == 0, again.output
    assert "nothing new to score" in again.output
    assert "classic-2-4" in again.output


def test_json_summary_and_force(lake: Path) -> None:
    result = runner.invoke(app, ["rescore", "--lake", str(lake), "--rules", "ofc", "--json"])
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout)
    ofc, pineapple = summary["rules"]  # the fpdb sample's hand is scored under its own rules too
    assert ofc["key"] == load_rules("ofc").key
    assert (pineapple["key"], pineapple["recorded_checked"]) == (load_rules("pineapple").key, 1)
    hands = ofc["hands"]
    assert hands == ofc["lake"]["hands"] > 0
    assert ofc["pairs"] > hands
    assert (ofc["recorded_checked"], ofc["recorded_differing"]) == (19, 1)
    assert len(summary["result_batches"]) == 1
    again = json.loads(runner.invoke(app, ["rescore", "--lake", str(lake), "-r", "ofc", "--json"]).stdout)
    assert again["result_batches"] == []
    assert (again["rules"][0]["hands"], again["rules"][0]["skipped"]) == (0, 1)
    # The native row (the fpdb hand's Pineapple) was scored by the first run: already scored, not 0.
    assert (again["rules"][1]["key"], again["rules"][1]["batches"]) == (load_rules("pineapple").key, 0)
    assert again["rules"][1]["skipped"] == 1
    other = json.loads(runner.invoke(app, ["rescore", "--lake", str(lake), "-r", "taiwanese", "--json"]).stdout)
    assert {r["rules"]: r["skipped"] for r in other["rules"]} == {"taiwanese": 0, "ofc": 1, "pineapple": 1}
    forced = json.loads(runner.invoke(app, ["rescore", "--lake", str(lake), "-r", "ofc", "--json", "--force"]).stdout)
    assert forced["rules"][0]["hands"] == hands
    assert forced["rules"][0]["lake"]["hands"] == hands  # replaced, not added


def test_sql_lists_the_recorded_mismatches(lake: Path) -> None:
    assert runner.invoke(app, ["rescore", "--lake", str(lake), "-r", "ofc"]).exit_code == 0
    result = runner.invoke(app, ["sql", "--lake", str(lake), "--json", "SELECT * FROM recorded_mismatches"])
    assert result.exit_code == 0, result.output
    rows = [json.loads(line) for line in result.stdout.splitlines()]
    assert [(r["hand_id"], r["player"], r["recorded_points"], r["rescored_points"]) for r in rows] == [
        ("E3-recorded", "B", -3, -2),
        ("E3-recorded", "A", 3, 2),
    ]
    counts = runner.invoke(app, ["sql", "--lake", str(lake), "--csv", "SELECT count(*) FROM pair_results"])
    assert counts.stdout.splitlines()[1] != "0"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["-r", "no-such-rules"], "no-such-rules: no such preset or file"),
        (["-r", "{bad}"], "bad.toml: scoring.row_value"),
        (["-r", "{broken}"], "broken.toml: not valid TOML"),
    ],
)
def test_bad_rules_are_one_line_and_exit_2(lake: Path, tmp_path: Path, args: list[str], message: str) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text('extends = "ofc"\n[scoring]\nrow_value = -1\n')
    broken = tmp_path / "broken.toml"
    broken.write_text("name = [\n")
    args = [a.format(bad=bad, broken=broken) for a in args]
    result = runner.invoke(app, ["rescore", "--lake", str(lake), *args])
    assert result.exit_code == 2
    assert message in result.output
    assert len(result.output.strip().splitlines()) == 1
    assert "Traceback" not in result.output


def test_not_a_lake_and_an_unusable_name_exit_2(tmp_path: Path, lake: Path) -> None:
    result = runner.invoke(app, ["rescore", "--lake", str(tmp_path / "nothing-here")])
    assert result.exit_code == 2
    assert "not a lake" in result.output
    assert not (tmp_path / "nothing-here").exists()
    odd = tmp_path / "odd.toml"
    odd.write_text('extends = "ofc"\nname = "a/b"\n')
    result = runner.invoke(app, ["rescore", "--lake", str(lake), "-r", str(odd)])
    assert result.exit_code == 2
    assert "cannot name a lake folder" in result.output


def test_results_of_an_older_version_are_scored_again_saying_how_many(lake: Path) -> None:
    assert runner.invoke(app, ["rescore", "--lake", str(lake), "-r", "ofc"]).exit_code == 0
    for manifest in (lake / "_manifests").glob("*.json"):
        doc = json.loads(manifest.read_text())
        if doc["kind"] == "rescore":
            doc["format"] = 5  # the wide results every rule set repeated the facts in
            manifest.write_text(json.dumps(doc))
    report = runner.invoke(app, ["report", "--lake", str(lake), "--out", str(lake.parent / "r.html")])
    assert report.exit_code == 2
    assert f"ofc rescore --lake {lake} scores them again" in report.stderr
    result = runner.invoke(app, ["rescore", "--lake", str(lake)])
    assert result.exit_code == 0, result.output
    assert re.search(
        r"older version are scored again: [\d,]+ hands under \d+ rule sets?, (under a second|about)", result.stderr
    )
    assert runner.invoke(app, ["report", "--lake", str(lake), "--out", str(lake.parent / "r.html")]).exit_code == 0
