"""The report: named queries from ``sql/`` turned into Plotly charts and one offline HTML file."""

from ofc.reports.html import render
from ofc.reports.report import Options, Report, build

__all__ = [
    "Options",
    "Report",
    "build",
    "render",
]
