"""Auto-import: folders watched, and each history file ingested once it has stopped changing.

A file is read only when it has held still: the same size and modification time
for ``settle`` seconds since it was last seen to change. A line format (JSON
lines, CSV, a log) whose last byte is not a line end is given five times as
long, since a writer that pauses mid-line would otherwise be read half. Names
that writers use while a file is in the making are passed over (``.part``,
``.tmp``, ``.crdownload``, ``~`` and dot files); a file written under such a
name and then renamed is read under its final name.

Files that settle together go into the lake as one batch, like one ``ofc
ingest`` of them. A file that changes after it was read is read again: the
hands it held before are duplicates, the new ones are accepted (or, with
``--replace``, a changed hand replaces its earlier version). A file whose bytes
did not change is recognised by its digest and not parsed again.

Files already in the folders when the watch starts are read first, once they
too have held still. The events come from ``watchfiles`` (the operating
system's notifications, through Rust's ``notify``).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

import watchfiles

from ofc.pipeline.errors import InputError, OfcError
from ofc.pipeline.ingest.ingest_run import IngestReport
from ofc.pipeline.ingest.inputs import history_file, is_lake, sources

SETTLE = 2.0
"""Seconds a file must hold still before it is read."""
UNFINISHED_FACTOR = 5
"""How much longer a line format whose last byte is not a line end must hold still."""
LINE_SUFFIXES = frozenset({".jsonl", ".ndjson", ".csv", ".tsv", ".log", ".txt"})
TICK = 0.25
"""Seconds between two looks at the files waiting to settle."""

__all__ = ["SETTLE", "Settling", "WatchError", "WatchTotals", "wanted", "watch"]


def wanted(path: Path) -> bool:
    """Whether a file is a history file to read, as a directory walk decides (``inputs.history_file``)."""
    return history_file(path)


@dataclass
class _Seen:
    size: int
    mtime: int
    since: float


class Settling:
    """The files seen changing, each ready once its size and modification time have held still long enough."""

    def __init__(self, settle: float = SETTLE, clock: Callable[[], float] = time.monotonic) -> None:
        self.settle = settle
        self.clock = clock
        self.waiting: dict[Path, _Seen] = {}

    def saw(self, path: Path) -> None:
        """A change to ``path`` (made, written, renamed to): its clock starts again."""
        path = path.resolve()
        try:
            stat = path.stat()
        except OSError:  # gone again, or not readable yet
            self.waiting.pop(path, None)
            return
        self.waiting[path] = _Seen(stat.st_size, stat.st_mtime_ns, self.clock())

    def gone(self, path: Path) -> None:
        self.waiting.pop(path.resolve(), None)

    def ready(self) -> list[Path]:
        """The waiting files that have held still long enough, in name order; they stop waiting."""
        now = self.clock()
        out = []
        for path, seen in list(self.waiting.items()):
            try:
                stat = path.stat()
            except OSError:
                del self.waiting[path]
                continue
            if (stat.st_size, stat.st_mtime_ns) != (seen.size, seen.mtime):
                self.waiting[path] = _Seen(stat.st_size, stat.st_mtime_ns, now)
                continue
            if now - seen.since >= self.settle * (UNFINISHED_FACTOR if _unfinished(path, stat.st_size) else 1):
                out.append(path)
                del self.waiting[path]
        return sorted(out)


def _unfinished(path: Path, size: int) -> bool:
    """A line format whose last byte is not a line end: a writer may be in the middle of a line."""
    if size == 0 or path.suffix.lower() not in LINE_SUFFIXES:
        return False
    try:
        with path.open("rb") as fh:
            fh.seek(size - 1)
            return fh.read(1) not in (b"\n", b"\r")
    except OSError:
        return False


@dataclass
class WatchTotals:
    """What the watch has done so far: the live counters."""

    batches: int = 0
    files: int = 0
    read: int = 0
    accepted: int = 0
    quarantined: int = 0
    duplicates: int = 0
    errors: int = 0
    """Files that could not be read to their end."""
    waiting: int = 0
    """Files seen changing that have not held still long enough yet."""
    last: list[str] = field(default_factory=list)
    """The files of the last batch."""

    def add(self, report: IngestReport) -> None:
        t = report.totals
        self.batches += report.batch is not None
        self.files += len(report.files)
        self.read += t.read
        self.accepted += t.accepted
        self.quarantined += t.quarantined
        self.duplicates += t.duplicates
        self.errors += sum(bool(f.error) for f in report.files)
        self.last = [f.source for f in report.files]


class WatchError(InputError):
    """A watched folder or file that went away: the watch cannot go on."""


class _Roots:
    """What is watched: folders (recursively, but not the lakes or hidden folders inside them) and files."""

    def __init__(self, roots: list[Path], exclude: Iterable[Path]) -> None:
        self.given = roots
        self.folders = [root.resolve() for root in roots if root.is_dir()]
        self.named = {root.resolve() for root in roots if root.is_file()}
        self.exclude = [path.resolve() for path in exclude]

    def wants(self, path: Path) -> bool:
        """A file named on the command line, or a history file in a watched folder outside any lake."""
        whole = path.resolve()
        if whole in self.named:
            return True
        folder = next((f for f in self.folders if whole.is_relative_to(f)), None)
        if folder is None or any(whole.is_relative_to(e) for e in self.exclude):
            return False
        inside = whole.relative_to(folder).parts[:-1]
        if any(part.startswith(".") for part in inside):
            return False
        return wanted(whole) and not any(is_lake(parent) for parent in whole.parents if parent.is_relative_to(folder))

    def files(self, under: Path | None = None) -> list[Path]:
        """The files to read in the folders (or in ``under``, a folder that appeared in one), and those named."""
        tops = [under] if under is not None else [*self.folders, *self.named]
        found = []
        for top in tops:
            candidates = sorted(top.rglob("*")) if top.is_dir() else [top]
            found.extend(p for p in candidates if p.is_file() and self.wants(p))
        return found

    def missing(self) -> list[Path]:
        return [root for root in self.given if not root.exists()]


def _readable(files: list[Path]) -> tuple[list[Path], list[tuple[Path, OfcError]]]:
    """The files whose inputs can be listed (a zip's members), and the others with why: a broken archive is its
    own error, not its batch's."""
    good, bad = [], []
    for path in files:
        try:
            list(sources(path))
        except (InputError, OSError) as exc:
            bad.append((path, exc if isinstance(exc, OfcError) else InputError(f"{path}: {exc}")))
        else:
            good.append(path)
    return good, bad


def watch(
    roots: list[Path],
    ingest_files: Callable[[list[Path]], IngestReport],
    *,
    settle: float = SETTLE,
    stop: threading.Event | None = None,
    exclude: Iterable[Path] = (),
    on_batch: Callable[[IngestReport, WatchTotals], None] | None = None,
    on_tick: Callable[[WatchTotals], None] | None = None,
    on_error: Callable[[OfcError, list[Path]], None] | None = None,
) -> WatchTotals:
    """Watch ``roots`` (folders, recursively, or files) until ``stop`` is set or Ctrl-C, handing each group of
    settled files to ``ingest_files`` (which commits them as one batch); nothing under ``exclude`` (the lake
    written to) is read.

    ``on_batch`` hears of each batch, ``on_tick`` of the counters a few times a second, ``on_error`` of what
    could not be read: a file that cannot be opened at all (a broken archive) is left until it changes again,
    and a batch that could not be made (the lake busy with another writer, say) waits to settle and is tried
    anew. A root that goes away ends the watch with :class:`WatchError`. A KeyboardInterrupt is raised as it
    comes: the caller says what was committed."""
    totals = WatchTotals()
    settling = Settling(settle)
    watched = _Roots(roots, exclude)
    changes_seen = watchfiles.watch(
        *sorted({*watched.folders, *(path.parent for path in watched.named)}),
        stop_event=stop,
        yield_on_timeout=True,
        rust_timeout=int(TICK * 1000),
        debounce=int(TICK * 1000),
        step=50,
        recursive=bool(watched.folders),  # a file alone: its folder, not everything under it
    )
    started = False
    for changes in changes_seen:
        if not started:  # the watcher runs from the first wait on: files made during the scan are seen too
            started = True
            for path in watched.files():
                settling.saw(path)
        for change, name in changes:
            path = Path(name)
            if (
                change != watchfiles.Change.deleted
                and path.is_dir()
                and any(path.resolve().is_relative_to(f) for f in watched.folders)
            ):
                for inside in watched.files(path):  # a folder moved in brings no event for its files
                    settling.saw(inside)
            elif not watched.wants(path):
                continue
            elif change == watchfiles.Change.deleted:
                settling.gone(path)
            else:
                settling.saw(path)
        if gone := watched.missing():
            raise WatchError(f"--watch: {', '.join(map(str, gone))} went away; the watch ends")
        ready, broken = _readable(settling.ready())
        totals.waiting = len(settling.waiting)
        if broken:
            totals.errors += len(broken)
            for path, exc in broken:
                if on_error is not None:
                    on_error(exc, [path])
        if ready:
            try:
                report = ingest_files(ready)
            except OfcError as exc:
                for path in ready:
                    settling.saw(path)
                if on_error is not None:
                    on_error(exc, ready)
                continue
            totals.add(report)
            if on_batch is not None:
                on_batch(report, totals)
        if on_tick is not None:
            on_tick(totals)
    return totals
