"""The rescoring step as a pure function: Arrow boards in, Arrow results out, equal to the engine's scores."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest

from ofc.pipeline.cards import deal
from ofc.pipeline.rescore.plan import Job
from ofc.pipeline.rescore.step import SETTLED, read_boards, rescore_batch, rescore_many
from ofc.pipeline.rules.compile import NATURALS
from ofc.pipeline.rules.files import load_rules
from ofc.pipeline.score.engine import Boards, score
from ofc.schemas.lake import BOARD_RESULTS, PAIR_RESULTS, RESCORE_INPUT
from ofc.schemas.rules import RuleSet

RULES = Path(__file__).parent / "data" / "rules"
RULE_SETS = ["ofc", "classic-1-6", "taiwanese", str(RULES / "stakes.toml"), str(RULES / "suits.toml")]


def random_boards(hands: int, seed: int) -> pa.RecordBatch:
    """Hands of 2 to 4 boards with every optional column exercised: Fantasyland, surrender, naturals,
    stacks, missing buttons, recorded points, and a criss-cross player (two boards, one name)."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(2, 5, hands)
    n = int(sizes.sum())
    cards = deal(hands, 52, rng)[:, :52].reshape(hands, 4, 13)
    hand = np.repeat(np.arange(hands), sizes)
    within = np.arange(n) - np.repeat(np.cumsum(sizes) - sizes, sizes)
    codes = cards[hand, within]
    sensible = rng.random(n) < 0.7
    codes = np.where(sensible[:, None], np.sort(codes, axis=1), codes)
    first_seat = rng.integers(0, 2, hands)  # seats need not start at 0
    seat = within + first_seat[hand]
    names = np.array([f"p{i}" for i in range(12)])
    player = names[(rng.integers(0, 3, hands)[hand] * 4 + within) % 12]
    crossed = (sizes[hand] == 4) & (rng.random(hands)[hand] < 0.2)  # criss-cross: two players, two boards each
    player = np.where(crossed, np.where(within % 2 == 0, "X", "Y"), player)
    # Some hands record no button (the highest seat is the button then).
    button = np.where(rng.random(hands) < 0.3, -1, first_seat + rng.integers(0, sizes))[hand]
    natural = np.where(rng.random(n) < 0.05, rng.choice([k.value for k in NATURALS], n), None)
    return pa.RecordBatch.from_pydict(
        {
            "hand_key": pa.array((np.arange(hands, dtype=np.uint64) * np.uint64(7919) + np.uint64(11))[hand]),
            "variant": pa.array(np.where(hand % 2 == 0, "ofc", "classic")),
            "month": pa.array(np.where(hand % 3 == 0, "2026-10", "2026-11")),
            "seat": pa.array(seat.astype(np.int8)),
            "player": pa.array(player),
            "cards": pa.FixedSizeListArray.from_arrays(pa.array(codes.ravel().astype(np.uint8)), 13),
            "misset": pa.array(rng.random(n) < 0.02),
            "fantasyland": pa.array(rng.random(n) < 0.15),
            "surrendered": pa.array(rng.random(n) < 0.05),
            "natural": pa.array(natural.tolist(), pa.string()),
            "stack": pa.array(np.where(rng.random(n) < 0.5, rng.integers(1, 20, n), 0).astype(np.int32)),
            "points": pa.array(np.where(rng.random(n) < 0.5, rng.integers(-9, 9, n), 0).astype(np.int32)),
            "button": pa.array(np.where(button < 0, None, button).tolist(), pa.int8()),
            "house_rules": pa.array(np.where(hand % 2 == 0, "ofc", None).tolist(), pa.string()),
            "played_at": pa.array(1_790_000_000_000_000 + hand * 60_000_000, pa.timestamp("us", tz="UTC")),
            "fantasyland_cards": pa.array(np.where(rng.random(n) < 0.15, 14, None).tolist(), pa.int8()),
        },
    )


def engine_boards(batch: pa.RecordBatch) -> Boards:
    """The same boards built for the engine by hand, independently of ``read_boards``."""
    rows = batch.to_pylist()
    hand = np.unique([r["hand_key"] for r in rows], return_inverse=True)[1]
    owners, first = [], {}
    for i, r in enumerate(rows):
        owners.append(first.setdefault((r["hand_key"], r["player"]), i))
    natural_index = {k.value: i for i, k in enumerate(NATURALS)}
    top_seat = {}
    for r in rows:
        top_seat[r["hand_key"]] = max(top_seat.get(r["hand_key"], -1), r["seat"])
    return Boards(
        hand=hand.astype(np.int64),
        seat=np.array([r["seat"] for r in rows], np.int64),
        cards=np.array([r["cards"] for r in rows], np.uint8),
        button=np.array([top_seat[r["hand_key"]] if r["button"] is None else r["button"] for r in rows], np.int64),
        in_fantasyland=np.array([r["fantasyland"] for r in rows]),
        surrendered=np.array([r["surrendered"] for r in rows]),
        natural=np.array([natural_index.get(r["natural"], -1) for r in rows], np.int8),
        stack=np.array([r["stack"] for r in rows], np.int64),
        owner=np.array(owners, np.int64),
        misset=np.array([r["misset"] for r in rows]),
        open_face=np.array([r["variant"] != "classic" for r in rows]),
    )


@pytest.fixture(scope="module")
def boards() -> pa.RecordBatch:
    return random_boards(400, seed=3)


@pytest.mark.parametrize("name", RULE_SETS)
def test_results_are_the_engines_scores(boards: pa.RecordBatch, name: str) -> None:
    rules = load_rules(name)
    players, pairs = rescore_batch(boards, rules)
    assert pairs.schema == PAIR_RESULTS
    assert players.schema == BOARD_RESULTS
    expected = score(engine_boards(boards), rules)
    key = boards.column("hand_key").to_numpy()
    seat = boards.column("seat").to_numpy()

    # Player results: one row per board, in input order here (boards of a hand are adjacent).
    assert players.column("hand_key").to_numpy().tolist() == key.tolist()
    assert players.column("seat").to_numpy().tolist() == seat.tolist()
    assert players.column("points").to_numpy().tolist() == expected.net.tolist()
    f = expected.boards
    assert players.column("fouled").to_pylist() == f.fouled.tolist()
    roy = np.stack([players.column(f"royalty_{r}").to_numpy() for r in ("top", "middle", "bottom")], axis=1)
    assert roy.tolist() == f.royalties.tolist()
    assert players.column("fantasyland_next").to_numpy().tolist() == f.fantasyland_next.tolist()
    assert players.column("fantasyland_entry").to_pylist() == f.fantasyland_entry.tolist()
    assert players.column("fantasyland_stay").to_pylist() == f.fantasyland_stay.tolist()
    assert set(players.column("rules").to_pylist()) == {rules.name}
    assert set(players.column("rules_key").to_pylist()) == {rules.key}

    # Pair results: the engine's pairs, seat against seat.
    p = expected.pairs
    got = {
        (k, a, b): row
        for k, a, b, row in zip(
            pairs.column("hand_key").to_pylist(),
            pairs.column("seat_a").to_pylist(),
            pairs.column("seat_b").to_pylist(),
            pairs.to_pylist(),
            strict=True,
        )
    }
    assert len(got) == pairs.num_rows == p.a.size
    for i in range(p.a.size):
        a, b = p.a[i], p.b[i]
        row = got[(int(key[a]), int(seat[a]), int(seat[b]))]
        assert row["points"] == p.points[i]
        assert [row["row_top"], row["row_middle"], row["row_bottom"]] == p.rows[i].tolist()
        assert row["scoop"] == p.scoop[i]
        assert row["settled"] == SETTLED[p.kind[i]]
        assert row["variant"] == boards.column("variant")[a].as_py()


@pytest.mark.parametrize("name", RULE_SETS)
def test_zero_sum_and_pairs_add_up_to_players(boards: pa.RecordBatch, name: str) -> None:
    players, pairs = rescore_batch(boards, load_rules(name))
    assert players.num_rows == boards.num_rows  # a row for every board
    assert pairs.num_rows > 0
    key = players.column("hand_key").to_numpy()
    pts = players.column("points").to_numpy().astype(np.int64)
    _hands, inverse = np.unique(key, return_inverse=True)
    assert not np.bincount(inverse, weights=pts).any()
    net: dict[tuple[int, int], int] = {}
    for k, a, b, p in zip(
        *(pairs.column(c).to_pylist() for c in ("hand_key", "seat_a", "seat_b", "points")), strict=True
    ):
        net[(k, a)] = net.get((k, a), 0) + p
        net[(k, b)] = net.get((k, b), 0) - p
    for k, s, p in zip(key.tolist(), players.column("seat").to_pylist(), pts.tolist(), strict=True):
        assert net.get((k, s), 0) == p


def test_no_hidden_state(boards: pa.RecordBatch, monkeypatch: pytest.MonkeyPatch) -> None:
    """Same input, same output, however often and in whatever order; nothing touches a lake or a file."""
    import pyarrow.parquet as pq

    from ofc.pipeline.lake import store

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("the pure step must not do I/O")

    monkeypatch.setattr(store.Lake, "__init__", refuse)
    monkeypatch.setattr(pq, "ParquetFile", refuse)
    monkeypatch.setattr(pq, "read_table", refuse)
    rules = [load_rules(n) for n in RULE_SETS]
    first = rescore_many(boards, rules)
    rescore_batch(random_boards(50, seed=9), rules[0])  # another batch in between changes nothing
    again = rescore_many(boards, rules)
    for one, two, r in zip(first, again, rules, strict=True):
        assert one.boards.equals(two.boards)
        assert one.pairs.equals(two.pairs)
        single = rescore_batch(boards, r)
        assert single[0].equals(one.boards)
        assert single[1].equals(one.pairs)


def test_boards_of_a_hand_may_come_in_any_order(boards: pa.RecordBatch) -> None:
    rules = load_rules("taiwanese")
    players, _ = rescore_batch(boards, rules)
    shuffled = boards.take(pa.array(np.random.default_rng(1).permutation(boards.num_rows)))
    again, _ = rescore_batch(shuffled, rules)
    key = lambda t: sorted(zip(*(t.column(c).to_pylist() for c in ("hand_key", "seat", "points")), strict=True))  # noqa: E731
    assert key(again) == key(players)


def test_recorded_points_are_checked_under_each_hands_own_rules(boards: pa.RecordBatch) -> None:
    """The OFC hands declare ofc, the classic hands nothing (their preset, classic-1-6): each is checked once,
    by the job that scores it under its own rules."""
    ofc, classic, plain = load_rules("ofc"), load_rules("classic-1-6"), load_rules("classic-plain")
    results = {r.job.rules.name: r for r in rescore_many(boards, [ofc, classic, plain])}
    variant = boards.column("variant").to_pylist()
    keys = boards.column("hand_key").to_pylist()
    ofc_hands = {k for k, v in zip(keys, variant, strict=True) if v == "ofc"}
    assert results["ofc"].recorded_checked == len(ofc_hands)  # every board here records points
    assert results["classic-1-6"].recorded_checked == len(set(keys) - ofc_hands)
    assert results["classic-plain"].recorded_checked == 0  # nobody's own rules
    assert 0 < results["ofc"].recorded_differing <= len(ofc_hands)  # random recorded points rarely match
    # Recorded points equal to ours: nothing differs.
    native = pa.concat_tables(
        [pa.Table.from_batches([r.boards.filter(r.boards.column("native"))]) for r in results.values()]
    )
    ours = {(r["hand_key"], r["seat"]): r["points"] for r in native.select(["hand_key", "seat", "points"]).to_pylist()}
    points = pa.array([ours[k, s] for k, s in zip(keys, boards.column("seat").to_pylist(), strict=True)], pa.int32())
    matching = boards.set_column(boards.schema.get_field_index("points"), "points", points)
    assert [r.recorded_differing for r in rescore_many(matching, [ofc, classic])] == [0, 0]


def test_a_job_for_native_hands_scores_only_them(boards: pa.RecordBatch) -> None:
    classic = load_rules("classic-1-6")
    every, own = rescore_many(boards, [classic, Job(classic, native_only=True)])
    assert every.boards.num_rows == boards.num_rows
    variants = set(own.boards.column("variant").to_pylist())
    assert variants == {"classic"}
    assert own.boards.column("native").to_pylist() == [True] * own.boards.num_rows
    assert own.boards.equals(every.boards.filter(every.boards.column("native")))
    assert own.pairs.equals(every.pairs.filter(every.pairs.column("native")))


def test_a_rule_set_that_cannot_apply_gives_no_rows(boards: pa.RecordBatch) -> None:
    (result,) = rescore_many(boards, [load_rules("pineapple-27")])
    assert result.boards.num_rows == result.pairs.num_rows == result.hands == 0
    assert set(result.not_applied) == {"ofc", "classic"}
    assert "2-7 lowball middle" in result.why["ofc"]


def test_the_facts_summaries_read(boards: pa.RecordBatch) -> None:
    """Time, table size, place after the button and Fantasyland cards, as the summaries read them; the results
    themselves hold the key and what the rule set decides, nothing a record says."""
    players, pairs = rescore_batch(boards, load_rules("ofc"))
    assert not {"player", "cards", "played_at", "player_a"} & {*players.schema.names, *pairs.schema.names}
    table = read_boards(boards)
    rows = boards.to_pylist()
    by_hand: dict[int, list[dict]] = {}
    for r in rows:
        by_hand.setdefault(r["hand_key"], []).append(r)
    expected = {}
    for key, hand in by_hand.items():
        seats = sorted(r["seat"] for r in hand)
        button = hand[0]["button"] if hand[0]["button"] is not None else seats[-1]
        for r in hand:
            place = (seats.index(r["seat"]) - seats.index(button)) % len(seats)
            dealt = r["fantasyland_cards"] if r["fantasyland"] and r["variant"] != "classic" else None
            expected[(key, r["seat"])] = (r["played_at"], len(seats), place, dealt)
    got = dict(
        zip(
            zip(table.hand_key.tolist(), table.boards.seat.tolist(), strict=True),
            zip(
                table.facts["played_at"].to_pylist(),
                table.n_players.tolist(),
                table.position.tolist(),
                table.fantasyland_dealt.to_pylist(),
                strict=True,
            ),
            strict=True,
        )
    )
    assert got == expected
    assert {p for _, _, p, _ in got.values()} == {0, 1, 2, 3}
    assert players.num_rows == boards.num_rows  # a row for every board
    points: dict[int, dict[int, int]] = {}
    for r in players.to_pylist():
        points.setdefault(r["hand_key"], {})[r["seat"]] = r["points"]
    for r in players.to_pylist():
        best = max(points[r["hand_key"]].values())
        top = [seat for seat, p in points[r["hand_key"]].items() if p == best]
        assert r["winner_seat"] == (top[0] if len(top) == 1 else -1)
    bare = read_boards(boards.drop_columns(["played_at", "fantasyland_cards"]))
    assert bare.facts["played_at"].null_count == bare.n
    assert bare.position.tolist() == table.position.tolist()


def test_an_empty_batch_gives_empty_results() -> None:
    players, pairs = rescore_batch(pa.RecordBatch.from_pylist([], schema=RESCORE_INPUT), RuleSet(name="x"))
    assert pairs.num_rows == players.num_rows == 0
    assert pairs.schema == PAIR_RESULTS
    assert players.schema == BOARD_RESULTS


def test_a_batch_without_the_required_columns_is_refused(boards: pa.RecordBatch) -> None:
    with pytest.raises(ValueError, match="needs the columns cards"):
        rescore_batch(boards.drop_columns(["cards"]), load_rules("ofc"))
