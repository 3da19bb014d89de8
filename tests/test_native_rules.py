"""Every figure under the right rules, on a lake mixing every variant, under every preset.

The lake holds classic, OFC, Pineapple, Progressive Pineapple and 2-7 hands with placements, and hands whose
recorded house rules name a preset, a rule file given to the rescore, a rule set for another game, or nothing
the lake knows. It is rescored under every preset and a strict-bottom house file. Each rule set's results are
checked board by board against the reference scorer run on hands rebuilt from the ``boards`` and ``hands``
tables (not from the results), the dead streets against the placements table, and the named queries' counts
against polars group-bys of that independent computation.
"""

from __future__ import annotations

import json
from itertools import permutations
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
import pytest

from ofc.pipeline.cards import CARD_NAMES
from ofc.pipeline.evaluate.dead import NEVER, ROW_CODES, dead_streets
from ofc.pipeline.lake.store import Lake
from ofc.pipeline.query import named
from ofc.pipeline.query.db import connect
from ofc.pipeline.rules.compile import compile_rules
from ofc.pipeline.rules.files import load_rules, preset_names
from ofc.schemas.rules import RuleSet
from tests.reference.slow_scorer import score_hand
from tests.test_report_lake import SAMPLES, make_records

STRICT = Path(__file__).parent / "data" / "rules" / "strict-bottom.toml"
ROWS = ("top", "middle", "bottom")
EQUAL = "2c 3d 4h / 5h 6d 7s 8c 9h / 5c 6h 7d 8s 9d"
"""Middle and bottom both nine-high straights: fine when a bottom may equal the middle, a foul when it may not."""
OTHER = "Kc Kd 2s / Qc Qd Jc Jd 3s / Ah Ad As Th Td"
QUEENS = "Qh Qs 2c / Kc Kd 3c 3d 4s / Ac Ad Ah 5s 5d"
LOW = "2d 3h 4c / 6c 7d 8h 9s Jc / 9c Tc Jd Qc Kh"


def _placed(board: str) -> list[dict[str, Any]]:
    """OFC placements of a board: the bottom and the top first (street 1), then the middle card by card."""
    top, middle, bottom = (part.split() for part in board.split("/"))
    first = [{"street": 1, "card": c, "row": "bottom"} for c in bottom]
    rest = [(c, "top") for c in top] + [(c, "middle") for c in middle]
    return first + [{"street": i + 2, "card": c, "row": row} for i, (c, row) in enumerate(rest)]


def _player(name: str, board: str, seat: int) -> dict[str, Any]:
    top, middle, bottom = (part.split() for part in board.split("/"))
    return {"name": name, "seat": seat, "top": top, "middle": middle, "bottom": bottom, "placements": _placed(board)}


HOUSE_RULES = {
    "h-strict": ("ofc", "strict-bottom", "strict-bottom"),  # a rule file given to the rescore
    "h-plain": ("ofc", None, "ofc"),
    "h-pineapple": ("progressive-pineapple", "pineapple", "pineapple"),  # another open-face preset: it fits
    "h-classic": ("ofc", "classic-2-4", "ofc"),  # a classic rule set cannot be an open-face hand's rules
    "h-lowball": ("pineapple", "pineapple-27", "pineapple"),  # nor a 2-7 one a high-middle hand's
    "h-unknown": ("ofc", "Tuesday rules", "ofc"),
    "h-queens": ("classic", None, "classic-1-6"),  # queens on top, valid: Fantasyland in any open-face hand
}
"""hand id -> (variant, recorded house rules, the name of the native rule set expected)."""


def _suits(board: str, order: tuple[str, ...]) -> str:
    """The board with its suits renamed (``cdhs`` to ``order``): the same hands, other cards."""
    return board.translate(str.maketrans("cdhs", "".join(order)))


def _special() -> list[dict[str, Any]]:
    out = []
    specials = zip(HOUSE_RULES.items(), permutations("cdhs"), strict=False)
    for i, ((hand_id, (variant, house, _)), suits) in enumerate(specials):
        record = {
            "hand_id": hand_id,
            "source": "house",
            "variant": variant,
            "played_at": f"2026-04-0{i + 1}T20:00:00+00:00",
            "button": 1,
            "players": [_player("Eve", _suits(EQUAL, suits), 0), _player("Finn", _suits(OTHER, suits), 1)],
        }
        if variant == "classic":
            record["players"] = [_player("Eve", QUEENS, 0), _player("Finn", LOW, 1)]
        if variant != "ofc":  # placed street by street as OFC deals: not a Pineapple (or classic) history
            for p in record["players"]:
                del p["placements"]
        if house is not None:
            record["house_rules"] = house
        out.append(record)
    return out


@pytest.fixture(scope="module")
def mixed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Lake, list[RuleSet]]:
    from ofc.pipeline.ingest.ingest_run import ingest
    from ofc.pipeline.rescore.rescore_run import rescore

    root = tmp_path_factory.mktemp("mixed")
    path = root / "hands.jsonl"
    records = make_records(400, seed=11) + _special()
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    lake = Lake(root / "lake")
    report = ingest([SAMPLES, path], lake)
    assert report.totals.quarantined == 0, report.totals.reasons
    rule_sets = [load_rules(name) for name in preset_names()] + [load_rules(STRICT)]
    rescore(lake, rule_sets)
    return lake, rule_sets


def _frame(lake: Lake, table: str) -> pl.DataFrame:
    return pl.read_parquet([str(f) for f in lake.files(table)], hive_partitioning=True, missing_columns="insert")


def _view(lake: Lake, view: str) -> pl.DataFrame:
    """A wide view of the results, as a user's query reads it (facts joined to results by key in SQL)."""
    return pl.from_arrow(connect(lake.snapshot()).sql(f"SELECT * FROM {view}").to_arrow_table())


def _records(lake: Lake) -> list[dict[str, Any]]:
    """Each hand rebuilt as a record from the boards and hands tables."""
    hands = _frame(lake, "hands").select("hand_key", "hand_id", "variant", "button")
    boards = _frame(lake, "boards").select("hand_key", "seat", "player", "cards", "fantasyland", "natural")
    out = []
    for (key,), mine in boards.sort("hand_key", "seat").group_by("hand_key", maintain_order=True):
        hand = hands.filter(pl.col("hand_key") == key).row(0, named=True)
        players = []
        for b in mine.iter_rows(named=True):
            names = CARD_NAMES[np.frombuffer(b["cards"], np.uint8)].tolist()
            player = {"name": b["player"], "seat": b["seat"], "top": names[:3], "middle": names[3:8]}
            player |= {"bottom": names[8:], "fantasyland": b["fantasyland"], "natural": b["natural"]}
            players.append(player)
        out.append({"hand_id": hand["hand_id"], "hand_key": key, **hand, "players": players})
    return out


def _oracle(records: list[dict[str, Any]], rules: RuleSet) -> pl.DataFrame:
    """Per board the reference scorer's verdict, for the hands ``rules`` can score (a 2-7 middle scores only
    2-7 hands, a high middle every other)."""
    rows = []
    for record in records:
        if (record["variant"] == "pineapple-27") != rules.game.lowball_middle:
            continue
        result = score_hand(record, rules)
        for p in record["players"]:
            board = result["boards"][p["name"]]
            rows.append(
                {
                    "hand_key": record["hand_key"],
                    "seat": p["seat"],
                    "variant": record["variant"],
                    "fouled": board["fouled"],
                    **{f"royalty_{row}": board["royalties"][row] for row in ROWS},
                    "fantasyland_next": board["fantasyland_next"],
                    "in_fantasyland": bool(p["fantasyland"]) and record["variant"] != "classic",
                    "points": result["points"][p["name"]],
                }
            )
    return pl.DataFrame(rows, schema_overrides={"hand_key": pl.UInt64})


def _dead_from_placements(lake: Lake, fouled: pl.DataFrame, rules: RuleSet) -> dict[tuple[int, int], int]:
    """The dead street of each fouled board, from the placements table (not the boards' own layout)."""
    placements = _frame(lake, "placements").join(fouled.select("hand_key", "seat"), on=["hand_key", "seat"])
    placements = placements.sort("hand_key", "seat", "order")
    keys = placements.select("hand_key", "seat").unique(maintain_order=True).rows()
    counts = placements.group_by("hand_key", "seat", maintain_order=True).len()["len"].to_numpy()
    compiled = compile_rules(rules)
    got = dead_streets(
        np.r_[0, np.cumsum(counts)],
        placements["card"].to_numpy(),
        placements["row"].cast(pl.String).replace_strict(ROW_CODES, return_dtype=pl.Int8).to_numpy(),
        placements["street"].to_numpy(),
        lowball=compiled.lowball,
        strict=not rules.scoring.bottom_may_equal_middle,
        qualifier=compiled.qualifier,
    )
    return {k: int(d) for k, d in zip(keys, got.tolist(), strict=True) if d != NEVER}


@pytest.fixture(scope="module")
def records(mixed: tuple[Lake, list[RuleSet]]) -> list[dict[str, Any]]:
    return _records(mixed[0])


def _fits(preset: str, variant: str) -> bool:
    """A preset can be a hand's rules: classic for classic hands, open face for the others, the same middle."""
    rules = load_rules(preset)
    classic = rules.game.dealing == "classic"
    return classic == (variant == "classic") and rules.game.lowball_middle == (variant == "pineapple-27")


@pytest.mark.parametrize("i", range(len(preset_names()) + 1))
def test_results_equal_the_reference_under_every_rule_set(
    mixed: tuple[Lake, list[RuleSet]], records: list[dict[str, Any]], i: int
) -> None:
    lake, rule_sets = mixed
    rules = rule_sets[i]
    got = _view(lake, "scored_boards").filter(pl.col("rules_key") == rules.key)
    expected = _oracle(records, rules)
    assert got.height == expected.height > 0, rules.name
    both = expected.join(got, on=["hand_key", "seat"], suffix="_got")
    assert both.height == expected.height
    for column in ("fouled", "royalty_top", "royalty_middle", "royalty_bottom", "fantasyland_next", "points"):
        assert (both[column] == both[f"{column}_got"]).all(), (rules.name, column)
    # Fantasyland: entered from outside it, stayed from inside it; never in a classic hand.
    entry = ~both["in_fantasyland"] & (both["fantasyland_next"] > 0)
    assert (both["fantasyland_entry"] == entry).all(), rules.name
    assert (both["fantasyland_stay"] == (both["in_fantasyland"] & (both["fantasyland_next"] > 0))).all()
    classic = got.filter(pl.col("variant") == "classic")
    flags = ("fantasyland", "fantasyland_entry", "fantasyland_stay")
    assert not classic.select(pl.any_horizontal(flags)).to_series().any(), rules.name
    assert (classic["fantasyland_next"] == 0).all()
    # Points sum to zero in every hand.
    assert (got.group_by("hand_key").agg(pl.col("points").sum())["points"] == 0).all(), rules.name
    # Dead streets under this rule set's order rule, from the placements table.
    dead = _dead_from_placements(lake, expected.filter(pl.col("fouled")), rules)
    stored = {(k, s): d for k, s, d in got.select("hand_key", "seat", "dead_street").rows() if d is not None}
    assert stored == dead, rules.name


def test_the_dead_street_follows_a_strict_bottom(mixed: tuple[Lake, list[RuleSet]]) -> None:
    """A bottom exactly equal to the middle: no foul and no dead street under OFC; a foul under the strict
    reading, dead at the street the middle's last card made the tie certain."""
    lake, _ = mixed
    results = _view(lake, "scored_boards").filter(pl.col("hand_id") == "h-plain", pl.col("player") == "Eve")
    by_rules = {r["rules"]: r for r in results.iter_rows(named=True)}
    assert not by_rules["ofc"]["fouled"]
    assert by_rules["ofc"]["dead_street"] is None
    assert by_rules["strict-bottom"]["fouled"]
    assert by_rules["strict-bottom"]["dead_street"] == 9  # the middle's fifth card, its ninth street


def test_every_board_once_under_the_rules_it_was_played_by(mixed: tuple[Lake, list[RuleSet]]) -> None:
    lake, _ = mixed
    results = _view(lake, "compared_boards")
    native = results.filter(pl.col("native"))
    boards = _frame(lake, "boards")
    assert native.height == boards.height
    assert native.select("hand_key", "seat").is_unique().all()
    assert (native.group_by("hand_key").agg(pl.col("rules_key").n_unique())["rules_key"] == 1).all()
    variant_presets = {"classic": "classic-1-6"}  # every other variant's preset bears its name
    house = dict(_frame(lake, "hands").select("hand_key", "house_rules").rows())
    for row in native.unique("hand_key").iter_rows(named=True):
        preset = variant_presets.get(row["variant"], row["variant"])
        recorded = house[row["hand_key"]]
        expected = recorded if recorded in preset_names() and _fits(recorded, row["variant"]) else preset
        expected = HOUSE_RULES[row["hand_id"]][2] if row["hand_id"] in HOUSE_RULES else expected
        assert row["rules"] == expected, row["hand_id"]
    # Every board's result is compared with the points it scored as played.
    played = native.select("hand_key", "seat", pl.col("points").alias("played"), pl.col("winner_seat").alias("w"))
    joined = results.join(played, on=["hand_key", "seat"])
    assert joined.height == results.height
    assert (joined["native_points"] == joined["played"]).all()
    assert (joined["native_winner_seat"] == joined["w"]).all()
    pairs = _frame(lake, "pair_results").filter(pl.col("native"))
    assert pairs.select("hand_key", "seat_a", "seat_b").is_unique().all()


@pytest.mark.parametrize("name", ["pineapple", "classic-2-4", "pineapple-27", None])
def test_named_query_counts_equal_a_polars_computation(
    mixed: tuple[Lake, list[RuleSet]], records: list[dict[str, Any]], name: str | None
) -> None:
    """foul_rate, dead_streets, royalty_points and fantasyland as played and as if played under a rule set,
    against group-bys of the reference scorer's verdicts."""
    lake, rule_sets = mixed
    snapshot = lake.snapshot()
    con = connect(snapshot)
    if name is None:
        frames = []
        native = _frame(lake, "board_results").filter(pl.col("native")).select("hand_key", "rules_key").unique()
        for rules in rule_sets:
            keys = native.filter(pl.col("rules_key") == rules.key)["hand_key"].unique()
            mine = [r for r in records if r["hand_key"] in set(keys.to_list())]
            frames.append(_oracle(mine, rules).with_columns(pl.lit(rules.key).alias("rules_key")))
        oracle = pl.concat([f for f in frames if f.height]).unique(["hand_key", "seat"])
        params: dict[str, Any] = {}
    else:
        rules = load_rules(name)
        oracle = _oracle(records, rules)
        params = {"rules": name}
    run = lambda q: named.run(con, snapshot, q, params).to_pylist()  # noqa: E731
    fouls = {r["group"]: r for r in run("foul_rate") if r["dimension"] == "variant"}
    direct = oracle.group_by("variant").agg(pl.len(), pl.col("fouled").sum())
    assert {v: (fouls[v]["boards"], fouls[v]["fouled"]) for v in fouls} == {v: (n, k) for v, n, k in direct.rows()}
    royalties = {r["group"]: r for r in run("royalty_points") if r["dimension"] == "variant"}
    total = pl.col("royalty_top") + pl.col("royalty_middle") + pl.col("royalty_bottom")
    for variant, per_board in oracle.group_by("variant").agg(total.mean()).rows():
        assert royalties[variant]["per_board"] == pytest.approx(per_board), variant
    fantasyland = run("fantasyland")
    assert "classic" not in {r["variant"] for r in fantasyland}
    normal = {r["variant"]: r for r in fantasyland if r["hand_kind"] == "normal"}
    open_face = oracle.filter(pl.col("variant") != "classic")
    entries = (
        open_face.filter(~pl.col("in_fantasyland"))
        .group_by("variant")
        .agg(pl.len(), (pl.col("fantasyland_next") > 0).sum())
    )
    for variant, n, k in entries.rows():
        assert (normal[variant]["hands"], normal[variant]["entries"]) == (n, k), variant
    dead = run("dead_streets")
    assert sum(r["boards_dead"] for r in dead) == oracle["fouled"].sum()
    with pytest.raises(named.NamedQueryError, match="cannot score pineapple hands"):
        named.run(con, snapshot, "foul_rate", {"rules": "pineapple-27", "variant": "pineapple"})


def test_variant_facts_are_the_presets() -> None:
    """What the lake's readers know of each variant without loading rule files is what its preset says."""
    from ofc.pipeline.game import facts
    from ofc.pipeline.rules.native import VARIANT_PRESETS, variant_rules

    for variant in VARIANT_PRESETS:
        rules = variant_rules(variant)
        assert rules.game.variant == variant
        assert facts(variant).lowball_middle == rules.game.lowball_middle
        assert facts(variant).open_face == (rules.game.dealing != "classic") == rules.fantasyland.enabled
