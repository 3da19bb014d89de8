"""One self-contained HTML page: plotly.js inlined once, each chart's JSON inlined as data, every text escaped.

The page works offline in any browser. Text from the data goes through ``html.escape`` in the page and in
the charts' labels; each chart's JSON has ``<`` written as ``\\u003c``, so nothing in it can close the script
element it sits in. A small script counts the charts drawn and records script errors on the ``<html>``
element (``data-charts``, ``data-charts-rendered``, ``data-charts-ms``: when the last was drawn, and
``data-errors``): a reader, a test or a benchmark can see whether every chart rendered, and how soon. The page's
own script (``reports/assets``) makes the tables sortable, filterable and savable as CSV and opens the hands.
"""

from __future__ import annotations

import html
import json
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import cache
from pathlib import Path

from ofc.pipeline import __version__
from ofc.pipeline.game import facts
from ofc.reports import drill
from ofc.reports.chart import Chart
from ofc.reports.headline import Stat, small
from ofc.reports.report import Report
from ofc.reports.sections import GameView, Section
from ofc.reports.tables import TEXT_KINDS, Column, Table, cell_text, raw_text

ASSETS = Path(__file__).resolve().parent / "assets"
"""The page's own script (sortable, filterable tables saved as CSV; the hand viewer) and its styles."""

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
        if (String(done) === root.getAttribute("data-charts")) {
          root.setAttribute("data-charts-ms", String(Math.round(performance.now())));
        }
      }, failed);
    } catch (e) { failed(e.message || e); }
  };
})();
"""

PAGE_CSS = """
body { font-family: system-ui, -apple-system, "Segoe UI", sans-serif; margin: 0; color: #222; background: #fafafa; }
header { background: #1f3a5f; color: #fff; padding: 1.2rem 2rem; }
header h1 { margin: 0 0 .3rem 0; font-size: 1.6rem; }
section { background: #fff; margin: 1.2rem 2rem; padding: 1rem 1.5rem; border-radius: 6px;
          box-shadow: 0 1px 3px rgba(0,0,0,.08); }
.headline { display: flex; flex-wrap: wrap; gap: .8rem; margin: .8rem 0; }
.figure { background: #f2f6fa; border-radius: 4px; padding: .5rem .8rem; min-width: 10rem; }
.figure .label { font-size: .8rem; color: #555; }
.figure .value { font-size: 1.15rem; font-weight: 600; }
.chart { width: 100%; min-height: 360px; }
.charts-grid { display: grid; grid-template-columns: repeat(2, minmax(0, 1fr)); gap: .5rem 1rem; }
@media (max-width: 1100px) { .charts-grid { grid-template-columns: minmax(0, 1fr); } }
.hand-link { font-weight: 600; }
table { border-collapse: collapse; font-size: .82rem; margin: .5rem 0 1rem 0; }
th, td { border-bottom: 1px solid #e3e3e3; padding: .2rem .6rem; text-align: right; }
th { background: #f2f6fa; }
td.text, th.text { text-align: left; }
.note { color: #8a5a00; }
footer { color: #777; font-size: .8rem; padding: 1rem 2rem 2rem 2rem; }
"""


@cache
def _plotly_js() -> str:
    # lazy: plotly.offline takes 59 ms to load, and only a page that carries plotly.js reads it
    from plotly.offline import get_plotlyjs

    return get_plotlyjs().replace("</script", "<\\/script")


def figure_json(fig: Chart) -> str:
    """A chart as JSON that is safe inside a script element (no ``<`` at all, hence no ``</script>``)."""
    out = fig.to_json().replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    return out.replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")


@cache
def _asset(name: str) -> str:
    return (ASSETS / name).read_text(encoding="utf-8").replace("</", "<\\/")


def plotly_js() -> str:
    """plotly.js as the package ships it (what a page served by ``ofc serve`` loads from its address)."""
    return _plotly_js()


def asset(name: str) -> str:
    """One of the page's own files (``reports/assets``), as a page embeds it."""
    return _asset(name)


SAMPLE = "sample"
"""The column of small-sample marks a table gains when some row needs one."""


def _table(t: Table) -> str:
    """A table as the page's script expects it (reports/assets/README.md): raw values beside the shown text."""
    if not t.rows:
        note = t.note or "no rows."
        return f'<p class="table-empty">{html.escape(t.caption)}: {html.escape(note)}</p>'
    columns = list(t.columns)
    marked = t.counts is not None and any(small(r.get(t.counts)) for r in t.rows)
    if marked:  # a column of marks, only where some row needs one
        columns.append(Column(SAMPLE, "Sample", "text"))
    texts = [c.kind in TEXT_KINDS for c in columns]
    head = "".join(
        f'<th class="{"text" if is_text else "num"}" data-type="{"text" if is_text else "num"}">'
        f"{html.escape(c.header)}</th>"
        for c, is_text in zip(columns, texts, strict=True)
    )
    body = []
    opens = [f'<td class="{"text" if is_text else "num"}" data-v="' for is_text in texts]
    for row in t.rows[: t.limit]:
        if marked:
            row = {**row, SAMPLE: "small sample" if small(row.get(t.counts)) else ""}  # type: ignore[arg-type]
        cells = []
        for c, td in zip(columns, opens, strict=True):
            value = row.get(c.key)
            if c.kind == "hand" and value is not None:
                ident = html.escape(str(value))
                raw = label = html.escape(t.hands.get(str(value), str(value)))
                shown = f'<a class="hand-link" data-hand="{ident}" href="#hand-{ident}">{label}</a>'
            elif c.kind == "text" and isinstance(value, str):  # shown and kept as it is
                raw = shown = html.escape(value)
            elif isinstance(value, int | float) and not isinstance(value, bool):
                # digits, signs, separators: nothing to escape (a table of a page holds thousands)
                raw, shown = raw_text(value), cell_text(value, c.kind, c.empty)
            else:
                raw, shown = html.escape(raw_text(value)), html.escape(cell_text(value, c.kind, c.empty))
            cells.append(f'{td}{raw}">{shown}</td>')
        leads = drill.plain(t.drill(row)) if t.drill is not None else None
        tag = "<tr>" if leads is None else f'<tr data-drill="{html.escape(json.dumps(leads))}">'
        body.append(tag + "".join(cells) + "</tr>")
    notes = [t.note] if t.note else []
    if len(t.rows) > t.limit:
        notes.append(f"The first {t.limit:,} of {len(t.rows):,} rows; --json writes them all.")
    more = "".join(f'<p class="table-more">{html.escape(n)}</p>' for n in notes)
    caption = html.escape(t.caption)
    return (
        f'<div class="table-block" data-name="{html.escape(t.name)}"><div class="table-tools">'
        f'<span class="table-caption">{caption}</span>'
        f'<input type="search" class="table-filter" placeholder="Filter rows" aria-label="Filter rows of {caption}">'
        f'<button type="button" class="table-csv">Save CSV</button><span class="table-count"></span></div>'
        f'<div class="table-scroll"><table class="data"><thead><tr>{head}</tr></thead>'
        f"<tbody>{''.join(body)}</tbody></table></div>{more}</div>"
    )


def _stat(stat: Stat) -> str:
    small = " small-sample" if stat.small else ""
    basis = f'<div class="basis">{html.escape(stat.basis)}</div>' if stat.basis else ""
    return (
        f'<div class="figure{small}"><div class="label">{html.escape(stat.label)}</div>'
        f'<div class="value">{html.escape(stat.text)}</div>{basis}</div>'
    )


def _headline(stats: list[Stat]) -> str:
    return f'<div class="headline">{"".join(_stat(s) for s in stats)}</div>' if stats else ""


def _section(s: Section, ident: str, first_chart: int) -> tuple[str, int]:
    parts = [f'<section id="{html.escape(ident)}"><h2>{html.escape(s.title)}</h2><p>{html.escape(s.intro)}</p>']
    if s.note:
        parts.append(f'<p class="note">{html.escape(s.note)}</p>')
    parts.append(_headline(s.headline))
    n = first_chart
    charts = []
    for fig in s.figures:
        n += 1
        chart = f"chart-{n}"
        charts.append(
            f'<div class="chart" id="{chart}"></div><script>reportChart("{chart}", {figure_json(fig)});</script>'
        )
    parts.append(f'<div class="charts-grid">{"".join(charts)}</div>' if s.grid else "".join(charts))
    parts.extend(_table(t) for t in s.tables)
    parts.append("</section>")
    return "".join(parts), n


def section_id(game: GameView, section: Section) -> str:
    """A game's section's id in the page (``pineapple-fouls``): the address that opens it."""
    return f"{game.variant}-{section.key}"


def _game(game: GameView, first_chart: int) -> tuple[str, int]:
    variant = html.escape(game.variant)
    links = "".join(f'<a href="#{html.escape(section_id(game, s))}">{html.escape(s.title)}</a>' for s in game.sections)
    left = "".join(f'<p class="left-out">{html.escape(line)}</p>' for line in game.left_out)
    notes = "".join(f'<p class="note">{html.escape(line)}</p>' for line in game.notes)
    head = (
        f'<div class="game-head" id="game-{variant}"><h2>{html.escape(game.title)}</h2>'
        f"<p>Every figure below is about {html.escape(game.title)} hands only.</p>"
        f'{_headline(game.headline)}{notes}{left}<nav class="game-nav">{links}</nav></div>'
    )
    body, n = [head], first_chart
    for s in game.sections:
        text, n = _section(s, section_id(game, s), n)
        body.append(text)
    return f'<div class="game" data-game="{variant}">{"".join(body)}</div>', n


def _tabs(report: Report, served: Served | None) -> str:
    """A tab for each game: the games on the page switch in place; on a served page, a game whose sections are on
    a page of their own (``Report.elsewhere``) is a link to it."""
    if not report.games:
        return ""
    hands = {r["variant"]: r["hands"] for r in report.overview_rows}
    address_of = served.game_address if served is not None else None
    linked = report.elsewhere if address_of is not None else []
    tabs = []
    for variant in sorted([*(g.variant for g in report.games), *linked], key=lambda v: (-hands.get(v, 0), v)):
        v = html.escape(variant)
        inner = f'{html.escape(facts(variant).title)}<span class="game-count">{hands.get(variant, 0):,} hands</span>'
        if address_of is not None and variant in linked:
            address = html.escape(address_of(variant))
            tabs.append(f'<a class="game-tab" role="tab" aria-selected="false" href="{address}">{inner}</a>')
        else:
            tabs.append(
                f'<button type="button" class="game-tab" role="tab" data-game="{v}" aria-controls="game-{v}">'
                f"{inner}</button>"
            )
    shown = "".join(tabs)
    label = '<span class="tabs-label">Game:</span>'
    return f'<div class="game-tabs" role="tablist" aria-label="Games">{label}{shown}</div>'


@dataclass(frozen=True)
class Served:
    """What a page served by ``ofc serve`` has instead of the file's inlined scripts: the scripts' addresses, and
    its own parts at the top of the page (the filters, the live-lake notice)."""

    scripts: tuple[str, ...]
    top: str = ""
    stylesheet: str = ""
    game_address: Callable[[str], str] | None = None
    """The address of the page of a game (a variant) whose sections this page does not hold."""


def render(report: Report, served: Served | None = None) -> str:
    """The whole page: one self-contained file, or (``served``) a page whose scripts the server serves."""
    charts = sum(len(s.figures) for s in report.sections)
    body, n = [], 0
    text, n = _section(report.overview, report.overview.key, n)
    body.append(text)
    games = []
    for game in report.games:
        text, n = _game(game, n)
        games.append(text)
    who = report.player
    title = "Chinese poker report" + (f": {who}" if who else "")
    hands = json.dumps({"hands": report.hands}, ensure_ascii=True, default=str)
    hands = hands.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    made = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    shown = {**report.filters(), "rules": report.name(report.lead)}
    shown["compared"] = [report.name(k) for k in report.compared]
    data = json.dumps(shown, ensure_ascii=True).replace("<", "\\u003c")
    read = (
        f"as if played under {report.name(report.lead)}"
        if report.lead
        else "each hand under the rules it was played by"
    )
    notes = "".join(f'<p class="note">{html.escape(n)}</p>' for n in report.notes)
    if served is None:
        scripts = f"<script>{_plotly_js()}</script>\n<script>{_asset('report.js')}</script>"
    else:
        scripts = "\n".join(f'<script src="{html.escape(src)}"></script>' for src in served.scripts)
    return f"""<!DOCTYPE html>
<html lang="en" data-charts="{charts}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{html.escape(title)}</title>
<style>{PAGE_CSS}{_asset("report.css")}{served.stylesheet if served else ""}</style>
<script>{_STATUS}</script>
{scripts}
<script type="application/json" id="report-filters">{data}</script>
<script type="application/json" id="report-hands">{hands}</script>
</head>
<body>
<header><h1>{html.escape(title)}</h1><div>{html.escape(read)}; each game on its own</div></header>
{served.top if served else ""}
{_tabs(report, served)}
{notes}{"".join(body)}
{"".join(games)}
<footer>ofc-analytics {html.escape(__version__)}, made {html.escape(made)}.</footer>
</body>
</html>
"""
