"""What a rescore has to do: which committed batches of boards lack which results.

Every hand is scored under its native rule set (``pipeline.rules.native``) and under every rule set asked for. A
result batch scores one source batch under some rule sets, and its manifest says so in ``covers``: per rule
set, the counts, whether only the hands native to it were scored (``native_only``, a rule set nobody asked
for) and the native rule set of each group of hands (variant, house rules). A rerun compares that with what
is wanted now and schedules only the difference:

- a rule set asked for, without results for every hand of the batch (or with ``--force``);
- a native rule set without results;
- results scored with other native rule sets than the batch's hands have now (a rule file named by some
  hands' house rules became known): scored again, or dropped when they were only native results;
- results of an older format: scored again.

Results scored again list the files they supersede in ``replaces``, which hides them from readers at the same
commit (the next writer deletes them).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ofc.pipeline.errors import RulesError
from ofc.pipeline.lake.file_layout import RESULT_TABLES, RETIRED_TABLES
from ofc.pipeline.lake.snapshot import RESULT_KIND, Snapshot, SourceBatch
from ofc.pipeline.rules.native import FOLDER_SAFE_KEY, Natives
from ofc.schemas.rules import RuleSet

__all__ = ["KIND", "Group", "Job", "Plan", "RuleSetNameError", "Work", "check_key", "plan"]

KIND = RESULT_KIND
_RESULT_FOLDERS = (*RESULT_TABLES, *RETIRED_TABLES)


class RuleSetNameError(RulesError):
    """A rule set whose name cannot name a folder of the lake."""


def check_key(rules: RuleSet) -> None:
    """A rule set's key names a folder of the lake: refuse names that cannot."""
    if not FOLDER_SAFE_KEY.match(rules.key):
        raise RuleSetNameError(
            f"rule set name {rules.name!r} cannot name a lake folder: use letters, digits, spaces, '.', '_', '+', '-'"
        )


@dataclass(frozen=True)
class Group:
    """The hands of a source batch that share a variant and recorded house rules, and their native rule set."""

    variant: str
    house_rules: str | None
    hands: int
    native: RuleSet
    how: str
    """How the native rule set was found (``pipeline.rules.native.How``)."""
    why: str = ""

    def record(self) -> dict[str, Any]:
        """The group as a result batch's manifest records it."""
        out = {"variant": self.variant, "house_rules": self.house_rules, "hands": self.hands}
        return {**out, "native": self.native.key, "how": self.how, **({"why": self.why} if self.why else {})}


@dataclass(frozen=True)
class Job:
    """Score a source batch under ``rules``: every hand they apply to, or only those native to them."""

    rules: RuleSet
    native_only: bool = False
    key: str = field(init=False, repr=False)
    """``rules.key``, worked out once (it writes the whole rule set out to hash it)."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "key", self.rules.key)


@dataclass(frozen=True)
class Work:
    """One source batch to score under some rule sets."""

    source: SourceBatch
    jobs: list[Job]
    groups: list[Group]
    replaces: list[str] = field(default_factory=list)
    """Files of earlier results of the same source batch that these supersede."""

    @property
    def batch(self) -> str:
        return self.source.batch


@dataclass(frozen=True)
class Plan:
    work: list[Work]
    skipped: dict[str, int]
    """Per rule set key asked for, and per native rule set of the hands: source batches already scored under it,
    left alone."""
    groups: dict[str, list[Group]]
    """Per source batch: its groups of hands and their native rule sets."""


GroupsOf = Callable[[SourceBatch], list[tuple[str, str | None, int]]]
"""(variant, house rules, hands) of a source batch's hands, read from its files."""


def _recorded_groups(snapshot: Snapshot, batch: str) -> list[tuple[str, str | None, int]] | None:
    """The groups of a source batch as its latest results recorded them (so a rerun reads no data)."""
    for (source, _), cover in reversed(snapshot.coverage.items()):
        if source == batch and cover.groups is not None:
            return cover.groups
    return None


def plan(snapshot: Snapshot, asked: list[RuleSet], natives: Natives, groups_of: GroupsOf, force: bool = False) -> Plan:
    """The work left: per source batch, the jobs its results lack and the earlier results they replace."""
    asked_keys = {r.key for r in asked}
    skipped = dict.fromkeys(asked_keys, 0)
    known = {**snapshot.rule_sets, **{r.key: r for r in asked}}
    work: list[Work] = []
    all_groups: dict[str, list[Group]] = {}
    for source in snapshot.sources:
        batch = source.batch
        found = _recorded_groups(snapshot, batch) or sorted(groups_of(source), key=lambda g: (g[0], g[1] or ""))
        groups = []
        for variant, house_rules, hands in found:
            native = natives.resolve(variant, house_rules)
            groups.append(Group(variant, house_rules, hands, native.rules, native.how.value, native.why))
        all_groups[batch] = groups
        mapping = [[g.variant, g.house_rules, g.native.key] for g in groups]
        covers = {key: c for (b, key), c in snapshot.coverage.items() if b == batch}
        jobs: dict[str, Job] = {}
        for r in asked:
            c = covers.get(r.key)
            if force or c is None or c.native_only or c.natives != mapping:
                jobs[r.key] = Job(r)
            else:
                skipped[r.key] += 1
        for g in groups:
            key = g.native.key
            c = covers.get(key)
            if key not in jobs and (c is None or c.natives != mapping):
                jobs[key] = Job(g.native, native_only=c is None or c.native_only)
                known.setdefault(key, g.native)
        natives_now = {g.native.key for g in groups}
        for key, c in covers.items():
            if key in jobs or c.natives == mapping:
                continue
            if not c.native_only:  # asked for once: scored again with the hands' native rules as they are now
                jobs[key] = Job(known[key])
            elif key in natives_now:
                jobs[key] = Job(known[key], native_only=True)
        replaces = [f for key in jobs if key in covers for f in covers[key].files()]
        for c in snapshot.stale_covers(batch):  # results of an older format: every rule set scored again, as it
            key = c.rules_key  # was: one scored only as hands' native rules stays so
            if key not in known:
                continue
            if not c.native_only:
                if key not in jobs or jobs[key].native_only:
                    jobs[key] = Job(known[key])
            elif key not in jobs and key in natives_now:
                jobs[key] = Job(known[key], native_only=True)
        replaces += [f for f in snapshot.stale_files(batch) if f.split("/")[0] in _RESULT_FOLDERS]
        dropped = [c for key, c in covers.items() if key not in jobs and c.native_only and key not in natives_now]
        replaces += [f for c in dropped for f in c.files()]
        for key in covers.keys() - asked_keys - jobs.keys() - {c.rules_key for c in dropped}:
            skipped[key] = skipped.get(key, 0) + 1  # results an earlier run made, still right: left alone
        if jobs or replaces:
            work.append(Work(source, list(jobs.values()), groups, sorted(set(replaces))))
    return Plan(work, skipped, all_groups)


def group_counts(plan: Plan) -> Counter[tuple[str, str | None, str, str]]:
    """Hands per (variant, house rules, native rule set key, how), over every source batch."""
    out: Counter[tuple[str, str | None, str, str]] = Counter()
    for groups in plan.groups.values():
        for g in groups:
            out[(g.variant, g.house_rules, g.native.key, g.how)] += g.hands
    return out
