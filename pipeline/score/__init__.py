"""Scoring boards under a rule set: every pair of every hand, vectorised.

``engine`` scores :class:`Boards` under a rule set compiled by :mod:`pipeline.rules.compile`, ``naturals``
finds the naturals 13 cards make, ``output`` writes the JSON objects of ``ofc score``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ofc.pipeline.lazy_names import lazy_names

if TYPE_CHECKING:
    from ofc.pipeline.score.engine import BoardFacts, Boards, PairResults, Scored, board_facts, score
    from ofc.pipeline.score.output import Named, score_records, to_boards, to_output

_HOMES = {
    **dict.fromkeys(("BoardFacts", "Boards", "PairResults", "Scored", "board_facts", "score"), "engine"),
    **dict.fromkeys(("Named", "score_records", "to_boards", "to_output"), "output"),
}


__getattr__ = lazy_names(__name__, _HOMES)


__all__ = [
    "BoardFacts",
    "Boards",
    "Named",
    "PairResults",
    "Scored",
    "board_facts",
    "score",
    "score_records",
    "to_boards",
    "to_output",
]
