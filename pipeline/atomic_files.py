"""Output files written whole or not at all: an interrupt or an error leaves the file as it was."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO

from ofc.pipeline.errors import InputError

__all__ = ["OutputPathError", "folders_up_to", "fsync", "written"]


class OutputPathError(InputError):
    """An output path that cannot be written: a folder, or under a file, or not permitted."""


@contextmanager
def written(path: Path) -> Iterator[BinaryIO]:
    """A stream whose bytes become ``path`` once the block ends without an error (a file beside it until then).

    The folders it goes in are made if missing (as ``mkdir -p``). A pipe or a device (``/dev/stdout``) is
    written as it goes: there is no file to keep.
    """
    if path.exists() and not path.is_file():
        if path.is_dir():
            raise OutputPathError(f"{path}: is a folder; give a file name")
        with path.open("wb") as stream:
            yield stream
        return
    partial = path.with_name(f".{path.name}.partial")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        stream = partial.open("wb")
    except OSError as exc:
        blocking = next((p for p in path.parents if p.exists() and not p.is_dir()), None)
        if blocking is not None:
            raise OutputPathError(f"{path}: cannot write: {blocking} is a file, not a folder") from None
        raise OutputPathError(f"{path}: cannot write: {exc.strerror or exc}") from None
    try:
        with stream:
            yield stream
        os.replace(partial, path)
    finally:
        partial.unlink(missing_ok=True)


def folders_up_to(path: Path, root: Path) -> list[Path]:
    """The folders from ``path``'s up to ``root``: each one's new entry must reach the disk."""
    out = []
    for parent in path.parents:
        out.append(parent)
        if parent == root:
            break
    return out


def fsync(path: Path) -> None:
    """Flush a file's data, or a folder's entries, to disk."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
