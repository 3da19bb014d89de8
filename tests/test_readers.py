"""Readers and writers at once: reports run in a loop in this process while another process ingests,
force-rescores, replaces, removes and vacuums. Every report must succeed and equal the report of one committed
state (the one its snapshot saw), as the writer computed it right after committing that state."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

from ofc.pipeline.lake.store import Lake
from ofc.pipeline.paths import SAMPLES
from ofc.reports.report import Options, build

ROOT = Path(__file__).resolve().parents[1]
WRITER = """
import json, sys, time
from pathlib import Path
from ofc.pipeline.ingest.ingest_run import ingest
from ofc.pipeline.lake.edit import remove, vacuum
from ofc.pipeline.lake.store import Lake
from ofc.pipeline.rescore.rescore_run import rescore
from ofc.reports.report import Options, build
from ofc.pipeline.rules.files import load_rules

lake, samples, fixed, log = Lake(sys.argv[1]), Path(sys.argv[2]), Path(sys.argv[3]), open(sys.argv[4], "w")
ofc = [load_rules("ofc"), load_rules("pineapple")]

def record():
    snapshot = lake.snapshot()
    if snapshot.manifests:
        report = build(snapshot, Options()).data()
        state = snapshot.manifests[-1]["batch"]
        figures = [report["overview"]["headline"], {v: g["sections"] for v, g in report["games"].items()}]
        log.write(json.dumps({"state": state, "report": [figures, report["notes"]]}) + "\\n")
        log.flush()
    lake.release()
    time.sleep(0.3)

club = ingest([samples / "scoresheet" / "club-night.csv"], lake).batch; record()
examples = ingest([samples / "worked-examples.jsonl"], lake).batch; record()
rescore(lake, ofc); record()
rescore(lake, ofc, force=True); record()
ingest([fixed], lake, replace=True); record()
rescore(lake, ofc); record()
remove(lake, batch=examples); record()
vacuum(lake, wait=60); record()
rescore(lake, ofc, force=True); record()
ingest([samples / "poker-arena"], lake); record()
rescore(lake, ofc); record()
vacuum(lake, wait=60); record()
log.write("done\\n")
"""


def test_reports_while_a_writer_commits(tmp_path: Path) -> None:
    lines = (SAMPLES / "scoresheet" / "club-night.csv").read_text().splitlines()
    lines[1] = lines[1].replace(",20", ",14")
    lines[3] = lines[3].replace("Kc 9c 2d", "Kc 9c 3s").replace(",-36", ",-30")
    fixed = tmp_path / "fixed" / "club-night.csv"
    fixed.parent.mkdir()
    fixed.write_text("\n".join(lines[:-4]) + "\n")  # hand 1 corrected, hand 6 dropped
    lake = Lake(tmp_path / "lake")
    log = tmp_path / "states.jsonl"
    writer = subprocess.Popen(
        [sys.executable, "-c", WRITER, str(lake.root), str(SAMPLES), str(fixed), str(log)],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT), "PYTHONFAULTHANDLER": "1"},
    )
    seen: list[tuple[str, object]] = []
    deadline = time.monotonic() + 300
    try:
        while writer.poll() is None and time.monotonic() < deadline:
            snapshot = lake.snapshot() if lake.exists() else None
            if snapshot is not None and snapshot.manifests:
                report = build(snapshot, Options()).data()  # must never fail, whatever the writer is doing
                figures = [report["overview"]["headline"], {v: g["sections"] for v, g in report["games"].items()}]
                seen.append((snapshot.manifests[-1]["batch"], [figures, report["notes"]]))
            lake.release()  # between two reports the writer may vacuum
            time.sleep(0.05)
    finally:
        if writer.poll() is None:
            writer.kill()
        writer.wait(timeout=60)
    assert writer.returncode == 0
    written = log.read_text().splitlines()
    assert written[-1] == "done"
    expected = {}
    for line in written[:-1]:
        entry = json.loads(line)
        expected[entry["state"]] = json.loads(json.dumps(entry["report"]))
    assert len(seen) >= 5, "the reports should have run while the writer worked"
    checked = 0
    for state, report in seen:
        if state in expected:  # the writer logs the state after each step; a step's state is one of those
            assert json.loads(json.dumps(report)) == expected[state], f"the report of state {state} differs"
            checked += 1
    assert checked >= 3
    assert len({state for state, _ in seen}) >= 2
