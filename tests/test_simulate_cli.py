"""``ofc simulate``: usage errors, the summary, and hands that reach the lake or JSONL through the ingest checks."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow as pa
import pytest
from typer.testing import CliRunner

from ofc.pipeline.cli import app
from ofc.pipeline.ingest.ingest_run import ingest
from ofc.pipeline.lake.store import Lake
from ofc.pipeline.rules.files import load_rules
from ofc.pipeline.simulate.views import DEFAULT_ROLLOUTS

runner = CliRunner()
BASE = ["simulate", "--variant", "pineapple", "--players", "3", "--bots", "mc,heuristic,random", "--rollouts", "4"]


def simulate(*args: str) -> dict:
    result = runner.invoke(app, [*BASE, *args, "--json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def lake_rows(lake: Lake) -> dict[str, list[dict]]:
    """The hands, boards and placements of a lake, without what depends on the batch or the input file."""
    out = {}
    for table in ("hands", "boards", "placements"):
        t: pa.Table = lake.read(table)
        keep = [c for c in t.column_names if c not in ("batch", "source_file", "source_line")]
        rows = t.select(keep).to_pylist()
        out[table] = sorted(rows, key=lambda r: json.dumps(r, sort_keys=True, default=str))
    return out


def test_help_names_every_bot_and_option() -> None:
    result = runner.invoke(app, ["simulate", "--help"])
    assert result.exit_code == 0
    text = " ".join(result.output.split())
    for word in ("--variant", "--players", "--hands", "--bots", "--rules", "--seed", "--rollouts", "--lake", "--out"):
        assert word in text
    for bot in ("random:", "heuristic:", "planner:", "mc:"):
        assert bot in text
    assert f"(default {DEFAULT_ROLLOUTS})" in text


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--variant", "pineapple", "--players", "4"], "at most 3 players"),
        (["--variant", "ofc", "--players", "5"], "2 to 4"),
        (["--variant", "ofc", "--bots", "heuristic,clever"], "unknown bot 'clever'"),
        (["--variant", "ofc", "--rules", "pineapple"], "are for pineapple, not ofc"),
        (["--variant", "omaha"], "--variant: no variant 'omaha'"),
        (["--variant", "ofc", "--rules", "no-such-preset"], "no such preset"),
        (["--variant", "ofc", "--lake", "x", "--out", "y.jsonl"], "not both"),
        (["--variant", "ofc", "--start", "yesterday"], "not an ISO time"),
        (["--variant", "ofc", "--hands", "0"], "at least 1"),
    ],
)
def test_bad_arguments_are_usage_errors_without_a_traceback(args: list[str], message: str, tmp_path: Path) -> None:
    result = runner.invoke(app, ["simulate", *args, "--hands" if "--hands" not in args else "--seed", "10"])
    assert result.exit_code == 2, result.output
    assert message in " ".join(result.output.split())
    assert "Traceback" not in result.output


def test_to_the_lake_with_nothing_quarantined_and_a_summary_per_bot(tmp_path: Path) -> None:
    lake = Lake(tmp_path / "lake")
    data = simulate("--hands", "150", "--seed", "3", "--lake", str(lake.root))
    assert data["output"]["accepted"] == 150
    assert data["output"]["quarantined"] == data["output"]["duplicates"] == 0
    assert [r["bot"] for r in data["summary"]] == ["mc", "heuristic", "random"]
    for row in data["summary"]:
        assert row["hands"] == 150
        lo, hi = row["ci95"]
        assert lo <= row["points_per_hand"] <= hi
        assert 0 <= row["foul_rate"] <= 1
        assert 0 <= row["fantasyland_rate"] <= 1
    assert sum(r["points_per_hand"] for r in data["summary"]) == pytest.approx(0, abs=1e-9)
    rows = lake_rows(lake)
    assert len(rows["hands"]) == 150
    assert len(rows["boards"]) == 450
    assert len(rows["placements"]) == sum(
        17 if not b["fantasyland"] else b["fantasyland_cards"] for b in rows["boards"]
    )
    assert {h["source"] for h in rows["hands"]} == {"simulator"}
    assert {h["house_rules"] for h in rows["hands"]} == {load_rules("pineapple").key}  # the rules, exactly
    # The same run again adds nothing: every hand is already there.
    again = simulate("--hands", "150", "--seed", "3", "--lake", str(lake.root))
    assert again["output"]["duplicates"] == 150
    assert again["output"]["accepted"] == 0
    table = runner.invoke(app, [*BASE, "--hands", "20", "--seed", "4", "--lake", str(lake.root)])
    assert table.exit_code == 0
    assert "points / hand" in table.output
    assert "accepted 20" in table.output


def test_jsonl_reruns_are_byte_identical_and_ingest_into_the_same_hands(tmp_path: Path) -> None:
    first, second, other = tmp_path / "a.jsonl", tmp_path / "b.jsonl", tmp_path / "c.jsonl"
    simulate("--hands", "120", "--seed", "9", "--out", str(first))
    simulate("--hands", "120", "--seed", "9", "--out", str(second))
    simulate("--hands", "120", "--seed", "10", "--out", str(other))
    assert first.read_bytes() == second.read_bytes()
    assert first.read_bytes() != other.read_bytes()
    assert len(first.read_text().splitlines()) == 120

    from_file = Lake(tmp_path / "from-file")
    report = ingest([first], from_file)
    assert (report.totals.accepted, report.totals.quarantined) == (120, 0)
    direct = Lake(tmp_path / "direct")
    simulate("--hands", "120", "--seed", "9", "--lake", str(direct.root))
    assert lake_rows(from_file) == lake_rows(direct)


@pytest.mark.parametrize(
    "args",
    [
        ["--variant", "classic", "--players", "2", "--bots", "mc,heuristic"],
        ["--variant", "classic", "--players", "4", "--bots", "random", "--rules", "taiwanese"],
        ["--variant", "ofc", "--players", "4", "--bots", "heuristic,random"],
        ["--variant", "progressive-pineapple", "--players", "2", "--bots", "heuristic,planner"],
        ["--variant", "pineapple-27", "--players", "3", "--bots", "mc,random"],
    ],
)
def test_every_variant_reaches_the_lake_whole(args: list[str], tmp_path: Path) -> None:
    result = runner.invoke(
        app, ["simulate", *args, "--hands", "80", "--rollouts", "4", "--lake", str(tmp_path / "l"), "--json"]
    )
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)["output"]
    assert (out["accepted"], out["quarantined"]) == (80, 0)
