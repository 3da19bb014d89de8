"""A move of one's own at a weighed decision (``pipeline.analyse.choice``): the trainer's question.

The oracle is the analysis itself: given the best move it found and as many rounds as it gave, the rollouts on
the spot must find the very figures it stored, which holds only if the decision is rebuilt as it saw it (the
boards, the cards seen, the seed).
"""

from __future__ import annotations

import itertools
import re
import subprocess
import sys
from pathlib import Path

import pytest

import ofc.pipeline.analyse.choice as choice
from ofc.pipeline.analyse.analysis_run import AnalyseError, Settings
from ofc.pipeline.lake.store import Lake
from ofc.pipeline.query.db import connect

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def lake(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Three-handed Pineapple hands of three bots, weighed by ofc analyse with few rollouts."""
    root = tmp_path_factory.mktemp("choice") / "lake"
    for args in (
        ["simulate", "--variant", "pineapple", "--hands", "10", "--bots", "heuristic,random,planner", "--seed", "4"],
        ["analyse", "--rollouts", "8"],
    ):
        done = subprocess.run(
            [sys.executable, "-m", "ofc", *args, "--lake", str(root)], cwd=ROOT, capture_output=True, text=True
        )
        assert done.returncode == 0, done.stderr[-2000:]
    return root


def _decisions(lake: Path, where: str) -> list[dict]:
    con = connect(Lake(lake).snapshot())
    sql = f"SELECT * FROM weighed(NULL) WHERE {where} ORDER BY ev_lost DESC, hand_key, player, street LIMIT 6"
    return con.sql(sql).to_arrow_table().to_pylist()


def _weigh(lake: Path, d: dict, move: str) -> choice.Choice:
    snapshot = Lake(lake).snapshot()
    return choice.weigh_choice(connect(snapshot), snapshot, d["hand_key"], d["player"], d["street"], move)


def test_the_best_move_found_weighs_as_the_analysis_found_it(lake: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(choice, "ROUNDS", None)  # as many rounds as the analysis gave the decision
    checked = _decisions(lake, "kind <> 'fantasyland' AND best_rows <> played_rows")
    assert checked
    for d in checked:
        got = _weigh(lake, d, d["best_rows"])
        assert got.ev_move == pytest.approx(d["ev_best"], abs=1e-9), d
        assert got.ev_played == pytest.approx(d["ev_played"], abs=1e-9), d
        assert got.se == pytest.approx(d["se"], abs=1e-9)
        assert got.rollouts == d["rollouts"]


def test_the_move_played_is_the_analysis_own_figure(lake: Path) -> None:
    (d,) = _decisions(lake, "kind <> 'fantasyland'")[:1]
    got = _weigh(lake, d, d["played_rows"])
    assert (got.ev_move, got.ev_played, got.se) == (d["ev_played"], d["ev_played"], 0.0)


def test_a_move_of_ones_own_is_weighed_until_it_is_told_within_half_a_point(lake: Path) -> None:
    d = _decisions(lake, "kind = 'discard' AND street = 2")[0]
    legal = [
        "".join(m)
        for m in itertools.product("tmbx", repeat=len(d["played_rows"]))
        if "".join(m).count("x") == 1 and "".join(m) not in (d["played_rows"], d["best_rows"])
    ]
    weighed = []
    for move in legal:
        try:
            weighed.append(_weigh(lake, d, move))
        except AnalyseError:
            continue  # a row without room for the cards: said, not weighed
    assert weighed
    for got in weighed:
        assert got.se <= 0.5 or got.rollouts >= choice.ROUNDS * Settings.of(d["analysis"]).rollouts
        assert got.seconds < 30
        assert 0 <= got.foul_move <= 1


@pytest.mark.parametrize(
    ("move", "message"),
    [
        ("tm", "a move is a letter for each of the 3 cards dealt, t, m or b for its row and 1 x (discarded)"),
        ("tmq", "a move is a letter for each"),
        ("ttt", "a move is a letter for each"),
    ],
)
def test_a_move_that_is_none_is_refused_saying_what_one_is(lake: Path, move: str, message: str) -> None:
    d = _decisions(lake, "kind = 'discard'")[0]
    with pytest.raises(AnalyseError, match=re.escape(message)):
        _weigh(lake, d, move)


def test_a_row_without_room_is_refused(lake: Path) -> None:
    d = _decisions(lake, "kind = 'discard' AND street = 5")[0]
    full = [m for m in ("ttx", "txt", "xtt") if m.count("t") == 2]
    errors = []
    for move in full:
        with pytest.raises(AnalyseError) as caught:
            _weigh(lake, d, move)
        errors.append(str(caught.value))
    # By street 5 a board has room for two cards; two on top fit only if the top row has two free slots.
    assert any("no room" in e or "not a move" in e for e in errors), errors


def test_no_such_decision_says_to_run_the_analysis(lake: Path) -> None:
    d = _decisions(lake, "kind <> 'fantasyland'")[0]
    with pytest.raises(AnalyseError, match="no weighed decision of nobody"):
        _weigh(lake, {**d, "player": "nobody"}, d["played_rows"])
