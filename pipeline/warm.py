"""Compile the evaluator's kernels once so later processes load them from the cache.

Run by ``make`` right after installing; ``python -m pipeline.evaluate.warm``.
"""

from __future__ import annotations

import numpy as np

from pipeline.cards import deal
from pipeline.evaluate import evaluate_boards, lowball27, strength3, strength5


def warm() -> None:
    boards = deal(4, 13, np.random.default_rng(0))
    evaluate_boards(boards)
    strength3(boards[:, :3])
    strength5(boards[:, 3:8])
    lowball27(boards[:, 8:13])


if __name__ == "__main__":
    warm()
