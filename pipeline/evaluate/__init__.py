"""Vectorised hand evaluation on one integer scale for 3- and 5-card rows.

>>> from ofc.pipeline.evaluate import strength, describe
>>> from ofc.pipeline.cards import parse_rows
>>> describe(strength(parse_rows(["Qh Qd 4c", "9s 9h 9c Kd 3h"][:1], 3))).tolist()
['pair of queens, four kicker']
"""

from ofc.pipeline.evaluate.board import ROW_NAMES, BoardStrengths, evaluate_boards, fouled
from ofc.pipeline.evaluate.lookup_tables import CATEGORY_NAMES, N_STRENGTHS
from ofc.pipeline.evaluate.rows import (
    InvalidRowError,
    RowFacts,
    as_rows,
    category,
    describe,
    is_royal,
    lowball27,
    lowball_category,
    lowball_high_rank,
    row_facts,
    strength,
    strength3,
    strength5,
)

__all__ = [
    "CATEGORY_NAMES",
    "N_STRENGTHS",
    "ROW_NAMES",
    "BoardStrengths",
    "InvalidRowError",
    "RowFacts",
    "as_rows",
    "category",
    "describe",
    "evaluate_boards",
    "fouled",
    "is_royal",
    "lowball27",
    "lowball_category",
    "lowball_high_rank",
    "row_facts",
    "strength",
    "strength3",
    "strength5",
]
