"""Where the project's data lives: presets, samples, the default lake and outputs."""

from __future__ import annotations

import os
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "data"
SAMPLES = DATA / "samples"
RULES = DATA / "rules"
OUT = DATA / "out"


def default_lake() -> Path:
    """``$OFC_LAKE`` if set, else ``data/lake`` in the project."""
    return Path(os.environ.get("OFC_LAKE") or DATA / "lake")


def default_out() -> Path:
    """``$OFC_OUT`` if set, else ``data/out`` in the project: where the demo writes its report."""
    return Path(os.environ.get("OFC_OUT") or OUT)
