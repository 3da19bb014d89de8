"""Shared benchmark plumbing: timing, figures judged against targets, and the printed table."""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

OUT = Path(__file__).parent / "out"
console = Console(highlight=False, width=max(Console().width, 110))


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
        verdict = "" if f.ok is None else ("[green]met[/]" if f.ok else "[red]MISSED[/]")
        table.add_row(f.name, f"{f.value:,.2f}" if f.value < 100 else f"{f.value:,.0f}", f.unit, f.target, verdict)
        if f.note:
            table.add_row("", "", f"[dim]{f.note}[/]", "", "")
    console.print(table)
    OUT.mkdir(exist_ok=True)
    slug = title.split(":")[0].strip().lower().replace(" ", "-")
    payload = {"title": title, "cpus": os.cpu_count(), "figures": [asdict(f) for f in figures]}
    (OUT / f"{slug}.json").write_text(json.dumps(payload, indent=2) + "\n")
    return all(f.ok is not False for f in figures)
