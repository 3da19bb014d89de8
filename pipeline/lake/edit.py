"""Removing hands from committed batches, copy-on-write: the corrections and removals a writer commits.

A committed file is never changed. A batch that loses hands gets new files holding its other rows (``carries``
in the writer's manifest), and the old files are hidden (``replaces``) at the same commit; the results scored
from that batch are hidden too, and the next ``ofc rescore`` scores what is left. Files hidden this way stay on
disk, for readers that listed them, until ``ofc lake vacuum``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from ofc.pipeline import __version__
from ofc.pipeline.errors import InputError
from ofc.pipeline.lake.batch_writer import BatchWriter
from ofc.pipeline.lake.snapshot import Snapshot
from ofc.pipeline.lake.store import Lake
from ofc.pipeline.suggest import closest

__all__ = ["HAND_TABLES", "EditError", "remove", "remove_batch", "remove_hands", "vacuum"]

HAND_TABLES = ("hands", "boards", "placements")
"""The tables that hold a hand's rows: a removed hand leaves all three."""


def remove_hands(snapshot: Snapshot, writer: BatchWriter, keys: dict[str, np.ndarray]) -> dict[str, int]:
    """Remove the hands ``keys[batch]`` of each batch (by hand key) at the writer's commit: hands removed per
    batch. Results scored from those batches are hidden until the next rescore."""
    removed: dict[str, int] = {}
    for batch, wanted in keys.items():
        if not wanted.size:
            continue
        gone = pa.array(np.unique(wanted.astype(np.uint64)))
        for relative in snapshot.batch_files(batch):
            table = relative.split("/", 1)[0]
            if table not in HAND_TABLES:
                continue
            path = snapshot.root / relative
            hit = pc.is_in(pq.read_table(path, columns=["hand_key"]).column("hand_key"), value_set=gone)
            if not pc.any(hit).as_py():
                continue
            rows = pq.read_table(path)
            writer.carry(relative, rows.filter(pc.invert(hit)), batch)
            if table == "hands":
                removed[batch] = removed.get(batch, 0) + int(pc.sum(hit).as_py())
        if removed.get(batch):
            writer.hide([f for c in snapshot.covers() if c.batch == batch for f in c.files()])
    return removed


def remove_batch(snapshot: Snapshot, writer: BatchWriter, batch: str) -> int:
    """Remove a whole batch: its files (and those rewritten for it) hidden, with the results scored from it.
    Hands removed (0 for a batch of results)."""
    files = snapshot.batch_files(batch)
    hands = sum(pq.ParquetFile(snapshot.root / f).metadata.num_rows for f in files if f.startswith("hands/"))
    writer.hide([f for f in files if not f.startswith("batches/")])
    writer.hide([f for c in snapshot.covers() if c.batch == batch for f in c.files()])
    return hands


class EditError(InputError):
    """A removal that names nothing the lake holds (the message lists the closest names)."""


def _closest(name: str, known: list[str]) -> str:
    near = closest(name, known, cutoff=0.4) or known[-3:]
    return f"closest: {', '.join(near)}" if near else "the lake holds none"


def remove(lake: Lake, batch: str | None = None, source: str | None = None) -> dict[str, Any]:
    """Remove a batch, or every hand read from a source file, with the results scored from them: one commit,
    recorded in the lake (``kind: remove``). Returns what the manifest records."""
    with lake.locked():
        lake.collect_garbage()
        snapshot = lake.snapshot()
        writer = lake.begin("remove")
        try:
            if batch is not None:
                what = _remove_batch(snapshot, writer, batch)
            elif source is not None:
                what = _remove_source(lake, snapshot, writer, source)
            else:
                raise EditError("name a batch or a source file to remove")
            zero = {"read": 0, "accepted": 0, "quarantined": 0, "duplicates": 0}
            writer.commit({**zero, "version": __version__}, [], {"removed": what})
            return {"batch": writer.batch, **what}
        except BaseException:
            writer.abort()
            raise


def _remove_batch(snapshot: Snapshot, writer: BatchWriter, batch: str) -> dict[str, Any]:
    found = next((m for m in snapshot.manifests if m["batch"] == batch), None)
    if found is None:
        raise EditError(f"no batch {batch!r} in the lake; {_closest(batch, [m['batch'] for m in snapshot.manifests])}")
    if found.get("kind") == "remove":
        raise EditError(f"batch {batch} records a removal: it cannot be removed itself")
    hands = remove_batch(snapshot, writer, batch)
    return {"batches": {batch: hands}, "hands": hands, "kind": found.get("kind", "")}


def _remove_source(lake: Lake, snapshot: Snapshot, writer: BatchWriter, source: str) -> dict[str, Any]:
    held = lake.read("hands", ["hand_key", "batch", "source_file"])
    files = pc.unique(held.column("source_file")).to_pylist()
    given = Path(source).resolve()
    matching = [f for f in files if f == source or Path(f).resolve() == given]
    if not matching:
        raise EditError(f"no hands were read from {source!r}; {_closest(source, sorted(files))}")
    rows = held.filter(pc.is_in(held.column("source_file"), value_set=pa.array(matching)))
    keys: dict[str, np.ndarray] = {}
    batches = rows.column("batch").to_numpy(zero_copy_only=False)
    hand_key = rows.column("hand_key").to_numpy()
    for b in np.unique(batches).tolist():
        keys[b] = hand_key[batches == b]
    removed = remove_hands(snapshot, writer, keys)
    return {"batches": removed, "hands": sum(removed.values()), "source": source}


def vacuum(lake: Lake, wait: float = 60.0) -> dict[str, int]:
    """Delete the files no reader can see any more (hidden by a later batch) and what crashed writers left.
    Waits up to ``wait`` seconds for processes reading the lake to finish: one may still hold such a file."""
    with lake.locked(), lake.exclusive(wait):
        files = size = 0
        leftovers = lake.collect_garbage()
        manifests = lake.manifests()
        live = {f for m in manifests for f in m["files"]} - {f for m in manifests for f in m.get("replaces", ())}
        for m in manifests:
            for relative in m.get("replaces", ()):
                path = lake.root / relative
                if relative not in live and path.is_file():
                    size += path.stat().st_size
                    path.unlink()
                    files += 1
        return {"files": files, "bytes": size, "leftovers": leftovers}
