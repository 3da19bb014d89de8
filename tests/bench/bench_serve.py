"""``ofc serve`` over the report benchmark's lake (10,000,000 hands), with clients on 127.0.0.1 only, bounded in
count and time.

Targets: the first page <= 2 s after the server says its address; a filter change (the report of one game and
one player) <= 1 s at the 95th percentile with 10 clients at once; a hand's page <= 0.3 s at the 95th
percentile; the server's resident memory <= 1 GB throughout. Then 20 clients for 60 s while another process
simulates and rescores into a lake of its own that the server reads: no failed request. Last, the trainer: a
move of one's own, neither the one played nor the best found, weighed on the spot <= 2 s with a standard error
<= 0.5 points, on a lake of Pineapple hands weighed by ofc analyse at its default settings.

The lake is the report benchmark's (``OFC_BENCH_REPORT_LAKE=DIR`` keeps it, in ``DIR/this``); without it one is
built for the run. ``OFC_BENCH_TINY=1`` runs it on a few thousand hands, with two clients for a few seconds. With a
baseline version (``OFC_BENCH_BASELINE``), its server makes the same filter changes over the same lake, in turn.
"""

from __future__ import annotations

import itertools
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass
from pathlib import Path

from ofc.pipeline.lake.store import Lake
from ofc.pipeline.query.db import connect
from tests.bench.bench_report import HANDS, KEEP, _built
from tests.bench.common import ROOT, THIS, TINY, Figure, Version, report, versions

CLIENTS = 2 if TINY else 10
CHANGES = 2 if TINY else 4
"""Filter changes each client makes (each a different player, one after the other)."""
HAND_PAGES = 5 if TINY else 40
LOAD_CLIENTS = 2 if TINY else 20
LOAD_SECONDS = 3.0 if TINY else 60.0
LOAD_HANDS = 300 if TINY else 2_000
"""Hands each round of the writer adds to the lake served under load."""
GIGABYTE = 1 << 30


class Server:
    """``ofc serve`` in a process of its own, on a port the system gives."""

    def __init__(self, lake: Path, version: Version = THIS) -> None:
        self.t0 = time.perf_counter()
        command = [sys.executable, "-m", "ofc", "serve", "--lake", str(lake), "--port", "0"]
        self.proc = subprocess.Popen(command, cwd=version.root, env=version.env, stdout=subprocess.PIPE, text=True)
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        found = re.search(r"http://127\.0\.0\.1:(\d+)/", line)
        assert found, f"ofc serve said: {line!r}"
        self.ready = time.perf_counter() - self.t0
        self.base = f"http://127.0.0.1:{found.group(1)}"
        self.peak = 0
        self._watching = True
        self._watch = threading.Thread(target=self._memory, daemon=True)
        self._watch.start()

    def _memory(self) -> None:
        while self._watching:
            try:
                status = Path(f"/proc/{self.proc.pid}/status").read_text()
            except OSError:
                return
            rss = int(re.search(r"VmRSS:\s+(\d+)", status).group(1)) * 1024  # type: ignore[union-attr]
            self.peak = max(self.peak, rss)
            time.sleep(0.05)

    def get(self, path: str) -> tuple[int, float, str]:
        t0 = time.perf_counter()
        try:
            with urllib.request.urlopen(self.base + path, timeout=120) as response:
                text = response.read().decode("utf-8")
                status = response.status
        except urllib.error.HTTPError as exc:
            text, status = exc.read().decode("utf-8"), exc.code
        except OSError as exc:
            text, status = str(exc), 0
        return status, time.perf_counter() - t0, text

    def stop(self) -> None:
        self._watching = False
        self.proc.terminate()
        self.proc.wait(timeout=60)


def p95(values: list[float]) -> float:
    return statistics.quantiles(values, n=20)[-1] if len(values) > 1 else values[0]


def _at_once(clients: int, work: list[list[str]], server: Server) -> tuple[list[float], int]:
    """Each client asks its paths one after the other, the clients at once: the times and the failures."""
    times: list[float] = []
    failed = [0]
    lock = threading.Lock()

    def client(paths: list[str]) -> None:
        for path in paths:
            status, seconds, _ = server.get(path)
            with lock:
                times.append(seconds)
                failed[0] += status != 200

    threads = [threading.Thread(target=client, args=(work[i % len(work)],)) for i in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return times, failed[0]


def _players_and_hands(lake: Path) -> tuple[str, list[str], list[int]]:
    import duckdb

    from ofc.pipeline.lake.store import Lake

    files = [str(f) for f in Lake(lake).snapshot().files("boards")]
    con = duckdb.connect()
    rows = con.execute(
        "SELECT variant, player, count(*) FROM read_parquet($f, hive_partitioning = true) GROUP BY ALL ORDER BY 3 DESC",
        {"f": files},
    ).fetchall()
    variant = rows[0][0]
    players = [p for v, p, _ in rows if v == variant]
    keys = con.execute(
        "SELECT hand_key FROM read_parquet($f, hive_partitioning = true) "
        "USING SAMPLE reservoir(100 ROWS) REPEATABLE (3)",
        {"f": files},
    ).fetchall()
    return variant, players, [k for (k,) in keys]


def _under_load(work: Path) -> tuple[int, int, int]:
    """Clients on a lake another process writes: requests made, failed, and the commits they saw."""
    lake = work / "written"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}

    def ofc(*args: str) -> None:
        subprocess.run([sys.executable, "-m", "ofc", *args], cwd=ROOT, env=env, capture_output=True, check=True)

    ofc("simulate", "--variant", "pineapple", "--hands", str(LOAD_HANDS), "--bots", "random", "--lake", str(lake))
    ofc("rescore", "--lake", str(lake))
    server = Server(lake)
    stop = time.monotonic() + LOAD_SECONDS
    made, failed, states = [0], [0], set()
    lock = threading.Lock()

    def client(i: int) -> None:
        paths = ["/state", "/hands?sort=points", "/?min_hands=1", "/hands?page=2"]
        n = i
        while time.monotonic() < stop:
            status, _, text = server.get(paths[n % len(paths)])
            n += 1
            with lock:
                made[0] += 1
                failed[0] += status != 200
                if status == 200 and text.startswith('{"state"'):
                    states.add(text)

    def writer() -> None:
        seed = 100
        while time.monotonic() < stop:
            ofc("simulate", "--variant", "pineapple", "--hands", str(LOAD_HANDS), "--bots", "random", "--lake",
                str(lake), "--seed", str(seed))  # fmt: skip
            ofc("rescore", "--lake", str(lake))
            seed += 1

    threads = [threading.Thread(target=client, args=(i,)) for i in range(LOAD_CLIENTS)]
    threads.append(threading.Thread(target=writer))
    try:
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        server.stop()
    return made[0], failed[0], len(states)


TRAINER_HANDS = 6 if TINY else 40
TRAINER_MOVES = 3 if TINY else 20


def _trainer(work: Path) -> tuple[list[float], list[float]]:
    """Moves of one's own weighed by the trainer's page (seconds each, the first included, and their standard
    errors), at the costliest street decisions of analysed Pineapple hands."""
    lake = work / "trainer"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    for args in (
        ["simulate", "--variant", "pineapple", "--hands", str(TRAINER_HANDS), "--bots", "heuristic,random,planner"],
        ["analyse"],
    ):
        subprocess.run([sys.executable, "-m", "ofc", *args, "--lake", str(lake)], cwd=ROOT, env=env,
                       capture_output=True, check=True)  # fmt: skip
    sql = """SELECT hand_key, player, street, played_rows, best_rows FROM weighed(NULL) WHERE kind <> 'fantasyland'
             ORDER BY ev_lost DESC, hand_key, player, street"""
    decisions = connect(Lake(lake).snapshot()).execute(sql).fetchall()
    server = Server(lake)
    seconds: list[float] = []
    errors: list[float] = []
    try:
        for key, player, street, played, best in decisions:
            if len(seconds) >= TRAINER_MOVES:
                break
            drops = played.count("x")
            for letters in itertools.product("tmbx", repeat=len(played)):
                move = "".join(letters)
                if move in (played, best) or move.count("x") != drops:
                    continue
                ask = urllib.parse.urlencode({"hand": key, "player": player, "street": street, "move": move})
                status, took, text = server.get(f"/train/weigh?{ask}")
                if status == 200:
                    seconds.append(took)
                    errors.append(json.loads(text)["se"])
                    break
    finally:
        server.stop()
    return seconds, errors


@dataclass
class Served:
    """What one server answered: its first page, the filter changes, and the hands' pages."""

    ready: float
    first: float
    first_status: int
    changes: list[float]
    changes_failed: int
    hands: list[float]
    hands_failed: int
    peak: int


def _served(lake: Path, changes: list[list[str]], hands: list[str], version: Version = THIS) -> Served:
    """The first page, then ``changes`` by their clients at once, then the ``hands``' pages one after the other,
    from ``version``'s server over ``lake``."""
    server = Server(lake, version)
    try:
        status, first, _ = server.get("/")
        times, failed = _at_once(CLIENTS, changes, server)
        hand_times, hand_failed = _at_once(1, [hands], server) if hands else ([], 0)
    finally:
        server.stop()
    return Served(server.ready, first, status, times, failed, hand_times, hand_failed, server.peak)


def run() -> bool:
    work = Path(tempfile.mkdtemp(prefix="ofc-bench-serve-"))
    try:
        lake = Path(KEEP) / "this" if KEEP else work / "lake"
        _built(THIS, lake, HANDS, seed=2)
        variant, players, keys = _players_and_hands(lake)
        changes = [
            [f"/?variant={variant}&player={urllib.request.quote(players[(c * CHANGES + i) % len(players)])}"
             for i in range(CHANGES)]
            for c in range(CLIENTS)
        ]  # fmt: skip
        this = _served(lake, changes, [f"/hand/{k}" for k in keys[:HAND_PAGES]])
        assert this.first_status == 200, f"the first page: {this.first_status}"
        first, filter_times, filter_failed = this.first, this.changes, this.changes_failed
        hand_times, hand_failed = this.hands, this.hands_failed
        beside = [(v, _served(lake, changes, [], v)) for v in versions()[1:]]
        made, failed, states = _under_load(work)
        weighed, errors = _trainer(work)
        figures = [
            Figure("the first page after the address is said", first, "s", "<= 2", first <= 2,
                   f"the address said {this.ready:.2f} s after start; {HANDS:,} hands"),
            Figure(f"a filter change, {CLIENTS} clients at once, 95th percentile", p95(filter_times), "s", "<= 1",
                   p95(filter_times) <= 1 and not filter_failed,
                   f"{len(filter_times)} pages (a game and a player each), "
                   f"median {statistics.median(filter_times):.2f} s; failed {filter_failed}"),
            *(Figure(f"  {v.name}, in turn on the same lake", p95(b.changes), "s", "", True,
                     f"this checkout's 95th percentile {p95(filter_times) / p95(b.changes):.2f}x; first page "
                     f"{b.first:.2f} s; median {statistics.median(b.changes):.2f} s; failed {b.changes_failed}")
              for v, b in beside),
            Figure("a hand's page, 95th percentile", p95(hand_times), "s", "<= 0.3",
                   p95(hand_times) <= 0.3 and not hand_failed,
                   f"{len(hand_times)} hands spread over the lake, median {statistics.median(hand_times):.2f} s"),
            Figure("the server's resident memory, at most", this.peak / (1 << 20), "MB", "<= 1,024",
                   this.peak <= GIGABYTE),
            Figure(f"{LOAD_CLIENTS} clients for {LOAD_SECONDS:.0f} s while another process commits: failed requests",
                   failed, "requests", "= 0", failed == 0,
                   f"{made:,} requests; {states} states of the lake seen"),
            Figure("the trainer weighs a move of one's own, at most", max(weighed), "s", "<= 2", max(weighed) <= 2,
                   f"{len(weighed)} moves, neither played nor best, at as many decisions; the first loads the "
                   f"analysis (median {statistics.median(weighed):.2f} s)"),
            Figure("  its standard error, at most", max(errors), "points", "<= 0.5", max(errors) <= 0.5,
                   f"of the difference from the move played; median {statistics.median(errors):.2f}"),
        ]  # fmt: skip
        return report(f"serve: ofc serve over {HANDS:,} hands", figures)
    finally:
        shutil.rmtree(work, ignore_errors=True)
