"""Per-bot results of a run: points per hand with a 95% interval, foul and Fantasyland rates.

Counts and sums are accumulated batch by batch, so a run of millions of hands
keeps a few numbers per bot. A bot playing several seats is counted over all
of them. Foul and Fantasyland-entry rates are over normal (not Fantasyland)
hands; Fantasyland hands are counted apart with how many earned a stay and
how many fouled. The interval is the normal approximation over hands, which
treats hands as independent (hands in one session are slightly correlated
through Fantasyland).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ofc.pipeline.simulate.played_hands import HandBatch

Z95 = 1.959963984540054
COUNTERS = (
    *("hands", "points", "points_sq", "normal", "fouls", "entries"),
    *("fl_hands", "stays", "fl_fouls", "surrendered", "naturals"),
)
"""What a bot's tally adds up."""


@dataclass
class BotTally:
    """Running counts for one bot."""

    name: str
    seats: list[int] = field(default_factory=list)
    hands: int = 0
    points: float = 0.0
    points_sq: float = 0.0
    normal: int = 0
    fouls: int = 0
    entries: int = 0
    fl_hands: int = 0
    stays: int = 0
    fl_fouls: int = 0
    surrendered: int = 0
    naturals: int = 0

    def add(self, b: HandBatch, seat: int) -> None:
        fl = b.fantasyland[:, seat]
        normal = ~fl
        pts = b.points[:, seat].astype(np.float64)
        self.hands += b.hands
        self.points += float(pts.sum())
        self.points_sq += float((pts * pts).sum())
        self.normal += int(normal.sum())
        self.fouls += int((b.fouled[:, seat] & normal).sum())
        self.entries += int((b.fantasyland_entry[:, seat] & normal).sum())
        self.fl_hands += int(fl.sum())
        self.stays += int((b.fantasyland_stay[:, seat] & fl).sum())
        self.fl_fouls += int((b.fouled[:, seat] & fl).sum())
        self.surrendered += int(b.surrendered[:, seat].sum())
        self.naturals += int((b.natural[:, seat] >= 0).sum())

    def row(self) -> dict[str, Any]:
        n = max(self.hands, 1)
        mean = self.points / n
        var = max(self.points_sq / n - mean * mean, 0.0) * n / max(n - 1, 1)
        half = Z95 * math.sqrt(var / n) if self.hands > 1 else 0.0
        return {
            "bot": self.name,
            "seats": self.seats,
            "hands": self.hands,
            "points_per_hand": mean,
            "ci95": [mean - half, mean + half],
            "foul_rate": self.fouls / self.normal if self.normal else 0.0,
            "fantasyland_rate": self.entries / self.normal if self.normal else 0.0,
            "fantasyland_hands": self.fl_hands,
            "fantasyland_stays": self.stays,
            "fantasyland_fouls": self.fl_fouls,
            "surrendered": self.surrendered,
            "naturals": self.naturals,
        }


class SimulationSummary:
    """The tallies of every bot of a run, in seat order of first appearance."""

    def __init__(self, seat_bots: list[str]) -> None:
        self.bots: dict[str, BotTally] = {}
        self.of_seat = seat_bots
        for seat, name in enumerate(seat_bots):
            self.bots.setdefault(name, BotTally(name)).seats.append(seat)
        self.hands = 0

    def add(self, b: HandBatch) -> None:
        self.hands += b.hands
        for seat, name in enumerate(self.of_seat):
            self.bots[name].add(b, seat)

    def merge(self, other: SimulationSummary) -> None:
        """Add another part's tallies (a shard played elsewhere) to these."""
        self.hands += other.hands
        for name, theirs in other.bots.items():
            mine = self.bots[name]
            for counter in COUNTERS:
                setattr(mine, counter, getattr(mine, counter) + getattr(theirs, counter))

    def rows(self) -> list[dict[str, Any]]:
        return [t.row() for t in self.bots.values()]
