"""``ofc analyse``: what each placement, discard and Fantasyland setting of the lake's hands cost, by rollouts."""

from __future__ import annotations

from dataclasses import asdict
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import typer
from rich.table import Table
from rich.text import Text

from ofc.pipeline.analyse.defaults import DEFAULT_MOVES, DEFAULT_ROLLOUTS
from ofc.pipeline.cli.console import EXIT_USAGE, fail, hand_progress, interrupts, out, parse_day, print_json
from ofc.pipeline.cli.options import (
    existing_lake,
    json_option,
    lake_option,
    load_rules,
    player_option,
    rollouts_option,
    rules_option,
    seed_option,
    since_option,
    until_option,
    variant_option,
)


def analyse(
    lake: Path | None = lake_option(),
    player: str | None = player_option("Weigh this player's decisions only (any case). Default: every seat's."),
    variant: str | None = variant_option(),
    since: str | None = since_option(),
    until: str | None = until_option(),
    last: int | None = typer.Option(
        None,
        "--last",
        metavar="DAYS",
        min=1,
        help="Only hands played in the last DAYS days, today (UTC) the last of them. Not with --since or --until.",
        show_default=False,
    ),
    session: str | None = typer.Option(
        None, "--session", metavar="SESSION", help="Only this session's hands.", show_default=False
    ),
    hands: int | None = typer.Option(
        None,
        "--hands",
        metavar="N",
        min=1,
        help="Only the latest N hands the other filters keep (those weighed before are not weighed again).",
        show_default=False,
    ),
    rollouts: int = rollouts_option(
        DEFAULT_ROLLOUTS,
        "Rollouts of the move played against its strongest rival in a round; a decision still uncertain "
        "takes more rounds. More: slower, and more precise.",
    ),
    moves: int = typer.Option(
        DEFAULT_MOVES,
        "--moves",
        metavar="K",
        min=1,
        max=20,
        help="Moves the planner rates best that are weighed beside the move played.",
    ),
    seed: int = seed_option(0, "The same seed gives the same table."),
    rules: list[str] | None = rules_option(
        "A rule file the hands' recorded house rules name, when the lake does not know it yet (repeatable)."
    ),
    as_json: bool = json_option(),
) -> None:
    """Weigh every decision of the lake's open-face hands by Monte-Carlo rollouts.

    For each street's placement (with its discard in Pineapple) and each
    Fantasyland setting, the move played and the planner's best alternatives
    are played out many times from what the player could see: the cards they
    had not seen dealt at random, the rest of the hand played by the planner
    for every seat, each outcome scored under the rules the hand was played by,
    with the worth of a Fantasyland earned. The result is the expected points
    of the move played and of the best move, and what the difference cost.

    Results go into the lake's tables decisions and analysed_boards; a rerun
    with the same settings weighs only what is new. The report shows them, and
    ofc sql reads them: "ofc sql decision_loss", "ofc sql costly_decisions".
    """
    from ofc.pipeline.analyse import AnalysisFilters, Settings
    from ofc.pipeline.analyse import analyse as run

    if player is not None and not player.strip():
        fail("--player takes a name", EXIT_USAGE)
    if since is not None and last is not None:
        fail("give --since or --last, not both", EXIT_USAGE)
    if until is not None and last is not None:
        fail("give --until or --last, not both", EXIT_USAGE)
    first_day = parse_day(since) if last is None else datetime.now(UTC).date() - timedelta(days=last - 1)
    last_day = parse_day(until, "--until")
    store = existing_lake(lake)
    given = [load_rules(r) for r in rules or ()]
    settings = Settings(rollouts=rollouts, moves=moves, seed=seed)
    filters = AnalysisFilters(
        player=player, variant=variant, since=first_day, until=last_day, session=session, hands=hands
    )
    with interrupts(), hand_progress() as progress:
        task = progress.add_task("analysing", total=None)

        def on_progress(done: int, total: int) -> None:
            progress.update(task, completed=done, total=total)

        summary = run(store, settings, filters, on_progress, given=given)
    data = _summary(summary, store, filters)
    print_json(data) if as_json else _print(data)


def _summary(summary: Any, store: Any, filters: Any) -> dict[str, Any]:
    from ofc.pipeline.query import named
    from ofc.pipeline.query.db import connect

    fields = asdict(summary)
    fields["hands_per_second"] = round(summary.hands_per_second, 2)
    fields["seconds"] = round(summary.seconds, 3)
    fields["ev_lost"] = round(summary.ev_lost, 3)
    rows: list[dict[str, Any]] = []
    if summary.boards or summary.already:
        snapshot = store.snapshot()
        con = connect(snapshot)
        params = {
            "analysis": summary.analysis,
            "player": summary.player,
            "variant": filters.variant,
            "since": filters.since,
            "until": filters.until,
        }
        values = {k: v for k, v in params.items() if v is not None}
        table = named.run(con, snapshot, "decision_loss", values, check_filters=False)
        rows = [r for r in table.to_pylist() if r["dimension"] == "hand"]
    fields["players"] = rows
    return fields


def _num(value: float | None, digits: int = 2) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def _print(data: dict[str, Any]) -> None:
    if data["players"]:
        table = Table(
            "player",
            "hands",
            "decisions",
            "EV lost / hand",
            "95% interval",
            "EV lost / decision",
            "mistakes",
            title=f"decisions weighed (analysis {data['analysis']})",
            title_justify="left",
        )
        for r in data["players"]:
            table.add_row(
                Text(r["group"]),
                f"{r['hands']:,}",
                f"{r['decisions']:,}",
                _num(r["ev_lost_per_hand"]),
                f"{_num(r['ci_low'])} .. {_num(r['ci_high'])}",
                _num(r["ev_lost_per_decision"], 3),
                f"{r['mistakes']:,}",
            )
        out.print(table)
    for reason, n in sorted(data["skipped"].items()):
        out.print(Text(f"{n:,} board(s) not weighed: {reason}"))
    if data["already"]:
        out.print(f"{data['already']:,} board(s) already weighed under these settings")
    if data["boards"]:
        out.print(
            f"weighed {data['decisions']:,} decisions of {data['boards']:,} boards in {data['hands']:,} hands "
            f"({data['forced']:,} forced moves left out) in {data['seconds']:.1f} s "
            f"({data['hands_per_second']:.1f} hands/s); committed {len(data['batches'])} batch(es)"
        )
        out.print("the costliest: ofc sql costly_decisions; by street and kind: ofc sql decision_loss")
    else:
        out.print("nothing new to weigh")
