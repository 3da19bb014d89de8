"""Every chart of the report is JSON that Plotly's own schema takes as it is: no property Plotly does not know, none
it would write otherwise (a colour scale named rather than spelled out, which plotly.js draws with its own scale),
over a lake of several games and one weighed by ofc analyse, for every player, one player, and a rule set read."""

from __future__ import annotations

import math
from datetime import date
from decimal import Decimal
from pathlib import Path
from typing import Any

import plotly.graph_objects as go
import pytest

from ofc.pipeline.lake.store import Lake
from ofc.reports.chart import Chart, bar
from ofc.reports.report import Options, build
from tests.test_report_lake import ReportLake, shared_analysed_lake, shared_lake


def _charts(root: Path, options: Options) -> list[Chart]:
    report = build(Lake(root).snapshot(), options)
    return [fig for section in report.sections for fig in section.figures]


def _same(written: Any, plotly: Any) -> bool:
    """Equal as JSON (a whole float is the integer it equals)."""
    if isinstance(written, dict) and isinstance(plotly, dict):
        return written.keys() == plotly.keys() and all(_same(written[k], plotly[k]) for k in written)
    if isinstance(written, list) and isinstance(plotly, list):
        return len(written) == len(plotly) and all(_same(a, b) for a, b in zip(written, plotly, strict=True))
    return written == plotly


@pytest.fixture(scope="module")
def lakes(tmp_path_factory: pytest.TempPathFactory) -> tuple[ReportLake, Path]:
    return shared_lake(tmp_path_factory), shared_analysed_lake(tmp_path_factory)


def test_every_chart_is_as_plotly_writes_it(lakes: tuple[ReportLake, Path]) -> None:
    several, analysed = lakes
    player = sorted(set(several.frame("boards")["player"].to_list()))[0]
    asked = [
        (several.lake.root, Options(carry_hands=False)),
        (several.lake.root, Options(player=player, carry_hands=False)),
        (several.lake.root, Options(rules=(several.rule_keys[0],), carry_hands=False)),
        (analysed, Options(carry_hands=False)),
        (analysed, Options(player="heuristic-0", carry_hands=False)),
    ]
    kinds: set[str] = set()
    drawn = 0
    for root, options in asked:
        for chart in _charts(root, options):
            written = chart.to_dict()
            assert _same(written, go.Figure(written).to_dict()), written["layout"]["title"]
            kinds |= {t["type"] for t in written["data"]}
            drawn += 1
    assert kinds == {"bar", "scatter", "heatmap"}
    assert drawn > 80


def test_a_chart_writes_no_number_json_lacks() -> None:
    """NaN and infinities are written as null, as Plotly writes them: JSON has neither; days as ISO dates and
    decimals as numbers."""
    chart = Chart(bar(x=["a", "b", "c"], y=[1.5, math.nan, math.inf]))
    assert chart.to_dict()["data"][0]["y"] == [1.5, None, None]
    assert go.Figure(chart.to_dict()).data[0].y == (1.5, None, None)
    chart = Chart(bar(x=[date(2026, 1, 2)], y=[Decimal("2.5")]))
    assert chart.to_dict()["data"][0] == {"type": "bar", "x": ["2026-01-02"], "y": [2.5]}


def test_an_unknown_property_is_refused_by_plotly() -> None:
    """What the first test rests on: a property Plotly does not know fails its schema."""
    with pytest.raises(ValueError, match="colour"):
        go.Figure(Chart(bar(x=[1], colour="red")).to_dict())
