"""An ingest run: inputs -> formats -> chunks -> validation -> deduplication -> one committed batch.

Every record read ends up accepted, quarantined with its reason, or counted as
a duplicate (same source and hand id, or the same cards, already in the lake
or earlier in the run), and the summary checks ``read == accepted +
quarantined + duplicates`` per file. A file whose bytes were already ingested
whole (same SHA-256) is not parsed again: its records count as duplicates.
"""

from __future__ import annotations

import contextlib
import gzip
import hashlib
import importlib
import io
import re
import zipfile
from collections import Counter, deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO

import blake3
import numpy as np
import pyarrow as pa

from pipeline import __version__
from pipeline.ahead import ahead
from pipeline.ingest.base import Chunk, Ingester, Problem
from pipeline.ingest.validate import validate
from pipeline.lake.store import BatchWriter, Lake

if TYPE_CHECKING:
    from schemas.rules import RuleSet

FORMATS = ("jsonl", "poker-arena", "scoresheet")
_MODULES = {
    "jsonl": "pipeline.ingest.jsonl",
    "poker-arena": "pipeline.ingest.poker_arena",
    "scoresheet": "pipeline.ingest.scoresheet",
}
SNIFF_BYTES = 1 << 16
READ_AHEAD = 2
"""Chunks read ahead of the one being checked: each holds its lines' bytes and columns (tens of MB)."""
HISTORY_SUFFIXES = {".jsonl", ".ndjson", ".json", ".csv", ".tsv", ".txt", ".log", ".gz", ".zip"}
"""Files a directory walk considers; a file named on the command line is always tried."""


class IngestError(ValueError):
    """An input that cannot be read at all (missing, unknown format, unreadable archive)."""


def ingester(name: str) -> Ingester:
    if name not in _MODULES:
        raise IngestError(f"unknown format {name!r} (known: {', '.join(FORMATS)})")
    return importlib.import_module(_MODULES[name]).INGESTER  # type: ignore[no-any-return]


@dataclass
class Source:
    """One readable input: a file, a gzip file, or a member of a zip archive."""

    name: str
    size: int
    open: Callable[[], BinaryIO]
    raw: Path
    """The file on disk the bytes come from (the archive, for a member)."""


@dataclass
class FileReport:
    """What happened to one input."""

    source: str
    format: str = ""
    read: int = 0
    accepted: int = 0
    quarantined: int = 0
    duplicates: int = 0
    reasons: Counter[str] = field(default_factory=Counter)
    skipped: str = ""
    """Why the file was not parsed (already ingested), if it was not."""
    error: str = ""
    """Why the file could not be read at all."""

    def balanced(self) -> bool:
        return self.read == self.accepted + self.quarantined + self.duplicates

    def counts(self) -> dict[str, int]:
        """read, accepted, quarantined, duplicates: what manifests and summaries record."""
        return {
            "read": self.read,
            "accepted": self.accepted,
            "quarantined": self.quarantined,
            "duplicates": self.duplicates,
        }


@dataclass
class Report:
    files: list[FileReport]
    batch: str | None = None

    @property
    def totals(self) -> FileReport:
        t = FileReport("total")
        for f in self.files:
            t.read += f.read
            t.accepted += f.accepted
            t.quarantined += f.quarantined
            t.duplicates += f.duplicates
            t.reasons.update(f.reasons)
        return t


def _sources(path: Path) -> Iterator[Source]:
    """The inputs under ``path``: directories recursively (links only inside the root), archives opened."""
    if path.is_dir():
        root = path.resolve()
        for p in sorted(path.rglob("*")):
            inside = not p.is_symlink() or p.resolve().is_relative_to(root)
            if p.is_file() and inside and p.suffix.lower() in HISTORY_SUFFIXES:
                yield from _sources(p)
        return
    if not path.is_file():
        raise IngestError(f"{path}: no such file or directory")
    if path.suffix == ".gz":
        size = path.stat().st_size
        gunzip = lambda: _Inflated.open(gzip.open(path, "rb"), str(path), size)  # noqa: E731, SIM115 - the reader closes it
        yield Source(str(path), size, gunzip, path)
    elif path.suffix == ".zip":
        try:
            with zipfile.ZipFile(path) as zf:
                members = [m for m in zf.infolist() if not m.is_dir()]
        except zipfile.BadZipFile as exc:
            raise IngestError(f"{path}: not a readable zip archive ({exc})") from None
        for m in members:
            if m.filename.startswith("/") or ".." in Path(m.filename).parts:
                raise IngestError(f"{path}: refusing archive member with an unsafe path: {m.filename!r}")
            name = f"{path}!{m.filename}"
            yield Source(name, m.compress_size, _member_opener(path, m.filename, name, m.compress_size), path)
    else:
        opener = lambda: path.open("rb", buffering=1 << 20)  # noqa: E731 - the reader closes it
        yield Source(str(path), path.stat().st_size, opener, path)


class _Member(io.BufferedReader):
    """A zip member that closes its archive when it is closed."""

    def __init__(self, archive: zipfile.ZipFile, name: str) -> None:
        super().__init__(archive.open(name), buffer_size=1 << 20)  # type: ignore[arg-type]
        self._archive = archive

    def close(self) -> None:
        super().close()
        self._archive.close()


def _member_opener(path: Path, member: str, name: str, size: int) -> Callable[[], BinaryIO]:
    return lambda: _Inflated.open(_Member(zipfile.ZipFile(path), member), name, size)


MAX_RATIO = 200
"""A compressed input may not inflate to more than this many times its size (JSONL compresses about 10 to 1)."""
MAX_INFLATED = 1 << 40
"""Nor to more than 1 TiB, whatever its size."""
RATIO_GRACE = 64 << 20
"""The ratio is not judged below this many bytes: a tiny archive of a small file may compress very well."""


class _Inflated(io.RawIOBase):
    """A decompressing stream that stops a zip or gzip bomb: past the limits it raises IngestError."""

    def __init__(self, stream: BinaryIO, name: str, compressed: int) -> None:
        self._stream = stream
        self._name = name
        self._limit = min(MAX_INFLATED, max(RATIO_GRACE, MAX_RATIO * compressed))
        self.inflated = 0

    @classmethod
    def open(cls, stream: BinaryIO, name: str, compressed: int) -> BinaryIO:
        return io.BufferedReader(cls(stream, name, compressed), buffer_size=1 << 20)  # type: ignore[return-value]

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        n = self._stream.readinto(buffer)  # type: ignore[attr-defined]
        self.inflated += n or 0
        if self.inflated > self._limit:
            raise IngestError(
                f"{self._name}: inflates to more than {self._limit:,} bytes "
                f"(over {MAX_RATIO}x its size or {MAX_INFLATED:,} bytes): refused as a possible decompression bomb"
            )
        return n  # type: ignore[no-any-return]

    def close(self) -> None:
        self._stream.close()
        super().close()


def detect(source: Source) -> str:
    """The format of a source, from its first bytes."""
    with source.open() as fh:
        head = fh.read(SNIFF_BYTES)
    for name in FORMATS:
        if ingester(name).sniff(head):
            return name
    raise IngestError(f"{source.name}: format not recognised (use --format: {', '.join(FORMATS)})")


DIGEST = "blake3"
"""How files are recognised: manifests record ``blake3:<hex>``. A file recorded by an older version (a bare
SHA-256) is read again when it comes back, and its hands are then recognised one by one as duplicates."""


def digest(path: Path) -> str:
    """A cryptographic digest of a file's bytes: the same input ingested twice is recognised without parsing it.

    BLAKE3 on one thread (the reader and the writer have the others), over twice as fast as SHA-256 here.
    """
    with path.open("rb") as fh:
        return f"{DIGEST}:" + hashlib.file_digest(fh, lambda: blake3.blake3(max_threads=1)).hexdigest()


def reason_kind(reason: str) -> str:
    """A reason without its field path and values, for counting: ``not a card``."""
    text = reason.split(": ", 1)[1] if re.match(r"^[\w.\[\]]+: ", reason) else reason
    return re.sub(r"'[^']*'|\"[^\"]*\"|\d+", "…", text).split(" (")[0]


class _SortedRuns:
    """A growing set of uint64 keys: sorted runs, searched by bisection, merged like a binary counter.

    A run is merged with the one before it when that one is at most twice its size, so there are
    O(log n) runs to search and each key is merged O(log n) times: a run of millions of hands never
    re-sorts everything it has seen. Merging two sorted runs is a linear pass (a stable sort of two
    concatenated runs).
    """

    def __init__(self, keys: np.ndarray) -> None:
        ordered = np.sort(keys)  # then the distinct: NumPy's unique took fifteen times as long as the sort
        self.runs = [ordered[np.r_[True, ordered[1:] != ordered[:-1]]]] if keys.size else []

    def contains(self, keys: np.ndarray) -> np.ndarray:
        found = np.zeros(keys.size, dtype=bool)
        for run in self.runs:
            pos = np.minimum(np.searchsorted(run, keys), run.size - 1)
            found |= run[pos] == keys
        return found

    def add(self, keys: np.ndarray) -> None:
        """Remember ``keys``, which must be distinct and not yet in the set."""
        if keys.size:
            self.runs.append(np.sort(keys))
        while len(self.runs) > 1 and self.runs[-2].size <= 2 * self.runs[-1].size:
            last = self.runs.pop()
            self.runs[-1] = np.sort(np.concatenate([self.runs[-1], last]), kind="stable")


class _Keys:
    """Hand keys and content hashes already in the lake or earlier in this run.

    The lake's are read when first needed: a run whose files were all ingested before never reads them.
    """

    def __init__(self, load: Callable[[], tuple[np.ndarray, np.ndarray]] | None = None) -> None:
        self._load = load
        self._sets: tuple[_SortedRuns, _SortedRuns] | None = None

    @classmethod
    def of(cls, lake: Lake) -> _Keys:
        """The keys of every hand committed to ``lake``."""

        def load() -> tuple[np.ndarray, np.ndarray]:
            known = lake.read("hands", ["hand_key", "content_hash"])
            return known.column("hand_key").to_numpy(), known.column("content_hash").to_numpy()

        return cls(load)

    @property
    def sets(self) -> tuple[_SortedRuns, _SortedRuns]:
        if self._sets is None:
            none = np.zeros(0, np.uint64)
            hand_key, content = self._load() if self._load is not None else (none, none)
            self._sets = _SortedRuns(hand_key), _SortedRuns(content)
        return self._sets

    def new(self, hand_key: np.ndarray, content: np.ndarray) -> np.ndarray:
        """Mask of hands seen neither before nor earlier in the same array; remembers them."""
        known_keys, known_content = self.sets
        fresh = ~known_keys.contains(hand_key) & ~known_content.contains(content)
        first = np.zeros(hand_key.size, dtype=bool)
        first[np.unique(hand_key, return_index=True)[1]] = True
        first_content = np.zeros(hand_key.size, dtype=bool)
        first_content[np.unique(content, return_index=True)[1]] = True
        keep = fresh & first & first_content
        known_keys.add(hand_key[keep])
        known_content.add(content[keep])
        return keep


def _quarantine_rows(problems: list[Problem], source: str, batch: str) -> pa.Table:
    return pa.table(
        {
            "batch": [batch] * len(problems),
            "source_file": [source] * len(problems),
            "line": pa.array([p.line for p in problems], pa.int64()),
            "byte_offset": pa.array([p.offset for p in problems], pa.int64()),
            "hand_id": pa.array([p.hand_id for p in problems], pa.string()),
            "reason": [p.reason for p in problems],
            "raw": [p.raw for p in problems],
        }
    )


def ingest(
    paths: list[Path],
    lake: Lake | None,
    fmt: str | None = None,
    on_progress: Callable[[str, int, int], None] | None = None,
) -> Report:
    """Read ``paths`` into ``lake`` as one batch (``lake=None``: validate only, write nothing).

    ``on_progress(source, bytes, hands)`` is called after each chunk.
    """
    sources = [s for p in paths for s in _sources(Path(p))]
    if fmt is not None:
        ingester(fmt)
    if lake is None:
        return _run(sources, None, fmt, on_progress)
    with lake.locked():
        lake.collect_garbage()
        return _run(sources, lake, fmt, on_progress)


def ingest_chunks(
    chunks: Iterable[Chunk],
    lake: Lake,
    source: str,
    kind: str,
    on_progress: Callable[[str, int, int], None] | None = None,
    rule_sets: Sequence[RuleSet] = (),
) -> Report:
    """Commit records made in process (the simulator's) as one batch, through the same checks as any file.

    ``source`` names the records' origin in the manifest and quarantine; ``kind`` is the batch kind;
    ``rule_sets`` are recorded in the manifest, the rules the hands were played by (their house rules name
    them by key), so that the lake knows them.
    """
    with lake.locked():
        lake.collect_garbage()
        keys = _Keys.of(lake)
        writer = BackgroundWriter(lake.begin(kind))
        report = FileReport(source, format=kind)
        try:
            consumed = 0
            for chunk in chunks:
                _take(chunk, source, report, keys, writer, writer.batch)
                consumed += chunk.bytes_read
                if on_progress:
                    on_progress(source, consumed, report.read)
            result = Report([report], writer.batch)
            entry = {"path": source, "member": "", "digest": "", "format": kind, **report.counts()}
            extra = {"rule_sets": [r.model_dump(mode="json") for r in rule_sets]} if rule_sets else None
            writer.commit({**report.counts(), "version": __version__}, [{**entry, "batch": writer.batch}], extra)
            return result
        except BaseException:
            writer.abort()
            raise


def _run(
    sources: list[Source], lake: Lake | None, fmt: str | None, on_progress: Callable[[str, int, int], None] | None
) -> Report:
    done: dict[str, dict] = {}
    keys = _Keys()
    writer = None
    if lake is not None:
        for m in lake.manifests():
            for s in m.get("sources", []):
                if s.get("digest"):
                    done.setdefault(s["digest"] + "|" + s.get("member", ""), s)
        keys = _Keys.of(lake)
        writer = BackgroundWriter(lake.begin("ingest"))
    batch = writer.batch if writer else "validate"
    reports: list[FileReport] = []
    manifest_sources: list[dict] = []
    digests: dict[Path, Future[str]] = {}
    hashing = ThreadPoolExecutor(1, thread_name_prefix="ofc-digest")
    try:
        for source in sources:
            report = FileReport(source.name)
            reports.append(report)
            member = source.name.split("!", 1)[1] if "!" in source.name else ""

            def already(report: FileReport = report, source: Source = source, member: str = member) -> bool:
                """Whether these bytes were ingested before; if so the report says so."""
                seen = done.get(digests[source.raw].result() + "|" + member)
                if seen is None:
                    return False
                report.format = seen.get("format", "")
                report.read = report.duplicates = int(seen.get("read", 0))
                report.accepted = report.quarantined = 0
                report.reasons.clear()
                report.skipped = f"already ingested in batch {seen.get('batch', '?')}"
                if on_progress:
                    on_progress(source.name, source.size, 0)
                return True

            if lake is not None and source.raw not in digests:
                # Hashed on another thread while the first chunk is read: a re-ingest costs about one chunk.
                digests[source.raw] = hashing.submit(digest, source.raw)
            if lake is not None and digests[source.raw].done() and already():
                continue
            try:
                report.format = fmt or detect(source)
                check = already if lake is not None else None
                if not _ingest_source(source, report, ingester(report.format), keys, writer, batch, on_progress, check):
                    continue
            except (IngestError, OSError, EOFError, zipfile.BadZipFile, gzip.BadGzipFile) as exc:
                report.error = str(exc)
                continue
            if lake is not None:
                manifest_sources.append(
                    {
                        "path": source.name,
                        "member": member,
                        "digest": digests[source.raw].result(),
                        "format": report.format,
                        **report.counts(),
                        "batch": batch,
                    }
                )
        result = Report(reports, batch if writer else None)
        if writer is not None:
            writer.commit({**result.totals.counts(), "version": __version__}, manifest_sources)
        return result
    except BaseException:
        if writer is not None:
            writer.abort()
        raise
    finally:
        hashing.shutdown(cancel_futures=True)


def _ingest_source(
    source: Source,
    report: FileReport,
    reader: Ingester,
    keys: _Keys,
    writer: BackgroundWriter | None,
    batch: str,
    on_progress: Callable[[str, int, int], None] | None,
    already: Callable[[], bool] | None = None,
) -> bool:
    """Read one source into the batch; False if ``already()`` found, after the first chunk, that it was done before."""
    consumed = 0
    # The next chunks are read and scanned on another thread while this one is checked and handed to the writer.
    with source.open() as stream, ThreadPoolExecutor(1, thread_name_prefix="ofc-read") as pool:
        chunks = ahead(reader.read(stream, source.name), pool, depth=READ_AHEAD)
        try:
            for i, chunk in enumerate(chunks):
                if i == 0 and already is not None and already():
                    return False
                _take(chunk, source.name, report, keys, writer, batch)
                consumed += chunk.bytes_read
                if on_progress:
                    on_progress(source.name, min(consumed, source.size), report.read)
        finally:
            chunks.close()
    return True


class BackgroundWriter:
    """A batch writer whose writes run on worker threads: one per table, so each table's rows stay in order.

    Parquet encoding and compression release the GIL, so writing one chunk's rows overlaps reading and
    checking the next, and the placements (most of the bytes) are encoded while the boards and hands are.
    At most MAX_PENDING writes wait, which bounds the memory they hold; an error in a write surfaces at the
    next write, at ``commit`` or at ``abort``.
    """

    MAX_PENDING = 8

    def __init__(self, writer: BatchWriter) -> None:
        self.writer = writer
        self.batch = writer.batch
        self._pools: dict[str, ThreadPoolExecutor] = {}
        self._pending: deque[Future[None]] = deque()

    def write(self, table: str, data: pa.Table) -> None:
        if data.num_rows:
            if table not in self._pools:
                self._pools[table] = ThreadPoolExecutor(1, thread_name_prefix=f"ofc-write-{table}")
            self._pending.append(self._pools[table].submit(self.writer.write, table, data))
        while len(self._pending) > self.MAX_PENDING:
            self._pending.popleft().result()

    def _drain(self) -> None:
        try:
            while self._pending:
                self._pending.popleft().result()
        finally:
            for pool in self._pools.values():
                pool.shutdown()

    def commit(
        self, summary: dict[str, Any], sources: list[dict[str, Any]], extra: dict[str, Any] | None = None
    ) -> dict[str, Any]:
        self._drain()
        return self.writer.commit(summary, sources, extra)

    def abort(self) -> None:
        with contextlib.suppress(Exception):  # the batch is thrown away; the error that ended it is raised already
            self._drain()
        self.writer.abort()


def _take(
    chunk: Chunk, name: str, report: FileReport, keys: _Keys, writer: BackgroundWriter | None, batch: str
) -> None:
    v = validate(chunk, name, batch)
    problems = chunk.problems + v.problems
    hand_key = v.hands.column("hand_key").to_numpy()
    keep = keys.new(hand_key, v.hands.column("content_hash").to_numpy())
    report.read += chunk.count
    report.quarantined += len(problems)
    report.accepted += int(keep.sum())
    report.duplicates += int((~keep).sum())
    report.reasons.update(reason_kind(p.reason) for p in problems)
    if writer is None:
        return
    every = bool(keep.all())  # the usual case: nothing to filter out, and the tables are passed on as they are
    writer.write("hands", v.hands if every else v.hands.filter(pa.array(keep)))
    writer.write("boards", v.boards if every else v.boards.filter(pa.array(keep[v.board_hand])))
    writer.write("placements", v.placements if every else v.placements.filter(pa.array(keep[v.placement_hand])))
    if problems:
        writer.write("quarantine", _quarantine_rows(problems, name, batch))
