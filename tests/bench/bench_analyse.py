"""Decision analysis of three-handed Pineapple hands: every seat's decisions at the default settings.

Targets: >= 20 hands analysed per second on the machine's cores (two on the reference machine), with a median
standard error of the loss under 0.5 points per decision. The hands are played by ``mc``, ``planner`` and
``heuristic`` (simulated first, untimed). Beside: the same analysis with the other boards played out at every
rollout (``SHARE = 1``) on part of the hands, to show what sharing them buys. ``OFC_BENCH_ANALYSE_HANDS`` sets
the hands (default 600).
"""

from __future__ import annotations

import os
import tempfile
import time
from pathlib import Path

import ofc.pipeline.analyse.estimate as estimate
from ofc.pipeline.analyse import Settings, analyse
from ofc.pipeline.lake.store import Lake
from ofc.pipeline.query.db import connect
from ofc.pipeline.rules.files import load_rules
from ofc.pipeline.simulate import plan, to_lake
from tests.bench.common import Figure, report, scale

HANDS = scale("ANALYSE_HANDS", 600, 30)
TARGET = 20.0
SE_TARGET = 0.5


def _lake(root: Path, hands: int, seed: int) -> Lake:
    lake = Lake(root)
    to_lake(plan("pineapple", 3, hands, "mc,planner,heuristic", load_rules("pineapple"), seed=seed), lake)
    return lake


def _analysed(lake: Lake, seed: int) -> tuple[float, float, int, float]:
    """Seconds, hands per second, decisions and the median standard error of one analysis."""
    t0 = time.perf_counter()
    summary = analyse(lake, Settings(seed=seed))
    seconds = time.perf_counter() - t0
    key = summary.analysis
    median = connect(lake).sql(f"SELECT median(se) FROM decisions WHERE analysis = '{key}'").fetchall()[0][0]
    return seconds, summary.hands / seconds, summary.decisions, float(median)


def run() -> bool:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        _analysed(_lake(root / "warm", 10, 1), 0)  # compile and load every kernel, estimate Fantasyland's worth
        lake = _lake(root / "lake", HANDS, 7)
        seconds, speed, decisions, se = _analysed(lake, 0)
        part = _lake(root / "part", max(HANDS // 3, 10), 8)
        shared = _analysed(part, 0)
        default_share = estimate.SHARE
        estimate.SHARE = 1
        try:
            alone = _analysed(part, 1)
        finally:
            estimate.SHARE = default_share
    cores = os.cpu_count()
    figures = [
        Figure(
            f"Pineapple x3, every seat: {HANDS:,} hands",
            speed,
            "hands/s",
            f">= {TARGET:.0f}",
            speed >= TARGET,
            f"{seconds:.1f} s on {cores} cores; {decisions:,} decisions ({decisions / seconds:,.0f}/s)",
        ),
        Figure("median standard error of the loss", se, "points", f"< {SE_TARGET}", se < SE_TARGET),
        Figure(
            f"other boards played out once every {default_share} rollouts ({HANDS // 3:,} hands)",
            shared[1],
            "hands/s",
            note=f"median standard error {shared[3]:.3f}",
        ),
        Figure(
            "other boards played out at every rollout (the same hands)",
            alone[1],
            "hands/s",
            note=f"median standard error {alone[3]:.3f}; sharing is {shared[1] / alone[1]:.2f}x as fast",
        ),
    ]
    return report("Decision analysis: three-handed Pineapple, every seat", figures)
