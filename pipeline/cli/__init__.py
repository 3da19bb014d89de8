"""Command-line interface (``ofc``)."""

from pipeline.cli.app import app
from pipeline.cli.app import main as _main
from pipeline.cli.console import guarded, interruptible

__all__ = ["app", "main"]

interruptible(app)


def main() -> None:
    """Console entry point (``ofc``, ``python -m pipeline``): Ctrl-C ends any command in one line, exit 130."""
    guarded(_main)
