"""The classic and Fantasyland arrangers, checked with the scoring engine and by brute force.

Brute force here is plain numpy over every setting (and, in Fantasyland, every
discard), evaluated with the project's evaluator and valued with the classic
model's tables or, in Fantasyland, the engine's royalties and stay, so it
shares no search code with the compiled kernels.
"""

from __future__ import annotations

from functools import cache
from itertools import combinations, product

import numpy as np
import pytest

from ofc.pipeline.cards import NO_CARD, deal, parse_row
from ofc.pipeline.evaluate import evaluate_boards, fouled, lookup_tables, lowball27
from ofc.pipeline.rules.compile import compile_rules
from ofc.pipeline.rules.files import load_rules
from ofc.pipeline.score.engine import BoardFacts, Boards, board_facts, score
from ofc.pipeline.score.naturals import natural_kinds
from ofc.pipeline.simulate.arrange import (
    N_LOW,
    TIE_BREAK,
    ClassicSet,
    arrange_classic,
    arrange_fantasyland,
    classic_model,
    fantasyland_tables,
    greedy_boards,
)
from ofc.schemas.rules import Natural, Naturals, RuleSet, Surrender

CATEGORY = lookup_tables.CATEGORY


def hand(text: str) -> np.ndarray:
    return parse_row(text)[None, :].astype(np.uint8)


def facts(boards: np.ndarray, rules: RuleSet, *, in_fantasyland: bool = False) -> BoardFacts:
    n = boards.shape[0]
    table = Boards.build(hand=np.arange(n), seat=np.zeros(n), cards=boards, in_fantasyland=np.full(n, in_fantasyland))
    return board_facts(table, compile_rules(rules))


def same_cards(boards: np.ndarray, dealt: np.ndarray) -> bool:
    return bool((np.sort(boards, axis=1) == np.sort(dealt, axis=1)).all())


def heads_up(a: np.ndarray, b: np.ndarray, rules: RuleSet) -> np.ndarray:
    """Engine points of board ``a[i]`` against board ``b[i]``."""
    n = a.shape[0]
    cards = np.stack([a, b], axis=1).reshape(-1, 13)
    return score(Boards.build(hand=np.repeat(np.arange(n), 2), seat=np.tile([0, 1], n), cards=cards), rules).net[0::2]


@pytest.fixture(scope="module")
def classic() -> RuleSet:
    return load_rules("classic-1-6")


# ------------------------------------------------------------------ classic


@cache
def all_settings() -> np.ndarray:
    """(72072, 13) positions of every top/middle/bottom split of 13 cards, enumerated directly."""
    out = []
    for top in combinations(range(13), 3):
        rest = [p for p in range(13) if p not in top]
        out.extend((*top, *mid, *(p for p in rest if p not in mid)) for mid in combinations(rest, 5))
    return np.array(out)


def classic_objective(boards: np.ndarray, rules: RuleSet) -> np.ndarray:
    """The model's expected points of each board, from its tables in plain numpy (the majority bonus by
    enumerating all 27 row outcomes)."""
    m = classic_model(rules)
    top, mid, bot = (s.astype(np.int64) for s in evaluate_boards(boards))
    if m.lowball:
        mid = N_LOW - 1 - lowball27(boards[:, 3:8]).astype(np.int64)
        valid = (mid >= m.qualifier) & (top < bot)
    else:
        valid = ~fouled(top, mid, bot, bottom_may_equal_middle=not m.strict)
    g = np.stack([top, mid, bot])
    rows = np.arange(3)[:, None]
    win, lose, add, roy = m.win[rows, g], m.lose[rows, g], m.additive[rows, g], m.royalty[rows, g]
    tie = 1 - win - lose
    ahead = np.zeros(boards.shape[0])
    behind = np.zeros(boards.shape[0])
    for outcome in product((1, 0, -1), repeat=3):
        p = np.prod([{1: win, 0: tie, -1: lose}[o][r] for r, o in enumerate(outcome)], axis=0)
        ahead += p * (sum(outcome) > 0)
        behind += p * (sum(outcome) < 0)
    own = roy.max(axis=0) if m.one_per_board else roy.sum(axis=0)
    value = add.sum(axis=0) + m.scoop * (win.prod(axis=0) - lose.prod(axis=0)) + m.majority * (ahead - behind)
    value += m.own_weight * own + m.constant
    return np.where(valid, value, m.foul)


@pytest.mark.parametrize(
    ("text", "bottom", "middle"),
    [
        pytest.param(
            "Ah Ad Ac As 2c 3h 7h 9h Jh Kh 4d 6s 8c", lookup_tables.QUADS, lookup_tables.FLUSH, id="quads-flush"
        ),
        pytest.param(
            "9s Ts Js Qs Ks 4c 4d 4h 4s 2d 7c 8h 3c", lookup_tables.STRAIGHT_FLUSH, lookup_tables.QUADS, id="sf-quads"
        ),
    ],
)
def test_classic_puts_made_hands_where_they_belong(text: str, bottom: int, middle: int, classic: RuleSet) -> None:
    dealt = hand(text)
    result = arrange_classic(dealt, classic)
    _, mid, bot = evaluate_boards(result.cards)
    assert same_cards(result.cards, dealt)
    assert (CATEGORY[bot[0]], CATEGORY[mid[0]]) == (bottom, middle)
    assert not facts(result.cards, classic).fouled[0]
    assert result.natural[0] is None
    assert not result.surrender[0]
    assert result.expected[0] > 3


@pytest.mark.parametrize("name", ["classic-1-6", "classic-2-4", "classic-wikipedia", "taiwanese"])
def test_classic_never_fouls_and_keeps_the_cards(name: str) -> None:
    rules = load_rules(name)
    dealt = deal(1_000, 13, np.random.default_rng(11))
    result = arrange_classic(dealt, rules)
    assert result.cards.dtype == np.uint8
    assert same_cards(result.cards, dealt)
    board = facts(result.cards, rules)
    assert not board.fouled.any()
    assert np.isfinite(result.expected).all()
    assert (classic_model(rules).royalty[np.arange(3), goodness(board, rules)] == board.royalties).all()


def variant(name: str, **sections: dict[str, object]) -> RuleSet:
    """A preset with fields of some sections changed: ``variant("ofc", royalties={"one_per_board": True})``."""
    rules = load_rules(name)
    return rules.model_copy(
        update={key: getattr(rules, key).model_copy(update=fields) for key, fields in sections.items()}
    )


@pytest.mark.parametrize(
    "rules",
    [
        pytest.param(variant("classic-1-6"), id="classic-1-6"),
        pytest.param(variant("classic-2-4"), id="classic-2-4"),
        pytest.param(variant("classic-wikipedia"), id="classic-wikipedia"),
        pytest.param(variant("taiwanese", scoring={"bottom_may_equal_middle": False}), id="taiwanese-strict"),
        pytest.param(variant("classic-1-6", game={"lowball_middle": True}), id="classic-2-7-middle"),
        pytest.param(variant("classic-1-6", royalties={"one_per_board": True, "settlement": "both"}), id="one-royalty"),
    ],
)
def test_classic_is_the_exhaustive_best(rules: RuleSet) -> None:
    """The kernel's choice is worth the maximum over all 72,072 settings, scored in numpy."""
    positions = all_settings()
    dealt = deal(3, 13, np.random.default_rng(5))
    result = arrange_classic(dealt, rules)
    for i in range(dealt.shape[0]):
        values = classic_objective(dealt[i][positions], rules)
        chosen = classic_objective(result.cards[i : i + 1], rules)[0]
        assert result.expected[i] == pytest.approx(values.max(), abs=1e-9)
        assert chosen == pytest.approx(values.max(), abs=1e-9)


@pytest.fixture(scope="module")
def duel(classic: RuleSet) -> tuple[np.ndarray, ClassicSet, np.ndarray]:
    """2,000 hands set by the arranger, and an arranged opponent board for each."""
    dealt = deal(2_000, 26, np.random.default_rng(3))
    mine = dealt[:, :13]
    return mine, arrange_classic(mine, classic), arrange_classic(dealt[:, 13:], classic).cards


def test_classic_beats_the_greedy_setter(duel: tuple[np.ndarray, ClassicSet, np.ndarray], classic: RuleSet) -> None:
    """The same 13 cards set by the arranger and by the greedy setter, against the same arranged opponent."""
    dealt, mine, opponent = duel
    gain = (
        heads_up(mine.cards, opponent, classic) - heads_up(greedy_boards(dealt, classic)[0], opponent, classic)
    ).astype(np.float64)
    assert gain.mean() > 4 * gain.std() / np.sqrt(gain.size)
    assert gain.mean() > 0.5


def test_classic_expected_points_track_the_engine(
    duel: tuple[np.ndarray, ClassicSet, np.ndarray], classic: RuleSet
) -> None:
    """The model's estimate is informative: it correlates with the points the engine gives against the field."""
    _, mine, opponent = duel
    points = heads_up(mine.cards, opponent, classic)
    assert np.corrcoef(mine.expected, points)[0, 1] > 0.4
    low, high = mine.expected < np.quantile(mine.expected, 0.25), mine.expected > np.quantile(mine.expected, 0.75)
    assert points[high].mean() > points[low].mean() + 2


def test_classic_declares_naturals_the_rules_list(classic: RuleSet) -> None:
    dragon = hand("2c 3d 4h 5s 6c 7d 8h 9s Tc Jd Qh Kc As")
    six_pairs = hand("2c 2d 3h 3s 4c 4d 5h 5s 6c 6d 7h 7s 9c")
    both = np.concatenate([dragon, six_pairs])
    assert list(arrange_classic(both, classic).natural) == [Natural.DRAGON, Natural.SIX_PAIRS]

    no_six = classic.model_copy(
        update={"naturals": classic.naturals.model_copy(update={"values": {Natural.DRAGON: 13}})}
    )
    assert list(arrange_classic(both, no_six).natural) == [Natural.DRAGON, None]
    disabled = classic.model_copy(update={"naturals": Naturals(enabled=False)})
    assert list(arrange_classic(both, disabled).natural) == [None, None]


def test_classic_naturals_on_random_hands_are_counted_by_the_engine(
    duel: tuple[np.ndarray, ClassicSet, np.ndarray], classic: RuleSet
) -> None:
    dealt, mine, _ = duel
    declared = np.array([-1 if k is None else list(Natural).index(k) for k in mine.natural])
    assert (declared >= 0).sum() > 10
    made = natural_kinds(dealt) & (compile_rules(classic).natural_value >= 0)
    assert not (made.any(axis=1) & (declared < 0) & (mine.expected < 3)).any()  # a 3-point natural beats these
    n = dealt.shape[0]
    table = Boards.build(hand=np.arange(n), seat=np.zeros(n), cards=mine.cards, natural=declared)
    assert (board_facts(table, compile_rules(classic)).natural == declared).all()


def test_classic_surrender_threshold(duel: tuple[np.ndarray, ClassicSet, np.ndarray], classic: RuleSet) -> None:
    dealt, default, _ = duel
    declared = np.array([k is not None for k in default.natural])
    assert (default.surrender == ((default.expected < -classic.surrender.cost) & ~declared)).all()
    assert default.surrender.any()

    custom = arrange_classic(dealt, classic, surrender_below=0.5)
    assert (custom.surrender == ((custom.expected < 0.5) & ~declared)).all()
    assert custom.surrender.sum() > default.surrender.sum()
    assert (custom.cards == default.cards).all()

    barred = classic.model_copy(update={"surrender": Surrender(allowed=False)})
    assert not arrange_classic(dealt[:300], barred, surrender_below=100).surrender.any()


def test_classic_is_deterministic_and_per_hand(classic: RuleSet) -> None:
    dealt = deal(200, 13, np.random.default_rng(10))
    whole = arrange_classic(dealt, classic)
    again = arrange_classic(dealt, classic)
    part = arrange_classic(dealt[50:60], classic)
    assert (whole.cards == again.cards).all()
    assert (whole.expected == again.expected).all()
    assert (whole.cards[50:60] == part.cards).all()
    assert (whole.expected[50:60] == part.expected).all()


@pytest.mark.parametrize(
    "bad",
    [
        np.zeros((2, 12), np.uint8),
        np.tile(np.arange(13, dtype=np.uint8), (2, 1)) * np.array([[1], [0]], np.uint8),
        np.array([[*range(12), 52]], np.uint8),
    ],
    ids=["width", "repeat", "code"],
)
def test_classic_rejects_bad_hands(bad: np.ndarray, classic: RuleSet) -> None:
    with pytest.raises(ValueError, match=r"hands|expected"):
        arrange_classic(bad, classic)


# ------------------------------------------------------------------ Fantasyland


def goodness(f: BoardFacts, rules: RuleSet) -> np.ndarray:
    """(N, 3) row goodness of the engine's strengths: higher is better, a 2-7 middle turned round."""
    g = f.strength.astype(np.int64)
    if rules.game.lowball_middle:
        g[:, 1] = N_LOW - 1 - g[:, 1]
    return g


def fantasyland_objective(boards: np.ndarray, rules: RuleSet, stay_value: float) -> np.ndarray:
    """Royalties plus the stay value plus the tie break, from the engine; -inf for a fouled board."""
    f = facts(boards, rules, in_fantasyland=True)
    g = goodness(f, rules)
    scale = np.full(3, float(lookup_tables.N_STRENGTHS))
    if rules.game.lowball_middle:
        scale[1] = N_LOW
    value = f.royalties.sum(axis=1) + stay_value * (f.fantasyland_next > 0) + TIE_BREAK * (g / scale).sum(axis=1)
    return np.where(f.fouled, -np.inf, value)


def has_qualifying_low(dealt: np.ndarray, rules: RuleSet) -> np.ndarray:
    """Whether any 5 of each hand's cards make a middle that qualifies (then some setting is valid)."""
    k = dealt.shape[1]
    subsets = dealt[:, list(combinations(range(k), 5))]
    low = lowball27(subsets.reshape(-1, 5)).reshape(dealt.shape[0], -1)
    return (low <= compile_rules(rules).qualifier).any(axis=1)


FANTASYLAND_CASES = [("ofc", 13), ("pineapple", 14)] + [("progressive-pineapple", k) for k in (15, 16, 17)]
FANTASYLAND_CASES += [("pineapple-27", k) for k in (14, 15, 16, 17)]


@pytest.mark.parametrize(("name", "k"), FANTASYLAND_CASES)
def test_fantasyland_never_fouls_and_beats_greedy(name: str, k: int) -> None:
    rules = load_rules(name)
    dealt = deal(2_000, k, np.random.default_rng(k))
    rows, discards = arrange_fantasyland(dealt, rules)
    assert rows.shape == (2_000, 13)
    assert discards.shape == (2_000, k - 13)
    assert same_cards(np.concatenate([rows, discards], axis=1), dealt)

    mine = facts(rows, rules, in_fantasyland=True)
    if rules.game.lowball_middle:
        assert mine.fouled.sum() < 0.05 * dealt.shape[0]
        assert not has_qualifying_low(dealt[mine.fouled], rules).any()
    else:
        assert not mine.fouled.any()
    valid = ~mine.fouled
    own = fantasyland_tables(rules).royalty[np.arange(3), goodness(mine, rules)]
    assert (own[valid] == mine.royalties[valid]).all()

    greedy = greedy_boards(dealt, rules)[0]
    ours, baseline = fantasyland_objective(rows, rules, 10.0), fantasyland_objective(greedy, rules, 10.0)
    assert (ours[~mine.fouled] >= baseline[~mine.fouled] - 1e-9).all()
    assert mine.royalties.sum(axis=1).mean() > facts(greedy, rules, in_fantasyland=True).royalties.sum(axis=1).mean()


@pytest.mark.parametrize(
    ("rules", "k", "hands"),
    [
        pytest.param(variant("ofc"), 13, 4, id="ofc-13"),
        pytest.param(variant("pineapple"), 14, 2, id="pineapple-14"),
        pytest.param(variant("pineapple-27"), 14, 2, id="pineapple-27-14"),
        pytest.param(
            variant(
                "progressive-pineapple",
                royalties={"one_per_board": True},
                fantasyland={"exclusive": False},
                scoring={"bottom_may_equal_middle": False},
            ),
            13,
            4,
            id="one-royalty-strict-reentry-13",
        ),
    ],
)
def test_fantasyland_is_the_exhaustive_best(rules: RuleSet, k: int, hands: int) -> None:
    """Every discard and every setting, scored by the engine: none is worth more than the arranger's choice."""
    positions = all_settings()
    dealt = deal(hands, k, np.random.default_rng(100 + k))
    rows, _ = arrange_fantasyland(dealt, rules)
    chosen = fantasyland_objective(rows, rules, 10.0)
    for i in range(hands):
        keep = [[j for j in range(k) if j != discard] for discard in range(k)] if k > 13 else [list(range(13))]
        boards = dealt[i][keep][:, positions].reshape(-1, 13)
        assert chosen[i] == pytest.approx(fantasyland_objective(boards, rules, 10.0).max(), abs=1e-9)


def test_fantasyland_stay_value_trades_royalties_for_staying() -> None:
    rules = load_rules("progressive-pineapple")
    dealt = deal(1_500, 16, np.random.default_rng(16))
    royalties_only = arrange_fantasyland(dealt, rules, stay_value=0.0)[0]
    staying = arrange_fantasyland(dealt, rules)[0]
    plain, keen = facts(royalties_only, rules, in_fantasyland=True), facts(staying, rules, in_fantasyland=True)
    assert keen.fantasyland_stay.mean() > plain.fantasyland_stay.mean()
    assert plain.royalties.sum(axis=1).mean() >= keen.royalties.sum(axis=1).mean()
    assert (plain.royalties.sum(axis=1) >= keen.royalties.sum(axis=1)).all()
    objective = fantasyland_objective(staying, rules, 10.0)
    assert (objective >= fantasyland_objective(royalties_only, rules, 10.0) - 1e-9).all()


def test_fantasyland_mixed_widths_pad_discards() -> None:
    """A batch as wide as its widest hand: shorter hands are padded and set exactly as alone."""
    rules = load_rules("progressive-pineapple")
    rng = np.random.default_rng(12)
    widths = np.array([14, 17, 15, 16, 14, 17])
    dealt = deal(widths.size, 17, rng)
    padded = np.where(np.arange(17)[None, :] < widths[:, None], dealt, NO_CARD).astype(np.uint8)
    rows, discards = arrange_fantasyland(padded, rules)
    for i, k in enumerate(widths):
        alone_rows, alone_discards = arrange_fantasyland(dealt[i : i + 1, :k], rules)
        assert (rows[i] == alone_rows[0]).all()
        assert (discards[i, : k - 13] == alone_discards[0]).all()
        assert (discards[i, k - 13 :] == NO_CARD).all()


def test_fantasyland_rejects_what_it_cannot_set() -> None:
    rules = load_rules("pineapple")
    with pytest.raises(ValueError, match="no Fantasyland"):
        arrange_fantasyland(deal(1, 14, np.random.default_rng(0)), load_rules("classic-1-6"))
    with pytest.raises(ValueError, match="stay_value"):
        arrange_fantasyland(deal(1, 14, np.random.default_rng(0)), rules, stay_value=-1)
    gap = deal(1, 15, np.random.default_rng(0))
    gap[0, 13] = NO_CARD
    with pytest.raises(ValueError, match="padding"):
        arrange_fantasyland(gap, rules)
    short = deal(1, 14, np.random.default_rng(0))
    short[0, 12:] = NO_CARD
    with pytest.raises(ValueError, match="fewer than 13"):
        arrange_fantasyland(short, rules)
