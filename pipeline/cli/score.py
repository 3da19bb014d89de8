"""``ofc score``: score hand records, in any format ``ofc ingest`` reads, under one or more rule sets."""

from __future__ import annotations

import io
import sys
from collections import defaultdict
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

import typer
from rich.table import Table

from ofc.pipeline.cli.console import EXIT_FAILED, byte_progress, err, out, print_json
from ofc.pipeline.cli.options import (
    format_option,
    json_option,
    load_rules,
    map_option,
    readers_of,
    rules_option,
    sheet_option,
)

if TYPE_CHECKING:
    from ofc.pipeline.rescore.in_memory import Checked

DETAIL_LIMIT = 40
STDIN = "-"


def _inputs(file: str) -> list[tuple[str, Any, int | None]]:
    """(name, opener, size) of each input: standard input, or a file, a .gz or .zip archive's members, a folder's
    history files (as ofc ingest finds them). A path that does not exist is a usage error."""
    from ofc.pipeline.ingest.formats import SNIFF_BYTES
    from ofc.pipeline.ingest.inputs import sources

    if file == STDIN:
        return [(STDIN, lambda: io.BufferedReader(sys.stdin.buffer, SNIFF_BYTES), None)]  # type: ignore[arg-type]
    return [(s.name, s.open, s.size) for s in sources(Path(file))]


@contextmanager
def _opened(name: str, opener: Any) -> Iterator[IO[bytes]]:
    """An input's stream, closed after (standard input is left open: it is not the command's)."""
    stream = opener()
    try:
        yield stream
    finally:
        if name != STDIN:
            stream.close()


def _format(stream: IO[bytes], fmt: str | None, readers: dict[str, Any] | None) -> str:
    """The format given, else the one the first bytes show; canonical JSONL when none is recognised, so that
    each line that cannot be read is reported with its reason."""
    from ofc.pipeline.ingest.formats import SNIFF_BYTES, ingester, sniff

    if fmt is not None:
        ingester(fmt)  # an unknown name is a usage error
        return fmt
    return sniff(stream.peek(SNIFF_BYTES)[:SNIFF_BYTES], readers) or "jsonl"  # type: ignore[attr-defined]


def _checked(stream: IO[bytes], fmt: str, name: str, readers: dict[str, Any] | None) -> Iterator[tuple[Checked, int]]:
    """The input's records, chunk by chunk, read by their format's ingester and checked by the ingest's
    validator, with the bytes each chunk took."""
    from ofc.pipeline.ingest.formats import reader_for
    from ofc.pipeline.rescore.in_memory import check

    for chunk in reader_for(fmt, readers).read(stream, name):
        yield check(chunk, name), chunk.bytes_read


def score_file(
    file: str = typer.Argument(
        ...,
        metavar="FILE",
        help="Hand histories: a file, a .gz or .zip archive or a folder, in any format ofc ingest reads "
        "('-' for standard input).",
        show_default=False,
    ),
    fmt: str | None = format_option(),
    rules: list[str] = rules_option(default=["ofc"]),
    as_json: bool = json_option(lines=True),
    column_spec: str | None = map_option(),
    sheets: list[str] | None = sheet_option(),
) -> None:
    """Score every pair of players in every hand, under each rule set given.

    The input may be canonical JSONL, a poker-arena log, a scoresheet CSV or Excel workbook, or an fpdb-3
    OFC capture (JSON or its SQLite database), detected from the content or named by --format. A record that
    cannot be scored is reported on standard error with its line, hand and field, and skipped; the rest are
    scored. Exit 1 only when nothing could be scored.
    """
    from ofc.pipeline.cli.ingest import problem_entries, problem_line
    from ofc.pipeline.score.output import to_output

    rule_sets = [load_rules(r) for r in rules]
    readers = readers_of(column_spec, sheets)
    inputs = _inputs(file)
    scored: list[dict[str, Any]] = []
    n_hands = n_errors = 0
    with byte_progress() as progress:
        for name, opener, size in inputs:
            task = progress.add_task(Path(name).name[:40], total=size, hands=0)
            with _opened(name, opener) as stream:
                fmt_here = _format(stream, fmt, readers)
                for checked, consumed in _checked(stream, fmt_here, name, readers):
                    for problem in checked.problems:
                        for entry in problem_entries(name, problem):
                            err.print(problem_line(entry), markup=False, highlight=False)
                    n_errors += len(checked.problems)
                    n_hands += checked.hands
                    for rs, result in checked.scored(rule_sets):
                        results = to_output(checked.named, result, rs)
                        if as_json:
                            for r in results:
                                print_json(r)
                        else:
                            scored.extend(results)
                    progress.update(task, advance=consumed, hands=n_hands)
    if not as_json:
        _print_tables(scored, n_hands)
    if n_errors:
        err.print(f"{n_errors} record(s) skipped, {n_hands} hand(s) scored", markup=False)
    if n_hands == 0:
        raise typer.Exit(EXIT_FAILED)


def _boards_of(result: dict[str, Any]) -> Iterator[tuple[str, str, dict[str, Any]]]:
    """Each board of a scored hand: its key (``A#0`` for a criss-cross player's), its player, its facts."""
    for key, board in result["boards"].items():
        yield key, key if key in result["points"] else key.rsplit("#", 1)[0], board


def _print_tables(results: list[dict[str, Any]], n_hands: int) -> None:
    if n_hands <= DETAIL_LIMIT:
        table = Table("hand", "rules", "player", "points", "fouled", "royalties t/m/b", "fantasyland next")
        for r in results:
            boards = list(_boards_of(r))
            shown: set[str] = set()  # a criss-cross player's points are shown once, beside their first board
            for j, (key, player, b) in enumerate(boards):
                roy = b["royalties"]
                table.add_row(
                    str(r["hand_id"]) if j == 0 else "",
                    r["rules"] if j == 0 else "",
                    key,
                    f"{r['points'][player]:+d}" if player not in shown else "",
                    "[red]fouled[/]" if b["fouled"] else "",
                    f"{roy['top']}/{roy['middle']}/{roy['bottom']}",
                    str(b["fantasyland_next"] or ""),
                    end_section=j == len(boards) - 1,
                )
                shown.add(player)
        out.print(table)
        return
    totals: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0, 0, 0, 0])
    for r in results:
        for name, pts in r["points"].items():
            t = totals[(r["rules"], name)]
            t[0] += 1
            t[1] += pts
        for _, player, b in _boards_of(r):
            t = totals[(r["rules"], player)]
            t[2] += 1
            t[3] += b["fouled"]
            t[4] += b["fantasyland_next"] > 0
    table = Table("rules", "player", "hands", "net points", "points/hand", "foul rate", "fantasyland next")
    for (rules, name), (hands, pts, boards, fouls, fl) in sorted(totals.items()):
        table.add_row(
            rules, name, f"{hands:,}", f"{pts:+,}", f"{pts / hands:+.3f}", f"{fouls / boards:.1%}", f"{fl / boards:.1%}"
        )
    out.print(table)
