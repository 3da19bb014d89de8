"""What decisions cost in an open-face game: ``ofc analyse``'s expected points lost per hand, by player, street
and kind of decision; the ranking and "all players" over every player however the report is filtered."""

from __future__ import annotations

from ofc.reports import drill, figures, hands
from ofc.reports.headline import Stat
from ofc.reports.sections.common import GameView, Section, charted, left_out, one, ranked
from ofc.reports.tables import Column, Table, interval_columns

__all__ = ["decisions"]


def decisions(game: GameView) -> Section | str:
    """The section, or why the game has none."""
    run = game.ask
    who = game.featured
    loss = game.everyone("decision_loss")
    read = one(loss, dimension="hand", player=game.player)  # the hands shown: the filtered player's, else all
    if not read.get("hands"):
        return f"Decisions: ofc analyse has weighed no {game.title} decision of the hands shown."
    everyone = one(loss, dimension="hand", player=None)
    costly = run("costly_decisions")
    mine = one(loss, dimension="hand", player=who) if who else {}

    def lost(label: str, r: dict) -> Stat:
        return Stat(label, r.get("ev_lost_per_hand"), "num", r.get("ci_low"), r.get("ci_high"), r.get("hands"), "hand")

    headline = [lost("points lost per hand, all players", everyone)]
    if mine:
        headline.append(lost(f"points lost per hand, {who}", mine))
    weighed = read.get("decisions") or 0
    headline += [
        Stat("decisions weighed", weighed, "int"),
        Stat(
            "mistakes (over a point, beyond 2 standard errors)",
            read.get("mistakes") or 0,
            "int",
            n=weighed,
            of="decision",
        ),
    ]
    players, left = ranked([r for r in loss if r["dimension"] == "hand" and r["player"] is not None], game)
    players = charted(players, game)
    figs = []
    if players:
        figs.append(figures.ev_lost_by_player(players, who))
    figs += [f for f in (figures.ev_lost_by(loss, d, who) for d in ("street", "kind")) if f is not None]
    shown = {r["group"] for r in players}
    rows = []
    for r in loss:
        if r["player"] is not None and r["player"] not in shown:
            continue
        by = {"hand": "all decisions", "street": f"street {r['street']}"}.get(
            r["dimension"], figures.KIND_WORDS.get(r["kind"] or "", r["kind"])
        )
        rows.append({**r, "by": by})
    listed = [{**r, "hand": hands.hand_id(r["hand_key"])} for r in costly]
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
            note=left_out(left, game),
            counts="hands",
            drill=lambda r: (
                {"player": r["player"], "sort": "ev_lost", **(drill.decision(r) or {})}
                if r["dimension"] != "hand"
                else {"player": r["player"], "sort": "ev_lost"}
            ),
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
