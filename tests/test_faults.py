"""Crashes, failed writes and concurrent writers: the lake stays readable and loses nothing.

Writers are real subprocesses killed with SIGKILL at random moments; after each kill the lake must
read cleanly with no partial batch in sight, and a rerun must leave exactly what an uninterrupted run
leaves. Failed writes (a full disk, simulated) must leave no file behind, and two writers at once must
both succeed.
"""

from __future__ import annotations

import errno
import json
import os
import random
import signal
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from ofc.pipeline.ingest.ingest_run import ingest
from ofc.pipeline.lake.store import Lake
from ofc.pipeline.query.db import connect
from tests.bench.bench_ingest import write_hands

ROOT = Path(__file__).resolve().parents[1]
INGEST = """
import sys
from pathlib import Path
from ofc.pipeline.ingest.ingest_run import ingest
from ofc.pipeline.lake.store import Lake
ingest([Path(p) for p in sys.argv[2:]], Lake(sys.argv[1]))
"""


@pytest.fixture(scope="module")
def inputs(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    d = tmp_path_factory.mktemp("inputs")
    files = []
    for i in range(3):
        f = d / f"part{i}.jsonl"
        write_hands(f, 4000, seed=10 + i)
        files.append(f)
    return files


def contents(lake: Lake) -> dict[str, object]:
    """What a reader sees: committed rows per table (order-free), and that every committed file reads."""
    for table in ("hands", "boards", "placements", "quarantine", "batches"):
        for f in lake.files(table):
            pq.read_metadata(f)  # a torn or half-written file would fail here
    hands = lake.read("hands", ["hand_key", "content_hash"])
    with connect(lake) as con:
        counts = {t: con.execute(f"SELECT count(*) FROM {t}").fetchone()[0] for t in ("hands", "boards", "placements")}
    return {"keys": sorted(hands.column("hand_key").to_pylist()), **counts}


def leftovers(lake: Lake) -> list[Path]:
    """Files no manifest lists (outside staging, which only a running writer may hold)."""
    listed = {Path(f) for m in lake.manifests() for f in m["files"]}
    out = []
    for p in lake.root.rglob("*.parquet"):
        rel = p.relative_to(lake.root)
        if rel.parts[0] != "_staging" and rel not in listed:
            out.append(rel)
    return out


RESCORE = """
import sys
from ofc.pipeline.lake.store import Lake
from ofc.pipeline.rescore.rescore_run import rescore
from ofc.pipeline.rules.files import load_rules
rescore(Lake(sys.argv[1]), [load_rules(r) for r in sys.argv[2:]])
"""
RULES = ["ofc", "pineapple", "progressive-pineapple", "classic-2-4"]
SIMULATE = """
import sys
from ofc.pipeline.lake.store import Lake
from ofc.pipeline.simulate.simulation_run import plan, to_lake
from ofc.pipeline.rules.files import load_rules
to_lake(plan("pineapple", 3, 3000, "heuristic,random,heuristic", load_rules("pineapple"), seed=5), Lake(sys.argv[1]))
"""


def start(lake: Path, args: Sequence[object], script: str = INGEST) -> subprocess.Popen[bytes]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONFAULTHANDLER": "1"}
    return subprocess.Popen([sys.executable, "-c", script, str(lake), *map(str, args)], cwd=ROOT, env=env)


def finish(proc: subprocess.Popen[bytes], limit: float = 300) -> int:
    """The writer's exit code; a writer still running after ``limit`` seconds is stuck: its threads' stacks go
    to the test's output (SIGABRT, with the fault handler on) and the test fails instead of hanging."""
    try:
        return proc.wait(timeout=limit)
    except subprocess.TimeoutExpired:
        proc.send_signal(signal.SIGABRT)
        finish(proc)
        pytest.fail(f"a writer ran for more than {limit:.0f} s: its threads' stacks are in the output above")


def results(lake: Lake) -> dict[str, object]:
    """Result rows as a reader sees them, order-free."""
    with connect(lake) as con:
        return {
            t: con.execute(f"SELECT * EXCLUDE (rules_key) FROM {t} ORDER BY ALL").fetchall()
            for t in ("pair_results", "board_results")
        }


def test_ingest_killed_at_random_moments_then_rerun(inputs: list[Path], tmp_path: Path) -> None:
    reference = Lake(tmp_path / "reference")
    ingest(inputs, reference)
    expected = contents(reference)
    assert expected["hands"] == 12000

    rnd = random.Random(4)
    t0 = time.perf_counter()
    finish(start(tmp_path / "timing", inputs))
    full = time.perf_counter() - t0
    for attempt in range(5):
        lake = Lake(tmp_path / f"lake{attempt}")
        proc = start(lake.root, inputs)
        time.sleep(rnd.uniform(0.05, full))
        proc.send_signal(signal.SIGKILL)
        finish(proc)
        seen = contents(lake)
        assert seen["hands"] in (0, expected["hands"])  # one batch: all of it or none of it
        assert seen["boards"] == 3 * seen["hands"]
        assert seen["placements"] == 51 * seen["hands"]
        ingest(inputs, lake)  # the rerun cleans up after the crash and completes
        assert contents(lake) == expected
        assert leftovers(lake) == []
        assert not (lake.root / "_staging").exists() or not any((lake.root / "_staging").iterdir())


def test_a_full_disk_leaves_no_file_and_the_next_run_succeeds(
    inputs: list[Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from ofc.pipeline.lake import batch_writer

    lake = Lake(tmp_path / "lake")
    ingest(inputs[:1], lake)
    before = contents(lake)
    calls = {"n": 0}
    real = batch_writer.BatchWriter._append

    def failing(self: batch_writer.BatchWriter, table: str, partition: str, data: object) -> None:
        calls["n"] += 1
        if calls["n"] == 3:
            raise OSError(errno.ENOSPC, "No space left on device")
        real(self, table, partition, data)  # type: ignore[arg-type]

    monkeypatch.setattr(batch_writer.BatchWriter, "_append", failing)
    with pytest.raises(OSError, match="No space left"):
        ingest(inputs[1:], lake)
    monkeypatch.undo()
    assert contents(lake) == before
    assert leftovers(lake) == []
    assert not any((lake.root / "_staging").glob("*"))

    # The manifest itself failing to write: the batch stays invisible, and is cleaned up.
    def no_manifest(self: Lake, manifest: dict) -> None:
        tmp = self.manifest_dir / f".{manifest['batch']}.json.tmp"
        tmp.write_text(json.dumps(manifest)[:100])  # torn
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(Lake, "write_manifest", no_manifest)
    with pytest.raises(OSError, match="No space left"):
        ingest(inputs[1:], lake)
    monkeypatch.undo()
    assert contents(lake) == before
    ingest(inputs[1:], lake)
    assert contents(lake)["hands"] == 12000
    assert leftovers(lake) == []
    assert not list(lake.manifest_dir.glob(".*.tmp"))


def test_two_ingests_at_once_both_succeed(inputs: list[Path], tmp_path: Path) -> None:
    lake = Lake(tmp_path / "lake")
    a = start(lake.root, inputs[:2])
    b = start(lake.root, inputs[1:])
    assert finish(a) == 0
    assert finish(b) == 0
    seen = contents(lake)
    assert seen["hands"] == 12000  # the shared file went in once
    for m in lake.manifests():
        assert m["files"]
    assert len(lake.manifests()) == 2


def test_rescore_killed_at_random_moments_then_rerun(inputs: list[Path], tmp_path: Path) -> None:
    import shutil

    from ofc.pipeline.rescore.rescore_run import rescore
    from ofc.pipeline.rules.files import load_rules

    base = Lake(tmp_path / "base")
    ingest(inputs[:1], base)
    ingest(inputs[1:], base)  # two source batches
    reference = Lake(tmp_path / "reference")
    shutil.copytree(base.root, reference.root)
    rescore(reference, [load_rules(r) for r in RULES])
    expected = results(reference)
    assert len(expected["board_results"]) == 12000 * 3 * len(RULES)

    t0 = time.perf_counter()
    finish(start(shutil.copytree(base.root, tmp_path / "timing"), RULES, RESCORE))
    full = time.perf_counter() - t0
    rnd = random.Random(8)
    for attempt in range(4):
        lake = Lake(shutil.copytree(base.root, tmp_path / f"lake{attempt}"))
        proc = start(lake.root, RULES, RESCORE)
        time.sleep(rnd.uniform(0.2, full))
        proc.send_signal(signal.SIGKILL)
        finish(proc)
        seen = results(lake)
        # Each source batch's results under all four rule sets are committed together, or not at all.
        assert len(seen["board_results"]) in (0, 4000 * 3 * len(RULES), 12000 * 3 * len(RULES))
        assert contents(lake) == contents(base)
        rescore(lake, [load_rules(r) for r in RULES])
        assert results(lake) == expected
        assert leftovers(lake) == []


def test_simulation_killed_at_random_moments_then_rerun(tmp_path: Path) -> None:
    reference = Lake(tmp_path / "reference")
    t0 = time.perf_counter()
    assert finish(start(reference.root, [], SIMULATE)) == 0
    full = time.perf_counter() - t0
    expected = contents(reference)
    assert expected["hands"] == 3000
    rnd = random.Random(6)
    for attempt in range(3):
        lake = Lake(tmp_path / f"lake{attempt}")
        proc = start(lake.root, [], SIMULATE)
        time.sleep(rnd.uniform(0.3, full))
        proc.send_signal(signal.SIGKILL)
        finish(proc)
        assert contents(lake)["hands"] in (0, 3000)
        assert finish(start(lake.root, [], SIMULATE)) == 0  # the same seed: the same hands
        assert contents(lake) == expected
        assert leftovers(lake) == []


def test_a_new_lake_that_got_no_batch_leaves_nothing_behind(tmp_path: Path) -> None:
    """A writer interrupted before its first commit: no folder a later command would read as an empty lake; a
    folder the user made stays as it was; a lake with batches stays a lake."""
    new = Lake(tmp_path / "new")

    def begun() -> None:
        with new.locked():
            (new.root / "_staging").mkdir()
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        begun()
    assert not new.root.exists()

    made = tmp_path / "made"
    made.mkdir()
    (made / "notes.txt").write_text("mine")
    with pytest.raises(KeyboardInterrupt), Lake(made).locked():
        raise KeyboardInterrupt
    assert sorted(p.name for p in made.iterdir()) == ["notes.txt"]

    kept = Lake(tmp_path / "kept")
    with kept.locked():
        kept.write_manifest({"batch": "20260101T000000000000-abcdef", "files": []})
    with pytest.raises(KeyboardInterrupt), kept.locked():
        raise KeyboardInterrupt
    assert kept.exists()
    assert len(kept.manifests()) == 1
