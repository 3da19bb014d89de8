"""Hand records as JSON objects, in and out of the column engine.

The input shape is ``ofc score``'s (docs/ingest.md, "Hand records"): a hand id, a variant and
players with ``name``, ``top``, ``middle``, ``bottom``, optionally ``seat``,
``fantasyland``, ``surrendered``, ``natural`` and ``stack``, and an optional
``button``. Structure is read record by record (it is a text format); cards
are parsed in one vectorised pass over the whole batch, and every problem is
reported with the record's line and field, the rest of the batch going on.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ofc.pipeline import game
from ofc.pipeline.cards import parse_card_column
from ofc.pipeline.errors import InputError
from ofc.pipeline.game import default_buttons, facts
from ofc.pipeline.rules.compile import NATURALS
from ofc.pipeline.score.engine import NO_NATURAL, Boards, Scored, score
from ofc.pipeline.suggest import closest, did_you_mean
from ofc.schemas.rules import RuleSet, Variant

ROWS = tuple(zip(game.ROWS, game.ROW_SIZES, strict=True))
"""Each row and its size, in board order."""
_NATURAL_CODES = {n.value: i for i, n in enumerate(NATURALS)}


@dataclass(frozen=True)
class RecordError:
    """A record that could not be scored: where it was and why."""

    line: int
    hand_id: str | None
    reason: str

    def __str__(self) -> str:
        hand = f" (hand {self.hand_id})" if self.hand_id is not None else ""
        return f"line {self.line}{hand}: {self.reason}"


@dataclass
class Batch:
    """Records that passed validation, as columns, plus the ones that did not."""

    records: list[dict[str, Any]] = field(default_factory=list)
    lines: list[int] = field(default_factory=list)
    errors: list[RecordError] = field(default_factory=list)
    codes: np.ndarray = field(default_factory=lambda: np.empty((0, 13), dtype=np.uint8))
    """(boards, 13) card codes of ``records``, players in order."""


class _BadRecordError(Exception):
    pass


def _flag(player: dict[str, Any], key: str, i: int) -> bool:
    value = player.get(key, False)
    if value is None:
        return False
    if not isinstance(value, bool):
        raise _BadRecordError(f"players[{i}].{key}: expected true or false, got {value!r}")
    return value


def _int(value: Any, where: str, default: int) -> int:
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, int):
        raise _BadRecordError(f"{where}: expected an integer, got {value!r}")
    return value


_VARIANT_NAMES = tuple(v.value for v in Variant)


def _check_structure(rec: Any) -> list[str]:
    """Shape checks of one record; returns its card tokens in board order."""
    if not isinstance(rec, dict):
        raise _BadRecordError("expected a JSON object")
    if "hand_id" not in rec:
        raise _BadRecordError("hand_id: missing")
    variant = rec.get("variant")
    if variant is not None and variant not in _VARIANT_NAMES:
        hint = closest(str(variant), _VARIANT_NAMES, n=1)
        said = did_you_mean(hint) if hint else f" (variants: {', '.join(_VARIANT_NAMES)})"
        raise _BadRecordError(f"variant: unknown variant {variant!r}{said}")
    players = rec.get("players")
    if not isinstance(players, list):
        raise _BadRecordError("players: expected a list")
    if not 2 <= len(players) <= 4:
        raise _BadRecordError(f"players: a hand has 2 to 4 players, got {len(players)}")
    tokens: list[str] = []
    names: dict[str, int] = {}
    for i, p in enumerate(players):
        if not isinstance(p, dict):
            raise _BadRecordError(f"players[{i}]: expected an object")
        name = p.get("name")
        if not isinstance(name, str) or not name:
            raise _BadRecordError(f"players[{i}].name: missing")
        names[name] = names.get(name, 0) + 1
        row_cards = [p.get(row) for row, _ in ROWS]
        for (row, width), cards in zip(ROWS, row_cards, strict=True):
            if not isinstance(cards, list) or not all(isinstance(c, str) for c in cards):
                raise _BadRecordError(f"players[{i}].{row}: expected a list of {width} cards")
        sizes = [len(cards) for cards in row_cards]
        if sizes != list(game.ROW_SIZES) and not (rec.get("variant") == "classic" and sum(sizes) == 13):
            row, width = next((r, w) for (r, w), n in zip(ROWS, sizes, strict=True) if n != w)
            got = sizes[[r for r, _ in ROWS].index(row)]
            raise _BadRecordError(f"players[{i}].{row}: expected {width} cards, got {got}")
        for cards in row_cards:
            tokens.extend(cards)
        for key in ("fantasyland", "surrendered"):
            _flag(p, key, i)
        natural = p.get("natural")
        if natural is not None and natural not in _NATURAL_CODES:
            known = ", ".join(_NATURAL_CODES)
            raise _BadRecordError(f"players[{i}].natural: unknown natural {natural!r} (known: {known})")
        _int(p.get("seat"), f"players[{i}].seat", 0)
        _int(p.get("stack"), f"players[{i}].stack", 0)
    repeated = [n for n, k in names.items() if k > 1]
    if repeated and not (len(players) == 4 and len(names) == 2 and all(k == 2 for k in names.values())):
        raise _BadRecordError(
            f"players: {repeated[0]!r} appears twice; only a criss-cross hand (two players, two boards each)"
            " repeats a name"
        )
    _int(rec.get("button"), "button", 0)
    return tokens


def read_jsonl(lines: Iterable[str | bytes], first_line: int = 1) -> Batch:
    """Parse JSON lines into records; a malformed line becomes a RecordError and is skipped."""
    errors: list[RecordError] = []

    def parsed() -> Iterator[tuple[int, Any]]:
        for n, text in enumerate(lines, start=first_line):
            if not text.strip():
                continue
            try:
                yield n, json.loads(text)
            except json.JSONDecodeError as exc:
                errors.append(RecordError(n, None, f"not valid JSON: {exc.msg} at column {exc.colno}"))
            except UnicodeDecodeError as exc:
                errors.append(RecordError(n, None, f"not UTF-8 text: {exc.reason} at byte {exc.start}"))

    return read_records(parsed(), errors)


def read_records(numbered: Iterable[tuple[int, Any]], errors: Iterable[RecordError] = ()) -> Batch:
    """Check records already parsed, each with its line (from any format an ingester reads); a record that
    cannot be scored becomes a RecordError beside ``errors`` (those of the lines that were not records)."""
    batch = Batch()
    tokens: list[str] = []
    owners: list[int] = []
    for n, rec in numbered:
        hand_id = str(rec.get("hand_id")) if isinstance(rec, dict) and "hand_id" in rec else None
        try:
            rec_tokens = _check_structure(rec)
        except _BadRecordError as exc:
            batch.errors.append(RecordError(n, hand_id, str(exc)))
            continue
        owners.extend([len(batch.records)] * len(rec_tokens))
        tokens.extend(rec_tokens)
        batch.records.append(rec)
        batch.lines.append(n)
    batch.errors = sorted([*errors, *batch.errors], key=lambda e: e.line)
    return _check_cards(batch, tokens, np.array(owners, dtype=np.int64))


def _card_field(rec: dict[str, Any], k: int) -> str:
    """``players[i].row[j]`` of the k-th card of a record (rows as given, even misset ones)."""
    player, within = divmod(k, 13)
    for row, _ in ROWS:
        n = len(rec["players"][player][row])
        if within < n:
            return f"players[{player}].{row}[{within}]"
        within -= n
    return f"players[{player}]"


def _check_cards(batch: Batch, tokens: list[str], owner: np.ndarray) -> Batch:
    """Parse every card of the batch at once; drop records with a bad or repeated card."""
    if not tokens:
        return batch
    codes, ok = parse_card_column(tokens)
    first = np.r_[0, np.flatnonzero(np.diff(owner)) + 1]
    position = np.arange(owner.size) - first[owner]
    problems: dict[int, str] = {}
    for i in np.flatnonzero(~ok)[::-1]:
        r = int(owner[i])
        problems[r] = f"{_card_field(batch.records[r], int(position[i]))}: not a card: {tokens[i]!r}"
    key = owner * 64 + codes
    order = np.argsort(key, kind="stable")
    repeated = np.flatnonzero((np.diff(key[order]) == 0) & ok[order][1:])
    for j in repeated[::-1]:
        i = int(order[j + 1])
        r = int(owner[i])
        problems.setdefault(
            r, f"{_card_field(batch.records[r], int(position[i]))}: {tokens[i]!r} is dealt twice in this hand"
        )
    keep = [r for r in range(len(batch.records)) if r not in problems]
    errors = [
        RecordError(batch.lines[r], str(batch.records[r]["hand_id"]), reason) for r, reason in sorted(problems.items())
    ]
    return Batch(
        records=[batch.records[r] for r in keep],
        lines=[batch.lines[r] for r in keep],
        errors=sorted(batch.errors + errors, key=lambda e: e.line),
        codes=codes[np.isin(owner, keep)].reshape(-1, 13),
    )


def to_boards(records: list[dict[str, Any]], codes: np.ndarray | None = None) -> Boards:
    """Columns of the engine from validated records (one board per player)."""
    if codes is None:
        tokens = [c for rec in records for p in rec["players"] for row, _ in ROWS for c in p[row]]
        parsed, ok = parse_card_column(tokens)
        if not ok.all():
            raise InputError("records hold tokens that are not cards; read them with read_jsonl first")
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


def board_keys(rec: dict[str, Any]) -> list[str]:
    """How output names each board: the player's name, or ``name#seat`` for a criss-cross player's two boards."""
    names = [p["name"] for p in rec["players"]]
    seats = [p.get("seat") if p.get("seat") is not None else i for i, p in enumerate(rec["players"])]
    return [f"{n}#{s}" if names.count(n) > 1 else n for n, s in zip(names, seats, strict=True)]


def to_output(records: list[dict[str, Any]], result: Scored, rules: RuleSet) -> Iterator[dict[str, Any]]:
    """One JSON-ready object per hand: points, per-board facts and pair points."""
    f = result.boards
    net = result.net.tolist()
    fouled, roy, fl_next = f.fouled.tolist(), f.royalties.tolist(), f.fantasyland_next.tolist()
    pair_points = result.pairs.points.tolist()
    pair_a, pair_b = result.pairs.a.tolist(), result.pairs.b.tolist()
    names = [key for rec in records for key in board_keys(rec)]
    hand_of = np.repeat(np.arange(len(records)), [len(rec["players"]) for rec in records]).tolist()
    pairs_by_hand: list[dict[str, int]] = [{} for _ in records]
    for a, b, pts in zip(pair_a, pair_b, pair_points, strict=True):
        first, second, sign = (a, b, 1) if a < b else (b, a, -1)
        pairs_by_hand[hand_of[a]][f"{names[first]}|{names[second]}"] = sign * pts
    i = 0
    for h, rec in enumerate(records):
        points: dict[str, int] = {}
        boards = {}
        for p, key in zip(rec["players"], board_keys(rec), strict=True):
            points[p["name"]] = points.get(p["name"], 0) + net[i]
            boards[key] = {
                "fouled": fouled[i],
                "royalties": dict(zip(("top", "middle", "bottom"), roy[i], strict=True)),
                "fantasyland_next": fl_next[i],
            }
            i += 1
        yield {
            "hand_id": rec["hand_id"],
            "rules": rules.name,
            "points": points,
            "boards": boards,
            "pairs": pairs_by_hand[h],
        }


def score_records(records: list[dict[str, Any]], rules: RuleSet) -> list[dict[str, Any]]:
    """Score validated records under ``rules``: the engine, wrapped in the record shape."""
    if not records:
        return []
    return list(to_output(records, score(to_boards(records), rules), rules))
