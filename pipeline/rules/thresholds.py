"""Hands written in rule files ("QQ", "trips", "7 5 4 3 2") as points on the evaluator's scales.

A threshold is the strength of the weakest hand that meets the pattern, so
"top at least QQ" is ``top_strength >= threshold("QQ", top)``. On a lowball
middle it is the 2-7 value of the worst qualifying low, and the test is
``lowball_value <= threshold``.
"""

from __future__ import annotations

import re
from typing import Final

import numpy as np

from ofc.pipeline.errors import RulesError
from ofc.pipeline.evaluate import lookup_tables
from ofc.pipeline.evaluate.rows import lowball27, strength3, strength5
from ofc.pipeline.game import ROW_SIZES, ROWS
from ofc.schemas.rules import RANKS, Row, normalise_rank

__all__ = ["HandPatternError", "threshold", "width_of"]

_CATEGORY_WORDS: Final = {
    "high card": lookup_tables.HIGH_CARD,
    "pair": lookup_tables.PAIR,
    "two pair": lookup_tables.TWO_PAIR,
    "trips": lookup_tables.TRIPS,
    "three of a kind": lookup_tables.TRIPS,
    "set": lookup_tables.TRIPS,
    "straight": lookup_tables.STRAIGHT,
    "flush": lookup_tables.FLUSH,
    "full house": lookup_tables.FULL_HOUSE,
    "quads": lookup_tables.QUADS,
    "four of a kind": lookup_tables.QUADS,
    "straight flush": lookup_tables.STRAIGHT_FLUSH,
}
_ROYAL_WORDS: Final = ("royal", "royal flush")


class HandPatternError(RulesError):
    """A hand in a rule file that cannot be read."""


def width_of(row: Row) -> int:
    return ROW_SIZES[ROWS.index(row.value)]


def _ranks(text: str) -> list[int]:
    tokens = [t for t in re.split(r"[\s,\-]+", text.strip()) if t]
    if len(tokens) == 1 and len(tokens[0]) > 1 and tokens[0] != "10":
        tokens = re.findall(r"10|.", tokens[0])
    ranks = [normalise_rank(t) for t in tokens]
    if not ranks or any(r is None for r in ranks):
        raise HandPatternError(
            f"cannot read {text!r}: use a category (pair, trips, full house, ...), ranks like QQ or 7 5 4 3 2"
        )
    return [r for r in ranks if r is not None]


def _offsuit(ranks: list[int]) -> np.ndarray:
    """Card codes for ``ranks``: each repeat of a rank takes the next suit, and five distinct ranks are not a flush."""
    if max(np.bincount(ranks)) > 4:
        raise HandPatternError("no deck holds five cards of one rank")
    suits = [ranks[:i].count(r) for i, r in enumerate(ranks)]
    if len(ranks) == 5 and not any(suits):
        suits[-1] = 1
    return np.array([[r * 4 + s for r, s in zip(ranks, suits, strict=True)]], dtype=np.uint8)


def _category_threshold(category: int, width: int, royal: bool) -> int:
    mask = (lookup_tables.CATEGORY == category) & (lookup_tables.N_CARDS == width)
    if royal:
        mask &= lookup_tables.RANK1 == lookup_tables.ACE
    hits = np.flatnonzero(mask)
    if hits.size == 0:
        raise HandPatternError(
            f"a {width}-card row cannot make {'a royal flush' if royal else lookup_tables.CATEGORY_NAMES[category]}"
        )
    return int(hits.min())


def _high_threshold(text: str, width: int) -> int:
    words = " ".join(text.lower().replace("_", " ").split())
    if words in _ROYAL_WORDS:
        return _category_threshold(lookup_tables.STRAIGHT_FLUSH, width, royal=True)
    if words in _CATEGORY_WORDS:
        return _category_threshold(_CATEGORY_WORDS[words], width, royal=False)
    ranks = _ranks(text)
    if len(ranks) < width:
        if len(set(ranks)) != 1 or len(ranks) < 2:
            raise HandPatternError(
                f"cannot read {text!r}: give all {width} ranks, or one repeated rank (QQ, 222) for the lowest such hand"
            )
        # The lowest hand holding this group: fill with the lowest other ranks, all different.
        fill = [r for r in range(len(RANKS)) if r != ranks[0]][: width - len(ranks)]
        ranks = ranks + fill
    if len(ranks) != width:
        raise HandPatternError(f"cannot read {text!r}: a {width}-card row has {width} ranks")
    codes = _offsuit(ranks)
    return int((strength3 if width == 3 else strength5)(codes)[0])


def _lowball_threshold(text: str) -> int:
    ranks = _ranks(text)
    if len(ranks) == 1:
        # "8": any eight-low or better, i.e. up to the worst eight-low.
        mask = (lookup_tables.LOW_CATEGORY == lookup_tables.HIGH_CARD) & (lookup_tables.LOW_RANK1 == ranks[0])
        hits = np.flatnonzero(mask)
        if hits.size == 0:
            raise HandPatternError(f"no 2-7 low is {RANKS[ranks[0]]}-high")
        return int(hits.max())
    if len(ranks) != 5:
        raise HandPatternError(f"cannot read {text!r} as a 2-7 low: give one rank (8) or five (7 5 4 3 2)")
    return int(lowball27(_offsuit(ranks))[0])


def threshold(text: str, row: Row, *, lowball_middle: bool = False) -> int:
    """The point on the row's scale that the hand ``text`` marks (see the module doc)."""
    if lowball_middle and row is Row.MIDDLE:
        return _lowball_threshold(text)
    return _high_threshold(text, width_of(row))
