"""The street at which a board became impossible to complete without fouling: hand-made boards and brute force."""

from __future__ import annotations

import numpy as np
import pytest

from ofc.pipeline.cards import deal, parse_card
from ofc.pipeline.evaluate import evaluate_boards, fouled, lowball27
from ofc.pipeline.evaluate.dead import NEVER, ROW_CODES, board_dead_streets, dead_streets
from ofc.pipeline.rules.compile import compile_rules
from ofc.pipeline.rules.files import load_rules

TEN_LOW = compile_rules(load_rules("pineapple-27")).qualifier
"""The qualifier of the 2-7 preset: the worst ten-low."""

Placement = tuple[int, str, str]
SLOT_ROWS = np.array([0] * 3 + [1] * 5 + [2] * 5)


def run(boards: list[list[Placement]], **kw: object) -> list[int]:
    offsets, cards, rows, streets = [0], [], [], []
    for board in boards:
        for street, card, row in board:
            streets.append(street)
            cards.append(parse_card(card))
            rows.append(ROW_CODES[row])
        offsets.append(len(cards))
    return dead_streets(np.array(offsets), np.array(cards), np.array(rows), np.array(streets), **kw).tolist()


def ofc(*streets: str) -> list[Placement]:
    """An OFC board street by street: ``"Kh:top Kd:top ..."`` per street."""
    return [(s + 1, tok.split(":")[0], tok.split(":")[1]) for s, text in enumerate(streets) for tok in text.split()]


ACES_OVER_HIGH_CARD = ofc(
    "As:top Ad:top Ac:middle 2c:middle 5d:middle",
    "7h:middle",  # the last ace could still pair the middle's
    "9s:middle",  # the middle is finished, ace-high, under the aces on top: dead here, street 3
    "Kc:bottom",
    "Kd:bottom",
    "Ks:bottom",
    "2d:bottom",
    "3d:bottom",
    "4c:top",
)
VALID = ofc(
    "2c:top 3d:top 5s:middle 5c:middle Ts:bottom",
    "Js:bottom",
    "Qs:bottom",
    "Ks:bottom",
    "As:bottom",
    "9h:middle",
    "8d:middle",
    "7c:middle",
    "4h:top",
)
DEAD_LAST = ofc(
    "Kh:top Kd:top Ac:middle Ad:middle 7c:middle",
    "8d:middle",
    "9h:middle",
    "2s:bottom",
    "5s:bottom",
    "9s:bottom",
    "Js:bottom",
    "Qs:bottom",
    "Ks:top",  # kings set over the aces' middle only now
)


def test_aces_on_top_over_a_finished_high_card_middle() -> None:
    assert run([ACES_OVER_HIGH_CARD]) == [3]


def test_a_board_that_completes_validly_is_never_dead() -> None:
    assert run([VALID]) == [NEVER]


def test_a_board_dead_only_at_the_last_street() -> None:
    assert run([DEAD_LAST]) == [9]
    assert run([DEAD_LAST[:-1]]) == [NEVER]  # one card to come, the top can still stay below the aces


def test_boards_are_independent_of_each_other_in_a_batch() -> None:
    assert run([VALID, ACES_OVER_HIGH_CARD, [], DEAD_LAST]) == [NEVER, 3, NEVER, 9]


def test_a_lowball_middle_is_dead_once_it_cannot_qualify() -> None:
    paired = ofc("7c:middle 7d:middle 2h:bottom 3h:bottom 4h:bottom")
    assert run([paired]) == [NEVER]
    assert run([paired], lowball=True, qualifier=TEN_LOW) == [1]


def test_the_strict_reading_makes_an_equal_bottom_a_foul() -> None:
    # Middle and bottom both exactly nine-high straights, of different suits.
    board = ofc(
        "2c:top 3d:top 5h:middle 6h:middle 7h:middle",
        "8h:middle",
        "9c:middle",
        "5s:bottom",
        "6s:bottom",
        "7s:bottom",
        "8s:bottom",
        "9d:bottom",
        "4d:top",
    )
    assert run([board]) == [NEVER]
    assert run([board], strict=True) == [8]  # the bottom ties the middle as it is finished


def test_impossible_placements_are_not_judged() -> None:
    twice = [(1, "As", "top"), (2, "As", "middle")]
    overfull = [(1, c, "top") for c in ("2c", "3c", "4c", "5c")]
    assert run([twice, overfull]) == [NEVER, NEVER]


def _random_ofc(n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """``n`` boards (three in four set in rank order) and a random placement order of their 13 slots each."""
    rng = np.random.default_rng(seed)
    cards = deal(n, 13, rng)
    cards = np.where((rng.random(n) < 0.75)[:, None], np.sort(cards, axis=1), cards)
    order = np.argsort(rng.random((n, 13)), axis=1)
    return cards, order


def _placements(cards: np.ndarray, order: np.ndarray, upto: int) -> tuple[np.ndarray, ...]:
    """OFC placements of the first ``upto`` slots in ``order``: five on street 1, then one a street."""
    n = cards.shape[0]
    slots = order[:, :upto]
    street = np.maximum(np.arange(upto) - 3, 1)
    offsets = np.arange(n + 1) * upto
    return offsets, np.take_along_axis(cards, slots, 1).ravel(), SLOT_ROWS[slots].ravel(), np.tile(street, n)


def test_dead_exactly_when_the_finished_board_fouls() -> None:
    cards, order = _random_ofc(3000, seed=1)
    got = dead_streets(*_placements(cards, order, 13))
    assert np.array_equal(got != NEVER, fouled(*evaluate_boards(cards)))
    assert set(np.unique(got[got != NEVER]).tolist()) <= set(range(1, 10))


@pytest.mark.parametrize("lowball", [False, True])
def test_one_card_to_come_matches_brute_force(lowball: bool) -> None:
    """With one slot left, rows cannot compete for cards: the answer is exact. Try every unseen card."""
    cards, order = _random_ofc(400, seed=2 + lowball)
    got = dead_streets(*_placements(cards, order, 12), lowball=lowball, qualifier=TEN_LOW) != NEVER
    last = order[:, 12]
    unseen = np.ones((cards.shape[0], 52), dtype=bool)
    unseen[np.arange(cards.shape[0])[:, None], np.take_along_axis(cards, order[:, :12], 1)] = False
    unseen[np.arange(cards.shape[0]), cards[np.arange(cards.shape[0]), last]] = True  # the last card is unseen too
    for i in range(cards.shape[0]):
        options = np.flatnonzero(unseen[i])
        boards = np.repeat(cards[i : i + 1], options.size, axis=0)
        boards[:, last[i]] = options
        top, middle, bottom = evaluate_boards(boards)
        foul = (top > bottom) | ~_qualifies(boards[:, 3:8]) if lowball else fouled(top, middle, bottom)
        assert got[i] == foul.all(), i


def _qualifies(middle: np.ndarray) -> np.ndarray:
    return lowball27(middle) <= TEN_LOW


def test_two_cards_to_come_never_dead_before_brute_force_says_so() -> None:
    """Two slots left (possibly in two rows, completed independently): dead only when every completion fouls."""
    cards, order = _random_ofc(150, seed=5)
    got = dead_streets(*_placements(cards, order, 11)) != NEVER
    rest = order[:, 11:]
    dead = np.flatnonzero(got)
    assert dead.size == 28  # of the 150 boards of this seed: all of them brute-forced below
    for i in dead[:60]:
        seen = set(np.take_along_axis(cards[i : i + 1], order[i : i + 1, :11], 1).ravel().tolist())
        options = np.array([c for c in range(52) if c not in seen])
        a, b = np.meshgrid(options, options, indexing="ij")
        pick = a != b
        boards = np.repeat(cards[i : i + 1], pick.sum(), axis=0)
        boards[:, rest[i, 0]] = a[pick]
        boards[:, rest[i, 1]] = b[pick]
        assert fouled(*evaluate_boards(boards)).all(), i


def test_boards_as_the_lake_stores_them_give_the_placements_answer() -> None:
    """The layout of the boards table (13 cards with the street of each, discards with theirs) gives what the
    placements themselves give: Pineapple boards, five cards then two a street, one discard a street."""
    n = 600
    rng = np.random.default_rng(9)
    dealt = deal(n, 17, rng)
    cards, discards = np.sort(dealt[:, :13], axis=1), dealt[:, 13:]
    cards = np.where((rng.random(n) < 0.5)[:, None], dealt[:, :13], cards)  # half set in order, half at random
    order = np.argsort(rng.random((n, 13)), axis=1)
    slot_streets = np.empty((n, 13), dtype=np.int8)
    np.put_along_axis(slot_streets, order, np.array([1] * 5 + [2, 2, 3, 3, 4, 4, 5, 5], np.int8)[None].repeat(n, 0), 1)
    discard_streets = np.tile(np.array([2, 3, 4, 5], np.int8), (n, 1))
    offsets = np.arange(n + 1) * 17
    flat = np.concatenate([cards, discards], axis=1).ravel()
    rows = np.tile(np.r_[SLOT_ROWS, [ROW_CODES["discard"]] * 4], n)
    streets = np.concatenate([slot_streets, discard_streets], axis=1).ravel()
    expected = dead_streets(offsets, flat, rows, streets)
    got = board_dead_streets(cards, slot_streets, np.arange(n + 1) * 4, discards.ravel(), discard_streets.ravel())
    assert np.array_equal(got, expected)
    assert len(set(got[got != NEVER].tolist())) > 2
    # A board without placements (streets 0) is never judged.
    slot_streets[:5] = 0
    got = board_dead_streets(cards, slot_streets, np.arange(n + 1) * 4, discards.ravel(), discard_streets.ravel())
    assert (got[:5] == NEVER).all()
    assert np.array_equal(got[5:], expected[5:])
