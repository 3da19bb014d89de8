"""The hands a report lists for a second look, and what its hand viewer draws of each: every board as cards with
each row's hand and royalty, the points of each pair, the placements street by street and the discards where the
history records them, and what the hand pays under each rule set compared.

Only the listed hands are read (a few dozen): each row is named by the evaluator in one call for all of them.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Protocol

import numpy as np

from ofc.pipeline.cards import format_cards
from ofc.pipeline.evaluate import describe, lowball27, lowball_high_rank, strength3, strength5
from ofc.pipeline.game import ROW_ENDS, ROW_STARTS, ROWS, facts
from ofc.reports.tables import Column, Table
from ofc.schemas.rules import key_name

__all__ = ["KINDS", "hand_id", "load", "named", "tables"]

Rows = list[dict[str, Any]]

KINDS = {
    "fouled": "fouled",
    "biggest win": "biggest win",
    "biggest loss": "biggest loss",
    "fantasyland": "Fantasyland",
    "winner changes": "winner changes",
}
POSITIONS = ("button", "1st to act", "2nd to act", "3rd to act")


def hand_id(hand_key: int) -> str:
    """The viewer's id of a hand: its key (a link's ``#hand-ID``; ``ofc sql hand_boards --param hands=ID``)."""
    return str(hand_key)


def tables(notable: Rows, who: str) -> list[Table]:
    """The featured player's listed hands as one table, each hand a link to the viewer."""
    for r in notable:
        r["hand"] = hand_id(r["hand_key"])
        r["why"] = _why(r)
        r["label"] = r.get("hand_id") or r["hand"]
    columns = [
        Column("why", "Listed as", "text"),
        Column("hand", "Hand", "hand"),
        Column("played_at", "Played (UTC)", "time"),
        Column("session", "Session", "text"),
        Column("variant", "Variant", "text"),
        Column("points", f"{who}'s points", "signed"),
    ]
    note = "" if notable else f"{who} has no hands to list."
    labels = {r["hand"]: r["label"] for r in notable}
    return [Table(f"{who}'s hands worth a second look", "hands", notable, columns, note=note, hands=labels)]


def _why(row: dict[str, Any]) -> str:
    """Why a hand is listed, in words."""
    if row["kind"] == "winner changes" and row.get("changed_under"):
        return f"winner changes under {row['changed_under']}"
    return KINDS.get(row["kind"], row["kind"])


class Runs(Protocol):
    """Runs a named query by name with the report's filters (``start``: begins it for a later call)."""

    def __call__(self, name: str, **extra: Any) -> Rows: ...

    def start(self, name: str, **extra: Any) -> None: ...


class Shown(Protocol):
    """What a game shows of a hand: streets (an open-face game), Fantasyland (rules that deal it), decisions (an
    analysis)."""

    open_face: bool
    fantasyland: bool
    analysed: bool


def named(run: Runs, notable: Rows) -> dict[str, dict[str, Any]]:
    """The listed hands' ids, sessions and numbers, without the hands themselves (a served page opens each on a
    page of its own): nothing for a viewer to carry."""
    keys = list(dict.fromkeys(r["hand_key"] for r in notable))
    if keys:
        _name(notable, run("hand_facts", hands=",".join(str(k) for k in keys)))
    return {}


def _name(listed: Rows, facts: Rows) -> None:
    """Each listed row gains its hand's id, session and number, from any row of ``facts`` of that hand."""
    known = {r["hand_key"]: r for r in facts}
    for r in listed:
        for name in ("hand_id", "session", "hand_number"):
            r[name] = known.get(r["hand_key"], {}).get(name)


def load(
    run: Runs, notable: Rows, featured: str | None, costly: Rows, game: Shown, asked: Rows = ()
) -> dict[str, dict[str, Any]]:
    """Every listed hand as the viewer's JSON, by id: ``notable`` (rows of the query ``notable_hands``) and the
    hands of ``costly`` (rows of ``costly_decisions``), with every decision weighed in them when the lake has an
    analysis; each listed row gains its hand's id, session and number. A classic hand is shown as set at once
    (no streets), and a game without Fantasyland says nothing of it. ``asked``: hands opened for themselves
    (``hand_key``, ``variant``, ``scored_under``, ``played_at``), listed for no reason."""
    analysed = game.analysed
    keys = list(
        dict.fromkeys(
            [*(r["hand_key"] for r in notable), *(r["hand_key"] for r in costly), *(r["hand_key"] for r in asked)]
        )
    )
    if not keys:
        return {}
    wanted = ",".join(str(k) for k in keys)
    run.start("hand_pairs", hands=wanted)  # beside the boards
    if analysed:
        run.start("hand_decisions", hands=wanted)
    boards = run("hand_boards", hands=wanted)
    pairs = run("hand_pairs", hands=wanted)
    weighed = run("hand_decisions", hands=wanted) if analysed else []
    # The hand's variant and rules, from the featured player's board (or the costly decision's).
    facts = {r["hand_key"]: {**r, "scored_under": key_name(r["rules_key"])} for r in costly}
    facts |= {r["hand_key"]: r for r in asked}
    facts |= {r["hand_key"]: r for r in notable}
    _name([*notable, *asked], boards)
    for b in boards:
        b["variant"] = facts[b["hand_key"]]["variant"]
    names = _row_names(boards)
    why: dict[int, list[str]] = {}
    for r in notable:
        why.setdefault(r["hand_key"], []).append(_why(r))
    titles = {key: f"{featured}: " + ", ".join(reasons) for key, reasons in why.items()}
    cost: dict[int, list[str]] = {}
    for r in costly:
        cost.setdefault(r["hand_key"], []).append(
            f"{r['player']}'s {ORDINAL.get(r['street'], str(r['street']) + 'th')} street cost {r['ev_lost']:.1f} points"
        )
    decisions_of: dict[int, Rows] = {}
    for d in weighed:
        decisions_of.setdefault(d["hand_key"], []).append(_decision(d))
    by_hand: dict[int, Rows] = {}
    for b in boards:
        by_hand.setdefault(b["hand_key"], []).append(b)
    pairs_of: dict[int, Rows] = {}
    for p in pairs:
        pairs_of.setdefault(p["hand_key"], []).append(p)
    out: dict[str, dict[str, Any]] = {}
    for key in keys:
        mine = by_hand.get(key)
        if not mine:
            continue
        first = facts[key]
        hid = hand_id(key)
        theirs = pairs_of.get(key, [])
        out[hid] = {
            "id": hid,
            "title": "; ".join([*([titles[key]] if key in titles else []), *dict.fromkeys(cost.get(key, []))]),
            "hand_id": first["hand_id"],
            "session": first["session"],
            "hand_number": first["hand_number"],
            "played_at": _time(first["played_at"]),
            "variant": first["variant"],
            "rules": first["scored_under"],
            "boards": [_board(b, names[id(b)], game) for b in mine],
            "pairs": [_pair(p) for p in theirs if p["player_b"] is not None],
            "compare": _compare([p for p in theirs if p["player_b"] is None]),
        }
        if game.open_face:
            out[hid]["decisions"] = decisions_of.get(key, [])
    return out


ORDINAL = {1: "first", 2: "second", 3: "third", 4: "fourth", 5: "fifth", 6: "sixth", 7: "seventh", 8: "eighth",
           9: "ninth"}  # fmt: skip


def _decision(d: dict[str, Any]) -> dict[str, Any]:
    """A weighed decision as the viewer lists it."""
    return {
        "player": d["player"],
        "street": d["street"],
        "kind": d["kind"],
        "dealt": d["dealt"],
        "played": d["played"],
        "best": d["best"],
        "played_rows": d["played_rows"],
        "best_rows": d["best_rows"],
        "ev_played": d["ev_played"],
        "ev_best": d["ev_best"],
        "ev_lost": d["ev_lost"],
        "se": d["se"],
    }


def _time(value: datetime | None) -> str | None:
    return value.strftime("%Y-%m-%d %H:%M UTC") if value is not None else None


def _row_names(boards: Rows) -> dict[int, list[str]]:
    """Each board's three row names, from one evaluator call per row width."""
    if not boards:
        return {}
    cards = np.array([b["cards"] for b in boards], dtype=np.uint8)
    lowball = np.array([facts(b["variant"]).lowball_middle for b in boards])
    names = {}
    for row, start, end in zip(ROWS, ROW_STARTS, ROW_ENDS, strict=True):
        part = cards[:, start:end]
        named = describe(strength3(part) if end - start == 3 else strength5(part)).tolist()
        if row == "middle" and lowball.any():
            low = lowball_high_rank(lowball27(part)).tolist()
            named = [f"{_low_name(h)}-low (2-7)" if lb else n for n, h, lb in zip(named, low, lowball, strict=True)]
        names[row] = named
    return {id(b): [names[row][i] for row in ROWS] for i, b in enumerate(boards)}


def _low_name(rank: int) -> str:
    return "23456789TJQKA"[rank] if 0 <= rank < 13 else "?"


def _board(b: dict[str, Any], names: list[str], game: Shown) -> dict[str, Any]:
    cards = format_cards(np.array(b["cards"], dtype=np.uint8)).tolist()
    royalties = [b["royalty_top"], b["royalty_middle"], b["royalty_bottom"]]
    rows = [
        {"row": row, "cards": cards[start:end], "hand": name, "royalty": royalty}
        for row, start, end, name, royalty in zip(ROWS, ROW_STARTS, ROW_ENDS, names, royalties, strict=True)
    ]
    board = {
        "player": b["player"],
        "seat": b["seat"],
        "position": POSITIONS[b["position"]] if 0 <= (b["position"] or 0) < len(POSITIONS) else None,
        "fouled": b["fouled"],
        "natural": b["natural"],
        "surrendered": b["surrendered"],
        "rows": rows,
        "royalties": sum(r or 0 for r in royalties) if not b["fouled"] else 0,
        "points": b["points"],
    }
    if game.fantasyland:
        board |= {
            "fantasyland": b["fantasyland"],
            "fantasyland_cards": b["fantasyland_cards"] if b["fantasyland"] else None,
            "entry": b["fantasyland_entry"],
            "stay": b["fantasyland_stay"],
        }
    if game.open_face:
        board["streets"] = _streets(b, cards, rows)
    return board


def _streets(b: dict[str, Any], cards: list[str], rows: list[dict[str, Any]]) -> list[dict[str, Any]] | None:
    """Street by street: the cards placed (with their rows) and discarded, from the board's street digits."""
    placed_at, discarded_at = b.get("streets"), b.get("discard_streets")
    if not placed_at:
        return None
    row_of = [r["row"] for r in rows for _ in r["cards"]]
    discards = format_cards(np.array(b.get("discards") or [], dtype=np.uint8)).tolist()
    streets: dict[int, dict[str, Any]] = {}
    for card, row, street in zip(cards, row_of, placed_at, strict=False):
        streets.setdefault(int(street), {"street": int(street), "placed": [], "discarded": []})["placed"].append(
            {"card": card, "row": row}
        )
    for card, street in zip(discards, discarded_at or "", strict=False):
        streets.setdefault(int(street), {"street": int(street), "placed": [], "discarded": []})["discarded"].append(
            card
        )
    return [streets[s] for s in sorted(streets)]


def _pair(p: dict[str, Any]) -> dict[str, Any]:
    return {
        "a": p["player_a"],
        "b": p["player_b"],
        "settled": p["settled"],
        "rows": [p["row_top"], p["row_middle"], p["row_bottom"]],
        "scoop": p["scoop"],
        "royalties_a": p["royalties_a"],
        "royalties_b": p["royalties_b"],
        "points": p["points"],
    }


def _compare(rows: Rows) -> list[dict[str, Any]]:
    by_rules: dict[str, dict[str, int]] = {}
    for r in rows:
        by_rules.setdefault(r["rules"], {})[r["player_a"]] = r["points"]
    return [{"rules": rules, "points": points} for rules, points in by_rules.items()]
