"""Run every benchmark (``make bench``): ``python -m tests.bench [name ...]``."""

from __future__ import annotations

import importlib
import pkgutil
import sys
from pathlib import Path

from tests.bench.common import console


def main(names: list[str]) -> int:
    here = Path(__file__).parent
    modules = sorted(m.name for m in pkgutil.iter_modules([str(here)]) if m.name.startswith("bench_"))
    chosen = [m for m in modules if not names or m.removeprefix("bench_") in names or m in names]
    if not chosen:
        console.print(f"no benchmark matches {names}; have {', '.join(modules)}")
        return 2
    missed = [name for name in chosen if not importlib.import_module(f"tests.bench.{name}").run()]
    if missed:
        console.print(f"[red]targets missed in: {', '.join(missed)}[/]")
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
