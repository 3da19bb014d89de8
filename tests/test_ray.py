"""The Ray engine: ``ofc rescore --engine ray`` gives the result tables of a local rescore, row for row, and
nothing visible of a run killed midway; ``ofc simulate --engine ray --shards N`` the hands of a local run of N
shards."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import duckdb
import pyarrow as pa
import pytest
from typer.testing import CliRunner

from ofc.pipeline.cli import app
from ofc.pipeline.lake.store import Lake
from ofc.pipeline.paths import ROOT, SAMPLES
from ofc.pipeline.rescore.rescore_run import rescore
from ofc.pipeline.rules.files import load_rules
from ofc.pipeline.simulate.simulation_run import Spec

RESULT_TABLES = ("board_results", "pair_results")
"""Compared row for row. The summaries the report reads are sums over blocks of hands, which the engines cut
differently: they are compared by what the report makes of them."""
RULES = ("ofc", "classic-2-4")


def test_without_ray_the_engine_says_how_to_install_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)  # as if it were not installed
    lake = tmp_path / "lake"
    assert (
        CliRunner().invoke(app, ["ingest", str(SAMPLES / "worked-examples.jsonl"), "--lake", str(lake)]).exit_code == 0
    )
    result = CliRunner().invoke(app, ["rescore", "--lake", str(lake), "--engine", "ray"])
    assert result.exit_code == 2
    assert "pip install 'ofc-analytics[ray]'" in result.output


def rows(lake: Path, table: str) -> pa.Table:
    """A result table as a reader sees it, its rows in one order whatever files they are in."""
    files = CliRunner().invoke(app, ["lake", "files", table, "--lake", str(lake)]).stdout.split()
    con = duckdb.connect()
    source = f"read_parquet({files!r}, hive_partitioning = true)"
    batch = " EXCLUDE (batch)" if "batch" in con.sql(f"SELECT * FROM {source} LIMIT 0").columns else ""
    data = con.sql(f"SELECT *{batch} FROM {source}").to_arrow_table()  # the result batch's id differs
    plain = [c for c in data.column_names if not pa.types.is_nested(data.schema.field(c).type)]
    return data.sort_by([(c, "ascending") for c in plain])


@pytest.fixture(scope="module")
def lakes(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """Two copies of a lake of 50,000 hands over several variants and months, one rescored locally."""
    pytest.importorskip("ray")
    root = tmp_path_factory.mktemp("ray")
    local = root / "local"
    runner = CliRunner()
    for variant, hands, start in (("pineapple", 30_000, "2026-01-01"), ("ofc", 20_000, "2026-02-10")):
        args = ["simulate", "--variant", variant, "--hands", str(hands), "--bots", "heuristic,random", "--seed", "5"]
        done = runner.invoke(app, [*args, "--start", f"{start}T00:00:00+00:00", "--lake", str(local)])
        assert done.exit_code == 0, done.output
    assert runner.invoke(app, ["ingest", str(SAMPLES), "--lake", str(local)]).exit_code == 0
    distributed = root / "distributed"
    subprocess.run(["cp", "-r", str(local), str(distributed)], check=True)
    rescore(Lake(local), [load_rules(r) for r in RULES])
    return local, distributed


@pytest.fixture(scope="module")
def cluster() -> Iterator[None]:
    """Ray started here on 2 CPUs, for the module's tests."""
    ray = pytest.importorskip("ray")
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, configure_logging=False)
    yield
    ray.shutdown()


def report_of(lake: Path) -> dict:
    """Every figure, table and listed hand of the report, as ``ofc report --json`` gives them."""
    result = CliRunner().invoke(app, ["report", "--lake", str(lake), "--json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_a_ray_rescore_equals_a_local_one_row_for_row(
    lakes: tuple[Path, Path], cluster: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    from ofc.pipeline.rescore import ray_rescore as engine

    local, distributed = lakes
    monkeypatch.setattr(engine, "SLICE_HANDS", 7_000)  # each partition read in slices, side by side
    report = rescore(Lake(distributed), [load_rules(r) for r in RULES], engine="ray")
    assert sum(t.hands for t in report.run if t.rules == "ofc") == 50_023
    for table in RESULT_TABLES:
        assert rows(local, table).equals(rows(distributed, table)), table
    assert report_of(local) == report_of(distributed)


def test_a_driver_killed_midway_leaves_nothing_and_a_rerun_finishes(lakes: tuple[Path, Path], tmp_path: Path) -> None:
    local, _ = lakes
    lake = tmp_path / "lake"
    subprocess.run(["cp", "-r", str(local), str(lake)], check=True)
    for manifest in sorted((lake / "_manifests").glob("*.json")):  # back to the ingested lake: no results
        if '"kind": "rescore"' in manifest.read_text():
            manifest.unlink()
    before = sorted(p.name for p in (lake / "_manifests").glob("*.json"))
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    command = [sys.executable, "-m", "ofc", "rescore", "--lake", str(lake), "--engine", "ray"]
    proc = subprocess.Popen([*command, "-r", "ofc", "-r", "classic-2-4"], env=env, start_new_session=True)
    deadline = time.monotonic() + 120
    while not any((lake / "_staging").rglob("*.parquet")) and time.monotonic() < deadline:
        time.sleep(0.05)
    os.killpg(proc.pid, signal.SIGKILL)  # the driver and the workers it started
    proc.wait()
    assert sorted(p.name for p in (lake / "_manifests").glob("*.json")) == before  # nothing committed
    done = subprocess.run([*command, "-r", "ofc", "-r", "classic-2-4"], env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    for table in RESULT_TABLES:
        assert rows(local, table).equals(rows(lake, table)), table
    assert report_of(local) == report_of(lake)


def test_a_sharded_simulation_gives_the_same_hands_on_ray(tmp_path: Path, cluster: None) -> None:
    import ray

    from ofc.pipeline.simulate.ray_simulation import to_lake_ray
    from ofc.pipeline.simulate.simulation_run import plan, to_lake

    def spec(shards: int) -> Spec:
        rules = load_rules("pineapple")
        return plan("pineapple", 3, 3_000, "heuristic,random", rules, seed=11, session_hands=50, shards=shards)

    here = to_lake(spec(4), Lake(tmp_path / "here"))
    there = to_lake_ray(spec(4), Lake(tmp_path / "there"), ray)
    whole = to_lake(spec(1), Lake(tmp_path / "whole"))
    hands = {
        name: Lake(tmp_path / name).read("hands", ["hand_key", "content_hash"]).sort_by("hand_key")
        for name in ("here", "there", "whole")
    }
    assert hands["here"].num_rows == 3_000
    assert hands["here"].equals(hands["there"])  # the same seed and shards, whoever plays them
    assert not hands["here"].equals(hands["whole"])  # other shards, other hands
    assert here.summary.rows() == there.summary.rows()
    assert here.spec.run_id != whole.spec.run_id


def _scoring_workers() -> list[int]:
    """The Ray worker processes running a scoring task now (Ray names a worker after its task)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                title = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            except OSError:
                continue
            if title.startswith("ray::") and ("MapBatches" in title or "_score_block" in title):
                found.append(int(entry.name))
    return found


def test_a_worker_killed_midway_leaves_nothing_half_done(lakes: tuple[Path, Path], tmp_path: Path) -> None:
    """Ray runs the killed worker's slice again, or the run fails whole; either way a reader sees every result
    or none, and a rerun gives what a local rescore gives."""
    local, _ = lakes
    lake = tmp_path / "lake"
    subprocess.run(["cp", "-r", str(local), str(lake)], check=True)
    for manifest in sorted((lake / "_manifests").glob("*.json")):
        if '"kind": "rescore"' in manifest.read_text():
            manifest.unlink()
    before = sorted(p.name for p in (lake / "_manifests").glob("*.json"))
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    command = [sys.executable, "-m", "ofc", "rescore", "--lake", str(lake), "--engine", "ray", "-r", "ofc"]
    proc = subprocess.Popen(command, env=env, start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline, killed = time.monotonic() + 120, []
    while not killed and proc.poll() is None and time.monotonic() < deadline:
        for pid in _scoring_workers():
            os.kill(pid, signal.SIGKILL)
            killed.append(pid)
        time.sleep(0.02)
    try:
        proc.wait(timeout=300)
    finally:
        with contextlib.suppress(ProcessLookupError):  # its workers, if the driver left any
            os.killpg(proc.pid, signal.SIGKILL)
    assert killed, "no scoring worker was seen to kill"
    after = sorted(p.name for p in (lake / "_manifests").glob("*.json"))
    if proc.returncode != 0:
        assert after == before  # failed whole: nothing committed
    rerun = subprocess.run(command, env=env, capture_output=True, text=True)
    assert rerun.returncode == 0, rerun.stderr
    ofc = load_rules("ofc").key
    for table in RESULT_TABLES:
        mine, theirs = rows(lake, table), rows(local, table)
        under = [t.filter(pa.compute.equal(t.column("rules_key"), ofc)) for t in (mine, theirs)]
        assert under[0].equals(under[1]), table
