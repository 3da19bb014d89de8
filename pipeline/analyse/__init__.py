"""Decision analysis of played hands: what each placement, discard and Fantasyland setting cost, by rollouts.

The defaults live here and the machinery loads on first use (a name of ``__all__`` read from the package), so
that ``ofc analyse --help`` shows the defaults without loading numba and the simulator (0.9 s).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ofc.pipeline.analyse.defaults import DEFAULT_MOVES, DEFAULT_ROLLOUTS
from ofc.pipeline.lazy_names import lazy_names

if TYPE_CHECKING:
    from ofc.pipeline.analyse.analysis_run import AnalyseError, AnalysisFilters, AnalysisSummary, Settings, analyse

__all__ = [
    "DEFAULT_MOVES",
    "DEFAULT_ROLLOUTS",
    "AnalyseError",
    "AnalysisFilters",
    "AnalysisSummary",
    "Settings",
    "analyse",
]


__getattr__ = lazy_names(
    __name__,
    dict.fromkeys(("AnalyseError", "AnalysisFilters", "Settings", "AnalysisSummary", "analyse"), "analysis_run"),
)
