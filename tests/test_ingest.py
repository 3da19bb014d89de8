"""Ingest into the lake: nothing lost, nothing twice, nothing half-written."""

from __future__ import annotations

import copy
import gzip
import json
import zipfile
from itertools import accumulate
from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest
from typer.testing import CliRunner

from ofc.pipeline.cli import app
from ofc.pipeline.ingest import jsonl
from ofc.pipeline.ingest.ingest_run import ingest
from ofc.pipeline.lake.store import Lake
from ofc.pipeline.paths import SAMPLES
from ofc.pipeline.query.db import QueryError, connect, run_query

runner = CliRunner()
EXAMPLES = SAMPLES / "worked-examples.jsonl"


def records() -> list[dict]:
    return [json.loads(line) for line in EXAMPLES.read_text().splitlines()]


def write_jsonl(path: Path, recs: list[dict | str]) -> Path:
    path.write_text("\n".join(r if isinstance(r, str) else json.dumps(r) for r in recs) + "\n")
    return path


def count(lake: Lake, sql: str) -> int:
    return run_query(connect(lake), sql).column(0)[0].as_py()


def test_samples_go_in_whole_and_a_second_run_adds_nothing(tmp_path: Path) -> None:
    lake = Lake(tmp_path / "lake")
    first = ingest([SAMPLES], lake)
    t = first.totals
    assert t.read == t.accepted + t.quarantined + t.duplicates
    assert t.accepted == t.read > 0
    formats = {Path(f.source).name: f.format for f in first.files}
    assert formats["worked-examples.jsonl"] == "jsonl"
    assert formats["ofc.jsonl"] == "poker-arena"
    assert formats["club-night.csv"] == "scoresheet"
    hands = count(lake, "SELECT count(*) FROM hands")
    assert hands == t.accepted
    boards = count(lake, "SELECT count(*) FROM boards")
    assert boards == count(lake, "SELECT sum(n_players) FROM hands")
    assert count(lake, "SELECT count(*) FROM placements") > 0  # poker-arena records placements

    second = ingest([SAMPLES], lake)
    assert second.totals.accepted == 0
    assert second.totals.duplicates == second.totals.read == t.read
    assert all(f.skipped for f in second.files)
    assert count(lake, "SELECT count(*) FROM hands") == hands
    assert count(lake, "SELECT count(*) FROM batches") == 2


def test_a_hand_becomes_whole_rows_of_the_hands_and_boards_tables(tmp_path: Path) -> None:
    """E1 of the worked examples as the lake holds it, every column (less the partition columns, variant and
    month, which the folders hold). Keys, hashes and card codes are literal: every lake written so far holds
    them, so a change to them would make every hand new again."""
    lake = Lake(tmp_path / "lake")
    report = ingest([EXAMPLES], lake)
    key = 9647492355355214841
    hands = [r for r in lake.read("hands").to_pylist() if r["hand_id"] == "E1"]
    assert hands == [
        {
            "hand_key": key,
            "batch": report.batch,
            "content_hash": 9820193140160042113,
            "record_hash": 16146206272770294167,
            "hand_id": "E1",
            "source": None,
            "played_at": None,
            "site": None,
            "table": None,
            "session": None,
            "hand_number": None,
            "button": None,
            "house_rules": "ofc",
            "n_players": 2,
            "source_file": str(EXAMPLES),
            "source_line": 1,
        }
    ]
    board = {
        "hand_key": key,
        "batch": report.batch,
        "misset": False,
        "fantasyland": False,
        "fantasyland_cards": 0,
        "surrendered": False,
        "natural": None,
        "discards": [],
        "points": None,
        "stack": None,
        "streets": None,
        "discard_streets": None,
    }
    boards = [r for r in lake.read("boards").to_pylist() if r["hand_key"] == key]
    assert boards == [
        # Qh Qd 4c / 9s 9h 9c Kd 3h / Ts Js Qs Ks As
        {**board, "seat": 0, "player": "A", "cards": bytes([42, 41, 8, 31, 30, 28, 45, 6, 35, 39, 43, 47, 51])},
        # 6h 6d 2c / 7h 8d 9d Th Jc / Ah Ad Ac 5s 5d
        {**board, "seat": 1, "player": "B", "cards": bytes([18, 17, 0, 22, 25, 29, 34, 36, 50, 49, 48, 15, 13])},
    ]


def test_duplicates_are_the_same_hand_with_the_same_content(tmp_path: Path) -> None:
    recs = records()
    same_id = copy.deepcopy(recs[0])
    same_id["players"][0]["name"] = "renamed"  # same source and hand id, another player: a conflict
    same_cards = copy.deepcopy(recs[1])
    same_cards["hand_id"] = "E2-copy"  # another id, the same record: the same hand, a duplicate
    lake = Lake(tmp_path / "lake")
    report = ingest([write_jsonl(tmp_path / "a.jsonl", [*recs, same_id, same_cards])], lake)
    f = report.files[0]
    assert (f.read, f.accepted, f.duplicates, f.quarantined) == (6, 4, 1, 1)
    # A changed file with the same hands: parsed again (new bytes), every hand a duplicate.
    report = ingest([write_jsonl(tmp_path / "b.jsonl", list(reversed(recs)))], lake)
    assert (report.totals.read, report.totals.duplicates) == (4, 4)


def bad_records() -> list[tuple[dict | str, str]]:
    good = records()[0]

    def variant(**change: object) -> dict:
        r = copy.deepcopy(good)
        r.update(change)
        return r

    def player(i: int, **change: object) -> dict:
        r = copy.deepcopy(good)
        r["hand_id"] = f"p{i}-{len(change)}-{next(iter(change))}"
        r["players"][i].update(change)
        return r

    five = variant(hand_id="five", players=[copy.deepcopy(good["players"][0])] * 5)
    return [
        ("{not json", "not valid JSON: Expecting property name enclosed in double quotes: line 1 column 2 (char 1)"),
        (
            variant(hand_id="v", variant="poker"),
            "variant: unknown 'poker' (known: classic, ofc, pineapple, progressive-pineapple, pineapple-27)",
        ),
        (player(0, top=["Qh", "Qd", "4x"]), "players[0].top[2]: not a card: '4x'"),
        (player(1, middle=["7h", "8d", "9d", "Th"]), "players[1].middle: expected 5 cards, got 4"),
        (
            player(1, top=["Qh", "6d", "2c"]),
            "players[1].top[0]: Qh is dealt twice in this hand; the other is at players[0].top[0]",
        ),
        (five, "players: a hand has 2 to 4 players, got 5"),
        (
            player(0, fantasyland=True, fantasyland_cards=15),
            "players[0].fantasyland_cards: 15 cards are not dealt in Fantasyland in this variant",
        ),
        (player(0, surrendered=True), "players[0].surrendered: only classic has surrender"),
        (variant(hand_id="t", played_at="yesterday"), "played_at: not an ISO time: 'yesterday'"),
        (
            player(0, placements=[{"street": 1, "card": "As", "row": "top"}]),
            "players[0].placements: the placed cards differ from the final rows and discards",
        ),
        (variant(hand_id="x", extra=1), "extra: unknown field"),
    ]


def test_every_bad_record_is_quarantined_with_line_and_reason(tmp_path: Path) -> None:
    bad = bad_records()
    lines = [*records(), *(r for r, _ in bad)]
    path = write_jsonl(tmp_path / "mixed.jsonl", lines)
    lake = Lake(tmp_path / "lake")
    report = ingest([path], lake)
    f = report.files[0]
    assert (f.read, f.accepted, f.quarantined, f.duplicates) == (len(lines), 4, len(bad), 0)
    text = path.read_text().splitlines(keepends=True)
    starts = [0, *accumulate(len(line.encode()) for line in text)]
    expected = [
        {
            "batch": report.batch,
            "source_file": str(path),
            "line": number,
            "byte_offset": starts[number - 1],
            "hand_id": record["hand_id"] if isinstance(record, dict) else None,
            "reason": reason,
        }
        for number, (record, reason) in enumerate(bad, start=5)
    ]
    rows = sorted(lake.read("quarantine").to_pylist(), key=lambda r: r["line"])
    assert [{k: v for k, v in r.items() if k != "raw"} for r in rows] == expected
    # ``raw``: the line's text where the reader rejects the line; a record the validation step rejects, as the
    # canonical JSON of the same record, which can be corrected and ingested again.
    lines_read_raw = {5: text[4].rstrip("\n"), 15: text[14].rstrip("\n")}
    assert {r["line"]: r["raw"] for r in rows if r["line"] in lines_read_raw} == lines_read_raw
    validated = {r["line"]: json.loads(r["raw"]) for r in rows if r["line"] not in lines_read_raw}
    assert validated == {n: record for n, (record, _) in enumerate(bad, start=5) if n not in lines_read_raw}
    listed = runner.invoke(app, ["quarantine", "--lake", str(lake.root), "--json"])
    assert listed.exit_code == 0
    assert len(listed.stdout.splitlines()) == len(bad)


def test_archives_and_directories(tmp_path: Path) -> None:
    src = tmp_path / "in"
    (src / "deep").mkdir(parents=True)
    recs = records()
    with gzip.open(src / "a.jsonl.gz", "wt") as fh:
        fh.write("\n".join(json.dumps(r) for r in recs[:2]) + "\n")
    with zipfile.ZipFile(src / "deep" / "b.zip", "w") as zf:
        zf.writestr("inside/b.jsonl", "\n".join(json.dumps(r) for r in recs[2:]) + "\n")
    (src / "notes.md").write_text("# not a history\n")
    report = ingest([src], Lake(tmp_path / "lake"))
    assert [Path(f.source.split("!")[0]).name for f in report.files] == ["a.jsonl.gz", "b.zip"]
    assert report.totals.accepted == 4


def test_unsafe_zip_member_is_refused(tmp_path: Path) -> None:
    bad = tmp_path / "evil.zip"
    with zipfile.ZipFile(bad, "w") as zf:
        zf.writestr("../escape.jsonl", "{}\n")
    result = runner.invoke(app, ["ingest", str(bad), "--lake", str(tmp_path / "lake")])
    assert result.exit_code == 2
    assert "unsafe path" in result.output


def test_a_crashed_batch_is_never_visible_and_is_cleaned_up(tmp_path: Path) -> None:
    lake = Lake(tmp_path / "lake")
    ingest([EXAMPLES], lake)
    before = count(lake, "SELECT count(*) FROM hands")
    # A writer that dies after moving files into place but before its manifest.
    writer = lake.begin("ingest")
    hands = lake.read("hands")
    extra = hands.set_column(hands.schema.get_field_index("hand_id"), "hand_id", pa.array(["ghost"] * hands.num_rows))
    writer.write(
        "hands",
        extra.append_column("variant", pa.array(["ofc"] * hands.num_rows)).append_column(
            "month", pa.array(["unknown"] * hands.num_rows)
        ),
    )
    for f in [*writer._open.values()]:
        f.writer.close()
        f.final.parent.mkdir(parents=True, exist_ok=True)
        f.staged.replace(f.final)
    orphans = list((lake.root / "hands").rglob(f"{writer.batch}-*.parquet"))
    assert orphans
    assert count(lake, "SELECT count(*) FROM hands") == before  # not in any manifest: not visible
    ingest([EXAMPLES], lake)  # the next writer cleans up
    assert not any(f.exists() for f in orphans)
    assert count(lake, "SELECT count(*) FROM hands") == before


def test_validate_writes_nothing_and_exit_codes(tmp_path: Path) -> None:
    lake_dir = tmp_path / "lake"
    result = runner.invoke(app, ["validate", str(EXAMPLES), "--json"])
    assert result.exit_code == 0
    summary = json.loads(result.stdout)
    assert summary["total"] == {"read": 4, "accepted": 4, "quarantined": 0, "duplicates": 0, "balanced": True}
    assert not lake_dir.exists()
    junk = tmp_path / "junk.txt"
    junk.write_text("hello\n")
    nothing = runner.invoke(app, ["ingest", str(junk), "--lake", str(lake_dir)])
    assert nothing.exit_code == 1
    assert "format not recognised" in nothing.output
    missing = runner.invoke(app, ["ingest", str(tmp_path / "nope.jsonl"), "--lake", str(lake_dir)])
    assert missing.exit_code == 2
    partly = runner.invoke(app, ["ingest", str(junk), str(EXAMPLES), "--lake", str(lake_dir)])
    assert partly.exit_code == 1, "a file that could not be read fails the command"
    assert f"error: {junk}: format not recognised" in partly.output
    assert count(Lake(lake_dir), "SELECT count(*) FROM hands") == 4, "the readable file is ingested all the same"


def test_sql_is_read_only(tmp_path: Path) -> None:
    lake = Lake(tmp_path / "lake")
    ingest([EXAMPLES], lake)
    ok = runner.invoke(app, ["sql", "SELECT count(*) AS n FROM hand_boards", "--lake", str(lake.root), "--json"])
    assert json.loads(ok.stdout) == {"n": 9}
    csv = runner.invoke(app, ["sql", "SELECT hand_id FROM hands ORDER BY hand_id", "--lake", str(lake.root), "--csv"])
    assert csv.stdout.splitlines() == ['"hand_id"', '"E1"', '"E2"', '"E3"', '"E4"']
    con = connect(lake)
    for statement in (
        "COPY hands TO 'out.csv'",
        "CREATE TABLE t AS SELECT 1",
        "INSERT INTO hands SELECT * FROM hands",
        "SELECT * FROM read_csv('/etc/passwd')",
        "ATTACH 'x.db'",
        "SET enable_external_access=true",
    ):
        with pytest.raises(QueryError):
            run_query(con, statement)
    refused = runner.invoke(app, ["sql", "DROP VIEW hands", "--lake", str(lake.root)])
    assert refused.exit_code == 2
    assert not list(tmp_path.glob("*.csv"))


def test_hand_numbers_repeat_across_sessions_without_being_duplicates(tmp_path: Path) -> None:
    # Two club nights both number their hands 1, 2, ...: same source and hand id, other sessions.
    sheet = (SAMPLES / "scoresheet" / "club-night.csv").read_text(encoding="utf-8")
    (tmp_path / "friday.csv").write_text(sheet, encoding="utf-8")
    lake = Lake(tmp_path / "lake")
    first = ingest([SAMPLES / "scoresheet" / "club-night.csv"], lake)
    assert first.totals.accepted == 6
    # The same cards again under another session are still the same hands: duplicates by content.
    again = ingest([tmp_path / "friday.csv"], lake)
    assert (again.totals.accepted, again.totals.duplicates) == (0, 6)
    # Different cards under the same hand numbers in another session are new hands.
    recs = records()
    for r in recs:
        r["source"], r["session"] = "club", "monday"
    ingest([write_jsonl(tmp_path / "monday.jsonl", recs)], lake)
    for r in recs:
        r["session"] = "tuesday"
        r["players"] = list(reversed(r["players"]))  # other seats: other content
    tuesday = ingest([write_jsonl(tmp_path / "tuesday.jsonl", recs)], lake)
    assert tuesday.totals.accepted == 4


def test_seen_keys_survive_many_chunks() -> None:
    from ofc.pipeline.ingest.duplicates import KeyMap

    rng = np.random.default_rng(1)
    known = rng.integers(0, 2**63, 5000, dtype=np.uint64)
    known[7] = 0  # the key that marks an empty slot is a key like any other
    values = np.arange(5000, dtype=np.uint64)
    seen = KeyMap(1, known[:1000], values[:1000])
    for start in range(1000, 5000, 200):  # 20 additions: the table grows along the way
        seen.add(known[start : start + 200], values[start : start + 200])
        assert seen.find(known[: start + 200])[0].all()
    found, (got,) = seen.find(known)
    assert found.all()
    assert (got == values).all()
    seen.add(known[:10], values[:10] + 1)  # a key already there keeps its values
    seen.update(known[5:10], values[5:10] + 7)  # unless they are replaced
    assert seen.find(known[:10])[1][0].tolist() == [*range(5), *range(12, 17)]
    others = rng.integers(0, 2**63, 5000, dtype=np.uint64)
    assert not seen.find(np.setdiff1d(others, known))[0].any()


def test_decompression_bombs_are_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import ofc.pipeline.ingest.inputs as inputs

    monkeypatch.setattr(inputs, "RATIO_GRACE", 1 << 16)
    good = write_jsonl(tmp_path / "good.jsonl", records()[:1])
    bomb = b'{"hand_id": "x"' + b" " * (8 << 20) + b"}\n"  # 8 MiB of blanks: deflates about a thousand to one
    (tmp_path / "bomb.jsonl.gz").write_bytes(gzip.compress(bomb))
    with zipfile.ZipFile(tmp_path / "bomb.zip", "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("inner.jsonl", bomb)
    lake = Lake(tmp_path / "lake")
    report = ingest([good, tmp_path / "bomb.jsonl.gz", tmp_path / "bomb.zip"], lake, fmt="jsonl")
    errors = {Path(f.source.split("!")[0]).name: f.error for f in report.files}
    assert "possible decompression bomb" in errors["bomb.jsonl.gz"]
    assert "possible decompression bomb" in errors["bomb.zip"]
    assert errors["good.jsonl"] == ""
    assert report.totals.accepted == 1
    # A well-compressed but honest archive under the limits goes in.
    (tmp_path / "ok.jsonl.gz").write_bytes(gzip.compress(good.read_bytes()))
    assert ingest([tmp_path / "ok.jsonl.gz"], None).totals.accepted == 1


def test_symbolic_links_do_not_lead_out_of_an_input_directory(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    write_jsonl(outside / "secret.jsonl", records()[:2])
    inputs = tmp_path / "in"
    (inputs / "nested").mkdir(parents=True)
    write_jsonl(inputs / "mine.jsonl", records()[2:3])
    (inputs / "escape.jsonl").symlink_to(outside / "secret.jsonl")
    (inputs / "nested" / "dir").symlink_to(outside, target_is_directory=True)
    (inputs / "alias.jsonl").symlink_to(inputs / "mine.jsonl")  # inside the root: followed
    report = ingest([inputs], None)
    names = sorted(Path(f.source).name for f in report.files)
    assert names == ["alias.jsonl", "mine.jsonl"]
    assert report.totals.accepted == 1
    assert report.totals.duplicates == 1


def test_an_archive_cut_short_keeps_what_it_held_and_says_so(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A .gz that ends early: the records before the fault are ingested, the manifest lists the file with its
    counts and the error, and the command says so on stderr and exits 1."""
    monkeypatch.setattr(jsonl, "BLOCK_BYTES", 1 << 20)  # blocks of 1 MB, so that several are read before the cut
    lines = [
        json.dumps({**json.loads(line), "hand_id": f"cut-{i}"})
        for i, line in enumerate(EXAMPLES.read_text().splitlines() * 7000)
    ]
    whole = gzip.compress(("\n".join(lines) + "\n").encode())
    cut = tmp_path / "cut.jsonl.gz"
    cut.write_bytes(whole[: len(whole) * 3 // 4])
    lake = tmp_path / "lake"
    done = runner.invoke(app, ["ingest", str(cut), "--lake", str(lake), "--json"])
    assert done.exit_code == 1
    (file,) = json.loads(done.stdout)["files"]
    assert file["error"]
    assert 0 < file["read"] < len(lines)
    assert file["read"] == file["accepted"] + file["quarantined"] + file["duplicates"]
    (manifest,) = Lake(lake).manifests()
    (source,) = manifest["sources"]
    assert (source["path"], source["read"], source["error"]) == (str(cut), file["read"], file["error"])
    assert count(Lake(lake), "SELECT count(*) FROM hands") == file["accepted"]
    assert f"error: {cut}: " in done.stderr


def test_a_folder_walk_passes_over_what_is_not_a_history(tmp_path: Path) -> None:
    """Lock files, thumbnails, hidden folders, files in the making and a lake inside the folder are not read."""
    from ofc.pipeline.ingest.inputs import sources

    folder = tmp_path / "club"
    (folder / ".cache").mkdir(parents=True)
    (folder / "night.csv").write_bytes((SAMPLES / "scoresheet" / "club-night.csv").read_bytes())
    (folder / "~$league.xlsx").write_bytes(b"\x00lock")  # Excel's lock file beside an open workbook
    (folder / "Thumbs.db").write_bytes(b"\xd0\xcf\x11\xe0 not SQLite")
    (folder / ".cache" / "old.csv").write_text("hand,player,top,middle,bottom\n")
    (folder / "copying.jsonl.part").write_text("{")
    lake = Lake(folder / "lake")
    ingest([folder / "night.csv"], lake)  # its manifests are JSON, in the folder walked
    assert [Path(s.name).name for s in sources(folder)] == ["night.csv"]
    again = ingest([folder], lake)
    assert [(Path(f.source).name, f.error, f.duplicates) for f in again.files] == [("night.csv", "", 6)]


def test_the_key_filters_of_a_file_hold_the_hands_of_each_row_group(tmp_path: Path) -> None:
    """A table read by hand key carries in each row group a Bloom filter of its hand keys, made for the hands that
    row group holds: a file whose first rows are three boards still filters the 32,768 hands written after them,
    and a reader finds a hand by it. The placements, never looked up by hand, carry none."""
    import duckdb
    import pyarrow.parquet as pq

    from ofc.pipeline.lake.file_layout import key_filter, writer_options

    keys = np.random.default_rng(7).permutation(np.arange(1, 2**40, 2**40 // 40_000, dtype=np.uint64))[:32_771]
    table = pa.table({"hand_key": pa.array(keys), "points": pa.array(np.arange(keys.size, dtype=np.int32))})
    first, rest = table.slice(0, 3), table.slice(3)
    path = tmp_path / "results.parquet"
    options = writer_options("board_results", table.schema) | key_filter("board_results", first)
    with pq.ParquetWriter(path, table.schema, **options) as writer:
        writer.write_table(first)
        writer.write_table(rest)
    meta = pq.read_metadata(path)
    sizes = [meta.row_group(i).column(0).bloom_filter_length for i in range(meta.num_row_groups)]
    assert len(sizes) == 2
    assert sizes[0] < 1_024 < 16_384 < sizes[1]  # each cut to its hands; 32,768 at 0.1 take 32 KB
    hand = int(keys[-1])
    found = duckdb.sql(f"SELECT points FROM read_parquet('{path}') WHERE hand_key = {hand}").fetchall()
    assert found == [(keys.size - 1,)]
    assert key_filter("placements", table) == {}
