"""Scoring boards under a rule set: every pair of every hand, vectorised.

``compile`` turns a :class:`~schemas.rules.RuleSet` into the tables the engine reads, ``engine`` scores
:class:`Boards`, ``records`` reads and writes the JSONL of ``ofc score``.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pipeline.score.compile import NATURALS, CompiledRules, compile_rules
    from pipeline.score.engine import BoardFacts, Boards, PairResults, Scored, board_facts, score
    from pipeline.score.records import read_jsonl, score_records, to_boards, to_output
    from pipeline.score.thresholds import HandPatternError, threshold

_HOMES = {
    **dict.fromkeys(("NATURALS", "CompiledRules", "compile_rules"), "compile"),
    **dict.fromkeys(("BoardFacts", "Boards", "PairResults", "Scored", "board_facts", "score"), "engine"),
    **dict.fromkeys(("read_jsonl", "score_records", "to_boards", "to_output"), "records"),
    **dict.fromkeys(("HandPatternError", "threshold"), "thresholds"),
}


def __getattr__(name: str) -> Any:
    """Each name from its module on first use: reading a rule file's thresholds loads no compiled engine."""
    if name not in _HOMES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{_HOMES[name]}"), name)


__all__ = [
    "NATURALS",
    "BoardFacts",
    "Boards",
    "CompiledRules",
    "HandPatternError",
    "PairResults",
    "Scored",
    "board_facts",
    "compile_rules",
    "read_jsonl",
    "score",
    "score_records",
    "threshold",
    "to_boards",
    "to_output",
]
