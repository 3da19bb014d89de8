"""Where the project's files are found: rule presets, SQL, samples, the default lake and outputs. Every module
locates them through here."""

from __future__ import annotations

import atexit
import contextlib
import importlib.resources
import os
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "data"
SAMPLES = DATA / "samples"
CHECKOUT = (ROOT / "pyproject.toml").is_file() and (ROOT / "sql").is_dir()
"""Whether this is the project's source tree (presets in ``data/rules``, SQL in ``sql``) rather than an install."""
_EXTRACTED = contextlib.ExitStack()
atexit.register(_EXTRACTED.close)


def packaged(name: str) -> Path:
    """A folder of the package's data (``rules`` or ``sql``), read through ``importlib.resources``: the wheel
    ships the presets and the SQL inside ``pipeline/resources``, so an installed ``ofc`` finds them wherever it
    is installed (a zipped install gets a temporary copy for the process's life)."""
    found = importlib.resources.files("pipeline").joinpath("resources", name)
    return found if isinstance(found, Path) else _EXTRACTED.enter_context(importlib.resources.as_file(found))


RULES = DATA / "rules" if CHECKOUT else packaged("rules")
"""The rule presets (``*.toml``)."""
SQL = ROOT / "sql" if CHECKOUT else packaged("sql")
"""The views and the named queries (``sql/queries``)."""
OUT = DATA / "out"

__all__ = ["CHECKOUT", "DATA", "OUT", "ROOT", "RULES", "SAMPLES", "SQL", "default_lake", "default_out", "packaged"]


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
