"""The dealer: whole sessions at many tables side by side, hand after hand, street by street.

A block of tables plays its sessions in lockstep: every step (a deal, a
street, one position in table order) is an array operation over all tables,
and bots decide for all the tables where one of their seats is to act. Within
a session the state carries from hand to hand as the rule set says:

- the button moves one seat after every hand, except onto a hand in which
  someone is in Fantasyland (unless ``game.button_moves_in_fantasyland``);
- the scorer's ``fantasyland_next`` of a board (entry, stay, exclusivity,
  progressive card counts) is that seat's Fantasyland hand next time: its
  cards are dealt at once and set face down (hidden from the others) before
  the others play their streets;
- classic with two players deals four hands of 13 every other hand: each
  player plays one and keeps the other for the next deal.

Players act in table order from the left of the button; each sees every open
board as it stands, including this street's earlier placements. The street
of each card and where it went are kept, so records carry the full
placements and discards.

Every step of a round is a checkpoint of the run's
:class:`~pipeline.simulate.pace.Pace` (its progress, and where it stops when
asked to); a slow bot checks it within its steps too.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np
from numba import njit

from ofc.pipeline.cards import NO_CARD
from ofc.pipeline.game import BOARD, seat_at
from ofc.pipeline.score.engine import Boards, score
from ofc.pipeline.simulate.bots import BOTS, Bot
from ofc.pipeline.simulate.costs import SCORE_US
from ofc.pipeline.simulate.pace import Pace, Tick, span
from ofc.pipeline.simulate.played_hands import HandBatch
from ofc.pipeline.simulate.streets import DISCARD, ROW_STARTS, actions
from ofc.pipeline.simulate.threads import threads_for
from ofc.pipeline.simulate.views import ClassicChoice, Context, StreetView
from ofc.schemas.rules import Dealing

ROW_OF_SLOT = np.repeat(np.arange(3), [3, 5, 5]).astype(np.uint8)
"""Row of each of a board's 13 slots."""
FULL_ROWS = np.array([3, 5, 5], dtype=np.int64)


def shuffled(n: int, k: int, rng: np.random.Generator) -> np.ndarray:
    """The first ``k`` cards of ``n`` shuffled decks, (n, k) uint8.

    A whole shuffle per table: when most of the deck is dealt it is cheaper than sampling card by card.
    """
    return rng.permuted(np.broadcast_to(np.arange(52, dtype=np.uint8), (n, 52)), axis=1)[:, :k]


def rows_of(dealt: np.ndarray, board: np.ndarray) -> np.ndarray:
    """Where each dealt card (m, C) went on ``board`` (m, 13): 0..2, 3 if not on the board, 255 if no card."""
    m = dealt.shape[0]
    lut = np.full((m, 256), DISCARD, dtype=np.uint8)
    lut[np.arange(m)[:, None], board] = ROW_OF_SLOT[None, :]
    lut[:, NO_CARD] = NO_CARD
    return lut[np.arange(m)[:, None], dealt]


@dataclass
class _Hand:
    """One hand at every table of the block, being played."""

    dealt: np.ndarray
    row: np.ndarray
    street: np.ndarray
    n_dealt: np.ndarray
    boards: np.ndarray
    counts: np.ndarray
    in_fl: np.ndarray
    fl_cards: np.ndarray
    surrendered: np.ndarray
    natural: np.ndarray


@njit(cache=True, nogil=True)
def _place(
    rows: np.ndarray, cards: np.ndarray, t: np.ndarray, me: np.ndarray, boards: np.ndarray, counts: np.ndarray
) -> None:
    """Put each table's street cards on the rows its player chose (``rows[i, j]``; 3 or more: discarded), after
    the cards already there, in dealing order: one pass, not a round of array indexing per card."""
    for i in range(rows.shape[0]):
        for j in range(rows.shape[1]):
            r = rows[i, j]
            if r < 3:
                boards[t[i], me[i], ROW_STARTS[r] + counts[t[i], me[i], r]] = cards[i, j]
                counts[t[i], me[i], r] += 1


class Dealer:
    """Plays sessions for one run: its rules, table size and one bot per seat."""

    def __init__(self, ctx: Context, seat_bots: list[str]) -> None:
        names = list(dict.fromkeys(seat_bots))
        self.ctx = ctx
        self.bots: list[Bot] = [BOTS[n](ctx) for n in names]
        self.of_seat = np.array([names.index(n) for n in seat_bots], dtype=np.int64)
        self.classic = ctx.rules.game.dealing is Dealing.CLASSIC

    def prepare(self, pace: Pace) -> None:
        """Let each bot build what it needs before the first hand, reporting to ``pace`` as it goes."""
        for bot in self.bots:
            bot.prepare(pace.stage(f"setting up the {bot.name} bot"))
        pace.end_stage()

    def sessions(
        self,
        session: np.ndarray,
        lengths: np.ndarray,
        rng: np.random.Generator,
        chunk_hands: int,
        pace: Pace | None = None,
    ) -> Iterator[HandBatch]:
        """Play the sessions numbered ``session`` (of ``lengths`` hands) side by side.

        Yields about ``chunk_hands`` hands at a time, session by session within a chunk; reports to
        ``pace`` (and stops when it says so) round by round and step by step.
        """
        pace = pace or Pace()
        tables = session.shape[0]
        players = self.ctx.players
        button = rng.integers(0, players, size=tables).astype(np.int64)
        fl_next = np.zeros((tables, players), dtype=np.int64)
        kept: np.ndarray | None = None
        per_chunk = max(1, chunk_hands // max(tables, 1))
        pending: list[HandBatch] = []
        rounds = int(lengths.max()) if tables else 0
        for h in range(rounds):
            tick = pace.round(int(np.count_nonzero(lengths > h)))
            if self.classic:
                hand, kept = self._classic(h, kept, rng, tables, tick)
            else:
                hand = self._open_face(button, fl_next, rng, tick)
            batch, fl_next = self._score(hand, session, h + 1, button)
            pace.finish_round()
            pending.append(batch)
            moves = ~(fl_next > 0).any(axis=1) | self.ctx.rules.game.button_moves_in_fantasyland
            button = np.where(moves, (button + 1) % players, button)
            if len(pending) == per_chunk or h == rounds - 1:
                yield _session_major(pending, lengths)
                pending = []

    # ------------------------------------------------------------------ open face

    def _open_face(self, button: np.ndarray, fl_cards: np.ndarray, rng: np.random.Generator, tick: Tick) -> _Hand:
        s = self.ctx.streets
        tables, players = fl_cards.shape
        width = s.cards
        in_fl = fl_cards > 0
        deck = shuffled(tables, players * width, rng).reshape(tables, players, width)
        n_dealt = np.where(in_fl, fl_cards, width)
        valid = np.arange(width)[None, None, :] < n_dealt[:, :, None]
        street = np.where(in_fl[:, :, None], 1, s.street_of_card[None, None, :])
        hand = _Hand(
            dealt=np.where(valid, deck, NO_CARD).astype(np.uint8),
            row=np.full((tables, players, width), NO_CARD, dtype=np.uint8),
            street=np.where(valid, street, 0).astype(np.uint8),
            n_dealt=n_dealt,
            boards=np.full((tables, players, BOARD), NO_CARD, dtype=np.uint8),
            counts=np.zeros((tables, players, 3), dtype=np.int64),
            in_fl=in_fl,
            fl_cards=fl_cards,
            surrendered=np.zeros((tables, players), dtype=bool),
            natural=np.full((tables, players), -1, dtype=np.int8),
        )
        steps = 1 + s.streets * players  # the Fantasyland hands, then each street and position
        self._fantasyland(hand, rng, span(tick, 0.0, 1.0 / steps))
        for st in range(s.streets):
            for pos in range(players):
                seat = seat_at(button, pos, players)
                step = span(tick, (1 + st * players + pos) / steps, (2 + st * players + pos) / steps)
                for b, bot in enumerate(self.bots):
                    part = _part(step, b, len(self.bots))
                    t = np.flatnonzero(~in_fl[np.arange(tables), seat] & (self.of_seat[seat] == b))
                    if t.size:
                        self._street(bot, hand, st, t, seat[t], rng, part)
        return hand

    def _fantasyland(self, hand: _Hand, rng: np.random.Generator, tick: Tick) -> None:
        """Fantasyland hands are set at once, before anyone plays a street."""
        t_all, p_all = np.nonzero(hand.in_fl)
        for b, bot in enumerate(self.bots):
            part = _part(tick, b, len(self.bots))
            pick = self.of_seat[p_all] == b
            if not pick.any():
                continue
            t, p = t_all[pick], p_all[pick]
            cards = hand.dealt[t, p]
            rows, _ = bot.fantasyland(np.ascontiguousarray(cards), rng, part)
            hand.boards[t, p] = rows
            hand.counts[t, p] = FULL_ROWS
            hand.row[t, p] = rows_of(cards, rows)

    def _street(
        self, bot: Bot, hand: _Hand, st: int, t: np.ndarray, me: np.ndarray, rng: np.random.Generator, tick: Tick
    ) -> None:
        s = self.ctx.streets
        k = s.dealt[st]
        lo = int(s.first_card[st])
        act = actions(k, s.discarded[st])
        cards = np.ascontiguousarray(hand.dealt[t, me, lo : lo + k])
        own = hand.dealt[t, me, : lo + k]
        view = StreetView(st, hand.boards, hand.counts, hand.in_fl, own, t, me, cards, rng, tick)
        rows = act.rows[bot.place(view)]
        hand.row[t, me, lo : lo + k] = rows
        _place(np.ascontiguousarray(rows), cards, t, me, hand.boards, hand.counts)

    # ------------------------------------------------------------------ classic

    def _classic(
        self, h: int, kept: np.ndarray | None, rng: np.random.Generator, tables: int, tick: Tick
    ) -> tuple[_Hand, np.ndarray | None]:
        players = self.ctx.players
        if players == 2:
            if h % 2 == 0 or kept is None:
                four = shuffled(tables, 52, rng).reshape(tables, 4, 13)
                dealt, kept = four[:, :2].copy(), four[:, 2:].copy()
            else:
                dealt, kept = kept, None
        else:
            dealt = shuffled(tables, 13 * players, rng).reshape(tables, players, 13)
        boards = np.empty_like(dealt)
        natural = np.full((tables, players), -1, dtype=np.int8)
        surrendered = np.zeros((tables, players), dtype=bool)
        for b, bot in enumerate(self.bots):
            part = _part(tick, b, len(self.bots))
            seats = np.flatnonzero(self.of_seat == b)
            if not seats.size:
                continue
            cards = dealt[:, seats].reshape(-1, 13)
            choice: ClassicChoice = bot.classic(np.ascontiguousarray(cards), rng, part)
            boards[:, seats] = choice.cards.reshape(tables, seats.size, 13)
            natural[:, seats] = choice.natural.reshape(tables, seats.size)
            surrendered[:, seats] = choice.surrender.reshape(tables, seats.size)
        flat = dealt.reshape(-1, 13)
        hand = _Hand(
            dealt=dealt,
            row=rows_of(flat, boards.reshape(-1, 13)).reshape(dealt.shape),
            street=np.ones_like(dealt),
            n_dealt=np.full((tables, players), 13, dtype=np.int64),
            boards=boards,
            counts=np.broadcast_to(FULL_ROWS, (tables, players, 3)).copy(),
            in_fl=np.zeros((tables, players), dtype=bool),
            fl_cards=np.zeros((tables, players), dtype=np.int64),
            surrendered=surrendered,
            natural=natural,
        )
        return hand, kept

    # ------------------------------------------------------------------ results

    def _score(self, hand: _Hand, session: np.ndarray, number: int, button: np.ndarray) -> tuple[HandBatch, np.ndarray]:
        """The hand's results under the rule set, and each seat's Fantasyland card count for the next hand."""
        tables, players = hand.in_fl.shape
        table = Boards.build(
            hand=np.repeat(np.arange(tables), players),
            seat=np.tile(np.arange(players), tables),
            cards=hand.boards.reshape(-1, BOARD),
            button=np.repeat(button, players),
            in_fantasyland=hand.in_fl.ravel(),
            surrendered=hand.surrendered.ravel(),
            natural=hand.natural.ravel(),
        )
        with threads_for(len(table.hand) * SCORE_US):
            result = score(table, self.ctx.compiled)
        facts = result.boards
        shape = (tables, players)
        batch = HandBatch(
            session=session.copy(),
            hand_number=np.full(tables, number, dtype=np.int64),
            button=button.copy(),
            cards=hand.boards,
            dealt=hand.dealt,
            row=hand.row,
            street=hand.street,
            n_dealt=hand.n_dealt,
            fantasyland=hand.in_fl,
            fantasyland_cards=hand.fl_cards,
            surrendered=hand.surrendered,
            natural=hand.natural,
            points=result.net.reshape(shape),
            fouled=facts.fouled.reshape(shape),
            fantasyland_entry=facts.fantasyland_entry.reshape(shape),
            fantasyland_stay=facts.fantasyland_stay.reshape(shape),
        )
        return batch, facts.fantasyland_next.reshape(shape)


def _part(tick: Tick, i: int, n: int) -> Tick:
    """The checkpoint of the ``i``-th of ``n`` equal parts of a step, checked as the part begins."""
    part = span(tick, i / n, (i + 1) / n)
    part(0.0)
    return part


def _session_major(rounds: list[HandBatch], lengths: np.ndarray) -> HandBatch:
    """Hands of consecutive rounds, reordered session by session, without hands past a session's end."""
    n_rounds, tables = len(rounds), rounds[0].hands
    order = np.arange(n_rounds * tables).reshape(n_rounds, tables).T.ravel()
    table_of = np.repeat(np.arange(tables), n_rounds)
    batch = HandBatch.concat(rounds)
    keep = batch.hand_number[order] <= lengths[table_of]
    return batch.take(order[keep])
