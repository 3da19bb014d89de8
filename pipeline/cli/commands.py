"""The ``ofc`` command: one typer app, one module per command group.

Each command module imports at its top only what declaring its command takes (typer, rich, the options, the
console) and imports its work inside the command's function: the app then loads in about 0.1 s, and ``ofc
--help``, ``ofc CMD --help``, ``ofc --version`` and a usage error answer in about 0.2 s instead of 1.2 s, when the
modules loaded their work up front (polars, DuckDB, numba and the analysis: 0.9 s before typer read the command
line). tests/test_cli_startup.py keeps them so; tests/bench/bench_cli.py measures them.
"""

from __future__ import annotations

import typer

from ofc.pipeline import __version__
from ofc.pipeline.cli import (
    analyse,
    demo,
    evaluate,
    ingest,
    lake,
    quarantine,
    report,
    rescore,
    rules,
    score,
    serve,
    simulate,
    sql,
)
from ofc.pipeline.cli.console import debugging, err, interruptible, is_interrupt
from ofc.pipeline.cli.exits import EXIT_FAILED, exit_code
from ofc.pipeline.cli.help import plain_help
from ofc.pipeline.errors import OfcError

app = typer.Typer(
    name="ofc",
    help="Hand-history analytics for Chinese poker: classic, OFC, Pineapple and their variants.",
    no_args_is_help=True,
    add_completion=False,
    rich_markup_mode="rich",
    context_settings={"help_option_names": ["-h", "--help"]},
    pretty_exceptions_enable=False,
)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"ofc-analytics {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: bool = typer.Option(
        False, "--version", "-V", callback=_version, is_eager=True, help="Print the version and exit."
    ),
) -> None:
    """Hand-history analytics for Chinese poker."""


app.command("eval")(evaluate.eval_boards)
app.command("ingest")(ingest.ingest_paths)
app.command("validate")(ingest.validate_paths)
app.command("quarantine")(quarantine.quarantine)
app.command("sql")(sql.sql)
app.command("report")(report.report)
app.command("serve")(serve.serve)
app.command("score")(score.score_file)
app.command("rescore")(rescore.rescore)
app.command("simulate")(simulate.simulate)
app.command("analyse")(analyse.analyse)
app.add_typer(rules.app, name="rules")
app.add_typer(lake.app, name="lake")
app.command("demo")(demo.demo)
interruptible(app)
plain_help(app)


def main() -> None:
    """Console entry point: typer handles usage errors; an error ofc raises on purpose is one line with its exit
    code; anything unexpected is one line too, not a traceback."""
    try:
        app()
    except OfcError as exc:
        if debugging() or is_interrupt(exc):  # an error a library made of Ctrl-C: said as an interrupt
            raise
        err.print(f"[bold red]error:[/] {exc}", markup=True)
        raise SystemExit(exit_code(exc)) from None
    except Exception as exc:
        if debugging() or is_interrupt(exc):
            raise
        err.print(f"[bold red]internal error:[/] {type(exc).__name__}: {exc}", markup=True)
        err.print("Set OFC_DEBUG=1 to see the traceback.")
        raise SystemExit(EXIT_FAILED) from None
