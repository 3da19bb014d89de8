"""``ofc rules``: list, show and validate rule sets."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import typer
from rich.table import Table
from rich.text import Text

from ofc.pipeline.cli.console import EXIT_FAILED, err, out, print_json
from ofc.pipeline.cli.options import json_option
from ofc.pipeline.cli.options import load_rules as load

if TYPE_CHECKING:
    from ofc.schemas.rules import RuleSet

app = typer.Typer(help="Rule sets: the presets, and checking house rule files.", no_args_is_help=True)


@app.command("list")
def list_rules(as_json: bool = json_option()) -> None:
    """List the preset rule sets."""
    from ofc.pipeline.rules.files import preset_names

    presets = [load(name) for name in preset_names()]
    rows = [
        {"name": r.name, "variant": r.game.variant.value, "key": r.key, "description": r.description} for r in presets
    ]
    if as_json:
        print_json(rows)
        return
    table = Table("name", "variant", "key", "description")
    for r in rows:
        table.add_row(r["name"], r["variant"], r["key"], r["description"])
    out.print(table)


@app.command("show")
def show(
    name: str = typer.Argument(..., metavar="RULES", help="A preset name or a rule file (.toml).", show_default=False),
    resolved: bool = typer.Option(False, "--resolved", help="Print every field after 'extends', as JSON."),
    as_json: bool = json_option(),
) -> None:
    """Print a rule set's TOML (or, with --resolved, the complete rule set it means).

    With --json: its file, key, TOML text and the complete rule set, as one JSON document.
    """
    from ofc.pipeline.rules.files import resolve_path

    rules: RuleSet = load(name)
    path = resolve_path(name)
    text = path.read_text(encoding="utf-8")
    every = {"key": rules.key, **rules.model_dump(mode="json")}
    if as_json:
        print_json({"name": rules.name, "file": str(path), "key": rules.key, "toml": text, "resolved": every})
    elif resolved:
        print_json(every)
    else:
        out.print(text, markup=False, highlight=False, end="")


@app.command("validate")
def validate(
    files: list[Path] = typer.Argument(
        ..., metavar="RULES...", help="Rule files (.toml) or preset names to check.", show_default=False
    ),
    as_json: bool = json_option(),
) -> None:
    """Check rule files: every problem is named by its TOML path. Exit 1 if any file is invalid."""
    from ofc.pipeline.rules.files import RuleSetError, load_rules

    results = []
    for path in files:
        try:
            rules = load_rules(path)
            results.append({"file": str(path), "valid": True, "key": rules.key, "problems": []})
        except RuleSetError as exc:
            problems = [{"path": p, "message": m} for p, m in exc.problems]
            results.append({"file": str(path), "valid": False, "key": None, "problems": problems})
    if as_json:
        print_json(results)
    else:
        for r in results:
            if r["valid"]:
                out.print(Text.assemble(("ok", "green"), f" {r['file']}: {r['key']}"))
            else:
                err.print(Text.assemble(("invalid", "bold red"), f" {r['file']}"))
                for p in r["problems"]:
                    err.print(f"  {p['path'] or '(file)'}: {p['message']}", markup=False)
    if not all(r["valid"] for r in results):
        raise typer.Exit(EXIT_FAILED)
