"""Golden files: what each sample in ``data/samples`` turns into, stored as text and compared whole.

For every sample (a file ``ofc ingest`` would read from that folder) the folder
``tests/golden/<sample path without its extension>/`` holds:

- ``records.json``: the canonical records the sample's reader rebuilds, with the line and byte offset of
  each, and the problems it found (formats that rebuild records only: every one but canonical JSONL, which
  is its own record);
- ``lake/<table>.jsonl``: every row of every table the lake holds after the sample is ingested into a fresh
  lake, and ``lake/manifest.json``, the batch's manifest;
- ``rescore/<table>.jsonl`` and ``rescore/manifest.json``: the same after ``rescore`` under the
  :data:`RULES` preset;
- ``score.jsonl``: ``ofc score <sample> --json`` under that preset (it reads every format ``ofc ingest``
  reads).

What changes from run to run or from machine to machine is replaced by a placeholder (see :func:`normalise`):
batch ids (``<ingest>``, ``<rescore>``), the number ending a data file's name (``-NNNN``: writer threads take
numbers in whatever order they start), the repository's location (paths are shown relative to it), times a
batch started and finished (``<time>``) and the package version (``<version>``). Nothing is dropped.

Rows are sorted by a stable key: a hand's rows in the order of the hands in the sample (line, then id), then
by seat and order; see :data:`ORDER`. ``python -m tests.golden`` (``make golden``) writes the files again.
"""

from __future__ import annotations

import hashlib
import json
import re
import tempfile
from collections.abc import Iterable
from datetime import date, datetime
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = Path(__file__).resolve().parent
SAMPLES = ROOT / "data" / "samples"
RULES = "ofc"
"""The preset the samples are rescored and scored under."""
REGENERATE = "make golden  (or: python -m tests.golden)"
REBUILT = ("poker-arena", "scoresheet", "workbook", "fpdb")
"""Formats whose reader rebuilds canonical records (their ``records.json`` is written)."""
INGEST_TABLES = ("hands", "boards", "placements", "quarantine", "batches")
RESULT_TABLES = (
    "board_results",
    "pair_results",
    "board_summary",
    "board_counts",
    "player_sessions",
    "pair_summary",
    "notable_boards",
)
MAX_BYTES = 1 << 20
"""A golden file larger than this keeps its first HEAD_ROWS rows (records and problems), their counts and a
digest of the whole text."""
HEAD_ROWS = 200
ORDER: dict[str, tuple[str, ...]] = {
    "hands": (),
    "boards": ("seat",),
    "placements": ("seat", "order"),
    "quarantine": ("line", "byte_offset", "reason"),
    "batches": (),
    "board_results": ("rules_key", "native", "seat"),
    "pair_results": ("rules_key", "native", "seat_a", "seat_b"),
    "board_summary": ("rules_key", "native", "variant", "player", "day", "n_players", "position", "fantasyland"),
    "board_counts": ("rules_key", "native", "variant", "player", "day", "counted", "value"),
    "player_sessions": ("rules_key", "native", "variant", "player", "day", "session", "n_players"),
    "pair_summary": ("rules_key", "native", "variant", "player_a", "player_b", "day"),
    "notable_boards": ("rules_key", "native", "variant", "player", "kind"),
}
"""Sort columns of each table after the hand (rows with a ``hand_key`` come in the hands' order); ties, if any,
are broken by the row's whole text."""
_FILE_NUMBER = re.compile(r"-\d{4}(?=\.parquet$)")


def samples() -> list[Path]:
    """The sample files ``ofc ingest data/samples`` reads, in its order."""
    from ofc.pipeline.ingest.inputs import HISTORY_SUFFIXES

    return [p for p in sorted(SAMPLES.rglob("*")) if p.is_file() and p.suffix.lower() in HISTORY_SUFFIXES]


def folder(sample: Path) -> str:
    """Where a sample's golden files live, relative to ``tests/golden``: ``poker-arena/ofc``."""
    return sample.relative_to(SAMPLES).with_suffix("").as_posix()


def relative(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


# ---------------------------------------------------------------- text


def pretty(value: Any, indent: int = 0, width: int = 110) -> str:
    """JSON with sorted keys, a value on one line when it fits in ``width``, else one item per line."""
    flat = json.dumps(value, sort_keys=True, ensure_ascii=False)
    if not isinstance(value, dict | list) or not value or indent + len(flat) <= width:
        return flat
    pad = " " * (indent + 2)
    if isinstance(value, dict):
        items = [
            f"{pad}{json.dumps(k, ensure_ascii=False)}: {pretty(v, indent + 2, width)}"
            for k, v in sorted(value.items())
        ]
        return "{\n" + ",\n".join(items) + "\n" + " " * indent + "}"
    items = [pad + pretty(v, indent + 2, width) for v in value]
    return "[\n" + ",\n".join(items) + "\n" + " " * indent + "]"


def jsonl(rows: Iterable[Any]) -> str:
    """One row per line, keys sorted; a text over MAX_BYTES keeps its head, its row count and its digest."""
    lines = [json.dumps(r, sort_keys=True, ensure_ascii=False) for r in rows]
    text = "".join(line + "\n" for line in lines)
    if len(text.encode()) <= MAX_BYTES:
        return text
    digest = hashlib.sha256(text.encode()).hexdigest()
    summary = {"truncated": {"rows": len(lines), "kept": HEAD_ROWS, "sha256_of_all_rows": digest}}
    return "".join(line + "\n" for line in [*lines[:HEAD_ROWS], json.dumps(summary, sort_keys=True)])


def plain(value: Any) -> Any:
    """An Arrow value as JSON: bytes (a board's 13 card codes) as a list of codes, times in ISO form."""
    if isinstance(value, bytes):
        return list(value)
    if isinstance(value, datetime | date):
        return value.isoformat()
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [plain(v) for v in value]
    return value


def normalise(value: Any, names: dict[str, str]) -> Any:
    """``value`` with what differs between runs replaced.

    ``names``: batch ids and the placeholder each becomes. Paths lose the repository's location, data file
    names their number (``<ingest>-NNNN.parquet``), and the keys ``started_at``, ``finished_at`` and
    ``version`` their values.
    """
    if isinstance(value, dict):
        volatile = {"started_at": "<time>", "finished_at": "<time>", "version": "<version>"}
        return {k: volatile[k] if k in volatile else normalise(v, names) for k, v in value.items()}
    if isinstance(value, list):
        return [normalise(v, names) for v in value]
    if isinstance(value, str):
        value = value.replace(f"{ROOT.as_posix()}/", "")
        for batch, placeholder in names.items():
            value = value.replace(batch, placeholder)
        return _FILE_NUMBER.sub("-NNNN", value) if value.endswith(".parquet") else value
    return value


# ---------------------------------------------------------------- what a sample produces


def records(sample: Path, fmt: str) -> str:
    """``records.json``: the reader's canonical records and problems, as it hands them to validation."""
    from ofc.pipeline.ingest.formats import ingester

    out: dict[str, Any] = {"format": fmt, "records": [], "problems": []}
    with sample.open("rb") as stream:
        for chunk in ingester(fmt).read(stream, relative(sample)):
            rows = chunk.records.to_pylist()
            for record, line, offset in zip(rows, chunk.lines.tolist(), chunk.offsets.tolist(), strict=True):
                out["records"].append({"line": line, "offset": offset, "record": record})
            out["problems"].extend(
                {"line": p.line, "offset": p.offset, "reason": p.reason, "hand_id": p.hand_id, "raw": p.raw}
                for p in chunk.problems
            )
    text = pretty(out) + "\n"
    if len(text.encode()) <= MAX_BYTES:
        return text
    digest = hashlib.sha256(text.encode()).hexdigest()
    counts = {"records": len(out["records"]), "problems": len(out["problems"])}
    out = {**out, "records": out["records"][:HEAD_ROWS], "problems": out["problems"][:HEAD_ROWS]}
    out["truncated"] = {**counts, "kept": HEAD_ROWS, "sha256_of_all": digest}
    return pretty(out) + "\n"


def table_rows(root: Path, files: list[Path], table: str) -> list[dict[str, Any]]:
    """Every row of ``table``'s files, with the hive partition columns its folders name."""
    from ofc.schemas.lake import TABLES

    schema = TABLES[table]
    rows = []
    for f in files:
        parts = dict(p.split("=", 1) for p in f.relative_to(root).parent.parts if "=" in p)
        values = {k: v == "true" if pa.types.is_boolean(schema.field(k).type) else v for k, v in parts.items()}
        rows.extend({**row, **values} for row in pq.read_table(f).to_pylist())
    return [plain(r) for r in rows]


def ordered(tables: dict[str, list[dict[str, Any]]], hands: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    """Each table's rows in a stable order: by hand (the hands in sample order), then :data:`ORDER`."""
    hands = sorted(hands, key=lambda h: (h["source_line"], h["hand_id"]))
    place = {h["hand_key"]: i for i, h in enumerate(hands)}

    def key(table: str, row: dict[str, Any]) -> tuple:
        by = tuple(row[c] for c in ORDER[table])
        return (place.get(row.get("hand_key"), -1), by, json.dumps(row, sort_keys=True))

    return {t: sorted(rows, key=lambda r, t=t: key(t, r)) for t, rows in tables.items()}


def lake_files(lake: Any, tables: tuple[str, ...], names: dict[str, str], manifest: dict) -> dict[str, str]:
    """Rows of ``tables`` and a batch's manifest, normalised, as text."""
    snapshot = lake.snapshot()
    read = {t: normalise(table_rows(lake.root, snapshot.files(t), t), names) for t in tables}
    hands = normalise(table_rows(lake.root, snapshot.files("hands"), "hands"), names)
    out = {f"{t}.jsonl": jsonl(rows) for t, rows in ordered(read, hands).items()}
    out["manifest.json"] = pretty(normalise(manifest, names)) + "\n"
    return out


def score(sample: Path) -> str:
    """``score.jsonl``: what ``ofc score <sample> --json`` prints under :data:`RULES`, one hand a line."""
    from typer.testing import CliRunner

    from ofc.pipeline.cli import app

    result = CliRunner().invoke(app, ["score", str(sample), "--rules", RULES, "--json"])
    if result.exit_code != 0:
        raise RuntimeError(f"ofc score {relative(sample)} failed ({result.exit_code}): {result.output}")
    return jsonl(json.loads(line) for line in result.stdout.splitlines() if line.strip())


def render(sample: Path, scratch: Path | None = None) -> dict[str, str]:
    """Every golden file of ``sample``: path relative to its folder -> text. ``scratch``: where the lake goes."""
    if scratch is None:
        with tempfile.TemporaryDirectory() as tmp:
            return render(sample, Path(tmp))
    from ofc.pipeline.ingest.ingest_run import ingest
    from ofc.pipeline.lake.store import Lake
    from ofc.pipeline.rescore.rescore_run import rescore
    from ofc.pipeline.rules.files import load_rules

    lake = Lake(scratch / "lake")
    report = ingest([sample], lake)
    (fmt,) = {f.format for f in report.files}
    try:
        ingested = lake.manifests()[-1]
        names = {ingested["batch"]: "<ingest>"}
        out = {f"lake/{k}": v for k, v in lake_files(lake, INGEST_TABLES, names, ingested).items()}
        rescore(lake, [load_rules(RULES)])
        scored = lake.manifests()[-1]
        names[scored["batch"]] = "<rescore>"
        out |= {f"rescore/{k}": v for k, v in lake_files(lake, RESULT_TABLES, names, scored).items()}
    finally:
        lake.release()
    if fmt in REBUILT:
        out["records.json"] = records(sample, fmt)
    out["score.jsonl"] = score(sample)  # ofc score reads every format ofc ingest reads
    return dict(sorted(out.items()))


def stored(sample: Path) -> dict[str, str]:
    """The golden files kept for ``sample`` (empty if none)."""
    base = GOLDEN / folder(sample)
    files = sorted(p for p in base.rglob("*") if p.is_file()) if base.is_dir() else []
    return {p.relative_to(base).as_posix(): p.read_text(encoding="utf-8") for p in files}


def stored_folders() -> set[str]:
    """Folders under ``tests/golden`` that hold golden files (one per sample), relative to it."""
    marks = ("lake/manifest.json",)
    return {p.parent.parent.relative_to(GOLDEN).as_posix() for m in marks for p in GOLDEN.rglob(m)}


def write(sample: Path) -> list[str]:
    """Write ``sample``'s golden files (and delete any it no longer has); returns the files that changed."""
    base = GOLDEN / folder(sample)
    fresh = render(sample)
    old = stored(sample)
    for name in old.keys() - fresh.keys():
        (base / name).unlink()
    changed = []
    for name, text in fresh.items():
        if old.get(name) != text:
            path = base / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
            changed.append(relative(path))
    return sorted(changed + [relative(base / n) for n in old.keys() - fresh.keys()])
