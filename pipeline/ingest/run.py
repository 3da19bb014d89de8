"""An ingest run: inputs -> formats -> chunks -> validation -> deduplication -> one committed batch.

Every record read ends up accepted, quarantined with its reason, or counted as
a duplicate (the same hand with the same content, already in the lake or
earlier in the run: see ``pipeline.ingest.duplicates``), and the summary checks
``read == accepted + quarantined + duplicates`` per file. A file whose bytes
were already ingested whole (same digest) is not parsed again: its records
count as duplicates.
"""

from __future__ import annotations

import gzip
import importlib
import io
import re
import threading
import zipfile
from collections import Counter, deque
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from queue import SimpleQueue
from typing import TYPE_CHECKING, Any, BinaryIO

import blake3
import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from pipeline import __version__
from pipeline.errors import InputError
from pipeline.ingest.base import Chunk, Ingester, Problem
from pipeline.ingest.duplicates import DUPLICATE, NEW, REPLACES, Known, conflict_reason
from pipeline.ingest.labels import SAMPLE, Labels, Recognised, label_by_variant, label_chunk, recognise
from pipeline.ingest.validate import validate
from pipeline.lake.edit import remove_hands
from pipeline.lake.store import BatchWriter, Lake
from pipeline.read_ahead import ahead, result_of

if TYPE_CHECKING:
    from schemas.rules import RuleSet

FORMATS = ("jsonl", "poker-arena", "scoresheet", "workbook", "fpdb")
_MODULES = {
    "jsonl": "pipeline.ingest.jsonl",
    "poker-arena": "pipeline.ingest.poker_arena",
    "scoresheet": "pipeline.ingest.scoresheet",
    "workbook": "pipeline.ingest.workbook",
    "fpdb": "pipeline.ingest.fpdb",
}
SNIFF_ORDER = ("fpdb", "jsonl", "poker-arena", "scoresheet", "workbook")
"""The order formats are tried on a file's first bytes: the narrower first (an fpdb capture would pass for a
canonical record, which any object with a hand id and players does)."""
SNIFF_BYTES = 1 << 16
READ_AHEAD = 2
"""Chunks read ahead of the one being checked: each holds its lines' bytes and columns (tens of MB)."""
HISTORY_SUFFIXES = {
    *(".jsonl", ".ndjson", ".json", ".csv", ".tsv", ".txt", ".log", ".gz", ".zip"),
    *(".xlsx", ".xlsm"),  # workbooks
    *(".db", ".db3", ".sqlite", ".sqlite3"),  # fpdb-3's database (fpdb.db3)
}
"""Files a directory walk considers; a file named on the command line is always tried."""
DATABASE_SUFFIXES = frozenset({".db", ".db3", ".sqlite", ".sqlite3"})
SQLITE_MAGIC = b"SQLite format 3\x00"
IN_THE_MAKING = (".part", ".partial", ".tmp", ".temp", ".crdownload", ".download", ".swp", "~")
"""Endings of the names files have while they are written or downloaded."""


def history_file(path: Path) -> bool:
    """Whether a directory walk (or a watch) reads a file: a history's ending, not a hidden file, a file in the
    making or an application's lock file (``~$league.xlsx``), and a database only if it is SQLite's (a folder
    of Windows pictures holds a ``Thumbs.db``)."""
    name = path.name.lower()
    if name.startswith((".", "~")) or name.endswith(IN_THE_MAKING):
        return False
    suffix = path.suffix.lower()
    if suffix not in HISTORY_SUFFIXES:
        return False
    if suffix in DATABASE_SUFFIXES:
        try:
            with path.open("rb") as fh:
                return fh.read(len(SQLITE_MAGIC)) == SQLITE_MAGIC
        except OSError:
            return False
    return True


def is_lake(folder: Path) -> bool:
    """A lake's folder (its commits are in ``_manifests``): never read as histories, even inside a folder that is."""
    return (folder / "_manifests").is_dir()


class IngestError(InputError):
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
    whole: bool = False
    """Its bytes are ``raw``'s as they are on disk (neither inflated nor a member): its reader's reading of it
    can give the file's digest too."""


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
    rules: list[str] = field(default_factory=list)
    """What recognition found of the rules its recorded points were scored by (``pipeline.ingest.labels``)."""
    notes: list[str] = field(default_factory=list)
    """What its reader noticed that is not wrong but may be (a name spelled two ways, a title above the header)."""

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
class IngestReport:
    files: list[FileReport]
    batch: str | None = None
    replaced: int = 0
    """Hands whose earlier version a corrected file replaced (``--replace``): counted as accepted too."""
    removed: int = 0
    """Hands removed because a corrected file no longer holds them."""

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


def sources(path: Path) -> Iterator[Source]:
    """The inputs under ``path``: directories recursively (links only inside the root), archives opened."""
    if path.is_dir():
        root = path.resolve()
        found = sorted(path.rglob("*"))
        lakes = [p.parent for p in found if p.name == "_manifests" and p.is_dir()]  # the walk's own lakes
        for p in found:
            inside = not p.is_symlink() or p.resolve().is_relative_to(root)
            hidden = any(part.startswith(".") for part in p.relative_to(path).parts[:-1])
            in_lake = any(p.is_relative_to(lake) for lake in lakes)
            if p.is_file() and inside and not hidden and not in_lake and history_file(p):
                yield from sources(p)
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
        yield Source(str(path), path.stat().st_size, opener, path, whole=True)


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


def reader_for(name: str, readers: Mapping[str, Ingester] | None = None) -> Ingester:
    """The reader of a format: one given for this run (a scoresheet reader with a ``--map``), else the usual."""
    return (readers or {}).get(name) or ingester(name)


def sniff(head: bytes, readers: Mapping[str, Ingester] | None = None) -> str | None:
    """The format whose ingester recognises these first bytes, if one does."""
    return next((name for name in SNIFF_ORDER if reader_for(name, readers).sniff(head)), None)


def detect(source: Source, readers: Mapping[str, Ingester] | None = None) -> str:
    """The format of a source, from its first bytes."""
    with source.open() as fh:
        head = fh.read(SNIFF_BYTES)
    if not head.strip():
        raise IngestError(f"{source.name}: empty file (no records)")
    found = sniff(head, readers)
    if found is not None:
        return found
    raise IngestError(f"{source.name}: format not recognised (use --format: {', '.join(FORMATS)})")


DIGEST = "blake3"
"""How files are recognised: manifests record ``blake3:<hex>``. A file recorded by an older version (a bare
SHA-256) is read again when it comes back, and its hands are then recognised one by one as duplicates."""


DIGEST_BLOCK = 1 << 20
"""Bytes read and hashed at a time: a block the cache holds, hashed in well under a millisecond (between two looks
at the stop event)."""
DIGEST_AHEAD = 4
"""Blocks a file's reading thread may be ahead of its hashing."""


class _Digesting(io.RawIOBase):
    """A file as its reader reads it, every block hashed as it arrives: one reading of the file gives its records
    and its digest. A second reading on a thread of its own took 1.5 s of processor time over 5 GB, this about
    1 s (the kernel copies each byte once, and each block is hashed while the cache holds it)."""

    def __init__(self, path: Path) -> None:
        self._path = path
        self._file: BinaryIO | None = None
        self._hash = blake3.blake3(max_threads=1)
        self._ended = False

    def open(self) -> BinaryIO:
        """The file, buffered as a source's is, for its reader."""
        self._file = self._path.open("rb", buffering=0)
        return io.BufferedReader(self, buffer_size=1 << 20)  # type: ignore[return-value]

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        n = self._file.readinto(buffer)  # type: ignore[union-attr]
        if n:
            with memoryview(buffer) as view:
                self._hash.update(view[:n])
        elif n == 0:
            self._ended = True
        return n  # type: ignore[no-any-return]

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
        super().close()

    def digest(self) -> str | None:
        """The digest of every byte of the file, if the reader read to its end (else None)."""
        return f"{DIGEST}:" + self._hash.hexdigest() if self._ended else None


def _settled(value: str) -> Future[str]:
    future: Future[str] = Future()
    future.set_result(value)
    return future


def digest(path: Path, stop: threading.Event | None = None) -> str:
    """A cryptographic digest of a file's bytes: the same input ingested twice is recognised without parsing it.

    BLAKE3, over twice as fast as SHA-256 here, on one thread while another reads the next blocks: 5 GB in 1.0 s
    where one thread reading and hashing in turn took 1.5 s. (Hashing on two threads needs blocks too large for
    the cache: 1.2 s for half again the processor time. A mapping of the file hashed on two threads took 0.7 s,
    but a file cut short while mapped, or a network disk's error, kills the process.) A set ``stop`` ends it
    early (a many-gigabyte file hashed while the ingest is interrupted), with an empty digest.
    """
    h = blake3.blake3(max_threads=1)
    free: SimpleQueue[bytearray | None] = SimpleQueue()
    read: SimpleQueue[tuple[bytearray, int] | BaseException] = SimpleQueue()
    for _ in range(DIGEST_AHEAD):
        free.put(bytearray(DIGEST_BLOCK))

    def reading() -> None:
        try:
            with path.open("rb", buffering=0) as fh:
                while (block := free.get()) is not None:
                    n = fh.readinto(block)
                    read.put((block, n))
                    if not n:
                        return
        except BaseException as exc:  # noqa: BLE001 - raised by the hashing thread, which waits for it
            read.put(exc)

    reader = threading.Thread(target=reading, name="ofc-digest-read", daemon=True)
    reader.start()
    try:
        while True:
            item = read.get()
            if isinstance(item, BaseException):
                raise item
            block, n = item
            if not n:
                return f"{DIGEST}:" + h.hexdigest()
            if stop is not None and stop.is_set():
                return ""
            with memoryview(block) as view:
                h.update(view[:n])
            free.put(block)
    finally:
        free.put(None)  # a reader waiting for a block ends
        reader.join()


_PLACE = re.compile(r"^(?:HttpOFC\w+ (?:id \S+ \([^)]*\)|row \d+): )+")
"""Where a problem of an fpdb database is, ahead of its reason."""


def reason_kind(reason: str) -> str:
    """A reason without its field path and values, for counting: ``not a card``."""
    reason = _PLACE.sub("", reason)
    text = reason.split(": ", 1)[1] if re.match(r"^[\w.\[\]]+: ", reason) else reason
    return re.sub(r"'[^']*'|\"[^\"]*\"|\d+", "…", text).split(" (")[0]


def _known(lake: Lake) -> Known:
    """The hands committed to ``lake``, read when first needed."""

    def load() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        hands = lake.read("hands", ["hand_key", "content_hash", "record_hash"])
        record = pc.fill_null(hands.column("record_hash"), 0)  # hands committed before records were hashed
        return (
            hands.column("hand_key").to_numpy(),
            hands.column("content_hash").to_numpy(),
            record.to_numpy().astype(np.uint64),
        )

    return Known(load)


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
    replace: bool = False,
    *,
    against: Lake | None = None,
    on_problems: Callable[[str, list[Problem]], None] | None = None,
    labels: Labels | None = None,
    readers: Mapping[str, Ingester] | None = None,
) -> IngestReport:
    """Read ``paths`` into ``lake`` as one batch (``lake=None``: validate only, write nothing).

    ``on_progress(source, bytes, hands)`` is called after each chunk, ``on_problems(source, problems)`` with the
    records of a chunk that are not accepted. With ``replace`` the files are corrected versions of files ingested
    before: a hand whose content changed replaces its earlier version, and a hand of the files' sessions that
    they no longer hold is removed (see :class:`Corrections`). A validation (``lake=None``) ``against`` a lake
    classifies the records as an ingest into it would: duplicates of its hands, conflicts with them.

    When nothing at all is read (no files, or none that could be read), nothing is committed: the report has
    no batch. ``labels``: the variant and house rules of every hand of these files (see
    :mod:`pipeline.ingest.labels`, which also says how a file's recorded points name the preset they were
    scored by). ``readers``: a format's reader for this run (a scoresheet reader given a ``--map``).
    """
    found = [s for p in paths for s in sources(Path(p))]
    if fmt is not None:
        ingester(fmt)
    labels = labels or Labels()
    if lake is None:
        return _run(found, None, fmt, on_progress, None, against, on_problems, labels, readers)
    with lake.locked():
        lake.collect_garbage()
        fix = Corrections() if replace else None
        return _run(found, lake, fmt, on_progress, fix, None, on_problems, labels, readers)


def ingest_chunks(
    chunks: Iterable[Chunk],
    lake: Lake,
    source: str,
    kind: str,
    on_progress: Callable[[str, int, int], None] | None = None,
    rule_sets: Sequence[RuleSet] = (),
) -> IngestReport:
    """Commit records made in process (the simulator's) as one batch, through the same checks as any file.

    ``source`` names the records' origin in the manifest and quarantine; ``kind`` is the batch kind;
    ``rule_sets`` are recorded in the manifest, the rules the hands were played by (their house rules name
    them by key), so that the lake knows them.
    """
    with lake.locked():
        lake.collect_garbage()
        keys = _known(lake)
        writer = BackgroundWriter(lake.begin(kind))
        report = FileReport(source, format=kind)
        try:
            consumed = 0
            for chunk in chunks:
                _take(chunk, source, report, keys, writer, writer.batch)
                consumed += chunk.bytes_read
                if on_progress:
                    on_progress(source, consumed, report.read)
            result = IngestReport([report], writer.batch)
            entry = {"path": source, "member": "", "digest": "", "format": kind, **report.counts()}
            extra = {"rule_sets": [r.model_dump(mode="json") for r in rule_sets]} if rule_sets else None
            writer.commit({**report.counts(), "version": __version__}, [{**entry, "batch": writer.batch}], extra)
            return result
        except BaseException:
            writer.abort()
            raise


@dataclass
class Corrections:
    """What a run with ``--replace`` collects to correct the lake at its commit.

    The files are the truth for the sessions they hold: a hand of one of those sessions (same source and
    session) that the lake holds and the files do not is removed; a hand the files hold with other content
    replaces the lake's version.
    """

    keys: list[np.ndarray] = field(default_factory=list)
    """Keys of every hand the files hold (accepted, duplicate, replacing or in conflict)."""
    replaced: list[np.ndarray] = field(default_factory=list)
    """Keys of the hands whose earlier version goes."""
    sessions: set[tuple[str | None, str | None]] = field(default_factory=set)

    def take(self, hands: pa.Table, status: np.ndarray) -> None:
        self.keys.append(hands.column("hand_key").to_numpy())
        self.replaced.append(hands.column("hand_key").to_numpy()[status == REPLACES])
        pairs = hands.select(["source", "session"]).group_by(["source", "session"]).aggregate([])
        self.sessions.update(zip(pairs.column(0).to_pylist(), pairs.column(1).to_pylist(), strict=True))

    def removals(self, lake: Lake, batch: str) -> dict[str, np.ndarray]:
        """Per earlier batch, the keys of its hands to remove: old versions, and hands the files dropped."""
        held = lake.read("hands", ["hand_key", "batch", "source", "session"])
        held = held.filter(pc.not_equal(held.column("batch"), batch))
        key = held.column("hand_key").to_numpy()
        seen = np.concatenate(self.keys) if self.keys else np.zeros(0, np.uint64)
        replaced = np.concatenate(self.replaced) if self.replaced else np.zeros(0, np.uint64)
        wanted = pa.table({"source": [a for a, _ in self.sessions], "session": [b for _, b in self.sessions]})
        of_session = pc.is_in(_session_names(held), value_set=_session_names(wanted)).to_numpy(zero_copy_only=False)
        gone = (of_session & ~np.isin(key, seen)) | np.isin(key, replaced)
        out: dict[str, np.ndarray] = {}
        batches = held.column("batch").to_numpy(zero_copy_only=False)
        for b in np.unique(batches[gone]).tolist():
            out[b] = key[gone & (batches == b)]
        return out


def _session_names(hands: pa.Table) -> pa.Array:
    """(source, session) as one string per row, a null kept apart from every text."""

    def marked(column: pa.ChunkedArray) -> pa.ChunkedArray:
        text = column.cast(pa.string())
        return pc.if_else(pc.is_null(text), "\x00", pc.binary_join_element_wise("\x01", text, ""))

    joined = pc.binary_join_element_wise(marked(hands.column("source")), marked(hands.column("session")), "\x1f")
    return joined.combine_chunks() if isinstance(joined, pa.ChunkedArray) else joined


def _run(
    sources: list[Source],
    lake: Lake | None,
    fmt: str | None,
    on_progress: Callable[[str, int, int], None] | None,
    fix: Corrections | None,
    against: Lake | None = None,
    on_problems: Callable[[str, list[Problem]], None] | None = None,
    labels: Labels | None = None,
    readers: Mapping[str, Ingester] | None = None,
) -> IngestReport:
    labels = labels or Labels()
    done: dict[str, dict[str, Any]] = {}
    keys = _known(against) if against is not None and against.exists() else Known()
    writer = None
    if lake is not None:
        done = lake.ingested()
        keys = _known(lake)
        writer = BackgroundWriter(lake.begin("ingest"))
    batch = writer.batch if writer else "validate"
    reports: list[FileReport] = []
    manifest_sources: list[dict] = []
    digests: dict[Path, Future[str]] = {}
    hashing = ThreadPoolExecutor(1, thread_name_prefix="ofc-digest")
    stop = threading.Event()
    try:
        for source in sources:
            report = FileReport(source.name)
            reports.append(report)
            member = source.name.split("!", 1)[1] if "!" in source.name else ""

            def already(report: FileReport = report, source: Source = source, member: str = member) -> bool:
                """Whether these bytes were ingested before; if so the report says so."""
                seen = done.get(result_of(digests[source.raw]) + "|" + member)
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

            skip_seen = lake is not None and fix is None  # a correction is read even if its bytes were seen before
            hashed: _Digesting | None = None
            if lake is not None and source.raw not in digests:
                if skip_seen and done:
                    # It may be a file the lake took: its digest first, and if it was, it is passed over at once.
                    digests[source.raw] = hashing.submit(digest, source.raw, stop)
                elif source.whole:
                    hashed = _Digesting(source.raw)  # no file it could be: hashed as it is read
                else:
                    digests[source.raw] = hashing.submit(digest, source.raw, stop)
            if skip_seen and done and already():
                continue
            try:
                report.format = fmt or detect(source, readers)
                reader = reader_for(report.format, readers)
                _ingest_source(
                    source, report, reader, keys, writer, batch, on_progress, fix, on_problems, labels, hashed
                )
            except (InputError, OSError, EOFError, zipfile.BadZipFile, gzip.BadGzipFile) as exc:
                report.error = str(exc)
                if not report.read:
                    continue
                # It failed part way (a truncated archive): what it held before stays in the batch, and the
                # manifest lists the file with its counts and the error, like any other.
            finally:
                if hashed is not None and (whole := hashed.digest()) is not None:
                    digests[source.raw] = _settled(whole)
            if lake is not None:
                if source.raw not in digests:  # its reader did not read it to the end (it failed, or reads part)
                    digests[source.raw] = hashing.submit(digest, source.raw, stop)
                manifest_sources.append(
                    {
                        "path": source.name,
                        "member": member,
                        "digest": result_of(digests[source.raw]),
                        "format": report.format,
                        **report.counts(),
                        "batch": batch,
                        **({"error": report.error} if report.error else {}),
                        **({"rules": report.rules} if report.rules else {}),
                    }
                )
        result = IngestReport(reports, batch if writer else None)
        if writer is not None and result.totals.read == 0:
            writer.abort()  # nothing read: no batch, not even an empty one
            result.batch = None
        elif writer is not None:
            extra = None
            if fix is not None and lake is not None:
                writer.drain()
                removed = remove_hands(lake.snapshot(), writer.writer, fix.removals(lake, batch))
                replaced = int(sum(r.size for r in fix.replaced))
                result.replaced, result.removed = replaced, sum(removed.values()) - replaced
                extra = {"corrections": {"replaced": replaced, "removed": result.removed, "batches": removed}}
            if labels.rule_set is not None:  # the lake learns the rules these hands were played by
                extra = {**(extra or {}), "rule_sets": [labels.rule_set.model_dump(mode="json")]}
            summary = {**result.totals.counts(), "version": __version__}
            writer.commit(summary, manifest_sources, extra)
        return result
    except BaseException:
        if writer is not None:
            writer.abort()
        raise
    finally:
        stop.set()
        hashing.shutdown(cancel_futures=True)


def _ingest_source(
    source: Source,
    report: FileReport,
    reader: Ingester,
    keys: Known,
    writer: BackgroundWriter | None,
    batch: str,
    on_progress: Callable[[str, int, int], None] | None,
    fix: Corrections | None = None,
    on_problems: Callable[[str, list[Problem]], None] | None = None,
    labels: Labels | None = None,
    hashed: _Digesting | None = None,
) -> None:
    """Read one source into the batch.

    Labels given for the files, or found by recognising the preset that reproduces the file's recorded points,
    are applied to every record before it is checked. ``hashed``: the file opened to be hashed as it is read.
    """
    labels = labels or Labels()
    said = {
        "variant": f"--variant says {labels.variant!r}",
        "house_rules": f"--house-rules says {labels.house_rules!r}",
    }
    if labels:
        reader = reader.plain()  # every record where a label can be set or checked
    consumed = 0
    sized = False
    opened = hashed.open() if hashed is not None else source.open()
    # The next chunks are read and scanned on another thread while this one is checked and handed to the writer.
    with opened as stream, ThreadPoolExecutor(1, thread_name_prefix="ofc-read") as pool:
        chunks = ahead(reader.read(stream, source.name), pool, depth=READ_AHEAD)
        try:
            found = None
            if labels.house_rules is None:
                # While the first chunks are read, and only once the file is known to be new: re-ingesting 200,000
                # hands took 0.71 s with the file recognised before its digest was looked up, 0.12 s after.
                found = _recognise(source, reader.plain(), labels, said)
                report.rules = found.notes
            for chunk in chunks:
                if labels:
                    chunk = label_chunk(chunk, labels, said)
                if found is not None:
                    chunk = label_by_variant(chunk, found)
                _take(chunk, source.name, report, keys, writer, batch, fix, on_problems)
                consumed += chunk.bytes_read
                if not sized and chunk.count and consumed:
                    # The hands still to come, judged by the first chunk: the maps of those seen are made that
                    # large at once, not doubled as they fill (their work over 1.65 M hands: 0.4 s, not 0.9).
                    keys.reserve(int(max(source.size - consumed, 0) / consumed * chunk.count))
                    sized = True
                if on_progress:
                    on_progress(source.name, min(consumed, source.size), report.read)
        finally:
            chunks.close()


def _recognise(source: Source, reader: Ingester, labels: Labels, said: dict[str, str]) -> Recognised:
    """The preset that reproduces the recorded points of the file's first hands (``SAMPLE``, among at most
    ``_LOOKED_AT`` records), the command line's labels applied first."""
    from pipeline.rules.native import VARIANT_PRESETS
    from schemas.rules import Variant

    sample: list[dict] = []
    looked = 0
    guessed = False
    with source.open() as stream:
        chunks = reader.read(stream, source.name)
        try:
            for chunk in chunks:
                chunk = label_chunk(chunk, labels, said) if labels else chunk
                guessed = guessed or "variant" in chunk.guessed
                records = chunk.records.slice(0, max(_LOOKED_AT - looked, 0))
                looked += records.num_rows
                if records.num_rows:
                    points = pc.list_flatten(records.column("players")).combine_chunks().field("points")
                    owner = pc.list_parent_indices(records.column("players")).to_numpy(zero_copy_only=False)
                    missing = np.bincount(owner, ~points.is_valid().to_numpy(zero_copy_only=False), records.num_rows)
                    whole = np.flatnonzero(missing == 0)[: SAMPLE - len(sample)]
                    sample += records.take(pa.array(whole)).to_pylist()
                if len(sample) >= SAMPLE or looked >= _LOOKED_AT:
                    break
        finally:
            close = getattr(chunks, "close", None)
            if close is not None:
                close()
    preferred = [VARIANT_PRESETS[Variant(labels.variant)]] if labels.variant else []
    return recognise(sample, guessed, preferred)


_LOOKED_AT = 4 * SAMPLE
"""Records a file's head is read for before recognition gives up looking for recorded points."""


class BackgroundWriter:
    """A batch writer whose writes run on worker threads: one per table, so each table's rows stay in order.

    Parquet encoding and compression release the GIL, so writing one chunk's rows overlaps reading and
    checking the next, and the placements (most of the bytes) are encoded while the boards and hands are.
    At most MAX_PENDING writes wait, which bounds the memory they hold; an error in a write surfaces at the
    next write, at ``commit`` or at ``abort``. A table's rows are handed over GROUP_ROWS or more at a time.
    """

    MAX_PENDING = 8
    GROUP_ROWS = 1 << 16
    """Rows of a table gathered before they are written: a chunk's few thousand hands and boards, each chunk a
    row group of its own, cost a tenth more to encode (a chunk's placements are more than this already)."""

    def __init__(self, writer: BatchWriter) -> None:
        self.writer = writer
        self.batch = writer.batch
        self._pools: dict[str, ThreadPoolExecutor] = {}
        self._pending: deque[Future[None]] = deque()
        self._gathered: dict[str, list[pa.Table]] = {}

    def write(self, table: str, data: pa.Table) -> None:
        if data.num_rows:
            gathered = self._gathered.setdefault(table, [])
            gathered.append(data)
            if sum(t.num_rows for t in gathered) >= self.GROUP_ROWS:
                self._submit(table)
        while len(self._pending) > self.MAX_PENDING:
            result_of(self._pending.popleft())

    def _submit(self, table: str) -> None:
        gathered = self._gathered.pop(table, [])
        if not gathered:
            return
        # Parts may code their months in integers of other widths: the wider is taken.
        data = gathered[0] if len(gathered) == 1 else pa.concat_tables(gathered, promote_options="permissive")
        if table not in self._pools:
            self._pools[table] = ThreadPoolExecutor(1, thread_name_prefix=f"ofc-write-{table}")
        self._pending.append(self._pools[table].submit(self.writer.write, table, data))

    def drain(self) -> None:
        """Write every row so far and wait for the writes (the pools stay for more)."""
        for table in list(self._gathered):
            self._submit(table)
        while self._pending:
            result_of(self._pending.popleft())

    def _drain(self) -> None:
        try:
            self.drain()
        finally:
            for pool in self._pools.values():
                pool.shutdown()

    def commit(
        self, summary: dict[str, Any], sources: list[dict[str, Any]], extra: dict[str, Any] | None = None
    ) -> dict[str, Any]:
        self._drain()
        return self.writer.commit(summary, sources, extra)

    def abort(self) -> None:
        """Throw the batch away: writes not started are cancelled, the running ones finish (the files they write
        to are about to be closed), their errors are dropped (the error that ended the batch is raised already),
        and the staging goes, even if a second interrupt comes meanwhile."""
        try:
            self._gathered.clear()
            for future in self._pending:
                future.cancel()
            for pool in self._pools.values():
                pool.shutdown(wait=True, cancel_futures=True)
        finally:
            self._pending.clear()
            self.writer.abort()


def _conflicts(hands: pa.Table, status: np.ndarray) -> list[Problem]:
    """A problem for each hand that conflicts with one already there (rare: a loop over those alone)."""
    rows = np.flatnonzero((status != NEW) & (status != DUPLICATE) & (status != REPLACES))
    if not rows.size:
        return []
    picked = hands.take(pa.array(rows)).select(["hand_id", "session", "source", "source_line"]).to_pylist()
    kinds = status[rows].tolist()
    return [
        Problem(r["source_line"], 0, conflict_reason(kind, r["hand_id"], r["session"], r["source"]), r["hand_id"])
        for kind, r in zip(kinds, picked, strict=True)
    ]


def _take(
    chunk: Chunk,
    name: str,
    report: FileReport,
    keys: Known,
    writer: BackgroundWriter | None,
    batch: str,
    fix: Corrections | None = None,
    on_problems: Callable[[str, list[Problem]], None] | None = None,
) -> None:
    v = validate(chunk, name, batch)
    hands = v.hands
    status = keys.classify(
        hands.column("hand_key").to_numpy(),
        hands.column("content_hash").to_numpy(),
        hands.column("record_hash").to_numpy(),
        hands.column("source_line").to_numpy(),
        replace=fix is not None,
    )
    if fix is not None:
        fix.take(hands, status)
    keep = (status == NEW) | (status == REPLACES)
    problems = chunk.problems + v.problems + _conflicts(hands, status)
    report.read += chunk.count
    report.quarantined += len(problems)
    report.accepted += int(keep.sum())
    report.duplicates += int((status == DUPLICATE).sum())
    report.reasons.update(reason_kind(p.reason) for p in problems)
    report.notes += chunk.notes
    if problems and on_problems is not None:
        on_problems(name, problems)
    if writer is None:
        return
    every = bool(keep.all())  # the usual case: nothing to filter out, and the tables are passed on as they are
    writer.write("hands", v.hands if every else v.hands.filter(pa.array(keep)))
    writer.write("boards", v.boards if every else v.boards.filter(pa.array(keep[v.board_hand])))
    writer.write("placements", v.placements if every else v.placements.filter(pa.array(keep[v.placement_hand])))
    if problems:
        writer.write("quarantine", _quarantine_rows(problems, name, batch))
