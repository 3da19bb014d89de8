"""The featured player of a game: results, running totals, sessions, opponents and the hands worth a second look."""

from __future__ import annotations

from ofc.reports import drill, figures, hands
from ofc.reports.headline import Stat
from ofc.reports.sections.common import GameView, Section, one
from ofc.reports.tables import Column, Table, interval_columns

__all__ = ["featured"]


def featured(game: GameView, user_chose: bool) -> Section:
    who = game.featured
    assert who is not None
    run = game.ask
    # The listed hands first: their boards, found by key, are the report's longest chain of queries.
    notable = run("notable_hands", player=who)
    costly = run("costly_decisions") if game.analysed else []
    game.hands = hands.load(run, notable, who, costly, game) if game.carry_hands else hands.named(run, notable)
    # Every player's results and scoops hold the featured player's row: no query of their own.
    me = one(run("results"), dimension="player", group=who)
    scoop = one(run("scoops"), player=who)
    n = me.get("hands", 0)
    headline = [
        Stat("hands", n, "int"),
        Stat("points per hand", me.get("points_per_hand"), "num", me.get("ci_low"), me.get("ci_high"), n, "hand"),
        Stat("net points", me.get("points", 0), "signed", n=n, of="hand"),
    ]
    if scoop:
        headline.append(
            Stat(
                "scoop rate",
                scoop["scoop_rate"],
                "pct",
                scoop["ci_low"],
                scoop["ci_high"],
                scoop["matchups"],
                "matchup",
            )
        )
    running = run("running_totals", featured=who, min_hands=game.min_hands, players=1 if game.player else 6)
    figs = [figures.running_totals(running, who)]
    daily = [r for r in run("cumulative", player=who) if r["player"] == who]
    if len({r["day"] for r in daily}) > 1:
        figs.append(figures.cumulative(daily, who))
    latest = run("sessions", player=who)
    if latest:
        figs.append(figures.sessions(latest, who))
    h2h = [r for r in run("head_to_head", player=who) if r["player"] == who]
    shown_h2h = [r for r in h2h if r["matchups"] >= game.min_hands] or h2h
    if h2h:
        figs.append(figures.head_to_head(shown_h2h, who))
    sessions = run("session_summary", player=who)
    session_columns = [
        Column("day", "Day", "day"),
        Column("session", "Session", "text"),
        Column("table", "Table", "text"),
        Column("players", "Players", "int"),
        Column("hands", "Hands", "int"),
        Column("points", "Net points", "signed"),
        Column("points_per_hand", "Points per hand", "num"),
        Column("fouls", "Fouls", "int"),
        Column("foul_rate", "Foul rate", "pct"),
    ]
    if game.fantasyland:
        session_columns.append(Column("fantasyland_entries", "Fantasyland entries", "int"))
    tables = [
        Table(
            f"{who}'s sessions",
            "sessions",
            sessions,
            session_columns,
            drill=lambda r: {**drill.session(r["session"], who), "sort": "date", "order": "asc"},
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
            counts="matchups",
            drill=lambda r: {"player": who, "opponent": r["opponent"]},
        ),
        *hands.tables(notable, who),
    ]
    beside = "" if game.player else " (beside the players with the most hands)"  # (as the running totals ask)
    intro = (
        f"{who} at {game.title}: results with 95% intervals, net points as hands accumulate{beside}, through the "
        "latest sessions, against each opponent, and the hands worth a second look: click one to see every board, "
        "row by row."
    )
    if not user_chose:
        intro += (
            f" Featured as the player with the most {game.title} hands; --player NAME (or OFC_PLAYER) features another."
        )
    return Section("player", f"Featured player: {who}", intro, headline, figs, tables)
