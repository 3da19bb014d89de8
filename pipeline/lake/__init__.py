"""The Parquet lake: batches written to staging and committed by a manifest, read through snapshots."""

from pipeline.errors import LakeError
from pipeline.lake.edit import EditError, remove, vacuum
from pipeline.lake.snapshot import Snapshot
from pipeline.lake.store import BatchWriter, Lake, committed_batches

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
