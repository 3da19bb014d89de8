"""``ofc ingest``, ``ofc validate`` and ``ofc quarantine``: histories into the lake, nothing lost."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer
from rich.table import Table

from pipeline.cli.console import EXIT_FAILED, byte_progress, err, out, print_json
from pipeline.paths import default_lake

LAKE_HELP = "Lake directory (default: $OFC_LAKE or data/lake)."
FORMAT_HELP = "Force the input format: jsonl, poker-arena or scoresheet (default: detected from the content)."


def lake_option() -> Any:
    return typer.Option(None, "--lake", help=LAKE_HELP, show_default=False)


def _run(paths: list[Path], lake_dir: Path | None, fmt: str | None, write: bool, replace: bool = False) -> Any:
    from pipeline.ingest.run import ingest
    from pipeline.lake.store import Lake

    lake = Lake(lake_dir or default_lake()) if write else None
    with byte_progress() as progress:
        tasks: dict[str, Any] = {}

        def on_progress(source: str, done: int, hands: int) -> None:
            if source not in tasks:
                tasks[source] = progress.add_task(Path(source).name[:40], total=None, hands=0)
            progress.update(tasks[source], completed=done, hands=hands)

        return ingest(paths, lake, fmt, on_progress, replace=replace)


def summary_of(report: Any) -> dict[str, Any]:
    files = [
        {
            "source": f.source,
            "format": f.format,
            "read": f.read,
            "accepted": f.accepted,
            "quarantined": f.quarantined,
            "duplicates": f.duplicates,
            "reasons": dict(f.reasons.most_common()),
            "skipped": f.skipped,
            "error": f.error,
        }
        for f in report.files
    ]
    t = report.totals
    total = {**t.counts(), "balanced": t.balanced()}
    corrections = {"replaced": report.replaced, "removed": report.removed}
    return {"batch": report.batch, "files": files, "total": total, "corrections": corrections}


def print_summary(summary: dict[str, Any], title: str) -> None:
    table = Table(
        "file",
        "format",
        "read",
        "accepted",
        "quarantined",
        "duplicates",
        "quarantined by reason",
        title=title,
        title_justify="left",
    )
    for f in summary["files"]:
        note = f["error"] or f["skipped"] or "; ".join(f"{k} ({v})" for k, v in f["reasons"].items())
        table.add_row(
            f["source"],
            f["format"],
            f"{f['read']:,}",
            f"{f['accepted']:,}",
            f"{f['quarantined']:,}",
            f"{f['duplicates']:,}",
            note,
        )
    t = summary["total"]
    table.add_section()
    table.add_row(
        "total",
        "",
        f"{t['read']:,}",
        f"{t['accepted']:,}",
        f"{t['quarantined']:,}",
        f"{t['duplicates']:,}",
        "read = accepted + quarantined + duplicates: " + ("yes" if t["balanced"] else "NO"),
    )
    out.print(table)
    fixed = summary.get("corrections") or {}
    if fixed.get("replaced") or fixed.get("removed"):
        replaced, removed = fixed["replaced"], fixed["removed"]
        out.print(
            f"corrections: {replaced:,} hand{'s' * (replaced != 1)} replaced by the corrected version, "
            f"{removed:,} removed (no longer in the files); the next ofc rescore scores the batches they were in"
        )
    if summary["batch"]:
        out.print(f"committed batch {summary['batch']}")


def _finish(summary: dict[str, Any]) -> None:
    """Each file that could not be read to its end, in a line on stderr; exit 1 if there was one."""
    failed = [f for f in summary["files"] if f["error"]]
    for f in failed:
        kept = f" (the {f['read']:,} records before it were read as shown)" if f["read"] else ""
        what = f["error"] if f["error"].startswith(f["source"]) else f"{f['source']}: {f['error']}"
        err.print(f"[bold red]error:[/] {what}{kept}", markup=True, highlight=False)
    if summary["total"]["read"] == 0:
        err.print("nothing could be read", markup=False)
    if failed or summary["total"]["read"] == 0:
        raise typer.Exit(EXIT_FAILED)


def ingest_paths(
    paths: list[Path] = typer.Argument(..., help="Files, .gz or .zip archives, or directories (read recursively)."),
    fmt: str | None = typer.Option(None, "--format", "-f", help=FORMAT_HELP),
    lake: Path | None = lake_option(),
    as_json: bool = typer.Option(False, "--json", help="Print the summary as JSON."),
    replace: bool = typer.Option(
        False,
        "--replace",
        help="The files are corrected versions of files ingested before: a hand whose content changed replaces "
        "its earlier version, and a hand of the files' sessions they no longer hold is removed.",
    ),
) -> None:
    """Read hand histories into the lake as one batch; bad records are quarantined with their reason.

    A hand seen before with the same content is a duplicate; seen before with other content (the same hand id
    in the same session) it is quarantined, unless --replace says the files are corrections. Exit 1 when a file
    could not be read to its end (what it held before the fault is kept, and said), or nothing could be read.
    """
    summary = summary_of(_run(paths, lake, fmt, write=True, replace=replace))
    print_json(summary) if as_json else print_summary(summary, "ingest")
    _finish(summary)


def validate_paths(
    paths: list[Path] = typer.Argument(..., help="Files, .gz or .zip archives, or directories."),
    fmt: str | None = typer.Option(None, "--format", "-f", help=FORMAT_HELP),
    as_json: bool = typer.Option(False, "--json", help="Print the summary as JSON."),
) -> None:
    """Check hand histories as ofc ingest would, without writing anything."""
    summary = summary_of(_run(paths, None, fmt, write=False))
    print_json(summary) if as_json else print_summary(summary, "validate (nothing written)")
    _finish(summary)


def quarantine(
    lake: Path | None = lake_option(),
    limit: int = typer.Option(50, min=1, help="Show at most this many records (newest batches first)."),
    as_json: bool = typer.Option(False, "--json", help="Print JSON lines."),
) -> None:
    """List quarantined records: where they were and why they were not accepted."""
    from pipeline.lake.store import Lake

    table = Lake(lake or default_lake()).read("quarantine")
    rows = table.to_pylist()[::-1][:limit]
    if as_json:
        for r in rows:
            print_json(r)
        return
    view = Table("batch", "file", "line", "hand", "reason", title=f"{table.num_rows:,} quarantined records")
    for r in rows:
        view.add_row(r["batch"], r["source_file"], str(r["line"]), r["hand_id"] or "", r["reason"])
    out.print(view)
