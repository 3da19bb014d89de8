"""An independent, deliberately obvious reference scorer: one hand at a time.

The fast engine in ``pipeline.score`` is checked against this module, so this
module must not share any code with it: it reads only the rule set (the data
contract in ``schemas.rules``) and ranks 5-card hands with phevaluator. Every
rule follows ``docs/scoring.md`` literally, in the order that document states
it, so a reader can check each line against the text.
"""

from __future__ import annotations

import functools
import itertools
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from phevaluator import evaluate_cards

from ofc.schemas.rules import RuleSet

RANKS = "23456789TJQKA"
SUITS = "cdhs"
ROWS = ("top", "middle", "bottom")
ROW_SIZES = {"top": 3, "middle": 5, "bottom": 5}

# Categories on the one strength scale shared by 3- and 5-card rows.
HIGH_CARD, PAIR, TWO_PAIR, TRIPS, STRAIGHT, FLUSH, FULL_HOUSE, QUADS, STRAIGHT_FLUSH = range(9)
CATEGORY_NAMES = {
    "high card": (HIGH_CARD,),
    "pair": (PAIR,),
    "one pair": (PAIR,),
    "two pair": (TWO_PAIR,),
    "two pairs": (TWO_PAIR,),
    "trips": (TRIPS,),
    "three of a kind": (TRIPS,),
    "set": (TRIPS,),
    "straight": (STRAIGHT,),
    "flush": (FLUSH,),
    "full house": (FULL_HOUSE,),
    "quads": (QUADS,),
    "four of a kind": (QUADS,),
    "straight flush": (STRAIGHT_FLUSH,),
    "royal": (STRAIGHT_FLUSH, RANKS.index("A")),
    "royal flush": (STRAIGHT_FLUSH, RANKS.index("A")),
}
# Attribute of FiveCardRoyalties for each category.
ROYALTY_FIELD = [
    "high_card",
    "pair",
    "two_pair",
    "trips",
    "straight",
    "flush",
    "full_house",
    "quads",
    "straight_flush",
]
# Naturals, strongest kind first (docs/scoring.md, "Naturals").
NATURAL_ORDER = [
    "dragon",
    "six_pairs",
    "three_straights",
    "three_flushes",
    "no_people",
    "thirteen_one_colour",
    "twelve_one_colour",
    "triple_five_pairs",
]
"""How naturals of equal value rank when a rule set gives no order (RULES.md 5, dragon first)."""

Card = tuple[int, int]  # (rank 0..12, suit 0..3)
Key = tuple[int, ...]


# ---------------------------------------------------------------- cards


_CARDS = {r + s: (i, j) for i, r in enumerate(RANKS) for j, s in enumerate(SUITS)}


def parse_card(text: str) -> Card:
    """'As' -> (12, 3); '10d' is accepted as 'Td'."""
    if text in _CARDS:
        return _CARDS[text]
    t = text.strip()
    rank_text, suit_text = t[:-1].upper(), t[-1].lower()
    rank_text = "T" if rank_text == "10" else rank_text
    if len(rank_text) != 1 or rank_text not in RANKS or suit_text not in SUITS:
        raise ValueError(f"not a card: {text!r}")
    return RANKS.index(rank_text), SUITS.index(suit_text)


def card_id(card: Card) -> int:
    """phevaluator's card number: rank * 4 + suit (c, d, h, s)."""
    return card[0] * 4 + card[1]


def ph_rank(cards: Sequence[Card]) -> int:
    """phevaluator's 5-card value: 1 (royal flush) .. 7462 (7-5-4-3-2); lower is better."""
    return _ph_rank(tuple(cards))


@functools.lru_cache(maxsize=1 << 18)
def _ph_rank(cards: tuple[Card, ...]) -> int:
    return evaluate_cards(*(card_id(c) for c in cards))


# ---------------------------------------------------------------- strength keys


def _straight_high(ranks: list[int], wheel_counts: bool) -> int | None:
    """High rank of a 5-card straight, or None. The wheel A-2-3-4-5 is 5-high when it counts."""
    distinct = sorted(set(ranks))
    if len(distinct) != 5:
        return None
    if distinct[-1] - distinct[0] == 4:
        return distinct[-1]
    if wheel_counts and distinct == [0, 1, 2, 3, 12]:
        return 3
    return None


def hand_key(cards: Sequence[Card], wheel_counts: bool = True) -> Key:
    """(category, ranks in order of importance); tuples compare like hands.

    A 3-card row is only trips, a pair or high card. Because Python compares a
    shorter tuple below a longer one with the same prefix, a missing kicker counts
    below any card: top QQK (1, Q, K) < middle QQK53 (1, Q, K, 5, 3).
    With ``wheel_counts=False`` (2-7 lowball) A-2-3-4-5 is just ace-high.
    """
    return _row_key(tuple(cards), wheel_counts)


@functools.lru_cache(maxsize=1 << 16)
def _row_key(cards: tuple[Card, ...], wheel_counts: bool) -> Key:
    """Memoised by the row's cards: a hand compares each row several times (order rule, pairs, thresholds)."""
    ranks = tuple(sorted((r for r, _ in cards), reverse=True))
    flush = len(cards) == 5 and len({s for _, s in cards}) == 1
    return _hand_key(ranks, flush, wheel_counts)


@functools.lru_cache(maxsize=1 << 16)
def _hand_key(ranks: tuple[int, ...], flush: bool, wheel_counts: bool) -> Key:
    """A hand's strength depends only on its ranks and whether it is a flush, so few keys recur: memoised."""
    groups = sorted(Counter(ranks).items(), key=lambda rc: (rc[1], rc[0]), reverse=True)
    counts = [count for _, count in groups]
    ordered = tuple(rank for rank, _ in groups)
    if len(ranks) == 3:
        category = {3: TRIPS, 2: PAIR, 1: HIGH_CARD}[counts[0]]
        return (category, *ordered)
    if len(ranks) != 5:
        raise ValueError(f"a row has 3 or 5 cards, not {len(ranks)}")
    high = _straight_high(list(ranks), wheel_counts)
    if high is not None and flush:
        return (STRAIGHT_FLUSH, high)
    if counts[0] == 4:
        return (QUADS, *ordered)
    if counts == [3, 2]:
        return (FULL_HOUSE, *ordered)
    if flush:
        return (FLUSH, *ordered)
    if high is not None:
        return (STRAIGHT, high)
    if counts[0] == 3:
        return (TRIPS, *ordered)
    if counts[:2] == [2, 2]:
        return (TWO_PAIR, *ordered)
    if counts[0] == 2:
        return (PAIR, *ordered)
    return (HIGH_CARD, *ordered)


def ranked_key(cards: Sequence[Card], rules: RuleSet) -> Key:
    """``hand_key`` as the rule set ranks rows: with ``wheel = "second"``, A-2-3-4-5 (5-high, the only 5-high
    straight) ranks between the K-high and the A-high straight, and likewise among straight flushes."""
    key = hand_key(cards)
    if rules.scoring.wheel == "second" and key[0] in (STRAIGHT, STRAIGHT_FLUSH) and key[1] == 3:
        return (key[0], 11.5)
    return key


def low_key(cards: Sequence[Card]) -> Key:
    """2-7 lowball value: aces high, straights and flushes count; a SMALLER key is a better low."""
    return hand_key(cards, wheel_counts=False)


def _cards_of_ranks(ranks: list[int]) -> list[Card]:
    """Cards with the given ranks and mixed suits (never a flush), to turn a rank pattern into a key."""
    return [(r, i % 4) for i, r in enumerate(ranks)]


def _parse_ranks(text: str) -> list[int]:
    tokens = text.replace(",", " ").split()
    if len(tokens) == 1 and len(tokens[0]) > 1 and tokens[0] != "10":
        tokens = list(tokens[0])  # "QQ", "222"
    out = []
    for token in tokens:
        t = "T" if token == "10" else token.upper()
        if len(t) != 1 or t not in RANKS:
            raise ValueError(f"not a hand pattern: {text!r}")
        out.append(RANKS.index(t))
    return out


@functools.cache
def parse_pattern(text: str, lowball: bool) -> Callable[[Sequence[Card]], bool]:
    """A rule-file hand ("QQ", "trips", "full house", "7 5 4 3 2", "8") as a test 'row is at least this'.

    High rows: "QQ" is a pair of queens with no kicker, so any QQ hand, any higher
    pair and any better category meets it; "222" and "trips" are any trips; a
    category name is the weakest hand of that category; whole ranks are that hand.
    Lowball middle: whole ranks are a 2-7 low that must be matched or beaten; a
    single rank "8" means any 8-low or better (no pair, straight or flush, top card
    8 or lower).
    """
    norm = " ".join(text.strip().lower().split())
    if lowball:
        ranks = _parse_ranks(norm)
        if len(ranks) == 1:
            limit = ranks[0]

            def any_low_this_good(cards: Sequence[Card]) -> bool:
                key = low_key(cards)
                return key[0] == HIGH_CARD and key[1] <= limit

            return any_low_this_good
        worst = low_key(_cards_of_ranks(ranks))
        return lambda cards: low_key(cards) <= worst
    if norm in CATEGORY_NAMES:
        floor: Key = CATEGORY_NAMES[norm]
    else:
        ranks = _parse_ranks(norm)
        if len(ranks) == 1:
            floor = (HIGH_CARD, ranks[0])
        elif len(set(ranks)) == 1:
            floor = ({2: PAIR, 3: TRIPS, 4: QUADS}[len(ranks)], ranks[0])
        else:
            floor = hand_key(_cards_of_ranks(ranks))
    return lambda cards: hand_key(cards) >= floor


# ---------------------------------------------------------------- naturals


def is_dragon(cards: list[Card]) -> bool:
    return len({r for r, _ in cards}) == 13


def is_six_pairs(cards: list[Card]) -> bool:
    """Six pairs; quads count as two pairs, trips as one."""
    return sum(count // 2 for count in Counter(r for r, _ in cards).values()) >= 6


def _three_card_straights() -> list[tuple[int, ...]]:
    return [(12, 0, 1)] + [(r, r + 1, r + 2) for r in range(11)]  # A-2-3 ... Q-K-A


def _five_card_straights() -> list[tuple[int, ...]]:
    return [(12, 0, 1, 2, 3)] + [tuple(range(r, r + 5)) for r in range(9)]  # A-2-3-4-5 ... T-J-Q-K-A


@functools.cache
def _three_straight_rank_sets() -> frozenset[tuple[int, ...]]:
    """Brute force, once: the sorted ranks of every 3-straight plus two 5-straights."""
    return frozenset(
        tuple(sorted(top + a + b))
        for top in _three_card_straights()
        for a, b in itertools.combinations_with_replacement(_five_card_straights(), 2)
    )


def is_three_straights(cards: list[Card]) -> bool:
    """The ranks split into a 3-card straight and two 5-card straights (suits do not matter)."""
    return tuple(sorted(r for r, _ in cards)) in _three_straight_rank_sets()


def is_three_flushes(cards: list[Card]) -> bool:
    """Brute force: give each row a suit; the suit counts must be exactly the rows' sizes."""
    have = Counter(s for _, s in cards)
    for suits in itertools.product(range(4), repeat=3):
        need = Counter()
        for suit, size in zip(suits, (3, 5, 5), strict=True):
            need[suit] += size
        if need == have:
            return True
    return False


def is_no_people(cards: list[Card]) -> bool:
    return not any(r in (9, 10, 11) for r, _ in cards)  # no J, Q, K


def _most_of_one_colour(cards: list[Card]) -> int:
    red = sum(1 for _, s in cards if SUITS[s] in "dh")
    return max(red, len(cards) - red)


def is_thirteen_one_colour(cards: list[Card]) -> bool:
    return _most_of_one_colour(cards) == 13


def is_twelve_one_colour(cards: list[Card]) -> bool:
    return _most_of_one_colour(cards) >= 12


def is_triple_five_pairs(cards: list[Card]) -> bool:
    """One rank three times and five pairs; quads count as two pairs."""
    counts = Counter(Counter(r for r, _ in cards).values())
    return counts[3] == 1 and counts[2] + 2 * counts[4] == 5 and counts[1] == 0


NATURAL_TESTS: dict[str, Callable[[Sequence[Card]], bool]] = {
    "dragon": is_dragon,
    "six_pairs": is_six_pairs,
    "three_straights": is_three_straights,
    "three_flushes": is_three_flushes,
    "no_people": is_no_people,
    "thirteen_one_colour": is_thirteen_one_colour,
    "twelve_one_colour": is_twelve_one_colour,
    "triple_five_pairs": is_triple_five_pairs,
}


# ---------------------------------------------------------------- one board


@dataclass
class Board:
    """One player's board and everything judged about it on its own."""

    name: str
    """The board's key in the output: the player's name, or ``name#seat`` for a criss-cross player's two boards."""
    player: str
    seat: int
    rows: dict[str, list[Card]]
    in_fantasyland: bool
    surrendered: bool
    natural: str | None
    stack: int
    open_face: bool = True
    """The hand is not classic Chinese poker: only then is there Fantasyland (RULES.md part 6)."""
    table_index: int = 0
    fouled: bool = False
    royalties: dict[str, int] = field(default_factory=lambda: dict.fromkeys(ROWS, 0))
    fantasyland_next: int = 0

    @property
    def cards(self) -> list[Card]:
        return self.rows["top"] + self.rows["middle"] + self.rows["bottom"]

    @property
    def in_play(self) -> bool:
        """Judged on its rows: not surrendered and no counted natural."""
        return not self.surrendered and self.natural is None


def _top_royalty(table: int | dict[str, int], rank: int) -> int:
    """A top royalty table is one number for every rank, or points by rank ('T' or '10')."""
    if isinstance(table, int):
        return table
    for key, points in table.items():
        k = "T" if str(key).strip() == "10" else str(key).strip().upper()
        if k == RANKS[rank]:
            return points
    return 0


def row_royalty(row: str, cards: list[Card], rules: RuleSet) -> int:
    """What the row earns on a board that is not fouled (before one_per_board)."""
    roy = rules.royalties
    if row == "top":
        key = hand_key(cards)
        if key[0] == TRIPS:
            return _top_royalty(roy.top.trips, key[1])
        if key[0] == PAIR:
            return _top_royalty(roy.top.pair, key[1])
        return 0
    if row == "middle" and rules.game.lowball_middle:
        reached = [t.points for t in roy.lowball_middle.tiers if parse_pattern(t.at_least, lowball=True)(cards)]
        return max(reached, default=0)
    table = roy.middle if row == "middle" else roy.bottom
    value = ph_rank(cards)
    if value == 1:  # royal flush
        return table.royal if table.royal is not None else table.straight_flush
    return getattr(table, ROYALTY_FIELD[category_of(value)])


def category_of(ph_value: int) -> int:
    """The category of a 5-card hand from phevaluator's value ranges."""
    for upper, category in (
        (10, STRAIGHT_FLUSH),
        (166, QUADS),
        (322, FULL_HOUSE),
        (1599, FLUSH),
        (1609, STRAIGHT),
        (2467, TRIPS),
        (3325, TWO_PAIR),
        (6185, PAIR),
    ):
        if ph_value <= upper:
            return category
    return HIGH_CARD


def is_fouled(rows: dict[str, list[Card]], rules: RuleSet) -> bool:
    """The order rule on the shared scale (or, on a lowball middle, bottom >= top and a qualifying middle)."""
    if any(len(rows[row]) != ROW_SIZES[row] for row in ROWS):
        return True  # classic: a row with a wrong number of cards fouls
    top, middle, bottom = rows["top"], rows["middle"], rows["bottom"]
    if rules.game.lowball_middle:
        qualifies = parse_pattern(rules.royalties.lowball_middle.qualifier, lowball=True)
        return hand_key(top) > hand_key(bottom) or not qualifies(middle)
    if hand_key(top) > hand_key(middle):
        return True
    if rules.scoring.wheel == "second":
        m, b = ranked_key(middle, rules), ranked_key(bottom, rules)
        return m > b if rules.scoring.bottom_may_equal_middle else m >= b
    # phevaluator: lower is better.
    if rules.scoring.bottom_may_equal_middle:
        return ph_rank(middle) < ph_rank(bottom)
    return ph_rank(middle) <= ph_rank(bottom)


def meets(row: str, at_least: str, rows: dict[str, list[Card]], rules: RuleSet) -> bool:
    lowball = row == "middle" and rules.game.lowball_middle
    return parse_pattern(at_least, lowball)(rows[row])


def fantasyland_next(board: Board, rules: RuleSet) -> int:
    """docs/scoring.md 'Fantasyland': entry count, stay, and (non-exclusive) re-entry."""
    fl = rules.fantasyland
    if not fl.enabled or not board.open_face or board.fouled or not board.in_play:
        return 0
    tiers_met = [t for t in fl.entry if meets(t.row, t.at_least, board.rows, rules)]
    entry = max((t.cards for t in tiers_met), default=0)
    if fl.combined_cards is not None and len({t.row for t in tiers_met}) >= 2:
        entry = fl.combined_cards
    if not board.in_fantasyland:
        return entry
    stays = any(meets(c.row, c.at_least, board.rows, rules) for c in fl.stay)
    if stays:
        if fl.stay_cards == "earned":
            return entry if entry else min(t.cards for t in fl.entry)
        return fl.stay_cards
    if not fl.exclusive and entry:
        return entry
    return 0


def judge_board(board: Board, rules: RuleSet) -> None:
    """Fouled, royalties (after one_per_board) and next Fantasyland count of one board."""
    if not board.in_play:
        return
    board.fouled = is_fouled(board.rows, rules)
    if not board.fouled:
        board.royalties = {row: row_royalty(row, board.rows[row], rules) for row in ROWS}
        if rules.royalties.one_per_board:
            # Largest wins; on a tie the lowest row keeps it: bottom, then middle, then top.
            keep = max(("bottom", "middle", "top"), key=lambda row: board.royalties[row])
            board.royalties = {row: (board.royalties[row] if row == keep else 0) for row in ROWS}
    board.fantasyland_next = fantasyland_next(board, rules)


def counted_natural(declared: str | None, cards: list[Card], rules: RuleSet) -> str | None:
    """A declared natural counts only if enabled, listed in values, and the cards really make it."""
    if declared is None or not rules.naturals.enabled:
        return None
    if declared not in {str(kind) for kind in rules.naturals.values}:
        return None
    return declared if NATURAL_TESTS[declared](cards) else None


# ---------------------------------------------------------------- two players


@dataclass
class PairResult:
    """Points for the first player of the pair, split so home run can multiply the parts."""

    base: int
    royalties: int
    scooper: str | None  # name of the player who scooped the other, if any


def scoop_amount(rules: RuleSet) -> int:
    s = rules.scoring
    return (3 * s.row_value + s.majority_bonus + s.scoop_bonus) * s.scoop_multiplier


def natural_value(kind: str, rules: RuleSet) -> int:
    if kind in {str(k) for k in rules.naturals.auto_scoop}:
        return scoop_amount(rules)
    return {str(k): v for k, v in rules.naturals.values.items()}[kind]


def natural_strength(board: Board, rules: RuleSet) -> tuple[Any, ...]:
    """Sort key for precedence = 'strength': the kind's place in the rule set's ranking (its ``order``, else
    value and then NATURAL_ORDER), then within the kind."""
    kind = board.natural
    assert kind is not None
    values = {str(k): v for k, v in rules.naturals.values.items()}
    if rules.naturals.order is not None:
        ranking = [str(k) for k in rules.naturals.order]
    else:
        ranking = sorted(values, key=lambda k: (-values[k], NATURAL_ORDER.index(k)))
    within: tuple[Any, ...] = ()
    counts = Counter(r for r, _ in board.cards)
    if kind == "six_pairs":
        within = (max(r for r, c in counts.items() if c >= 2),)
    elif kind == "triple_five_pairs":
        within = (max(r for r, c in counts.items() if c == 3),)
    elif kind in ("three_straights", "three_flushes"):
        within = tuple(ranked_key(board.rows[row], rules) for row in ("bottom", "middle", "top"))
    return (-ranking.index(kind), within)


def natural_pair(a: Board, b: Board, rules: RuleSet) -> int:
    """Rule 1: points for a when either side has a counted natural."""
    if b.natural is None:
        assert a.natural is not None
        return natural_value(a.natural, rules)
    if a.natural is None:
        return -natural_value(b.natural, rules)
    if rules.naturals.precedence == "strength":
        sa, sb = natural_strength(a, rules), natural_strength(b, rules)
        if sa == sb:
            return 0
        return natural_value(a.natural, rules) if sa > sb else -natural_value(b.natural, rules)
    # declaration: a dragon beats any other natural; otherwise the earlier in table order wins.
    if (a.natural == "dragon") != (b.natural == "dragon"):
        a_wins = a.natural == "dragon"
    else:
        a_wins = a.table_index < b.table_index
    return natural_value(a.natural, rules) if a_wins else -natural_value(b.natural, rules)


def _best_card(cards: list[Card], suit_order: str) -> tuple[int, int]:
    """Highest rank, then the suit that comes first in suit_order."""
    return max((r, -suit_order.index(SUITS[s])) for r, s in cards)


def compare_row(row: str, a: Board, b: Board, rules: RuleSet) -> int:
    """+1 if a's row wins, -1 if b's, 0 on a tie (suit_order breaks exact ties when set)."""
    ca, cb = a.rows[row], b.rows[row]
    if row == "top":
        ka, kb = hand_key(ca), hand_key(cb)
        result = (ka > kb) - (ka < kb)
    elif row == "middle" and rules.game.lowball_middle:
        ka, kb = low_key(ca), low_key(cb)
        result = (ka < kb) - (ka > kb)  # the lower 2-7 value wins
    elif rules.scoring.wheel == "second":
        ka, kb = ranked_key(ca, rules), ranked_key(cb, rules)
        result = (ka > kb) - (ka < kb)
    else:
        va, vb = ph_rank(ca), ph_rank(cb)
        result = (va < vb) - (va > vb)  # phevaluator: lower is better
    order = rules.scoring.suit_order
    if result == 0 and order:
        ba, bb = _best_card(ca, order), _best_card(cb, order)
        result = (ba > bb) - (ba < bb)
    return result


def valid_pair(a: Board, b: Board, rules: RuleSet) -> PairResult:
    """Rule 4: two valid boards."""
    s = rules.scoring
    settlement = rules.royalties.settlement
    results = {row: compare_row(row, a, b, rules) for row in ROWS}
    won = sum(1 for r in results.values() if r > 0)
    lost = sum(1 for r in results.values() if r < 0)

    if settlement == "replace":
        row_points = 0
        for row, r in results.items():
            if r > 0:
                row_points += a.royalties[row] or s.row_value
            elif r < 0:
                row_points -= b.royalties[row] or s.row_value
    else:
        row_points = s.row_value * (won - lost)
    if settlement == "both":
        royalties = sum(a.royalties.values()) - sum(b.royalties.values())
    elif settlement == "winner":
        royalties = 0
        for row, r in results.items():
            if r > 0:
                royalties += a.royalties[row]
            elif r < 0:
                royalties -= b.royalties[row]
    else:
        royalties = 0

    # The majority bonus goes to whoever won more rows, or (majority_by = "points") to whoever collects more
    # before it: row points and royalties together.
    lead = won - lost if s.majority_by == "rows" else row_points + royalties
    majority = s.majority_bonus if lead > 0 else -s.majority_bonus if lead < 0 else 0
    if s.scoop == "all_rows":
        a_scoops, b_scoops = won == 3, lost == 3
    else:  # at least one row won and none lost
        a_scoops, b_scoops = won > 0 and lost == 0, lost > 0 and won == 0
    scoop = s.scoop_bonus if a_scoops else -s.scoop_bonus if b_scoops else 0
    scooped = a_scoops or b_scoops
    base = row_points + majority + scoop
    if scooped:
        base *= s.scoop_multiplier
    if scooped and s.multiply_royalties:
        royalties *= s.scoop_multiplier
    scooper = a.name if a_scoops else b.name if b_scoops else None
    return PairResult(base, royalties, scooper)


def foul_pair(a: Board, b: Board, rules: RuleSet) -> PairResult:
    """Rule 3: at least one fouled board (both in play)."""
    if a.fouled and b.fouled:
        return PairResult(0, 0, None)
    valid = b if a.fouled else a
    penalty = scoop_amount(rules) if rules.fouls.penalty == "scoop" else rules.fouls.penalty
    royalties = 0
    if rules.fouls.pays_royalties:
        royalties = sum(valid.royalties.values())
        if rules.scoring.multiply_royalties:
            royalties *= rules.scoring.scoop_multiplier
    sign = 1 if valid is a else -1
    return PairResult(sign * penalty, sign * royalties, valid.name)


def score_pair(a: Board, b: Board, rules: RuleSet) -> PairResult:
    """The first rule that applies: naturals, surrender, fouls, two valid boards."""
    if a.natural is not None or b.natural is not None:
        return PairResult(natural_pair(a, b, rules), 0, None)
    if a.surrendered or b.surrendered:
        cost = rules.surrender.cost
        return PairResult(cost * (b.surrendered - a.surrendered), 0, None)
    if a.fouled or b.fouled:
        return foul_pair(a, b, rules)
    return valid_pair(a, b, rules)


# ---------------------------------------------------------------- the hand


def table_order(record: dict[str, Any], boards: list[Board]) -> list[Board]:
    """Left of the button first: sort by (seat - button - 1) mod 256."""
    button = record.get("button")
    if button is None:
        button = max(b.seat for b in boards)
    return sorted(boards, key=lambda b: (b.seat - button - 1) % 256)


def read_board(index: int, player: dict[str, Any], key: str, rules: RuleSet, open_face: bool = True) -> Board:
    rows = {row: [parse_card(c) for c in player[row]] for row in ROWS}
    surrendered = bool(player.get("surrendered")) and rules.surrender.allowed
    cards = rows["top"] + rows["middle"] + rows["bottom"]
    natural = None if surrendered else counted_natural(player.get("natural"), cards, rules)
    stack = player.get("stack")
    return Board(
        name=key,
        player=player["name"],
        seat=player["seat"] if player.get("seat") is not None else index,
        rows=rows,
        in_fantasyland=bool(player.get("fantasyland")) and open_face,
        surrendered=surrendered,
        natural=natural,
        stack=stack if stack is not None else rules.table_stakes.stack,
        open_face=open_face,
    )


def settle_table_stakes(
    order: list[Board], points: dict[tuple[str, str], int], winner_limit: str = "double"
) -> dict[tuple[str, str], int]:
    """Sequential settlement, each payment capped by the payer's chips and by the receiver's room to double
    (``winner_limit = "double"``) or the receiver's chips at that moment (``"stack"``).

    ``points[(x, y)]`` is what x wins from y; pairs are settled in table order
    (first player with each later one, then the next). A broke player no longer
    settles, nor, under "double", one who has doubled.
    """
    net = {b.name: 0 for b in order}
    stack = {b.name: b.stack for b in order}

    def out(name: str) -> bool:
        broke = stack[name] + net[name] <= 0
        return broke or (winner_limit == "double" and net[name] >= stack[name])

    def room(name: str) -> int:
        return stack[name] - net[name] if winner_limit == "double" else stack[name] + net[name]

    settled: dict[tuple[str, str], int] = {}
    for i, x in enumerate(order):
        for y in order[i + 1 :]:
            if (x.name, y.name) not in points:  # criss-cross: a player's own boards do not settle
                continue
            amount = points[(x.name, y.name)]
            if amount == 0 or out(x.name) or out(y.name):
                settled[(x.name, y.name)] = 0
                continue
            receiver, payer = (x.name, y.name) if amount > 0 else (y.name, x.name)
            pay = min(abs(amount), stack[payer] + net[payer], room(receiver))
            net[receiver] += pay
            net[payer] -= pay
            settled[(x.name, y.name)] = pay if receiver == x.name else -pay
    return settled


def score_hand(record: dict[str, Any], rules: RuleSet) -> dict[str, Any]:
    """Score one hand record under one rule set (output shape shared with the fast engine)."""
    names = [p["name"] for p in record["players"]]
    seats = [p["seat"] if p.get("seat") is not None else i for i, p in enumerate(record["players"])]
    keys = [f"{n}#{s}" if names.count(n) > 1 else n for n, s in zip(names, seats, strict=True)]
    open_face = record.get("variant", "ofc") != "classic"
    boards = [read_board(i, p, keys[i], rules, open_face) for i, p in enumerate(record["players"])]
    order = table_order(record, boards)
    for i, board in enumerate(order):
        board.table_index = i
    for board in boards:
        judge_board(board, rules)

    # Criss-cross: a player's own two boards are not compared.
    pairs = {
        (a.name, b.name): score_pair(a, b, rules) for a, b in itertools.combinations(boards, 2) if a.player != b.player
    }

    # Home run: a board that scooped every opponent, two at least, has each of those pairs multiplied again.
    s = rules.scoring
    if s.home_run_multiplier > 1:
        for board in boards:
            mine = [p for (x, y), p in pairs.items() if board.name in (x, y)]
            if len(mine) >= 2 and all(p.scooper == board.name for p in mine):
                for p in mine:
                    p.base *= s.home_run_multiplier
                    if s.multiply_royalties:
                        p.royalties *= s.home_run_multiplier

    points: dict[tuple[str, str], int] = {}
    for (x, y), p in pairs.items():
        points[(x, y)] = p.base + p.royalties
        points[(y, x)] = -(p.base + p.royalties)
    if rules.table_stakes.enabled:
        settled = settle_table_stakes(order, points, rules.table_stakes.winner_limit)
        for (x, y), amount in settled.items():
            points[(x, y)], points[(y, x)] = amount, -amount

    player_of = {b.name: b.player for b in boards}
    totals = {b.player: 0 for b in boards}
    for x, y in pairs:
        totals[player_of[x]] += points[(x, y)]
        totals[player_of[y]] -= points[(x, y)]
    return {
        "hand_id": record["hand_id"],
        "rules": rules.name,
        "points": totals,
        "boards": {
            b.name: {"fouled": b.fouled, "royalties": dict(b.royalties), "fantasyland_next": b.fantasyland_next}
            for b in boards
        },
        "pairs": {f"{x}|{y}": points[(x, y)] for (x, y) in pairs},
    }


def score_records(records: list[dict[str, Any]], rules: RuleSet) -> list[dict[str, Any]]:
    """Score each record on its own."""
    return [score_hand(record, rules) for record in records]
