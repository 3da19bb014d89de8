"""Scoring boards under a rule set: every pair of every hand, vectorised.

``engine`` scores :class:`Boards` under a rule set compiled by :mod:`pipeline.rules.compile`, ``naturals``
finds the naturals 13 cards make, ``records`` reads and writes the JSONL of ``ofc score``.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pipeline.score.engine import BoardFacts, Boards, PairResults, Scored, board_facts, score
    from pipeline.score.records import read_jsonl, score_records, to_boards, to_output

_HOMES = {
    **dict.fromkeys(("BoardFacts", "Boards", "PairResults", "Scored", "board_facts", "score"), "engine"),
    **dict.fromkeys(("read_jsonl", "score_records", "to_boards", "to_output"), "records"),
}


def __getattr__(name: str) -> Any:
    """Each name from its module on first use: a command that reads records only loads no compiled engine."""
    if name not in _HOMES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{_HOMES[name]}"), name)


__all__ = [
    "BoardFacts",
    "Boards",
    "PairResults",
    "Scored",
    "board_facts",
    "read_jsonl",
    "score",
    "score_records",
    "to_boards",
    "to_output",
]
