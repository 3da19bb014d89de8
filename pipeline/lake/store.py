"""The lake on disk: partitioned Parquet files, committed batch by batch by manifests.

Layout under the lake directory::

    hands/variant=pineapple/month=2026-11/<batch>-<n>.parquet   (also boards/, placements/)
    quarantine/<batch>-<n>.parquet
    batches/<batch>.parquet
    _manifests/<batch>.json      the commit: every file of the batch, its sources and counts
    _staging/<batch>/            files being written
    .lock                        held by the one writer at a time

A batch's files are written under ``_staging``, renamed into place, and the
batch becomes visible only when its manifest is renamed into ``_manifests``:
readers list files from manifests, never by globbing, so a crash at any
point leaves the lake readable with no partial batch in sight. The next
writer deletes what a crashed one left behind.
"""

from __future__ import annotations

import fcntl
import json
import os
import secrets
import shutil
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from ofc.pipeline.atomic_files import fsync
from ofc.pipeline.errors import LakeError
from ofc.pipeline.lake.batch_writer import BatchWriter
from ofc.pipeline.lake.file_layout import LAKE_FORMAT, RETIRED_TABLES
from ofc.pipeline.lake.leases import READ_LEASES, READERS
from ofc.pipeline.lake.snapshot import Snapshot
from ofc.schemas.lake import TABLE_PARTITIONS, TABLES

_COMMITS: list[str] = []
"""The batches this process committed, in order: what an interrupted command reports as done."""


def committed_batches() -> tuple[str, ...]:
    """The batches this process has committed so far, in any lake (a batch id is unique)."""
    return tuple(_COMMITS)


class Lake:
    """A lake directory: committed manifests are the truth about what it holds."""

    def __init__(self, root: Path | str) -> None:
        self.root = Path(root)

    @property
    def manifest_dir(self) -> Path:
        return self.root / "_manifests"

    def exists(self) -> bool:
        return self.manifest_dir.is_dir()

    def manifests(self) -> list[dict[str, Any]]:
        """Committed batches, oldest first."""
        if not self.exists():
            return []
        out = []
        for p in sorted(self.manifest_dir.glob("*.json")):
            try:
                manifest = json.loads(p.read_text(encoding="utf-8"))
            except (OSError, json.JSONDecodeError) as exc:
                raise LakeError(f"{p}: unreadable manifest ({exc})") from None
            if int(manifest.get("lake_format", 1)) > LAKE_FORMAT:
                raise LakeError(
                    f"{self.root}: written by a newer version of ofc (lake format {manifest['lake_format']}, this "
                    f"version reads up to {LAKE_FORMAT}); upgrade ofc-analytics to read it"
                )
            out.append(manifest)
        return out

    def ingested(self) -> dict[str, dict[str, Any]]:
        """The input files the committed batches read (``Snapshot.ingested``), for a writer about to ingest more:
        read without taking a lease."""
        return Snapshot(self.root, tuple(self.manifests())).ingested()

    def snapshot(self) -> Snapshot:
        """The lake as committed now: what every reader of one command reads through.

        The process takes a read lease on the lake first (kept until it exits), so that ``ofc lake vacuum`` never
        deletes a file this process may still read.
        """
        READ_LEASES.take(self.root)
        return Snapshot(self.root, tuple(self.manifests()))

    def release(self) -> None:
        """Give up this process's read lease: it will not read files of the snapshots it took so far again (a
        long-lived process between two reports; a script about to vacuum)."""
        READ_LEASES.release(self.root)

    @contextmanager
    def exclusive(self, wait: float) -> Iterator[None]:
        """No reader but this one (which must hold no lease): what deleting hidden files needs. Waits up to
        ``wait`` seconds for readers to finish, then raises LakeError."""
        if READ_LEASES.held(self.root):
            raise LakeError(f"{self.root}: this process reads the lake; it cannot wait for readers to finish")
        with (self.root / READERS).open("a") as fh:
            deadline = time.monotonic() + wait
            while True:
                try:
                    fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    break
                except BlockingIOError:
                    if time.monotonic() >= deadline:
                        raise LakeError(
                            f"{self.root}: other processes are reading the lake (a report, a query, a notebook); "
                            f"waited {wait:g} s: try again when they are done, or give --wait more seconds"
                        ) from None
                    time.sleep(0.1)
            try:
                yield
            finally:
                fcntl.flock(fh, fcntl.LOCK_UN)

    def files(self, table: str) -> list[Path]:
        """Committed files of ``table``, less those a later batch replaced (a forced rescore)."""
        return self.snapshot().files(table)

    def read(self, table: str, columns: list[str] | None = None) -> pa.Table:
        """A committed table (without hive partition columns), for small reads such as deduplication keys."""
        files = self.files(table)
        schema = TABLES[table]
        physical = pa.schema([f for f in schema if f.name not in TABLE_PARTITIONS.get(table, ())])
        if columns is not None:
            physical = pa.schema([physical.field(c) for c in columns])
        if not files:
            return physical.empty_table()
        return pa.concat_tables(pq.read_table(f, columns=physical.names, schema=physical) for f in files)

    def write_manifest(self, manifest: dict[str, Any]) -> None:
        self.manifest_dir.mkdir(parents=True, exist_ok=True)
        tmp = self.manifest_dir / f".{manifest['batch']}.json.tmp"
        with tmp.open("w", encoding="utf-8") as fh:
            json.dump(manifest, fh, indent=1)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, self.manifest_dir / f"{manifest['batch']}.json")
        _COMMITS.append(manifest["batch"])
        fsync(self.manifest_dir)

    def committed(self, batch: str) -> bool:
        """Whether ``batch`` is committed: its manifest is in place."""
        if (self.manifest_dir / f"{batch}.json").is_file():
            if batch not in _COMMITS:
                _COMMITS.append(batch)
            return True
        return False

    def collect_garbage(self) -> int:
        """Delete staging left by a crashed writer and files no manifest lists (a crash between moving files into
        place and writing the manifest). Files a later batch replaced stay: a reader may still hold them; only
        :meth:`vacuum` deletes them. Call with the lock held."""
        removed = 0
        staging = self.root / "_staging"
        if staging.is_dir():
            shutil.rmtree(staging)
            removed += 1
        for tmp in self.manifest_dir.glob(".*.tmp") if self.exists() else []:
            tmp.unlink()
        listed = {self.root / f for m in self.manifests() for f in m["files"]}
        for f in self._data_files():
            if f not in listed:
                f.unlink()
                removed += 1
        return removed

    def _data_files(self) -> Iterator[Path]:
        for table in (*TABLES, *RETIRED_TABLES):
            base = self.root / table
            if base.is_dir():
                yield from base.rglob("*.parquet")

    @contextmanager
    def locked(self) -> Iterator[None]:
        """One writer at a time: a second ingest waits for the first to finish.

        A writer that makes a new lake and commits nothing (interrupted, or refused) leaves no folder behind
        that a later command would take for an empty lake."""
        new = not self.exists()
        before = set(self.root.iterdir()) if self.root.is_dir() else None
        self.root.mkdir(parents=True, exist_ok=True)
        self.manifest_dir.mkdir(exist_ok=True)
        try:
            with (self.root / ".lock").open("a") as fh:
                fcntl.flock(fh, fcntl.LOCK_EX)
                try:
                    yield
                finally:
                    fcntl.flock(fh, fcntl.LOCK_UN)
        finally:
            if new and not any(self.manifest_dir.glob("*.json")):
                self._unmake(before)

    def _unmake(self, before: set[Path] | None) -> None:
        """Remove what making this lake put in its folder (``before``: what the folder held, None: no folder)."""
        READ_LEASES.release(self.root)
        if before is None:
            shutil.rmtree(self.root, ignore_errors=True)
            return
        for path in set(self.root.iterdir()) - before:
            if path.is_dir():
                shutil.rmtree(path, ignore_errors=True)
            else:
                path.unlink(missing_ok=True)

    def begin(self, kind: str) -> BatchWriter:
        now = datetime.now(UTC)
        batch = f"{now:%Y%m%dT%H%M%S%f}-{secrets.token_hex(3)}"  # sorts in time order
        return BatchWriter(self, batch, kind, now)
