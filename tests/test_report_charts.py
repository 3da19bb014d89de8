"""The report's charts: tick labels follow the range of what a chart draws, so that near zero no two ticks read
alike; and a report filtered to one player ranks that player among the whole field, marked, beside "all players"
figures that are over all players."""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from typing import Any

import plotly.graph_objects as go
import pytest
from typer.testing import CliRunner

from ofc.pipeline.cli import app
from ofc.pipeline.lake.store import Lake
from ofc.reports import figures
from ofc.reports.report import Options, Report, build, game_data
from ofc.reports.sections import fouls
from ofc.reports.sections.common import EVERY_PLAYER, GameView

runner = CliRunner()


# Tick labels ----------------------------------------------------------------------------------------------------


def plotly_steps(span: float) -> list[float]:
    """The tick steps Plotly may choose over ``span``: span / n rounded up to 2, 5 or 10 times a power of ten, n
    from 5 to 10 (one tick per 40 pixels of a y axis or 80 of an x axis, 4 to 9 of them, plus one)."""
    steps = set()
    for i in range(51):
        rough = span / (5 + i / 10)
        base = 10.0 ** math.floor(math.log10(rough))
        steps.add(base * next(m for m in (2, 5, 10) if m >= rough / base))
    return sorted(steps)


def d3(value: float, fmt: str) -> str:
    """A number as d3-format writes it, for the formats of the shape ``[,].N[~](f|%)``."""
    found = re.fullmatch(r"(,?)\.(\d+)(~?)([f%])", fmt)
    assert found, f"a tick format the figures should not use: {fmt!r}"
    comma, places, trim, kind = found.groups()
    shown = f"{value * (100 if kind == '%' else 1):{comma}.{places}f}"
    if trim and "." in shown:
        shown = shown.rstrip("0").rstrip(".")
    return shown + ("%" if kind == "%" else "")


def tick_labels(fmt: str, low: float, high: float, step: float) -> list[str]:
    first, last = math.ceil(low / step - 1e-9), math.floor(high / step + 1e-9)
    return [d3(k * step, fmt) for k in range(first, last + 1)]


def assert_ticks_differ(fmt: str | None, low: float, high: float) -> None:
    """Whatever step Plotly takes over the axis (padded or not), neighbouring ticks read differently."""
    assert fmt, "the axis has no tick format"
    for pad in (1.0, 1.05, 1.1):
        for step in plotly_steps((high - low) * pad):
            labels = tick_labels(fmt, low, high, step)
            assert len(set(labels)) == len(labels), (fmt, step, labels)


def _interval(value: float, margin: float) -> dict[str, float]:
    return {"ci_low": max(0.0, value - margin), "ci_high": value + margin}


def _spread(low: float, high: float, n: int = 6) -> list[float]:
    return [low + (high - low) * i / (n - 1) for i in range(n)]


def foul_rows(low: float, high: float) -> list[dict[str, Any]]:
    """Foul rates of six players from ``low`` to ``high``, each with an interval of half its rate."""
    return [
        {"dimension": "player", "group": f"p{i}", "foul_rate": r, "boards": 5_000, **_interval(r, r / 2)}
        for i, r in enumerate(_spread(low, high))
    ]


def seat_rows(low: float, high: float) -> list[dict[str, Any]]:
    return [
        {"n_players": 3, "position": p, "foul_rate": r, "boards": 9_000, **_interval(r, r / 2)}
        for p, r in enumerate(_spread(low, high, 3))
    ]


def royalty_rows(boards: int, made: list[int]) -> list[dict[str, Any]]:
    categories = ("pair", "three of a kind", "straight", "flush", "full house", "four of a kind")
    return [
        {"rules_key": None, "boards": boards, "row": "middle", "category": c, "points": 2 + i, "boards_made": m}
        for i, (c, m) in enumerate(zip(categories, made, strict=True))
    ]


def change_rows(rates: tuple[float, ...]) -> list[dict[str, Any]]:
    return [{"rule_set": f"r{i}", "change_rate": v, "hands": 9_000, **_interval(v, v / 5)} for i, v in enumerate(rates)]


def loss_rows(low: float, high: float, margin: float) -> list[dict[str, Any]]:
    return [
        {"group": f"p{i}", "hands": 400, "decisions": 3_000, "ev_lost_per_hand": v, **_interval(v, margin)}
        for i, v in enumerate(_spread(low, high, 4))
    ]


Chart = Callable[[], go.Figure | None]
NEAR_ZERO: dict[str, tuple[Chart, str, float, float]] = {
    # name: (the chart, its value axis, the ends of what it draws)
    "foul rate by player, 0.04% to 0.13%": (
        lambda: figures.foul_rate_by(foul_rows(0.0004, 0.0013), "player", "Foul rate by player", "", "p2"),
        "y",
        0.0,
        0.0013 * 1.5,
    ),
    "foul rate by seat, 0.05% to 0.1%": (lambda: figures.foul_rate_by_seat(seat_rows(0.0005, 0.001)), "y", 0.0, 0.0015),
    "winner changes, 0.02% to 0.09%": (
        lambda: figures.winner_changes(change_rows((0.0002, 0.0005, 0.0009))),
        "y",
        0.0,
        0.0009 * 1.2,
    ),
    "royalty frequency, 0.01% to 0.12%": (
        lambda: figures.royalty_heatmap(royalty_rows(10_000, [12, 9, 6, 4, 2, 1]), "Pineapple"),
        "z",
        0.0,  # the rows without a royalty of a category
        0.0012,
    ),
    "points lost per hand, 0.01 to 0.04": (
        lambda: figures.ev_lost_by_player(loss_rows(0.01, 0.04, 0.004), None),
        "x",
        0.0,
        0.044,
    ),
}


def axis_format(fig: go.Figure, axis: str) -> str | None:
    if axis == "z":
        return next(t.colorbar.tickformat for t in fig.data if t.type == "heatmap")
    return fig.layout[f"{axis}axis"].tickformat


@pytest.mark.parametrize("name", NEAR_ZERO)
def test_ticks_near_zero_read_differently(name: str) -> None:
    chart, axis, low, high = NEAR_ZERO[name]
    fig = chart()
    assert fig is not None
    assert_ticks_differ(axis_format(fig, axis), low, high)


def _foul_game(variant: str, ask: Callable[..., list[dict[str, Any]]]) -> GameView:
    """A game of six players of 5,000 hands each, whose queries give what ``ask`` gives (for the foul section)."""
    return GameView(
        variant=variant,
        ask=ask,  # type: ignore[arg-type]
        featured="p2",
        player=None,
        boards={f"p{i}": 5_000 for i in range(6)},
        min_hands=1,
        min_hands_set=True,
        lead=None,
        compared=[],
        names={},
        fantasyland=False,
        analysed=False,
    )


def test_the_foul_section_s_charts_near_zero_read_differently() -> None:
    """Through the section: a classic game whose boards foul rarely (four to thirteen in ten thousand)."""
    rows = foul_rows(0.0004, 0.0013)
    rows.append(
        {"dimension": "table size", "group": "3 players", "n_players": 3, "foul_rate": 0.0008, "boards": 30_000}
    )
    rows += [{**r, "dimension": "seat", "group": str(r["position"])} for r in seat_rows(0.0004, 0.0009)]
    rows.append({"dimension": "all", "group": "all boards", "foul_rate": 0.0008, "boards": 30_000, "fouled": 24})
    section = fouls(_foul_game("classic", lambda name, **_: rows))
    assert len(section.figures) == 2  # by seat, by player
    for fig in section.figures:
        high = max(v + e for t in fig.data for v, e in zip(t.y, t.error_y.array, strict=True))
        assert_ticks_differ(fig.layout.yaxis.tickformat, 0.0, high)


def test_ordinary_ranges_keep_plain_formats() -> None:
    rates = figures.foul_rate_by(foul_rows(0.10, 0.40), "player", "Foul rate by player", "")
    assert rates is not None
    assert rates.layout.yaxis.tickformat == ".0%"
    assert_ticks_differ(".0%", 0.0, 0.6)
    points = figures.ranking(
        [{"group": f"p{i}", "hands": 500, "points_per_hand": v, **_interval(v, 1)} for i, v in enumerate((-3, 1, 5))],
        None,
    )
    assert points.layout.xaxis.tickformat == ",.0f"
    assert figures.tick_format([0.0, 0.25], percent=True) == ".0%"  # a step of 5% at the finest


# Rankings with a player chosen ----------------------------------------------------------------------------------

CHOSEN = "random-2"


@pytest.fixture(scope="module")
def field_lake(tmp_path_factory: pytest.TempPathFactory) -> Lake:
    """Forty three-handed Pineapple hands of three bots (mc-0, planner-1 and random-2, who fouls most), rescored
    under another rule set and analysed."""
    root = tmp_path_factory.mktemp("field") / "lake"
    for args in (
        ["simulate", "--variant", "pineapple", "--players", "3", "--bots", "mc,planner,random", "--hands", "40",
         "--seed", "11"],
        ["rescore", "--rules", "ofc"],
        ["analyse", "--rollouts", "8"],
    ):  # fmt: skip
        result = runner.invoke(app, [*args, "--lake", str(root)])
        assert result.exit_code == 0, result.output
    return Lake(root)


@pytest.fixture(scope="module")
def reports(field_lake: Lake) -> tuple[Report, Report]:
    """The report without a player and the report filtered to :data:`CHOSEN`."""
    return build(field_lake, Options()), build(field_lake, Options(player=CHOSEN))


def _figure(report: Report, section: str, title: str) -> go.Figure:
    game = report.game("pineapple")
    shown = next(s for s in game.sections if s.key == section)
    return next(f for f in shown.figures if f.layout.title.text.startswith(title))


RANKINGS = {
    "results": ("Points per hand by player", "y", "x"),
    "fouls": ("Foul rate by player", "x", "y"),
    "decisions": ("Expected points lost per hand by player", "y", "x"),
}


@pytest.mark.parametrize("section", RANKINGS)
def test_a_ranking_shows_the_field_with_the_chosen_player_marked(section: str, reports: tuple[Report, Report]) -> None:
    everyone, chosen = reports
    title, names, values = RANKINGS[section]
    bars = _figure(chosen, section, title).data[0]
    labels = list(bars[names])
    assert len(labels) == 3
    assert f"<b>{CHOSEN}</b>" in labels
    colours = dict(zip(labels, bars.marker.color, strict=True))
    assert colours.pop(f"<b>{CHOSEN}</b>") == figures.FEATURED
    assert figures.FEATURED not in colours.values()
    unfiltered = _figure(everyone, section, title).data[0]
    assert sorted(bars[values]) == pytest.approx(sorted(unfiltered[values]))  # the field as without a player


def test_all_players_figures_are_over_all_players(reports: tuple[Report, Report]) -> None:
    everyone, chosen = reports
    stats = {s["label"]: s["value"] for s in game_data(chosen.game("pineapple"))["sections"]["decisions"]}
    unfiltered = {s["label"]: s["value"] for s in game_data(everyone.game("pineapple"))["sections"]["decisions"]}
    assert stats["points lost per hand, all players"] == pytest.approx(unfiltered["points lost per hand, all players"])
    assert stats["points lost per hand, all players"] != stats[f"points lost per hand, {CHOSEN}"]
    for section, title, all_players in (
        ("decisions", "Points lost per hand by street", "all players"),
        ("fouls", "Chance of fouling after each decision", "as played, all players"),
    ):
        traces = {t.name: t for t in _figure(chosen, section, title).data}
        mine = next(t for name, t in traces.items() if name.endswith(CHOSEN))
        assert traces[all_players].y != pytest.approx(mine.y)
        unfiltered_trace = {t.name: t for t in _figure(everyone, section, title).data}[all_players]
        assert traces[all_players].y == pytest.approx(unfiltered_trace.y)


def test_the_json_holds_the_field_beside_the_chosen_player_s_own_rows(reports: tuple[Report, Report]) -> None:
    _, chosen = reports
    queries = game_data(chosen.game("pineapple"))["queries"]
    field = {r["group"] for r in queries["results" + EVERY_PLAYER] if r["dimension"] == "player"}
    assert field == {"mc-0", "planner-1", CHOSEN}
    assert {r["group"] for r in queries["results"] if r["dimension"] == "player"} == {CHOSEN}
    gains = {r["player"] for r in queries["scoring_variants" + EVERY_PLAYER] if r["rules_key"] is not None}
    assert gains >= field


def test_a_chart_of_players_keeps_the_featured_one_wherever_they_rank() -> None:
    names = [f"p{i}" for i in range(figures.MAX_BARS + 10)]
    kept = figures.first_bars(names, "p35")
    assert len(kept) == figures.MAX_BARS
    assert kept == [*names[: figures.MAX_BARS - 1], "p35"]
    assert figures.first_bars(names, "p3") == names[: figures.MAX_BARS]
    assert figures.first_bars(names, None) == names[: figures.MAX_BARS]


def test_the_featured_player_is_ranked_below_the_minimum_and_others_are_counted_out(field_lake: Lake) -> None:
    report = build(field_lake, Options(player=CHOSEN, min_hands=41))
    results = next(s for s in report.game("pineapple").sections if s.key == "results")
    table = next(t for t in results.tables if t.name == "results_by_player")
    assert [r["group"] for r in table.rows] == [CHOSEN]
    assert table.note.startswith("2 players with fewer than 41 hands left out")


def test_tick_labels_of_the_test_read_as_d3_writes_them() -> None:
    assert tick_labels(".2~%", 0.0, 0.0015, 0.0005) == ["0%", "0.05%", "0.1%", "0.15%"]
    assert tick_labels(".0%", 0.0, 0.0015, 0.0005) == ["0%", "0%", "0%", "0%"]
    assert tick_labels(",.0f", 0.0, 2000.0, 1000.0) == ["0", "1,000", "2,000"]


# Hands and streets ----------------------------------------------------------------------------------------------


def test_a_few_hands_are_counted_in_whole_hands() -> None:
    """A session of a few hands has a tick on each hand (none at 1.5) and a mark on each; a long one, Plotly's."""
    few = [{"session": "s", "hand": h, "cumulative_points": 2 * h} for h in range(1, 6)]
    fig = figures.sessions(few, "Ann")
    assert fig.layout.xaxis.dtick == 1
    assert fig.data[0].mode == "lines+markers"
    many = [{"session": "s", "hand": h, "cumulative_points": h} for h in range(1, 41)]
    fig = figures.sessions(many, "Ann")
    assert fig.layout.xaxis.dtick is None
    assert fig.data[0].mode == "lines"


@pytest.mark.parametrize("placed", [True, False])
def test_a_game_whose_hands_record_no_placements_draws_no_dead_street_chart(placed: bool) -> None:
    """Hands set whole (a scoresheet) tell no street a foul became certain: the section says so, with no chart of
    one bar named "no placements"."""
    rows = foul_rows(0.10, 0.40)
    rows.append({"dimension": "all", "group": "all boards", "foul_rate": 0.2, "boards": 30_000, "fouled": 6_000})
    dead = [{"variant": "ofc", "street": None, "boards_dead": 6_000, "share_of_fouled": 1.0, "cumulative_share": 1.0}]
    if placed:
        dead = [{**dead[0], "street": 5, "boards_dead": 2_000, "share_of_fouled": 1 / 3, "cumulative_share": 1 / 3}]
        dead.append({**dead[0], "street": None, "boards_dead": 4_000, "share_of_fouled": 2 / 3})
    section = fouls(_foul_game("ofc", lambda name, **_: dead if name == "dead_streets" else rows))
    titles = [fig.layout.title.text for fig in section.figures]
    assert any("dead street" in t for t in titles) is placed
    table = next(t for t in section.tables if t.name == "dead_streets")
    assert ("no foul's street is known" in (table.note or "")) is not placed


def test_a_players_opponents_are_counted_in_matchups() -> None:
    """A hand against two opponents is two matchups: the chart counts matchups, not hands the player played."""
    rows = [
        {"player": "Ann", "opponent": who, "points_per_matchup": 1.0, "ci_low": 0.5, "ci_high": 1.5, "matchups": n}
        for who, n in (("Bo", 13), ("Dev", 3))
    ]
    assert figures.head_to_head(rows, "Ann").layout.title.text == "Ann against each opponent (16 matchups)"
