"""``ofc rules``: list, show and validate rule sets."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import typer
from rich.table import Table

from pipeline.cli.console import EXIT_FAILED, EXIT_USAGE, err, fail, out, print_json

if TYPE_CHECKING:
    from schemas.rules import RuleSet

app = typer.Typer(help="Rule sets: the presets, and checking house rule files.", no_args_is_help=True)


def load(name_or_path: str) -> RuleSet:
    """A rule set for the command line: an unusable one is a usage error, never a traceback."""
    from pipeline.rule_files import RuleSetError, load_rules

    try:
        return load_rules(name_or_path)
    except RuleSetError as exc:
        fail(str(exc), EXIT_USAGE)


@app.command("list")
def list_rules(as_json: bool = typer.Option(False, "--json", help="Print JSON.")) -> None:
    """List the preset rule sets."""
    from pipeline.rule_files import preset_names

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
    name: str = typer.Argument(..., help="A preset name or a rule file."),
    resolved: bool = typer.Option(False, "--resolved", help="Print every field after 'extends', as JSON."),
) -> None:
    """Print a rule set's TOML (or, with --resolved, the complete rule set it means)."""
    from pipeline.rule_files import resolve_path

    rules = load(name)
    if resolved:
        print_json({"key": rules.key, **rules.model_dump(mode="json")})
        return
    out.print(resolve_path(name).read_text(encoding="utf-8"), markup=False, highlight=False, end="")


@app.command("validate")
def validate(
    files: list[Path] = typer.Argument(..., help="Rule files to check."),
    as_json: bool = typer.Option(False, "--json", help="Print JSON."),
) -> None:
    """Check rule files: every problem is named by its TOML path. Exit 1 if any file is invalid."""
    from pipeline.rule_files import RuleSetError, load_rules

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
                out.print(f"[green]ok[/] {r['file']}: {r['key']}")
            else:
                err.print(f"[bold red]invalid[/] {r['file']}")
                for p in r["problems"]:
                    err.print(f"  {p['path'] or '(file)'}: {p['message']}", markup=False)
    if not all(r["valid"] for r in results):
        raise typer.Exit(EXIT_FAILED)
