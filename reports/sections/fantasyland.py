"""Fantasyland in an open-face game whose rules deal it: entry, stay, fouls and points, by the cards dealt."""

from __future__ import annotations

from ofc.reports import drill, figures
from ofc.reports.headline import Stat
from ofc.reports.sections.common import GameView, Section, one
from ofc.reports.tables import Column, Table, interval_columns

__all__ = ["fantasyland"]


def fantasyland(game: GameView) -> Section | str:
    """The section, or why the game has none."""
    rows = [r for r in game.ask("fantasyland") if r["variant"] == game.variant]
    if not rows:
        return f"Fantasyland: no {game.title} hands to count."
    normal = one(rows, hand_kind="normal")
    fl = figures.all_counts(rows, game.variant) or {}
    n_fl = fl.get("hands")
    headline = [
        Stat(
            "entry rate",
            normal.get("entry_rate"),
            "pct",
            normal.get("entry_ci_low"),
            normal.get("entry_ci_high"),
            normal.get("hands"),
            "normal hand",
        ),
        Stat(
            "stay rate",
            fl.get("stay_rate"),
            "pct",
            fl.get("stay_ci_low"),
            fl.get("stay_ci_high"),
            n_fl,
            "Fantasyland hand",
        ),
        Stat(
            "foul rate in Fantasyland",
            fl.get("foul_rate"),
            "pct",
            fl.get("foul_ci_low"),
            fl.get("foul_ci_high"),
            n_fl,
            "Fantasyland hand",
        ),
        Stat(
            "points per Fantasyland hand",
            fl.get("points_per_hand"),
            "num",
            fl.get("points_ci_low"),
            fl.get("points_ci_high"),
            n_fl,
            "Fantasyland hand",
        ),
        Stat(
            "points per normal hand",
            normal.get("points_per_hand"),
            "num",
            normal.get("points_ci_low"),
            normal.get("points_ci_high"),
            normal.get("hands"),
            "normal hand",
        ),
    ]
    intro = (
        "Entry (a normal hand that earned Fantasyland), stay (a Fantasyland hand that earned another), the foul rate "
        "inside Fantasyland and points per hand, by the Fantasyland hand's card count where the rules deal several."
    )
    played, entries, stays = fl.get("hands") or 0, normal.get("entries") or 0, fl.get("stays") or 0
    note = (
        f"The Fantasyland hands played ({played:,}) follow both entries ({entries:,}) and stays ({stays:,}); an entry "
        "or a stay earned in a session's last hand is never played."
    )
    shown = [{**r, "kind": figures.hand_kind(r)} for r in rows]
    table = Table(
        "Fantasyland",
        "fantasyland",
        shown,
        [
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
        counts="hands",
        drill=drill.cards,
    )
    figs = [
        figures.fantasyland_flow(normal, fl),
        figures.fantasyland_rates(shown),
        figures.fantasyland_points(shown),
    ]
    return Section("fantasyland", "Fantasyland", intro, headline, figs, [table], note, grid=True)
