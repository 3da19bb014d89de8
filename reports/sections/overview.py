"""The lake at a glance: counts over every game, the only figures a report adds up across variants."""

from __future__ import annotations

from typing import Any

from ofc.pipeline.game import facts
from ofc.reports.headline import Stat
from ofc.reports.queries import Rows
from ofc.reports.sections.common import GameView, Section, one
from ofc.reports.tables import Column, Table

__all__ = ["game_headline", "overview"]


def days(row: dict[str, Any]) -> str | None:
    first, last = row.get("first_day"), row.get("last_day")
    if first is None:
        return None
    return str(first) if first == last else f"{first} to {last}"


def overview(rows: Rows, players: int, games: list[GameView], filters: list[str], scored: bool) -> Section:
    """Hands, boards, players and days over all variants, and each variant's counts: counts add up across games,
    figures do not."""
    total = one(rows, variant="all variants")
    headline = [
        Stat("hands, all games", total.get("hands", 0), "int"),
        Stat("boards, all games", total.get("boards", 0), "int"),
        Stat("players, all games", players, "int"),
        Stat("days", days(total), "text"),
        Stat("games", len(games), "int"),
    ]
    shown = [{**r, "game": facts(r["variant"]).title if r["variant"] != "all variants" else "all games"} for r in rows]
    players_of = {g.variant: len(g.boards) for g in games} | {"all variants": players}
    for r in shown:
        r["players"] = players_of.get(r["variant"])
    intro = "Counts over every game in the lake" + (f" ({'; '.join(filters)})" if filters else "") + "."
    if scored:
        intro += (
            " Counts are the only figures added up across games: every other figure is about one game, read in "
            "that game's own part of the report."
        )
    table = Table(
        "Hands per game",
        "hands_per_variant",
        shown,
        [
            Column("game", "Game", "text"),
            Column("hands", "Hands", "int"),
            Column("boards", "Boards", "int"),
            Column("players", "Players", "int"),
            Column("first_day", "First day", "day"),
            Column("last_day", "Last day", "day"),
        ],
        drill=lambda r: {} if r["variant"] == "all variants" else {"variant": r["variant"]},
    )
    return Section("overview", "Overview: all games", intro, headline, [], [table])


def game_headline(game: GameView, row: dict[str, Any], scored: bool) -> list[Stat]:
    """A game's own headline: what it counts, how its figures read and whom it features and ranks."""
    if game.lead:
        read = f"as if every hand had been played under {game.rule_name(game.lead)}"
    else:
        read = "each hand under the rules it was played by"
    compared = ", ".join(game.rule_name(k) for k in game.compared)
    ranking = f"{game.min_hands:,}+ hands" + ("" if game.min_hands_set else " (a tenth of the busiest, at most 100)")
    return [
        Stat("hands", row.get("hands", 0), "int"),
        Stat("boards", row.get("boards", 0), "int"),
        Stat("players", len(game.boards), "int"),
        Stat("days", days(row), "text"),
        Stat("featured player", game.featured, "text"),
        Stat("figures read", read if scored else "none yet: run ofc rescore", "text"),
        Stat("rule sets compared", compared or "none: ofc rescore --rules NAME adds one", "text"),
        Stat("rankings show players with", ranking, "text"),
    ]
