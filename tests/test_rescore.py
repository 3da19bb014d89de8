"""ofc rescore over a lake: results equal the engine's, incremental, crash-safe, recorded points checked."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from ofc.pipeline.cards import CARD_NAMES, deal
from ofc.pipeline.ingest.ingest_run import ingest
from ofc.pipeline.lake.batch_writer import BatchWriter
from ofc.pipeline.lake.board_cards import card_codes
from ofc.pipeline.lake.edit import vacuum
from ofc.pipeline.lake.store import Lake, LakeError
from ofc.pipeline.paths import SAMPLES
from ofc.pipeline.query import named
from ofc.pipeline.query.db import connect, run_query
from ofc.pipeline.rescore import score_source, step
from ofc.pipeline.rescore.plan import RuleSetNameError
from ofc.pipeline.rescore.rescore_run import rescore
from ofc.pipeline.rules.compile import NATURALS
from ofc.pipeline.rules.files import load_rules
from ofc.pipeline.rules.native import How, Natives
from ofc.pipeline.score.engine import score
from ofc.pipeline.score.output import to_boards
from ofc.schemas.rules import RuleSet
from tests.reference.hands import CRISS_CROSS, MISSET
from tests.test_report_lake import make_records

EXAMPLES = SAMPLES / "worked-examples.jsonl"
RULE_FILES = Path(__file__).parent / "data" / "rules"


def random_records(hands: int, seed: int, prefix: str = "r") -> list[dict[str, Any]]:
    """OFC hands of 2-4 players (some in Fantasyland) and classic hands with naturals and surrenders."""
    rng = np.random.default_rng(seed)
    dealt = CARD_NAMES[deal(hands, 52, rng)].reshape(hands, 4, 13)
    records = []
    for h in range(hands):
        classic = h % 3 == 0
        n = int(rng.integers(2, 5))
        players = []
        for s in range(n):
            cards = dealt[h, s].tolist()
            if rng.random() < 0.7:  # set low to high: mostly valid boards
                cards.sort(key=lambda c: "23456789TJQKA".index(c[0]))
            p: dict[str, Any] = {"name": f"P{(h + s) % 6}", "seat": s}
            p |= {"top": cards[:3], "middle": cards[3:8], "bottom": cards[8:]}
            if classic:
                p["surrendered"] = bool(rng.random() < 0.1)
                if rng.random() < 0.1:
                    p["natural"] = str(rng.choice([k.value for k in NATURALS]))
                p["stack"] = int(rng.integers(3, 30))
            else:
                p["fantasyland"] = bool(rng.random() < 0.2)
            players.append(p)
        record: dict[str, Any] = {
            "hand_id": f"{prefix}{h}",
            "source": "test",
            "variant": "classic" if classic else "ofc",
            "played_at": f"2026-{10 + h % 2}-0{1 + h % 5}T20:00:00Z",
            "players": players,
        }
        if rng.random() < 0.5:
            record["button"] = int(rng.integers(0, n))
        records.append(record)
    return records


def ofc_hands_naming(house_rules: str, hands: int, seed: int, naming: int | None = None) -> list[dict[str, Any]]:
    """The OFC hands of ``random_records(hands, seed)``, the first ``naming`` of them (all by default) recording
    ``house_rules`` as the rules they were played by."""
    records = [r for r in random_records(hands, seed=seed) if r["variant"] == "ofc"]
    for r in records[:naming]:
        r["house_rules"] = house_rules
    return records


def given_file(lake: Lake, path: Path, text: str) -> RuleSet:
    """A rule file written with ``text`` and given to a rescore of the lake: its rule set."""
    path.write_text(text)
    rules = load_rules(path)
    rescore(lake, [rules])
    return rules


def write_jsonl(path: Path, records: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


def lake_with(tmp_path: Path, *record_sets: list[dict[str, Any]]) -> Lake:
    """A lake with one ingest batch per record set."""
    lake = Lake(tmp_path / "lake")
    for i, records in enumerate(record_sets):
        report = ingest([write_jsonl(tmp_path / f"in{i}.jsonl", records)], lake)
        assert report.totals.accepted == len(records), report.totals.reasons
    return lake


def query(lake: Lake, sql: str) -> list[dict[str, Any]]:
    return run_query(connect(lake), sql).to_pylist()


def player_points(lake: Lake, rules: RuleSet) -> dict[tuple[str, int], int]:
    rows = query(lake, f"SELECT hand_id, seat, points FROM scored_boards WHERE rules_key = '{rules.key}'")
    return {(r["hand_id"], r["seat"]): r["points"] for r in rows}


def asked(report: Any, rules: RuleSet) -> Any:
    """The run's totals under one rule set."""
    return next(t for t in report.run if t.key == rules.key)


def expected_points(records: list[dict[str, Any]], rules: RuleSet) -> dict[tuple[str, int], int]:
    """The engine on the records themselves (the ``ofc score`` path), by hand id and seat."""
    net = score(to_boards(records), rules).net.tolist()
    keys = [(r["hand_id"], p.get("seat", i)) for r in records for i, p in enumerate(r["players"])]
    return dict(zip(keys, net, strict=True))


def examples() -> list[dict[str, Any]]:
    return [json.loads(line) for line in EXAMPLES.read_text().splitlines()]


# ------------------------------------------------------------------ results


@pytest.mark.parametrize("name", ["ofc", "classic-1-6", "taiwanese", str(RULE_FILES / "stakes.toml")])
def test_lake_results_equal_the_engine_on_the_records(
    tmp_path: Path, name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    records = [*random_records(120, seed=5), CRISS_CROSS, MISSET]
    lake = lake_with(tmp_path, records[:60], records[60:])
    monkeypatch.setattr(score_source, "READ_ROWS", 7)  # hands straddle every read: they are held back whole
    rules = load_rules(name)
    report = rescore(lake, [rules])
    assert asked(report, rules).hands == len(records)
    assert len(report.result_batches) == 2  # one per source batch
    assert player_points(lake, rules) == expected_points(records, rules)


def test_a_rule_set_that_cannot_apply_scores_nothing_and_says_why(tmp_path: Path) -> None:
    """A 2-7 middle cannot score boards set for a high middle: no results, and the hands left out counted."""
    records = random_records(30, seed=5)
    lake = lake_with(tmp_path, records)
    rules = load_rules("pineapple-27")
    report = rescore(lake, [rules])
    t = asked(report, rules)
    assert t.hands == 0
    classic = sum(r["variant"] == "classic" for r in records)
    assert dict(t.skipped_variants) == {"classic": classic, "ofc": len(records) - classic}
    assert "2-7 lowball middle" in t.why["ofc"]
    assert player_points(lake, rules) == {}


def test_worked_examples_give_the_rules_figures(tmp_path: Path) -> None:
    lake = lake_with(tmp_path, examples())
    sets = [load_rules(n) for n in ("ofc", "classic-2-4", "classic-plain", "pineapple", "progressive-pineapple")]
    rescore(lake, sets)
    ofc = player_points(lake, sets[0])
    assert (ofc["E1", 0], ofc["E1", 1]) == (24, -24)
    assert (ofc["E2", 0], ofc["E2", 1]) == (-16, 16)
    assert ofc["E3", 0] == 2
    assert (ofc["E4", 0], ofc["E4", 1], ofc["E4", 2]) == (36, -17, -19)
    assert player_points(lake, sets[1])["E3", 0] == 3
    assert player_points(lake, sets[2])["E3", 0] == 2
    e1 = query(
        lake,
        "SELECT rules, royalty_top, royalty_middle, royalty_bottom, fantasyland_entry, fantasyland_next, native "
        "FROM scored_boards WHERE hand_id = 'E1' AND seat = 0",
    )
    by_rules = {r["rules"]: r for r in e1}
    assert [by_rules["ofc"][f"royalty_{row}"] for row in ("top", "middle", "bottom")] == [7, 2, 25]
    assert by_rules["ofc"]["fantasyland_entry"]
    assert [r for r, row in by_rules.items() if row["native"]] == ["ofc"]  # an OFC hand with no house rules
    assert {r: by_rules[r]["fantasyland_next"] for r in ("ofc", "pineapple", "progressive-pineapple")} == {
        "ofc": 13,
        "pineapple": 14,
        "progressive-pineapple": 14,
    }
    e2 = query(
        lake,
        "SELECT p.settled, p.fouled_a, p.fouled_b, p.points, p.royalties_b FROM scored_pairs p "
        "JOIN hands h USING (hand_key) WHERE h.hand_id = 'E2' AND p.rules = 'ofc'",
    )
    assert e2 == [{"settled": "foul", "fouled_a": True, "fouled_b": False, "points": -16, "royalties_b": 10}]


def test_every_hand_is_zero_sum_under_every_rule_set(tmp_path: Path) -> None:
    lake = lake_with(tmp_path, random_records(80, seed=2), [CRISS_CROSS, MISSET])
    names = ("ofc", "taiwanese", "classic-1-6", RULE_FILES / "stakes.toml")
    rescore(lake, [load_rules(n) for n in names])
    # classic-1-6 is also the classic hands' own rules: asked for, it scores every hand.
    assert query(lake, "SELECT count(DISTINCT rules_key) AS n FROM board_results") == [{"n": 4}]
    unbalanced = "SELECT rules_key, hand_key FROM board_results GROUP BY ALL HAVING sum(points) <> 0"
    assert query(lake, unbalanced) == []
    pairs = query(
        lake,
        "WITH sides AS (SELECT rules_key, hand_key, seat_a AS seat, points FROM pair_results "
        "UNION ALL SELECT rules_key, hand_key, seat_b, -points FROM pair_results) "
        "SELECT count(*) AS n FROM (SELECT rules_key, hand_key, seat, sum(points) AS net FROM sides GROUP BY ALL) s "
        "JOIN board_results r USING (rules_key, hand_key, seat) WHERE s.net <> r.points",
    )
    assert pairs == [{"n": 0}]
    cc = player_points(lake, load_rules("ofc"))  # the hands worked out by hand in tests/reference/hands.py
    assert (cc["cc", 0] + cc["cc", 2], cc["cc", 1] + cc["cc", 3]) == (97, -97)
    assert player_points(lake, load_rules("classic-1-6"))["m", 0] == -6


# --------------------------------------------------------------- increments


def manifests_of(lake: Lake, kind: str) -> list[dict[str, Any]]:
    return [m for m in lake.manifests() if m["kind"] == kind]


def test_a_rerun_adds_nothing_and_new_batches_are_scored_next_time(tmp_path: Path) -> None:
    lake = lake_with(tmp_path, random_records(30, seed=1))
    rules = [load_rules("ofc"), load_rules("classic-2-4")]
    first = rescore(lake, rules)
    assert [t.hands for t in first.run[:2]] == [30, 30]
    files = {t: lake.files(t) for t in ("pair_results", "board_results")}

    again = rescore(lake, rules)
    assert again.result_batches == []
    assert [(t.hands, t.skipped) for t in again.run[:2]] == [(0, 1), (0, 1)]
    assert [t.hands for t in again.lake[:2]] == [30, 30]
    assert {t: lake.files(t) for t in files} == files
    assert len(manifests_of(lake, "rescore")) == 1

    ingest([write_jsonl(tmp_path / "more.jsonl", random_records(12, seed=8, prefix="new"))], lake)
    third = rescore(lake, rules)
    assert [(t.batches, t.hands, t.skipped) for t in third.run[:2]] == [(1, 12, 1), (1, 12, 1)]
    assert [t.hands for t in third.lake[:2]] == [42, 42]
    counts = "SELECT rules, count(DISTINCT hand_key) AS n FROM board_results GROUP BY ALL ORDER BY 1"
    classic = sum(r["variant"] == "classic" for r in [*random_records(30, seed=1), *random_records(12, seed=8)])
    assert query(lake, counts) == [
        {"rules": "classic-1-6", "n": classic},  # the classic hands' own rules: only theirs
        {"rules": "classic-2-4", "n": 42},
        {"rules": "ofc", "n": 42},
    ]


def test_an_edited_rule_file_is_a_new_rule_set(tmp_path: Path) -> None:
    lake = lake_with(tmp_path, random_records(20, seed=4))
    house = tmp_path / "house.toml"
    house.write_text('extends = "ofc"\nname = "house"\n')
    before = load_rules(house)
    rescore(lake, [before])
    house.write_text('extends = "ofc"\nname = "house"\n[scoring]\nscoop_bonus = 5\n')
    after = load_rules(house)
    assert after.key != before.key
    report = rescore(lake, [after])
    assert asked(report, after).hands == 20
    keys = query(lake, "SELECT DISTINCT rules_key FROM board_results WHERE rules = 'house' ORDER BY rules_key")
    assert sorted(k["rules_key"] for k in keys) == sorted([before.key, after.key])
    assert {before.key, after.key} <= set(lake.snapshot().rule_sets)


def test_force_rescores_and_hides_the_old_results(tmp_path: Path) -> None:
    lake = lake_with(tmp_path, random_records(25, seed=6))
    ofc, plain = load_rules("ofc"), load_rules("classic-plain")
    rescore(lake, [ofc, plain])
    old = {str(f) for f in lake.files("pair_results") if f"rules_key={ofc.key}" in str(f)}
    forced = rescore(lake, [ofc], force=True)
    assert asked(forced, ofc).hands == 25
    boards = sum(len(r["players"]) for r in random_records(25, seed=6))
    classic = sum(len(r["players"]) for r in random_records(25, seed=6) if r["variant"] == "classic")
    assert query(lake, "SELECT rules, count(*) AS n FROM board_results GROUP BY ALL ORDER BY 1") == [
        {"rules": "classic-1-6", "n": classic},
        {"rules": "classic-plain", "n": boards},
        {"rules": "ofc", "n": boards},
    ]
    assert not old & {str(f) for f in lake.files("pair_results")}
    assert all(Path(f).exists() for f in old)  # hidden at once: a reader may still hold them
    rescore(lake, [ofc])
    assert all(Path(f).exists() for f in old)  # a writer never deletes them
    lake.release()
    assert vacuum(lake, wait=5)["files"] >= len(old)  # a vacuum does
    assert not any(Path(f).exists() for f in old)
    assert [t.hands for t in rescore(lake, [ofc, plain]).lake[:2]] == [25, 25]


def test_the_rule_sets_asked_for_are_remembered(tmp_path: Path) -> None:
    lake = lake_with(tmp_path, random_records(10, seed=3))
    rules = [load_rules("pineapple"), load_rules(RULE_FILES / "stakes.toml")]
    rescore(lake, rules)
    snapshot = lake.snapshot()
    assert snapshot.asked_keys() == [r.key for r in rules]
    natives = [load_rules("ofc").key, load_rules("classic-1-6").key]
    assert set(snapshot.scored_keys) == {*snapshot.asked_keys(), *natives}


# -------------------------------------------------------------------- crashes


def test_an_aborted_result_batch_is_invisible_and_the_next_run_finishes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    lake = lake_with(tmp_path, random_records(40, seed=7))
    monkeypatch.setattr(score_source, "READ_ROWS", 20)
    real = step.score
    calls = {"n": 0}

    def failing(*args: Any) -> Any:
        calls["n"] += 1
        if calls["n"] == 5:  # results of earlier chunks are already with the writers
            raise RuntimeError("killed")
        return real(*args)

    monkeypatch.setattr(step, "score", failing)
    monkeypatch.setattr(BatchWriter, "abort", lambda self: None)  # as if the process died: staging stays
    with pytest.raises(RuntimeError, match="killed"):
        rescore(lake, [load_rules("ofc"), load_rules("classic-1-6")])
    assert any((lake.root / "_staging").rglob("*.parquet"))
    assert manifests_of(lake, "rescore") == []
    assert query(lake, "SELECT count(*) AS n FROM pair_results") == [{"n": 0}]

    monkeypatch.setattr(step, "score", real)
    report = rescore(lake, [load_rules("ofc"), load_rules("classic-1-6")])
    assert [t.hands for t in report.run] == [40, 40]
    assert not (lake.root / "_staging").exists() or not any((lake.root / "_staging").rglob("*"))


def test_a_commit_that_fails_before_its_manifest_takes_its_files_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    lake = lake_with(tmp_path, random_records(15, seed=9))

    def fail(manifest: dict[str, Any]) -> None:
        raise OSError("disk gone")

    monkeypatch.setattr(lake, "write_manifest", fail)
    with pytest.raises(OSError, match="disk gone"):
        rescore(lake, [load_rules("ofc")])
    assert not list((lake.root / "pair_results").rglob("*.parquet"))
    assert not list((lake.root / "board_results").rglob("*.parquet"))
    assert query(lake, "SELECT count(*) AS n FROM board_results") == [{"n": 0}]


def test_files_moved_into_place_without_a_manifest_stay_invisible(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A process killed between moving its files into place and writing the manifest cleans nothing up: the
    files stay on disk, listed by no manifest, until the next writer deletes them."""
    lake = lake_with(tmp_path, random_records(15, seed=9))

    def crash(manifest: dict[str, Any]) -> None:
        raise OSError("killed")

    monkeypatch.setattr(lake, "write_manifest", crash)
    monkeypatch.setattr(BatchWriter, "abort", lambda self: None)  # a killed process runs no clean-up
    with pytest.raises(OSError, match="killed"):
        rescore(lake, [load_rules("ofc")])
    assert list((lake.root / "pair_results").rglob("*.parquet"))  # on disk, listed by no manifest
    assert query(lake, "SELECT count(*) AS n FROM board_results") == [{"n": 0}]
    monkeypatch.undo()
    assert asked(rescore(lake, [load_rules("ofc")]), load_rules("ofc")).hands == 15
    listed = {str(f) for f in lake.files("pair_results")}
    assert {str(f) for f in (lake.root / "pair_results").rglob("*.parquet")} == listed


def test_boards_and_hands_out_of_step_are_an_error(tmp_path: Path) -> None:
    """Rescoring joins a batch's boards and hands by their stored order; a batch that breaks it is refused."""
    source = lake_with(tmp_path, random_records(6, seed=1))
    partition = {"variant": "ofc", "month": "2026-11"}
    hands, boards = (source.read(t) for t in ("hands", "boards"))
    lake = Lake(tmp_path / "other")
    with lake.locked():
        writer = lake.begin("ingest")
        for table, data in (("hands", hands.take(np.arange(hands.num_rows)[::-1].copy())), ("boards", boards)):
            for column, value in partition.items():
                data = data.append_column(column, pa.array([value] * data.num_rows))
            writer.write(table, data)
        counts = {"read": 6, "accepted": 6, "quarantined": 0, "duplicates": 0}
        writer.commit(counts, [{"path": "reversed", **counts, "batch": writer.batch}])
    with pytest.raises(LakeError, match="not stored in the same order"):
        rescore(lake, [load_rules("ofc")])
    assert manifests_of(lake, "rescore") == []


def test_a_rule_set_name_that_cannot_name_a_folder_is_refused(tmp_path: Path) -> None:
    lake = lake_with(tmp_path, random_records(3, seed=1))
    with pytest.raises(RuleSetNameError, match="cannot name a lake folder"):
        rescore(lake, [RuleSet(name="a/b")])


# ----------------------------------------------------------- recorded points


def test_recorded_points_are_checked_and_mismatches_listed(tmp_path: Path) -> None:
    """Recorded points are checked under each hand's own rules: the worked examples (OFC, no house rules: the
    OFC preset) and the poker-arena log (which declares its rules)."""
    wrong = examples()
    for rec in wrong:
        rec["hand_id"] = "rec-" + rec["hand_id"]
    # Recorded points that agree with ofc scoring for E1, and two that do not for E3 (1-6 gives A +2).
    wrong[0]["players"][0]["points"], wrong[0]["players"][1]["points"] = 24, -24
    wrong[2]["players"][0]["points"], wrong[2]["players"][1]["points"] = 3, -3
    lake = lake_with(tmp_path, wrong)
    ingest([SAMPLES / "poker-arena"], lake)
    ofc, two_four = load_rules("ofc"), load_rules("classic-2-4")
    report = rescore(lake, [ofc, two_four])
    assert (asked(report, ofc).recorded_checked, asked(report, ofc).recorded_differing) == (2 + 4, 1)
    assert (asked(report, two_four).recorded_checked, asked(report, two_four).recorded_differing) == (0, 0)
    rows = query(lake, "SELECT * FROM recorded_mismatches")
    assert [(r["hand_id"], r["seat"], r["recorded_points"], r["rescored_points"], r["difference"]) for r in rows] == [
        ("rec-E3", 0, 3, 2, -1),
        ("rec-E3", 1, -3, -2, 1),
    ]
    assert {r["native_rules"] for r in rows} == {ofc.key}
    again = rescore(lake, [ofc])
    assert (again.lake[0].recorded_checked, again.lake[0].recorded_differing) == (6, 1)


# ------------------------------------------------------------ native rules


def test_a_house_rule_file_becoming_known_rescores_the_hands_that_name_it(tmp_path: Path) -> None:
    """Hands recording house rules the lake does not know are scored under their variant's preset; once the
    rule file is given, they are scored again under it, and their old native results are dropped."""
    records = ofc_hands_naming("house", 40, seed=12, naming=10)
    lake = lake_with(tmp_path, records)
    ofc = load_rules("ofc")
    first = rescore(lake, [])
    assert [(n["house_rules"], n["native"], n["how"]) for n in first.natives] == [
        (None, ofc.key, "variant preset"),
        ("house", ofc.key, "house rules unknown"),
    ]
    house = tmp_path / "house.toml"
    house.write_text('extends = "ofc"\nname = "house"\n[scoring]\nscoop_bonus = 5\n')
    rules = load_rules(house)
    second = rescore(lake, [rules])
    assert [(n["house_rules"], n["native"]) for n in second.natives] == [(None, ofc.key), ("house", rules.key)]
    native = query(lake, "SELECT rules, count(*) AS n FROM played_boards GROUP BY ALL ORDER BY 1")
    boards = sum(len(r["players"]) for r in records)
    house_boards = sum(len(r["players"]) for r in records[:10])
    assert native == [{"rules": "house", "n": house_boards}, {"rules": "ofc", "n": boards - house_boards}]
    # The next run, without the file: the lake knows it now, nothing changes.
    assert rescore(lake, []).result_batches == []
    assert query(lake, "SELECT count(*) AS n FROM played_boards") == [{"n": boards}]


def test_a_rule_set_scored_only_as_native_rules_is_completed_when_asked_for(tmp_path: Path) -> None:
    lake = lake_with(tmp_path, random_records(30, seed=13))
    classic = load_rules("classic-1-6")
    rescore(lake, [])
    only = query(lake, f"SELECT count(*) AS n FROM board_results WHERE rules_key = '{classic.key}'")[0]["n"]
    report = rescore(lake, [classic])
    assert asked(report, classic).hands == 30
    every = query(lake, f"SELECT count(*) AS n FROM board_results WHERE rules_key = '{classic.key}'")[0]["n"]
    assert every == sum(len(r["players"]) for r in random_records(30, seed=13)) > only
    assert query(lake, "SELECT count(*) AS n FROM played_boards")[0]["n"] == every


def test_results_of_an_older_format_are_scored_again(tmp_path: Path) -> None:
    """A lake whose results an older version wrote: ofc rescore scores them again, and hides the old files."""
    lake = lake_with(tmp_path, random_records(20, seed=14))
    ofc = load_rules("ofc")
    rescore(lake, [ofc])
    natives_only = {c.rules_key for c in lake.snapshot().covers()} - {ofc.key}
    assert natives_only  # the other variants' presets, scored as those hands' native rules only
    manifest = next(p for p in (lake.root / "_manifests").glob("*.json") if '"rescore"' in p.read_text())
    doc = json.loads(manifest.read_text())
    doc.pop("format")
    manifest.write_text(json.dumps(doc))
    assert lake.snapshot().has_stale
    assert query(lake, "SELECT count(*) AS n FROM board_results") == [{"n": 0}]  # not read
    report = rescore(lake, [])  # by default: the rule sets the older results were asked for
    assert asked(report, ofc).hands == 20
    assert not lake.snapshot().has_stale
    assert lake.snapshot().asked_keys() == [ofc.key]  # the natives are not compared over every hand
    assert {c.rules_key for c in lake.snapshot().covers()} == natives_only | {ofc.key}
    assert query(lake, "SELECT count(*) AS n FROM played_boards")[0]["n"] == sum(
        len(r["players"]) for r in random_records(20, seed=14)
    )


def _played_once(lake: Lake) -> None:
    """Every board of the lake once as played, none twice, none missing."""
    boards = query(lake, "SELECT count(*) AS n FROM boards")[0]["n"]
    played = query(lake, "SELECT count(*) AS n, count(DISTINCT (hand_key, seat)) AS d FROM played_boards")[0]
    assert played == {"n": boards, "d": boards}


def test_native_results_no_hand_needs_any_more_are_dropped_for_good(tmp_path: Path) -> None:
    """Every hand names a house file: scored under the OFC preset until the file is given, then under it. The
    preset's results, native to no hand any more, are hidden; later runs have nothing to do."""
    lake = lake_with(tmp_path, ofc_hands_naming("house", 30, seed=15))
    rescore(lake, [])
    given_file(lake, tmp_path / "house.toml", 'extends = "ofc"\nname = "house"\n[scoring]\nscoop_bonus = 5\n')
    _played_once(lake)
    again = rescore(lake, [])
    assert again.result_batches == []
    _played_once(lake)
    assert query(lake, "SELECT DISTINCT rules FROM board_results") == [{"rules": "house"}]


def test_a_house_file_named_like_a_preset_stays_the_rules_once_given(tmp_path: Path) -> None:
    """Hands recording "ofc": the preset until a file named "ofc" is given, then that file, whatever later runs
    are asked (it is the last rule set of that name the lake recorded)."""
    lake = lake_with(tmp_path, ofc_hands_naming("ofc", 30, seed=16))
    rescore(lake, [])
    mine = given_file(lake, tmp_path / "mine.toml", 'extends = "ofc"\nname = "ofc"\n[scoring]\nscoop_bonus = 4\n')
    _played_once(lake)
    rescore(lake, [load_rules("pineapple")])
    _played_once(lake)
    assert rescore(lake, []).result_batches == []
    native = query(lake, "SELECT DISTINCT rules_key FROM played_boards")
    assert native == [{"rules_key": mine.key}]


def test_a_rule_set_whose_name_cannot_name_a_folder_is_not_native(tmp_path: Path) -> None:
    slash = tmp_path / "slash.toml"
    slash.write_text('extends = "ofc"\nname = "club/house"\n')
    lake = lake_with(tmp_path, ofc_hands_naming("club/house", 10, seed=17))
    report = rescore(lake, [])
    assert {n["how"] for n in report.natives} == {"house rules unknown"}
    native = Natives(given=[load_rules(slash)]).resolve("ofc", "club/house")
    assert (native.rules.name, native.how) == ("ofc", How.MISFIT)
    assert "cannot name a lake folder" in native.why
    _played_once(lake)


def older_copy(kept: Lake, folder: Path, rewrite: Callable[[pa.Table], pa.Table]) -> Lake:
    """A copy of the lake in ``folder`` whose every boards file ``rewrite`` turns into what an older version wrote."""
    older = Lake(shutil.copytree(kept.root, folder))
    files = older.files("boards")
    assert files  # the older lake's boards are rewritten below: none would leave a copy of the newer one
    for f in files:
        pq.write_table(rewrite(pq.read_table(f, partitioning=None)), f)
    return older


def rescored_alike(kept: Lake, older: Lake) -> list[dict[str, Any]]:
    """Both lakes rescored under OFC and classic 2-4: the results of the older one are those of the kept one."""
    rules = [load_rules("ofc"), load_rules("classic-2-4")]
    rescore(kept, rules)
    rescore(older, rules)
    rows = "SELECT * FROM board_results ORDER BY rules_key, hand_key, seat"
    expected = query(kept, rows)
    assert query(older, rows) == expected
    return expected


def test_boards_ingested_before_streets_were_kept_get_them_from_the_placements(tmp_path: Path) -> None:
    """A lake whose boards files lack each card's street (an older ingest): the streets come from the placements
    table, partitions without placements (classic) included, and every result is the same."""
    kept = lake_with(tmp_path, make_records(60, seed=3))
    older = older_copy(kept, tmp_path / "older", lambda table: table.drop_columns(["streets", "discard_streets"]))
    expected = rescored_alike(kept, older)
    assert any(r["dead_street"] is not None for r in expected)


def _cards_as_lists(table: pa.Table) -> pa.Table:
    """A boards table of lake format 3 (13 bytes of cards a board) as format 2 wrote it (a list of 13 codes)."""
    assert table.schema.field("cards").type == pa.binary(13)
    listed = card_codes(table.column("cards")).cast(pa.list_(pa.uint8(), 13))
    return table.set_column(table.schema.get_field_index("cards"), "cards", listed)


def test_boards_whose_cards_an_older_lake_holds_as_lists_read_the_same(tmp_path: Path) -> None:
    """Boards files of lake format 2 hold each board's cards as a list of 13 codes, format 3 as 13 bytes: queries,
    lookups and a rescore read both alike."""
    kept = lake_with(tmp_path, make_records(40, seed=9))
    older = older_copy(kept, tmp_path / "older", _cards_as_lists)
    cards = "SELECT hand_key, seat, cards, board_text(cards) AS text FROM boards ORDER BY hand_key, seat"
    assert query(older, cards) == query(kept, cards)
    assert len(query(kept, cards)[0]["cards"]) == 13
    rescored_alike(kept, older)
    keys = ",".join(str(r["hand_key"]) for r in query(kept, "SELECT hand_key FROM hands LIMIT 5"))
    looked = [
        named.run(connect(lake), lake.snapshot(), "hand_boards", {"hands": keys}).to_pylist() for lake in (kept, older)
    ]
    assert looked[0] == looked[1]
    assert {len(r["cards"]) for r in looked[0]} == {13}
