"""The Parquet lake: batches written to staging and committed by a manifest, read through snapshots."""

from pipeline.errors import LakeError
from pipeline.lake.batch_writer import BatchWriter
from pipeline.lake.edit import EditError, remove, vacuum
from pipeline.lake.snapshot import Snapshot
from pipeline.lake.store import Lake, committed_batches

__all__ = [
    "BatchWriter",
    "EditError",
    "Lake",
    "LakeError",
    "Snapshot",
    "committed_batches",
    "remove",
    "vacuum",
]
