"""Producing a stream's next items on another thread while the consumer works on the current one."""

from __future__ import annotations

from collections import deque
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor, wait
from typing import TypeVar

T = TypeVar("T")


def ahead(items: Iterator[T], pool: ThreadPoolExecutor, depth: int = 2) -> Iterator[T]:
    """``items`` produced in ``pool``'s thread (one thread keeps their order), ``depth`` ahead of the consumer.

    Worth it where both sides spend their time in code that releases the GIL (compiled kernels, Arrow,
    Parquet): a reader ahead of a scorer, a simulator ahead of the checks and the writer.

    The consumer may stop early: the items already asked for are waited for (and their errors dropped)
    before this returns, so nothing still reads from a stream the consumer is about to close.
    """
    pending = deque(pool.submit(next, items, None) for _ in range(depth))
    try:
        while (item := pending.popleft().result()) is not None:
            pending.append(pool.submit(next, items, None))
            yield item
    finally:
        wait(pending)
