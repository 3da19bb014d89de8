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
    assert f"{sheet}:2 (hand 1, Ann), column top: not a card: '4x'" in result.stderr  # as ofc validate says it
    assert "1 record(s) skipped" in result.stderr
    as_jsonl = runner.invoke(app, ["score", str(sheet), "--format", "jsonl"])
    assert as_jsonl.exit_code == 1  # read as JSON lines, a scoresheet holds no hand
    assert "not valid JSON" in as_jsonl.stderr


def _typed_wrong(tmp_path: Path) -> list[Path]:
    """A club's sheet and a JSONL file with the faults people type: a card that is no card, a short row, a card
    given twice, a misspelt variant, a line that is not JSON."""
    rows = SHEET.read_text().splitlines()
    rows[1] = rows[1].replace("Qh Qd 4c", "Qh Qd 4x")
    rows[5] = rows[5].replace("Ac Kd 5h", "Ac Kd Ac")
    rows[7] = rows[7].replace("Ks Kc 2d", "Ks Kc")
    sheet = tmp_path / "club.csv"
    sheet.write_text("\n".join(rows) + "\n")
    good = (SAMPLES / "worked-examples.jsonl").read_text().splitlines()
    typed = [
        good[0].replace('"As"]', '"Ax"]'),
        "{not json",
        good[1].replace('"variant": "ofc"', '"variant": "ofcc"'),
        good[2].replace('"7c", ', ""),
        good[3],
    ]
    jsonl = tmp_path / "hands.jsonl"
    jsonl.write_text("\n".join(typed) + "\n")
    return [sheet, jsonl]


def test_score_and_validate_reject_the_same_records_for_the_same_reasons(tmp_path: Path) -> None:
    """One validator: ``ofc score`` skips exactly the records ``ofc validate`` quarantines, each fault said the same
    way at the same place (the recorded points aside: see the next test)."""
    for path in _typed_wrong(tmp_path):
        checked = json.loads(runner.invoke(app, ["validate", str(path), "--json"]).stdout)
        said = [f"{p['where']}: {p['reason']}" for p in checked["problems"]]
        scored = runner.invoke(app, ["score", str(path), "--json"])
        assert scored.exit_code == 0, scored.output
        skipped = [line for line in scored.stderr.splitlines() if line.startswith(str(path))]
        assert len(said) >= 3
        assert skipped == said
        assert len(lines(scored.stdout)) == checked["total"]["accepted"]


def test_score_settles_a_hand_whose_recorded_points_do_not_add_up() -> None:
    """Points a sheet says were paid are not read by scoring: a hand whose points do not add up is quarantined by
    ``ofc validate`` and scored by ``ofc score``, as it would be once corrected."""
    sheet = Path(__file__).parent / "data" / "scoresheets" / "scores-off.csv"
    checked = json.loads(runner.invoke(app, ["validate", str(sheet), "--json"]).stdout)
    off = {p["hand_id"] for p in checked["problems"] if "sum to" in p["reason"]}
    assert off
    scored = runner.invoke(app, ["score", str(sheet), "--json"])
    assert scored.exit_code == 0, scored.output
    assert off <= {r["hand_id"] for r in lines(scored.stdout)}
    assert all(sum(r["points"].values()) == 0 for r in lines(scored.stdout))


def test_a_fault_at_line_100_is_said_as_its_line(tmp_path: Path) -> None:
    """``hands.jsonl:100:`` is a place, not an emoji code (rich would draw ``:100:`` as one)."""
    good = (SAMPLES / "worked-examples.jsonl").read_text().splitlines()[0]
    path = tmp_path / "hands.jsonl"
    path.write_text("\n".join([*[good.replace('"E1"', f'"h{i}"') for i in range(99)], "{not json"]) + "\n")
    scored, checked = (runner.invoke(app, [command, str(path)]) for command in ("score", "validate"))
    assert f"{path}:100: not valid JSON" in scored.stderr  # skipped, beside the scores
    assert f"{path}:100: not valid JSON" in checked.stdout  # the validation's answer


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
    assert f"{bad}:1: variant: unknown 'ofcc'; did you mean 'ofc'?" in result.stderr
    assert [json.loads(line)["hand_id"] for line in result.stdout.splitlines()] == ["E1"]
