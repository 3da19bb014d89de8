"""Reading hand histories (canonical JSONL, poker-arena logs, scoresheets) into the lake as one batch."""

from pipeline.ingest.formats import FORMATS
from pipeline.ingest.inputs import IngestError
from pipeline.ingest.run import IngestReport, ingest, ingest_chunks

__all__ = [
    "FORMATS",
    "IngestError",
    "IngestReport",
    "ingest",
    "ingest_chunks",
]
