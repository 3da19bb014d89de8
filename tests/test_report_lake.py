"""The small lake the report and named-query tests run on, and direct computations to check them against.

The lake holds the sample histories plus a few hundred generated hands: OFC, Pineapple and Progressive
Pineapple, two and three players from a pool with hostile names, street-by-street placements (so boards
have dead streets), Fantasyland hands of every card count, sessions over several days; rescored under two
rule sets. The ``dead_street`` ingest wrote is checked against :func:`pipeline.evaluate.dead.dead_street_column`,
which finds each board's placements by key from the tables as stored.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

import numpy as np
import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from pipeline.cards import CARD_NAMES, deal
from pipeline.evaluate.dead import dead_street_column
from pipeline.lake.store import Lake

SAMPLES = Path(__file__).resolve().parent.parent / "data" / "samples"
RULES = ("ofc", "classic-2-4")
XSS = ("<script>alert(1)</script>", '"><img src=x onerror=alert(1)>', "</script><script>alert(2)</script>")
INJECTION = "x' OR 1=1 --"
PLAYERS = ("Ann", "Bo", "Carla", *XSS, INJECTION)
ROW_NAMES = ("top", "middle", "bottom")
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


def make_records(n: int, seed: int = 7) -> list[dict]:
    """``n`` hands in sessions of ten: boards set three in four in rank order (so some foul, some do not)."""
    rng = np.random.default_rng(seed)
    start = datetime(2026, 3, 1, 18, tzinfo=UTC)
    out = []
    for h in range(n):
        session = h // 10
        variant = ("ofc", "pineapple", "progressive-pineapple")[session % 3]
        seats = 2 if session % 4 == 0 else 3
        names = [PLAYERS[(session + 2 * i) % len(PLAYERS)] for i in range(seats)]
        dealt = deal(1, 17 * seats, rng).reshape(seats, 17)
        players = []
        for s in range(seats):
            fantasyland = variant != "ofc" and rng.random() < 0.15
            count = int(rng.choice([14, 15, 16, 17])) if variant == "progressive-pineapple" else 14
            count = 13 if variant == "ofc" else count
            keep = dealt[s, :13]
            board = np.sort(keep) if rng.random() < 0.75 else keep
            cards = CARD_NAMES[board].tolist()
            if fantasyland:
                discards = CARD_NAMES[dealt[s, 13:count]].tolist()
            else:
                discards = [] if variant == "ofc" else CARD_NAMES[dealt[s, 13:17]].tolist()
            player = {
                "name": names[s],
                "seat": s,
                "top": cards[:3],
                "middle": cards[3:8],
                "bottom": cards[8:],
                "placements": _placements(
                    rng.permutation(13), discards, variant, fantasyland and variant != "ofc", cards
                ),
            }
            if discards:
                player["discards"] = discards
            if fantasyland and variant != "ofc":
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


def check_dead_streets(lake: Lake) -> None:
    """The ``dead_street`` ingest wrote is the one the stored boards and placements give."""
    placements = lake.read("placements", ["hand_key", "seat", "street", "card", "row"])
    for f in lake.files("boards"):
        boards = pq.read_table(f)
        variant = f.parent.parent.name.split("=", 1)[1]
        column = dead_street_column(boards.append_column("variant", pa.array([variant] * boards.num_rows)), placements)
        assert boards.column("dead_street").to_pylist() == column.to_pylist(), f


@dataclass
class ReportLake:
    root: Path
    lake: Lake
    rule_keys: list[str]

    def frame(self, table: str) -> pl.DataFrame:
        """A lake table with its hive partition columns, for direct computations."""
        files = [str(f) for f in self.lake.files(table)]
        return pl.read_parquet(files, hive_partitioning=True, missing_columns="insert")

    def boards(self, rules_key: str) -> pl.DataFrame:
        """One row per board: the hand, the board and its result under ``rules_key`` (joined on keys)."""
        hands = self.frame("hands").select("hand_key", "played_at", "session", "hand_number", "button", "n_players")
        boards = self.frame("boards").select("hand_key", "seat", "player", "fantasyland_cards", "dead_street", "cards")
        results = self.frame("player_results").filter(pl.col("rules_key") == rules_key).drop("player")
        results = results.rename({"fantasyland_cards": "fantasyland_next"})
        return results.join(boards, on=["hand_key", "seat"]).join(hands, on="hand_key")


def build(root: Path, hands: int = 240) -> ReportLake:
    from pipeline.ingest.run import ingest
    from pipeline.rescore.run import rescore
    from schemas.rules import load_rules

    generated = root / "generated.jsonl"
    generated.write_text("".join(json.dumps(r) + "\n" for r in make_records(hands)), encoding="utf-8")
    lake = Lake(root / "lake")
    report = ingest([SAMPLES, generated], lake)
    assert report.totals.quarantined == 0, report.totals.reasons
    check_dead_streets(lake)
    rules = [load_rules(name) for name in RULES]
    rescore(lake, rules)
    return ReportLake(root, lake, [r.key for r in rules])


_BUILT: list[ReportLake] = []


def shared_lake(tmp_path_factory: pytest.TempPathFactory) -> ReportLake:
    """The test lake, built once per test session whichever module asks first."""
    if not _BUILT:
        _BUILT.append(build(tmp_path_factory.mktemp("report-lake")))
    return _BUILT[0]


@pytest.fixture(scope="module")
def report_lake(tmp_path_factory: pytest.TempPathFactory) -> ReportLake:
    return shared_lake(tmp_path_factory)


def test_the_lake_has_what_the_report_reads(report_lake: ReportLake) -> None:
    boards = report_lake.boards(report_lake.rule_keys[0])
    assert set(XSS) | {INJECTION} <= set(boards["player"].to_list())
    assert boards["dead_street"].drop_nulls().len() > 0
    assert set(boards.filter(pl.col("fantasyland"))["fantasyland_cards"].to_list()) >= {14, 15, 16, 17}
    # A board is dead at some street exactly when it fouled and its placements were recorded.
    placed = set(map(tuple, report_lake.frame("placements").select("hand_key", "seat").unique().rows()))
    has = np.array([(k, s) in placed for k, s in boards.select("hand_key", "seat").rows()])
    fouled = boards["fouled"].to_numpy()
    dead = boards["dead_street"].is_not_null().to_numpy()
    assert np.array_equal(dead, fouled & has)
