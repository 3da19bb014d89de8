"""The Parquet lake: batches written to staging and committed by a manifest, read through snapshots."""

from ofc.pipeline.errors import LakeError
from ofc.pipeline.lake.batch_writer import BatchWriter
from ofc.pipeline.lake.edit import EditError, remove, vacuum
from ofc.pipeline.lake.snapshot import Snapshot
from ofc.pipeline.lake.store import Lake, committed_batches

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
