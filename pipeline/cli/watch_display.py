"""``ofc ingest --watch``: folders watched, each settled file ingested, live counters until Ctrl-C."""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Any

import typer
from rich.live import Live
from rich.table import Table
from rich.text import Text

from ofc.pipeline.cli.console import EXIT_FAILED, err, fail, heard, interrupted, out, print_json, what_was_committed
from ofc.pipeline.errors import InputError

REFRESH = 4
"""Redraws of the counters a second."""


def check_roots(paths: list[Path]) -> None:
    """What ``--watch`` is given must exist: a folder (watched recursively) or a file (watched itself)."""
    missing = [str(p) for p in paths if not p.exists()]
    if missing:
        raise InputError(f"--watch: no such file or folder: {', '.join(missing)}")


def counters(totals: Any, roots: list[Path], reading: str) -> Table:
    """The live view: what was read so far, and what the watch is doing now."""
    grid = Table.grid(padding=(0, 2))
    grid.add_column(style="bold")
    grid.add_column()
    grid.add_row("watching", Text(", ".join(str(r) for r in roots)))
    grid.add_row(
        "hands",
        f"{totals.read:,} read: {totals.accepted:,} accepted, {totals.quarantined:,} quarantined, "
        f"{totals.duplicates:,} duplicates",
    )
    files, batches = _count(totals.files, "file"), _count(totals.batches, "batch")
    grid.add_row("files", f"{files} read in {batches}, {totals.errors:,} with errors")
    settling = f"{_count(totals.waiting, 'file')} settling"
    doing = reading or (settling if totals.waiting else "waiting for files (Ctrl-C ends)")
    grid.add_row("now", Text(doing))
    return grid


def _count(n: int, noun: str) -> str:
    return f"{n:,} {noun}{'' if n == 1 else 'es' if noun.endswith('ch') else 's'}"


def _file_line(f: Any) -> Text:
    stamp = time.strftime("%H:%M:%S")
    if f.error:
        return Text.assemble(f"{stamp} ", ("error:", "bold red"), f" {f.error}")
    note = f" ({f.skipped})" if f.skipped else ""
    return Text(
        f"{stamp} {f.source}: {f.read:,} read, {f.accepted:,} accepted, {f.quarantined:,} quarantined, "
        f"{f.duplicates:,} duplicates{note}"
    )


def run_watch(
    paths: list[Path], ingest_files: Any, summary_of: Any, settle: float, as_json: bool, lake: Path | None = None
) -> None:
    """Watch until Ctrl-C; then the totals, and exit 0 (1 if a file could not be read to its end). Ctrl-C in the
    middle of a batch leaves nothing of it committed and exits 130, as any interrupted ingest does.
    ``summary_of``: a batch's report as ``ofc ingest --json`` prints it; ``lake``: where the batches go, never
    read as input even inside a watched folder."""
    from ofc.pipeline.ingest.watch import WatchError, WatchTotals, watch

    check_roots(paths)
    live_view = out.is_terminal and not as_json
    state: dict[str, Any] = {"reading": "", "cut": False, "totals": WatchTotals()}

    def ingest_with_status(files: list[Path]) -> Any:
        def on_progress(source: str, done: int, hands: int) -> None:
            state["reading"] = f"reading {Path(source).name}: {hands:,} records"

        try:
            return ingest_files(files, on_progress)
        except KeyboardInterrupt:
            state["cut"] = True  # the batch in progress was thrown away
            raise
        finally:
            state["reading"] = ""

    def on_batch(report: Any, totals: Any) -> None:
        state["totals"] = totals
        if as_json:
            print_json(summary_of(report))
            sys.stdout.flush()  # a line a batch, as it happens, for whatever reads the pipe
            return
        for f in report.files:
            (live.console if live_view else err if f.error else out).print(_file_line(f))
        for f in report.files:
            for note in f.rules:
                (live.console if live_view else out).print(Text(f"{Path(f.source).name}: {note}"))

    def on_tick(totals: Any) -> None:
        state["totals"] = totals
        if live_view:
            live.update(counters(totals, paths, state["reading"]))

    def on_error(exc: Exception, files: list[Path]) -> None:
        from ofc.pipeline.errors import InputError

        again = "read again when it changes" if isinstance(exc, InputError) else "tried again when the files settle"
        message = str(exc) if str(exc).startswith(str(files[0])) else f"{', '.join(map(str, files))}: {exc}"
        (live.console if live_view else err).print(Text.assemble(("error:", "bold red"), f" {message} ({again})"))

    live = Live(counters(WatchTotals(), paths, ""), console=out, refresh_per_second=REFRESH, transient=True)
    try:
        if live_view:
            live.start()
        if not live_view and not as_json:
            out.print(f"watching {', '.join(map(str, paths))} (Ctrl-C ends)")
        totals = watch(
            paths,
            ingest_with_status,
            settle=settle,
            exclude=[lake] if lake is not None else [],
            on_batch=on_batch,
            on_tick=on_tick,
            on_error=on_error,
        )
    except KeyboardInterrupt:
        heard()  # Ctrl-C is how a watch ends
        totals = state["totals"]
        if state["cut"]:
            live.stop()
            _print_totals(totals, as_json)
            interrupted(what_was_committed())
    except WatchError as exc:
        live.stop()
        _print_totals(state["totals"], as_json)
        fail(str(exc), EXIT_FAILED)
    finally:
        live.stop()
    _print_totals(totals, as_json)
    if totals.errors:
        raise typer.Exit(EXIT_FAILED)


def _print_totals(totals: Any, as_json: bool) -> None:
    fields = ("batches", "files", "read", "accepted", "quarantined", "duplicates", "errors")
    if as_json:
        print_json({"watch": {name: getattr(totals, name) for name in fields}})
        return
    out.print(
        f"watch ended: {_count(totals.batches, 'batch')} committed from {_count(totals.files, 'file')}; "
        f"{_count(totals.read, 'record')} read: {totals.accepted:,} accepted, {totals.quarantined:,} quarantined, "
        f"{totals.duplicates:,} duplicates"
        + (f"; {_count(totals.errors, 'file')} could not be read to the end" if totals.errors else "")
    )
