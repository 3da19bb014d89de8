"""ofc-analytics: hand-history analytics for Chinese poker.

The package is split by the data flow: ``cards`` (codes), ``evaluate`` (row
strengths), then scoring, ingest, the lake, rescoring, queries and the CLI.
Importing ``pipeline`` itself is cheap; each part loads what it needs.
"""

__version__ = "0.1.0"
