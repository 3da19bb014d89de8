"""Hands worked out by hand, shared by the scorer tests and the command-line tests."""

from __future__ import annotations

from typing import Any


def player(name: str, board: str, **extra: Any) -> dict[str, Any]:
    """A player from 'top / middle / bottom' text."""
    top, middle, bottom = (part.split() for part in board.split("/"))
    return {"name": name, "top": top, "middle": middle, "bottom": bottom, **extra}


# Criss-cross: four boards use the whole deck; A plays seats 0 and 2, B seats 1 and 3 (ofc: 1-6, royalties netted).
#   A#0: QQ / trips 9 / royal (royalties 7 + 2 + 25 = 34). B#1: 5-3-2 / 77 / trips 8 (no royalties).
#   A#2: 4-3-2 / 55 / full house JJJTT (bottom 6). B#3: KK on top over a Q-high middle: fouled.
#   A#0 vs B#1: A#0 scoops: 3 + 3 + 34 = 40.        A#0 vs B#3: foul: 6 + 34 = 40.
#   B#1 vs A#2: B#1 wins top and middle, A#2 the bottom: B +1 row, royalties 0 - 6: B#1 -5.
#   A#2 vs B#3: foul: 6 + 6 = 12.    A's two boards, and B's, are never compared.  A +97, B -97.
CRISS_CROSS: dict[str, Any] = {
    "hand_id": "cc",
    "variant": "ofc",
    "players": [
        player("A", "Qh Qd 4c / 9s 9h 9c Kd 3h / Ts Js Qs Ks As", seat=0),
        player("B", "2c 3c 5d / 7h 7d 6h 4h 2h / 8c 8d 8h 5c 6c", seat=1),
        player("A", "2d 3d 4d / 5h 5s Ah 8s 7s / Jc Jd Jh Td Th", seat=2),
        player("B", "Kc Kh 2s / Qc Tc 9d 7c 6d / Ac Ad 4s 6s 3s", seat=3),
    ],
}

# Misset: X sets 4 cards on top and 4 in the middle, which fouls in classic: X pays the scoop (6) under classic-1-6.
MISSET: dict[str, Any] = {
    "hand_id": "m",
    "variant": "classic",
    "players": [
        {
            "name": "X",
            "top": ["2c", "3d", "4h", "5s"],
            "middle": ["7c", "8d", "9h", "Js"],
            "bottom": ["Ac", "Ad", "Ah", "Kc", "Kd"],
        },
        player("Y", "2d 2h 3c / 6c 6d 8c 9c Tc / Qc Qd Qh 4c 4d"),
    ],
}
