"""``ofc quarantine``: the records ofc ingest could not accept, the ones still to fix first, each with the command
that fixes it; a record a later reading of its file took care of is resolved (``quarantine_status`` in
sql/views.sql says how)."""

from __future__ import annotations

import re
import shlex
from collections import Counter
from pathlib import Path

import typer
from rich.table import Table
from rich.text import Text

from ofc.pipeline.cli.console import out, print_json
from ofc.pipeline.cli.options import existing_lake, json_option, lake_option

SHEETS = (".csv", ".tsv", ".txt", ".xlsx", ".xlsm", ".xls")
"""Files a club keeps by hand: a bad record there is a cell to correct in the sheet."""

REPLACE = "ofc ingest --replace"
"""Every fix reads the file again with --replace: a file read before is skipped unless it is a correction, and the
hands of it that the lake holds are then replaced by the corrected ones."""

FIXES: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(pattern), fix)
    for pattern, fix in (
        (r"was imported before with", "if the file is right: {ingest} {file}"),
        (
            r"as a hand already imported under another id",
            "the lake holds this hand under another id: give it that id, then: {ingest} {file}",
        ),
        (r"header: missing required column\(s\) (?P<columns>[\w, ]+?) \(found", "{ingest} --map {map} {file}"),
        (r"header: column\(s\) named more than once", "rename the repeated column, then: {ingest} {file}"),
        (r"no header row|header: malformed CSV", "give the sheet a header row of column names, then: {ingest} {file}"),
        (r"^variant: missing", "{ingest} --variant VARIANT {file}"),
        (
            r"^variant: the record says",
            "correct the record's variant, or give --variant only to files whose records name none; then: "
            "{ingest} {file}",
        ),
        (
            r"^house_rules: the record says",
            "correct the record's house rules, then: {ingest} --house-rules RULES {file}",
        ),
        (r"cannot be read \(", "save the workbook again, or read its other sheets: {ingest} --sheet NAME {file}"),
        (r"a stray entry far from the table", "delete the stray entry, then: {ingest} {file}"),
    )
)
"""The fix of each kind of reason the ingesters give, the first that matches; any other reason (a bad cell, a card
dealt twice, a line that is not JSON) is a record to correct in the file: DEFAULT_FIX."""
DEFAULT_FIX = "correct the {what}, then: {ingest} {file}"

LIMIT_HELP = "Show at most N records (at least 1): the open ones first, newest batch first."
ALL_HELP = (
    "Also list every resolved record, newest resolution first (by default only those the latest correction "
    "resolved, to show it took)."
)


def fix_for(reason: str, source_file: str, lake: Path | None = None) -> str:
    """The command that fixes a record quarantined for ``reason``, ready to paste: the file as ofc ingest was
    given it (an archive, not its member) and the lake when it is not the default."""
    path = source_file.split("!", 1)[0]
    ingest = REPLACE + (f" --lake {shlex.quote(str(lake))}" if lake is not None else "")
    what = "sheet" if Path(path).suffix.lower() in SHEETS else "file"
    for pattern, fix in FIXES:
        found = pattern.search(reason)
        if found is not None:
            columns = (found.groupdict().get("columns") or "").split(", ")
            labels = ",".join(f"{c.strip()}=LABEL" for c in columns if c.strip())
            return fix.format(ingest=ingest, file=shlex.quote(path), map=labels)
    return DEFAULT_FIX.format(what=what, ingest=ingest, file=shlex.quote(path))


def quarantine(
    lake: Path | None = lake_option(),
    limit: int = typer.Option(50, "--limit", min=1, metavar="N", help=LIMIT_HELP),
    show_all: bool = typer.Option(False, "--all", help=ALL_HELP),
    as_json: bool = json_option(lines=True),
) -> None:
    """List the quarantined records still to fix, each with the command that fixes it.

    A record is resolved once a later ofc ingest read its file again (the same path, or a file of the same name):
    its hand accepted, quarantined again (the new record is the open one), or no longer in the file. The open
    records come first, newest batch first; then the records the latest correction resolved, so that it shows it
    took (--all: every resolved record). The title counts them all. Each fix reads the file again with --replace:
    without it, ofc ingest skips a file whose bytes it has read before.
    """
    from ofc.pipeline.query.db import connect

    with connect(existing_lake(lake).snapshot()) as con:
        opened, resolved = con.execute(
            "SELECT count(*) FILTER (status = 'open'), count(*) FILTER (status = 'resolved') FROM quarantine_status"
        ).fetchone()
        cursor = con.execute(
            """
            SELECT * FROM quarantine_status
            WHERE status = 'open' OR $all OR resolved_by = (SELECT max(resolved_by) FROM quarantine_status)
            ORDER BY status = 'resolved', resolved_by DESC, batch DESC, source_file, line
            LIMIT $limit
            """,
            {"all": show_all, "limit": limit},
        )
        names = [d[0] for d in cursor.description]
        rows = [dict(zip(names, r, strict=True)) for r in cursor.fetchall()]
    for r in rows:
        r["fix"] = fix_for(r["reason"], r["source_file"], lake) if r["status"] == "open" else None
    if as_json:
        for r in rows:
            print_json(r)
        return
    shown_open = sum(r["status"] == "open" for r in rows)
    view = Table(
        "status",
        "batch",
        "file",
        "line",
        "hand",
        "reason",
        "fix",
        title=f"{opened:,} open, {resolved:,} resolved",
        title_justify="left",
        caption=_left_out(opened - shown_open, resolved - (len(rows) - shown_open), show_all),
        caption_justify="left",
    )
    for r in rows:
        is_open = r["status"] == "open"
        view.add_row(
            Text("open", "bold red") if is_open else Text.assemble(("resolved", "green"), "\n", (r["how"], "dim")),
            Text(r["batch"]),
            Text(r["source_file"]),
            str(r["line"]),
            Text(r["hand_id"] or ""),
            Text(r["reason"]),
            Text(r["fix"]) if is_open else Text(f"(by batch {r['resolved_by']})", "dim"),
        )
    out.print(view)
    fixes = Counter(r["fix"] for r in rows if r["fix"] is not None)
    if fixes:  # one line each, unwrapped, to paste: a table cell breaks a command across lines
        out.print("to fix them:", markup=False)
        for fix, n in fixes.items():
            out.print(f"  {fix}  ({n:,} record{'s' * (n != 1)})", markup=False, highlight=False, soft_wrap=True)


def _left_out(opened: int, resolved: int, show_all: bool) -> str | None:
    """What the table does not show, and how to see it."""
    said = []
    if opened:
        said.append(f"{opened:,} more open (--limit N shows more)")
    if resolved:
        said.append(f"{resolved:,} resolved not shown ({'--limit N' if show_all else '--all'} shows them)")
    return "; ".join(said) or None
