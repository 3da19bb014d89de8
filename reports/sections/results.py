"""Standings of a game: net points per hand of every ranked player with 95% intervals, and scoops; the field
however the report is filtered, the featured player marked."""

from __future__ import annotations

from ofc.reports import figures
from ofc.reports.headline import SMALL_SAMPLE, Stat
from ofc.reports.sections.common import GameView, Section, charted, left_out, ranked
from ofc.reports.tables import Column, Table, interval_columns

__all__ = ["RESULT_COLUMNS", "results"]

RESULT_COLUMNS = [
    Column("hands", "Hands", "int"),
    Column("points", "Net points", "int"),
    Column("points_per_hand", "Points per hand", "num"),
    *interval_columns("num"),
    Column("stddev", "Std dev", "num"),
    Column("won_share", "Hands won", "pct"),
]


def results(game: GameView) -> Section:
    run = game.everyone
    rows, scoops = run("results"), run("scoops")
    players = [r for r in rows if r["dimension"] == "player"]
    shown, left = ranked(players, game)
    headline = [
        Stat("players", len(players), "int"),
        Stat(f"players with {game.min_hands:,}+ hands", len(shown), "int"),
    ]
    if shown:
        best = max(shown, key=lambda r: r["points_per_hand"])
        worst = min(shown, key=lambda r: r["points_per_hand"])
        for label, r in (("most points per hand", best), ("fewest points per hand", worst)):
            headline.append(
                Stat(
                    f"{label}: {r['group']}", r["points_per_hand"], "num", r["ci_low"], r["ci_high"], r["hands"], "hand"
                )
            )
    figs = [figures.ranking(charted(shown, game), game.featured)] if shown else []
    kept = {r["group"] for r in shown}
    scoop_ranked, _ = ranked([r for r in scoops if r["player"] in kept], game, "matchups", "player")
    tables = [
        Table(
            "Results by player",
            "results_by_player",
            shown,
            [Column("group", "Player", "text"), *RESULT_COLUMNS],
            note=left_out(left, game),
            counts="hands",
            drill=lambda r: {"player": r["group"]},
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
            note=left_out(left, game),
            counts="matchups",
            drill=lambda r: {"player": r["player"]},
        ),
    ]
    intro = (
        f"Net points per {game.title} hand (every hand sums to zero) of each player with 95% intervals, and scoops "
        f"(all three rows won, or the opponent fouled). A player with fewer than {SMALL_SAMPLE} hands is marked as a "
        "small sample: their interval is wide and only roughly right."
    )
    note = "" if shown else f"No player has {game.min_hands:,} hands: --min-hands N ranks players with fewer."
    return Section("results", "Results", intro, headline, figs, tables, note)
