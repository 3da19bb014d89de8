"""Run compiled kernels on one thread when their work is small.

Waking numba's worker threads costs little on an idle machine but milliseconds
on a busy one (a parallel launch waits until every worker has been
scheduled), and the simulator launches kernels thousands of times a run,
often on a few tables. Work estimated below :data:`PARALLEL_US` runs on the
calling thread; larger work gets every thread. ``numba.set_num_threads`` is
per calling thread and restored on exit, so nothing else is affected.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import numba

PARALLEL_US = 20_000.0
"""Estimated microseconds of work from which a kernel is worth spreading over threads."""


@contextmanager
def threads_for(work_us: float, parallel_us: float = PARALLEL_US) -> Iterator[None]:
    """Kernels called inside run on one thread when ``work_us`` (estimated microseconds) is below
    ``parallel_us``; a caller whose launches are few and long may set its own threshold."""
    if work_us >= parallel_us:
        yield
        return
    before = numba.get_num_threads()
    numba.set_num_threads(1)
    try:
        yield
    finally:
        numba.set_num_threads(before)
