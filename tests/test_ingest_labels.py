"""What a file's hands were played as: ``--variant`` and ``--house-rules``, and the preset recognised from the
points a file records.

The poker-arena logs here are written event by event in the engine's layout (``WIRE_PROTOCOL_OFC.md`` of
NuttakitDW/poker-arena, as the reader documents it), with scores worked out by hand from the engine's rules:
a row won 1, a scoop 3 more, royalties netted; its 2-7 middle pays 7-5-4-3-2 8, a seven-low 4, an eight-low 2,
a nine-low 1.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from ofc.pipeline.cli import app
from ofc.pipeline.ingest.ingest_run import ingest
from ofc.pipeline.ingest.labels import recognise
from ofc.pipeline.lake.store import Lake
from ofc.pipeline.query.db import connect
from tests.reference.hands import player

ROW = {"t": "top", "m": "middle", "b": "bottom"}


def arena_hand(number: int, seats: list[tuple[str, list[str]]], points: list[int]) -> list[dict[str, Any]]:
    """One hand's events. Each seat: its name and its streets, each "card:row ..." with rows t / m / b and x for
    the discard. Seat 0 is the button; seats act 1, 2, ..., 0. The first street is dealt to every seat before
    anyone places; each later one is dealt and placed seat by seat."""
    order = [*range(1, len(seats)), 0]

    def street(seat: int, k: int) -> tuple[dict[str, Any], dict[str, Any]]:
        cards = [(c.split(":")[0], c.split(":")[1]) for c in seats[seat][1][k].split()]
        deal = {"event": "deal", "seat": seat, "cards": [c for c, _ in cards], "count": len(cards)}
        placed = [{"card": c, "row": ROW[r]} for c, r in cards if r != "x"]
        discarded = [c for c, r in cards if r == "x"]
        place = {"event": "place", "seat": seat, "placements": placed, "discarded": discarded, "count": len(discarded)}
        return deal, place

    events: list[dict[str, Any]] = []
    for s in order:  # a seat whose one street is more than 5 cards is in Fantasyland
        dealt = len(seats[s][1][0].split())
        if dealt > 5:
            events.append({"event": "fantasyland", "seat": s, "cards": dealt})
    first = [street(s, 0) for s in order]
    events += [d for d, _ in first] + [p for _, p in first]
    for k in range(1, max(len(streets) for _, streets in seats)):
        for s in order:
            if k < len(seats[s][1]):
                events += street(s, k)
    for s in order:
        rows = {ROW[r]: [] for r in "tmb"}
        for text in seats[s][1]:
            for c in text.split():
                card, r = c.split(":")
                if r != "x":
                    rows[ROW[r]].append(card)
        events.append({"event": "showdown", "seat": s, **rows, "fouled": False, "next_fantasyland": None})
    events += [{"event": "score", "seat": s, "points": points[s]} for s in order]
    return [{"hand": number, "seats": [name for name, _ in seats]}] + [{"hand": number, "ev": e} for e in events]


# Hand 1, 2-7 Pineapple. alice (seat 1): KK / 7-5-4-3-2 / aces full: royalties 8 + 8 + 6 = 22 (pineapple-27
# pays 12 for the middle: 26). bob (seat 0, the button): QQ / 8-6-5-3-2 / two pair: 7 + 2 + 0 = 9 (pineapple-27:
# 7 + 4 = 11). alice wins every row (the lower 2-7 middle wins): 3 + 3 + 22 - 9 = +19 (pineapple-27: +21).
# Under the high-middle Pineapple presets alice's KK top over a 7-high middle fouls.
HAND_1 = arena_hand(
    1,
    [
        ("bob", ["Qc:t Qh:t 8c:m Ts:b Th:b", "2d:t 6d:m 6h:x", "5h:m 4s:b 8d:x", "3c:m 4d:b Ks:x", "2h:m Jc:b As:x"]),
        ("alice", ["Kc:t Kd:t 7c:m Ah:b Ad:b", "3h:t 5d:m 6c:x", "4h:m Ac:b 7d:x", "3s:m 9s:b Qs:x", "2c:m 9d:b Js:x"]),
    ],
    [-19, 19],
)
# Hand 2. alice: 5-5-2 / 9-7-5-3-2 / a straight 6-T: royalties 0 + 1 + 2 = 3 (pineapple-27: 0 + 2 + 2 = 4).
# bob: 4-4-3 / T-8-6-4-2 / a flush: 0 + 0 + 4 = 4 (pineapple-27: 0 + 1 + 4 = 5). Rows: top 55 over 44
# (alice), middle 9-7 low over T-8 low (alice), bottom flush over straight (bob): alice +1 row.
# alice 1 + 3 - 4 = 0 (pineapple-27: 1 + 4 - 5 = 0): this hand does not tell the two apart.
HAND_2 = arena_hand(
    2,
    [
        ("bob", ["4c:t 4d:t Tc:m 8h:b Kh:b", "3c:t 8d:m Ac:x", "6d:m 2h:b Qs:x", "4s:m 5h:b Kc:x", "2s:m Jh:b Ad:x"]),
        ("alice", ["5c:t 5d:t 9c:m 6s:b 7s:b", "2c:t 7d:m Kd:x", "5s:m 8s:b Qd:x", "3d:m 9h:b Jc:x", "2d:m Th:b As:x"]),
    ],
    [0, 0],
)


# Progressive Pineapple. Hand 3: carol (seat 1) plays a 15-card Fantasyland, which only progressive deals:
# QQ / trips 9 / a heart flush, royalties 7 + 2 + 4 = 13 (no stay: no trips on top, no quads). dan: 55 / two
# pair / a spade flush, 0 + 0 + 4 = 4. carol wins top and middle, dan the bottom (ace-high flush): carol
# 1 + 13 - 4 = +10. Hand 4, an ordinary deal: finn's J-high / QQ / sevens full over erin's 4-high / 88 / AAKK, a
# scoop: 3 + 3 + 6 = +12. Plain and progressive Pineapple score both alike; only hand 3's deal tells them apart.
HAND_3 = arena_hand(
    3,
    [
        ("dan", ["5c:t 5d:t Tc:m As:b Ks:b", "3d:t Td:m 4c:x", "6c:m Js:b 4d:x", "6d:m Ts:b 8c:x", "2d:m 3s:b 8d:x"]),
        ("carol", ["Qs:t Qd:t 3c:t 9h:m 9d:m 9c:m 5s:m 4s:m Kh:b Jh:b 8h:b 6h:b 2h:b 7c:x 7d:x"]),
    ],
    [-10, 10],
)
HAND_4 = arena_hand(
    4,
    [
        ("finn", ["Jc:t Th:t Qh:m 7c:b 7h:b", "2d:t Qc:m 4c:x", "3h:m 7s:b 4s:x", "4h:m 5c:b 6c:x", "6d:m 5d:b 6h:x"]),
        ("erin", ["2c:t 3c:t 8c:m Ah:b Ad:b", "4d:t 8d:m 2h:x", "5h:m Kc:b 2s:x", "6s:m Kd:b 3d:x", "7d:m 9s:b 3s:x"]),
    ],
    [12, -12],
)


def write_log(path: Path, *hands: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(e) + "\n" for hand in hands for e in hand))
    return path


def recorded(lake: Path) -> tuple[int, int]:
    """``ofc rescore``'s check of recorded points: (hands checked, hands whose points differ from ours)."""
    result = CliRunner().invoke(app, ["rescore", "--lake", str(lake), "--json"])
    assert result.exit_code == 0, result.output
    rules = json.loads(result.output)["rules"]
    return sum(r["lake"]["recorded_checked"] for r in rules), sum(r["lake"]["recorded_differing"] for r in rules)


def hands_of(lake: Lake) -> list[dict[str, Any]]:
    rows = connect(lake).sql("SELECT hand_id, variant, house_rules FROM hands ORDER BY hand_id").to_arrow_table()
    return rows.to_pylist()


@pytest.mark.parametrize(
    ("hands", "note", "labelled"),
    [
        # Dealt like Pineapple, scored like the engine's 2-7: only pineapple-27-arena gives both scores.
        (
            (HAND_1, HAND_2),
            "pineapple-27-arena reproduces the 2 pineapple hands with recorded points; read as pineapple-27",
            ("pineapple-27", "pineapple-27-arena"),
        ),
        # Hand 4 alone looks like plain Pineapple; hand 3's 15-card Fantasyland shows the file is progressive.
        # Both presets give both scores, so the variant the deals show decides, for every hand of the file.
        (
            (HAND_3, HAND_4),
            "progressive-pineapple reproduces the 2 progressive-pineapple / pineapple hands with recorded points "
            "(so do pineapple, which score these hands alike); read as progressive-pineapple",
            ("progressive-pineapple", "progressive-pineapple"),
        ),
    ],
    ids=["2-7", "progressive"],
)
def test_a_log_is_read_as_the_preset_that_reproduces_its_scores(
    tmp_path: Path, hands: tuple[list[dict[str, Any]], ...], note: str, labelled: tuple[str, str]
) -> None:
    log = write_log(tmp_path / "arena.jsonl", *hands)
    lake = Lake(tmp_path / "lake")
    report = ingest([log], lake)
    assert report.totals.accepted == 2
    assert report.files[0].rules == [note]
    assert [(h["variant"], h["house_rules"]) for h in hands_of(lake)] == [labelled] * 2
    # The rescore finds every recorded score reproduced under the rules the hands are now labelled with.
    assert recorded(lake.root) == (2, 0)


def test_the_command_line_says_what_the_log_cannot(tmp_path: Path) -> None:
    # Told the hands were pineapple-27 with its own table, nothing is recognised and the labels stand; the
    # rescore then finds hand 1's recorded score differs from those rules (21 against 19) and hand 2's agrees.
    log = write_log(tmp_path / "arena-27.jsonl", HAND_1, HAND_2)
    lake = tmp_path / "lake"
    args = ["ingest", str(log), "--lake", str(lake), "--variant", "pineapple-27", "--house-rules", "pineapple-27"]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    assert "reproduces" not in result.output
    assert [(h["variant"], h["house_rules"]) for h in hands_of(Lake(lake))] == [("pineapple-27", "pineapple-27")] * 2
    assert recorded(lake) == (2, 1)


def test_a_variant_the_deals_cannot_be_is_quarantined_by_the_checks(tmp_path: Path) -> None:
    # The log deals three cards a street: it is no OFC hand, whatever the command line says.
    log = write_log(tmp_path / "arena-27.jsonl", HAND_1)
    report = ingest([log], Lake(tmp_path / "lake"), labels=_labels("ofc", None))
    assert (report.totals.accepted, report.totals.quarantined) == (0, 1)


def test_an_unknown_variant_or_rules_that_cannot_fit_are_usage_errors(tmp_path: Path) -> None:
    log = write_log(tmp_path / "arena-27.jsonl", HAND_1)
    runner = CliRunner()
    result = runner.invoke(app, ["ingest", str(log), "--lake", str(tmp_path / "l"), "--variant", "pinapple-27"])
    assert result.exit_code == 2
    assert "did you mean 'pineapple-27'" in result.output
    result = runner.invoke(
        app,
        ["ingest", str(log), "--lake", str(tmp_path / "l"), "--variant", "pineapple", "--house-rules", "pineapple-27"],
    )
    assert result.exit_code == 2
    assert "plays a 2-7 lowball middle" in result.output
    result = runner.invoke(app, ["ingest", str(log), "--lake", str(tmp_path / "l"), "--house-rules", "pinapple"])
    assert result.exit_code == 2
    assert not (tmp_path / "l").exists()


def _labels(variant: str | None, house_rules: str | None) -> Any:
    from ofc.pipeline.cli.ingest import labels_of

    return labels_of(variant, house_rules)


# ---------------------------------------------------------------- records that state what they were


# RULES.md E3 as a classic hand: a tied top, A wins the middle and the bottom. 1-6: A +2; 2-4: A +3.
E3_BOARDS = (
    ("A", "Ac Kh 5s / 9h 9c 4d 3s 2d / Jh Jd Js 6c 6d"),
    ("B", "Ad Kd 5h / 8h 8c 4c 3d 2c / Th Tc Ts 7h 7d"),
)


def classic_record(hand_id: str, a_points: int, **extra: Any) -> dict[str, Any]:
    """E3 with these recorded points; each hand id at its own seats, so that no two are the same hand played."""
    seats = (2 * int(hand_id), 2 * int(hand_id) + 1)
    players = [
        player(name, board, points=p, seat=seat)
        for (name, board), p, seat in zip(E3_BOARDS, (a_points, -a_points), seats, strict=True)
    ]
    return {"hand_id": hand_id, "variant": "classic", "players": players, **extra}


def write_jsonl(path: Path, records: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


@pytest.mark.parametrize(
    ("a_points", "house_rules", "note"),
    [
        # Only classic-2-4 pays +3: it becomes the house rules of the hands that name none.
        (3, "classic-2-4", "classic-2-4 reproduces the 2 classic hands with recorded points"),
        # +2 is what classic-1-6 pays, and classic-plain and taiwanese too: the variant's own preset is taken,
        # which needs no label.
        (2, None, "classic-1-6 reproduces the 2 classic hands with recorded points (so do "),
        # No preset pays +5: nothing changes, and the closest is named.
        (5, None, "no preset reproduces the 2 classic hands with recorded points; closest: "),
    ],
)
def test_recorded_points_name_the_preset(tmp_path: Path, a_points: int, house_rules: str | None, note: str) -> None:
    path = write_jsonl(tmp_path / "club.jsonl", [classic_record("1", a_points), classic_record("2", a_points)])
    lake = Lake(tmp_path / "lake")
    report = ingest([path], lake)
    assert report.totals.accepted == 2
    assert len(report.files[0].rules) == 1
    assert report.files[0].rules[0].startswith(note)
    assert [h["house_rules"] for h in hands_of(lake)] == [house_rules] * 2


def test_a_record_that_states_its_rules_keeps_them(tmp_path: Path) -> None:
    # Recognition fills only what a record leaves out.
    records = [classic_record("1", 3), classic_record("2", 3, house_rules="friday")]
    lake = Lake(tmp_path / "lake")
    ingest([write_jsonl(tmp_path / "club.jsonl", records)], lake)
    assert [h["house_rules"] for h in hands_of(lake)] == ["classic-2-4", "friday"]


def test_a_record_stating_another_variant_or_rules_is_quarantined(tmp_path: Path) -> None:
    records = [
        classic_record("1", 3),
        {**classic_record("2", 3), "variant": "ofc"},
        classic_record("3", 3, house_rules="friday"),
    ]
    path = write_jsonl(tmp_path / "club.jsonl", records)
    lake = Lake(tmp_path / "lake")
    result = CliRunner().invoke(
        app, ["validate", str(path), "--variant", "classic", "--house-rules", "classic-2-4", "--json"]
    )
    assert result.exit_code == 1
    reasons = sorted((p["line"], p["field"], p["reason"]) for p in json.loads(result.output)["problems"])
    assert reasons == [
        (2, "variant", "the record says 'ofc'; --variant says 'classic'"),
        (3, "house_rules", "the record says 'friday'; --house-rules says 'classic-2-4'"),
    ]
    report = ingest([path], lake, labels=_labels("classic", "classic-2-4"))
    assert (report.totals.accepted, report.totals.quarantined) == (1, 2)
    assert hands_of(lake) == [{"hand_id": "1", "variant": "classic", "house_rules": "classic-2-4"}]


def test_a_rule_file_given_is_recorded_with_the_batch(tmp_path: Path) -> None:
    house = tmp_path / "friday.toml"
    house.write_text('extends = "classic-2-4"\n[scoring]\nrow_value = 2\n')
    # E3 at 2 a row: A's two rows 4, the overall point 1: +5.
    path = write_jsonl(tmp_path / "club.jsonl", [classic_record("1", 5)])
    lake = Lake(tmp_path / "lake")
    labels = _labels(None, str(house))
    report = ingest([path], lake, labels=labels)
    assert report.totals.accepted == 1
    assert hands_of(lake)[0]["house_rules"] == labels.house_rules  # friday@<hash>
    assert labels.house_rules.startswith("friday@")
    # The rescore knows the file from the batch, scores the hand under it and finds its +6 reproduced.
    assert recorded(lake.root) == (1, 0)


def test_recognition_needs_every_players_points() -> None:
    record = classic_record("1", 3)
    record["players"][1]["points"] = None
    assert recognise([record], guessed=False).notes == []
