"""Every command's help in plain words, and the options several commands share said the same way everywhere."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import typer.main
from typer.testing import CliRunner

from ofc.pipeline.cli import app
from ofc.pipeline.cli.options import FORMATS, JSON_HELP, JSON_LINES_HELP, RULES_HELP, default_lake_said

runner = CliRunner()
PYTHON_TYPES = re.compile(r"<bool>|<int|<str>|<float>|<path>|list\[|Path\b|range\]|\[x[<>]=|<[a-z]+>")
"""What typer shows of a parameter's Python type, which a help for people should not."""


ROOT = Path(__file__).resolve().parents[1]


def commands() -> Iterator[tuple[list[str], Any]]:
    """Every command and group of ``ofc``, as the words that name it and its click object."""

    def walk(path: list[str], command: Any) -> Iterator[tuple[list[str], Any]]:
        yield path, command
        for name, sub in sorted(getattr(command, "commands", {}).items()):
            yield from walk([*path, name], sub)

    yield from walk([], typer.main.get_command(app))


ALL = [path for path, _ in commands()]
LEAVES = [path for path, command in commands() if not getattr(command, "commands", None)]


def test_every_command_is_walked() -> None:
    names = {" ".join(p) for p in ALL}
    for name in ("", "ingest", "validate", "sql", "score", "rules", "rules show", "lake", "lake files", "demo"):
        assert name in names


@pytest.mark.parametrize("path", ALL, ids=lambda p: " ".join(p) or "ofc")
def test_help_shows_plain_words_not_python_types(path: list[str]) -> None:
    result = runner.invoke(app, [*path, "--help"], env={"COLUMNS": "300"})
    assert result.exit_code == 0, result.output
    assert "Usage" in result.output
    assert PYTHON_TYPES.findall(result.output) == []


def test_value_options_show_the_word_of_their_value() -> None:
    text = " ".join(runner.invoke(app, ["quarantine", "--help"], env={"COLUMNS": "300"}).output.split())
    assert "--lake DIR" in text
    assert "--limit N" in text
    assert "--json Machine output" in text  # a flag: no word
    usage = runner.invoke(app, ["ingest", "--help"], env={"COLUMNS": "300"}).output
    assert re.search(r"Usage: ofc ingest \[OPTIONS\] PATH\.\.\.\s", usage)
    assert "PATH...." not in usage


def options() -> Iterator[tuple[str, Any]]:
    for path, command in commands():
        for param in command.params:
            yield " ".join(path), param


def test_lake_is_the_same_option_wherever_the_lake_is_read_or_written() -> None:
    having = {name for name, p in options() if "--lake" in p.opts}
    expected = {"ingest", "validate", "quarantine", "sql", "report", "score", "rescore", "simulate", "demo", "lake"}
    expected |= {"lake remove", "lake vacuum", "lake files"}
    assert expected - {"score"} <= having  # ofc score reads files, not the lake
    for name, p in options():
        if "--lake" in p.opts:
            assert p.metavar == "DIR", name
            # validate checks against a lake only when one is named; every other command has the same default
            assert default_lake_said() in p.help or name == "validate", name


def test_the_default_lake_is_said_by_its_folder_in_the_help_and_first_line(tmp_path: Path) -> None:
    """From a checkout the default lake is the checkout's data/lake whatever the current folder: the help names
    that folder, and a command reading the default says which folder it read in its first line (stderr)."""
    env = {k: v for k, v in os.environ.items() if k != "OFC_LAKE"}
    env["PYTHONPATH"] = str(ROOT)
    folder = str(ROOT / "data" / "lake")
    helped = subprocess.run(
        [sys.executable, "-m", "ofc", "sql", "--help"], cwd=tmp_path, env=env, capture_output=True, text=True
    )
    assert folder in " ".join(helped.stdout.replace("│", " ").split()), helped.stdout
    env["OFC_LAKE"] = str(tmp_path / "nowhere")
    ran = subprocess.run(
        [sys.executable, "-m", "ofc", "sql", "select 1"], cwd=tmp_path, env=env, capture_output=True, text=True
    )
    first = ran.stderr.splitlines()[0]
    assert first == f"lake: {tmp_path / 'nowhere'} (from $OFC_LAKE); --lake DIR for another", ran.stderr
    told = subprocess.run(
        [sys.executable, "-m", "ofc", "sql", "select 1", "--lake", str(tmp_path / "x")],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
    )
    assert "lake:" not in told.stderr  # a lake given is not said again


@pytest.mark.parametrize(
    ("option", "taken_by", "metavar"),
    [("--player", {"analyse", "report"}, "NAME"), ("--seed", {"analyse", "simulate", "demo"}, "N"),
     ("--rollouts", {"analyse", "simulate"}, "N")],
)  # fmt: skip
def test_player_seed_and_rollouts_are_one_option_wherever_taken(option: str, taken_by: set[str], metavar: str) -> None:
    """Declared once (``cli/options.py``): the same name, value name and bounds in every command."""
    having = {name: p for name, p in options() if option in p.opts}
    assert taken_by <= set(having)
    for name, p in having.items():
        assert p.metavar == metavar, name
        if option != "--player":
            below = "-1" if option == "--seed" else "1"
            result = runner.invoke(app, [*name.split(), option, below])
            assert result.exit_code == 2, (name, result.output)
            said = " ".join(result.output.replace("│", " ").split())
            assert f"Invalid value for '{option}': Input should be greater than or equal to {int(below) + 1}" in said


def test_rules_is_repeatable_with_its_short_name_wherever_rules_are_taken() -> None:
    taking = {name for name, p in options() if "--rules" in p.opts}
    assert {"score", "rescore", "simulate", "report"} <= taking
    for name, p in options():
        if "--rules" in p.opts:
            assert "-r" in p.opts, name
            assert p.multiple, name
            assert p.metavar == "RULES", name
            assert "rule file" in p.help, name
    score = next(p for name, p in options() if name == "score" and "--rules" in p.opts)
    assert score.help.startswith(RULES_HELP)


def test_json_out_and_format_mean_one_thing_everywhere() -> None:
    taking = {opt: {name for name, p in options() if opt in p.opts} for opt in ("--json", "--out", "--format")}
    assert {"ingest", "validate", "sql", "score", "rescore", "simulate", "report", "analyse"} <= taking["--json"]
    assert {"report", "simulate", "demo"} <= taking["--out"]
    assert {"ingest", "validate", "score"} <= taking["--format"]
    for name, p in options():
        if "--json" in p.opts:
            assert p.help.startswith("Machine output: what the command prints, as "), name
            assert p.help in (JSON_HELP, JSON_LINES_HELP) or name == "sql", name
        if "--out" in p.opts:
            assert "-o" in p.opts, name
            assert p.metavar == "FILE", name
        if "--format" in p.opts:
            assert "-f" in p.opts, name
            assert p.metavar == "FORMAT", name
    with_json = {name for name, p in options() if "--json" in p.opts}
    assert {" ".join(p) for p in LEAVES} <= with_json
    assert {name for name, p in options() if "--format" in p.opts} == {"ingest", "validate", "score"}
    assert {name for name, p in options() if "--out" in p.opts} >= {"report", "simulate", "demo"}


def test_the_formats_named_in_help_are_the_ones_ingest_reads() -> None:
    from ofc.pipeline.ingest.formats import FORMATS as READ

    assert tuple(READ) == FORMATS


def test_simulate_refuses_two_rule_sets() -> None:
    args = ["simulate", "--variant", "ofc", "--hands", "2", "-r", "ofc", "-r", "classic-2-4"]
    result = runner.invoke(app, args)
    assert result.exit_code == 2
    assert "one rule set, got 2 (ofc, classic-2-4)" in result.output


def test_rules_take_a_file_wherever_they_take_a_name(tmp_path: Path) -> None:
    house = tmp_path / "house.toml"
    house.write_text('extends = "ofc"\n[scoring]\nscoop_bonus = 0\n')
    shown = runner.invoke(app, ["rules", "show", str(house), "--json"])
    assert shown.exit_code == 0, shown.output
    data = json.loads(shown.stdout)
    assert data["name"] == "house"
    assert data["resolved"]["scoring"]["scoop_bonus"] == 0
    assert 'extends = "ofc"' in data["toml"]
    checked = runner.invoke(app, ["rules", "validate", "ofc", str(house)])
    assert checked.exit_code == 0
    assert "ok ofc:" in checked.stdout
    bad = runner.invoke(app, ["rules", "show", str(tmp_path / "missing.toml")])
    assert bad.exit_code == 2
    assert "missing.toml: no such file" in bad.output
