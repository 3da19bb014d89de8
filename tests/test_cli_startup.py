"""The command line starts at once: loading the app, its help and its usage errors leave the heavy libraries and
the pipeline's work unloaded (what each command needs loads when it runs), and the startup benchmark runs."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import tests.bench.common
from tests.bench import bench_cli

ROOT = Path(__file__).resolve().parents[1]
HEAVY = (
    "polars",
    "duckdb",
    "numba",
    "pyarrow",
    "numpy",
    "pandas",
    "plotly",
    "ofc.schemas",
    "ofc.reports",
    "ofc.pipeline.analyse",
    "ofc.pipeline.rescore",
    "ofc.pipeline.simulate",
    "ofc.pipeline.ingest",
    "ofc.pipeline.query",
    "ofc.pipeline.lake",
    "ofc.pipeline.score",
    "ofc.pipeline.evaluate",
)
"""Modules no command's start needs: libraries that take tenths of a second to load, and the pipeline's work."""


def _loaded(code: str) -> list[str]:
    """The modules a fresh interpreter holds after running ``code``."""
    script = f"import sys\n{code}\nprint(__import__('json').dumps(sorted(sys.modules)))"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.run([sys.executable, "-c", script], cwd=ROOT, env=env, capture_output=True, text=True, check=True)
    return json.loads(proc.stdout.splitlines()[-1])


LIGHT = frozenset({"ofc.pipeline.analyse", "ofc.pipeline.analyse.defaults"})
"""Packages whose ``__init__`` holds only defaults a command's help shows, their work loading on first use."""


def _heavy(modules: list[str]) -> list[str]:
    return [m for m in modules if m not in LIGHT and any(m == h or m.startswith(f"{h}.") for h in HEAVY)]


def test_importing_the_app_loads_nothing_heavy() -> None:
    modules = _loaded("import ofc.pipeline.cli.commands")
    assert "ofc.pipeline.cli.commands" in modules
    assert _heavy(modules) == []


RUN = """
sys.argv = ["ofc", *{args!r}]
from ofc.pipeline.cli import main
try:
    main()
except SystemExit:
    pass
"""


@pytest.mark.parametrize(
    "args", [["--help"], ["report", "--help"], ["lake", "files", "--help"], ["--version"], ["report", "--nope"]]
)
def test_help_version_and_usage_errors_load_nothing_heavy(args: list[str]) -> None:
    modules = _loaded(RUN.format(args=args))
    assert _heavy(modules) == []
    assert "pydantic" not in modules  # typer's validators: built only for values given


def test_the_startup_benchmark_runs(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Once each, untimed: a command the benchmark runs that fails, or a broken benchmark, fails here."""
    monkeypatch.setattr(tests.bench.common, "OUT", tmp_path)
    assert bench_cli.run(runs=1) in (True, False)
    figures = json.loads((tmp_path / "cli.json").read_text())["figures"]
    assert len(figures) == 8
    assert all(f["value"] > 0 for f in figures)


def _printed(code: str, env: dict[str, str]) -> str:
    """The last line a fresh interpreter prints running ``code``."""
    proc = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env={**env, "PYTHONPATH": str(ROOT)}, capture_output=True, text=True
    )
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.splitlines()[-1]


@pytest.mark.skipif(sys.platform != "linux", reason="the allocator is chosen on Linux, where the wheels carry it")
def test_arrow_allocates_from_jemalloc_unless_the_user_chose() -> None:
    import pyarrow as pa

    try:
        pa.jemalloc_memory_pool()
    except NotImplementedError:
        pytest.skip("this pyarrow was built without jemalloc")
    env = {k: v for k, v in os.environ.items() if k != "ARROW_DEFAULT_MEMORY_POOL"}
    pool = "import ofc, pyarrow; print(pyarrow.default_memory_pool().backend_name)"
    assert _printed(pool, env) == "jemalloc"
    assert _printed(pool, {**env, "ARROW_DEFAULT_MEMORY_POOL": "system"}) == "system"
    # pyarrow loaded first: its allocator is already chosen, and left alone
    alone = _printed("import pyarrow; print(pyarrow.default_memory_pool().backend_name)", env)
    assert _printed(f"import pyarrow; {pool}", env) == alone


def test_the_collector_runs_again_once_the_command_is_loaded() -> None:
    """It is off while the command's modules load, which are then set aside from its passes."""
    code = RUN.format(args=["--version"]) + "import gc; print(gc.isenabled(), gc.get_freeze_count() > 0)"
    assert _printed("import sys\n" + code, dict(os.environ)) == "True True"
