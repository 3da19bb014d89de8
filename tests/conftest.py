from __future__ import annotations

from itertools import combinations

import numpy as np
import pytest


@pytest.fixture(scope="session")
def all_fives() -> np.ndarray:
    """Every 5-card hand from one deck: (2,598,960, 5) codes."""
    return np.array(list(combinations(range(52), 5)), dtype=np.uint8)


@pytest.fixture(scope="session")
def all_threes() -> np.ndarray:
    """Every 3-card hand from one deck: (22,100, 3) codes."""
    return np.array(list(combinations(range(52), 3)), dtype=np.uint8)
