"""Output files written whole or not at all: an interrupt or an error leaves the file as it was."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO


@contextmanager
def written(path: Path) -> Iterator[BinaryIO]:
    """A stream whose bytes become ``path`` once the block ends without an error (a file beside it until then).

    A pipe or a device (``/dev/stdout``) is written as it goes: there is no file to keep.
    """
    if path.exists() and not path.is_file():
        with path.open("wb") as stream:
            yield stream
        return
    partial = path.with_name(f".{path.name}.partial")
    try:
        with partial.open("wb") as stream:
            yield stream
        os.replace(partial, path)
    finally:
        partial.unlink(missing_ok=True)
