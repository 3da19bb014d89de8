"""What the bots know of a rule set, as the flat tables their compiled kernels read.

Royalties by row strength come straight from the scorer's compiled tables;
from them follow the coarse tables the bots use on rows still being
built (royalty by category, by the rank of a top pair or trips, the
Fantasyland a top pair or trips would earn). The weights of the planner
and the worth given to a Fantasyland hand are :class:`Weights`: a bot's
judgement, not a rule.

The kernels take everything as one ``float64`` table and one ``int64`` table
at fixed offsets (the ``O_*`` and ``I_*`` constants), plus the evaluator's
direct tables: a handful of arrays is cheap to pass through compiled code,
a tuple of twenty is not.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import numpy as np

from ofc.pipeline.errors import RulesError
from ofc.pipeline.evaluate import lookup_tables, lowball27, strength3
from ofc.pipeline.rules.compile import compile_rules
from ofc.schemas.rules import RuleSet

N_CATEGORIES = 9
N_STRENGTHS = lookup_tables.N_STRENGTHS
N_LOW = int(lookup_tables.LOW_CATEGORY.size)
MAX_TIERS = 8
"""Fantasyland entry tiers the bots read (a rule set with more is refused)."""

# Offsets into the float table.
O_LEVEL = 0
"""Level of each strength: category + (defining rank + 1) / 14."""
O_ROY_TOP = O_LEVEL + N_STRENGTHS
O_ROY_MID = O_ROY_TOP + N_STRENGTHS
"""Royalty by middle strength, or by 2-7 value on a lowball middle."""
O_ROY_BOT = O_ROY_MID + max(N_STRENGTHS, N_LOW)
O_ROY_CAT = O_ROY_BOT + N_STRENGTHS
"""(2, 9): the least royalty of each category in the middle, then in the bottom."""
O_TOP_PAIR = O_ROY_CAT + 2 * N_CATEGORIES
O_TOP_TRIPS = O_TOP_PAIR + 13
O_FL_PAIR = O_TOP_TRIPS + 13
"""Worth of the Fantasyland a top pair of each rank earns (0: none)."""
O_FL_TRIPS = O_FL_PAIR + 13
O_FL_VALUE = O_FL_TRIPS + 13
"""Worth of a Fantasyland hand by its card count (0..17)."""
O_LOW_HIGH = O_FL_VALUE + 18
"""Royalty of the best 2-7 middle with each high card."""
O_PARAMS = O_LOW_HIGH + 13
N_PARAMS = 10
FLOATS = O_PARAMS + N_PARAMS

# Offsets into the int table.
I_LOWBALL, I_QUALIFIER, I_STRICT, I_COMBINED, I_TIERS = range(5)
I_TIER_ROW = 5
I_TIER_THRESHOLD = I_TIER_ROW + MAX_TIERS
I_TIER_CARDS = I_TIER_THRESHOLD + MAX_TIERS
INTS = I_TIER_CARDS + MAX_TIERS


@dataclass(frozen=True)
class Weights:
    """The planner's judgement: how it values what a partial board may become.

    Levels are hand categories (0 high card .. 8 straight flush) plus the defining rank
    as a fraction, so ``1.85`` is a pair of queens.
    """

    foul_cost: float = 6.0
    """Points a fouled board is expected to lose to one opponent (a scoop plus their royalties)."""
    avoid: float = 0.7
    """Chance that a player steers clear of an improvement that would break the order (not pairing the top)."""
    win_slope: float = 1.6
    """How fast the chance of winning a row grows with its expected level."""
    typical: tuple[float, float, float] = (0.75, 1.9, 3.3)
    """Expected level of an opponent's top, middle and bottom."""
    empty: tuple[float, float, float] = (0.3, 1.0, 1.4)
    """Expected level of an empty row."""
    fresh_pair: float = 0.12
    """Chance, per open slot beyond the first, that new cards pair each other in a row."""
    fantasyland: tuple[float, ...] = (14.0, 18.0, 22.0, 26.0, 30.0)
    """Worth of a Fantasyland hand of 13, 14, 15, 16 and 17 cards, in points per opponent."""

    def params(self) -> np.ndarray:
        """The scalar weights in the order the kernels read them (``kernels.P_*``)."""
        values = [
            self.foul_cost,
            self.avoid,
            self.win_slope,
            *self.typical,
            *self.empty,
            self.fresh_pair,
        ]
        return np.array(values, dtype=np.float64)

    def fantasyland_values(self) -> np.ndarray:
        """Worth of a Fantasyland hand by its card count (index 0..17; 0 below 13)."""
        out = np.zeros(18, dtype=np.float64)
        out[13 : 13 + len(self.fantasyland)] = self.fantasyland
        return out


@dataclass(frozen=True, eq=False)
class PlannerModel:
    """The tables of one rule set, as the kernels take them."""

    floats: np.ndarray
    ints: np.ndarray
    weights: Weights

    def args(self) -> tuple[np.ndarray, ...]:
        """``(floats, ints, table5, digits5, table3, digits3, low5)``: the kernels' ``model`` argument."""
        return (
            self.floats,
            self.ints,
            lookup_tables.table5_direct(),
            lookup_tables.DIGITS5,
            lookup_tables.TABLE3_DIRECT,
            lookup_tables.DIGITS3,
            lookup_tables.low5_direct(),
        )

    @property
    def fantasyland_value(self) -> np.ndarray:
        return self.floats[O_FL_VALUE : O_FL_VALUE + 18]


def levels() -> np.ndarray:
    """Level of every strength: category + (defining rank + 1 + place among its equals) / 14.

    Strengths sharing a category and defining rank differ by their kickers; spreading them over the
    rank's fourteenth keeps levels in strength order, so complete rows compare exactly.
    """
    group = lookup_tables.CATEGORY.astype(np.int64) * 16 + lookup_tables.RANK1.astype(np.int64) + 1
    order = np.argsort(group, kind="stable")  # strengths ascend within a group
    sizes = np.bincount(group, minlength=group.max() + 1)
    starts = np.cumsum(sizes) - sizes
    place = np.empty(group.size, dtype=np.float64)
    place[order] = np.arange(group.size) - starts[group[order]]
    within = place / sizes[group]
    return lookup_tables.CATEGORY + (lookup_tables.RANK1.astype(np.float64) + 1 + within) / 14.0


def _top_by_rank(royalty_top: np.ndarray, tiers: list[tuple[int, int, int]], values: np.ndarray) -> list[np.ndarray]:
    """Royalty and Fantasyland worth of a top pair (lowest kicker) and of top trips, by rank."""
    ranks = np.arange(13)
    kicker = np.where(ranks == 0, 1, 0)
    pair = np.stack([ranks * 4, ranks * 4 + 1, kicker * 4 + 2], axis=1).astype(np.uint8)
    trips = np.stack([ranks * 4, ranks * 4 + 1, ranks * 4 + 2], axis=1).astype(np.uint8)
    out = []
    for rows in (pair, trips):
        s = strength3(rows).astype(np.int64)
        cards = np.zeros(13, dtype=np.int64)
        for row, threshold, n in tiers:
            if row == 0:
                cards = np.where(s >= threshold, np.maximum(cards, n), cards)
        out += [royalty_top[s].astype(np.float64), values[cards]]
    return out


def _low_high(royalty_low: np.ndarray) -> np.ndarray:
    """Royalty of the best 2-7 low with each high card (7-5-4-3-2, 8-5-4-3-2, ...); 0 where none exists."""
    out = np.zeros(13, dtype=np.float64)
    ranks = np.arange(5, 13)
    hands = np.stack([ranks * 4, np.full_like(ranks, 13), np.full_like(ranks, 8), [4] * 8, [1] * 8], axis=1)
    out[5:] = royalty_low[lowball27(hands.astype(np.uint8)).astype(np.int64)]
    return out


@cache
def _model(rules_json: str, weights: Weights) -> PlannerModel:
    rules = RuleSet.model_validate_json(rules_json)
    c = compile_rules(rules)
    tiers = list(zip(c.entry_row.tolist(), c.entry_threshold.tolist(), c.entry_cards.tolist(), strict=True))
    if len(tiers) > MAX_TIERS:
        raise RulesError(f"fantasyland.entry: the simulator reads at most {MAX_TIERS} tiers, got {len(tiers)}")
    f = np.zeros(FLOATS, dtype=np.float64)
    f[O_LEVEL : O_LEVEL + N_STRENGTHS] = levels()
    f[O_ROY_TOP : O_ROY_TOP + N_STRENGTHS] = c.royalty_top
    middle = c.royalty_middle_low if c.lowball else c.royalty_middle
    f[O_ROY_MID : O_ROY_MID + middle.size] = middle
    f[O_ROY_BOT : O_ROY_BOT + N_STRENGTHS] = c.royalty_bottom
    five = lookup_tables.N_CARDS == 5
    for k in range(N_CATEGORIES):
        mask = five & (lookup_tables.CATEGORY == k)
        f[O_ROY_CAT + k] = 0 if c.lowball else c.royalty_middle[mask].min()
        f[O_ROY_CAT + N_CATEGORIES + k] = c.royalty_bottom[mask].min()
    values = weights.fantasyland_values() if rules.fantasyland.enabled else np.zeros(18)
    top_pair, fl_pair, top_trips, fl_trips = _top_by_rank(c.royalty_top, tiers, values)
    for offset, part in (
        (O_TOP_PAIR, top_pair),
        (O_TOP_TRIPS, top_trips),
        (O_FL_PAIR, fl_pair),
        (O_FL_TRIPS, fl_trips),
        (O_FL_VALUE, values),
        (O_LOW_HIGH, _low_high(c.royalty_middle_low) if c.lowball else np.zeros(13)),
        (O_PARAMS, weights.params()),
    ):
        f[offset : offset + part.size] = part
    i = np.zeros(INTS, dtype=np.int64)
    i[I_LOWBALL] = int(c.lowball)
    i[I_QUALIFIER] = c.qualifier
    i[I_STRICT] = int(not rules.scoring.bottom_may_equal_middle)
    i[I_COMBINED] = rules.fantasyland.combined_cards or 0
    i[I_TIERS] = len(tiers)
    for k, (row, threshold, n) in enumerate(tiers):
        i[I_TIER_ROW + k], i[I_TIER_THRESHOLD + k], i[I_TIER_CARDS + k] = row, threshold, n
    return PlannerModel(floats=f, ints=i, weights=weights)


def model_of(rules: RuleSet, weights: Weights | None = None) -> PlannerModel:
    """The bots' tables for ``rules`` (cached by content)."""
    return _model(rules.model_dump_json(), weights or Weights())
