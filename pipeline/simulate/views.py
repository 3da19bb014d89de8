"""What a bot is given and what it gives back: the run's shared context, the street as the player to act sees it
at many tables, how classic hands were set, and how rollouts ended."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from ofc.pipeline.cards import NO_CARD
from ofc.pipeline.game import Deal
from ofc.pipeline.rules.compile import CompiledRules
from ofc.pipeline.simulate import planner_kernels
from ofc.pipeline.simulate.model import PlannerModel
from ofc.pipeline.simulate.pace import Tick, idle
from ofc.schemas.rules import RuleSet

__all__ = [
    "DEFAULT_CANDIDATES",
    "DEFAULT_MARGIN",
    "DEFAULT_ROLLOUTS",
    "ClassicChoice",
    "Context",
    "Rollouts",
    "StreetView",
]

DEFAULT_ROLLOUTS = 12
DEFAULT_CANDIDATES = 6
DEFAULT_MARGIN = 4.0
"""Placements the planner rates this many points below its best are not rolled out."""


@dataclass(frozen=True)
class Context:
    """What every bot of a run shares."""

    rules: RuleSet
    compiled: CompiledRules
    model: PlannerModel
    streets: Deal
    players: int
    rollouts: int = DEFAULT_ROLLOUTS
    candidates: int = DEFAULT_CANDIDATES
    margin: float = DEFAULT_MARGIN
    policy: PlannerModel | None = None
    """The planner weights ``mc`` ranks placements and plays rollouts with (default: ``model``)."""


class StreetView:
    """What the player to act at ``m`` tables knows: every open board, and this street's cards.

    Built from the dealer's arrays for the tables ``t`` where seat ``me`` acts; each field is
    computed on first use, so a bot pays only for what it reads.
    """

    def __init__(
        self,
        street: int,
        boards: np.ndarray,
        counts: np.ndarray,
        in_fantasyland: np.ndarray,
        own_cards: np.ndarray,
        t: np.ndarray,
        me: np.ndarray,
        dealt: np.ndarray,
        rng: np.random.Generator,
        tick: Tick = idle,
    ) -> None:
        self.street = street
        """0-based."""
        self.me = me
        """(m,) int64: the seat to act."""
        self.dealt = dealt
        """(m, k) uint8: this street's cards."""
        self.rng = rng
        self.tick = tick
        """The run's checkpoint: a bot whose decision is slow calls it with the share of the tables done."""
        self._all = (boards, counts, in_fantasyland, own_cards, t)

    @property
    def tables(self) -> int:
        return int(self.me.shape[0])

    @cached_property
    def active(self) -> np.ndarray:
        """(m, P) bool: seats playing this hand street by street (not in Fantasyland)."""
        return ~self._all[2][self._all[4]]

    @cached_property
    def boards(self) -> np.ndarray:
        """(m, P, 13) uint8: every seat's board so far (255: empty, or hidden in Fantasyland)."""
        boards, _, _, _, t = self._all
        return np.where(self.active[:, :, None], boards[t], NO_CARD).astype(np.uint8)

    @cached_property
    def counts(self) -> np.ndarray:
        """(m, P, 3) int64: cards in each row (0 for a hidden board)."""
        _, counts, _, _, t = self._all
        return np.where(self.active[:, :, None], counts[t], 0)

    def table_arrays(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """The dealer's arrays as they stand, for kernels that find what this player has seen themselves: this
        player's cards so far (m, c; 255: none), every table's boards (T, P, 13), who is in Fantasyland (T, P:
        hidden boards) and the table of each of the ``m`` (indices into T)."""
        boards, _, in_fantasyland, own_cards, t = self._all
        return np.ascontiguousarray(own_cards), boards, in_fantasyland, t

    def own(self) -> tuple[np.ndarray, np.ndarray]:
        """This player's board (m, 13) and row counts (m, 3)."""
        boards, counts, _, _, t = self._all
        return np.ascontiguousarray(boards[t, self.me]), np.ascontiguousarray(counts[t, self.me])

    @cached_property
    def _seen(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        live = np.empty((self.tables, 17))
        unseen = np.empty(self.tables)
        known = planner_kernels.seen(np.ascontiguousarray(self._all[3]), self.boards, ~self.active, live, unseen)
        return known, live, unseen

    @property
    def known(self) -> np.ndarray:
        """(m,) uint64: bit ``c`` set for every card this player has seen (own cards, discards, open boards)."""
        return self._seen[0]

    @property
    def live(self) -> np.ndarray:
        """(m, 17) float64: cards this player has not seen, per rank (13) then per suit (4)."""
        return self._seen[1]

    @property
    def unseen(self) -> np.ndarray:
        """(m,) float64: how many cards this player has not seen."""
        return self._seen[2]


@dataclass(frozen=True)
class ClassicChoice:
    """How classic hands were set."""

    cards: np.ndarray
    """(m, 13) uint8: top 3, middle 5, bottom 5."""
    natural: np.ndarray
    """(m,) int8: declared natural (index into NATURALS), -1 for none."""
    surrender: np.ndarray
    """(m,) bool."""


@dataclass(frozen=True)
class Rollouts:
    """How the rollouts of a player's candidates ended, (g, K, R) each: what a candidate's worth is made of, and
    whether the board fouled, which the decision analysis reports beside the worth."""

    points: np.ndarray
    """float64: net points against every opponent, hidden ones included."""
    following: np.ndarray
    """int64: the cards of the Fantasyland the board earns (0: none)."""
    fouled: np.ndarray
    """bool: this player's completed board fouled (False for no candidate)."""
