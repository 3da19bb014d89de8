"""Where the lines of a block of JSONL end, found by compiled code.

The reader cuts every block it reads at its newlines before a line is parsed: the one pass over every byte of
the input that is not the scan itself, and the first thing a slow reader would spend its time on.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ofc.pipeline.ingest.jsonl_tokens import word8
from ofc.pipeline.raw_pointers import address, load8

_NEWLINES = word8(b"\n" * 8)
_LOW7 = word8(b"\x7f" * 8)


@njit(cache=True, nogil=True)
def _newline_positions(data: np.ndarray, out: np.ndarray) -> int:
    """Positions of the newlines of ``data`` into ``out`` while it has room; returns how many there are.

    Eight bytes a step, the word skipped whole unless one of its bytes is a newline: lines are long, so
    nearly every word is skipped. Far cheaper than comparing every byte into a temporary array.
    """
    buf = address(data)
    n = data.size
    room = out.size
    found = 0
    p = 0
    while p + 8 <= n:
        x = load8(buf, p) ^ _NEWLINES
        # The high bit of a byte is set where x has a zero byte, where the byte was a newline (exactly).
        if ~(((x & _LOW7) + _LOW7) | x | _LOW7) != 0:
            for k in range(8):
                if buf[p + k] == 10:
                    if found < room:
                        out[found] = p + k
                    found += 1
        p += 8
    while p < n:
        if buf[p] == 10:
            if found < room:
                out[found] = p
            found += 1
        p += 1
    return found


def newlines(data: np.ndarray) -> np.ndarray:
    """Positions of the newline bytes of ``data`` (``uint8``), ascending."""
    out = np.empty(data.size // 256 + 64, dtype=np.int64)
    found = _newline_positions(data, out)
    if found > out.size:  # short lines: once more, with room for all of them
        out = np.empty(found, dtype=np.int64)
        _newline_positions(data, out)
    return out[:found]
