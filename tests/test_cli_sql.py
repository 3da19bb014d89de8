"""``ofc sql``: DuckDB's hints kept, a folder that is not a lake refused, every type printable as JSON, numbers
and cards readable in the table for people, results wider than the terminal readable too, hand keys that survive
a reader holding numbers as floats, the settings file's aliases, and the SQL card macros agreeing with
``pipeline.cards``."""

from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from ofc.pipeline.cards import CARD_NAMES, format_row
from ofc.pipeline.cli import app
from ofc.pipeline.cli.console import out
from ofc.pipeline.ingest.ingest_run import ingest
from ofc.pipeline.lake.store import Lake
from ofc.pipeline.paths import SAMPLES
from ofc.pipeline.query.db import connect
from ofc.pipeline.rescore.rescore_run import rescore

runner = CliRunner()
EXAMPLES = SAMPLES / "worked-examples.jsonl"


@pytest.fixture(scope="module")
def lake(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("sql") / "lake"
    ingest([EXAMPLES], Lake(root))
    return root


def sql(lake: Path, query: str, *more: str) -> object:
    return runner.invoke(app, ["sql", query, "--lake", str(lake), *more], env={"COLUMNS": "300"})


def test_errors_keep_duckdbs_hints(lake: Path) -> None:
    result = sql(lake, "SELECT * FROM hand")
    assert result.exit_code == 2
    assert 'Did you mean "hands"?' in result.output
    column = sql(lake, "SELECT hand_idd FROM hands")
    assert column.exit_code == 2
    assert "hand_id" in column.output.split("hand_idd", 1)[1]  # the candidate DuckDB suggests
    assert "Traceback" not in column.output


def test_a_folder_that_is_not_a_lake_is_an_error(tmp_path: Path) -> None:
    result = runner.invoke(app, ["sql", "SELECT count(*) FROM hands", "--lake", str(tmp_path)])
    assert result.exit_code == 2
    assert f"{tmp_path}: not a lake (ofc ingest creates one)" in result.output
    assert not (tmp_path / "_manifests").exists()


def test_json_takes_decimals_days_and_times(lake: Path) -> None:
    query = (
        "SELECT sum(CASE WHEN true THEN 1 ELSE 0 END) AS n, 1.25::DECIMAL(6, 2) AS d, DATE '2024-11-08' AS day, "
        "TIMESTAMPTZ '2024-11-08 19:42:00+00' AS at, 0.43449149475208104::DOUBLE AS x FROM hands"
    )
    result = sql(lake, query, "--json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout) == {
        "n": 4,
        "d": 1.25,
        "day": "2024-11-08",
        "at": "2024-11-08T19:42:00+00:00",
        "x": 0.43449149475208104,  # full precision for machines
    }


def test_the_table_rounds_numbers_for_people(lake: Path) -> None:
    query = (
        "SELECT 0.43449149475208104::DOUBLE AS share, 0.1::DOUBLE + 0.2::DOUBLE - 0.3::DOUBLE AS noise, "
        "1234567::BIGINT AS big, 2.5::DOUBLE AS half, sum(1.0) AS total FROM hands"
    )
    result = sql(lake, query)
    assert result.exit_code == 0, result.output
    row = result.stdout.splitlines()[3]
    cells = [c.strip() for c in row.strip("│ ").split("│")]
    assert cells == ["0.4345", "0", "1,234,567", "2.5", "4"]
    assert "e-17" not in result.stdout


def test_card_columns_print_as_cards_in_the_table_and_as_codes_for_machines(lake: Path) -> None:
    query = "SELECT cards, top, discards FROM hand_boards WHERE hand_id = 'E1' AND player = 'A'"
    table = sql(lake, query).stdout
    record = json.loads(EXAMPLES.read_text().splitlines()[0])["players"][0]
    board = " / ".join(" ".join(record[row]) for row in ("top", "middle", "bottom"))
    assert board in table
    assert "[" not in table.split("┡")[1]  # no list of codes
    codes = json.loads(sql(lake, query, "--json").stdout)
    assert format_row(codes["cards"]) == " ".join(c for row in ("top", "middle", "bottom") for c in record[row])
    one = sql(lake, "SELECT 51::UTINYINT AS card, 51::UTINYINT AS code").stdout.splitlines()[3]
    assert [c.strip() for c in one.strip("│ ").split("│")] == ["As", "51"]  # a card column by its name and type


def test_card_macros_agree_with_the_card_codes(tmp_path: Path) -> None:
    con = connect(Lake(tmp_path / "empty"))
    names = con.sql("SELECT list(card_text(c::UTINYINT) ORDER BY c) FROM range(52) t(c)").fetchall()[0][0]
    assert names == CARD_NAMES.tolist()
    assert con.sql("SELECT card_text(52::UTINYINT), card_text(NULL)").fetchall()[0] == ("??", None)
    codes = list(range(51, 38, -1))
    text = con.sql("SELECT cards_text($c::UTINYINT[]), board_text($c::UTINYINT[])", params={"c": codes}).fetchall()[0]
    assert text[0] == format_row(codes)
    assert text[1] == " / ".join(format_row(part) for part in (codes[:3], codes[3:8], codes[8:]))


def test_card_macros_read_the_lakes_boards(lake: Path) -> None:
    result = sql(lake, "SELECT board_text(cards) AS b FROM boards ORDER BY hand_key, seat LIMIT 1", "--json")
    assert result.exit_code == 0, result.output
    b = json.loads(result.stdout)["b"]
    assert [len(r.split()) for r in b.split(" / ")] == [3, 5, 5]
    help_text = " ".join(runner.invoke(app, ["sql", "--help"], env={"COLUMNS": "300"}).output.split())
    assert "board_text(cards)" in help_text


def test_a_misspelt_named_query_names_the_closest_and_one_output_is_chosen() -> None:
    misspelt = CliRunner().invoke(app, ["sql", "fould_rate"])
    assert misspelt.exit_code == 2
    assert "did you mean 'foul_rate'" in misspelt.output
    both = CliRunner().invoke(app, ["sql", "SELECT 1", "--csv", "--json"])
    assert both.exit_code == 2
    assert "give one" in both.output


@pytest.fixture(scope="module")
def scored(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Every sample history, scored under its own rules: the named queries that list hands answer from it."""
    root = tmp_path_factory.mktemp("sql-scored") / "lake"
    ingest([SAMPLES], Lake(root))
    rescore(Lake(root), [])
    return root


def _digits(lake: Path, column: str = "hand_key") -> dict[str, str]:
    """Each hand's key and ``column`` as DuckDB writes their digits."""
    con = connect(Lake(lake))
    return dict(con.execute(f"SELECT hand_key::VARCHAR, {column}::VARCHAR FROM hands").fetchall())


def _held(value: Any, name: str = "") -> Iterator[tuple[str, Any]]:
    """(name, value) of every scalar in a row read back, nested ones too: a list's items under the list's name."""
    if isinstance(value, dict):
        for k, v in value.items():
            yield from _held(v, k)
    elif isinstance(value, list):
        for v in value:
            yield from _held(v, name)
    else:
        yield name, value


def _found(lake: Path, keys: set[str]) -> int:
    """How many hands of the lake the keys, given back as text, find."""
    listed = ", ".join(f"'{k}'::UBIGINT" for k in sorted(keys))
    result = sql(lake, f"SELECT count(*) AS n FROM hands WHERE hand_key IN ({listed})", "--json")
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)["n"]


KEYED = (
    "SELECT hand_key, content_hash, [hand_key] AS keys, {'hand_key': hand_key, 'seat': 0} AS hand, "
    "count(*) OVER () AS n FROM hands"
)
"""Keys as a column, in a list and in a struct, beside a count."""


def _args(lake: Path, query: str) -> list[str]:
    """``ofc sql``'s arguments for ad-hoc SQL, or a named query that lists hands or looks them up."""
    params = {"notable_hands": "player=Ann", "hand_boards": f"hands={','.join(sorted(_digits(lake))[:2])}"}
    return [query, "--param", params[query]] if query in params else [query]


@pytest.mark.parametrize("query", [KEYED, "notable_hands", "hand_boards"], ids=["ad-hoc", "listed", "looked-up"])
def test_hand_keys_survive_a_reader_that_holds_numbers_as_floats(scored: Path, query: str) -> None:
    args = _args(scored, query)
    keys = _digits(scored)
    assert any(int(k) > 2**53 for k in keys)  # keys a float reader would round
    result = runner.invoke(app, ["sql", *args, "--lake", str(scored), "--json"])
    assert result.exit_code == 0, result.output
    rows = [json.loads(line, parse_int=float) for line in result.stdout.splitlines()]
    assert rows
    shown = {v for row in rows for k, v in _held(row) if k in ("hand_key", "keys")}
    assert shown <= set(keys)  # text, each the exact digits of a key
    assert _found(scored, shown) == len(shown)
    if args[0] == KEYED:
        hashes = _digits(scored, "content_hash")
        assert all(row["content_hash"] == hashes[row["hand_key"]] for row in rows)
        assert {row["n"] for row in rows} == {float(len(keys))}  # a count stays a number

    table = runner.invoke(app, ["sql", *args, "--lake", str(scored), "--csv"])
    assert table.exit_code == 0, table.output
    records = list(csv.DictReader(io.StringIO(table.stdout)))
    assert sorted(r["hand_key"] for r in records) == sorted(row["hand_key"] for row in rows)
    for key in shown:  # quoted wherever it is: text to a CSV reader, never a number
        assert re.search(rf"(^|,){key}(,|$)", table.stdout, re.MULTILINE) is None
    if args[0] == KEYED:
        nested = [json.loads(r[c], parse_int=float) for r in records for c in ("keys", "hand")]
        assert {v for n in nested for k, v in _held(n, "keys") if k in ("hand_key", "keys")} == shown
        assert {r["n"] for r in records} == {str(len(keys))}


def test_the_settings_files_aliases_name_the_players(scored: Path, tmp_path: Path) -> None:
    settings = tmp_path / "ofc.toml"
    settings.write_text('[aliases]\nZed = ["A"]\n', encoding="utf-8")
    env = {"OFC_CONFIG": str(settings)}
    query = "SELECT DISTINCT player FROM boards"
    players = runner.invoke(app, ["sql", query, "--lake", str(scored), "--json"], env=env)
    assert players.exit_code == 0, players.output
    names = {json.loads(line)["player"] for line in players.stdout.splitlines()}
    assert "Zed" in names
    assert "A" not in names
    folder = runner.invoke(app, ["sql", query, "--lake", str(scored)], env={"OFC_CONFIG": str(tmp_path)})
    assert folder.exit_code == 2  # a folder is no settings file: said, not ignored
    named = runner.invoke(
        app, ["sql", "foul_rate", "--param", "player=a", "--lake", str(scored), "--json"], env=env
    )  # the alias, in any case, is the player
    assert named.exit_code == 0, named.output
    groups = {json.loads(line)["group"] for line in named.stdout.splitlines()}
    assert "Zed" in groups
    assert "A" not in groups


def test_a_parameter_the_query_does_not_take_names_the_closest(tmp_path: Path) -> None:
    result = runner.invoke(app, ["sql", "foul_rate", "--param", "playr=Ann", "--lake", str(tmp_path)])
    assert result.exit_code == 2
    assert "no parameter 'playr'; did you mean 'player'?" in result.output  # said before the lake is opened
    assert "not a lake" not in result.output


TERMINAL = 100


@pytest.fixture
def terminal(monkeypatch: pytest.MonkeyPatch) -> int:
    """The width of the terminal the table for people is printed in."""
    monkeypatch.setattr(out, "width", TERMINAL)
    return TERMINAL


def _wide(columns: int) -> str:
    """A query of ``columns`` columns, each a 20-letter word: four fit a table 100 characters wide."""
    return "SELECT " + ", ".join(f"repeat('{chr(97 + i)}', 20) AS wide_{i + 1}" for i in range(columns))


def test_a_wide_result_keeps_the_columns_that_fit_and_names_the_rest(lake: Path, terminal: int) -> None:
    result = sql(lake, _wide(8))
    assert result.exit_code == 0, result.output
    *table, hint = result.stdout.splitlines()
    assert "…" not in result.stdout  # no value cut short
    assert all(len(line) <= terminal for line in table)
    assert [c.strip() for c in table[1].strip("┃ ").split("┃")] == ["wide_1", "wide_2", "wide_3", "wide_4"]
    assert [c.strip() for c in table[3].strip("│ ").split("│")] == [c * 20 for c in "abcd"]
    assert hint.startswith("4 of 8 columns left out to fit 100 characters: wide_5, wide_6, wide_7, wide_8")
    assert all(option in hint for option in ("--vertical", "--csv", "--json"))
    every = sql(lake, _wide(8), "--csv").stdout  # for machines: every column, as ever
    assert every.splitlines()[0] == ",".join(f'"wide_{i}"' for i in range(1, 9))


def _pair(line: str) -> tuple[str, str]:
    """A column's name and value from its line of a row printed a line a column."""
    found = re.fullmatch(r" *(\S+) =(?: (.*))?", line)
    assert found is not None, line
    return found[1], found[2] or ""


def test_rows_too_wide_for_half_their_columns_print_a_line_a_column(lake: Path, terminal: int) -> None:
    query = "SELECT * FROM boards ORDER BY hand_key, seat"
    result = sql(lake, query)
    assert result.exit_code == 0, result.output
    assert "…" not in result.stdout
    rows = [json.loads(line) for line in sql(lake, query, "--json").stdout.splitlines()]
    blocks = result.stdout.rstrip("\n").split("\n\n")
    assert len(blocks) == len(rows)
    for block, row in zip(blocks, rows, strict=True):
        lines = block.splitlines()
        pairs = [_pair(line) for line in lines]
        assert [name for name, _ in pairs] == list(row)  # every column, in order
        assert len({line.index(" =") for line in lines}) == 1  # the names aligned
        values = dict(pairs)
        assert (values["hand_key"], values["player"]) == (row["hand_key"], row["player"])


def test_vertical_prints_every_row_a_line_a_column(lake: Path, terminal: int) -> None:
    rows = "SELECT * FROM (VALUES (1, 'x y', NULL), (1234, 'z', NULL)) t(a, longer, none)"
    result = sql(lake, rows, "--vertical")
    assert result.exit_code == 0, result.output
    assert result.stdout == "     a = 1\nlonger = x y\n  none =\n\n     a = 1,234\nlonger = z\n  none =\n"
    both = sql(lake, "SELECT 1", "--vertical", "--json")
    assert both.exit_code == 2
    assert "--json and --vertical each choose the output: give one" in both.output


def test_a_narrow_result_prints_as_before(lake: Path, terminal: int) -> None:
    small = sql(lake, "SELECT 1 AS a, 'x' AS b")
    assert small.exit_code == 0, small.output
    assert small.stdout == "┏━━━┳━━━┓\n┃ a ┃ b ┃\n┡━━━╇━━━┩\n│ 1 │ x │\n└───┴───┘\n"
    full = sql(lake, f"SELECT repeat('y', {terminal - 4}) AS y").stdout  # as wide as the terminal: a table still
    assert full.splitlines()[3] == f"│ {'y' * (terminal - 4)} │"
    assert len(full.splitlines()) == 5
