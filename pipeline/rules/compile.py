"""A RuleSet turned into arrays the scorer gathers from.

Royalties become one table per row indexed by strength (or by 2-7 value on a
lowball middle); hand thresholds become points on those scales; the suit
order becomes a 52-entry key. Compiled once per rule set, cached by its key (name and content hash).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ofc.pipeline.evaluate import lookup_tables
from ofc.pipeline.rules.thresholds import threshold
from ofc.schemas.rules import FiveCardRoyalties, Natural, Row, RuleSet, TopRoyalties

__all__ = ["NATURALS", "ROW_INDEX", "CompiledRules", "compile_rules"]

ROW_INDEX = {Row.TOP: 0, Row.MIDDLE: 1, Row.BOTTOM: 2}
NATURALS = list(Natural)
"""Natural kinds (the vocabulary); a board's natural is its index here, -1 for none. A rule set ranks them."""
_FIVE_FIELDS = ("high_card", "pair", "two_pair", "trips", "straight", "flush", "full_house", "quads", "straight_flush")


@dataclass(frozen=True, eq=False)
class CompiledRules:
    rules: RuleSet
    royalty_top: np.ndarray
    royalty_middle: np.ndarray
    royalty_bottom: np.ndarray
    royalty_middle_low: np.ndarray
    qualifier: int
    entry_row: np.ndarray
    entry_threshold: np.ndarray
    entry_cards: np.ndarray
    stay_row: np.ndarray
    stay_threshold: np.ndarray
    suit_key: np.ndarray | None
    natural_value: np.ndarray
    """Value of each natural kind, -1 where the rule set has no such natural."""
    natural_rank: np.ndarray
    """How each natural kind ranks against the others, higher stronger (``Naturals.ranked``); -1 where absent."""
    natural_auto_scoop: np.ndarray
    scoop_amount: int
    wheel_order: np.ndarray | None = None
    """Strength -> the strength a row compares as, when A-2-3-4-5 ranks second (``_wheel_order``); None: as is."""

    @property
    def lowball(self) -> bool:
        return self.rules.game.lowball_middle


def _five_table(r: FiveCardRoyalties) -> np.ndarray:
    by_category = np.array([getattr(r, f) for f in _FIVE_FIELDS], dtype=np.int64)
    out = by_category[lookup_tables.CATEGORY]
    royal = (lookup_tables.CATEGORY == lookup_tables.STRAIGHT_FLUSH) & (lookup_tables.RANK1 == lookup_tables.ACE)
    if r.royal is not None:
        out[royal] = r.royal
    out[lookup_tables.N_CARDS != 5] = 0
    return out


def _top_table(r: TopRoyalties) -> np.ndarray:
    pair = np.array([r.points("pair", rank) for rank in range(13)], dtype=np.int64)
    trips = np.array([r.points("trips", rank) for rank in range(13)], dtype=np.int64)
    rank = np.maximum(lookup_tables.RANK1, 0)
    out = np.zeros(lookup_tables.N_STRENGTHS, dtype=np.int64)
    three = lookup_tables.N_CARDS == 3
    out[three & (lookup_tables.CATEGORY == lookup_tables.PAIR)] = pair[
        rank[three & (lookup_tables.CATEGORY == lookup_tables.PAIR)]
    ]
    out[three & (lookup_tables.CATEGORY == lookup_tables.TRIPS)] = trips[
        rank[three & (lookup_tables.CATEGORY == lookup_tables.TRIPS)]
    ]
    return out


def _lowball_table(rules: RuleSet) -> np.ndarray:
    """Points by 2-7 value: the best tier reached."""
    values = np.arange(lookup_tables.LOW_CATEGORY.size)
    out = np.zeros(values.size, dtype=np.int64)
    for tier in rules.royalties.lowball_middle.tiers:
        reached = values <= threshold(tier.at_least, Row.MIDDLE, lowball_middle=True)
        out = np.where(reached, np.maximum(out, tier.points), out)
    return out


def _wheel_order(wheel: str) -> np.ndarray | None:
    """With the wheel second, A-2-3-4-5 compares just below A-K-Q-J-T (the steel wheel just below the royal) and
    the 6- to K-high straights one place lower each. Every hand stays within its category, so royalties and
    thresholds read by category are unchanged."""
    if wheel == "lowest":
        return None
    order = np.arange(lookup_tables.N_STRENGTHS, dtype=np.int64)
    for category in (lookup_tables.STRAIGHT, lookup_tables.STRAIGHT_FLUSH):
        block = np.flatnonzero(
            (lookup_tables.N_CARDS == 5) & (lookup_tables.CATEGORY == category)
        )  # the wheel first, A-high last
        order[block[1:-1]] = block[:-2]
        order[block[0]] = block[-2]
    return order


def _suit_key(order: str | None) -> np.ndarray | None:
    """``key[code]`` orders cards by rank, then by the house suit order (highest suit first in ``order``)."""
    if order is None:
        return None
    suit_rank = np.array([3 - order.index(s) for s in "cdhs"])
    codes = np.arange(52)
    return ((codes >> 2) * 4 + suit_rank[codes & 3]).astype(np.int16)


def _compile(rules: RuleSet) -> CompiledRules:
    lowball = rules.game.lowball_middle
    fl = rules.fantasyland
    entry = fl.entry if fl.enabled else []
    stay = fl.stay if fl.enabled else []
    sc = rules.scoring
    values = np.full(len(NATURALS), -1, dtype=np.int64)
    auto = np.zeros(len(NATURALS), dtype=bool)
    rank = np.full(len(NATURALS), -1, dtype=np.int64)
    if rules.naturals.enabled:
        for kind, value in rules.naturals.values.items():
            values[NATURALS.index(kind)] = value
        ranked = rules.naturals.ranked()
        for i, kind in enumerate(ranked):
            rank[NATURALS.index(kind)] = len(ranked) - i
        for kind in rules.naturals.auto_scoop:
            auto[NATURALS.index(kind)] = True
    return CompiledRules(
        rules=rules,
        royalty_top=_top_table(rules.royalties.top),
        royalty_middle=_five_table(rules.royalties.middle),
        royalty_bottom=_five_table(rules.royalties.bottom),
        royalty_middle_low=_lowball_table(rules) if lowball else np.zeros(1, dtype=np.int64),
        qualifier=threshold(rules.royalties.lowball_middle.qualifier, Row.MIDDLE, lowball_middle=True)
        if lowball
        else 0,
        entry_row=np.array([ROW_INDEX[t.row] for t in entry], dtype=np.int64),
        entry_threshold=np.array([threshold(t.at_least, t.row, lowball_middle=lowball) for t in entry], dtype=np.int64),
        entry_cards=np.array([t.cards for t in entry], dtype=np.int64),
        stay_row=np.array([ROW_INDEX[c.row] for c in stay], dtype=np.int64),
        stay_threshold=np.array([threshold(c.at_least, c.row, lowball_middle=lowball) for c in stay], dtype=np.int64),
        suit_key=_suit_key(sc.suit_order),
        natural_value=values,
        natural_rank=rank,
        natural_auto_scoop=auto,
        scoop_amount=(3 * sc.row_value + sc.majority_bonus + sc.scoop_bonus) * sc.scoop_multiplier,
        wheel_order=_wheel_order(sc.wheel),
    )


def compile_rules(rules: RuleSet) -> CompiledRules:
    """Compiled tables for ``rules``, compiled once per rule set (cached by its key: name and content hash)."""
    compiled = _BY_KEY.get(rules.key)
    if compiled is None:
        compiled = _BY_KEY.setdefault(rules.key, _compile(rules))
    return compiled


_BY_KEY: dict[str, CompiledRules] = {}
"""Compiled rule sets by key: the cache of a pure function of the rule set's content."""
