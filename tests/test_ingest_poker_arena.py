"""The poker-arena ingester on the real engine log, on broken copies of it and on made-up Pineapple hands.

The sample's own ``showdown`` and ``score`` events are the oracle. The records
must carry the engine's boards and points. The project's evaluator must agree
with the engine on which boards fouled. Broken inputs must still account for
every hand: each one is a record or exactly one Problem.
"""

from __future__ import annotations

import gzip
import io
import json
import random
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ofc.pipeline.cards import parse_cards
from ofc.pipeline.evaluate.board import evaluate_boards, fouled
from ofc.pipeline.ingest import poker_arena
from ofc.pipeline.ingest.base import RAW_LIMIT, Chunk, Problem
from ofc.pipeline.ingest.poker_arena import INGESTER, stem
from ofc.pipeline.ingest.validate import validate
from ofc.schemas.hand import HandRecord
from tests.helpers_records import placed, player_record

SAMPLE = Path(__file__).resolve().parents[1] / "data" / "samples" / "poker-arena" / "ofc.jsonl"
SAMPLE_SHA256 = "aa74188c3d8f1bf71794ea1f6f32adc850f15ad9ff198dcd52bd3b8c1eac05e0"
HANDS = [3, 127, 248, 249]
HEADER_LINES = [1, 82, 163, 244]


def sample() -> bytes:
    return SAMPLE.read_bytes()


def sample_lines() -> list[bytes]:
    return sample().splitlines(keepends=True)


def read(data: bytes, source: str = "logs/ofc.jsonl") -> tuple[list[dict], list[int], list[int], list[Problem]]:
    """Records, their lines and offsets, and the problems of a whole stream."""
    chunks = list(INGESTER.read(io.BytesIO(data), source))
    assert chunks
    assert sum(c.bytes_read for c in chunks) == len(data)
    records = [r for c in chunks for r in c.records.to_pylist()]
    lines = [int(x) for c in chunks for x in c.lines]
    offsets = [int(x) for c in chunks for x in c.offsets]
    problems = [p for c in chunks for p in c.problems]
    for p in problems:
        assert len(p.raw) <= RAW_LIMIT
    return records, lines, offsets, problems


def headers(data: bytes) -> list[int]:
    """Line numbers of the hand headers a reader should account for."""
    found = []
    for number, line in enumerate(data.split(b"\n"), 1):  # lines end at newlines only, as the reader counts them
        try:
            obj = json.loads(line)
        except ValueError:
            continue
        if isinstance(obj, dict) and "seats" in obj and "ev" not in obj:
            found.append(number)
    return found


def assert_accounted(data: bytes, lines: list[int], problems: list[Problem]) -> None:
    """Every hand header is one record or one Problem: records read = accepted + quarantined."""
    hand_problems = [p.line for p in problems if p.hand_id is not None and p.line in headers(data)]
    assert sorted(lines + hand_problems) == headers(data)


def the_one_problem(data: bytes, hands: list[int]) -> Problem:
    """The one Problem of a damaged log that still reads ``hands``, every hand header accounted for."""
    records, lines, _, problems = read(data)
    assert [r["hand_number"] for r in records] == hands
    assert_accounted(data, lines, problems)
    (p,) = problems
    return p


def events(data: bytes) -> list[tuple[int, dict]]:
    return [(obj["hand"], obj["ev"]) for obj in map(json.loads, data.splitlines()) if "ev" in obj]


def with_line(lines: list[bytes], number: int, text: str | bytes) -> bytes:
    """The sample with its line ``number`` (1-based) replaced."""
    new = text.encode() if isinstance(text, str) else text
    return b"".join([*lines[: number - 1], new.rstrip(b"\n") + b"\n", *lines[number:]])


def inserted(lines: list[bytes], before: int, text: str) -> bytes:
    """The sample with a line inserted so that it becomes line ``before``."""
    return b"".join([*lines[: before - 1], text.encode() + b"\n", *lines[before - 1 :]])


def edit_event(lines: list[bytes], number: int, **changes: object) -> bytes:
    obj = json.loads(lines[number - 1])
    obj["ev"].update(changes)
    return with_line(lines, number, json.dumps(obj, separators=(",", ":")))


def arena_hand(session: str, number: int, players: list[dict], variant: str = "ofc") -> dict:
    """A hand's whole record as the reader writes it: the engine logs no time or table, and seat 0 has the button."""
    return {
        "hand_id": f"{session}#{number}",
        "source": "poker-arena",
        "variant": variant,
        "played_at": None,
        "site": "poker-arena",
        "table": None,
        "session": session,
        "hand_number": number,
        "button": 0,
        "house_rules": variant,
        "players": players,
    }


def from_events(data: bytes, session: str, variants: dict[int, str] | None = None) -> list[dict]:
    """The whole canonical records a log describes, built straight from its lines (every line is trusted here).

    Each hand is played in ``variants.get(number, "ofc")``; seats are numbered in header order and a seat's
    streets are its deals in order.
    """
    hands: dict[int, dict] = {}
    streets: dict[tuple[int, int], int] = {}
    for obj in map(json.loads, data.splitlines()):
        n = obj["hand"]
        if "seats" in obj:
            players = [player_record(name, seat, "", "", "", placements=[]) for seat, name in enumerate(obj["seats"])]
            hands[n] = arena_hand(session, n, players, (variants or {}).get(n, "ofc"))
            continue
        ev = obj["ev"]
        player = hands[n]["players"][ev["seat"]]
        if ev["event"] == "fantasyland":
            player["fantasyland"], player["fantasyland_cards"] = True, ev["cards"]
        elif ev["event"] == "deal":
            streets[n, ev["seat"]] = streets.get((n, ev["seat"]), 0) + 1
        elif ev["event"] == "place":
            street = streets[n, ev["seat"]]
            player["placements"] += [{"street": street, "card": x["card"], "row": x["row"]} for x in ev["placements"]]
            player["placements"] += [{"street": street, "card": card, "row": "discard"} for card in ev["discarded"]]
            player["discards"] += ev["discarded"]
        elif ev["event"] == "showdown":
            player.update(top=ev["top"], middle=ev["middle"], bottom=ev["bottom"])
        elif ev["event"] == "score":
            player["points"] = ev["points"]
    return list(hands.values())


# ---------------------------------------------------------------- the real sample


def test_sample_is_the_verbatim_upstream_file() -> None:
    import hashlib

    assert hashlib.sha256(sample()).hexdigest() == SAMPLE_SHA256
    notice = (SAMPLE.parent / "NOTICE.md").read_text()
    for needed in (SAMPLE_SHA256, "Copyright (c) 2026 mixedsolver.com", "500583990f9088c5aa575149ef4ccca1cd28c1da"):
        assert needed in notice


def test_sample_reads_four_hands_without_problems() -> None:
    data = sample()
    records, lines, offsets, problems = read(data)
    assert problems == []
    assert [r["hand_number"] for r in records] == HANDS
    assert [r["hand_id"] for r in records] == [f"ofc#{n}" for n in HANDS]
    assert lines == HEADER_LINES
    for record, offset in zip(records, offsets, strict=True):
        assert data[offset:].startswith(f'{{"hand":{record["hand_number"]},"seats":'.encode())
    assert records == from_events(data, "ofc")


def test_sample_players_rows_and_points() -> None:
    data = sample()
    records, *_ = read(data)
    seats = {obj["hand"]: obj["seats"] for obj in map(json.loads, data.splitlines()) if "seats" in obj}
    scores = {(h, ev["seat"]): ev["points"] for h, ev in events(data) if ev["event"] == "score"}
    boards = {(h, ev["seat"]): ev for h, ev in events(data) if ev["event"] == "showdown"}
    assert len(scores) == len(boards) == 16
    assert [r["hand_number"] for r in records] == HANDS
    for record in records:
        n = record["hand_number"]
        players = record["players"]
        assert len(players) == 4
        assert [p["name"] for p in players] == seats[n]
        assert [p["seat"] for p in players] == [0, 1, 2, 3]
        assert sum(p["points"] for p in players) == 0
        for p in players:
            assert (len(p["top"]), len(p["middle"]), len(p["bottom"])) == (3, 5, 5)
            assert p["points"] == scores[n, p["seat"]]
            shown = boards[n, p["seat"]]
            assert (p["top"], p["middle"], p["bottom"]) == (shown["top"], shown["middle"], shown["bottom"])
            assert p["surrendered"] is False
            assert p["natural"] is None
            assert p["stack"] is None
            assert p["discards"] == []


def test_sample_fantasyland_hand_249() -> None:
    """Seat 0 plays the 13-card Fantasyland it earned in hand 248: all 13 cards on street 1."""
    records, *_ = read(sample())
    by_number = {r["hand_number"]: r for r in records}
    for n in (3, 127, 248):
        assert not any(p["fantasyland"] for p in by_number[n]["players"])
    assert by_number[249] == arena_hand(
        "ofc",
        249,
        [
            player_record(
                "greedy",
                0,
                "8s 9c Td",
                "2d 2s 3c 3d Js",
                "4h 4s 6c 6h Ac",
                fantasyland=True,
                fantasyland_cards=13,
                placements=placed(
                    "8s:top 9c:top Td:top 2d:middle 2s:middle 3c:middle 3d:middle Js:middle "
                    "4h:bottom 4s:bottom 6c:bottom 6h:bottom Ac:bottom"
                ),
                points=18,
            ),
            player_record(
                "random",
                1,
                "Ah Qd As",
                "8c 7h 8h 2c 9h",
                "3h 2h 3s 4c Th",
                placements=placed(
                    "3h:bottom 8c:middle 2h:bottom 3s:bottom 7h:middle"
                    " | 8h:middle | 2c:middle | 9h:middle | 4c:bottom | Th:bottom | Ah:top | Qd:top | As:top"
                ),
                points=-12,
            ),
            player_record(
                "filler",
                2,
                "Jc Ad Ks",
                "8d 9d Qc 6d Kc",
                "7s Ts Jd Qs Kd",
                placements=placed(
                    "7s:bottom Ts:bottom Jd:bottom Qs:bottom Kd:bottom"
                    " | 8d:middle | 9d:middle | Qc:middle | 6d:middle | Kc:middle | Jc:top | Ad:top | Ks:top"
                ),
                points=-12,
            ),
            player_record(
                "random-2",
                3,
                "7d 4d 5h",
                "7c Kh Qh Tc 5s",
                "6s 9s 5c Jh 5d",
                placements=placed(
                    "7d:top 7c:middle 6s:bottom Kh:middle 4d:top"
                    " | 5h:top | Qh:middle | Tc:middle | 9s:bottom | 5c:bottom | 5s:middle | Jh:bottom | 5d:bottom"
                ),
                points=6,
            ),
        ],
    )


def test_sample_streets_follow_the_deals() -> None:
    """Classic OFC: 5 cards on street 1, then one card on each of streets 2 to 9, in the order dealt."""
    records, *_ = read(sample())
    assert [r["hand_number"] for r in records] == HANDS
    checked = 0
    for record in records:
        for p in record["players"]:
            if p["fantasyland"]:
                continue
            assert [x["street"] for x in p["placements"]] == [1] * 5 + list(range(2, 10))
            checked += 1
    assert checked == 15  # four hands of four boards, but seat 0's Fantasyland in hand 249


def test_sample_placements_agree_with_final_rows() -> None:
    data = sample()
    records, *_ = read(data)
    placed_in_log = {}
    for h, ev in events(data):
        if ev["event"] == "place":
            placed_in_log.setdefault((h, ev["seat"]), []).extend(x["card"] for x in ev["placements"])
    assert len(placed_in_log) == 16
    checked = 0
    for record in records:
        for p in record["players"]:
            for row in ("top", "middle", "bottom"):
                placed = [x["card"] for x in p["placements"] if x["row"] == row]
                assert Counter(placed) == Counter(p[row]), (record["hand_id"], p["seat"], row)
            assert [x["card"] for x in p["placements"]] == placed_in_log[record["hand_number"], p["seat"]]
            checked += 1
    assert checked == 16  # every board of the four hands


def test_sample_fouls_match_the_engine() -> None:
    """6 fouled boards: the engine's flags, and the project's evaluator on the ingested rows, agree."""
    data = sample()
    records, *_ = read(data)
    engine = {(h, ev["seat"]): ev["fouled"] for h, ev in events(data) if ev["event"] == "showdown"}
    assert sum(engine.values()) == 6
    keys = [(r["hand_number"], p["seat"]) for r in records for p in r["players"]]
    cards = [p["top"] + p["middle"] + p["bottom"] for r in records for p in r["players"]]
    boards = np.asarray([parse_cards(c) for c in cards], dtype=np.uint8)
    ours = fouled(*evaluate_boards(boards))
    assert dict(zip(keys, ours.tolist(), strict=True)) == engine


def test_sample_records_validate() -> None:
    """The records are valid as they stand: the record model changes nothing in them, and the common
    validation step accepts every hand, its 16 boards and every card placed."""
    data = sample()
    records, *_ = read(data)
    assert len(records) == 4
    for record in records:
        assert HandRecord.model_validate(record).model_dump(mode="json") == record
    (chunk,) = INGESTER.read(io.BytesIO(data), "ofc.jsonl")
    checked = validate(chunk, "ofc.jsonl", "batch")
    assert checked.problems == []
    assert checked.hands.column("hand_id").to_pylist() == [f"ofc#{n}" for n in HANDS]
    assert (checked.boards.num_rows, checked.placements.num_rows) == (16, 16 * 13)


def test_sample_through_gzip_and_small_chunks(monkeypatch: pytest.MonkeyPatch) -> None:
    """Chunks of CHUNK_HANDS hands each, byte counts that add up, and a stem that loses every extension."""
    monkeypatch.setattr(poker_arena, "CHUNK_HANDS", 3)
    data = sample() * 4
    chunks = list(INGESTER.read(gzip.GzipFile(fileobj=io.BytesIO(gzip.compress(data))), "/x/y/ofc.jsonl.gz"))
    assert [c.records.num_rows for c in chunks] == [3, 3, 3, 3, 3, 1]
    assert sum(c.bytes_read for c in chunks) == len(data)
    assert all(isinstance(c, Chunk) and c.problems == [] for c in chunks)
    first = chunks[0].records.to_pylist()[0]
    assert (first["hand_id"], first["session"]) == ("ofc#3", "ofc")
    assert [int(x) for c in chunks for x in c.lines] == [n + 309 * k for k in range(4) for n in HEADER_LINES]


def test_stem() -> None:
    assert stem("data/samples/poker-arena/ofc.jsonl") == "ofc"
    assert stem("ofc.jsonl.gz") == "ofc"
    assert stem("C:\\logs\\match-7.log") == "match-7"
    assert stem("run.2026.08.13.jsonl") == "run.2026.08.13"
    assert stem("ofc") == "ofc"


# ---------------------------------------------------------------- sniffing


def test_sniff() -> None:
    assert INGESTER.name == "poker-arena"
    assert INGESTER.sniff(sample()[:65536])
    assert INGESTER.sniff(b"\n\n" + sample()[:500])  # cut mid-line after the first: still recognised
    assert INGESTER.sniff(b'{"hand":7,"ev":{"event":"score","seat":0,"points":1}}\n')
    assert not INGESTER.sniff(b"hand_id,variant,player,top,middle,bottom\nh1,ofc,ann,As Ks Qs,,\n")
    canonical = {"hand_id": "h1", "variant": "ofc", "players": [{"name": "a", "top": [], "middle": [], "bottom": []}]}
    assert not INGESTER.sniff(json.dumps(canonical).encode() + b"\n")
    assert not INGESTER.sniff(b'{"hand":true,"seats":["a","b"]}\n')
    assert not INGESTER.sniff(b'{"hand":"3","seats":["a","b"]}\n')
    assert not INGESTER.sniff(b"")
    assert not INGESTER.sniff(b"[" * 100_000)
    assert not INGESTER.sniff(random.Random(1).randbytes(4096))


@given(st.binary(max_size=2000))
def test_sniff_never_raises(head: bytes) -> None:
    assert INGESTER.sniff(head) in (True, False)


# ---------------------------------------------------------------- broken inputs


@pytest.mark.parametrize("cut", ["mid-line", "line-boundary"])
def test_truncated_file(cut: str) -> None:
    lines = sample_lines()
    data = b"".join(lines[:279])
    if cut == "mid-line":
        data += lines[279][:40]
    p = the_one_problem(data, [3, 127, 248])
    assert (p.line, p.hand_id) == (244, "ofc#249")
    assert p.offset == len(b"".join(lines[:243]))
    assert "truncated" in p.reason
    if cut == "line-boundary":
        assert p.reason.startswith("hand 249 never completed (the file ends on line 279: truncated?)")
        assert "no showdown for seats 0, 1, 2, 3; no score for seats 0, 1, 2, 3" in p.reason
    else:
        assert p.reason.startswith("line 280: not JSON")


def test_garbage_line_inside_a_hand() -> None:
    data = inserted(sample_lines(), 101, "<<< not json >>>")
    records, lines, _, problems = read(data)
    assert [r["hand_number"] for r in records] == [3, 248, 249]
    assert lines == [1, 164, 245]
    (p,) = problems
    assert (p.line, p.hand_id) == (82, "ofc#127")
    assert p.reason.startswith("line 101: not JSON")
    assert p.raw == "<<< not json >>>"
    assert_accounted(data, lines, problems)


def test_garbage_line_between_hands_is_its_own_problem() -> None:
    data = inserted(sample_lines(), 82, "[1, 2, 3]")
    records, _, offsets, problems = read(data)
    assert [r["hand_number"] for r in records] == HANDS
    (p,) = problems
    assert (p.line, p.hand_id, p.offset) == (82, None, offsets[1] - len(b"[1, 2, 3]\n"))
    assert p.reason == "line 82: not a JSON object: [1, 2, 3]"


def test_event_before_any_header() -> None:
    stray = '{"hand":1,"ev":{"event":"deal","seat":0,"cards":["As"],"count":1}}'
    data = inserted(sample_lines(), 1, stray)
    records, lines, offsets, problems = read(data)
    assert [r["hand_number"] for r in records] == HANDS
    assert lines == [n + 1 for n in HEADER_LINES]
    assert offsets[0] == len(stray) + 1
    (p,) = problems
    assert (p.line, p.offset, p.hand_id) == (1, 0, "ofc#1")
    assert p.reason == "line 1: event for hand 1, which has no header"
    assert p.raw == stray


def test_unknown_event() -> None:
    lines = sample_lines()
    data = with_line(lines, 30, '{"hand":3,"ev":{"event":"chat","seat":1,"text":"gg"}}')
    p = the_one_problem(data, [127, 248, 249])
    assert (p.line, p.offset, p.hand_id) == (1, 0, "ofc#3")
    assert p.reason == "line 30: ev.event: unknown event type 'chat'"


def test_bad_row_name() -> None:
    lines = sample_lines()
    number = next(i for i, line in enumerate(lines, 1) if b'"hand":127' in line and b'"place"' in line)
    obj = json.loads(lines[number - 1])
    placements = obj["ev"]["placements"]
    placements[2]["row"] = "side"
    data = edit_event(lines, number, placements=placements)
    p = the_one_problem(data, [3, 248, 249])
    assert (p.line, p.hand_id) == (82, "ofc#127")
    assert p.reason == f"line {number}: place.placements[2].row: unknown row 'side'"
    assert '"side"' in p.raw


def test_wrong_field_type() -> None:
    data = edit_event(sample_lines(), 78, points="-13")
    records, _, _, problems = read(data)
    assert [r["hand_number"] for r in records] == [127, 248, 249]
    (p,) = problems
    assert p.reason == "line 78: score.points: expected an integer, got '-13'"


def test_seat_out_of_range() -> None:
    data = edit_event(sample_lines(), 78, seat=4)
    _, _, _, problems = read(data)
    (p,) = problems
    assert p.reason == "line 78: score.seat: 4 is out of range [0, 3]"


def test_missing_score() -> None:
    lines = sample_lines()
    data = b"".join(lines[:308])  # drop the last line: seat 0's score in hand 249
    records, _, _, problems = read(data)
    assert len(records) == 3
    (p,) = problems
    assert (p.line, p.hand_id) == (244, "ofc#249")
    assert p.reason == "hand 249 never completed (the file ends on line 308: truncated?): no score for seat 0"


def test_missing_showdown() -> None:
    lines = sample_lines()
    data = b"".join(lines[:76] + lines[77:])  # drop seat 0's showdown in hand 3
    p = the_one_problem(data, [127, 248, 249])
    assert (p.line, p.hand_id, p.reason) == (1, "ofc#3", "no showdown for seat 0")


def test_showdown_disagreeing_with_placements() -> None:
    lines = sample_lines()
    obj = json.loads(lines[73])
    top = obj["ev"]["top"]
    data = edit_event(lines, 74, top=[top[0], top[1], "2s"])
    records, _, _, problems = read(data)
    assert [r["hand_number"] for r in records] == [127, 248, 249]
    (p,) = problems
    assert p.line == 1
    assert p.reason.startswith("line 74: showdown.top: ['4s', 'Tc', '2s'] for seat 1 differs from the cards placed")
    assert p.raw.startswith('{"hand":3,"ev":{"event":"showdown"')


def test_place_not_matching_the_deal() -> None:
    data = edit_event(sample_lines(), 11, placements=[{"card": "7h", "row": "middle"}])
    _, _, _, problems = read(data)
    (p,) = problems
    expected = "line 11: place: the cards placed and discarded ['7h'] are not the cards dealt on line 10 ['6h']"
    assert p.reason == expected


def test_redacted_deal() -> None:
    data = edit_event(sample_lines(), 2, cards=[])
    _, _, _, problems = read(data)
    (p,) = problems
    assert p.reason == "line 2: deal.cards: 0 cards but count 5 (a redacted log?)"


def test_event_after_the_last_score_and_engine_trailer() -> None:
    lines = sample_lines()
    trailer = b'{"log_summary":{"hands_seen":4,"hands_kept":4}}\n'
    data = b"".join([*lines[:81], lines[80], *lines[81:], trailer])
    p = the_one_problem(data, HANDS)
    assert (p.line, p.hand_id) == (82, "ofc#3")
    assert p.reason == "line 82: event for hand 3 after its last score (line 81)"


def test_two_faults_in_one_hand_make_one_problem() -> None:
    lines = sample_lines()
    data = with_line(lines, 30, "garbage")
    data = with_line(data.splitlines(keepends=True), 40, "more garbage")
    _, _, _, problems = read(data)
    (p,) = problems
    assert p.reason.startswith("line 30: not JSON")


def test_header_interrupting_a_hand() -> None:
    lines = sample_lines()
    data = b"".join(lines[:50] + lines[81:])
    p = the_one_problem(data, [127, 248, 249])
    assert (p.line, p.hand_id) == (1, "ofc#3")
    assert p.reason.startswith("hand 3 never completed (hand 127 starts on line 51): no showdown for seats 0, 1, 2, 3;")


def test_bad_header() -> None:
    data = with_line(sample_lines(), 82, '{"hand":127,"seats":"random,filler"}')
    p = the_one_problem(data, [3, 248, 249])
    assert (p.line, p.hand_id) == (82, "ofc#127")
    assert p.reason == "line 82: seats: expected a non-empty list of names, got 'random,filler'"


def test_overlong_line_is_skipped_not_held(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(poker_arena, "MAX_LINE", 1000)
    data = inserted(sample_lines(), 82, "x" * 5000)
    records, lines, _, problems = read(data)
    assert [r["hand_number"] for r in records] == HANDS
    assert lines == [1, 83, 164, 245]
    (p,) = problems
    assert (p.line, p.reason) == (82, "line 82: longer than 1000 bytes")
    assert p.raw == "x" * RAW_LIMIT


def test_lone_surrogate_is_a_problem_not_a_crash() -> None:
    data = with_line(sample_lines(), 82, '{"hand":127,"seats":["\\ud800","b","c","d"]}')
    _, _, _, problems = read(data)
    (p,) = problems
    assert (p.line, p.hand_id) == (82, "ofc#127")
    assert p.reason == "line 82: seats[0]: not valid Unicode: '\\ud800'"
    data = edit_event(sample_lines(), 78, seat="\ud800")
    _, _, _, problems = read(data)
    (p,) = problems
    assert (p.line, p.reason) == (1, "line 78: ev.seat: not valid Unicode: '\\ud800'")


def test_bom_and_crlf() -> None:
    """A byte-order mark and Windows line ends change offsets, not records."""
    data = b"\xef\xbb\xbf" + sample().replace(b"\n", b"\r\n")
    records, lines, offsets, problems = read(data)
    assert problems == []
    assert records == read(sample())[0]
    assert lines == HEADER_LINES
    assert offsets[0] == 0
    assert data[offsets[1] :].startswith(b'{"hand":127,"seats"')


def test_invalid_utf8_line() -> None:
    data = with_line(sample_lines(), 30, b'{"hand":3,"ev":"\xff"}')
    _, _, _, problems = read(data)
    (p,) = problems
    assert (p.line, p.reason) == (1, "line 30: not UTF-8 text (byte 16)")
    assert p.raw == '{"hand":3,"ev":"\ufffd"}'


def test_empty_and_blank_input() -> None:
    for data in (b"", b"\n\n  \n"):
        records, _, _, problems = read(data)
        assert records == problems == []


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_damaged_copies_never_raise_and_account_for_every_hand(data: st.DataObject) -> None:
    """Drop, repeat or garble random lines: every header is still one record or one Problem."""
    lines = sample_lines()
    for _ in range(data.draw(st.integers(1, 4))):
        i = data.draw(st.integers(0, len(lines) - 1))
        action = data.draw(st.sampled_from(["drop", "repeat", "garble", "cut"]))
        if action == "drop":
            del lines[i]
        elif action == "repeat":
            lines.insert(i, lines[i])
        elif action == "garble":
            lines[i] = data.draw(st.binary(max_size=80)).replace(b"\n", b"") + b"\n"
        else:
            lines[i] = lines[i][: data.draw(st.integers(0, len(lines[i])))]
    blob = b"".join(lines)
    _, rec_lines, _, problems = read(blob)
    assert_accounted(blob, rec_lines, problems)


# ---------------------------------------------------------------- Pineapple, made up in the engine's format


def pineapple_log(number: int, fantasyland: int | None = None, names: tuple[str, ...] = ("a", "b")) -> bytes:
    """One hand as the engine logs it. Seat 0 plays a ``fantasyland``-card Fantasyland when one is given.

    Rows fill bottom first, then middle, then top.
    """
    deck = iter(r + s for r in "23456789TJQKA" for s in "cdhs")
    sizes = {"bottom": 5, "middle": 5, "top": 3}
    n = len(names)
    order = [*range(1, n), 0]
    boards: list[dict[str, list[str]]] = [{"top": [], "middle": [], "bottom": []} for _ in range(n)]
    out: list[dict] = [{"hand": number, "seats": list(names)}]

    def turn(seat: int, count: int, keep: int) -> None:
        cards = [next(deck) for _ in range(count)]
        out.append({"hand": number, "ev": {"event": "deal", "seat": seat, "cards": cards, "count": count}})
        placements = []
        for card in cards[:keep]:
            row = next(r for r in sizes if len(boards[seat][r]) < sizes[r])
            boards[seat][row].append(card)
            placements.append({"card": card, "row": row})
        ev = {"event": "place", "seat": seat, "placements": placements, "discarded": cards[keep:]}
        out.append({"hand": number, "ev": {**ev, "count": count - keep}})

    if fantasyland:
        out.append({"hand": number, "ev": {"event": "fantasyland", "seat": 0, "cards": fantasyland}})
    for seat in order:
        turn(seat, fantasyland if fantasyland and seat == 0 else 5, 13 if fantasyland and seat == 0 else 5)
    for _ in range(4):
        for seat in order:
            if not (fantasyland and seat == 0):
                turn(seat, 3, 2)
    out.extend({"hand": number, "ev": {"event": "showdown", "seat": s, **boards[s], "fouled": False}} for s in order)
    for seat in order:
        points = -(n - 1) if seat == 0 else 1
        out.append({"hand": number, "ev": {"event": "score", "seat": seat, "points": points}})
    return b"".join(json.dumps(x, separators=(",", ":")).encode() + b"\n" for x in out)


@pytest.mark.parametrize(
    ("fantasyland", "variant"),
    [(None, "pineapple"), (14, "pineapple"), (15, "progressive-pineapple"), (17, "progressive-pineapple")],
)
def test_pineapple_variants(fantasyland: int | None, variant: str) -> None:
    data = pineapple_log(5, fantasyland, ("a", "b", "c")) + pineapple_log(6, None, ("a", "b", "c"))
    records, _, _, problems = read(data, "arena/pine.jsonl")
    assert problems == []
    assert records == from_events(data, "pine", {5: variant, 6: "pineapple"})
    for record in records:
        HandRecord.model_validate(record)
        for p in record["players"]:
            in_fantasyland = fantasyland is not None and record["hand_number"] == 5 and p["seat"] == 0
            assert p["fantasyland"] is in_fantasyland
            assert p["fantasyland_cards"] == (fantasyland if in_fantasyland else None)
            streets = [x["street"] for x in p["placements"]]
            if in_fantasyland:
                assert len(p["discards"]) == fantasyland - 13
                assert streets == [1] * fantasyland
            else:
                assert len(p["discards"]) == 4
                assert streets == [1] * 5 + [s for s in (2, 3, 4, 5) for _ in range(3)]
                assert [x["row"] for x in p["placements"]][5:8] == ["middle", "middle", "discard"]
            assert [x["card"] for x in p["placements"] if x["row"] == "discard"] == p["discards"]


def test_mixed_deal_sizes_are_a_problem() -> None:
    lines = pineapple_log(5).splitlines(keepends=True)
    # turn the first 3-card street of seat 1 into a 1-card street: deal one, place it
    obj = json.loads(lines[5])
    assert (obj["ev"]["event"], obj["ev"]["count"]) == ("deal", 3)
    card = obj["ev"]["cards"][0]
    deal = {"hand": 5, "ev": {"event": "deal", "seat": 1, "cards": [card], "count": 1}}
    place = {"hand": 5, "ev": {"event": "place", "seat": 1, "placements": [{"card": card, "row": "bottom"}]}}
    place["ev"] |= {"discarded": [], "count": 0}
    rest = [json.dumps(x).encode() + b"\n" for x in (deal, place)]
    data = b"".join(lines[:5] + rest + lines[7:])
    _, _, _, problems = read(data)
    (p,) = problems
    assert p.reason == "deal.count: both 1-card and 3-card streets in one hand"
