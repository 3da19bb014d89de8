"""What every section of a game reads: the game (its variant, what its rules deal, whom it features, whom it
ranks) and the section it builds.

A report filtered to one player (``--player``) reads that player's boards, save where a figure is about every
player: a ranking shows the field the player stands in, and an "all players" figure is over all players.
Those read :attr:`GameView.everyone`, the game's queries without the player filter.

A game is one variant. Which figures a game has follows from what the variant is: a classic hand is set all at
once (no streets, no dead streets, no decisions to weigh) and has no Fantasyland; an open-face variant played
under house rules without Fantasyland has no Fantasyland figures either. :data:`STREET_COLUMNS` and
:data:`FANTASYLAND_COLUMNS` name the columns of query rows that only mean something where there are streets or
Fantasyland, so that ``--json`` leaves them out where there are none.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Any

from ofc.pipeline.game import facts
from ofc.reports import figures
from ofc.reports.chart import Chart
from ofc.reports.headline import Stat
from ofc.reports.queries import Asker, Rows
from ofc.reports.tables import Table
from ofc.schemas.rules import RuleSet, key_name

__all__ = [
    "DEFAULT_MIN_HANDS",
    "EVERY_PLAYER",
    "FANTASYLAND_COLUMNS",
    "STREET_COLUMNS",
    "GameView",
    "Section",
    "auto_min_hands",
    "charted",
    "left_out",
    "one",
    "ranked",
]

DEFAULT_MIN_HANDS = 100
"""The hands a player needs to be ranked, at most, when the user sets no minimum."""

STREET_COLUMNS = frozenset({"street", "streets", "dead_street", "discards", "discard_streets"})
FANTASYLAND_COLUMNS = frozenset(
    {
        "fantasyland",
        "fantasyland_cards",
        "fantasyland_entry",
        "fantasyland_stay",
        "fantasyland_entries",
        "fantasyland_hands",
    }
)


def auto_min_hands(boards: dict[str, int]) -> int:
    """The hands a player needs to be ranked when the user sets none: a tenth of the busiest player's, at most
    :data:`DEFAULT_MIN_HANDS`; a club night of a few hands ranks everyone, a lake of millions leaves out players
    met a few times."""
    most = max(boards.values(), default=0)
    return max(1, min(DEFAULT_MIN_HANDS, math.ceil(most / 10)))


EVERY_PLAYER = " (every player)"
"""What follows a query's name in ``--json`` where a report filtered to one player read it over every player."""


class _EveryPlayer(Asker):
    """A game's queries without its player filter, their rows written beside the game's own (under the query's
    name and :data:`EVERY_PLAYER`), so that ``--json`` holds both."""

    def __init__(self, ask: Asker) -> None:
        super().__init__(ask.runner, replace(ask.scope, player=None))
        self.beside = ask

    def __call__(self, name: str, **extra: Any) -> Rows:
        rows = super().__call__(name, **extra)
        self.beside.rows.setdefault(name + EVERY_PLAYER, rows)
        return rows


@dataclass
class Section:
    key: str
    title: str
    intro: str
    headline: list[Stat] = field(default_factory=list)
    figures: list[Chart] = field(default_factory=list)
    tables: list[Table] = field(default_factory=list)
    note: str = ""
    grid: bool = False
    """Lay the charts out two abreast (small charts of one dimension each)."""


@dataclass
class GameView:
    """One variant's part of a report: its facts, the filters its figures read, and (once built) its sections."""

    variant: str
    ask: Asker
    featured: str | None
    player: str | None
    """The player every figure is filtered to, or None."""
    boards: dict[str, int]
    """Boards of each player the filters keep."""
    min_hands: int
    min_hands_set: bool
    """Whether the user set the minimum (else it follows the lake: :func:`auto_min_hands`)."""
    lead: str | None
    compared: list[str]
    names: dict[str, str]
    fantasyland: bool
    """Whether the rules read deal Fantasyland."""
    analysed: bool
    """Whether the lake holds a decision analysis of this variant's boards."""
    read: list[RuleSet] = field(default_factory=list)
    """The rule sets its figures read: the one asked for, else those its hands were played by."""
    carry_hands: bool = True
    """Whether its listed hands are carried for the viewer (else only their ids are read: ``Options``)."""
    sections: list[Section] = field(default_factory=list)
    headline: list[Stat] = field(default_factory=list)
    left_out: list[str] = field(default_factory=list)
    """A line for each section the game does not have, saying why."""
    notes: list[str] = field(default_factory=list)
    hands: dict[str, dict[str, Any]] = field(default_factory=dict)
    """The hands its viewer opens, by id."""
    everyone: Asker = field(init=False)
    """Its queries over every player the other filters keep: what rankings and "all players" figures read (the
    game's own queries where no player is filtered)."""

    def __post_init__(self) -> None:
        self.everyone = _EveryPlayer(self.ask) if self.player else self.ask

    @property
    def title(self) -> str:
        return facts(self.variant).title

    @property
    def open_face(self) -> bool:
        return facts(self.variant).open_face

    def rule_name(self, key: str | None) -> str:
        return "as played" if key is None else self.names.get(key, key_name(key))

    def hidden_columns(self) -> frozenset[str]:
        """Columns that mean nothing in this game: streets where a hand is set at once, Fantasyland where the
        rules deal none."""
        hidden: set[str] = set()
        if not self.open_face:
            hidden |= STREET_COLUMNS
        if not self.fantasyland:
            hidden |= FANTASYLAND_COLUMNS
        return frozenset(hidden)


def one(rows: Rows, **match: Any) -> dict[str, Any]:
    """The first row with these values, or an empty one."""
    return next((r for r in rows if all(r.get(k) == v for k, v in match.items())), {})


def ranked(rows: Rows, game: GameView, key: str = "hands", name: str = "group") -> tuple[Rows, int]:
    """The rows of players with at least the game's minimum of hands, and how many were left out; the featured
    player's row whatever their hands, so that a ranking shows where they stand."""
    kept = [r for r in rows if (r.get(key) or 0) >= game.min_hands or r.get(name) == game.featured]
    return kept, len(rows) - len(kept)


def charted(rows: Rows, game: GameView, key: str = "hands", name: str = "group") -> Rows:
    """The players a ranking's chart shows, those with the most ``key`` first (:func:`~reports.figures.first_bars`)."""
    busiest = sorted(rows, key=lambda r: -(r.get(key) or 0))
    return figures.first_bars(busiest, game.featured, lambda r: r.get(name))


def left_out(n: int, game: GameView) -> str:
    """The note under a ranking that left players out."""
    if not n:
        return ""
    who = "1 player" if n == 1 else f"{n:,} players"
    how = "--min-hands" if game.min_hands_set else "a tenth of the busiest player's, at most 100; --min-hands sets it"
    return f"{who} with fewer than {game.min_hands:,} hands left out ({how})."
