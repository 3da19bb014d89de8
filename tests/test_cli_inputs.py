"""Input errors the command line refuses in one clear line, and every history format ``ofc score`` reads."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ofc.pipeline.atomic_files import written
from ofc.pipeline.cli import app
from ofc.pipeline.errors import InputError
from ofc.pipeline.paths import SAMPLES

runner = CliRunner()
EXAMPLES = SAMPLES / "worked-examples.jsonl"
SHEET = SAMPLES / "scoresheet" / "club-night.csv"
ARENA = SAMPLES / "poker-arena" / "ofc.jsonl"
GOOD = "Qh Qd 4c / 9s 9h 9c Kd 3h / Ts Js Qs Ks As"


def lines(output: str) -> list[dict]:
    return [json.loads(line) for line in output.splitlines() if line.startswith("{")]


@pytest.mark.parametrize(
    ("board", "said"),
    [
        ("2c 2c 4c / 9s 9h 9c Kd 3h / Ts Js Qs Ks As", "board 2: 2c appears twice (top card 1, top card 2)"),
        ("As Ad 4c / 9s 9h 9c Kd 3h / Ts Js Qs Ks As", "board 2: As appears twice (top card 1, bottom card 5)"),
        ("As As As / As As 9c Kd 3h / Ts Js Qs Ks 2s", "As appears 5 times"),
    ],
)
def test_eval_refuses_a_card_given_twice_naming_it(board: str, said: str) -> None:
    result = runner.invoke(app, ["eval", GOOD, board, "--json"])
    assert result.exit_code == 2  # as a bad card is: input that cannot be used
    assert said in result.output
    assert "fouled" not in result.output
    assert "strength" not in result.output
    assert "[51" not in result.output
    assert "51," not in result.output
    assert "Traceback" not in result.output


def test_score_reads_a_scoresheet_detected_from_its_content() -> None:
    result = runner.invoke(app, ["score", str(SHEET), "--json"])
    assert result.exit_code == 0, result.output
    scored = lines(result.stdout)
    assert len(scored) == len({row.split(",")[1] for row in SHEET.read_text().splitlines()[1:]})
    assert "not valid JSON" not in result.stderr
    assert scored[0]["hand_id"] == "1"
    assert sum(scored[0]["points"].values()) == 0
    forced = runner.invoke(app, ["score", str(SHEET), "--format", "scoresheet", "--json"])
    assert lines(forced.stdout) == scored


def test_score_reads_every_format_ingest_reads(tmp_path: Path) -> None:
    arena = runner.invoke(app, ["score", str(ARENA), "-f", "poker-arena", "--json"])
    assert arena.exit_code == 0, arena.output
    assert lines(arena.stdout)
    packed = tmp_path / "sheet.csv.gz"
    packed.write_bytes(gzip.compress(SHEET.read_bytes()))
    assert lines(runner.invoke(app, ["score", str(packed), "--json"]).stdout) == lines(
        runner.invoke(app, ["score", str(SHEET), "--json"]).stdout
    )
    piped = runner.invoke(app, ["score", "-", "--json"], input=SHEET.read_bytes())
    assert piped.exit_code == 0, piped.output
    assert lines(piped.stdout) == lines(runner.invoke(app, ["score", str(SHEET), "--json"]).stdout)
    assert runner.invoke(app, ["score", str(SHEET), "--format", "nope"]).exit_code == 2


def test_score_names_a_bad_record_of_any_format_by_its_line(tmp_path: Path) -> None:
    rows = SHEET.read_text().splitlines()
    rows[1] = rows[1].replace("Qh Qd 4c", "Qh Qd 4x")
    sheet = tmp_path / "sheet.csv"
    sheet.write_text("\n".join(rows) + "\n")
    result = runner.invoke(app, ["score", str(sheet), "--json"])
    assert result.exit_code == 0
    assert f"{sheet} line 2" in result.stderr
    assert "'4x'" in result.stderr
    assert "1 record(s) skipped" in result.stderr
    as_jsonl = runner.invoke(app, ["score", str(sheet), "--format", "jsonl"])
    assert as_jsonl.exit_code == 1  # read as JSON lines, a scoresheet holds no hand
    assert "not valid JSON" in as_jsonl.stderr


def test_written_makes_missing_folders_and_refuses_a_folder(tmp_path: Path) -> None:
    target = tmp_path / "missing" / "dir" / "r.html"
    with written(target) as stream:
        stream.write(b"<html>")
    assert target.read_bytes() == b"<html>"
    with pytest.raises(InputError, match="is a folder"), written(tmp_path) as stream:
        stream.write(b"x")
    blocker = tmp_path / "file"
    blocker.write_text("")
    with pytest.raises(InputError, match="cannot write"), written(blocker / "r.html") as stream:
        stream.write(b"x")


def test_simulate_out_into_a_missing_folder(tmp_path: Path) -> None:
    out = tmp_path / "new" / "hands.jsonl"
    args = ["simulate", "--variant", "ofc", "--bots", "random", "--hands", "4", "-o", str(out), "--json"]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    assert len(out.read_text().splitlines()) == 4


def test_score_skips_a_record_of_an_unknown_variant_and_scores_the_rest(tmp_path: Path) -> None:
    example = (SAMPLES / "worked-examples.jsonl").read_text(encoding="utf-8").splitlines()[0]
    bad = tmp_path / "hands.jsonl"
    bad.write_text(json.dumps({"hand_id": "x", "variant": "ofcc", "players": []}) + "\n" + example + "\n")
    result = runner.invoke(app, ["score", str(bad), "--json"])
    assert result.exit_code == 0, result.output
    assert "line 1 (hand x): variant: unknown variant 'ofcc'; did you mean 'ofc'?" in result.stderr
    assert [json.loads(line)["hand_id"] for line in result.stdout.splitlines()] == ["E1"]
