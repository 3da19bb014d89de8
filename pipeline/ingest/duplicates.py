"""Which incoming hands the lake already holds: new hands, true duplicates, and conflicts.

A hand is identified by its key (source, session, hand id) and described by two hashes: its deal (variant,
seats and cards: what was played) and its record (everything it records but its identity: the deal, times,
players, points, Fantasyland, placements). An incoming hand is

- a **duplicate** when a hand with its key, or with its deal under another key (a file renamed, so another
  session), is already there with the same record;
- a **conflict** when its key is there with another record (other cards, or the same cards with other
  points, players or times), or its deal is there under another key with another record: it is quarantined
  with the reason, never dropped and never merged (``ofc ingest --replace`` takes a corrected file);
- **new** otherwise.

"Already there" means in the lake or accepted earlier in the same run, in source order: a hand rejected
earlier in the run never makes a later one a duplicate.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from numba import njit, types
from numba.typed import Dict

__all__ = [
    "CONFLICT_CARDS",
    "CONFLICT_DEAL",
    "CONFLICT_DETAILS",
    "DUPLICATE",
    "NEW",
    "REPLACES",
    "KeyMap",
    "Known",
    "conflict_reason",
]

NEW, DUPLICATE, CONFLICT_CARDS, CONFLICT_DETAILS, CONFLICT_DEAL, REPLACES = range(6)
"""What an incoming hand is, as :meth:`Known.classify` codes it. ``REPLACES``: a corrected version of a hand the
lake holds, when corrections are asked for (``ofc ingest --replace``): accepted, and the old version removed."""
UNKNOWN_RECORD = np.uint64(0)
"""The record hash of a hand committed before records were hashed: its deal alone says whether it is the same."""


_FIBONACCI = np.uint64(0x9E3779B97F4A7C15)
"""2**64 over the golden ratio: a key times it is the key's bits spread evenly (Fibonacci hashing)."""
_S32 = np.uint64(32)
_EMPTY = np.uint64(0)
"""The key of an empty slot; the key 0 itself is kept beside the table."""


@njit(cache=True, nogil=True, inline="always")
def _slot(key: np.uint64, capacity: np.uint64) -> np.uint64:
    """Where a key's probe starts: its spread top 32 bits scaled to the table (any size, not only powers of two)."""
    return (((key * _FIBONACCI) >> _S32) * capacity) >> _S32


@njit(cache=True, nogil=True)
def _find(table: np.ndarray, keys: np.ndarray, found: np.ndarray, out: np.ndarray) -> None:
    capacity = np.uint64(table.shape[0])
    for i in range(keys.size):
        k = keys[i]
        if k == _EMPTY:
            continue
        s = _slot(k, capacity)
        while table[s, 0] != _EMPTY:
            if table[s, 0] == k:
                found[i] = True
                for c in range(out.shape[0]):
                    out[c, i] = table[s, c + 1]
                break
            s += np.uint64(1)
            if s == capacity:
                s = np.uint64(0)


@njit(cache=True, nogil=True)
def _put(table: np.ndarray, keys: np.ndarray, given: np.ndarray, update: bool) -> int:
    """Add each key not there with its values (a key given twice keeps its first); with ``update``, give each key
    that is there the values given instead. Returns how many keys were added."""
    capacity = np.uint64(table.shape[0])
    added = 0
    for i in range(keys.size):
        k = keys[i]
        if k == _EMPTY:
            continue
        s = _slot(k, capacity)
        while table[s, 0] != _EMPTY and table[s, 0] != k:
            s += np.uint64(1)
            if s == capacity:
                s = np.uint64(0)
        if (table[s, 0] == k) != update:
            continue
        if not update:
            table[s, 0] = k
            added += 1
        for c in range(given.shape[0]):
            table[s, c + 1] = given[c, i]
    return added


class KeyMap:
    """A growing map of distinct uint64 keys to a few uint64 values each: an open-addressing hash table, at most
    ``LOAD`` full, probed linearly, each slot's key and values side by side. A key is found in one read of
    memory, however many the map holds: over 1.65 M hands the sorted runs searched by bisection it replaces took
    2.3 s to classify them and 1.9 s to classify them again, this 0.4 s and 0.3 s (made large enough at once)."""

    LOAD = 0.5

    def __init__(self, width: int, keys: np.ndarray | None = None, values: np.ndarray | None = None) -> None:
        self.width = width
        self.size = 0
        self._zero: np.ndarray | None = None
        """The values of the key 0, which marks an empty slot in the table, if it is in the map."""
        self._alloc(1 << 10)
        if keys is not None:
            self.add(keys, values)  # type: ignore[arg-type]

    def _alloc(self, capacity: int) -> None:
        self._table = np.zeros((capacity, 1 + self.width), dtype=np.uint64)

    def reserve(self, more: int) -> None:
        """Make room for ``more`` keys at once: a map grown by doubling puts each key in again at every step."""
        self._room(more)

    def _room(self, more: int) -> None:
        if self.size + more <= self.LOAD * self._table.shape[0]:
            return
        # As large as the keys need, not the next power of two (36 MB less at 1.65 M hands).
        capacity = max(int((self.size + more) / self.LOAD) + 1, 2 * self._table.shape[0] if more < self.size else 0)
        old = self._table[self._table[:, 0] != _EMPTY]
        self._alloc(capacity)
        _put(self._table, old[:, 0].copy(), np.ascontiguousarray(old[:, 1:].T), False)

    def _given(self, keys: np.ndarray, values: np.ndarray) -> np.ndarray:
        return np.ascontiguousarray(np.asarray(values, dtype=np.uint64).reshape(self.width, keys.size))

    def find(self, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(found, values) per key: ``values`` is (width, keys), 0 where not found."""
        keys = np.ascontiguousarray(keys, dtype=np.uint64)
        found = np.zeros(keys.size, dtype=np.bool_)
        out = np.zeros((self.width, keys.size), dtype=np.uint64)
        _find(self._table, keys, found, out)
        if self._zero is not None:
            zero = keys == _EMPTY
            found[zero] = True
            out[:, zero] = self._zero[:, None]
        return found, out

    def add(self, keys: np.ndarray, values: np.ndarray) -> None:
        """Remember ``keys`` with ``values`` (width, keys); a key already there, or given twice, keeps its first."""
        keys = np.ascontiguousarray(keys, dtype=np.uint64)
        given = self._given(keys, values)
        self._room(keys.size)
        self.size += _put(self._table, keys, given, False)
        if self._zero is None and (zero := np.flatnonzero(keys == _EMPTY)).size:
            self._zero = given[:, zero[0]].copy()

    def update(self, keys: np.ndarray, values: np.ndarray) -> None:
        """Give keys already in the map new values (width, keys)."""
        keys = np.ascontiguousarray(keys, dtype=np.uint64)
        given = self._given(keys, values)
        _put(self._table, keys, given, True)
        if self._zero is not None and (zero := np.flatnonzero(keys == _EMPTY)).size:
            self._zero = given[:, zero[-1]].copy()


@njit(cache=True)
def _classify(
    order: np.ndarray,
    key: np.ndarray,
    deal: np.ndarray,
    record: np.ndarray,
    key_found: np.ndarray,
    key_deal: np.ndarray,
    key_record: np.ndarray,
    deal_found: np.ndarray,
    deal_record: np.ndarray,
    replace: bool,
    status: np.ndarray,
) -> None:
    """Each hand's status, taking the hands in ``order`` (source order) one after another, so that a hand is
    compared with the hands accepted before it in the same chunk as well as with the lake's."""
    by_key = Dict.empty(key_type=types.uint64, value_type=types.int64)
    by_deal = Dict.empty(key_type=types.uint64, value_type=types.int64)
    for i in order:
        found, ref_deal, ref_record = key_found[i], key_deal[i], key_record[i]
        in_run = key[i] in by_key  # accepted earlier in the chunk: a correction's new version comes first
        if in_run:
            j = by_key[key[i]]
            found, ref_deal, ref_record = True, deal[j], record[j]
        if found:
            if ref_record == record[i] or (ref_record == 0 and ref_deal == deal[i]):
                status[i] = 1  # DUPLICATE
            elif replace and not in_run:  # a correction of the lake's version (not of one earlier in the run)
                status[i] = 5  # REPLACES
                by_key[key[i]] = i
                by_deal[deal[i]] = i
            elif ref_deal != deal[i]:
                status[i] = 2  # CONFLICT_CARDS
            else:
                status[i] = 3  # CONFLICT_DETAILS
            continue
        found, ref_record = deal_found[i], deal_record[i]
        if not found and deal[i] in by_deal:
            found, ref_record = True, record[by_deal[deal[i]]]
        if found:
            status[i] = 1 if ref_record == record[i] or ref_record == 0 else 4  # DUPLICATE or CONFLICT_DEAL
            continue
        status[i] = 0  # NEW
        by_key[key[i]] = i
        by_deal[deal[i]] = i


@dataclass
class Known:
    """The hands the lake holds and those accepted so far in this run, by key and by deal.

    The lake's are read when first needed: a run whose files were all ingested before never reads them.
    """

    load: Callable[[], tuple[np.ndarray, np.ndarray, np.ndarray]] | None = None
    """(hand keys, deal hashes, record hashes) of the committed hands."""
    _maps: tuple[KeyMap, KeyMap] | None = None

    @property
    def maps(self) -> tuple[KeyMap, KeyMap]:
        """(key -> (deal, record), deal -> record)."""
        if self._maps is None:
            none = np.zeros(0, np.uint64)
            key, deal, record = self.load() if self.load is not None else (none, none, none)
            self._maps = (KeyMap(2, key, np.stack([deal, record])), KeyMap(1, deal, record))
        return self._maps

    def reserve(self, hands: int) -> None:
        """Make room for about ``hands`` more hands (the rest of a file, judged by its first chunk)."""
        for table in self.maps:
            table.reserve(hands)

    def classify(
        self, key: np.ndarray, deal: np.ndarray, record: np.ndarray, line: np.ndarray, replace: bool = False
    ) -> np.ndarray:
        """Each hand's status (``NEW``, ``DUPLICATE``, a conflict, or with ``replace`` ``REPLACES``); the hands
        accepted are remembered."""
        by_key, by_deal = self.maps
        key_found, (key_deal, key_record) = by_key.find(key)
        deal_found, (deal_record,) = by_deal.find(deal)
        status = np.empty(key.size, np.int8)
        order = np.argsort(line, kind="stable")
        _classify(order, key, deal, record, key_found, key_deal, key_record, deal_found, deal_record, replace, status)
        new = np.flatnonzero(status == NEW)
        if new.size:
            by_key.add(key[new], np.stack([deal[new], record[new]]))
            by_deal.add(deal[new], record[new])
        fixed = np.flatnonzero(status == REPLACES)  # known keys: their new version is the one to compare with now
        if fixed.size:
            by_key.update(key[fixed], np.stack([deal[fixed], record[fixed]]))
            by_deal.add(deal[fixed], record[fixed])  # a deal already known keeps its record, as it did
        return status


def conflict_reason(status: int, hand_id: str, session: str | None, source: str | None) -> str:
    """Why a conflicting hand is quarantined, in words a player can act on."""
    where = f"hand {hand_id} of session {session!r}" if session else f"hand {hand_id}"
    where += f" from {source}" if source else ""
    fix = "; to correct it, ingest the corrected file with --replace"
    if status == CONFLICT_CARDS:
        return f"{where} was imported before with other cards{fix}"
    if status == CONFLICT_DETAILS:
        return f"{where} was imported before with the same cards but other points, players or times{fix}"
    return f"{where}: the same cards and seats as a hand already imported under another id, with other details"
