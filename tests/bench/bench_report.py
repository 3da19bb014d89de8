"""The report over a lake of 10,000,000 hands: every named query, a query against the wide view, then ``ofc
report`` end to end; beside the baseline version (``OFC_BENCH_BASELINE``), which builds and rescores its own lake of
the same hands with its own code, the two reports run in turn.

Targets: the whole report (every query, every figure, the HTML file written) <= 3 s in a fresh process and <= 0.6
times the baseline's; the hand viewer's lookups of 40 hands spread over the lake <= 0.2 s in all; ``SELECT player,
avg(points) FROM scored_boards WHERE rules = 'pineapple' GROUP BY 1`` <= 1 s; each named query <= 1 s.

The lake is written directly with the lake writer (no JSON): sessions of two-
and three-player OFC, Pineapple and Progressive Pineapple hands over a year, sixty players, a few percent of
Fantasyland hands, boards three in four set in rank order so that not everything fouls, and the street each
card was placed at (so that fouled boards have a dead street). Its results are then written by ``ofc
rescore``'s own code: every hand under its own rules, and under three rule sets to compare.
Set ``OFC_BENCH_REPORT_HANDS`` to scale it, ``OFC_BENCH_REPORT_LAKE`` to keep the lakes in that folder
between runs (each version's is built once, in a folder of its own).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pyarrow as pa

from ofc.pipeline.cards import deal
from ofc.pipeline.lake.store import Lake
from tests.bench.common import THIS, Figure, Version, report, scale, versions
from tests.test_browser import FLAGS as BROWSER_FLAGS

HANDS = scale("REPORT_HANDS", 10_000_000, 6_000)
KEEP = os.environ.get("OFC_BENCH_REPORT_LAKE", "")
RULES = ["ofc", "classic-2-4", "taiwanese"]
PLAYERS = 60
SESSION = 250
"""Hands per session (a table of the same players, the button moving round)."""
CHUNK = 1_000_000
"""Hands per write: bounds the builder's memory."""
BATCHES = 4
ROUNDS = 2
"""Runs of ``ofc report`` by each version, in turn: the best of each is compared (the machine is shared)."""
START_US = 1_767_225_600_000_000  # 2026-01-01T00:00:00Z
YEAR_US = 365 * 86_400 * 1_000_000
VARIANTS = ("ofc", "pineapple", "progressive-pineapple")
STREETS = {
    "ofc": np.array([1] * 5 + list(range(2, 10)), np.uint8),
    "pineapple": np.array([1] * 5 + [2, 2, 3, 3, 4, 4, 5, 5], np.uint8),
    "progressive-pineapple": np.array([1] * 5 + [2, 2, 3, 3, 4, 4, 5, 5], np.uint8),
}
"""The streets a board's 13 cards arrive on, by variant; each board takes them in its own order."""
FANTASYLAND_CARDS = {"ofc": (13,), "pineapple": (14,), "progressive-pineapple": (14, 15, 16, 17)}


def _dictionary(values: np.ndarray, names: list[str]) -> pa.DictionaryArray:
    return pa.DictionaryArray.from_arrays(pa.array(values.astype(np.int32)), pa.array(names))


def _const(value: str, n: int) -> pa.DictionaryArray:
    return _dictionary(np.zeros(n, np.int32), [value])


def _chunk(first: int, n: int, seats: int, batch: str, rng: np.random.Generator) -> tuple[pa.Table, pa.Table]:
    """Hands ``first .. first + n`` (whole sessions of ``seats`` players) as the hands and boards tables."""
    m = n * seats
    ids = np.arange(first, first + n, dtype=np.int64)
    session = ids // SESSION
    number = ids % SESSION + 1
    n_sessions = int(session[-1] - session[0]) + 1
    s_rng = np.random.default_rng(int(session[0]) * 7919 + seats)
    variant = s_rng.integers(0, 2 if seats == 3 else 1, n_sessions) + (seats == 3)  # Pineapple seats three at most
    variant = np.where(s_rng.random(n_sessions) < 0.5, 0, variant)
    table_players = np.argsort(s_rng.random((n_sessions, PLAYERS)), axis=1)[:, :seats]
    start = START_US + (s_rng.random(n_sessions) * YEAR_US).astype(np.int64)
    local = (session - session[0]).astype(np.int64)
    played_at = start[local] + (number - 1) * 60_000_000
    month = np.datetime_as_string(played_at.astype("datetime64[us]"), unit="M")
    month_names, month_codes = np.unique(month, return_inverse=True)
    hand_variant = variant[local]
    hand_key = (ids.astype(np.uint64) + np.uint64(1)) * np.uint64(0x9E3779B97F4A7C15)

    cards = deal(n, 13 * seats, rng).reshape(m, 13)
    sensible = rng.random(m) < 0.75
    cards = np.where(sensible[:, None], np.sort(cards, axis=1), cards)
    board_variant = np.repeat(hand_variant, seats)
    fantasyland = rng.random(m) < 0.04
    fl_cards = np.zeros(m, np.int8)
    for v, name in enumerate(VARIANTS):
        options = np.array(FANTASYLAND_CARDS[name], np.int8)
        pick = fantasyland & (board_variant == v)
        fl_cards[pick] = options[rng.integers(0, options.size, int(pick.sum()))]
    hands = pa.table(
        {
            "hand_key": hand_key,
            "batch": _const(batch, n),
            "content_hash": hand_key ^ np.uint64(0x5BD1E995),
            "record_hash": hand_key ^ np.uint64(0x27D4EB2F),
            "hand_id": pa.array(number).cast(pa.string()),
            "source": _const("bench", n),
            "variant": _dictionary(hand_variant, list(VARIANTS)),
            "month": _dictionary(month_codes, month_names.tolist()),
            "played_at": pa.array(played_at, pa.timestamp("us", tz="UTC")),
            "site": pa.nulls(n, pa.string()),
            "table": pa.nulls(n, pa.string()),
            "session": pa.array(session).cast(pa.string()),
            "hand_number": pa.array(number),
            "button": pa.array((number % seats).astype(np.int8)),
            "house_rules": pa.nulls(n, pa.string()),
            "n_players": pa.array(np.full(n, seats, np.int8)),
            "source_file": _const("bench", n),
            "source_line": pa.array(ids),
        }
    )
    boards = {
        "hand_key": np.repeat(hand_key, seats),
        "batch": _const(batch, m),
        "variant": _dictionary(board_variant, list(VARIANTS)),
        "month": _dictionary(np.repeat(month_codes, seats), month_names.tolist()),
        "seat": pa.array(np.tile(np.arange(seats, dtype=np.int8), n)),
        "player": _dictionary(table_players[local].ravel(), [f"player{i:02d}" for i in range(PLAYERS)]),
        "cards": pa.FixedSizeListArray.from_arrays(pa.array(cards.ravel()), 13),
        "misset": pa.array(np.zeros(m, bool)),
        "fantasyland": pa.array(fantasyland),
        "fantasyland_cards": pa.array(fl_cards),
        "surrendered": pa.array(np.zeros(m, bool)),
        "natural": pa.nulls(m, pa.string()),
        "discards": pa.ListArray.from_arrays(pa.array(np.zeros(m + 1, np.int32)), pa.array([], pa.uint8())),
        "points": pa.nulls(m, pa.int32()),
        "stack": pa.nulls(m, pa.int32()),
    }
    # The street of each card: the variant's streets in an order of the board's own (a rotation, then a
    # reversal for half the boards); a Fantasyland board placed everything at once.
    patterns = np.stack([STREETS[v] for v in VARIANTS])[board_variant]
    shift = (np.arange(13)[None, :] + rng.integers(0, 13, m)[:, None]) % 13
    streets = np.take_along_axis(patterns, shift, axis=1)
    streets = np.where((rng.random(m) < 0.5)[:, None], streets[:, ::-1], streets)
    streets = np.where(fantasyland[:, None], 1, streets).astype(np.uint8) + ord("0")
    offsets = pa.array(np.arange(0, 13 * m + 1, 13, dtype=np.int32))
    boards["streets"] = pa.StringArray.from_buffers(m, offsets.buffers()[1], pa.py_buffer(streets.tobytes()))
    no_discards = pa.py_buffer(np.zeros(m + 1, np.int32))
    boards["discard_streets"] = pa.StringArray.from_buffers(m, no_discards, pa.py_buffer(b""))
    return hands, pa.table(boards)


def build_lake(root: Path, hands: int, seed: int) -> None:
    """``hands`` hands written straight into the lake, in ``BATCHES`` ingest batches; a third of them heads-up."""
    rng = np.random.default_rng(seed)
    lake = Lake(root)
    heads_up = hands // 3 // SESSION * SESSION
    plan = [(2, 0, heads_up), (3, heads_up, hands)]
    per_batch = -(-hands // BATCHES)
    with lake.locked():
        writer = None
        written = 0
        for seats, lo, hi in plan:
            for first in range(lo, hi, CHUNK):
                n = min(CHUNK, hi - first)
                if writer is None:
                    writer = lake.begin("ingest")
                hands_table, boards_table = _chunk(first, n, seats, writer.batch, rng)
                writer.write("hands", hands_table)
                writer.write("boards", boards_table)
                written += n
                if written >= per_batch:
                    counts = {"read": written, "accepted": written, "quarantined": 0, "duplicates": 0}
                    writer.commit(counts, [{"path": "bench", "format": "bench", **counts, "batch": writer.batch}])
                    writer, written = None, 0
        if writer is not None:
            counts = {"read": written, "accepted": written, "quarantined": 0, "duplicates": 0}
            writer.commit(counts, [{"path": "bench", "format": "bench", **counts, "batch": writer.batch}])


QUERIES = """
import json, sys, time
from ofc.pipeline.lake.store import Lake
from ofc.pipeline.query import named
from ofc.pipeline.query.db import connect

snapshot = Lake(sys.argv[1]).snapshot()
con = connect(snapshot)
who = {"player": "player00"}
params = {name: who for name in ("sessions", "session_summary", "notable_hands")}
keys = ",".join(str(k) for (k,) in con.sql(
    "SELECT hand_key FROM hands USING SAMPLE reservoir(40 ROWS) REPEATABLE (7) ORDER BY hand_key").fetchall())
params |= {name: {"hands": keys} for name in ("hand_boards", "hand_pairs", "hand_decisions", "hand_facts")}
out = {}
for name in named.queries():
    t0 = time.perf_counter()
    try:
        rows = named.run(con, snapshot, name, params.get(name, {}), check_filters=False).num_rows
    except Exception as exc:
        out[name] = {"seconds": float("nan"), "rows": 0, "error": str(exc)[:200]}
        continue
    out[name] = {"seconds": time.perf_counter() - t0, "rows": rows}
try:  # the viewer's queries as the viewer runs them: one read of the hands' rows, shared
    from ofc.pipeline.query.lookup import SharedReads
except ImportError:  # an older version reads them query by query, as measured above
    SharedReads = None
if SharedReads is not None:
    shared = SharedReads(snapshot)
    t0 = time.perf_counter()
    for name in ("hand_pairs", "hand_boards", "hand_decisions"):
        try:
            named.run(con, snapshot, name, params[name], check_filters=False, shared=shared)
        except Exception:
            pass  # a lake without an analysis has no decisions, as above
    out["viewer"] = {"seconds": time.perf_counter() - t0}
views = {v for (v,) in con.sql("SELECT view_name FROM duckdb_views()").fetchall()}
wide = "scored_boards" if "scored_boards" in views else "board_results"  # an older version's wide table
t0 = time.perf_counter()
rows = con.sql(f"SELECT player, avg(points) FROM {wide} WHERE rules = 'pineapple' GROUP BY 1").fetchall()
out["wide"] = {"seconds": time.perf_counter() - t0, "rows": len(rows), "table": wide}
print(json.dumps(out))
"""
LOOKUPS = ("hand_boards", "hand_pairs", "hand_decisions")
"""The named queries the report's hand viewer runs: the hands' boards, pairs and decisions."""
WIDE = "SELECT player, avg(points) FROM scored_boards WHERE rules = 'pineapple' GROUP BY 1"
"""A query a user writes against the wide view (an older version: against ``board_results``)."""

BUILD = """
import sys
from pathlib import Path
from tests.bench.bench_report import _rescore, build_lake

build_lake(Path(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]))
_rescore(Path(sys.argv[1]))
"""


def _queries(version: Version, lake: Path) -> dict[str, dict[str, float]]:
    """Each named query once, in order, then the wide query, in a fresh process of ``version``."""
    return version.json(QUERIES, str(lake))


def _report(version: Version, lake: Path, out: Path) -> float:
    """``ofc report`` end to end, as a user runs it: a fresh process, every query, every chart, the file."""
    t0 = time.perf_counter()
    proc = version.ofc("report", "--lake", str(lake), "--out", str(out))
    seconds = time.perf_counter() - t0
    if proc.returncode:
        raise RuntimeError(f"ofc report of {version.name} failed: {proc.stderr[-2000:]}")
    return seconds


def _drawn(page: Path) -> tuple[float, float] | None:
    """Open the report in headless Chromium: (milliseconds from opening the file until its last chart was drawn,
    as the page records it, and the browser's whole run in seconds), or None without Chromium."""
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    if browser is None:
        return None
    with tempfile.TemporaryDirectory() as profile:
        t0 = time.perf_counter()
        dom = subprocess.run(
            [
                browser,
                *BROWSER_FLAGS,  # the browser test's, so that both open the page alike
                f"--user-data-dir={profile}",
                "--window-size=1400,1000",
                "--dump-dom",
                page.as_uri(),
            ],
            capture_output=True,
            text=True,
            timeout=300,
        )
        wall = time.perf_counter() - t0
    root = re.search(r"<html[^>]*>", dom.stdout)
    drawn = re.search(r'data-charts-ms="(\d+)"', root.group(0) if root else "")
    return (float(drawn.group(1)) if drawn else float("inf")), wall


def _rescore(lake: Path) -> None:
    from ofc.pipeline.rescore import rescore
    from ofc.pipeline.rules.files import load_rules

    rescore(Lake(lake), [load_rules(name) for name in RULES])


def _built(version: Version, root: Path, hands: int, seed: int) -> float:
    """Build and rescore a lake with ``version``'s code unless ``root`` already holds one; the seconds it took (0
    when kept)."""
    if (root / "_manifests").is_dir():
        return 0.0
    t0 = time.perf_counter()
    version.python(BUILD, str(root), str(hands), str(seed))
    return time.perf_counter() - t0


def _lake_of(version: Version, work: Path) -> Path:
    """Where ``version``'s lake is: kept in ``OFC_BENCH_REPORT_LAKE`` (one folder a version) or made for this run."""
    slug = "this" if version is THIS else re.sub(r"[^\w.-]", "_", version.name)
    return Path(KEEP) / slug if KEEP else work / f"lake-{slug}"


def run() -> bool:
    work = Path(tempfile.mkdtemp(prefix="ofc-bench-report-"))
    try:
        chosen = versions()
        timings: dict[str, dict[str, dict[str, float]]] = {}
        seconds: dict[str, list[float]] = {v.name: [] for v in chosen}
        built: dict[str, float] = {}
        for v in chosen:
            warm = work / f"warm-{len(built)}"
            _built(v, warm, 20_000 if HANDS > 100_000 else HANDS, seed=1)
            _queries(v, warm)  # compile and load caches
            built[v.name] = _built(v, _lake_of(v, work), HANDS, seed=2)
        for _ in range(ROUNDS):
            for v in chosen:
                seconds[v.name].append(_report(v, _lake_of(v, work), work / "report.html"))
        for v in chosen:
            timings[v.name] = _queries(v, _lake_of(v, work))
        _report(THIS, _lake_of(THIS, work), work / "report.html")
        size = (work / "report.html").stat().st_size / 1e6
        mine = min(seconds[THIS.name])
        made = built[THIS.name]
        figures = [
            Figure(
                f"ofc report over {HANDS:,} hands, {len(RULES)} rule sets, end to end",
                mine,
                "s",
                "<= 3",
                mine <= 3,
                f"best of {', '.join(f'{t:.2f}' for t in seconds[THIS.name])} s; a fresh process: every query, every "
                f"chart, a {size:.1f} MB file"
                + (f"; lake built and rescored in {made:.0f} s" if made else "; lake kept from an earlier run"),
            )
        ]
        for v in chosen[1:]:
            theirs = min(seconds[v.name])
            figures.append(
                Figure(
                    f"  against {v.name}, its own lake of the same hands, in turn",
                    mine / theirs,
                    "x",
                    "<= 0.6",
                    mine / theirs <= 0.6,
                    f"{v.name}: best of {', '.join(f'{t:.2f}' for t in seconds[v.name])} s",
                )
            )
        drawn = _drawn(work / "report.html")
        if drawn is not None:
            ms, wall = drawn
            figures.append(
                Figure(
                    "every chart of that report drawn in headless Chromium",
                    ms / 1000,
                    "s",
                    "<= 3",
                    ms <= 3000,
                    f"from opening the file to the last chart drawn, as the page records it; Chromium ran {wall:.1f} s",
                )
            )
        for v in chosen:
            t = timings[v.name]
            apart = sum(t[name]["seconds"] for name in LOOKUPS if name in t)
            lookups = t["viewer"]["seconds"] if "viewer" in t else apart
            wide = t["wide"]
            mark = "" if v is THIS else f"  {v.name}: "
            figures += [
                Figure(
                    f"{mark}the hand viewer's lookups of 40 hands, in all",
                    lookups,
                    "s",
                    "<= 0.2" if v is THIS else "",
                    lookups <= 0.2 if v is THIS else None,
                    ("read once for the three, as the viewer reads them; apart: " if "viewer" in t else "")
                    + "; ".join(f"{name} {t[name]['seconds']:.3f} s" for name in LOOKUPS if name in t)
                    + "; hands sampled over the whole lake",
                ),
                Figure(
                    f"{mark}a query against the wide view",
                    wide["seconds"],
                    "s",
                    "<= 1" if v is THIS else "",
                    wide["seconds"] <= 1 if v is THIS else None,
                    WIDE if v is THIS else WIDE.replace("scored_boards", wide["table"]),
                ),
            ]
        for name, t in timings[THIS.name].items():
            if name in ("wide", "viewer"):
                continue
            figures.append(
                Figure(f"named query {name}", t["seconds"], "s", "<= 1", t["seconds"] <= 1, f"{t['rows']:,} rows")
            )
        for v in chosen[1:]:
            failed = {n: t["error"] for n, t in timings[v.name].items() if "error" in t}
            for name, error in failed.items():
                figures.append(Figure(f"  {v.name}: named query {name} failed", 0, "", note=error))
        return report(f"report: named queries and ofc report over {HANDS:,} hands", figures)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(0 if run() else 1)
