"""Properties of the scoring engine that hold for every rule set, on random legal deals."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ofc.pipeline.cards import deal
from ofc.pipeline.rules.files import load_rules, preset_names
from ofc.pipeline.score.engine import Boards, score
from ofc.pipeline.score.pair_kernels import FOUL

HANDS = 1500


def random_boards(seed: int, players: int, sensible_share: float, rules_name: str) -> Boards:
    """``HANDS`` hands of ``players``: some boards placed at random, some sorted so most are valid."""
    rng = np.random.default_rng(seed)
    cards = deal(HANDS, 13 * players, rng).reshape(HANDS * players, 13)
    sensible = rng.random(len(cards)) < sensible_share
    ranked = np.sort(cards, axis=1)  # low codes first: lowest cards on top, highest at the bottom
    cards = np.where(sensible[:, None], ranked, cards)
    classic = rules_name.startswith("classic") or rules_name == "taiwanese"
    n = len(cards)
    return Boards.build(
        hand=np.repeat(np.arange(HANDS), players),
        seat=np.tile(np.arange(players), HANDS),
        cards=cards,
        button=np.repeat(rng.integers(0, players, HANDS), players),
        in_fantasyland=(rng.random(n) < 0.2) & (not classic),
        surrendered=(rng.random(n) < 0.05) & classic,
    )


def players_for(rules_name: str) -> st.SearchStrategy[int]:
    return st.integers(2, load_rules(rules_name).game.max_players)


@st.composite
def cases(draw: st.DrawFn) -> tuple[str, Boards]:
    name = draw(st.sampled_from(preset_names()))
    players = draw(players_for(name))
    seed = draw(st.integers(0, 2**32 - 1))
    share = draw(st.sampled_from([0.0, 0.5, 0.9]))
    return name, random_boards(seed, players, share, name)


@settings(max_examples=25, deadline=None)
@given(cases())
def test_every_hand_sums_to_zero(case: tuple[str, Boards]) -> None:
    name, boards = case
    result = score(boards, load_rules(name))
    assert not np.bincount(boards.hand, weights=result.net).any()
    # and each board's net is the sum of its pairs
    n = len(boards.hand)
    p = result.pairs
    assert (np.bincount(p.a, p.points, n) - np.bincount(p.b, p.points, n) == result.net).all()


@settings(max_examples=20, deadline=None)
@given(cases())
def test_swapping_two_players_negates_their_pair(case: tuple[str, Boards]) -> None:
    name, boards = case
    rules = load_rules(name)
    first = score(boards, rules)
    # Exchange everything of the boards in seats 0 and 1 of every hand.
    idx = np.arange(len(boards.hand))
    swap = idx.copy()
    players = int(np.bincount(boards.hand)[0])
    swap[0::players], swap[1::players] = idx[1::players], idx[0::players]
    swapped = Boards(
        hand=boards.hand,
        seat=boards.seat,
        cards=boards.cards[swap],
        button=boards.button,
        in_fantasyland=boards.in_fantasyland[swap],
        surrendered=boards.surrendered[swap],
        natural=boards.natural[swap],
        stack=boards.stack[swap],
        owner=boards.owner,
        misset=boards.misset[swap],
    )
    second = score(swapped, rules)
    assert (second.net == first.net[swap]).all()
    # Seats and buttons are unchanged, so both runs list the same pairs in the same order.
    between_0_and_1 = boards.seat[first.pairs.a] + boards.seat[first.pairs.b] == 1
    assert (second.pairs.points[between_0_and_1] == -first.pairs.points[between_0_and_1]).all()


@settings(max_examples=20, deadline=None)
@given(cases())
def test_a_fouled_board_never_collects(case: tuple[str, Boards]) -> None:
    name, boards = case
    result = score(boards, load_rules(name))
    f, p = result.boards, result.pairs
    assert not f.royalties[f.fouled].any()
    assert not f.fantasyland_next[f.fouled].any()
    foul = p.kind == FOUL
    fouler_is_a = f.fouled[p.a]
    points_for_fouler = np.where(fouler_is_a, p.points, -p.points)[foul]
    assert (points_for_fouler < 0).all()
    assert not (p.row_points[foul] | p.bonus[foul]).any()


def test_royalties_never_exceed_97_under_the_standard_table() -> None:
    rules = load_rules("ofc")
    boards = random_boards(11, 4, 1.0, "ofc")
    facts = score(boards, rules).boards
    assert facts.royalties.sum(axis=1).max() <= 97
    # 97 = AAA top (22) + royal middle (50) + royal bottom (25); one deck cannot deal it, this comes close.
    from ofc.pipeline.cards import parse_boards

    strong = parse_boards(["Ac Ad Ah / 9s Ts Js Qs Ks / 9h Th Jh Qh Kh"])
    facts = score(Boards.build(hand=np.zeros(1), seat=np.zeros(1), cards=strong), rules).boards
    assert facts.fouled.tolist() == [False]  # equal straight flushes: the bottom may equal the middle
    assert facts.royalties.tolist() == [[22, 30, 15]]


@pytest.mark.parametrize(("one", "other"), [("classic-1-6", "classic-2-4"), ("ofc", "pineapple")])
def test_scoring_systems_agree_on_row_winners(one: str, other: str) -> None:
    boards = random_boards(5, 3, 0.7, one)
    first, second = score(boards, load_rules(one)), score(boards, load_rules(other))
    assert (first.pairs.rows == second.pairs.rows).all()
    assert (first.pairs.a == second.pairs.a).all()


def test_mixed_table_sizes_in_one_batch() -> None:
    rules = load_rules("ofc")
    parts = [random_boards(s, k, 0.8, "ofc") for s, k in ((1, 2), (2, 3), (3, 4))]
    offset, cols = 0, {f: [] for f in ("hand", "seat", "cards", "button", "in_fantasyland", "surrendered")}
    for b in parts:
        cols["hand"].append(b.hand + offset)
        offset += HANDS
        for f in ("seat", "cards", "button", "in_fantasyland", "surrendered"):
            cols[f].append(getattr(b, f))
    mixed = Boards.build(**{k: np.concatenate(v) for k, v in cols.items()})
    order = np.random.default_rng(0).permutation(len(mixed.hand))  # any board order
    shuffled = Boards.build(**{k: np.concatenate(v)[order] for k, v in cols.items()})
    together, apart = score(mixed, rules), [score(b, rules) for b in parts]
    assert (together.net == np.concatenate([r.net for r in apart])).all()
    assert (score(shuffled, rules).net == together.net[order]).all()
    assert together.pairs.points.size == HANDS * (1 + 3 + 6)
