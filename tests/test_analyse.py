"""``ofc analyse``: decisions rebuilt from placements, weighed by rollouts, and committed to the lake.

The hand-built positions have one clearly losing move each; the simulated bots differ in skill by design
(``random`` < ``heuristic`` < ``planner`` < ``mc``), which the loss per hand must show.
"""

from __future__ import annotations

import itertools
import json
import shutil
from collections import Counter
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

import ofc.pipeline.analyse.analysis_run as analyse_run
from ofc.pipeline.analyse.analysis_run import METHOD, AnalysisFilters, Settings, analyse
from ofc.pipeline.analyse.positions import Hands, positions
from ofc.pipeline.cards import parse_card
from ofc.pipeline.cli import app
from ofc.pipeline.lake.store import Lake
from ofc.pipeline.query import named
from ofc.pipeline.query.db import connect

runner = CliRunner()

HERO, VILLAIN = "hero", "villain"


def _player(name: str, seat: int, streets: list[list[tuple[str, str]]]) -> dict:
    rows: dict[str, list[str]] = {"top": [], "middle": [], "bottom": [], "discard": []}
    placements = []
    for street, moves in enumerate(streets, start=1):
        for card, row in moves:
            rows[row].append(card)
            placements.append({"street": street, "card": card, "row": row})
    return {
        "name": name,
        "seat": seat,
        "top": rows["top"],
        "middle": rows["middle"],
        "bottom": rows["bottom"],
        "discards": rows["discard"],
        "placements": placements,
    }


def _hand(hand_id: str, hero: list, villain: list) -> dict:
    return {
        "hand_id": hand_id,
        "source": "hand-built",
        "variant": "pineapple",
        "played_at": "2026-03-01T20:00:00Z",
        "session": "positions",
        "button": 1,  # the hero acts first on every street
        "players": [_player(HERO, 0, hero), _player(VILLAIN, 1, villain)],
    }


def _s(text: str) -> list[tuple[str, str]]:
    """``"9c m 9d m 4h b"`` -> [(card, row)]: rows t, m, b, x (discard)."""
    names = {"t": "top", "m": "middle", "b": "bottom", "x": "discard"}
    parts = text.split()
    return [(parts[i], names[parts[i + 1]]) for i in range(0, len(parts), 2)]


# The hero's last street: 7s, 2d, Jh to two open slots, one on top and one at the bottom, below a middle of trip
# nines. 2d at the bottom (played) leaves it eight-high under the trips: a foul. 7s there makes 4-5-6-7-8.
MUST_FOUL = _hand(
    "must-foul",
    [
        _s("9c m 9d m 9h m 4h b 5h b"),
        _s("2s m 6d b Qs x"),
        _s("3s m 8c b Qd x"),
        _s("Ad t Kd t Qh x"),
        _s("2d b 7s t Jh x"),
    ],
    [
        _s("Tc b Td b Th b 5c m 5d m"),
        _s("Ts b 6c m 8d x"),
        _s("Jd b 6h m 8h x"),
        _s("2h t 3h t Jc x"),
        _s("4c t 7c m Js x"),
    ],
)

# The hero's last street: Kc, 8h, 2d with four clubs at the bottom; Kc discarded (played) breaks the flush it
# makes there (a royalty, and the bottom row).
BREAKS_FLUSH = _hand(
    "breaks-flush",
    [
        _s("Ts m 5d m 2c b 6c b 7h t"),
        _s("3h m 9c b Ad x"),
        _s("4s m Jc b Ac x"),
        _s("4d t 2s t Ah x"),
        _s("Kc x 8h b 2d m"),
    ],
    [
        _s("Th b Td b Tc b 6h m 6d m"),
        _s("9h b 7c m Kh x"),
        _s("9d b 7d m Kd x"),
        _s("3c t 3d t Ks x"),
        _s("5h t 8d m Qs x"),
    ],
)


def ofc(*args: str) -> str:
    result = runner.invoke(app, list(args))
    assert result.exit_code == 0, result.output
    return result.stdout


def rows(lake: Path, sql: str) -> list[dict]:
    return connect(Lake(lake)).sql(sql).to_arrow_table().to_pylist()


@pytest.fixture(scope="module")
def positions_lake(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("positions")
    source = root / "positions.jsonl"
    source.write_text("".join(json.dumps(h) + "\n" for h in (MUST_FOUL, BREAKS_FLUSH)))
    lake = root / "lake"
    ofc("ingest", str(source), "--lake", str(lake))
    ofc("analyse", "--lake", str(lake), "--player", HERO)
    return lake


def _last_street(lake: Path, hand_id: str) -> dict:
    (row,) = rows(lake, f"SELECT * FROM decisions WHERE hand_id = '{hand_id}' AND street = 5")
    return row


def test_a_placement_that_must_foul_is_named_with_the_move_that_does_not(positions_lake: Path) -> None:
    d = _last_street(positions_lake, "must-foul")
    assert d["player"] == HERO
    assert d["kind"] == "discard"
    assert d["played"] == "top 7s · bottom 2d · discard Jh"
    # the dealt cards in the order recorded: 2d, 7s, Jh; the best puts 7s at the bottom
    assert d["played_rows"] == "btx"
    assert d["best_rows"][1] == "b", d["best"]
    assert "bottom 7s" in d["best"]
    # a foul against a valid board: the scoop and more; known within a fraction of that
    assert d["ev_lost"] > 6, d
    assert d["se"] < d["ev_lost"] / 4, d
    assert d["ev_best"] - d["ev_played"] == pytest.approx(d["ev_lost"])
    # the hero's board is complete after this street: the move played fouls in every rollout, the best in none
    assert (d["foul_played"], d["foul_best"]) == (1.0, 0.0), d


def test_a_discard_that_breaks_a_made_flush_is_named(positions_lake: Path) -> None:
    d = _last_street(positions_lake, "breaks-flush")
    assert d["played"] == "middle 2d · bottom 8h · discard Kc"
    assert d["best_rows"][0] == "b", d["best"]  # Kc at the bottom: the flush
    assert "bottom Kc" in d["best"]
    assert d["ev_lost"] > 2, d
    assert d["se"] < d["ev_lost"] / 4, d


def test_only_the_hero_is_weighed_and_every_board_looked_at_is_accounted_for(positions_lake: Path) -> None:
    players = rows(positions_lake, "SELECT DISTINCT player FROM decisions")
    assert players == [{"player": HERO}]
    boards = rows(positions_lake, "SELECT player, decisions, skipped FROM analysed_boards ORDER BY hand_id")
    assert boards == [{"player": HERO, "decisions": 5, "skipped": None}] * 2


def test_what_the_hero_saw_is_what_stood_when_they_acted(positions_lake: Path) -> None:
    d = rows(positions_lake, "SELECT seen, dealt FROM decisions WHERE hand_id = 'must-foul' AND street = 2")[0]
    seen = set(d["seen"])
    own = {parse_card(c) for c in ["9c", "9d", "9h", "4h", "5h", "2s", "6d", "Qs"]}
    villain_first = {parse_card(c) for c in ["Tc", "Td", "Th", "5c", "5d"]}
    villain_second = {parse_card(c) for c in ["Ts", "6c"]}  # placed after the hero acted
    assert own <= seen
    assert villain_first <= seen
    assert not villain_second & seen
    assert sorted(d["dealt"]) == sorted(parse_card(c) for c in ["2s", "6d", "Qs"])


def test_positions_of_a_later_seat_hold_the_earlier_seats_cards_of_the_street() -> None:
    # Two boards acting in turn: the first placed a card on street 2 before the second acts.
    hands = Hands(
        hand_start=np.array([0, 2]),
        fantasyland=np.array([False, False]),
        place_start=np.array([0, 2, 4]),
        street=np.array([1, 2, 1, 2]),
        card=np.array([0, 1, 2, 3], dtype=np.uint8),
        row=np.array([2, 0, 1, 3]),
    )
    first = positions(hands, np.array([0]), np.array([2]), 2, 1)
    second = positions(hands, np.array([1]), np.array([2]), 2, 1)
    assert first.counts[0].tolist() == [[0, 0, 1], [0, 1, 0]]  # the other's street 2 not yet played
    assert second.counts[0].tolist() == [[1, 0, 1], [0, 1, 0]]  # the first's street 2 already on the board
    assert second.me[0] == 1
    assert second.dealt[0, 0] == 3
    assert second.played[0, 0] == 3


@pytest.fixture(scope="module")
def bots_lake(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Three-handed Pineapple: mc, planner and heuristic at one table, random and two heuristic at another."""
    lake = tmp_path_factory.mktemp("bots") / "lake"
    for bots, hands, seed in (("mc,planner,heuristic", "400", "1"), ("random,heuristic,heuristic", "100", "2")):
        ofc("simulate", "--variant", "pineapple", "--players", "3", "--bots", bots, "--hands", hands,
            "--seed", seed, "--lake", str(lake))  # fmt: skip
    ofc("analyse", "--lake", str(lake))
    return lake


BOT_LOSS = """
WITH per_board AS (
    SELECT split_part(b.player, '-', 1) AS bot, b.hand_key, b.seat, coalesce(sum(d.ev_lost), 0) AS lost
    FROM analysed(NULL) b
    LEFT JOIN weighed(NULL) d ON d.hand_key = b.hand_key AND d.seat = b.seat
    GROUP BY ALL
)
SELECT bot, count(*) AS hands, avg(lost) AS mean, 1.96 * stddev_samp(lost) / sqrt(count(*)) AS margin
FROM per_board GROUP BY bot
"""


def test_ev_lost_per_hand_orders_the_bots_with_intervals_apart(bots_lake: Path) -> None:
    loss = {r["bot"]: r for r in rows(bots_lake, BOT_LOSS)}
    order = ["mc", "planner", "heuristic", "random"]
    for better, worse in itertools.pairwise(order):
        a, b = loss[better], loss[worse]
        assert a["mean"] + a["margin"] < b["mean"] - b["margin"], (better, a, worse, b)


def test_the_median_standard_error_is_under_half_a_point(bots_lake: Path) -> None:
    (r,) = rows(bots_lake, "SELECT median(se) AS se, count(*) AS n FROM decisions")
    assert r["n"] > 5_000
    assert r["se"] < 0.5, r


def test_the_same_seed_gives_the_same_table_and_another_seed_another(tmp_path: Path, positions_lake: Path) -> None:
    copy = tmp_path / "copy"
    shutil.copytree(positions_lake, copy)
    shutil.rmtree(copy / "decisions")
    shutil.rmtree(copy / "analysed_boards")
    for m in (copy / "_manifests").glob("*.json"):
        if json.loads(m.read_text())["kind"] == "analysis":
            m.unlink()
    ofc("analyse", "--lake", str(copy))  # every seat this time: the hero's decisions come out the same
    ofc("analyse", "--lake", str(copy), "--player", HERO, "--seed", "1")
    columns = "hand_id, street, played, best, ev_played, ev_best, ev_lost, se, foul_played, foul_best, rollouts, seed"
    query = f"SELECT {columns} FROM decisions WHERE player = '{HERO}' AND analysis = '%s' ORDER BY ALL"
    first = rows(positions_lake, query % f"r32-m5-s0-v{METHOD}")
    assert first
    assert rows(copy, query % f"r32-m5-s0-v{METHOD}") == first
    other = rows(copy, query % f"r32-m5-s1-v{METHOD}")
    assert len(other) == len(first)
    assert other != first


def test_a_rerun_weighs_only_what_is_new(tmp_path: Path) -> None:
    lake = str(tmp_path / "lake")
    sim = ["simulate", "--variant", "pineapple", "--players", "2", "--bots", "heuristic", "--lake", lake]
    ofc(*sim, "--hands", "20", "--seed", "1")
    first = json.loads(ofc("analyse", "--lake", lake, "--rollouts", "8", "--json"))
    assert first["hands"] == 20
    assert first["boards"] == 40
    assert first["already"] == 0
    ofc(*sim, "--hands", "5", "--seed", "2")
    again = json.loads(ofc("analyse", "--lake", lake, "--rollouts", "8", "--json"))
    assert again["hands"] == 5
    assert again["already"] == 40
    nothing = json.loads(ofc("analyse", "--lake", lake, "--rollouts", "8", "--json"))
    assert nothing["hands"] == 0
    assert nothing["batches"] == []
    total = rows(Path(lake), "SELECT count(*) AS n, count(DISTINCT hand_key) AS hands FROM analysed_boards")
    assert total == [{"n": 50, "hands": 25}]


def test_boards_without_placements_are_accounted_for_with_the_reason(tmp_path: Path) -> None:
    lake = str(tmp_path / "lake")
    record = json.loads(json.dumps(MUST_FOUL))
    for p in record["players"]:
        p.pop("placements")
    record["hand_id"] = "no-placements"
    source = tmp_path / "h.jsonl"
    source.write_text(json.dumps(record) + "\n")
    ofc("ingest", str(source), "--lake", lake)
    out = json.loads(ofc("analyse", "--lake", lake, "--json"))
    assert out["decisions"] == 0
    assert out["skipped"] == {"no placements recorded": 2}
    assert rows(Path(lake), "SELECT count(*) AS n FROM analysed_boards WHERE skipped IS NOT NULL") == [{"n": 2}]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--player", "hreo"], "no player 'hreo' in the lake; the closest names: hero"),
        (["--variant", "classic"], "classic hands are set all at once"),
        (["--variant", "pinapple"], "no variant 'pinapple'"),
        (["--since", "2026-13-01"], "--since takes a day"),
    ],
)
def test_filters_that_match_nothing_are_errors_naming_the_closest(
    positions_lake: Path, args: list[str], message: str
) -> None:
    result = runner.invoke(app, ["analyse", "--lake", str(positions_lake), *args])
    assert result.exit_code == 2
    assert message in result.output


def test_a_lake_of_classic_hands_has_nothing_to_weigh(tmp_path: Path) -> None:
    lake = str(tmp_path / "lake")
    ofc("simulate", "--variant", "classic", "--players", "2", "--bots", "heuristic", "--hands", "5", "--lake", lake)
    result = runner.invoke(app, ["analyse", "--lake", lake])
    assert result.exit_code == 2
    assert "no open-face hands match" in result.output


def _final(record: dict, seat: int, dealt: list[str], rows: str) -> dict:
    """``record`` with the last street of ``seat`` replaced by ``rows`` (t, m, b, x per card of ``dealt``)."""
    out = json.loads(json.dumps(record))
    p = out["players"][seat]
    for card in dealt:
        for row in ("top", "middle", "bottom", "discards"):
            if card in p[row]:
                p[row].remove(card)
    for card, r in zip(dealt, rows, strict=True):
        p[{"t": "top", "m": "middle", "b": "bottom", "x": "discards"}[r]].append(card)
    p.pop("placements")
    return out


@pytest.mark.parametrize("position", [MUST_FOUL, BREAKS_FLUSH], ids=["must-foul", "breaks-flush"])
def test_a_last_decision_after_every_other_board_is_exact_by_the_reference_scorer(
    tmp_path: Path, position: dict
) -> None:
    # The hero on the button acts last: at their last street every other board is complete, so each move's
    # worth is one number, which the tests' reference scorer gives (no Fantasyland is in reach here).
    from ofc.pipeline.rules.files import load_rules
    from tests.reference.slow_scorer import score_hand

    record = {**json.loads(json.dumps(position)), "button": 0, "hand_id": "last"}
    source = tmp_path / "h.jsonl"
    source.write_text(json.dumps(record) + "\n")
    lake = tmp_path / "lake"
    ofc("ingest", str(source), "--lake", str(lake))
    ofc("analyse", "--lake", str(lake), "--player", HERO)
    (d,) = rows(lake, "SELECT cards_text(dealt) AS dealt, * EXCLUDE (dealt) FROM decisions WHERE street = 5")
    dealt = d["dealt"].split()
    rules = load_rules("pineapple")
    played = score_hand(_final(record, 0, dealt, d["played_rows"]), rules)
    best = score_hand(_final(record, 0, dealt, d["best_rows"]), rules)
    assert d["ev_played"] == pytest.approx(played["points"][HERO])
    assert d["ev_best"] == pytest.approx(best["points"][HERO])
    assert d["se"] == 0
    assert best["points"][HERO] > played["points"][HERO]
    assert d["foul_played"] == float(played["boards"][HERO]["fouled"])
    assert d["foul_best"] == float(best["boards"][HERO]["fouled"])


@pytest.mark.parametrize(
    ("variant", "players", "bots"),
    [("ofc", "3", "planner"), ("progressive-pineapple", "3", "mc,planner,heuristic"), ("pineapple-27", "2", "planner")],
)
def test_every_open_face_variant_is_weighed_under_its_own_rules(
    tmp_path: Path, variant: str, players: str, bots: str
) -> None:
    lake = tmp_path / "lake"
    ofc("simulate", "--variant", variant, "--players", players, "--bots", bots, "--hands", "60", "--seed", "5",
        "--lake", str(lake))  # fmt: skip
    out = json.loads(ofc("analyse", "--lake", str(lake), "--rollouts", "8", "--json"))
    assert out["skipped"] == {}
    assert out["boards"] == 60 * int(players)
    per_board = rows(
        lake,
        """SELECT a.decisions, b.fantasyland, a.rules_key,
               (SELECT list(DISTINCT kind) FROM decisions d WHERE d.hand_key = a.hand_key AND d.seat = a.seat) AS kinds
           FROM analysed_boards a JOIN boards b USING (hand_key, seat)""",
    )
    assert len(per_board) == 60 * int(players)  # every board analysed
    streets = 9 if variant == "ofc" else 5
    for r in per_board:
        assert r["rules_key"].startswith(f"{variant}@")
        if r["fantasyland"]:
            assert r["decisions"] == 1
            assert r["kinds"] == ["fantasyland"]
        else:  # an OFC card with one place left to go is forced, not a decision; a Pineapple street never is
            assert 1 <= r["decisions"] <= streets
            assert variant == "ofc" or r["decisions"] == streets
    # Every street of every board is a decision or a forced move.
    normal = sum(not r["fantasyland"] for r in per_board)
    assert out["decisions"] + out["forced"] == normal * streets + (len(per_board) - normal)
    decided = rows(lake, "SELECT kind, count(*) AS n, min(ev_lost) AS low, max(se) AS se FROM decisions GROUP BY kind")
    assert {r["kind"] for r in decided} >= {"initial", "placement" if variant == "ofc" else "discard"}
    assert all(r["low"] >= 0 for r in decided)
    if variant == "progressive-pineapple":
        fl = rows(lake, "SELECT len(dealt) AS cards, played FROM decisions WHERE kind = 'fantasyland'")
        assert fl, "the mc bot reaches Fantasyland in 60 hands"
        assert all(r["cards"] >= 14 and r["played"].count(" ") >= 13 for r in fl)


@pytest.fixture(scope="module")
def fouls_lake(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Pineapple and OFC, rescored and analysed: a random bot at each table fouls often enough to count."""
    lake = tmp_path_factory.mktemp("fouls") / "lake"
    for variant, players, bots, seed in (
        ("pineapple", "3", "mc,planner,random", "11"),
        ("ofc", "2", "planner,random", "12"),
    ):
        ofc("simulate", "--variant", variant, "--players", players, "--bots", bots, "--hands", "40", "--seed", seed,
            "--lake", str(lake))  # fmt: skip
    ofc("rescore", "--lake", str(lake))
    ofc("analyse", "--lake", str(lake), "--rollouts", "8")
    return lake


def test_foul_chances_are_shares_of_the_rollouts_and_a_completed_board_s_is_its_foul(fouls_lake: Path) -> None:
    decided = rows(
        fouls_lake,
        """SELECT d.variant, d.street, d.kind, d.rollouts, d.ev_lost, d.foul_played, d.foul_best, p.fouled
           FROM decisions d JOIN played_boards p USING (hand_key, seat)""",
    )
    assert len(decided) > 500
    for d in decided:
        for share in (d["foul_played"], d["foul_best"]):
            assert 0.0 <= share <= 1.0, d
            assert share * d["rollouts"] == pytest.approx(round(share * d["rollouts"])), d  # k of the rollouts
        if d["ev_lost"] == 0:  # the move played is the best found
            assert d["foul_best"] == d["foul_played"], d
        # Pineapple's last street completes the board, and a Fantasyland setting is the board: no chance left.
        if d["kind"] == "fantasyland" or (d["variant"] != "ofc" and d["street"] == 5):
            assert d["foul_played"] == float(d["fouled"]), d
    assert any(d["foul_played"] > d["foul_best"] for d in decided)


def _query(lake: Path, name: str, **params: object) -> list[dict]:
    snapshot = Lake(lake).snapshot()
    return named.run(connect(snapshot), snapshot, name, params).to_pylist()


def test_foul_sources_count_every_decision_and_every_fouled_board_once_per_variant(fouls_lake: Path) -> None:
    out = _query(fouls_lake, "foul_sources")
    assert {r["variant"] for r in out} == {"ofc", "pineapple"}
    decided = rows(
        fouls_lake,
        """SELECT d.variant, d.player, d.hand_key, d.seat, d.street, d.kind, d.foul_played - d.foul_best AS added,
               p.fouled
           FROM decisions d JOIN played_boards p USING (hand_key, seat)""",
    )
    groups = {(r["variant"], r["player"]) for r in out}
    assert groups == {(d["variant"], p) for d in decided for p in (None, d["player"])}
    for variant, player in groups:
        mine = [d for d in decided if d["variant"] == variant and player in (None, d["player"])]
        here = [r for r in out if (r["variant"], r["player"]) == (variant, player)]
        per = {
            dim: [r for r in here if r["dimension"] == dim] for dim in ("street", "kind", "cause_street", "cause_kind")
        }
        # Every decision once by street (a Fantasyland setting on a row of its own) and once by kind.
        assert sum(r["decisions"] for r in per["street"]) == len(mine)
        assert sum(r["decisions"] for r in per["kind"]) == len(mine)
        assert Counter({r["kind"]: r["decisions"] for r in per["kind"]}) == Counter(d["kind"] for d in mine)
        for r in per["street"]:
            assert r["boards"] == r["decisions"], r  # a board decides once a street
            assert r["foul_added"] == pytest.approx(r["foul_played"] - r["foul_best"])
        # Every fouled board once by the decision that raised its chance most, or the cards.
        worst: dict[tuple, dict] = {}
        for d in sorted(mine, key=lambda d: (-d["added"], d["street"])):
            worst.setdefault((d["hand_key"], d["seat"]), d)
        fouled = [d for d in worst.values() if d["fouled"]]
        assert {r["fouled_boards"] for r in here} == {len(fouled)}
        assert {r["analysed_boards"] for r in here} == {len(worst)}
        cause = Counter(d["kind"] if d["added"] > 0.05 else "none: the cards" for d in fouled)
        assert {r["kind"]: r["boards"] for r in per["cause_kind"]} == cause
        assert sum(r["boards"] for r in per["cause_street"]) == len(fouled)
        assert sum(r["share"] for r in per["cause_kind"]) == pytest.approx(1.0 if fouled else 0.0)
        for r in per["cause_kind"]:
            assert r["share_low"] <= r["share"] <= r["share_high"], r
    everyone = [r for r in out if r["player"] is None and r["dimension"] == "cause_kind"]
    assert sum(r["boards"] for r in everyone) > 5, "random boards foul"


def test_a_lake_analysed_before_foul_chances_reads_them_as_null_and_is_weighed_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    lake = tmp_path / "lake"
    ofc("simulate", "--variant", "pineapple", "--players", "2", "--bots", "heuristic", "--hands", "10", "--lake",
        str(lake))  # fmt: skip
    ofc("rescore", "--lake", str(lake))
    with monkeypatch.context() as m:
        m.setattr(analyse_run, "METHOD", 2)
        ofc("analyse", "--lake", str(lake), "--rollouts", "8")
    old = "r8-m5-s0-v2"
    for path in (lake / "decisions" / f"analysis={old}").rglob("*.parquet"):  # as the method before wrote them
        pq.write_table(pq.ParquetFile(path).read().drop_columns(["foul_played", "foul_best"]), path)
    (before,) = rows(lake, "SELECT count(*) AS n, count(foul_played) AS fouls, count(foul_best) AS best FROM decisions")
    assert before["n"] > 0
    assert before["fouls"] == before["best"] == 0
    assert _query(lake, "foul_sources", analysis=old) == []
    (loss, *_) = _query(lake, "decision_loss", analysis=old)
    assert loss["decisions"] == before["n"]
    again = json.loads(ofc("analyse", "--lake", str(lake), "--rollouts", "8", "--json"))
    assert again["analysis"] == f"r8-m5-s0-v{METHOD}"
    assert again["analysis"] != old
    assert (again["already"], again["boards"]) == (0, 20)
    older, newer = rows(
        lake,
        "SELECT analysis, count(*) AS n, count(foul_played) AS fouls FROM decisions GROUP BY ALL ORDER BY analysis",
    )
    assert older == {"analysis": old, "n": before["n"], "fouls": 0}
    assert newer == {"analysis": again["analysis"], "n": again["decisions"], "fouls": again["decisions"]}
    assert _query(lake, "foul_sources")  # the latest analysis


@pytest.fixture(scope="module")
def sessions_lake(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Three sessions of ten two-player Pineapple hands each, played from 2026-01-01."""
    lake = tmp_path_factory.mktemp("sessions") / "lake"
    sim = ["simulate", "--variant", "pineapple", "--players", "2", "--bots", "heuristic", "--lake", str(lake)]
    ofc(*sim, "--hands", "30", "--session-hands", "10", "--start", "2026-01-01T12:00:00+00:00", "--seed", "3")
    return lake


def test_the_latest_hands_and_one_session_can_be_weighed_alone(sessions_lake: Path, tmp_path: Path) -> None:
    lake = tmp_path / "lake"
    shutil.copytree(sessions_lake, lake)
    latest = rows(lake, "SELECT hand_key FROM hands ORDER BY played_at DESC, hand_key DESC LIMIT 7")
    out = json.loads(ofc("analyse", "--lake", str(lake), "--rollouts", "4", "--hands", "7", "--json"))
    assert (out["hands"], out["boards"]) == (7, 14)
    weighed = rows(lake, "SELECT DISTINCT hand_key FROM analysed_boards")
    assert {r["hand_key"] for r in weighed} == {r["hand_key"] for r in latest}
    (session,) = rows(lake, "SELECT session FROM hands GROUP BY ALL ORDER BY session LIMIT 1")
    one = json.loads(ofc("analyse", "--lake", str(lake), "--rollouts", "4", "--session", session["session"], "--json"))
    assert one["hands"] + one["already"] // 2 == 10
    in_session = rows(lake, f"SELECT count(*) AS n FROM hands WHERE session = '{session['session']}'")
    assert in_session == [{"n": 10}]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--session", "nope"], "no session 'nope' (sessions: "),
        (["--last", "3"], "the last hand in the lake was played on 2026-01-01"),
        (["--last", "3", "--since", "2026-01-01"], "give --since or --last, not both"),
        (["--hands", "0"], "--hands"),
    ],
)
def test_session_and_day_filters_that_match_nothing_say_so(sessions_lake: Path, args: list[str], message: str) -> None:
    result = runner.invoke(app, ["analyse", "--lake", str(sessions_lake), *args])
    assert result.exit_code == 2, result.output
    assert message in result.output


def test_a_session_misspelt_is_named_with_the_closest(sessions_lake: Path) -> None:
    (session,) = rows(sessions_lake, "SELECT session FROM hands GROUP BY ALL ORDER BY session LIMIT 1")
    typo = session["session"][:-1] + "x"
    result = runner.invoke(app, ["analyse", "--lake", str(sessions_lake), "--session", typo])
    assert result.exit_code == 2, result.output
    assert f"no session '{typo}'; did you mean " in result.output
    assert repr(session["session"]) in result.output


def test_the_progress_moves_by_hand_not_by_chunk(
    sessions_lake: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(analyse_run, "STEP", 4)  # 30 hands in one chunk: told 4 hands at a time
    lake = tmp_path / "lake"
    shutil.copytree(sessions_lake, lake)
    told: list[tuple[int, int]] = []
    summary = analyse(
        Lake(lake), Settings(rollouts=4), AnalysisFilters(), lambda done, total: told.append((done, total))
    )
    assert summary.hands == 30
    done = [d for d, _ in told]
    assert (done[0], done[-1]) == (0, 30)
    assert {t for _, t in told} == {30}
    steps = [b - a for a, b in itertools.pairwise(done)]
    assert len(steps) >= 3, told
    assert 0 < min(steps) <= max(steps) <= 4, told
