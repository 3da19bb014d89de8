"""Score every pairwise comparison of every hand under one rule set, as column operations.

Input: one row per board (hand, seat, 13 card codes, flags), any mix of 2-, 3-
and 4-player hands. Output: per-board facts (fouled, royalties, Fantasyland),
per-pair results and per-board net points. Nothing loops over hands or pairs:
pairs are built from each hand's offset with a small template per table
size, and table-stakes settlement loops over the at most six pair slots of a
hand, each step a vector operation over all hands. The semantics are those of
docs/scoring.md.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations

import numpy as np

from ofc.pipeline.evaluate import evaluate_boards, lowball27
from ofc.pipeline.game import default_buttons, table_order
from ofc.pipeline.rules.compile import NATURALS, CompiledRules, compile_rules
from ofc.pipeline.score import pair_kernels
from ofc.pipeline.score.naturals import natural_kinds, natural_strength
from ofc.schemas.rules import Natural, RuleSet

NO_NATURAL = -1
_DRAGON = NATURALS.index(Natural.DRAGON)
_SETTLEMENT = {"both": pair_kernels.BOTH, "winner": pair_kernels.WINNER, "replace": pair_kernels.REPLACE}


@dataclass(frozen=True)
class Boards:
    """One row per board. ``hand`` groups boards into hands (any integer ids)."""

    hand: np.ndarray
    seat: np.ndarray
    cards: np.ndarray
    """(N, 13) uint8: top 3, middle 5, bottom 5."""
    button: np.ndarray
    """The hand's button seat, repeated on each of its boards."""
    in_fantasyland: np.ndarray
    surrendered: np.ndarray
    natural: np.ndarray
    """Declared natural: index into ``NATURALS``, -1 for none."""
    stack: np.ndarray
    """Chips in front of the player for table stakes; 0 for the rule set's default."""
    owner: np.ndarray
    """Who plays the board, unique within a hand except in criss-cross, where a player's
    two boards share an owner and are never compared with each other."""
    misset: np.ndarray
    """Classic: the rows do not hold 3, 5 and 5 cards, so the board is fouled."""
    open_face: np.ndarray | None = None
    """The hand was played open face (every variant but classic): only then is there Fantasyland, whatever
    the rule set. None: every board was."""

    @classmethod
    def build(
        cls,
        hand: np.ndarray,
        seat: np.ndarray,
        cards: np.ndarray,
        button: np.ndarray | None = None,
        in_fantasyland: np.ndarray | None = None,
        surrendered: np.ndarray | None = None,
        natural: np.ndarray | None = None,
        stack: np.ndarray | None = None,
        owner: np.ndarray | None = None,
        misset: np.ndarray | None = None,
        open_face: np.ndarray | None = None,
    ) -> Boards:
        """Fill the optional columns with their defaults (button: the hand's highest seat; one owner a board)."""
        n = len(hand)
        hand = np.asarray(hand, dtype=np.int64)
        seat = np.asarray(seat, dtype=np.int64)
        if button is None:
            button = default_buttons(hand, seat)
        return cls(
            hand=hand,
            seat=seat,
            cards=np.ascontiguousarray(cards, dtype=np.uint8),
            button=np.asarray(button, dtype=np.int64),
            in_fantasyland=np.zeros(n, bool) if in_fantasyland is None else np.asarray(in_fantasyland, bool),
            surrendered=np.zeros(n, bool) if surrendered is None else np.asarray(surrendered, bool),
            natural=np.full(n, NO_NATURAL, np.int8) if natural is None else np.asarray(natural, np.int8),
            stack=np.zeros(n, np.int64) if stack is None else np.asarray(stack, np.int64),
            owner=np.arange(n, dtype=np.int64) if owner is None else np.asarray(owner, np.int64),
            misset=np.zeros(n, bool) if misset is None else np.asarray(misset, bool),
            open_face=None if open_face is None else np.asarray(open_face, bool),
        )


@dataclass(frozen=True)
class BoardFacts:
    """What each board is worth on its own, in the input's board order."""

    strength: np.ndarray
    """(N, 3) row strengths; the middle is its 2-7 value on a lowball middle."""
    fouled: np.ndarray
    royalties: np.ndarray
    """(N, 3) royalties the board earns (0 when fouled, surrendered or natural)."""
    natural: np.ndarray
    """Counted natural (declared, made and listed by the rules), -1 for none."""
    surrendered: np.ndarray
    """Counted surrender (only when the rules allow it)."""
    fantasyland_entry: np.ndarray
    fantasyland_stay: np.ndarray
    fantasyland_next: np.ndarray
    """Cards of this player's next hand when it is a Fantasyland hand, else 0."""


@dataclass(frozen=True)
class PairResults:
    """One row per pair of boards in a hand: ``a`` and ``b`` index the input's boards."""

    a: np.ndarray
    b: np.ndarray
    kind: np.ndarray
    """How the pair was settled: ``pair_kernels.PLAYED``, ``NATURAL``, ``SURRENDER``, ``FOUL``, ``BOTH_FOULED``."""
    rows: np.ndarray
    """(P, 3) int8: +1 where A won the row, -1 where B did, 0 for a tie."""
    scoop: np.ndarray
    """+1 A scooped B, -1 B scooped A, 0 neither (a foul counts as being scooped)."""
    row_points: np.ndarray
    bonus: np.ndarray
    """Majority and scoop bonuses for A, before multipliers."""
    royalty_points: np.ndarray
    natural_points: np.ndarray
    surrender_points: np.ndarray
    foul_points: np.ndarray
    multiplier: np.ndarray
    """Scoop and home-run multiplier applied to the base points."""
    points: np.ndarray
    """Points for A (B gets the negative), after multipliers and table stakes."""


@dataclass(frozen=True)
class Scored:
    boards: BoardFacts
    pairs: PairResults
    net: np.ndarray
    """Net points per board: the sum over its pairs; sums to zero within each hand."""


# ------------------------------------------------------------------ boards


@dataclass
class Prepared:
    """What scoring the same boards under any rule set shares: the rows' strengths and the pairs to compare.

    :func:`prepare` it once and pass it to :func:`score` for each rule set, so many rule sets cost one
    evaluation of the boards.
    """

    strength: np.ndarray
    """(N, 3) int64: top, middle, bottom on the poker scale."""
    cards: np.ndarray
    a: np.ndarray
    b: np.ndarray
    slot: np.ndarray
    _low: np.ndarray | None = None

    def low(self) -> np.ndarray:
        """The middles' 2-7 values, computed on first use."""
        if self._low is None:
            self._low = lowball27(self.cards[:, 3:8]).astype(np.int64)
        return self._low


def prepare(boards: Boards) -> Prepared:
    """Evaluate the boards and list the pairs of each hand (criss-cross owners apart)."""
    top, middle, bottom = evaluate_boards(boards.cards)
    order = _order(boards)
    if order is None:
        a, b, slot = _pairs(boards.hand)
    else:
        a_s, b_s, slot = _pairs(boards.hand[order])
        a, b = order[a_s], order[b_s]
    apart = boards.owner[a] != boards.owner[b]  # criss-cross: a player's own boards are not compared
    if not apart.all():
        a, b, slot = a[apart], b[apart], slot[apart]
    strength = np.stack([top, middle, bottom], axis=1).astype(np.int64)
    return Prepared(strength, boards.cards, a, b, slot)


def board_facts(boards: Boards, c: CompiledRules, prepared: Prepared | None = None) -> BoardFacts:
    rules = c.rules
    n = len(boards.hand)
    p = prepared if prepared is not None else prepare(boards)
    strength = p.strength if c.wheel_order is None else c.wheel_order[p.strength]
    if c.lowball:
        strength = strength.copy() if c.wheel_order is None else strength
        strength[:, 1] = p.low()

    surrendered = boards.surrendered & rules.surrender.allowed
    natural = _counted_naturals(boards, c, strength) if rules.naturals.enabled else np.full(n, NO_NATURAL, np.int8)
    out_of_play = surrendered | (natural >= 0)

    if c.lowball:
        fouled = (strength[:, 0] > strength[:, 2]) | (strength[:, 1] > c.qualifier)
    else:
        strict = not rules.scoring.bottom_may_equal_middle
        fouled = (strength[:, 0] > strength[:, 1]) | (
            strength[:, 2] <= strength[:, 1] if strict else strength[:, 2] < strength[:, 1]
        )
    fouled = (fouled | boards.misset) & ~out_of_play

    royalties = np.stack(
        [
            c.royalty_top[strength[:, 0]],
            c.royalty_middle_low[strength[:, 1]] if c.lowball else c.royalty_middle[strength[:, 1]],
            c.royalty_bottom[strength[:, 2]],
        ],
        axis=1,
    )
    royalties[fouled | out_of_play] = 0
    if rules.royalties.one_per_board:
        keep = 2 - np.argmax(royalties[:, ::-1], axis=1)  # the largest; on a tie the lowest row
        royalties = np.where(np.arange(3)[None, :] == keep[:, None], royalties, 0)

    valid = ~fouled & ~out_of_play
    entry_cards, stay = _fantasyland(strength, valid, c)
    fl = boards.in_fantasyland & rules.fantasyland.enabled
    if boards.open_face is not None:  # a classic hand never enters, stays in or plays Fantasyland
        entry_cards = np.where(boards.open_face, entry_cards, 0)
        fl &= boards.open_face
    stay &= fl
    stay_cards = rules.fantasyland.stay_cards
    if stay_cards == "earned":
        base = int(c.entry_cards.min()) if c.entry_cards.size else 0
        stay_count = np.where(entry_cards > 0, entry_cards, base)
    else:
        stay_count = np.full(n, stay_cards, dtype=np.int64)
    reenter = entry_cards if not rules.fantasyland.exclusive else 0
    next_cards = np.where(fl, np.where(stay, stay_count, reenter), entry_cards)
    return BoardFacts(
        strength=strength,
        fouled=fouled,
        royalties=royalties,
        natural=natural,
        surrendered=surrendered,
        fantasyland_entry=~fl & (entry_cards > 0),
        fantasyland_stay=stay,
        fantasyland_next=next_cards.astype(np.int64),
    )


def _meets(strength: np.ndarray, rows: np.ndarray, thresholds: np.ndarray, lowball: bool) -> np.ndarray:
    """(N, K): whether each board's row ``rows[k]`` is at least ``thresholds[k]`` (at most, on a lowball middle)."""
    values = strength[:, rows]
    at_least = values >= thresholds[None, :]
    if lowball:
        low = rows == 1
        at_least[:, low] = values[:, low] <= thresholds[None, low]
    return at_least


def _fantasyland(strength: np.ndarray, valid: np.ndarray, c: CompiledRules) -> tuple[np.ndarray, np.ndarray]:
    n = strength.shape[0]
    if c.entry_row.size == 0:
        return np.zeros(n, np.int64), np.zeros(n, bool)
    met = _meets(strength, c.entry_row, c.entry_threshold, c.lowball) & valid[:, None]
    cards = np.where(met, c.entry_cards[None, :], 0).max(axis=1)
    combined = c.rules.fantasyland.combined_cards
    if combined is not None:
        rows_met = np.zeros((n, 3), dtype=bool)
        for r in range(3):
            rows_met[:, r] = met[:, c.entry_row == r].any(axis=1)
        cards = np.where(rows_met.sum(axis=1) >= 2, combined, cards)
    stay = (
        (_meets(strength, c.stay_row, c.stay_threshold, c.lowball).any(axis=1) & valid)
        if c.stay_row.size
        else np.zeros(n, bool)
    )
    return cards, stay


def _counted_naturals(boards: Boards, c: CompiledRules, strength: np.ndarray) -> np.ndarray:
    """A declared natural counts when the cards make it, the rules list it and the player did not surrender."""
    out = np.full(len(boards.hand), NO_NATURAL, dtype=np.int8)
    declared = np.flatnonzero((boards.natural >= 0) & ~(boards.surrendered & c.rules.surrender.allowed))
    if declared.size == 0:
        return out
    kind = boards.natural[declared].astype(np.int64)
    made = natural_kinds(boards.cards[declared])[np.arange(declared.size), kind]
    listed = c.natural_value[kind] >= 0
    out[declared] = np.where(made & listed, kind, NO_NATURAL)
    return out


# ------------------------------------------------------------------- pairs


def _order(boards: Boards) -> np.ndarray | None:
    """Board order by hand, then table order (left of the button first); None when already so."""
    turn = table_order(boards.seat, boards.button)
    ordered = (boards.hand[1:] > boards.hand[:-1]) | ((boards.hand[1:] == boards.hand[:-1]) & (turn[1:] > turn[:-1]))
    if bool(ordered.all()):
        return None
    return np.lexsort((turn, boards.hand))


def _pairs(hand_sorted: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every pair within each hand, for boards grouped by hand: (a, b, slot).

    Pairs come out grouped by hand in settlement order: (0,1), (0,2), (0,3), (1,2), ...
    Each table size fills its hands' places from a template, so nothing is sorted.
    """
    n = hand_sorted.size
    starts = np.flatnonzero(np.r_[True, hand_sorted[1:] != hand_sorted[:-1]]) if n else np.zeros(0, np.int64)
    sizes = np.diff(np.r_[starts, n])
    n_pairs = sizes * (sizes - 1) // 2
    offset = np.cumsum(n_pairs) - n_pairs
    a = np.empty(int(n_pairs.sum()), dtype=np.int64)
    b, slot = np.empty_like(a), np.empty_like(a)
    for k in np.unique(sizes):
        template = np.array(list(combinations(range(int(k)), 2)), dtype=np.int64).reshape(-1, 2)
        sel = sizes == k
        place = (offset[sel][:, None] + np.arange(template.shape[0])).ravel()
        first = starts[sel][:, None]
        a[place] = (first + template[:, 0]).ravel()
        b[place] = (first + template[:, 1]).ravel()
        slot[place] = np.tile(np.arange(template.shape[0]), int(sel.sum()))
    return a, b, slot


def score(boards: Boards, rules: RuleSet | CompiledRules, prepared: Prepared | None = None) -> Scored:
    """Score every pair of every hand in ``boards`` under ``rules`` (``prepared``: from :func:`prepare`)."""
    c = rules if isinstance(rules, CompiledRules) else compile_rules(rules)
    p = prepared if prepared is not None else prepare(boards)
    facts = board_facts(boards, c, p)
    a, b = p.a, p.b
    pairs = _score_pairs(a, b, p.slot, facts, boards, c)
    net = pair_kernels.net_points(a, b, np.asarray(pairs.points, dtype=np.int64), len(boards.hand))
    return Scored(boards=facts, pairs=pairs, net=net)


def _score_pairs(
    a: np.ndarray,
    b: np.ndarray,
    slot: np.ndarray,
    f: BoardFacts,
    boards: Boards,
    c: CompiledRules,
) -> PairResults:
    rules = c.rules
    sc = rules.scoring
    rows = np.zeros((a.size, 3), dtype=np.int8)
    out = np.empty((8, a.size), dtype=np.int64)
    tiebreak = _tiebreak_keys(boards.cards, c.suit_key) if c.suit_key is not None else np.zeros((1, 3), np.int64)
    penalty = c.scoop_amount if rules.fouls.penalty == "scoop" else int(rules.fouls.penalty)
    pair_kernels.settle_pairs(
        a,
        b,
        f.strength,
        tiebreak,
        f.royalties,
        f.fouled,
        f.surrendered,
        f.natural,
        c.lowball,
        c.suit_key is not None,
        sc.row_value,
        sc.majority_bonus,
        sc.majority_by == "points",
        sc.scoop_bonus,
        sc.scoop == "no_row_lost",
        sc.scoop_multiplier,
        sc.multiply_royalties,
        _SETTLEMENT[rules.royalties.settlement],
        penalty,
        rules.fouls.pays_royalties,
        rules.surrender.cost,
        rows,
        out,
    )
    kind, scoop, row_points, bonus, royalty_points, foul_points, surrender_points, multiplier = out
    natural_points = np.zeros(a.size, dtype=np.int64)
    if rules.naturals.enabled:
        pick = np.flatnonzero(kind == pair_kernels.NATURAL)
        natural_points[pick] = _natural_points(a[pick], b[pick], boards, f, c)
    if sc.home_run_multiplier > 1:
        hit = _home_run_pairs(a, b, scoop, len(boards.hand))
        multiplier = np.where(hit, multiplier * sc.home_run_multiplier, multiplier)
        foul_points = np.where(hit, foul_points * sc.home_run_multiplier, foul_points)
        if sc.multiply_royalties:
            royalty_points = np.where(hit, royalty_points * sc.home_run_multiplier, royalty_points)
    points = (row_points + bonus) * multiplier + royalty_points + foul_points + surrender_points + natural_points
    if rules.table_stakes.enabled:
        stakes = rules.table_stakes
        points = _table_stakes(a, b, slot, points, boards, stakes.stack, stakes.winner_limit == "double")
    return PairResults(
        a=a,
        b=b,
        kind=kind.astype(np.int8),
        rows=rows,
        scoop=scoop.astype(np.int8),
        row_points=row_points,
        bonus=bonus,
        royalty_points=royalty_points,
        natural_points=natural_points,
        surrender_points=surrender_points,
        foul_points=foul_points,
        multiplier=multiplier,
        points=points,
    )


def _tiebreak_keys(cards: np.ndarray, key: np.ndarray) -> np.ndarray:
    """Per board and row: the key of the row's best card (rank, then house suit order)."""
    k = key[cards]
    return np.stack([k[:, 0:3].max(axis=1), k[:, 3:8].max(axis=1), k[:, 8:13].max(axis=1)], axis=1).astype(np.int64)


def _home_run_pairs(a: np.ndarray, b: np.ndarray, scoop: np.ndarray, n: int) -> np.ndarray:
    """Pairs scooped by a board that scooped every one of its opponents, two at least."""
    opponents = np.bincount(a, minlength=n) + np.bincount(b, minlength=n)
    scoops = np.bincount(a, weights=scoop > 0, minlength=n) + np.bincount(b, weights=scoop < 0, minlength=n)
    home_run = (scoops == opponents) & (opponents >= 2)
    return ((scoop > 0) & home_run[a]) | ((scoop < 0) & home_run[b])


def _natural_points(a: np.ndarray, b: np.ndarray, boards: Boards, f: BoardFacts, c: CompiledRules) -> np.ndarray:
    """Pairs with a natural: it collects its value (or the scoop amount); of two, the stronger only."""
    n = len(boards.hand)
    kind = f.natural.astype(np.int64)
    has = kind >= 0
    safe = np.where(has, kind, 0)
    collect = np.where(c.natural_auto_scoop[safe], c.scoop_amount, c.natural_value[safe])
    collect = np.where(has, collect, 0)

    # What decides between two naturals, most significant first. Compared field by field, never packed into
    # one integer: a rule file may give a natural any value, and a packed key would overflow.
    if c.rules.naturals.precedence == "strength":
        within = np.zeros(n, dtype=np.int64)
        idx = np.flatnonzero(has)
        within[idx] = natural_strength(boards.cards[idx], kind[idx], f.strength[idx])
        # the rule set's ranking of the kinds (by value unless it gives an order), then within the kind.
        keys = (np.where(has, c.natural_rank[safe], -1), within)
    else:
        # A dragon beats every other natural; otherwise, and between two dragons, the earlier declaration wins.
        keys = ((kind == _DRAGON).astype(np.int64), -table_order(boards.seat, boards.button))

    nat_a, nat_b = f.natural[a], f.natural[b]
    both = (nat_a >= 0) & (nat_b >= 0)
    one = (nat_a >= 0) ^ (nat_b >= 0)
    winner_a, winner_b = _lexicographic_greater(keys, a, b), _lexicographic_greater(keys, b, a)
    points = np.where(one, np.where(nat_a >= 0, collect[a], -collect[b]), 0)
    return np.where(both, np.where(winner_a, collect[a], np.where(winner_b, -collect[b], 0)), points)


def _lexicographic_greater(keys: tuple[np.ndarray, ...], x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Whether board ``x``'s keys come after board ``y``'s, comparing the first key, then the next on a tie."""
    greater = np.zeros(x.size, dtype=bool)
    tied = np.ones(x.size, dtype=bool)
    for key in keys:
        greater |= tied & (key[x] > key[y])
        tied &= key[x] == key[y]
    return greater


def _table_stakes(
    a: np.ndarray,
    b: np.ndarray,
    slot: np.ndarray,
    points: np.ndarray,
    boards: Boards,
    default_stack: int,
    doubled_out: bool,
) -> np.ndarray:
    """Settle pairs in table order, capped by stacks: one vector step per pair slot. Each payment is capped by
    what the payer has left and, ``doubled_out``, by what the receiver may still win before doubling (a doubled
    player no longer settles), else by what the receiver has in front of them."""
    stack = np.where(boards.stack > 0, boards.stack, default_stack).astype(np.int64)
    balance = np.zeros(len(boards.hand), dtype=np.int64)
    settled = np.zeros_like(points)
    for s in range(int(slot.max()) + 1 if slot.size else 0):
        i = np.flatnonzero(slot == s)
        owed = points[i]
        payer = np.where(owed > 0, b[i], a[i])
        receiver = np.where(owed > 0, a[i], b[i])
        left = stack + balance
        if doubled_out:
            live = (left[payer] > 0) & (balance[payer] < stack[payer])
            live &= (left[receiver] > 0) & (balance[receiver] < stack[receiver])
            room = stack[receiver] - balance[receiver]
        else:
            live = (left[payer] > 0) & (left[receiver] > 0)
            room = left[receiver]
        pay = np.where(live, np.minimum(np.abs(owed), np.minimum(left[payer], room)), 0)
        np.add.at(balance, receiver, pay)
        np.add.at(balance, payer, -pay)
        settled[i] = np.sign(owed) * pay
    return settled
