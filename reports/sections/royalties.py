"""Royalties in a game: how often each row earns each royalty under the game's rules, and royalty points per
board, of the boards read and of every ranked player."""

from __future__ import annotations

from typing import Any

from ofc.reports import figures
from ofc.reports.headline import Stat
from ofc.reports.sections.common import GameView, Section, charted, left_out, one, ranked
from ofc.reports.tables import Column, Table, interval_columns
from ofc.schemas.rules import RuleSet

__all__ = ["pays_royalties", "royalties"]


def _positive(value: Any) -> bool:
    if isinstance(value, dict):
        return any(_positive(v) for v in value.values())
    if isinstance(value, list | tuple):
        return any(_positive(v) for v in value)
    return isinstance(value, int | float) and not isinstance(value, bool) and value > 0


def pays_royalties(rules: RuleSet) -> bool:
    """Whether a rule set pays any royalty at all."""
    return _positive(rules.royalties.model_dump(include={"top", "middle", "bottom", "lowball_middle"}))


def royalties(game: GameView, rule_sets: list[RuleSet]) -> Section | str:
    """The section, or why the game has none."""
    run = game.ask
    if rule_sets and not any(pays_royalties(r) for r in rule_sets):
        names = ", ".join(sorted({r.name for r in rule_sets}))
        return f"Royalties: the rules read ({names}) pay no royalties."
    freq = run("royalty_frequency")
    paid = [r for r in freq if r["points"] > 0]
    if not paid:
        return f"Royalties: no {game.title} board earned a royalty under the rules read."
    points = run("royalty_points")
    total = one(points, dimension="all")
    boards = total.get("boards")
    headline = [
        Stat(
            "royalty points per board",
            total.get("per_board"),
            "num",
            _minus(total),
            _plus(total),
            boards,
        ),
        Stat("boards with a royalty", total.get("share_with_royalty"), "pct", n=boards),
    ]
    made = figures.royalty_boards(freq)
    for row in figures.ROWS:
        mine = [r for r in paid if r["row"] == row]
        if mine:
            headline.append(
                Stat(f"{row}: boards with a royalty", sum(r["boards_made"] for r in mine) / made, "pct", n=made)
            )
    players, left = ranked([r for r in game.everyone("royalty_points") if r["dimension"] == "player"], game, "boards")
    players = [{**r, "label": r["group"]} for r in players]
    shown = [{**r, "label": "all boards"} for r in points if r["dimension"] == "all"] + players
    listed = [
        {**r, "rule_set": game.rule_name(r.get("rules_key")) if r.get("rules_key") else "as played"} for r in paid
    ]
    tables = [
        Table(
            "Royalty frequency",
            "royalty_frequency",
            listed,
            [
                Column("rule_set", "Rule set", "text"),
                Column("row", "Row", "text"),
                Column("category", "Hand", "text"),
                Column("points", "Royalty", "int"),
                Column("boards_made", "Boards", "int"),
                Column("boards", "Of boards", "int"),
                Column("frequency", "Share of boards", "pct"),
                *interval_columns("pct"),
            ],
            counts="boards",
            # a royalty the rules do not name ("other", "N points") leads nowhere
            drill=lambda r: {"row": r["row"], "made": r["hand"]} if r["points"] and r["category"] != "other" else None,
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
            note=left_out(left, game),
            counts="boards",
            drill=lambda r: (
                {"player": r["group"], "sort": "royalties"} if r["dimension"] == "player" else {"sort": "royalties"}
            ),
        ),
    ]
    intro = (
        f"How often each row of a {game.title} board earns each royalty, read from the royalties the rules paid (the "
        "hand named for each royalty comes from the rule set's table), and the royalty points a board earns by row. "
        "Fouled boards earn none and count as boards."
    )
    figs = [
        figures.royalty_heatmap(freq, game.title),
        figures.royalty_points(charted(players, game, "boards"), players=True, featured=game.featured),
    ]
    return Section("royalties", "Royalties", intro, headline, [f for f in figs if f is not None], tables)


def _minus(r: dict[str, Any]) -> float | None:
    return None if r.get("margin") is None else r["per_board"] - r["margin"]


def _plus(r: dict[str, Any]) -> float | None:
    return None if r.get("margin") is None else r["per_board"] + r["margin"]
