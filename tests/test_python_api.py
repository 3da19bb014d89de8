"""The notebook API (``pipeline.api``) against what the commands give: the manual's examples run as written on a
small simulated lake, a named query reads as ``ofc sql`` and ``named.run`` read it, errors are the project's with
its messages, a section's figures are the report's, and hands scored in memory agree with the reference scorer and
with ``ofc score``."""

from __future__ import annotations

import json
import math
import re
import shutil
from collections import defaultdict
from pathlib import Path
from typing import Any

import plotly.graph_objects as go
import polars as pl
import pytest
from typer.testing import CliRunner

from ofc.pipeline.api import LakeView, Scores, open_lake, score
from ofc.pipeline.cli import app
from ofc.pipeline.errors import InputError, LakeError, OfcError, RulesError
from ofc.pipeline.lake.store import Lake
from ofc.pipeline.paths import SAMPLES
from ofc.pipeline.query import NamedQueryError, QueryError, named
from ofc.pipeline.query.db import connect
from ofc.pipeline.query.players import FilterError
from ofc.pipeline.rescore.rescore_run import rescore
from ofc.pipeline.rules.files import load_rules
from ofc.pipeline.simulate.simulation_run import plan, to_lake
from ofc.reports.report import Options, build
from tests.reference.deals import random_records
from tests.reference.hands import CRISS_CROSS, MISSET, player
from tests.reference.slow_scorer import score_records as reference_scores

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "python.md"
VARIANT = "pineapple"
RULES = ("pineapple", "ofc")
SECTIONS = ("player", "results", "fouls", "royalties", "fantasyland", "scoring")
"""The sections of a simulated Pineapple game with results and no decision analysis."""
runner = CliRunner()


def _simulate(root: Path, hands: int, seed: int) -> None:
    lake = Lake(root)
    to_lake(plan(VARIANT, 3, hands, "heuristic,random", load_rules(VARIANT), seed=seed, session_hands=10), lake)
    rescore(lake, [load_rules(r) for r in RULES])


@pytest.fixture(scope="module")
def lake_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """40 three-handed Pineapple hands, scored as played and under the ``ofc`` preset."""
    root = tmp_path_factory.mktemp("api") / "lake"
    _simulate(root, 40, seed=3)
    return root


@pytest.fixture(autouse=True)
def _no_settings(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """An empty settings file, whatever the machine's: no aliases, no featured player."""
    empty = tmp_path_factory.mktemp("settings") / "ofc.toml"
    empty.write_text("", encoding="utf-8")
    monkeypatch.setenv("OFC_CONFIG", str(empty))
    monkeypatch.delenv("OFC_PLAYER", raising=False)


@pytest.fixture
def view(lake_path: Path) -> Any:
    with open_lake(lake_path) as opened:
        yield opened


# ------------------------------------------------------------------ (a) the manual's examples


def _python_blocks(text: str) -> list[tuple[int, str]]:
    """Each ```python block of a Markdown text, with the line its code starts on."""
    return [
        (text.count("\n", 0, m.start(1)) + 1, m.group(1))
        for m in re.finditer(r"^```python\n(.*?)^```", text, re.DOTALL | re.MULTILINE)
    ]


def test_the_manuals_examples_run_as_written(
    lake_path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    blocks = _python_blocks(DOC.read_text(encoding="utf-8"))
    assert len(blocks) >= 8, "the manual shows each step in a python block"
    assert sum('open_lake("data/lake")' in code for _, code in blocks) >= 2
    monkeypatch.setenv("OFC_LAKE", str(lake_path))  # open_lake() with no path: the default lake
    monkeypatch.chdir(tmp_path)  # whatever an example writes lands here
    namespace: dict[str, Any] = {"__name__": "docs_python"}
    for line, code in blocks:
        # Padded to its line, so that a traceback points at the manual's own line.
        source = "\n" * (line - 1) + code.replace('"data/lake"', repr(str(lake_path)))
        exec(compile(source, str(DOC), "exec"), namespace)
    printed = capsys.readouterr().out
    assert 'Did you mean "hands"?' in printed
    assert f"foul charts for {VARIANT}" in printed
    charts = namespace["charts"]
    assert charts
    assert all(isinstance(c, go.Figure) and c.data for c in charts)
    fouls = namespace["fouls"]
    assert set(fouls["group"]) == {"heuristic-0", "random-1", "heuristic-2"}
    scores = namespace["scores"]
    assert isinstance(scores, Scores)
    ofc = scores.boards.filter(pl.col("rules") == "ofc")
    assert dict(zip(ofc["player"], ofc["points"], strict=True)) == {"A": 24, "B": -24}  # worked example E1
    with pytest.raises(LakeError, match="closed"):  # the complete example's `with` block closed its view
        namespace["lake"].sql("SELECT 1")


# ------------------------------------------------------------------ (b) named queries as ofc sql reads them


def _rows(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return sorted(rows, key=lambda r: (r["dimension"], r["group"]))


def _same(a: list[dict[str, Any]], b: list[dict[str, Any]]) -> bool:
    if len(a) != len(b):
        return False
    for x, y in zip(_rows(a), _rows(b), strict=True):
        if x.keys() != y.keys():
            return False
        for k in x:
            if isinstance(x[k], float) and isinstance(y[k], float):
                if not math.isclose(x[k], y[k], rel_tol=1e-12, abs_tol=1e-15):
                    return False
            elif x[k] != y[k]:
                return False
    return True


def test_a_named_query_reads_as_ofc_sql_and_named_run(view: LakeView, lake_path: Path) -> None:
    got = view.query("foul_rate", variant=VARIANT)
    assert isinstance(got, pl.DataFrame)
    assert got.height > 0
    snapshot = Lake(lake_path).snapshot()
    direct = named.run(connect(snapshot), snapshot, "foul_rate", {"variant": VARIANT}).to_pylist()
    assert _same(got.to_dicts(), direct)
    result = runner.invoke(
        app, ["sql", "foul_rate", "--param", f"variant={VARIANT}", "--lake", str(lake_path), "--json"]
    )
    assert result.exit_code == 0, result.output
    printed = [json.loads(line) for line in result.stdout.splitlines() if line.strip()]
    assert _same(got.to_dicts(), printed)
    # A rule set by name, and a player in any case: as the command line takes them.
    as_ofc = view.query("foul_rate", variant=VARIANT, rules="ofc", player="HEURISTIC-0")
    snapshot_rows = named.run(
        connect(snapshot), snapshot, "foul_rate", {"variant": VARIANT, "rules": "ofc", "player": "heuristic-0"}
    ).to_pylist()
    assert _same(as_ofc.to_dicts(), snapshot_rows)


def test_queries_lists_every_named_query_with_its_parameters(view: LakeView) -> None:
    listed = view.queries()
    assert listed["name"].to_list() == list(named.queries())
    foul_rate = listed.row(by_predicate=pl.col("name") == "foul_rate", named=True)
    assert foul_rate["answers"] == named.get("foul_rate").description
    assert any(p.startswith("variant (text?)") for p in foul_rate["parameters"])


def test_sql_binds_parameters_and_sees_the_views(view: LakeView) -> None:
    counts = view.sql("SELECT count(*) AS boards FROM played_boards WHERE variant = $v", {"v": VARIANT})
    assert counts.item() == 40 * 3
    players = view.sql("SELECT count(DISTINCT player) AS players FROM boards")
    assert players.columns == ["players"]
    assert players.item() == 3


def test_aliases_read_as_the_player(lake_path: Path) -> None:
    with open_lake(lake_path, aliases={"random-1": "Rand"}) as aliased:
        players = set(aliased.sql("SELECT DISTINCT player FROM played_boards")["player"])
        assert players == {"heuristic-0", "Rand", "heuristic-2"}
        by_alias = aliased.query("foul_rate", variant=VARIANT, player="random-1")  # the alias names the player
        assert by_alias.filter(pl.col("dimension") == "player")["group"].to_list() == ["Rand"]


# ------------------------------------------------------------------ (c) the project's errors


def test_bad_sql_is_a_query_error_with_duckdbs_message(view: LakeView, lake_path: Path) -> None:
    with pytest.raises(QueryError) as caught:
        view.sql("SELECT * FROM handz")
    assert isinstance(caught.value, InputError)
    assert isinstance(caught.value, OfcError)
    assert 'Did you mean "hands"?' in str(caught.value)
    said = runner.invoke(app, ["sql", "SELECT * FROM handz", "--lake", str(lake_path)], env={"COLUMNS": "300"})
    assert str(caught.value).splitlines()[0] in said.output
    with pytest.raises(QueryError, match="only queries are allowed here, not DROP"):
        view.sql("DROP VIEW hands")
    with pytest.raises(QueryError, match="no SQL statement given"):
        view.sql("  ")


def test_an_unknown_named_query_names_the_closest_as_ofc_sql_does(view: LakeView, lake_path: Path) -> None:
    with pytest.raises(NamedQueryError) as caught:
        view.query("foul_rat", variant=VARIANT)
    assert "no named query 'foul_rat'; did you mean 'foul_rate'" in str(caught.value)
    said = runner.invoke(app, ["sql", "foul_rat", "--lake", str(lake_path)], env={"COLUMNS": "300"})
    assert said.exit_code == 2
    assert str(caught.value) in " ".join(said.output.split())
    with pytest.raises(NamedQueryError, match="has no parameter 'varient'; did you mean 'variant'"):
        view.query("foul_rate", varient=VARIANT)
    with pytest.raises(FilterError, match="heuristic-0"):
        view.query("foul_rate", player="heuristic0")
    with pytest.raises(NamedQueryError, match="the lake has no results under rules 'ofcc'; did you mean 'ofc'"):
        view.query("foul_rate", rules="ofcc")


def test_a_folder_that_is_not_a_lake_and_a_closed_view_are_lake_errors(lake_path: Path, tmp_path: Path) -> None:
    with pytest.raises(LakeError, match="not a lake"):
        open_lake(tmp_path)
    with open_lake(lake_path) as opened:
        assert opened.sql("SELECT count(*) FROM hands").item() == 40
    with pytest.raises(LakeError, match="closed"):
        opened.sql("SELECT 1")
    opened.close()  # closing twice is nothing


def test_open_lake_without_a_path_opens_the_default(lake_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OFC_LAKE", str(lake_path))
    with open_lake() as opened:
        assert opened.lake.root == lake_path


# ------------------------------------------------------------------ refresh


def test_refresh_moves_to_what_another_process_committed(lake_path: Path, tmp_path: Path) -> None:
    root = tmp_path / "lake"
    shutil.copytree(lake_path, root)
    with open_lake(root) as opened:
        assert opened.refresh() is False  # nothing new: the same state
        _simulate(root, 10, seed=8)
        assert opened.sql("SELECT count(*) FROM hands").item() == 40, "a view keeps its state"
        assert opened.refresh() is True
        assert opened.sql("SELECT count(*) FROM hands").item() == 50
        everyone = opened.query("foul_rate", variant=VARIANT).row(by_predicate=pl.col("dimension") == "all", named=True)
        assert everyone["boards"] == 150
        assert opened.refresh() is False


# ------------------------------------------------------------------ (d) a section's figures


def _drawn(fig: go.Figure) -> bool:
    """Whether a figure plots something: a trace with points."""
    for trace in fig.data:
        for attr in ("x", "y", "z", "values", "cells"):
            value = getattr(trace, attr, None)
            if value is not None and len(value) > 0:
                return True
    return False


@pytest.mark.parametrize("section", SECTIONS)
def test_each_section_has_plotly_figures_with_data(view: LakeView, section: str) -> None:
    figs = view.figures(section)  # the lake holds one game: no variant needed
    assert figs, f"{section}: no figure"
    assert all(isinstance(f, go.Figure) for f in figs)
    assert any(_drawn(f) for f in figs), f"{section}: no figure with data"


def test_figures_are_the_reports_own(view: LakeView) -> None:
    report = build(view.snapshot, Options(variant=VARIANT))
    section = next(s for s in report.game(VARIANT).sections if s.key == "fouls")
    mine = view.figures("fouls", VARIANT)
    assert [f.to_dict() for f in mine] == [f.to_dict() for f in section.figures]
    mine[0].update_layout(title="changed here")  # a copy: the next call is the report's again
    assert view.figures("fouls", VARIANT)[0].to_dict() == section.figures[0].to_dict()
    under = view.figures("results", VARIANT, rules="ofc", player="random-1")
    assert under
    assert all(isinstance(f, go.Figure) for f in under)


def test_a_section_the_game_lacks_says_which_it_has(view: LakeView) -> None:
    with pytest.raises(InputError, match="did you mean 'fouls'") as caught:
        view.figures("foul")
    assert "sections: player, results, fouls" in str(caught.value)
    with pytest.raises(InputError, match="Decisions: ofc analyse weighs"):
        view.figures("decisions")
    with pytest.raises(FilterError, match="pineapple"):
        view.figures("fouls", "classic")
    with pytest.raises(InputError, match="since takes a day"):
        view.figures("fouls", since="yesterday")


# ------------------------------------------------------------------ (e) scoring in memory


def _as_results(scores: Scores) -> dict[tuple[str, str], dict[str, Any]]:
    """The frames in the shape of ``ofc score --json`` and the reference scorer, by hand and rule set."""
    out: dict[tuple[str, str], dict[str, Any]] = defaultdict(lambda: {"points": {}, "boards": {}, "pairs": {}})
    for b in scores.boards.iter_rows(named=True):
        hand = out[(b["hand_id"], b["rules"])]
        hand["points"][b["player"]] = hand["points"].get(b["player"], 0) + b["points"]
        royalties = {"top": b["royalty_top"], "middle": b["royalty_middle"], "bottom": b["royalty_bottom"]}
        assert b["royalties"] == sum(royalties.values())
        hand["boards"][b["board"]] = {
            "fouled": b["fouled"],
            "royalties": royalties,
            "fantasyland_next": b["fantasyland_next"],
        }
    for p in scores.pairs.iter_rows(named=True):
        out[(p["hand_id"], p["rules"])]["pairs"][f"{p['board_a']}|{p['board_b']}"] = p["points"]
    return dict(out)


def _keyed(results: list[dict[str, Any]]) -> dict[tuple[str, str], dict[str, Any]]:
    return {(str(r["hand_id"]), r["rules"]): {k: r[k] for k in ("points", "boards", "pairs")} for r in results}


@pytest.mark.parametrize("preset", ["ofc", "pineapple", "pineapple-27", "classic-1-6", "taiwanese"])
def test_score_agrees_with_the_reference_scorer(preset: str) -> None:
    rules = load_rules(preset)
    records = random_records(300, rules, seed=41)
    if preset == "ofc":
        records += [CRISS_CROSS]
    if preset == "classic-1-6":
        records += [MISSET]
    got = _as_results(score(records, preset))
    assert got == _keyed(reference_scores(records, rules))


def test_score_agrees_with_ofc_score_on_the_samples() -> None:
    sample = SAMPLES / "worked-examples.jsonl"
    records = [json.loads(line) for line in sample.read_text(encoding="utf-8").splitlines() if line.strip()]
    presets = ["ofc", "classic-2-4", "pineapple"]
    result = runner.invoke(app, ["score", str(sample), "--json", *(a for r in presets for a in ("-r", r))])
    assert result.exit_code == 0, result.output
    printed = [json.loads(line) for line in result.stdout.splitlines() if line.strip()]
    scores = score(records, presets)
    assert _as_results(scores) == _keyed(printed)
    assert scores.boards.height == sum(len(r["players"]) for r in records) * len(presets)
    assert scores.boards.group_by("hand_id", "rules").agg(pl.col("points").sum())["points"].to_list() == [0] * (
        len(records) * len(presets)
    )


def test_score_takes_rule_sets_and_refuses_what_it_cannot_score() -> None:
    hand = {"hand_id": "h7", "variant": "ofc", "players": [CRISS_CROSS["players"][0], CRISS_CROSS["players"][1]]}
    by_name, by_rules = score([hand]), score([hand], [load_rules("ofc")])
    assert by_name.boards.equals(by_rules.boards)
    assert by_name.pairs.equals(by_rules.pairs)
    empty = score([], "ofc")
    assert empty.boards.is_empty()
    assert "fantasyland_next" in empty.boards.columns
    assert empty.pairs.is_empty()
    bad = {
        "hand_id": "h8",
        "players": [
            player("A", "Qh Qd 4c / 9s 9h 9c Kd 3h / Ts Js Qs Ks As"),
            player("B", "2c 3c 5d / 7h Xd 6h 4h 2h / 8c 8d 8h 5c 6c"),
        ],
    }
    with pytest.raises(InputError, match=r"record 2 \(hand h8\): players\[1\]\.middle\[1\]: not a card: 'Xd'"):
        score([hand, bad])
    with pytest.raises(RulesError, match="did you mean 'pineapple'"):
        score([hand], "pinapple")
    with pytest.raises(InputError, match="at least one rule set"):
        score([hand], [])
