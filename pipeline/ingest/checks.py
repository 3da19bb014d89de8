"""What a hand record is checked against: the limits and value sets that both the validator
(:mod:`pipeline.ingest.validate`) and the compiled JSONL scanner (:mod:`pipeline.ingest.jsonl_scan`) read.

The game's fixed facts (rows, seats, each variant's deal, table size and Fantasyland) are
:mod:`pipeline.game`'s; here they only take the shapes the checks look them up in: bounds, and arrays indexed
by a variant's code. What is here and not there is about records: the names a record may use and the integer
ranges the lake stores.

A variant's code is its place in :data:`VARIANT_NAMES`. Each per-variant array has one entry more than there
are variants, the last, so that the code -1 of a variant not known reads a value that allows nothing beyond
the general limits.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ofc.pipeline.game import BOARD, DEALS, PLACEMENT_ROWS, ROW_SIZES, VARIANTS, Deal
from ofc.schemas.rules import Natural, Variant

VARIANT_NAMES = tuple(v.value for v in Variant)
"""The variants a record may name; a variant's code is its place here."""
CLASSIC = VARIANT_NAMES.index(Variant.CLASSIC.value)
NATURAL_NAMES = tuple(n.value for n in Natural)
"""The naturals a classic record may declare."""

MIN_PLAYERS = 2
MAX_PLAYERS = max(f.max_players for f in VARIANTS.values())
"""The most players any variant seats (see MAX_PLAYERS_OF)."""

DISCARD_ROW = PLACEMENT_ROWS.index("discard")
"""The placement row of a discarded card; the rows before it are ROWS."""
ROW_OF_PLACE = np.array([row for row, size in enumerate(ROW_SIZES) for _ in range(size)], dtype=np.int64)
"""The row of each of a board's BOARD places (top 3, middle 5, bottom 5)."""

FIRST_STREET = 1
LAST_STREET = max(d.streets for d in DEALS.values())
"""No variant deals more streets."""

FANTASYLAND_DEALT = tuple(sorted(set().union(*(f.fantasyland_cards for f in VARIANTS.values()))))
"""Every number of cards a Fantasyland hand may be dealt, in some variant."""
MAX_DISCARDS = max(max([sum(f.deal.discarded), *(c - BOARD for c in f.fantasyland_cards)]) for f in VARIANTS.values())
"""The most cards a valid board discards (a normal Pineapple hand, or the largest Fantasyland)."""
MAX_DEALT = BOARD + MAX_DISCARDS
"""The most cards a valid board is dealt, and so the most placements it records."""

INT32_MAX = 2**31 - 1
POINTS_MAX = INT32_MAX
"""A player's recorded points are stored as int32: -POINTS_MAX..POINTS_MAX."""
STACK_MIN, STACK_MAX = 1, INT32_MAX
"""A player's stack, stored as int32."""

_FACTS = [VARIANTS[Variant(v)] for v in VARIANT_NAMES]


def _per_variant(values: list[int], unknown: int) -> np.ndarray:
    return np.array([*values, unknown], dtype=np.int64)


MAX_PLAYERS_OF = _per_variant([f.max_players for f in _FACTS], MAX_PLAYERS)
"""The most players each variant seats."""
FANTASYLAND_MASK = _per_variant([sum(1 << c for c in f.fantasyland_cards) for f in _FACTS], 0)
"""The Fantasyland card counts each variant deals, as bit masks (bit ``c`` for ``c`` cards); 0: no Fantasyland."""
NORMAL_DISCARDS = _per_variant([sum(f.deal.discarded) for f in _FACTS], 0)
"""Cards a board discards in a normal (not Fantasyland) hand of each variant."""


def _per_street(counts: Callable[[Deal], tuple[int, ...]]) -> np.ndarray:
    out = np.zeros((len(_FACTS) + 1, LAST_STREET + 1), dtype=np.int64)
    for code, f in enumerate(_FACTS):
        out[code, FIRST_STREET : FIRST_STREET + f.deal.streets] = counts(f.deal)
    return out


STREET_PLACED = _per_street(lambda deal: deal.placed)
"""``[variant, street]``: cards a normal board places on each street (streets from 1; column 0 is empty)."""
STREET_DISCARDED = _per_street(lambda deal: deal.discarded)
"""``[variant, street]``: cards a normal board discards on each street."""
