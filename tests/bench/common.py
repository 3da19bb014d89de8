"""Shared benchmark plumbing: timing, figures judged against targets, the printed table, the scale a benchmark
runs at, and the older version of the code it is measured beside.

``OFC_BENCH_TINY=1`` runs every benchmark at a tiny scale and judges no target: ``make test`` does, so that a
benchmark that no longer runs fails the suite. ``OFC_BENCH_BASELINE=DIR`` names a checkout of an older commit
(``make bench BASELINE=<commit>`` extracts one into ``.bench/<commit>``): the benchmarks that compare run it with
the same interpreter and packages, on the same inputs, in turn with this checkout.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

OUT = Path(os.environ.get("OFC_BENCH_OUT") or Path(__file__).parent / "out")
ROOT = Path(__file__).resolve().parents[2]
TINY = os.environ.get("OFC_BENCH_TINY") == "1"
console = Console(highlight=False, width=max(Console().width, 110))


def scale(name: str, full: int, tiny: int) -> int:
    """A benchmark's size: ``OFC_BENCH_<name>`` when set, else ``tiny`` under ``OFC_BENCH_TINY``, else ``full``."""
    value = os.environ.get(f"OFC_BENCH_{name}")
    return int(value) if value else tiny if TINY else full


@dataclass(frozen=True)
class Version:
    """A version of the code a benchmark runs in a fresh process: this checkout, or an older commit's files."""

    name: str
    root: Path

    @property
    def env(self) -> dict[str, str]:
        """This version's packages first on the path; the interpreter and its packages are this one's."""
        return {**os.environ, "PYTHONPATH": str(self.root)}

    @property
    def one_name(self) -> bool:
        """Whether this version is imported as ``ofc.pipeline``: older ones installed ``pipeline`` at the top."""
        return (self.root / "ofc").is_dir()

    def python(self, code: str, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        """``python -c code args`` under this version, from its root; output captured. ``code`` imports this
        checkout's names (``ofc.pipeline…``), read as an older version names them."""
        if not self.one_name:
            code = re.sub(r"\bofc\.(pipeline|schemas|reports)\b", r"\1", code)
        command = [sys.executable, "-c", code, *args]
        return subprocess.run(command, cwd=self.root, env=self.env, capture_output=True, text=True, check=check)

    def ofc(self, *args: str) -> subprocess.CompletedProcess[str]:
        """The command line of this version, as a user runs it."""
        return subprocess.run(
            [sys.executable, "-m", "ofc" if self.one_name else "pipeline", *args],
            cwd=self.root,
            env=self.env,
            capture_output=True,
            text=True,
        )

    def json(self, code: str, *args: str) -> Any:
        """The last line of ``python -c code args`` that is a JSON object, read."""
        proc = self.python(code, *args)
        return json.loads(next(line for line in reversed(proc.stdout.splitlines()) if line.startswith("{")))


THIS = Version("this checkout", ROOT)


def baseline() -> Version | None:
    """The older version ``OFC_BENCH_BASELINE`` names (a folder holding its files), named by its commit."""
    path = os.environ.get("OFC_BENCH_BASELINE", "")
    if not path or TINY:
        return None
    root = Path(path).resolve()
    if not (root / "pipeline").is_dir():
        raise SystemExit(f"OFC_BENCH_BASELINE={path}: not a checkout of ofc-analytics (no pipeline/ in it)")
    stamp = root / ".commit"
    return Version(stamp.read_text().strip() if stamp.is_file() else root.name, root)


def versions() -> list[Version]:
    """This checkout, then the baseline when one is named."""
    base = baseline()
    return [THIS] if base is None else [THIS, base]


@dataclass
class Figure:
    """One measured figure and, when it has one, the target it is judged by."""

    name: str
    value: float
    unit: str
    target: str = ""
    ok: bool | None = None
    note: str = ""


def best_of(fn: Callable[[], Any], repeat: int = 5) -> float:
    """Fastest of ``repeat`` timed calls, in seconds: the least disturbed by a shared machine."""
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def report(title: str, figures: list[Figure]) -> bool:
    """Print the figures as a table, save them as JSON, and say whether every target was met."""
    table = Table(title=title, title_justify="left")
    for col, justify in (("figure", "left"), ("value", "right"), ("unit", "left"), ("target", "left"), ("", "left")):
        table.add_column(col, justify=justify)  # type: ignore[arg-type]
    for f in figures:
        verdict = "" if f.ok is None else "[dim]tiny[/]" if TINY else "[green]met[/]" if f.ok else "[red]MISSED[/]"
        table.add_row(f.name, f"{f.value:,.2f}" if f.value < 100 else f"{f.value:,.0f}", f.unit, f.target, verdict)
        if f.note:
            table.add_row("", "", f"[dim]{f.note}[/]", "", "")
    console.print(table)
    OUT.mkdir(parents=True, exist_ok=True)
    slug = title.split(":")[0].strip().lower().replace(" ", "-")
    payload = {"title": title, "cpus": os.cpu_count(), "figures": [asdict(f) for f in figures]}
    (OUT / f"{slug}.json").write_text(json.dumps(payload, indent=2) + "\n")
    return TINY or all(f.ok is not False for f in figures)
