from __future__ import annotations

import json
import subprocess
import sys

import pytest
from typer.testing import CliRunner

from pipeline import __version__
from pipeline.cli import app

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


def test_demo_json_small() -> None:
    result = runner.invoke(app, ["demo", "--json", "--boards", "20000"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["examples"]["E1/A"]["bottom"]["hand"] == "royal flush"
    assert data["examples"]["E2/A"]["fouled"] is True
    assert data["random"]["boards"] == 20000
    # A random placement fouls most of the time; far from 0 and from 1.
    assert 0.5 < data["random"]["foul_rate"] < 0.95
    middle = data["random"]["category_share"]["middle"]
    assert middle["pair"] == pytest.approx(0.4226, abs=0.02)


def test_console_script_has_no_traceback() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "pipeline", "eval", "not a board"], capture_output=True, text=True, check=False
    )
    assert proc.returncode == 2
    assert "error:" in proc.stderr
    assert "Traceback" not in proc.stderr + proc.stdout
