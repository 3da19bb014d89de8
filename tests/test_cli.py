from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ofc.pipeline import __version__
from ofc.pipeline.cli import app

runner = CliRunner()
E1_A = "Qh Qd 4c / 9s 9h 9c Kd 3h / Ts Js Qs Ks As"
E2_A = "Kh Kd 3c / Qs Qc 8d 7s 2h / Ah As 9c 5d 4h"


def test_version() -> None:
    result = runner.invoke(app, ["--version"])
    assert result.exit_code == 0
    assert result.output.strip() == f"ofc-analytics {__version__}"


@pytest.mark.parametrize("args", [["--help"], ["eval", "--help"], ["demo", "--help"]])
def test_help_everywhere(args: list[str]) -> None:
    result = runner.invoke(app, args)
    assert result.exit_code == 0
    assert "Usage" in result.output


def test_eval_json() -> None:
    result = runner.invoke(app, ["eval", "--json", E1_A, E2_A])
    assert result.exit_code == 0, result.output
    boards = json.loads(result.output)
    assert [b["fouled"] for b in boards] == [False, True]
    assert boards[0]["bottom"] == {
        "cards": ["Ts", "Js", "Qs", "Ks", "As"],
        "hand": "royal flush",
        "category": "royal flush",
        "strength": 7916,
    }
    assert boards[0]["top"]["category"] == "pair"
    assert boards[1]["top"]["strength"] > boards[1]["middle"]["strength"]


def test_eval_table() -> None:
    result = runner.invoke(app, ["eval", E2_A])
    assert result.exit_code == 0
    assert "fouled" in result.output
    assert "pair of kings" in result.output


def test_eval_bad_card_is_a_usage_error_naming_the_token() -> None:
    result = runner.invoke(app, ["eval", "Qh Qd 4x / 9s 9h 9c Kd 3h / Ts Js Qs Ks As"])
    assert result.exit_code == 2
    assert "'4x'" in result.output
    assert "top row" in result.output
    assert "Traceback" not in result.output


def test_demo_json(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OFC_LAKE", str(tmp_path / "default-lake"))
    monkeypatch.setenv("OFC_OUT", str(tmp_path / "default-out"))
    where = ["--lake", str(tmp_path / "lake"), "-o", str(tmp_path / "out" / "new" / "report.html")]
    result = runner.invoke(app, ["demo", *where, "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    simulated = {s["variant"]: s for s in data["simulate"]}
    assert set(simulated) == {"pineapple", "classic"}
    for s in simulated.values():
        assert s["output"]["accepted"] == s["hands"] > 0
        assert s["output"]["quarantined"] == 0
    ingested = data["ingest"]["total"]
    assert ingested["balanced"]
    assert ingested["accepted"] == ingested["read"] >= 14  # every sample history goes in
    lake_hands = sum(s["hands"] for s in simulated.values()) + ingested["accepted"]
    rescored = {r["rules"]: r for r in data["rescore"]["rules"]}
    assert len(rescored) >= 4
    assert all(r["lake"]["hands"] == lake_hands for r in rescored.values())
    assert data["example_points"]["E1/A"]["ofc"] == 24
    assert data["example_points"]["E3/A"]["classic-2-4"] == 3
    assert data["example_points"]["E4/P1"]["taiwanese"] == 24  # scoops both: 3 rows x2 x2 against each
    assert data["examples"]["E2/A"]["fouled"] is True
    report = Path(data["report"]["path"])
    assert report == tmp_path / "out" / "new" / "report.html"  # its folders made
    assert data["lake"] == str(tmp_path / "lake")
    assert not (tmp_path / "default-lake").exists()
    assert not (tmp_path / "default-out").exists()
    assert "plotly" in report.read_text(encoding="utf-8")
    assert data["report"]["headline"]["Overview"]["hands, all games"] == f"{lake_hands:,}"
    assert {"Classic", "Pineapple"} <= set(data["report"]["headline"])  # a part per game
    assert not [k for k in data["report"]["headline"]["Classic"] if "Fantasyland" in k or "Decisions" in k]
    assert data["analyse"]["hands"] == simulated["pineapple"]["hands"]
    assert data["analyse"]["decisions"] > 4 * data["analyse"]["hands"]  # five a hand, or one in Fantasyland
    assert "Decisions: points lost: points lost per hand, all players" in data["report"]["headline"]["Pineapple"]
    # A second run adds nothing and scores nothing new.
    again = json.loads(runner.invoke(app, ["demo", *where, "--json"]).output)
    assert all(s["output"]["accepted"] == 0 for s in again["simulate"])
    assert again["ingest"]["total"]["accepted"] == 0
    assert all(r["hands"] == 0 for r in again["rescore"]["rules"])
    assert again["analyse"]["hands"] == 0


def test_console_script_has_no_traceback() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "ofc", "eval", "not a board"], capture_output=True, text=True, check=False
    )
    assert proc.returncode == 2
    assert "error:" in proc.stderr
    assert "Traceback" not in proc.stderr + proc.stdout
