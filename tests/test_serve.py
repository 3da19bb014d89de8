"""``ofc serve``: the pages over a real lake, served on 127.0.0.1 by uvicorn in this process, read over HTTP and
in headless Chromium; what a URL cannot ask for is a 4xx page; the server never writes the lake."""

from __future__ import annotations

import asyncio
import html
import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import duckdb
import polars as pl
import pytest
import uvicorn

from ofc.pipeline.lake.store import Lake
from ofc.pipeline.query.db import connect
from ofc.reports.serve import Site, make_app
from ofc.reports.serve import app as serve_app
from tests.test_browser import BUDGET_MS, FLAGS, find_browser
from tests.test_report_lake import ReportLake, shared_analysed_lake, shared_lake

ROOT = Path(__file__).resolve().parents[1]


class Served:
    """A server on 127.0.0.1 (a free port) over ``site``, in a thread of this process; ``script``: a script added
    to the report's pages (a test's driver)."""

    def __init__(self, site: Site, script: str | None = None) -> None:
        self.site = site
        app = make_app(site) if script is None else Injected(make_app(site), script)
        self.server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning"))
        self.server.install_signal_handlers = lambda: None  # type: ignore[method-assign] # not the main thread
        self.thread = threading.Thread(target=lambda: asyncio.run(self.server.serve()), daemon=True)
        self.thread.start()
        for _ in range(500):
            if self.server.started:
                break
            time.sleep(0.01)
        assert self.server.started
        self.base = f"http://127.0.0.1:{self.server.servers[0].sockets[0].getsockname()[1]}"

    def get(self, path: str, method: str = "GET") -> tuple[int, str]:
        request = urllib.request.Request(self.base + path, method=method)
        try:
            with urllib.request.urlopen(request, timeout=60) as response:
                return response.status, response.read().decode("utf-8")
        except urllib.error.HTTPError as exc:
            return exc.code, exc.read().decode("utf-8")

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=30)
        self.site.close()


class Injected:
    """An application whose report pages (``/``) carry one more script, before the end of their body."""

    def __init__(self, app: Any, script: str) -> None:
        self.app, self.script = app, script.encode()

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http" or scope["path"] != "/":
            await self.app(scope, receive, send)
            return
        start: dict[str, Any] = {}
        body: list[bytes] = []

        async def changed(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start":
                start.update(message)
                return
            body.append(message.get("body", b""))
            if message.get("more_body"):
                return
            page = b"".join(body).replace(b"</body>", self.script + b"</body>")
            headers = [(k, v) for k, v in start["headers"] if k.lower() != b"content-length"]
            await send({**start, "headers": [*headers, (b"content-length", str(len(page)).encode())]})
            await send({"type": "http.response.body", "body": page})

        await self.app(scope, receive, changed)


@pytest.fixture(scope="module")
def report_lake(tmp_path_factory: pytest.TempPathFactory) -> ReportLake:
    return shared_lake(tmp_path_factory)


@pytest.fixture(scope="module")
def served(report_lake: ReportLake) -> Iterator[Served]:
    server = Served(Site(report_lake.lake.root))
    yield server
    server.stop()


def error_of(page: str) -> str:
    found = re.search(r'class="serve-error">([^<]*)<', page)
    return html.unescape(found.group(1)) if found else ""


def report_filters(page: str) -> dict[str, object]:
    found = re.search(r'<script type="application/json" id="report-filters">(.*?)</script>', page, re.S)
    assert found, "no report-filters in the page"
    return json.loads(found.group(1))


def listed(page: str) -> list[dict[str, str]]:
    """The rows of a hands page: key, id, player and points."""
    out = []
    for row in re.findall(r"<tr>(.*?)</tr>", page, re.S):
        link = re.search(r'href="/hand/(\d+)[^"]*">([^<]*)</a>', row)
        if not link:
            continue
        cells = re.findall(r"<td[^>]*>(.*?)</td>", row, re.S)
        out.append({"key": link.group(1), "player": html.unescape(cells[3]), "points": cells[5], "royalties": cells[6]})
    return out


def test_the_report_is_served_with_its_filters_in_the_address(served: Served, report_lake: ReportLake) -> None:
    status, page = served.get("/")
    assert status == 200
    assert '<form class="serve-bar"' in page
    labels = re.findall(r'<label>([^<]+)<(?:select|input)[^>]* name="(\w+)"', page)
    assert ("Player", "player") in labels  # each filter named in words, as a player reads it
    assert ("Game", "variant") in labels
    assert 'src="/assets/plotly.js"' in page
    assert len(page) < 3_000_000  # plotly.js is loaded from the server, not carried by each page
    boards = report_lake.boards()
    player = boards["player"].value_counts(sort=True)["player"][0]
    variant = boards.filter(pl.col("player") == player)["variant"][0]
    status, page = served.get(f"/?player={urllib.request.quote(player)}&variant={variant}&min_hands=1")
    assert status == 200
    shown = report_filters(page)
    assert (shown["player"], shown["variant"], shown["min_hands"]) == (player, variant, 1)
    assert f'name="player" value="{html.escape(player)}"' in page


def test_a_served_page_lists_hands_by_their_ids_and_opens_each_on_its_page(
    served: Served, report_lake: ReportLake
) -> None:
    """A served report carries no hands for a viewer (each opens on its own page, from the whole lake): its list
    of hands worth a second look names each by the id its history gave it, and the link opens that hand."""
    boards = report_lake.boards()
    player = boards["player"].value_counts(sort=True)["player"][0]
    variant = boards.filter(pl.col("player") == player)["variant"][0]
    status, page = served.get(f"/?player={urllib.request.quote(player)}&variant={variant}")
    assert status == 200
    carried = re.search(r'<script type="application/json" id="report-hands">(.*?)</script>', page, re.S)
    assert carried is None or json.loads(carried.group(1)).get("hands") in ({}, None)
    listed = re.findall(r'<a class="hand-link" data-hand="(\d+)" href="#hand-\d+">([^<]+)</a>', page)
    assert listed
    ids = dict(zip(boards["hand_key"].cast(pl.Utf8).to_list(), boards["hand_id"].to_list(), strict=True))
    assert all(label == ids[key] for key, label in listed)
    status, hand = served.get(f"/hand/{listed[0][0]}")
    assert status == 200
    assert html.escape(listed[0][1]) in hand


@pytest.mark.parametrize(
    ("path", "status", "said"),
    [
        ("/?player=Nobodyy", 400, "no player 'Nobodyy' in the lake"),
        ("/?variant=pinapple", 400, "pineapple"),
        ("/?rules=pinaple", 400, "did you mean 'pineapple'"),
        ("/?since=2026-13-01", 400, "since: not a day (YYYY-MM-DD): '2026-13-01'"),
        ("/?since=1066-10-14", 400, "since: 1066-10-14 is not a day hands were played"),
        ("/?min_hands=-3", 400, "min_hands: not a whole number"),
        ("/hands?sort=luck", 400, "sort: 'luck' is not one of date, points, royalties, ev_lost"),
        ("/hands?page=0", 400, "page: 0 is not from 1 to 1,000,000"),
        ("/hands?page=99999999999999999999", 400, "page: not a whole number"),
        ("/hands?per_page=100000", 400, "per_page: 100,000 is not from 1 to 500"),
        ("/hand/123", 404, "no hand has the key or id '123'"),
        ("/hand/abc", 404, "no hand has the key or id 'abc'"),
        ("/hand/99999999999999999999999", 404, "no hand has the key or id '99999999999999999999999'"),
        ("/assets/..%2F..%2Fpyproject.toml", 404, "no page at /assets/../../pyproject.toml"),
        ("/assets/report.css", 404, "no such file"),
        ("/nothing/here", 404, "no page at /nothing/here: the pages are /, /hands and /hand/KEY"),
    ],
)
def test_what_a_url_cannot_ask_for_is_a_4xx_page_saying_why(served: Served, path: str, status: int, said: str) -> None:
    got, page = served.get(path)
    assert got == status, page[-2000:]
    assert said in error_of(page), error_of(page)
    assert "Traceback" not in page


def test_a_page_is_read_with_get_only(served: Served) -> None:
    status, page = served.get("/", method="POST")
    assert status == 405
    assert "read with GET only" in error_of(page)


def test_the_hands_behind_a_figure_are_every_board_the_filters_keep(served: Served, report_lake: ReportLake) -> None:
    """The drill-down's list against polars over the lake: every board of the player as played, by points, paged
    without a gap or a repeat."""
    boards = report_lake.boards()
    player = boards["player"].value_counts(sort=True)["player"][0]
    mine = boards.filter(pl.col("player") == player)
    quoted = urllib.request.quote(player)
    pages = []
    for page in (1, 2):
        status, text = served.get(f"/hands?player={quoted}&sort=points&per_page=20&page={page}")
        assert status == 200
        assert f"of {mine.height:,}</span>" in text
        pages += listed(text)
    assert len(pages) == min(40, mine.height)
    assert {r["player"] for r in pages} == {player}
    points = [int(r["points"]) for r in pages]
    assert points == sorted(mine["points"].to_list(), reverse=True)[: len(points)]
    status, text = served.get(f"/hands?player={quoted}&sort=royalties&order=asc&per_page=500")
    royalties = [int(r["royalties"]) for r in listed(text)]
    expected = (mine["royalty_top"] + mine["royalty_middle"] + mine["royalty_bottom"]).sort().to_list()
    assert royalties == expected[: len(royalties)]
    assert len(royalties) == min(500, mine.height)


def test_the_hands_narrow_to_a_table_size_a_session_and_an_opponent(served: Served, report_lake: ReportLake) -> None:
    boards = report_lake.boards()
    sizes = boards["n_players"].value_counts(sort=True)
    size = sizes["n_players"][-1]  # the rarer table size
    status, text = served.get(f"/hands?table_size={size}&per_page=500")
    assert status == 200
    assert f"of {boards.filter(pl.col('n_players') == size).height:,}</span>" in text
    session = boards["session"].drop_nulls().value_counts(sort=True)["session"][0]
    status, text = served.get(f"/hands?session={urllib.request.quote(session)}&per_page=500")
    assert f"of {boards.filter(pl.col('session') == session).height:,}</span>" in text
    player = boards["player"].value_counts(sort=True)["player"][0]
    theirs = boards.filter(pl.col("player") == player)["hand_key"].unique()
    others = boards.filter(pl.col("hand_key").is_in(theirs.implode()) & (pl.col("player") != player))
    status, text = served.get(f"/hands?opponent={urllib.request.quote(player)}&per_page=500")
    assert status == 200
    assert f"of {others.height:,}</span>" in text
    assert player not in {r["player"] for r in listed(text)}
    typo = session + "x"
    status, text = served.get(f"/hands?session={urllib.request.quote(typo)}")
    assert status == 400
    assert error_of(text).startswith(f"no session {typo!r}; did you mean "), error_of(text)
    assert repr(session) in error_of(text)
    status, text = served.get("/hands?table_size=7")
    assert status == 400
    assert error_of(text) == "table_size: 7 is not from 2 to 4"
    status, text = served.get(f"/hands?session={urllib.request.quote(session)}&page=900")
    assert status == 200
    assert "Page 900 is past the last page of these boards" in text
    status, text = served.get("/hands?outcome=fouled&table_size=2&position=1&fantasyland=in&page=1")
    assert status == 200, error_of(text)


def test_every_figure_follows_a_table_size_a_seat_a_session_and_an_opponent(
    served: Served, report_lake: ReportLake
) -> None:
    """The narrowing in the address reaches every figure (the connection is narrowed: tests/test_narrowed.py),
    the bar, the links and the hands behind the figures; a value out of range is a 400 page."""
    boards = report_lake.boards()
    # each board's place after the button, counted round the hand's seats from the button (the highest seat if
    # none is recorded)
    seats = boards.with_columns(
        rank=pl.col("seat").rank("ordinal").over("hand_key") - 1,
        seats=pl.len().over("hand_key"),
        button_seat=pl.coalesce("button", pl.col("seat").max().over("hand_key")),
    )
    buttons = seats.filter(pl.col("seat") == pl.col("button_seat")).select("hand_key", button_rank="rank")
    placed = seats.join(buttons, on="hand_key").with_columns(
        position=(pl.col("rank") - pl.col("button_rank")) % pl.col("seats")
    )
    kept = placed.filter((pl.col("n_players") == 2) & (pl.col("position") == 1))
    assert 0 < kept.height < boards.height
    status, page = served.get("/?table_size=2&position=1&min_hands=1")
    assert status == 200, error_of(page)
    shown = report_filters(page)
    assert (shown["table_size"], shown["position"], shown["session"], shown["opponent"]) == (2, 1, None, None)
    assert "boards at 2-player tables, 1st to act" in page
    assert '<option value="1" selected>1st to act</option>' in page
    assert 'href="/hands?min_hands=1&amp;table_size=2&amp;position=1"' in page
    status, text = served.get("/hands?table_size=2&position=1&per_page=500")
    assert status == 200, error_of(text)
    assert f"of {kept.height:,}</span>" in text
    assert {r["key"] for r in listed(text)} == {str(k) for k in kept["hand_key"].to_list()}
    player = boards["player"].value_counts(sort=True)["player"][0]
    status, page = served.get(f"/?opponent={urllib.request.quote(player)}&min_hands=1")
    assert status == 200, error_of(page)
    assert f"boards in hands against {html.escape(player)}" in page
    status, page = served.get("/?opponent=ann&min_hands=1")  # any case: the lake's spelling is read
    assert status == 200, error_of(page)
    assert "boards in hands against Ann" in page
    status, page = served.get("/?fantasyland=in&min_hands=1")
    assert status == 200, error_of(page)
    assert "boards in Fantasyland" in page
    status, text = served.get("/hands?fantasyland=in&per_page=500")
    assert f"of {boards.filter(pl.col('fantasyland')).height:,}</span>" in text
    status, page = served.get("/?fantasyland=maybe")
    assert status == 400
    assert error_of(page) == "fantasyland: 'maybe' is neither in nor out"
    status, page = served.get("/?position=5")
    assert status == 400
    assert error_of(page) == "position: 5 is not from 0 to 3"
    status, page = served.get(f"/?opponent={urllib.request.quote(player + 'zz')}")
    assert status == 400
    assert error_of(page).startswith(f"no player {player + 'zz'!r}"), error_of(page)


def charts(page: str) -> dict[str, dict[str, object]]:
    """The page's charts by title, as plotly reads them."""
    found = re.findall(r'reportChart\("[^"]+", (.*?)\);</script>', page, re.S)
    figures = [json.loads(f) for f in found]
    return {str(f["layout"]["title"]["text"]): f for f in figures}  # type: ignore[index]


def drilled(page_query: dict[str, str], trace: dict[str, object], at: int | tuple[int, int]) -> str:
    """The address serve.js opens for a click on a chart's point: the page's filters, then what the chart says
    of the point (its trace's meta.drill)."""
    drill = trace["meta"]["drill"]  # type: ignore[index]
    own = drill["points"]
    if own is not None:
        own = own[at[0]][at[1]] if isinstance(at, tuple) else own[at]
        if own is None:  # no board behind the point: it leads nowhere
            return ""
    params = {k: v for k, v in page_query.items() if k != "min_hands"} | drill["every"] | (own or {})
    return "/hands?" + urllib.parse.urlencode(params)


def boards_listed(served: Served, address: str) -> int:
    if not address:
        return 0
    status, text = served.get(address + "&per_page=1")
    assert status == 200, (address, error_of(text))
    found = re.search(r"of ([\d,]+)(?:, in [\d,]+ hands?)?</span>", text)
    assert found, address
    return int(found.group(1).replace(",", ""))


def test_every_chart_point_leads_to_the_boards_it_counts(served: Served, report_lake: ReportLake) -> None:
    """Every trace of every chart says where its points lead; each leads to a list of hands, and the lists of
    fouls, dead streets, royalty hands, Fantasyland, players and winner changes hold exactly the boards polars
    counts over the lake."""
    boards = report_lake.boards()
    variant = boards["variant"].value_counts(sort=True)["variant"][0]
    mine = boards.filter(pl.col("variant") == variant)
    query = {"variant": variant, "min_hands": "1"}
    status, page = served.get("/?" + urllib.parse.urlencode(query))
    assert status == 200, error_of(page)
    figures = charts(page)
    assert len(figures) >= 10
    for title, fig in figures.items():
        for trace in fig["data"]:  # type: ignore[attr-defined]
            assert (trace.get("meta") or {}).get("drill") is not None, (title, trace.get("name"))
            boards_listed(served, drilled(query, trace, (0, 0) if trace["type"] == "heatmap" else 0))

    def chart(start: str) -> dict[str, object]:
        return next(f for t, f in figures.items() if t.startswith(start))

    dead = chart("Street after which the foul was certain")["data"][0]  # type: ignore[index]
    for i, street in enumerate(dead["x"]):
        fouled = mine.filter(pl.col("fouled"))
        want = fouled.filter(
            pl.col("dead_street").is_null() if street == "no placements" else pl.col("dead_street") == int(street)
        )
        assert boards_listed(served, drilled(query, dead, i)) == want.height > 0
    players = chart("Foul rate by player")["data"][0]  # type: ignore[index]
    for i in range(min(3, len(players["x"]))):
        who = drilled(query, players, i)
        name = urllib.parse.parse_qs(who.split("?", 1)[1])["player"][0]
        want = mine.filter(pl.col("fouled") & (pl.col("player") == name)).height
        assert boards_listed(served, who) == want
    heat = chart("Royalty frequency")["data"][0]  # type: ignore[index]
    made: dict[tuple[object, object], int] = {}
    for f in named_rows(report_lake, "royalty_frequency", variant=variant):
        if f["points"]:  # type: ignore[operator]
            made[f["row"], f["category"]] = made.get((f["row"], f["category"]), 0) + f["boards_made"]  # type: ignore[operator]
    for r, row in enumerate(heat["y"]):
        for c, category in enumerate(heat["x"]):
            assert boards_listed(served, drilled(query, heat, (r, c))) == made.get((row, category), 0)
    assert sum(made.values()) > 0
    flow = chart("Fantasyland: earned and played")["data"][0]  # type: ignore[index]
    wanted = [mine["fantasyland_entry"].sum(), mine["fantasyland_stay"].sum(), mine["fantasyland"].sum()]
    assert [boards_listed(served, drilled(query, flow, i)) for i in range(3)] == wanted
    assert wanted[0] > 0
    changes = chart("Hands whose winner changes")["data"][0]  # type: ignore[index]
    every = report_lake.results().filter(pl.col("variant") == variant)
    changed = 0
    for i in range(len(changes["x"])):
        address = drilled(query, changes, i)
        key = urllib.parse.parse_qs(address.split("?", 1)[1])["rules"][0]
        under = every.filter((pl.col("rules_key") == key) | (pl.col("rules") == key))  # a key, or a name
        hands = under.filter(pl.col("winner_seat") != pl.col("native_winner_seat"))["hand_key"].unique()
        want = under.filter(pl.col("hand_key").is_in(hands.implode())).height
        assert boards_listed(served, address) == want
        # the chart counts hands: the list says how many hands its boards are of
        counted = round(changes["y"][i] * changes["customdata"][i][0])
        status, text = served.get(address)
        in_hands = re.search(r", in ([\d,]+) hands?", text)
        assert (int(in_hands.group(1).replace(",", "")) if in_hands else 0) == counted == hands.len()
        changed += want
    assert changed > 0


def tables(page: str) -> dict[str, list[tuple[dict[str, str] | None, dict[str, str]]]]:
    """The page's tables by name: each row's drill-down (data-drill) and its cells' raw values by header."""
    out = {}
    for name, block in re.findall(r'<div class="table-block" data-name="([^"]+)">(.*?)</table>', page, re.S):
        headers = [html.unescape(h) for h in re.findall(r"<th[^>]*>(.*?)</th>", block)]
        rows = []
        for attributes, cells in re.findall(r"<tr([^>]*)>(.*?)</tr>", block.split("<tbody>", 1)[1], re.S):
            found = re.search(r'data-drill="([^"]*)"', attributes)
            values = [html.unescape(v) for v in re.findall(r'data-v="([^"]*)"', cells)]
            drill = json.loads(html.unescape(found.group(1))) if found else None
            rows.append((drill, dict(zip(headers, values, strict=True))))
        out[name] = rows
    return out


def test_every_table_row_leads_to_the_boards_it_counts(served: Served, report_lake: ReportLake) -> None:
    """Each row of the tables of sums says which boards it counts; the list it leads to holds as many as the row
    says (the tables read the summaries, the list the boards): fouls, dead streets, a royalty hand, a session,
    an opponent."""
    boards = report_lake.boards()
    variant = boards["variant"].value_counts(sort=True)["variant"][0]
    query = {"variant": variant, "min_hands": "1"}
    status, page = served.get("/?" + urllib.parse.urlencode(query))
    assert status == 200, error_of(page)
    found = tables(page)
    counted = {  # a table, and the column that counts each row's boards
        "foul_rate": "Fouled",
        "dead_streets": "Fouled boards",
        "royalty_frequency": "Boards",
        "sessions": "Hands",
        "opponents": "Hands together",
    }
    for name, column in counted.items():
        assert found[name], name
        for drill, cells in found[name][:5]:  # the first rows of each: a request a row
            assert drill is not None, (name, cells)
            address = "/hands?" + urllib.parse.urlencode({"variant": variant} | drill)
            assert boards_listed(served, address) == int(float(cells[column])), (name, address)
    for name, rows in found.items():
        if name in ("hands", "costly_decisions"):  # a hand a row: its link opens it
            continue
        for drill, _ in rows[:1]:
            assert drill is not None, name
            boards_listed(served, "/hands?" + urllib.parse.urlencode({"variant": variant} | drill))


def test_a_page_builds_one_game_and_the_other_games_are_a_tab_away(served: Served, report_lake: ReportLake) -> None:
    """The overview counts every game the filters keep; the sections are the busiest game's, or the one asked
    for; each other game's tab is a link to its page, the other filters kept."""
    since = datetime(2026, 3, 1, tzinfo=UTC)
    hands = report_lake.frame("hands").filter(pl.col("played_at") >= since)["variant"].value_counts()
    busiest = sorted(hands.iter_rows(), key=lambda r: (-r[1], r[0]))[0][0]
    for asked in (None, "pineapple"):
        query = {"min_hands": "1", "since": "2026-03-01"} | ({"variant": asked} if asked else {})
        status, page = served.get("/?" + urllib.parse.urlencode(query))
        assert status == 200, error_of(page)
        shown = asked or busiest
        assert re.findall(r'<div class="game" data-game="([^"]+)"', page) == [shown]
        assert re.findall(r'<button type="button" class="game-tab"[^>]* data-game="([^"]+)"', page) == [shown]
        links = dict(re.findall(r'<a class="game-tab"[^>]*href="([^"]+)">([^<]+)<', html.unescape(page)))
        assert len(links) == len(hands) - 1
        for address in links:
            kept = urllib.parse.parse_qs(address.split("?", 1)[1])
            assert (kept["since"], kept["min_hands"]) == (["2026-03-01"], ["1"]), address
            assert kept["variant"][0] != shown
        other = next(iter(links))
        status, page = served.get(other)
        assert status == 200, error_of(page)
        variant = urllib.parse.parse_qs(other.split("?", 1)[1])["variant"][0]
        assert re.findall(r'<div class="game" data-game="([^"]+)"', page) == [variant]
        # the overview still counts every game: one row each, and the games together
        overview = tables(page)["hands_per_variant"]
        assert {drill.get("variant") for drill, _ in overview if drill} == set(hands["variant"])
        assert all(cells["Players"] for _, cells in overview), overview  # each game's players, built or not
        assert re.search(rf'games</div><div class="value">{len(hands)}<', page), "the games counted"
        since_boards = report_lake.frame("boards").join(
            report_lake.frame("hands").filter(pl.col("played_at") >= since).select("hand_key"), on="hand_key"
        )
        everyone = since_boards["player"].n_unique()
        assert re.search(rf'players, all games</div><div class="value">{everyone:,}<', page), "every game's players"


def _ofc_records(hands: int) -> list[dict[str, Any]]:
    """The OFC hands of the report lake's first ``hands`` records (sessions of ten, every fifth of them OFC)."""
    from tests.test_report_lake import make_records

    return [r for r in make_records(hands) if r["variant"] == "ofc"]


def _scored(folder: Path, records: list[dict[str, Any]]) -> Lake:
    """A lake of ``records``, ingested and scored under the OFC preset."""
    from ofc.pipeline.ingest.ingest_run import ingest
    from ofc.pipeline.rescore.rescore_run import rescore
    from ofc.pipeline.rules.files import load_rules

    source = folder / "records.jsonl"
    source.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    lake = Lake(folder / "lake")
    ingest([source], lake)
    rescore(lake, [load_rules("ofc")])
    return lake


def test_hands_without_a_session_are_their_days_and_the_filter_reads_that_name(tmp_path: Path) -> None:
    """A hand with no session recorded is in its day's ("day 2026-03-01"), or in "unknown" without a time, as the
    sessions table names them; each row leads to exactly those hands, and the session filter takes those names
    (a name that is none gets the closest ones)."""
    records = _ofc_records(150)  # sessions 1, 6 and 11: Bo sat in each
    for r in records:
        if r.pop("session") == "s11":
            r.pop("played_at")
    server = Served(Site(_scored(tmp_path, records).root))
    try:
        status, page = server.get("/?player=Bo&min_hands=1")
        assert status == 200, error_of(page)
        rows = tables(page)["sessions"]
        assert sorted(drill["session"] for drill, _ in rows) == ["day 2026-03-01", "day 2026-03-03", "unknown"]  # type: ignore[index]
        for drill, cells in rows:
            assert drill is not None
            assert boards_listed(server, "/hands?" + urllib.parse.urlencode(drill)) == int(cells["Hands"]) == 10
        status, page = server.get("/?session=day+2026-03-03&min_hands=1")
        assert status == 200, error_of(page)
        status, text = server.get("/hands?session=day+2026-03-02")
        assert status == 400
        assert "day 2026-03-01" in error_of(text)
    finally:
        server.stop()


def test_hands_played_at_one_time_are_listed_in_their_order(tmp_path: Path) -> None:
    """A sheet that gives the day alone records every hand at one time: sorted by date, they are listed in their
    order in the session (the latest first, or the first with order=asc), not by their keys."""
    records = _ofc_records(20)  # one session of ten hands
    for r in records:
        r["played_at"] = "2026-03-01T00:00:00+00:00"
    lake = _scored(tmp_path, records)
    server = Served(Site(lake.root))
    try:
        hands = pl.read_parquet(str(lake.root / "hands" / "**" / "*.parquet"), hive_partitioning=False)
        numbers = dict(zip(hands["hand_key"].cast(pl.Utf8), hands["hand_number"], strict=True))
        assert len(set(hands["played_at"])) == 1
        assert len(numbers) == 10
        for order, step in (("desc", -1), ("asc", 1)):
            status, page = server.get(f"/hands?order={order}&per_page=500")
            assert status == 200, error_of(page)
            keys = list(dict.fromkeys(row["key"] for row in listed(page)))
            assert [numbers[k] for k in keys] == sorted(numbers.values())[::step], keys
    finally:
        server.stop()


def named_rows(report_lake: ReportLake, name: str, **values: object) -> list[dict[str, object]]:
    from ofc.pipeline.query import named

    snapshot = report_lake.lake.snapshot()
    return named.run(connect(snapshot), snapshot, name, values).to_pylist()


def test_the_last_day_is_kept_in_the_address_the_bar_and_every_link(served: Served, report_lake: ReportLake) -> None:
    boards = report_lake.boards().with_columns(day=pl.col("played_at").dt.date())
    days = boards["day"].drop_nulls().unique().sort()
    since, until = days[1], days[len(days) // 2]
    kept = boards.filter(pl.col("day").is_between(since, until))
    status, text = served.get(f"/hands?since={since}&until={until}&per_page=500")
    assert status == 200
    assert f"of {kept.height:,}</span>" in text
    assert f'name="until" value="{until}"' in text
    links = [link for link in re.findall(r'href="(/[^"]*)"', html.unescape(text)) if not link.startswith("/assets/")]
    assert len([link for link in links if link.startswith("/hand/")]) == min(kept.height, 500)
    assert {link.split("?")[0] for link in links} >= {"/hands", "/train", "/"}  # the bar's links, the sort's
    assert all(f"since={since}&until={until}" in link for link in links), links
    status, page = served.get(f"/?until={until}")
    assert status == 200
    assert report_filters(page)["until"] == str(until)
    status, page = served.get(f"/?since={until}&until={since}")
    assert status == 400
    assert error_of(page).startswith(f"until {since} is before since {until}")


def test_a_hand_is_found_by_its_id_too(served: Served, report_lake: ReportLake) -> None:
    boards = report_lake.boards()
    ids = boards.group_by("hand_id").agg(pl.col("hand_key").n_unique().alias("keys"))
    alone = sorted(ids.filter(pl.col("keys") == 1)["hand_id"].to_list())
    # An id of letters, and one of digits only (which is read as a key first, and as an id when no hand has it).
    chosen = [i for i in alone if not i.isdigit()][:1] + [i for i in alone if i.isdigit()][:1]
    assert len(chosen) == 2, alone[:20]
    for ident in chosen:
        key = boards.filter(pl.col("hand_id") == ident)["hand_key"][0]
        status, page = served.get(f"/hand/{urllib.request.quote(ident)}")  # redirected to the hand's own address
        assert status == 200, ident
        assert f'data-hand="{key}"' in page


def test_every_hand_has_its_page_with_the_lakes_boards(served: Served, report_lake: ReportLake) -> None:
    boards = report_lake.boards()
    for variant in sorted(set(boards["variant"].to_list())):
        key = boards.filter(pl.col("variant") == variant)["hand_key"][0]
        status, page = served.get(f"/hand/{key}")
        assert status == 200
        found = re.search(r'<script type="application/json" id="report-hands">(.*?)</script>', page, re.S)
        assert found
        hand = json.loads(found.group(1))["hands"][str(key)]
        expected = boards.filter(pl.col("hand_key") == key).sort("seat")
        assert sorted(b["player"] for b in hand["boards"]) == sorted(expected["player"].to_list())
        assert sorted(b["points"] for b in hand["boards"]) == sorted(expected["points"].to_list())
        assert hand["variant"] == variant
        assert ("streets" in json.dumps(hand)) or variant == "classic"


def test_the_server_never_writes_the_lake(report_lake: ReportLake, served: Served) -> None:
    before = sorted(
        (p, p.stat().st_mtime_ns) for p in report_lake.lake.root.rglob("*") if p.is_file() and p.name != ".readers"
    )
    for path in ("/", "/hands?sort=points", "/state", "/hand/1"):
        served.get(path)
    after = sorted(
        (p, p.stat().st_mtime_ns) for p in report_lake.lake.root.rglob("*") if p.is_file() and p.name != ".readers"
    )
    assert after == before


def test_a_commit_by_another_process_changes_the_state_pages_watch(tmp_path: Path) -> None:
    lake = tmp_path / "lake"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}

    def simulate(hands: int) -> None:
        args = ["simulate", "--variant", "pineapple", "--hands", str(hands), "--lake", str(lake), "--bots", "random"]
        done = subprocess.run([sys.executable, "-m", "ofc", *args], env=env, capture_output=True, text=True)
        assert done.returncode == 0, done.stderr

    simulate(30)
    server = Served(Site(lake))
    try:
        first = json.loads(server.get("/state")[1])["state"]
        assert json.loads(server.get("/state")[1])["state"] == first
        simulate(20)  # another process commits a batch
        assert json.loads(server.get("/state")[1])["state"] != first
        status, page = server.get("/hands?per_page=100")
        assert status == 400  # no results yet: said so
        assert "ofc rescore" in error_of(page), error_of(page)
    finally:
        server.stop()


class ChangingSite(Site):
    """A lake whose state changes once a page is made: what an open page sees when another process commits."""

    def __init__(self, root: Path) -> None:
        super().__init__(root)
        self.asked = 0

    def state(self) -> str:
        self.asked += 1
        return "before" if self.asked == 1 else "after"


def _dom(browser: str, folder: Path, url: str) -> str:
    args = [browser, *FLAGS, f"--virtual-time-budget={BUDGET_MS}", f"--user-data-dir={folder / 'profile'}"]
    done = subprocess.run([*args, "--dump-dom", url], capture_output=True, text=True, timeout=180)
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


def _root_attributes(dom: str) -> dict[str, str]:
    tag = re.search(r"<html([^>]*)>", dom)
    assert tag
    return {k: html.unescape(v) for k, v in re.findall(r'([\w-]+)="([^"]*)"', tag.group(1))}


def test_the_pages_in_a_browser(report_lake: ReportLake, served: Served, tmp_path: Path) -> None:
    """Headless Chromium: the served report draws every chart with no script error; a hand's page opens the hand
    in the viewer; an open page says so when the lake changes."""
    browser = find_browser()
    boards = report_lake.boards()
    variant = boards["variant"].value_counts(sort=True)["variant"][0]
    opponent = sorted(boards.filter(pl.col("variant") == variant)["player"].unique())[0]  # one who played it
    for narrowed in ("", "&table_size=3&position=0", f"&opponent={urllib.request.quote(opponent)}"):
        root = _root_attributes(_dom(browser, tmp_path, f"{served.base}/?variant={variant}{narrowed}"))
        assert "data-errors" not in root, (narrowed, root.get("data-errors"))
        assert int(root["data-charts"]) > 0
        assert root["data-charts-rendered"] == root["data-charts"]
    # A hand's page: the replayer at the deal, one step an action (an open-face hand), every board shown.
    placed = set(report_lake.frame("placements")["hand_key"].to_list())
    for game in sorted(set(boards["variant"].to_list())):
        mine = boards.filter(pl.col("variant") == game)
        recorded = sorted(k for k in set(mine["hand_key"].to_list()) if game == "classic" or k in placed)
        key = recorded[0]  # an open-face hand whose placements were recorded: it has streets to step through
        dom = _dom(browser, tmp_path, f"{served.base}/hand/{key}")
        root = _root_attributes(dom)
        assert "data-errors" not in root, root.get("data-errors")
        seats = mine.filter(pl.col("hand_key") == key).height
        assert dom.count('<article class="board') == seats
        if game == "classic":
            assert root["data-replay-steps"] == "0"
            assert "A classic hand is set at once" in dom
        else:
            assert int(root["data-replay-steps"]) >= seats
            assert root["data-replay-at"] == "0"
            assert "The deal: no card placed yet" in dom
            # A step in the address: the boards hold the cards of the actions up to it, one player's more each.
            shown = []
            for step in (1, 2):
                dom = _dom(browser, tmp_path, f"{served.base}/hand/{key}?step={step}")
                assert _root_attributes(dom)["data-replay-at"] == str(step)
                shown.append(len(re.findall(r'<span class="card suit-', dom)))
                assert f"Step {step} of " in dom
            assert 0 < shown[0] < shown[1]
    shot = tmp_path / "serve.png"
    args = [browser, *FLAGS, f"--virtual-time-budget={BUDGET_MS}", f"--user-data-dir={tmp_path / 'profile'}"]
    url = f"{served.base}/?variant={variant}"
    done = subprocess.run(
        [*args, "--window-size=1400,1000", f"--screenshot={shot}", url], capture_output=True, timeout=180
    )
    assert done.returncode == 0
    assert shot.stat().st_size > 20_000  # a page drawn, not a blank one
    if os.environ.get("OFC_WRITE_SCREENSHOTS"):  # the README's picture: OFC_WRITE_SCREENSHOTS=1 pytest -k browser
        (ROOT / "docs" / "serve.png").write_bytes(shot.read_bytes())
    changing = Served(ChangingSite(report_lake.lake.root))
    try:
        root = _root_attributes(_dom(browser, tmp_path, f"{changing.base}/hands?variant={variant}"))
        assert root.get("data-lake-changed") == "1"
    finally:
        changing.stop()


CLICK = """
<script>
window.addEventListener("load", function () {
  var tries = 0;
  (function click() {
    var div = Array.prototype.find.call(document.querySelectorAll(".chart"), function (d) {
      return d.layout && String((d.layout.title && d.layout.title.text) || "").indexOf("TITLE") === 0;
    });
    if (!div || !div.dataset.drill) {
      if (tries++ < 100) setTimeout(click, 100);
      return;
    }
    var trace = div.data[0];
    div.emit("plotly_click", {points: [{x: trace.x[AT], y: trace.y[AT], data: trace, pointNumber: AT}]});
  })();
});
</script>
"""
"""A driver: once serve.js has wired the charts, a click on one point of the chart whose title starts with TITLE."""


def test_a_click_on_a_chart_opens_the_boards_it_counts(report_lake: ReportLake, tmp_path: Path) -> None:
    """Headless Chromium: a click on a bar of fouled boards by dead street, on a served page of every game (the
    busiest game's sections), opens the list of that game's boards, as many as polars counts."""
    browser = find_browser()
    boards = report_lake.boards()
    variant = boards["variant"].value_counts(sort=True)["variant"][0]
    fouled = boards.filter((pl.col("variant") == variant) & pl.col("fouled") & pl.col("dead_street").is_not_null())
    street = fouled["dead_street"].min()
    script = CLICK.replace("TITLE", "Street after which the foul was certain").replace("AT", "0")
    clicking = Served(Site(report_lake.lake.root), script)
    try:
        dom = _dom(browser, tmp_path, f"{clicking.base}/?min_hands=1")  # the busiest game first
    finally:
        clicking.stop()
    assert '<table class="hand-list">' in dom, dom[-2000:]
    want = fouled.filter(pl.col("dead_street") == street).height
    hands = fouled.filter(pl.col("dead_street") == street)["hand_key"].n_unique()
    said = f"of {want:,}, in {hands:,} hand{'s' if hands != 1 else ''}</span> "
    assert said + f"(fouled boards, the foul certain after street {street})" in dom
    assert f'<option value="{variant}" selected' in dom  # the list is of the game clicked in
    assert len(re.findall(r'href="/hand/\d+', dom)) == min(want, 50)
    # the filter bar keeps the outcome: a filter changed there lists the same outcome's boards
    assert f'<input type="hidden" name="dead_street" value="{street}">' in dom


TAB = """
<script>
window.addEventListener("load", function () {
  if (location.search.indexOf("variant=") >= 0) return;  // the page the tab opened: nothing more to click
  var tab = document.querySelector("a.game-tab");
  document.documentElement.setAttribute("data-tab-opened", tab ? tab.href : "");
  if (tab) tab.click();
});
</script>
"""


def test_a_game_tab_opens_that_games_page_in_a_browser(report_lake: ReportLake, tmp_path: Path) -> None:
    """Headless Chromium: on a served page of every game, a click on another game's tab opens that game's page,
    its sections shown and its tab selected, the page's filters kept."""
    clicking = Served(Site(report_lake.lake.root), TAB)
    try:
        dom = _dom(find_browser(), tmp_path, f"{clicking.base}/?min_hands=2")
    finally:
        clicking.stop()
    shown = re.findall(r'<div class="game shown" data-game="([^"]+)"', dom)
    assert len(shown) == 1, dom[-2000:]
    assert re.search(rf'class="game-tab"[^>]*data-game="{shown[0]}"[^>]*aria-selected="true"', dom)
    assert 'name="min_hands" min="1" value="2"' in dom  # the filter the first page had, kept
    assert f'<option value="{shown[0]}" selected' in dom


def test_ofc_serve_says_its_address_and_stops_on_ctrl_c(report_lake: ReportLake) -> None:
    """The command: listens on 127.0.0.1 (a port the system gives), says where, answers, and ends on Ctrl-C in
    one line with exit 0; a second server on the same port says it cannot listen."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    command = [sys.executable, "-m", "ofc", "serve", "--lake", str(report_lake.lake.root), "--port", "0"]
    proc = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        found = re.match(r"serving .* at http://127\.0\.0\.1:(\d+)/ \(Ctrl-C stops\)$", line.strip())
        assert found, line
        port = found.group(1)
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/state", timeout=30) as response:
            assert response.status == 200
        again = subprocess.run([*command[:-1], port], env=env, capture_output=True, text=True, timeout=60)
        assert again.returncode == 1
        assert again.stderr.strip().startswith(f"error: could not listen on 127.0.0.1:{port}: the port is in use")
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0, err
    assert out.strip() == "stopped; the lake is as it was"
    assert "Traceback" not in err
    machine = subprocess.Popen([*command, "--json"], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert machine.stdout is not None
        said = json.loads(machine.stdout.readline())
        assert said["serving"] == str(report_lake.lake.root)
        assert re.fullmatch(r"http://127\.0\.0\.1:\d+/", said["url"])
        machine.send_signal(signal.SIGINT)
        rest, _ = machine.communicate(timeout=30)
    finally:
        if machine.poll() is None:
            machine.kill()
    assert [json.loads(line) for line in rest.splitlines()] == [{"stopped": True}]


class SteppedSite(Site):
    """A lake whose state the test sets."""

    now = "one"

    def state(self) -> str:
        return self.now


def test_the_requests_over_one_state_read_by_cursors_of_one_connection(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every view and macro is made once for a state of the lake: requests at once read by cursors of one
    connection. The first request over a newer state makes the next, and the older one is closed when the last
    request reading it ends; a request over a state older than the newest seen reads by a connection of its own,
    closed after it. Stopping, the server closes its connection when the last request reading by it ends."""
    made: list[duckdb.DuckDBPyConnection] = []

    def made_here(snapshot: Any, narrowing: Any = None, aliases: Any = None) -> duckdb.DuckDBPyConnection:
        made.append(duckdb.connect())
        return made[-1]

    def works(con: duckdb.DuckDBPyConnection) -> bool:
        try:
            return con.execute("SELECT 1").fetchall() == [(1,)]
        except duckdb.ConnectionException:
            return False

    monkeypatch.setattr(serve_app, "connect", made_here)
    site = Site(tmp_path / "lake")
    one, two = SimpleNamespace(batches=("20260101T000000-a",)), SimpleNamespace(batches=("20260102T000000-b",))
    with site.connection(one) as a, site.connection(one) as b:  # type: ignore[arg-type]
        assert a is not b
        assert works(a)
        assert works(b)
    assert len(made) == 1
    reading = site.connection(one)  # type: ignore[arg-type]
    a = reading.__enter__()
    with site.connection(two) as c:  # type: ignore[arg-type]
        assert len(made) == 2
        assert works(c)
        assert works(a)  # the older state is read to the end of its request
    reading.__exit__(None, None, None)
    assert not works(made[0])
    assert works(made[1])
    with site.connection(one) as late:  # type: ignore[arg-type]
        assert len(made) == 3
        assert works(late)
    assert not works(made[2])
    assert works(made[1])
    reading = site.connection(two)  # type: ignore[arg-type]
    d = reading.__enter__()
    site.close()  # the server stops while a request reads: it reads to its end
    assert works(d)
    reading.__exit__(None, None, None)
    assert not works(made[1])
    with site.connection(two) as after:  # type: ignore[arg-type]
        assert works(after)
    assert len(made) == 4
    assert not works(made[3])


def test_the_requests_over_one_state_count_the_boards_once(report_lake: ReportLake) -> None:
    """The players of each game are counted once for a state of the lake, whichever request asks: the counts a
    second request reads are the first's (its connection, closed here, is never asked)."""
    site = Site(report_lake.lake.root)
    snapshot = report_lake.lake.snapshot()
    try:
        with site.connection(snapshot) as con:
            first = site.counted(con, snapshot)
            players, hands = first.players(None, None, None), first.hands_by_variant()
        closed = duckdb.connect()
        closed.close()
        second = site.counted(closed, snapshot)
        assert second is not first
        assert second.players(None, None, None) == players
        assert second.hands_by_variant() == hands
        assert second.players("pineapple", None, None) == first.players("pineapple", None, None)
    finally:
        site.close()


def test_a_page_asked_again_in_the_same_state_is_the_page_made(report_lake: ReportLake) -> None:
    site = SteppedSite(report_lake.lake.root)
    server = Served(site)
    try:
        first = server.get("/?min_hands=1")[1]
        assert server.get("/?min_hands=1")[1] == first  # kept: made once
        assert server.get("/?min_hands=2")[1] != first
        site.now = "two"  # another commit: made again
        again = server.get("/?min_hands=1")[1]
        assert 'data-state="two"' in again
        assert 'data-state="one"' in first
    finally:
        server.stop()


@pytest.fixture(scope="module")
def analysed_lake(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return shared_analysed_lake(tmp_path_factory)


def test_a_decision_chart_leads_to_the_boards_weighed_there(analysed_lake: Path) -> None:
    """The charts of decisions lead to the boards with a decision weighed at that street or of that kind, as many
    as the lake's decisions have (polars over the analysis's files), by the points they lost."""
    decisions = pl.read_parquet(str(analysed_lake / "decisions" / "**" / "*.parquet"), hive_partitioning=False)
    server = Served(Site(analysed_lake))
    try:
        query = {"variant": "pineapple", "min_hands": "1"}
        status, page = server.get("/?" + urllib.parse.urlencode(query))
        assert status == 200, error_of(page)
        figures = charts(page)
        loss = next(f for t, f in figures.items() if t.startswith("Points lost per hand by street"))
        trace = loss["data"][0]  # type: ignore[index]
        for i in range(len(trace["x"])):
            address = drilled(query, trace, i)
            street = int(urllib.parse.parse_qs(address.split("?", 1)[1])["street"][0])
            want = decisions.filter(pl.col("street") == street).select("hand_key", "seat").unique().height
            assert boards_listed(server, address) == want > 0, address
        for title, fig in figures.items():
            for t in fig["data"]:  # type: ignore[attr-defined]
                assert (t.get("meta") or {}).get("drill") is not None, (title, t.get("name"))
        causes = _foul_causes(analysed_lake, decisions)
        listed = 0
        for by in ("street", "kind of decision"):
            bars = next(f for t, f in figures.items() if t.startswith(f"Fouled boards by the {by} "))["data"][0]  # type: ignore[index]
            for i in range(len(bars["x"])):
                address = drilled(query, bars, i)
                cause = urllib.parse.parse_qs(address.split("?", 1)[1])["cause"][0]
                want = causes.filter(
                    pl.col("cause_kind").eq("none: the cards")
                    if cause == "cards"
                    else pl.col("cause_street").eq(int(cause))
                    if cause.isdigit()
                    else pl.col("cause_kind").eq(cause)
                ).height
                assert boards_listed(server, address) == want > 0, address
                listed += want
        assert listed == 2 * causes.height > 0  # every fouled board weighed, once by street and once by kind
        status, text = server.get("/hands?kind=nonsense")
        assert status == 400
        assert error_of(text).startswith("kind: 'nonsense' is not one of initial, placement")
        for wrong in ("nonsense", "³", "10"):
            status, text = server.get(f"/hands?cause={urllib.parse.quote(wrong)}")
            assert status == 400
            assert error_of(text).startswith(f"cause: {wrong!r} is neither a street (1 to 9), a kind of decision")
    finally:
        server.stop()


def _foul_causes(lake: Path, decisions: pl.DataFrame) -> pl.DataFrame:
    """Each board that fouled as played with what its foul is put down to, by polars over the lake's files: its
    decision that raised the chance of fouling most against the best move (ties to the earlier street; a
    Fantasyland setting has no street), or the cards where none raised it by more than 0.05."""
    played = pl.read_parquet(str(lake / "board_results" / "**" / "*.parquet"), hive_partitioning=True)
    fouled = played.filter(pl.col("native").cast(pl.Utf8) == "true", pl.col("fouled")).select("hand_key", "seat")
    most = (
        decisions.filter(pl.col("foul_played").is_not_null())
        .with_columns(
            added=pl.col("foul_played") - pl.col("foul_best"),
            street=pl.when(pl.col("kind") != "fantasyland").then(pl.col("street")),
        )
        .sort(["added", "street"], descending=[True, False], nulls_last=[True, False])
        .group_by("hand_key", "seat", maintain_order=True)
        .first()
    )
    noise = pl.col("added") > 0.05
    return most.join(fouled, on=["hand_key", "seat"]).select(
        cause_street=pl.when(noise).then(pl.col("street")),
        cause_kind=pl.when(noise).then(pl.col("kind")).otherwise(pl.lit("none: the cards")),
    )


def test_the_trainer_asks_the_costliest_decisions_as_the_player_saw_them(
    analysed_lake: Path, report_lake: ReportLake, tmp_path: Path
) -> None:
    server = Served(Site(analysed_lake))
    try:
        status, page = server.get("/train")
        assert status == 200
        links = [html.unescape(h) for h in re.findall(r'href="(/hand/\d+\?train=[^"]+)"', page)]
        assert links
        assert server.get("/train?player=Nobodyy")[0] == 400
        dom = _dom(find_browser(), tmp_path, server.base + links[0])
        root = _root_attributes(dom)
        assert "data-errors" not in root, root.get("data-errors")
        assert root["data-train"] == "asked"
        quiz = re.search(r'<div class="trainer">(.*?)<p class="trainer-answer">', dom, re.S)
        assert quiz
        offered = re.search(r'<div class="replay-bar">(.*?)</div>', quiz.group(1), re.S)
        assert offered
        assert len(re.findall(r"<button", offered.group(1))) == 2  # the move played and the best found: they differ
        assert "before acting" in dom
        # A move of one's own, weighed on the spot by the server: the answer says what it and the move played are
        # worth on the same cards.
        own = re.search(r'<div class="replay-bar trainer-own">(.*?)</div>', quiz.group(1), re.S)
        assert own
        assert len(re.findall(r"<select", own.group(1))) >= 3  # a row for each card dealt
        street, player = urllib.parse.parse_qs(urllib.parse.urlsplit(links[0]).query)["train"][0].split(":", 1)
        key = int(re.search(r"/hand/(\d+)", links[0]).group(1))
        con = connect(Lake(analysed_lake).snapshot())
        (best,) = con.execute(
            "SELECT best_rows FROM weighed(NULL) WHERE hand_key = $k AND player = $p AND street = $s",
            {"k": key, "p": player, "s": int(street)},
        ).fetchone()
        dom = _dom(find_browser(), tmp_path, server.base + links[0] + "&move=" + best)
        root = _root_attributes(dom)
        assert "data-errors" not in root, root.get("data-errors")
        assert root["data-train"] == "weighed", re.search(r'<p class="trainer-answer">(.*?)</p>', dom, re.S)
        assert "Your move: expected" in dom
        # The same question as JSON, and what it refuses.
        ask = urllib.parse.urlencode({"hand": key, "player": player, "street": street, "move": best})
        status, text = server.get(f"/train/weigh?{ask}")
        assert status == 200
        weighed = json.loads(text)
        assert {"ev_move", "ev_played", "se", "rollouts", "ev_best", "se_best"} <= set(weighed)
        for bad, said in (
            ("", "give hand, player, street and move"),
            (f"hand={key}&player={urllib.parse.quote(player)}&street={street}&move=qq", "a move is a letter"),
            ("hand=12a&player=x&street=1&move=t", "hand: not a hand's key"),
            (f"hand={key}&player=nobody&street={street}&move={best}", "no weighed decision of nobody"),
        ):
            status, text = server.get(f"/train/weigh?{bad}")
            assert status == 400, (bad, text)
            assert said in json.loads(text)["error"]
    finally:
        server.stop()
    # The hands list sorted by the points their decisions lost: as the lake's decisions add up, the most first.
    server = Served(Site(analysed_lake))
    try:
        status, page = server.get("/hands?sort=ev_lost&per_page=5")
        assert status == 200
        cells = [re.findall(r"<td[^>]*>(.*?)</td>", row) for row in re.findall(r"<tr><td.*?</tr>", page, re.S)]
        shown = [float(c[-1]) for c in cells]
        con = connect(Lake(analysed_lake).snapshot())
        sums = con.execute(
            "SELECT sum(ev_lost) AS lost FROM weighed(NULL) GROUP BY hand_key, seat ORDER BY lost DESC LIMIT 5"
        ).fetchall()
        assert shown == [round(v, 2) for (v,) in sums]
    finally:
        server.stop()
    unweighed = Served(Site(report_lake.lake.root))
    try:
        status, page = unweighed.get("/train")
        assert status == 200
        assert "No decision of these hands is weighed yet" in page
    finally:
        unweighed.stop()
