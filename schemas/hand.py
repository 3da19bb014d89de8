"""The canonical hand record: what every ingester produces and the lake stores.

One record is one hand: who played, where and when, under which house rules,
each player's final rows and, where the source knows them, the street-by-street
placements, discards, Fantasyland status, surrender, natural declarations and
the score the source recorded. Cards are written as text here (``"As"``); the
lake stores them as ``uint8`` codes.

Times: ``played_at`` must carry a timezone; a naive time is read as UTC (the
documented default for sources that do not say).
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated, Literal

from pydantic import Field, field_validator, model_validator

from ofc.schemas.rules import Model, Natural, Variant

NAIVE_TIMEZONE = UTC
"""The zone given to a naive ``played_at``."""

ROW_SIZES = {"top": 3, "middle": 5, "bottom": 5}
PLACEMENT_ROWS = ("top", "middle", "bottom", "discard")

Card = Annotated[str, Field(min_length=2, max_length=4, description='A card such as "As", "Td", "10d" or "A♠".')]


class Placement(Model):
    """One card a player placed (or discarded), in the order it happened."""

    street: int = Field(ge=1, le=9)
    """1 is the first deal (5 cards, or the whole Fantasyland hand), then 2, 3, ... one per later deal
    (OFC deals 9 streets, Pineapple 5)."""
    card: Card
    row: Literal["top", "middle", "bottom", "discard"]
    """Where the card went; "discard" for Pineapple's discarded cards."""


class PlayerRecord(Model):
    """One player's part of a hand."""

    name: str = Field(min_length=1)
    seat: int | None = Field(None, ge=0, le=15)
    """The player's seat; table order starts left of the button."""
    top: list[Card]
    middle: list[Card]
    bottom: list[Card]
    fantasyland: bool = False
    """The player played this hand in Fantasyland."""
    fantasyland_cards: int | None = Field(None, ge=13, le=17)
    """Cards dealt to the player in Fantasyland, where known."""
    surrendered: bool = False
    natural: Natural | None = None
    """A natural the player declared (classic)."""
    discards: list[Card] = Field(default_factory=list)
    """Cards dealt and not placed (Pineapple, Fantasyland)."""
    placements: list[Placement] | None = None
    """Street-by-street placements, when the source records them; they must agree with the rows."""
    points: int | None = None
    """The hand's result for this player as the source recorded it."""
    stack: int | None = Field(None, ge=1)
    """Chips in front of the player, for table stakes."""

    @model_validator(mode="after")
    def _rows_and_placements(self) -> PlayerRecord:
        for row, size in ROW_SIZES.items():
            got = len(getattr(self, row))
            if got != size and sum(len(getattr(self, r)) for r in ROW_SIZES) != 13:
                raise ValueError(f"{row}: expected {size} cards, got {got}")
        if self.placements is not None:
            placed = {row: sorted(p.card for p in self.placements if p.row == row) for row in PLACEMENT_ROWS}
            for row in ROW_SIZES:
                if placed[row] != sorted(getattr(self, row)):
                    raise ValueError(f"placements: the cards placed on {row} differ from the final {row} row")
            if placed["discard"] != sorted(self.discards):
                raise ValueError("placements: the discarded cards differ from discards")
        return self


class HandRecord(Model):
    """One hand, as every source's histories become."""

    hand_id: str = Field(min_length=1)
    """The source's id of the hand; with ``source`` it identifies the hand."""
    source: str | None = None
    """Where the history came from (an app, a site, a club's scoresheet, the simulator)."""
    variant: Variant
    played_at: datetime | None = None
    """When the hand was played; a naive time is read as UTC."""
    site: str | None = None
    table: str | None = None
    session: str | None = None
    hand_number: int | None = Field(None, ge=0)
    """The hand's number within its session."""
    button: int | None = Field(None, ge=0, le=15)
    """The dealer button's seat."""
    house_rules: str | None = None
    """The rules as the source recorded them: a preset name or free text."""
    players: list[PlayerRecord] = Field(min_length=2, max_length=4)

    @field_validator("played_at")
    @classmethod
    def _aware(cls, v: datetime | None) -> datetime | None:
        if v is not None and v.tzinfo is None:
            return v.replace(tzinfo=NAIVE_TIMEZONE)
        return v
