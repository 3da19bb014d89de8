"""The report: the lake's counts over every game, then each game (variant) on its own, every figure computed over
that one game.

``build`` returns a :class:`Report`: the overview, one :class:`~reports.sections.GameView` per variant the filters
keep (each with its sections, the rows of every query it read and the hands its viewer opens), and what was left
out and why. Nothing here formats SQL: filters travel as bound parameters. A filter or a player that matches
nothing is an error naming the closest matches, never an empty report.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from contextlib import closing
from dataclasses import asdict, dataclass, field, replace
from datetime import date
from typing import Any

import duckdb

from ofc.pipeline.game import facts
from ofc.pipeline.lake.snapshot import Snapshot
from ofc.pipeline.lake.store import Lake
from ofc.pipeline.query import named
from ofc.pipeline.query.db import Narrowing, connect, partition_values
from ofc.pipeline.query.keys import machine_row
from ofc.pipeline.query.players import FilterError, Found, LakeFilters, days_said, self_pairs
from ofc.reports import sections
from ofc.reports.figures import POSITION_WORDS
from ofc.reports.queries import QueryRunner, Rows, RowsKept, Scope
from ofc.reports.sections.common import GameView, Section, auto_min_hands
from ofc.schemas.rules import RuleSet, key_name

__all__ = ["GameShows", "Options", "Report", "build", "game_data", "narrowing_said", "shown"]


@dataclass(frozen=True)
class Options:
    """What the report covers and whom it features.

    ``player`` both filters every figure to that player's boards (save rankings and "all players" figures, which
    show the field) and features them; without it, every player's
    boards count and each game features the player with the most hands in it. ``aliases`` maps other names to a
    player: each reads as the player everywhere. Without rule sets, every figure reads each hand under the rules
    it was played by, and the latest version of each rule set the lake was rescored under is set beside them
    (earlier versions of an edited rule set too with ``all_versions``). With rule sets, the first leads: figures
    read every hand as if it had been played under it, and all of them are compared with the hands as played.
    ``since`` and ``until`` keep the hands played from the one day to the other (UTC, both included).
    ``min_hands`` None: each game ranks players with a tenth of its busiest player's hands, at most 100.
    """

    player: str | None = None
    variant: str | None = None
    rules: tuple[str, ...] = ()
    since: date | None = None
    until: date | None = None
    min_hands: int | None = None
    all_versions: bool = False
    aliases: Mapping[str, str] = field(default_factory=dict)
    featured: str | None = None
    """The player featured when ``player`` is not given (a default from the user's settings); not a filter."""
    carry_hands: bool = True
    """The hands the report lists are carried in the page, for its viewer (a file to share); a served page
    opens each on a page of its own and reads only their ids (their boards and pairs took half of a page's
    time over 10 M hands)."""
    narrowing: Narrowing = field(default_factory=Narrowing)
    """The boards every figure reads, of one table size, position, session or opponent's hands (none: all)."""
    one_game: bool = False
    """Build the sections of one game: ``variant``'s, else the one with the most hands; the overview and the list
    of games cover every game the other filters keep (a served page: each other game is a page of its own, and
    three games' sections took three times one's over 10 M hands)."""


@dataclass
class Report:
    options: Options
    lead: str | None
    """The rule set every figure reads (its key), or None: each hand under its own rules."""
    player: str | None
    """The player every figure is filtered to (as the lake spells them), or None."""
    overview: Section
    overview_rows: Rows
    games: list[GameView]
    notes: list[str] = field(default_factory=list)
    """What the figures leave out and why (hands not yet rescored, games a rule set cannot score)."""
    seconds: dict[str, float] = field(default_factory=dict)
    names: dict[str, str] = field(default_factory=dict)
    """Each rule set key as people read it: its name, with the hash only where two versions are shown."""
    elsewhere: list[str] = field(default_factory=list)
    """The games (variants) the filters keep whose sections are not built here (``Options.one_game``); the overview
    rows count their hands."""

    @property
    def sections(self) -> list[Section]:
        """Every section: the overview, then each game's."""
        return [self.overview, *(s for g in self.games for s in g.sections)]

    @property
    def hands(self) -> dict[str, dict[str, Any]]:
        """Every hand a viewer of the report opens, by id."""
        return {k: v for g in self.games for k, v in g.hands.items()}

    @property
    def compared(self) -> list[str]:
        """Every rule set some game compares with the hands as played."""
        return list(dict.fromkeys(k for g in self.games for k in g.compared))

    def game(self, variant: str) -> GameView:
        return next(g for g in self.games if g.variant == variant)

    def name(self, key: str | None) -> str:
        return "as played" if key is None else self.names.get(key, key_name(key))

    def filters(self) -> dict[str, Any]:
        """The filters the report was made with, as ``--json`` and the page say them."""
        return {
            "player": self.player,
            "variant": self.options.variant,
            "rules": self.lead or "as played",
            "since": self.options.since.isoformat() if self.options.since else None,
            "until": self.options.until.isoformat() if self.options.until else None,
            "min_hands": self.options.min_hands,
            **{k: v for k, v in asdict(self.options.narrowing).items() if k != "variant"},
        }

    def data(self) -> dict[str, Any]:
        """Every number of the report, for ``--json``: the filters, the overview's counts, and each game's headline
        figures (numbers, intervals and counts as numbers; the text shown apart), query rows and viewer hands."""
        return {
            "filters": self.filters(),
            "notes": self.notes,
            "overview": {
                "scope": "all games: counts only",
                "headline": [s.data() for s in self.overview.headline],
                "hands_per_variant": [machine_row(r) for r in self.overview_rows],
            },
            "games": {g.variant: game_data(g) for g in self.games},
        }


def game_data(game: GameView) -> dict[str, Any]:
    """One game's figures for ``--json``: what it counts and whom it features, its headline figures by section,
    what it leaves out and why, the rows of every query it read (without the columns that mean nothing in the
    game) and the hands its viewer opens."""
    hidden = game.hidden_columns()
    return {
        "variant": game.variant,
        "title": game.title,
        "featured": game.featured,
        "min_hands": game.min_hands,
        "rules": game.lead or "as played",
        "compared": game.compared,
        "headline": [s.data() for s in game.headline],
        "sections": {s.key: [stat.data() for stat in s.headline] for s in game.sections},
        "left_out": game.left_out,
        "notes": game.notes,
        "queries": {name: [machine_row(r, hidden) for r in rows] for name, rows in sorted(game.ask.rows.items())},
        "hands": game.hands,
    }


def _notes(snapshot: Snapshot) -> list[str]:
    """What the figures leave out: hands without results yet."""
    unscored = [m for m in snapshot.sources if not any(c.batch == m.batch for c in snapshot.coverage.values())]
    if not unscored:
        return []
    hands = sum(snapshot.hands(m) for m in unscored)
    return [f"{hands:,} hands ingested since the last rescore are not in these figures: run ofc rescore."]


def _natives(snapshot: Snapshot, variant: str) -> list[RuleSet]:
    """The rule sets the variant's hands were played by."""
    keys = dict.fromkeys(n for c in snapshot.coverage.values() for v, _, n in c.natives if v == variant)
    return [snapshot.rule_sets[k] for k in keys if k in snapshot.rule_sets]


@dataclass(frozen=True)
class GameShows:
    """What a game shows of a hand (as ``reports.hands.Shown`` reads it): streets, Fantasyland, decisions."""

    open_face: bool
    fantasyland: bool
    analysed: bool


def shown(snapshot: Snapshot, variant: str, lead: str | None) -> GameShows:
    """What a hand of ``variant`` shows, read under ``lead`` (a rule set's key; None: its own rules), as the
    report's game of that variant shows it."""
    read = [snapshot.rule_sets[lead]] if lead in snapshot.rule_sets else _natives(snapshot, variant)
    open_face = facts(variant).open_face
    return GameShows(
        open_face=open_face,
        fantasyland=open_face and any(r.fantasyland.enabled for r in read),
        analysed=open_face and variant in _analysed(snapshot),
    )


def _analysed(snapshot: Snapshot) -> set[str]:
    """The variants whose boards the lake holds a decision analysis of."""
    root = str(snapshot.root) + "/"
    found = set()
    for path in snapshot.files("analysed_boards"):
        variant = partition_values(str(path).removeprefix(root)).get("variant")
        if variant:
            found.add(variant)
    return found


def build(
    source: Lake | Snapshot,
    options: Options,
    con: duckdb.DuckDBPyConnection | None = None,
    counted: LakeFilters | None = None,
    kept: RowsKept | None = None,
) -> Report:
    """Run every game's sections on one snapshot of the lake (a lake: its state now) and assemble the report.
    ``con``: a connection over that snapshot with the options' aliases to read, where the report is not narrowed
    (a server keeps a few between requests); by default one of its own. ``counted``: what was counted on ``con``
    before (a server keeps it with the connection): the players of each game. ``kept``: the rows of queries run
    by earlier reports over the same state of the lake, read from and added to where the report is not narrowed
    (a server's pages)."""
    snapshot = source if isinstance(source, Snapshot) else source.snapshot()
    narrowing = replace(options.narrowing, variant=options.variant)
    if narrowing:
        narrowing = replace(narrowing, opponent=_check_narrowing(snapshot, options))
    if con is None or narrowing:
        con, counted = connect(snapshot, narrowing if narrowing else None, options.aliases), None
    in_lake = named.RuleSetsInLake(snapshot)
    in_lake.check_current()
    asked = list(dict.fromkeys(in_lake.resolve(r) for r in options.rules))
    lead = asked[0] if asked else None
    for key in asked:
        if (problem := in_lake.problem(key, options.variant)) is not None:
            raise named.NamedQueryError(problem)
    filters = counted if counted is not None else LakeFilters(con)
    if options.one_game:  # every game's players, counted once: the game chosen is one of them
        filters.boards_by_variant(None, options.since, options.until)
    try:
        found = filters.check(options.player, options.variant, options.since, options.until)
    except FilterError:
        if not narrowing:
            raise
        # the filters matched over the whole lake (_check_narrowing): nothing is left of them narrowed
        days = days_said(options.since, options.until)
        where = [f"in {options.variant}" if options.variant else "", f"played {days}" if days else ""]
        who = f"{options.player} has" if options.player else "the lake has"
        raise FilterError(" ".join([who, "no", narrowing_said(narrowing), *filter(None, where)])) from None
    player = found.player
    covered = None if options.one_game else options.variant  # the games the overview and the tabs cover
    boards_of = filters.boards_by_variant(covered, options.since, options.until)
    notes = [
        f"{n:,} hands seat {who} twice under two of the names the settings give as aliases: those names were "
        "two people there, and the pairs between them show the player against themself."
        for who, n in (self_pairs(con) if options.aliases else {}).items()
    ]
    if options.featured and not player and found.match(options.featured) is None:
        notes.append(
            f"The settings name {options.featured!r} as the player to feature, who has no hands here; each game "
            "features the player with the most hands in it."
        )

    def players_of(variant: str | None) -> list[str]:
        return filters.players(variant, options.since, options.until)

    # A page for a player: the pages of the other players of the game run the same queries (run for many at once).
    runner = QueryRunner(snapshot, con, None if narrowing else kept, players_of if player else None)
    lake_wide = runner.game(Scope(covered, player, options.since, options.until, lead, ()))
    rows = lake_wide("overview")
    scored = bool(snapshot.scored_keys)
    analysed = _analysed(snapshot)
    per_variant = {r["variant"]: r for r in rows if r["variant"] != "all variants"}
    games: list[GameView] = []
    names_of: list[str] = list(asked)
    for variant in sorted(per_variant, key=lambda v: (-per_variant[v]["hands"], v)):
        boards = boards_of.get(variant, {})
        if player is not None and player not in boards:
            continue
        if lead is not None and (problem := in_lake.problem(lead, variant)) is not None:
            notes.append(f"{per_variant[variant]['hands']:,} {variant} hands are left out: {problem}.")
            continue
        if asked:
            compared = [k for k in asked if in_lake.problem(k, variant) is None]
        else:
            compared = in_lake.compared(variant, all_versions=options.all_versions)
        names_of += compared
        read = [snapshot.rule_sets[lead]] if lead in snapshot.rule_sets else _natives(snapshot, variant)
        featured = player or Found(None, boards).featured(options.featured)
        game = GameView(
            variant=variant,
            ask=runner.game(Scope(variant, player, options.since, options.until, lead, tuple(compared))),
            featured=featured,
            player=player,
            boards=boards,
            min_hands=options.min_hands or auto_min_hands(boards),
            min_hands_set=options.min_hands is not None,
            lead=lead,
            compared=compared,
            names={},
            fantasyland=facts(variant).open_face and any(r.fantasyland.enabled for r in read),
            analysed=variant in analysed and facts(variant).open_face,
            read=read,
            carry_hands=options.carry_hands,
        )
        games.append(game)
    names = named.display_names(names_of, in_lake.latest)
    for game in games:
        game.names = names
        game.headline = sections.game_headline(game, per_variant[game.variant], scored)
    filters_said = [f"{k}: {v}" for k, v in (("player", player), ("variant", covered)) if v]
    if days := days_said(options.since, options.until):
        filters_said.append(f"hands played {days}")
    if narrowing:
        filters_said.append(narrowing_said(narrowing))
    # the players of every game the overview covers (a game chosen for its sections: still every game's), and of
    # those alone: a player's overview covers the games they played, as its rows do
    players = len(set().union(*(boards_of.get(v, {}) for v in per_variant)))
    overview = sections.overview(rows, players, games, filters_said, scored)
    elsewhere = []
    if options.one_game and games:  # the overview counts every game; the sections are one game's
        shown = next((g for g in games if g.variant == options.variant), games[0])
        elsewhere = [g.variant for g in games if g is not shown]
        games = [shown]
    report = Report(
        replace(options, narrowing=narrowing), lead, player, overview, rows, games, [], {}, names, elsewhere
    )
    if scored:
        _build_games(runner, report, snapshot)
    report.seconds = dict(sorted(runner.seconds.items()))
    report.notes = notes + _notes(snapshot)
    return report


def narrowing_said(narrowing: Narrowing) -> str:
    """What a narrowing keeps, in words: "boards at 3-player tables, 1st to act"."""
    said = []
    if narrowing.table_size is not None:
        said.append(f"at {narrowing.table_size}-player tables")
    if narrowing.session is not None:
        said.append(f"in session {narrowing.session}")
    if narrowing.opponent is not None:
        said.append(f"in hands against {narrowing.opponent}")
    if narrowing.position is not None:
        said.append("on the button" if narrowing.position == 0 else POSITION_WORDS[narrowing.position])
    if narrowing.fantasyland is not None:
        said.append("in Fantasyland" if narrowing.fantasyland else "out of Fantasyland")
    return "boards " + ", ".join(said)


def _check_narrowing(snapshot: Snapshot, options: Options) -> str | None:
    """The filters and the narrowing's names checked over the whole lake: one it does not have is an error naming
    the closest it has (over the narrowed boards, a player who played elsewhere would read as unknown). Returns the
    opponent as the lake spells them."""
    with closing(connect(snapshot, aliases=options.aliases)) as con:
        filters = LakeFilters(con)
        filters.check(options.player, options.variant, options.since, options.until)
        return filters.check_narrowing(options.narrowing.session, options.narrowing.opponent)


def _build_games(runner: QueryRunner, report: Report, snapshot: Snapshot) -> None:
    """Every game's sections, side by side; a section a game does not have leaves a line saying why."""
    chosen = report.player is not None or report.options.featured is not None
    plans: list[tuple[GameView, list[Callable[[], Section | str | None]]]] = []
    for game in report.games:
        steps: list[Callable[[], Section | str | None]] = []
        if game.featured is not None:
            told = chosen and game.featured in (report.player, report.options.featured)
            steps.append(lambda g=game, told=told: sections.featured(g, told))
        steps += [
            lambda g=game: sections.results(g),
            lambda g=game: sections.fouls(g),
            lambda g=game: sections.royalties(g, g.read),
        ]
        if game.open_face:
            if game.fantasyland:
                steps.append(lambda g=game: sections.fantasyland(g))
            else:
                steps.append(
                    lambda g=game: f"Fantasyland: the rules {g.title} hands are read under deal no Fantasyland."
                )
        steps.append(lambda g=game: sections.scoring(g, snapshot))
        if game.open_face:
            if game.analysed:
                steps.append(lambda g=game: sections.decisions(g))
            else:
                steps.append(
                    lambda g=game: (
                        f"Decisions: ofc analyse weighs every decision of played {g.title} hands "
                        "(points lost, and where fouls come from); none is weighed yet."
                    )
                )
        plans.append((game, steps))
    pool = ThreadPoolExecutor(max_workers=3, thread_name_prefix="report-section")
    try:
        for game in report.games:
            if game.featured is not None:  # the longest chain: the listed hands, then their boards
                game.ask.start("notable_hands", player=game.featured)
        built = [(game, [pool.submit(step) for step in steps]) for game, steps in plans]
        for game, futures in built:
            for future in futures:
                made = future.result()
                if isinstance(made, Section):
                    game.sections.append(made)
                elif made:
                    game.left_out.append(made)
    except BaseException:
        runner.interrupt()  # an error or Ctrl-C: the queries still running stop now
        raise
    finally:
        pool.shutdown(cancel_futures=True)
        runner.close()
