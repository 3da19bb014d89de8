"""One self-contained HTML page: plotly.js inlined once, each chart's JSON inlined as data, every text escaped.

The page works offline in any browser. Text from the data goes through ``html.escape`` in the page and in
the charts' labels; each chart's JSON has ``<`` written as ``\\u003c``, so nothing in it can close the script
element it sits in. A small script counts the charts drawn and records script errors on the ``<html>``
element (``data-charts``, ``data-charts-rendered``, ``data-errors``): a reader, or a test, can see whether
every chart rendered.
"""

from __future__ import annotations

import html
import json
from datetime import UTC, date, datetime
from functools import cache
from typing import Any

import plotly.graph_objects as go

from pipeline import __version__
from reports.report import Report, Section, Table

_STATUS = """
(function () {
  var root = document.documentElement, errors = [];
  function failed(message) {
    errors.push(String(message));
    root.setAttribute("data-errors", JSON.stringify(errors));
  }
  window.addEventListener("error", function (e) { failed(e.message || e); });
  window.addEventListener("unhandledrejection", function (e) { failed(e.reason && e.reason.message || e.reason); });
  window.reportChart = function (id, figure) {
    var config = {responsive: true, displaylogo: false};
    try {
      Plotly.newPlot(id, figure.data, figure.layout, config).then(function () {
        var done = Number(root.getAttribute("data-charts-rendered") || 0) + 1;
        root.setAttribute("data-charts-rendered", String(done));
      }, failed);
    } catch (e) { failed(e.message || e); }
  };
})();
"""

_CSS = """
body { font-family: system-ui, -apple-system, "Segoe UI", sans-serif; margin: 0; color: #222; background: #fafafa; }
header { background: #1f3a5f; color: #fff; padding: 1.2rem 2rem; }
header h1 { margin: 0 0 .3rem 0; font-size: 1.6rem; }
nav { padding: .5rem 2rem; background: #e8eef5; position: sticky; top: 0; z-index: 10; }
nav a { margin-right: 1.2rem; color: #1f3a5f; text-decoration: none; font-weight: 600; }
section { background: #fff; margin: 1.2rem 2rem; padding: 1rem 1.5rem; border-radius: 6px;
          box-shadow: 0 1px 3px rgba(0,0,0,.08); }
.headline { display: flex; flex-wrap: wrap; gap: .8rem; margin: .8rem 0; }
.figure { background: #f2f6fa; border-radius: 4px; padding: .5rem .8rem; min-width: 10rem; }
.figure .label { font-size: .8rem; color: #555; }
.figure .value { font-size: 1.15rem; font-weight: 600; }
.chart { width: 100%; min-height: 360px; }
table { border-collapse: collapse; font-size: .82rem; margin: .5rem 0 1rem 0; }
th, td { border-bottom: 1px solid #e3e3e3; padding: .2rem .6rem; text-align: right; }
th { background: #f2f6fa; position: sticky; top: 2.2rem; }
td.text, th.text { text-align: left; }
details summary { cursor: pointer; color: #1f3a5f; font-weight: 600; margin: .3rem 0; }
.note { color: #8a5a00; }
footer { color: #777; font-size: .8rem; padding: 1rem 2rem 2rem 2rem; }
"""


@cache
def _plotly_js() -> str:
    from plotly.offline import get_plotlyjs

    return get_plotlyjs().replace("</script", "<\\/script")


def figure_json(fig: go.Figure) -> str:
    """A chart as JSON that is safe inside a script element (no ``<`` at all, hence no ``</script>``)."""
    out = fig.to_json().replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    return out.replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")


def _cell(value: Any, column: str, percent: frozenset[str]) -> tuple[str, str]:
    """(text, css class) of one table cell."""
    if value is None:
        return "", "num"
    if isinstance(value, bool):
        return ("yes" if value else "no"), "text"
    if isinstance(value, float):
        return (f"{value:.2%}" if column in percent else f"{value:,.4g}"), "num"
    if isinstance(value, int):
        return f"{value:,}", "num"
    if isinstance(value, date | datetime):
        return value.isoformat(), "text"
    return str(value), "text"


def _table(t: Table) -> str:
    if not t.rows or not t.columns:
        return f"<p>{html.escape(t.caption)}: no rows.</p>"
    head = "".join(f'<th class="text">{html.escape(c)}</th>' for c in t.columns)
    body = []
    for row in t.rows[: t.limit]:
        cells = (_cell(row.get(c), c, t.percent) for c in t.columns)
        body.append("<tr>" + "".join(f'<td class="{k}">{html.escape(v)}</td>' for v, k in cells) + "</tr>")
    more = f" (the first {t.limit:,} of {len(t.rows):,} rows; --json writes them all)" if len(t.rows) > t.limit else ""
    return (
        f"<details><summary>{html.escape(t.caption)}: table{html.escape(more)}</summary>"
        f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table></details>"
    )


def _section(s: Section, first_chart: int) -> tuple[str, int]:
    parts = [f'<section id="{html.escape(s.key)}"><h2>{html.escape(s.title)}</h2><p>{html.escape(s.intro)}</p>']
    if s.note:
        parts.append(f'<p class="note">{html.escape(s.note)}</p>')
    if s.headline:
        figures = "".join(
            f'<div class="figure"><div class="label">{html.escape(k)}</div>'
            f'<div class="value">{html.escape(v)}</div></div>'
            for k, v in s.headline
        )
        parts.append(f'<div class="headline">{figures}</div>')
    n = first_chart
    for fig in s.figures:
        n += 1
        chart = f"chart-{n}"
        parts.append(
            f'<div class="chart" id="{chart}"></div><script>reportChart("{chart}", {figure_json(fig)});</script>'
        )
    parts.extend(_table(t) for t in s.tables)
    parts.append("</section>")
    return "".join(parts), n


def render(report: Report) -> str:
    """The whole page."""
    charts = sum(len(s.figures) for s in report.sections)
    nav = "".join(f'<a href="#{html.escape(s.key)}">{html.escape(s.title)}</a>' for s in report.sections)
    body, n = [], 0
    for s in report.sections:
        text, n = _section(s, n)
        body.append(text)
    who = report.options.player
    title = "Chinese poker report" + (f": {who}" if who else "")
    made = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    data = json.dumps(report.data()["filters"], ensure_ascii=True).replace("<", "\\u003c")
    read = f"as if played under {report.lead}" if report.lead else "each hand under the rules it was played by"
    notes = "".join(f'<p class="note">{html.escape(n)}</p>' for n in report.notes)
    return f"""<!DOCTYPE html>
<html lang="en" data-charts="{charts}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{html.escape(title)}</title>
<style>{_CSS}</style>
<script>{_STATUS}</script>
<script>{_plotly_js()}</script>
<script type="application/json" id="report-filters">{data}</script>
</head>
<body>
<header><h1>{html.escape(title)}</h1><div>{html.escape(read)}</div></header>
<nav>{nav}</nav>
{notes}{"".join(body)}
<footer>ofc-analytics {html.escape(__version__)}, made {html.escape(made)}.</footer>
</body>
</html>
"""
