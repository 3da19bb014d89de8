"""Producing a stream's next items on another thread while the consumer works on the current one."""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor, wait
from typing import TypeVar

import numba

T = TypeVar("T")

POLL_SECONDS = 0.1
"""How often a thread waiting for another's result looks up to see whether it was interrupted."""


def serial_thread(name: str) -> ThreadPoolExecutor:
    """A one-thread pool whose compiled kernels run on that thread alone.

    For work that overlaps other threads' work: the overlap keeps the cores busy, so a kernel gains nothing
    from numba's worker threads there, and parallel regions opened from several threads at once are what
    numba's OpenMP layer has crashed on (rarely, under load). One parallel region at a time, or none, is its
    tested ground.
    """
    return ThreadPoolExecutor(1, thread_name_prefix=name, initializer=numba.set_num_threads, initargs=(1,))


def result_of(future: Future[T]) -> T:
    """``future.result()``, waited for in slices of :data:`POLL_SECONDS`.

    A wait without a timeout is not always woken by Ctrl-C (measured: not while the simulator's compiled
    kernels run on the other thread), so the interrupt would wait for the result, minutes of a slow
    simulation; a timed wait returns to the interpreter, which raises KeyboardInterrupt at once.
    """
    while True:
        try:
            return future.result(timeout=POLL_SECONDS)
        except TimeoutError:
            continue


def ahead(
    items: Iterator[T], pool: ThreadPoolExecutor, depth: int = 2, stop: threading.Event | None = None
) -> Iterator[T]:
    """``items`` produced in ``pool``'s thread (one thread keeps their order), ``depth`` ahead of the consumer.

    Worth it where both sides spend their time in code that releases the GIL (compiled kernels, Arrow,
    Parquet): a reader ahead of a scorer, a simulator ahead of the checks and the writer.

    The consumer may stop early (an error, an interrupt): the items not yet started are cancelled, ``stop``
    is set so that a producer that watches it ends the item it is making soon, and that item is waited for
    (its error dropped) before this returns, so nothing still reads from a stream the consumer is about to
    close.
    """
    pending = deque(pool.submit(next, items, None) for _ in range(depth))
    try:
        while (item := result_of(pending[0])) is not None:  # still pending if the wait is interrupted
            pending.popleft()
            pending.append(pool.submit(next, items, None))
            yield item
    finally:
        for future in pending:
            future.cancel()
        if stop is not None:
            stop.set()
        wait(pending)
