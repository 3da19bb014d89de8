"""The report: each section runs named queries over the lake and turns their rows into numbers, charts and tables.

``build`` returns a :class:`Report` holding every query's rows (what ``--json`` writes) and the sections
(what :func:`reports.html.render` lays out). Nothing here formats SQL: filters travel as bound parameters.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date
from typing import Any

import duckdb
import plotly.graph_objects as go

from pipeline.lake.snapshot import Snapshot
from pipeline.lake.store import Lake
from pipeline.query import named
from pipeline.query.db import connect
from reports import figures

Rows = list[dict[str, Any]]

PERCENT_COLUMNS = frozenset(
    {
        "foul_rate",
        "share_of_fouled",
        "share_of_boards",
        "cumulative_share",
        "frequency",
        "entry_rate",
        "stay_rate",
        "change_rate",
        "scoop_rate",
        "scooped_rate",
        "won_share",
        "share_with_royalty",
        "foul_ci_low",
        "foul_ci_high",
    }
)
"""Shares, shown as percentages (and the interval columns of tables whose main figure is a share)."""


@dataclass(frozen=True)
class Options:
    """What the report covers: one player, one variant, a first day, and rule sets (names or keys).

    Without rule sets, every figure reads each hand under the rules it was played by, and the rule sets the lake
    compares are set beside them. With rule sets, the first leads: figures read every hand as if it had been
    played under it, and all of them are compared with the hands as played.
    """

    player: str | None = None
    variant: str | None = None
    rules: tuple[str, ...] = ()
    since: date | None = None


@dataclass
class Table:
    caption: str
    rows: Rows
    columns: list[str]
    percent: frozenset[str] = frozenset()
    limit: int = 200


@dataclass
class Section:
    key: str
    title: str
    intro: str
    headline: list[tuple[str, str]] = field(default_factory=list)
    figures: list[go.Figure] = field(default_factory=list)
    tables: list[Table] = field(default_factory=list)
    note: str = ""


@dataclass
class Report:
    options: Options
    lead: str | None
    """The rule set every figure reads (its key), or None: each hand under its own rules."""
    compared: list[str]
    """Rule set keys compared with the hands as played."""
    queries: dict[str, Rows]
    sections: list[Section]
    notes: list[str] = field(default_factory=list)
    """What the figures leave out and why (hands not yet rescored, variants a rule set cannot score)."""
    seconds: dict[str, float] = field(default_factory=dict)

    @property
    def rules(self) -> list[str]:
        """Every rule set the report reads, the leading one first."""
        return list(dict.fromkeys([*([self.lead] if self.lead else []), *self.compared]))

    def data(self) -> dict[str, Any]:
        """Every number of the report, for ``--json``: the filters, the headline figures, each query's rows."""
        return {
            "filters": {
                "player": self.options.player,
                "variant": self.options.variant,
                "rules": self.lead or "as played",
                "compared": self.compared,
                "since": self.options.since.isoformat() if self.options.since else None,
            },
            "notes": self.notes,
            "headline": {s.key: dict(s.headline) for s in self.sections},
            "queries": {name: [_jsonable(r) for r in rows] for name, rows in self.queries.items()},
        }


def _jsonable(row: dict[str, Any]) -> dict[str, Any]:
    return {k: v.isoformat() if isinstance(v, date) else v for k, v in row.items()}


def pct(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.2%}"


def num(value: float | None, digits: int = 2) -> str:
    return "n/a" if value is None else f"{value:,.{digits}f}"


def interval(value: float | None, low: float | None, high: float | None, fmt: Callable[[float | None], str]) -> str:
    if value is None:
        return "n/a"
    return f"{fmt(value)} ({fmt(low)} to {fmt(high)})" if low is not None and high is not None else fmt(value)


class _Runner:
    """Runs named queries with the report's filters on one connection over one snapshot, keeping each one's rows
    and time."""

    def __init__(
        self,
        snapshot: Snapshot,
        con: duckdb.DuckDBPyConnection,
        options: Options,
        lead: str | None,
        compared: list[str],
    ) -> None:
        self.snapshot, self.con, self.options = snapshot, con, options
        self.lead, self.compared = lead, compared
        self.rows: dict[str, Rows] = {}
        self.seconds: dict[str, float] = {}

    def __call__(self, name: str, **extra: Any) -> Rows:
        query = named.get(name)
        values: dict[str, Any] = {}
        for p in query.params:
            if p.type == "rules":
                values[p.name] = self.lead
            elif p.type == "rules[]":
                values[p.name] = self.compared
            elif p.name in ("player", "variant", "since"):
                values[p.name] = getattr(self.options, p.name)
        values.update(extra)
        t0 = time.perf_counter()
        rows = named.run(self.con, self.snapshot, name, values).to_pylist()
        self.seconds[name] = time.perf_counter() - t0
        self.rows[name] = rows
        return rows


def _notes(snapshot: Snapshot, lead: str | None, variant: str | None) -> list[str]:
    """What the figures leave out: hands without results yet, and the variants the leading rule set cannot score."""
    notes = []
    unscored = [m for m in snapshot.sources if not any(c.batch == m["batch"] for c in snapshot.coverage.values())]
    if unscored:
        hands = sum(snapshot.hands(m) for m in unscored)
        notes.append(f"{hands:,} hands ingested since the last rescore are not in these figures: run ofc rescore.")
    if lead is not None and variant is None:
        left: dict[str, int] = {}
        why: dict[str, str] = {}
        for c in snapshot.coverage.values():
            if c.rules_key == lead:
                for v, n in c.entry.get("not_applied", {}).items():
                    left[v] = left.get(v, 0) + n
                    why[v] = c.entry.get("why", {}).get(v, "")
        notes += [f"{n:,} {v} hands are left out: {why[v]}." for v, n in sorted(left.items())]
    return notes


def build(source: Lake | Snapshot, options: Options) -> Report:
    """Run every section's queries on one snapshot of the lake (a lake: its state now) and assemble the report."""
    snapshot = source if isinstance(source, Snapshot) else source.snapshot()
    con = connect(snapshot)
    in_lake = named.RuleSetsInLake(snapshot)
    in_lake.check_current()
    asked = list(dict.fromkeys(in_lake.resolve(r) for r in options.rules))
    lead = asked[0] if asked else None
    compared = asked or in_lake.compared(options.variant)
    for key in asked:
        if (problem := in_lake.problem(key, options.variant)) is not None:
            raise named.NamedQueryError(problem)
    run = _Runner(snapshot, con, options, lead, compared)
    overview = run("overview")
    scored = bool(snapshot.scored_keys)
    sections = [_overview(overview, lead, compared, options, scored)]
    if scored:
        sections += [
            _results(run, options),
            _fouls(run),
            _royalties(run),
            _fantasyland(run),
            _scoring(run, compared),
        ]
    return Report(options, lead, compared, run.rows, sections, _notes(snapshot, lead, options.variant), run.seconds)


def _one(rows: Rows, **match: Any) -> dict[str, Any]:
    return next((r for r in rows if all(r.get(k) == v for k, v in match.items())), {})


def _overview(rows: Rows, lead: str | None, compared: list[str], options: Options, scored: bool) -> Section:
    total = _one(rows, variant="all variants")
    read = f"as if every hand had been played under {lead}" if lead else "each hand under the rules it was played by"
    headline = [
        ("hands", f"{total.get('hands', 0):,}"),
        ("boards", f"{total.get('boards', 0):,}"),
        ("first day", str(total.get("first_day") or "n/a")),
        ("last day", str(total.get("last_day") or "n/a")),
        ("figures read", read if scored else "none yet: run ofc rescore"),
        ("rule sets compared", ", ".join(compared) or "none: ofc rescore --rules NAME adds one"),
    ]
    filters = [f"{k}: {v}" for k, v in (("player", options.player), ("variant", options.variant)) if v]
    if options.since:
        filters.append(f"since: {options.since.isoformat()}")
    intro = "Hands in the lake" + (f" ({'; '.join(filters)})" if filters else "") + "."
    if scored:
        intro += f" Every figure below reads {read}."
    table = Table("Hands per variant", rows, ["variant", "hands", "boards", "first_day", "last_day"])
    return Section("overview", "Overview", intro, headline, [], [table])


def _results(run: _Runner, options: Options) -> Section:
    results = run("results")
    players = [r for r in results if r["dimension"] == "player"]
    who = options.player or (max(players, key=lambda r: (r["hands"], r["group"]))["group"] if players else None)
    focus = _one(results, dimension="player", group=who) if who else {}
    cumulative = run("cumulative")
    session_rows = run("sessions", player=who) if who else []
    h2h = run("head_to_head")
    scoops = run("scoops")
    headline = [("players", f"{len(players):,}")]
    if focus:
        headline += [
            (f"{who}: hands", f"{focus['hands']:,}"),
            (f"{who}: points per hand", interval(focus["points_per_hand"], focus["ci_low"], focus["ci_high"], num)),
            (f"{who}: net points", f"{focus['points']:,}"),
        ]
    scoop = _one(scoops, player=who) if who else {}
    if scoop:
        headline.append((f"{who}: scoop rate", interval(scoop["scoop_rate"], scoop["ci_low"], scoop["ci_high"], pct)))
    if players and not options.player:
        best = max(players, key=lambda r: r["points_per_hand"])
        headline.append(("most points per hand", f"{best['group']} ({num(best['points_per_hand'])})"))
    shown = sorted(players, key=lambda r: -r["hands"])[: figures.MAX_BARS]
    figs = [
        figures.bars_with_intervals(
            shown, "group", "points_per_hand", "ci_low", "ci_high", "Points per hand (95% intervals)", "points per hand"
        ),
        figures.cumulative(cumulative),
    ]
    if session_rows:
        figs.append(figures.sessions(session_rows, who or ""))
    figs.append(figures.head_to_head(h2h, options.player))
    result_columns = ["dimension", "group", "hands", "points", "points_per_hand", "stddev", "ci_low", "ci_high"]
    tables = [
        Table("Results", results, [*result_columns, "won_share"], frozenset({"won_share"})),
        Table("Scoops", scoops, list(scoops[0]) if scoops else [], PERCENT_COLUMNS | {"ci_low", "ci_high"}),
        Table("Head to head", h2h, list(h2h[0]) if h2h else []),
    ]
    intro = (
        "Net points per hand (zero-sum per hand) with 95% intervals, running totals over time and through the "
        "latest sessions, scoops (all three rows won, or the opponent fouled) and results against each opponent."
    )
    return Section("results", "Results", intro, headline, figs, tables)


def _fouls(run: _Runner) -> Section:
    rates = run("foul_rate")
    dead = run("dead_streets")
    total = _one(rates, dimension="all")
    headline = [("foul rate", interval(total.get("foul_rate"), total.get("ci_low"), total.get("ci_high"), pct))]
    headline += [(f"foul rate, {r['group']}", pct(r["foul_rate"])) for r in rates if r["dimension"] == "fantasyland"]
    known = [r for r in dead if r["street"] is not None]
    if known:
        top = max(known, key=lambda r: r["boards_dead"])
        headline.append(("most fouled boards went dead at", f"street {top['street']} ({top['variant']})"))
    tables = [
        Table("Foul rate", rates, list(rates[0]) if rates else [], PERCENT_COLUMNS | {"ci_low", "ci_high"}),
        Table("Dead streets", dead, list(dead[0]) if dead else [], PERCENT_COLUMNS),
    ]
    intro = (
        "Share of boards fouled by player, variant, table size, seat relative to the button (0 is the button) and "
        "in or out of Fantasyland, and the street after which each fouled board could no longer be saved."
    )
    figs = [figures.foul_rates(rates)]
    if dead:
        figs.append(figures.dead_streets(dead))
    return Section("fouls", "Foul rate", intro, headline, figs, tables)


def _royalties(run: _Runner) -> Section:
    freq = run("royalty_frequency")
    points = run("royalty_points")
    total = _one(points, dimension="all")
    headline = [
        ("royalty points per board", interval(total.get("per_board"), _minus(total), _plus(total), num)),
        ("boards with a royalty", pct(total.get("share_with_royalty"))),
    ]
    boards = figures.royalty_boards(freq)
    for row in figures.ROWS:
        paid = [r for r in freq if r["row"] == row and r["points"] > 0]
        if paid:
            headline.append((f"{row}: boards with a royalty", pct(sum(r["boards_made"] for r in paid) / boards)))
    tables = [
        Table("Royalty frequency", freq, list(freq[0]) if freq else [], PERCENT_COLUMNS | {"ci_low", "ci_high"}),
        Table("Royalty points per board", points, list(points[0]) if points else [], PERCENT_COLUMNS),
    ]
    intro = (
        "How often each row earns each royalty, read from the royalties the rule set paid (the hand named for "
        "each royalty comes from the rule set's table), and the royalty points a board earns by row."
    )
    figs = [figures.royalty_heatmap(freq), figures.royalty_points(points)]
    return Section("royalties", "Royalties", intro, headline, figs, tables)


def _minus(r: dict[str, Any]) -> float | None:
    return None if r.get("margin") is None else r["per_board"] - r["margin"]


def _plus(r: dict[str, Any]) -> float | None:
    return None if r.get("margin") is None else r["per_board"] + r["margin"]


def _fantasyland(run: _Runner) -> Section:
    rows = run("fantasyland")
    normal = _one(rows, variant="all variants", hand_kind="normal")
    fl = _one(rows, variant="all variants", hand_kind="fantasyland")
    headline = [
        ("entry rate", pct(normal.get("entry_rate"))),
        ("stay rate", pct(fl.get("stay_rate"))),
        ("foul rate in Fantasyland", pct(fl.get("foul_rate"))),
        ("points per Fantasyland hand", num(fl.get("points_per_hand"))),
        ("points per normal hand", num(normal.get("points_per_hand"))),
    ]
    intro = (
        "Entry (a normal hand that earned Fantasyland), stay (a Fantasyland hand that earned another), the foul rate "
        "inside Fantasyland and points per hand, by the Fantasyland hand's card count in progressive play."
    )
    table = Table("Fantasyland", rows, list(rows[0]) if rows else [], PERCENT_COLUMNS)
    figs = [figures.fantasyland_funnel(rows), figures.fantasyland_points(rows)]
    return Section("fantasyland", "Fantasyland", intro, headline, figs, [table])


def _scoring(run: _Runner, compared: list[str]) -> Section:
    rows = run("scoring_variants")
    changes = run("winner_changes") if compared else []
    headline = [
        (f"{r['rules_key'] or 'as played'}: swing (sd of points per hand)", num(r["stddev"]))
        for r in rows
        if r["player"] is None
    ]
    headline += [
        (f"winner changes, {r['rules_key']} against the hands as played", pct(r["change_rate"]))
        for r in changes
        if r["variant"] == "all variants"
    ]
    figs = [figures.scoring_variants(rows, ["as played", *compared]), figures.swing(rows)]
    if changes:
        figs.append(figures.winner_changes(changes))
    tables = [Table("Points per hand under each rule set", rows, list(rows[0]) if rows else [])]
    if changes:
        tables.append(Table("Winner changes", changes, list(changes[0]), PERCENT_COLUMNS | {"ci_low", "ci_high"}))
    intro = (
        "The same hands as played and as if played under each rule set: points per hand of each player, the swing, "
        "which players a rule set favours (gain per hand against the hands as played) and how often a hand's "
        "winner changes. A rule set leaves out the hands it cannot score."
    )
    note = "" if compared else "No rule set to compare: ofc rescore --rules NAME adds one."
    return Section("scoring", "Scoring variants", intro, headline, figs, tables, note)
