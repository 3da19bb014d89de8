"""One batch's tables written into staging, moved into place and made visible at once by its manifest."""

from __future__ import annotations

import os
import shutil
import threading
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Protocol

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from ofc.pipeline.atomic_files import folders_up_to, fsync
from ofc.pipeline.lake.file_layout import (
    LAKE_FORMAT,
    PARTITIONED,
    PLAIN_FILES,
    ROW_GROUP_ROWS,
    ROWS_PER_FILE,
    conform,
    file_schema,
    key_filter,
    partition_dir,
    writer_options,
)
from ofc.schemas.lake import TABLE_PARTITIONS, TABLES

__all__ = ["BatchWriter", "CommitsBatches"]


class CommitsBatches(Protocol):
    """What a batch writer needs of its lake (``pipeline.lake.store.Lake``)."""

    root: Path

    def write_manifest(self, manifest: dict[str, Any]) -> None: ...

    def committed(self, batch: str) -> bool: ...


@dataclass
class _OpenFile:
    writer: pq.ParquetWriter
    staged: Path
    final: Path
    rows: int = 0


@dataclass
class BatchWriter:
    """Writes one batch's tables into staging; ``commit`` makes them visible at once."""

    lake: CommitsBatches
    batch: str
    kind: str
    started_at: datetime
    _open: dict[tuple[str, str], _OpenFile] = field(default_factory=dict)
    _done: list[_OpenFile] = field(default_factory=list)
    _counter: int = 0
    _carried: dict[Path, str] = field(default_factory=dict)
    """Files written for an earlier batch (its rows less the hands removed): final path -> that batch."""
    _replaced: set[str] = field(default_factory=set)
    _moved: list[Path] = field(default_factory=list)
    """Files moved into place by a commit not yet written: what an abort then takes back."""
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)
    """Files are opened under it, so threads may write different tables at once (a rescore's two tables)."""
    part: str = ""
    """Set on a worker that writes part of the batch in another process (``handed``): its files' names carry it,
    so that no two workers name a file alike."""

    @property
    def staging(self) -> Path:
        return self.lake.root / "_staging" / self.batch

    def write(self, table: str, data: pa.Table) -> None:
        """Append rows to ``table``; partitioned tables are split by their partition columns.

        Most chunks hold one partition, which the range of each partition column's dictionary codes tells at
        once; the others are split by sorting small integer codes of the partition values rather than by
        comparing strings row by row.
        """
        if data.num_rows == 0:
            return
        parts = TABLE_PARTITIONS.get(table, ()) if table in PARTITIONED else ()
        body = conform(data, file_schema(table))
        if not parts:
            self._append(table, "", body)
            return
        encoded = []
        for k in parts:
            column = data.column(k).combine_chunks()
            encoded.append(column if pa.types.is_dictionary(column.type) else pc.dictionary_encode(column))
        dictionaries = [e.dictionary.to_pylist() for e in encoded]
        ranges = [pc.min_max(e.indices) for e in encoded]
        lows = [r["min"].as_py() for r in ranges]
        if all(lo is not None and lo == r["max"].as_py() for lo, r in zip(lows, ranges, strict=True)):
            # One partition, the usual case: no codes per row.
            values = {k: d[lo] for k, d, lo in zip(parts, dictionaries, lows, strict=True)}
            self._append(table, partition_dir(values, parts), body)
            return
        codes = np.zeros(data.num_rows, dtype=np.int64)
        for e, d in zip(encoded, dictionaries, strict=True):
            codes = codes * len(d) + e.indices.to_numpy(zero_copy_only=False)
        present = np.unique(codes)

        def directory(code: int) -> str:
            values = {}
            for k, dictionary in zip(reversed(parts), reversed(dictionaries), strict=True):
                code, i = divmod(code, len(dictionary))
                values[k] = dictionary[i]
            return partition_dir(values, parts)

        if present.size == 1:
            self._append(table, directory(int(present[0])), body)
            return
        order = np.argsort(codes, kind="stable")
        bounds = np.searchsorted(codes[order], present)
        for code, a, b in zip(present.tolist(), bounds.tolist(), [*bounds[1:].tolist(), codes.size], strict=True):
            self._append(table, directory(code), body.take(pa.array(order[a:b])))

    def _append(self, table: str, partition: str, data: pa.Table) -> None:
        slot = (table, partition)
        with self._lock:
            f = self._open.get(slot)
            if f is not None and f.rows >= ROWS_PER_FILE:
                f.writer.close()
                self._done.append(self._open.pop(slot))
                f = None
            if f is None:
                self._counter += 1
                part = f"-{self.part}" if self.part else ""
                name = f"{self.batch}{part}-{self._counter:04d}.parquet"
                relative = Path(table) / partition / name if partition else Path(table) / name
                staged = self.staging / relative
                staged.parent.mkdir(parents=True, exist_ok=True)
                options = writer_options(table, data.schema) | key_filter(table, data)
                store = table not in PLAIN_FILES
                writer = pq.ParquetWriter(staged, data.schema, store_schema=store, **options)
                f = self._open[slot] = _OpenFile(writer, staged, self.lake.root / relative)
        f.writer.write_table(data, row_group_size=ROW_GROUP_ROWS)
        f.rows += data.num_rows

    def carry(self, relative: str, data: pa.Table, batch: str) -> None:
        """Replace the committed file ``relative`` of ``batch`` by ``data`` (its rows less some hands), at commit.

        The new file keeps its partition and stays the earlier batch's (the manifest's ``carries``); the old one is
        hidden by ``replaces`` and deleted only by a vacuum, so a reader that listed it still reads it whole.
        """
        self.hide([relative])
        if data.num_rows == 0:
            return
        table, *_ = relative.split("/")
        with self._lock:
            # Named after the file it replaces, so that it sorts where that file did: a partition's hands and
            # boards are read as two streams in the same order, file after file.
            old = Path(relative)
            new = old.parent / f"{old.name.split('.', 1)[0]}.{self.batch}.parquet"
            staged = self.staging / new
            staged.parent.mkdir(parents=True, exist_ok=True)
            body = conform(data, file_schema(table))
            options = writer_options(table, body.schema) | key_filter(table, body)
            with pq.ParquetWriter(staged, body.schema, store_schema=table not in PLAIN_FILES, **options) as w:
                w.write_table(body, row_group_size=ROW_GROUP_ROWS)
            done = _OpenFile(None, staged, self.lake.root / new, body.num_rows)  # type: ignore[arg-type]
            self._done.append(done)
            self._carried[done.final] = batch

    def hide(self, relative: list[str]) -> None:
        """Hide committed files from readers at commit (``replaces``); a vacuum deletes them later."""
        with self._lock:
            self._replaced.update(relative)

    def commit(
        self, summary: dict[str, Any], sources: list[dict[str, Any]], extra: dict[str, Any] | None = None
    ) -> dict[str, Any]:
        """Close every file, move it into place, then write the manifest: the batch's commit point.

        ``extra`` adds keys to the manifest: a rescore's ``covers`` and the ``replaces`` that hide older files.
        """
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
        for f in files:  # durable before they are renamed into place, and the folders after
            fsync(f.staged)
        for f in files:
            f.final.parent.mkdir(parents=True, exist_ok=True)
            self._moved.append(f.final)  # first: an interrupt right after the move must find it listed
            os.replace(f.staged, f.final)
        for d in {p for f in files for p in folders_up_to(f.final, self.lake.root)}:
            fsync(d)
        root = self.lake.root
        extra = dict(extra or {})
        replaces = sorted({*extra.pop("replaces", ()), *self._replaced})
        carries = {str(p.relative_to(root)): b for p, b in sorted(self._carried.items())}
        manifest = {
            "lake_format": LAKE_FORMAT,
            "batch": self.batch,
            "kind": self.kind,
            "started_at": self.started_at.isoformat(),
            "finished_at": finished.isoformat(),
            "files": sorted(str(f.final.relative_to(root)) for f in files),
            "sources": sources,
            "summary": summary,
            **extra,
            **({"replaces": replaces} if replaces else {}),
            **({"carries": carries} if carries else {}),
        }
        self.lake.write_manifest(manifest)
        self._moved.clear()
        shutil.rmtree(self.staging, ignore_errors=True)
        return manifest

    def handed(self) -> list[dict[str, Any]]:
        """A worker's part of the batch, its files closed in staging, for the batch's own writer to ``adopt``:
        each as its staged and final paths (relative to the lake) and its rows."""
        with self._lock:
            for f in self._open.values():
                f.writer.close()
            self._done.extend(self._open.values())
            self._open.clear()
            root = self.lake.root
            done, self._done = self._done, []
        return [
            {"staged": str(f.staged.relative_to(root)), "final": str(f.final.relative_to(root)), "rows": f.rows}
            for f in done
        ]

    def adopt(self, files: list[dict[str, Any]]) -> None:
        """Take files a worker wrote into this batch's staging (``handed``): the commit moves them into place."""
        root = self.lake.root
        with self._lock:
            for f in files:
                self._done.append(_OpenFile(None, root / f["staged"], root / f["final"], int(f["rows"])))  # type: ignore[arg-type]

    def abort(self) -> None:
        """Throw the batch away, staging and all; an interrupted commit is taken back, unless its manifest was
        written (then the batch stands, committed)."""
        with self._lock:  # not while a write is in a file about to be closed
            for f in self._open.values():
                f.writer.close()
            self._open.clear()
            if self._moved and not self.lake.committed(self.batch):
                for path in self._moved:
                    path.unlink(missing_ok=True)
            self._moved.clear()
            shutil.rmtree(self.staging, ignore_errors=True)
