"""The rules of the game that no rule set changes: the board, each variant's deal, the button and table order.

Rule sets (:mod:`schemas.rules`) hold what varies from house to house: points, royalties, Fantasyland
entry. What is here is what a variant *is*: how its cards are dealt street by street, how many players it
seats, whether its middle is a 2-7 low, how many cards its Fantasyland may deal, and who acts first. The
ingest checks, the compiled scanner, the scorer, the rescorer and the simulator all read these, so that a
variant is described once. ``tests/test_game.py`` checks each preset against its variant's facts.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ofc.schemas.rules import Dealing, Variant

__all__ = [
    "BOARD",
    "DEALS",
    "MAX_SEAT",
    "PLACEMENT_ROWS",
    "ROWS",
    "ROW_ENDS",
    "ROW_SIZES",
    "ROW_STARTS",
    "SEATS",
    "VARIANTS",
    "Deal",
    "VariantFacts",
    "default_buttons",
    "facts",
    "seat_at",
    "table_order",
    "turns",
]

ROWS = ("top", "middle", "bottom")
ROW_SIZES = (3, 5, 5)
"""Cards in each row of a set board."""
BOARD = sum(ROW_SIZES)
"""Cards on a set board."""
ROW_STARTS = (0, ROW_SIZES[0], ROW_SIZES[0] + ROW_SIZES[1])
"""Where each row of ROWS starts among a board's BOARD cards (top, middle, bottom in that order)."""
ROW_ENDS = tuple(start + size for start, size in zip(ROW_STARTS, ROW_SIZES, strict=True))
PLACEMENT_ROWS = (*ROWS, "discard")
"""Where a placed card may go (Pineapple discards one card of each later street)."""
MAX_SEAT = 15
SEATS = MAX_SEAT + 1
"""Seat numbers run 0..MAX_SEAT; a table seats at most four of them."""


@dataclass(frozen=True)
class Deal:
    """How one normal (not Fantasyland) hand is dealt to a player, street by street."""

    dealt: tuple[int, ...]
    """Cards dealt on each street."""
    discarded: tuple[int, ...]
    """Cards discarded on each street (Pineapple: one of every later street's three)."""

    @property
    def streets(self) -> int:
        return len(self.dealt)

    @property
    def cards(self) -> int:
        """Cards a player is dealt in a normal hand (13 in OFC and classic, 17 in Pineapple)."""
        return sum(self.dealt)

    @property
    def placed(self) -> tuple[int, ...]:
        """Cards placed on the board on each street."""
        return tuple(d - x for d, x in zip(self.dealt, self.discarded, strict=True))

    @property
    def street_of_card(self) -> np.ndarray:
        """1-based street of each card, in dealing order."""
        return np.repeat(np.arange(1, self.streets + 1), self.dealt).astype(np.int64)

    @property
    def first_card(self) -> np.ndarray:
        """Index of each street's first card in the player's dealt cards."""
        return np.concatenate([[0], np.cumsum(self.dealt)[:-1]]).astype(np.int64)

    def future_cards(self, street: int) -> int:
        """Cards a player is still to be dealt after ``street`` (1-based)."""
        return sum(self.dealt[street:])

    def open_slots(self, street: int) -> int:
        """Board slots still empty once ``street`` (1-based) is placed."""
        return BOARD - sum(self.placed[:street])


DEALS: dict[Dealing, Deal] = {
    Dealing.CLASSIC: Deal(dealt=(13,), discarded=(0,)),
    Dealing.OFC: Deal(dealt=(5, 1, 1, 1, 1, 1, 1, 1, 1), discarded=(0,) * 9),
    Dealing.PINEAPPLE: Deal(dealt=(5, 3, 3, 3, 3), discarded=(0, 1, 1, 1, 1)),
}


@dataclass(frozen=True)
class VariantFacts:
    """What a variant is, whatever the house rules it is played under."""

    variant: Variant
    dealing: Dealing
    max_players: int
    """Most players a hand seats (Pineapple deals 17 cards a player: three)."""
    lowball_middle: bool
    """Whether the middle is played as a 2-7 low (the order rule becomes bottom >= top)."""
    fantasyland_cards: frozenset[int]
    """Cards a Fantasyland hand may be dealt; empty where there is no Fantasyland (classic)."""
    title: str
    """The variant's name as players write it."""

    @property
    def deal(self) -> Deal:
        return DEALS[self.dealing]

    @property
    def open_face(self) -> bool:
        """Played street by street, face up (every variant but classic); only these have Fantasyland."""
        return self.dealing is not Dealing.CLASSIC


VARIANTS: dict[Variant, VariantFacts] = {
    f.variant: f
    for f in (
        VariantFacts(Variant.CLASSIC, Dealing.CLASSIC, 4, False, frozenset(), "Classic"),
        VariantFacts(Variant.OFC, Dealing.OFC, 4, False, frozenset({13}), "OFC"),
        VariantFacts(Variant.PINEAPPLE, Dealing.PINEAPPLE, 3, False, frozenset({14}), "Pineapple"),
        VariantFacts(
            Variant.PROGRESSIVE_PINEAPPLE,
            Dealing.PINEAPPLE,
            3,
            False,
            frozenset({14, 15, 16, 17}),
            "Progressive Pineapple",
        ),
        VariantFacts(Variant.PINEAPPLE_27, Dealing.PINEAPPLE, 3, True, frozenset({14, 15}), "2-7 Pineapple"),
    )
}


def facts(variant: str | Variant) -> VariantFacts:
    """The facts of a variant, by name (``"pineapple-27"``) or member."""
    return VARIANTS[Variant(variant)]


def default_buttons(hand: np.ndarray, seat: np.ndarray) -> np.ndarray:
    """The button of each board's hand when none is recorded: the hand's highest seat, so that the first
    player listed (the lowest seat) acts first. ``hand`` numbers each board's hand; boards of a hand need not
    be adjacent."""
    hand = np.asarray(hand, dtype=np.int64)
    seat = np.asarray(seat, dtype=np.int64)
    if hand.size == 0:
        return seat.copy()
    if bool((hand[1:] >= hand[:-1]).all()):  # the usual layout, hand by hand: one pass
        starts = np.flatnonzero(np.r_[True, hand[1:] != hand[:-1]])
        return np.repeat(np.maximum.reduceat(seat, starts), np.diff(np.r_[starts, hand.size]))
    _, inverse = np.unique(hand, return_inverse=True)
    top = np.full(int(inverse.max()) + 1, -1, dtype=np.int64)
    np.maximum.at(top, inverse, seat)
    return top[inverse]


def table_order(seat: np.ndarray, button: np.ndarray) -> np.ndarray:
    """A key that orders each hand's seats as they act: the seat left of the button first, round the table,
    the button last. Seats need not be consecutive; only the order of the keys within a hand means anything."""
    return (np.asarray(seat, dtype=np.int64) - np.asarray(button, dtype=np.int64) - 1) % _ORDER


_ORDER = 256
"""Above every seat number a board may carry (records allow 0..MAX_SEAT)."""


def turns(hand: np.ndarray, starts: np.ndarray, seat: np.ndarray, button: np.ndarray) -> np.ndarray:
    """Each board's turn among its hand's seats: 0 acts first, the last (the button) is n - 1. Boards of a hand
    are adjacent, hand ``h`` starting at ``starts[h]``; ``hand`` numbers each board's hand 0, 1, ..."""
    hand = np.asarray(hand, dtype=np.int64)
    order = np.lexsort((table_order(seat, button), hand))
    turn = np.empty(hand.size, np.int64)
    turn[order] = np.arange(hand.size) - starts[hand[order]]
    return turn


def seat_at(button: np.ndarray, turn: np.ndarray | int, players: int) -> np.ndarray:
    """At a table of seats 0..players-1, the seat whose turn (0: first to act) is ``turn``."""
    return (np.asarray(button, dtype=np.int64) + 1 + np.asarray(turn, dtype=np.int64)) % players
