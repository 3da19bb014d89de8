"""Rescoring the lake: every board evaluated, every pair of every hand scored under each rule set.

``step`` is the pure step (Arrow boards in, Arrow results out), ``source`` streams a committed batch's boards
as whole hands (``whole_hands``), ``plan`` decides what is left to do, ``score_source`` scores one source batch
and commits its results, ``rescore_run`` ties them together; ``in_memory`` scores hands that are not in a lake.
"""

from ofc.pipeline.rescore.plan import RuleSetNameError
from ofc.pipeline.rescore.rescore_run import rescore

__all__ = [
    "RuleSetNameError",
    "rescore",
]
