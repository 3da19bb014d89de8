"""``ofc ingest --watch``: files read once they hold still, never half; a changed file read again; Ctrl-C ends."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from ofc.pipeline.ingest.ingest_run import IngestReport, ingest
from ofc.pipeline.ingest.watch import Settling, WatchTotals, wanted, watch
from ofc.pipeline.lake.store import Lake
from ofc.pipeline.paths import ROOT, SAMPLES

JSONL = SAMPLES / "worked-examples.jsonl"
SHEET = SAMPLES / "scoresheet" / "club-night.csv"
NEW_DEAL = [
    ("Ann", ("Kh Ks 3s", "7c 7d 9h 9s 4s", "Td Th Jc Js 2s")),
    ("Bo", ("6h 6d 2c", "7h 8d 9d Tc Qc", "Ah Ad Ac 5c 5d")),
]
"""A hand in no sample."""
SETTLE = 0.3
PATIENCE = 60.0
"""Seconds a test waits for the watch to do what it must (a loaded machine is slow; a pass is quick)."""


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_a_file_is_ready_once_it_has_held_still(tmp_path: Path) -> None:
    clock = Clock()
    settling = Settling(2.0, clock)
    path = tmp_path / "a.csv"
    path.write_text("hand,player\n")
    settling.saw(path)
    clock.now = 1.9
    assert settling.ready() == []
    path.write_text("hand,player,top\n")  # it changed: its clock starts again
    clock.now = 3.0
    assert settling.ready() == []
    clock.now = 4.9
    assert settling.ready() == []
    clock.now = 5.0
    assert settling.ready() == [path.resolve()]
    assert settling.waiting == {}


def test_a_line_file_cut_mid_line_waits_longer(tmp_path: Path) -> None:
    clock = Clock()
    settling = Settling(1.0, clock)
    cut = tmp_path / "cut.jsonl"
    cut.write_bytes(JSONL.read_bytes()[:300])
    whole = tmp_path / "whole.jsonl"
    whole.write_bytes(JSONL.read_bytes())
    settling.saw(cut)
    settling.saw(whole)
    clock.now = 1.0
    assert settling.ready() == [whole.resolve()]
    clock.now = 4.9
    assert settling.ready() == []
    clock.now = 5.0
    assert settling.ready() == [cut.resolve()]


@pytest.mark.parametrize(
    ("name", "read"),
    [
        ("night.csv", True),
        ("log.jsonl.gz", True),
        ("league.xlsx", True),
        ("night.csv.part", False),
        ("night.csv.crdownload", False),
        (".night.csv", False),
        ("~$league.xlsx", False),
        ("notes.md", False),
    ],
)
def test_names_of_files_in_the_making_are_passed_over(name: str, read: bool) -> None:
    assert wanted(Path("/x") / name) is read


def hands(lake: Lake) -> int:
    return lake.read("hands", ["hand_key"]).num_rows if lake.exists() and lake.manifests() else 0


def until(condition: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + PATIENCE
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"the watch did not {what} within {PATIENCE} s")
        time.sleep(0.05)


def test_the_watch_reads_new_and_changed_files_and_never_half_of_one(tmp_path: Path) -> None:
    folder = tmp_path / "in"
    folder.mkdir()
    shutil.copy(SHEET, folder / "before.csv")  # there before the watch: read first
    lake = Lake(tmp_path / "lake")
    stop = threading.Event()
    batches: list[list[tuple[str, int, int, int]]] = []
    ended: list[WatchTotals] = []

    def on_batch(report: IngestReport, totals: WatchTotals) -> None:
        batches.append([(Path(f.source).name, f.accepted, f.quarantined, f.duplicates) for f in report.files])

    def run() -> None:
        ended.append(watch([folder], lambda files: ingest(files, lake), settle=SETTLE, stop=stop, on_batch=on_batch))

    thread = threading.Thread(target=run)
    thread.start()
    try:
        until(lambda: hands(lake) == 6, "read the file already there")
        # A file written in two goes, the first ending mid-line: not read until it is whole.
        lines = JSONL.read_bytes()
        (folder / "log.jsonl").write_bytes(lines[:400])
        time.sleep(SETTLE * 3)
        assert hands(lake) == 6, "half a file was read"
        with (folder / "log.jsonl").open("ab") as fh:
            fh.write(lines[400:])
        until(lambda: hands(lake) == 10, "read the finished file")
        # A file written under a temporary name, then renamed: read once, under its own name.
        shutil.copy(SHEET, folder / "copy.csv.part")
        (folder / "copy.csv.part").rename(folder / "again.csv")
        until(lambda: len(batches) == 3, "read the renamed file")
        # A file that grows: what it held is duplicates, the new hand is accepted.
        deal = [{"name": n, "top": t.split(), "middle": m.split(), "bottom": b.split()} for n, (t, m, b) in NEW_DEAL]
        extra = {"hand_id": "E9", "variant": "ofc", "players": deal}
        with (folder / "log.jsonl").open("a") as fh:
            fh.write(json.dumps(extra) + "\n")
        until(lambda: hands(lake) == 11, "read the file that grew")
    finally:
        stop.set()
        thread.join(PATIENCE)
    assert not thread.is_alive()
    assert batches == [
        [("before.csv", 6, 0, 0)],
        [("log.jsonl", 4, 0, 0)],
        [("again.csv", 0, 0, 6)],
        [("log.jsonl", 1, 0, 4)],
    ]
    (totals,) = ended
    assert (totals.batches, totals.files, totals.read, totals.accepted, totals.duplicates) == (4, 4, 21, 11, 10)
    assert totals.quarantined == totals.errors == 0


def test_ctrl_c_ends_the_watch_with_its_totals(tmp_path: Path) -> None:
    folder = tmp_path / "in"
    folder.mkdir()
    lake = tmp_path / "lake"
    command = [sys.executable, "-m", "ofc", "ingest", "--watch", str(folder), "--lake", str(lake)]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen(
        [*command, "--settle", str(SETTLE), "--json"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env
    )
    watchdog = threading.Timer(PATIENCE, proc.kill)
    watchdog.start()
    try:
        shutil.copy(SHEET, folder / "night.csv")
        assert proc.stdout is not None
        first = proc.stdout.readline()  # the batch's line, written as it is committed
        proc.send_signal(signal.SIGINT)
        stdout, stderr = proc.communicate(timeout=PATIENCE)
    finally:
        watchdog.cancel()
        proc.kill()
    assert proc.returncode == 0, stderr.decode()
    batch, final = (json.loads(line) for line in [first.decode(), *stdout.decode().splitlines()])
    assert batch["total"]["accepted"] == 6
    assert final == {
        "watch": {
            "batches": 1,
            "files": 1,
            "read": 6,
            "accepted": 6,
            "quarantined": 0,
            "duplicates": 0,
            "errors": 0,
        }
    }


def test_watching_what_does_not_exist_is_a_usage_error(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from ofc.pipeline.cli import app

    result = CliRunner().invoke(app, ["ingest", "--watch", str(tmp_path / "nowhere"), "--lake", str(tmp_path / "l")])
    assert result.exit_code == 2
    assert "--watch: no such file or folder" in result.output


def run_in_thread(
    roots: list[Path], lake: Lake, **options: object
) -> tuple[threading.Thread, threading.Event, list[WatchTotals], list[str]]:
    """A watch of ``roots`` into ``lake`` on a thread: (thread, stop, its totals once ended, errors said)."""
    stop = threading.Event()
    ended: list[WatchTotals] = []
    errors: list[str] = []

    def run() -> None:
        ended.append(
            watch(
                roots,
                lambda files: ingest(files, lake),
                settle=SETTLE,
                stop=stop,
                on_error=lambda exc, files: errors.append(str(exc)),
                **options,  # type: ignore[arg-type]
            )
        )

    thread = threading.Thread(target=run)
    thread.start()
    return thread, stop, ended, errors


def test_a_broken_archive_is_its_own_error_and_a_lake_inside_is_not_read(tmp_path: Path) -> None:
    folder = tmp_path / "in"
    folder.mkdir()
    lake = Lake(folder / "lake")  # the lake inside the watched folder: its manifests are not histories
    thread, stop, ended, errors = run_in_thread([folder], lake, exclude=[lake.root])
    try:
        (folder / "broken.zip").write_bytes(b"PK\x03\x04 not really a zip")
        shutil.copy(SHEET, folder / "night.csv")
        until(lambda: hands(lake) == 6, "read the good file beside the broken one")
        # A folder moved in brings its files.
        staged = tmp_path / "staged" / "later"
        staged.mkdir(parents=True)
        shutil.copy(JSONL, staged / "log.jsonl")
        staged.rename(folder / "later")
        until(lambda: hands(lake) == 10, "read the files of a folder moved in")
        time.sleep(SETTLE * 4)  # time for a manifest, had it been taken for a history, to be read
    finally:
        stop.set()
        thread.join(PATIENCE)
    (totals,) = ended
    assert errors == [f"{folder / 'broken.zip'}: not a readable zip archive (File is not a zip file)"]
    assert (totals.batches, totals.files, totals.accepted, totals.errors) == (2, 2, 10, 1)


def test_the_watch_ends_when_its_folder_goes_away(tmp_path: Path) -> None:
    from ofc.pipeline.ingest.watch import WatchError

    folder = tmp_path / "in"
    folder.mkdir()
    failed: list[BaseException] = []

    def run() -> None:
        try:
            watch([folder], lambda files: ingest(files, Lake(tmp_path / "lake")), settle=SETTLE)
        except WatchError as exc:
            failed.append(exc)

    thread = threading.Thread(target=run)
    thread.start()
    time.sleep(SETTLE)
    folder.rmdir()
    thread.join(PATIENCE)
    assert not thread.is_alive()
    assert [str(e) for e in failed] == [f"--watch: {folder} went away; the watch ends"]


def test_ctrl_c_in_the_middle_of_a_batch_exits_130(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import typer

    from ofc.pipeline.cli.watch_display import run_watch

    folder = tmp_path / "in"
    folder.mkdir()
    shutil.copy(SHEET, folder / "night.csv")

    def cut(files: list[Path], on_progress: object) -> IngestReport:
        raise KeyboardInterrupt  # as Ctrl-C lands while the batch is written

    with pytest.raises(typer.Exit) as ended:
        run_watch([folder], cut, lambda report: {}, SETTLE, as_json=True)
    assert ended.value.exit_code == 130
    captured = capsys.readouterr()
    assert json.loads(captured.out.splitlines()[-1])["watch"]["batches"] == 0
    assert "nothing" in captured.err
