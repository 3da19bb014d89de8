"""What a rescore did and what the lake holds, per rule set: the counts a result batch's manifest records."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from ofc.pipeline.lake.snapshot import Snapshot

COUNTS = ("hands", "boards", "pairs", "recorded_checked", "recorded_differing")


@dataclass
class RuleTotals:
    """Counts under one rule set: of a run, of a chunk, or of the lake."""

    rules: str
    key: str
    batches: int = 0
    """Source batches scored (or, for the lake, with results)."""
    skipped: int = 0
    """Source batches left alone because they already have results."""
    hands: int = 0
    boards: int = 0
    pairs: int = 0
    recorded_checked: int = 0
    """Hands scored under their native rules here that recorded points."""
    recorded_differing: int = 0
    """Of those, hands whose recorded points differ from ours."""
    seconds: float = 0.0
    """Processor time spent scoring under this rule set and building its results (reading and writing, shared
    by every rule set, are not counted)."""
    native_only: bool = False
    """Scored only for the hands it is native to: nobody asked for it."""
    skipped_variants: Counter[str] = field(default_factory=Counter)
    """Hands left out per variant because the rule set cannot apply to it."""
    why: dict[str, str] = field(default_factory=dict)
    """Per variant left out, why."""

    def cover(self) -> dict[str, Any]:
        """The manifest's record of these results."""
        return {
            "rules": self.rules,
            "rules_key": self.key,
            "native_only": self.native_only,
            **{c: getattr(self, c) for c in COUNTS},
            "not_applied": dict(self.skipped_variants),
            "why": self.why,
        }

    def not_applied(self, hands: dict[str, int], why: dict[str, str]) -> None:
        self.skipped_variants.update(hands)
        self.why.update(why)

    def add(self, other: RuleTotals) -> None:
        for c in (*COUNTS, "batches", "seconds"):
            setattr(self, c, getattr(self, c) + getattr(other, c))
        self.not_applied(other.skipped_variants, other.why)


@dataclass
class RescoreReport:
    run: list[RuleTotals]
    """This run, per rule set scored (those asked for first, then native rule sets scored for their hands)."""
    lake: list[RuleTotals]
    """What the lake holds under those rule sets (the latest results of every source batch)."""
    natives: list[dict[str, Any]] = field(default_factory=list)
    """Hands per variant and recorded house rules, with the native rule set they are scored under and how it
    was found."""
    result_batches: list[str] = field(default_factory=list)
    seconds: float = 0.0


def lake_totals(snapshot: Snapshot, keys: list[tuple[str, str]]) -> list[RuleTotals]:
    """Per rule set (name, key): the counts of the latest results of every source batch, from the manifests."""
    out = []
    for name, key in keys:
        t = RuleTotals(name, key)
        for (_, k), c in snapshot.coverage.items():
            if k == key:
                part = RuleTotals(name, key, batches=1, **{n: c.count(n) for n in COUNTS})
                part.not_applied(c.not_applied, c.why)
                t.add(part)
        out.append(t)
    return out
