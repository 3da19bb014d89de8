"""How each dealing hands out cards street by street, and every way a street's cards can be placed.

The dealer, the bots and the record builder all read the same :class:`Streets`:
cards dealt, placed and discarded per street, and for each card a player is
dealt (in dealing order) the street it belongs to. A street's *actions* are
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

from schemas.rules import Dealing

TOP, MIDDLE, BOTTOM, DISCARD = range(4)
ROW_CAPS = np.array([3, 5, 5], dtype=np.int64)
ROW_STARTS = np.array([0, 3, 8], dtype=np.int64)
BOARD = 13
NO_CARD = 255


@dataclass(frozen=True)
class Streets:
    """The deal of one normal (not Fantasyland) hand for one player."""

    dealt: tuple[int, ...]
    """Cards dealt on each street."""
    discarded: tuple[int, ...]
    """Cards discarded on each street (Pineapple: one of every later street's three)."""

    @property
    def count(self) -> int:
        return len(self.dealt)

    @property
    def cards(self) -> int:
        """Cards a player is dealt in a normal hand (13 in OFC and classic, 17 in Pineapple)."""
        return sum(self.dealt)

    @property
    def street_of_card(self) -> np.ndarray:
        """1-based street of each card, in dealing order."""
        return np.repeat(np.arange(1, self.count + 1), self.dealt).astype(np.int64)

    @property
    def first_card(self) -> np.ndarray:
        """Index of each street's first card in the player's dealt cards."""
        return np.concatenate([[0], np.cumsum(self.dealt)[:-1]]).astype(np.int64)

    def future_cards(self, street: int) -> int:
        """Cards a player is still to be dealt after ``street`` (1-based)."""
        return sum(self.dealt[street:])

    def open_slots(self, street: int) -> int:
        """Board slots still empty once ``street`` (1-based) is placed."""
        placed = sum(d - x for d, x in zip(self.dealt[:street], self.discarded[:street], strict=True))
        return BOARD - placed


def streets_of(dealing: Dealing) -> Streets:
    """The street structure of a dealing (classic is one street of 13)."""
    if dealing is Dealing.PINEAPPLE:
        return Streets(dealt=(5, 3, 3, 3, 3), discarded=(0, 1, 1, 1, 1))
    if dealing is Dealing.OFC:
        return Streets(dealt=(5, 1, 1, 1, 1, 1, 1, 1, 1), discarded=(0,) * 9)
    return Streets(dealt=(13,), discarded=(0,))


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
