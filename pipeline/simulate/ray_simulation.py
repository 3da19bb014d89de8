"""Simulating on a Ray cluster: each shard of a run played by a worker, one batch committed by the driver.

A shard is a run of consecutive sessions with its own seed, derived from the run's (``simulation_run.shards_of``), so
the hands depend on the seed and the number of shards, never on how many workers play them or in what order
they finish. Each worker streams its shard's hands back as checked chunks; the driver takes the shards in
order and ingests them as one batch, through the same checks as a local run. Until that batch commits
nothing is visible.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from typing import Any

from ofc.pipeline.ingest.base import Chunk
from ofc.pipeline.ingest.ingest_run import ingest_chunks
from ofc.pipeline.lake.store import Lake
from ofc.pipeline.simulate.records import SOURCE, to_chunk
from ofc.pipeline.simulate.simulation_run import Outcome, Shard, Spec, meta, play, shards_of
from ofc.pipeline.simulate.summary import SimulationSummary

__all__ = ["to_lake_ray"]


def shard_items(spec: Spec, shard: Shard) -> Iterator[Chunk | SimulationSummary]:
    """A shard's hands as chunks ready for the lake, then its tallies (run on a worker)."""
    summary = SimulationSummary(list(spec.bots))
    m, done = meta(spec), shard.first_hand
    for batch in play(spec, None, shard):
        summary.add(batch)
        yield to_chunk(batch, m, done + 1)
        done += batch.hands
    yield summary


def to_lake_ray(spec: Spec, lake: Lake, ray: Any, on_progress: Callable[[int], None] | None = None) -> Outcome:
    """Play every shard on the cluster and commit the run as one batch, the shards in order."""
    remote = ray.remote(shard_items).options(num_returns="streaming")
    streams = [remote.remote(spec, shard) for shard in shards_of(spec)]  # all start now; read in order
    summary = SimulationSummary(list(spec.bots))

    def chunks() -> Iterator[Chunk]:
        done = 0
        for stream in streams:
            for ref in stream:
                item = ray.get(ref)
                if isinstance(item, SimulationSummary):
                    summary.merge(item)
                    continue
                yield item
                done += item.count
                if on_progress:
                    on_progress(done)

    try:
        report = ingest_chunks(chunks(), lake, f"{SOURCE}/{spec.run_id}", kind="simulate", rule_sets=[spec.rules])
    except BaseException:
        for stream in streams:
            with contextlib.suppress(Exception):  # a stream already finished cannot be cancelled
                ray.cancel(stream, force=True)
        raise
    return Outcome(spec, summary, report, {"lake": str(lake.root), "batch": report.batch})
