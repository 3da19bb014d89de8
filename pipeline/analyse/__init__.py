"""Decision analysis of played hands: what each placement, discard and Fantasyland setting cost, by rollouts.

The defaults live here and the machinery loads on first use (a name of ``__all__`` read from the package), so
that ``ofc analyse --help`` shows the defaults without loading numba and the simulator (0.9 s).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from pipeline.analyse.defaults import DEFAULT_MOVES, DEFAULT_ROLLOUTS

if TYPE_CHECKING:
    from pipeline.analyse.run import AnalyseError, AnalysisSummary, Filters, Settings, analyse

__all__ = ["DEFAULT_MOVES", "DEFAULT_ROLLOUTS", "AnalyseError", "AnalysisSummary", "Filters", "Settings", "analyse"]


_LAZY = dict.fromkeys(("AnalyseError", "Filters", "Settings", "AnalysisSummary", "analyse"), "pipeline.analyse.run")


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        value = getattr(importlib.import_module(_LAZY[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
