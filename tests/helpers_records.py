"""Whole canonical records written out for the readers' tests to compare against, field by field."""

from __future__ import annotations


def player_record(name: str, seat: int | None, top: str, middle: str, bottom: str, **changes: object) -> dict:
    """A player's whole record, rows as text (``"Qh Qd 4c"``), with every other field at the record model's
    default unless ``changes`` sets it: not in Fantasyland, nothing surrendered, declared or discarded, placements,
    points and stack unknown."""
    return {
        "name": name,
        "seat": seat,
        "top": top.split(),
        "middle": middle.split(),
        "bottom": bottom.split(),
        "fantasyland": False,
        "fantasyland_cards": None,
        "surrendered": False,
        "natural": None,
        "discards": [],
        "placements": None,
        "points": None,
        "stack": None,
        **changes,
    }


def placed(streets: str) -> list[dict]:
    """Placements in order, streets parted by ``|``: ``placed("8s:top 9c:top | Td:middle")`` is two cards
    placed on street 1 and one on street 2."""
    return [
        {"street": street, "card": card, "row": row}
        for street, cards in enumerate(streets.split("|"), 1)
        for card, row in (item.split(":") for item in cards.split())
    ]
