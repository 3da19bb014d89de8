"""ofc-analytics: hand-history analytics for Chinese poker.

The package is split by the data flow: ``cards`` (codes), ``evaluate`` (row
strengths), then scoring, ingest, the lake, rescoring, queries and the CLI.
Importing ``pipeline`` itself is cheap; each part loads what it needs.
"""

import os

# Compiled loops hand their threads back as soon as a parallel region ends. OpenMP's default keeps them
# spinning for a while, which takes a core from the thread that writes Parquet or plays the next chunk:
# an ingest spent a fifth of its CPU time spinning.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

__version__ = "0.1.0"

__all__ = ["__version__"]
