"""The fpdb-3 reader on its fixtures (an OFCHand, a capture envelope, a database) and on broken copies of them.

The fixtures' points are the project's presets' own, so a record that carries them must also score them. Every
hand read is a record or exactly one Problem, and a bad hand never stops the others.
"""

from __future__ import annotations

import copy
import io
import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from ofc.pipeline.ingest import formats, fpdb, ingest_run
from ofc.pipeline.ingest.base import RAW_LIMIT, Problem
from ofc.pipeline.ingest.fpdb import CARD_NAMES, INGESTER
from ofc.pipeline.ingest.validate import validate
from ofc.pipeline.rules.files import load_rules
from ofc.pipeline.rules.native import VARIANT_PRESETS
from ofc.pipeline.score.output import score_records
from ofc.schemas.hand import HandRecord
from tests.helpers_records import placed, player_record

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "tests" / "data" / "fpdb"
OFCHAND = ROOT / "data" / "samples" / "fpdb" / "ofchand_48213377.json"
ENVELOPE = DATA / "hand_48213402.json"
SAMPLES = ROOT / "data" / "samples"
ROWS = ("top", "middle", "bottom")


def read(data: bytes, source: str = "captures/x.json") -> tuple[list[dict], list[int], list[Problem], list]:
    """Records, their lines, the problems and the chunks of a whole stream."""
    chunks = list(INGESTER.read(io.BytesIO(data), source))
    assert chunks
    assert sum(c.bytes_read for c in chunks) == len(data)
    records = [r for c in chunks for r in c.records.to_pylist()]
    lines = [int(x) for c in chunks for x in c.lines]
    problems = [p for c in chunks for p in c.problems]
    assert all(len(p.raw) <= RAW_LIMIT for p in problems)
    return records, lines, problems, chunks


def hand() -> dict:
    return json.loads(OFCHAND.read_text())


def envelope() -> dict:
    return json.loads(ENVELOPE.read_text())


def database(*statements: str) -> bytes:
    """fpdb's database built from capture.sql (and any statements after it), as the bytes of its file."""
    connection = sqlite3.connect(":memory:")
    connection.executescript(DATA.joinpath("capture.sql").read_text())
    for statement in statements:
        connection.execute(statement)
    connection.commit()
    data = connection.serialize()
    connection.close()
    return data


def only(data: bytes, source: str = "captures/x.json") -> dict:
    records, _, problems, _ = read(data, source)
    assert problems == []
    (record,) = records
    return record


def problem(data: bytes) -> Problem:
    records, _, problems, _ = read(data)
    assert records == []
    (found,) = problems
    return found


def player(record: dict, name: str) -> dict:
    return next(p for p in record["players"] if p["name"] == name)


def streets(p: dict) -> str:
    """The street of each placement in order, as digits ("" when there are none)."""
    return "".join(str(x["street"]) for x in p["placements"] or [])


def dumps(obj: Any) -> bytes:
    return json.dumps(obj).encode()


# ------------------------------------------------------------------ sniffing


def test_sniff_takes_fpdb_json_and_databases() -> None:
    compact = dumps(hand())
    for head in (
        OFCHAND.read_bytes(),
        ENVELOPE.read_bytes(),
        ENVELOPE.read_bytes()[:2000],  # the start of an envelope longer than the sniffing window
        compact,
        compact + b"\n" + compact + b"\n",
        b"\xef\xbb\xbf" + compact,
        dumps([hand(), hand()]),
        dumps([hand()] * 10)[:65536],  # a list longer than the sniffing window
        dumps([hand()])[:3000],  # a hand longer than the window: its rounds come early
        database()[:65536],
    ):
        assert INGESTER.sniff(head), head[:80]


def test_sniff_leaves_the_other_formats_alone() -> None:
    holdem = {"site": "SealsWithClubs", "hand_id": 1, "game": {"label": "Hold'em", "base": "hold"}, "steps": []}
    for head in (
        SAMPLES.joinpath("worked-examples.jsonl").read_bytes(),
        SAMPLES.joinpath("poker-arena", "ofc.jsonl").read_bytes()[:65536],
        SAMPLES.joinpath("scoresheet", "club-night.csv").read_bytes(),
        dumps(holdem),
        dumps({"hand_id": "h1", "variant": "ofc", "players": []}),
        b"",
        b"[]",
        b"{",
        b"[" * 100_000,
        b"\x00\xff garbage",
        b"SQLite format 2\x00",
    ):
        assert not INGESTER.sniff(head), head[:80]


def test_detection_picks_fpdb_before_canonical_jsonl() -> None:
    """An OFCHand has a hand_id and players, as a canonical record does: fpdb must be tried first."""
    for head in (OFCHAND.read_bytes(), dumps(hand()), ENVELOPE.read_bytes(), database()[:65536]):
        assert formats.sniff(head[: formats.SNIFF_BYTES]) == "fpdb"
    assert formats.sniff(SAMPLES.joinpath("worked-examples.jsonl").read_bytes()) == "jsonl"


# ------------------------------------------------------------------ the fixtures


def test_ofchand_fixture() -> None:
    records, lines, problems, chunks = read(OFCHAND.read_bytes(), "captures/ofchand_48213377.json")
    assert (problems, lines) == ([], [1])
    (record,) = records
    assert chunks[0].guessed == {"variant", "house_rules"}  # "ofcp" is Pineapple, Progressive or a variant
    assert {k: v for k, v in record.items() if k != "players"} == {
        "hand_id": "48213377",
        "source": "fpdb",
        "variant": "pineapple",
        "played_at": "2026-05-02T19:44:10.512Z",
        "site": "SealsWithClubs",
        "table": "90112",
        "session": "ofchand_48213377",
        "hand_number": 48213377,
        "button": None,
        "house_rules": "pineapple",
    }
    alice, bob = record["players"]
    assert alice == player_record(
        "alice",
        2,
        "Qc Qd 3s",
        "4h 5h 6d 7c 8s",
        "9c 9d Kh Ks Kd",
        discards=["2c", "7d", "10c", "As"],
        placements=placed(
            "Qc:top 4h:middle 5h:middle 9c:bottom 9d:bottom | Kh:bottom Ks:bottom 2c:discard"
            " | Qd:top 6d:middle 7d:discard | 7c:middle Kd:bottom 10c:discard | 3s:top 8s:middle As:discard"
        ),
        points=19,
    )
    assert (bob["name"], bob["seat"], bob["points"]) == ("bob", 5, -19)
    assert bob["middle"] == ["10d", "10s", "6c", "6h", "Ac"]
    assert (bob["discards"], streets(bob)) == (["3c", "4d", "8d", "Ad"], "11111" + "222333444555")


def test_envelope_fixture() -> None:
    records, lines, problems, chunks = read(ENVELOPE.read_bytes(), "captures/hand_48213402.json")
    assert (problems, lines) == ([], [1])
    (record,) = records
    assert chunks[0].guessed == {"house_rules"}  # the label "OFC" names the game
    assert (record["hand_id"], record["variant"], record["house_rules"]) == ("48213402", "ofc", "ofc")
    assert (record["table"], record["session"], record["button"]) == ("90113", "hand_48213402", 3)
    assert record["played_at"] == "2026-05-02T19:51:02.377Z"
    assert [(p["name"], p["seat"], p["points"]) for p in record["players"]] == [
        ("carol", 0, 17),
        ("dave", 1, 15),
        ("erin", 3, -32),
    ]
    carol, dave, erin = record["players"]
    assert carol["top"] == ["Jh", "Jd", "4c"]
    assert carol["middle"] == ["10s", "10c", "7d", "7s", "2h"]
    assert erin["middle"] == ["3h", "3d", "10d", "10h", "Jc"]
    assert dave["bottom"] == ["8s", "8h", "8d", "4d", "4h"]
    for p in record["players"]:  # the opponents' cards are hidden until placed, and classic OFC discards none
        assert (streets(p), p["discards"], p["fantasyland"]) == ("1111123456789", [], False)
    assert [x["card"] for x in dave["placements"][5:]] == ["8d", "9h", "6d", "4d", "3c", "4h", "5s", "2s"]


def test_database_read_from_a_stream_not_a_file() -> None:
    data = database()
    records, lines, problems, _ = read(data, "home/fpdb/database/fpdb.db3")
    assert [r["hand_id"] for r in records] == ["48213377", "48213380", "48213390"]
    assert lines == [1, 2, 3]
    assert {r["session"] for r in records} == {"fpdb"}
    (bad,) = problems
    assert (bad.line, bad.hand_id) == (5, "48213391")
    assert bad.reason == (
        "HttpOFCHands id 5 (hand 48213391): HttpOFCPlayers id 7 (carol): points: expected a whole number, got -2.5"
    )
    # The first hand is the JSON fixture's hand, stored as fpdb stores it.
    assert {**records[0], "session": None} == {**only(OFCHAND.read_bytes()), "session": None}
    # Fantasyland: alice's first deal is 14 cards; bob's deals and discards are hidden, so his streets are unknown.
    fantasy = records[1]
    alice, bob = fantasy["players"]
    assert (alice["fantasyland"], alice["fantasyland_cards"], alice["discards"]) == (True, 14, ["6h"])
    assert streets(alice) == "1" * 14
    assert (bob["fantasyland"], bob["placements"], bob["discards"], bob["points"]) == (False, None, [], -17)
    # The hand stored without rawJson: classic OFC, from the player and round rows.
    classic = records[2]
    assert (classic["variant"], classic["table"], classic["played_at"]) == ("ofc", "90114", "2026-05-02T20:02:41.880Z")
    assert [(p["name"], p["seat"], p["points"]) for p in classic["players"]] == [("alice", 2, 2), ("bob", 5, -2)]
    assert player(classic, "bob")["middle"] == ["10s", "10d", "4c", "5d", "6s"]
    assert [streets(p) for p in classic["players"]] == ["1111123456789"] * 2


def test_player_and_round_rows_give_what_rawjson_gives() -> None:
    """fpdb's rows hold what its rawJson holds: read either way, a hand is the same record."""
    with_json, *_ = read(database())
    without, *_ = read(database("UPDATE HttpOFCHands SET rawJson = NULL"))
    assert len(with_json) == 3
    assert without == with_json


def test_unreadable_rawjson_falls_back_to_the_rows() -> None:
    cut = database('UPDATE HttpOFCHands SET rawJson = \'{"hand_id": 48213377, "play\' WHERE id = 1')
    records, _, problems, _ = read(cut)
    assert records == read(database())[0]
    assert [p.line for p in problems] == [5]


def test_a_bad_rawjson_names_its_row() -> None:
    broken = hand()
    broken["players"][1]["top"][2] = {}
    text = json.dumps(broken).replace("'", "''")
    records, _, problems, _ = read(database(f"UPDATE HttpOFCHands SET rawJson = '{text}' WHERE id = 1"))
    assert [r["hand_id"] for r in records] == ["48213380", "48213390"]
    assert [(p.line, p.reason) for p in problems] == [
        (1, "HttpOFCHands id 1 (hand 48213377): rawJson: players[1].top[2]: expected a card, got {}"),
        (5, problems[1].reason),
    ]


@pytest.mark.parametrize(
    ("statement", "reason"),
    [
        (
            "UPDATE HttpOFCPlayers SET seatNo = 16 WHERE id = 5",
            "HttpOFCHands id 3 (hand 48213390): HttpOFCPlayers id 5 (alice): seatNo: expected a seat 0..15, got 16",
        ),
        (
            'UPDATE HttpOFCRounds SET placedJson = \'{"top": ["8h"\' WHERE ofcHandId = 3 AND roundNo = 2',
            "HttpOFCHands id 3 (hand 48213390): HttpOFCRounds id 29: placedJson: not valid JSON:"
            " Expecting ',' delimiter",
        ),
        (
            "UPDATE HttpOFCRounds SET playerName = 'zed' WHERE ofcHandId = 3 AND roundNo = 3",
            "HttpOFCHands id 3 (hand 48213390): HttpOFCRounds id 30: playerName: 'zed' is not a player of this hand",
        ),
        (
            "UPDATE HttpOFCHands SET variant = 'razz' WHERE id = 3",
            "HttpOFCHands id 3 (hand 48213390): HttpOFCHands.variant: unknown game 'razz' (known: ofc, ofcp, ofcp_27)",
        ),
        (
            "UPDATE HttpOFCPlayers SET topCards = X'00' WHERE id = 6",
            "HttpOFCHands id 3 (hand 48213390): HttpOFCPlayers id 6 (bob): topCards: expected a text, got b'\\x00'",
        ),
        (
            "UPDATE HttpOFCPlayers SET points = 'lots' WHERE id = 6",
            "HttpOFCHands id 3 (hand 48213390): HttpOFCPlayers id 6 (bob): points: expected a whole number, got 'lots'",
        ),
    ],
)
def test_bad_rows_name_table_row_and_column(statement: str, reason: str) -> None:
    records, _, problems, _ = read(database(statement))
    assert [r["hand_id"] for r in records] == ["48213377", "48213380"]
    assert [(p.line, p.hand_id, p.reason) for p in problems[:1]] == [(3, "48213390", reason)]
    assert [p.line for p in problems] == [3, 5]


def test_a_database_of_something_else_is_one_problem(tmp_path: Path) -> None:
    path = tmp_path / "other.db"
    with sqlite3.connect(path) as connection:
        connection.executescript("CREATE TABLE Hands (id INTEGER); CREATE TABLE Players (id INTEGER);")
    connection.close()
    found = problem(path.read_bytes())
    assert found.line == 1
    assert (
        found.reason == "not an fpdb-3 database with OFC captures: no HttpOFCHands table (its tables: Hands, Players)"
    )
    assert problem(b"SQLite format 3\x00" + b"\x00" * 200).reason.startswith("not a readable SQLite database: ")


def test_a_database_in_wal_mode(tmp_path: Path) -> None:
    """A database left in WAL mode is read from its main file as an ordinary one (an in-memory copy cannot be in
    WAL mode)."""
    path = tmp_path / "fpdb.db3"
    with sqlite3.connect(path) as connection:
        connection.execute("PRAGMA journal_mode = WAL")
        connection.executescript(f"BEGIN; {DATA.joinpath('capture.sql').read_text()} COMMIT;")
        connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        data = path.read_bytes()
    connection.close()
    assert data[18:20] == b"\x02\x02"
    records, _, problems, _ = read(data)
    assert (len(records), len(problems)) == (3, 1)


def test_database_chunks(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(fpdb, "CHUNK_HANDS", 2)
    copies = [
        f"INSERT INTO HttpOFCHands (id, site, siteHandNo, variant, rawJson) SELECT {10 + k}, site, '{k}', variant, "
        f"replace(rawJson, '48213377', '{k}') FROM HttpOFCHands WHERE id = 1"
        for k in range(3)
    ]
    records, lines, problems, chunks = read(database(*copies))
    assert [c.count for c in chunks] == [2, 2, 2, 1]
    assert lines == [1, 2, 3, 10, 11, 12]
    assert [r["hand_id"] for r in records[3:]] == ["0", "1", "2"]
    assert [p.line for p in problems] == [5]


# ------------------------------------------------------------------ JSON forms


def test_json_lines_with_a_broken_line() -> None:
    second = hand()
    second["hand_id"] = 48213378
    data = dumps(hand()) + b"\n" + b'{"hand_id": 5, "players": [\n' + dumps(second) + b"\n\n"
    records, lines, problems, _ = read(data)
    assert [r["hand_id"] for r in records] == ["48213377", "48213378"]
    assert lines == [1, 3]
    (broken,) = problems
    assert (broken.line, broken.offset) == (2, len(dumps(hand())) + 1)
    assert broken.reason.startswith("not valid JSON: ")


def test_json_lines_whose_first_line_is_broken() -> None:
    data = b"{not json\n" + dumps(hand()) + b"\n"
    records, lines, problems, _ = read(data)
    assert (lines, [p.line for p in problems]) == ([2], [1])
    assert records[0]["hand_id"] == "48213377"


def test_a_json_list_reads_each_hand_at_its_line(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(fpdb, "CHUNK_HANDS", 2)
    hands = []
    for k in range(5):
        h = hand()
        h["hand_id"] = 100 + k
        hands.append(h)
    hands[3]["variant"]["variant"] = "ofcx"
    text = "[\n" + ",\n".join(json.dumps(h, indent=1) for h in hands) + "\n]\n"
    data = text.encode()
    records, lines, problems, chunks = read(data)
    starts = [i + 1 for i, line in enumerate(text.split("\n")) if line == "{"]
    assert [c.count for c in chunks] == [2, 2, 1]
    assert [r["hand_id"] for r in records] == ["100", "101", "102", "104"]
    assert lines == [starts[k] for k in (0, 1, 2, 4)]
    (bad,) = problems
    assert (bad.line, bad.hand_id, bad.offset) == (starts[3], "103", data.index(b"\n{", data.index(b"102")) + 1)
    assert bad.reason == "variant.variant: unknown game 'ofcx' (known: ofc, ofcp, ofcp_27)"
    assert bad.raw.startswith('{\n "hand_id": 103')


def test_invalid_and_empty_documents() -> None:
    broken = OFCHAND.read_bytes()[:-40]
    found = problem(broken)
    assert (found.line, found.reason.startswith("not valid JSON: ")) == (1, True)
    assert problem(b"\xff\xfe{}").reason.startswith("not UTF-8 text")
    assert problem(b"42").reason == "expected a JSON object, got 42"
    for empty in (b"", b"\n  \n"):
        records, _, problems, chunks = read(empty)
        assert (records, problems, len(chunks)) == ([], [], 1)


def test_card_ids_are_spelled_as_fpdb_spells_them() -> None:
    """Card ids 0..51 (rank * 4 + suit, deuce first) read as the strings fpdb writes for them."""
    assert (CARD_NAMES[0], CARD_NAMES[3], CARD_NAMES[4], CARD_NAMES[34], CARD_NAMES[51]) == (
        "2c",
        "2s",
        "3c",
        "10h",
        "As",
    )
    ids = hand()
    code = CARD_NAMES.index
    for p in ids["players"]:
        for row in ROWS:
            p[row] = [code(c) for c in p[row]]
    for rnd in ids["rounds"]:
        rnd["dealt"] = [code(c) for c in rnd["dealt"]]
        rnd["discarded"] = [code(c) for c in rnd["discarded"]]
        rnd["placed"] = {row: [code(c) for c in cards] for row, cards in rnd["placed"].items()}
    assert only(dumps(ids)) == only(dumps(hand()))


def test_empty_slots_are_dropped() -> None:
    padded = hand()
    for p in padded["players"]:
        for row, size in zip(ROWS, (3, 5, 5), strict=True):
            p[row] = ["--", *p[row], "--", ""][: size + 3]
    padded["rounds"][0]["dealt"].append("--")
    assert only(dumps(padded)) == only(dumps(hand()))


def test_fantasyland_from_a_first_deal_of_fourteen() -> None:
    fantasy = hand()
    alice = fantasy["players"][0]
    cards = [c for row in ROWS for c in alice[row]]
    fantasy["rounds"] = [r for r in fantasy["rounds"] if r["player"] != "alice"] + [
        {"player": "alice", "dealt": [*cards, "Ah"], "placed": {}, "discarded": []},
        {"player": "alice", "dealt": [], "placed": {row: alice[row] for row in ROWS}, "discarded": ["Ah"]},
    ]
    record = only(dumps(fantasy))
    alice = record["players"][0]
    assert (alice["fantasyland"], alice["fantasyland_cards"], alice["discards"]) == (True, 14, ["Ah"])
    assert streets(alice) == "1" * 14
    assert alice["placements"][-1] == {"street": 1, "card": "Ah", "row": "discard"}
    assert streets(record["players"][1]) == "11111" + "222333444555"
    assert validate(next(INGESTER.read(io.BytesIO(dumps(fantasy)), "x.json")), "x.json", "b").problems == []


def test_incomplete_rounds_leave_the_player_without_placements() -> None:
    """fpdb keeps a capture that missed snapshots: the final rows still make the record, the streets do not."""
    partial = hand()
    partial["rounds"] = [r for r in partial["rounds"] if not (r["player"] == "bob" and r["placed"].get("top"))]
    alice, bob = only(dumps(partial))["players"]
    assert (bob["placements"], bob["discards"], bob["top"]) == (None, [], ["2d", "5c", "Js"])
    assert streets(alice) == "11111" + "222333444555"


def test_two_streets_in_one_round_leave_the_player_without_placements() -> None:
    merged = hand()
    kept = [r for r in merged["rounds"] if r["player"] == "alice" and (r["placed"] or r["discarded"])]
    first, second = kept[1], kept[2]  # streets 2 and 3, seen as one change
    for row, cards in second["placed"].items():
        first["placed"].setdefault(row, []).extend(cards)
    first["discarded"] += second["discarded"]
    merged["rounds"].remove(second)
    alice, bob = only(dumps(merged))["players"]
    assert (alice["placements"], alice["discards"]) == (None, [])
    assert bob["placements"] is not None


def test_points() -> None:
    """Settled points as numbers or fpdb's decimal text; none settled: unknown, whatever players[].points says."""
    text = hand()
    text["result"]["points_settled"] = {"alice": "19.00", "bob": -19.0}
    assert [p["points"] for p in only(dumps(text))["players"]] == [19, -19]
    unsettled = hand()
    unsettled["result"]["points_settled"] = {"alice": 19}
    assert [p["points"] for p in only(dumps(unsettled))["players"]] == [19, None]
    del unsettled["result"]
    assert [p["points"] for p in only(dumps(unsettled))["players"]] == [None, None]


def test_a_player_who_sat_out_is_left_out() -> None:
    table = hand()
    table["players"].append({"name": "zoe", "seat_idx": 7, "top": [], "middle": [], "bottom": [], "points": "0"})
    table["result"]["points_settled"]["zoe"] = 0
    assert [p["name"] for p in only(dumps(table))["players"]] == ["alice", "bob"]


@pytest.mark.parametrize(
    ("change", "reason"),
    [
        (lambda h: h.update(players={}), "players: expected a list of players, got {}"),
        (
            lambda h: h.update(players=h["players"][:1], rounds=[r for r in h["rounds"] if r["player"] == "alice"]),
            "players: a hand needs 2 players with cards, got 1 of 1 (an unfinished capture?)",
        ),
        (lambda h: h["players"][1]["top"].__setitem__(2, {}), "players[1].top[2]: expected a card, got {}"),
        (lambda h: h["players"][1]["top"].__setitem__(0, 52), "players[1].top[0]: expected a card, got 52"),
        (lambda h: h["players"][0].update(bottom="9c 9d"), "players[0].bottom: expected a list of cards, got '9c 9d'"),
        (lambda h: h["players"][1].update(name=""), "players[1].name: expected a name, got ''"),
        (
            lambda h: h["players"][1].update(name="alice"),
            "players[1].name: 'alice' appears twice (rounds and points are by name)",
        ),
        (lambda h: h["players"][1].update(seat_idx=16), "players[1].seat_idx: expected a seat 0..15, got 16"),
        (
            lambda h: h["variant"].update(variant="ofcx"),
            "variant.variant: unknown game 'ofcx' (known: ofc, ofcp, ofcp_27)",
        ),
        (lambda h: h["variant"].update(family="hold"), "variant.family: 'hold' is not OFC"),
        (lambda h: h.update(variant="ofcp"), "variant: expected an object naming the game, got 'ofcp'"),
        (lambda h: h.update(hand_id=None), "hand_id: expected a number or a text, got None"),
        (lambda h: h.update(timestamp=1746215050), "timestamp: expected a text, got 1746215050"),
        (
            lambda h: h["result"]["points_settled"].update(bob="-9.5"),
            "result.points_settled.bob: expected a whole number, got '-9.5'",
        ),
        (
            lambda h: h["result"]["points_settled"].update(bob=True),
            "result.points_settled.bob: expected a whole number, got True",
        ),
        (
            lambda h: h["result"]["points_settled"].update(bob=2**63),
            f"result.points_settled.bob: {2**63} is out of range",
        ),
        (lambda h: h["rounds"][3].update(player="zed"), "rounds[3].player: 'zed' is not a player of this hand"),
        (lambda h: h["rounds"][3].update(placed={"front": ["Qc"]}), "rounds[3].placed: unknown row 'front'"),
        (lambda h: h["rounds"][3].update(discarded="2c"), "rounds[3].discarded: expected a list of cards, got '2c'"),
        (lambda h: h.update(site="Seals\ud800"), "site: not valid Unicode"),
    ],
)
def test_structural_faults_are_one_problem_naming_the_field(change: Any, reason: str) -> None:
    bad = hand()
    change(bad)
    found = problem(json.dumps(bad).encode())
    assert (found.line, found.reason) == (1, reason)
    assert found.raw.startswith('{"hand_id": ')
    assert len(found.raw) == RAW_LIMIT
    found.raw.encode("utf-8")


def test_envelope_rows_come_from_the_last_snapshot_with_cards() -> None:
    env = envelope()
    last = copy.deepcopy(env["steps"][-1])
    last["step_num"] += 1
    last["placed"]["erin"].update(top=["--"] * 3, middle=["--"] * 5, bottom=["--"] * 5)  # a snapshot fpdb misread
    env["steps"].append(last)
    assert only(dumps(env)) == only(ENVELOPE.read_bytes())


def test_envelope_without_ofc_fields_falls_back_as_fpdb_does() -> None:
    env = envelope()
    for key in ("ofc_variant", "ofc_rounds", "ofc_result"):
        del env[key]
    record = only(dumps(env))
    assert record["variant"] == "ofc"
    assert [(p["points"], p["placements"]) for p in record["players"]] == [(17, None), (15, None), (-32, None)]


@pytest.mark.parametrize(
    ("label", "category", "variant", "guessed"),
    [
        ("OFC/P Progressive", "ofcp", "progressive-pineapple", {"house_rules"}),
        ("OFC/P 2-7", "ofcp_27", "pineapple-27", {"house_rules"}),
        ("OFC/P", "ofcp", "pineapple", {"variant", "house_rules"}),
        ("OFC/P Variant", "ofcp", "pineapple", {"variant", "house_rules"}),
        ("Turbo OFC", "ofc", "ofc", {"house_rules"}),
        ("OFC Variant", "ofc", "ofc", {"variant", "house_rules"}),
        ("Poker (Type 78)", "ofc", "ofc", {"variant", "house_rules"}),
        ("Poker (Type 75)", "ofcp", "progressive-pineapple", {"house_rules"}),
        (74, "ofcp", "pineapple", {"house_rules"}),  # a capture that keeps Seals with Clubs' code (gt)
        (73, "ofc", "ofc", {"house_rules"}),
        (76, "ofcp_27", "pineapple-27", {"house_rules"}),
    ],
)
def test_envelope_labels_name_the_game(label: str | int, category: str, variant: str, guessed: set[str]) -> None:
    env = envelope()
    if isinstance(label, int):
        env["gt"] = label
    else:
        env["game"]["label"] = label
    env["ofc_variant"]["variant"] = category
    if variant != "ofc":  # Pineapple seats three, and deals otherwise: only the label is under test here
        env["players"] = env["players"][:2]
        env["ofc_rounds"] = [r for r in env["ofc_rounds"] if r["player"] != "erin"]
    records, _, problems, chunks = read(dumps(env))
    assert problems == []
    assert (records[0]["variant"], records[0]["house_rules"], chunks[0].guessed) == (variant, variant, guessed)


def test_envelope_label_and_category_must_agree() -> None:
    env = envelope()
    env["game"]["label"] = "OFC/P 2-7"
    assert problem(dumps(env)).reason == "game.label: 'OFC/P 2-7' is an ofcp_27 game, but ofc_variant.variant is 'ofc'"
    env["game"].update(label="Hold'em", base="hold")
    assert problem(dumps(env)).reason == "game.base: 'hold' is not an OFC game"


def test_button_is_the_dealer_when_a_player_sits_there() -> None:
    env = envelope()
    env["dealer_idx"] = 2  # an empty seat
    assert only(dumps(env))["button"] is None
    env["dealer_idx"] = -1  # fpdb's default
    assert only(dumps(env))["button"] is None


def test_house_rules_are_each_variants_preset() -> None:
    assert all(
        fpdb.HOUSE_RULES[v.value] == preset for v, preset in VARIANT_PRESETS.items() if v.value in fpdb.HOUSE_RULES
    )
    assert {v for v, _ in fpdb.CATEGORIES.values()} | {v for _, v, _ in fpdb.LABELS.values()} == set(fpdb.HOUSE_RULES)


# ------------------------------------------------------------------ what the rest of the pipeline makes of them


def good_chunks() -> list:
    sources = [(OFCHAND.read_bytes(), "a.json"), (ENVELOPE.read_bytes(), "b.json"), (database(), "c.db3")]
    return [chunk for data, name in sources for chunk in INGESTER.read(io.BytesIO(data), name)]


def test_records_pass_the_common_validation() -> None:
    chunks = good_chunks()
    records = [r for c in chunks for r in c.records.to_pylist()]
    assert len(records) == 5
    for record in records:
        HandRecord.model_validate(record)
    checked = [validate(c, "x", "batch") for c in chunks]
    assert [p for v in checked for p in v.problems] == []
    assert sum(v.hands.num_rows for v in checked) == 5
    assert sum(v.placements.num_rows for v in checked) == 17 * 2 + 13 * 3 + (17 * 2 + 14 + 13 * 2)


def test_recorded_points_are_the_presets() -> None:
    """The fixtures' points are what their variant's preset scores: a reader that mixed up players, rows or
    points would not reproduce them."""
    records = [r for c in good_chunks() for r in c.records.to_pylist()]
    assert len(records) == 5  # the OFCHand, the envelope and the database's three good hands
    for record in records:
        scored = score_records([record], load_rules(record["house_rules"]))[0]["points"]
        assert scored == {p["name"]: p["points"] for p in record["players"]}, record["hand_id"]


def test_ingest_validates_captures_end_to_end(tmp_path: Path) -> None:
    """Through ``ofc validate``'s path: the database's first hand is the JSON file's, read before it (a duplicate)."""
    db = tmp_path / "fpdb.db3"
    db.write_bytes(database())
    for fmt in ("fpdb", None):  # named, and recognised from the first bytes
        report = ingest_run.ingest([OFCHAND, ENVELOPE, db], None, fmt=fmt)
        assert [(f.format, f.read, f.accepted, f.quarantined, f.duplicates) for f in report.files] == [
            ("fpdb", 1, 1, 0, 0),
            ("fpdb", 1, 1, 0, 0),
            ("fpdb", 4, 2, 1, 1),
        ]


def test_a_database_problem_is_counted_by_its_reason_not_its_place() -> None:
    reason = "HttpOFCHands id 5 (hand 48213391): HttpOFCPlayers id 7 (carol): points: expected a whole number"
    assert ingest_run.reason_kind(reason) == "expected a whole number"


def test_a_hand_row_without_a_usable_id_is_one_problem_at_its_place() -> None:
    records, _, problems, _ = read(database("UPDATE HttpOFCHands SET id = -3 WHERE id = 3"), "club/fpdb.db3")
    assert len(records) == 2
    assert {r["session"] for r in records} == {"fpdb"}  # the file's name without its ending
    assert (problems[0].line, problems[0].reason) == (
        1,
        "HttpOFCHands row 1: id: expected a whole number from 1, got -3",
    )
    assert all(p.line >= 1 for p in problems)
