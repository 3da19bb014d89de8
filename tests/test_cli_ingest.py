"""``ofc validate`` names every bad record and fails when there is one; ``ofc ingest`` commits nothing when it
read nothing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ofc.pipeline.cli import app
from ofc.pipeline.ingest.ingest_run import ingest
from ofc.pipeline.lake.store import Lake
from ofc.pipeline.paths import SAMPLES

runner = CliRunner()
EXAMPLES = SAMPLES / "worked-examples.jsonl"


def mixed(tmp_path: Path) -> Path:
    """Four records, three of them bad: a line that is not JSON, a bad card, a record without players."""
    good = EXAMPLES.read_text().splitlines()
    bad_card = good[1].replace('"As"', '"Ax"', 1)
    f = tmp_path / "mixed.jsonl"
    f.write_text("\n".join([good[0], "{not json", bad_card, '{"hand_id": "z", "players": []}']) + "\n")
    return f


def test_validate_names_each_bad_record_by_file_line_and_field_and_fails(tmp_path: Path) -> None:
    f = mixed(tmp_path)
    result = runner.invoke(app, ["validate", str(f)])
    assert result.exit_code == 1, result.output
    lines = result.stdout.splitlines()
    assert lines[0].startswith(f"{f}:2: not valid JSON")
    field = json.loads(EXAMPLES.read_text().splitlines()[1])
    where = next(
        f"players[{i}].{row}[{j}]"
        for i, p in enumerate(field["players"])
        for row in ("top", "middle", "bottom")
        for j, c in enumerate(p[row])
        if c == "As"
    )
    assert lines[1] == f"{f}:3: {where}: not a card: 'Ax'"
    assert lines[2].startswith(f"{f}:4: ")
    assert "3 of 4 records are bad, in 1 of 1 file(s)" in result.stdout


def test_validate_json_is_the_same_for_machines(tmp_path: Path) -> None:
    f = mixed(tmp_path)
    result = runner.invoke(app, ["validate", str(f), "--json"])
    assert result.exit_code == 1
    data = json.loads(result.stdout)
    assert data["total"]["quarantined"] == 3
    problems = data["problems"]
    assert [p["line"] for p in problems] == [2, 3, 4]
    assert {p["file"] for p in problems} == {str(f)}
    assert problems[0]["field"] is None
    assert problems[1]["field"].startswith("players[")
    assert problems[1]["reason"] == "not a card: 'Ax'"
    assert problems[1]["hand_id"] == "E2"
    assert data["problems_not_listed"] == 0


def test_validate_exit_codes(tmp_path: Path) -> None:
    good = runner.invoke(app, ["validate", str(EXAMPLES)])
    assert good.exit_code == 0
    assert "no bad records: 4 would be accepted" in good.stdout
    assert runner.invoke(app, ["validate", str(tmp_path / "missing.jsonl")]).exit_code == 2
    assert runner.invoke(app, ["validate", str(EXAMPLES), "--format", "nope"]).exit_code == 2
    assert runner.invoke(app, ["validate", str(EXAMPLES), "--lake", str(tmp_path)]).exit_code == 2  # not a lake


def test_validate_against_a_lake_tells_duplicates_and_conflicts(tmp_path: Path) -> None:
    lake = Lake(tmp_path / "lake")
    ingest([EXAMPLES], lake)
    changed = [json.loads(line) for line in EXAMPLES.read_text().splitlines()]
    changed[0]["players"][0]["name"] = "Zed"  # the same hand id in the same session, other content
    f = tmp_path / "again.jsonl"
    f.write_text("\n".join(json.dumps(r) for r in changed) + "\n")
    alone = json.loads(runner.invoke(app, ["validate", str(f), "--json"]).stdout)
    assert alone["total"]["accepted"] == 4
    result = runner.invoke(app, ["validate", str(f), "--lake", str(lake.root), "--json"])
    assert result.exit_code == 1
    data = json.loads(result.stdout)
    assert (data["total"]["duplicates"], data["total"]["quarantined"]) == (3, 1)
    (problem,) = data["problems"]
    assert problem["line"] == 1
    assert "imported before" in problem["reason"]
    assert len(Lake(lake.root).manifests()) == 1  # nothing written


@pytest.mark.parametrize("content", ["", "\n\n", "hello, not a history\n"], ids=["empty", "blank", "unrecognised"])
def test_ingest_of_nothing_readable_commits_nothing(tmp_path: Path, content: str) -> None:
    lake = Lake(tmp_path / "lake")
    ingest([EXAMPLES], lake)
    before = lake.manifests()
    f = tmp_path / "nothing.jsonl"
    f.write_text(content)
    result = runner.invoke(app, ["ingest", str(f), "--lake", str(lake.root), "--json"])
    assert result.exit_code == 1
    assert json.loads(result.stdout)["batch"] is None
    assert "nothing was committed" in result.stderr
    assert lake.manifests() == before
    batches = runner.invoke(app, ["sql", "SELECT count(*) AS n FROM batches", "--lake", str(lake.root), "--json"])
    assert json.loads(batches.stdout) == {"n": 1}


def test_ingest_of_an_empty_file_or_folder_into_a_new_lake_commits_nothing(tmp_path: Path) -> None:
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    (tmp_path / "nothing-here").mkdir()
    for path in (empty, tmp_path / "nothing-here"):
        result = runner.invoke(app, ["ingest", str(path), "--lake", str(tmp_path / "lake")])
        assert result.exit_code == 1
        assert "nothing could be read" in result.stderr
        assert "committed batch" not in result.stdout
        assert Lake(tmp_path / "lake").manifests() == []
    assert "empty file" in runner.invoke(app, ["ingest", str(empty), "--lake", str(tmp_path / "lake")]).stderr


def test_an_ingest_whose_every_record_is_quarantined_still_commits(tmp_path: Path) -> None:
    f = tmp_path / "bad.jsonl"
    good = EXAMPLES.read_text().splitlines()
    f.write_text("\n".join(line.replace('"As"', '"Ax"') for line in good if '"As"' in line) + "\n")
    result = runner.invoke(app, ["ingest", str(f), "--lake", str(tmp_path / "lake"), "--json"])
    summary = json.loads(result.stdout)
    assert summary["total"]["accepted"] == 0 < summary["total"]["quarantined"]
    assert summary["batch"] is not None
    assert result.exit_code == 0
    (manifest,) = Lake(tmp_path / "lake").manifests()
    assert manifest["summary"]["quarantined"] == summary["total"]["quarantined"]
