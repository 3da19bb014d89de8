"""Scoring boards under a rule set: every pair of every hand, vectorised.

``compile`` turns a :class:`~schemas.rules.RuleSet` into the tables the engine reads, ``engine`` scores
:class:`Boards`, ``records`` reads and writes the JSONL of ``ofc score``.
"""

from pipeline.score.compile import NATURALS, CompiledRules, compile_rules
from pipeline.score.engine import BoardFacts, Boards, PairResults, Scored, board_facts, score
from pipeline.score.records import read_jsonl, score_records, to_boards, to_output
from pipeline.score.thresholds import HandPatternError, threshold

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
