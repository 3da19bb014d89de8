"""``ofc ingest``, ``ofc validate`` and ``ofc quarantine``: histories into the lake, nothing lost; every bad record
said with its file, line and field."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer
from rich.table import Table
from rich.text import Text

from ofc.pipeline.cli.console import EXIT_FAILED, byte_progress, err, out, print_json
from ofc.pipeline.cli.options import (
    check_variant,
    existing_lake,
    format_option,
    json_option,
    lake_at,
    lake_option,
    load_rules,
    map_option,
    readers_of,
    sheet_option,
)

PATHS_HELP = "Files (histories, workbooks, fpdb databases), .gz or .zip archives, or directories (read recursively)."
MAX_PROBLEMS = 100_000
"""Bad records a validation lists (each is counted in the summary however many there are)."""


VARIANT_HELP = (
    "The variant every hand of these files was played as: fills it where a record does not say, replaces what "
    "a reader only inferred (a poker-arena log names no game); a record that says another is quarantined."
)
HOUSE_RULES_HELP = (
    "The rules these files' hands were played by (a preset or a rule file): scored under them as played. "
    "Without it, a file that records each hand's points is labelled with the preset that reproduces them."
)


def variant_option() -> Any:
    return typer.Option(None, "--variant", metavar="VARIANT", help=VARIANT_HELP, show_default=False)


def house_rules_option() -> Any:
    return typer.Option(None, "--house-rules", metavar="RULES", help=HOUSE_RULES_HELP, show_default=False)


def labels_of(variant: str | None, house_rules: str | None) -> Any:
    """The labels given on the command line, checked: an unknown variant names the closest, a rule file that
    cannot be read names its problems, and rules that cannot have been played as the variant say why."""
    from ofc.pipeline.errors import InputError
    from ofc.pipeline.ingest.labels import Labels
    from ofc.pipeline.rules.files import preset_names
    from ofc.pipeline.rules.native import cannot_apply

    check_variant(variant)
    if house_rules is None:
        return Labels(variant)
    rules = load_rules(house_rules)
    if variant is not None and (why := cannot_apply(rules, variant)) is not None:
        raise InputError(f"--house-rules: {why}")
    preset = house_rules in preset_names()
    # A preset by its name; a rule file by its key, exact, and recorded in the batch so that the lake knows it.
    return Labels(variant, rules.name if preset else rules.key, None if preset else rules)


def _run(
    paths: list[Path],
    lake: Any,
    fmt: str | None,
    replace: bool = False,
    against: Any = None,
    on_problems: Any = None,
    labels: Any = None,
    readers: Any = None,
) -> Any:
    from ofc.pipeline.ingest.ingest_run import ingest

    with byte_progress() as progress:
        tasks: dict[str, Any] = {}

        def on_progress(source: str, done: int, hands: int) -> None:
            if source not in tasks:
                tasks[source] = progress.add_task(Path(source).name[:40], total=None, hands=0)
            progress.update(tasks[source], completed=done, hands=hands)

        return ingest(
            paths,
            lake,
            fmt,
            on_progress,
            replace=replace,
            against=against,
            on_problems=on_problems,
            labels=labels,
            readers=readers,
        )


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
            "rules": f.rules,
            "notes": f.notes,
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
            Text(f["source"]),
            f["format"],
            f"{f['read']:,}",
            f"{f['accepted']:,}",
            f"{f['quarantined']:,}",
            f"{f['duplicates']:,}",
            Text(note),
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
    for f in summary["files"]:
        for note in [*(f.get("notes") or []), *(f.get("rules") or [])]:
            out.print(Text(f"{Path(f['source']).name}: {note}"))
    fixed = summary.get("corrections") or {}
    if fixed.get("replaced") or fixed.get("removed"):
        replaced, removed = fixed["replaced"], fixed["removed"]
        out.print(
            f"corrections: {replaced:,} hand{'s' * (replaced != 1)} replaced by the corrected version, "
            f"{removed:,} removed (no longer in the files); the next ofc rescore scores the batches they were in"
        )
    if summary["batch"]:
        out.print(f"committed batch {summary['batch']}")


def _finish(summary: dict[str, Any], wrote: bool) -> None:
    """Each file that could not be read to its end, in a line on stderr; exit 1 if there was one, or if nothing
    at all was read (then nothing was committed either)."""
    failed = [f for f in summary["files"] if f["error"]]
    for f in failed:
        kept = f" (the {f['read']:,} records before it were read as shown)" if f["read"] else ""
        what = f["error"] if f["error"].startswith(f["source"]) else f"{f['source']}: {f['error']}"
        err.print(Text.assemble(("error:", "bold red"), f" {what}{kept}"))
    if summary["total"]["read"] == 0:
        found = "no records" if summary["files"] else "no history files (.jsonl .csv .gz .zip ...)"
        committed = "; nothing was committed, the lake is as it was" if wrote else ""
        err.print(f"nothing could be read: {found} in the paths given{committed}", markup=False, highlight=False)
    if failed or summary["total"]["read"] == 0:
        raise typer.Exit(EXIT_FAILED)


def ingest_paths(
    paths: list[Path] = typer.Argument(..., metavar="PATH...", help=PATHS_HELP, show_default=False),
    fmt: str | None = format_option(),
    lake: Path | None = lake_option(),
    as_json: bool = json_option(),
    replace: bool = typer.Option(
        False,
        "--replace",
        help="The files are corrected versions of files ingested before: a hand whose content changed replaces "
        "its earlier version, and a hand of the files' sessions they no longer hold is removed.",
    ),
    variant: str | None = variant_option(),
    house_rules: str | None = house_rules_option(),
    column_spec: str | None = map_option(),
    sheets: list[str] | None = sheet_option(),
    watch: bool = typer.Option(
        False,
        "--watch",
        help="Keep watching the folders (and files) given, and ingest each history file as it appears or changes, "
        "once it has stopped changing; live counters until Ctrl-C.",
    ),
    settle: float = typer.Option(
        2.0,
        "--settle",
        metavar="SECONDS",
        min=0.1,
        help="With --watch: how long a file must keep the same size and modification time before it is read (a "
        "CSV or JSON lines file not ending in a line end: five times as long).",
    ),
) -> None:
    """Read hand histories into the lake as one batch; bad records are quarantined with their reason.

    A hand seen before with the same content is a duplicate; seen before with other content (the same hand id
    in the same session) it is quarantined, unless --replace says the files are corrections. Exit 1 when a file
    could not be read to its end (what it held before the fault is kept, and said), or nothing could be read
    (then nothing is committed). With --watch, each group of files that settles is a batch of its own, and
    Ctrl-C ends the watch (exit 0, or 1 if a file could not be read; 130 if it cut a batch short, which is then
    not committed).
    """
    labels, readers = labels_of(variant, house_rules), readers_of(column_spec, sheets)
    if watch:
        from ofc.pipeline.cli.watch_display import run_watch
        from ofc.pipeline.ingest.ingest_run import ingest

        target = lake_at(lake)

        def ingest_files(files: list[Path], on_progress: Any) -> Any:
            return ingest(files, target, fmt, on_progress, replace=replace, labels=labels, readers=readers)

        run_watch(paths, ingest_files, summary_of, settle, as_json, target.root)
        return
    summary = summary_of(_run(paths, lake_at(lake), fmt, replace=replace, labels=labels, readers=readers))
    print_json(summary) if as_json else print_summary(summary, "ingest")
    _finish(summary, wrote=True)


def problem_entries(source: str, problem: Any) -> list[dict[str, Any]]:
    """A bad record's faults, one for each, for people and machines: where each is (the line, a workbook's sheet
    and row, the hand, the player, the sheet's column or the record's field) and what is wrong there."""
    return [
        {
            "file": source,
            "where": issue.place.text(source),
            "line": issue.place.line,
            "last_line": issue.place.last or None,
            "sheet": issue.place.sheet,
            "byte_offset": problem.offset,
            "hand_id": problem.hand_id,
            "player": issue.place.player,
            "column": issue.place.column,
            "field": issue.place.field,
            "reason": issue.message,
        }
        for issue in problem.issues
    ]


def problem_line(p: dict[str, Any]) -> str:
    """``FILE:LINE (hand, player), column C: reason``, as compilers say where a fault is."""
    where = p["where"] if p["line"] or p["sheet"] is not None else f"{p['file']} (byte {p['byte_offset']:,})"
    return f"{where}: {p['reason']}"


def validate_paths(
    paths: list[Path] = typer.Argument(..., metavar="PATH...", help=PATHS_HELP, show_default=False),
    fmt: str | None = format_option(),
    lake: Path | None = lake_option(
        "Also check against this lake, as ofc ingest into it would: a hand it holds with the same content is a "
        "duplicate, with other content a bad record (default: no lake, the files alone)."
    ),
    as_json: bool = json_option(),
    variant: str | None = variant_option(),
    house_rules: str | None = house_rules_option(),
    column_spec: str | None = map_option(),
    sheets: list[str] | None = sheet_option(),
) -> None:
    """Check hand histories as ofc ingest would, writing nothing: every bad record as FILE:LINE: field: reason.

    Exit 0 when every record would be accepted (or is a duplicate), 1 when any is bad or a file cannot be
    read, 2 for a usage error (a missing file, an unknown format).
    """
    against = existing_lake(lake) if lake is not None else None
    problems: list[dict[str, Any]] = []
    counted = [0]

    def on_problems(source: str, found: list[Any]) -> None:
        counted[0] += sum(len(p.issues) for p in found)
        room = MAX_PROBLEMS - len(problems)
        problems.extend(e for p in found[: max(room, 0)] for e in problem_entries(source, p))

    labels, readers = labels_of(variant, house_rules), readers_of(column_spec, sheets)
    summary = summary_of(
        _run(paths, None, fmt, against=against, on_problems=on_problems, labels=labels, readers=readers)
    )
    order = {f["source"]: i for i, f in enumerate(summary["files"])}
    problems.sort(key=lambda p: (order.get(p["file"], 0), p["line"], p["byte_offset"]))
    left_out = counted[0] - len(problems)
    if as_json:
        print_json({**summary, "problems": problems, "problems_not_listed": left_out})
    else:
        for p in problems:
            out.print(problem_line(p), markup=False, highlight=False)
        if left_out:
            out.print(f"... and {left_out:,} more bad records (the first {MAX_PROBLEMS:,} are listed)", markup=False)
        print_summary(summary, "validate (nothing written)" + (f", against {against.root}" if against else ""))
        t = summary["total"]
        files = len(summary["files"])
        bad_files = sum(1 for f in summary["files"] if f["quarantined"])
        if t["quarantined"]:
            verdict = f"{t['quarantined']:,} of {t['read']:,} records are bad, in {bad_files} of {files} file(s)"
        elif t["read"]:
            verdict = f"no bad records: {t['accepted']:,} would be accepted, {t['duplicates']:,} are duplicates"
        else:
            verdict = ""  # nothing was read: said below, with why
        if verdict:
            out.print(verdict, markup=False, highlight=False)
    _finish(summary, wrote=False)
    if summary["total"]["quarantined"]:
        raise typer.Exit(EXIT_FAILED)
