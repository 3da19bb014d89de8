"""Reading hand histories (canonical JSONL, poker-arena logs, scoresheets) into the lake as one batch."""

from pipeline.ingest.run import FORMATS, IngestError, IngestReport, ingest, ingest_chunks

__all__ = [
    "FORMATS",
    "IngestError",
    "IngestReport",
    "ingest",
    "ingest_chunks",
]
