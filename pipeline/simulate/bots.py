"""The strategies a seat can play: ``random``, ``heuristic``, ``planner`` and ``mc``, each deciding for many tables.

Every decision is a batch: the dealer hands a bot the ``m`` tables where one
of its seats is to act, and gets back one answer per table.

- ``random``: any legal placement of a street, uniformly; a Fantasyland hand
  is 13 of its cards set at random and a classic hand its 13 cards set at
  random (fouls allowed, nothing declared, never a surrender).
- ``heuristic``: fast rules (``pipeline.simulate.heuristic_kernels``): a few
  features per row (what it has made, what it may become, its royalty) and a
  cheap score per placement that keeps the rows in order, builds toward
  royalties and Fantasyland only when the rows below are already strong
  enough, and discards the card that helps least (dead cards count against
  a draw). About a microsecond a decision, so it simulates as fast as the
  lake takes hands. Fantasyland hands set by ``arrange_fantasyland``; a
  classic hand set quickly (the best five at the bottom, the best five of
  the rest in the middle), declaring any natural the rules pay, never
  surrendering.
- ``planner``: the placement an expected-value model of the board rates best
  (``pipeline.simulate.planner_kernels``: every row's outcome distribution, taken
  jointly); tens of microseconds a decision, fewer fouls and more points
  than ``heuristic``. Fantasyland and classic hands as ``heuristic``.
- ``mc``: Monte-Carlo rollouts of the placements the planner rates best;
  Fantasyland hands by ``arrange_fantasyland``; classic hands by
  ``arrange_classic`` (all 72,072 settings), with naturals, and surrender when
  the rules allow it and the best setting is expected to lose more than the
  surrender costs.

``mc`` on a street: the planner ranks every legal placement and the best
``candidates`` of them within ``margin`` points of the best (all of them when
fewer) are each completed ``rollouts`` times: the unseen cards are shuffled,
this player's later streets and every other open board (an opponent who has
not acted on this street yet included) are played out with the planner,
and the completed boards are scored with the scoring engine under the rule
set. A placement's worth is its mean net points, plus the worth of the
Fantasyland the board earns (:class:`~pipeline.simulate.model.Weights`) for
each opponent; an opponent in Fantasyland, whose cards are hidden, counts as
a board that wins as often as it loses: a foul pays it the scoop, a valid
board collects its royalties. Rollouts of a decision share their cards across
placements (common random numbers), which makes the comparison sharper than
the rollout count alone suggests. The planner is the completion policy
because random completions foul most boards and would teach ``mc`` to fear
every draw; the rollouts play it with bolder weights (:data:`MC_POLICY`) so
that they explore the lines to Fantasyland, which the exact scoring of their
outcomes then judges. With the defaults, ``mc`` fouls about a fifth of normal
three-handed Pineapple hands and reaches Fantasyland in more than one in ten.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from itertools import combinations
from typing import ClassVar

import numpy as np

from ofc.pipeline.cards import NO_CARD
from ofc.pipeline.game import Deal
from ofc.pipeline.rules.compile import NATURALS, CompiledRules
from ofc.pipeline.score.engine import Boards, score
from ofc.pipeline.score.naturals import natural_kinds
from ofc.pipeline.simulate import heuristic_kernels, planner_kernels
from ofc.pipeline.simulate.arrange import arrange_classic, arrange_fantasyland, classic_model
from ofc.pipeline.simulate.costs import (
    ARRANGE_PARALLEL_US,
    ARRANGE_US,
    CLASSIC_US,
    HEURISTIC_PARALLEL_US,
    SCORE_US,
    SECONDS_PER_US,
    heuristic_us,
    street_us,
)
from ofc.pipeline.simulate.model import PlannerModel, Weights
from ofc.pipeline.simulate.pace import Portions, Tick, idle, in_portions, span
from ofc.pipeline.simulate.streets import Actions, actions
from ofc.pipeline.simulate.threads import threads_for
from ofc.pipeline.simulate.views import ClassicChoice, Context, Rollouts, StreetView
from ofc.schemas.rules import Dealing

MC_POLICY = Weights(foul_cost=3.0, fantasyland=(30.0, 36.0, 42.0, 48.0, 54.0))
"""The planner weights ``mc`` ranks placements and plays its rollouts with: bolder than the ``planner`` bot
(it fears a foul less and wants Fantasyland more), so rollouts explore the lines to Fantasyland that
the exact scoring of their outcome then judges."""
MC_GROUP = 256
"""Tables whose rollouts are scored together at most (bounds memory: group x candidates x rollouts hands); fewer
when they would take longer than a portion (:class:`~pipeline.simulate.pace.Portions`)."""
MC_RANKING = 0.2
"""The share of an ``mc`` decision its planner's ranking is counted as in progress reports (the rollouts the rest)."""
_COMB13 = np.array(list(combinations(range(13), 5)), dtype=np.int64)
_COMB8 = np.array(list(combinations(range(8), 5)), dtype=np.int64)


class Bot(ABC):
    """A strategy: one decision for many tables at once."""

    name: ClassVar[str]

    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx
        self.arranging = Portions(SECONDS_PER_US)
        """Hands the arrangers set at a time (in microseconds of :data:`ARRANGE_US` each)."""

    def prepare(self, tick: Tick) -> None:  # noqa: B027 (most bots need nothing)
        """Build what the bot needs before the first hand, when that takes long enough to be shown (``tick``
        after each part, with the share done); otherwise nothing."""

    def street_actions(self, street: int) -> Actions:
        s = self.ctx.streets
        return actions(s.dealt[street], s.discarded[street])

    @abstractmethod
    def place(self, view: StreetView) -> np.ndarray:
        """(m,) index of the chosen action in :func:`street_actions` for each table."""

    def fantasyland(
        self, cards: np.ndarray, rng: np.random.Generator, tick: Tick = idle
    ) -> tuple[np.ndarray, np.ndarray]:
        """Set Fantasyland hands: ``cards`` (m, k) padded with 255 -> rows (m, 13), discards (m, k - 13) padded.

        The arranger sets each hand on its own, so it runs in portions (``tick`` after each): the same boards.
        """

        def arrange(part: slice) -> tuple[np.ndarray, np.ndarray]:
            with threads_for((part.stop - part.start) * ARRANGE_US, ARRANGE_PARALLEL_US):
                return arrange_fantasyland(cards[part], self.ctx.rules)

        parts = in_portions(cards.shape[0], ARRANGE_US, self.arranging, tick, arrange)
        if len(parts) == 1:
            return parts[0]
        return np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts])

    @abstractmethod
    def classic(self, cards: np.ndarray, rng: np.random.Generator, tick: Tick = idle) -> ClassicChoice:
        """Set classic hands: ``cards`` (m, 13) -> how each was set, declared and whether it surrenders."""


def _random_order(valid: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Per row, the positions of ``valid`` entries in random order, then the others."""
    keys = rng.random(valid.shape)
    keys[~valid] = 2.0
    return np.argsort(keys, axis=1, kind="stable")


class RandomBot(Bot):
    name = "random"

    def place(self, view: StreetView) -> np.ndarray:
        _, counts = view.own()
        out = np.empty(view.tables, dtype=np.int64)
        seed = view.rng.integers(0, 1 << 63, dtype=np.uint64)
        planner_kernels.random_choice(counts, self.street_actions(view.street).adds, seed, out)
        return out

    def fantasyland(
        self, cards: np.ndarray, rng: np.random.Generator, tick: Tick = idle
    ) -> tuple[np.ndarray, np.ndarray]:
        order = _random_order(cards != NO_CARD, rng)
        shuffled = np.take_along_axis(cards, order, axis=1)
        return shuffled[:, :13].copy(), shuffled[:, 13:].copy()

    def classic(self, cards: np.ndarray, rng: np.random.Generator, tick: Tick = idle) -> ClassicChoice:
        m = cards.shape[0]
        return ClassicChoice(
            cards=rng.permuted(cards, axis=1),
            natural=np.full(m, -1, dtype=np.int8),
            surrender=np.zeros(m, dtype=bool),
        )


class QuickClassicBot(Bot):
    """A bot that sets classic hands quickly: the best five at the bottom, the best five of the rest in the
    middle, any natural the rules pay declared, never a surrender."""

    def classic(self, cards: np.ndarray, rng: np.random.Generator, tick: Tick = idle) -> ClassicChoice:
        m = cards.shape[0]
        out = np.empty((m, 13), dtype=np.uint8)
        with threads_for(m * CLASSIC_US):
            planner_kernels.greedy_classic(np.ascontiguousarray(cards), _COMB13, _COMB8, self.ctx.model.args(), out)
        return ClassicChoice(cards=out, natural=declarable(cards, self.ctx.compiled), surrender=np.zeros(m, bool))


_PLANNER_PER_TABLE = (0, 1, 2, 5, 6)
"""The planner kernels' arguments with a row per table (the others are the street's and the model's)."""


def _planner_inputs(view: StreetView, streets: Deal, model: PlannerModel) -> tuple:
    """The planner kernels' arguments for this street, up to the output array."""
    board, counts = view.own()
    act = actions(streets.dealt[view.street], streets.discarded[view.street])
    return (
        board,
        counts,
        np.ascontiguousarray(view.dealt),
        act.masks,
        streets.dealt[view.street] - streets.discarded[view.street],
        view.live,
        view.unseen,
        streets.future_cards(view.street + 1),
        streets.open_slots(view.street + 1),
        model.args(),
    )


class HeuristicBot(QuickClassicBot):
    name = "heuristic"

    def _inputs(self, view: StreetView) -> tuple:
        """The heuristic kernels' arguments for this street, up to the output array (they find what the
        player has seen from the dealer's arrays themselves, table by table)."""
        board, counts = view.own()
        s = self.ctx.streets
        act = actions(s.dealt[view.street], s.discarded[view.street])
        future = s.future_cards(view.street + 1)
        return (
            board,
            counts,
            np.ascontiguousarray(view.dealt),
            *view.table_arrays(),
            act.masks,
            s.dealt[view.street] - s.discarded[view.street],
            future,
            heuristic_kernels.per_open(future, s.open_slots(view.street + 1), heuristic_kernels.PARAMS),
            self.ctx.model.args(),
            heuristic_kernels.PARAMS,
        )

    def values(self, view: StreetView) -> np.ndarray:
        """(m, A) the heuristic's worth of every action (-inf where it does not fit or is not weighed)."""
        args = self._inputs(view)
        out = np.empty((view.tables, args[7].shape[0]))
        heuristic_kernels.heuristic_values(*args, out)
        return out

    def place(self, view: StreetView) -> np.ndarray:
        out = np.empty(view.tables, dtype=np.int64)
        with threads_for(view.tables * heuristic_us(view.dealt.shape[1]), HEURISTIC_PARALLEL_US):
            heuristic_kernels.heuristic_choice(*self._inputs(view), out)
        return out


class PlannerBot(QuickClassicBot):
    name = "planner"

    def __init__(self, ctx: Context) -> None:
        super().__init__(ctx)
        self.planning = Portions(SECONDS_PER_US)
        """Tables the planner weighs at a time (in microseconds of :func:`_street_us` each)."""

    @property
    def policy(self) -> PlannerModel:
        return self.ctx.model

    def values(self, view: StreetView, tick: Tick | None = None) -> np.ndarray:
        """(m, A) the planner's value of every action (-inf where it does not fit)."""
        args = _planner_inputs(view, self.ctx.streets, self.policy)
        out = np.empty((view.tables, args[3].shape[0]))
        self._weigh(view, planner_kernels.planner_values, args, out, tick or view.tick)
        return out

    def place(self, view: StreetView) -> np.ndarray:
        out = np.empty(view.tables, dtype=np.int64)
        args = _planner_inputs(view, self.ctx.streets, self.policy)
        self._weigh(view, planner_kernels.planner_choice, args, out, view.tick)
        return out

    def _weigh(self, view: StreetView, kernel: Callable, args: tuple, out: np.ndarray, tick: Tick) -> None:
        """``kernel(*args, out)`` a portion of the tables at a time: each table is weighed on its own."""
        unit = street_us(view.dealt.shape[1])

        def weigh(rows: slice) -> None:
            part = tuple(a[rows] if i in _PLANNER_PER_TABLE else a for i, a in enumerate(args))
            with threads_for((rows.stop - rows.start) * unit):
                kernel(*part, out[rows])

        in_portions(view.tables, unit, self.planning, tick, weigh)


def declarable(cards: np.ndarray, compiled: CompiledRules) -> np.ndarray:
    """(m,) int8: the most valuable natural the rules pay that each hand makes (-1: none, or naturals off)."""
    m = cards.shape[0]
    if not compiled.rules.naturals.enabled or m == 0:
        return np.full(m, -1, dtype=np.int8)
    made = natural_kinds(cards) & (compiled.natural_value >= 0)[None, :]
    worth = np.where(made, compiled.natural_value[None, :], -1)
    best = np.argmax(worth, axis=1)  # ties: the earlier (stronger) kind
    return np.where(made.any(axis=1), best, -1).astype(np.int8)


class MonteCarloBot(PlannerBot):
    name = "mc"

    def __init__(self, ctx: Context) -> None:
        super().__init__(ctx)
        self.rolling = Portions(SECONDS_PER_US, most=MC_GROUP)
        """Tables rolled out at a time (in microseconds of :func:`_rollout_us` each)."""

    def prepare(self, tick: Tick) -> None:
        """The classic arranger's model of the field: seconds to build, once per process and rule set."""
        if self.ctx.rules.game.dealing is Dealing.CLASSIC:
            classic_model(self.ctx.rules, tick)

    @property
    def policy(self) -> PlannerModel:
        return self.ctx.policy or self.ctx.model

    def place(self, view: StreetView) -> np.ndarray:
        values = self.values(view, span(view.tick, 0.0, MC_RANKING))
        k = min(self.ctx.candidates, values.shape[1])
        order = np.argsort(-values, axis=1, kind="stable")[:, :k]
        ranked = np.take_along_axis(values, order, axis=1)
        close = (ranked > -np.inf) & (ranked >= ranked[:, :1] - self.ctx.margin)
        candidates = np.where(close, order, -1)
        out = order[:, 0].copy()
        if self.ctx.rollouts == 0:
            return out
        seeds = view.rng.integers(0, 1 << 63, size=view.tables, dtype=np.uint64)
        contested = np.flatnonzero(close[:, 1:].any(axis=1)) if k > 1 else np.zeros(0, dtype=np.int64)
        if not contested.size:
            return out

        def roll(group: slice) -> None:
            # Each table's rollouts draw from its own seed: the same choices whatever the groups.
            part = contested[group]
            worth = self._worth(view, part, candidates[part], seeds[part])
            out[part] = np.take_along_axis(candidates[part], np.argmax(worth, axis=1)[:, None], axis=1)[:, 0]

        tick = span(view.tick, MC_RANKING, 1.0)
        in_portions(contested.size, self._rollout_us(view.street, k), self.rolling, tick, roll)
        return out

    def _rollout_us(self, street: int, candidates: int) -> float:
        """Estimated microseconds of one table's rollouts from ``street`` (0-based) with ``candidates``."""
        return candidates * self.ctx.rollouts * (self.ctx.streets.streets - street) * street_us(3)

    def _worth(self, view: StreetView, part: np.ndarray, candidates: np.ndarray, seeds: np.ndarray) -> np.ndarray:
        """(g, K) mean worth of each candidate over the rollouts (-inf for none)."""
        worth = self.rollout_worths(view, part, candidates, seeds).mean(axis=2)
        return np.where(candidates >= 0, worth, -np.inf)

    def rollout_worths(
        self,
        view: StreetView,
        part: np.ndarray,
        candidates: np.ndarray,
        seeds: np.ndarray,
        *,
        fixed: np.ndarray | None = None,
        share: int = 1,
    ) -> np.ndarray:
        """(g, K, R) worth of each candidate in each rollout (0 for none): net points plus the worth of the
        Fantasyland the board earns against each opponent. The rollouts of a table share their cards across its
        candidates, so differences between candidates are paired.

        ``fixed`` (g, K, 13): complete boards to weigh instead of placements of this street (a Fantasyland
        setting): only the other boards are played out, and this player's board is scored as a Fantasyland one.
        """
        outcomes = self.rollout_outcomes(view, part, candidates, seeds, fixed=fixed, share=share)
        return self.worths(outcomes, candidates, view.boards.shape[1])

    def worths(self, outcomes: Rollouts, candidates: np.ndarray, players: int) -> np.ndarray:
        """(g, K, R) worth of each outcome of :meth:`rollout_outcomes` at a table of ``players`` (0 for no
        candidate): the net points plus the worth of the Fantasyland earned against each opponent."""
        worth = outcomes.points + self.ctx.model.fantasyland_value[outcomes.following] * (players - 1)
        return np.where(candidates[:, :, None] >= 0, worth, 0.0)

    def rollout_outcomes(
        self,
        view: StreetView,
        part: np.ndarray,
        candidates: np.ndarray,
        seeds: np.ndarray,
        *,
        fixed: np.ndarray | None = None,
        share: int = 1,
    ) -> Rollouts:
        """The rollouts of :meth:`rollout_worths`, each as it ended for this player; the other boards played out
        once every ``share`` rollouts (``planner_kernels.rollouts``)."""
        ctx = self.ctx
        s = ctx.streets
        boards = np.ascontiguousarray(view.boards[part])
        counts = np.ascontiguousarray(view.counts[part])
        me = view.me[part]
        active = np.ascontiguousarray(view.active[part])
        g, players = active.shape
        n_cand = candidates.shape[1]
        valid = candidates >= 0
        played_out = candidates
        if fixed is not None:
            active[np.arange(g), me] = True  # set face down, but scored
            played_out = np.full((g, 1), -1, dtype=np.int64)
        out_me = np.empty((g, n_cand, ctx.rollouts, 13), dtype=np.uint8)
        out_others = np.full((g, ctx.rollouts, players, 13), NO_CARD, dtype=np.uint8)
        first = actions(s.dealt[0], s.discarded[0])
        later = actions(s.dealt[-1], s.discarded[-1])
        dealt = np.array(s.dealt, dtype=np.int64)
        placed_after = np.cumsum(dealt - np.array(s.discarded, dtype=np.int64))
        work = g * (played_out.shape[1] + players) * ctx.rollouts * (s.streets - view.street) * street_us(3)
        args = (
            boards,
            counts,
            me,
            active,
            np.ascontiguousarray(view.dealt[part]),
            np.ascontiguousarray(played_out),
            view.street,
            dealt,
            np.array(s.discarded, dtype=np.int64),
            placed_after,
            (first.rows, first.masks),
            (later.rows, later.masks),
            view.known[part],
            np.ascontiguousarray(view.live[part]),
            view.unseen[part],
            seeds,
            self.policy.args(),
            1 if fixed is not None else share,  # a fixed board has no cards to deal afresh
        )
        with threads_for(work):
            planner_kernels.rollouts(*args, out_me, out_others)
        if fixed is not None:
            out_me[:] = fixed[:, :, None, :]
        return self.rollout_points(out_me, out_others, active, me, valid, fixed is not None)

    def rollout_points(
        self,
        out_me: np.ndarray,
        out_others: np.ndarray,
        active: np.ndarray,
        me: np.ndarray,
        valid: np.ndarray,
        in_fantasyland: bool = False,
    ) -> Rollouts:
        """How every completed board of this player ended: its net points, hidden opponents included, the cards
        of the Fantasyland it earns and whether it fouled; this player's board is a Fantasyland one with
        ``in_fantasyland``.

        Boards are laid out hand by hand, seats in order, with the last seat as the button, so the
        engine finds them in table order and sorts nothing. An opponent in Fantasyland, whose cards are
        hidden, counts as a board that wins as often as it loses: a foul pays it the scoop, a valid board
        collects its royalties.
        """
        ctx = self.ctx
        g, n_cand, n_roll, _ = out_me.shape
        players = active.shape[1]
        full = np.empty((g, n_cand, n_roll, players, 13), dtype=np.uint8)
        full[:] = out_others[:, None]
        full[np.arange(g), :, :, me] = out_me
        present = active[:, None, None, :] & valid[:, :, None, None]
        present = np.broadcast_to(present, full.shape[:4])
        slot = (np.cumsum(present.ravel()) - 1).reshape(full.shape[:4])
        mine = slot[np.arange(g), :, :, me]
        mine = np.where(valid[:, :, None], mine, 0).ravel()
        hands = np.broadcast_to(np.arange(g * n_cand * n_roll).reshape(g, n_cand, n_roll, 1), present.shape)
        seats = np.broadcast_to(np.arange(players), present.shape)
        flagged = None
        if in_fantasyland:
            flagged = np.broadcast_to(seats == me[:, None, None, None], present.shape)[present]
        table = Boards.build(
            hand=hands[present],
            seat=seats[present],
            cards=full[present],
            button=np.full(int(present.sum()), players - 1),
            in_fantasyland=flagged,
        )
        with threads_for(len(table.hand) * SCORE_US):
            result = score(table, ctx.compiled)
        facts = result.boards
        points = result.net[mine].astype(np.float64)
        hidden = np.repeat(players - active.sum(axis=1), n_cand * n_roll).astype(np.float64)
        royalties = facts.royalties[mine].sum(axis=1)
        fouled = facts.fouled[mine]
        points += hidden * np.where(fouled, -ctx.compiled.scoop_amount, royalties)
        shape = (g, n_cand, n_roll)
        return Rollouts(
            points.reshape(shape),
            facts.fantasyland_next[mine].astype(np.int64).reshape(shape),
            fouled.reshape(shape) & valid[:, :, None],
        )

    def classic(self, cards: np.ndarray, rng: np.random.Generator, tick: Tick = idle) -> ClassicChoice:
        """Every hand set on its own by the arranger, in portions (``tick`` after each): the same settings."""
        rules = self.ctx.rules
        below = -float(rules.surrender.cost) if rules.surrender.allowed else None

        def arrange(part: slice) -> ClassicChoice:
            hands = np.ascontiguousarray(cards[part])
            with threads_for(hands.shape[0] * ARRANGE_US, ARRANGE_PARALLEL_US):
                chosen = arrange_classic(hands, rules, surrender_below=below)
            natural = np.full(hands.shape[0], -1, dtype=np.int8)
            for i, kind in enumerate(NATURALS):
                natural[np.asarray(chosen.natural == kind, dtype=bool)] = i
            return ClassicChoice(cards=chosen.cards, natural=natural, surrender=np.asarray(chosen.surrender, bool))

        parts = in_portions(cards.shape[0], ARRANGE_US, self.arranging, tick, arrange)
        if len(parts) == 1:
            return parts[0]
        return ClassicChoice(
            cards=np.concatenate([p.cards for p in parts]),
            natural=np.concatenate([p.natural for p in parts]),
            surrender=np.concatenate([p.surrender for p in parts]),
        )


BOTS: dict[str, type[Bot]] = {b.name: b for b in (RandomBot, HeuristicBot, PlannerBot, MonteCarloBot)}
"""Every strategy by its name on the command line."""
