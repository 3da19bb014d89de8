"""Simulating three-handed Pineapple into the lake, one bot at all three seats.

Targets: ``random`` and ``heuristic`` >= 20,000 hands/s simulated and written to
the lake (through the ingest checks, one batch); ``mc`` at its default rollouts
>= 50 hands/s, fouling < 25% of normal hands and entering Fantasyland on >= 10%
of them. ``planner`` has no target: its speed is printed beside, with the foul
and Fantasyland rates of every bot. ``OFC_BENCH_SIM_HANDS`` sets the hands of the
fast bots (default 200,000), ``OFC_BENCH_SIM_PLANNER_HANDS`` those of ``planner``
(default 20,000), ``OFC_BENCH_SIM_MC_HANDS`` those of ``mc`` (default 2,000).
"""

from __future__ import annotations

import tempfile
import time

from ofc.pipeline.lake.store import Lake
from ofc.pipeline.rules.files import load_rules
from ofc.pipeline.simulate.simulation_run import Outcome, plan, to_lake
from tests.bench.common import Figure, report, scale

HANDS = scale("SIM_HANDS", 200_000, 500)
PLANNER_HANDS = scale("SIM_PLANNER_HANDS", 20_000, 60)
MC_HANDS = scale("SIM_MC_HANDS", 2_000, 6)
FAST_TARGET = 20_000
MC_TARGET = 50
FAST = ("random", "heuristic")
FAST_RUNS = 3
TARGETS = {"random": FAST_TARGET, "heuristic": FAST_TARGET, "planner": None, "mc": MC_TARGET}


def _simulate(bot: str, hands: int) -> tuple[float, Outcome]:
    spec = plan("pineapple", 3, hands, bot, load_rules("pineapple"), seed=7)
    with tempfile.TemporaryDirectory() as root:
        t0 = time.perf_counter()
        outcome = to_lake(spec, Lake(root))
        return time.perf_counter() - t0, outcome


def run() -> bool:
    for bot in TARGETS:  # compile and load every kernel before timing
        _simulate(bot, 30)
    figures: list[Figure] = []
    rates: list[Figure] = []
    for bot, hands in (("random", HANDS), ("heuristic", HANDS), ("planner", PLANNER_HANDS), ("mc", MC_HANDS)):
        # The fast bots run three times (the same hands, by seed) and the median is the figure: one run on a
        # shared machine can be a quarter slower or faster than the next.
        runs = sorted((_simulate(bot, hands) for _ in range(FAST_RUNS if bot in FAST else 1)), key=lambda r: r[0])
        seconds, outcome = runs[len(runs) // 2]
        row = outcome.summary.rows()[0]
        accepted = outcome.report.totals.accepted if outcome.report else 0
        speed = hands / seconds
        target = TARGETS[bot]
        spread = f"median of {len(runs)} runs: " + ", ".join(f"{hands / s:,.0f}" for s, _ in runs[::-1]) + "; "
        figures.append(
            Figure(
                f"{bot}: {hands:,} hands to the lake",
                speed,
                "hands/s",
                f">= {target:,}" if target else "",
                speed >= target if target else None,
                (spread if len(runs) > 1 else "") + f"{seconds:.1f} s; {accepted:,} accepted",
            )
        )
        foul, fl = row["foul_rate"] * 100, row["fantasyland_rate"] * 100
        if bot == "mc":
            figures.append(Figure("mc: foul rate of normal hands", foul, "%", "< 25%", foul < 25))
            figures.append(Figure("mc: Fantasyland entry of normal hands", fl, "%", ">= 10%", fl >= 10))
        else:
            rates += [Figure(f"{bot}: foul rate", foul, "%"), Figure(f"{bot}: Fantasyland entry", fl, "%")]
    return report("Simulator: three-handed Pineapple into the lake", figures + rates)
