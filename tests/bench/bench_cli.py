"""How soon ``ofc`` answers: each command a fresh process, timed from its start to its end (wall time).

Targets: ``ofc --help``, ``ofc report --help``, every other command's and group's ``--help``, ``ofc --version`` and
a usage error (``ofc report --nope``, exit 2) each <= 0.3 s; ``ofc sql "select 1"`` on a small lake (the sample
histories) <= 0.8 s, as ingested and once rescored (a rescored lake's royalty names are read by
``pipeline.rules.royalty_names``, which builds an Arrow table from Python values: pyarrow then loads pandas, 0.2 s).
Each figure is the median of ``OFC_BENCH_CLI_RUNS`` runs (default 10, the commands taking turns so that a busy
moment of the machine falls on all of them), beside the fastest run and the median's ratio to ``python -c pass``,
the interpreter's own start, measured in the same run.
"""

from __future__ import annotations

import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from ofc.pipeline.paths import SAMPLES
from tests.bench.common import Figure, report, scale

RUNS = scale("CLI_RUNS", 10, 1)
HELP_TARGET = 0.3
SQL_TARGET = 0.8


def _ofc() -> list[str]:
    """The ``ofc`` a user runs: the console script beside this interpreter, else ``python -m ofc``."""
    script = Path(sys.executable).with_name("ofc")
    return [str(script)] if script.is_file() else [sys.executable, "-m", "ofc"]


def _timed(command: list[str], cwd: Path, code: int = 0) -> float:
    """Seconds ``command`` took, from the start of its process to its end; another exit status than ``code`` is
    an error (a benchmark of a broken command measures nothing)."""
    t0 = time.perf_counter()
    proc = subprocess.run(command, cwd=cwd, capture_output=True, text=True, check=False)
    seconds = time.perf_counter() - t0
    if proc.returncode != code:
        raise RuntimeError(f"{' '.join(command)}: exit {proc.returncode}, expected {code}\n{proc.stderr[-2000:]}")
    return seconds


def _every_help() -> list[list[str]]:
    """``--help`` of ``ofc``, of each command and group, and of each group's commands, as the app declares them."""
    from typer.main import get_command

    from ofc.pipeline.cli.commands import app

    found = [["--help"]]

    def walk(command: Any, path: list[str]) -> None:
        for name, sub in getattr(command, "commands", {}).items():
            found.append([*path, name, "--help"])
            walk(sub, [*path, name])

    walk(get_command(app), [])
    return found


def run(runs: int = RUNS) -> bool:
    work = Path(tempfile.mkdtemp(prefix="ofc-bench-cli-"))
    try:
        ofc = _ofc()
        lake, scored = work / "lake", work / "scored"
        subprocess.run([*ofc, "ingest", str(SAMPLES), "--lake", str(lake)], cwd=work, capture_output=True, check=True)
        shutil.copytree(lake, scored)
        subprocess.run([*ofc, "rescore", "--lake", str(scored)], cwd=work, capture_output=True, check=True)
        commands = {
            "python -c pass": ([sys.executable, "-c", "pass"], 0, None),
            "ofc --help": ([*ofc, "--help"], 0, HELP_TARGET),
            "ofc report --help": ([*ofc, "report", "--help"], 0, HELP_TARGET),
            "ofc --version": ([*ofc, "--version"], 0, HELP_TARGET),
            "ofc report --nope (a usage error, exit 2)": ([*ofc, "report", "--nope"], 2, HELP_TARGET),
            'ofc sql "select 1" (a small lake)': ([*ofc, "sql", "select 1", "--lake", str(lake)], 0, SQL_TARGET),
            'ofc sql "select 1" (the same lake, rescored)': (
                [*ofc, "sql", "select 1", "--lake", str(scored)],
                0,
                SQL_TARGET,
            ),
        }
        times: dict[str, list[float]] = {name: [] for name in commands}
        for _ in range(runs):
            for name, (command, code, _target) in commands.items():
                times[name].append(_timed(command, work, code))
        helps = {" ".join(["ofc", *args[:-1]]): _timed([*ofc, *args], work) for args in _every_help()}
        slowest = max(helps, key=helps.__getitem__)

        start = statistics.median(times["python -c pass"])
        figures = []
        for name, (_command, _code, target) in commands.items():
            median, fastest = statistics.median(times[name]), min(times[name])
            figures.append(
                Figure(
                    name,
                    median,
                    "s",
                    f"<= {target}" if target else "",
                    median <= target if target else None,
                    f"fastest {fastest:.3f} s; {median / start:.0f}x python -c pass",
                )
            )
        figures.append(
            Figure(
                f"--help of all {len(helps)} commands and groups: the slowest ({slowest})",
                helps[slowest],
                "s",
                f"<= {HELP_TARGET}",
                helps[slowest] <= HELP_TARGET,
                f"each once; {helps[slowest] / start:.0f}x python -c pass",
            )
        )
        return report(f"cli: how soon ofc answers, each a fresh process (median of {runs} runs)", figures)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(0 if run() else 1)
