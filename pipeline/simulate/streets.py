"""How each dealing hands out cards street by street, and every way a street's cards can be placed.

The dealer, the bots and the record builder all read the same
:class:`~pipeline.game.Deal`: cards dealt, placed and discarded per street, and
for each card a player is dealt (in dealing order) the street it belongs to. A street's *actions* are
every assignment of its dealt cards to rows (0 top, 1 middle, 2 bottom, 3
discard) with the street's number of discards: 243 for a 5-card first street,
27 for a Pineapple street of 3, 3 for a single OFC card. Which of them fit
depends only on how full each row already is (``Actions.adds``).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from itertools import product

import numpy as np

from ofc.pipeline import game
from ofc.pipeline.game import DEALS, Deal
from ofc.schemas.rules import Dealing

TOP, MIDDLE, BOTTOM, DISCARD = range(4)
ROW_CAPS = np.array(game.ROW_SIZES, dtype=np.int64)
ROW_STARTS = np.array(game.ROW_STARTS, dtype=np.int64)


def streets_of(dealing: Dealing) -> Deal:
    """The street structure of a dealing (classic is one street of 13): the game's :data:`~pipeline.game.DEALS`."""
    return DEALS[dealing]


@dataclass(frozen=True)
class Actions:
    """Every placement of a street's ``k`` cards with ``discards`` of them discarded."""

    rows: np.ndarray
    """(A, k) uint8: the row each card goes to (3 = discard)."""
    adds: np.ndarray
    """(A, 3) int64: cards each action adds to top, middle and bottom."""
    masks: np.ndarray
    """(A, 3) int64: bit ``j`` set when card ``j`` goes to that row."""


@cache
def actions(k: int, discards: int) -> Actions:
    """All placements of ``k`` cards, ``discards`` of them discarded (cached: a few hundred rows at most)."""
    rows = np.array(
        [a for a in product(range(4), repeat=k) if sum(r == DISCARD for r in a) == discards], dtype=np.uint8
    ).reshape(-1, k)
    adds = np.stack([(rows == r).sum(axis=1) for r in range(3)], axis=1).astype(np.int64)
    bits = (1 << np.arange(k, dtype=np.int64))[None, :]
    masks = np.stack([((rows == r) * bits).sum(axis=1) for r in range(3)], axis=1).astype(np.int64)
    return Actions(rows=rows, adds=adds, masks=masks)
