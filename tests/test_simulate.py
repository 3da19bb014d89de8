"""The simulator: complete, consistent hands of every variant, Fantasyland carried as the rules say, and reruns
that give the same bytes."""

from __future__ import annotations

from itertools import combinations

import numpy as np
import pytest

from ofc.pipeline.evaluate import lowball27
from ofc.pipeline.rules.compile import compile_rules
from ofc.pipeline.rules.files import load_rules
from ofc.pipeline.score.engine import Boards, score
from ofc.pipeline.simulate.played_hands import HandBatch
from ofc.pipeline.simulate.simulation_run import Spec, plan, play
from ofc.pipeline.simulate.streets import streets_of
from ofc.schemas.rules import Dealing, RuleSet

VARIANTS = [
    ("classic-1-6", 2, "mc,heuristic,random"),
    ("classic-2-4", 4, "random,heuristic,mc"),
    ("ofc", 2, "heuristic,random"),
    ("ofc", 4, "mc,heuristic,random,planner"),
    ("pineapple", 3, "mc,heuristic,random"),
    ("progressive-pineapple", 3, "heuristic,random,planner"),
    ("pineapple-27", 2, "heuristic,planner"),
]


def spec_for(rules: str | RuleSet, players: int, bots: str, hands: int = 60, seed: int = 1, **kw: object) -> Spec:
    rs = load_rules(rules) if isinstance(rules, str) else rules
    return plan(rs.game.variant.value, players, hands, bots, rs, seed=seed, **kw)  # type: ignore[arg-type]


def run(spec: Spec) -> HandBatch:
    return HandBatch.concat(list(play(spec)))


@pytest.fixture(scope="module")
def played() -> dict[tuple[str, int], tuple[Spec, HandBatch]]:
    out = {}
    for rules, players, bots in VARIANTS:
        spec = spec_for(rules, players, bots, hands=60, rollouts=4, session_hands=20)
        out[rules, players] = (spec, run(spec))
    return out


@pytest.mark.parametrize(("rules", "players"), [(r, p) for r, p, _ in VARIANTS])
def test_hands_are_complete_and_consistent(played: dict, rules: str, players: int) -> None:
    spec, b = played[rules, players]
    assert b.hands == spec.hands
    dealt = np.arange(b.dealt.shape[2])[None, None, :] < b.n_dealt[:, :, None]
    # No card twice in a hand, across players and discards.
    cards = np.where(dealt, b.dealt, 255).reshape(b.hands, -1)
    real = np.sort(cards, axis=1)
    dup = (real[:, 1:] == real[:, :-1]) & (real[:, 1:] < 52)
    assert not dup.any()
    assert ((b.dealt < 52) == dealt).all()
    # Every board holds 13 cards: exactly the dealt cards placed on a row, each in its row.
    assert (b.cards < 52).all()
    for p in range(players):
        for h in range(b.hands):
            placed = b.dealt[h, p][dealt[h, p] & (b.row[h, p] < 3)]
            assert sorted(placed.tolist()) == sorted(b.cards[h, p].tolist())
            for r, (lo, hi) in enumerate(((0, 3), (3, 8), (8, 13))):
                on_row = b.dealt[h, p][dealt[h, p] & (b.row[h, p] == r)]
                assert sorted(on_row.tolist()) == sorted(b.cards[h, p, lo:hi].tolist())
    # Streets as the variant deals them; discards only where it has them.
    streets = streets_of(spec.rules.game.dealing)
    normal = ~b.fantasyland
    discards = (dealt & (b.row == 3)).sum(axis=2)
    assert (discards[normal] == sum(streets.discarded)).all()
    assert (discards[b.fantasyland] == b.fantasyland_cards[b.fantasyland] - 13).all()
    street_ok = np.where(b.fantasyland[:, :, None], 1, streets.street_of_card[None, None, : b.dealt.shape[2]])
    assert ((b.street == street_ok) | ~dealt).all()
    # Recorded points are the scoring engine's, and sum to zero at each table.
    assert (b.points.sum(axis=1) == 0).all()
    if spec.rules.game.dealing is not Dealing.CLASSIC:
        assert not b.surrendered.any()
        assert (b.natural < 0).all()


def test_the_button_rotates_and_fantasyland_carries_as_the_rules_say(played: dict) -> None:
    for (rules, players), (spec, b) in played.items():
        rs = spec.rules
        table = Boards.build(
            hand=np.repeat(np.arange(b.hands), players),
            seat=np.tile(np.arange(players), b.hands),
            cards=b.cards.reshape(-1, 13),
            button=np.repeat(b.button, players),
            in_fantasyland=b.fantasyland.ravel(),
            surrendered=b.surrendered.ravel(),
            natural=b.natural.ravel(),
        )
        result = score(table, rs)
        assert (result.net.reshape(b.hands, players) == b.points).all(), rules
        next_cards = result.boards.fantasyland_next.reshape(b.hands, players)
        same = b.session[1:] == b.session[:-1]
        # The next hand of a session deals each player the Fantasyland this hand earned, and nothing else.
        assert (b.fantasyland_cards[1:][same] == next_cards[:-1][same]).all(), rules
        assert (b.fantasyland[1:][same] == (next_cards[:-1][same] > 0)).all(), rules
        assert (b.hand_number[1:][same] == b.hand_number[:-1][same] + 1).all()
        # The button moves one seat, except onto a hand in which someone is in Fantasyland.
        frozen = b.fantasyland[1:].any(axis=1) & ~rs.game.button_moves_in_fantasyland
        want = np.where(frozen, b.button[:-1], (b.button[:-1] + 1) % players)
        assert (b.button[1:][same] == want[same]).all(), rules
        # Entry and stay are exclusive: a Fantasyland hand never re-enters on an entry tier alone.
        assert not (b.fantasyland & b.fantasyland_entry).any()
        assert not (~b.fantasyland & b.fantasyland_stay).any()


FANTASYLAND_COUNTS = {
    "ofc": {13},
    "pineapple": {14},
    "progressive-pineapple": {14, 15, 16, 17},
    "pineapple-27": {14, 15},
}


@pytest.mark.parametrize("rules", list(FANTASYLAND_COUNTS))
def test_fantasyland_hands_deal_the_counts_the_rules_give(rules: str) -> None:
    spec = spec_for(rules, 3 if rules != "ofc" else 2, "heuristic", hands=1200, session_hands=40)
    b = run(spec)
    counts = set(np.unique(b.fantasyland_cards[b.fantasyland]).tolist())
    assert counts
    assert counts <= FANTASYLAND_COUNTS[rules]
    assert (b.n_dealt[b.fantasyland] == b.fantasyland_cards[b.fantasyland]).all()
    assert (b.n_dealt[~b.fantasyland] == streets_of(spec.rules.game.dealing).cards).all()
    # A Fantasyland hand fouls only when no setting of its cards is valid: never with a normal middle,
    # and on a 2-7 middle only when no five of its cards qualify.
    fouled = np.argwhere(b.fantasyland & b.fouled)
    if not spec.rules.game.lowball_middle:
        assert fouled.size == 0
    qualifier = compile_rules(spec.rules).qualifier
    for h, p in fouled:
        cards = b.dealt[h, p, : b.n_dealt[h, p]]
        fives = cards[np.array(list(combinations(range(cards.size), 5)))]
        assert lowball27(fives).min() > qualifier
    if rules == "progressive-pineapple":
        assert max(counts) > 14  # KK, AA or trips on top were earned at least once


def test_a_rule_set_that_moves_the_button_in_fantasyland(tmp_path) -> None:
    house = tmp_path / "moving.toml"
    house.write_text('extends = "pineapple"\n[game]\nbutton_moves_in_fantasyland = true\n')
    spec = spec_for(str(house), 3, "heuristic", hands=600, session_hands=60)
    b = run(spec)
    same = b.session[1:] == b.session[:-1]
    assert b.fantasyland.any()
    assert (b.button[1:][same] == ((b.button[:-1] + 1) % 3)[same]).all()


def test_classic_two_players_share_one_deck_over_two_hands() -> None:
    b = run(spec_for("classic-1-6", 2, "heuristic", hands=40, session_hands=40))
    first, second = b.dealt[0::2].reshape(20, -1), b.dealt[1::2].reshape(20, -1)
    both = np.sort(np.concatenate([first, second], axis=1), axis=1)
    assert (both == np.arange(52)).all()


def test_classic_naturals_and_surrender_follow_the_rules() -> None:
    from ofc.pipeline.score.naturals import natural_kinds

    b = run(spec_for("classic-1-6", 3, "mc,heuristic,random", hands=600, session_hands=100))
    declared = b.natural >= 0
    made = natural_kinds(b.cards[declared])[np.arange(int(declared.sum())), b.natural[declared]]
    assert made.all()  # only naturals the cards make are declared
    assert not declared[:, 2].any()
    assert not b.surrendered[:, 1:].any()
    assert b.surrendered[:, 0].any()  # mc gives up its worst hands, where the rules allow it
    no_surrender = load_rules("classic-2-4").model_copy(update={"surrender": load_rules("ofc").surrender})
    b = run(spec_for(no_surrender, 3, "mc", hands=200))
    assert not b.surrendered.any()


def test_the_same_seed_gives_the_same_hands_and_another_seed_does_not() -> None:
    one = run(spec_for("pineapple", 3, "mc,heuristic,random", hands=40, seed=5, rollouts=4))
    two = run(spec_for("pineapple", 3, "mc,heuristic,random", hands=40, seed=5, rollouts=4))
    other = run(spec_for("pineapple", 3, "mc,heuristic,random", hands=40, seed=6, rollouts=4))
    for name in ("cards", "dealt", "row", "street", "points", "button", "fantasyland_cards"):
        assert np.array_equal(getattr(one, name), getattr(two, name)), name
    assert not np.array_equal(one.dealt, other.dealt)


def _heads_up(rules: str, bots: str, hands: int, rollouts: int = 16) -> np.ndarray:
    spec = spec_for(rules, 2, bots, hands=hands, seed=21, rollouts=rollouts, session_hands=50)
    return run(spec).points[:, 0].astype(np.float64)


def _lower_bound(points: np.ndarray) -> float:
    """The lower end of a 99.9% interval of the mean (3.3 standard errors)."""
    return float(points.mean() - 3.3 * points.std(ddof=1) / np.sqrt(points.size))


def test_heuristic_beats_random_heads_up() -> None:
    assert _lower_bound(_heads_up("pineapple", "heuristic,random", 2000)) > 0


def test_mc_beats_heuristic_heads_up() -> None:
    assert _lower_bound(_heads_up("pineapple", "mc,heuristic", 2000, rollouts=8)) > 0


def test_planner_beats_heuristic_heads_up() -> None:
    assert _lower_bound(_heads_up("pineapple", "planner,heuristic", 2000)) > 0


@pytest.mark.parametrize("rules", ["pineapple", "pineapple-27"])
def test_heuristic_keeps_its_rows_in_order(rules: str) -> None:
    """Fast rules still foul few boards (the planner fouls about 7% of three-handed Pineapple boards, 24% of 2-7),
    and reach Fantasyland now and then."""
    b = run(spec_for(rules, 3, "heuristic", hands=1500, session_hands=50))
    normal = ~b.fantasyland
    assert b.fouled[normal].mean() < 0.15
    assert b.fantasyland_entry[normal].mean() > 0.005


def test_heuristic_counts_the_cards_it_has_seen_as_the_planner_does() -> None:
    from ofc.pipeline.simulate import heuristic_kernels, planner_kernels

    rng = np.random.default_rng(3)
    deck = rng.permuted(np.broadcast_to(np.arange(52, dtype=np.uint8), (50, 52)), axis=1)
    own = np.where(np.arange(13) < rng.integers(5, 14, size=(50, 1)), deck[:, :13], 255).astype(np.uint8)
    boards = np.where(rng.random((50, 3, 13)) < 0.6, deck[:, 13:52].reshape(50, 3, 13), 255).astype(np.uint8)
    hidden = rng.random((50, 3)) < 0.3
    live = np.empty((50, 17))
    unseen = np.empty(50)
    planner_kernels.seen(own, np.where(hidden[:, :, None], 255, boards).astype(np.uint8), hidden, live, unseen)
    odds = np.empty(17)
    for i in range(50):
        heuristic_kernels._odds(own[i], boards, hidden, i, odds)
        assert np.allclose(odds, live[i] / unseen[i])


@pytest.mark.parametrize(("rules", "players"), [(r, p) for r, p, _ in VARIANTS])
def test_columns_straight_from_the_arrays_make_the_rows_records_make(played: dict, rules: str, players: int) -> None:
    """The lake takes simulated hands without writing them out as records first; the rows are the same."""
    from ofc.pipeline.ingest.base import Chunk
    from ofc.pipeline.ingest.validate import validate
    from ofc.pipeline.simulate.records import to_chunk, to_records
    from ofc.pipeline.simulate.simulation_run import meta

    spec, b = played[rules, players]
    m = meta(spec)
    fast = to_chunk(b, m, 1)
    assert fast.scanned is not None
    assert fast.scanned.taken.size == b.hands
    assert fast.records.num_rows == 0
    records = to_records(b, m)
    slow = Chunk(records, np.arange(1, b.hands + 1), np.zeros(b.hands, np.int64), [], b.hands)
    a, z = validate(fast, "sim", "b1"), validate(slow, "sim", "b1")
    assert not a.problems
    assert not z.problems
    for table in ("hands", "boards", "placements"):
        assert getattr(a, table).to_pylist() == getattr(z, table).to_pylist(), table


def test_a_broken_hand_from_the_arrays_goes_through_every_check(played: dict) -> None:
    from ofc.pipeline.ingest.validate import validate
    from ofc.pipeline.simulate.records import to_chunk
    from ofc.pipeline.simulate.simulation_run import meta

    spec, b = played["pineapple", 3]
    b = b.take(np.arange(b.hands))
    b.cards[5, 1, 0] = b.cards[5, 0, 0]  # a card twice in hand 5
    chunk = to_chunk(b, meta(spec), 1)
    assert chunk.scanned is not None
    assert 5 not in chunk.scanned.taken
    assert chunk.records.num_rows == 1
    v = validate(chunk, "sim", "b1")
    assert chunk.count == b.hands
    assert v.hands.num_rows == b.hands - 1
    assert [p.line for p in v.problems] == [6]
    assert "twice" in v.problems[0].reason
