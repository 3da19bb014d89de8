"""``ofc report``: one self-contained HTML file (or ``--json``: the numbers) answering the usual questions."""

from __future__ import annotations

import sys
from datetime import date
from pathlib import Path

import typer

from pipeline.cli.console import EXIT_USAGE, err, fail, interrupts
from pipeline.cli.ingest import lake_option
from pipeline.files import written
from pipeline.paths import default_lake


def _day(text: str | None) -> date | None:
    if text is None:
        return None
    try:
        return date.fromisoformat(text.strip())
    except ValueError:
        fail(f"--since takes a day, YYYY-MM-DD, got {text!r}", EXIT_USAGE)


def report(
    out: Path | None = typer.Option(None, "--out", "-o", help="Where to write the report (HTML; JSON with --json)."),
    lake: Path | None = lake_option(),
    player: str | None = typer.Option(None, "--player", help="Report on this player.", show_default=False),
    variant: str | None = typer.Option(
        None, "--variant", help="Only this variant, e.g. pineapple.", show_default=False
    ),
    rules: list[str] | None = typer.Option(
        None,
        "--rules",
        "-r",
        help="Read every hand as if played under this rule set (name or name@key) and compare it with the hands as "
        "played; repeat to compare several, the first leads. Default: each hand under its own rules, compared with "
        "every rule set the lake was rescored under.",
        show_default=False,
    ),
    since: str | None = typer.Option(None, "--since", help="Only hands played on or after this day (YYYY-MM-DD, UTC)."),
    as_json: bool = typer.Option(
        False, "--json", help="Write the numbers as JSON instead of HTML (stdout without --out)."
    ),
) -> None:
    """Write a report: results, foul rate, royalties, Fantasyland and scoring variants.

    The HTML file holds everything it needs (plotly.js included): it opens offline in any browser. Every
    figure reads each hand under the rules it was played by, unless --rules asks for another rule set.
    """
    with interrupts("no report was written; the lake is as it was"):
        _report(out, lake, player, variant, tuple(rules or ()), since, as_json)


def _report(
    out: Path | None,
    lake: Path | None,
    player: str | None,
    variant: str | None,
    rules: tuple[str, ...],
    since: str | None,
    as_json: bool,
) -> None:
    from pipeline.lake.store import Lake
    from reports.html import render
    from reports.report import Options, build

    if out is None and not as_json:
        fail("--out FILE is needed for the HTML report (or --json for the numbers)", EXIT_USAGE)
    store = Lake(lake or default_lake())
    if not store.exists():
        fail(f"{store.root}: not a lake (ofc ingest creates one)", EXIT_USAGE)
    options = Options(player=player, variant=variant, rules=rules, since=_day(since))
    result = build(store, options)
    if as_json:
        import json

        text = json.dumps(result.data(), ensure_ascii=False, default=str)
        if out is None:
            sys.stdout.write(text + "\n")
        else:
            with written(out) as stream:
                stream.write((text + "\n").encode("utf-8"))
        return
    with written(out) as stream:
        stream.write(render(result).encode("utf-8"))
    err.print(f"wrote {out} ({out.stat().st_size / 1e6:.1f} MB)")
    for note in result.notes:
        err.print(note)
    if len(result.sections) == 1:
        err.print("the lake has no results yet: ofc rescore writes them (the report shows the overview only)")
