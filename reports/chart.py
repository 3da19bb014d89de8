"""Charts as the JSON plotly.js draws, built as plain dicts.

Plotly's figure objects check each property against Plotly's schema as it is set, and copy and walk the whole
figure again to write it: over 10 M hands a served page of a player took 0.16 to 0.21 s of processor time, 0.11 to
0.15 s of it building its 17 charts so (a chart's frame alone took 1.7 ms to set), one page at a time since it is
all Python; as dicts, the page takes 0.034 to 0.038 s. The report's figures are built here instead, as the same
JSON; tests check every chart against Plotly's schema (``go.Figure(chart.to_dict())`` refuses an unknown
property), and the Python API hands analysts Plotly figures made from them.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping
from datetime import date, datetime
from decimal import Decimal
from typing import Any

from ofc.pipeline.nested import merged

__all__ = ["Chart", "Part", "bar", "heatmap", "part", "scatter"]


class Part(dict[str, Any]):
    """A trace, the layout or an object within them, as Plotly's JSON holds it: its properties read and set as
    attributes too, None where unset, as on Plotly's own objects (``trace.marker.color``)."""

    __slots__ = ()

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        return self.get(name)

    def __setattr__(self, name: str, value: Any) -> None:
        self[name] = part(value)


def part(value: Any) -> Any:
    """A value as a chart holds it: an object (a dict, and the dicts within it) as a :class:`Part`; lists as they
    are (data, which nothing reads as attributes)."""
    if isinstance(value, dict) and not isinstance(value, Part):
        return Part({k: part(v) for k, v in value.items()})
    return value


def _trace(kind: str, properties: dict[str, Any]) -> Part:
    return Part({"type": kind, **{k: part(v) for k, v in properties.items()}})


def bar(**properties: Any) -> Part:
    """A bar trace (``go.Bar``'s properties, objects given whole: ``marker={"color": ...}``)."""
    return _trace("bar", properties)


def scatter(**properties: Any) -> Part:
    """A scatter trace (``go.Scatter``'s properties)."""
    return _trace("scatter", properties)


def heatmap(**properties: Any) -> Part:
    """A heatmap trace (``go.Heatmap``'s properties)."""
    return _trace("heatmap", properties)


class Chart:
    """One chart: its traces and its layout, changed as a Plotly figure is (``add_trace``, ``update_layout``,
    ``update_xaxes``) and written as the JSON plotly.js draws."""

    __slots__ = ("data", "layout")

    def __init__(self, data: Part | Iterable[Part] | None = None) -> None:
        self.data: list[Part] = [] if data is None else [data] if isinstance(data, Part) else list(data)
        self.layout = Part()

    def add_trace(self, trace: Part) -> Chart:
        self.data.append(trace)
        return self

    def update_layout(self, changes: Mapping[str, Any] | None = None, **more: Any) -> Chart:
        self.layout = part(merged(self.layout, {**(changes or {}), **more}))
        return self

    def update_xaxes(self, **changes: Any) -> Chart:
        """The x axis (a chart here has one)."""
        return self.update_layout(xaxis=changes)

    def update_yaxes(self, **changes: Any) -> Chart:
        return self.update_layout(yaxis=changes)

    def update_traces(self, changes: Mapping[str, Any], kind: str) -> Chart:
        """Lay ``changes`` on every trace of the ``kind`` (``heatmap``)."""
        self.data = [part(merged(t, changes)) if t.type == kind else t for t in self.data]
        return self

    def to_json(self) -> str:
        """The chart as plotly.js reads it. Numbers that are not finite are written as null, as Plotly writes
        them (JSON has no NaN)."""
        found = {"data": self.data, "layout": self.layout}
        try:
            return json.dumps(found, separators=(",", ":"), allow_nan=False, default=_plain)
        except ValueError:
            return json.dumps(_finite(found), separators=(",", ":"), default=_plain)

    def to_dict(self) -> dict[str, Any]:
        """A copy of the chart as plain dicts and lists (what ``go.Figure`` takes)."""
        loaded: dict[str, Any] = json.loads(self.to_json())
        return loaded


def _plain(value: Any) -> Any:
    """Values JSON has no type for, as Plotly writes them: days and times in ISO form, decimals and numpy's numbers
    as numbers; anything else as its text."""
    if isinstance(value, datetime | date):
        return value.isoformat()
    if isinstance(value, Decimal):
        return float(value)
    if hasattr(value, "item"):  # a numpy number
        return value.item()
    return str(value)


def _finite(value: Any) -> Any:
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_finite(v) for v in value]
    return value
