"""A misspelt name is an error naming the name it was likely meant to be: a rule set, a key or value of a rule
file at any depth, a variant on every command that takes one, a workbook's sheet."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from ofc.pipeline.cli import app
from ofc.pipeline.ingest.ingest_run import ingest
from ofc.pipeline.lake.store import Lake
from ofc.pipeline.paths import SAMPLES
from ofc.pipeline.suggest import closest_names, no_such

runner = CliRunner()
EXAMPLES = SAMPLES / "worked-examples.jsonl"
WORKBOOK = SAMPLES / "workbook" / "club-league.xlsx"


@pytest.fixture(scope="module")
def lake(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("did-you-mean") / "lake"
    ingest([SAMPLES / "scoresheet" / "club-night.csv"], Lake(root))
    return root


def _fails(args: list[str], hint: str, code: int = 2) -> str:
    result = runner.invoke(app, args)
    assert result.exit_code == code, result.output
    assert hint in " ".join(result.output.split()), result.output
    assert "Traceback" not in result.output
    return result.output


def test_names_far_from_the_closest_are_not_offered() -> None:
    assert closest_names("pinapple", ["classic", "ofc", "pineapple", "progressive-pineapple", "pineapple-27"]) == [
        "pineapple"
    ]
    assert closest_names("Pineaple", ["pineapple", "ofc"]) == ["pineapple"]
    assert closest_names("zzz", ["pineapple", "ofc"]) == []
    assert no_such("engine", "rey", ["local", "ray"]) == "no engine 'rey'; did you mean 'ray'? (engines: local, ray)"


@pytest.mark.parametrize(
    "command",
    [
        ["score", str(EXAMPLES)],
        ["simulate", "--variant", "pineapple", "--hands", "2"],
        ["rescore", "--lake", "LAKE"],
    ],
    ids=["score", "simulate", "rescore"],
)
def test_a_misspelt_rule_set_names_the_preset(command: list[str], lake: Path) -> None:
    args = [str(lake) if a == "LAKE" else a for a in command]
    output = _fails([*args, "-r", "pineaple"], "pineaple: no such preset or file; did you mean 'pineapple'? (presets:")
    assert "classic-2-4" in output  # and every preset after it


@pytest.mark.parametrize(
    ("body", "path", "said"),
    [
        ("[scoring]\nscoop_bonsu = 3\n", "scoring.scoop_bonsu", "unknown key; did you mean 'scoop_bonus'?"),
        ("[fantasylnd]\nenabled = false\n", "fantasylnd", "unknown key; did you mean 'fantasyland'?"),
        ("[royalties.top]\npairs = 3\n", "royalties.top.pairs", "unknown key; did you mean 'pair'?"),
        (
            "[fantasyland]\nentry = [{ row = 'top', at_least = 'QQ', cards = 14, crads = 1 }]\n",
            "fantasyland.entry.0.crads",
            "unknown key; did you mean 'cards'?",
        ),
        ("[scoring]\nzzzz = 1\n", "scoring.zzzz", "unknown key (keys here: row_value, majority_bonus, scoop_bonus"),
        ("[game]\nvariant = 'pinapple'\n", "game.variant", "(got 'pinapple'); did you mean 'pineapple'?"),
        ("[naturals.values]\ndragn = 3\n", "naturals.values.dragn", "(got 'dragn'); did you mean 'dragon'?"),
    ],
    ids=["key", "table", "nested", "list-item", "far-off", "value", "dict-key"],
)
def test_a_misspelt_key_of_a_rule_file_names_its_path_and_the_closest(
    tmp_path: Path, body: str, path: str, said: str
) -> None:
    house = tmp_path / "house.toml"
    house.write_text('extends = "ofc"\n' + body)
    output = _fails(["score", str(EXAMPLES), "-r", str(house)], said)
    assert f"{house}: {path}: " in " ".join(output.split())


def test_a_misspelt_extends_or_top_level_key_names_the_closest(tmp_path: Path) -> None:
    house = tmp_path / "house.toml"
    house.write_text('extends = "pineaple"\n')
    _fails(["score", str(EXAMPLES), "-r", str(house)], "extends: 'pineaple': no such preset or file; did you mean")
    house.write_text('extend = "ofc"\n')
    _fails(["score", str(EXAMPLES), "-r", str(house)], "extend: unknown key; did you mean 'extends'?")


@pytest.mark.parametrize(
    "command",
    [
        ["ingest", str(EXAMPLES), "--lake", "NEW"],
        ["report", "--lake", "LAKE", "-o", "OUT"],
        ["analyse", "--lake", "LAKE"],
        ["simulate", "--hands", "2"],
        ["sql", "foul_rate", "--lake", "LAKE", "-p", "variant=pinapple"],
    ],
    ids=["ingest", "report", "analyse", "simulate", "sql"],
)
def test_a_misspelt_variant_names_the_closest_everywhere(command: list[str], lake: Path, tmp_path: Path) -> None:
    where = {"LAKE": str(lake), "NEW": str(tmp_path / "new"), "OUT": str(tmp_path / "r.html")}
    args = [where.get(a, a) for a in command]
    if command[0] != "sql":
        args += ["--variant", "pinapple"]
    _fails(args, "no variant 'pinapple'; did you mean 'pineapple'")
    assert not (tmp_path / "new").exists()


def test_a_misspelt_sheet_names_the_closest(tmp_path: Path) -> None:
    # a sheet is looked for once the workbook is open: the file fails (exit 1), as an unreadable file does
    _fails(
        ["ingest", str(WORKBOOK), "--lake", str(tmp_path / "lake"), "--sheet", "Nov 8"],
        "no sheet 'Nov 8'; did you mean '8 Nov'?",
        code=1,
    )
