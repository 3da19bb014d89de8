"""Fouls in a game: how often boards foul, for whom and where, and (in open-face games) where fouls come from.

Two different questions about a foul's street. The *dead street* is the street after which the board could no
longer be completed without fouling: when the foul became certain, which is often the last street even when an
early placement made it likely. Which decision made it likely is another figure: the chance of fouling that each
decision added (the move played against the best move found, by ``ofc analyse``'s rollouts), by street and by
kind of decision.
"""

from __future__ import annotations

from typing import Any

from ofc.reports import drill, figures
from ofc.reports.headline import Stat, count
from ofc.reports.queries import Rows
from ofc.reports.sections.common import GameView, Section, charted, left_out, one, ranked
from ofc.reports.tables import Column, Table, interval_columns

__all__ = ["FOUL_COLUMNS", "fouls"]

FOUL_COLUMNS = [
    Column("boards", "Boards", "int"),
    Column("fouled", "Fouled", "int"),
    Column("foul_rate", "Foul rate", "pct"),
    *interval_columns("pct"),
]


def fouls(game: GameView) -> Section:
    run = game.ask
    rates = run("foul_rate")
    total = one(rates, dimension="all")
    headline = [
        Stat("foul rate", total.get("foul_rate"), "pct", total.get("ci_low"), total.get("ci_high"), total.get("boards"))
    ]
    breakdowns = ["table size", "seat", "player"]
    if game.fantasyland:
        breakdowns.insert(2, "fantasyland")
        headline += [
            Stat(f"foul rate, {r['group']}", r["foul_rate"], "pct", r["ci_low"], r["ci_high"], r["boards"])
            for r in rates
            if r["dimension"] == "fantasyland"
        ]
    field = [r for r in game.everyone("foul_rate") if r["dimension"] == "player"]
    players, left = ranked(field, game, "boards")
    players = charted(players, game, "boards")
    sizes = [r for r in rates if r["dimension"] == "table size"]
    figs = []
    if len(sizes) > 1:  # one table size: the same figure as the headline's
        figs.append(figures.foul_rate_by(rates, "table size", "Foul rate by table size", "players at the table"))
    figs.append(figures.foul_rate_by_seat([r for r in rates if r["dimension"] == "seat"]))
    if game.fantasyland:
        figs.append(figures.foul_rate_by(rates, "fantasyland", "Foul rate in and out of Fantasyland", ""))
    if players:
        figs.append(figures.foul_rate_by(players, "player", "Foul rate by player", "", featured=game.featured))
    shown = [r for r in rates if r["dimension"] in ("all", *breakdowns) and r["dimension"] != "player"] + players
    tables = [
        Table(
            "Foul rate",
            "foul_rate",
            shown,
            [Column("dimension", "By", "text"), Column("group", "Group", "text"), *FOUL_COLUMNS],
            note=left_out(left, game),
            counts="boards",
            drill=lambda r: {**drill.group(r), "outcome": "fouled"},
        )
    ]
    shown_by = [*(["table size"] if len(sizes) > 1 else []), "seat (the button acts last)"]
    shown_by += [*(["in or out of Fantasyland"] if game.fantasyland else []), "player"]
    intro = f"Share of {game.title} boards fouled, one breakdown per chart: by {', '.join(shown_by)}."
    if game.open_face:
        more_figs, more_tables, more_stats, said = _where(game)
        figs += more_figs
        tables += more_tables
        headline += more_stats
        intro += " " + said
    return Section("fouls", "Foul rate", intro, headline, [f for f in figs if f is not None], tables, grid=True)


def _where(game: GameView) -> tuple[list, list[Table], list[Stat], str]:
    """When fouls became certain (dead streets), and, where the lake holds an analysis, which decisions made them
    likely."""
    run = game.ask
    dead = [r for r in run("dead_streets") if r["variant"] == game.variant]
    # hands recording no placements (scoresheets, set hands) tell no street: a chart of that one bar says nothing
    placed = any(r["street"] is not None for r in dead)
    figs = [figures.dead_streets(dead)] if placed else []
    unplaced = "" if placed or not dead else " These hands record no placements, so no foul's street is known."
    tables = [
        Table(
            "Street after which the foul was certain (dead street)",
            "dead_streets",
            dead,
            [
                Column("street", "Street", "int", empty="no placements"),
                Column("boards_dead", "Fouled boards", "int"),
                Column("share_of_fouled", "Share of fouled", "pct"),
                Column("cumulative_share", "Certain by then", "pct"),
            ],
            note="The street after which no way of completing the board avoided a foul: when the foul became "
            "certain, not which decision caused it." + unplaced,
            drill=lambda r: {"dead_street": "none" if r["street"] is None else r["street"]},
        )
    ]
    said = (
        "The dead street is when a foul became certain, not which decision caused it: a foul is often certain only "
        "at the last street although an early placement made it likely."
    )
    stats: list[Stat] = []
    if game.analysed:
        source_figs, source_tables, stats = sources(game, game.everyone("foul_sources"))
        figs += source_figs
        tables += source_tables
        said += (
            " Where fouls come from: the chance of fouling after each decision, as played and with the best move "
            "found by ofc analyse, and the decision that raised each fouled board's chance the most."
        )
    else:
        said += (
            " Which decisions made fouls likely is measured by ofc analyse, which weighs every decision of played "
            "hands and records the chance of fouling of the move played and of the best move found; run it to see "
            "where fouls come from here."
        )
    return figs, tables, stats, said


def sources(game: GameView, rows: Rows) -> tuple[list, list[Table], list[Stat]]:
    """The analysis' figures of where fouls come from (``rows``: of every player): the chance of fouling after each
    street as played and with the best move, for all players and the featured one, and the decisions that raised
    the chances of the fouled boards the report reads (the player's it is filtered to, else every player's)."""
    rows = [r for r in rows if r["variant"] == game.variant]
    mine = [r for r in rows if r["player"] is None or r["player"] == game.featured]
    everyone = [r for r in mine if r["player"] is None]
    read = [r for r in rows if r["player"] == game.player]
    if not read:
        return [], [], []
    fouled = read[0]["fouled_boards"]
    stats = []
    for dimension in ("cause_street", "cause_kind"):
        named = [r for r in read if r["dimension"] == dimension and r["kind"] != NONE]
        if named:
            top = max(named, key=lambda r: r["boards"])
            stats.append(
                Stat(
                    f"fouls made likely most at: {_cause(top)} (weighed boards)",
                    top["share"],
                    "pct",
                    top["share_low"],
                    top["share_high"],
                    fouled,
                    "fouled board",
                )
            )
    cards = one(read, dimension="cause_kind", kind=NONE)
    if cards:
        stats.append(
            Stat("fouls no decision made likely: the cards (weighed boards)", cards["share"], "pct", cards["share_low"],
                 cards["share_high"], fouled, "fouled board")
        )  # fmt: skip
    figs = [
        figures.foul_chance_by_street([r for r in mine if r["dimension"] == "street"], game.featured),
        figures.foul_causes(read, fouled, "cause_street"),
        figures.foul_causes(read, fouled, "cause_kind"),
    ]
    listed = [{**r, "by": _BY[r["dimension"]], "cause": _cause(r)} for r in mine]
    table = Table(
        "Where fouls come from",
        "foul_sources",
        listed,
        [
            Column("group", "Player", "text"),
            Column("by", "By", "text"),
            Column("cause", "Decision", "text"),
            Column("decisions", "Decisions", "int"),
            Column("boards", "Boards", "int"),
            Column("foul_played", "Foul chance, played", "pct"),
            Column("foul_best", "Best move", "pct"),
            Column("foul_added", "Added", "pct"),
            *interval_columns("pct", "added_low", "added_high"),
            Column("share", "Of fouls", "pct"),
        ],
        note=f"Over the {count(everyone[0]['analysed_boards'], 'board')} ofc analyse weighed. The chance of fouling "
        "is the share of its rollouts from the decision that ended fouled; added: the move played's less the best "
        "move's, with its 95% interval. A "
        "fouled board's foul is put down to its decision that raised that chance most against the best move "
        f"found; where none raised it by more than {NOISE:.0%}, to the cards.",
        counts="boards",
        drill=_source_drill,
    )
    return figs, [table], stats


def _source_drill(row: dict[str, Any]) -> dict[str, Any] | None:
    """The boards of a row of ``foul_sources``: those with a decision weighed at its street or of its kind; for the
    causes of fouls, the fouled boards put down to that cause."""
    mine = {"player": row["player"]} if row.get("player") else {}
    if row["dimension"] in ("street", "kind"):
        found = drill.decision(row)
        return None if found is None else {**mine, **found}
    return {**mine, **drill.cause(row)}


NONE = "none: the cards"
NOISE = 0.05
"""What ``foul_sources`` takes for rollout noise (a decision adding less is not a cause)."""
_BY = {
    "street": "street",
    "kind": "kind of decision",
    "cause_street": "cause of fouls: street",
    "cause_kind": "cause of fouls: kind",
}


def _cause(row: dict) -> str:
    if row["kind"] == NONE:
        return "no decision: the cards"
    if row["street"] is not None:
        return f"street {row['street']}"
    return figures.KIND_WORDS.get(row["kind"], row["kind"] or "")
