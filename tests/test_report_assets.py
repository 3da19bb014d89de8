"""The report's own script and style (reports/assets): tables sort, filter and save as CSV; the hand viewer opens
hands from links and from the address. A fixture page embeds both assets, a driver script acts like a user through
the DOM and writes what it saw onto ``<html>``; headless Chromium runs it offline and ``--dump-dom`` hands it back.

``python -m tests.test_report_assets PAGE.html`` writes the fixture page (one column sorted, no driver) to look at.
"""

from __future__ import annotations

import html
import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.test_browser import FLAGS, find_browser

ASSETS = Path(__file__).resolve().parents[1] / "reports" / "assets"
XSS_NAME = "<script>document.documentElement.setAttribute('data-pwned','1')</script>"
QUOTED = 'Eve "the, quick"'
FORMULA = "=HYPERLINK(1)"

# (player, hands, points per hand): None is a null; "Dee 9" before "Dee 10" needs numeric collation.
RESULTS: list[tuple[str, int | None, float | None]] = [
    ("Ann", 1234, 0.43449149),
    ("Bob", 20, -1.5),
    (XSS_NAME, 5, None),
    ("Dee 10", None, 2.0),
    ("Dee 9", 7, 0.25),
    (QUOTED, 3, -0.125),
    (FORMULA, 1, 0.0),
]
LONG_ROWS = 30


def _row(row: tuple[str, int | None, float | None]) -> str:
    name, hands, pph = row
    raw = ["" if v is None else str(v) for v in row]
    shown = [name, "" if hands is None else f"{hands:,}", "" if pph is None else f"{pph:.2f}"]
    kinds = ("text", "num", "num")
    cells = "".join(
        f'<td class="{k}" data-v="{html.escape(r)}">{html.escape(s)}</td>'
        for k, r, s in zip(kinds, raw, shown, strict=True)
    )
    return f"<tr>{cells}</tr>"


def _block(name: str, caption: str, head: str, rows: str, note: str = "") -> str:
    more = f'<p class="table-more">{html.escape(note)}</p>' if note else ""
    return f"""<div class="table-block" data-name="{name}">
  <div class="table-tools">
    <span class="table-caption">{html.escape(caption)}</span>
    <input type="search" class="table-filter" placeholder="Filter rows" aria-label="Filter rows of {caption}">
    <button type="button" class="table-csv">Save CSV</button>
    <span class="table-count"></span>
  </div>
  <div class="table-scroll"><table class="data"><thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table></div>
  {more}
</div>"""


def _rows(*rows: tuple[str, str | None, int | None]) -> list[dict[str, Any]]:
    """A board's rows, top to bottom, each given as (cards, hand, royalty)."""
    return [
        {"row": row, "cards": cards.split(), "hand": hand, "royalty": royalty}
        for row, (cards, hand, royalty) in zip(("top", "middle", "bottom"), rows, strict=True)
    ]


def _hands() -> dict[str, Any]:
    ann = {
        "player": "Ann",
        "seat": 0,
        "position": "button",
        "fantasyland": False,
        "fouled": True,
        "rows": _rows(
            ("Ah Ad 2c", "pair of aces", 9),
            ("Kc Ks 3d 4h 9s", "pair of kings", 0),
            ("Qc Qd 5s 6s 7c", "pair of queens", 0),
        ),
        "royalties": 0,
        "points": -18,
        "streets": [
            {"street": 1, "placed": [{"card": "Ah", "row": "top"}, {"card": "Kc", "row": "middle"}], "discarded": []},
            {"street": 2, "placed": [{"card": "Ad", "row": "top"}], "discarded": ["7d"]},
        ],
    }
    hostile = {
        "player": XSS_NAME,
        "seat": 1,
        "position": "1st to act",
        "entry": True,
        "rows": _rows(
            ("Qh Qs 8d", "pair of queens", 7),
            ("Th Jh 9h 8h 7h", "straight flush", 30),
            ("?? ?? 2s 2d", None, None),
        ),
        "royalties": 37,
        "points": 18,
        "streets": None,
    }
    h1 = {
        "id": "h1",
        "title": "Ann fouled: -18 points",
        "hand_id": "sim-1-42",
        "session": "club night 2024-11-08",
        "table": "t1",
        "hand_number": 42,
        "played_at": "2024-11-08 20:15 UTC",
        "variant": "pineapple",
        "rules": "pineapple",
        "boards": [ann, hostile],
        "pairs": [
            {
                "a": "Ann",
                "b": XSS_NAME,
                "settled": "foul",
                "rows": [-1, -1, -1],
                "scoop": -1,
                "royalties_a": 0,
                "royalties_b": 37,
                "points": -18,
            }
        ],
        "compare": [{"rules": "ofc", "points": {"Ann": -12, XSS_NAME: 12}}],
        "decisions": [
            {
                "player": "Ann",
                "street": 2,
                "kind": "discard",
                "dealt": "Ah Kd 2c",
                "played": "top Ah · middle 2c · discard Kd",
                "best": "middle Ah Kd · discard 2c",
                "ev_played": -3.25,
                "ev_best": 4.5,
                "ev_lost": 7.75,
                "se": 0.42,
            }
        ],
    }
    fl = {
        "player": "Cy",
        "seat": 0,
        "fantasyland": True,
        "fantasyland_cards": 14,
        "stay": True,
        "natural": None,
        "rows": _rows(
            ("Kh Kd Ks", "three kings", 20),
            ("2h 3h 4h 5h 6h", "straight flush", 30),
            ("Ac Ad Ah As 9c", "four aces", 10),
        ),
        "points": 65,
    }
    dan = {
        "player": "Dan",
        "seat": 1,
        "surrendered": True,
        "rows": [{"row": "top", "cards": []}, {"row": "middle", "cards": []}, {"row": "bottom", "cards": []}],
        "points": -65,
    }
    h2 = {"id": "h2", "title": "Cy stays in Fantasyland", "boards": [fl, dan], "pairs": None, "compare": None}
    return {"hands": {"h1": h1, "h2": h2}}


def _json_for_script(data: Any) -> str:
    """JSON that cannot close its ``<script>`` element (the page's builder must do the same)."""
    return json.dumps(data).replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


ERRORS = """
(function () {
  var root = document.documentElement, errors = [];
  function failed(m) { errors.push(String(m)); root.setAttribute("data-errors", JSON.stringify(errors)); }
  window.addEventListener("error", function (e) { failed(e.message || e); });
  window.addEventListener("unhandledrejection", function (e) { failed(e.reason && e.reason.message || e.reason); });
})();
"""


def fixture_page(driver: str = "") -> str:
    """A page shaped like the report's: two tables, a hand link, the hands' JSON, both assets inline."""
    head = '<th data-type="text">Player</th><th data-type="num">Hands</th><th data-type="num">Points per hand</th>'
    results = "".join(map(_row, RESULTS))
    link = (
        '<tr><td class="text" data-v="h1"><a class="hand-link" data-hand="h1" href="#hand-h1">Ann fouled</a></td></tr>'
    )
    long_rows = "".join(
        f'<tr><td data-v="{i}">{i}</td><td class="text" data-v="p{i}">p{i}</td></tr>' for i in range(LONG_ROWS)
    )
    long_head = '<th data-type="num">N</th><th data-type="text">Name</th>'
    css = (ASSETS / "report.css").read_text(encoding="utf-8")
    js = (ASSETS / "report.js").read_text(encoding="utf-8")
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>report assets fixture</title>
<script>{ERRORS}</script>
<style>
body {{ font-family: system-ui, sans-serif; margin: 0; color: #222; background: #fafafa; }}
section {{ background: #fff; margin: 1.2rem 2rem; padding: 1rem 1.5rem; border-radius: 6px; }}
table {{ border-collapse: collapse; font-size: .82rem; margin: .5rem 0 1rem 0; }}
th, td {{ border-bottom: 1px solid #e3e3e3; padding: .2rem .6rem; text-align: right; }}
th {{ background: #f2f6fa; position: sticky; top: 2.2rem; }}
</style>
<style>{css}</style>
<script type="application/json" id="report-hands">{_json_for_script(_hands())}</script>
</head>
<body>
<section id="results">
{_block("results", "Results by player", head, results, "(a note under the table)")}
{_block("hands", "Hands to look at", '<th data-type="text">Hand</th>', link)}
{_block("long", "A long table", long_head, long_rows)}
</section>
<script>{js}</script>
<script>{driver}</script>
</body>
</html>
"""


DRIVER = """
window.addEventListener("load", function () {
  var root = document.documentElement, out = {};
  function block(name) { return document.querySelector('.table-block[data-name="' + name + '"]'); }
  function column(name, i) {
    return Array.from(block(name).querySelectorAll("tbody tr"), function (tr) { return tr.cells[i].textContent; });
  }
  function visible(name) {
    return Array.from(block(name).querySelectorAll("tbody tr"))
      .filter(function (tr) { return !tr.hidden; })
      .map(function (tr) { return tr.cells[0].textContent; });
  }
  function sorts(name) {
    return Array.from(block(name).querySelectorAll("th"), function (th) { return th.getAttribute("aria-sort"); });
  }
  function click(name, i) { block(name).querySelectorAll("th")[i].click(); }
  function filter(name, text) {
    var box = block(name).querySelector(".table-filter");
    box.value = text;
    box.dispatchEvent(new Event("input", {bubbles: true}));
    return {count: block(name).querySelector(".table-count").textContent, rows: visible(name)};
  }
  function viewer() {
    var d = document.querySelector("dialog.hand-viewer");
    return {
      open: !!(d && d.open),
      handOpen: root.getAttribute("data-hand-open"),
      players: d ? Array.from(d.querySelectorAll(".board .player"), function (p) { return p.textContent; }) : [],
      text: d ? d.textContent : "",
      focus: document.activeElement ? document.activeElement.className : "",
      hash: location.hash
    };
  }
  out.initial = {names: column("results", 0), count: block("results").querySelector(".table-count").textContent};
  out.tabindex = block("results").querySelector("th").getAttribute("tabindex");
  click("results", 1);
  out.handsOnce = {names: column("results", 0), sorts: sorts("results")};
  click("results", 1);
  out.handsTwice = {names: column("results", 0), sorts: sorts("results")};
  click("results", 2);
  out.pphOnce = column("results", 0);
  click("results", 2);
  out.pphTwice = column("results", 0);
  click("results", 0);
  out.nameOnce = {names: column("results", 0), sorts: sorts("results")};
  var th = block("results").querySelectorAll("th")[0];
  th.dispatchEvent(new KeyboardEvent("keydown", {key: "Enter", bubbles: true}));
  out.nameEnter = {names: column("results", 0), sorts: sorts("results")};
  window.ofcReport.sortTable(block("results").querySelector("table"), 0, false);
  out.filterAnn = filter("results", "ANN");
  out.filterWords = filter("results", "dee 10");
  out.filterAcross = filter("results", "ann 1,234");
  out.filterNone = filter("results", "zzz");
  out.filterE = filter("results", "e");
  out.csvFiltered = window.ofcReport.csv(block("results"));
  out.filterCleared = filter("results", "");
  out.csvAll = window.ofcReport.csv(block("results"));
  out.longBefore = {rows: visible("long").length, more: block("long").querySelector(".table-showall").textContent,
                    count: block("long").querySelector(".table-count").textContent};
  block("long").querySelector(".table-showall").click();
  out.longAfter = {rows: visible("long").length, hidden: block("long").querySelector(".table-showall").hidden};
  out.longFiltered = filter("long", "p1");
  out.scriptsBefore = document.scripts.length;
  document.querySelector("a.hand-link").click();
  out.linkOpened = viewer();
  out.scriptsAfter = document.scripts.length;
  out.cards = Array.from(document.querySelectorAll(".hand-viewer .card[aria-label]"), function (c) {
    return c.getAttribute("aria-label");
  });
  out.marks = Array.from(document.querySelectorAll(".hand-viewer .mark"), function (m) { return m.textContent; });
  document.querySelector(".hand-viewer .hv-close").click();
  out.closed = viewer();
  window.ofcReport.openHand("no-such-hand");
  out.unknown = viewer();
  window.ofcReport.closeHand();
  location.hash = "#hand-h2";
  setTimeout(function () {
    out.hashOpened = viewer();
    var d = document.querySelector("dialog.hand-viewer");
    d.requestClose ? d.requestClose() : d.close();  // as Esc does: the dialog closes, "close" comes later
    setTimeout(function () {
      out.escaped = viewer();
      root.setAttribute("data-results", JSON.stringify(out));
    }, 200);
  }, 200);
});
"""

OPENED_DRIVER = """
window.addEventListener("load", function () {
  var d = document.querySelector("dialog.hand-viewer");
  document.documentElement.setAttribute("data-results", JSON.stringify({
    open: !!(d && d.open),
    handOpen: document.documentElement.getAttribute("data-hand-open"),
    players: d ? Array.from(d.querySelectorAll(".board .player"), function (p) { return p.textContent; }) : []
  }));
});
"""


def _chromium(page: Path, folder: Path, *args: str, fragment: str = "") -> subprocess.CompletedProcess[str]:
    command = [
        find_browser(),
        *FLAGS,
        "--virtual-time-budget=5000",
        f"--user-data-dir={folder / 'profile'}",
        *args,
        page.as_uri() + fragment,
    ]
    done = subprocess.run(command, capture_output=True, text=True, timeout=180)
    assert done.returncode == 0, done.stderr[-3000:]
    return done


def _run(folder: Path, driver: str, fragment: str = "") -> tuple[dict[str, Any], str]:
    """(what the driver recorded, the whole ``<html>`` start tag) after the page ran in Chromium."""
    page = folder / "page.html"
    page.write_text(fixture_page(driver), encoding="utf-8")
    dom = _chromium(page, folder, "--dump-dom", fragment=fragment).stdout
    start = re.search(r"<html[^>]*>", dom)
    assert start, dom[:2000]
    found = re.search(r'data-results="([^"]*)"', start.group(0))
    assert found, f"the driver did not finish: {start.group(0)[:2000]}"
    return json.loads(html.unescape(found.group(1))), start.group(0)


@pytest.fixture(scope="module")
def acted(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, Any], str]:
    return _run(tmp_path_factory.mktemp("assets"), DRIVER)


def test_numbers_sort_high_first_then_reverse_nulls_last(acted: tuple[dict[str, Any], str]) -> None:
    out, _ = acted
    assert out["tabindex"] == "0"
    assert out["initial"]["names"] == [r[0] for r in RESULTS]
    assert out["handsOnce"]["names"] == ["Ann", "Bob", "Dee 9", XSS_NAME, QUOTED, FORMULA, "Dee 10"]
    assert out["handsOnce"]["sorts"] == [None, "descending", None]
    assert out["handsTwice"]["names"] == [FORMULA, QUOTED, XSS_NAME, "Dee 9", "Bob", "Ann", "Dee 10"]
    assert out["handsTwice"]["sorts"] == [None, "ascending", None]
    assert out["pphOnce"] == ["Dee 10", "Ann", "Dee 9", FORMULA, QUOTED, "Bob", XSS_NAME]
    assert out["pphTwice"] == ["Bob", QUOTED, FORMULA, "Dee 9", "Ann", "Dee 10", XSS_NAME]


def test_text_sorts_a_to_z_with_numbers_in_names_then_reverses(acted: tuple[dict[str, Any], str]) -> None:
    out, _ = acted
    # Punctuation sorts before letters; numeric collation puts "Dee 9" before "Dee 10".
    a_to_z = [XSS_NAME, FORMULA, "Ann", "Bob", "Dee 9", "Dee 10", QUOTED]
    assert out["nameOnce"] == {"names": a_to_z, "sorts": ["ascending", None, None]}
    # Enter on the focused header sorts like a click: the second time, Z to A.
    assert out["nameEnter"] == {"names": a_to_z[::-1], "sorts": ["descending", None, None]}


def test_filter_matches_every_word_anywhere_in_the_row(acted: tuple[dict[str, Any], str]) -> None:
    out, _ = acted
    assert out["initial"]["count"] == "7 rows"
    assert out["filterAnn"] == {"count": "1 of 7 rows", "rows": ["Ann"]}
    assert out["filterWords"] == {"count": "1 of 7 rows", "rows": ["Dee 10"]}
    assert out["filterAcross"] == {"count": "1 of 7 rows", "rows": ["Ann"]}
    assert out["filterNone"] == {"count": "0 of 7 rows", "rows": []}
    assert out["filterCleared"]["count"] == "7 rows"
    assert len(out["filterCleared"]["rows"]) == len(RESULTS)


def test_csv_holds_the_shown_rows_raw_and_quoted(acted: tuple[dict[str, Any], str]) -> None:
    out, _ = acted
    header = "Player,Hands,Points per hand\r\n"
    # After sortTable(Player, ascending) and the filter "e" (which "document" and "HYPERLINK" hold too):
    assert out["filterE"]["count"] == "5 of 7 rows"
    assert out["csvFiltered"] == header + "\r\n".join(
        [
            '"' + XSS_NAME + '",5,',  # the comma in it needs quotes
            "'=HYPERLINK(1),1,0.0",  # a formula in a text column stays text
            "Dee 9,7,0.25",
            "Dee 10,,2.0",  # null: empty field
            '"Eve ""the, quick""",3,-0.125',
            "",
        ]
    )
    assert "Ann" not in out["csvFiltered"]
    assert "Ann,1234,0.43449149\r\n" in out["csvAll"]  # raw data-v, not the shown "1,234" / "0.43"
    assert "Bob,20,-1.5\r\n" in out["csvAll"]  # a negative number is not a formula
    assert out["csvAll"].count("\r\n") == len(RESULTS) + 1


def test_long_tables_show_the_first_page_then_all(acted: tuple[dict[str, Any], str]) -> None:
    out, _ = acted
    assert out["longBefore"] == {"rows": 25, "more": f"Show all {LONG_ROWS} rows", "count": f"{LONG_ROWS} rows"}
    assert out["longAfter"] == {"rows": LONG_ROWS, "hidden": True}
    assert out["longFiltered"]["rows"] == ["1"] + [str(i) for i in range(10, 20)]
    assert out["longFiltered"]["count"] == f"11 of {LONG_ROWS} rows"


def test_hand_link_opens_the_viewer(acted: tuple[dict[str, Any], str]) -> None:
    out, _ = acted
    opened = out["linkOpened"]
    assert opened["open"] is True
    assert opened["handOpen"] == "h1"
    assert opened["hash"] == "#hand-h1"
    assert opened["players"] == ["Ann", XSS_NAME]
    assert "hv-close" in opened["focus"]
    for text in ("Ann fouled: -18 points", "FOULED", "pair of aces", "+9", "\u221218", "earned Fantasyland"):
        assert text in opened["text"], text
    for text in ("Pairs", "Under other rule sets", "Street by street", "discarded", "club night 2024-11-08"):
        assert text in opened["text"], text
    for text in ("Decisions weighed", "with discard", "middle Ah Kd · discard 2c", "\u22127.75", "± 0.42"):
        assert text in opened["text"], text
    assert out["cards"][:3] == ["ace of hearts", "ace of diamonds", "two of clubs"]
    assert "ten of hearts" in out["cards"]
    assert out["cards"].count("unknown card") == 2
    assert out["marks"] == ["L", "L", "L"]


def test_hostile_name_is_text_not_script(acted: tuple[dict[str, Any], str]) -> None:
    out, start = acted
    assert XSS_NAME in out["linkOpened"]["text"]
    assert out["scriptsAfter"] == out["scriptsBefore"]  # no element injected by the viewer
    assert " data-pwned=" not in re.sub(r'data-results="[^"]*"', "", start)  # the name did not run


def test_close_clears_state_and_hash(acted: tuple[dict[str, Any], str]) -> None:
    out, _ = acted
    assert out["closed"]["open"] is False
    assert out["closed"]["handOpen"] is None
    assert out["closed"]["hash"] == ""


def test_unknown_hand_says_so(acted: tuple[dict[str, Any], str]) -> None:
    out, _ = acted
    assert out["unknown"]["open"] is True
    assert "This hand is not in the report" in out["unknown"]["text"]
    assert out["unknown"]["players"] == []


def test_hashchange_opens_a_hand(acted: tuple[dict[str, Any], str]) -> None:
    out, _ = acted
    assert out["hashOpened"]["open"] is True
    assert out["hashOpened"]["handOpen"] == "h2"
    assert out["hashOpened"]["players"] == ["Cy", "Dan"]
    assert "Fantasyland 14" in out["hashOpened"]["text"]


def test_closing_like_esc_clears_state_and_hash(acted: tuple[dict[str, Any], str]) -> None:
    out, _ = acted
    assert {k: out["escaped"][k] for k in ("open", "handOpen", "hash")} == {"open": False, "handOpen": None, "hash": ""}


def test_no_script_error(acted: tuple[dict[str, Any], str]) -> None:
    _, start = acted
    assert "data-errors" not in start, html.unescape(start)


def test_hand_in_the_address_opens_on_load(tmp_path: Path) -> None:
    out, start = _run(tmp_path, OPENED_DRIVER, fragment="#hand-h1")
    assert out == {"open": True, "handOpen": "h1", "players": ["Ann", XSS_NAME]}
    assert "data-errors" not in start


SORTED = """window.addEventListener("load", function () {
  document.querySelector('.table-block[data-name="results"] th:nth-child(3)').click();
});"""
"""The table screenshot shows a sorted column (its arrow) too."""


def test_screenshots(tmp_path: Path) -> None:
    page = tmp_path / "page.html"
    page.write_text(fixture_page(SORTED), encoding="utf-8")
    for name, fragment in (("table", ""), ("hand", "#hand-h1")):
        shot = tmp_path / f"assets-{name}.png"
        _chromium(page, tmp_path, "--window-size=1400,1000", f"--screenshot={shot}", fragment=fragment)
        assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        assert shot.stat().st_size > 20_000
        print(f"screenshot: {shot}")


def test_script_never_uses_inner_html() -> None:
    js = (ASSETS / "report.js").read_text(encoding="utf-8")
    for risky in ("innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval(", "new Function"):
        assert risky not in js, risky
    assert "window.ofcReport = " in js


def test_assets_stay_small() -> None:
    assert (ASSETS / "report.js").stat().st_size < 28_000
    assert (ASSETS / "report.css").stat().st_size < 11_000


if __name__ == "__main__":
    Path(sys.argv[1]).write_text(fixture_page(SORTED), encoding="utf-8")
