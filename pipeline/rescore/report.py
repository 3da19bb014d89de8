"""What a rescore did and what the lake holds, per rule set: the counts a result batch's manifest records."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pipeline.rescore.plan import coverage
from schemas.rules import RuleSet

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
    """Hands that declare these rules as their house rules and recorded points."""
    recorded_differing: int = 0
    """Of those, hands whose recorded points differ from ours."""
    seconds: float = 0.0
    """Processor time spent scoring under this rule set and building its results (reading and writing, shared
    by every rule set, are not counted)."""

    def cover(self) -> dict[str, Any]:
        """The manifest's record of these results."""
        return {"rules": self.rules, "rules_key": self.key, **{c: getattr(self, c) for c in COUNTS}}

    def add(self, other: RuleTotals) -> None:
        for c in (*COUNTS, "batches", "seconds"):
            setattr(self, c, getattr(self, c) + getattr(other, c))


@dataclass
class Report:
    run: list[RuleTotals]
    """This run, per rule set asked for."""
    lake: list[RuleTotals]
    """What the lake holds under those rule sets (the latest results of every source batch)."""
    result_batches: list[str] = field(default_factory=list)
    seconds: float = 0.0


def lake_totals(manifests: list[dict[str, Any]], rules: list[RuleSet]) -> list[RuleTotals]:
    """Per rule set: the counts of the latest results of every source batch, from the manifests alone."""
    done = coverage(manifests)
    out = []
    for r in rules:
        t = RuleTotals(r.name, r.key)
        for (_, key), c in done.items():
            if key == r.key:
                t.add(RuleTotals(r.name, r.key, batches=1, **{k: c[k] for k in COUNTS}))
        out.append(t)
    return out
