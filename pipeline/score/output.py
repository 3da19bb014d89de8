"""Scored hands as ``ofc score`` writes them: one JSON object per hand and rule set, its points by player, each
board's facts and each pair's points. Records are checked before they get here, by the ingest's validator
(``pipeline.rescore.in_memory``); ``score_records`` scores records as they are (recognition's sample of a file's
first hands, before any check): one that cannot be scored raises."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np

from ofc.pipeline import game
from ofc.pipeline.cards import parse_card_column
from ofc.pipeline.errors import InputError
from ofc.pipeline.game import default_buttons, facts
from ofc.pipeline.rules.compile import NATURALS
from ofc.pipeline.score.engine import NO_NATURAL, Boards, Scored, score
from ofc.schemas.rules import RuleSet

ROWS = tuple(zip(game.ROWS, game.ROW_SIZES, strict=True))
"""Each row and its size, in board order."""
_NATURAL_CODES = {n.value: i for i, n in enumerate(NATURALS)}


def to_boards(records: list[dict[str, Any]]) -> Boards:
    """Columns of the engine from records (one board per player)."""
    tokens = [c for rec in records for p in rec["players"] for row, _ in ROWS for c in p[row]]
    parsed, ok = parse_card_column(tokens)
    if not ok.all():
        raise InputError("records hold tokens that are not cards")
    codes = parsed.reshape(-1, 13)
    players = [p for rec in records for p in rec["players"]]
    sizes = np.array([len(rec["players"]) for rec in records], dtype=np.int64)
    owner = [_owners(rec)[i] for rec in records for i in range(len(rec["players"]))]
    hand = np.repeat(np.arange(len(records)), sizes)
    seat = np.array(
        [p.get("seat") if p.get("seat") is not None else i for rec in records for i, p in enumerate(rec["players"])],
        dtype=np.int64,
    )
    buttons = np.array([rec.get("button") if rec.get("button") is not None else -1 for rec in records], dtype=np.int64)
    button = np.repeat(buttons, sizes)
    button = np.where(button >= 0, button, default_buttons(hand, seat))
    return Boards(
        hand=hand,
        seat=seat,
        cards=codes,
        button=button,
        in_fantasyland=np.array([bool(p.get("fantasyland")) for p in players], dtype=bool),
        surrendered=np.array([bool(p.get("surrendered")) for p in players], dtype=bool),
        natural=np.array([_NATURAL_CODES.get(p.get("natural"), NO_NATURAL) for p in players], dtype=np.int8),
        stack=np.array([p.get("stack") or 0 for p in players], dtype=np.int64),
        owner=np.array(owner, dtype=np.int64),
        misset=np.array([[len(p[row]) for row, _ in ROWS] != list(game.ROW_SIZES) for p in players], dtype=bool),
        open_face=np.repeat([facts(rec.get("variant") or "ofc").open_face for rec in records], sizes).astype(bool),
    )


def _owners(rec: dict[str, Any]) -> list[int]:
    """Each board's player, as the index of the player's first board in the record."""
    first: dict[str, int] = {}
    return [first.setdefault(p["name"], i) for i, p in enumerate(rec["players"])]


@dataclass(frozen=True)
class Named:
    """How output names the hands scored: each hand's id, and each board's player and seat (boards grouped by
    hand, in the order the hand lists them)."""

    hand_id: list[str]
    player: list[str]
    seat: list[int]
    sizes: np.ndarray
    """Boards of each hand."""

    @classmethod
    def of_records(cls, records: list[dict[str, Any]]) -> Named:
        players = [(i, p) for rec in records for i, p in enumerate(rec["players"])]
        return cls(
            hand_id=[str(rec["hand_id"]) for rec in records],
            player=[p["name"] for _, p in players],
            seat=[p.get("seat") if p.get("seat") is not None else i for i, p in players],
            sizes=np.array([len(rec["players"]) for rec in records], dtype=np.int64),
        )

    @cached_property
    def hand_of(self) -> np.ndarray:
        """Each board's hand."""
        return np.repeat(np.arange(self.sizes.size), self.sizes)

    @cached_property
    def board(self) -> list[str]:
        """Each board by its player's name, or ``name#seat`` for a criss-cross player's two boards."""
        hand = self.hand_of.tolist()
        twice = Counter(zip(hand, self.player, strict=True))
        return [f"{n}#{s}" if twice[(h, n)] > 1 else n for h, n, s in zip(hand, self.player, self.seat, strict=True)]


def to_output(named: Named, result: Scored, rules: RuleSet) -> Iterator[dict[str, Any]]:
    """One JSON-ready object per hand: points, per-board facts and pair points."""
    f = result.boards
    net = result.net.tolist()
    fouled, roy, fl_next = f.fouled.tolist(), f.royalties.tolist(), f.fantasyland_next.tolist()
    pair_points = result.pairs.points.tolist()
    pair_a, pair_b = result.pairs.a.tolist(), result.pairs.b.tolist()
    names = named.board
    hand_of = named.hand_of.tolist()
    pairs_by_hand: list[dict[str, int]] = [{} for _ in named.hand_id]
    for a, b, pts in zip(pair_a, pair_b, pair_points, strict=True):
        first, second, sign = (a, b, 1) if a < b else (b, a, -1)
        pairs_by_hand[hand_of[a]][f"{names[first]}|{names[second]}"] = sign * pts
    i = 0
    for h, (hand_id, size) in enumerate(zip(named.hand_id, named.sizes.tolist(), strict=True)):
        points: dict[str, int] = {}
        boards = {}
        for k in range(i, i + size):
            points[named.player[k]] = points.get(named.player[k], 0) + net[k]
            boards[names[k]] = {
                "fouled": fouled[k],
                "royalties": dict(zip(("top", "middle", "bottom"), roy[k], strict=True)),
                "fantasyland_next": fl_next[k],
            }
        i += size
        yield {"hand_id": hand_id, "rules": rules.name, "points": points, "boards": boards, "pairs": pairs_by_hand[h]}


def score_records(records: list[dict[str, Any]], rules: RuleSet) -> list[dict[str, Any]]:
    """Score whole records under ``rules``: the engine, wrapped in the record shape."""
    if not records:
        return []
    return list(to_output(Named.of_records(records), score(to_boards(records), rules), rules))
