"""The report in a real browser: headless Chromium opens the file offline; every chart must draw, no script may fail.

Chromium comes from Debian (``make test`` installs it when missing and run as root). Without it and without
the right to install it the test is skipped, saying so; as root it installs it here rather than skip.
"""

from __future__ import annotations

import html
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from reports.html import render
from reports.report import Options, build
from tests.test_report_lake import XSS, ReportLake, shared_lake


@pytest.fixture(scope="module")
def report_lake(tmp_path_factory: pytest.TempPathFactory) -> ReportLake:
    return shared_lake(tmp_path_factory)


BROWSERS = ("chromium", "chromium-browser", "google-chrome")
FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--hide-scrollbars")
BUDGET_MS = 10_000
"""Virtual time the page gets to run its scripts (it draws every chart well within it)."""


def _browser() -> str:
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


@pytest.fixture(scope="module")
def opened(report_lake: ReportLake, tmp_path_factory: pytest.TempPathFactory) -> tuple[str, str, Path]:
    """(the DOM after the scripts ran, the browser's log, the screenshot)."""
    browser = _browser()
    folder = tmp_path_factory.mktemp("browser")
    page = folder / "report.html"
    page.write_text(render(build(report_lake.lake, Options())), encoding="utf-8")
    common = [browser, *FLAGS, f"--virtual-time-budget={BUDGET_MS}", f"--user-data-dir={folder / 'profile'}"]
    dom = subprocess.run(
        [*common, "--enable-logging=stderr", "--v=0", "--dump-dom", page.as_uri()],
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert dom.returncode == 0, dom.stderr[-3000:]
    shot = folder / "report.png"
    snap = subprocess.run(
        [*common, "--window-size=1280,3000", f"--screenshot={shot}", page.as_uri()],
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert snap.returncode == 0, snap.stderr[-3000:]
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
    scripts = dom.count("<script")
    charts = int(re.search(r'data-charts="(\d+)"', _root(dom)).group(1))
    assert scripts == charts + 3  # the page's own two, the filters, one per chart: nothing injected


def test_screenshot_saved(opened: tuple[str, str, Path]) -> None:
    _, _, shot = opened
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert shot.stat().st_size > 50_000
