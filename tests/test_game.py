"""The game's fixed rules (:mod:`pipeline.game`) against the presets and against brute force."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from ofc.pipeline.game import (
    BOARD,
    DEALS,
    VARIANTS,
    default_buttons,
    facts,
    seat_at,
    table_order,
    turns,
)
from ofc.pipeline.rules.files import load_rules
from ofc.pipeline.rules.native import VARIANT_PRESETS
from ofc.schemas.rules import Variant


@pytest.mark.parametrize("variant", list(Variant))
def test_each_preset_plays_its_variant_as_the_facts_say(variant: Variant) -> None:
    rules = load_rules(VARIANT_PRESETS[variant])
    f = facts(variant)
    assert rules.game.variant is variant
    assert rules.game.dealing is f.dealing
    assert rules.game.lowball_middle is f.lowball_middle
    assert rules.game.max_players <= f.max_players
    assert rules.fantasyland.enabled is bool(f.fantasyland_cards)
    if rules.fantasyland.enabled:
        dealt = {t.cards for t in rules.fantasyland.entry}
        assert dealt <= f.fantasyland_cards, (dealt, f.fantasyland_cards)


def test_every_deal_fills_a_board_and_the_table() -> None:
    for dealing, deal in DEALS.items():
        assert sum(deal.placed) == BOARD, dealing
        players = max(f.max_players for f in VARIANTS.values() if f.dealing is dealing)
        assert deal.cards * players <= 52, dealing


def test_turns_follow_the_table_from_the_left_of_the_button() -> None:
    """Against a walk round the table: from the seat after the button, the next seat present each time."""
    rng = np.random.default_rng(1)
    hands, seats, buttons = [], [], []
    for h in range(400):
        present = np.sort(rng.choice(16, size=rng.integers(2, 5), replace=False))
        hands += [h] * present.size
        seats += present.tolist()
        buttons += [int(rng.choice(present) if rng.random() < 0.8 else rng.integers(0, 16))] * present.size
    hand, seat, button = (np.array(x, dtype=np.int64) for x in (hands, seats, buttons))
    starts = np.flatnonzero(np.r_[True, hand[1:] != hand[:-1]])
    got = turns(hand, starts, seat, button)
    for h in range(400):
        mine = np.flatnonzero(hand == h)
        walk = [s % 16 for s in range(int(button[mine[0]]) + 1, int(button[mine[0]]) + 17) if s % 16 in seat[mine]]
        assert [walk.index(s) for s in seat[mine]] == got[mine].tolist()


def test_seat_at_inverts_the_table_order_at_a_full_table() -> None:
    for players, button in itertools.product(range(2, 5), range(4)):
        if button >= players:
            continue
        seats = seat_at(np.full(players, button), np.arange(players), players)
        assert sorted(seats.tolist()) == list(range(players))
        assert np.argsort(table_order(seats, button)).tolist() == list(range(players))


def test_the_default_button_is_the_highest_seat_of_the_hand() -> None:
    hand = np.array([3, 3, 1, 3, 1])
    seat = np.array([0, 5, 2, 1, 0])
    assert default_buttons(hand, seat).tolist() == [5, 5, 2, 5, 2]
