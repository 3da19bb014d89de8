"""What a rescore has to do: which committed batches of boards still lack results under which rule sets.

A result batch scores one source batch under one or more rule sets, and its manifest says so in
``covers`` (source batch, rule set key, and the counts). So a rerun compares the source batches in the
manifests with what is covered and schedules only the rest. ``--force`` schedules everything asked for,
and the new result batch lists the older results it supersedes in ``replaces``, which hides them from
readers at the same commit (the next writer deletes them).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from pipeline.lake.store import RESULT_TABLES
from schemas.rules import RuleSet

KIND = "rescore"
_SAFE_KEY = re.compile(r"^[\w.+ -]+@[0-9a-f]+$")


@dataclass(frozen=True)
class Work:
    """One source batch to score under some rule sets."""

    source: dict[str, Any]
    """The source batch's manifest."""
    rules: list[RuleSet]
    replaces: list[str]
    """Files of older results of the same source batch and rule sets (with ``--force``)."""

    @property
    def batch(self) -> str:
        return str(self.source["batch"])


@dataclass(frozen=True)
class Plan:
    work: list[Work]
    skipped: dict[str, int]
    """Per rule set key: source batches already scored, left alone."""


class RuleSetNameError(ValueError):
    """A rule set whose name cannot name a folder of the lake."""


def check_key(rules: RuleSet) -> None:
    """A rule set's key names a folder of the lake: refuse names that cannot."""
    if not _SAFE_KEY.match(rules.key):
        raise RuleSetNameError(
            f"rule set name {rules.name!r} cannot name a lake folder: use letters, digits, spaces, '.', '_', '+', '-'"
        )


def sources(manifests: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """Committed batches that hold boards (ingest and simulation runs), oldest first."""
    return [m for m in manifests if any(f.startswith("boards/") for f in m["files"])]


def results(manifests: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """Committed result batches, oldest first."""
    return [m for m in manifests if m.get("kind") == KIND]


def coverage(manifests: Iterable[dict[str, Any]]) -> dict[tuple[str, str], dict[str, Any]]:
    """(source batch, rule set key) -> the latest cover entry of a committed result batch."""
    out: dict[tuple[str, str], dict[str, Any]] = {}
    for m in results(manifests):
        for c in m.get("covers", []):
            out[(c["batch"], c["rules_key"])] = c
    return out


def _result_files(manifest: dict[str, Any], key: str) -> list[str]:
    """A result batch's files under one rule set (its partition folder)."""
    folder = f"rules_key={key}"
    return [f for f in manifest["files"] if f.split("/")[0] in RESULT_TABLES and f.split("/")[1] == folder]


def plan(manifests: list[dict[str, Any]], rules: list[RuleSet], force: bool = False) -> Plan:
    """The work left: for each source batch, the rule sets it has no results under (all of them, forced)."""
    done = coverage(manifests)
    earlier = results(manifests)
    skipped = dict.fromkeys((r.key for r in rules), 0)
    work = []
    for source in sources(manifests):
        batch = source["batch"]
        todo = [r for r in rules if force or (batch, r.key) not in done]
        keys = {r.key for r in todo}
        for r in rules:
            skipped[r.key] += r.key not in keys
        if not todo:
            continue
        replaces = [
            f
            for m in earlier
            for key in keys
            if any(c["batch"] == batch and c["rules_key"] == key for c in m.get("covers", []))
            for f in _result_files(m, key)
        ]
        work.append(Work(source, todo, sorted(set(replaces))))
    return Plan(work, skipped)


def rule_sets_in(manifests: list[dict[str, Any]]) -> list[RuleSet]:
    """The rule sets the lake already has results under, as each result batch recorded them."""
    found: dict[str, RuleSet] = {}
    for m in results(manifests):
        for doc in m.get("rule_sets", []):
            rules = RuleSet.model_validate(doc)
            found.setdefault(rules.key, rules)
    return list(found.values())
