"""``ofc report``: one self-contained HTML file (or ``--json``: the numbers) answering the usual questions."""

from __future__ import annotations

import sys
from pathlib import Path

import typer

from ofc.pipeline.atomic_files import written
from ofc.pipeline.cli.console import EXIT_USAGE, err, fail, interrupts, parse_day, user_errors
from ofc.pipeline.cli.options import (
    existing_lake,
    json_option,
    lake_option,
    out_option,
    player_option,
    rules_option,
    since_option,
    until_option,
    variant_option,
)


def report(
    out: Path | None = out_option("Where to write the report (HTML; JSON with --json). Folders are made."),
    lake: Path | None = lake_option(),
    player: str | None = player_option(
        "Report on this player only, and feature them (any case; an alias from the settings file works too). "
        "Default: every player, featuring OFC_PLAYER or the settings file's player, else the one with the most hands."
    ),
    variant: str | None = variant_option(),
    rules: list[str] | None = rules_option(
        "Read every hand as if played under this rule set (a name, name@key, or a rule file's path) and compare it "
        "with the hands as played; repeat to compare several, the first leads. Default: each hand under its own "
        "rules, compared with the latest version of every rule set the lake was rescored under."
    ),
    since: str | None = since_option(),
    until: str | None = until_option(),
    min_hands: int | None = typer.Option(
        None,
        "--min-hands",
        metavar="N",
        min=1,
        help="Leave players with fewer hands out of rankings and per-player charts (default: the settings file's "
        "min_hands, else a tenth of the busiest player's hands in each game, at most 100).",
        show_default=False,
    ),
    all_versions: bool = typer.Option(
        False, "--all-versions", help="Compare earlier versions of an edited rule set too, not only the latest."
    ),
    table_size: int | None = typer.Option(
        None, "--table-size", metavar="N", min=2, max=4, help="Only hands of N players.", show_default=False
    ),
    position: str | None = typer.Option(
        None,
        "--position",
        metavar="PLACE",
        help="Only boards at this place after the button: button, first, second or third (to act).",
        show_default=False,
    ),
    session: str | None = typer.Option(None, "--session", help="Only hands of this session.", show_default=False),
    opponent: str | None = typer.Option(
        None,
        "--opponent",
        metavar="NAME",
        help="Only hands this player sat in, and not their own boards: play against them.",
        show_default=False,
    ),
    fantasyland: bool | None = typer.Option(
        None,
        "--fantasyland/--normal-hands",
        help="Only boards played in Fantasyland, or only the others.",
        show_default=False,
    ),
    as_json: bool = json_option(),
) -> None:
    """Write a report: the featured player, results, foul rate, royalties, Fantasyland and scoring variants.

    The HTML file holds everything it needs (plotly.js included) and opens offline in any browser: tables sort,
    filter and save as CSV; listed hands open in a viewer. Every figure reads each hand under the rules it was
    played by, unless --rules asks for another rule set. Settings (your player name and aliases, the minimum of
    hands) can be set once in ofc.toml or ~/.config/ofc/config.toml; see docs/reports.md, "Settings".
    """
    with interrupts("no report was written; the lake is as it was"), user_errors():
        narrowing = (table_size, _place(position), session, opponent, fantasyland)
        _report(
            out, lake, player, variant, tuple(rules or ()), since, until, min_hands, all_versions, narrowing, as_json
        )


PLACES = ("button", "first", "second", "third")
"""``--position``'s words, by place after the button (0 the button, who acts last)."""


def _place(word: str | None) -> int | None:
    if word is None:
        return None
    said = word.strip().lower().removesuffix(" to act")
    if said not in PLACES:
        fail(f"--position: {word!r} is not one of {', '.join(PLACES)}", EXIT_USAGE)
    return PLACES.index(said)


def _report(
    out: Path | None,
    lake: Path | None,
    player: str | None,
    variant: str | None,
    rules: tuple[str, ...],
    since: str | None,
    until: str | None,
    min_hands: int | None,
    all_versions: bool,
    narrowing: tuple[int | None, int | None, str | None, str | None, bool | None],
    as_json: bool,
) -> None:
    from ofc.pipeline.config import load_config
    from ofc.pipeline.query.db import Narrowing
    from ofc.reports.html import render
    from ofc.reports.report import Options, build

    if out is None and not as_json:
        fail("--out FILE is needed for the HTML report (or --json for the numbers)", EXIT_USAGE)
    if player is not None and not player.strip():
        fail("--player takes a name; without it the report features the player with the most hands", EXIT_USAGE)
    store = existing_lake(lake)
    config = load_config()
    options = Options(
        player=config.canonical(player) if player else None,
        variant=variant,
        rules=rules,
        since=parse_day(since),
        until=parse_day(until, "--until"),
        min_hands=min_hands or config.min_hands,
        all_versions=all_versions,
        aliases=config.alias_map(),
        featured=config.canonical(config.player) if config.player else None,
        narrowing=Narrowing(
            *narrowing[:3], config.canonical(narrowing[3]) if narrowing[3] else None, fantasyland=narrowing[4]
        ),
    )
    result = build(store, options)
    if as_json:
        import json

        text = json.dumps(result.data(), ensure_ascii=False)
        if out is None:
            sys.stdout.write(text + "\n")
        else:
            with written(out) as stream:
                stream.write((text + "\n").encode("utf-8"))
        return
    assert out is not None
    with written(out) as stream:
        stream.write(render(result).encode("utf-8"))
    games = "; ".join(f"{g.title}, featuring {g.featured}" for g in result.games) or "no game"
    err.print(f"wrote {out} ({out.stat().st_size / 1e6:.1f} MB): {games}", markup=False)
    for note in result.notes:
        err.print(note)
    if len(result.sections) == 1 and result.games:
        err.print("the lake has no results yet: ofc rescore writes them (the report shows the overview only)")
