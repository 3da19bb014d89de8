"""The record's layout is written once, in the models of :mod:`schemas.hand`: the Arrow record, the compiled JSONL
scanner and the checks all follow it.

A field added to a model fails here until the scanner reads it (``SCANNED``) or says why it leaves it to the
general path (``LEFT``), and until the sample record below carries it, so that both paths are compared on it.
"""

from __future__ import annotations

import json
from typing import Any, get_args

import numpy as np
import pytest
from pydantic import BaseModel

from ofc.pipeline import game
from ofc.pipeline.cards import CARD_NAMES
from ofc.pipeline.game import PLACEMENT_ROWS, ROW_SIZES, ROWS
from ofc.pipeline.ingest import checks
from ofc.pipeline.ingest.columns import TEXT_FIELDS
from ofc.pipeline.ingest.jsonl_keys import LEFT, SCANNED
from ofc.pipeline.ingest.jsonl_scan import scan
from ofc.schemas.hand import PLACEMENT_ROWS as MODEL_PLACEMENT_ROWS
from ofc.schemas.hand import ROW_SIZES as MODEL_ROW_SIZES
from ofc.schemas.hand import HandRecord, Placement, PlayerRecord
from ofc.schemas.lake import PLACEMENT, PLAYER, RECORD
from tests.test_ingest_scan import assert_same_both_ways, read_jsonl

MODELS: dict[str, type[BaseModel]] = {"hand": HandRecord, "player": PlayerRecord, "placement": Placement}
FIELDS = [(part, name) for part, model in MODELS.items() for name in model.model_fields]


@pytest.mark.parametrize(("part", "name"), FIELDS, ids=[f"{p}.{n}" for p, n in FIELDS])
def test_every_field_is_scanned_or_left_with_a_reason(part: str, name: str) -> None:
    scanned = name in SCANNED[part]
    left = name in LEFT[part]
    assert scanned != left, f"{part}.{name}: the scanner must read it (SCANNED) or leave it with a reason (LEFT)"
    if left:
        assert LEFT[part][name].strip(), f"{part}.{name}: no reason given for leaving it"


@pytest.mark.parametrize("part", list(MODELS))
def test_the_scanner_knows_no_field_the_model_lacks(part: str) -> None:
    assert len(set(SCANNED[part])) == len(SCANNED[part])
    assert set(SCANNED[part]) | set(LEFT[part]) == set(MODELS[part].model_fields)


def test_the_arrow_record_mirrors_the_models() -> None:
    assert RECORD.names == list(HandRecord.model_fields)
    assert [f.name for f in PLAYER] == list(PlayerRecord.model_fields)
    assert [f.name for f in PLACEMENT] == list(Placement.model_fields)


def _bounds(model: type[BaseModel], name: str) -> dict[str, int]:
    found = {}
    for m in model.model_fields[name].metadata:
        for attr in ("ge", "le", "min_length", "max_length"):
            if getattr(m, attr, None) is not None:
                found[attr] = getattr(m, attr)
    return found


def test_the_models_bounds_are_the_checks() -> None:
    """The pydantic models (which name a bad field precisely) allow what the checks of both paths allow."""
    assert _bounds(PlayerRecord, "seat") == {"ge": 0, "le": game.MAX_SEAT}
    assert _bounds(HandRecord, "button") == {"ge": 0, "le": game.MAX_SEAT}
    assert _bounds(HandRecord, "hand_number") == {"ge": 0}
    assert _bounds(HandRecord, "players") == {"min_length": checks.MIN_PLAYERS, "max_length": checks.MAX_PLAYERS}
    dealt = checks.FANTASYLAND_DEALT
    assert _bounds(PlayerRecord, "fantasyland_cards") == {"ge": dealt[0], "le": dealt[-1]}
    assert dealt == tuple(range(dealt[0], dealt[-1] + 1))
    assert _bounds(PlayerRecord, "stack") == {"ge": checks.STACK_MIN}
    assert _bounds(Placement, "street") == {"ge": checks.FIRST_STREET, "le": checks.LAST_STREET}
    assert get_args(Placement.model_fields["row"].annotation) == PLACEMENT_ROWS == MODEL_PLACEMENT_ROWS
    assert MODEL_ROW_SIZES == dict(zip(ROWS, ROW_SIZES, strict=True))
    assert all(PlayerRecord.model_fields[row].annotation == PlayerRecord.model_fields["top"].annotation for row in ROWS)
    for name in TEXT_FIELDS:
        assert HandRecord.model_fields[name].annotation in (str, str | None), name


def _player(cards: list[str], name: str, seat: int, dealt: int | None) -> dict[str, Any]:
    """A player with every field of the model given, in the model's order: 13 cards set, the rest discarded."""
    rows = [*["top"] * 3, *["middle"] * 5, *["bottom"] * 5]
    if dealt is None:  # a normal Pineapple hand: 5, then four streets of two placed and one discarded
        kept = cards[:5] + [c for s in range(4) for c in cards[5 + 3 * s : 7 + 3 * s]]
        dropped = [cards[7 + 3 * s] for s in range(4)]
        streets = [1] * 5 + [s + 2 for s in range(4) for _ in range(2)]
        placements = [{"street": st, "card": c, "row": r} for st, c, r in zip(streets, kept, rows, strict=True)]
        placements += [{"street": s + 2, "card": c, "row": "discard"} for s, c in enumerate(dropped)]
    else:  # Fantasyland: every card at once
        kept, dropped = cards[:13], cards[13:dealt]
        placements = [{"street": 1, "card": c, "row": r} for c, r in zip(kept, rows, strict=True)]
        placements += [{"street": 1, "card": c, "row": "discard"} for c in dropped]
    return {
        "name": name,
        "seat": seat,
        "top": kept[:3],
        "middle": kept[3:8],
        "bottom": kept[8:13],
        "fantasyland": dealt is not None,
        "fantasyland_cards": dealt,
        "surrendered": False,
        "natural": None,
        "discards": dropped,
        "placements": placements,
        "points": -7 if dealt is None else 7,
        "stack": 250,
    }


def full_record() -> dict[str, Any]:
    """A valid record with every field of every model given, each as the scanner takes it."""
    deck = [str(c) for c in CARD_NAMES[np.random.default_rng(3).permutation(52)]]
    return {
        "hand_id": "every-field",
        "source": "club",
        "variant": "progressive-pineapple",
        "played_at": "2026-11-01T20:00:00+01:00",
        "site": "home",
        "table": "t1",
        "session": "s1",
        "hand_number": 12,
        "button": 1,
        "house_rules": "progressive-pineapple",
        "players": [_player(deck[:17], "ann", 0, None), _player(deck[17:32], "bob", 1, 15)],
    }


def test_the_sample_record_gives_every_field() -> None:
    record = full_record()
    assert list(record) == list(HandRecord.model_fields)
    for player in record["players"]:
        assert list(player) == list(PlayerRecord.model_fields)
        assert all(list(p) == list(Placement.model_fields) for p in player["placements"])
    HandRecord.model_validate(record)


def _parts(record: dict[str, Any]) -> dict[str, list[dict[str, Any]]]:
    """The objects of a record, by the model each is."""
    return {
        "hand": [record],
        "player": record["players"],
        "placement": [p for player in record["players"] for p in player["placements"]],
    }


def scanned_record() -> dict[str, Any]:
    """The sample record without the fields the scanner leaves."""
    record = full_record()
    for part, objects in _parts(record).items():
        for name in LEFT[part]:
            for o in objects:
                del o[name]
    return record


def _taken(line: bytes) -> bool:
    buf = np.frombuffer(line, dtype=np.uint8)
    s = scan(buf, np.array([0]), np.array([len(line)]), np.array([1]))
    return s.taken.size == 1


def test_every_field_scanned_is_read_as_the_general_path_reads_it(monkeypatch: pytest.MonkeyPatch) -> None:
    """The record with every field is taken and gives the same rows as on the general path; without each optional
    field in turn, the same rows and the same problems both ways, and every record accepted is taken."""
    record = scanned_record()
    assert _taken(json.dumps(record).encode())
    lines = [json.dumps(record)]
    for part, model in MODELS.items():
        for name, field in model.model_fields.items():
            if field.is_required() or name not in SCANNED[part]:
                continue
            r = scanned_record()
            for o in _parts(r)[part]:
                del o[name]
            lines.append(json.dumps(r))
    data = ("\n".join(lines) + "\n").encode()
    taken, accepted = assert_same_both_ways(data, monkeypatch)
    assert taken == accepted > len(lines) // 2
    fast, _ = read_jsonl(data)
    boards = fast.boards.to_pylist()
    assert [b["stack"] for b in boards[:2]] == [250, 250]
    assert [b["fantasyland_cards"] for b in boards[:2]] == [0, 15]


@pytest.mark.parametrize(
    ("part", "name"),
    [(p, n) for p in MODELS for n in LEFT[p]] or [pytest.param(None, None, marks=pytest.mark.skip("none left"))],
)
def test_a_field_left_leaves_the_line_to_the_general_path(part: str, name: str) -> None:
    record = scanned_record()
    record_with = full_record()
    assert name in _parts(record_with)[part][0]
    for o in _parts(record)[part]:
        o[name] = _parts(record_with)[part][0][name]
    assert _taken(json.dumps(scanned_record()).encode())
    assert not _taken(json.dumps(record).encode())


def test_an_unknown_key_leaves_the_line() -> None:
    """The scanner reads keys by name: one the models do not have is the general path's (which names it)."""
    record = scanned_record()
    record["players"][1] = {**record["players"][1], "colour": "red"}
    assert not _taken(json.dumps(record).encode())
    fast, _ = read_jsonl((json.dumps(record) + "\n").encode())
    assert [p.reason for p in fast.problems] == ["players.1.colour: unknown field"]


def test_the_checks_follow_the_game() -> None:
    """The per-variant tables of the checks, against the game's facts they are made from."""
    from ofc.pipeline.game import facts

    for code, name in enumerate(checks.VARIANT_NAMES):
        f = facts(name)
        assert checks.MAX_PLAYERS_OF[code] == f.max_players
        assert {c for c in range(64) if checks.FANTASYLAND_MASK[code] >> c & 1} == f.fantasyland_cards
        placed = checks.STREET_PLACED[code, checks.FIRST_STREET :]
        assert tuple(placed[: f.deal.streets]) == f.deal.placed
        assert not placed[f.deal.streets :].any()
        assert sum(checks.STREET_DISCARDED[code]) == checks.NORMAL_DISCARDS[code] == sum(f.deal.discarded)
    assert checks.MAX_PLAYERS_OF[-1] == checks.MAX_PLAYERS
    assert checks.FANTASYLAND_MASK[-1] == 0
    assert checks.VARIANT_NAMES == tuple(HandRecord.model_fields["variant"].annotation)


def test_the_scanner_is_compiled_with_the_constants_it_reads_today(monkeypatch: pytest.MonkeyPatch) -> None:
    """Numba's cache knows the scanner's own file, not the values it takes from others (the models, the checks, the
    game): a digest of them, compiled in, tells when its cached kernels must be compiled again."""
    import ofc.pipeline.ingest.jsonl_scan as jsonl_scan

    assert _taken(json.dumps(scanned_record()).encode())
    assert jsonl_scan._compiled_constants() == jsonl_scan._compiled_digest == jsonl_scan._constants_digest()
    for name, value in (("MAX_SEAT", 14), ("FANTASYLAND_MASK", jsonl_scan.FANTASYLAND_MASK ^ 1), ("K_BUTTON", 3)):
        with monkeypatch.context() as m:
            m.setattr(jsonl_scan, name, value)
            assert jsonl_scan._constants_digest() != jsonl_scan._compiled_digest, name
