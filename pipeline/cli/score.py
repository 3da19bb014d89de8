"""``ofc score``: score hand records (JSON lines) under one or more rule sets."""

from __future__ import annotations

import sys
from collections import defaultdict
from itertools import islice
from pathlib import Path
from typing import IO, Any

import typer
from rich.table import Table

from pipeline.cli.console import EXIT_FAILED, EXIT_USAGE, byte_progress, err, fail, out, print_json
from pipeline.cli.rules import load

BATCH_LINES = 50_000
DETAIL_LIMIT = 40


def _open(path: str) -> tuple[IO[bytes], int | None]:
    """The input as bytes (``json`` reads bytes) and its size for the progress bar."""
    if path == "-":
        return sys.stdin.buffer, None
    p = Path(path)
    if not p.is_file():
        fail(f"{path}: no such file", EXIT_USAGE)
    return p.open("rb"), p.stat().st_size


def score_file(
    file: str = typer.Argument(..., help="Hand records, one JSON object per line ('-' for standard input)."),
    rules: list[str] = typer.Option(["ofc"], "--rules", "-r", help="Preset name or rule file; repeat for several."),
    as_json: bool = typer.Option(False, "--json", help="One JSON object per hand and rule set."),
) -> None:
    """Score every pair of players in every hand, under each rule set given.

    A malformed line is reported on standard error with its line number and
    skipped; the rest are scored. Exit 1 only when nothing could be scored.
    """
    from pipeline.score.engine import prepare, score
    from pipeline.score.records import read_jsonl, to_boards, to_output

    rule_sets = [load(r) for r in rules]
    stream, size = _open(file)
    scored: list[dict[str, Any]] = []
    n_hands = n_errors = 0
    line = 1
    with byte_progress() as progress:
        task = progress.add_task("scoring", total=size, hands=0)
        while chunk := list(islice(stream, BATCH_LINES)):
            batch = read_jsonl(chunk, first_line=line)
            line += len(chunk)
            for e in batch.errors:
                err.print(f"{file} {e}", markup=False)
            n_errors += len(batch.errors)
            n_hands += len(batch.records)
            boards = to_boards(batch.records, batch.codes) if batch.records else None
            prepared = prepare(boards) if boards else None
            for rs in rule_sets:  # the batch is parsed and evaluated once, then scored under each rule set
                results = list(to_output(batch.records, score(boards, rs, prepared), rs)) if boards else []
                if as_json:
                    for r in results:
                        print_json(r)
                else:
                    scored.extend(results)
            progress.update(task, advance=sum(map(len, chunk)), hands=n_hands)
    if not as_json:
        _print_tables(scored, n_hands)
    if n_errors:
        err.print(f"{n_errors} line(s) skipped, {n_hands} hand(s) scored", markup=False)
    if n_hands == 0:
        raise typer.Exit(EXIT_FAILED)


def _print_tables(results: list[dict[str, Any]], n_hands: int) -> None:
    if n_hands <= DETAIL_LIMIT:
        table = Table("hand", "rules", "player", "points", "fouled", "royalties t/m/b", "fantasyland next")
        for r in results:
            for j, (name, pts) in enumerate(r["points"].items()):
                b = r["boards"][name]
                roy = b["royalties"]
                table.add_row(
                    str(r["hand_id"]) if j == 0 else "",
                    r["rules"] if j == 0 else "",
                    name,
                    f"{pts:+d}",
                    "[red]fouled[/]" if b["fouled"] else "",
                    f"{roy['top']}/{roy['middle']}/{roy['bottom']}",
                    str(b["fantasyland_next"] or ""),
                    end_section=j == len(r["points"]) - 1,
                )
        out.print(table)
        return
    totals: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0, 0, 0])
    for r in results:
        for name, pts in r["points"].items():
            t = totals[(r["rules"], name)]
            t[0] += 1
            t[1] += pts
            t[2] += r["boards"][name]["fouled"]
            t[3] += r["boards"][name]["fantasyland_next"] > 0
    table = Table("rules", "player", "hands", "net points", "points/hand", "foul rate", "fantasyland next")
    for (rules, name), (hands, pts, fouls, fl) in sorted(totals.items()):
        table.add_row(
            rules, name, f"{hands:,}", f"{pts:+,}", f"{pts / hands:+.3f}", f"{fouls / hands:.1%}", f"{fl / hands:.1%}"
        )
    out.print(table)
