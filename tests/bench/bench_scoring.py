"""Scoring 1,000,000 three-player hands (3,000,000 pairs) from in-memory arrays under one rule set.

Targets: <= 1 s, and >= 100x the slow per-hand reference scorer of the tests on
the same hands, timed on a sample in the same run and scaled.
"""

from __future__ import annotations

import sys
import time

import numpy as np

from ofc.pipeline.cards import CARD_NAMES, deal
from ofc.pipeline.rules.compile import compile_rules
from ofc.pipeline.rules.files import load_rules
from ofc.pipeline.score.engine import Boards, score
from tests.bench.common import Figure, best_of, report, scale
from tests.reference.slow_scorer import score_hand

HANDS = scale("SCORING_HANDS", 1_000_000, 2_000)
PLAYERS = 3
SAMPLE = 2_000
RULES = "ofc"


def _boards(rng: np.random.Generator) -> Boards:
    """Realistic boards: three in four sorted low to high (mostly valid), the rest as dealt (mostly fouled)."""
    cards = deal(HANDS, 13 * PLAYERS, rng).reshape(HANDS * PLAYERS, 13)
    sensible = rng.random(len(cards)) < 0.75
    cards = np.where(sensible[:, None], np.sort(cards, axis=1), cards)
    return Boards.build(
        hand=np.repeat(np.arange(HANDS), PLAYERS),
        seat=np.tile(np.arange(PLAYERS), HANDS),
        cards=cards,
        in_fantasyland=rng.random(len(cards)) < 0.1,
    )


def _records(boards: Boards, hands: int) -> list[dict]:
    names = CARD_NAMES[boards.cards[: hands * PLAYERS]].tolist()
    fl = boards.in_fantasyland.tolist()
    return [
        {
            "hand_id": str(h),
            "players": [
                {
                    "name": f"P{s}",
                    "seat": s,
                    "top": names[h * PLAYERS + s][:3],
                    "middle": names[h * PLAYERS + s][3:8],
                    "bottom": names[h * PLAYERS + s][8:],
                    "fantasyland": fl[h * PLAYERS + s],
                }
                for s in range(PLAYERS)
            ],
        }
        for h in range(hands)
    ]


def run() -> bool:
    rules = load_rules(RULES)
    compiled = compile_rules(rules)
    boards = _boards(np.random.default_rng(7))
    score(Boards.build(hand=boards.hand[:30], seat=boards.seat[:30], cards=boards.cards[:30]), compiled)
    seconds = best_of(lambda: score(boards, compiled), repeat=3)
    result = score(boards, compiled)

    sample = _records(boards, SAMPLE)
    t0 = time.perf_counter()
    slow = [score_hand(r, rules) for r in sample]
    slow_per_hand = (time.perf_counter() - t0) / SAMPLE
    agree = all(
        [s["points"][f"P{i}"] for i in range(PLAYERS)] == result.net[h * PLAYERS : (h + 1) * PLAYERS].tolist()
        for h, s in enumerate(slow)
    )
    speedup = slow_per_hand * HANDS / seconds
    figures = [
        Figure(
            f"{HANDS:,} {PLAYERS}-player hands, rules '{RULES}'",
            seconds,
            "s",
            "<= 1",
            seconds <= 1.0,
            f"{HANDS * PLAYERS:,} pairs; {HANDS / seconds / 1e6:.2f} M hands/s; "
            f"foul rate {result.boards.fouled.mean():.1%}",
        ),
        Figure(
            "vs the slow per-hand scorer",
            speedup,
            "x",
            ">= 100",
            speedup >= 100,
            f"slow scorer {slow_per_hand * 1e6:,.0f} us/hand on {SAMPLE:,} of the same hands; results agree: {agree}",
        ),
    ]
    return report("scoring: every pair of every hand", figures) and agree


if __name__ == "__main__":
    sys.exit(0 if run() else 1)
