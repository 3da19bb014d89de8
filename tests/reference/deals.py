"""Random but realistic hand records, to cross-check the fast scorer against the reference.

Purely random placements foul most of the time, so most boards are placed by a
cheap heuristic (strong cards low, a pair on top now and then, a low middle on
a 2-7 board) and some hands are engineered: strong boards built around a
Fantasyland top, near-ties between two players' rows (same ranks, other
suits), naturals of every kind (declared), false declarations, Fantasyland
flags, surrenders and small table-stakes stacks. Everything comes from one
``random.Random(seed)``, so a seed gives the same records every time.
"""

from __future__ import annotations

import functools
import itertools
import json
import random
from collections import defaultdict
from dataclasses import dataclass
from typing import Any

from ofc.schemas.rules import RuleSet
from tests.reference.slow_scorer import NATURAL_ORDER, NATURAL_TESTS, RANKS, SUITS, Card, ph_rank

NAMES = ["ann", "bob", "cy", "dee", "eve", "fay", "gus", "hal"]
ROWS = ("top", "middle", "bottom")
Rows = dict[str, list[Card]]
# Rank sets of the ten straights, A-high first, the wheel A-2-3-4-5 last.
STRAIGHTS_HIGH_FIRST = [frozenset(range(high - 4, high + 1)) for high in range(12, 3, -1)] + [
    frozenset({12, 0, 1, 2, 3})
]
SUIT_PERMUTATIONS = list(itertools.permutations(range(4)))


@dataclass(frozen=True)
class DealSettings:
    """The only parts of a rule set that change what is dealt (so rule sets can share records)."""

    min_players: int
    max_players: int
    classic: bool
    lowball: bool
    fantasyland: bool
    surrender: bool

    @classmethod
    def of(cls, rules: RuleSet) -> DealSettings:
        return cls(
            min_players=rules.game.min_players,
            max_players=rules.game.max_players,
            classic=str(rules.game.dealing) == "classic",
            lowball=rules.game.lowball_middle,
            fantasyland=rules.fantasyland.enabled,
            surrender=rules.surrender.allowed,
        )


def card_text(card: Card) -> str:
    return RANKS[card[0]] + SUITS[card[1]]


def _without(cards: list[Card], used: list[Card]) -> list[Card]:
    return [c for c in cards if c not in used]


# ---------------------------------------------------------------- placing 13 cards


def best_five(cards: list[Card]) -> list[Card]:
    """A strong 5 of the cards, cheaply: the best of a flush, a straight and a rank-groups candidate."""
    by_suit: dict[int, list[Card]] = defaultdict(list)
    by_rank: dict[int, list[Card]] = defaultdict(list)
    for c in sorted(cards, reverse=True):
        by_suit[c[1]].append(c)
        by_rank[c[0]].append(c)
    candidates = [suited[:5] for suited in by_suit.values() if len(suited) >= 5]
    present = by_rank.keys()
    straight = next((need for need in STRAIGHTS_HIGH_FIRST if present >= need), None)
    if straight is not None:
        candidates.append([by_rank[r][0] for r in straight])
    groups = sorted((g for g in by_rank.values() if len(g) >= 2), key=lambda g: (len(g), g[0][0]), reverse=True)
    pick: list[Card] = []
    for group in groups:
        if len(pick) + len(group) <= 5:
            pick += group
    rest = sorted((c for c in cards if c not in pick), reverse=not pick)  # kickers: low ones, or the highest
    candidates.append(pick + rest[: 5 - len(pick)])
    return min(candidates, key=ph_rank)


def low_five(cards: list[Card]) -> list[Card]:
    """A good 2-7 low from the cards: low distinct ranks, no straight, no flush if avoidable."""
    by_rank: dict[int, list[Card]] = defaultdict(list)
    for c in sorted(cards):
        by_rank[c[0]].append(c)
    ranks = sorted(by_rank)
    if len(ranks) < 5:
        chosen = [by_rank[r][0] for r in ranks]
        rest = sorted(c for c in cards if c not in chosen)
        return chosen + rest[: 5 - len(chosen)]
    # The first 5 distinct ranks, lowest first, that are not a straight (A-2-3-4-5 is none in 2-7).
    combo = next((c for c in itertools.combinations(ranks, 5) if c[-1] - c[0] != 4), tuple(ranks[:5]))
    hand = [by_rank[r][0] for r in combo]
    if len({s for _, s in hand}) == 1:  # a flush: swap in another suit where one exists
        for i, r in enumerate(combo):
            if len(by_rank[r]) > 1:
                hand[i] = by_rank[r][1]
                break
    return hand


def place_random(cards: list[Card], rng: random.Random) -> Rows:
    shuffled = cards[:]
    rng.shuffle(shuffled)
    return {"top": shuffled[:3], "middle": shuffled[3:8], "bottom": shuffled[8:]}


def place_with_top(cards: list[Card], top_group: list[Card], game: DealSettings, rng: random.Random) -> Rows:
    """The group on top with the lowest kickers; bottom strongest of the rest; middle the rest (a low one on 2-7)."""
    top = top_group + sorted(_without(cards, top_group))[: 3 - len(top_group)]
    rest = _without(cards, top)
    if game.lowball and rng.random() < 0.5:
        middle = low_five(rest)
        return {"top": top, "middle": middle, "bottom": _without(rest, middle)}
    bottom = best_five(rest)
    middle = _without(rest, bottom)
    return {"top": top, "middle": middle, "bottom": bottom}


def place_sensible(cards: list[Card], game: DealSettings, rng: random.Random) -> Rows:
    """Bottom strongest, then the middle (a low one on a 2-7 board), the rest on top; sometimes a pair on top."""
    by_rank: dict[int, list[Card]] = defaultdict(list)
    for c in cards:
        by_rank[c[0]].append(c)
    pairs = [g for r, g in sorted(by_rank.items()) if len(g) >= 2 and r >= 4]
    if pairs and rng.random() < 0.4:
        group = pairs[-1] if rng.random() < 0.7 else rng.choice(pairs)
        return place_with_top(cards, group[:3] if rng.random() < 0.3 else group[:2], game, rng)
    if game.lowball and rng.random() < 0.5:
        middle = low_five(cards)
        bottom = best_five(_without(cards, middle))
    else:
        bottom = best_five(cards)
        rest = _without(cards, bottom)
        middle = low_five(rest) if game.lowball else best_five(rest)
    return {"top": _without(cards, middle + bottom), "middle": middle, "bottom": bottom}


def place_around(row: str, fixed: list[Card], others: list[Card], game: DealSettings) -> Rows:
    """Keep one row as given and place the other cards sensibly in the two other rows."""
    if row == "top":
        bottom = best_five(others)
        return {"top": fixed, "middle": _without(others, bottom), "bottom": bottom}
    if row == "middle":
        bottom = best_five(others)
        return {"top": _without(others, bottom), "middle": fixed, "bottom": bottom}
    middle = low_five(others) if game.lowball else best_five(others)
    return {"top": _without(others, middle), "middle": middle, "bottom": fixed}


# ---------------------------------------------------------------- engineered deals


def _take(deck: list[Card], rank: int, count: int, rng: random.Random) -> list[Card]:
    """count cards of the rank from the deck (removed from it), or none if too few are left."""
    options = [c for c in deck if c[0] == rank]
    if len(options) < count:
        return []
    cards = rng.sample(options, count)
    for c in cards:
        deck.remove(c)
    return cards


def _take_ranks(deck: list[Card], ranks: list[int], rng: random.Random) -> list[Card] | None:
    """One card of each listed rank (a rank may repeat); the deck is unchanged when that is impossible."""
    need = {r: ranks.count(r) for r in ranks}
    if any(sum(1 for c in deck if c[0] == r) < n for r, n in need.items()):
        return None
    return [c for r, n in need.items() for c in _take(deck, r, n, rng)]


def strong_board(deck: list[Card], game: DealSettings, rng: random.Random) -> Rows:
    """A board built around a Fantasyland top (QQ+ or trips) with made hands for the lower rows."""
    ranks = list(range(13))
    rng.shuffle(ranks)
    if rng.random() < 0.3:
        top_rank, top_count = ranks[0], 3
    else:
        top_rank, top_count = rng.choice([11, 12] if game.lowball else [10, 11, 12]), 2
    top_group = _take(deck, top_rank, top_count, rng)
    cards = list(top_group)
    others = [r for r in ranks if r != top_rank]
    if game.lowball:
        cards += _take(deck, others[0], 3, rng)
        low = [5, 3, 2, 1, 0] if rng.random() < 0.5 else rng.sample(range(8), 5)
        cards += _take_ranks(deck, [r for r in low if r != top_rank], rng) or []
    else:
        cards += _take(deck, others[0], rng.choice([3, 4]), rng)
        cards += _take(deck, others[1], rng.choice([2, 3]), rng)
    del cards[13:]
    while len(cards) < 13:
        cards.append(deck.pop())
    return place_with_top(cards, top_group, game, rng)


def make_natural(kind: str, deck: list[Card], game: DealSettings, rng: random.Random) -> Rows | None:
    """13 cards taken from the deck that really make the natural, placed in rows; None if the deck cannot."""
    if kind == "dragon":
        cards = _take_ranks(deck, list(range(13)), rng)
        return place_sensible(cards, game, rng) if cards else None
    if kind == "six_pairs":
        cards = _take_ranks(deck, rng.sample(range(13), 6) * 2, rng)
        return place_sensible([*cards, deck.pop()], game, rng) if cards else None
    if kind == "three_straights":
        top = rng.choice([(12, 0, 1)] + [(r, r + 1, r + 2) for r in range(11)])
        fives = [(12, 0, 1, 2, 3)] + [tuple(range(r, r + 5)) for r in range(9)]
        low, high = sorted(rng.sample(range(10), 2)) if rng.random() < 0.9 else [rng.randrange(10)] * 2
        placed: Rows = {}
        for row, ranks in zip(ROWS, (top, fives[low], fives[high]), strict=True):
            cards = _take_ranks(deck, list(ranks), rng)
            if cards is None:
                deck += [c for row_cards in placed.values() for c in row_cards]  # give them back
                return None
            placed[row] = cards
        return placed
    if kind == "three_flushes":
        suits = [rng.randrange(4) for _ in range(3)]
        need = {s: sum(size for t, size in zip(suits, (3, 5, 5), strict=True) if t == s) for s in suits}
        if any(sum(1 for c in deck if c[1] == s) < n for s, n in need.items()):
            return None
        rows = []
        for suit, size in zip(suits, (3, 5, 5), strict=True):
            rows.append(rng.sample([c for c in deck if c[1] == suit], size))
            for c in rows[-1]:
                deck.remove(c)
        middle, bottom = sorted(rows[1:], key=ph_rank, reverse=True)
        return {"top": rows[0], "middle": middle, "bottom": bottom}
    if kind == "no_people":
        options = [c for c in deck if c[0] not in (9, 10, 11)]
        if len(options) < 13:
            return None
        cards = rng.sample(options, 13)
        for c in cards:
            deck.remove(c)
        return place_sensible(cards, game, rng)
    if kind in ("thirteen_one_colour", "twelve_one_colour"):
        colour = rng.choice([(1, 2), (0, 3)])  # red: diamonds and hearts; black: clubs and spades
        same = [c for c in deck if c[1] in colour]
        other = [c for c in deck if c[1] not in colour]
        n = 13 if kind == "thirteen_one_colour" else 12
        if len(same) < n or len(other) < 13 - n:
            return None
        cards = rng.sample(same, n) + rng.sample(other, 13 - n)
        for c in cards:
            deck.remove(c)
        return place_sensible(cards, game, rng)
    if kind == "triple_five_pairs":
        ranks = rng.sample(range(13), 6)
        cards = _take_ranks(deck, [ranks[0]] * 3 + ranks[1:] * 2, rng)
        return place_sensible(cards, game, rng) if cards else None
    raise ValueError(kind)


def _near_tie_row(row_cards: list[Card], deck: list[Card], rng: random.Random) -> list[Card] | None:
    """The same ranks in other suits (one suit permutation, so a flush stays a flush), taken from the deck."""
    start = rng.randrange(len(SUIT_PERMUTATIONS))
    for perm in SUIT_PERMUTATIONS[start:] + SUIT_PERMUTATIONS[:start]:
        copy = [(r, perm[s]) for r, s in row_cards]
        if all(perm[s] != s for _, s in row_cards) and all(c in deck for c in copy):
            for c in copy:
                deck.remove(c)
            return copy
    return None


def equal_rows_board(deck: list[Card], rng: random.Random) -> Rows | None:
    """Middle and bottom of exactly equal rank (same ranks, other suits): valid, or a foul when
    the bottom must beat the middle."""
    eight = _deal(deck, 8)
    middle = best_five(eight)
    bottom = _near_tie_row(middle, deck, rng)
    if bottom is None:
        deck += eight
        return None
    return {"top": _without(eight, middle), "middle": middle, "bottom": bottom}


def _deal(deck: list[Card], n: int) -> list[Card]:
    cards = deck[-n:]
    del deck[-n:]
    return cards


# ---------------------------------------------------------------- one hand


def one_record(hand_id: str, game: DealSettings, rng: random.Random) -> dict[str, Any]:
    """One legal hand for the game, from one shuffled deck (the variant is filled in by the caller)."""
    k = rng.randint(game.min_players, game.max_players)
    deck: list[Card] = [(r, s) for r in range(13) for s in range(4)]
    rng.shuffle(deck)
    boards: list[Rows | None] = [None] * k
    natural: list[str | None] = [None] * k
    in_fantasyland = [game.fantasyland and rng.random() < 0.15 for _ in range(k)]

    # Naturals first: they need particular cards.
    if game.classic and rng.random() < 0.15:
        for i in rng.sample(range(k), 2 if rng.random() < 0.2 else 1):
            kind = rng.choice(NATURAL_ORDER)
            boards[i] = make_natural(kind, deck, game, rng)
            natural[i] = kind if boards[i] is not None else None

    # Near-ties: one player's row copied in other suits onto another player's board.
    free = [i for i in range(k) if boards[i] is None]
    if len(free) >= 2 and rng.random() < 0.25:
        a, b = rng.sample(free, 2)
        cards_a = _deal(deck, 13)
        rows_a = place_sensible(cards_a, game, rng) if rng.random() < 0.85 else place_random(cards_a, rng)
        boards[a] = rows_a
        row = rng.choice(ROWS)
        copy = _near_tie_row(rows_a[row], deck, rng)
        if copy is not None:
            boards[b] = place_around(row, copy, _deal(deck, 13 - len(copy)), game)

    for i in range(k):
        if boards[i] is not None:
            continue
        roll = rng.random()
        if roll < (0.35 if in_fantasyland[i] else 0.1):
            boards[i] = strong_board(deck, game, rng)
        elif roll > 0.96 and not game.lowball:
            boards[i] = equal_rows_board(deck, rng) or place_sensible(_deal(deck, 13), game, rng)
        elif roll < 0.5:
            boards[i] = place_random(_deal(deck, 13), rng)
        else:
            boards[i] = place_sensible(_deal(deck, 13), game, rng)

    use_seats = rng.random() < 0.85
    seats = rng.sample(range(8), k) if use_seats else list(range(k))
    names = rng.sample(NAMES, k)
    if k == 4 and rng.random() < 0.06:
        names[2], names[3] = names[0], names[1]  # criss-cross: two players, two boards each
    players: list[dict[str, Any]] = []
    for i in range(k):
        rows = boards[i]
        assert rows is not None
        player: dict[str, Any] = {"name": names[i]}
        if use_seats:
            player["seat"] = seats[i]
        player.update({row: [card_text(c) for c in rows[row]] for row in ROWS})
        if in_fantasyland[i] or rng.random() < 0.5:
            player["fantasyland"] = in_fantasyland[i]
        declared = natural[i]
        if game.classic and declared is None and rng.random() < 0.04:
            # A declaration the cards do not support: the scorer must ignore it.
            cards = rows["top"] + rows["middle"] + rows["bottom"]
            wrong = [kind for kind in NATURAL_ORDER if not NATURAL_TESTS[kind](cards)]
            declared = rng.choice(wrong) if wrong else None
        if declared is not None or rng.random() < 0.3:
            player["natural"] = declared
        if game.classic and declared is None and rng.random() < 0.03:
            player["top"].append(player["middle"].pop())  # misset: 4 / 4 / 5 fouls in classic
        surrender_rate = 0.05 if game.surrender else 0.02  # when not allowed, the flag must be ignored
        if game.classic and declared is None and rng.random() < surrender_rate:
            player["surrendered"] = True
        elif rng.random() < 0.3:
            player["surrendered"] = False
        roll = rng.random()
        if roll < 0.5:
            player["stack"] = rng.randint(3, 20)
        elif roll < 0.6:
            player["stack"] = rng.randint(1, 200)
        elif roll < 0.75:
            player["stack"] = None
        players.append(player)

    record: dict[str, Any] = {"hand_id": hand_id}
    if rng.random() < 0.8:
        record["button"] = rng.choice(seats)
    record["players"] = players
    return record


@functools.lru_cache(maxsize=8)
def _records_for_game(n: int, game: DealSettings, seed: int) -> str:
    """Rule sets that deal the same game share records (generating them is the slow part).

    Kept as JSON text: every caller gets its own fresh objects, and a large cache
    of small dicts and lists would slow Python's garbage collector for everyone.
    """
    rng = random.Random(seed)
    return json.dumps([one_record(f"{seed}-{i}", game, rng) for i in range(n)])


def random_records(n: int, rules: RuleSet, seed: int) -> list[dict[str, Any]]:
    """n legal, varied hand records for the rule set's game; the same seed gives the same records."""
    records = json.loads(_records_for_game(n, DealSettings.of(rules), seed))
    for record in records:
        record["variant"] = str(rules.game.variant)
    return records
