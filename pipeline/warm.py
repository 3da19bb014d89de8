"""Compile every kernel once so later processes load them from numba's cache.

Run by ``make`` right after installing: ``python -m ofc.pipeline.warm``.
"""

from __future__ import annotations

import io
import tempfile

import numpy as np

from ofc.pipeline.cards import deal
from ofc.pipeline.evaluate import evaluate_boards, lowball27, strength3, strength5
from ofc.pipeline.evaluate.rows import FEW_ROWS


def warm() -> None:
    from ofc.pipeline.analyse import Settings, analyse
    from ofc.pipeline.ingest.ingest_run import ingest
    from ofc.pipeline.ingest.jsonl import INGESTER
    from ofc.pipeline.ingest.validate import validate
    from ofc.pipeline.lake.store import Lake
    from ofc.pipeline.paths import SAMPLES
    from ofc.pipeline.rescore.rescore_run import rescore
    from ofc.pipeline.rules.files import load_rules, preset_names
    from ofc.pipeline.score.engine import Boards, score
    from ofc.pipeline.simulate.simulation_run import warm as simulate_warm

    # Enough lines for both the one-thread and the parallel JSONL scanner.
    lines = (SAMPLES / "worked-examples.jsonl").read_bytes() * 200
    for chunk in INGESTER.read(io.BytesIO(lines), "warm"):
        validate(chunk, "warm", "warm")
    simulate_warm()
    with tempfile.TemporaryDirectory() as tmp:  # a small lake, rescored and analysed: their kernels
        lake = Lake(tmp)
        ingest([SAMPLES], lake)
        rescore(lake, [load_rules("ofc"), load_rules("classic-2-4")])
        analyse(lake, Settings(rollouts=4))

    boards = deal(6, 13, np.random.default_rng(0))
    evaluate_boards(boards)
    many = deal(FEW_ROWS, 13, np.random.default_rng(0))  # enough rows for the compiled lookups
    strength3(many[:, :3])
    strength5(many[:, 3:8])
    lowball27(many[:, 8:13])
    table = Boards.build(hand=np.repeat(np.arange(3), 2), seat=np.tile(np.arange(2), 3), cards=boards)
    for name in preset_names():
        score(table, load_rules(name))


if __name__ == "__main__":
    warm()
