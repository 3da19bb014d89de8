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
    "Known",
    "SortedMap",
    "conflict_reason",
]

NEW, DUPLICATE, CONFLICT_CARDS, CONFLICT_DETAILS, CONFLICT_DEAL, REPLACES = range(6)
"""What an incoming hand is, as :meth:`Known.classify` codes it. ``REPLACES``: a corrected version of a hand the
lake holds, when corrections are asked for (``ofc ingest --replace``): accepted, and the old version removed."""
UNKNOWN_RECORD = np.uint64(0)
"""The record hash of a hand committed before records were hashed: its deal alone says whether it is the same."""


class SortedMap:
    """A growing map of distinct uint64 keys to uint64 values: sorted runs searched by bisection, merged like a
    binary counter (a run merges with the one before when that one is at most twice its size), so that a run
    of millions of hands never re-sorts all it has seen."""

    def __init__(self, keys: np.ndarray, values: np.ndarray) -> None:
        self.runs: list[tuple[np.ndarray, np.ndarray]] = []
        self.add(keys, values)

    def find(self, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(found, value) per key; the value is 0 where not found."""
        found = np.zeros(keys.size, dtype=bool)
        values = np.zeros((keys.size,), dtype=np.uint64)
        for run_keys, run_values in self.runs:
            pos = np.minimum(np.searchsorted(run_keys, keys), run_keys.size - 1)
            hit = run_keys[pos] == keys
            values[hit] = run_values[pos[hit]]
            found |= hit
        return found, values

    def update(self, keys: np.ndarray, values: np.ndarray) -> None:
        """Give keys already in the map new values."""
        for run_keys, run_values in self.runs:
            pos = np.minimum(np.searchsorted(run_keys, keys), run_keys.size - 1)
            hit = run_keys[pos] == keys
            run_values[pos[hit]] = values[hit]

    def add(self, keys: np.ndarray, values: np.ndarray) -> None:
        """Remember ``keys`` (the first value of a key given twice), which must not be in the map yet."""
        if not keys.size:
            return
        order = np.argsort(keys, kind="stable")
        keys, values = keys[order], values[order]
        first = np.r_[True, keys[1:] != keys[:-1]]
        self.runs.append((keys[first], values[first]))
        while len(self.runs) > 1 and self.runs[-2][0].size <= 2 * self.runs[-1][0].size:
            k2, v2 = self.runs.pop()
            k1, v1 = self.runs[-1]
            keys, values = np.concatenate([k1, k2]), np.concatenate([v1, v2])
            order = np.argsort(keys, kind="stable")
            self.runs[-1] = (keys[order], values[order])


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
    _maps: tuple[SortedMap, SortedMap] | None = None

    @property
    def maps(self) -> tuple[SortedMap, SortedMap]:
        """(key -> the position of its (deal, record) in ``_pairs``, deal -> record)."""
        if self._maps is None:
            none = np.zeros(0, np.uint64)
            key, deal, record = self.load() if self.load is not None else (none, none, none)
            self._pairs = [np.stack([deal, record], axis=1)] if key.size else []
            self._offset = int(key.size)
            self._maps = (
                SortedMap(key, np.arange(key.size, dtype=np.uint64)),
                SortedMap(deal, record),
            )
        return self._maps

    def _pair(self, positions: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        pairs = np.concatenate(self._pairs) if len(self._pairs) > 1 else self._pairs[0]
        self._pairs = [pairs]
        rows = pairs[positions.astype(np.int64)]
        return rows[:, 0], rows[:, 1]

    def classify(
        self, key: np.ndarray, deal: np.ndarray, record: np.ndarray, line: np.ndarray, replace: bool = False
    ) -> np.ndarray:
        """Each hand's status (``NEW``, ``DUPLICATE``, a conflict, or with ``replace`` ``REPLACES``); the hands
        accepted are remembered."""
        by_key, by_deal = self.maps
        n = key.size
        key_found, position = by_key.find(key)
        key_deal = np.zeros(n, np.uint64)
        key_record = np.zeros(n, np.uint64)
        if key_found.any():
            key_deal[key_found], key_record[key_found] = self._pair(position[key_found])
        deal_found, deal_record = by_deal.find(deal)
        status = np.empty(n, np.int8)
        order = np.argsort(line, kind="stable")
        _classify(order, key, deal, record, key_found, key_deal, key_record, deal_found, deal_record, replace, status)
        new = np.flatnonzero(status == NEW)
        if new.size:
            by_key.add(key[new], np.arange(self._offset, self._offset + new.size, dtype=np.uint64))
            self._pairs.append(np.stack([deal[new], record[new]], axis=1))
            self._offset += int(new.size)
            by_deal.add(deal[new], record[new])
        fixed = np.flatnonzero(status == REPLACES)  # known keys: their new version is the one to compare with now
        if fixed.size:
            by_key.update(key[fixed], np.arange(self._offset, self._offset + fixed.size, dtype=np.uint64))
            self._pairs.append(np.stack([deal[fixed], record[fixed]], axis=1))
            self._offset += int(fixed.size)
            known_deal, _ = by_deal.find(deal[fixed])
            by_deal.add(deal[fixed][~known_deal], record[fixed][~known_deal])
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
