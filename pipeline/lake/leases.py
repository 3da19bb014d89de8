"""Readers' leases on a lake: a process that has read a lake holds a shared lock until it exits, so that a vacuum
never deletes a file it may still read."""

from __future__ import annotations

import fcntl
import threading
from pathlib import Path
from typing import Any

__all__ = ["READERS", "READ_LEASES", "ReadLeases"]

READERS = ".readers"
"""The file a reading process holds a shared lock on; a vacuum takes it exclusively."""


class ReadLeases:
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


READ_LEASES = ReadLeases()
