"""Rescoring and simulating on Ray, against the local engine, measured side by side in one run.

Rescore: 2,000,000 three-player Pineapple hands under 6 rule sets (``OFC_BENCH_RAY_HANDS`` scales it;
``OFC_BENCH_RESCORE_LAKE`` keeps the simulated lake, as for the rescore benchmark). Simulate: 200,000
``heuristic`` hands in 8 shards (``OFC_BENCH_RAY_SIMULATE``). Each run is a fresh process; a Ray run starts
its own cluster of 1 or 2 CPUs before the clock starts.

Targets: Ray with 2 workers within 1.5x of the local engine's wall time, and 2 workers at least 1.6x faster
than 1, for each. Skipped when Ray is not installed (``pip install 'ofc-analytics[ray]'``).
"""

from __future__ import annotations

import importlib.util
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from tests.bench.bench_rescore import KEEP, RULES, simulate
from tests.bench.common import Figure, console, report, scale

HANDS = scale("RAY_HANDS", 2_000_000, 2_000)
SIMULATE = scale("RAY_SIMULATE", 200_000, 2_000)
SHARDS = 8

WARM_WORKER = """
def WARM():
    import tempfile
    from ofc.pipeline.ingest import ingest
    from ofc.pipeline.lake.store import Lake
    from ofc.pipeline.paths import SAMPLES
    from ofc.pipeline.rescore import rescore
    from ofc.pipeline.rules.files import load_rules
    with tempfile.TemporaryDirectory() as tmp:
        ingest([SAMPLES / "worked-examples.jsonl"], Lake(tmp))
        rescore(Lake(tmp), [load_rules("ofc")])
    return 0
"""

RESCORE = (
    WARM_WORKER
    + """
import json, sys, time
engine, cpus, lake, *rules = sys.argv[1:]
if engine == "ray":
    import ray
    ray.init(num_cpus=int(cpus), include_dashboard=False, log_to_driver=False, configure_logging=False)
    ray.get([ray.remote(WARM).remote() for _ in range(int(cpus))])  # workers up, kernels loaded: before the clock
from ofc.pipeline.lake.store import Lake
from ofc.pipeline.rescore import rescore
from ofc.pipeline.rules.files import load_rules
rules = [load_rules(name) for name in rules]
t0 = time.perf_counter()
r = rescore(Lake(lake), rules, engine=engine)
print(json.dumps({"seconds": time.perf_counter() - t0, "hands": sum(t.hands for t in r.run)}))
"""
)

SIMULATE_RUN = """
import json, sys, time
engine, cpus, lake, hands, shards = sys.argv[1:]
from ofc.pipeline.lake.store import Lake
from ofc.pipeline.rules.files import load_rules
from ofc.pipeline.simulate import plan, to_lake
spec = plan("pineapple", 3, int(hands), "heuristic", load_rules("pineapple"), seed=5, shards=int(shards))
if engine == "ray":
    import ray
    from ofc.pipeline.simulate.ray_simulation import to_lake_ray
    ray.init(num_cpus=int(cpus), include_dashboard=False, log_to_driver=False, configure_logging=False)
    ray.get([ray.remote(lambda: 0).remote() for _ in range(int(cpus))])  # the workers up before the clock
t0 = time.perf_counter()
out = to_lake_ray(spec, Lake(lake), ray) if engine == "ray" else to_lake(spec, Lake(lake))
print(json.dumps({"seconds": time.perf_counter() - t0, "hands": out.summary.hands}))
"""


def _child(script: str, *args: str) -> dict[str, Any]:
    proc = subprocess.run([sys.executable, "-c", script, *args], capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise RuntimeError(proc.stderr[-3000:])
    return json.loads(proc.stdout.splitlines()[-1])


def _rescore(work: Path, source: Path, engine: str, cpus: int) -> float:
    lake = work / f"rescore-{engine}-{cpus}"
    shutil.copytree(source, lake)
    try:
        return float(_child(RESCORE, engine, str(cpus), str(lake), *RULES)["seconds"])
    finally:
        shutil.rmtree(lake, ignore_errors=True)


def _simulate(work: Path, engine: str, cpus: int) -> float:
    lake = work / f"simulate-{engine}-{cpus}"
    try:
        return float(_child(SIMULATE_RUN, engine, str(cpus), str(lake), str(SIMULATE), str(SHARDS))["seconds"])
    finally:
        shutil.rmtree(lake, ignore_errors=True)


def run() -> bool:
    if importlib.util.find_spec("ray") is None:
        console.print("ray: not installed, skipped (pip install 'ofc-analytics[ray]')")
        return True
    with tempfile.TemporaryDirectory(prefix="ofc-bench-ray-") as tmp:
        work = Path(tmp)
        source = Path(KEEP) if KEEP else work / "simulated"
        if not (source / "_manifests").is_dir():
            t0 = time.perf_counter()
            simulate(source, HANDS, seed=11)
            console.print(f"ray: simulated {HANDS:,} hands in {time.perf_counter() - t0:.1f} s")
        local = _rescore(work, source, "local", 2)
        one = _rescore(work, source, "ray", 1)
        two = _rescore(work, source, "ray", 2)
        sim_local = _simulate(work, "local", 2)
        sim_one = _simulate(work, "ray", 1)
        sim_two = _simulate(work, "ray", 2)
    n = f"{HANDS / 1e6:g} M"
    ratios = [(two / local, one / two), (sim_two / sim_local, sim_one / sim_two)]
    figures = []
    for what, (base, single, double), (against, scaling) in zip(
        ("rescore", "simulate"), ((local, one, two), (sim_local, sim_one, sim_two)), ratios, strict=True
    ):
        figures += [
            Figure(f"{what}, local engine", base, "s"),
            Figure(f"{what}, Ray, 1 worker", single, "s"),
            Figure(f"{what}, Ray, 2 workers", double, "s"),
            Figure(f"{what}: Ray 2 workers / local", against, "x", "<= 1.5", against <= 1.5),
            Figure(f"{what}: Ray 1 worker / 2 workers", scaling, "x", ">= 1.6", scaling >= 1.6),
        ]
    return report(
        f"Ray: rescore of {n} hands under {len(RULES)} rule sets, simulate of {SIMULATE:,} hands in {SHARDS} shards",
        figures,
    )
