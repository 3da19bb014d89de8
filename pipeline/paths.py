"""Where the project's files are found: rule presets, SQL, samples, the default lake and outputs. Every module
locates them through here."""

from __future__ import annotations

import os
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
"""The repository's root in a checkout; the ``ofc`` package's folder once installed, where the wheel puts the
same folders (``sql``, ``data/rules``), so that both find their files by the same paths."""
DATA = ROOT / "data"
SAMPLES = DATA / "samples"
CHECKOUT = (ROOT / "pyproject.toml").is_file()
"""Whether this is the project's source tree rather than an install: it decides where commands write."""
RULES = DATA / "rules"
"""The rule presets (``*.toml``)."""
SQL = ROOT / "sql"
"""The views and the named queries (``sql/queries``)."""
OUT = DATA / "out"

__all__ = ["CHECKOUT", "DATA", "OUT", "ROOT", "RULES", "SAMPLES", "SQL", "default_lake", "default_out"]


def _data() -> Path:
    """The ``data`` folder a command writes to when told nothing: the project's in a checkout, else (an
    installed ``ofc``) the current directory's, never the installation's own folder."""
    return DATA if CHECKOUT else Path.cwd() / "data"


def default_lake() -> Path:
    """``$OFC_LAKE`` if set, else ``data/lake`` in the project (installed: in the current directory)."""
    return Path(os.environ.get("OFC_LAKE") or _data() / "lake")


def default_out() -> Path:
    """``$OFC_OUT`` if set, else ``data/out`` in the project (installed: in the current directory): where the
    demo writes its report."""
    return Path(os.environ.get("OFC_OUT") or _data() / "out")
