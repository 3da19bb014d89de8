"""Command-line interface (``ofc``)."""

from pipeline.cli.app import app, main

__all__ = ["app", "main"]
