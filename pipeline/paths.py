"""Where the project's files are found: rule presets, SQL, samples, the default lake and outputs. Every module
locates them through here."""

from __future__ import annotations

import os
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "data"
SAMPLES = DATA / "samples"
PACKAGED = Path(__file__).resolve().parent / "resources"
"""Where an installed package keeps the presets and SQL (the wheel puts them there); a checkout has them at
the top of the tree."""
RULES = DATA / "rules" if (DATA / "rules").is_dir() else PACKAGED / "rules"
SQL = ROOT / "sql" if (ROOT / "sql").is_dir() else PACKAGED / "sql"
"""The views and the named queries (``sql/queries``)."""
OUT = DATA / "out"

__all__ = ["DATA", "OUT", "PACKAGED", "ROOT", "RULES", "SAMPLES", "SQL", "default_lake", "default_out"]


def default_lake() -> Path:
    """``$OFC_LAKE`` if set, else ``data/lake`` in the project."""
    return Path(os.environ.get("OFC_LAKE") or DATA / "lake")


def default_out() -> Path:
    """``$OFC_OUT`` if set, else ``data/out`` in the project: where the demo writes its report."""
    return Path(os.environ.get("OFC_OUT") or OUT)
