"""Decision points rebuilt from recorded placements: what a player held, saw and was dealt when they acted.

A board's placements say, card by card, the street it arrived on and the row it went to (or the discard).
Within a street, players act in turn from the seat left of the button; so when a player acts on street ``s``,
the boards of those who acted before them hold their street-``s`` cards and the others' do not. A board in
Fantasyland is set face down: nobody sees it, and its owner sets it before seeing anyone else's cards.

Every function here takes whole columns of many hands at once; the one loop over decisions is compiled.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np
from numba import njit

from ofc.pipeline.game import ROW_STARTS, Deal
from ofc.pipeline.simulate.streets import DISCARD, actions

__all__ = ["Hands", "Positions", "board_problems", "decisions_of", "kind_of", "positions", "row_letters"]

NO_CARD = 255
MAX_DEALT = 17
"""Cards one decision can be about: a Fantasyland hand of 17."""
LETTERS = np.array([*"tmbx", ""])
"""A card's destination as one letter: top, middle, bottom, discard (none: a slot past the cards dealt)."""
KINDS = ("initial", "placement", "discard", "fantasyland")
"""A decision's kind: the first five cards, a street placed whole, a street with a discard, a Fantasyland setting."""


def kind_of(deal: Deal, street: int, fantasyland: bool) -> str:
    """The kind of the decisions at ``street`` (1-based) of ``deal``, or of a Fantasyland setting."""
    if fantasyland:
        return "fantasyland"
    if street == 1:
        return "initial"
    return "discard" if deal.discarded[street - 1] else "placement"


@dataclass(frozen=True)
class Hands:
    """The boards of many hands and their placements, as columns.

    Boards are grouped by hand (hand ``h``'s boards are ``hand_start[h]`` .. ``hand_start[h + 1]``), each hand's
    in the order its seats act (the button last); placements are grouped by board
    (``place_start[b]`` .. ``place_start[b + 1]``), each board's in the order they were made.
    """

    hand_start: np.ndarray
    fantasyland: np.ndarray
    """(B,) bool: the board was a Fantasyland hand."""
    place_start: np.ndarray
    street: np.ndarray
    """(N,) int64, 1-based."""
    card: np.ndarray
    """(N,) uint8."""
    row: np.ndarray
    """(N,) int64: 0 top, 1 middle, 2 bottom, 3 discard."""

    @property
    def boards(self) -> int:
        return int(self.fantasyland.size)

    @cached_property
    def hand_of(self) -> np.ndarray:
        """(B,) the hand of each board."""
        return np.repeat(np.arange(self.hand_start.size - 1), np.diff(self.hand_start))

    @cached_property
    def players(self) -> np.ndarray:
        """(B,) the number of boards of each board's hand."""
        return np.diff(self.hand_start)[self.hand_of]


def board_problems(hands: Hands, deal: Deal, fantasyland_cards: np.ndarray) -> np.ndarray:
    """(B,) why each board's placements cannot be replayed street by street ('' when they can): none recorded,
    or not the deal's cards per street and row."""
    b = hands.boards
    n = np.diff(hands.place_start)
    board_of = np.repeat(np.arange(b), n)
    out = np.full(b, "", dtype=object)
    out[n == 0] = "no placements recorded"
    rows = np.zeros((b, 4), dtype=np.int64)
    np.add.at(rows, (board_of, hands.row), 1)
    complete = (rows[:, 0] == 3) & (rows[:, 1] == 5) & (rows[:, 2] == 5)
    streets = deal.streets
    per = np.zeros((b, streets + 1), dtype=np.int64)
    dropped = np.zeros((b, streets + 1), dtype=np.int64)
    inside = (hands.street >= 1) & (hands.street <= streets)
    np.add.at(per, (board_of[inside], hands.street[inside]), 1)
    np.add.at(dropped, (board_of[inside], hands.street[inside]), hands.row[inside] == DISCARD)
    outside = np.bincount(board_of[~inside], minlength=b) > 0
    normal = (
        (per[:, 1:] == np.array(deal.dealt)).all(axis=1)
        & (dropped[:, 1:] == np.array(deal.discarded)).all(axis=1)
        & ~outside
    )
    fl = hands.fantasyland
    fl_ok = (per[:, 1] == n) & (n == fantasyland_cards) & (rows[:, 3] == n - 13) & ~outside
    good = complete & np.where(fl, fl_ok, normal)
    bad = (n > 0) & ~good
    out[bad & fl] = "the Fantasyland placements are not the cards dealt, set at once"
    out[bad & ~fl] = "the placements do not follow the deal street by street"
    return out


@dataclass(frozen=True)
class Decisions:
    """The decisions to weigh: board and street of each (street 1 for a Fantasyland setting)."""

    board: np.ndarray
    street: np.ndarray


def decisions_of(hands: Hands, deal: Deal, analysed: np.ndarray) -> Decisions:
    """Every decision of the ``analysed`` boards: each street of a normal board, the setting of a Fantasyland
    one. Streets where only one move is legal are left out later, once the moves are counted."""
    normal = analysed & ~hands.fantasyland
    boards = np.flatnonzero(normal)
    streets = deal.streets
    fl = np.flatnonzero(analysed & hands.fantasyland)
    board = np.concatenate([np.repeat(boards, streets), fl])
    street = np.concatenate([np.tile(np.arange(1, streets + 1), boards.size), np.ones(fl.size, np.int64)])
    order = np.lexsort((street, board))
    return Decisions(board=board[order].astype(np.int64), street=street[order].astype(np.int64))


@dataclass(frozen=True)
class Positions:
    """Each decision's state, for ``m`` decisions at tables of ``P`` seats (seats in acting order)."""

    boards: np.ndarray
    """(m, P, 13) uint8: every board as the player saw it (255: empty, or hidden in Fantasyland)."""
    counts: np.ndarray
    """(m, P, 3) int64: cards in each row of those boards."""
    in_fantasyland: np.ndarray
    """(m, P) bool."""
    own: np.ndarray
    """(m, 17 + 13) uint8: every card of their own the player had seen (255: none)."""
    me: np.ndarray
    """(m,) int64: the deciding seat (its turn)."""
    dealt: np.ndarray
    """(m, k) uint8: the cards decided on, in the order recorded."""
    played: np.ndarray
    """(m, k) int64: where each went (0 top, 1 middle, 2 bottom, 3 discard)."""


@njit(cache=True)
def _fill(
    hand_start: np.ndarray,
    fantasyland: np.ndarray,
    place_start: np.ndarray,
    street: np.ndarray,
    card: np.ndarray,
    row: np.ndarray,
    hand_of: np.ndarray,
    dec_board: np.ndarray,
    dec_street: np.ndarray,
    row_starts: np.ndarray,
    boards: np.ndarray,
    counts: np.ndarray,
    in_fl: np.ndarray,
    own: np.ndarray,
    me: np.ndarray,
    dealt: np.ndarray,
    played: np.ndarray,
) -> None:
    for i in range(dec_board.size):
        b = dec_board[i]
        s = dec_street[i]
        h = hand_of[b]
        first = hand_start[h]
        turn = b - first
        me[i] = turn
        deciding_fl = fantasyland[b]
        for p in range(hand_start[h + 1] - first):
            q = first + p
            in_fl[i, p] = fantasyland[q]
            if fantasyland[q] or deciding_fl:
                continue  # hidden, or not yet seen: a Fantasyland hand is set before anyone acts
            for j in range(place_start[q], place_start[q + 1]):
                st = street[j]
                if st > s or (st == s and p >= turn):
                    continue
                r = row[j]
                if r < 3:
                    boards[i, p, row_starts[r] + counts[i, p, r]] = card[j]
                    counts[i, p, r] += 1
        k = 0
        n_own = 0
        for j in range(place_start[b], place_start[b + 1]):
            if street[j] > s:
                continue
            own[i, n_own] = card[j]
            n_own += 1
            if street[j] == s:
                dealt[i, k] = card[j]
                played[i, k] = row[j]
                k += 1


def positions(hands: Hands, board: np.ndarray, street: np.ndarray, players: int, width: int) -> Positions:
    """The states of the decisions (``board``, ``street``) of hands of ``players`` seats, ``width`` cards each."""
    m = board.size
    boards = np.full((m, players, 13), NO_CARD, dtype=np.uint8)
    counts = np.zeros((m, players, 3), dtype=np.int64)
    in_fl = np.zeros((m, players), dtype=bool)
    own = np.full((m, MAX_DEALT + 13), NO_CARD, dtype=np.uint8)
    me = np.empty(m, dtype=np.int64)
    dealt = np.full((m, width), NO_CARD, dtype=np.uint8)
    played = np.full((m, width), DISCARD, dtype=np.int64)
    _fill(
        hands.hand_start, hands.fantasyland, hands.place_start, hands.street, hands.card, hands.row, hands.hand_of,
        board, street, np.array(ROW_STARTS, dtype=np.int64), boards, counts, in_fl, own, me, dealt, played,
    )  # fmt: skip
    return Positions(boards, counts, in_fl, own, me, dealt, played)


def action_index(played: np.ndarray, dealt: int, discards: int) -> np.ndarray:
    """(m,) the index in :func:`~pipeline.simulate.streets.actions` of each move (m, k) of rows."""
    table = actions(dealt, discards).rows.astype(np.int64)
    base = 4 ** np.arange(dealt)
    codes = table @ base
    order = np.argsort(codes)
    found = np.searchsorted(codes[order], played @ base)
    return order[np.minimum(found, order.size - 1)]


def row_letters(rows: np.ndarray) -> np.ndarray:
    """(m,) each move (m, k) of rows as one letter per card: ``tmx`` (4: no card, no letter)."""
    letters = np.ascontiguousarray(LETTERS[rows].astype("<U1"))
    return letters.view(f"<U{rows.shape[1]}").ravel()
