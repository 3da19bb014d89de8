"""Rescoring the lake: every board evaluated, every pair of every hand scored under each rule set.

``batch`` is the pure step (Arrow boards in, Arrow results out), ``source`` streams a batch's boards as
whole hands, ``plan`` decides what is left to do, ``run`` ties them together and commits result batches.
"""

from ofc.pipeline.rescore.plan import RuleSetNameError
from ofc.pipeline.rescore.run import rescore

__all__ = [
    "RuleSetNameError",
    "rescore",
]
