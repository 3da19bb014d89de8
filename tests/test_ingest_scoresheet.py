"""The scoresheet ingester: home-game CSV sheets, one row per player per hand."""

from __future__ import annotations

import csv
import io
import json
import re
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ofc.pipeline.ingest import scoresheet
from ofc.pipeline.ingest.base import RAW_LIMIT, Chunk, Problem
from ofc.pipeline.ingest.scoresheet import INGESTER
from ofc.schemas.hand import HandRecord
from tests.helpers_records import player_record

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "data" / "samples" / "scoresheet" / "club-night.csv"
JSONL = ROOT / "data" / "samples" / "worked-examples.jsonl"

# Four boards with distinct cards, rows of 3/5/5 (the first three are hand 1 of the sample).
BOARDS = [
    ("Qh Qd 4c", "8s 8h 8c Kd 3h", "5s 6s 7s 9s Js"),
    ("6h 6d 2c", "7h 8d 9d Th Jc", "Ah Ad Ac 5c 5d"),
    ("Kc 9c 2d", "Ts Tc 4d 4h 2h", "Jd Jh Qc 3c 3d"),
    ("Kh Ks 3s", "7c 7d 9h 9s 4s", "Td Th Jc Js 2s"),
]
NAMES = ["Ann", "Bo", "Carla", "Dev"]


def read(data: bytes | str, source: str = "sheet.csv") -> tuple[list[dict], list[Problem], list[Chunk]]:
    """All records (as dicts) and problems of a sheet, and its chunks."""
    raw = data.encode() if isinstance(data, str) else data
    chunks = list(INGESTER.read(io.BytesIO(raw), source))
    records = [r for c in chunks for r in c.records.to_pylist()]
    problems = [p for c in chunks for p in c.problems]
    assert sum(c.bytes_read for c in chunks) == len(raw)
    return records, problems, chunks


def rows(hand: str, n: int = 3, *extra: str, delimiter: str = ",") -> list[str]:
    """``n`` rows of one hand in the minimal column order hand, player, top, middle, bottom[, extra...]."""
    return [delimiter.join([hand, NAMES[i], *BOARDS[i], *extra]) for i in range(n)]


def sheet(*lines: str | list[str], header: str = "hand,player,top,middle,bottom") -> str:
    flat: list[str] = [header]
    for item in lines:
        flat.extend([item] if isinstance(item, str) else item)
    return "\n".join(flat) + "\n"


def validated(records: list[dict]) -> list[HandRecord]:
    return [HandRecord.model_validate(r) for r in records]


def hand(hand_id: str, players: list[dict], **changes: object) -> dict:
    """A hand's whole record as the reader writes it, with the defaults of a sheet without optional columns."""
    return {
        "hand_id": hand_id,
        "source": "scoresheet",
        "variant": "ofc",
        "played_at": None,
        "site": None,
        "table": None,
        "session": "sheet",
        "hand_number": int(hand_id) if hand_id.isdigit() else None,
        "button": None,
        "house_rules": None,
        "players": players,
        **changes,
    }


def hand_7_rows(template: str) -> list[str]:
    """Hand 7, where Ann wins 1 point from Bo, as two rows in a club's own column order: ``template`` places the
    fields ``{top}``, ``{middle}``, ``{bottom}``, ``{name}`` and ``{points}``."""
    return [
        template.format(top=top, middle=middle, bottom=bottom, name=name, points=points)
        for (top, middle, bottom), name, points in zip(BOARDS, NAMES, ["1", "-1"], strict=False)
    ]


def hand_7_records() -> list[dict]:
    """The records hand 7's rows are read as, whatever the order and names of their columns."""
    return [hand("7", [player_record("Ann", 0, *BOARDS[0], points=1), player_record("Bo", 1, *BOARDS[1], points=-1)])]


def assert_read_as_hand_7(text: str) -> None:
    """The sheet ``text`` is read without a problem as hand 7, Ann against Bo."""
    records, problems, _ = read(text)
    assert problems == []
    assert records == hand_7_records()


def sample_records() -> list[dict]:
    """The sample's records built straight from its rows with the csv module."""
    hands: dict[str, dict] = {}
    with SAMPLE.open(newline="", encoding="utf-8") as fh:
        for row in csv.DictReader(fh):
            at = f"{row['date'].replace(' ', 'T')}:00+00:00"
            record = hands.setdefault(row["hand"], hand(row["hand"], [], played_at=at, session="club-night 2024-11-08"))
            cards = (row["top"], row["middle"], row["bottom"])
            fantasyland = {"yes": True, "no": False}[row["fantasyland"]]
            seat, points = int(row["seat"]), int(row["points"])
            record["players"].append(player_record(row["player"], seat, *cards, fantasyland=fantasyland, points=points))
    return list(hands.values())


# --- the sample ---------------------------------------------------------------------------------------------------


def test_sample_reads_into_valid_records() -> None:
    data = SAMPLE.read_bytes()
    records, problems, chunks = read(data, str(SAMPLE))
    assert problems == []
    assert len(chunks) == 1
    assert records == sample_records()
    # Hand 2 in full: Ann plays Fantasyland, Bo fouls (a flush middle over a straight bottom).
    assert records[1] == {
        "hand_id": "2",
        "source": "scoresheet",
        "variant": "ofc",
        "played_at": "2024-11-08T19:55:00+00:00",
        "site": None,
        "table": None,
        "session": "club-night 2024-11-08",  # the file and the night it records
        "hand_number": 2,
        "button": None,
        "house_rules": None,
        "players": [
            player_record("Ann", 0, "8c 8d 3s", "6c 6d 6h Jd Js", "Ts Tc Th Td 2h", fantasyland=True, points=54),
            player_record("Bo", 1, "Ac Kd 5h", "2c 3c 7c 9c Qc", "4h 5d 6s 7h 8h", points=-45),
            player_record("Carla", 2, "7d 7s 4d", "Ah As 9h 9d 3h", "Kh Kc Ks 5c 5s", points=-9),
        ],
    }
    hands = validated(records)
    assert [len(h.players) for h in hands] == [3, 3, 4, 4, 3, 4]
    assert hands[0].played_at == datetime(2024, 11, 8, 19, 42, tzinfo=UTC)
    assert chunks[0].lines.tolist() == [2, 5, 8, 12, 16, 19]
    for offset, h in zip(chunks[0].offsets.tolist(), hands, strict=True):
        assert data.startswith(f"2024-11-08 {h.played_at:%H:%M},{h.hand_id},".encode(), offset)
    for h in hands:
        assert sum(p.points for p in h.players) == 0
        cards = [c for p in h.players for c in (*p.top, *p.middle, *p.bottom)]
        assert len(set(cards)) == len(cards) == 13 * len(h.players)


def test_sample_points_agree_with_the_scorer() -> None:
    """The points written on the sample were worked out by hand; the engine must agree (and find the one foul)."""
    from ofc.pipeline.rules.files import load_rules
    from ofc.pipeline.score.output import score_records

    records, _, _ = read(SAMPLE.read_bytes(), str(SAMPLE))
    results = score_records(records, load_rules("ofc"))
    for rec, result in zip(records, results, strict=True):
        assert result["points"] == {p["name"]: p["points"] for p in rec["players"]}
    fouls = [(r["hand_id"], name) for r in results for name, b in r["boards"].items() if b["fouled"]]
    assert fouls == [("2", "Bo")]


# --- delimiters, encodings, columns -------------------------------------------------------------------------------


@pytest.mark.parametrize("delimiter", [",", ";", "\t"])
def test_delimiters(delimiter: str) -> None:
    header = delimiter.join(["hand", "player", "top", "middle", "bottom", "points"])
    text = sheet(
        rows("1", 2, "3", delimiter=delimiter)[0],
        rows("1", 2, "-3", delimiter=delimiter)[1],
        rows("2", 3, "", delimiter=delimiter),
        header=header,
    )
    records, problems, _ = read(text)
    assert problems == []
    assert records == [
        hand("1", [player_record(NAMES[i], i, *BOARDS[i], points=points) for i, points in enumerate([3, -3])]),
        hand("2", [player_record(NAMES[i], i, *BOARDS[i]) for i in range(3)]),
    ]


def test_cards_may_be_separated_by_commas_in_a_quoted_field() -> None:
    text = sheet('1,Ann,"Qh,Qd,4c","8s, 8h, 8c, Kd, 3h",5s 6s 7s 9s Js', rows("1", 2)[1])
    records, problems, _ = read(text)
    assert problems == []
    ann = validated(records)[0].players[0]
    assert ann.top == ["Qh", "Qd", "4c"]
    assert ann.middle == ["8s", "8h", "8c", "Kd", "3h"]


def test_semicolon_sheet_with_comma_separated_cards() -> None:
    text = sheet(
        "1;Ann;Qh,Qd,4c;8s,8h,8c,Kd,3h;5s,6s,7s,9s,Js",
        rows("1", 2, delimiter=";")[1],
        header="hand;player;top;middle;bottom",
    )
    records, problems, _ = read(text)
    assert problems == []
    assert validated(records)[0].players[0].bottom == ["5s", "6s", "7s", "9s", "Js"]


def test_card_tokens_are_split_faithfully_not_judged() -> None:
    """Row sizes and spellings are the validation step's business: the tokens come through as written."""
    text = sheet("1,Ann,Qh Qd,10d  A♠ Xx 3h 2h 2c,", rows("1", 2)[1])
    records, problems, _ = read(text)
    assert problems == []
    ann = records[0]["players"][0]
    assert (ann["top"], ann["middle"], ann["bottom"]) == (["Qh", "Qd"], ["10d", "A♠", "Xx", "3h", "2h", "2c"], [])


def test_bom_is_skipped_and_offsets_count_it() -> None:
    text = sheet(rows("1", 2))
    records, problems, chunks = read(b"\xef\xbb\xbf" + text.encode())
    assert problems == []
    assert [h.hand_id for h in validated(records)] == ["1"]
    assert chunks[0].offsets.tolist() == [3 + len("hand,player,top,middle,bottom\n")]
    assert INGESTER.sniff(b"\xef\xbb\xbf" + text.encode())


def test_latin1_and_mixed_encodings_keep_names() -> None:
    header = b"hand,player,top,middle,bottom\n"
    zoe_latin1 = "1,Zoë,{},{},{}\n".format(*BOARDS[0]).encode("latin-1")
    jose_utf8 = "1,José,{},{},{}\n".format(*BOARDS[1]).encode("utf-8")
    records, problems, _ = read(header + zoe_latin1 + jose_utf8)
    assert problems == []
    assert [p.name for p in validated(records)[0].players] == ["Zoë", "José"]


def test_column_order_and_case_are_free_and_unknown_columns_ignored() -> None:
    header = "Bottom;NOTES;Middle;Points;TOP;Player;HAND"
    assert_read_as_hand_7(sheet(hand_7_rows("{bottom};good;{middle};{points};{top};{name};7"), header=header))


def test_other_names_clubs_give_the_columns() -> None:
    # "Hand #", "Name", "Front", "Mid", "Back", "Score", "FL": the same records as the canonical header gives.
    header = "Hand #;Name;Front;Mid;Back;Score;FL"
    body = hand_7_rows("7;{name};{top};{middle};{bottom};{points};no")
    assert_read_as_hand_7(sheet(body, header=header))
    # A bad cell is named as the header names its column.
    body[0] = body[0].replace(";1;", ";one;")
    _, problems, _ = read(sheet(body, header=header))
    assert [said(p) for p in problems] == [["s.csv:2 (hand 7, Ann), column Score: not an integer: 'one'"]]


@pytest.mark.parametrize(
    ("label", "column"),
    [
        ("hand_no", "hand"),
        ("Hand-Number", "hand"),
        ("Player Name", "player"),
        ("BACK ROW", "bottom"),
        ("center", "middle"),
        ("net points", "points"),
        ("Fantasy Land", "fantasyland"),
        ("seat.no", "seat"),
        ("Played At", "date"),
        ("game type", "variant"),
        ("House Rules", "rules"),
        ("total", "total"),  # a running total is not a hand's points
        ("notes", "notes"),
    ],
)
def test_column_names(label: str, column: str) -> None:
    assert scoresheet.column_name(label) == column


def test_optional_columns_absent() -> None:
    records, problems, _ = read(sheet(rows("A-17", 4)), source="/home/club/night.2024-11.csv.gz")
    assert problems == []
    assert records == [
        {
            "hand_id": "A-17",
            "source": "scoresheet",
            "variant": "ofc",
            "played_at": None,
            "site": None,
            "table": None,
            "session": "night",
            "hand_number": None,
            "button": None,
            "house_rules": None,
            "players": [player_record(NAMES[i], i, *BOARDS[i]) for i in range(4)],
        }
    ]


def test_optional_hand_columns_present() -> None:
    header = "hand,player,top,middle,bottom,date,variant,rules,session,table,site,button,seat,fantasyland"
    first = rows(
        "12", 2, "2024-11-08T21:05+01:00", "Pineapple", "house: jokers wild", "fri", "T1", "club", "3", "3", "Y"
    )
    second = rows("12", 2, "", "pineapple", "", "", "", "", "", "5", "n")
    third = rows("13", 2, "2024-11-09", "progressive_pineapple", "", "", "", "", "", "", "")
    records, problems, _ = read(sheet(first[0], second[1], third, header=header))
    assert problems == []
    assert records == [
        {
            "hand_id": "12",
            "source": "scoresheet",
            "variant": "pineapple",
            "played_at": "2024-11-08T21:05:00+01:00",
            "site": "club",
            "table": "T1",
            "session": "fri",
            "hand_number": 12,
            "button": 3,
            "house_rules": "house: jokers wild",
            "players": [player_record("Ann", 3, *BOARDS[0], fantasyland=True), player_record("Bo", 5, *BOARDS[1])],
        },
        {
            "hand_id": "13",
            "source": "scoresheet",
            "variant": "progressive-pineapple",
            "played_at": "2024-11-09T00:00:00+00:00",
            "site": None,
            "table": None,
            "session": "sheet 2024-11-08",  # the file and the day of its first dated hand
            "hand_number": 13,
            "button": None,
            "house_rules": None,
            "players": [player_record("Ann", 0, *BOARDS[0]), player_record("Bo", 1, *BOARDS[1])],
        },
    ]
    h12, h13 = validated(records)
    assert h12.played_at == datetime(2024, 11, 8, 21, 5, tzinfo=timezone(timedelta(hours=1)))
    assert h13.played_at == datetime(2024, 11, 9, tzinfo=UTC)


def test_blank_lines_empty_rows_and_crlf_are_skipped() -> None:
    text = (
        "\r\n\r\nhand,player,top,middle,bottom\r\n"
        + "\r\n".join(rows("1", 2))
        + "\r\n,,,,\r\n\r\n"
        + "\r\n".join(rows("2", 2))
    )
    records, problems, chunks = read(text)
    assert problems == []
    assert [r["hand_id"] for r in records] == ["1", "2"]
    assert chunks[0].lines.tolist() == [4, 8]
    assert records[0]["players"][1]["bottom"] == BOARDS[1][2].split()


# --- problems -----------------------------------------------------------------------------------------------------

EXTRA = "hand,player,top,middle,bottom,date,fantasyland,points,seat,variant"


def full(
    hand: str, i: int, date: str = "2024-11-08", fl: str = "no", points: str = "0", seat: str = "", variant: str = ""
) -> str:
    return ",".join([hand, NAMES[i], *BOARDS[i], date, fl, points, seat, variant])


def good(hand: str) -> list[str]:
    return [full(hand, 0), full(hand, 1)]


# Each case: the rows of hand 2 (lines 4 onwards, after hand 1 on lines 2-3), each fault as ofc validate says it
# (the file, the row, the hand and the player, the column as the header names it), and the hand id.
VARIANTS_SAID = "classic, ofc, pineapple, pineapple-27, progressive-pineapple"
PROBLEMS = {
    "wrong number of fields": (
        [full("2", 0), "2,Bo,6h 6d 2c,7h 8d 9d Th Jc"],
        ["s.csv:5 (hand 2, Bo): 4 cells where the header has 10: a cell is missing, or the row is shifted"],
        "2",
    ),
    "empty player": ([full("2", 0), full("2", 1).replace("Bo", " ")], ["s.csv:5 (hand 2), column player: empty"], "2"),
    "bad boolean": (
        [full("2", 0), full("2", 1, fl="maybe")],
        ["s.csv:5 (hand 2, Bo), column fantasyland: not true/false/yes/no/y/n/1/0: 'maybe'"],
        "2",
    ),
    "bad integer": (
        [full("2", 0), full("2", 1, points="x")],
        ["s.csv:5 (hand 2, Bo), column points: not an integer: 'x'"],
        "2",
    ),
    "decimal points": (
        [full("2", 0), full("2", 1, points="1.5")],
        ["s.csv:5 (hand 2, Bo), column points: not an integer: '1.5'"],
        "2",
    ),
    "huge points": (
        [full("2", 0), full("2", 1, points="9" * 30)],
        [f"s.csv:5 (hand 2, Bo), column points: out of range: '{'9' * 30}'"],
        "2",
    ),
    "bad seat": (
        [full("2", 0, seat="16"), full("2", 1)],
        ["s.csv:4 (hand 2, Ann), column seat: must be 0 to 15: '16'"],
        "2",
    ),
    "duplicate seat": (
        [full("2", 0, seat="1"), full("2", 1, seat="1")],
        ["s.csv:5 (hand 2, Bo), column seat: seat 1 is taken twice in the hand; the other is at line 4"],
        "2",
    ),
    "bad date": (
        [full("2", 0, date="08/11/2024"), full("2", 1, date="")],
        [
            "s.csv:4 (hand 2, Ann), column date: '08/11/2024' could be 2024-11-08 or 2024-08-11: write the date as "
            "YYYY-MM-DD"
        ],
        "2",
    ),
    "dates disagree": (
        [full("2", 0), full("2", 1, date="2024-11-09")],
        ["s.csv:5 (hand 2, Bo), column date: '2024-11-09' differs from '2024-11-08' on line 4"],
        "2",
    ),
    "unknown variant": (
        [full("2", 0, variant="stud"), full("2", 1)],
        [f"s.csv:4 (hand 2, Ann), column variant: unknown variant: 'stud' (expected one of {VARIANTS_SAID})"],
        "2",
    ),
    "one player": ([full("2", 0)], ["s.csv:4 (hand 2): 1 player: a hand has 2 to 4"], "2"),
    "five players": (
        [full("2", i % 4).replace(NAMES[i % 4], f"P{i}") for i in range(5)],
        ["s.csv:4-8 (hand 2): 5 players: a hand has 2 to 4"],
        "2",
    ),
    "duplicate player": (
        [full("2", 0), full("2", 1).replace("Bo", "ann")],
        ["s.csv:5 (hand 2, ann), column player: 'ann' plays twice in the hand; the other is at line 4"],
        "2",
    ),
    "empty hand id": (
        [full("", 0), full("", 1)],
        ["s.csv:4 (Ann), column hand: empty", "s.csv:5 (Bo), column hand: empty"],
        None,
    ),
    "unclosed quote": (
        [full("2", 0), full("2", 1).replace("Bo", '"Bo')],
        ["s.csv:5 (hand 2): a quoted field is not closed on this line (fields spanning lines are not supported)"],
        "2",
    ),
    "carriage return inside a row": (
        [full("2", 0), full("2", 1).replace("Bo", "B\ro")],
        ["s.csv:5 (hand 2): a carriage return inside an unquoted field"],
        "2",
    ),
    "several errors": (
        [full("2", 0, points="x"), full("2", 1, fl="?")],
        [
            "s.csv:4 (hand 2, Ann), column points: not an integer: 'x'",
            "s.csv:5 (hand 2, Bo), column fantasyland: not true/false/yes/no/y/n/1/0: '?'",
        ],
        "2",
    ),
}


def said(problem: Problem, source: str = "s.csv") -> list[str]:
    """A problem as ofc validate prints it: each fault on a line of its own."""
    return [issue.text(source) for issue in problem.issues]


@pytest.mark.parametrize("case", PROBLEMS)
def test_a_bad_hand_is_one_problem_and_the_others_come_through(case: str) -> None:
    bad_rows, expected, hand_id = PROBLEMS[case]
    text = sheet(good("1"), bad_rows, good("3"), header=EXTRA)
    records, problems, chunks = read(text)
    assert [h.hand_id for h in validated(records)] == ["1", "3"]
    assert chunks[0].lines.tolist() == [2, 4 + len(bad_rows)]
    (problem,) = problems
    assert said(problem) == expected
    assert problem.line == problem.issues[0].place.line  # the quarantine's line: the first fault's row
    assert problem.hand_id == hand_id
    assert problem.offset == text.encode().index(b"\n" + bad_rows[0].encode()) + 1
    assert problem.raw == "\n".join(bad_rows)


def test_a_hand_split_in_two_places() -> None:
    text = sheet(good("1"), good("2"), good("1"), good("3"), header=EXTRA)
    records, problems, _ = read(text)
    assert [r["hand_id"] for r in records] == ["1", "2", "3"]
    (problem,) = problems
    assert (problem.line, problem.hand_id) == (6, "1")
    assert said(problem) == ["s.csv:6-7 (hand 1): the hand's rows are not together: it starts at line 2 too"]


def test_a_row_too_short_to_name_its_hand_spoils_the_current_hand() -> None:
    text = sheet(good("1"), [full("2", 0), "2"], good("3"), header=EXTRA)
    records, problems, _ = read(text)
    assert [r["hand_id"] for r in records] == ["1", "3"]
    assert [said(p) for p in problems] == [["s.csv:5 (hand 2): 1 cell where the header has 10: a cell is missing, or "
                                            "the row is shifted"]]  # fmt: skip

    hand_last = [",".join([NAMES[i], *BOARDS[i], hand]) for hand in "123" for i in range(2)]
    hand_last[3] = "x"
    records, problems, _ = read(sheet(hand_last, header="player,top,middle,bottom,hand"))
    assert [r["hand_id"] for r in records] == ["1", "3"]
    assert [said(p) for p in problems] == [["s.csv:5 (hand 2, x): 1 cell where the header has 5: a cell is missing, or "
                                            "the row is shifted"]]  # fmt: skip


def test_over_long_line(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(scoresheet, "MAX_LINE", 200)
    text = sheet(good("1"), [full("2", 0), full("2", 1).replace("Bo", "B" * 500)], good("3"), header=EXTRA)
    records, problems, _ = read(text)
    assert [r["hand_id"] for r in records] == ["1", "3"]
    (problem,) = problems
    assert said(problem) == ["s.csv:5 (hand 2): longer than 200 bytes"]
    assert len(problem.raw) <= RAW_LIMIT


def test_a_long_run_of_one_hand_is_held_in_bounded_memory() -> None:
    text = sheet(
        good("1"), [full("2", i % 2).replace(NAMES[i % 2], f"P{i}") for i in range(3000)], good("3"), header=EXTRA
    )
    records, problems, _ = read(text)
    assert [r["hand_id"] for r in records] == ["1", "3"]
    (problem,) = problems
    assert said(problem) == ["s.csv:4-3003 (hand 2): 3000 players: a hand has 2 to 4"]
    assert len(problem.raw) == RAW_LIMIT


@pytest.mark.parametrize(
    ("header", "reason"),
    [
        (
            "hand,player,top,middle",
            "header: missing required column(s) bottom (found: hand, player, top, middle)",
        ),
        (
            "date;name;cards",
            "header: missing required column(s) hand, top, middle, bottom (found: date, player, cards)",
        ),
        ("hand,player,top,middle,bottom,Top", "header: column(s) named more than once: top ('top', 'Top')"),
        # Another name for a column counts as that column, once.
        ("hand,player,top,middle,bottom,Front", "header: column(s) named more than once: top ('top', 'Front')"),
        # "Game" could be a deal's number or the variant: not taken for either.
        (
            "game,player,top,middle,bottom",
            "header: missing required column(s) hand (found: game, player, top, middle, bottom)",
        ),
    ],
)
def test_a_bad_header_is_one_problem_for_the_file(header: str, reason: str) -> None:
    text = sheet(good("1"), good("2"), header=header)
    records, problems, chunks = read(text)
    assert records == []
    assert [(p.line, p.offset, p.reason, p.hand_id, p.raw) for p in problems] == [(1, 0, reason, None, header)]
    assert len(chunks) == 1


def test_empty_and_header_only_files() -> None:
    records, problems, chunks = read(b"")
    assert (records, len(chunks)) == ([], 1)
    assert [(p.line, p.reason) for p in problems] == [(1, "no header row: the file is empty or blank")]
    records, problems, chunks = read("hand,player,top,middle,bottom\n")
    assert (records, problems, len(chunks)) == ([], [], 1)


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=400))
def test_arbitrary_bytes_after_a_header_never_raise(body: bytes) -> None:
    data = b"hand;player;top;middle;bottom;points\n" + body
    records, _, _ = read(data)
    for r in records:
        assert 2 <= len(r["players"]) <= 4


# --- sniff --------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "head",
    [
        SAMPLE.read_bytes(),
        b"HAND\tPlayer\tTop\tMiddle\tBottom\n1\tAnn",
        b"\xef\xbb\xbfdate;hand;player;top;middle;bottom;points\r\n",
        b"\n\nbottom,middle,top,player,hand",
        b'"hand","player","top","middle","bottom"\n',
    ],
)
def test_sniff_true(head: bytes) -> None:
    assert INGESTER.sniff(head)


@pytest.mark.parametrize(
    "head",
    [
        JSONL.read_bytes(),
        b"",
        b"\n\n",
        b"hand,player,top,middle\n1,Ann,Qh Qd 4c,8s 8h 8c Kd 3h\n",
        b"date;name;cards\n",
        b"\x00\xff\xfe\x01\x02hand,player\x00",
        b"\xff\xfeh\x00a\x00n\x00d\x00",
        bytes(range(256)) * 4,
    ],
)
def test_sniff_false(head: bytes) -> None:
    assert not INGESTER.sniff(head)


@settings(max_examples=500, deadline=None)
@given(st.binary(max_size=2000))
def test_sniff_never_raises(head: bytes) -> None:
    assert INGESTER.sniff(head) in (True, False)


# --- chunking -----------------------------------------------------------------------------------------------------


def test_chunking_keeps_order_and_loses_nothing() -> None:
    n_hands = 12_000
    lines = ["hand,player,top,middle,bottom,points"]
    bad: set[str] = set()
    for h in range(n_hands):
        hand_id = f"h{h}"
        players = 2 + h % 3
        for i in range(players):
            points = "x" if h % 997 == 0 and i == 1 else str(i)
            lines.append(",".join([hand_id, NAMES[i], *BOARDS[i], points]))
        if h % 997 == 0:
            bad.add(hand_id)
    data = ("\n".join(lines) + "\n").encode()
    chunks = list(INGESTER.read(io.BytesIO(data), "big.csv"))
    assert [c.records.num_rows + len(c.problems) for c in chunks] == [5_000, 5_000, 2_000]
    assert sum(c.bytes_read for c in chunks) == len(data)
    seen: list[tuple[int, str]] = []
    for c in chunks:
        ids = c.records.column("hand_id").to_pylist()
        assert len(ids) == len(c.lines) == len(c.offsets)
        seen.extend(zip(c.lines.tolist(), ids, strict=True))
        seen.extend((p.line, p.hand_id) for p in c.problems)
        for line, offset in zip(c.lines.tolist(), c.offsets.tolist(), strict=True):
            assert data.startswith(lines[line - 1].encode(), offset)
    seen.sort()
    assert [hand_id for _, hand_id in seen] == [f"h{h}" for h in range(n_hands)]
    assert {p.hand_id for c in chunks for p in c.problems} == bad
    lines_in_order = [line for c in chunks for line in c.lines.tolist()]
    assert lines_in_order == sorted(lines_in_order)


# ---------------------------------------------------------------- a club's own column names: --map

GERMAN = "Partie;Spieler;Vorne;Mitte;Hinten;Punkte"


def german_sheet() -> str:
    return sheet(hand_7_rows("7;{name};{top};{middle};{bottom};{points}"), header=GERMAN)


def test_a_map_names_a_clubs_own_columns(tmp_path: Path) -> None:
    mapped = scoresheet.column_map("hand=Partie, player=Spieler,top=Vorne,middle=Mitte,bottom=Hinten,points=Punkte")
    assert mapped == {
        "partie": "hand",
        "spieler": "player",
        "vorne": "top",
        "mitte": "middle",
        "hinten": "bottom",
        "punkte": "points",
    }
    reader = INGESTER.with_columns(mapped)
    raw = german_sheet().encode()
    assert not INGESTER.sniff(raw)
    assert reader.sniff(raw)
    chunks = list(reader.read(io.BytesIO(raw), "sheet.csv"))
    records = [r for c in chunks for r in c.records.to_pylist()]
    assert records == hand_7_records()
    # The same map as a TOML file.
    toml = tmp_path / "club.toml"
    toml.write_text('[columns]\nhand = "Partie"\nplayer = "Spieler"\ntop = "Vorne"\nmiddle = "Mitte"\n')
    assert scoresheet.column_map(str(toml)) == {
        "partie": "hand",
        "spieler": "player",
        "vorne": "top",
        "mitte": "middle",
    }


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("player=Spieler,tops=Vorne", "no column 'tops'; did you mean 'top'"),
        ("player", "'player' is not COLUMN=LABEL"),
        ("player=", "player is given no label"),
        ("top=Vorne,bottom=vorne", "the label 'vorne' is given to top and to bottom"),
        ("", "no column given"),
    ],
)
def test_a_bad_map_says_what_is_wrong(spec: str, message: str) -> None:
    with pytest.raises(ValueError, match=re.escape(message)):
        scoresheet.column_map(spec)


def test_ingest_validate_and_score_take_a_map(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from ofc.pipeline.cli import app

    path = tmp_path / "club.csv"
    path.write_text(german_sheet())
    spec = "hand=Partie,player=Spieler,top=Vorne,middle=Mitte,bottom=Hinten,points=Punkte"
    runner = CliRunner()
    assert runner.invoke(app, ["validate", str(path)]).exit_code == 1  # not recognised without the map
    assert runner.invoke(app, ["validate", str(path), "--map", spec]).exit_code == 0
    scored = runner.invoke(app, ["score", str(path), "--map", spec, "--json"])
    assert scored.exit_code == 0, scored.output
    assert json.loads(scored.output.splitlines()[0])["points"] == {"Ann": 1, "Bo": -1}
    lake = tmp_path / "lake"
    result = runner.invoke(app, ["ingest", str(path), "--map", spec, "--lake", str(lake), "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["total"]["accepted"] == 1
    bad = runner.invoke(app, ["ingest", str(path), "--map", "tops=Vorne", "--lake", str(lake)])
    assert bad.exit_code == 2
    assert "did you mean 'top'" in bad.output
