"""``ofc lake``: the batches a lake holds, removing one, deleting what nothing can read, listing committed files."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer
from rich.table import Table

from ofc.pipeline.cli.console import EXIT_USAGE, fail, out, print_json
from ofc.pipeline.cli.options import existing_lake, json_option, lake_option

app = typer.Typer(
    help="The lake's batches: list them (the default), remove one, vacuum, list a table's committed files.",
    invoke_without_command=True,
)


def _rows(manifests: list[dict[str, Any]]) -> list[dict[str, Any]]:
    hidden = {f for m in manifests for f in m.get("replaces", ())}
    carried = {b for m in manifests for f, b in m.get("carries", {}).items() if f not in hidden}
    rows = []
    for m in manifests:
        summary = m.get("summary", {})
        sources = [s["path"] if isinstance(s, dict) else str(s) for s in m.get("sources", [])]
        own = [f for f in m["files"] if not f.startswith("batches/") and f not in m.get("carries", {})]
        removed = m.get("removed", {})
        corrections = m.get("corrections", {})
        rows.append(
            {
                "batch": m["batch"],
                "kind": m.get("kind", ""),
                "finished_at": m.get("finished_at", ""),
                "sources": sources,
                "read": summary.get("read", 0),
                "accepted": summary.get("accepted", 0),
                "quarantined": summary.get("quarantined", 0),
                "duplicates": summary.get("duplicates", 0),
                "replaced": corrections.get("replaced", 0),
                "removed": removed.get("hands", 0) + corrections.get("removed", 0),
                "removes": sorted(removed.get("batches", {})),
                "visible": m["batch"] in carried or (bool(own) and not all(f in hidden for f in own)),
            }
        )
    return rows


@app.callback()
def batches(
    ctx: typer.Context,
    lake: Path | None = lake_option(),
    as_json: bool = json_option(),
) -> None:
    """List the lake's batches, oldest first: what each read, accepted, replaced or removed, and when."""
    if ctx.invoked_subcommand is not None:
        ctx.obj = lake
        return
    rows = _rows(existing_lake(lake).manifests())
    if as_json:
        print_json(rows)
        return
    table = Table("batch", "kind", "finished", "sources", "read", "accepted", "quarantined", "duplicates", "edits")
    for r in rows:
        sources = r["sources"][0] if len(r["sources"]) == 1 else f"{len(r['sources'])} files" if r["sources"] else ""
        edits = []
        if r["replaced"]:
            edits.append(f"{r['replaced']:,} replaced")
        if r["removed"]:
            edits.append(f"{r['removed']:,} removed")
        if r["removes"]:
            edits.append("from " + ", ".join(r["removes"]))
        if not r["visible"] and r["kind"] != "remove":
            edits.append("removed since")
        table.add_row(
            r["batch"],
            r["kind"],
            r["finished_at"][:19].replace("T", " "),
            sources,
            f"{r['read']:,}",
            f"{r['accepted']:,}",
            f"{r['quarantined']:,}",
            f"{r['duplicates']:,}",
            "; ".join(edits),
        )
    out.print(table)


@app.command("remove")
def remove(
    ctx: typer.Context,
    batch: str | None = typer.Argument(
        None, metavar="BATCH", help="The batch to remove (see ofc lake).", show_default=False
    ),
    source: str | None = typer.Option(
        None, "--source", metavar="FILE", help="Remove every hand read from this file instead.", show_default=False
    ),
    lake: Path | None = lake_option(),
    as_json: bool = json_option(),
) -> None:
    """Remove a batch (or every hand read from one file) with its results, in one commit.

    The removal is recorded in the lake (ofc lake lists it). The files stay on disk, hidden, until
    ofc lake vacuum; the next ofc rescore scores what the batches affected still hold.
    """
    from ofc.pipeline.lake.edit import remove as remove_from

    if (batch is None) == (source is None):
        fail("name a batch, or give --source FILE (one of the two)", EXIT_USAGE)
    store = existing_lake(lake or ctx.obj)
    done = remove_from(store, batch=batch, source=source)
    if as_json:
        print_json(done)
        return
    what = f"batch {batch}" if batch else f"the hands read from {source}"
    out.print(f"removed {what}: {done['hands']:,} hands, with their results; recorded as batch {done['batch']}")


@app.command("vacuum")
def vacuum(
    ctx: typer.Context,
    wait: float = typer.Option(
        60.0, "--wait", min=0, metavar="SECONDS", help="Seconds to wait for processes reading the lake (0 or more)."
    ),
    lake: Path | None = lake_option(),
    as_json: bool = json_option(),
) -> None:
    """Delete the files no reader can see any more: replaced results, hands removed or corrected.

    Waits for processes that are reading the lake (a report, a query) to finish, since one may still hold such
    a file; exit 1 if they are still reading after --wait seconds.
    """
    from ofc.pipeline.lake.edit import vacuum as vacuum_lake
    from ofc.pipeline.lake.store import LakeError

    store = existing_lake(lake or ctx.obj)
    try:
        done = vacuum_lake(store, wait)
    except LakeError as exc:
        fail(str(exc))
    if as_json:
        print_json(done)
        return
    out.print(f"deleted {done['files']:,} hidden files ({done['bytes'] / 1e6:,.1f} MB)")


@app.command("files")
def files(
    ctx: typer.Context,
    table: str = typer.Argument(
        ...,
        metavar="TABLE",
        help="A table: hands, boards, placements, quarantine, board_results, ...",
        show_default=False,
    ),
    lake: Path | None = lake_option(),
    as_json: bool = json_option(),
) -> None:
    """List a table's committed files, one path a line: exactly what another tool (polars, DuckDB) should read.

    A glob of the table's folder may also match files of a batch being written, of a crashed writer, or
    files a later batch hid (replaced results, removed or corrected hands) that ofc lake vacuum has not yet
    deleted.
    """
    from ofc.pipeline.suggest import closest
    from ofc.schemas.lake import TABLES

    if table not in TABLES:
        near = closest(table, TABLES, cutoff=0.3) or list(TABLES)
        fail(f"no table {table!r}; closest: {', '.join(near)}", EXIT_USAGE)
    paths = [str(p) for p in existing_lake(lake or ctx.obj).snapshot().files(table)]
    if as_json:
        print_json(paths)
        return
    for p in paths:
        out.print(p, markup=False)
