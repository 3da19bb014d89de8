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
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from schemas.lake import PARTITIONS, TABLES

PARTITIONED = ("hands", "boards", "placements")
ROWS_PER_FILE = 4_000_000
COMPRESSION = "zstd"


class LakeError(RuntimeError):
    """The lake cannot be used: not a lake, locked, unwritable."""


def _fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _partition_dir(row: dict[str, Any]) -> str:
    return "/".join(f"{k}={row[k]}" for k in PARTITIONS)


@dataclass
class _OpenFile:
    writer: pq.ParquetWriter
    staged: Path
    final: Path
    rows: int = 0


@dataclass
class BatchWriter:
    """Writes one batch's tables into staging; ``commit`` makes them visible at once."""

    lake: Lake
    batch: str
    kind: str
    started_at: datetime
    _open: dict[tuple[str, str], _OpenFile] = field(default_factory=dict)
    _done: list[_OpenFile] = field(default_factory=list)
    _counter: int = 0

    @property
    def staging(self) -> Path:
        return self.lake.root / "_staging" / self.batch

    def write(self, table: str, data: pa.Table) -> None:
        """Append rows to ``table``; partitioned tables are split by variant and month."""
        if data.num_rows == 0:
            return
        schema = TABLES[table]
        data = data.select(schema.names).cast(schema)
        if table not in PARTITIONED:
            self._append(table, "", data)
            return
        keys = data.select(list(PARTITIONS)).group_by(list(PARTITIONS)).aggregate([]).to_pylist()
        if len(keys) == 1:
            self._append(table, _partition_dir(keys[0]), data.drop_columns(list(PARTITIONS)))
            return
        for key in keys:
            mask = pc.and_(*(pc.equal(data.column(k), key[k]) for k in PARTITIONS))
            self._append(table, _partition_dir(key), data.filter(mask).drop_columns(list(PARTITIONS)))

    def _append(self, table: str, partition: str, data: pa.Table) -> None:
        slot = (table, partition)
        f = self._open.get(slot)
        if f is not None and f.rows >= ROWS_PER_FILE:
            f.writer.close()
            self._done.append(self._open.pop(slot))
            f = None
        if f is None:
            self._counter += 1
            name = f"{self.batch}-{self._counter:04d}.parquet"
            relative = Path(table) / partition / name if partition else Path(table) / name
            staged = self.staging / relative
            staged.parent.mkdir(parents=True, exist_ok=True)
            writer = pq.ParquetWriter(staged, data.schema, compression=COMPRESSION)
            f = self._open[slot] = _OpenFile(writer, staged, self.lake.root / relative)
        f.writer.write_table(data, row_group_size=1 << 20)
        f.rows += data.num_rows

    def commit(self, summary: dict[str, Any], sources: list[dict[str, Any]]) -> dict[str, Any]:
        """Close every file, move it into place, then write the manifest: the batch's commit point."""
        finished = datetime.now(UTC)
        batch_row = {
            "batch": self.batch,
            "kind": self.kind,
            "started_at": self.started_at,
            "finished_at": finished,
            "sources": [s["path"] for s in sources],
            "records_read": summary["read"],
            "accepted": summary["accepted"],
            "quarantined": summary["quarantined"],
            "duplicates": summary["duplicates"],
            "version": summary.get("version", ""),
        }
        self._append("batches", "", pa.Table.from_pylist([batch_row], schema=TABLES["batches"]))
        files = [*self._done, *self._open.values()]
        for f in self._open.values():
            f.writer.close()
        self._open.clear()
        for f in files:
            f.final.parent.mkdir(parents=True, exist_ok=True)
            os.replace(f.staged, f.final)
        for d in {f.final.parent for f in files}:
            _fsync_dir(d)
        manifest = {
            "batch": self.batch,
            "kind": self.kind,
            "started_at": self.started_at.isoformat(),
            "finished_at": finished.isoformat(),
            "files": sorted(str(f.final.relative_to(self.lake.root)) for f in files),
            "sources": sources,
            "summary": summary,
        }
        self.lake.write_manifest(manifest)
        shutil.rmtree(self.staging, ignore_errors=True)
        return manifest

    def abort(self) -> None:
        for f in self._open.values():
            f.writer.close()
        self._open.clear()
        shutil.rmtree(self.staging, ignore_errors=True)


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
                out.append(json.loads(p.read_text(encoding="utf-8")))
            except (OSError, json.JSONDecodeError) as exc:
                raise LakeError(f"{p}: unreadable manifest ({exc})") from None
        return out

    def files(self, table: str) -> list[Path]:
        """Committed files of ``table``."""
        prefix = f"{table}/"
        return [self.root / f for m in self.manifests() for f in m["files"] if f.startswith(prefix)]

    def read(self, table: str, columns: list[str] | None = None) -> pa.Table:
        """A committed table (without hive partition columns), for small reads such as deduplication keys."""
        files = self.files(table)
        schema = TABLES[table]
        physical = pa.schema([f for f in schema if not (table in PARTITIONED and f.name in PARTITIONS)])
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
        _fsync_dir(self.manifest_dir)

    def collect_garbage(self) -> int:
        """Delete staging left by a crashed writer and files no manifest lists. Call with the lock held."""
        removed = 0
        staging = self.root / "_staging"
        if staging.is_dir():
            shutil.rmtree(staging)
            removed += 1
        for tmp in self.manifest_dir.glob(".*.tmp") if self.exists() else []:
            tmp.unlink()
        listed = {self.root / f for m in self.manifests() for f in m["files"]}
        for table in TABLES:
            base = self.root / table
            if base.is_dir():
                for f in base.rglob("*.parquet"):
                    if f not in listed:
                        f.unlink()
                        removed += 1
        return removed

    @contextmanager
    def locked(self) -> Iterator[None]:
        """One writer at a time: a second ingest waits for the first to finish."""
        self.root.mkdir(parents=True, exist_ok=True)
        self.manifest_dir.mkdir(exist_ok=True)
        with (self.root / ".lock").open("a") as fh:
            fcntl.flock(fh, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(fh, fcntl.LOCK_UN)

    def begin(self, kind: str) -> BatchWriter:
        now = datetime.now(UTC)
        batch = f"{now:%Y%m%dT%H%M%S%f}-{secrets.token_hex(3)}"  # sorts in time order
        return BatchWriter(self, batch, kind, now)
