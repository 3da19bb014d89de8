"""Canonical JSONL into the lake: three-player Pineapple hands with placements, end to end (median of three runs).

Targets: >= 100,000 hands/s; re-ingesting the same input adds nothing and takes
<= 20% of the first run's time. Peak memory is measured in a child process on
two input sizes, to show how it grows with the input. Set
``OFC_BENCH_INGEST_HANDS`` to scale the large input (1,650,000 hands is about 5 GB).

Beside a baseline, every figure is measured for both versions on the same inputs, their runs taking turns, and
printed with the ratio: the baseline is an older commit's files (``OFC_BENCH_BASELINE=DIR``, run with this
interpreter, see :mod:`tests.bench.common`), or another installation named by its Python
(``OFC_BENCH_INGEST_BASELINE=/path/to/venv/bin/python``: an older commit installed with its own packages).
``run(hands=...)`` runs it at any scale; ``OFC_BENCH_TINY=1`` runs it tiny and judges nothing.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from ofc.pipeline.cards import CARD_NAMES, deal
from tests.bench.common import TINY, Figure, report, scale, versions

HANDS = scale("INGEST_HANDS", 200_000, 3_000)
"""Hands in the large input; ``OFC_BENCH_INGEST_HANDS=1650000`` makes it about 5 GB (``OFC_BENCH_INGEST_CACHE=DIR``
keeps the inputs between runs)."""
BASELINE_PYTHON = "" if TINY else os.environ.get("OFC_BENCH_INGEST_BASELINE", "")
"""The Python of another installation to compare with (empty: the ``OFC_BENCH_BASELINE`` checkout, if any)."""
PLAYERS = 3
PARSE_SAMPLE_BYTES = 600_000_000
RUNS = 3
"""First ingests of the large input, each into a new lake."""
ROWS = np.array(["top"] * 3 + ["middle"] * 5 + ["bottom"] * 5)

RUN = """
import sys, time, json

def peak_mb():
    # VmHWM belongs to this address space; ru_maxrss would carry the parent's size over from fork.
    for line in open("/proc/self/status"):
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024

from pathlib import Path
import ofc.pipeline as pipeline
from ofc.pipeline.ingest import ingest
from ofc.pipeline.lake.store import Lake
t0 = time.perf_counter()
r = ingest([Path(sys.argv[1])], Lake(sys.argv[2]))
t = r.totals
print(json.dumps({"seconds": time.perf_counter() - t0, "read": t.read, "accepted": t.accepted,
                  "duplicates": t.duplicates, "quarantined": t.quarantined,
                  "peak_mb": peak_mb(), "package": str(Path(pipeline.__file__).parent)}))
"""

PARSE = """
import io, sys, time, json
from ofc.pipeline.ingest.jsonl import INGESTER

with open(sys.argv[1], "rb") as fh:  # a prefix of whole lines is enough for a rate, and bounds the memory
    data = fh.read(int(sys.argv[2]))
data = data[: data.rfind(b"\\n") + 1]
sum(chunk.count for chunk in INGESTER.read(io.BytesIO(data[: 1 << 20][: data[: 1 << 20].rfind(b"\\n") + 1]), "warm"))
t0 = time.perf_counter()
hands = sum(chunk.count for chunk in INGESTER.read(io.BytesIO(data), "sample"))
print(json.dumps({"rate": hands / (time.perf_counter() - t0)}))
"""
"""Hands/s of the JSONL reader alone on (the first 600 MB of) the file: lines scanned into columns, no lake rows.
Run in a child, as the ingests are, so that each installation is measured by its own code."""


def write_hands(path: Path, hands: int, seed: int) -> None:
    """Pineapple hands: 5 cards placed, then four streets of 3 (two placed, one discarded)."""
    rng = np.random.default_rng(seed)
    cards = CARD_NAMES[deal(hands, 17 * PLAYERS, rng)].reshape(hands, PLAYERS, 17)
    # Which of the 13 kept cards goes to which row: one random arrangement per board.
    rows = ROWS[np.argsort(rng.random((hands, PLAYERS, 13)), axis=2)]
    with path.open("w") as fh:
        for h in range(hands):
            players = []
            for p in range(PLAYERS):
                c = cards[h, p].tolist()
                kept = c[:5] + [x for s in range(4) for x in c[5 + 3 * s : 7 + 3 * s]]
                discards = [c[7 + 3 * s] for s in range(4)]
                r = rows[h, p].tolist()
                placements = [{"street": 1, "card": kept[i], "row": r[i]} for i in range(5)]
                for s in range(4):
                    placements += [
                        {"street": s + 2, "card": kept[5 + 2 * s + i], "row": r[5 + 2 * s + i]} for i in range(2)
                    ]
                    placements.append({"street": s + 2, "card": discards[s], "row": "discard"})
                players.append(
                    {
                        "name": f"bot{p}",
                        "seat": p,
                        "top": [k for k, row in zip(kept, r, strict=True) if row == "top"],
                        "middle": [k for k, row in zip(kept, r, strict=True) if row == "middle"],
                        "bottom": [k for k, row in zip(kept, r, strict=True) if row == "bottom"],
                        "discards": discards,
                        "placements": placements,
                        "points": 0,
                    }
                )
            record = {
                "hand_id": f"b{seed}-{h}",
                "source": "bench",
                "variant": "pineapple",
                "played_at": "2026-11-01T20:00:00Z",
                "button": 2,
                "players": players,
            }
            fh.write(json.dumps(record) + "\n")


def _input(work: Path, hands: int, seed: int) -> Path:
    """The input file; kept in ``OFC_BENCH_INGEST_CACHE`` when set, since writing 5 GB of JSON takes minutes."""
    cache = os.environ.get("OFC_BENCH_INGEST_CACHE")
    path = (Path(cache) if cache else work) / f"pineapple-{hands}-{seed}.jsonl"
    if not path.exists():
        partial = path.with_suffix(".partial")
        partial.parent.mkdir(parents=True, exist_ok=True)
        write_hands(partial, hands, seed)
        partial.rename(path)
    return path


class Runner(Protocol):
    """A version of the project that runs a script in a fresh process."""

    name: str

    def json(self, code: str, *args: str) -> Any: ...


@dataclass(frozen=True)
class Installed:
    """A version installed with its own interpreter and packages (an older commit's virtualenv)."""

    name: str
    python: str

    def json(self, code: str, *args: str) -> Any:
        """The JSON ``python -c code args`` prints, run away from any checkout and without this process's
        ``PYTHONPATH``: the project it imports is the one installed for that Python."""
        env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
        command = [self.python, "-c", code, *args]
        proc = subprocess.run(command, cwd=tempfile.gettempdir(), env=env, capture_output=True, text=True, check=True)
        return json.loads(next(line for line in reversed(proc.stdout.splitlines()) if line.startswith("{")))


def _runners() -> list[Runner]:
    """This checkout, then the baseline when one is named."""
    chosen: list[Runner] = list(versions())
    if BASELINE_PYTHON:
        chosen = [chosen[0], Installed(BASELINE_PYTHON, BASELINE_PYTHON)]
    return chosen


@dataclass
class Measured:
    """One version's figures, measured on the same inputs as the other's."""

    version: Runner
    firsts: list[dict]
    """The first ingests of the large input, each into a new lake, in the order they ran."""
    again: dict
    """The large input ingested again into the first run's lake."""
    parse_rate: float
    small: dict
    """The small input ingested into a new lake."""

    @property
    def first(self) -> dict:
        """The median first run (by time)."""
        return sorted(self.firsts, key=lambda r: r["seconds"])[len(self.firsts) // 2]

    @property
    def rate(self) -> float:
        return self.first["accepted"] / self.first["seconds"]  # type: ignore[no-any-return]

    @property
    def rates(self) -> list[float]:
        return sorted(r["accepted"] / r["seconds"] for r in self.firsts)

    @property
    def again_ratio(self) -> float:
        return self.again["seconds"] / self.first["seconds"]  # type: ignore[no-any-return]

    @property
    def peak_big(self) -> float:
        return max(r["peak_mb"] for r in self.firsts)  # type: ignore[no-any-return]


def _measure(runners: list[Runner], work: Path, small: Path, big: Path) -> list[Measured]:
    """Every figure for each version, taking turns run by run: a machine that slows down or speeds up during the
    benchmark slows or speeds up both alike."""
    for i, v in enumerate(runners):
        v.json(RUN, str(small), str(work / f"warm{i}"))  # compile caches, file cache
    firsts: list[list[dict]] = [[] for _ in runners]
    for run in range(RUNS):
        for i, v in enumerate(runners):
            firsts[i].append(v.json(RUN, str(big), str(work / f"lake{i}-{run}")))
    again = [v.json(RUN, str(big), str(work / f"lake{i}-0")) for i, v in enumerate(runners)]
    parse = [v.json(PARSE, str(big), str(PARSE_SAMPLE_BYTES))["rate"] for v in runners]
    small_runs = [v.json(RUN, str(small), str(work / f"lake{i}-small")) for i, v in enumerate(runners)]
    return [Measured(*m) for m in zip(runners, firsts, again, parse, small_runs, strict=True)]


def _side_by_side(this: Measured, base: Measured, hands: int) -> list[Figure]:
    """The baseline's figures, each with this version's beside it."""
    ratios = [b["seconds"] / a["seconds"] for a, b in zip(this.firsts, base.firsts, strict=True)]
    return [
        Figure(
            f"baseline: {hands:,} hands, same file",
            base.rate,
            "hands/s",
            note=f"{base.version.name}, its code in {base.first['package']}; median of {RUNS} runs: "
            f"{base.first['seconds']:.2f} s; the runs: " + ", ".join(f"{r:,.0f}" for r in base.rates),
        ),
        Figure(
            "this version against the baseline",
            this.rate / base.rate,
            "x its hands/s",
            note="run by run (each pair ran one after the other): " + ", ".join(f"{r:.2f}x" for r in ratios),
        ),
        Figure(
            "baseline: reading alone",
            base.parse_rate,
            "hands/s",
            note=f"this version reads at {this.parse_rate / base.parse_rate:.2f}x",
        ),
        Figure(
            "baseline: re-ingest of the same file",
            base.again_ratio * 100,
            "% of its first run",
            note=f"{base.again['seconds']:.2f} s; this version {this.again['seconds']:.2f} s",
        ),
        Figure(
            "baseline: peak memory, input x4",
            base.peak_big,
            "MB",
            note=f"input x1: {base.small['peak_mb']:,.0f} MB; this version {this.peak_big - base.peak_big:+,.0f} MB",
        ),
    ]


def run(hands: int | None = None) -> bool:
    """Measure, print and save the figures; whether every count is right and, at the scale the targets are for,
    every target met.

    ``hands``: the large input's hands (default ``HANDS``; a quarter as many make the small one). At a scale given
    here the targets are shown but not judged: ``run(hands=400)`` runs the whole benchmark in a few seconds, and
    is true when every count is right.
    """
    judged = hands is None
    hands = hands or HANDS

    def target(met: bool) -> bool | None:
        return met if judged else None

    runners = _runners()
    work = Path(tempfile.mkdtemp(prefix="ofc-bench-ingest-"))
    try:
        small, big = _input(work, max(hands // 4, 1), seed=1), _input(work, hands, seed=2)
        measured = _measure(runners, work, small, big)
        this, base = measured[0], (measured[1] if len(measured) > 1 else None)
        size_mb = big.stat().st_size / 1e6
        small_mb = small.stat().st_size / 1e6
        first, again = this.first, this.again
        figures = [
            Figure(
                f"{hands:,} three-player Pineapple hands ({size_mb:,.0f} MB)",
                this.rate,
                "hands/s",
                ">= 100,000",
                target(this.rate >= 100_000),
                f"median of {RUNS} runs: {first['seconds']:.2f} s, {size_mb / first['seconds']:.0f} MB/s, "
                f"accepted {first['accepted']:,} of {first['read']:,}; the runs: "
                + ", ".join(f"{r:,.0f}" for r in this.rates),
            ),
            Figure(
                "reading alone (lines to columns), same file",
                this.parse_rate,
                "hands/s",
                note=f"no lake rows, no writes: end to end runs at {this.rate / this.parse_rate:.0%} of it",
            ),
            Figure(
                "re-ingest of the same file",
                this.again_ratio * 100,
                "% of the first run",
                "<= 20",
                target(this.again_ratio <= 0.2),
                f"{again['seconds']:.2f} s against the median first run; added {again['accepted']}, "
                f"duplicates {again['duplicates']:,}",
            ),
            Figure("peak memory, input x1", this.small["peak_mb"], "MB", note=f"{small_mb:,.0f} MB input"),
            Figure(
                "peak memory, input x4",
                this.peak_big,
                "MB",
                "<= 1,500",
                target(this.peak_big <= 1500),
                f"{size_mb:,.0f} MB input; {this.peak_big - this.small['peak_mb']:+,.0f} MB against the input x1",
            ),
        ]
        if base is not None:
            figures += _side_by_side(this, base, hands)
        ok = all(
            all(r["accepted"] == hands for r in m.firsts)
            and m.again["accepted"] == 0
            and m.small["accepted"] == max(hands // 4, 1)
            for m in measured
        )
        return report("ingest: canonical JSONL to the lake", figures) and ok
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(0 if run() else 1)
