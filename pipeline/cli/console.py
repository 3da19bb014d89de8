"""Terminal output and error handling shared by every command.

Exit codes: 0 success; 1 the command ran but failed (or an internal error);
2 bad usage or input that cannot be used at all.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, NoReturn

import typer
from rich.console import Console
from rich.progress import BarColumn, DownloadColumn, Progress, TextColumn, TimeElapsedColumn, TransferSpeedColumn

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_USAGE = 2

# Piped output is read by people in logs and files: do not squeeze it to 80 columns.
out = Console(highlight=False, soft_wrap=True, width=None if sys.stdout.isatty() else 160)
err = Console(stderr=True, highlight=False, soft_wrap=True, width=None if sys.stderr.isatty() else 160)


def fail(message: str, code: int = EXIT_FAILED) -> NoReturn:
    """Print ``error: message`` on stderr and leave with ``code``."""
    err.print(f"[bold red]error:[/] {message}", markup=True)
    raise typer.Exit(code)


@contextmanager
def user_errors() -> Iterator[None]:
    """Turn the errors a user can cause into one readable line and exit code 2."""
    from pipeline.cards import CardParseError
    from pipeline.evaluate import InvalidRowError

    try:
        yield
    except (CardParseError, InvalidRowError, FileNotFoundError) as exc:
        fail(str(exc), EXIT_USAGE)


def byte_progress() -> Progress:
    """The progress bar of commands that read files: bytes done, speed, hands so far (stderr, terminals only)."""
    return Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        DownloadColumn(),
        TransferSpeedColumn(),
        TextColumn("{task.fields[hands]:,} hands"),
        TimeElapsedColumn(),
        console=err,
        transient=True,
        disable=not err.is_terminal,
    )


def print_json(data: Any) -> None:
    """Machine output: one JSON document on stdout, nothing else."""
    sys.stdout.write(json.dumps(data, ensure_ascii=False) + "\n")


def debugging() -> bool:
    return os.environ.get("OFC_DEBUG", "") not in ("", "0")
