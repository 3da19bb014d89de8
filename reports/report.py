"""The report: each section runs named queries over the lake and turns their rows into numbers, charts and tables.

``build`` returns a :class:`Report` holding every query's rows (what ``--json`` writes), the sections (what
:func:`reports.html.render` lays out) and the hands its hand viewer can open. Nothing here formats SQL: filters
travel as bound parameters. A filter or a player that matches nothing is an error naming the closest matches,
never an empty report.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Any

import duckdb
import plotly.graph_objects as go

from pipeline.config import DEFAULT_MIN_HANDS
from pipeline.lake.snapshot import Snapshot
from pipeline.lake.store import Lake
from pipeline.native import deal_only_difference
from pipeline.query import named
from pipeline.query.db import connect
from pipeline.query.players import LakeFilters, apply_aliases, self_pairs
from reports import figures, hands
from reports.tables import Column, Table, cell_text, interval_columns
from schemas.rules import key_name

__all__ = ["Options", "Report", "Section", "build"]

Rows = list[dict[str, Any]]


@dataclass(frozen=True)
class Options:
    """What the report covers and whom it features.

    ``player`` both filters every figure to that player's boards and features them; without it, every player's
    boards count and the player with the most hands is featured. ``aliases`` maps other names to a player: each
    reads as the player everywhere. Without rule sets, every figure reads each hand under the rules it was
    played by, and the latest version of each rule set the lake was rescored under is set beside them (earlier
    versions of an edited rule set too with ``all_versions``). With rule sets, the first leads: figures read
    every hand as if it had been played under it, and all of them are compared with the hands as played.
    """

    player: str | None = None
    variant: str | None = None
    rules: tuple[str, ...] = ()
    since: date | None = None
    min_hands: int = DEFAULT_MIN_HANDS
    all_versions: bool = False
    aliases: Mapping[str, str] = field(default_factory=dict)
    featured: str | None = None
    """The player featured when ``player`` is not given (a default from the user's settings); not a filter."""


@dataclass
class Section:
    key: str
    title: str
    intro: str
    headline: list[tuple[str, str]] = field(default_factory=list)
    figures: list[go.Figure] = field(default_factory=list)
    tables: list[Table] = field(default_factory=list)
    note: str = ""
    grid: bool = False
    """Lay the charts out two abreast (small charts of one dimension each)."""


@dataclass
class Report:
    options: Options
    lead: str | None
    """The rule set every figure reads (its key), or None: each hand under its own rules."""
    compared: list[str]
    """Rule set keys compared with the hands as played."""
    featured: str | None
    """The player the report features."""
    player: str | None
    """The player every figure is filtered to (as the lake spells them), or None."""
    queries: dict[str, Rows]
    sections: list[Section]
    notes: list[str] = field(default_factory=list)
    """What the figures leave out and why (hands not yet rescored, variants a rule set cannot score)."""
    seconds: dict[str, float] = field(default_factory=dict)
    hands: dict[str, dict[str, Any]] = field(default_factory=dict)
    """The hands the hand viewer opens, by id."""
    names: dict[str, str] = field(default_factory=dict)
    """Each rule set key as people read it: its name, with the hash only where two versions are shown."""

    @property
    def rules(self) -> list[str]:
        """Every rule set the report reads, the leading one first."""
        return list(dict.fromkeys([*([self.lead] if self.lead else []), *self.compared]))

    def name(self, key: str | None) -> str:
        return "as played" if key is None else self.names.get(key, key_name(key))

    def data(self) -> dict[str, Any]:
        """Every number of the report, for ``--json``: the filters, the headline figures, each query's rows and the
        hands the viewer opens."""
        return {
            "filters": {
                "player": self.player,
                "featured": self.featured,
                "variant": self.options.variant,
                "rules": self.lead or "as played",
                "compared": self.compared,
                "since": self.options.since.isoformat() if self.options.since else None,
                "min_hands": self.options.min_hands,
            },
            "notes": self.notes,
            "headline": {s.key: dict(s.headline) for s in self.sections},
            "queries": {name: [_jsonable(r) for r in rows] for name, rows in self.queries.items()},
            "hands": self.hands,
        }


def _jsonable(row: dict[str, Any]) -> dict[str, Any]:
    return {k: v.isoformat() if isinstance(v, date | datetime) else v for k, v in row.items()}


def pct(value: float | None) -> str:
    return "n/a" if value is None else cell_text(value, "pct")


def num(value: float | None) -> str:
    return "n/a" if value is None else cell_text(value, "num")


def interval(value: float | None, low: float | None, high: float | None, fmt: Callable[[float | None], str]) -> str:
    if value is None:
        return "n/a"
    return f"{fmt(value)} ({fmt(low)} to {fmt(high)})" if low is not None and high is not None else fmt(value)


class _Runner:
    """Runs named queries with the report's filters over one snapshot, keeping each one's rows and time.

    Sections are built side by side, each thread on its own cursor of the one connection (DuckDB runs their
    queries at once; most read small summaries and wait more than they compute). A query asked for again with
    the same values runs once: a second asker waits for the first's rows, so sections share what they read. A
    section adds keys only to the rows of queries no other section reads.
    """

    def __init__(
        self,
        snapshot: Snapshot,
        con: duckdb.DuckDBPyConnection,
        options: Options,
        player: str | None,
        lead: str | None,
        compared: list[str],
    ) -> None:
        self.snapshot, self.con, self.options, self.player = snapshot, con, options, player
        self.lead, self.compared = lead, compared
        self.rows: dict[str, Rows] = {}
        self.seconds: dict[str, float] = {}
        self._asked: dict[tuple[str, str], Future[Rows]] = {}
        self._lock = threading.Lock()
        self._local = threading.local()
        self._cursors: list[duckdb.DuckDBPyConnection] = []
        self._ahead = ThreadPoolExecutor(max_workers=2, thread_name_prefix="report-query")

    def __call__(self, name: str, **extra: Any) -> Rows:
        """The rows of a named query: run here, or those of the same query asked for before."""
        future, mine, values = self._claim(name, extra)
        if mine:
            self._fill(future, name, values)
        return future.result()

    def start(self, name: str, **extra: Any) -> None:
        """Begin a query that a section will ask for later, beside whatever runs now."""
        future, mine, values = self._claim(name, extra)
        if mine:
            self._ahead.submit(self._fill, future, name, values)

    def interrupt(self) -> None:
        with self._lock:
            for cursor in self._cursors:
                cursor.interrupt()

    def close(self) -> None:
        self._ahead.shutdown(cancel_futures=True)
        for cursor in self._cursors:
            cursor.close()

    def _claim(self, name: str, extra: dict[str, Any]) -> tuple[Future[Rows], bool, dict[str, Any]]:
        """The future of a query with these values: a new one the caller fills (True), or the one asked for
        before; and the values."""
        asked, values = self._values(name, extra)
        with self._lock:
            if asked in self._asked:
                return self._asked[asked], False, values
            future = self._asked[asked] = Future()
            return future, True, values

    def _values(self, name: str, extra: dict[str, Any]) -> tuple[tuple[str, str], dict[str, Any]]:
        values: dict[str, Any] = {}
        for p in named.get(name).params:
            if p.type == "rules":
                values[p.name] = self.lead
            elif p.type == "rules[]":
                values[p.name] = self.compared
            elif p.name == "player":
                values[p.name] = self.player
            elif p.name in ("variant", "since"):
                values[p.name] = getattr(self.options, p.name)
        values.update(extra)
        return (name, repr(sorted(values.items()))), values

    def _fill(self, future: Future[Rows], name: str, values: dict[str, Any]) -> None:
        try:
            t0 = time.perf_counter()
            rows = named.run(self._cursor(), self.snapshot, name, values, check_filters=False).to_pylist()
            self.seconds[name] = time.perf_counter() - t0
            self.rows[name] = rows
            future.set_result(rows)
        except BaseException as exc:  # noqa: BLE001 (the asker raises it, whatever it is)
            future.set_exception(exc)

    def _cursor(self) -> duckdb.DuckDBPyConnection:
        """This thread's cursor: a connection object serves one thread at a time."""
        cursor = getattr(self._local, "cursor", None)
        if cursor is None:
            cursor = self._local.cursor = self.con.cursor()
            with self._lock:
                self._cursors.append(cursor)
        return cursor


def _notes(snapshot: Snapshot, lead: str | None, variant: str | None) -> list[str]:
    """What the figures leave out: hands without results yet, and the variants the leading rule set cannot score."""
    notes = []
    unscored = [m for m in snapshot.sources if not any(c.batch == m["batch"] for c in snapshot.coverage.values())]
    if unscored:
        hands_ = sum(snapshot.hands(m) for m in unscored)
        notes.append(f"{hands_:,} hands ingested since the last rescore are not in these figures: run ofc rescore.")
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
    apply_aliases(con, options.aliases)
    in_lake = named.RuleSetsInLake(snapshot)
    in_lake.check_current()
    asked = list(dict.fromkeys(in_lake.resolve(r) for r in options.rules))
    lead = asked[0] if asked else None
    compared = asked or in_lake.compared(options.variant, all_versions=options.all_versions)
    for key in asked:
        if (problem := in_lake.problem(key, options.variant)) is not None:
            raise named.NamedQueryError(problem)
    found = LakeFilters(con).check(options.player, options.variant, options.since)
    player = found.player
    featured = player or found.featured(options.featured)
    settings = [
        f"{n:,} hands seat {who} twice under two of the names the settings give as aliases: those names were "
        "two people there, and the pairs between them show the player against themself."
        for who, n in (self_pairs(con) if options.aliases else {}).items()
    ]
    if options.featured and not player and found.match(options.featured) is None:
        settings.append(
            f"The settings name {options.featured!r} as the player to feature, who has no hands here; featuring "
            f"{featured}, the player with the most hands."
        )
    run = _Runner(snapshot, con, options, player, lead, compared)
    names = named.display_names([*asked, *compared], in_lake.latest)
    scored = bool(snapshot.scored_keys)
    analysed = bool(snapshot.files("analysed_boards"))
    report = Report(options, lead, compared, featured, player, {}, [], [], {}, {}, names)
    sections: list[Callable[[], Section]] = [lambda: _overview(run, report, found.players, scored)]
    if scored:
        sections += [
            lambda: _featured(run, report, analysed),
            lambda: _results(run, report),
            lambda: _fouls(run, report),
            lambda: _royalties(run, report),
            lambda: _fantasyland(run),
            lambda: _scoring(run, report, snapshot),
        ]
    if analysed:
        sections.append(lambda: _decisions(run, report))
    pool = ThreadPoolExecutor(max_workers=3, thread_name_prefix="report-section")
    try:
        if scored:
            run.start("notable_hands", player=featured)  # the longest chain: the listed hands, then their boards
        built = [pool.submit(section) for section in sections]
        report.sections = [b.result() for b in built]
    except BaseException:
        run.interrupt()  # an error or Ctrl-C: the queries still running stop now
        raise
    finally:
        pool.shutdown(cancel_futures=True)
        run.close()
    report.queries = {name: run.rows[name] for name in sorted(run.rows)}
    report.seconds = {name: run.seconds[name] for name in sorted(run.seconds)}
    report.notes = settings + _notes(snapshot, lead, options.variant)
    return report


def _one(rows: Rows, **match: Any) -> dict[str, Any]:
    return next((r for r in rows if all(r.get(k) == v for k, v in match.items())), {})


def _overview(run: _Runner, report: Report, players: int, scored: bool) -> Section:
    options = report.options
    rows = run("overview")
    total = _one(rows, variant="all variants")
    if report.lead:
        read = f"as if every hand had been played under {report.name(report.lead)}"
    else:
        read = "each hand under the rules it was played by"
    compared = ", ".join(report.name(k) for k in report.compared)
    headline = [
        ("hands", f"{total.get('hands', 0):,}"),
        ("boards", f"{total.get('boards', 0):,}"),
        ("players in the lake" if report.player else "players", f"{players:,}"),
        ("days", _days(total)),
        ("featured player", report.featured or "n/a"),
        ("figures read", read if scored else "none yet: run ofc rescore"),
        ("rule sets compared", compared or "none: ofc rescore --rules NAME adds one"),
    ]
    filters = [f"{k}: {v}" for k, v in (("player", report.player), ("variant", options.variant)) if v]
    if options.since:
        filters.append(f"since: {options.since.isoformat()}")
    intro = "Hands in the lake" + (f" ({'; '.join(filters)})" if filters else "") + "."
    if scored:
        intro += (
            f" Every figure below reads {read}. Rankings and per-player charts leave out players with fewer "
            f"than {options.min_hands:,} hands (--min-hands)."
        )
    table = Table(
        "Hands per variant",
        "hands_per_variant",
        rows,
        [
            Column("variant", "Variant", "text"),
            Column("hands", "Hands", "int"),
            Column("boards", "Boards", "int"),
            Column("first_day", "First day", "day"),
            Column("last_day", "Last day", "day"),
        ],
    )
    return Section("overview", "Overview", intro, headline, [], [table])


def _days(total: dict[str, Any]) -> str:
    first, last = total.get("first_day"), total.get("last_day")
    if first is None:
        return "n/a"
    return str(first) if first == last else f"{first} to {last}"


RESULT_COLUMNS = [
    Column("hands", "Hands", "int"),  # a player's boards are their hands; a variant's rows say boards
    Column("points", "Net points", "int"),
    Column("points_per_hand", "Points per hand", "num"),
    *interval_columns("num"),
    Column("stddev", "Std dev", "num"),
    Column("won_share", "Hands won", "pct"),
]


def _ranked(rows: Rows, options: Options, key: str = "hands") -> tuple[Rows, int]:
    """The rows of players with at least the minimum of hands, and how many were left out."""
    kept = [r for r in rows if (r.get(key) or 0) >= options.min_hands]
    return kept, len(rows) - len(kept)


def _left_out(n: int, options: Options) -> str:
    if not n:
        return ""
    who = "1 player" if n == 1 else f"{n:,} players"
    return f"{who} with fewer than {options.min_hands:,} hands left out."


def _featured(run: _Runner, report: Report, analysed: bool) -> Section:
    """The featured player: results, running totals, sessions, opponents and the hands worth a second look."""
    who = report.featured
    assert who is not None
    options = report.options
    # Every player's results and scoops hold the featured player's row: no query of their own.
    me = _one(run("results"), dimension="player", group=who)
    scoop = _one(run("scoops"), player=who)
    headline = [
        ("hands", f"{me.get('hands', 0):,}"),
        ("points per hand", interval(me.get("points_per_hand"), me.get("ci_low"), me.get("ci_high"), num)),
        ("net points", f"{me.get('points', 0):+,}"),
    ]
    if scoop:
        headline.append(("scoop rate", interval(scoop["scoop_rate"], scoop["ci_low"], scoop["ci_high"], pct)))
    running = run("running_totals", featured=who, min_hands=options.min_hands, players=1 if options.player else 6)
    figs = [figures.running_totals(running, who)]
    daily = [r for r in run("cumulative", player=who) if r["player"] == who]
    if len({r["day"] for r in daily}) > 1:
        figs.append(figures.cumulative(daily, who))
    latest = run("sessions", player=who)
    if latest:
        figs.append(figures.sessions(latest, who))
    h2h = [r for r in run("head_to_head", player=who) if r["player"] == who]
    shown_h2h = [r for r in h2h if r["matchups"] >= options.min_hands] or h2h
    if h2h:
        figs.append(figures.head_to_head(shown_h2h, who))
    sessions = run("session_summary", player=who)
    notable = run("notable_hands", player=who)
    costly = run("costly_decisions") if analysed else []
    report.hands = hands.load(run, notable, who, costly, analysed)
    tables = [
        Table(
            f"{who}'s sessions",
            "sessions",
            sessions,
            [
                Column("day", "Day", "day"),
                Column("session", "Session", "text"),
                Column("table", "Table", "text"),
                Column("variant", "Variant", "text"),
                Column("players", "Players", "int"),
                Column("hands", "Hands", "int"),
                Column("points", "Net points", "signed"),
                Column("points_per_hand", "Points per hand", "num"),
                Column("fouls", "Fouls", "int"),
                Column("foul_rate", "Foul rate", "pct"),
                Column("fantasyland_entries", "Fantasyland entries", "int"),
            ],
        ),
        Table(
            f"{who} against each opponent",
            "opponents",
            h2h,
            [
                Column("opponent", "Opponent", "text"),
                Column("matchups", "Hands together", "int"),
                Column("points", "Net points", "signed"),
                Column("points_per_matchup", "Points per hand", "num"),
                *interval_columns("num"),
                Column("scoops", "Scooped them", "int"),
                Column("scooped", "Scooped by them", "int"),
            ],
        ),
        *hands.tables(notable, who),
    ]
    intro = (
        f"{who}: results with 95% intervals, net points as hands accumulate (beside the players with the most "
        f"hands), through the latest sessions, against each opponent, and the hands worth a second look: click one "
        f"to see every board, row by row."
    )
    if not options.player and not options.featured:
        intro += " Featured as the player with the most hands; --player NAME (or OFC_PLAYER) features another."
    return Section("player", f"Featured player: {who}", intro, headline, figs, tables)


def _decisions(run: _Runner, report: Report) -> Section:
    """What decisions cost: ofc analyse's expected points lost per hand, by player, street and kind."""
    options = report.options
    who = report.featured
    loss = run("decision_loss")
    costly = run("costly_decisions")
    everyone = _one(loss, dimension="hand", player=None)
    mine = _one(loss, dimension="hand", player=who) if who else {}
    headline = [
        (
            "points lost per hand, all players",
            interval(everyone.get("ev_lost_per_hand"), everyone.get("ci_low"), everyone.get("ci_high"), num),
        )
    ]
    if mine and not options.player:
        headline.append(
            (f"{who}", interval(mine.get("ev_lost_per_hand"), mine.get("ci_low"), mine.get("ci_high"), num))
        )
    headline += [
        ("decisions weighed", f"{everyone.get('decisions') or 0:,}"),
        ("mistakes (over a point, beyond 2 standard errors)", f"{everyone.get('mistakes') or 0:,}"),
    ]
    players, left = _ranked([r for r in loss if r["dimension"] == "hand" and r["player"] is not None], options)
    players = sorted(players, key=lambda r: -r["hands"])[: figures.MAX_BARS]
    figs = []
    if players:
        figs.append(figures.ev_lost_by_player(players, who))
    figs += [f for f in (figures.ev_lost_by(loss, d, who) for d in ("street", "kind")) if f is not None]
    shown = {r["player"] for r in players}
    rows = [r for r in loss if r["player"] is None or r["player"] in shown]
    for r in rows:
        r["by"] = {"hand": "all decisions", "street": f"street {r['street']}"}.get(
            r["dimension"], figures.KIND_WORDS.get(r["kind"] or "", r["kind"])
        )
    listed = [{**r, "hand": hands.hand_id(r["hand_key"])} for r in costly]  # the featured section reads costly too
    labels = {r["hand"]: r["hand_id"] or r["hand"] for r in listed}
    tables = [
        Table(
            "Points lost per hand",
            "decision_loss",
            rows,
            [
                Column("group", "Player", "text"),
                Column("by", "Decisions", "text"),
                Column("hands", "Hands", "int"),
                Column("decisions", "Decisions weighed", "int"),
                Column("ev_lost_per_hand", "Points lost per hand", "num"),
                *interval_columns("num"),
                Column("ev_lost_per_decision", "Per decision", "num"),
                Column("mistakes", "Mistakes", "int"),
            ],
            note=_left_out(left, options),
        ),
        Table(
            "The costliest decisions",
            "costly_decisions",
            listed,
            [
                Column("hand", "Hand", "hand"),
                Column("player", "Player", "text"),
                Column("street", "Street", "int"),
                Column("dealt", "Cards", "text"),
                Column("played", "Played", "text"),
                Column("best", "Best found", "text"),
                Column("ev_played", "Expected, played", "signed"),
                Column("ev_best", "Expected, best", "signed"),
                Column("ev_lost", "Lost", "num"),
                Column("se", "Standard error", "num"),
            ],
            hands=labels,
        ),
    ]
    analysis = costly[0]["analysis"] if costly else None
    intro = (
        "What each decision cost, by ofc analyse: at every street's placement (with its discard in Pineapple) and "
        "every Fantasyland setting, the move played and the planner's best alternatives were played out many times "
        "from what the player could see, scored under the hand's own rules with the worth of a Fantasyland earned. "
        "A hand's loss is the sum over its decisions of the expected points the best move found would have added; "
        "intervals are over hands. Points are against every opponent at the table, so losses grow with its size. "
        "Click a decision to see its hand with every decision weighed in it."
    )
    if analysis:
        intro += f" Analysis {analysis}."
    return Section("decisions", "Decisions: points lost", intro, headline, figs, tables)


def _results(run: _Runner, report: Report) -> Section:
    options = report.options
    results, scoops = run("results"), run("scoops")
    players = [r for r in results if r["dimension"] == "player"]
    ranked, left = _ranked(players, options)
    headline = [("players", f"{len(players):,}"), (f"players with {options.min_hands:,}+ hands", f"{len(ranked):,}")]
    if ranked and not options.player:
        best = max(ranked, key=lambda r: r["points_per_hand"])
        headline.append(("most points per hand", f"{best['group']} ({num(best['points_per_hand'])})"))
        worst = min(ranked, key=lambda r: r["points_per_hand"])
        headline.append(("fewest points per hand", f"{worst['group']} ({num(worst['points_per_hand'])})"))
    shown = sorted(ranked, key=lambda r: -r["hands"])[: figures.MAX_BARS]
    figs = [figures.ranking(shown, report.featured)] if shown else []
    by_variant = [r for r in results if r["dimension"] != "player"]
    for r in by_variant:
        r["label"] = "all boards" if r["dimension"] == "all" else r["group"]
    kept = {r["group"] for r in ranked}
    scoop_ranked = [r for r in scoops if r["player"] in kept]
    tables = [
        Table(
            "Results by player",
            "results_by_player",
            ranked,
            [Column("group", "Player", "text"), *RESULT_COLUMNS],
            note=_left_out(left, options),
        ),
        Table(
            "Results by variant",
            "results_by_variant",
            by_variant,
            [Column("label", "Variant", "text"), Column("hands", "Boards", "int"), *RESULT_COLUMNS[1:]],
        ),
        Table(
            "Scoops",
            "scoops",
            scoop_ranked,
            [
                Column("player", "Player", "text"),
                Column("matchups", "Hands against an opponent", "int"),
                Column("scoops", "Scoops", "int"),
                Column("scoop_rate", "Scoop rate", "pct"),
                *interval_columns("pct"),
                Column("scooped", "Scooped", "int"),
                Column("scooped_rate", "Scooped rate", "pct"),
            ],
            note=_left_out(left, options) or "",
        ),
    ]
    intro = (
        "Net points per hand (every hand sums to zero) of each player with 95% intervals, by variant, and scoops "
        "(all three rows won, or the opponent fouled)."
    )
    note = "" if ranked else f"No player has {options.min_hands:,} hands: --min-hands N ranks players with fewer."
    return Section("results", "Results", intro, headline, figs, tables, note)


FOUL_COLUMNS = [
    Column("boards", "Boards", "int"),
    Column("fouled", "Fouled", "int"),
    Column("foul_rate", "Foul rate", "pct"),
    *interval_columns("pct"),
]


def _fouls(run: _Runner, report: Report) -> Section:
    options = report.options
    rates = run("foul_rate")
    dead = run("dead_streets")
    total = _one(rates, dimension="all")
    headline = [("foul rate", interval(total.get("foul_rate"), total.get("ci_low"), total.get("ci_high"), pct))]
    headline += [(f"foul rate, {r['group']}", pct(r["foul_rate"])) for r in rates if r["dimension"] == "fantasyland"]
    known = [r for r in dead if r["street"] is not None]
    if known:
        top = max(known, key=lambda r: r["boards_dead"])
        headline.append(("most fouled boards went dead after", f"street {top['street']} ({top['variant']})"))
    players, left = _ranked([r for r in rates if r["dimension"] == "player"], options, "boards")
    players = sorted(players, key=lambda r: -r["boards"])[: figures.MAX_BARS]
    figs = [
        figures.foul_rate_by(rates, "variant", "Foul rate by variant", "variant"),
        figures.foul_rate_by(rates, "table size", "Foul rate by table size", "players at the table"),
        figures.foul_rate_by_seat([r for r in rates if r["dimension"] == "seat"]),
        figures.foul_rate_by(rates, "fantasyland", "Foul rate in and out of Fantasyland", ""),
    ]
    if players:
        figs.append(figures.foul_rate_by(players, "player", "Foul rate by player", "", featured=report.featured))
    if dead:
        figs.append(figures.dead_streets(dead))
    figs = [f for f in figs if f is not None]
    rows = [r for r in rates if r["dimension"] != "player"] + players
    tables = [
        Table(
            "Foul rate",
            "foul_rate",
            rows,
            [Column("dimension", "By", "text"), Column("group", "Group", "text"), *FOUL_COLUMNS],
            note=_left_out(left, options),
        ),
        Table(
            "Street after which fouled boards went dead",
            "dead_streets",
            dead,
            [
                Column("variant", "Variant", "text"),
                Column("street", "Street", "int", empty="no placements"),
                Column("boards_dead", "Fouled boards", "int"),
                Column("share_of_fouled", "Share of fouled", "pct"),
                Column("cumulative_share", "Dead by then", "pct"),
            ],
        ),
    ]
    intro = (
        "Share of boards fouled, one breakdown per chart: by variant, table size, seat (the button acts last), in "
        "or out of Fantasyland and by player, and the street after which each fouled board could no longer be saved."
    )
    return Section("fouls", "Foul rate", intro, headline, figs, tables, grid=True)


def _royalties(run: _Runner, report: Report) -> Section:
    options = report.options
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
    players, left = _ranked([r for r in points if r["dimension"] == "player"], options, "boards")
    shown = [r for r in points if r["dimension"] != "player"] + players
    for r in shown:
        r["label"] = "all boards" if r["dimension"] == "all" else r["group"]
    for r in freq:
        r["rule_set"] = report.name(r.get("rules_key")) if r.get("rules_key") else "as played"
    tables = [
        Table(
            "Royalty frequency",
            "royalty_frequency",
            [r for r in freq if r["points"] > 0],
            [
                Column("rule_set", "Rule set", "text"),
                Column("row", "Row", "text"),
                Column("category", "Hand", "text"),
                Column("points", "Royalty", "int"),
                Column("boards_made", "Boards", "int"),
                Column("frequency", "Share of boards", "pct"),
                *interval_columns("pct"),
            ],
        ),
        Table(
            "Royalty points per board",
            "royalty_points",
            shown,
            [
                Column("label", "Group", "text"),
                Column("boards", "Boards", "int"),
                Column("per_board", "Points per board", "num"),
                Column("top", "Top", "num"),
                Column("middle", "Middle", "num"),
                Column("bottom", "Bottom", "num"),
                Column("share_with_royalty", "Boards with a royalty", "pct"),
            ],
            note=_left_out(left, options),
        ),
    ]
    intro = (
        "How often each row earns each royalty, read from the royalties the rule set paid (the hand named for "
        "each royalty comes from the rule set's table), and the royalty points a board earns by row."
    )
    figs = [
        figures.royalty_heatmap(freq),
        figures.royalty_points(shown, players=False),
        figures.royalty_points(shown, players=True, featured=report.featured),
    ]
    figs = [f for f in figs if f is not None]
    return Section("royalties", "Royalties", intro, headline, figs, tables)


def _minus(r: dict[str, Any]) -> float | None:
    return None if r.get("margin") is None else r["per_board"] - r["margin"]


def _plus(r: dict[str, Any]) -> float | None:
    return None if r.get("margin") is None else r["per_board"] + r["margin"]


def _fantasyland(run: _Runner) -> Section:
    rows = run("fantasyland")
    if not rows:
        note = "No open-face hands here: Fantasyland is played in OFC and the Pineapple variants only."
        return Section("fantasyland", "Fantasyland", note)
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
    note = ""
    if normal or fl:
        note = (
            f"The Fantasyland hands played ({fl.get('hands', 0):,}) follow both entries ({normal.get('entries', 0):,}) "
            f"and stays ({fl.get('stays', 0):,}); an entry or a stay earned in a session's last hand is never played."
        )
    for r in rows:
        r["kind"] = figures.hand_kind(r)
    table = Table(
        "Fantasyland",
        "fantasyland",
        rows,
        [
            Column("variant", "Variant", "text"),
            Column("kind", "Hands", "text"),
            Column("hands", "Hands played", "int"),
            Column("entries", "Entries earned", "int"),
            Column("entry_rate", "Entry rate", "pct"),
            Column("stays", "Stays earned", "int"),
            Column("stay_rate", "Stay rate", "pct"),
            Column("fouls", "Fouls", "int"),
            Column("foul_rate", "Foul rate", "pct"),
            Column("points_per_hand", "Points per hand", "num"),
            *interval_columns("num", "points_ci_low", "points_ci_high"),
        ],
    )
    figs = [figures.fantasyland_flow(rows), figures.fantasyland_rates(rows), figures.fantasyland_points(rows)]
    return Section("fantasyland", "Fantasyland", intro, headline, figs, [table], note, grid=True)


def _scoring(run: _Runner, report: Report, snapshot: Snapshot) -> Section:
    compared = report.compared
    rows = run("scoring_variants")
    changes = run("winner_changes") if compared else []
    for r in rows:
        r["rule_set"] = report.name(r["rules_key"])
    for r in changes:
        r["rule_set"] = report.name(r["rules_key"])
    headline = [(f"swing, {r['rule_set']}", num(r["stddev"])) for r in rows if r["player"] is None]
    headline += [
        (f"winner changes, {r['rule_set']}", pct(r["change_rate"])) for r in changes if r["variant"] == "all variants"
    ]
    ranked_players = {r["player"] for r in rows if r["player"] is not None and r["hands"] >= report.options.min_hands}
    ranked_players |= {report.featured, report.player} - {None}
    shown = [r for r in rows if r["player"] is None or r["player"] in ranked_players]
    order = ["as played", *(report.name(k) for k in compared)]
    figs = [figures.scoring_variants(shown, order, report.featured), figures.swing(rows)]
    if changes:
        figs.append(figures.winner_changes(changes))
    tables = [
        Table(
            "Points per hand under each rule set",
            "scoring_variants",
            shown,
            [
                Column("rule_set", "Rule set", "text"),
                Column("player", "Player", "text", empty="all players"),
                Column("hands", "Boards", "int"),
                Column("points_per_hand", "Points per hand", "num"),
                *interval_columns("num"),
                Column("stddev", "Std dev", "num"),
                Column("gain_per_hand", "Gain per hand against as played", "signed"),
            ],
        )
    ]
    if changes:
        tables.append(
            Table(
                "Winner changes",
                "winner_changes",
                changes,
                [
                    Column("rule_set", "Rule set", "text"),
                    Column("variant", "Variant", "text"),
                    Column("hands", "Hands", "int"),
                    Column("changed", "Winner changed", "int"),
                    Column("change_rate", "Share changed", "pct"),
                    *interval_columns("pct"),
                ],
            )
        )
    intro = (
        "The same hands as played and as if played under each rule set: points per hand of each player, the swing "
        "(standard deviation of a board's points), and how often a hand's winner changes. A rule set leaves out "
        "the hands it cannot score."
    )
    notes = [] if compared else ["No rule set to compare: ofc rescore --rules NAME adds one."]
    notes += _unchanged(rows, changes, report, snapshot)
    return Section("scoring", "Scoring variants", intro, headline, figs, tables, " ".join(notes))


def _unchanged(rows: Rows, changes: Rows, report: Report, snapshot: Snapshot) -> list[str]:
    """Say why a rule set changes nothing against the hands as played or against another rule set compared, where
    it does: rescoring replays the scoring of finished boards, never the deal, so rules that differ only in what
    they deal (Fantasyland's card counts) score alike."""

    def results(key: str | None) -> list[tuple[Any, ...]]:
        mine = sorted((r["player"] or "", r["hands"], r["points"], r["stddev"]) for r in rows if r["rules_key"] == key)
        if key is not None:
            mine += sorted((r["variant"], r["changed"]) for r in changes if r["rules_key"] == key and r["changed"])
        return mine

    out = []
    seen: list[str | None] = [None]
    for key in report.compared:
        mine = results(key)
        alike = [k for k in seen if mine and results(k) == mine]
        seen.append(key)
        if not alike:
            continue
        reasons = [(k, _dealt_only(snapshot, key, k)) for k in alike]
        same, why = next(((k, w) for k, w in reasons if w), reasons[0])
        name = report.name(key)
        other = "as played" if same is None else f"as {report.name(same)} does"
        if why:
            out.append(
                f"{name} scores every hand here exactly {other}: {why}rescoring finished boards replays their "
                "scoring, not their deal, so it cannot change a Fantasyland deal or any result that follows from one."
            )
        else:
            out.append(f"{name} scores every hand here exactly {other}: what the two differ in never arises here.")
    return out


_DEAL_WORDS = {
    "fantasyland.entry_cards": "the cards a Fantasyland entry deals",
    "fantasyland.combined_cards": "the cards a Fantasyland entry deals",
    "fantasyland.stay_cards": "the cards a Fantasyland stay deals",
    "game.dealing": "how the cards are dealt",
    "game.variant": "the variant they name",
    "game.last_cards_face_down": "whether the last cards are dealt face down",
}


def _dealt_only(snapshot: Snapshot, key: str, than: str | None) -> str:
    """Why ``key`` scores like ``than`` (None: like the rules the hands were played by), when every rule they differ
    in decides only the deal; else nothing."""
    rules = snapshot.rule_sets.get(key)
    natives = {than} if than else {n for c in snapshot.coverage.values() for _, _, n in c.natives} - {key}
    if rules is None or not natives:
        return ""
    fields: set[str] = set()
    for native in natives:
        other = snapshot.rule_sets.get(native)
        diff = deal_only_difference(rules, other) if other is not None else None
        if diff is None:
            return ""
        fields |= set(diff)
    words = " and ".join(dict.fromkeys(_DEAL_WORDS.get(f, f) for f in sorted(fields)))
    if not words:
        return ""
    return f"the two differ only in {words}; " if than else f"it differs from those rules only in {words}; "
