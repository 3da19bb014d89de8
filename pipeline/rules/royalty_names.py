"""The hand each royalty pays for, per rule set: what lets a report name royalties without reading cards.

From each rule set's compiled royalty tables evaluated at every strength: a value earned by hands of one
category is that category (and, when they share their rank too, that hand: ``pair of queens``); a value
several categories earn names them all. A rescore records them in its manifest beside the rule sets it
scored, so a report names royalties without evaluating anything (``pipeline.query.db`` reads them back).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ofc.pipeline.evaluate import CATEGORY_NAMES, describe, lookup_tables
from ofc.pipeline.rules.compile import compile_rules
from ofc.schemas.rules import RuleSet

__all__ = ["royalty_hands"]


def royalty_hands(rules: RuleSet) -> list[dict[str, Any]]:
    """Per row and royalty value of ``rules``: the hand that earns it (the rows of the lake's ``royalty_hands``,
    recorded in each result batch's manifest)."""
    rows = _BY_KEY.get(rules.key)
    if rows is None:
        rows = _BY_KEY.setdefault(rules.key, _royalty_rows(rules))
    return list(rows)


_BY_KEY: dict[str, tuple[dict[str, Any], ...]] = {}
"""Each rule set's rows by its key (name and content hash): the same rule set always names the same hands."""


def _royalty_rows(rules: RuleSet) -> tuple[dict[str, Any], ...]:
    c = compile_rules(rules)
    key = c.rules.key
    out: list[dict[str, Any]] = []
    five = lookup_tables.N_CARDS == 5
    by_row = {"top": (c.royalty_top, ~five), "middle": (c.royalty_middle, five), "bottom": (c.royalty_bottom, five)}
    for row, (table, width) in by_row.items():
        if row == "middle" and c.lowball:
            out.extend(_lowball_rows(key, c.royalty_middle_low))
            continue
        for points in np.unique(table[width & (table > 0)]):
            strengths = np.flatnonzero(width & (table == points))
            cats = np.unique(lookup_tables.CATEGORY[strengths])
            names = " / ".join(CATEGORY_NAMES[i] for i in cats)
            if len(cats) == 1 and (lookup_tables.CATEGORY[strengths] == lookup_tables.STRAIGHT_FLUSH).all():
                royal = (lookup_tables.RANK1[strengths] == lookup_tables.ACE).all()
                hand = "royal flush" if royal else names
            elif (
                len(cats) == 1
                and np.unique(lookup_tables.RANK1[strengths]).size == 1
                and cats[0] != lookup_tables.HIGH_CARD
            ):
                hand = str(describe(strengths[:1])[0]).split(",")[0]
            else:
                hand = names
            out.append(
                {
                    "rules_key": key,
                    "row": row,
                    "points": int(points),
                    "category": names,
                    "category_order": int(cats.max()),
                    "hand": hand,
                }
            )
    return tuple(out)


_LOW_NAMES = ("deuce", "trey", "four", "five", "six", "seven", "eight", "nine", "ten", "jack", "queen", "king", "ace")


def _lowball_rows(key: str, table: np.ndarray) -> list[dict[str, Any]]:
    """The royalties of a 2-7 middle, named by their highest card (``seven-low``)."""

    out = []
    for points in np.unique(table[table > 0]):
        values = np.flatnonzero(table == points)
        highs = np.unique(lookup_tables.LOW_RANK1[values])
        if values.size == 1 and values[0] == 0:
            hand = "7-5-4-3-2"
        elif highs.size == 1:
            hand = f"{_LOW_NAMES[highs[0]]}-low"
        else:
            hand = f"{_LOW_NAMES[highs.min()]}- to {_LOW_NAMES[highs.max()]}-low"
        out.append(
            {
                "rules_key": key,
                "row": "middle",
                "points": int(points),
                "category": "2-7 low",
                "category_order": 0,
                "hand": hand,
            }
        )
    return out
