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
import re
import threading
import zipfile
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ofc.pipeline import __version__
from ofc.pipeline.errors import InputError
from ofc.pipeline.ingest.base import Chunk, Ingester, Problem
from ofc.pipeline.ingest.digests import DigestingFile, digest, settled
from ofc.pipeline.ingest.duplicates import DUPLICATE, NEW, REPLACES, Known, conflict_reason
from ofc.pipeline.ingest.formats import detect, ingester, reader_for
from ofc.pipeline.ingest.inputs import Source, sources
from ofc.pipeline.ingest.labels import SAMPLE, Labels, Recognised, label_by_variant, label_chunk, recognise
from ofc.pipeline.ingest.validate import validate
from ofc.pipeline.ingest.writer import BackgroundWriter
from ofc.pipeline.lake.edit import remove_hands
from ofc.pipeline.lake.store import Lake
from ofc.pipeline.read_ahead import ahead, result_of
from ofc.pipeline.rules.native import VARIANT_PRESETS
from ofc.schemas.rules import Variant

if TYPE_CHECKING:
    from ofc.schemas.rules import RuleSet

READ_AHEAD = 2
"""Chunks read ahead of the one being checked: each holds its lines' bytes and columns (tens of MB)."""


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


@dataclass(frozen=True)
class Reading:
    """How a run reads its files and says what it read: the format (None: each file's own), the labels of every
    hand, a format's reader for this run (a scoresheet's given a ``--map``), and whom to tell of progress and of
    the records not accepted."""

    fmt: str | None = None
    labels: Labels = field(default_factory=Labels)
    readers: Mapping[str, Ingester] | None = None
    on_progress: Callable[[str, int, int], None] | None = None
    on_problems: Callable[[str, list[Problem]], None] | None = None


@dataclass(frozen=True)
class Into:
    """Where a run's accepted hands go: the hands already known (the lake's, then this run's), the batch's writer
    and id (no writer: a validation, nothing written), and the corrections a ``--replace`` run collects."""

    keys: Known
    writer: BackgroundWriter | None
    batch: str
    fix: Corrections | None = None


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
    reading = Reading(fmt, labels or Labels(), readers, on_progress, on_problems)
    if lake is None:
        return _run(found, None, reading, against=against)
    with lake.locked():
        lake.collect_garbage()
        return _run(found, lake, reading, fix=Corrections() if replace else None)


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
                _take(chunk, source, report, Into(keys, writer, writer.batch))
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
    reading: Reading,
    *,
    fix: Corrections | None = None,
    against: Lake | None = None,
) -> IngestReport:
    on_progress = reading.on_progress
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
            hashed: DigestingFile | None = None
            if lake is not None and source.raw not in digests:
                if skip_seen and done:
                    # It may be a file the lake took: its digest first, and if it was, it is passed over at once.
                    digests[source.raw] = hashing.submit(digest, source.raw, stop)
                elif source.whole:
                    hashed = DigestingFile(source.raw)  # no file it could be: hashed as it is read
                else:
                    digests[source.raw] = hashing.submit(digest, source.raw, stop)
            if skip_seen and done and already():
                continue
            try:
                report.format = reading.fmt or detect(source, reading.readers)
                reader = reader_for(report.format, reading.readers)
                _ingest_source(source, report, reader, Into(keys, writer, batch, fix), reading, hashed)
            except (InputError, OSError, EOFError, zipfile.BadZipFile, gzip.BadGzipFile) as exc:
                report.error = str(exc)
                if not report.read:
                    continue
                # It failed part way (a truncated archive): what it held before stays in the batch, and the
                # manifest lists the file with its counts and the error, like any other.
            finally:
                if hashed is not None and (whole := hashed.digest()) is not None:
                    digests[source.raw] = settled(whole)
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
            if reading.labels.rule_set is not None:  # the lake learns the rules these hands were played by
                extra = {**(extra or {}), "rule_sets": [reading.labels.rule_set.model_dump(mode="json")]}
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
    source: Source, report: FileReport, reader: Ingester, into: Into, reading: Reading, hashed: DigestingFile | None
) -> None:
    """Read one source into the batch.

    Labels given for the files, or found by recognising the preset that reproduces the file's recorded points,
    are applied to every record before it is checked. ``hashed``: the file opened to be hashed as it is read.
    """
    labels = reading.labels
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
                _take(chunk, source.name, report, into, reading.on_problems)
                consumed += chunk.bytes_read
                if not sized and chunk.count and consumed:
                    # The hands still to come, judged by the first chunk: the maps of those seen are made that
                    # large at once, not doubled as they fill (their work over 1.65 M hands: 0.4 s, not 0.9).
                    into.keys.reserve(int(max(source.size - consumed, 0) / consumed * chunk.count))
                    sized = True
                if reading.on_progress:
                    reading.on_progress(source.name, min(consumed, source.size), report.read)
        finally:
            chunks.close()


def _recognise(source: Source, reader: Ingester, labels: Labels, said: dict[str, str]) -> Recognised:
    """The preset that reproduces the recorded points of the file's first hands (``SAMPLE``, among at most
    ``_LOOKED_AT`` records), the command line's labels applied first."""
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
    into: Into,
    on_problems: Callable[[str, list[Problem]], None] | None = None,
) -> None:
    keys, writer, batch, fix = into.keys, into.writer, into.batch, into.fix
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
