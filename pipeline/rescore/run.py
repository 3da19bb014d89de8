"""A rescore run: every committed batch of boards without results, scored under each rule set, committed.

The plan comes from the manifests alone (nothing is read when nothing is new, and the engine is not
even loaded). Each source batch then becomes one result batch (``scoring.score_source``), so a crash
loses at most the batch being scored, and the next run picks up from there.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from pipeline.lake.store import Lake
from pipeline.rescore import plan as planning
from pipeline.rescore.report import Report, RuleTotals, lake_totals
from pipeline.rescore.source import count_hands, partitions
from schemas.rules import RuleSet

Progress = Callable[[int, int], None]
"""``on_progress(hands done, hands to do)``."""


def rescore(lake: Lake, rules: list[RuleSet], force: bool = False, on_progress: Progress | None = None) -> Report:
    """Score every committed batch of boards that lacks results under each of ``rules`` (all, with ``force``)."""
    t0 = time.perf_counter()
    unique = list({r.key: r for r in rules}.values())
    for r in unique:
        planning.check_key(r)
    with lake.locked():
        lake.collect_garbage()
        manifests = lake.manifests()
        todo = planning.plan(manifests, unique, force)
        run = {r.key: RuleTotals(r.name, r.key, skipped=todo.skipped[r.key]) for r in unique}
        committed = []
        if todo.work:
            from pipeline.rescore.scoring import score_source  # loads the engine

            total = sum(count_hands(p) for w in todo.work for p in partitions(lake.root, w.source))
            done = 0

            def advance(n: int) -> None:
                nonlocal done
                done += n
                if on_progress:
                    on_progress(done, total)

            advance(0)
            for work in todo.work:
                batch, totals = score_source(lake, work, advance)
                committed.append(batch)
                for t in totals:
                    run[t.key].add(t)
            manifests = lake.manifests()
    return Report(list(run.values()), lake_totals(manifests, unique), committed, time.perf_counter() - t0)
