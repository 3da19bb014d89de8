"""A rescore run: every committed batch of boards scored under its hands' native rules and each rule set asked
for, where results are missing, then committed.

The plan comes from the manifests alone once the batches' hands are known (nothing is read when nothing is
new, and the engine is not even loaded). Each source batch then becomes one result batch
(``score_source.score_source``), so a crash loses at most the batch being scored, and the next run picks up from
there.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from ofc.pipeline.errors import InputError
from ofc.pipeline.lake.store import Lake
from ofc.pipeline.rescore import plan as planning
from ofc.pipeline.rescore.source import count_hands, groups, partitions
from ofc.pipeline.rescore.totals import RescoreReport, RuleTotals, lake_totals
from ofc.pipeline.rules.native import Natives
from ofc.schemas.rules import RuleSet

__all__ = ["Progress", "rescore"]

Progress = Callable[[int, int], None]
"""``on_progress(hands done, hands to do)``."""


def rescore(
    lake: Lake,
    rules: list[RuleSet],
    force: bool = False,
    on_progress: Progress | None = None,
    *,
    engine: str = "local",
    address: str | None = None,
) -> RescoreReport:
    """Score every committed batch of boards that lacks results under each of ``rules`` (all, with ``force``) and
    under its hands' native rule sets. ``engine``: ``"local"`` (this process) or ``"ray"`` (a Ray cluster at
    ``address``, or one started here; see :mod:`pipeline.rescore.ray_rescore`): the results are the same."""
    ray = None
    if engine == "ray":
        # lazy: Ray is an optional extra, loaded for --engine ray alone
        from ofc.pipeline.rescore.ray_rescore import connect

        ray = connect(address)
    elif engine != "local":
        raise InputError(f"unknown engine {engine!r}")
    t0 = time.perf_counter()
    unique = list({r.key: r for r in rules}.values())
    for r in unique:
        planning.check_key(r)
    with lake.locked():
        lake.collect_garbage()
        snapshot = lake.snapshot()
        natives = Natives(recorded=list(snapshot.rule_sets.values()), given=unique)
        todo = planning.plan(snapshot, unique, natives, lambda m: groups(lake.root, m), force)
        run: dict[str, RuleTotals] = {r.key: RuleTotals(r.name, r.key, skipped=todo.skipped[r.key]) for r in unique}
        for work in todo.work:
            for job in work.jobs:
                run.setdefault(
                    job.rules.key,
                    RuleTotals(
                        job.rules.name,
                        job.rules.key,
                        native_only=job.native_only,
                        skipped=todo.skipped.get(job.rules.key, 0),
                    ),
                )
        for groups_of_batch in todo.groups.values():  # every native rule set, new work or not
            for g in groups_of_batch:
                covers = [c for (_, key), c in snapshot.coverage.items() if key == g.native.key]
                only = not covers or all(c.native_only for c in covers)
                already = todo.skipped.get(g.native.key, 0)
                run.setdefault(g.native.key, RuleTotals(g.native.name, g.native.key, native_only=only, skipped=already))
        committed = []
        if todo.work:
            total = sum(count_hands(p) for w in todo.work for p in partitions(lake.root, w.source))
            done = 0

            def advance(n: int) -> None:
                nonlocal done
                done += n
                if on_progress:
                    on_progress(done, total)

            advance(0)
            for work in todo.work:
                if ray is not None:
                    # lazy: Ray is an optional extra, loaded for --engine ray alone
                    from ofc.pipeline.rescore.ray_rescore import score_source_ray

                    batch, totals = score_source_ray(lake, work, natives, advance, ray)
                else:
                    # lazy: the engine (numba's kernels) is loaded for new work alone
                    from ofc.pipeline.rescore.score_source import score_source

                    batch, totals = score_source(lake, work, natives, advance)
                committed.append(batch)
                for t in totals:
                    run[t.key].add(t)
            snapshot = lake.snapshot()
    keys = [(t.rules, t.key) for t in run.values()]
    counts = sorted(planning.group_counts(todo).items(), key=lambda kv: (kv[0][0], kv[0][1] or ""))
    natives_summary = [
        {"variant": v, "house_rules": h, "native": key, "how": how, "hands": n} for (v, h, key, how), n in counts
    ]
    return RescoreReport(
        list(run.values()), lake_totals(snapshot, keys), natives_summary, committed, time.perf_counter() - t0
    )
