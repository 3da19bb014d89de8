"""The formats ofc reads, each by its own module's ingester, and the format of a file found from its first bytes."""

from __future__ import annotations

import importlib
from collections.abc import Mapping

from ofc.pipeline.ingest.base import Ingester
from ofc.pipeline.ingest.inputs import IngestError, Source

__all__ = ["FORMATS", "SNIFF_BYTES", "SNIFF_ORDER", "detect", "ingester", "reader_for", "sniff"]

FORMATS = ("jsonl", "poker-arena", "scoresheet", "workbook", "fpdb")
_MODULES = {
    "jsonl": "ofc.pipeline.ingest.jsonl",
    "poker-arena": "ofc.pipeline.ingest.poker_arena",
    "scoresheet": "ofc.pipeline.ingest.scoresheet",
    "workbook": "ofc.pipeline.ingest.workbook",
    "fpdb": "ofc.pipeline.ingest.fpdb",
}
SNIFF_ORDER = ("fpdb", "jsonl", "poker-arena", "scoresheet", "workbook")
"""The order formats are tried on a file's first bytes: the narrower first (an fpdb capture would pass for a
canonical record, which any object with a hand id and players does)."""
SNIFF_BYTES = 1 << 16


def ingester(name: str) -> Ingester:
    if name not in _MODULES:
        raise IngestError(f"unknown format {name!r} (known: {', '.join(FORMATS)})")
    return importlib.import_module(_MODULES[name]).INGESTER  # type: ignore[no-any-return]


def reader_for(name: str, readers: Mapping[str, Ingester] | None = None) -> Ingester:
    """The reader of a format: one given for this run (a scoresheet reader with a ``--map``), else the usual."""
    return (readers or {}).get(name) or ingester(name)


def sniff(head: bytes, readers: Mapping[str, Ingester] | None = None) -> str | None:
    """The format whose ingester recognises these first bytes, if one does."""
    return next((name for name in SNIFF_ORDER if reader_for(name, readers).sniff(head)), None)


def detect(source: Source, readers: Mapping[str, Ingester] | None = None) -> str:
    """The format of a source, from its first bytes."""
    with source.open() as fh:
        head = fh.read(SNIFF_BYTES)
    if not head.strip():
        raise IngestError(f"{source.name}: empty file (no records)")
    found = sniff(head, readers)
    if found is not None:
        return found
    raise IngestError(f"{source.name}: format not recognised (use --format: {', '.join(FORMATS)})")
