from __future__ import annotations

import numpy as np
import polars as pl
import pytest

from ofc.pipeline.cards import (
    CARD_NAMES,
    NO_CARD,
    CardParseError,
    deal,
    format_card,
    format_cards,
    format_row,
    parse_boards,
    parse_card,
    parse_card_column,
    parse_cards,
    parse_row,
    parse_rows,
)


def test_code_layout_is_rank_times_four_plus_suit() -> None:
    assert parse_card("2c") == 0
    assert parse_card("2d") == 1
    assert parse_card("2h") == 2
    assert parse_card("2s") == 3
    assert parse_card("3c") == 4
    assert parse_card("As") == 51
    assert parse_card("Td") == 8 * 4 + 1


@pytest.mark.parametrize(
    ("token", "name"),
    [
        ("As", "As"),
        ("Td", "Td"),
        ("10d", "Td"),
        ("aS", "As"),
        ("A♠", "As"),
        ("10♥", "Th"),
        (" kc ", "Kc"),
        ("q♦", "Qd"),
        ("J♣", "Jc"),
        ("K♤", "Ks"),
        ("9♡", "9h"),
        ("A♠\ufe0f", "As"),
        ("tH", "Th"),
    ],
)
def test_accepted_spellings(token: str, name: str) -> None:
    assert format_card(parse_card(token)) == name


@pytest.mark.parametrize(
    "token", ["", "A", "s", "1s", "11s", "Ax", "AsK", "Ace", "0s", "1 0s", "A s", "♠A", "AA", "ss"]
)
def test_rejects_everything_else(token: str) -> None:
    with pytest.raises(CardParseError) as info:
        parse_card(token)
    assert repr(token) in str(info.value)


def test_every_code_round_trips() -> None:
    codes = np.arange(52, dtype=np.uint8)
    assert (parse_cards(format_cards(codes)) == codes).all()
    assert (parse_cards(format_cards(codes, symbols=True)) == codes).all()
    assert len(set(CARD_NAMES.tolist())) == 52


def test_column_error_names_every_bad_token_and_position() -> None:
    with pytest.raises(CardParseError) as info:
        parse_cards(["As", "Xx", "Kd", "1s"], context="hands.csv line 7 field top")
    err = info.value
    assert [(b.index, b.token) for b in err.bad] == [(1, "Xx"), (3, "1s")]
    assert err.total_bad == 2
    assert str(err).startswith("hands.csv line 7 field top: not a card:")
    assert "'Xx' (#2)" in str(err)


def test_lenient_column_parse_masks_bad_tokens() -> None:
    codes, ok = parse_card_column(pl.Series(["As", "nope", "2c", None]))
    assert ok.tolist() == [True, False, True, False]
    assert codes.tolist() == [51, NO_CARD, 0, NO_CARD]


def test_bulk_parse_matches_single_parse() -> None:
    rng = np.random.default_rng(3)
    codes = rng.integers(0, 52, 100_000).astype(np.uint8)
    spelled = np.where(rng.random(codes.size) < 0.5, format_cards(codes), format_cards(codes, symbols=True))
    assert (parse_cards(spelled) == codes).all()
    assert (parse_cards(pl.Series(spelled)) == codes).all()


def test_rows_and_boards() -> None:
    rows = parse_rows(["Qh Qd 4c", "As,Ks, Qs", "  2c 3c   4c "], 3)
    assert rows.shape == (3, 3)
    assert format_row(rows[1]) == "As Ks Qs"
    assert parse_row("Ts Js Qs Ks As").tolist() == [35, 39, 43, 47, 51]
    boards = parse_boards(["Qh Qd 4c / 9s 9h 9c Kd 3h / Ts Js Qs Ks As", "Kh Kd 3c | Qs Qc 8d 7s 2h | Ah As 9c 5d 4h"])
    assert boards.shape == (2, 13)
    assert format_row(boards[1, 3:8]) == "Qs Qc 8d 7s 2h"


def test_row_errors_name_row_and_card() -> None:
    with pytest.raises(CardParseError, match=r"'Zs' \(#2, card 3\)"):
        parse_rows(["Qh Qd 4c", "As Ks Zs"], 3)
    with pytest.raises(CardParseError, match=r"expected 3 cards: 'As Ks' \(#2\)"):
        parse_rows(["Qh Qd 4c", "As Ks"], 3)
    with pytest.raises(CardParseError, match=r"middle row: expected 5 cards"):
        parse_boards(["Qh Qd 4c / 9s 9h 9c Kd / Ts Js Qs Ks As"])
    with pytest.raises(CardParseError, match="expected three rows"):
        parse_boards(["Qh Qd 4c 9s 9h 9c Kd 3h Ts Js Qs Ks As"])


def test_format_rejects_codes_outside_the_deck() -> None:
    with pytest.raises(ValueError, match=r"0\.\.51"):
        format_cards([0, 52])


def test_deal_gives_distinct_cards_per_row_and_is_seeded() -> None:
    a = deal(50_000, 17, np.random.default_rng(9))
    assert a.dtype == np.uint8
    assert a.shape == (50_000, 17)
    assert a.max() <= 51
    s = np.sort(a, axis=1)
    assert (np.diff(s, axis=1) > 0).all()
    assert (deal(50_000, 17, np.random.default_rng(9)) == a).all()
    # every card turns up about equally often
    counts = np.bincount(a.ravel(), minlength=52)
    assert counts.min() > 0.9 * counts.mean()


def test_boards_holding_a_card_twice_are_refused_naming_where() -> None:
    from ofc.pipeline.cards import RepeatedCardError, check_distinct

    boards = np.tile(np.arange(13, dtype=np.uint8), (30, 1))
    check_distinct(boards)  # thirteen different cards: nothing to say
    boards[3, 12] = boards[3, 0]  # the top's first card again, as the bottom's last
    boards[5:20, 7] = boards[5:20, 8]
    with pytest.raises(RepeatedCardError) as caught:
        check_distinct(boards)
    said = str(caught.value)
    assert said.startswith("board 4: 2c appears twice (top card 1, bottom card 5); board 6: ")
    assert "and 6 more boards; a deck holds each card once" in said  # 16 boards at fault, the first ten named


def test_tokens_that_are_not_text_are_no_cards() -> None:
    """A record's cards may be nulls or numbers (fuzzed JSON): each is a token that fails, never an error."""
    for tokens in ([None, None, ""], [None] * 13, [5, "As", None]):
        codes, ok = parse_card_column(tokens)
        assert ok.tolist() == [t == "As" for t in tokens]
        assert codes.shape == (len(tokens),)
