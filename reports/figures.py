"""The report's charts, one builder per chart, each from the rows of a named query, as the JSON plotly.js draws
(:mod:`reports.chart`).

Every text that comes from the data (players, variants, rule sets, hands) is HTML-escaped before it reaches
a figure: Plotly renders a few tags in labels (``<b>``, ``<a href>``), and escaped text shows as typed.
"""

from __future__ import annotations

import html
import math
from collections.abc import Callable, Iterable, Sequence
from typing import Any, TypeVar

from ofc.pipeline.evaluate import CATEGORY_NAMES
from ofc.reports import drill
from ofc.reports.chart import Chart, Part, bar, heatmap, part, scatter
from ofc.reports.headline import SMALL_SAMPLE, count, small

Rows = list[dict[str, Any]]

COLORS = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf")
ROWS = ("top", "middle", "bottom")
MAX_BARS = 30
"""Players shown in a bar chart at most (the ones with the most hands): more is unreadable."""


def _scale(colors: Sequence[str]) -> list[list[Any]]:
    """Colours spread evenly over a colour scale, as Plotly spreads one it names."""
    return [[i / (len(colors) - 1), c] for i, c in enumerate(colors)]


BLUES = _scale(("rgb(247,251,255)", "rgb(222,235,247)", "rgb(198,219,239)", "rgb(158,202,225)", "rgb(107,174,214)",
                "rgb(66,146,198)", "rgb(33,113,181)", "rgb(8,81,156)", "rgb(8,48,107)"))  # fmt: skip
RED_BLUE = _scale(("rgb(103,0,31)", "rgb(178,24,43)", "rgb(214,96,77)", "rgb(244,165,130)", "rgb(253,219,199)",
                   "rgb(247,247,247)", "rgb(209,229,240)", "rgb(146,197,222)", "rgb(67,147,195)", "rgb(33,102,172)",
                   "rgb(5,48,97)"))  # fmt: skip
"""ColorBrewer's Blues and RdBu, as Plotly's Python names them (``plotly.colors``). Named in a chart's JSON,
plotly.js would draw its own scales of those names, which differ (its RdBu runs from blue to red)."""
_GRID = {"gridcolor": "#ebf0f8", "zerolinecolor": "#ebf0f8", "linecolor": "#ebf0f8", "automargin": True}
TEMPLATE = part(
    {"layout": {"paper_bgcolor": "white", "plot_bgcolor": "white", "colorway": list(COLORS), "xaxis": _GRID,
                "yaxis": _GRID}}
)  # fmt: skip
"""White charts with light grids: the few settings of Plotly's ``plotly_white`` a report uses. A chart carries its
template, and the full one costs every chart its size."""


def text(value: Any) -> str:
    """Data as label text: escaped, so that it shows literally."""
    return html.escape("" if value is None else str(value), quote=False)


def _layout(fig: Chart, title: str, x: str = "", y: str = "", height: int = 420) -> Chart:
    """The title, size and frame every chart has, over what its builder set."""
    ours = {
        "title": {"text": text(title), "x": 0.01},
        "height": height,
        "margin": {"l": 60, "r": 20, "t": 60, "b": 60},
        "xaxis": {"title": {"text": text(x)}},
        "yaxis": {"title": {"text": text(y)}},
        "legend": {"orientation": "h", "y": -0.2},
        "modebar": {"orientation": "v"},  # beside the chart: across the top it covered the titles of narrow charts
    }
    return fig.update_layout(ours, template=TEMPLATE)


MOST_TICKS = 10
"""The most ticks Plotly puts on an axis it labels itself: one per 40 pixels of a y axis or 80 of an x axis, 4 to 9
steps, plus one."""


def finest_step(span: float) -> float:
    """The finest tick step Plotly may choose over ``span``: it rounds span / ticks up to 1, 2 or 5 times a power
    of ten, with at most :data:`MOST_TICKS` ticks."""
    rough = span / MOST_TICKS
    base = 10.0 ** math.floor(math.log10(rough))
    return next(base * m for m in (1, 2, 5, 10) if base * m >= rough * (1 - 1e-9))


def tick_format(values: Iterable[float], percent: bool = False) -> str:
    """The d3 format of an axis over ``values`` (its whole extent: bars' zero, intervals' ends): as many decimals
    as the finest step Plotly may choose needs, so that no two ticks read alike however long the axis is;
    trailing zeros trimmed (``~``) where it chooses a coarser step."""
    shown = list(values)
    low, high = min(shown, default=0.0), max(shown, default=0.0)
    span = (high - low or abs(high) or 1.0) * (100 if percent else 1)
    places = max(0, -math.floor(math.log10(finest_step(span)) + 1e-9))
    trim = "~" if places else ""
    return f".{places}{trim}%" if percent else f",.{places}{trim}f"


def _numbers(values: Any) -> list[float]:
    """The finite numbers among a trace's values, rows flattened (a heatmap's z): a category has none."""
    out: list[float] = []
    for v in values if isinstance(values, list | tuple) else ():
        if isinstance(v, list | tuple):
            out += _numbers(v)
        elif isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v):
            out.append(float(v))
    return out


def _plotted(fig: Chart, axis: str) -> list[float]:
    """Every value ``fig`` draws along ``axis`` (x, y, or z: a heatmap's colour bar): its traces' values, their
    error bars' ends, zero where bars start, and each stack's ends where bars stack."""
    out: list[float] = []
    stacks: dict[tuple[Any, bool], float] = {}
    stacked = fig.layout.barmode in ("stack", "relative")
    for trace in fig.data:
        values = getattr(trace, axis, None)
        out += _numbers(values)
        error = getattr(trace, f"error_{axis}", None)
        if error is not None and error.array is not None:
            minus = error.arrayminus if error.arrayminus is not None else error.array
            for v, up, down in zip(values or (), error.array, minus, strict=False):
                if len(_numbers([v, up, down])) == 3:
                    out += [v + up, v - down]
        if trace.type == "bar":
            out.append(0.0)
        if trace.type == "bar" and stacked:
            for where, v in zip(trace["y" if axis == "x" else "x"] or (), values or (), strict=False):
                if _numbers([v]):
                    stacks[(where, v > 0)] = stacks.get((where, v > 0), 0.0) + v
    return out + list(stacks.values())


def _ticks(fig: Chart, axis: str = "y", percent: bool = False) -> Chart:
    """Label ``axis`` (x, y, or z: the colour bar of a heatmap) in the :func:`tick_format` of what it draws."""
    fmt = tick_format(_plotted(fig, axis), percent)
    if axis == "z":
        fig.update_traces({"colorbar": {"tickformat": fmt}}, kind="heatmap")
    else:
        fig.update_layout({f"{axis}axis": {"tickformat": fmt}})
    return fig


def _drill(
    trace: Any, points: Sequence[drill.Drill | Sequence[drill.Drill | None] | None] | None = None, **every: Any
) -> Any:
    """Say what a click on each of ``trace``'s points lists: the boards behind it, on a served page. ``every``: the
    parameters all its points share; ``points``: each point's own, in the trace's order (a heatmap's row by row;
    None: a point with no board behind it, which leads nowhere). A report file carries them and does nothing with
    them."""

    own = None
    if points is not None:
        own = [[drill.plain(q) for q in p] if isinstance(p, (list, tuple)) else drill.plain(p) for p in points]
    trace.meta = {"drill": {"every": drill.plain(every), "points": own}}
    return trace


def _error(rows: Rows, value: str, low: str, high: str) -> dict[str, Any]:
    """Asymmetric error bars from an interval's bounds."""
    return {
        "type": "data",
        "symmetric": False,
        "array": [(r[high] - r[value]) if r[high] is not None else 0 for r in rows],
        "arrayminus": [(r[value] - r[low]) if r[low] is not None else 0 for r in rows],
    }


def _interval_bars(
    rows: Rows,
    x: list[str],
    value: str,
    color: str | list[str],
    name: str | None = None,
    low: str | None = "ci_low",
    high: str | None = "ci_high",
    n: str | None = None,
    of: str = "boards",
    shown: str = ".2f",
) -> Part:
    """Bars of ``value``, one per row, each with its 95% interval (``low`` to ``high``); with ``n`` (the key of
    each row's count of ``of``), the hover says what each bar counts and a small sample is hatched."""
    bars = bar(x=x, y=[r[value] for r in rows], marker={"color": color})
    if low is not None and high is not None:
        bars.error_y = _error(rows, value, low, high)
    if name is not None:
        bars.name = text(name)
    if n is not None:
        counts = [r.get(n) or 0 for r in rows]
        bars.customdata = [[c, " · small sample" if small(c) else ""] for c in counts]
        bars.hovertemplate = f"%{{x}}: %{{y:{shown}}} of %{{customdata[0]:,}} {of}%{{customdata[1]}}<extra></extra>"
        bars.marker.pattern = {"shape": ["/" if small(c) else "" for c in counts], "solidity": 0.5}
    return bars


def bars_with_intervals(
    rows: Rows, label: str, value: str, low: str, high: str, title: str, y: str, percent: bool = False
) -> Chart:
    """One bar per row with its 95% interval."""
    fig = Chart(_interval_bars(rows, [text(r[label]) for r in rows], value, COLORS[0], low=low, high=high))
    _layout(fig, title, "", y)
    return _ticks(fig, "y", percent)


FEATURED = "#d62728"
"""The featured player's colour in charts of every player."""
OTHERS = tuple(c for c in COLORS if c != FEATURED)
"""Every other player's colours: never the featured player's."""
POSITION_WORDS = ("button", "1st to act", "2nd to act", "3rd to act")


T = TypeVar("T")


def first_bars(ordered: Sequence[T], featured: str | None, name: Callable[[T], Any] = lambda x: x) -> list[T]:
    """The first :data:`MAX_BARS` players of ``ordered`` (each ``name`` gives a player), the featured player among
    them wherever they come: a chart of players shows where the featured one stands."""
    room = MAX_BARS - any(name(x) == featured for x in ordered[MAX_BARS:])
    return [x for i, x in enumerate(ordered) if i < room or name(x) == featured]


def _highlight(names: list[str], featured: str | None, base: str = COLORS[0]) -> list[str]:
    return [FEATURED if n == featured else base for n in names]


def player_label(name: str, featured: str | None) -> str:
    """A player's name as a chart of players labels it: the featured player's in bold."""
    return f"<b>{text(name)}</b>" if name == featured else text(name)


def ranking(rows: Rows, featured: str | None) -> Chart:
    """Players ranked by points per hand, each with its 95% interval, the featured player in red."""
    return _players_by(
        rows,
        featured,
        "points_per_hand",
        "Points per hand by player (95% intervals)",
        "points per hand",
        "%{y}: %{x:.2f} points per hand over %{customdata[0]:,} hands%{customdata[2]}<extra></extra>",
    )


def _players_by(rows: Rows, featured: str | None, value: str, title: str, axis: str, hover: str, **every: Any) -> Chart:
    """One horizontal bar per player, the highest ``value`` at the top, each with its 95% interval (``ci_low`` to
    ``ci_high``), the featured player in red, a small sample hatched; ``hover`` reads the hands, decisions and the
    small-sample mark as ``customdata``."""
    shown = sorted(rows, key=lambda r: r[value])
    names = [r["group"] for r in shown]
    bars = bar(
        y=[player_label(n, featured) for n in names],
        x=[r[value] for r in shown],
        orientation="h",
        marker={
            "color": _highlight(names, featured),
            "pattern": {"shape": ["/" if small(r["hands"]) else "" for r in shown], "solidity": 0.5},
        },
        text=[f"{r['hands']:,} hands" for r in shown],
        textposition="inside",
        insidetextanchor="start",
        error_x=_error(shown, value, "ci_low", "ci_high"),
        customdata=[[r["hands"], r.get("decisions"), " · small sample" if small(r["hands"]) else ""] for r in shown],
        hovertemplate=hover,
    )
    fig = Chart(_drill(bars, [{"player": n} for n in names], **every))
    if any(small(r["hands"]) for r in shown):
        title += f" · hatched: fewer than {SMALL_SAMPLE} hands"
    _layout(fig, title, axis, "", height=max(320, 28 * len(shown) + 120))
    return _ticks(fig, "x")


def running_totals(rows: Rows, featured: str | None) -> Chart:
    """Net points as hands accumulate, one line per player, the featured player's drawn over the rest."""
    fig = Chart()
    players = sorted(dict.fromkeys(r["player"] for r in rows), key=lambda p: p == featured)
    for i, player in enumerate(players):
        mine = [r for r in rows if r["player"] == player]
        me = player == featured
        fig.add_trace(
            _drill(
                scatter(
                    name=f"{text(player)} ({max(r['hands'] for r in mine):,} hands)",
                    x=[0, *(r["hands"] for r in mine)],
                    y=[0, *(r["points"] for r in mine)],
                    mode="lines+markers" if len(mine) <= 30 else "lines",
                    line={"color": FEATURED if me else OTHERS[i % len(OTHERS)], "width": 3 if me else 1.5},
                    hovertemplate=f"{text(player)}: %{{y:+,}} points after %{{x:,}} hands<extra></extra>",
                ),
                player=player,
            )
        )
    _layout(fig, "Running total of net points over hands played", "hands played", "net points")
    return _whole_hands(fig, max((r["hands"] for r in rows), default=0))


def _whole_hands(fig: Chart, most: int) -> Chart:
    """An x axis counting hands: up to ``most``, a tick on every hand where there are few (none at 1.5)."""
    if most < 10:
        fig.update_xaxes(dtick=1)
    return fig


def cumulative(rows: Rows, player: str) -> Chart:
    """One player's running net points day by day."""
    days = [r["day"].isoformat() for r in rows if r["day"] is not None]
    fig = Chart(
        scatter(
            x=days,
            y=[r["cumulative_points"] for r in rows if r["day"] is not None],
            mode="lines+markers",
            line={"color": FEATURED},
            name=text(player),
            customdata=[r["cumulative_hands"] for r in rows if r["day"] is not None],
            hovertemplate="%{x}: %{y:+,} points after %{customdata:,} hands<extra></extra>",
        )
    )
    _drill(fig.data[0], [{"player": player, "since": d, "until": d} for d in days])
    hands = max((r["cumulative_hands"] for r in rows), default=0)
    return _layout(fig, f"{player}: running total of net points by day ({count(hands, 'hand')})", "day", "net points")


def _total(rows: Rows, key: str) -> int:
    return sum(r.get(key) or 0 for r in rows)


def foul_rate_by(rows: Rows, dimension: str, title: str, x: str, featured: str | None = None) -> Chart | None:
    """Foul rate with 95% intervals for the groups of one breakdown of the query ``foul_rate``."""
    picked = [r for r in rows if r["dimension"] == dimension]
    if not picked:
        return None
    mark = featured if dimension == "player" else None
    labels = [player_label(r["group"], mark) for r in picked]
    colors = _highlight([r["group"] for r in picked], mark)
    bars = _interval_bars(picked, labels, "foul_rate", colors, n="boards", shown=".1%")
    fig = Chart(_drill(bars, [drill.group(r) for r in picked], outcome="fouled"))
    _layout(fig, f"{title} ({count(_total(picked, 'boards'), 'board')})", x, "boards fouled", height=360)
    fig.update_yaxes(rangemode="tozero")
    _ticks(fig, "y", percent=True)
    fig.update_xaxes(type="category")
    return fig


def foul_rate_by_seat(rows: Rows) -> Chart | None:
    """Foul rate by seat, one group of bars per table size: the button acts last."""
    if not rows:
        return None
    fig = Chart()
    sizes = sorted({r["n_players"] for r in rows})
    for i, size in enumerate(sizes):
        mine = sorted((r for r in rows if r["n_players"] == size), key=lambda r: (r["position"] - 1) % size)
        x = [POSITION_WORDS[r["position"]] for r in mine]
        bars = _interval_bars(mine, x, "foul_rate", COLORS[i % len(COLORS)], f"{size} players", n="boards", shown=".1%")
        fig.add_trace(_drill(bars, [{"position": r["position"]} for r in mine], outcome="fouled", table_size=size))
    title = f"Foul rate by seat, at each table size ({count(_total(rows, 'boards'), 'board')})"
    _layout(fig, title, "seat", "boards fouled", height=360)
    fig.update_yaxes(rangemode="tozero")
    _ticks(fig, "y", percent=True)
    order = [
        w for w in (*POSITION_WORDS[1:], POSITION_WORDS[0]) if any(POSITION_WORDS[r["position"]] == w for r in rows)
    ]
    fig.update_xaxes(type="category", categoryorder="array", categoryarray=order)
    fig.update_layout(barmode="group", legend={"orientation": "h", "y": -0.3})
    return fig


def dead_streets(rows: Rows) -> Chart:
    """When fouls became certain: the share of a game's fouled boards whose foul was certain after each street."""
    x = [str(r["street"]) if r["street"] is not None else "no placements" for r in rows]
    fig = Chart(
        bar(
            x=x,
            y=[r["share_of_fouled"] for r in rows],
            customdata=[r["boards_dead"] for r in rows],
            hovertemplate="street %{x}: %{y:.1%} of fouled boards (%{customdata:,})<extra></extra>",
            marker={"color": COLORS[3]},
        )
    )
    _drill(fig.data[0], [{"dead_street": r["street"] if r["street"] is not None else "none"} for r in rows])
    fouled = _total(rows, "boards_dead")
    title = f"Street after which the foul was certain (dead street), {count(fouled, 'fouled board')}"
    _layout(fig, title, "street", "share of fouled boards", height=360)
    _ticks(fig, "y", percent=True)
    streets = sorted({r["street"] for r in rows if r["street"] is not None})
    order = [str(s) for s in streets] + (["no placements"] if any(r["street"] is None for r in rows) else [])
    fig.update_xaxes(type="category", categoryorder="array", categoryarray=order)
    return fig


def royalty_boards(rows: Rows) -> int:
    """The boards the rows of ``royalty_frequency`` count: each rule set's boards once (as played, each hand's
    rule set counts its own)."""
    return sum({r["rules_key"]: r["boards"] for r in rows}.values())


def royalty_heatmap(rows: Rows, game: str) -> Chart | None:
    """How often each row makes each royalty-earning category: a heatmap, rows top to bottom."""
    paid = [r for r in rows if r["points"] > 0]
    if not paid:
        return None
    boards = max(royalty_boards(rows), 1)
    categories = sorted({r["category"] for r in paid}, key=lambda c: _category_order(paid, c))
    z = [
        [sum(r["boards_made"] for r in paid if r["row"] == row and r["category"] == c) / boards for c in categories]
        for row in ROWS
    ]
    fig = Chart(
        heatmap(
            x=[text(c) for c in categories],
            y=list(ROWS),
            z=z,
            colorscale=BLUES,
            texttemplate="%{z:.2%}",
            hovertemplate=f"%{{y}} %{{x}}: %{{z:.3%}} of {boards:,} boards<extra></extra>",
        )
    )
    cells = [[{"row": row, "made": c} if share and c != "other" else None  # other: a hand the rules do not name
              for c, share in zip(categories, z[i], strict=True)] for i, row in enumerate(ROWS)]  # fmt: skip
    _drill(fig.data[0], cells)
    _ticks(fig, "z", percent=True)
    title = f"Royalty frequency: share of {count(boards, game + ' board')} by row and hand"
    _layout(fig, title, "hand", "row", height=360)
    fig.update_yaxes(autorange="reversed")
    return fig


def _category_order(rows: Rows, category: str) -> tuple[int, int, str]:
    """Hands in the evaluator's order, weakest first; a name it does not know (a 2-7 low) after them."""
    known = CATEGORY_NAMES.index(category) if category in CATEGORY_NAMES else len(CATEGORY_NAMES)
    return (known, min(r["points"] for r in rows if r["category"] == category), category)


def royalty_points(rows: Rows, players: bool, featured: str | None = None) -> Chart | None:
    """Royalty points per board by row, stacked, for each player of ``rows`` (``players``) or each group."""
    if players:
        picked = [r for r in rows if r["dimension"] == "player"]
    else:
        picked = [r for r in rows if r["dimension"] != "player"]
    if not picked:
        return None
    labels = [player_label(r["label"], featured) for r in picked]
    boards = [[r["boards"]] for r in picked]
    groups = [{r["dimension"]: r["label"]} if r["dimension"] in ("player", "variant") else {} for r in picked]
    fig = Chart(
        [
            _drill(
                bar(
                    name=row,
                    x=labels,
                    y=[r[row] for r in picked],
                    marker={"color": COLORS[i]},
                    customdata=boards,
                    hovertemplate=f"%{{x}}: %{{y:.2f}} {row} royalty points a board, of %{{customdata[0]:,}}"
                    "<extra></extra>",
                ),
                groups,
                sort="royalties",
            )
            for i, row in enumerate(ROWS)
        ]
    )
    by = "player" if players else "group"
    _layout(
        fig,
        f"Royalty points per board by {by}, by row ({count(_total(picked, 'boards'), 'board')})",
        "",
        "points per board",
        height=380,
    )
    fig.update_layout(barmode="stack")
    fig.update_xaxes(type="category")
    return _ticks(fig)


def fantasyland_flow(normal: dict[str, Any], fl: dict[str, Any]) -> Chart:
    """Entries and stays earned beside the Fantasyland hands played: the hands played follow both, so they are
    bars side by side, not a funnel."""
    stages = ["entries earned", "stays earned", "Fantasyland hands played"]
    values = [normal.get("entries") or 0, fl.get("stays") or 0, fl.get("hands") or 0]
    fig = Chart(
        bar(
            x=stages,
            y=values,
            text=[f"{v:,}" for v in values],
            textposition="auto",
            marker={"color": [COLORS[2], COLORS[2], COLORS[1]]},
        )
    )
    _drill(fig.data[0], [{"outcome": "entered"}, {"outcome": "stayed"}, {"fantasyland": "in"}])
    title = f"Fantasyland: earned and played (of {count(normal.get('hands'), 'normal hand')})"
    return _layout(fig, title, "", "hands", height=360)


def all_counts(rows: Rows, variant: str) -> dict[str, Any] | None:
    """A variant's Fantasyland hands over every card count: the row without a count, else its only row."""
    fl = [r for r in rows if r["variant"] == variant and r["hand_kind"] == "fantasyland"]
    return next((r for r in fl if r["cards"] is None), fl[0] if len(fl) == 1 else None)


def _by_cards(rows: Rows) -> Rows:
    """One game's Fantasyland rows by card count (every count together only where there is a single one)."""
    fl = [r for r in rows if r["hand_kind"] == "fantasyland"]
    counted = [r for r in fl if r["cards"] is not None]
    return counted or fl


def fantasyland_rates(rows: Rows) -> Chart:
    """Entry rate of normal hands and stay rate of Fantasyland hands by card count, with 95% intervals."""
    normal = [r for r in rows if r["hand_kind"] == "normal"]
    fl = _by_cards(rows)
    fig = Chart(
        [
            _drill(
                _interval_bars(
                    normal,
                    ["normal hands" for _ in normal],
                    "entry_rate",
                    COLORS[2],
                    "entry rate (normal hands)",
                    "entry_ci_low",
                    "entry_ci_high",
                    n="hands",
                    of="hands",
                    shown=".1%",
                ),
                outcome="entered",
            ),
            _drill(
                _interval_bars(
                    fl,
                    [text(r["kind"]) for r in fl],
                    "stay_rate",
                    COLORS[1],
                    "stay rate (Fantasyland hands)",
                    "stay_ci_low",
                    "stay_ci_high",
                    n="hands",
                    of="hands",
                    shown=".1%",
                ),
                [drill.cards(r) for r in fl],
                outcome="stayed",
            ),
        ]
    )
    title = f"Fantasyland entry and stay rates (95% intervals; {count(_total(normal, 'hands'), 'normal hand')}, "
    title += f"{count(_total(fl, 'hands'), 'Fantasyland hand')})"
    _layout(fig, title, "", "share of hands", height=360)
    fig.update_yaxes(rangemode="tozero")
    _ticks(fig, "y", percent=True)
    fig.update_xaxes(type="category")
    return fig


def fantasyland_points(rows: Rows) -> Chart:
    """Points per hand in normal and Fantasyland hands, by the Fantasyland hand's card count, with intervals."""
    picked = [r for r in rows if r["hand_kind"] == "normal"] + _by_cards(rows)
    fig = Chart(
        _interval_bars(
            picked,
            [text(r["kind"]) for r in picked],
            "points_per_hand",
            [COLORS[0] if r["hand_kind"] == "normal" else COLORS[1] for r in picked],
            None,
            "points_ci_low",
            "points_ci_high",
            n="hands",
            of="hands",
        )
    )
    _drill(fig.data[0], [drill.cards(r) for r in picked], sort="points")
    title = f"Points per hand, normal and Fantasyland (95% intervals; {count(_total(picked, 'hands'), 'hand')})"
    _layout(fig, title, "", "points per hand", height=380)
    fig.update_xaxes(type="category")
    return _ticks(fig)


def hand_kind(row: dict[str, Any]) -> str:
    """A row of the query ``fantasyland`` in words: normal, or Fantasyland with its card count."""
    if row["hand_kind"] == "normal":
        return "normal"
    if row["cards"] is None:
        return "Fantasyland, every card count"
    return f"Fantasyland {row['cards']} cards" if row["cards"] else "Fantasyland, card count not recorded"


def sessions(rows: Rows, player: str) -> Chart:
    """Running net points hand by hand through each of a player's latest sessions."""
    fig = Chart()
    for i, session in enumerate(dict.fromkeys(r["session"] for r in rows)):
        mine = [r for r in rows if r["session"] == session]
        line = scatter(
            name=text(session),
            x=[r["hand"] for r in mine],
            y=[r["cumulative_points"] for r in mine],
            mode="lines+markers" if len(mine) <= 30 else "lines",
            line={"color": COLORS[i % len(COLORS)]},
        )
        fig.add_trace(_drill(line, **drill.session(session, player), sort="date", order="asc"))
    title = f"Running total of net points through {player}'s latest sessions ({count(len(rows), 'hand')})"
    _layout(fig, title, "hand of the session", "net points")
    return _whole_hands(fig, max((r["hand"] for r in rows), default=0))


def head_to_head(rows: Rows, player: str | None) -> Chart:
    """A player's points per matchup against each opponent; without a player, a heatmap of every pair."""
    if player is not None:
        mine = [r for r in rows if r["player"] == player]
        bars = _interval_bars(
            mine, [text(r["opponent"]) for r in mine], "points_per_matchup", COLORS[0], n="matchups", of="hands"
        )
        fig = Chart(_drill(bars, [{"opponent": r["opponent"]} for r in mine], player=player))
        # a hand against two opponents is two matchups: said as such, not as hands (the player's are fewer)
        _layout(fig, f"{player} against each opponent ({count(_total(mine, 'matchups'), 'matchup')})", "", "")
        fig.update_yaxes(title={"text": "points per hand together"})
        return _ticks(fig)
    busiest = _busiest(rows)
    index = {p: i for i, p in enumerate(busiest)}
    z: list[list[float | None]] = [[None] * len(busiest) for _ in busiest]
    for r in rows:
        if r["player"] in index and r["opponent"] in index:
            z[index[r["player"]]][index[r["opponent"]]] = r["points_per_matchup"]
    labels = [text(p) for p in busiest]
    fig = Chart(
        heatmap(
            x=labels,
            y=labels,
            z=z,
            colorscale=RED_BLUE,
            zmid=0,
            hovertemplate="%{y} against %{x}: %{z:.2f} points per matchup<extra></extra>",
        )
    )
    _drill(fig.data[0], [[{"player": p, "opponent": o} for o in busiest] for p in busiest])
    return _layout(fig, "Head to head: points per matchup (row player against column player)", "", "", height=560)


def _busiest(rows: Rows) -> list[str]:
    counts: dict[str, int] = {}
    for r in rows:
        counts[r["player"]] = counts.get(r["player"], 0) + r["matchups"]
    return sorted(counts, key=lambda p: (-counts[p], p))[:MAX_BARS]


def gains(rows: Rows, rule_names: Sequence[str], featured: str | None = None) -> Chart:
    """Which rule set favours whom: each player's gain per hand under each rule set against the same hands as
    played, paired hand by hand, with 95% intervals; the featured player's name in bold."""
    hands: dict[str, int] = {}
    for r in rows:
        hands[r["player"]] = max(hands.get(r["player"], 0), r["hands"])
    shown = first_bars(sorted(hands, key=lambda p: (-hands[p], p)), featured)
    fig = Chart()
    for i, name in enumerate(rule_names):
        mine = {r["player"]: r for r in rows if r["rule_set"] == name}
        picked = [mine[p] for p in shown if p in mine]
        if not picked:
            continue
        x = [player_label(r["player"], featured) for r in picked]
        fig.add_trace(
            _drill(
                _interval_bars(
                    picked,
                    x,
                    "gain_per_hand",
                    COLORS[i % len(COLORS)],
                    name,
                    "gain_ci_low",
                    "gain_ci_high",
                    "hands",
                    "hands",
                    "+.2f",
                ),
                [{"player": r["player"]} for r in picked],
                rules=drill.rules(picked[0]),
                sort="points",
            )
        )
    title = "Which rule set favours whom: gain per hand against the hands as played (95% intervals)"
    _layout(fig, title, "", "points per hand gained", height=460)
    fig.update_layout(barmode="group")
    fig.update_xaxes(type="category")
    return _ticks(fig)


def swing(rows: Rows) -> Chart:
    """How much each rule set swings results: the standard deviation of a board's points per hand."""
    fig = Chart(
        bar(
            x=[text(r["rule_set"]) for r in rows],
            y=[r["stddev"] for r in rows],
            marker={"color": COLORS[4]},
            text=[f"{r['stddev']:.2f}" if r["stddev"] is not None else "" for r in rows],
            textposition="outside",
            cliponaxis=False,
            customdata=[r["boards"] for r in rows],
            hovertemplate="%{x}: %{y:.2f} points of %{customdata:,} boards<extra></extra>",
        )
    )
    _drill(fig.data[0], [{"rules": drill.rules(r)} for r in rows], sort="points")
    boards = max((r["boards"] or 0 for r in rows), default=0)
    title = f"Swing: standard deviation of a board's points ({count(boards, 'board')})"
    return _ticks(_layout(fig, title, "", "points", height=360))


def winner_changes(rows: Rows) -> Chart:
    """Share of hands whose winner changes against the hands as played, per rule set."""
    bars = _interval_bars(
        rows, [text(r["rule_set"]) for r in rows], "change_rate", COLORS[5], n="hands", of="hands", shown=".1%"
    )
    fig = Chart(_drill(bars, [{"rules": drill.rules(r)} for r in rows], outcome="changed"))
    hands = max((r["hands"] or 0 for r in rows), default=0)
    title = f"Hands whose winner changes against the hands as played ({count(hands, 'hand')})"
    _layout(fig, title, "", "share of hands", height=400)
    fig.update_yaxes(rangemode="tozero")
    return _ticks(fig, "y", percent=True)


def ev_lost_by_player(rows: Rows, featured: str | None) -> Chart:
    """Players by the points their decisions gave up per hand, each with its 95% interval."""
    fig = _players_by(
        rows,
        featured,
        "ev_lost_per_hand",
        "Expected points lost per hand by player (95% intervals)",
        "points lost per hand",
        "%{y}: %{x:.2f} points lost per hand over %{customdata[0]:,} hands (%{customdata[1]:,} decisions)"
        "%{customdata[2]}<extra></extra>",
        sort="ev_lost",
    )
    fig.update_xaxes(rangemode="tozero")
    return fig


KIND_WORDS = {
    "initial": "first five cards",
    "placement": "placement",
    "discard": "placement and discard",
    "fantasyland": "Fantasyland setting",
}


def ev_lost_by(rows: Rows, dimension: str, featured: str | None) -> Chart | None:
    """Points lost per hand at each street, or in each kind of decision: every player's, and the featured
    player's beside, with 95% intervals."""
    picked = [r for r in rows if r["dimension"] == dimension]
    if not picked:
        return None

    def label(r: dict[str, Any]) -> str:
        return f"street {r['street']}" if dimension == "street" else KIND_WORDS.get(r["kind"], r["kind"])

    fig = Chart()
    groups = [("all players", None, COLORS[0])]
    if featured is not None and any(r["player"] == featured for r in picked):
        groups.append((featured, featured, FEATURED))
    for name, player, color in groups:
        mine = [r for r in picked if r["player"] == player]
        bars = _interval_bars(
            mine, [text(label(r)) for r in mine], "ev_lost_per_hand", color, name, n="hands", of="hands"
        )
        fig.add_trace(_drill(bars, [drill.decision(r) for r in mine], player=player))
    everyone = next((r["hands"] for r in rows if r["dimension"] == "hand" and r["player"] is None), None)
    title = "Points lost per hand by street" if dimension == "street" else "Points lost per hand by kind of decision"
    if everyone:
        title += f" ({count(everyone, 'hand')})"
    _layout(fig, title, "", "points lost per hand", height=360)
    fig.update_layout(barmode="group")
    fig.update_yaxes(rangemode="tozero")
    fig.update_xaxes(type="category")
    return _ticks(fig)


def _decision_label(row: dict[str, Any]) -> str:
    if row["kind"] == "none: the cards":
        return "no decision: the cards"
    if row["street"] is not None:
        return f"street {row['street']}"
    return KIND_WORDS.get(row["kind"], row["kind"] or "")


def foul_chance_by_street(rows: Rows, featured: str | None) -> Chart | None:
    """The chance of fouling after each street's decision (rows of ``foul_sources`` by street), as played and with
    the best move found, for every player and the featured player as played."""
    everyone = [r for r in rows if r["player"] is None]
    if not everyone:
        return None
    x = [text(_decision_label(r)) for r in everyone]
    fig = Chart(
        [
            _interval_bars(everyone, x, "foul_played", COLORS[3], "as played, all players", None, None,
                           "decisions", "decisions", ".1%"),
            _interval_bars(everyone, x, "foul_best", COLORS[2], "with the best move found", None, None,
                           "decisions", "decisions", ".1%"),
        ]
    )  # fmt: skip
    mine = [r for r in rows if featured is not None and r["player"] == featured]
    if mine:
        fig.add_trace(
            _interval_bars(mine, [text(_decision_label(r)) for r in mine], "foul_played", FEATURED,
                           f"as played, {featured}", None, None, "decisions", "decisions", ".1%")
        )  # fmt: skip
    for trace, rows_of in zip(fig.data, (everyone, everyone, mine), strict=False):
        mine_too = trace.name == text(f"as played, {featured}")
        _drill(trace, [drill.decision(r) for r in rows_of], player=featured if mine_too else None)
    weighed = count(everyone[0]["analysed_boards"], "weighed board")
    title = f"Chance of fouling after each decision ({count(_total(everyone, 'decisions'), 'decision')}, {weighed})"
    _layout(fig, title, "", "chance the board ends fouled", height=380)
    fig.update_yaxes(rangemode="tozero")
    _ticks(fig, "y", percent=True)
    fig.update_xaxes(type="category")
    fig.update_layout(barmode="group")
    return fig


def foul_causes(rows: Rows, fouled: int, dimension: str) -> Chart | None:
    """Fouled boards by the decision that raised their chance of fouling most (rows of ``foul_sources``), by street
    or by kind of decision, as shares with 95% intervals."""
    picked = [r for r in rows if r["dimension"] == dimension]
    if not picked:
        return None
    x = [text(_decision_label(r)) for r in picked]
    colors = [COLORS[7] if r["kind"] == "none: the cards" else COLORS[3] for r in picked]
    fig = Chart(_interval_bars(picked, x, "share", colors, None, "share_low", "share_high", "fouled_boards",
                                   "fouled boards", ".1%"))  # fmt: skip
    _drill(fig.data[0], [drill.cause(r) for r in picked])
    by = "street" if dimension == "cause_street" else "kind of decision"
    title = f"Fouled boards by the {by} that made the foul likely most ({count(fouled, 'fouled board')})"
    _layout(fig, title, "", "share of fouled boards", height=360)
    fig.update_yaxes(rangemode="tozero")
    _ticks(fig, "y", percent=True)
    fig.update_xaxes(type="category")
    return fig
