"""Hostile and broken input: whatever the bytes, nothing crashes and every record is accounted for.

Each property feeds generated input to the real entry points (``ingest``, ``load_rules``) and checks
that the run ends normally, that each record is accepted, quarantined with a reason or counted as a
duplicate (records read = accepted + quarantined + duplicates), and that the lake holds exactly the
accepted hands. ``make fuzz`` runs the same properties with many more examples
(``OFC_FUZZ_EXAMPLES``).
"""

from __future__ import annotations

import json
import os
import random
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ofc.pipeline.ingest.formats import FORMATS
from ofc.pipeline.ingest.ingest_run import ingest
from ofc.pipeline.lake.store import Lake
from ofc.pipeline.paths import SAMPLES
from ofc.pipeline.rules.files import RuleSetError, load_rules, preset_names
from ofc.schemas.hand import HandRecord

SAMPLE_FILES = {
    "jsonl": SAMPLES / "worked-examples.jsonl",
    "poker-arena": SAMPLES / "poker-arena" / "ofc.jsonl",
    "scoresheet": SAMPLES / "scoresheet" / "club-night.csv",
    "workbook": SAMPLES / "workbook" / "club-league.xlsx",
    "fpdb": SAMPLES / "fpdb" / "ofchand_48213377.json",
}
TEXT_SAMPLES = [name for name, path in SAMPLE_FILES.items() if path.suffix in {".jsonl", ".json", ".csv"}]
EXAMPLES = int(os.environ.get("OFC_FUZZ_EXAMPLES", "40"))
"""Examples per property: a few in ``make test``, thousands in ``make fuzz``."""
FUZZ = settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


def check_run(path: Path, fmt: str | None, tmp: Path) -> None:
    """Ingest ``path`` twice into a fresh lake: balanced both times, nothing new the second time.

    The file is either refused whole, with an error naming it and nothing counted, or read in the format asked
    for (or a known one) with every record accounted for: each quarantined record is a row naming the file,
    its line and a reason, and is counted under its reason.
    """
    lake = Lake(Path(tempfile.mkdtemp(dir=tmp)) / "lake")
    first = ingest([path], lake, fmt=fmt)
    (f,) = first.files
    assert f.balanced(), f
    if f.error:
        assert f.error.startswith(f"{path}: "), f
        assert f.counts() == {"read": 0, "accepted": 0, "quarantined": 0, "duplicates": 0}, f
    else:
        assert f.format == fmt if fmt else f.format in FORMATS, f
        assert f.reasons.total() == f.quarantined, f
    t = first.totals
    assert lake.read("hands", ["hand_key"]).num_rows == t.accepted
    quarantine = lake.read("quarantine", ["source_file", "line", "reason"]).to_pylist()
    assert len(quarantine) == t.quarantined
    for row in quarantine:
        assert (row["source_file"], row["line"] >= 1, bool(row["reason"])) == (str(path), True, True), row
    again = ingest([path], lake, fmt=fmt)
    assert again.totals.accepted == 0
    assert again.totals.duplicates == again.totals.read == t.read  # a file read before is recognised whole
    assert lake.read("hands", ["hand_key"]).num_rows == t.accepted


def damage(data: bytes, rnd: random.Random, edits: int) -> bytes:
    """Random byte edits: replace, insert, delete, duplicate a span, truncate."""
    out = bytearray(data)
    for _ in range(edits):
        if not out:
            break
        at = rnd.randrange(len(out))
        kind = rnd.randrange(5)
        if kind == 0:
            out[at] = rnd.randrange(256)
        elif kind == 1:
            out[at:at] = bytes(rnd.choice([b'"', b"{", b"]", b",", b"\n", b"\\", b"\x00", b"\xff", b"\xe2\x99"]))
        elif kind == 2:
            del out[at : at + rnd.randrange(1, 20)]
        elif kind == 3:
            out[at:at] = out[at : at + rnd.randrange(1, 200)]
        else:
            del out[at:]
    return bytes(out)


@FUZZ
@given(fmt=st.sampled_from([None, *FORMATS]), source=st.sampled_from(list(SAMPLE_FILES)), seed=st.integers(0, 2**32))
def test_damaged_samples(fmt: str | None, source: str, seed: int, tmp_path: Path) -> None:
    rnd = random.Random(seed)
    path = Path(tempfile.mkdtemp(dir=tmp_path)) / f"d{SAMPLE_FILES[source].suffix}"
    path.write_bytes(damage(SAMPLE_FILES[source].read_bytes(), rnd, rnd.randrange(1, 12)))
    check_run(path, fmt, tmp_path)


def fpdb_database() -> bytes:
    """fpdb-3's OFC tables with the test captures, as the bytes of a database file."""
    import sqlite3

    script = (Path(__file__).parent / "data" / "fpdb" / "capture.sql").read_text(encoding="utf-8")
    connection = sqlite3.connect(":memory:")
    connection.executescript(script)
    data = connection.serialize()
    connection.close()
    return data


@FUZZ
@given(fmt=st.sampled_from([None, "fpdb"]), seed=st.integers(0, 2**32))
def test_damaged_database(fmt: str | None, seed: int, tmp_path: Path) -> None:
    rnd = random.Random(seed)
    path = Path(tempfile.mkdtemp(dir=tmp_path)) / "fpdb.db3"
    path.write_bytes(damage(fpdb_database(), rnd, rnd.randrange(1, 12)))
    check_run(path, fmt, tmp_path)


@FUZZ
@given(fmt=st.sampled_from([None, *FORMATS]), data=st.binary(max_size=4000))
def test_arbitrary_bytes(fmt: str | None, data: bytes, tmp_path: Path) -> None:
    path = Path(tempfile.mkdtemp(dir=tmp_path)) / "x.jsonl"
    path.write_bytes(data)
    check_run(path, fmt, tmp_path)


@pytest.mark.parametrize("source", TEXT_SAMPLES)
@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-le", "utf-8-sig", "latin-1", "utf-32"])
def test_other_encodings(source: str, encoding: str, tmp_path: Path) -> None:
    """Text re-encoded (BOMs, UTF-16, Latin-1 names): read where it can be, quarantined where not, never a crash."""
    text = SAMPLE_FILES[source].read_text(encoding="utf-8")
    text = text.replace('"A"', '"Zoë"') if source == "jsonl" else text
    path = tmp_path / f"x{SAMPLE_FILES[source].suffix}"
    path.write_bytes(text.encode(encoding, errors="replace"))
    check_run(path, None, tmp_path)
    check_run(path, source, tmp_path)


def test_enormous_and_deeply_nested_lines(tmp_path: Path) -> None:
    sample = SAMPLE_FILES["jsonl"].read_bytes()
    nested = b"[" * 200_000 + b"]" * 200_000
    nested_object = b'{"hand_id": "n", "players": ' + b"[" * 100_000 + b"]" * 100_000 + b"}"
    wide = b'{"hand_id": "w", "variant": "ofc", "players": [' + b'{"name": "x"},' * 200_000 + b"{}]}"
    path = tmp_path / "x.jsonl"
    path.write_bytes(sample + nested + b"\n" + nested_object + b"\n" + wide + b"\n" + sample)
    lake = Lake(tmp_path / "lake")
    report = ingest([path], lake, fmt="jsonl")
    t = report.totals
    assert (t.read, t.accepted, t.quarantined, t.duplicates) == (11, 4, 3, 4)


CARDS = [r + s for r in "23456789TJQKA" for s in "cdhs"]
WEIRD = [None, "", "Xx", "10d", "A♠", 7, -1, 1.5, True, [], {}, "As", "as", "AS", " As", "A s"]


def _cards(draw: Any, n: int) -> list[Any]:
    return [draw(st.sampled_from(CARDS)) if draw(st.integers(0, 9)) else draw(st.sampled_from(WEIRD)) for _ in range(n)]


@st.composite
def records(draw: Any) -> dict[str, Any]:
    """Records near the canonical shape: often valid, often wrong in one or more fields."""
    players = []
    for i in range(draw(st.integers(0, 5))):
        sizes = [
            draw(st.sampled_from([3, 3, 3, 2, 4])),
            draw(st.sampled_from([5, 5, 5, 6])),
            draw(st.sampled_from([5, 5, 4])),
        ]
        player: dict[str, Any] = {
            "name": draw(st.sampled_from([f"p{i}", f"p{i}", "", "dup", "<script>alert(1)</script>", 5])),
            "top": _cards(draw, sizes[0]),
            "middle": _cards(draw, sizes[1]),
            "bottom": _cards(draw, sizes[2]),
        }
        for key, values in (
            ("seat", [i, i, -1, 16, "1", None]),
            ("fantasyland", [True, False, "yes", None]),
            ("fantasyland_cards", [13, 14, 15, 17, 12, 18, None]),
            ("surrendered", [True, False]),
            ("natural", ["dragon", "six_pairs", "nonsense", None]),
            ("discards", [[], ["2c"], ["2c", "3c", "4c", "5c"], None]),
            ("points", [0, 5, -5, 2**40, "x", None]),
            ("stack", [100, 0, -5, None]),
            ("placements", [None, [], [{"street": 1, "card": "As", "row": "top"}], [{"street": 0}]]),
            ("extra", [1]),
        ):
            if draw(st.integers(0, 4)) == 0:
                player[key] = draw(st.sampled_from(values))
        players.append(player)
    record: dict[str, Any] = {
        "hand_id": draw(st.sampled_from(["h1", "h2", "h3", "", None, 7])),
        "variant": draw(
            st.sampled_from(["ofc", "pineapple", "classic", "progressive-pineapple", "pineapple-27", "stud", None])
        ),
        "players": players if draw(st.integers(0, 9)) else draw(st.sampled_from([None, "x", {}, [1, 2]])),
    }
    for key, values in (
        ("played_at", ["2026-11-01T20:00:00Z", "2026-11-01", "yesterday", "2026-13-45T99:00:00", None]),
        ("button", [0, 1, 15, 16, -1, None]),
        ("hand_number", [1, -1, None]),
        ("source", ["app", None, 3]),
        ("bogus", [True]),
    ):
        if draw(st.integers(0, 3)) == 0:
            record[key] = draw(st.sampled_from(values))
    return record


@FUZZ
@given(batch=st.lists(records(), min_size=1, max_size=30))
def test_generated_records_are_accepted_only_if_valid(batch: list[dict[str, Any]], tmp_path: Path) -> None:
    path = Path(tempfile.mkdtemp(dir=tmp_path)) / "x.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in batch))
    lake = Lake(Path(tempfile.mkdtemp(dir=tmp_path)) / "lake")
    report = ingest([path], lake, fmt="jsonl")
    t = report.totals
    assert t.read == len(batch) == t.accepted + t.quarantined + t.duplicates
    accepted = lake.read("hands", ["source_line"]).column("source_line").to_pylist()
    for line in accepted:  # whatever the bulk checks accept, the record model accepts too
        HandRecord.model_validate(batch[line - 1])


TOML_VALUES = st.recursive(
    st.none().map(lambda _: "x")
    | st.booleans()
    | st.integers(-(2**70), 2**70)
    | st.floats(allow_nan=True)
    | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=10), inner, max_size=4),
    max_leaves=12,
)


def _rules_doc(draw: Any) -> dict[str, Any]:
    """A rule-set document: the real sections and keys, with generated values, plus strays."""
    base: dict[str, Any] = {}
    names = ["game", "scoring", "fouls", "royalties", "naturals", "surrender", "fantasyland", "stakes", "bogus"]
    keys = ["variant", "players", "row_value", "scoop_bonus", "entry", "cards", "stay", "values", "top", "penalty", "x"]
    for _ in range(draw(st.integers(0, 6))):
        section = base.setdefault(draw(st.sampled_from(names)), {})
        section[draw(st.sampled_from(keys))] = draw(TOML_VALUES)
    if draw(st.booleans()):
        base["extends"] = draw(st.sampled_from([*preset_names(), "nowhere", "../../etc/passwd"]))
    return base


def _toml(doc: dict[str, Any]) -> str:
    """A small TOML writer for generated documents (values TOML cannot hold become strings)."""

    def value(v: Any) -> str:
        if isinstance(v, bool):
            return "true" if v else "false"
        if isinstance(v, int):
            return str(v)
        if isinstance(v, float):
            return repr(v) if v == v and abs(v) != float("inf") else ("nan" if v != v else ("inf" if v > 0 else "-inf"))
        if isinstance(v, list):
            return "[" + ", ".join(value(x) for x in v) + "]"
        if isinstance(v, dict):
            return "{" + ", ".join(f"{json.dumps(k)} = {value(x)}" for k, x in v.items()) + "}"
        return json.dumps(str(v))

    top = [f"{json.dumps(k)} = {value(v)}" for k, v in doc.items() if not isinstance(v, dict)]
    tables = [
        f"[{json.dumps(k)}]\n" + "\n".join(f"{json.dumps(a)} = {value(b)}" for a, b in v.items())
        for k, v in doc.items()
        if isinstance(v, dict)
    ]
    return "\n".join(top + tables) + "\n"


def loads_or_names_the_problem(path: Path) -> bool:
    """A rule file either loads or fails with RuleSetError naming at least one problem; nothing else escapes."""
    try:
        return bool(load_rules(path).content_hash)
    except RuleSetError as exc:
        return bool(exc.problems)


@FUZZ
@given(data=st.data())
def test_rule_files_load_or_fail_with_a_path(data: Any, tmp_path: Path) -> None:
    doc = _rules_doc(data.draw)
    path = tmp_path / "house.toml"
    path.write_text(_toml(doc))
    assert loads_or_names_the_problem(path)


@FUZZ
@given(text=st.text(max_size=300) | st.binary(max_size=300).map(lambda b: b.decode("latin-1")))
def test_any_text_as_a_rule_file(text: str, tmp_path: Path) -> None:
    path = tmp_path / "house.toml"
    path.write_text(text, encoding="utf-8", errors="surrogateescape")
    assert loads_or_names_the_problem(path)
