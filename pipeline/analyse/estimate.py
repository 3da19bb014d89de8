"""The expected points of the moves open at a decision, by paired Monte-Carlo rollouts.

At a street, the moves weighed are the one played and the ``moves`` the planner rates best; at a Fantasyland
setting, the one played and the Fantasyland arranger's settings (aiming at the most royalties plus the worth
of staying, and at royalties alone). A move is played out as the ``mc`` bot plays out its candidates: the
cards the player had not seen dealt at random, the rest of the hand played by the planner for every seat,
the boards scored by the engine under the hand's rules, plus the worth of the Fantasyland the board earns.
Every move of a decision is played out on the same cards (common random numbers), so the difference between
two moves is measured far more precisely than either's expectation.

Two stages. A screening round plays every move out a few times and names the strongest rival of the move
played; then the move played and that rival alone are compared on fresh cards, a round at a time, until the
standard error of their difference is small enough or the decision has had its share of work. The fresh
cards keep the screening's luck out of the estimate; the loss is the rival's mean less the move played's when
the rival is better, else 0. The same paired rollouts tell how often each of the two boards fouled: how much
the move played raised the chance of a foul over the best move found.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import cache

import numpy as np

from ofc.pipeline.analyse.positions import Positions, action_index
from ofc.pipeline.cards import NO_CARD
from ofc.pipeline.rules.compile import compile_rules
from ofc.pipeline.simulate.arrange import STAY_VALUE, arrange_fantasyland
from ofc.pipeline.simulate.bots import MonteCarloBot
from ofc.pipeline.simulate.model import Weights, model_of
from ofc.pipeline.simulate.streets import actions, streets_of
from ofc.pipeline.simulate.views import Context, StreetView
from ofc.schemas.rules import Dealing, RuleSet

__all__ = ["Duel", "Estimates", "fantasyland_worth", "legal_moves", "weigh_fantasyland", "weigh_move", "weigh_streets"]

SCREEN = 4
"""The screening rolls every move out a quarter as often as the move played and its rival are then compared."""
SE_TARGET = 0.45
"""Standard error of a loss below which a decision is not rolled out further."""
BUDGET = 16
"""Rounds of rollouts a decision whose loss is still uncertain may take, for one street left to play: a round
costs about as much per street left, so a decision with ``k`` streets left gets ``BUDGET // k`` rounds (at least
one): every decision may take about the same work."""


def rounds_for(left: int) -> int:
    """Rounds of rollouts a decision with ``left`` streets of its player's still to play may take."""
    return max(1, BUDGET // max(left, 1))


SHARE = 8
"""Rollouts that share one play-out of the other boards (``kernels.rollouts``): the difference between two moves
of one player turns mostly on that player's own cards."""
GROUP = 512
"""Decisions rolled out together at most (memory: group x moves x rollouts x seats boards)."""
FANTASYLAND_SAMPLE = 1_000
"""Fantasyland hands dealt per card count to estimate what such a hand is worth."""


@dataclass
class Estimates:
    """What rollouts found at ``m`` decisions (filled as the decisions are weighed)."""

    legal: np.ndarray
    """(m,) int64: legal moves (1: the move was forced, and nothing was weighed)."""
    compared: np.ndarray
    """(m,) int64: moves rolled out (the move played among them)."""
    best: np.ndarray
    """(m, k) int64: where the best move puts each card decided on (0 top, 1 middle, 2 bottom, 3 discard)."""
    rollouts: np.ndarray
    """(m,) int64: rollouts of the move played and its rival."""
    ev_played: np.ndarray
    ev_best: np.ndarray
    se: np.ndarray
    foul_played: np.ndarray
    """(m,) float64: the share of those rollouts in which the move played's board fouled."""
    foul_best: np.ndarray
    """(m,) float64: the same of the best move found (the rival when it is better, else the move played)."""

    @classmethod
    def empty(cls, m: int, k: int) -> Estimates:
        return cls(
            np.zeros(m, np.int64), np.zeros(m, np.int64), np.empty((m, k), np.int64), np.zeros(m, np.int64),
            np.zeros(m), np.zeros(m), np.zeros(m), np.zeros(m), np.zeros(m),
        )  # fmt: skip

    def record(self, at: np.ndarray, pair: _Pair) -> None:
        """What the paired rollouts of the move played and its rival found, at ``at``."""
        n = pair.n.astype(np.float64)
        played, rival = pair.played / n, pair.rival / n
        better = pair.better
        self.rollouts[at] = pair.n
        self.ev_played[at] = played
        self.ev_best[at] = np.where(better, rival, played)
        self.se[at] = pair.se()
        self.foul_played[at] = pair.fouls_played / n
        self.foul_best[at] = np.where(better, pair.fouls_rival, pair.fouls_played) / n


def context(rules: RuleSet, players: int, rollouts: int, moves: int, worth: tuple[float, ...]) -> Context:
    """The ``mc`` bot's context for weighing decisions under ``rules``: the planner ranks moves and plays the
    rollouts with its own weights, and a Fantasyland hand is worth ``worth`` (13..17 cards, points per opponent)
    to the planner and to the scoring of rollouts alike."""
    return Context(
        rules=rules,
        compiled=compile_rules(rules),
        model=model_of(rules, Weights(fantasyland=worth)),
        streets=streets_of(rules.game.dealing),
        players=players,
        rollouts=rollouts,
        candidates=moves,
    )


def _view(pos: Positions, street: int, rows: slice) -> StreetView:
    m = pos.me[rows].size
    return StreetView(
        street,
        pos.boards[rows],
        pos.counts[rows],
        pos.in_fantasyland[rows],
        pos.own[rows],
        np.arange(m),
        pos.me[rows],
        pos.dealt[rows],
        np.random.default_rng(0),  # unused: every rollout draws from its decision's seed
    )


@dataclass
class _Pair:
    """Running sums of the paired rollouts of the move played and its rival, per decision."""

    n: np.ndarray
    played: np.ndarray
    rival: np.ndarray
    squares: np.ndarray
    """Sum of the squared differences (rival less played)."""
    fouls_played: np.ndarray
    """Rollouts in which the move played's board fouled."""
    fouls_rival: np.ndarray
    """The same of the rival."""

    @classmethod
    def empty(cls, g: int) -> _Pair:
        whole = np.zeros(g, np.int64)
        return cls(whole, np.zeros(g), np.zeros(g), np.zeros(g), whole.copy(), whole.copy())

    def add(self, at: np.ndarray, worths: np.ndarray, fouled: np.ndarray) -> None:
        """A round of ``worths`` and ``fouled`` (g, 2, R): the move played's rollouts, then the rival's."""
        diff = worths[:, 1] - worths[:, 0]
        self.n[at] += worths.shape[2]
        self.played[at] += worths[:, 0].sum(axis=1)
        self.rival[at] += worths[:, 1].sum(axis=1)
        self.squares[at] += (diff * diff).sum(axis=1)
        fouls = fouled.sum(axis=2)
        self.fouls_played[at] += fouls[:, 0]
        self.fouls_rival[at] += fouls[:, 1]

    @property
    def better(self) -> np.ndarray:
        """Whether the rival's mean is above the move played's: the rival is then the best move found."""
        n = self.n.astype(np.float64)
        return self.rival / n > self.played / n

    def se(self) -> np.ndarray:
        """Standard error of the mean difference."""
        n = np.maximum(self.n, 2).astype(np.float64)
        mean = (self.rival - self.played) / n
        var = np.maximum(self.squares / n - mean * mean, 0.0) * n / (n - 1)
        return np.sqrt(var / n)


def _measure(
    ctx: Context,
    view: StreetView,
    at: np.ndarray,
    candidates: np.ndarray,
    seeds: np.ndarray,
    fixed: np.ndarray | None = None,
    rounds: int = 1,
) -> tuple[np.ndarray, _Pair]:
    """Weigh the decisions ``at`` of ``view``; the move played is column 0 of ``candidates`` (-1: none).

    First every move is rolled out ``ctx.rollouts // SCREEN`` times to find the move played's strongest rival;
    then the move played and that rival alone, ``ctx.rollouts`` times on fresh cards (so that the estimate does
    not favour the rival that was lucky in the screening), and ``ctx.rollouts`` more at a time while the
    standard error of their difference is above ``SE_TARGET``, up to ``rounds`` times as many. Returns the
    rival's column and the sums of the pair's rollouts.
    """
    g = at.size
    rows = np.arange(g)
    screen = replace(ctx, rollouts=max(ctx.rollouts // SCREEN, 4))
    first = MonteCarloBot(screen).rollout_worths(view, at, candidates, seeds, fixed=fixed, share=SHARE)
    mean = np.where(candidates >= 0, first.mean(axis=2), -np.inf)
    mean[:, 0] = -np.inf
    rival = np.argmax(mean, axis=1)
    alone = ~np.isfinite(mean[rows, rival])  # nothing else to weigh: the move played against itself
    pair = np.stack([candidates[:, 0], np.where(alone, candidates[:, 0], candidates[rows, rival])], axis=1)
    pair_fixed = None if fixed is None else np.stack([fixed[:, 0], fixed[rows, rival]], axis=1)
    if pair_fixed is not None:
        pair_fixed[alone, 1] = fixed[alone, 0]
    bot = MonteCarloBot(ctx)
    players = view.boards.shape[1]
    sums = _Pair.empty(g)
    fresh = seeds ^ np.uint64(0x5851F42D4C957F2D)  # other cards than the screening's
    todo = rows
    for again in range(rounds):
        offset = np.uint64(again * ctx.rollouts)
        part = None if pair_fixed is None else pair_fixed[todo]
        got = bot.rollout_outcomes(view, at[todo], pair[todo], fresh[todo] + offset, fixed=part, share=SHARE)
        sums.add(todo, bot.worths(got, pair[todo], players), got.fouled)
        todo = todo[sums.se()[todo] > SE_TARGET]
        if not todo.size:
            break
    return rival, sums


def weigh_streets(ctx: Context, pos: Positions, street: int, seeds: np.ndarray) -> Estimates:
    """Decisions at one street (0-based) of normal boards: the move played against the planner's best."""
    bot = MonteCarloBot(ctx)
    deal = ctx.streets
    k, drop = deal.dealt[street], deal.discarded[street]
    table = actions(k, drop).rows.astype(np.int64)
    played = action_index(pos.played[:, :k], k, drop)
    m = played.size
    out = Estimates.empty(m, k)
    for lo in range(0, m, GROUP):
        rows = slice(lo, min(lo + GROUP, m))
        view = _view(pos, street, rows)
        values = bot.values(view)
        g = values.shape[0]
        out.legal[rows] = np.isfinite(values).sum(axis=1)
        mine = played[rows]
        values[np.arange(g), mine] = -np.inf
        ranked = np.argsort(-values, axis=1, kind="stable")[:, : ctx.candidates]
        ranked = np.where(np.take_along_axis(np.isfinite(values), ranked, axis=1), ranked, -1)
        candidates = np.concatenate([mine[:, None], ranked], axis=1)
        out.compared[rows] = (candidates >= 0).sum(axis=1)
        chosen = mine.copy()
        weighed = np.flatnonzero(out.legal[rows] > 1)
        if weighed.size:
            rounds = rounds_for(deal.streets - 1 - street)
            rival, pair = _measure(ctx, view, weighed, candidates[weighed], seeds[rows][weighed], rounds=rounds)
            chosen[weighed] = np.where(pair.better, candidates[weighed, rival], mine[weighed])
            out.record(lo + weighed, pair)
        out.best[rows] = table[chosen]
    return out


def legal_moves(ctx: Context, pos: Positions, street: int) -> np.ndarray:
    """(m, actions) whether each move of the street's table (:func:`~pipeline.simulate.streets.actions`) is open
    at each decision: the rows it fills have room."""
    return np.isfinite(MonteCarloBot(ctx).values(_view(pos, street, slice(None))))


@dataclass(frozen=True)
class Duel:
    """A move of one's own against the move played, by paired rollouts: the expected points of each, the standard
    error of their difference, and how often each board fouled."""

    ev_move: np.ndarray
    ev_played: np.ndarray
    se: np.ndarray
    rollouts: np.ndarray
    foul_move: np.ndarray
    foul_played: np.ndarray


def weigh_move(
    ctx: Context, pos: Positions, street: int, seeds: np.ndarray, move: np.ndarray, rounds: int | None = None
) -> Duel:
    """Decisions at one street (0-based) of normal boards: the move played against ``move`` (m, the index of a
    move in the street's table), rolled out as :func:`weigh_streets` weighs the planner's best (the same seeds,
    the same fresh cards), up to ``rounds`` rounds while the difference is uncertain (by default as many as
    the analysis gives): what a trainer asks of a move the analysis did not weigh."""
    deal = ctx.streets
    k, drop = deal.dealt[street], deal.discarded[street]
    played = action_index(pos.played[:, :k], k, drop)
    view = _view(pos, street, slice(None))
    at = np.arange(played.size)
    candidates = np.stack([played, np.asarray(move, dtype=np.int64)], axis=1)
    most = rounds_for(deal.streets - 1 - street) if rounds is None else rounds
    _, pair = _measure(ctx, view, at, candidates, seeds, rounds=most)
    n = pair.n.astype(np.float64)
    return Duel(
        ev_move=pair.rival / n,
        ev_played=pair.played / n,
        se=pair.se(),
        rollouts=pair.n,
        foul_move=pair.fouls_rival / n,
        foul_played=pair.fouls_played / n,
    )


def _rows_of(boards: np.ndarray, dealt: np.ndarray) -> np.ndarray:
    """(m, k) where each dealt card sits in the boards (m, 13): 0 top, 1 middle, 2 bottom, 3 not set."""
    m = boards.shape[0]
    where = np.full((m, 256), 3, dtype=np.int64)
    row_of_slot = np.repeat([0, 1, 2], [3, 5, 5])
    where[np.arange(m)[:, None], boards] = row_of_slot[None, :]
    return where[np.arange(m)[:, None], dealt]


def weigh_fantasyland(ctx: Context, pos: Positions, seeds: np.ndarray) -> Estimates:
    """Fantasyland settings: the board played against the arranger's, the other boards played out from empty."""
    m, k = pos.dealt.shape
    dealt = pos.dealt
    # The board played, from the rows recorded: top, middle, bottom in the order placed.
    order = np.argsort(np.where(pos.played == 3, 9, pos.played), axis=1, kind="stable")[:, :13]
    settings = [np.take_along_axis(dealt, order, axis=1)]
    for value in (float(ctx.model.fantasyland_value.max()) or STAY_VALUE, 0.0):
        board, _ = arrange_fantasyland(np.ascontiguousarray(dealt), ctx.rules, stay_value=max(value, 0.0))
        settings.append(board)
    boards = np.stack(settings, axis=1)  # (m, K, 13)
    # A setting the same as one before it (rows as sets) is weighed once.
    key = np.concatenate([np.sort(boards[:, :, a:b], axis=2) for a, b in ((0, 3), (3, 8), (8, 13))], axis=2)
    valid = np.ones(boards.shape[:2], dtype=bool)
    for a in range(1, boards.shape[1]):
        for b in range(a):
            valid[:, a] &= ~(key[:, a] == key[:, b]).all(axis=1)
    street = ctx.streets.streets - 1  # nothing of this player's is left to deal
    out = Estimates.empty(m, k)
    out.legal[:] = 2  # a Fantasyland hand can always be set another way
    out.compared[:] = valid.sum(axis=1)
    for lo in range(0, m, GROUP):
        rows = slice(lo, min(lo + GROUP, m))
        view = _view(pos, street, rows)
        at = np.arange(view.tables)
        candidates = np.where(valid[rows], np.arange(boards.shape[1])[None, :], -1)
        rival, pair = _measure(ctx, view, at, candidates, seeds[rows], fixed=boards[rows], rounds=rounds_for(0))
        out.record(lo + at, pair)
        chosen = np.where(pair.better[:, None], boards[rows][at, rival], boards[rows][:, 0])
        out.best[rows] = _rows_of(chosen, dealt[rows])
    return out


def fantasyland_counts(rules: RuleSet) -> list[int]:
    """The card counts a Fantasyland hand can have under ``rules``."""
    f = rules.fantasyland
    counts = {t.cards for t in f.entry}
    if isinstance(f.stay_cards, int):
        counts.add(f.stay_cards)
    if f.combined_cards:
        counts.add(f.combined_cards)
    return sorted(counts)


@cache
def _worth(rules_json: str, players: int, seed: int) -> tuple[float, ...]:
    rules = RuleSet.model_validate_json(rules_json)
    counts = fantasyland_counts(rules)
    flat = context(rules, players, 1, 1, (0.0,) * 5)
    bot = MonteCarloBot(flat)
    street = flat.streets.streets - 1
    rng = np.random.default_rng(seed)
    n = FANTASYLAND_SAMPLE
    points = np.zeros(18)
    moves = np.zeros((18, 18))
    for c in counts:
        cards = np.argsort(rng.random((n, 52)), axis=1)[:, :c].astype(np.uint8)
        board, _ = arrange_fantasyland(cards, rules)
        boards = np.full((n, players, 13), NO_CARD, dtype=np.uint8)
        in_fl = np.zeros((n, players), dtype=bool)
        in_fl[:, 0] = True
        own = np.full((n, 30), NO_CARD, dtype=np.uint8)
        own[:, :c] = cards
        view = StreetView(
            street, boards, np.zeros((n, players, 3), np.int64), in_fl, own, np.arange(n), np.zeros(n, np.int64),
            cards, rng,
        )  # fmt: skip
        seeds = rng.integers(0, 1 << 63, size=n, dtype=np.uint64)
        single = np.zeros((n, 1), np.int64)
        got = bot.rollout_outcomes(view, np.arange(n), single, seeds, fixed=board[:, None])
        points[c] = got.points.mean() / (players - 1)
        moves[c] = np.bincount(got.following.ravel(), minlength=18)[:18] / n
    # Worth of a hand of c cards: its own points, plus the worth of the hand it earns (a fixed point).
    moves[:, :13] = 0.0
    worth = np.linalg.solve(np.eye(18) - moves, points)
    return tuple(float(worth[c]) for c in range(13, 18))


def fantasyland_worth(rules: RuleSet, players: int, seed: int = 0) -> tuple[float, ...]:
    """Points per opponent a Fantasyland hand of 13..17 cards is worth under ``rules`` at a table of ``players``:
    what the arranger's settings score against planner-played boards (``FANTASYLAND_SAMPLE`` hands per card
    count), plus the worth of the Fantasyland they go on to earn. Zeros when the rules have no Fantasyland."""
    if not rules.fantasyland.enabled or rules.game.dealing is Dealing.CLASSIC:
        return (0.0,) * 5
    return _worth(rules.model_dump_json(), players, seed)
