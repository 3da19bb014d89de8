"""The arrangers: classic hands set per second (all 72,072 settings each) and Fantasyland hands per card count.

Target: the classic arranger >= 1,000 hands/s. The Fantasyland figures have no
target; they show what a Fantasyland-heavy simulation costs. The one-off cost
of the classic model's random field (built once per process) is noted apart.
"""

from __future__ import annotations

import sys
import time

import numpy as np

from ofc.pipeline.cards import deal
from ofc.pipeline.rules.files import load_rules
from ofc.pipeline.simulate.arrange import arrange_classic, arrange_fantasyland, classic_model
from tests.bench.common import Figure, best_of, report, scale

CLASSIC_HANDS = scale("ARRANGE_CLASSIC_HANDS", 10_000, 50)
FANTASYLAND_HANDS = scale("ARRANGE_FANTASYLAND_HANDS", 5_000, 20)
FANTASYLAND = [("ofc", 13), ("pineapple", 14), *(("progressive-pineapple", k) for k in (15, 16, 17))]
FANTASYLAND += [("pineapple-27", k) for k in (14, 17)]


def run() -> bool:
    rng = np.random.default_rng(13)
    classic = load_rules("classic-1-6")
    t0 = time.perf_counter()
    arrange_classic(deal(2, 13, rng), load_rules("classic-plain"))  # loads the kernels, builds the shared field
    first_seconds = time.perf_counter() - t0
    t0 = time.perf_counter()
    classic_model(classic)
    model_seconds = time.perf_counter() - t0
    hands = deal(CLASSIC_HANDS, 13, rng)
    seconds = best_of(lambda: arrange_classic(hands, classic), repeat=3)
    rate = CLASSIC_HANDS / seconds
    figures = [
        Figure(
            "classic arranger, rules 'classic-1-6'",
            rate,
            "hands/s",
            ">= 1,000",
            rate >= 1_000,
            f"{CLASSIC_HANDS:,} hands, {rate * 72_072 / 1e6:,.0f} M settings/s; "
            f"first call in a process {first_seconds:.1f} s (random field), "
            f"then {model_seconds * 1e3:.0f} ms for each further rule set's model",
        )
    ]
    for name, k in FANTASYLAND:
        rules = load_rules(name)
        dealt = deal(FANTASYLAND_HANDS, k, rng)
        arrange_fantasyland(dealt[:2], rules)
        seconds = best_of(lambda dealt=dealt, rules=rules: arrange_fantasyland(dealt, rules), repeat=3)
        figures.append(
            Figure(f"Fantasyland arranger, {k} cards, rules '{name}'", FANTASYLAND_HANDS / seconds, "hands/s")
        )
    return report("arrange: classic and Fantasyland arrangers", figures)


if __name__ == "__main__":
    sys.exit(0 if run() else 1)
