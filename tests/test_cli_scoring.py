from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ofc.pipeline.cli import app
from ofc.pipeline.paths import SAMPLES
from tests.reference.hands import CRISS_CROSS, MISSET

runner = CliRunner()
EXAMPLES = SAMPLES / "worked-examples.jsonl"


def lines(output: str) -> list[dict]:
    return [json.loads(line) for line in output.splitlines() if line.startswith("{")]


def test_score_json_contract() -> None:
    result = runner.invoke(app, ["score", str(EXAMPLES), "--rules", "ofc", "--json"])
    assert result.exit_code == 0, result.output
    out = {r["hand_id"]: r for r in lines(result.stdout)}
    e1 = out["E1"]
    assert e1["rules"] == "ofc"
    assert e1["points"] == {"A": 24, "B": -24}
    assert e1["boards"]["A"] == {
        "fouled": False,
        "royalties": {"top": 7, "middle": 2, "bottom": 25},
        "fantasyland_next": 13,
    }
    assert e1["boards"]["B"]["royalties"] == {"top": 1, "middle": 4, "bottom": 6}
    assert out["E2"]["points"] == {"A": -16, "B": 16}
    assert out["E2"]["boards"]["A"]["fouled"] is True
    assert out["E4"]["points"] == {"P1": 36, "P2": -17, "P3": -19}


def test_score_several_rule_sets_one_object_per_hand_and_rule_set() -> None:
    args = ["score", str(EXAMPLES), "--rules", "ofc", "--rules", "classic-2-4", "-r", "classic-plain", "--json"]
    result = runner.invoke(app, args)
    assert result.exit_code == 0
    rows = lines(result.stdout)
    assert len(rows) == 4 * 3
    e3 = {r["rules"]: r["points"]["A"] for r in rows if r["hand_id"] == "E3"}
    assert e3 == {"ofc": 2, "classic-2-4": 3, "classic-plain": 2}


def test_score_fantasyland_counts_follow_the_rules() -> None:
    for rules, cards in (("ofc", 13), ("pineapple", 14), ("progressive-pineapple", 14)):
        result = runner.invoke(app, ["score", str(EXAMPLES), "--rules", rules, "--json"])
        e1 = next(r for r in lines(result.stdout) if r["hand_id"] == "E1")
        assert e1["boards"]["A"]["fantasyland_next"] == cards
        assert e1["boards"]["B"]["fantasyland_next"] == 0


def test_score_accepts_a_rule_file(tmp_path: Path) -> None:
    house = tmp_path / "house.toml"
    house.write_text('extends = "ofc"\n[scoring]\nscoop_bonus = 0\n')
    result = runner.invoke(app, ["score", str(EXAMPLES), "--rules", str(house), "--json"])
    out = {r["hand_id"]: r for r in lines(result.stdout)}
    assert out["E4"]["rules"] == "house"
    assert out["E4"]["points"]["P1"] == 36 - 2 * 3  # no scoop bonus against either opponent


def test_malformed_lines_are_reported_and_skipped(tmp_path: Path) -> None:
    good = EXAMPLES.read_text().splitlines()
    bad_card = good[0].replace('"As"]', '"Ax"]')
    twice = good[1].replace('"7c", "7d"', '"Kh", "7d"')
    f = tmp_path / "mixed.jsonl"
    f.write_text("\n".join([good[0], "{not json", bad_card, '{"hand_id": "z", "players": []}', twice, good[2]]) + "\n")
    result = runner.invoke(app, ["score", str(f), "--json"])
    assert result.exit_code == 0
    assert [r["hand_id"] for r in lines(result.stdout)] == ["E1", "E3"]
    err = result.stderr
    # Each fault as ofc validate and ofc ingest say it: the same validator checked the record.
    assert f"{f}:2: not valid JSON" in err
    assert f"{f}:3: players[0].bottom[4]: not a card: 'Ax'" in err
    assert f"{f}:4: players: a hand has 2 to 4 players, got 0" in err
    assert f"{f}:5: players[1].top[0]: Kh is dealt twice in this hand" in err
    assert "4 record(s) skipped, 2 hand(s) scored" in err


def test_score_table_and_exit_codes(tmp_path: Path) -> None:
    result = runner.invoke(app, ["score", str(EXAMPLES)])
    assert result.exit_code == 0
    assert "+24" in result.stdout
    assert "fouled" in result.stdout
    assert runner.invoke(app, ["score", str(tmp_path / "missing.jsonl")]).exit_code == 2
    assert runner.invoke(app, ["score", str(EXAMPLES), "--rules", "no-such-rules"]).exit_code == 2
    empty = tmp_path / "junk.jsonl"
    empty.write_text("junk\n")
    assert runner.invoke(app, ["score", str(empty)]).exit_code == 1


def test_rules_list_show_validate(tmp_path: Path) -> None:
    listed = runner.invoke(app, ["rules", "list", "--json"])
    assert listed.exit_code == 0
    assert len(json.loads(listed.stdout)) == 10
    shown = runner.invoke(app, ["rules", "show", "taiwanese"])
    assert shown.exit_code == 0
    assert 'extends = "classic-plain"' in shown.stdout
    resolved = json.loads(runner.invoke(app, ["rules", "show", "taiwanese", "--resolved"]).stdout)
    assert resolved["scoring"]["scoop_multiplier"] == 2
    assert resolved["royalties"]["settlement"] == "both"
    good = tmp_path / "good.toml"
    good.write_text('extends = "ofc"\n')
    ok = runner.invoke(app, ["rules", "validate", str(good)])
    assert ok.exit_code == 0
    assert "ok" in ok.stdout


@pytest.mark.parametrize(
    ("body", "where"),
    [
        ('extends = "ofc"\n[scoring]\nscoop_bonus = -1\n', "scoring.scoop_bonus"),
        (
            'extends = "ofc"\n[fantasyland]\nentry = [{ row = "top", at_least = "QQ", cards = 99 }]\n',
            "fantasyland.entry.0.cards",
        ),
        ('extends = "ofc"\nbogus = 1\n', "bogus: unknown key"),
    ],
)
def test_rules_validate_names_the_toml_path_without_a_traceback(tmp_path: Path, body: str, where: str) -> None:
    f = tmp_path / "house.toml"
    f.write_text(body)
    result = runner.invoke(app, ["rules", "validate", str(f)])
    assert result.exit_code == 1
    assert where in result.stderr
    assert "Traceback" not in result.output


def test_criss_cross_and_misset_records_are_read(tmp_path: Path) -> None:
    criss_cross, misset = CRISS_CROSS, MISSET  # worked out in tests/reference/hands.py
    misset_ofc = {**misset, "hand_id": "m-ofc", "variant": "ofc"}
    three_with_a_twin = {**criss_cross, "hand_id": "twin", "players": criss_cross["players"][:3]}
    f = tmp_path / "shapes.jsonl"
    f.write_text("\n".join(json.dumps(r) for r in (criss_cross, misset, misset_ofc, three_with_a_twin)) + "\n")
    result = runner.invoke(app, ["score", str(f), "--rules", "ofc", "--rules", "classic-1-6", "--json"])
    assert result.exit_code == 0
    by = {(r["hand_id"], r["rules"]): r for r in lines(result.stdout)}
    assert by[("cc", "ofc")]["points"] == {"A": 97, "B": -97}
    assert by[("m", "classic-1-6")]["points"] == {"X": -6, "Y": 6}
    assert by[("m", "classic-1-6")]["boards"]["X"]["fouled"] is True
    assert f"{f}:3: players[0].top: expected 3 cards, got 4" in result.stderr
    assert f"{f}:4: players[0].name: 'A' appears twice" in result.stderr
    shown = runner.invoke(app, ["score", str(f), "--rules", "ofc"])  # as a table, each board on its row
    assert shown.exit_code == 0, shown.output
    assert "A#0" in shown.stdout
    assert "A#2" in shown.stdout


def _fpdb_database(tmp_path: Path) -> Path:
    import sqlite3

    path = tmp_path / "fpdb.db3"
    with sqlite3.connect(path) as connection:
        connection.executescript((Path(__file__).parent / "data" / "fpdb" / "capture.sql").read_text())
    connection.close()
    return path


FORMAT_FILES = {
    "jsonl": lambda tmp: EXAMPLES,
    "poker-arena": lambda tmp: SAMPLES / "poker-arena" / "ofc.jsonl",
    "scoresheet": lambda tmp: SAMPLES / "scoresheet" / "club-night.csv",
    "workbook": lambda tmp: SAMPLES / "workbook" / "club-league.xlsx",
    "fpdb": lambda tmp: SAMPLES / "fpdb" / "ofchand_48213377.json",
    "fpdb database": _fpdb_database,
}


@pytest.mark.parametrize("kind", list(FORMAT_FILES))
def test_score_reads_every_format_ingest_reads(kind: str, tmp_path: Path) -> None:
    """Each format's file scores exactly the hands ofc validate would accept."""
    from ofc.pipeline.ingest.formats import FORMATS

    assert {k.split()[0] for k in FORMAT_FILES} == set(FORMATS)  # a new format is added here too
    path = FORMAT_FILES[kind](tmp_path)
    checked = runner.invoke(app, ["validate", str(path), "--json"])
    accepted = json.loads(checked.stdout)["total"]["accepted"]
    result = runner.invoke(app, ["score", str(path), "--rules", "ofc", "--json"])
    assert result.exit_code == 0, result.output
    scored = lines(result.stdout)
    assert len(scored) == accepted > 0
    assert all(sum(r["points"].values()) == 0 for r in scored)
