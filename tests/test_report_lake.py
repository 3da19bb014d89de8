"""The small lake the report and named-query tests run on, and direct computations to check them against.

The lake holds the sample histories plus a few hundred generated hands of every variant: classic (set at
once, two to four players, some declaring a natural), OFC, Pineapple, Progressive Pineapple and Pineapple with
a 2-7 middle, two and three players from a pool with hostile names, street-by-street placements (so fouled
boards have dead streets), Fantasyland hands of every card count, sessions over several days; rescored under
two rule sets besides each hand's own.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

import numpy as np
import polars as pl
import pytest

from ofc.pipeline.cards import CARD_NAMES, deal
from ofc.pipeline.lake.store import Lake

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "data" / "samples"
RULES = ("ofc", "classic-2-4")
XSS = ("<script>alert(1)</script>", '"><img src=x onerror=alert(1)>', "</script><script>alert(2)</script>")
INJECTION = "x' OR 1=1 --"
PLAYERS = ("Ann", "Bo", "Carla", *XSS, INJECTION)
ROW_NAMES = ("top", "middle", "bottom")
VARIANTS = ("classic", "ofc", "pineapple", "progressive-pineapple", "pineapple-27")
FANTASYLAND_CARDS = {
    "ofc": (13,),
    "pineapple": (14,),
    "progressive-pineapple": (14, 15, 16, 17),
    "pineapple-27": (14, 15),
}
_SLOTS = np.array([0] * 3 + [1] * 5 + [2] * 5)


def _placements(order: np.ndarray, discards: list[str], variant: str, fantasyland: bool, cards: list[str]) -> list:
    """Street by street as the variant deals: the board's 13 cards in ``order`` (slot indices), discards between."""
    rows = [ROW_NAMES[_SLOTS[i]] for i in order]
    placed = [cards[i] for i in order]
    if fantasyland:
        out = [{"street": 1, "card": c, "row": r} for c, r in zip(placed, rows, strict=True)]
        return out + [{"street": 1, "card": d, "row": "discard"} for d in discards]
    out = [{"street": 1, "card": c, "row": r} for c, r in zip(placed[:5], rows[:5], strict=True)]
    if variant == "ofc":
        out += [{"street": s + 2, "card": placed[5 + s], "row": rows[5 + s]} for s in range(8)]
        return out
    for s in range(4):
        for k in (0, 1):
            out.append({"street": s + 2, "card": placed[5 + 2 * s + k], "row": rows[5 + 2 * s + k]})
        out.append({"street": s + 2, "card": discards[s], "row": "discard"})
    return out


def _set(keep: np.ndarray, variant: str, rng: np.random.Generator) -> np.ndarray:
    """The 13 cards in a board's order: three in four set low to high (so some foul, most do not); a 2-7 middle
    takes the lowest five of them."""
    if rng.random() >= 0.75:
        return keep
    ordered = np.sort(keep)
    if variant == "pineapple-27":
        return np.r_[ordered[5:8], ordered[:5], ordered[8:]]
    return ordered


def make_records(n: int, seed: int = 7) -> list[dict]:
    """``n`` hands in sessions of ten, cycling through the variants."""
    rng = np.random.default_rng(seed)
    start = datetime(2026, 3, 1, 18, tzinfo=UTC)
    out = []
    for h in range(n):
        session = h // 10
        variant = VARIANTS[session % len(VARIANTS)]
        seats = 4 if variant == "classic" and session % 2 else (2 if session % 4 == 0 else 3)
        names = [PLAYERS[(session + 2 * i) % len(PLAYERS)] for i in range(seats)]
        dealt = deal(1, 17 * min(seats, 3) if seats < 4 else 52, rng).reshape(seats, -1)
        players = []
        for s in range(seats):
            board = _set(dealt[s, :13], variant, rng)
            cards = CARD_NAMES[board].tolist()
            player: dict = {"name": names[s], "seat": s, "top": cards[:3], "middle": cards[3:8], "bottom": cards[8:]}
            if variant == "classic":
                if rng.random() < 0.05:
                    player["natural"] = "six_pairs"  # a false declaration counts for nothing
                players.append(player)
                continue
            fantasyland = rng.random() < 0.15
            count = int(rng.choice(FANTASYLAND_CARDS[variant])) if fantasyland else 0
            if fantasyland and variant != "ofc":
                discards = CARD_NAMES[dealt[s, 13:count]].tolist()
            else:
                discards = [] if variant == "ofc" else CARD_NAMES[dealt[s, 13:17]].tolist()
            player["placements"] = _placements(rng.permutation(13), discards, variant, fantasyland, cards)
            if discards:
                player["discards"] = discards
            if fantasyland:
                player["fantasyland"] = True
                player["fantasyland_cards"] = count
            players.append(player)
        out.append(
            {
                "hand_id": f"g{h}",
                "source": "generated",
                "session": f"s{session}",
                "hand_number": h % 10 + 1,
                "variant": variant,
                "played_at": (start + timedelta(days=session // 3, minutes=h % 10 * 3)).isoformat(),
                "button": h % seats,
                "players": players,
            }
        )
    return out


@dataclass
class ReportLake:
    root: Path
    lake: Lake
    rule_keys: list[str]

    def frame(self, table: str) -> pl.DataFrame:
        """A lake table with its hive partition columns, for direct computations."""
        files = [str(f) for f in self.lake.files(table)]
        return pl.read_parquet(files, hive_partitioning=True, missing_columns="insert")

    def results(self) -> pl.DataFrame:
        """Every board under every rule set, with its facts and its result as played (``compared_boards``)."""
        return self._view("compared_boards", None, every=True)

    def _view(self, view: str, rules_key: str | None, every: bool = False) -> pl.DataFrame:
        from ofc.pipeline.query.db import connect

        where = "true" if every else "native" if rules_key is None else "rules_key = $key"
        con = connect(self.lake.snapshot())
        found = con.execute(f"SELECT * FROM {view} WHERE {where}", {} if rules_key is None else {"key": rules_key})
        return pl.from_arrow(found.to_arrow_table())

    def boards(self, rules_key: str | None = None) -> pl.DataFrame:
        """One row per board with its facts (the view ``compared_boards``): its result as played (``rules_key``
        None) or under ``rules_key``, beside its result as played."""
        return self._view("compared_boards", rules_key)

    def pairs(self, rules_key: str | None = None) -> pl.DataFrame:
        """One row per pair with its players (the view ``scored_pairs``)."""
        return self._view("scored_pairs", rules_key)


def build(root: Path, hands: int = 300, rules: tuple[str, ...] = RULES) -> ReportLake:
    from ofc.pipeline.ingest.ingest_run import ingest
    from ofc.pipeline.rescore.rescore_run import rescore
    from ofc.pipeline.rules.files import load_rules

    generated = root / "generated.jsonl"
    generated.write_text("".join(json.dumps(r) + "\n" for r in make_records(hands)), encoding="utf-8")
    lake = Lake(root / "lake")
    report = ingest([SAMPLES, generated], lake)
    assert report.totals.quarantined == 0, report.totals.reasons
    rule_sets = [load_rules(name) for name in rules]
    rescore(lake, rule_sets)
    return ReportLake(root, lake, [r.key for r in rule_sets])


_BUILT: list[ReportLake] = []


def shared_lake(tmp_path_factory: pytest.TempPathFactory) -> ReportLake:
    """The test lake, built once per test session whichever module asks first."""
    if not _BUILT:
        _BUILT.append(build(tmp_path_factory.mktemp("report-lake")))
    return _BUILT[0]


@pytest.fixture(scope="module")
def report_lake(tmp_path_factory: pytest.TempPathFactory) -> ReportLake:
    return shared_lake(tmp_path_factory)


_ANALYSED: list[Path] = []


def shared_analysed_lake(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A few three-handed Pineapple hands, simulated, scored and weighed by ofc analyse (as its command runs), built
    once per test session."""
    if not _ANALYSED:
        lake = tmp_path_factory.mktemp("analysed") / "lake"
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        bots = "heuristic,random,heuristic"
        for args in (
            ["simulate", "--variant", "pineapple", "--hands", "12", "--bots", bots, "--seed", "5"],
            ["rescore"],
            ["analyse"],
        ):
            done = subprocess.run(
                [sys.executable, "-m", "ofc", *args, "--lake", str(lake)], env=env, capture_output=True, text=True
            )
            assert done.returncode == 0, done.stderr[-2000:]
        _ANALYSED.append(lake)
    return _ANALYSED[0]


def test_the_lake_has_what_the_report_reads(report_lake: ReportLake) -> None:
    boards = report_lake.boards()
    assert set(XSS) | {INJECTION} <= set(boards["player"].to_list())
    assert set(boards["variant"].to_list()) == set(VARIANTS)
    assert boards["dead_street"].drop_nulls().len() > 0
    assert set(boards.filter(pl.col("fantasyland"))["fantasyland_cards"].to_list()) >= {13, 14, 15, 16, 17}
    # Every board once as played: one native row a board, whatever the number of rule sets.
    assert boards.height == report_lake.frame("boards").height
    assert boards.select("hand_key", "seat").is_unique().all()
    # A board is dead at some street exactly when it fouled and its placements were recorded.
    placed = set(map(tuple, report_lake.frame("placements").select("hand_key", "seat").unique().rows()))
    has = np.array([(k, s) in placed for k, s in boards.select("hand_key", "seat").rows()])
    dead = boards["dead_street"].is_not_null().to_numpy()
    assert np.array_equal(dead, boards["fouled"].to_numpy() & has)
