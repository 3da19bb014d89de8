"""Setting 13 cards at once: the classic arranger and the Fantasyland arranger.

**Classic** (:func:`arrange_classic`). Every one of the 72,072 ways to split 13
cards into a top of 3, a middle of 5 and a bottom of 5 is examined in a compiled
kernel (parallel over hands; unless the middle is 2-7, each split into a top
and two fives is read once with the stronger five at the bottom, as the other
way round fouls), and the valid setting with the most expected points per
opponent against a random field is kept. The expectation is a
model, built once per rule set and cached (:func:`classic_model`):

- *The field* is a fixed sample of random 13-card hands set by this arranger
  itself, iterated: first a greedy setter (strongest bottom, strongest middle
  from the rest, the rest on top; on a 2-7 middle the best low) sets
  ``FIELD_GREEDY_HANDS`` hands, whose rows give a first model; then, for
  ``FIELD_ROUNDS`` rounds, the arranger sets ``FIELD_HANDS`` fresh hands under
  the last model, aiming at rows and the scoop only (1-6 points, no
  royalties), and those boards become the field of the next model. Each round
  makes the field a stronger opponent: under classic-1-6, against opponents
  set by the arranger, the average estimate exceeds the engine's average
  result by about 1.6 points with the greedy field alone, and by about 0.2
  after two rounds. The field depends only on what makes a board valid
  (2-7 middle and its qualifier, whether bottom may equal middle), so rule
  sets share it; it costs a few seconds once per process.
- *Per row*, from the field's rows: P(win) and P(lose) against a random field
  row of each goodness, and the expected royalty (or, under ``replace``, row
  value) of the field rows that beat it.
- *A setting's value* against a valid field board: the rule set's row points and
  royalties per row (each settlement: ``both``, ``winner``, ``replace``), plus
  the majority bonus and the scoop bonus (with the scoop multiplier) from the
  three row outcomes taken as independent. Against a fouled field board (at the
  field's foul rate): the foul penalty and, where the rules say so, the
  royalties. Approximations, by design: rows are independent, suit-order tie
  breaks, home runs and royalty multipliers are ignored, one royalty per
  board is modelled exactly only when both players collect royalties, and no
  opponent surrenders or declares a natural.

A natural is declared when the cards make one the rule set lists and its value
(or the scoop amount, for ``auto_scoop`` naturals) beats the best setting's
expectation; otherwise, where surrender is allowed, the player surrenders when
the expectation is below the threshold (by default minus the surrender cost:
surrendering then loses less than playing). The returned board is the best
setting in every case, and ``expected`` is its value when played.

**Fantasyland** (:func:`arrange_fantasyland`). 13 of the 13 to 17 cards are
set to maximise royalties (the compiled rule set's tables) plus ``stay_value``
points when the board meets a stay condition (or, where Fantasyland is not
exclusive, an entry tier), plus a tie break worth at most ``3 * TIE_BREAK``
points that prefers stronger rows (each row's goodness over its scale), so it
never outweighs a royalty point. The search is exact: a branch and bound over
bottoms, middles and tops (see :mod:`pipeline.simulate.arrange_kernels`). It
never fouls when a valid setting exists; only a 2-7 hand without a qualifying
low has none, and then it gets the greedy setting.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from itertools import combinations
from math import comb
from typing import Final

import numpy as np

from ofc.pipeline.cards import NO_CARD, deal
from ofc.pipeline.errors import InputError, RulesError
from ofc.pipeline.evaluate import lookup_tables
from ofc.pipeline.rules.compile import NATURALS, CompiledRules, compile_rules
from ofc.pipeline.score.engine import Boards, board_facts
from ofc.pipeline.score.naturals import natural_kinds
from ofc.pipeline.simulate import arrange_kernels as kernels
from ofc.pipeline.simulate.pace import Portions, Tick, idle, in_portions, span
from ofc.schemas.rules import (
    Dealing,
    Fantasyland,
    FiveCardRoyalties,
    Game,
    LowballRoyalties,
    Royalties,
    RuleSet,
    Scoring,
    TopRoyalties,
    Variant,
)

MAX_CARDS: Final = 17
N_LOW: Final = int(lookup_tables.LOW_CATEGORY.size)
GOODNESS: Final = max(lookup_tables.N_STRENGTHS, N_LOW)
"""Size of the per-row goodness scale the model tables are indexed by."""
FIELD_SEED: Final = 72_072
FIELD_GREEDY_HANDS: Final = 20_000
FIELD_HANDS: Final = 3_000
FIELD_ROUNDS: Final = 2
STAY_VALUE: Final = 10.0
"""Points a Fantasyland stay is worth by default: a round figure for the gain of a Fantasyland hand over a
normal one; pass ``stay_value`` to weigh it otherwise."""
TIE_BREAK: Final = 0.01
"""Weight of each row's goodness (0..1) among settings of equal royalties and stay."""
_NATURAL_OBJECTS: Final = np.array([None, *NATURALS], dtype=object)


@dataclass(frozen=True)
class ClassicSet:
    cards: np.ndarray
    """(n, 13) uint8: the set board, top 3 then middle 5 then bottom 5."""
    natural: np.ndarray
    """(n,) object array of :class:`schemas.rules.Natural` or None: the natural declared."""
    surrender: np.ndarray
    """(n,) bool: the player surrenders."""
    expected: np.ndarray
    """(n,) float64: estimated points per opponent of the chosen setting against a random field."""


@dataclass(frozen=True, eq=False)
class ClassicModel:
    """Expected points per opponent of a setting, from per-row tables indexed by goodness.

    A valid setting with row goodness ``g`` and row outcome probabilities ``w = win[r, g_r]``,
    ``l = lose[r, g_r]`` is worth ``sum(additive[r, g_r]) + scoop * (w0 w1 w2 - l0 l1 l2) + majority *
    (P(more rows won) - P(fewer)) + own_weight * own + constant``, where ``own`` is the sum of
    ``royalty[r, g_r]`` (the largest with ``one_per_board``); a fouled one is worth ``foul``.
    """

    additive: np.ndarray
    win: np.ndarray
    lose: np.ndarray
    royalty: np.ndarray
    own_weight: float
    majority: float
    scoop: float
    constant: float
    foul: float
    field_foul_rate: float
    one_per_board: bool
    lowball: bool
    strict: bool
    qualifier: int
    """Lowest goodness a 2-7 middle may have."""


# ------------------------------------------------------------ subsets and settings


def _colex(width: int) -> np.ndarray:
    """Every ``width``-subset of 17 positions in colex order: those of the first k positions come first."""
    combos = np.array(list(combinations(range(MAX_CARDS), width)), dtype=np.uint8)
    return np.ascontiguousarray(combos[np.lexsort(combos.T)])


def _masks(combos: np.ndarray) -> np.ndarray:
    return (np.uint32(1) << combos.astype(np.uint32)).sum(axis=1, dtype=np.uint32)


COMB3: Final = _colex(3)
COMB5: Final = _colex(5)
MASK3: Final = _masks(COMB3)
MASK5: Final = _masks(COMB5)
N3_OF: Final = np.array([comb(k, 3) for k in range(MAX_CARDS + 1)], dtype=np.int64)
N5_OF: Final = np.array([comb(k, 5) for k in range(MAX_CARDS + 1)], dtype=np.int64)


@cache
def classic_splits(ordered: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Top, first-five and second-five subset indices of the ways to split 13 cards into 3, 5 and 5.

    ``ordered``: all 72,072 settings, the first five being the middle. Otherwise each split is listed once
    (36,036, the first five holding the lowest remaining position), for the kernel to orient.
    """
    n3, n5 = int(N3_OF[13]), int(N5_OF[13])
    index5 = np.full(1 << 13, -1, dtype=np.int64)
    index5[MASK5[:n5]] = np.arange(n5)
    rest = (1 << 13) - 1 - MASK3[:n3].astype(np.int64)
    bits = (rest[:, None] >> np.arange(13)) & 1
    remaining = np.argsort(-bits, axis=1, kind="stable")[:, :10]  # the 10 positions left, ascending
    pick = np.array([c for c in combinations(range(10), 5) if ordered or c[0] == 0], dtype=np.int64)
    first = (1 << remaining[:, pick]).sum(axis=2)
    second = rest[:, None] ^ first
    splits = (np.repeat(np.arange(n3), pick.shape[0]), index5[first].ravel(), index5[second].ravel())
    return tuple(np.ascontiguousarray(a, dtype=np.int16) for a in splits)  # small: read once per hand


def _positions(chosen: np.ndarray) -> np.ndarray:
    """(n, 13) card positions of (top, middle, bottom) subset indices."""
    return np.concatenate([COMB3[chosen[:, 0]], COMB5[chosen[:, 1]], COMB5[chosen[:, 2]]], axis=1)


def _validated(cards: np.ndarray, fewest: int, most: int) -> tuple[np.ndarray, np.ndarray]:
    """Hands as C-contiguous uint8 and the number of cards in each; padding (255) only on the right."""
    arr = np.asarray(cards)
    if arr.ndim != 2 or not fewest <= arr.shape[1] <= most:
        raise InputError(f"expected an (n, {fewest}..{most}) array of card codes, got shape {arr.shape}")
    if not np.issubdtype(arr.dtype, np.integer):
        raise InputError(f"card codes must be integers, got {arr.dtype}")
    present = arr != NO_CARD
    counts = present.sum(axis=1)
    problems = {
        "a code outside 0..51 (255 pads)": ((arr < 0) | (arr > 51)) & present,
        "padding before a card": present[:, 1:] & ~present[:, :-1],
        f"fewer than {fewest} cards": (counts < fewest)[:, None],
    }
    ordered = np.sort(arr, axis=1)
    problems["a card twice"] = (ordered[:, 1:] == ordered[:, :-1]) & (ordered[:, 1:] != NO_CARD)
    for what, bad in problems.items():
        rows = np.flatnonzero(bad.any(axis=1))
        if rows.size:
            raise InputError(f"hands {rows[:5].tolist()}{' ...' if rows.size > 5 else ''}: {what}")
    return np.ascontiguousarray(arr, dtype=np.uint8), counts.astype(np.int64)


def _evaluator_tables() -> tuple[np.ndarray, ...]:
    return (
        lookup_tables.table5_direct(),
        lookup_tables.low5_direct(),
        lookup_tables.DIGITS5,
        lookup_tables.TABLE3_DIRECT,
        lookup_tables.DIGITS3,
    )


def _strict(rules: RuleSet) -> bool:
    return not rules.scoring.bottom_may_equal_middle


def _qualifier(c: CompiledRules) -> int:
    return N_LOW - 1 - c.qualifier if c.lowball else 0


def _rows_and_discards(hands: np.ndarray, chosen: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The set rows and the cards left over (in dealt order, 255 where a hand had fewer cards)."""
    n, k = hands.shape
    positions = _positions(chosen)
    rows = np.take_along_axis(hands, positions, axis=1)
    used = np.zeros((n, k), dtype=bool)
    np.put_along_axis(used, positions, True, axis=1)
    left = np.argsort(used, axis=1, kind="stable")[:, : k - 13]  # unused positions, dealt cards before padding
    return rows, np.take_along_axis(hands, left, axis=1)


# ---------------------------------------------------------------- greedy setter


def greedy_boards(cards: np.ndarray, rules: RuleSet) -> tuple[np.ndarray, np.ndarray]:
    """A simple setter: strongest bottom, best middle from the rest (the best low on a 2-7 middle), strongest
    top from what remains. It never fouls except on a 2-7 middle that does not qualify (or, rarely, a bottom
    equal to the middle where that fouls). Same input and output as :func:`arrange_fantasyland`."""
    hands, counts = _validated(cards, 13, MAX_CARDS)
    chosen = np.empty((hands.shape[0], 3), dtype=np.int64)
    kernels.greedy_set(
        hands,
        counts,
        COMB3,
        MASK3,
        COMB5,
        MASK5,
        N3_OF,
        N5_OF,
        *_evaluator_tables(),
        rules.game.lowball_middle,
        _strict(rules),
        N_LOW,
        chosen,
    )
    return _rows_and_discards(hands, chosen)


# ---------------------------------------------------------------- classic model


def _royalty_table(c: CompiledRules) -> np.ndarray:
    """(3, GOODNESS) royalties of each row by goodness."""
    out = np.zeros((3, GOODNESS))
    out[0, : lookup_tables.N_STRENGTHS] = c.royalty_top
    if c.lowball:
        out[1, :N_LOW] = c.royalty_middle_low[::-1]
    else:
        out[1, : lookup_tables.N_STRENGTHS] = c.royalty_middle
    out[2, : lookup_tables.N_STRENGTHS] = c.royalty_bottom
    return out


def _goodness(strength: np.ndarray, lowball: bool) -> np.ndarray:
    """Per-row goodness of the engine's (N, 3) strengths (the middle is a 2-7 value on a lowball middle)."""
    g = strength.astype(np.int64)
    if lowball:
        g[:, 1] = N_LOW - 1 - g[:, 1]
    return g


def _build_model(rules: RuleSet, field: np.ndarray) -> ClassicModel:
    """The model of :class:`ClassicModel` for ``rules`` against the field boards ``field`` (N, 13)."""
    c = compile_rules(rules)
    n = field.shape[0]
    facts = board_facts(Boards.build(hand=np.arange(n), seat=np.zeros(n, np.int64), cards=field), c)
    valid = ~facts.fouled
    g = _goodness(facts.strength, c.lowball)[valid]
    opp_royalty = facts.royalties[valid].astype(np.float64)
    sc = rules.scoring
    rv = float(sc.row_value)
    settlement = rules.royalties.settlement
    own = _royalty_table(c)
    win, lose, additive = np.zeros((3, GOODNESS)), np.zeros((3, GOODNESS)), np.zeros((3, GOODNESS))
    nv = max(int(valid.sum()), 1)
    for r in range(3):
        share = np.bincount(g[:, r], minlength=GOODNESS) / nv
        below = np.cumsum(share)
        win[r], lose[r] = below - share, below[-1] - below
        if settlement == "replace":
            value = np.where(opp_royalty[:, r] > 0, opp_royalty[:, r], rv)
            row_value = np.where(own[r] > 0, own[r], rv)
        else:
            value, row_value = opp_royalty[:, r], rv
        paid = np.bincount(g[:, r], weights=value, minlength=GOODNESS) / nv
        beaten_by = paid.sum() - np.cumsum(paid)  # E[opponent's row value, where it beats this row]
        if settlement == "replace":
            additive[r] = row_value * win[r] - beaten_by
        elif settlement == "winner":
            additive[r] = rv * (win[r] - lose[r]) + own[r] * win[r] - beaten_by
        else:
            additive[r] = rv * (win[r] - lose[r])
    f = 1.0 - valid.mean() if n else 0.0
    penalty = float(c.scoop_amount if rules.fouls.penalty == "scoop" else rules.fouls.penalty)
    pays = float(rules.fouls.pays_royalties) * (sc.scoop_multiplier if sc.multiply_royalties else 1)
    mean_opp = float(opp_royalty.sum(axis=1).mean()) if valid.any() else 0.0
    scoop_points = 3 * sc.row_value + sc.majority_bonus + sc.scoop_bonus
    both = settlement == "both"
    return ClassicModel(
        additive=(1 - f) * additive,
        win=win,
        lose=lose,
        royalty=own,
        own_weight=(1 - f) * both + f * pays,
        majority=(1 - f) * sc.majority_bonus,
        scoop=(1 - f) * (sc.scoop_bonus + (sc.scoop_multiplier - 1) * scoop_points),
        constant=f * penalty - (1 - f) * both * mean_opp,
        foul=-(1 - f) * (penalty + pays * mean_opp),
        field_foul_rate=f,
        one_per_board=rules.royalties.one_per_board,
        lowball=c.lowball,
        strict=_strict(rules),
        qualifier=_qualifier(c),
    )


def _set_classic(hands: np.ndarray, model: ClassicModel) -> tuple[np.ndarray, np.ndarray]:
    """Best boards of (n, 13) hands under ``model`` and their expected points (greedy where all settings foul)."""
    n = hands.shape[0]
    chosen, value = np.empty((n, 3), dtype=np.int64), np.empty(n)
    kernels.best_classic(
        hands,
        COMB3,
        COMB5,
        *classic_splits(model.lowball),
        *_evaluator_tables(),
        model.additive,
        model.win,
        model.lose,
        model.royalty,
        model.lowball,
        model.strict,
        model.qualifier,
        N_LOW,
        model.one_per_board,
        model.own_weight,
        model.majority,
        model.scoop,
        model.constant,
        chosen,
        value,
    )
    boards = np.take_along_axis(hands, _positions(np.maximum(chosen, 0)).astype(np.int64), axis=1)
    hopeless = np.flatnonzero(chosen[:, 0] < 0)
    if hopeless.size:
        greedy_rules = _field_rules(model.lowball, "", model.strict)
        boards[hopeless] = greedy_boards(hands[hopeless], greedy_rules)[0]
        value[hopeless] = model.foul
    return boards, value


def _field_rules(lowball: bool, qualifier: str, strict: bool) -> RuleSet:
    """The field's objective: win rows and the scoop (1-6), no royalties, under the given validity rules."""
    lowball_rules = LowballRoyalties(qualifier=qualifier) if qualifier else LowballRoyalties()
    return RuleSet(
        name="field",
        game=Game(variant=Variant.CLASSIC, dealing=Dealing.CLASSIC, lowball_middle=lowball),
        scoring=Scoring(bottom_may_equal_middle=not strict),
        royalties=Royalties(
            top=TopRoyalties(pair=0, trips=0),
            middle=FiveCardRoyalties(),
            bottom=FiveCardRoyalties(),
            lowball_middle=lowball_rules,
        ),
        fantasyland=Fantasyland(enabled=False),
    )


FIELD_SET_SECONDS_PER_HAND: Final = 4e-4
"""What setting one field hand is first assumed to take (seconds, a busy machine); later portions are sized
from what the earlier ones took."""


def _field(lowball: bool, qualifier: str, strict: bool, tick: Tick = idle) -> np.ndarray:
    """(FIELD_HANDS, 13) boards of the random field: the arranger iterated from a greedy field.

    A second or two of work, done in portions (``tick`` after each, with the share done) so that a run can
    show it moving and stop within it; the boards do not depend on the portions, as each hand is set alone.
    """
    rules = _field_rules(lowball, qualifier, strict)
    rng = np.random.default_rng(FIELD_SEED)
    field = greedy_boards(deal(FIELD_GREEDY_HANDS, 13, rng), rules)[0]
    portions = Portions(FIELD_SET_SECONDS_PER_HAND)
    for r in range(FIELD_ROUNDS):
        tick((r + 0.1) / (FIELD_ROUNDS + 0.1))
        step = span(tick, (r + 0.1) / (FIELD_ROUNDS + 0.1), (r + 1.1) / (FIELD_ROUNDS + 0.1))
        field = np.concatenate(
            in_portions(FIELD_HANDS, 1.0, portions, step, _setter(deal(FIELD_HANDS, 13, rng), rules, field))
        )
    return field


def _setter(hands: np.ndarray, rules: RuleSet, field: np.ndarray) -> Callable[[slice], np.ndarray]:
    """Sets a part of ``hands`` under the model of ``rules`` against ``field``: the boards."""
    model = _build_model(rules, field)
    return lambda part: _set_classic(hands[part], model)[0]


_FIELDS: dict[tuple[bool, str, bool], np.ndarray] = {}
_MODELS: dict[str, ClassicModel] = {}
"""Fields and models built so far in this process, by what they depend on (a rule set's JSON, for a model)."""


def classic_model(rules: RuleSet, tick: Tick = idle) -> ClassicModel:
    """The expected-points model of ``rules`` against the random field (built once per rule set, in a second
    or two the first time: ``tick`` hears how far it has got)."""
    key = rules.model_dump_json()
    if key not in _MODELS:
        tick(0.0)
        lowball = rules.game.lowball_middle
        qualifier = rules.royalties.lowball_middle.qualifier if lowball else ""
        field_key = (lowball, qualifier, _strict(rules) and not lowball)
        if field_key not in _FIELDS:
            _FIELDS[field_key] = _field(*field_key, tick)
        _MODELS[key] = _build_model(rules, _FIELDS[field_key])
    tick(1.0)
    return _MODELS[key]


# ---------------------------------------------------------------- classic


def _best_natural(hands: np.ndarray, c: CompiledRules) -> tuple[np.ndarray, np.ndarray]:
    """Most valuable natural each hand makes among those the rules list (index into NATURALS, -inf value if none)."""
    n = hands.shape[0]
    if not c.rules.naturals.enabled or n == 0:
        return np.full(n, -1, dtype=np.int64), np.full(n, -np.inf)
    worth = np.where(c.natural_auto_scoop, c.scoop_amount, c.natural_value).astype(np.float64)
    made = natural_kinds(hands) & (c.natural_value >= 0)
    value = np.where(made, worth, -np.inf)
    kind = np.argmax(value, axis=1)  # on equal values the stronger kind (dragon first)
    value = value[np.arange(n), kind]
    return np.where(np.isfinite(value), kind, -1), value


def arrange_classic(cards: np.ndarray, rules: RuleSet, *, surrender_below: float | None = None) -> ClassicSet:
    """cards: (n, 13) uint8 dealt hands. Surrender (only where rules allow surrender) when the best
    expected points fall below ``surrender_below`` (None: minus the rule set's surrender cost, so that a player
    surrenders exactly when surrendering loses less than playing)."""
    hands, _ = _validated(cards, 13, 13)
    boards, expected = _set_classic(hands, classic_model(rules))
    kind, natural_value = _best_natural(hands, compile_rules(rules))
    declare = natural_value > expected
    threshold = -float(rules.surrender.cost) if surrender_below is None else float(surrender_below)
    surrender = ~declare & (expected < threshold) & rules.surrender.allowed
    return ClassicSet(
        cards=boards,
        natural=_NATURAL_OBJECTS[np.where(declare, kind, -1) + 1],
        surrender=surrender,
        expected=expected,
    )


# ---------------------------------------------------------------- Fantasyland


@dataclass(frozen=True, eq=False)
class FantasylandTables:
    """Per-row tables by goodness the Fantasyland search reads."""

    royalty: np.ndarray
    condition: np.ndarray
    """(3, GOODNESS) bool: the row alone keeps the player in Fantasyland (a stay condition, or an entry tier
    when Fantasyland is not exclusive)."""
    tie: np.ndarray


@cache
def _fantasyland_tables(rules_json: str) -> FantasylandTables:
    rules = RuleSet.model_validate_json(rules_json)
    c = compile_rules(rules)
    rows, thresholds = list(c.stay_row), list(c.stay_threshold)
    if not rules.fantasyland.exclusive:
        rows += list(c.entry_row)
        thresholds += list(c.entry_threshold)
    condition = np.zeros((3, GOODNESS), dtype=bool)
    for row, threshold in zip(rows, thresholds, strict=True):
        lowest = N_LOW - 1 - int(threshold) if c.lowball and row == 1 else int(threshold)
        condition[row, lowest:] = True
    scale = np.full(3, float(lookup_tables.N_STRENGTHS))
    scale[1] = N_LOW if c.lowball else scale[1]
    tie = TIE_BREAK * np.arange(GOODNESS)[None, :] / scale[:, None]
    return FantasylandTables(royalty=_royalty_table(c), condition=condition, tie=tie)


def fantasyland_tables(rules: RuleSet) -> FantasylandTables:
    """The Fantasyland search's tables for ``rules`` (built once per rule set)."""
    return _fantasyland_tables(rules.model_dump_json())


def arrange_fantasyland(
    cards: np.ndarray, rules: RuleSet, *, stay_value: float = STAY_VALUE
) -> tuple[np.ndarray, np.ndarray]:
    """cards: (n, k) uint8 with k = 13..17 (the widest hand of the batch); hands dealt fewer than k cards
    are padded with 255 on the right. Returns (rows (n, 13) uint8 top 3/middle 5/bottom 5,
    discards (n, k - 13) uint8, padded with 255 where the player had fewer cards)."""
    if not rules.fantasyland.enabled:
        raise RulesError(f"rule set {rules.name!r} has no Fantasyland")
    if stay_value < 0:  # the search bounds a board by the sum of its rows, which a negative stay would break
        raise InputError(f"stay_value must be >= 0, got {stay_value}")
    hands, counts = _validated(cards, 13, MAX_CARDS)
    t = fantasyland_tables(rules)
    c = compile_rules(rules)
    chosen = np.empty((hands.shape[0], 3), dtype=np.int64)
    kernels.best_fantasyland(
        hands,
        counts,
        COMB3,
        MASK3,
        COMB5,
        MASK5,
        N3_OF,
        N5_OF,
        *_evaluator_tables(),
        t.royalty,
        t.condition,
        t.tie,
        float(stay_value),
        c.lowball,
        _strict(rules),
        _qualifier(c),
        N_LOW,
        GOODNESS,
        rules.royalties.one_per_board,
        chosen,
    )
    return _rows_and_discards(hands, chosen)
