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
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from pipeline.errors import LakeError
from pipeline.lake.board_cards import card_bytes
from pipeline.lake.snapshot import Snapshot
from schemas.lake import CARDS13, PARTITIONS, TABLE_PARTITIONS, TABLES
from schemas.lake import RESULT_TABLES as RESULT_SCHEMAS

PARTITIONED = tuple(TABLE_PARTITIONS)
RESULT_TABLES = tuple(RESULT_SCHEMAS)
RETIRED_TABLES = ("player_results", "result_players")
"""Result tables of an older format: their files are deleted once a rescore has replaced them."""
ROWS_PER_FILE = 4_000_000
COMPRESSION = "zstd"
LAKE_FORMAT = 3
"""The lake's format, recorded in every manifest (``lake_format``; manifests without it are format 1). Format 2 adds
``carries`` (files rewritten for an earlier batch when hands are removed or replaced) and never deletes a file
but in a vacuum; format 3 stores each fact once: the result tables hold a board's or a pair's key and what the
rule set decides, and the views join them to the hands and boards (results of format 2 are scored again by
``ofc rescore``). A lake holding a newer format is refused: this version would misread it."""


def _folders(path: Path, root: Path) -> list[Path]:
    """The folders from ``path``'s up to ``root``: each one's new entry must reach the disk."""
    out = []
    for parent in path.parents:
        out.append(parent)
        if parent == root:
            break
    return out


def _fsync(path: Path) -> None:
    """Flush a file's data, or a folder's entries, to disk."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _partition_dir(row: dict[str, Any], columns: tuple[str, ...] = PARTITIONS) -> str:
    return "/".join(f"{k}={_folder_value(row[k])}" for k in columns)


def _folder_value(value: object) -> str:
    """A partition value as its folder names it: ``true`` / ``false`` for a flag, as readers parse it."""
    return str(value).lower() if isinstance(value, bool) else str(value)


def _writer_options(table: str, schema: pa.Schema) -> dict[str, Any]:
    """How a table's files are written.

    Statistics are kept only where a query may filter on a column's range: the hands' times, numbers and keys.
    Boards and placements are read whole or joined by hand key, whose values are hashes spread over the whole
    range in every row group, so their statistics would skip nothing and cost a third of the write.
    Columns whose values are all distinct (hand keys) or already tiny integers are not dictionary-encoded:
    hashing every value into a dictionary took as long as writing the rest (see ``_PLAIN``).
    Result tables are large and derived, so they are written for speed and for the reports that scan them:
    zstd, the 32-bit points and royalties delta-encoded (a quarter less to write than a dictionary, for 8% more
    bytes, and summed as fast), the hand keys delta-encoded too (a board's rows repeat its key: 40% fewer
    bytes than plain), every other column dictionary-encoded (read fastest: DuckDB groups by the
    codes) but those unique to a hand or a board (hand keys and ids, cards), and statistics on the small
    numbers, flags and times only (``_RANGED``)."""
    if table not in RESULT_TABLES:
        plain = _PLAIN.get(table, {})
        return {
            "compression": COMPRESSION,
            "write_statistics": table not in _NO_STATISTICS,
            "use_dictionary": [n for n in schema.names if n not in plain],
            "column_encoding": {n: e for n, e in plain.items() if e and n in schema.names},
        }
    counts = [f.name for f in schema if f.type == pa.int32()]
    ranged = [f.name for f in schema if f.type in _RANGED]
    return {
        "compression": COMPRESSION,
        "use_dictionary": [n for n in schema.names if n not in _UNIQUE_RESULT_COLUMNS and n not in counts],
        "column_encoding": dict.fromkeys([*counts, "hand_key"], "DELTA_BINARY_PACKED"),
        "write_statistics": ranged,
    }


_UNIQUE_RESULT_COLUMNS = frozenset({"hand_key", "hand_id", "cards"})
_RANGED = (pa.bool_(), pa.int8(), pa.timestamp("us", tz="UTC"))
"""Result columns written with their range (statistics): flags, small numbers a report groups by, times. With a
small known range DuckDB groups by an index instead of a hash (counting boards by table size and seat: 0.19 s
against 0.36 over 10 M hands); points and royalties are summed, not grouped by, and go without."""
_PLAIN: dict[str, dict[str, str | None]] = {
    "hands": {"hand_key": None, "content_hash": None, "record_hash": None},
    "boards": {"hand_key": None, "cards": None},
    "placements": {
        "hand_key": None,
        "seat": None,
        "order": None,
        "street": "DELTA_BINARY_PACKED",
        "card": "DELTA_BINARY_PACKED",
    },
}
"""Columns written without a dictionary, in plain encoding (None) or the one named: the fastest that kept the
files about as small, measured column by column (the placements' card: 0.53 µs a hand against 0.63)."""
_NO_STATISTICS = ("boards", "placements")
_PLAIN_FILES = ("hands", "placements")
"""Tables whose types Parquet round-trips without the stored Arrow schema (no fixed-size lists)."""
LOW_CARDINALITY = ("batch", "row", "source_file")
"""String columns repeated on every row of a batch: written from dictionary codes, never as millions of strings."""


@cache
def _file_schema(table: str) -> pa.Schema:
    """The Arrow schema of ``table``'s files: the table's, less its hive partition columns.

    Low-cardinality strings are dictionary-encoded in memory; Parquet stores them as strings either way,
    and files are written without the Arrow schema, so every reader sees plain strings.
    """
    parts = TABLE_PARTITIONS.get(table, ()) if table in PARTITIONED else ()
    fields = []
    for f in TABLES[table]:
        if f.name in parts:
            continue
        if f.name in LOW_CARDINALITY and f.type == pa.string() and table in _PLAIN_FILES:
            f = f.with_type(pa.dictionary(pa.int32(), pa.string()))
        fields.append(f)
    return pa.schema(fields)


def _conform(data: pa.Table, schema: pa.Schema) -> pa.Table:
    """``data``'s columns in ``schema``'s order and types (a plain string column is dictionary-encoded if asked)."""
    columns = []
    for f in schema:
        column = data.column(f.name)
        if pa.types.is_dictionary(f.type) and not pa.types.is_dictionary(column.type):
            column = pc.dictionary_encode(column)
        if f.type == CARDS13:
            column = card_bytes(column)
        columns.append(column.cast(f.type))
    return pa.Table.from_arrays(columns, schema=schema)


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
        body = _conform(data, _file_schema(table))
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
            self._append(table, _partition_dir(values, parts), body)
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
            return _partition_dir(values, parts)

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
                options = _writer_options(table, data.schema)
                store = table not in _PLAIN_FILES
                writer = pq.ParquetWriter(staged, data.schema, store_schema=store, **options)
                f = self._open[slot] = _OpenFile(writer, staged, self.lake.root / relative)
        f.writer.write_table(data, row_group_size=1 << 20)
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
            body = _conform(data, _file_schema(table))
            options = _writer_options(table, body.schema)
            with pq.ParquetWriter(staged, body.schema, store_schema=table not in _PLAIN_FILES, **options) as w:
                w.write_table(body, row_group_size=1 << 20)
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
            _fsync(f.staged)
        for f in files:
            f.final.parent.mkdir(parents=True, exist_ok=True)
            self._moved.append(f.final)  # first: an interrupt right after the move must find it listed
            os.replace(f.staged, f.final)
        for d in {p for f in files for p in _folders(f.final, self.lake.root)}:
            _fsync(d)
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


READERS = ".readers"
"""The file a reading process holds a shared lock on; a vacuum takes it exclusively."""


class _Leases:
    """Shared locks on the lakes this process has read, held until it exits (the OS drops them then, however it
    ends). Process-wide on purpose: a query may run long after the snapshot it read was taken, and the lock must
    outlive every object that could still name a file."""

    def __init__(self) -> None:
        self._held: dict[Path, Any] = {}
        self._lock = threading.Lock()

    def take(self, root: Path) -> None:
        key = root.resolve()
        with self._lock:
            if key in self._held or not (root / "_manifests").is_dir():
                return
            try:
                fh = (root / READERS).open("a")
            except OSError:  # a lake on read-only storage: nobody can vacuum it either
                return
            fcntl.flock(fh, fcntl.LOCK_SH)  # waits only while a vacuum deletes files
            self._held[key] = fh

    def held(self, root: Path) -> bool:
        return root.resolve() in self._held

    def release(self, root: Path) -> None:
        """Give the lease up (this process will not read the lake's files again)."""
        with self._lock:
            fh = self._held.pop(root.resolve(), None)
        if fh is not None:
            fh.close()


_READ_LEASES = _Leases()

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
        _READ_LEASES.take(self.root)
        return Snapshot(self.root, tuple(self.manifests()))

    def release(self) -> None:
        """Give up this process's read lease: it will not read files of the snapshots it took so far again (a
        long-lived process between two reports; a script about to vacuum)."""
        _READ_LEASES.release(self.root)

    @contextmanager
    def exclusive(self, wait: float) -> Iterator[None]:
        """No reader but this one (which must hold no lease): what deleting hidden files needs. Waits up to
        ``wait`` seconds for readers to finish, then raises LakeError."""
        if _READ_LEASES.held(self.root):
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
        _fsync(self.manifest_dir)

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
        _READ_LEASES.release(self.root)
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
