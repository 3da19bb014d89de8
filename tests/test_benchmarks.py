"""Every benchmark of ``make bench`` runs at a tiny scale, untimed: one that no longer runs fails the suite.

Each runs as ``make bench`` runs it (``python -m tests.bench NAME``, a fresh process) with ``OFC_BENCH_TINY=1``,
which shrinks its inputs and judges no target; its figures go to a folder of the test's own.
"""

from __future__ import annotations

import os
import pkgutil
import subprocess
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).parent / "bench"
NAMES = sorted(m.name.removeprefix("bench_") for m in pkgutil.iter_modules([str(BENCH)]) if m.name.startswith("bench_"))


def test_every_benchmark_is_listed() -> None:
    assert {"cli", "ingest", "report", "rescore", "scoring"} <= set(NAMES)


@pytest.mark.parametrize("name", NAMES)
def test_the_benchmark_runs_at_a_tiny_scale(name: str, tmp_path: Path) -> None:
    if name == "ray":
        pytest.importorskip("ray")
    env = {**os.environ, "OFC_BENCH_TINY": "1", "OFC_BENCH_OUT": str(tmp_path), "OFC_BENCH_INGEST_HANDS": "3000"}
    env.pop("OFC_BENCH_BASELINE", None)
    proc = subprocess.run(
        [sys.executable, "-m", "tests.bench", name],
        cwd=BENCH.parents[1],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert "Traceback" not in proc.stderr, proc.stderr[-3000:]
    assert list(tmp_path.glob("*.json")), "the benchmark saved no figures"
