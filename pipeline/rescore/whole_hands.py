"""Boards grouped into whole hands: the unit every scoring step needs, whatever the batches look like.

A hand's boards must be scored together. The lake stores them next to each other, but a read of fixed
size (or a partition of a distributed engine) may cut a hand in two; these helpers find the hands in a
batch and regroup a stream so that no hand is ever split. No I/O, no engine: cheap to import.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

import numpy as np
import pyarrow as pa


def hand_keys(batch: pa.RecordBatch) -> np.ndarray:
    """The ``hand_key`` column as uint64 (read-only when Arrow shares its memory)."""
    return batch.column("hand_key").to_numpy(zero_copy_only=False).astype(np.uint64, copy=False)


def run_starts(keys: np.ndarray) -> np.ndarray:
    """Where each run of equal keys begins: the hands, when each hand's boards are adjacent."""
    return np.flatnonzero(np.r_[True, keys[1:] != keys[:-1]]) if keys.size else np.zeros(0, np.int64)


def in_key_order(batch: pa.RecordBatch) -> tuple[pa.RecordBatch, np.ndarray]:
    """The batch with its hands in key order, each hand's boards together in the order they had, and where each
    row was: results written in key order take a third fewer bytes for their keys (sorted keys delta-encode), and
    a reader of a few hands finds them by key."""
    keys = hand_keys(batch)
    if keys.size < 2 or bool((keys[1:] >= keys[:-1]).all()):
        return batch, np.arange(keys.size)
    order = np.argsort(keys, kind="stable")
    return batch.take(pa.array(order)), order


def grouped(batch: pa.RecordBatch) -> pa.RecordBatch:
    """The batch with each hand's boards next to each other: as it is when they already are (the lake's case)."""
    keys = hand_keys(batch)
    firsts = np.sort(keys[run_starts(keys)])
    if not (firsts[1:] == firsts[:-1]).any():
        return batch
    return batch.take(pa.array(np.argsort(keys, kind="stable")))


def whole_hands(batches: Iterable[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
    """Batches of whole hands from a stream in which each hand's boards are adjacent but may straddle two
    batches (a file read in fixed-size pieces, an engine's partition): each trailing hand waits for the next."""
    held: pa.RecordBatch | None = None
    for batch in batches:
        if held is not None:
            batch = pa.concat_batches([held, batch])
        keys = hand_keys(batch)
        last = int(run_starts(keys)[-1]) if keys.size else 0
        if last > 0:
            yield batch.slice(0, last)
        held = batch.slice(last)
    if held is not None and held.num_rows:
        yield held
