"""The options several commands take, declared once so that each reads and is explained the same everywhere:
``--lake DIR``, ``-r/--rules RULES``, ``--json``, ``-o/--out FILE``, ``-f/--format FORMAT``, ``--variant``,
``--since``, ``--until``, ``--player NAME``, ``--seed N`` and ``--rollouts N``; and the lake and rule sets they
name, opened with the errors every command gives. Where a command's use differs (whom ``--player`` picks, what
``--seed`` makes the same), its help says so; the name, its value's name and its bounds are the same."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from ofc.pipeline.cli.console import err
from ofc.pipeline.errors import LakeError, RulesError
from ofc.pipeline.paths import CHECKOUT, default_lake

if TYPE_CHECKING:
    from ofc.pipeline.lake.store import Lake
    from ofc.schemas.rules import RuleSet

RULES_HELP = "Preset name or rule file (.toml); repeat for several."
JSON_HELP = "Machine output: what the command prints, as one JSON document."
JSON_LINES_HELP = "Machine output: what the command prints, as JSON lines (one object a line)."
FORMATS = ("jsonl", "poker-arena", "scoresheet", "workbook", "fpdb")
FORMAT_HELP = f"Read the input as {', '.join(FORMATS[:-1])} or {FORMATS[-1]} (default: detected from the content)."


def default_lake_said() -> str:
    """The default lake as a user needs it said: the folder itself, and why it is that one (a checkout's
    ``data/lake`` whatever the current folder; an installed ``ofc``'s in the current folder)."""
    if os.environ.get("OFC_LAKE"):
        why = "from $OFC_LAKE"
    else:
        why = "this checkout's data/lake" if CHECKOUT else "data/lake in the current folder"
    return f"{default_lake()} ({why})"


def lake_option(help: str | None = None) -> Any:
    """``--lake DIR``, whose help names the folder the default is."""
    said = help or f"Lake directory. Default: {default_lake_said()}; set OFC_LAKE for another."
    return typer.Option(None, "--lake", metavar="DIR", help=said, show_default=False)


def variant_option() -> Any:
    """``--variant VARIANT``: only hands of this variant."""
    return typer.Option(
        None, "--variant", metavar="VARIANT", help="Only this variant, e.g. pineapple.", show_default=False
    )


def player_option(help: str) -> Any:
    """``--player NAME``: one player, in any case."""
    return typer.Option(None, "--player", metavar="NAME", help=help, show_default=False)


def seed_option(default: int, help: str) -> Any:
    """``--seed N``: the same seed gives the same result."""
    return typer.Option(default, "--seed", metavar="N", min=0, help=help)


def rollouts_option(default: int | None, help: str) -> Any:
    """``--rollouts N``: Monte-Carlo rollouts of each move weighed (two at least: one tells nothing of the spread)."""
    return typer.Option(default, "--rollouts", metavar="N", min=2, help=help, show_default=default is not None)


def _day_option(name: str, side: str) -> Any:
    """``--NAME DAY``: only hands played on ``side`` of this day, the day included (read with
    ``console.parse_day``)."""
    return typer.Option(
        None,
        f"--{name}",
        metavar="DAY",
        help=f"Only hands played on or {side} this day (YYYY-MM-DD, UTC).",
        show_default=False,
    )


def since_option() -> Any:
    """``--since DAY``: only hands played on or after this day."""
    return _day_option("since", "after")


def until_option() -> Any:
    """``--until DAY``: only hands played on or before this day, the whole day."""
    return _day_option("until", "before")


def json_option(lines: bool = False) -> Any:
    return typer.Option(False, "--json", help=JSON_LINES_HELP if lines else JSON_HELP)


def rules_option(help: str = RULES_HELP, default: list[str] | None = None) -> Any:
    return typer.Option(default, "--rules", "-r", metavar="RULES", help=help, show_default=default is not None)


def out_option(help: str) -> Any:
    return typer.Option(None, "--out", "-o", metavar="FILE", help=help, show_default=False)


def format_option() -> Any:
    return typer.Option(None, "--format", "-f", metavar="FORMAT", help=FORMAT_HELP, show_default=False)


MAP_HELP = (
    "A scoresheet's own column names (CSV or workbook): COLUMN=LABEL[,COLUMN=LABEL...] (player=Spieler,top=Vorne) "
    "or a .toml file with a table named columns. The usual names and their common variants (Front, Name, Hand #, "
    "Score ...) are read without it."
)
SHEET_HELP = "Read only this sheet of an Excel workbook (default: every sheet); repeat for several."


def map_option() -> Any:
    return typer.Option(None, "--map", metavar="MAP", help=MAP_HELP, show_default=False)


def sheet_option() -> Any:
    """``--sheet NAME``, repeatable: the workbook sheets to read."""
    return typer.Option(None, "--sheet", metavar="NAME", help=SHEET_HELP, show_default=False)


def readers_of(spec: str | None, sheets: list[str] | None = None) -> dict[str, Any] | None:
    """The readers a ``--map`` and ``--sheet`` ask for: scoresheet and workbook readers that know the file's own
    column names, and the sheets to read."""
    if spec is None and not sheets:
        return None
    from ofc.pipeline.ingest import scoresheet, workbook

    mapped = column_map(spec) if spec is not None else {}
    return {
        "scoresheet": scoresheet.INGESTER.with_columns(mapped),
        "workbook": workbook.INGESTER.with_columns(mapped).with_sheets(sheets or ()),
    }


def column_map(spec: str) -> dict[str, str]:
    """The columns a ``--map`` names (read when it is given: the scoresheet module is not loaded otherwise)."""
    from ofc.pipeline.ingest.scoresheet import column_map

    return column_map(spec)


ENGINES = ("local", "ray")
ADDRESS_HELP = "With --engine ray: the cluster to join (ray://host:10001, or auto on a cluster's node)."


def engine_option(help: str) -> Any:
    return typer.Option("local", "--engine", metavar="ENGINE", help=help)


def address_option() -> Any:
    return typer.Option(None, "--address", metavar="ADDR", help=ADDRESS_HELP, show_default=False)


def check_engine(engine: str, address: str | None) -> None:
    """``--engine`` names an engine, and ``--address`` comes only with Ray's."""
    from ofc.pipeline.errors import InputError
    from ofc.pipeline.suggest import closest, did_you_mean

    if engine not in ENGINES:
        hint = did_you_mean(closest(engine, list(ENGINES)))
        raise InputError(f"--engine: no engine {engine!r}{hint} (engines: {', '.join(ENGINES)})")
    if address is not None and engine != "ray":
        raise InputError("--address: only with --engine ray")


def check_variant(variant: str | None) -> None:
    """``--variant`` names a variant (none given: every variant): checked before any work, with the closest."""
    from ofc.pipeline.errors import InputError
    from ofc.pipeline.suggest import no_such
    from ofc.schemas.rules import Variant

    known = [v.value for v in Variant]
    if variant is not None and variant not in known:
        raise InputError(f"--variant: {no_such('variant', variant, known)}")


def lake_at(path: Path | None) -> Lake:
    """The lake a command writes to: ``--lake``, else the default, said first on stderr (which folder it is is
    not obvious from a checkout); made on its first commit."""
    from ofc.pipeline.lake.store import Lake

    if path is None:
        err.print(f"lake: {default_lake_said()}; --lake DIR for another", markup=False, highlight=False)
    return Lake(path or default_lake())


def existing_lake(path: Path | None) -> Lake:
    """The lake a command reads: it must exist (a misspelt folder is an error, not an empty lake)."""
    lake = lake_at(path)
    if not lake.exists():
        raise LakeError(f"{lake.root}: not a lake (ofc ingest creates one)")
    return lake


def load_rules(name_or_path: str | Path) -> RuleSet:
    """A preset or rule file; one that cannot be used is a usage error in one line naming the file and each
    problem by its TOML path."""
    from ofc.pipeline.rules.files import RuleSetError
    from ofc.pipeline.rules.files import load_rules as load

    try:
        return load(name_or_path)
    except RuleSetError as exc:
        problems = "; ".join(f"{path}: {msg}" if path else msg for path, msg in exc.problems)
        raise RulesError(f"{exc.source}: {problems}".replace("\n", " ")) from None
