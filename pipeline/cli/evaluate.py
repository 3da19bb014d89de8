"""``ofc eval``: evaluate boards typed on the command line."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import typer
from rich.table import Table

from ofc.pipeline.cli.console import out, print_json, user_errors
from ofc.pipeline.cli.options import json_option

if TYPE_CHECKING:
    import numpy as np


def board_report(boards: np.ndarray, *, bottom_may_equal_middle: bool = True) -> list[dict[str, Any]]:
    """Per board: each row's cards, hand, category and strength, and whether the board fouls."""
    from ofc.pipeline.cards import format_row
    from ofc.pipeline.evaluate import CATEGORY_NAMES, ROW_NAMES, describe, evaluate_boards, fouled, row_facts

    strengths = evaluate_boards(boards)
    fouls = fouled(*strengths, bottom_may_equal_middle=bottom_may_equal_middle)
    report: list[dict[str, Any]] = [{"fouled": bool(f)} for f in fouls]
    for name, cols, s in zip(ROW_NAMES, ((0, 3), (3, 8), (8, 13)), strengths, strict=True):
        facts, names = row_facts(s), describe(s)
        for i, entry in enumerate(report):
            category = "royal flush" if facts.royal[i] else CATEGORY_NAMES[facts.category[i]]
            entry[name] = {
                "cards": format_row(boards[i, cols[0] : cols[1]]).split(),
                "hand": str(names[i]),
                "category": category,
                "strength": int(s[i]),
            }
    return report


def render(report: list[dict[str, Any]], labels: list[str] | None = None) -> Table:
    """One section per board: its three rows and the verdict."""
    table = Table()
    for col, justify in (
        ("board", "left"),
        ("row", "left"),
        ("cards", "left"),
        ("hand", "left"),
        ("strength", "right"),
    ):
        table.add_column(col, justify=justify)  # type: ignore[arg-type]
    table.add_column("verdict")
    labels = labels or [str(i) for i in range(1, len(report) + 1)]
    for label, board in zip(labels, report, strict=True):
        verdict = "[red]fouled[/]" if board["fouled"] else "[green]valid[/]"
        for j, row in enumerate(("top", "middle", "bottom")):
            r = board[row]
            table.add_row(
                label if j == 0 else "",
                row,
                " ".join(r["cards"]),
                r["hand"],
                str(r["strength"]),
                verdict if j == 0 else "",
                end_section=j == 2,
            )
    return table


def eval_boards(
    boards: list[str] = typer.Argument(
        ...,
        metavar="BOARD...",
        help='Boards as "top / middle / bottom", e.g. "Qh Qd 4c / 9s 9h 9c Kd 3h / Ts Js Qs Ks As".',
        show_default=False,
    ),
    strict_bottom: bool = typer.Option(False, "--strict-bottom", help="A bottom exactly equal to the middle fouls."),
    as_json: bool = json_option(),
) -> None:
    """Evaluate boards: each row's hand and strength on the shared scale, and whether the board fouls.

    A bad card or a card given twice on a board is refused (exit 2), naming the card and where it is.
    """
    from ofc.pipeline.cards import check_distinct, parse_boards

    with user_errors():
        codes = parse_boards(boards, context="board")
        check_distinct(codes)
        report = board_report(codes, bottom_may_equal_middle=not strict_bottom)
    if as_json:
        print_json(report)
    else:
        out.print(render(report))
