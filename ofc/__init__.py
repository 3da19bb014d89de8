"""ofc-analytics: hand-history analytics for Chinese poker (classic, OFC, Pineapple, 2-7 middle, Fantasyland).

``ofc`` is the one name the package installs. Its parts keep the repository's layout: ``ofc.pipeline`` (ingest,
the lake, scoring, rescoring, queries, the command line), ``ofc.schemas`` (the models and the tables' schemas)
and ``ofc.reports`` (the report and ``ofc serve``). The notebooks' way in is here: ``ofc.open_lake`` and
``ofc.score`` (``ofc.pipeline.api``, loaded on first use; docs/python.md), and every error it raises on
purpose is an ``ofc.OfcError``.
"""

import os as _os
import sys as _sys
from pathlib import Path as _Path

if _sys.platform == "linux" and "pyarrow" not in _sys.modules:
    # Arrow's buffers from jemalloc (pyarrow's Linux wheels carry it; a user's own choice stands), read as pyarrow
    # loads. Its default, mimalloc, keeps the pages a run frees: rescoring 1 M three-player hands under 6 rule sets
    # peaked at 1,049 MB with it and 838 to 845 MB with jemalloc, as fast, with half the time in the kernel;
    # ingesting 200,000 hands at 574 MB against 485 (docs/benchmarks.md).
    _os.environ.setdefault("ARROW_DEFAULT_MEMORY_POOL", "jemalloc")

if not (_Path(__file__).parent / "pipeline").is_dir():
    # A checkout: the packages sit at the repository's root, beside this folder; the wheel moves them in here.
    __path__.append(str(_Path(__file__).resolve().parent.parent))

from ofc.pipeline import __version__
from ofc.pipeline.lazy_names import lazy_names

__all__ = ["LakeView", "OfcError", "Scores", "__version__", "open_lake", "score"]

__getattr__ = lazy_names(
    __name__,
    {**dict.fromkeys(("LakeView", "Scores", "open_lake", "score"), "pipeline.api"), "OfcError": "pipeline.errors"},
)
