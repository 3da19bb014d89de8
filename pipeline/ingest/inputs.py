"""The inputs under a path: history files found by a directory walk, gzip files and zip members opened, and
every decompression held to limits that stop a zip or gzip bomb."""

from __future__ import annotations

import gzip
import io
import zipfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

from ofc.pipeline.errors import InputError

__all__ = [
    "HISTORY_SUFFIXES",
    "MAX_INFLATED",
    "MAX_RATIO",
    "IngestError",
    "Source",
    "history_file",
    "is_lake",
    "sources",
]

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
