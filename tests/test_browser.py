"""The report in a real browser: headless Chromium opens the file offline; every chart must draw, no script may fail.

Chromium comes from Debian (``make test`` installs it when missing and run as root). Without it and without
the right to install it the test is skipped, saying so; as root it installs it here rather than skip.
"""

from __future__ import annotations

import html
import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from ofc.reports.html import render
from ofc.reports.report import Options, Report, build
from tests.test_report_lake import XSS, ReportLake, shared_lake


@pytest.fixture(scope="module")
def report_lake(tmp_path_factory: pytest.TempPathFactory) -> ReportLake:
    return shared_lake(tmp_path_factory)


BROWSERS = ("chromium", "chromium-browser", "google-chrome")
FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--hide-scrollbars")
BUDGET_MS = 10_000
"""Virtual time the page gets to run its scripts (it draws every chart well within it)."""


def find_browser() -> str:
    found = next((p for p in map(shutil.which, BROWSERS) if p), None)
    if found:
        return found
    if os.geteuid() != 0 or shutil.which("apt-get") is None:
        pytest.skip("chromium is not installed and cannot be installed here (needs root and apt-get)")
    install = subprocess.run(
        ["apt-get", "install", "-y", "-q", "chromium"],
        capture_output=True,
        text=True,
        env={**os.environ, "DEBIAN_FRONTEND": "noninteractive"},
        timeout=900,
    )
    found = shutil.which("chromium")
    assert found, f"installing chromium failed:\n{install.stdout[-2000:]}\n{install.stderr[-2000:]}"
    return found


DRIVER = """
<script>
window.addEventListener("load", function () {
  var root = document.documentElement;
  function values(block, column) {
    return Array.prototype.map.call(block.querySelectorAll("tbody tr"), function (tr) {
      return tr.cells[column].getAttribute("data-v");
    });
  }
  try {
    var block = document.querySelector('.table-block[data-name="results_by_player"]');
    var header = block.querySelectorAll("th")[3];
    header.click();
    root.setAttribute("data-sorted-once", JSON.stringify(values(block, 3)));
    root.setAttribute("data-aria-once", header.getAttribute("aria-sort"));
    header.click();
    root.setAttribute("data-sorted-twice", JSON.stringify(values(block, 3)));
    var link = document.querySelector("a.hand-link");
    root.setAttribute("data-clicked", link.getAttribute("data-hand"));
    link.click();
    var dialog = document.querySelector("dialog.hand-viewer");
    root.setAttribute("data-dialog-open", String(dialog.open));
    root.setAttribute("data-boards", String(dialog.querySelectorAll("article.board").length));
    root.setAttribute("data-cards", String(dialog.querySelectorAll("article.board .card").length));
    root.setAttribute("data-first-open", root.getAttribute("data-hand-open"));
    window.ofcReport.closeHand();
    // The games: one shown at a time; a tab shows its game.
    var tabs = document.querySelectorAll(".game-tab");
    var last = tabs[tabs.length - 1];
    last.click();
    var shown = Array.prototype.filter.call(document.querySelectorAll(".game"), function (g) {
      return g.offsetParent !== null;
    });
    root.setAttribute("data-games-shown", shown.map(function (g) { return g.dataset.game; }).join(","));
    root.setAttribute("data-tab-clicked", last.dataset.game);
    // A classic hand is shown as set at once: no streets.
    var classic = root.getAttribute("data-classic-hand");
    if (classic) {
      window.ofcReport.openHand(classic);
      root.setAttribute("data-classic-streets", String(dialog.querySelectorAll(".hv-streets").length));
      root.setAttribute("data-classic-text", dialog.textContent.indexOf("Street by street") >= 0 ? "streets" : "set");
    }
  } catch (e) {
    root.setAttribute("data-driver-error", String(e && e.message || e));
  }
});
</script>
"""
"""Acts as a user once the page has loaded: sorts a table by a column (twice) and opens the first listed hand;
writes what it saw onto ``<html>``."""


def _run(browser: str, folder: Path, page: Path, *args: str) -> subprocess.CompletedProcess[str]:
    common = [browser, *FLAGS, f"--virtual-time-budget={BUDGET_MS}", f"--user-data-dir={folder / 'profile'}"]
    done = subprocess.run([*common, *args], capture_output=True, text=True, timeout=180)
    assert done.returncode == 0, done.stderr[-3000:]
    return done


@pytest.fixture(scope="module")
def report(report_lake: ReportLake) -> Report:
    return build(report_lake.lake, Options(min_hands=1))


@pytest.fixture(scope="module")
def opened(report: Report, tmp_path_factory: pytest.TempPathFactory) -> tuple[str, str, Path]:
    """(the DOM after the scripts and the driver ran, the browser's log, the screenshot)."""
    browser = find_browser()
    folder = tmp_path_factory.mktemp("browser")
    text = render(report)
    page = folder / "report.html"
    page.write_text(text, encoding="utf-8")
    driven = folder / "driven.html"
    classic = next(k for k, hand in report.hands.items() if hand["variant"] == "classic")
    marked = text.replace('<html lang="en"', f'<html lang="en" data-classic-hand="{classic}"', 1)
    driven.write_text(marked.replace("</body>", DRIVER + "</body>"), encoding="utf-8")
    dom = _run(browser, folder, driven, "--enable-logging=stderr", "--v=0", "--dump-dom", driven.as_uri())
    shot = folder / "report.png"
    _run(browser, folder, page, "--window-size=1400,3000", f"--screenshot={shot}", page.as_uri())
    print(f"screenshot: {shot}")
    return dom.stdout, dom.stderr, shot


def _root(dom: str) -> str:
    return re.search(r"<html[^>]*>", dom).group(0)


def test_every_chart_rendered(opened: tuple[str, str, Path]) -> None:
    dom, _, _ = opened
    root = _root(dom)
    charts = int(re.search(r'data-charts="(\d+)"', root).group(1))
    assert charts >= 10
    rendered = re.search(r'data-charts-rendered="(\d+)"', root)
    assert rendered is not None, root
    assert int(rendered.group(1)) == charts, root
    parts = re.split(r'<div class="chart[^"]*" id="chart-\d+"', dom)[1:]
    assert len(parts) == charts
    for i, part in enumerate(parts, 1):
        assert 'class="main-svg"' in part.split("</section>")[0].split('id="chart-')[0], f"chart {i} has no SVG"


def test_no_script_error(opened: tuple[str, str, Path]) -> None:
    dom, log, _ = opened
    assert "data-errors" not in _root(dom)
    assert "Uncaught" not in log, log[-3000:]


def test_hostile_names_show_as_text(opened: tuple[str, str, Path]) -> None:
    dom, _, _ = opened
    assert "<img" not in dom
    assert html.escape(XSS[0], quote=False) in dom  # the page shows the name, it does not run it
    assert "data-pwned" not in _root(dom)
    scripts = dom.count("<script")
    charts = int(re.search(r'data-charts="(\d+)"', _root(dom)).group(1))
    assert scripts == charts + 6  # the page's own three, filters, hands, driver, one per chart: nothing injected


def _attr(dom: str, name: str) -> str:
    found = re.search(rf'{name}="([^"]*)"', _root(dom))
    assert found is not None, f"{name} missing: {_root(dom)[:500]}"
    return html.unescape(found.group(1))


def test_a_table_sorts_by_a_column(opened: tuple[str, str, Path], report: Report) -> None:
    dom, _, _ = opened
    assert "data-driver-error" not in _root(dom), _root(dom)
    players = next(t for s in report.sections for t in s.tables if t.name == "results_by_player").rows
    expected = sorted((r["points_per_hand"] for r in players), reverse=True)  # a number column: high first
    once = [float(v) for v in json.loads(_attr(dom, "data-sorted-once"))]
    assert once == pytest.approx(expected)
    assert _attr(dom, "data-aria-once") == "descending"
    twice = [float(v) for v in json.loads(_attr(dom, "data-sorted-twice"))]
    assert twice == pytest.approx(expected[::-1])


def test_a_listed_hand_opens_with_every_board(opened: tuple[str, str, Path], report: Report) -> None:
    dom, _, _ = opened
    hand = report.hands[_attr(dom, "data-clicked")]
    assert _attr(dom, "data-dialog-open") == "true"
    assert int(_attr(dom, "data-boards")) == len(hand["boards"])
    assert int(_attr(dom, "data-cards")) == 13 * len(hand["boards"])
    assert _attr(dom, "data-first-open") == hand["id"]


def test_screenshot_saved(opened: tuple[str, str, Path]) -> None:
    _, _, shot = opened
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert shot.stat().st_size > 50_000


def test_one_game_shows_at_a_time_and_a_tab_switches(opened: tuple[str, str, Path], report: Report) -> None:
    dom, _, _ = opened
    assert "data-driver-error" not in _root(dom), _root(dom)
    assert _attr(dom, "data-games-shown") == _attr(dom, "data-tab-clicked") == report.games[-1].variant


def test_a_classic_hand_is_shown_as_set_at_once(opened: tuple[str, str, Path]) -> None:
    dom, _, _ = opened
    assert _attr(dom, "data-classic-streets") == "0"
    assert _attr(dom, "data-classic-text") == "set"
