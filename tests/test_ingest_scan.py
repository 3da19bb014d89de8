"""The compiled JSONL scanner against the general path: same records taken, same rows, same reasons.

The scanner may only take a line the general path (Arrow's reader, then the validator) would accept, and
must turn it into exactly the same lake rows. Each test reads the same bytes both ways (the general path
by making the scanner leave every line) and compares everything that comes out.
"""

from __future__ import annotations

import io
import json
from typing import Any

import numpy as np
import pyarrow as pa
import pytest

import ofc.pipeline.ingest.jsonl as jsonl
from ofc.pipeline.cards import CARD_NAMES
from ofc.pipeline.game import BOARD, ROW_SIZES, ROWS, facts
from ofc.pipeline.ingest.checks import VARIANT_NAMES
from ofc.pipeline.ingest.jsonl_scan import scan
from ofc.pipeline.ingest.validate import Validated, validate

RANDOM_ROWS = np.array(["top"] * 3 + ["middle"] * 5 + ["bottom"] * 5)
FL_CARDS = {"ofc": [13], "pineapple": [14], "progressive-pineapple": [14, 15, 16, 17], "pineapple-27": [14, 15]}
TIMES = [
    "2026-11-01T20:00:00Z",
    "2026-11-01T20:00:00+02:00",
    "2026-11-01T20:00:00-05:30",
    "2026-11-01T20:00:00.123Z",
    "2026-11-01T20:00:00.123456+01:00",
    "2026-11-01T20:00:00",
    "2024-02-29T23:59:59Z",
    "2026-11-01 20:00:00",
    "2026-11-01",
    "2026-02-30T20:00:00Z",
    "1999-12-31T23:59:59.5Z",
    "not a time",
]
NAMES = ["ann", "Bob", "Zoë", "李雷", "o'neil", 'say "hi"', "back\\slash", "tab\there", "émile", "x" * 40]


def _leave_all(buf: np.ndarray, starts: np.ndarray, stops: np.ndarray, lines: np.ndarray) -> Any:
    """A scanner that takes nothing: every line goes the general way."""
    s = scan(buf, starts[:0], stops[:0], lines[:0])
    s.left = np.arange(starts.size)
    return s


def read_jsonl(data: bytes, monkeypatch: pytest.MonkeyPatch | None = None) -> tuple[Validated, int]:
    """Everything the JSONL reader and the validator make of ``data``, and how many lines were taken fast."""
    if monkeypatch is not None:
        monkeypatch.setattr(jsonl, "scan", _leave_all)
    chunks = list(jsonl.INGESTER.read(io.BytesIO(data), "t.jsonl"))
    if monkeypatch is not None:
        monkeypatch.undo()
    assert sum(c.bytes_read for c in chunks) == len(data)
    taken = sum(0 if c.scanned is None else c.scanned.taken.size for c in chunks)
    results = [validate(c, "t.jsonl", "b1") for c in chunks]
    out = results[0]
    for r in results[1:]:
        out = out + r
    for c, r in zip(chunks, results, strict=True):
        r.problems[:0] = c.problems
    out.problems = [p for r in results for p in r.problems]
    return out, taken


def sorted_rows(v: Validated) -> dict[str, list[dict]]:
    """The lake rows in a canonical order, strings decoded, so the two paths can be compared."""

    def plain(t: pa.Table) -> pa.Table:
        return pa.table(
            {
                n: (c.cast(pa.string()) if pa.types.is_dictionary(c.type) else c)
                for n, c in zip(t.column_names, t.columns, strict=True)
            }
        )

    hands = sorted(plain(v.hands).to_pylist(), key=lambda r: r["source_line"])
    boards = sorted(plain(v.boards).to_pylist(), key=lambda r: (r["hand_key"], r["seat"]))
    placements = sorted(plain(v.placements).to_pylist(), key=lambda r: (r["hand_key"], r["seat"], r["order"]))
    return {"hands": hands, "boards": boards, "placements": placements}


def _problems(v: Validated) -> list[tuple[int, int, str, str | None]]:
    return sorted((p.line, p.offset, p.reason, p.hand_id) for p in v.problems)


def assert_same_both_ways(data: bytes, monkeypatch: pytest.MonkeyPatch) -> tuple[int, int]:
    """Both paths give the same rows and problems; returns (lines taken fast, hands accepted)."""
    fast, taken = read_jsonl(data)
    slow, none_taken = read_jsonl(data, monkeypatch)
    assert none_taken == 0
    assert _problems(fast) == _problems(slow)
    assert sorted_rows(fast) == sorted_rows(slow)
    np.testing.assert_array_equal(np.bincount(fast.board_hand, minlength=fast.hands.num_rows) > 0, True)
    return taken, fast.hands.num_rows


def hand(rng: np.random.Generator, i: int) -> dict[str, Any]:
    """A valid canonical record of any variant, with placements and optional fields in many shapes."""
    variant = str(rng.choice(["ofc", "pineapple", "progressive-pineapple", "pineapple-27", "classic"]))
    pine = variant != "ofc" and variant != "classic"
    n = int(rng.integers(2, 4 if pine else 5))
    deck = rng.permutation(52)
    players = []
    used = 0
    names = rng.choice(NAMES, size=n, replace=False)
    for p in range(n):
        fl = variant != "classic" and rng.random() < 0.25
        dealt = int(rng.choice(FL_CARDS[variant])) if fl else (17 if pine else 13)
        cards = [str(c) for c in CARD_NAMES[deck[used : used + dealt]]]
        used += dealt
        rows = [str(r) for r in rng.permutation(RANDOM_ROWS)]
        kept, dropped = cards[:13], cards[13:]
        if pine and not fl:  # a discard each street after the first
            kept = cards[:5] + [c for s in range(4) for c in cards[5 + 3 * s : 7 + 3 * s]]
            dropped = [cards[7 + 3 * s] for s in range(4)]
        if fl or variant == "classic":
            placements = [{"street": 1, "card": c, "row": r} for c, r in zip(kept, rows, strict=True)]
            placements += [{"street": 1, "card": c, "row": "discard"} for c in dropped]
        elif pine:
            placements = [{"street": 1, "card": kept[k], "row": rows[k]} for k in range(5)]
            for s in range(4):
                placements += [
                    {"street": s + 2, "card": kept[5 + 2 * s + k], "row": rows[5 + 2 * s + k]} for k in (0, 1)
                ]
                placements.append({"street": s + 2, "card": dropped[s], "row": "discard"})
        else:
            placements = [{"street": max(1, k - 3), "card": kept[k], "row": rows[k]} for k in range(13)]
        player: dict[str, Any] = {
            "name": str(names[p]),
            "top": [c for c, r in zip(kept, rows, strict=True) if r == "top"],
            "middle": [c for c, r in zip(kept, rows, strict=True) if r == "middle"],
            "bottom": [c for c, r in zip(kept, rows, strict=True) if r == "bottom"],
        }
        if rng.random() < 0.8:
            player["seat"] = p
        if fl:
            player["fantasyland"] = True
            if rng.random() < 0.7:
                player["fantasyland_cards"] = dealt
        elif rng.random() < 0.2:
            player["fantasyland"] = False
        if dropped and rng.random() < 0.9:
            player["discards"] = dropped
        if rng.random() < 0.8:
            player["placements"] = placements
        if rng.random() < 0.2:
            player["stack"] = int(rng.integers(1, 500))
        if rng.random() < 0.1:
            player["surrendered"] = False
        if rng.random() < 0.1:
            player["natural"] = None
        players.append(dict(sorted(player.items(), key=lambda kv: rng.random())) if rng.random() < 0.2 else player)
    if rng.random() < 0.5:  # recorded points: every player's, summing to zero (each pair settles between them)
        values = [int(v) for v in rng.integers(-40, 40, size=n - 1)]
        for player, value in zip(players, [*values, -sum(values)], strict=True):
            player["points"] = value
    record: dict[str, Any] = {"hand_id": f"h{i}", "variant": variant, "players": players}
    for key, value in (
        ("source", str(rng.choice(["app", "club", "Café ♠"]))),
        ("played_at", str(rng.choice(TIMES))),
        ("site", "home"),
        ("table", "t1"),
        ("session", f"s{i % 7}"),
        ("hand_number", int(rng.integers(0, 1000))),
        ("button", int(rng.integers(0, n))),
        ("house_rules", "ofc"),
    ):
        r = rng.random()
        if r < 0.6:
            record[key] = value
        elif r < 0.7:
            record[key] = None
    return record


def dump(record: dict[str, Any], rng: np.random.Generator) -> str:
    """JSON as different writers lay it out: compact or spaced, ASCII-escaped or raw UTF-8."""
    r = rng.random()
    if r < 0.6:
        return json.dumps(record, ensure_ascii=False)
    if r < 0.8:
        return json.dumps(record)
    return json.dumps(record, separators=(",", ":"), ensure_ascii=False)


def test_valid_records_are_taken_fast_and_give_the_same_rows(monkeypatch: pytest.MonkeyPatch) -> None:
    rng = np.random.default_rng(7)
    text = "\n".join(dump(hand(rng, i), rng) for i in range(1500)) + "\n"
    taken, accepted = assert_same_both_ways(text.encode(), monkeypatch)
    assert accepted > 1000
    assert taken > 200  # escaped names, unusual times and the like go the general way, still accepted


def test_the_benchmark_shape_is_taken_whole(monkeypatch: pytest.MonkeyPatch) -> None:
    from tests.bench.bench_ingest import write_hands

    path = pytest.importorskip("pathlib").Path
    import tempfile

    with tempfile.TemporaryDirectory() as d:
        f = path(d) / "b.jsonl"
        write_hands(f, 300, seed=3)
        data = f.read_bytes()
    taken, accepted = assert_same_both_ways(data, monkeypatch)
    assert taken == accepted == 300


MUTATIONS = [
    b'"',
    b"'",
    b"\\",
    b"{",
    b"}",
    b"[",
    b"]",
    b",",
    b":",
    b" ",
    b"\n",
    b"\r",
    b"0",
    b"1",
    b"9",
    b"-",
    b".",
    b"e",
    b"A",
    b"s",
    b"x",
    b"t",
    b"n",
    b"\x00",
    b"\xff",
    b"\xc3",
    b"\xe2\x99\xa0",
]


def mutate(line: bytes, rng: np.random.Generator) -> bytes:
    """One small damage: a byte replaced, inserted or deleted, a span duplicated, or two spans swapped."""
    kind = rng.integers(0, 5)
    at = int(rng.integers(0, len(line)))
    if kind == 0:
        return line[:at] + MUTATIONS[rng.integers(len(MUTATIONS))] + line[at + 1 :]
    if kind == 1:
        return line[:at] + MUTATIONS[rng.integers(len(MUTATIONS))] + line[at:]
    if kind == 2:
        return line[:at] + line[at + int(rng.integers(1, 8)) :]
    if kind == 3:
        span = int(rng.integers(2, 40))
        return line[: at + span] + line[at : at + span] + line[at + span :]
    # Swap two card tokens (or any two quoted words of the same length): duplicates, moved cards, renamed keys.
    words = [m for m in range(len(line) - 4) if line[m] == 34 and line[m + 3] == 34]
    if len(words) < 2:
        return line
    a, b = sorted(rng.choice(words, size=2, replace=False).tolist())
    return line[:a] + line[b : b + 4] + line[a + 4 : b] + line[a : a + 4] + line[b + 4 :]


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_damaged_records_go_the_same_way_on_both_paths(seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    rng = np.random.default_rng(seed)
    lines = []
    for i in range(1200):
        line = dump(hand(rng, i), rng).encode()
        for _ in range(int(rng.integers(0, 3))):
            line = mutate(line, rng)
        lines.append(line)
    taken, accepted = assert_same_both_ways(b"\n".join(lines) + b"\n", monkeypatch)
    assert 0 < taken <= accepted < len(lines)


@pytest.mark.parametrize(
    ("change", "reason"),
    [
        (lambda r: r.update(button=16), "button: 16 is not a seat 0..15"),
        (lambda r: r.update(hand_number=-1), "hand_number: -1 is negative"),
        (lambda r: r["players"][0].update(points=2**31), "players[0].points: 2147483648 is too large"),
        (lambda r: r["players"][1].update(stack=0), "players[1].stack: 0 is not 1 to 2147483647"),
    ],
)
def test_out_of_range_numbers_are_quarantined(change: Any, reason: str, monkeypatch: pytest.MonkeyPatch) -> None:
    rng = np.random.default_rng(5)
    record = hand(rng, 0)
    record["players"] = record["players"][:2]
    change(record)
    fast, _ = read_jsonl((json.dumps(record) + "\n").encode())
    assert [p.reason for p in fast.problems] == [reason]
    assert_same_both_ways((json.dumps(record) + "\n").encode(), monkeypatch)


def table(variant: str, players: int, fantasyland: int | None = None, seed: int = 0) -> dict[str, Any]:
    """A valid hand of ``variant`` with every player's placements, dealt as the game says; with ``fantasyland``, the
    first player is in Fantasyland and says so many cards were dealt. Past 52 cards the deck starts again (a hand
    with too many players is refused before its cards are looked at)."""
    deck = [str(c) for c in CARD_NAMES[np.random.default_rng(seed).permutation(52)]]
    deal = facts(variant).deal
    rows = [r for r, size in zip(ROWS, ROW_SIZES, strict=True) for _ in range(size)]
    used = 0
    out = []
    for p in range(players):
        fl = p == 0 and fantasyland is not None
        dealt, dropped_on = (
            ((max(fantasyland, BOARD),), (max(fantasyland - BOARD, 0),)) if fl else (deal.dealt, deal.discarded)
        )
        kept, dropped, placements = [], [], []
        for street, (d, x) in enumerate(zip(dealt, dropped_on, strict=True), start=1):
            cards = [deck[(used + k) % 52] for k in range(d)]
            used += d
            for c in cards[: d - x]:
                placements.append({"street": street, "card": c, "row": rows[len(kept)]})
                kept.append(c)
            for c in cards[d - x :]:
                placements.append({"street": street, "card": c, "row": "discard"})
                dropped.append(c)
        player: dict[str, Any] = {
            "name": f"p{p}",
            "seat": p,
            "top": kept[:3],
            "middle": kept[3:8],
            "bottom": kept[8:],
            "discards": dropped,
            "placements": placements,
        }
        if fl:
            player.update(fantasyland=True, fantasyland_cards=fantasyland)
        out.append(player)
    return {"hand_id": f"{variant}-{players}", "variant": variant, "players": out}


MISSING = "players[0].points: missing, while the others have theirs (p1 +3)"


def _set(path: str, value: Any) -> Any:
    """A change to a record: ``button``, ``players.0.seat`` or ``players.0.placements.-1.street`` set to ``value``."""

    def change(record: dict[str, Any]) -> None:
        *where, last = [int(k) if k.lstrip("-").isdigit() else k for k in path.split(".")]
        target = record
        for k in where:
            target = target[k]
        target[last] = value

    return change


def _limits() -> list[Any]:
    """(record, reason or None when accepted) at each side of each limit both paths check."""
    top = 2**31 - 1
    cases: list[tuple[str, dict[str, Any], str | None]] = []

    def case(name: str, record: dict[str, Any], reason: str | None, *changes: Any) -> None:
        for change in changes:
            change(record)
        cases.append((name, record, reason))

    case("seat 15", table("ofc", 2), None, _set("players.0.seat", 15))
    case("seat 16", table("ofc", 2), "players[0].seat: 16 is not 0..15", _set("players.0.seat", 16))
    case("seat -1", table("ofc", 2), "players[1].seat: -1 is not 0..15", _set("players.1.seat", -1))
    case("button 15", table("ofc", 2), None, _set("button", 15))
    case("button 16", table("ofc", 2), "button: 16 is not a seat 0..15", _set("button", 16))
    case("button -1", table("ofc", 2), "button: -1 is not a seat 0..15", _set("button", -1))
    case("hand number 0", table("ofc", 2), None, _set("hand_number", 0))
    case("hand number -1", table("ofc", 2), "hand_number: -1 is negative", _set("hand_number", -1))
    case("1 player", table("ofc", 1), "players: a hand has 2 to 4 players, got 1")
    for variant in VARIANT_NAMES:
        most = facts(variant).max_players
        case(f"{variant}, {most} players", table(variant, most), None)
        over = most + 1
        reason = (
            f"players: a hand has 2 to 4 players, got {over}"
            if over > 4
            else "players: Pineapple is played by at most 3 players"
        )
        case(f"{variant}, {over} players", table(variant, over), reason)
    for variant in VARIANT_NAMES:
        allowed = facts(variant).fantasyland_cards
        for count in range(12, 19):
            reason = (
                None
                if count in allowed
                else "players[0].fantasyland: classic has no Fantasyland"
                if not allowed
                else f"players[0].fantasyland_cards: {count} cards are not dealt in Fantasyland in this variant"
            )
            case(f"{variant}, Fantasyland of {count}", table(variant, 2, fantasyland=count), reason)
    for value, reason in (
        (top, None),
        (-top, None),
        (top + 1, f"{top + 1} is too large"),
        (-top - 1, f"{-top - 1} is too large"),
    ):
        case(
            f"points {value}",
            table("ofc", 2),
            reason and f"players[1].points: {reason}",
            _set("players.0.points", -value if reason is None else 0),
            _set("players.1.points", value),
        )
    case("points of one player only", table("ofc", 2), MISSING, _set("players.1.points", 3))
    case("points that do not add up", table("ofc", 2), "points: they sum to +1, not 0 (p0 +2, p1 -1)",
         _set("players.0.points", 2), _set("players.1.points", -1))  # fmt: skip
    stack = f"is not 1 to {top}"
    for value, reason in ((1, None), (top, None), (0, f"0 {stack}"), (top + 1, f"{top + 1} {stack}")):
        case(
            f"stack {value}", table("ofc", 2), reason and f"players[0].stack: {reason}", _set("players.0.stack", value)
        )
    wrong = "players[0].discards: {} cards, but this hand discards a different number"
    case("pineapple, 4 discards", table("pineapple", 2), None, _set("players.0.placements", None))
    case(
        "pineapple, 3 discards",
        table("pineapple", 2),
        wrong.format(3),
        _set("players.0.placements", None),
        lambda r: r["players"][0]["discards"].pop(),
    )
    case("ofc, 1 discard", table("ofc", 2), wrong.format(1), _set("players.0.discards", ["2c"]))
    case("ofc, last street 9", table("ofc", 2), None, _set("players.0.placements.-1.street", 9))
    streets = "players[0].placements: streets do not follow the deal of this variant"
    case("ofc, street 10", table("ofc", 2), streets, _set("players.0.placements.-1.street", 10))
    case("pineapple, street 6", table("pineapple", 2), streets, _set("players.0.placements.-1.street", 6))
    case(
        "street 0",
        table("ofc", 2),
        "players[0].placements[0]: street 0 is not 1 or more",
        _set("players.0.placements.0.street", 0),
    )
    return [pytest.param(record, reason, id=name) for name, record, reason in cases]


@pytest.mark.parametrize(("record", "reason"), _limits())
def test_each_limit_is_the_same_on_both_paths(
    record: dict[str, Any], reason: str | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """At each side of each limit both paths check: what the validator accepts there the scanner takes, and what it
    refuses it gives the reason for."""
    data = (json.dumps(record) + "\n").encode()
    fast, taken = read_jsonl(data)
    assert [p.reason for p in fast.problems] == ([] if reason is None else [reason])
    assert taken == (reason is None)
    assert_same_both_ways(data, monkeypatch)


def test_an_enormous_line_is_quarantined_without_being_held(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(jsonl, "MAX_LINE_BYTES", 5000)
    monkeypatch.setattr(jsonl, "BLOCK_BYTES", 300)
    rng = np.random.default_rng(9)
    good = [json.dumps(hand(rng, i)).encode() for i in range(3)]
    huge = b'{"hand_id": "' + b"x" * 9000 + b'"}'
    data = b"\n".join([good[0], huge, good[1], good[2]]) + b"\n"
    chunks = list(jsonl.INGESTER.read(io.BytesIO(data), "t.jsonl"))
    assert sum(c.bytes_read for c in chunks) == len(data)
    problems = [p for c in chunks for p in c.problems]
    assert [(p.line, p.offset) for p in problems] == [(2, len(good[0]) + 1)]
    assert "longer than 5,000 bytes" in problems[0].reason
    assert sum(c.count for c in chunks) == 4


def test_compiled_times_agree_with_python() -> None:
    from datetime import UTC, datetime, timedelta, timezone

    from ofc.pipeline.ingest.times import parse_times

    rng = np.random.default_rng(11)
    texts = list(TIMES)
    for _ in range(3000):
        t = datetime(1, 1, 1, tzinfo=UTC) + timedelta(seconds=int(rng.integers(0, 315_000_000_000)))
        t = t.replace(microsecond=int(rng.integers(0, 1_000_000)))
        shape = rng.integers(0, 5)
        zone = timezone(timedelta(minutes=int(rng.integers(-23 * 60 - 59, 23 * 60 + 60))))
        local = t.astimezone(zone) if shape in (1, 2) and 1 < t.year < 9999 else t
        text = {
            0: local.strftime("%Y-%m-%dT%H:%M:%SZ"),
            1: local.isoformat(timespec="seconds"),
            2: local.isoformat(timespec="microseconds"),
            3: local.strftime("%Y-%m-%dT%H:%M:%S.") + f"{local.microsecond // 1000:03d}",
            4: local.isoformat(timespec="milliseconds").replace("+00:00", "Z"),
        }[int(shape)]
        texts.append(text)
    stamps, bad = parse_times(pa.array([*texts, None]))
    expected = []
    for text in texts:
        try:
            t = datetime.fromisoformat(text)
        except ValueError:
            expected.append(None)
            continue
        expected.append((t if t.tzinfo else t.replace(tzinfo=UTC)).astimezone(UTC))
    assert stamps.to_pylist() == [*expected, None]
    assert bad.tolist() == [i for i, e in enumerate(expected) if e is None]


@pytest.mark.parametrize("seed", range(6))
def test_block_boundaries_change_nothing(seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """Lines cut anywhere by the reader's blocks (a BOM, CRLF, blank and over-long lines, no final newline)
    read the same as from one block."""
    rng = np.random.default_rng(100 + seed)
    parts = [json.dumps(hand(rng, i)).encode() for i in range(12)]
    # Longer than the limit below and a block more: over the limit whichever way the blocks cut it.
    parts[3] = b'{"hand_id": "' + b"y" * int(rng.integers(8001, 12000)) + b'"}'
    parts[7] = b""
    parts[9] = b"not json"
    ends = [b"\r\n" if rng.random() < 0.3 else b"\n" for _ in parts]
    data = (b"\xef\xbb\xbf" if seed % 2 else b"") + b"".join(p + e for p, e in zip(parts, ends, strict=True))
    if seed % 3 == 0:
        data = data.rstrip(b"\r\n")

    def what(block: int) -> tuple[int, list, list, list]:
        monkeypatch.setattr(jsonl, "MAX_LINE_BYTES", 4000)
        monkeypatch.setattr(jsonl, "BLOCK_BYTES", block)
        chunks = list(jsonl.INGESTER.read(io.BytesIO(data), "t.jsonl"))
        monkeypatch.undo()
        problems = [(p.line, p.offset, p.reason) for c in chunks for p in c.problems]
        lines = [int(x) for c in chunks for x in c.lines]
        scanned = [int(x) for c in chunks if c.scanned is not None for x in c.scanned.hands.lines]
        return sum(c.bytes_read for c in chunks), problems, sorted(lines), sorted(scanned)

    assert max(map(len, parts[:3])) < 4000
    whole = what(4000)  # blocks no larger than the line limit, as in use (the limit bounds what a block holds)
    assert whole[0] == len(data)
    assert len(whole[2]) + len(whole[3]) == 9  # the blank line is nothing; the long line and "not json" problems
    assert [line for line, _, _ in whole[1]] == [4, 10], whole[1]
    for block in (1, 7, 64, int(rng.integers(100, 4000))):
        assert what(block) == whole


def test_newlines_are_found_wherever_they_are() -> None:
    from ofc.pipeline.ingest.jsonl_lines import newlines

    rng = np.random.default_rng(21)
    for _ in range(300):
        n = int(rng.integers(0, 3000))
        data = rng.integers(0, 256, n).astype(np.uint8)
        data[rng.random(n) < rng.choice([0.0, 0.001, 0.05, 0.5, 1.0])] = 10
        view = data[int(rng.integers(0, 8)) if n > 8 else 0 :]  # not aligned to 8 bytes
        assert np.array_equal(newlines(view), np.flatnonzero(view == 10))
