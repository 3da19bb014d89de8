"""Corrections and removals: a corrected file replaces what changed and removes what it dropped, a batch or a
source file can be removed, every edit is one commit recorded in the lake, and files leave the disk only in a
vacuum that no reader is in the way of."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import polars as pl
import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

import ofc.pipeline.lake.batch_writer as batch_writer
import ofc.pipeline.lake.store as store
from ofc.pipeline.cli import app
from ofc.pipeline.ingest.ingest_run import ingest
from ofc.pipeline.lake.edit import EditError, remove, vacuum
from ofc.pipeline.lake.file_layout import LAKE_FORMAT
from ofc.pipeline.lake.store import Lake, LakeError
from ofc.pipeline.paths import SAMPLES
from ofc.pipeline.query.db import connect
from ofc.pipeline.rescore.rescore_run import rescore
from ofc.pipeline.rules.files import load_rules

CLUB = SAMPLES / "scoresheet" / "club-night.csv"
EXAMPLES = SAMPLES / "worked-examples.jsonl"
ROOT = Path(__file__).resolve().parents[1]
runner = CliRunner()


def corrected(folder: Path) -> Path:
    """The club sheet with hand 1 corrected (a card and the points) and hand 6 left out."""
    lines = CLUB.read_text().splitlines()
    lines[1] = lines[1].replace(",20", ",14")
    lines[3] = lines[3].replace("Kc 9c 2d", "Kc 9c 3s").replace(",-36", ",-30")
    lines = [line for line in lines if line.split(",")[1:2] != ["6"]]
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "club-night.csv"
    path.write_text("\n".join(lines) + "\n")
    return path


def rows(lake: Lake, sql: str) -> list[tuple]:
    with connect(lake) as con:
        return con.execute(sql).fetchall()


def hidden(lake: Lake) -> list[Path]:
    """Files a manifest hid that are still on disk."""
    return [lake.root / f for m in lake.manifests() for f in m.get("replaces", ()) if (lake.root / f).exists()]


def test_a_corrected_file_replaces_what_changed_and_removes_what_it_dropped(tmp_path: Path) -> None:
    lake = Lake(tmp_path / "lake")
    ingest([CLUB], lake)
    ingest([EXAMPLES], lake)  # another batch: its results stay
    rescore(lake, [load_rules("ofc")])
    before = rows(lake, "SELECT count(*) FROM board_results")[0][0]
    carla = "SELECT cards, points FROM boards JOIN hands USING (hand_key) WHERE hand_id = '1' AND player = 'Carla'"
    [(old_cards, old_points)] = rows(lake, carla)
    report = ingest([corrected(tmp_path / "fixed")], lake, replace=True)
    t = report.totals
    assert (t.read, t.accepted, t.quarantined, t.duplicates) == (5, 1, 0, 4)
    assert (report.replaced, report.removed) == (1, 1)
    hands = rows(lake, "SELECT hand_id FROM hands WHERE source = 'scoresheet' ORDER BY hand_number")
    assert [h for (h,) in hands] == ["1", "2", "3", "4", "5"]
    [(cards, points)] = rows(lake, carla)
    assert (old_points, points) == (-36, -30)
    assert cards[:2] == old_cards[:2]
    assert cards[2] != old_cards[2]
    assert cards[3:] == old_cards[3:]
    # The results scored from the corrected batch are gone until the next rescore; the other hands' stay.
    assert rows(lake, "SELECT count(*) FROM scored_boards WHERE source = 'scoresheet'")[0][0] == 0
    assert 0 < rows(lake, "SELECT count(*) FROM board_results")[0][0] < before
    rescore(lake, [load_rules("ofc")])
    boards = rows(lake, "SELECT count(*) FROM boards")[0][0]
    assert rows(lake, "SELECT count(*) FROM board_results WHERE native")[0][0] == boards
    scored = "SELECT recorded_points FROM played_boards WHERE hand_id = '1' AND player = 'Carla'"
    assert rows(lake, scored) == [(-30,)]
    # Recorded in the lake; the old files stay on disk, hidden, until a vacuum.
    last_ingest = [m for m in lake.manifests() if m["kind"] == "ingest"][-1]
    assert last_ingest["corrections"]["replaced"] == 1
    assert last_ingest["corrections"]["removed"] == 1
    assert last_ingest["carries"]
    assert hidden(lake)
    lake.release()
    waiting = len(hidden(lake))
    assert vacuum(lake, wait=5)["files"] == waiting
    assert hidden(lake) == []
    assert rows(lake, "SELECT count(*) FROM board_results WHERE native")[0][0] == boards


def test_a_correction_first_ingested_without_replace_is_read_again_with_it(tmp_path: Path) -> None:
    lake = Lake(tmp_path / "lake")
    ingest([CLUB], lake)
    fixed = corrected(tmp_path / "fixed")
    assert ingest([fixed], lake).totals.quarantined == 1  # hand 1 refused: other cards
    report = ingest([fixed], lake, replace=True)  # the same bytes: read again, not skipped as seen
    assert (report.replaced, report.removed) == (1, 1)
    assert rows(lake, "SELECT count(*) FROM hands")[0][0] == 5


def test_the_same_correction_twice_changes_nothing(tmp_path: Path) -> None:
    lake = Lake(tmp_path / "lake")
    ingest([CLUB], lake)
    fixed = corrected(tmp_path / "fixed")
    ingest([fixed], lake, replace=True)
    again = fixed.with_name("copy.csv")
    again.write_text(fixed.read_text())  # other bytes would be needed to be read again: the same hands, renamed
    report = ingest([fixed.parent], lake, replace=True)
    assert (report.replaced, report.removed) == (0, 0)
    assert rows(lake, "SELECT count(*) FROM hands")[0][0] == 5


def test_remove_a_batch_or_a_source_in_one_commit(tmp_path: Path) -> None:
    lake = Lake(tmp_path / "lake")
    first = ingest([CLUB], lake).batch
    ingest([EXAMPLES], lake)
    rescore(lake, [load_rules("ofc")])
    assert rows(lake, "SELECT count(*) FROM hands")[0][0] == 10
    done = remove(lake, batch=first)
    assert done["hands"] == 6
    assert rows(lake, "SELECT count(*) FROM hands")[0][0] == 4
    assert rows(lake, "SELECT count(DISTINCT hand_key) FROM board_results")[0][0] == 4
    assert rows(lake, "SELECT count(*) FROM quarantine")[0][0] == 0
    assert [m["kind"] for m in lake.manifests()][-1] == "remove"
    done = remove(lake, source=str(EXAMPLES))
    assert done["hands"] == 4
    assert rows(lake, "SELECT count(*) FROM hands")[0][0] == 0
    with pytest.raises(EditError, match="closest"):
        remove(lake, batch=first[:-2])
    with pytest.raises(EditError, match="no hands were read from"):
        remove(lake, source=str(tmp_path / "nowhere.csv"))
    # Removed hands can come back.
    again = tmp_path / "again" / "club-night.csv"
    again.parent.mkdir()
    again.write_text(CLUB.read_text() + "\n")  # other bytes: read again, not skipped as a file seen before
    assert ingest([again], lake).totals.accepted == 6


def test_the_lake_commands(tmp_path: Path) -> None:
    lake = tmp_path / "lake"
    ingest([CLUB], Lake(lake))
    listed = runner.invoke(app, ["lake", "--lake", str(lake), "--json"])
    assert listed.exit_code == 0
    [batch] = json.loads(listed.stdout)
    assert (batch["kind"], batch["accepted"]) == ("ingest", 6)
    wrong = runner.invoke(app, ["lake", "remove", batch["batch"][:-1], "--lake", str(lake)])
    assert wrong.exit_code == 2
    assert "closest: " + batch["batch"] in wrong.stderr
    gone = runner.invoke(app, ["lake", "remove", batch["batch"], "--lake", str(lake)])
    assert gone.exit_code == 0
    assert "6 hands" in gone.stdout
    listed = json.loads(runner.invoke(app, ["lake", "--lake", str(lake), "--json"]).stdout)
    assert [b["kind"] for b in listed] == ["ingest", "remove"]
    assert listed[1]["removes"] == [batch["batch"]]
    files = runner.invoke(app, ["lake", "files", "hand", "--lake", str(lake)])
    assert files.exit_code == 2
    assert "closest: hands" in files.stderr


def test_committed_files_are_what_other_tools_read(tmp_path: Path) -> None:
    lake = Lake(tmp_path / "lake")
    ingest([CLUB, EXAMPLES], lake)
    ingest([corrected(tmp_path / "fixed")], lake, replace=True)
    listed = runner.invoke(app, ["lake", "files", "hands", "--lake", str(lake.root), "--json"])
    files = json.loads(listed.stdout)
    assert pl.read_parquet(files).height == rows(lake, "SELECT count(*) FROM hands")[0][0] == 9
    # A bare glob also sees the hidden files a vacuum has not deleted yet: one hand too many, and the old hand 1.
    assert pl.read_parquet(str(lake.root / "hands" / "**" / "*.parquet"), hive_partitioning=False).height > 9


def test_vacuum_waits_for_readers(tmp_path: Path) -> None:
    lake = Lake(tmp_path / "lake")
    first = ingest([CLUB], lake).batch
    remove(lake, batch=first)
    lake.release()
    reader = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys, time; from ofc.pipeline.lake.store import Lake; Lake(sys.argv[1]).snapshot(); "
            "print('reading', flush=True); time.sleep(30)",
            str(lake.root),
        ],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert reader.stdout.readline().strip() == "reading"
        t0 = time.perf_counter()
        with pytest.raises(LakeError, match="other processes are reading the lake"):
            vacuum(lake, wait=0.5)
        assert time.perf_counter() - t0 < 5
        assert hidden(lake)  # nothing deleted under the reader
    finally:
        reader.kill()
        reader.wait(timeout=30)
    assert vacuum(lake, wait=5)["files"] > 0
    assert hidden(lake) == []


def test_a_process_that_reads_cannot_vacuum(tmp_path: Path) -> None:
    lake = Lake(tmp_path / "lake")
    ingest([CLUB], lake)
    lake.snapshot()
    with pytest.raises(LakeError, match="this process reads the lake"):
        vacuum(lake, wait=0)
    lake.release()
    assert vacuum(lake, wait=0)["files"] == 0


def test_a_lake_of_a_newer_format_is_refused(tmp_path: Path) -> None:
    lake = Lake(tmp_path / "lake")
    ingest([CLUB], lake)
    [path] = lake.manifest_dir.glob("*.json")
    manifest = json.loads(path.read_text())
    assert manifest["lake_format"] == LAKE_FORMAT
    manifest["lake_format"] = LAKE_FORMAT + 1
    path.write_text(json.dumps(manifest))
    with pytest.raises(LakeError, match="newer version of ofc"):
        lake.manifests()
    cli = [sys.executable, "-m", "ofc", "sql", "SELECT 1", "--lake", str(lake.root)]
    result = subprocess.run(cli, cwd=ROOT, capture_output=True, text=True, timeout=120, check=False)
    assert result.returncode == 2
    assert "newer version of ofc" in result.stderr
    assert "Traceback" not in result.stderr


def test_a_commit_flushes_every_file_before_it_counts(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    synced: list[Path] = []
    moved: list[Path] = []
    real_replace = os.replace
    for module in (store, batch_writer):  # the files' flush, and the manifest's
        monkeypatch.setattr(module, "fsync", lambda p: synced.append(Path(p)))

    def replace(src: str | Path, dst: str | Path) -> None:
        if Path(src).suffix == ".parquet":
            assert Path(src) in synced, f"{src} moved into place before it was flushed"
            moved.append(Path(dst))
        real_replace(src, dst)

    monkeypatch.setattr(batch_writer.os, "replace", replace)
    lake = Lake(tmp_path / "lake")
    ingest([CLUB], lake)
    assert moved
    for dst in moved:  # every folder a file was moved into, up to the lake
        assert dst.parent in synced
        assert lake.root in synced
    assert pq.read_metadata(moved[0]).num_rows > 0
