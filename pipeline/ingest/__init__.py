"""Reading hand histories (canonical JSONL, poker-arena logs, scoresheets) into the lake as one batch."""

from ofc.pipeline.ingest.formats import FORMATS
from ofc.pipeline.ingest.ingest_run import IngestReport, ingest, ingest_chunks
from ofc.pipeline.ingest.inputs import IngestError

__all__ = [
    "FORMATS",
    "IngestError",
    "IngestReport",
    "ingest",
    "ingest_chunks",
]
