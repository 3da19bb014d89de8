"""Both scorers against hands worked out by hand.

The cross-check trusts ``tests.reference.slow_scorer``, so every number here
is worked out in a comment from RULES.md and docs/scoring.md, not read off
the scorer's output. Every hand scored here is also scored by the engine,
which must give exactly the same result.
"""

from __future__ import annotations

import collections
import functools
import itertools
import random
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from phevaluator import evaluate_cards

from ofc.pipeline.evaluate import lookup_tables
from ofc.pipeline.rules.compile import compile_rules
from ofc.pipeline.rules.files import load_rules, parse_rules, preset_names
from ofc.pipeline.score.engine import Boards, _table_stakes
from ofc.pipeline.score.output import score_records as engine_score_records
from ofc.schemas.rules import NATURAL_VALUE_MAX, RuleSet
from tests.reference.deals import random_records
from tests.reference.hands import CRISS_CROSS, MISSET, player
from tests.reference.slow_scorer import (
    FLUSH,
    HIGH_CARD,
    PAIR,
    STRAIGHT,
    Board,
    category_of,
    hand_key,
    is_dragon,
    is_fouled,
    is_no_people,
    is_six_pairs,
    is_thirteen_one_colour,
    is_three_flushes,
    is_three_straights,
    is_triple_five_pairs,
    is_twelve_one_colour,
    low_key,
    parse_card,
    parse_pattern,
    read_board,
    score_hand,
    settle_table_stakes,
)

RULE_FILES = Path(__file__).parent / "data" / "rules"


@functools.cache
def rules(name: str) -> RuleSet:
    """A preset by name, or one of the test rule files by stem."""
    path = RULE_FILES / f"{name}.toml"
    return load_rules(path if path.is_file() else name)


def cards(text: str) -> list[tuple[int, int]]:
    return [parse_card(c) for c in text.split()]


def hand(*players: dict[str, Any], **extra: Any) -> dict[str, Any]:
    """A record; the cards must come from one deck, or the hand-worked case is not a real hand."""
    every = [c for p in players for row in ("top", "middle", "bottom") for c in p[row]]
    assert len(every) == len(set(every)), "a card appears twice"
    return {"hand_id": "t", "variant": "ofc", "players": list(players), **extra}


def score(record: dict[str, Any], rules_name: str) -> dict[str, Any]:
    """The reference result, after checking that it sums to zero and that the engine agrees."""
    result = score_hand(record, rules(rules_name))
    assert sum(result["points"].values()) == 0
    assert engine_score_records([record], rules(rules_name)) == [result]
    return result


# ---------------------------------------------------------------- RULES.md section 8

E1 = hand(
    player("A", "Qh Qd 4c / 9s 9h 9c Kd 3h / Ts Js Qs Ks As"),
    player("B", "6h 6d 2c / 7h 8d 9d Th Jc / Ah Ad Ac 5s 5d"),
)
E2 = hand(
    player("A", "Kh Kd 3c / Qs Qc 8d 7s 2h / Ah As 9c 5d 4h"),
    player("B", "7c 7d 2s / Tc Jd Qd Kc 9h / 3s 8s Js 6s 4s"),
)
E3 = hand(
    player("A", "Ac Kh 5s / 9h 9c 4d 3s 2d / Jh Jd Js 6c 6d"),
    player("B", "Ad Kd 5h / 8h 8c 4c 3d 2c / Th Tc Ts 7h 7d"),
)
E4 = hand(
    player("P1", "Jh Jc 2d / 5s 5c 5d 9h 8c / Kc Qc 9c 4c 3c"),
    player("P2", "4h 3h 2h / Ks Kd Th 7s 6h / As Ad Qh Qd 8d"),
    player("P3", "Ah 7c 6c / Tc Td 9s 8s 7h / Jd Js 3s 3d 2s"),
)


@pytest.mark.parametrize(("rules_name", "fl_cards"), [("ofc", 13), ("pineapple", 14), ("progressive-pineapple", 14)])
def test_E1_royalties_netted_and_fantasyland(rules_name: str, fl_cards: int) -> None:
    # Rows: A wins top (QQ > 66) and bottom (royal > full house), B the middle
    # (straight > trips): +1 for A. Royalties A 7 + 2 + 25 = 34, B 1 + 4 + 6 = 11.
    # A = 1 + 34 - 11 = 24. QQ on top enters Fantasyland: 13 (OFC), 14 (Pineapple,
    # and the QQ tier of Progressive).
    result = score(E1, rules_name)
    assert result["points"] == {"A": 24, "B": -24}
    assert result["pairs"] == {"A|B": 24}
    assert result["boards"]["A"] == {
        "fouled": False,
        "royalties": {"top": 7, "middle": 2, "bottom": 25},
        "fantasyland_next": fl_cards,
    }
    assert result["boards"]["B"] == {
        "fouled": False,
        "royalties": {"top": 1, "middle": 4, "bottom": 6},
        "fantasyland_next": 0,
    }
    assert result["hand_id"] == "t"
    assert result["rules"] == rules_name


def test_E2_foul_pays_scoop_and_royalties() -> None:
    # A's top KK beats the middle QQ: fouled, no royalties, no Fantasyland.
    # B: top 77 = 2, middle straight = 4, bottom flush = 4; B gets 6 + 10 = 16.
    result = score(E2, "ofc")
    assert result["points"] == {"A": -16, "B": 16}
    assert result["boards"]["A"] == {
        "fouled": True,
        "royalties": {"top": 0, "middle": 0, "bottom": 0},
        "fantasyland_next": 0,
    }
    assert result["boards"]["B"]["royalties"] == {"top": 2, "middle": 4, "bottom": 4}


@pytest.mark.parametrize(
    ("rules_name", "a_points"),
    [
        ("ofc", 2),  # rows 2 - 0, a tie is no scoop; bottom royalties 6 - 6 = 0
        ("classic-1-6", 2),  # classic bottom full house earns nothing
        ("classic-2-4", 3),  # 2 rows + 1 for winning more rows
        ("classic-plain", 2),
        ("two-four-scoop", 2),  # the scoop-only 2-4: no bonus without a scoop
    ],
)
def test_E3_tied_row(rules_name: str, a_points: int) -> None:
    assert score(E3, rules_name)["points"] == {"A": a_points, "B": -a_points}


def test_E4_three_players() -> None:
    # P1 scoops P2 and P3: 6 + royalties (6 + 2 + 4 = 12) each = 18; P2 beats P3
    # 2-1 (+1). P1 36, P2 -18 + 1 = -17, P3 -18 - 1 = -19.
    result = score(E4, "ofc")
    assert result["points"] == {"P1": 36, "P2": -17, "P3": -19}
    assert result["pairs"] == {"P1|P2": 18, "P1|P3": 18, "P2|P3": 1}
    assert result["boards"]["P1"]["royalties"] == {"top": 6, "middle": 2, "bottom": 4}


# ---------------------------------------------------------------- scoring systems and royalty settlement


@pytest.mark.parametrize(
    ("rules_name", "expected"),
    [
        # classic-2-4: P1 scoops: 3 + 1 = 4 each; P2 beats P3 2-1: 1 + 1 = 2.
        ("classic-2-4", {"P1": 8, "P2": -4 + 2, "P3": -4 - 2}),
        # scoop-only 2-4: scoop 3 + 1 = 4; a 2-1 split nets 1.
        ("two-four-scoop", {"P1": 8, "P2": -4 + 1, "P3": -4 - 1}),
        # scoop doubling with royalties doubled: (3 rows) * 2 + 12 * 2 = 30 per scoop; P2-P3 +1.
        ("scoop-double", {"P1": 60, "P2": -30 + 1, "P3": -30 - 1}),
        # Taiwanese: scoop 3 * 2 = 6, and P1 scooped everyone (home run): 12 each; P2-P3 +1.
        ("taiwanese", {"P1": 24, "P2": -12 + 1, "P3": -12 - 1}),
    ],
)
def test_E4_under_other_systems(rules_name: str, expected: dict[str, int]) -> None:
    assert score(E4, rules_name)["points"] == expected


# A scoop, two readings: A wins top (55 over 44) and middle (KK over QQ); the bottoms are the same 9-high
# straight, a tie, and their royalties (2 each) net out. No other royalty: pairs below 66 pay nothing on top.
TIED_BOTTOM = hand(
    player("A", "5h 5d 2c / Kc Kd 8c 7d 3h / 9c 8d 7h 6s 5c"),
    player("B", "4h 4d 2d / Qc Qs 8h 7c 3d / 9d 8s 7s 6c 5s"),
)


@pytest.mark.parametrize(
    ("rules_name", "a_points"),
    [
        ("ofc", 2),  # a scoop is all three rows: the tie cancels it, 2 rows net
        ("scoop-no-row-lost", 2 + 3),  # B won no row: a scoop, +3
    ],
)
def test_scoop_is_all_rows_or_no_row_lost(rules_name: str, a_points: int) -> None:
    assert score(TIED_BOTTOM, rules_name)["points"] == {"A": a_points, "B": -a_points}


# 2-4, the overall point: A wins only the top, with trips worth 3 (classic table); B wins the middle (a
# straight over trips) and the bottom (a flush over trips), neither paying a classic royalty.
ONE_ROW_WITH_TRIPS = hand(
    player("A", "5c 5d 5h / 6c 6d 6h 2c 3d / 7c 7d 7h 2d 4c"),
    player("B", "Kh Qh 2h / 9s 8d 7s 6s 5s / As Js Ts 4s 3s"),
    variant="classic",
)


@pytest.mark.parametrize(
    ("rules_name", "a_points"),
    [
        # By rows: rows 1 - 2 = -1, the overall point to B -1, A's top royalty +3 (won row): A +1.
        ("classic-2-4", -1 - 1 + 3),
        # After bonuses: A collects 1 + 3 = 4 against B's 2, so the overall point is A's: -1 + 3 + 1 = +3.
        ("two-four-points", -1 + 3 + 1),
    ],
)
def test_two_four_overall_point_by_rows_or_after_bonuses(rules_name: str, a_points: int) -> None:
    assert score(ONE_ROW_WITH_TRIPS, rules_name)["points"] == {"A": a_points, "B": -a_points}


# A-2-3-4-5: B wins the top (Q-high over J-high), A the middle (KK over JJ); the bottom is A's wheel against
# B's K-high straight. No royalties in the classic table for these rows.
WHEEL_BOTTOM = hand(
    player("A", "Jc 9d 7h / Kc Kd 8c 6d 3h / Ah 2s 3s 4c 5d"),
    player("B", "Qc 8d 6c / Jd Js 8h 7d 2d / Ks Qs Jh Td 9h"),
    variant="classic",
)


@pytest.mark.parametrize(
    ("rules_name", "a_points"),
    [
        ("classic-1-6", -1),  # the wheel is the lowest straight: B wins top and bottom, 2 rows to 1
        ("wheel-second", 1),  # second only to A-K-Q-J-T: it beats K-high, A wins 2 rows to 1
    ],
)
def test_wheel_lowest_or_second(rules_name: str, a_points: int) -> None:
    assert score(WHEEL_BOTTOM, rules_name)["points"] == {"A": a_points, "B": -a_points}


def test_the_wheel_second_keeps_each_hand_in_its_category() -> None:
    # The compiled order moves A-2-3-4-5 just below A-K-Q-J-T (and the steel wheel below the royal) and
    # nothing else out of place: royalties and thresholds read by category see the same hands.
    order = compile_rules(rules("wheel-second")).wheel_order
    assert order is not None
    assert sorted(order.tolist()) == list(range(lookup_tables.N_STRENGTHS))
    assert (lookup_tables.CATEGORY[order] == lookup_tables.CATEGORY).all()
    for category in (lookup_tables.STRAIGHT, lookup_tables.STRAIGHT_FLUSH):
        block = np.flatnonzero((lookup_tables.N_CARDS == 5) & (lookup_tables.CATEGORY == category))
        high = lookup_tables.RANK1[block]  # 5-high (the wheel) .. A-high
        ranked = high[np.argsort(order[block])]
        assert ranked.tolist() == [4, 5, 6, 7, 8, 9, 10, 11, 3, 12]  # 6-high .. K-high, the wheel, A-high


def test_winner_settlement() -> None:
    # Only the row winner collects: A top 7 and bottom 25, B middle 4.
    # A = rows (2 - 1) + 7 + 25 - 4 = 29.
    assert score(E1, "winner-royalties")["points"] == {"A": 29, "B": -29}
    # A foul still pays the scoop and all of the valid side's royalties: 6 + 10.
    assert score(E2, "winner-royalties")["points"] == {"A": -16, "B": 16}


def test_one_royalty_per_board() -> None:
    # Only the largest royalty counts: A keeps bottom 25, B keeps bottom 6.
    # A = rows 1 + 25 - 6 = 20.
    result = score(E1, "one-royalty")
    assert result["points"] == {"A": 20, "B": -20}
    assert result["boards"]["A"]["royalties"] == {"top": 0, "middle": 0, "bottom": 25}
    assert result["boards"]["B"]["royalties"] == {"top": 0, "middle": 0, "bottom": 6}


def test_one_royalty_tie_keeps_the_lower_row() -> None:
    # Top 99 = 4, middle straight = 4, bottom straight = 2: top and middle tie at 4,
    # the lower row (middle) keeps it.
    record = hand(player("A", "9c 9d 2c / 5h 6d 7s 8c 9h / Th Jd Qs Kc Ac"))
    assert score(record, "ofc")["boards"]["A"]["royalties"] == {"top": 4, "middle": 4, "bottom": 2}
    assert score(record, "one-royalty")["boards"]["A"]["royalties"] == {"top": 0, "middle": 4, "bottom": 0}


def test_fixed_foul_penalty() -> None:
    # The fouler pays a flat 5 and no royalties.
    assert score(E2, "fixed-foul")["points"] == {"A": -5, "B": 5}


def test_scoop_double_foul() -> None:
    # Scoop amount (3 + 0 + 0) * 2 = 6, plus B's royalties 10 doubled = 20: 26.
    assert score(E2, "scoop-double")["points"] == {"A": -26, "B": 26}


def test_two_fouls_score_nothing() -> None:
    # Both tops beat their middles.
    record = hand(
        player("A", "Kh Kd 3c / Qs Qc 8d 7s 2h / Ah As 9c 5d 4h"),
        player("B", "Ac Ad 2s / Tc Jd 6d Kc 9h / 3s 8s Js 6s 4s"),
    )
    result = score(record, "ofc")
    assert result["points"] == {"A": 0, "B": 0}
    assert result["boards"]["A"]["fouled"]
    assert result["boards"]["B"]["fouled"]


def test_strict_bottom() -> None:
    # Middle and bottom are both 5-to-9 straights: equal is fine in OFC, a foul when
    # the bottom must be better. Top 4-high.
    record = hand(player("A", "2c 3d 4h / 5h 6d 7s 8c 9h / 5c 6h 7d 8s 9d"))
    assert not score(record, "ofc")["boards"]["A"]["fouled"]
    assert score(record, "strict-bottom")["boards"]["A"]["fouled"]


# Three players for multipliers, replace settlement and table stakes.
#   X: QQ / full house JJJ33 / quads 9: scoops both others.
#   Y: TT / two pair 88 55 / ace-high heart flush.
#   Z: A-high / spade flush / full house 666 55: beats Y in middle and bottom (2-1).
XYZ = hand(
    player("X", "Qc Qd 2c / Jc Jd Jh 3c 3d / 9c 9d 9h 9s 2d", seat=0),
    player("Y", "Tc Td 4c / 8c 8d 5c 5d 4d / Ah Kh 7h 6h 4h", seat=1),
    player("Z", "Ad Kd 3s / Ts Js Qs 8s 7s / 6c 6d 6s 5h 5s", seat=2),
)


def test_replace_settlement() -> None:
    # classic-wikipedia: a won row is worth the winner's classic royalty, else 1.
    # X over Y and over Z: top 1 (pair earns nothing) + middle full house 2 + bottom quads 4 = 7.
    # Z over Y: Y's top 1, Z's middle (flush: 0 -> 1) and bottom (full house: 0 -> 1): Z +1.
    result = score(XYZ, "classic-wikipedia")
    assert result["points"] == {"X": 14, "Y": -7 - 1, "Z": -7 + 1}
    assert result["boards"]["X"]["royalties"] == {"top": 0, "middle": 2, "bottom": 4}


def test_taiwanese_home_run_with_royalties() -> None:
    # taiwanese-royalties: X's royalties to the row winner: middle 2 + bottom 4 = 6.
    # Each of X's pairs: base 3 * 2 (scoop) = 6, royalties 6 * 2 = 12; X scooped
    # everyone (home run): 12 + 24 = 36. Z beats Y 2-1 (no royalties): Z +1.
    assert score(XYZ, "taiwanese-royalties")["points"] == {"X": 72, "Y": -36 - 1, "Z": -36 + 1}
    # Plain Taiwanese has no royalties: 3 * 2 * 2 = 12 per pair.
    assert score(XYZ, "taiwanese")["points"] == {"X": 24, "Y": -12 - 1, "Z": -12 + 1}


# Z scoops nobody here: X scoops Y, but Z beats both X and Y 2-1.
#   X: 77 / two pair JJ44 / heart flush; Y: 55 / TT / straight 5-9; Z: 99 / trips K / trips A.
NO_HOME_RUN = hand(
    player("X", "7c 7d 2c / Jc Jd 4c 4d 3h / 2h 6h 8h Th Qh", seat=0),
    player("Y", "5c 5d 3c / Ts Tc 8c 6c 2d / 9s 8d 7h 6s 5s", seat=1),
    player("Z", "9c 9d 4h / Kc Kd Ks 3d 2s / Ac Ad Ah 3s 4s", seat=2),
)


def test_heads_up_scoop_is_not_a_home_run() -> None:
    # Heads-up, X scoops Y: 3 rows doubled = 6. A home run needs two opponents at least.
    heads_up = hand(NO_HOME_RUN["players"][0], NO_HOME_RUN["players"][1])
    assert score(heads_up, "taiwanese")["points"] == {"X": 6, "Y": -6}


def test_taiwanese_scoop_without_home_run() -> None:
    # X over Y: 3 rows doubled = 6, no home run (X lost to Z). Z over X and Y: +1 each.
    assert score(NO_HOME_RUN, "taiwanese")["points"] == {"X": 6 - 1, "Y": -6 - 1, "Z": 2}
    # classic-2-4: scoop 4; 2-1 wins are worth 2.
    assert score(NO_HOME_RUN, "classic-2-4")["points"] == {"X": 4 - 2, "Y": -4 - 2, "Z": 4}


# ---------------------------------------------------------------- table stakes


def test_table_stakes_payer_broke_and_winner_doubled() -> None:
    # stakes = classic-1-6 with stack 10. Unsettled: X over Y and Z 6 + royalties
    # (middle full house 2 + bottom quads 4) = 12 each; Z over Y 1.
    # Button 2: order X, Y, Z. X-Y: min(12, Y has 10, X may win 10) = 10: X doubled,
    # Y broke. X-Z: X has doubled, no longer settles: 0. Y-Z: Y is broke: 0.
    result = score({**XYZ, "button": 2}, "stakes")
    assert result["pairs"] == {"X|Y": 10, "X|Z": 0, "Y|Z": 0}
    assert result["points"] == {"X": 10, "Y": -10, "Z": 0}


def test_table_stakes_recorded_stacks() -> None:
    # Stacks X 30, Y 5, Z none (rule default 10); order X, Y, Z.
    # X-Y: min(12, 5, 30) = 5. X-Z: min(12, Z has 10, X may still win 25) = 10.
    # Y-Z: Y is broke: 0.
    players = [
        {**XYZ["players"][0], "stack": 30},
        {**XYZ["players"][1], "stack": 5},
        {**XYZ["players"][2], "stack": None},
    ]
    result = score({**XYZ, "players": players, "button": 2}, "stakes")
    assert result["pairs"] == {"X|Y": 5, "X|Z": 10, "Y|Z": 0}
    assert result["points"] == {"X": 15, "Y": -5, "Z": -10}


def test_table_stakes_order_and_receiver_cap() -> None:
    # Button 0: order Y, Z, X. Y-Z: Z wins 1 (Y 9 left). Y-X: min(12, 9, 10) = 9.
    # Z-X: X may win only 10 - 9 = 1 more: 1. Totals X 10, Y -10, Z 1 - 1 = 0.
    result = score({**XYZ, "button": 0}, "stakes")
    assert result["pairs"] == {"X|Y": 9, "X|Z": 1, "Y|Z": -1}
    assert result["points"] == {"X": 10, "Y": -10, "Z": 0}


def test_table_stakes_doubled_player_does_not_pay() -> None:
    # NO_HOME_RUN under stakes (classic royalties are all 0 here): X over Y 6, Z over X 1,
    # Z over Y 1. Stacks X 5, Y 10, Z 10; order X, Y, Z.
    # X-Y: min(6, 10, 5) = 5: X has doubled. X-Z: X no longer settles: 0. Y-Z: 1.
    players = [{**p, "stack": s} for p, s in zip(NO_HOME_RUN["players"], (5, 10, 10), strict=True)]
    result = score({**NO_HOME_RUN, "players": players, "button": 2}, "stakes")
    assert result["pairs"] == {"X|Y": 5, "X|Z": 0, "Y|Z": -1}
    assert result["points"] == {"X": 5, "Y": -6, "Z": 1}


def test_table_stakes_off_by_default() -> None:
    # Same hand under classic-1-6: nothing is capped.
    players = [{**p, "stack": 1} for p in XYZ["players"]]
    assert score({**XYZ, "players": players}, "classic-1-6")["points"] == {"X": 24, "Y": -12 - 1, "Z": -12 + 1}


def test_table_stakes_capped_by_the_winners_stack() -> None:
    # stakes-winner-stack: each payment is also capped by what the winner has at that moment, and a player
    # who has doubled goes on settling. Unsettled as above: X over Y and Z 12 each, Z over Y 1; stacks 10.
    # Order X, Y, Z. X-Y: min(12, Y 10, X 10) = 10: X 20, Y 0. X-Z: min(12, Z 10, X 20) = 10: X 30, Z 0.
    # Y-Z: Y has nothing left: 0. Under the doubling reading X stopped at 10 (the first test above).
    result = score({**XYZ, "button": 2}, "stakes-winner-stack")
    assert result["pairs"] == {"X|Y": 10, "X|Z": 10, "Y|Z": 0}
    assert result["points"] == {"X": 20, "Y": -10, "Z": -10}


@pytest.mark.parametrize(
    ("winner_limit", "settled", "net"),
    [
        # RULES.md: P1-P2 min(10, P2 10, P1 5) = 5; P1-P3 min(40, P3 135, P1 10) = 10; P2-P3 min(20, P2 5,
        # P3 125) = 5. Net P1 +15, P2 -10, P3 -5.
        ("stack", [5, 10, -5], [15, -10, -5]),
        # Doubled, then out: P1-P2 5 (P1 has doubled); P1-P3 0; P2-P3 min(20, P2 5, P3 may win 135) = 5.
        ("double", [5, 0, -5], [5, -10, 5]),
    ],
)
def test_table_stakes_worked_example(winner_limit: str, settled: list[int], net: list[int]) -> None:
    # Stacks P1 5, P2 10, P3 135, P3 on the button: P1 settles first. Uncapped: P1 beats P2 by 10 and P3 by
    # 40, P3 beats P2 by 20. Both scorers' settlement steps, fed those pair results directly.
    order = [Board(f"P{i + 1}", f"P{i + 1}", i, {}, False, False, None, s) for i, s in enumerate((5, 10, 135))]
    owed = {("P1", "P2"): 10, ("P1", "P3"): 40, ("P2", "P3"): -20}
    points = {**owed, **{(y, x): -v for (x, y), v in owed.items()}}
    reference = settle_table_stakes(order, points, winner_limit)
    assert [reference[pair] for pair in owed] == settled

    boards = Boards.build(
        hand=np.zeros(3), seat=np.arange(3), cards=np.zeros((3, 13)), button=np.full(3, 2), stack=[5, 10, 135]
    )
    a, b, slot = np.array([0, 0, 1]), np.array([1, 2, 2]), np.arange(3)
    engine = _table_stakes(a, b, slot, np.array(list(owed.values())), boards, 100, winner_limit == "double")
    assert engine.tolist() == settled
    assert (np.bincount(a, engine, 3) - np.bincount(b, engine, 3)).tolist() == net


# ---------------------------------------------------------------- suit order


SUIT_TIES = hand(
    player("A", "Ks 7c 2d / Qd Qc 9h 5s 3c / As Ah 8d 8c 4h"),
    player("B", "Kh 7d 2c / Qs Qh 9d 5c 3d / Ad Ac 8s 8h 4s"),
)


def test_exact_ties_stand_without_suit_order() -> None:
    assert score(SUIT_TIES, "classic-plain")["points"] == {"A": 0, "B": 0}


def test_suit_order_breaks_ties() -> None:
    # s > h > c > d. Top: Ks beats Kh (A). Middle: best cards Qc (A) vs Qs (B): B.
    # Bottom: As vs Ac: A. A wins 2-1: +1.
    assert score(SUIT_TIES, "suits")["points"] == {"A": 1, "B": -1}
    # d > c > h > s: top Kh (B); middle Qd beats Qh (A); bottom Ad beats Ah (B): B 2-1.
    dchs = rules("suits").model_copy(
        update={"scoring": rules("suits").scoring.model_copy(update={"suit_order": "dchs"})}
    )
    assert score_hand(SUIT_TIES, dchs)["points"] == {"A": -1, "B": 1}


# ---------------------------------------------------------------- surrender


def test_surrender() -> None:
    # classic-1-6: a surrender costs 2 to each opponent; two surrenders score 0;
    # a surrendered board is not judged.
    a, b, c = XYZ["players"]
    record = {**XYZ, "players": [{**a, "surrendered": True}, b, c]}
    result = score(record, "classic-1-6")
    # Y-Z is as before: Z +1. X pays 2 to each.
    assert result["pairs"] == {"X|Y": -2, "X|Z": -2, "Y|Z": -1}
    assert result["boards"]["X"] == {
        "fouled": False,
        "royalties": {"top": 0, "middle": 0, "bottom": 0},
        "fantasyland_next": 0,
    }
    both = {**XYZ, "players": [{**a, "surrendered": True}, {**b, "surrendered": True}, c]}
    assert score(both, "classic-1-6")["pairs"] == {"X|Y": 0, "X|Z": -2, "Y|Z": -2}


def test_surrender_against_a_foul() -> None:
    # The surrender rule comes before fouls: E2's fouled A collects 2 from a surrendered B.
    record = {**E2, "players": [E2["players"][0], {**E2["players"][1], "surrendered": True}]}
    assert score(record, "classic-1-6")["points"] == {"A": 2, "B": -2}


def test_surrender_ignored_when_not_allowed() -> None:
    # OFC has no surrender: the flag is ignored and E1 scores as usual.
    record = {**E1, "players": [{**E1["players"][0], "surrendered": True}, E1["players"][1]]}
    assert score(record, "ofc")["points"] == {"A": 24, "B": -24}


# ---------------------------------------------------------------- naturals

DRAGON = "2c 3d 4h / 5s 6c 7d 8h 9s / Tc Jd Qh Ks Ac"
# Opponents using none of the dragon's cards.
VALID = "4c 4d 2d / 8c 8d Kd Kh 3c / Ah Ad As 9c 9d"  # 44 / KK88 / AAA99: valid
SURRENDERER = "2s 3s 4s / 5c 5d 5h 6d 6h / 6s 7c 7h 7s Qc"
SIX_PAIRS = "Ac Ad 2c / Kc Kd Qc Qd 9c / Jc Jd Tc Td 9d"
THREE_FLUSHES = "2h 3h 5h / 4s 6s 7s 8s Ts / 6h 7h 9h Jh Kh"
# A dragon and a valid board that share no card with SIX_PAIRS or THREE_FLUSHES.
OTHER_DRAGON = "2s 3c 4c / 5c 6c 7c 8c 9s / Th Js Qh Ks Ah"
OTHER_VALID = "4c 4d 2d / 8c 8d Kd Kc 3c / Ac Ad As 9c 9d"  # 44 / KK88 / AAA99


def test_dragon_collects_from_everyone() -> None:
    # Dragon 13 from each opponent, whatever they hold (a surrendered one too);
    # the valid board collects the surrender cost 2 from the surrenderer.
    record = hand(
        player("A", DRAGON, natural="dragon"),
        player("B", VALID),
        player("C", SURRENDERER, surrendered=True),
    )
    result = score(record, "classic-1-6")
    assert result["pairs"] == {"A|B": 13, "A|C": 13, "B|C": 2}
    assert result["points"] == {"A": 26, "B": -11, "C": -15}
    assert result["boards"]["A"] == {
        "fouled": False,
        "royalties": {"top": 0, "middle": 0, "bottom": 0},
        "fantasyland_next": 0,
    }


def test_natural_beats_a_foul() -> None:
    # The fouled board pays the natural's value, not the scoop.
    record = hand(player("A", DRAGON, natural="dragon"), player("B", "Ah Ad As / 8c 8d Kd Kh 3c / 4c 4d 2d 9c 9d"))
    assert score(record, "classic-1-6")["points"] == {"A": 13, "B": -13}


def test_natural_never_assumed() -> None:
    # The same dragon undeclared is scored on its rows (4-high / 5-9 straight / A-high
    # straight, a valid board): top 44 > 4-high (B), middle straight > two pair (A),
    # bottom full house > straight (B): B 2-1, +1; no classic royalty applies.
    record = hand(player("A", DRAGON), player("B", VALID))
    assert score(record, "classic-1-6")["points"] == {"A": -1, "B": 1}


def test_false_or_unlisted_declarations_are_ignored() -> None:
    # B declares a dragon it does not have: scored on rows as above.
    record = hand(player("A", DRAGON), player("B", VALID, natural="dragon"))
    assert score(record, "classic-1-6")["points"] == {"A": -1, "B": 1}
    # No people (no J, Q, K) is real here but classic-1-6 does not list it; declaration.toml does.
    no_people = "2c 3d 4h / Tc Td Ah As 2d / 5s 6c 7d 8h 9s"  # 4-high / two pair / straight
    record = hand(
        player("A", no_people, natural="no_people"), player("B", "Kc Kd Qc / Jc Jd Js 3c 3s / Qh Qs Qd 9c 9d")
    )
    # On the rows (classic-1-6): KK > 4-high, full house > two pair, full house > straight:
    # B scoops, 6 + B's middle full house royalty 2 (winner) = 8.
    assert score(record, "classic-1-6")["points"] == {"A": -8, "B": 8}
    assert score(record, "declaration")["points"] == {"A": 3, "B": -3}
    # Naturals disabled (OFC): the dragon plays its rows. B wins 2-1 (+1 for B); royalties
    # A middle straight 4 + bottom straight 2 = 6, B bottom full house 6: net 0. A -1.
    result = score(hand(player("A", DRAGON, natural="dragon"), player("B", VALID)), "ofc")
    assert result["points"] == {"A": -1, "B": 1}


def test_two_naturals_by_strength() -> None:
    # Six pairs and three flushes both pay 3; six pairs comes first in the kind order.
    record = hand(player("A", SIX_PAIRS, natural="six_pairs"), player("B", THREE_FLUSHES, natural="three_flushes"))
    assert score(record, "classic-1-6")["points"] == {"A": 3, "B": -3}
    # Dragon beats six pairs and collects its own 13.
    record = hand(player("A", SIX_PAIRS, natural="six_pairs"), player("B", OTHER_DRAGON, natural="dragon"))
    assert score(record, "classic-1-6")["points"] == {"A": -13, "B": 13}


def test_six_pairs_against_six_pairs() -> None:
    # The higher top pair wins: A's aces beat B's kings.
    record = hand(
        player("A", SIX_PAIRS, natural="six_pairs"),
        player("B", "Kh Ks 2h / 8h 8s 7h 7s 6h / 6s 5h 5s 4h 4s", natural="six_pairs"),
    )
    assert score(record, "classic-1-6")["points"] == {"A": 3, "B": -3}


NATURAL_VALUES = st.integers(0, NATURAL_VALUE_MAX) | st.sampled_from([0, 1, 3, 13, 2048, 1 << 16, NATURAL_VALUE_MAX])


@settings(max_examples=60, deadline=None)
@given(dragon=NATURAL_VALUES, six_pairs=NATURAL_VALUES, three_flushes=NATURAL_VALUES)
def test_naturals_compare_by_value_whatever_the_values(dragon: int, six_pairs: int, three_flushes: int) -> None:
    """Two naturals: the higher value wins, then the kind order (dragon first), for every value a rule file
    accepts. The engine must agree with the reference, which compares tuples."""
    doc = load_rules("classic-1-6").model_dump(mode="json")
    values = {"dragon": dragon, "six_pairs": six_pairs, "three_flushes": three_flushes}
    house = parse_rules({**doc, "name": "house", "naturals": {**doc["naturals"], "values": values}}, "house")
    order = ["dragon", "six_pairs", "three_flushes"]
    for a_kind, a_cards, b_kind, b_cards in (
        ("six_pairs", SIX_PAIRS, "dragon", OTHER_DRAGON),
        ("six_pairs", SIX_PAIRS, "three_flushes", THREE_FLUSHES),
    ):
        record = hand(player("A", a_cards, natural=a_kind), player("B", b_cards, natural=b_kind))
        result = score_hand(record, house)
        assert engine_score_records([record], house) == [result]
        a_first = (values[a_kind], -order.index(a_kind)) > (values[b_kind], -order.index(b_kind))
        expected = values[a_kind] if a_first else -values[b_kind]
        assert result["points"] == {"A": expected, "B": -expected}


def test_a_natural_value_above_the_bound_is_refused() -> None:
    doc = load_rules("classic-1-6").model_dump(mode="json")
    values = {"dragon": NATURAL_VALUE_MAX + 1}
    with pytest.raises(ValueError, match=r"naturals\.values\.dragon"):
        parse_rules({**doc, "name": "house", "naturals": {**doc["naturals"], "values": values}}, "house")


def test_naturals_by_declaration_order() -> None:
    # declaration.toml: the earlier player in table order wins; three flushes auto-scoop
    # (scoop amount 3 + 0 + 3 = 6 under 1-6).
    a = player("A", SIX_PAIRS, natural="six_pairs", seat=0)
    b = player("B", THREE_FLUSHES, natural="three_flushes", seat=1)
    # Button 1: A (seat 0) is left of the button and declared first: A collects 3.
    assert score(hand(a, b, button=1), "declaration")["points"] == {"A": 3, "B": -3}
    # Button 0: B is first and collects the scoop amount 6.
    assert score(hand(a, b, button=0), "declaration")["points"] == {"A": -6, "B": 6}
    # Under strength precedence six pairs wins either way.
    assert score(hand(a, b, button=0), "classic-1-6")["points"] == {"A": 3, "B": -3}
    # A dragon beats an earlier declaration.
    dragon = player("B", OTHER_DRAGON, natural="dragon", seat=1)
    assert score(hand(a, dragon, button=1), "declaration")["points"] == {"A": -13, "B": 13}


def test_auto_scoop_against_a_plain_board() -> None:
    # Three flushes (auto_scoop in declaration.toml) against a valid board: the scoop
    # amount 6 instead of 3; no royalties change hands.
    record = hand(player("A", THREE_FLUSHES, natural="three_flushes"), player("B", OTHER_VALID))
    assert score(record, "declaration")["points"] == {"A": 6, "B": -6}
    assert score(record, "classic-1-6")["points"] == {"A": 3, "B": -3}


# Naturals as a house ranks and pays them (house-naturals: thirteen of one colour 13 > dragon 13 > twelve of
# one colour 8 > a triple and five pairs 4 > three straights 4 > three flushes 3 > six pairs 3).
HOUSE_FLUSHES = "2h 5h 9h / 3c 4c 7c 8c Tc / 2s 6s 9s Js Ks"  # hearts, clubs, spades: three flushes
HOUSE_SIX_PAIRS = "Ac Ad 4d / Qc Qd Jc Jd 8d / 8h 7d 7h 6d 6h"  # AA QQ JJ 88 77 66 and a 4
ALL_RED = "2h 3h 4h / 5h 6h 7h 8h 9h / Th Jh Qh Kh 2d"  # 12 hearts and a diamond
BLACK_DRAGON = "2c 3s 4c / 5s 6c 7s 8c 9s / Tc Js Qc Ks Ac"


@pytest.mark.parametrize(
    ("rules_name", "a_points"),
    [
        ("classic-1-6", -3),  # both worth 3; no order given, so six pairs ranks first (dragon, six pairs, ...)
        ("house-naturals", 3),  # the house ranks three flushes above six pairs: A collects its 3
    ],
)
def test_naturals_of_equal_value_rank_in_the_houses_order(rules_name: str, a_points: int) -> None:
    record = hand(
        player("A", HOUSE_FLUSHES, natural="three_flushes"),
        player("B", HOUSE_SIX_PAIRS, natural="six_pairs"),
        variant="classic",
    )
    assert score(record, rules_name)["points"] == {"A": a_points, "B": -a_points}


@pytest.mark.parametrize(
    ("rules_name", "a_points"),
    [
        # classic-1-6 pays no thirteen of one colour: A's declaration is ignored and the dragon collects 13.
        ("classic-1-6", -13),
        # house-naturals: thirteen of one colour (13) ranks above the dragon (13): A collects 13.
        ("house-naturals", 13),
    ],
)
def test_thirteen_of_one_colour_against_a_dragon(rules_name: str, a_points: int) -> None:
    record = hand(
        player("A", ALL_RED, natural="thirteen_one_colour"),
        player("B", BLACK_DRAGON, natural="dragon"),
        variant="classic",
    )
    assert score(record, rules_name)["points"] == {"A": a_points, "B": -a_points}


# B's board for the tests below: 7-high / two pair / aces full, valid, no classic royalty, none of A's cards.
PLAIN_B = "4s 5c 7s / 8s 8c 6s 6c 3s / As Ac Ah Kc Ks"


@pytest.mark.parametrize(
    ("a_cards", "declared", "a_points"),
    [
        # 10 hearts, Qd, Kd and 2c: twelve red cards, a natural worth 8.
        ("2h 3h 4h / 5h 6h 7h 8h 9h / Th Jh Qd Kd 2c", "twelve_one_colour", 8),
        # Only 11 red: the declaration is ignored and the board is judged on its rows; the middle (a straight
        # flush) is above the Q-high bottom, so A has fouled and pays the scoop, 3 rows + 3 = 6.
        ("2h 3h 4h / 5h 6h 7h 8h 9h / Th Jh Qd 2c 3c", "twelve_one_colour", -6),
        # 222 33 55 66 77 99: a triple and five pairs, worth 4.
        ("2h 2d 2s / 3h 3d 5h 5d 6h / 6d 7h 7d 9h 9d", "triple_five_pairs", 4),
        # 9 and T instead of a pair of 9s: four pairs, ignored; trips on top over two pair fouls: -6.
        ("2h 2d 2s / 3h 3d 5h 5d 6h / 6d 7h 7d 9h Td", "triple_five_pairs", -6),
    ],
)
def test_colour_and_triple_naturals_against_a_plain_board(a_cards: str, declared: str, a_points: int) -> None:
    record = hand(player("A", a_cards, natural=declared), player("B", PLAIN_B), variant="classic")
    assert score(record, "house-naturals")["points"] == {"A": a_points, "B": -a_points}


@pytest.mark.parametrize(
    ("naturals", "message"),
    [
        ({"values": {"dragon": 13, "six_pairs": 3}, "order": ["dragon"]}, "six_pairs not ranked"),
        ({"values": {"dragon": 13}, "order": ["dragon", "six_pairs"]}, "six_pairs not among values"),
        ({"values": {"dragon": 13}, "order": ["dragon", "dragon"]}, "dragon listed twice"),
        ({"values": {"seven_pairs": 3}}, "naturals.values.seven_pairs"),
    ],
)
def test_a_natural_order_must_rank_each_natural_once(naturals: dict[str, Any], message: str) -> None:
    doc = load_rules("classic-1-6").model_dump(mode="json")
    with pytest.raises(ValueError, match=message):
        parse_rules({**doc, "name": "house", "naturals": {**doc["naturals"], **naturals}}, "house")


def test_natural_checks() -> None:
    assert is_dragon(cards(DRAGON.replace("/", "")))
    assert not is_dragon(cards(VALID.replace("/", "")))
    assert is_six_pairs(cards("Ac Ad Ah As Kc Kd Qc Qd Jc Jd Tc Td 2c"))  # quads count as two pairs
    assert not is_six_pairs(cards("Ac Ad Ah Kc Kd Qc Qd Jc Jd Tc Td 3c 2c"))  # trips count once
    # A-2-3 on top, A-2-3-4-5 and T-J-Q-K-A below.
    assert is_three_straights(cards("Ac 2d 3h  As 2s 3s 4d 5c  Th Jh Qh Kh Ad"))
    # Q-K-A on top, and two equal 5-card straights.
    assert is_three_straights(cards("Qc Kd Ah  4c 5c 6c 7c 8d  4d 5d 6d 7d 8c"))
    assert not is_three_straights(cards("Kc Ad 2h  4c 5c 6c 7c 8d  4d 5d 6d 7d 8c"))  # K-A-2 wraps
    assert is_three_flushes(cards("2c 3c 4c 5c 6c 7c 8c 9c Tc Jc Qc Kc Ac"))  # one suit splits 3 + 5 + 5
    assert is_three_flushes(cards("2c 3c 4c  2d 5d 7d 9d Jd  3h 4h 6h 8h Th"))
    assert not is_three_flushes(cards("2c 3c 4c 5c  2d 5d 7d 9d  3h 4h 6h 8h Th"))  # 4 + 4 + 5
    assert is_no_people(cards("2c 3d 4h 5s 6c 7d 8h 9s Tc Td Ah As 2d"))
    assert not is_no_people(cards("2c 3d 4h 5s 6c 7d 8h 9s Tc Td Ah As Jd"))
    assert is_thirteen_one_colour(cards(ALL_RED.replace("/", "")))
    assert is_thirteen_one_colour(cards(BLACK_DRAGON.replace("/", "")))
    assert not is_thirteen_one_colour(cards("2h 3h 4h 5h 6h 7h 8h 9h Th Jh Qd Kd 2c"))
    assert is_twelve_one_colour(cards("2h 3h 4h 5h 6h 7h 8h 9h Th Jh Qd Kd 2c"))
    assert is_twelve_one_colour(cards(ALL_RED.replace("/", "")))  # at least twelve
    assert not is_twelve_one_colour(cards("2h 3h 4h 5h 6h 7h 8h 9h Th Jh Qd 2c 3c"))
    assert is_triple_five_pairs(cards("2h 2d 2s 3h 3d 5h 5d 6h 6d 7h 7d 9h 9d"))
    assert is_triple_five_pairs(cards("2h 2d 2s 3h 3d 3c 3s 6h 6d 7h 7d 9h 9d"))  # quads count as two pairs
    assert not is_triple_five_pairs(cards("2h 2d 2s 3h 3d 3c 5d 6h 6d 7h 7d 9h 9d"))  # two triples


# ---------------------------------------------------------------- lowball middle


def test_lowball_middle() -> None:
    # pineapple-27.
    # A: KK / 7-5-4-3-2 / AAA99. Top KK 8, middle best low 12, bottom full house 6 = 26.
    #    Fantasyland: KK top (14) and the 7-5-4-3-2 middle (14) on two rows: combined 15.
    # B: QQ / 8-6-5-3-2 / TT44J. Top 7, middle "8" tier 4, bottom two pair 0 = 11. QQ is
    #    below the KK entry and the middle is not 7-5-4-3-2: no Fantasyland.
    # C: 66 / J-9-8-6-4 (worse than the T-9-8-7-5 qualifier) / KKQQ7: fouled.
    # A beats B in every row (KK > QQ, 75432 lower than 86532, full house > two pair):
    #    6 + 26 - 11 = 21. C pays A 6 + 26 = 32 and B 6 + 11 = 17.
    record = hand(
        player("A", "Kc Kd 3h / 7c 5d 4h 3s 2c / Ah Ad Ac 9s 9d"),
        player("B", "Qc Qh 2d / 8c 6d 5h 3c 2h / Ts Th 4s 4d Jc"),
        player("C", "6c 6h 2s / Jd 9c 8s 6s 4c / Ks Kh Qs Qd 7d"),
    )
    result = score(record, "pineapple-27")
    assert result["boards"]["A"] == {
        "fouled": False,
        "royalties": {"top": 8, "middle": 12, "bottom": 6},
        "fantasyland_next": 15,
    }
    assert result["boards"]["B"] == {
        "fouled": False,
        "royalties": {"top": 7, "middle": 4, "bottom": 0},
        "fantasyland_next": 0,
    }
    assert result["boards"]["C"]["fouled"]
    assert result["pairs"] == {"A|B": 21, "A|C": 32, "B|C": 17}
    assert result["points"] == {"A": 53, "B": -4, "C": -49}


def test_lowball_middle_as_the_poker_arena_engine_pays_it() -> None:
    # The hand above under pineapple-27-arena: the middles pay 8 (7-5-4-3-2) and 2 (an eight-low) instead of
    # 12 and 4. A: 8 + 8 + 6 = 22; B: 7 + 2 + 0 = 9; C fouled. A-B: 6 + 22 - 9 = 19; A-C: 6 + 22 = 28;
    # B-C: 6 + 9 = 15. Fantasyland as in pineapple-27.
    record = hand(
        player("A", "Kc Kd 3h / 7c 5d 4h 3s 2c / Ah Ad Ac 9s 9d"),
        player("B", "Qc Qh 2d / 8c 6d 5h 3c 2h / Ts Th 4s 4d Jc"),
        player("C", "6c 6h 2s / Jd 9c 8s 6s 4c / Ks Kh Qs Qd 7d"),
    )
    result = score(record, "pineapple-27-arena")
    assert result["boards"]["A"]["royalties"] == {"top": 8, "middle": 8, "bottom": 6}
    assert result["boards"]["A"]["fantasyland_next"] == 15
    assert result["boards"]["B"]["royalties"] == {"top": 7, "middle": 2, "bottom": 0}
    assert result["pairs"] == {"A|B": 19, "A|C": 28, "B|C": 15}
    assert result["points"] == {"A": 47, "B": -4, "C": -43}


@pytest.mark.parametrize(
    ("board", "fouled"),
    [
        ("Kc Kd 3h / 7c 5d 4h 3s 2c / Ah Ad Ac 9s 9d", False),
        ("2c 3d 4h / Tc 9d 8h 7s 5c / Ah Kd Qc 9s 6d", False),  # the qualifier itself
        ("2c 3d 4h / Tc 9d 8h 7s 6c / Ah Kd Qc 9s 5d", True),  # T-9-8-7-6 is a straight
        ("2c 3d 4h / Jc 9d 8h 7s 5c / Ah Kd Qc 9s 6d", True),  # jack-low
        ("Kc 3d 4h / Ac 2d 3h 4s 5c / Ah Kd Qc 9s 6d", True),  # A-2-3-4-5 is ace-high in 2-7
        ("2d 3h 4d / 8c 6c 5c 3c 2c / Ah Kd Qc 9s 6d", True),  # a flush counts against
        ("Qc Qd 4h / 7c 5d 4c 3s 2c / Ah Kd Jc 9s 6d", True),  # top QQ above an ace-high bottom
        ("Qc Qd 4h / 7c 5d 4c 3s 2c / Ah Ad Jc 9s 6d", False),  # bottom AA >= top QQ
    ],
)
def test_lowball_fouls(board: str, fouled: bool) -> None:
    assert score(hand(player("A", board)), "pineapple-27")["boards"]["A"]["fouled"] is fouled


def test_lowball_order() -> None:
    def low(text: str) -> tuple[int, ...]:
        return low_key(cards(text))

    assert low("7c 5d 4h 3s 2c") < low("7c 6d 4h 3s 2c") < low("8c 5d 4h 3s 2c")
    assert low("Ac 2d 3h 4s 5c")[0] == HIGH_CARD  # no wheel in 2-7
    assert low("Kc Qd Jh Ts 8c") < low("2c 2d 3h 4s 5c")  # any pair is worse than no pair
    assert low("6c 5d 4h 3s 2c")[0] == STRAIGHT
    assert low("8c 6c 5c 3c 2c")[0] == FLUSH
    eight = parse_pattern("8", lowball=True)
    assert eight(cards("8c 7d 6h 5s 3c"))
    assert not eight(cards("9c 5d 4h 3s 2c"))
    assert not eight(cards("8c 6c 5c 3c 2c"))  # a flush is no 8-low


# ---------------------------------------------------------------- Fantasyland

TRIPS_TOP = "3c 3d 3h / 9h Th Js Qd Ks / Ac Kc 8c 6c 4c"  # trips / straight / flush
KINGS_TOP = "Kh Kd 2c / Ah As 5d 5h 7s / Tc Jc Qc 3c 9c"  # KK / two pair / flush: no stay
FULL_MIDDLE = "4c 4d 2h / 8c 8d 8h Jc Jd / Ah Ad Ac 9c 9d"  # 44 / full house / bigger full house
QUADS_BOTTOM = "Ah 7d 2s / Kc Kd 5s 5c 3d / 9c 9d 9h 9s 4h"  # A-high / two pair / quads
QUEENS_AND_BOAT = "Qc Qd 2c / Kc Kd 5s 5c 3d / Ah Ad Ac 9c 9d"  # QQ / two pair / full house


@pytest.mark.parametrize(
    ("rules_name", "board", "in_fantasyland", "expected"),
    [
        # OFC: entry QQ+ 13; stay on top trips, middle full house or bottom quads; exclusive.
        ("ofc", TRIPS_TOP, False, 13),
        ("ofc", TRIPS_TOP, True, 13),
        ("ofc", KINGS_TOP, False, 13),
        ("ofc", KINGS_TOP, True, 0),  # KK is an entry, not a stay
        ("ofc", FULL_MIDDLE, True, 13),
        ("ofc", QUADS_BOTTOM, True, 13),
        ("ofc", QUADS_BOTTOM, False, 0),
        # Pineapple drops the middle full house.
        ("pineapple", FULL_MIDDLE, True, 0),
        ("pineapple", QUADS_BOTTOM, True, 14),
        # Progressive: trips earn 17, KK 15; a stay gives 14.
        ("progressive-pineapple", TRIPS_TOP, False, 17),
        ("progressive-pineapple", TRIPS_TOP, True, 14),
        ("progressive-pineapple", KINGS_TOP, False, 15),
        ("progressive-pineapple", KINGS_TOP, True, 0),
        # reentry: not exclusive, a stay deals the earned count.
        ("reentry", TRIPS_TOP, True, 17),  # stays with the trips count
        ("reentry", KINGS_TOP, True, 15),  # no stay, but re-enters on KK
        ("reentry", QUADS_BOTTOM, True, 14),  # stays on quads, no entry tier: the smallest, 14
        # house-ofc: QQ top (14) and a bottom full house (14) on two rows: combined 16.
        ("house-ofc", QUEENS_AND_BOAT, False, 16),
        ("house-ofc", QUADS_BOTTOM, False, 14),  # quads meet "full house"
        ("house-ofc", QUADS_BOTTOM, True, 14),  # stay, earned: the entry count 14
        ("house-ofc", KINGS_TOP, True, 0),
    ],
)
def test_fantasyland(rules_name: str, board: str, in_fantasyland: bool, expected: int) -> None:
    result = score(hand(player("A", board, fantasyland=in_fantasyland)), rules_name)
    assert not result["boards"]["A"]["fouled"]
    assert result["boards"]["A"]["fantasyland_next"] == expected


def test_no_fantasyland_on_a_foul() -> None:
    # E2's KK top on a fouled board.
    assert score(E2, "progressive-pineapple")["boards"]["A"]["fantasyland_next"] == 0


def test_flat_top_royalties() -> None:
    # house-ofc: any pair on top 2, any trips 20, bottom trips 1.
    assert score(hand(player("A", TRIPS_TOP)), "house-ofc")["boards"]["A"]["royalties"] == {
        "top": 20,
        "middle": 4,
        "bottom": 4,
    }
    assert score(hand(player("A", KINGS_TOP)), "house-ofc")["boards"]["A"]["royalties"]["top"] == 2


# ---------------------------------------------------------------- the strength scale


def test_top_against_middle_one_scale() -> None:
    def key(text: str) -> tuple[int, ...]:
        return hand_key(cards(text))

    assert key("Qc Qd Kh") < key("Qh Qs Kd 5c 3d")  # a missing kicker is below any card
    assert key("Qc Qd Ah") > key("Qh Qs Kd 3c 2d")
    assert key("2c 2d 2h") > key("Ac Ad Kc Qd Jh")  # trips beat any pair
    assert key("Ac Kd Qh") < key("2c 2d 3h 4s 5c")
    # A top above its middle fouls; the same ranks the other way round do not.
    assert is_fouled(
        {"top": cards("Qc Qd Ah"), "middle": cards("Qh Qs Kd 3c 2d"), "bottom": cards("2h 2s 2c 3h 3s")}, rules("ofc")
    )
    assert not is_fouled(
        {"top": cards("Qc Qd Kh"), "middle": cards("Qh Qs Kd 5c 3d"), "bottom": cards("2h 2s 2c 3h 3s")}, rules("ofc")
    )


def test_hand_key_agrees_with_phevaluator() -> None:
    # Two independent rankings of 5 cards must order random hands the same way,
    # including exact ties (the same hand in rotated suits).
    rng = random.Random(7)
    deck = [(r, s) for r in range(13) for s in range(4)]
    hands = [rng.sample(deck, 5) for _ in range(4000)]
    hands += [[(12, 0), (0, 1), (1, 2), (2, 3), (3, 0)], [(12, 1), (0, 1), (1, 1), (2, 1), (3, 1)]]  # wheels
    rotated = [[(r, (s + 1) % 4) for r, s in h] for h in hands]
    for a, b in [*itertools.pairwise(hands), *zip(hands, rotated, strict=True)]:
        pa = evaluate_cards(*(r * 4 + s for r, s in a))
        pb = evaluate_cards(*(r * 4 + s for r, s in b))
        ka, kb = hand_key(a), hand_key(b)
        assert (pa < pb) == (ka > kb), (a, b)
        assert (pa == pb) == (ka == kb), (a, b)
        assert category_of(pa) == ka[0]


@pytest.mark.parametrize(
    ("pattern", "hand_text", "meets"),
    [
        ("QQ", "Qc Qd 2h", True),
        ("QQ", "Jc Jd Ah", False),
        ("QQ", "Kc Kd 2h", True),
        ("QQ", "2c 2d 2h", True),
        ("KK", "Qc Qd Ah", False),
        ("AA", "Ac Ad 2h", True),
        ("trips", "2c 2d 2h", True),
        ("222", "2c 2d 2h", True),
        ("trips", "Ac Ad Kh", False),
        ("full house", "2c 2d 2h 3c 3d", True),
        ("full house", "Ac Kc Qc Jc 9c", False),
        ("quads", "2c 2d 2h 2s 3c", True),
        ("royal", "Tc Jc Qc Kc Ac", True),
        ("royal", "9c Tc Jc Qc Kc", False),
        ("7 5 4 3 2", "7c 5d 4h 3s 2c", True),
        ("7 5 4 3 2", "6c 5d 4h 3s 2c", True),  # a straight is better on a high row
        ("7 5 4 3 2", "7c 6d 4h 3s 2c", True),  # on a high row 76432 is better
        ("7 5 4 3 2", "5c 3d 2h", False),  # a 3-card top can be below it
    ],
)
def test_patterns(pattern: str, hand_text: str, meets: bool) -> None:
    assert parse_pattern(pattern, lowball=False)(cards(hand_text)) is meets


# ---------------------------------------------------------------- records


def test_table_order_defaults_and_pairs_keys() -> None:
    # Without seats, seats are list positions and the button the largest: players
    # listed B, A still report their pair as "B|A" from B's side.
    record = hand(E1["players"][1], E1["players"][0])
    result = score(record, "ofc")
    assert result["pairs"] == {"B|A": -24}
    assert list(result["points"]) == ["B", "A"]


def test_random_records_are_legal_and_deterministic() -> None:
    for name in preset_names():
        r = rules(name)
        records = random_records(300, r, seed=11)
        assert records == random_records(300, r, seed=11)
        for record in records:
            assert r.game.min_players <= len(record["players"]) <= r.game.max_players
            every = [c for p in record["players"] for row in ("top", "middle", "bottom") for c in p[row]]
            assert len(every) == len(set(every)) == 13 * len(record["players"])
            sizes = [[len(p[row]) for row in ("top", "middle", "bottom")] for p in record["players"]]
            # Classic histories may record a misset board (4 / 4 / 5), which fouls.
            allowed = ([3, 5, 5], [4, 4, 5]) if str(r.game.dealing) == "classic" else ([3, 5, 5],)
            assert all(size in allowed for size in sizes)
            if str(r.game.dealing) != "classic":
                assert not any(p.get("natural") or p.get("surrendered") for p in record["players"])
        assert any(p.get("fantasyland") for rec in records for p in rec["players"]) == r.fantasyland.enabled


@pytest.mark.parametrize(
    ("pattern", "hand_text", "meets"),
    [
        ("7 5 4 3 2", "7c 5d 4h 3s 2c", True),
        ("7 5 4 3 2", "7c 6d 4h 3s 2c", False),
        ("T 9 8 7 5", "Tc 9d 8h 7s 5c", True),
        ("T 9 8 7 5", "Tc 9d 8h 7s 6c", False),  # a straight
        ("T 9 8 7 5", "Jc 5d 4h 3s 2c", False),
        ("T 9 8 7 5", "8c 8d 4h 3s 2c", False),  # a pair
        ("7", "7c 6d 4h 3s 2c", True),
        ("7", "8c 5d 4h 3s 2c", False),
    ],
)
def test_lowball_patterns(pattern: str, hand_text: str, meets: bool) -> None:
    assert parse_pattern(pattern, lowball=True)(cards(hand_text)) is meets


def test_random_records_exercise_the_rules() -> None:
    # The cross-check is only as good as its hands: they must reach the interesting paths.
    classic = rules("classic-1-6")
    seen: collections.Counter[str] = collections.Counter()
    for record in random_records(3000, classic, seed=3):
        result = score_hand(record, classic)
        names = [p["name"] for p in record["players"]]
        seen["criss-cross"] += len(set(names)) < len(names)
        for i, p in enumerate(record["players"]):
            key = p["name"] if names.count(p["name"]) == 1 else f"{p['name']}#{p.get('seat', i)}"
            seen["misset"] += len(p["top"]) != 3
            board = read_board(0, p, key, classic)
            if board.natural:
                seen[f"natural {board.natural}"] += 1
            elif p.get("natural"):
                seen["ignored declaration"] += 1
            seen["surrendered"] += board.surrendered
            seen["fouled"] += result["boards"][key]["fouled"]
        seen["tied pair"] += sum(1 for v in result["pairs"].values() if v == 0)
    for kind in ("dragon", "six_pairs", "three_straights", "three_flushes"):
        assert seen[f"natural {kind}"] >= 10, seen
    assert seen["ignored declaration"] >= 50, seen
    assert seen["surrendered"] >= 100, seen
    assert seen["criss-cross"] >= 20, seen
    assert seen["misset"] >= 50, seen
    assert 0.2 < seen["fouled"] / sum(len(r["players"]) for r in random_records(3000, classic, seed=3)) < 0.7

    ofc = rules("ofc")
    entries = stays = 0
    for record in random_records(3000, ofc, seed=3):
        result = score_hand(record, ofc)
        if len({p["name"] for p in record["players"]}) < len(record["players"]):
            continue  # criss-cross boards are keyed by seat
        for p in record["players"]:
            if result["boards"][p["name"]]["fantasyland_next"]:
                stays += bool(p.get("fantasyland"))
                entries += not p.get("fantasyland")
    assert entries >= 100
    assert stays >= 20

    stakes = rules("stakes")
    capped = sum(
        score_hand(r, stakes)["pairs"] != score_hand(r, classic)["pairs"] for r in random_records(1000, stakes, seed=3)
    )
    assert capped >= 100


def test_patterns_on_pairs_category() -> None:
    assert parse_pattern("pair", lowball=False)(cards("2c 2d 3h"))
    assert not parse_pattern("pair", lowball=False)(cards("Ac Kd Qh"))
    assert hand_key(cards("2c 2d 3h"))[0] == PAIR


# ---------------------------------------------------------------- criss-cross, misset, surrender with a natural


def test_criss_cross_boards_of_one_player_are_not_compared() -> None:
    result = score(CRISS_CROSS, "ofc")  # worked out in tests/reference/hands.py
    assert result["pairs"] == {"A#0|B#1": 40, "A#0|B#3": 40, "B#1|A#2": -5, "A#2|B#3": 12}
    assert result["points"] == {"A": 97, "B": -97}
    assert result["boards"]["B#3"]["fouled"] is True
    assert result["boards"]["A#2"]["royalties"] == {"top": 0, "middle": 0, "bottom": 6}


def test_a_misset_classic_board_is_fouled() -> None:
    result = score(MISSET, "classic-1-6")
    assert result["boards"]["X"]["fouled"] is True
    assert result["points"] == {"X": -6, "Y": 6}


def test_a_surrendered_player_cannot_also_claim_a_natural() -> None:
    # X holds a dragon and declares it, but surrendered: the surrender stands, X pays 2.
    dragon = player("X", "2c 3d 4h / 5s 6c 7d 8h 9s / Tc Jd Qh Ks Ac", natural="dragon", surrendered=True)
    record = hand(dragon, player("Y", "2d 2h 3c / 6d 6h 8c 9c Td / Qc Qd Qs 4c 4d"))
    assert score(record, "classic-1-6")["points"] == {"X": -2, "Y": 2}
