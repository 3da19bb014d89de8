"""The hand viewer's layout in a real browser, at a desktop, a laptop and a phone width.

Each board's royalty column must show whole (no part cut off or painted over by the next board, no sideways
overflow of the viewer); a discarded card must read as clearly as a placed one (its rank and suit in the suit's own
colour at a text contrast of 4.5:1 or more, the card not faded below 0.6) while saying that it was discarded (its
accessible name, and a legend). The page measures itself: a script appended to a copy of the report writes what it
found onto ``<html>``, and headless Chromium's ``--dump-dom`` hands it back.
"""

from __future__ import annotations

import html
import json
import re
import subprocess
from typing import Any

import pytest

from ofc.reports.html import render
from ofc.reports.report import Options, Report, build
from tests.test_browser import FLAGS, find_browser
from tests.test_report_lake import ReportLake, shared_lake

WIDTHS = (1400, 1000, 420)

MEASURE = """
<script>
window.addEventListener("load", function () {
  var root = document.documentElement, out = {};
  function rgba(text) {
    var m = /rgba?\\(([^)]+)\\)/.exec(text || "");
    if (!m) return [0, 0, 0, 0];
    var p = m[1].split(/[ ,\\/]+/).filter(Boolean).map(Number);
    return [p[0], p[1], p[2], p.length > 3 ? p[3] : 1];
  }
  function over(top, under) {  // top (with its alpha) painted over an opaque colour
    return [0, 1, 2].map(function (i) { return top[i] * top[3] + under[i] * (1 - top[3]); }).concat([1]);
  }
  function mix(a, b, k) {  // a seen through opacity k over b
    return [0, 1, 2].map(function (i) { return a[i] * k + b[i] * (1 - k); }).concat([1]);
  }
  function luminance(c) {
    var l = c.slice(0, 3).map(function (v) {
      v /= 255;
      return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4);
    });
    return 0.2126 * l[0] + 0.7152 * l[1] + 0.0722 * l[2];
  }
  function contrast(a, b) {
    var x = luminance(a), y = luminance(b);
    return (Math.max(x, y) + 0.05) / (Math.min(x, y) + 0.05);
  }
  function backdrop(node) {  // the opaque colour behind a node: its ancestors' backgrounds, white at the bottom
    var chain = [];
    for (var n = node.parentElement; n; n = n.parentElement) chain.push(rgba(getComputedStyle(n).backgroundColor));
    return chain.reverse().reduce(function (under, c) { return over(c, under); }, [255, 255, 255, 1]);
  }
  function opacity(node, stop) {
    var k = 1;
    for (var n = node; n && n !== stop; n = n.parentElement) k *= Number(getComputedStyle(n).opacity);
    return k;
  }
  try {
    var dialog = document.querySelector("dialog.hand-viewer");
    out.open = !!(dialog && dialog.open);
    var view = root.clientWidth, box = dialog.getBoundingClientRect();
    out.viewport = view;
    out.dialogOverflow = dialog.scrollWidth - dialog.clientWidth;
    out.royalties = 0;
    out.clipped = [];
    dialog.querySelectorAll("article.board").forEach(function (board, b) {
      var edge = board.getBoundingClientRect();
      board.querySelectorAll(".royalty, .row-hand, .cards, .net").forEach(function (node) {
        var r = node.getBoundingClientRect();
        if (node.classList.contains("royalty") && node.textContent.trim()) out.royalties += 1;
        if (!r.width) return;
        var limit = Math.min(edge.right, box.right, view) + 0.5;
        if (r.right > limit || r.left < Math.max(edge.left, box.left, 0) - 0.5) {
          out.clipped.push({board: b, cls: node.className, text: node.textContent, right: r.right, limit: limit});
        }
      });
    });
    // A placed card's colour for each suit, to compare the discarded cards' with.
    out.suitColours = {};
    dialog.querySelectorAll("article.board .card[class*='suit-']").forEach(function (card) {
      out.suitColours[/suit-(.)/.exec(card.className)[1]] = getComputedStyle(card).color;
    });
    out.discards = [];
    dialog.querySelectorAll(".discarded .card").forEach(function (card) {
      var style = getComputedStyle(card), under = backdrop(card);
      var face = over(rgba(style.backgroundColor), under);
      var k = opacity(card, dialog);
      var worst = Infinity;
      card.querySelectorAll(".rank, .suit").forEach(function (glyph) {
        var ink = over(rgba(getComputedStyle(glyph).color), face);
        worst = Math.min(worst, contrast(mix(ink, under, k), mix(face, under, k)));
      });
      out.discards.push({
        suit: (/suit-(.)/.exec(card.className) || [])[1] || null,
        colour: style.color,
        opacity: k,
        contrast: worst,
        label: card.getAttribute("aria-label") || ""
      });
    });
    var legend = dialog.querySelector(".hv-legend");
    out.legend = legend ? legend.textContent : null;
  } catch (e) {
    out.error = String(e && e.message || e);
  }
  root.setAttribute("data-layout", JSON.stringify(out));
  if (window.parent !== window) window.parent.postMessage(JSON.stringify(out), "*");
});
</script>
"""
"""Runs once the page has loaded (the viewer opened from the address by then) and records the layout."""


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> Report:
    lake: ReportLake = shared_lake(tmp_path_factory)
    return build(lake.lake, Options(min_hands=1))


def _discards(hand: dict[str, Any]) -> int:
    return sum(len(s.get("discarded") or []) for b in hand["boards"] for s in b.get("streets") or [])


def _royalties(hand: dict[str, Any]) -> int:
    return sum(1 for b in hand["boards"] for r in b["rows"] if r.get("royalty"))


def _pick(hands: dict[str, Any], **where: Any) -> str:
    """The hand with the most boards, then the most royalties shown (the widest rows), among those with discards
    (``discards=True``) or among all."""
    found = [(k, h) for k, h in hands.items() if not where.get("discards") or _discards(h)]
    assert found, "the test lake has no hand with discards"
    key, hand = max(found, key=lambda kh: (len(kh[1]["boards"]), _royalties(kh[1])))
    assert len(hand["boards"]) >= 3, hand["id"]
    assert _royalties(hand) > 0, hand["id"]
    return key


@pytest.fixture(scope="module")
def hand_ids(report: Report) -> dict[str, str]:
    """A hand of the most players, and a Pineapple hand with discards."""
    return {"widest": _pick(report.hands), "discards": _pick(report.hands, discards=True)}


FRAMES = """<!DOCTYPE html>
<html><head><meta charset="utf-8"></head><body style="margin:0">
{frames}
<script>
var got = {{}}, frames = document.querySelectorAll("iframe");
window.addEventListener("message", function (e) {{
  frames.forEach(function (f) {{ if (f.contentWindow === e.source) got[f.dataset.key] = JSON.parse(e.data); }});
  document.documentElement.setAttribute("data-layout", JSON.stringify(got));
}});
</script>
</body></html>
"""
"""The report in frames of exact widths (a browser window cannot be made as narrow as a phone); each frame's page
posts what it measured to this one, which writes it all onto its ``<html>``."""


@pytest.fixture(scope="module")
def measured(
    report: Report, hand_ids: dict[str, str], tmp_path_factory: pytest.TempPathFactory
) -> dict[str, dict[str, Any]]:
    """Per "WIDTH/which" (which: widest, discards): what the page measured with that hand open."""
    browser = find_browser()
    folder = tmp_path_factory.mktemp("viewer-layout")
    page = folder / "measured.html"
    page.write_text(render(report).replace("</body>", MEASURE + "</body>"), encoding="utf-8")
    frames = "\n".join(
        f'<iframe data-key="{width}/{which}" src="{page.as_uri()}#hand-{key}" '
        f'style="display:block;border:0;width:{width}px;height:900px"></iframe>'
        for width in WIDTHS
        for which, key in hand_ids.items()
    )
    outer = folder / "frames.html"
    outer.write_text(FRAMES.format(frames=frames), encoding="utf-8")
    command = [
        browser,
        *FLAGS,
        "--virtual-time-budget=20000",
        f"--user-data-dir={folder / 'profile'}",
        "--window-size=1500,1000",
        "--dump-dom",
        outer.as_uri(),
    ]
    done = subprocess.run(command, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    start = re.search(r"<html[^>]*>", done.stdout)
    assert start, done.stdout[:2000]
    data = re.search(r'data-layout="([^"]*)"', start.group(0))
    assert data, f"no frame measured itself: {start.group(0)[:2000]}"
    found: dict[str, dict[str, Any]] = json.loads(html.unescape(data.group(1)))
    assert sorted(found) == sorted(f"{w}/{which}" for w in WIDTHS for which in hand_ids), sorted(found)
    for key, seen in found.items():
        assert "error" not in seen, (key, seen)
        assert seen["open"] is True, key
        assert seen["viewport"] == int(key.split("/")[0]), (key, seen["viewport"])
    return found


def test_at_every_width_royalties_show_whole_and_discards_read_clearly(measured: dict[str, dict[str, Any]]) -> None:
    """One test of every width and hand, not one a width: a worker that runs any of them measures the layouts
    (half a minute of Chromium), and the suite's workers would each measure them."""
    for width in WIDTHS:
        for which in ("widest", "discards"):
            seen = measured[f"{width}/{which}"]
            at = f"{width}px, {which}"
            assert seen["royalties"] > 0, at
            assert seen["clipped"] == [], (at, seen["clipped"])
            assert seen["dialogOverflow"] <= 0, f"{at}: the viewer scrolls sideways by {seen['dialogOverflow']}px"
        seen = measured[f"{width}/discards"]
        at = f"{width}px"
        assert seen["discards"], f"{at}: no discarded card drawn"
        for card in seen["discards"]:
            assert card["opacity"] >= 0.6, (at, card)
            assert card["contrast"] >= 4.5, (at, card)
            assert "discarded" in card["label"], (at, card)
            if card["suit"] in seen["suitColours"]:
                assert card["colour"] == seen["suitColours"][card["suit"]], (at, card)  # the suit's own colour
        colours = {c["suit"]: c["colour"] for c in seen["discards"] if c["suit"]}
        assert len(set(colours.values())) == len(colours), at  # suits still told apart by colour
        assert seen["legend"] is not None, f"{at}: no legend for the discard marker"
        assert "discarded" in seen["legend"], at
