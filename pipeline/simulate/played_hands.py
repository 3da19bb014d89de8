"""The simulator's output in column form: hands played, as arrays with one axis per hand and per seat.

The dealer fills a :class:`HandBatch` per block of hands; the record builder
turns it into canonical records and the summary reads its outcome columns.
Every array is indexed ``[hand, seat]`` (and then card), seats 0..P-1.
"""

from __future__ import annotations

from dataclasses import dataclass, fields

import numpy as np


@dataclass(frozen=True)
class HandBatch:
    session: np.ndarray
    """(n,) int64: index of the session (table) the hand belongs to."""
    hand_number: np.ndarray
    """(n,) int64: 1-based number of the hand within its session."""
    button: np.ndarray
    """(n,) int64: the button's seat."""
    cards: np.ndarray
    """(n, P, 13) uint8: final boards, top 3, middle 5, bottom 5."""
    dealt: np.ndarray
    """(n, P, C) uint8: the cards each player was dealt, in dealing order (255 past ``n_dealt``)."""
    row: np.ndarray
    """(n, P, C) uint8: where each dealt card went: 0 top, 1 middle, 2 bottom, 3 discard."""
    street: np.ndarray
    """(n, P, C) uint8: the 1-based street each dealt card came on."""
    n_dealt: np.ndarray
    """(n, P) int64: cards dealt to each player."""
    fantasyland: np.ndarray
    """(n, P) bool: the player played this hand in Fantasyland."""
    fantasyland_cards: np.ndarray
    """(n, P) int64: cards of a Fantasyland hand, 0 otherwise."""
    surrendered: np.ndarray
    """(n, P) bool."""
    natural: np.ndarray
    """(n, P) int8: declared natural, an index into ``pipeline.rules.compile.NATURALS``; -1 for none."""
    points: np.ndarray
    """(n, P) int64: the hand's net result for each player under the rule set."""
    fouled: np.ndarray
    """(n, P) bool."""
    fantasyland_entry: np.ndarray
    """(n, P) bool: a normal hand that earned Fantasyland."""
    fantasyland_stay: np.ndarray
    """(n, P) bool: a Fantasyland hand that earned another."""

    @property
    def hands(self) -> int:
        return int(self.session.shape[0])

    @property
    def players(self) -> int:
        return int(self.cards.shape[1])

    @property
    def dealt_mask(self) -> np.ndarray:
        """(n, P, C) bool: which slots of ``dealt`` hold a card (the first ``n_dealt`` of each player)."""
        return np.arange(self.dealt.shape[2])[None, None, :] < self.n_dealt[:, :, None]

    def take(self, index: np.ndarray) -> HandBatch:
        """The hands at ``index``, in that order."""
        return HandBatch(**{f.name: getattr(self, f.name)[index] for f in fields(self)})

    @staticmethod
    def concat(parts: list[HandBatch]) -> HandBatch:
        return HandBatch(**{f.name: np.concatenate([getattr(p, f.name) for p in parts]) for f in fields(HandBatch)})
