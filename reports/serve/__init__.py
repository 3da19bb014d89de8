"""``ofc serve``: the report over the whole lake, live in the browser.

Every page reads one committed state of the lake, taken when its request came; the figures come from the same
section code and named queries as the static report (``reports.report.build``), with the filters in the URL.
"""

from __future__ import annotations

from ofc.reports.serve.app import LIMITS, Site, make_app

__all__ = ["LIMITS", "Site", "make_app"]
