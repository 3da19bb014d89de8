from __future__ import annotations

import numpy as np
import polars as pl
import pyarrow as pa
import pytest

from ofc.pipeline.cards import parse_boards, parse_row, parse_rows
from ofc.pipeline.errors import InputError
from ofc.pipeline.evaluate import (
    InvalidRowError,
    category,
    describe,
    evaluate_boards,
    fouled,
    lowball27,
    lowball_category,
    lowball_high_rank,
    row_facts,
    strength,
    strength3,
    strength5,
)
from ofc.pipeline.evaluate.lookup_tables import HIGH_CARD, PAIR, STRAIGHT, STRAIGHT_FLUSH, TRIPS


def s3(text: str) -> int:
    return int(strength3(parse_row(text, 3))[0])


def s5(text: str) -> int:
    return int(strength5(parse_row(text, 5))[0])


def low(text: str) -> int:
    return int(lowball27(parse_row(text, 5))[0])


def test_top_pair_with_missing_kickers_is_below_the_same_middle() -> None:
    assert s3("Qh Qd 5c") < s5("Qs Qc 5d 4h 3s")
    assert s3("Qh Qd Kc") < s5("Qs Qc Kd 5h 3s")


def test_top_pair_with_a_better_kicker_is_above_the_middle() -> None:
    assert s3("Qh Qd Ac") > s5("Qs Qc Kd 3h 2s")
    top, middle, bottom = evaluate_boards(parse_boards(["Qh Qd Ac / Qs Qc Kd 3h 2s / Ah Ad Kc Kh 2c"]))
    assert fouled(top, middle, bottom).tolist() == [True]


def test_top_trips_are_below_the_same_trips_with_kickers() -> None:
    assert s3("Qh Qd Qc") < s5("Qs Qc Qd 3h 2s")
    assert s3("Qh Qd Qc") > s5("Js Jc Jd Ah Ks")


def test_three_suited_or_connected_cards_on_top_are_a_high_card() -> None:
    for top in ("Ah Kh Qh", "Jh Th 9h", "4c 3d 2h", "As 2s 3s"):
        assert int(category(strength3(parse_row(top, 3)))[0]) == HIGH_CARD
    assert s3("Ah Kh Qh") < s3("2c 2d 3h")


def test_wheel_is_the_lowest_straight_and_straight_flush() -> None:
    wheel, six_high = s5("Ac 2d 3h 4s 5c"), s5("2d 3h 4s 5c 6d")
    assert wheel < six_high
    assert s5("Ac Kd Qh Js 9c") < wheel  # best high card below the wheel
    assert s5("As 2s 3s 4s 5s") < s5("2s 3s 4s 5s 6s")
    facts = row_facts(strength5(parse_rows(["Ac 2d 3h 4s 5c", "As 2s 3s 4s 5s", "Ts Js Qs Ks As"], 5)))
    assert facts.category.tolist() == [STRAIGHT, STRAIGHT_FLUSH, STRAIGHT_FLUSH]
    assert facts.rank1.tolist() == [3, 3, 12]
    assert facts.royal.tolist() == [False, False, True]


def test_suits_never_break_ties() -> None:
    assert s5("As Kd Qh Js 9c") == s5("Ad Kc Qs Jh 9h")
    assert s3("Qh Qd 4c") == s3("Qs Qc 4h")


def test_defining_ranks_for_royalty_lookups() -> None:
    rows = parse_rows(["6h 6d 2c", "Ah Ad Ac", "Qh Qd 4c", "Kh 9d 3c"], 3)
    facts = row_facts(strength3(rows))
    assert facts.category.tolist() == [PAIR, TRIPS, PAIR, HIGH_CARD]
    assert facts.rank1.tolist() == [4, 12, 10, 11]
    assert facts.rank2.tolist() == [0, -1, 2, 7]
    full = row_facts(strength5(parse_rows(["Ah Ad Ac 5s 5d", "Kh Kd 4c 4s 9d", "7h 7d 7c 7s 2d"], 5)))
    assert full.rank1.tolist() == [12, 11, 5]
    assert full.rank2.tolist() == [3, 2, 0]


def test_lowball_27() -> None:
    best = low("7c 5d 4h 3s 2c")
    assert best == 0
    assert low("7c 5c 4c 3c 2c") > low("Kc Qd Jh Ts 8c")  # the flush counts against
    assert low("7c 6d 5h 4s 3c") > low("Ac Kd Qh Js 9c")  # so does the straight
    wheel = low("Ac 2d 3h 4s 5c")
    assert low("Kc Qd Jh Ts 8c") < wheel < low("Ac 6d 4h 3s 2c")  # A-2-3-4-5 is ace-high, not a straight
    assert low("8c 6d 4h 3s 2c") > low("7c 6d 5h 4s 2c")
    values = lowball27(parse_rows(["7c 5d 4h 3s 2c", "Ac 2d 3h 4s 5c", "Tc 9d 8h 7s 5c", "7c 6d 5h 4s 3c"], 5))
    assert lowball_category(values).tolist() == [HIGH_CARD, HIGH_CARD, HIGH_CARD, STRAIGHT]
    assert lowball_high_rank(values).tolist() == [5, 12, 8, 5]


def test_strict_bottom_reading() -> None:
    boards = parse_boards(["2c 3d 4h / Ah Kd 9c 7s 5h / Ad Kc 9d 7c 5s"])
    s = evaluate_boards(boards)
    assert s.middle[0] == s.bottom[0]
    assert fouled(*s).tolist() == [False]
    assert fouled(*s, bottom_may_equal_middle=False).tolist() == [True]


def test_worked_example_fouls() -> None:
    boards = parse_boards(
        [
            "Qh Qd 4c / 9s 9h 9c Kd 3h / Ts Js Qs Ks As",
            "Kh Kd 3c / Qs Qc 8d 7s 2h / Ah As 9c 5d 4h",
            "7c 7d 2s / Tc Jd Qd Kc 9h / 3s 8s Js 6s 4s",
            "4h 3h 2h / Ks Kd Th 7s 6h / As Ad Qh Qd 8d",
        ]
    )
    assert fouled(*evaluate_boards(boards)).tolist() == [False, True, False, False]
    assert describe(evaluate_boards(boards).bottom).tolist() == [
        "royal flush",
        "pair of aces, nine kicker",
        "jack-high flush",
        "two pair, aces and queens",
    ]


def test_board_kernel_agrees_with_row_kernels() -> None:
    from ofc.pipeline.cards import deal

    boards = deal(200_000, 13, np.random.default_rng(5))
    s = evaluate_boards(boards)
    assert (s.top == strength3(boards[:, 0:3])).all()
    assert (s.middle == strength5(boards[:, 3:8])).all()
    assert (s.bottom == strength5(boards[:, 8:13])).all()


def test_column_inputs_polars_and_arrow() -> None:
    rows = parse_rows(["Qh Qd 4c", "2c 2d 2h"], 3)
    expected = strength3(rows).tolist()
    as_array = pl.Series("top", rows.tolist(), dtype=pl.Array(pl.UInt8, 3))
    as_list = pl.Series("top", rows.tolist(), dtype=pl.List(pl.UInt8))
    for col in (as_array, as_list):
        out = strength(col)
        assert isinstance(out, pl.Series)
        assert out.to_list() == expected
    arrow = pa.array(rows.tolist(), type=pa.list_(pa.uint8(), 3))
    assert strength(arrow).to_pylist() == expected
    assert strength(rows.astype(np.int64)).tolist() == expected
    assert strength(rows.tolist()).tolist() == expected
    assert (strength(rows[0]) == expected[0]).all()  # a single row


def test_bad_codes_name_the_rows() -> None:
    rows = parse_rows(["Qh Qd 4c", "2c 2d 2h", "As Ks Qs"], 3).astype(np.int64)
    rows[1, 2] = 60
    with pytest.raises(InvalidRowError, match=r"row 1: \[0, 1, 60\]"):
        strength3(rows)
    rows8 = rows.astype(np.uint8)
    with pytest.raises(InvalidRowError, match="row 1"):
        strength3(rows8)
    five = np.array([[0, 4, 8, 12, 16], [51, 51, 51, 51, 51]], dtype=np.uint8)
    with pytest.raises(InvalidRowError, match="row 1"):  # five aces of spades: no deck deals that
        strength5(five)
    with pytest.raises(InvalidRowError):
        strength5(np.array([[0, 4, 8, 12, 255]], dtype=np.uint8))
    with pytest.raises(InputError, match="3 or 5"):  # every refusal is of the error tree, not a bare ValueError
        strength(np.zeros((2, 4), dtype=np.uint8))
    with pytest.raises(InputError, match="rows of 5"):
        strength5(np.zeros((2, 3), dtype=np.uint8))
    with pytest.raises(InputError, match="integers"):
        strength5(np.zeros((2, 5), dtype=np.float64))


def test_empty_input() -> None:
    assert strength5(np.empty((0, 5), dtype=np.uint8)).shape == (0,)
    assert evaluate_boards(np.empty((0, 13), dtype=np.uint8)).top.shape == (0,)
