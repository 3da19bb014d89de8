"""Rule sets: every scoring variant of the game family, as data.

A rule set is a TOML file validated by :class:`RuleSet` (read by
:mod:`pipeline.rules.files`). The scoring engine reads its tables and switches;
no variant is a special case in code.

Hands in thresholds (Fantasyland entry and stay, the lowball qualifier and
royalty tiers) are written as a category (``"full house"``, ``"quads"``), a
rank pattern (``"QQ"`` is the lowest pair of queens, ``"222"`` the lowest
trips) or whole ranks (``"7 5 4 3 2"``). On a lowball middle they are 2-7
hands, and "at least" means at least as good a low.
"""

from __future__ import annotations

import hashlib
import json
from enum import StrEnum
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

RANKS = "23456789TJQKA"


class Model(BaseModel):
    """Strict base: unknown keys are errors, values are immutable."""

    model_config = ConfigDict(extra="forbid", frozen=True, use_attribute_docstrings=True)


class Variant(StrEnum):
    CLASSIC = "classic"
    OFC = "ofc"
    PINEAPPLE = "pineapple"
    PROGRESSIVE_PINEAPPLE = "progressive-pineapple"
    PINEAPPLE_27 = "pineapple-27"


class Dealing(StrEnum):
    CLASSIC = "classic"
    """13 cards at once, set face down, revealed together."""
    OFC = "ofc"
    """5 cards, then 8 single cards, placed face up street by street."""
    PINEAPPLE = "pineapple"
    """5 cards, then 4 streets of 3: place 2, discard 1."""


class Row(StrEnum):
    TOP = "top"
    MIDDLE = "middle"
    BOTTOM = "bottom"


class Natural(StrEnum):
    """The naturals a rule set may pay and a history may declare, each a condition on the 13 cards (the
    vocabulary of ``naturals.values`` and ``naturals.order``; docs/scoring.md says how each is tested)."""

    DRAGON = "dragon"
    """13 different ranks, 2 to A."""
    SIX_PAIRS = "six_pairs"
    """Six pairs among the 13 cards (quads count as two)."""
    THREE_STRAIGHTS = "three_straights"
    """The cards split into a 3-card straight and two 5-card straights."""
    THREE_FLUSHES = "three_flushes"
    """The cards split into a 3-card flush and two 5-card flushes."""
    NO_PEOPLE = "no_people"
    """No J, Q or K."""
    THIRTEEN_ONE_COLOUR = "thirteen_one_colour"
    """All 13 cards red (hearts and diamonds) or all black (spades and clubs)."""
    TWELVE_ONE_COLOUR = "twelve_one_colour"
    """At least 12 of the 13 cards of one colour."""
    TRIPLE_FIVE_PAIRS = "triple_five_pairs"
    """A three of a kind and five pairs (quads count as two pairs)."""


NonNegative = Annotated[int, Field(ge=0)]
NATURAL_VALUE_MAX = 1_000_000
"""The most a natural may collect: far above any house's table, and well inside the 32-bit points of results."""
NaturalValue = Annotated[int, Field(ge=0, le=NATURAL_VALUE_MAX)]


class Game(Model):
    """What is dealt and how the board is judged."""

    variant: Variant = Variant.OFC
    """The game these rules are for; hand records of this variant are scored with them."""
    dealing: Dealing = Dealing.OFC
    """How cards arrive (used by the simulator and to validate placements)."""
    lowball_middle: bool = False
    """Play the middle as 2-7 lowball: the order rule becomes bottom >= top and the middle must qualify."""
    min_players: int = Field(2, ge=2, le=4)
    """Fewest players a hand may have."""
    max_players: int = Field(4, ge=2, le=4)
    """Most players a hand may have (Pineapple: at most 3)."""
    criss_cross: bool = False
    """Two players each play two boards; a player's own two boards are not compared."""
    last_cards_face_down: bool = False
    """In 4-handed OFC the last 3 cards are placed face down (affects only what a history shows)."""
    button_moves_in_fantasyland: bool = False
    """Whether the button rotates on a hand in which someone is in Fantasyland."""

    @model_validator(mode="after")
    def _players(self) -> Game:
        if self.min_players > self.max_players:
            raise ValueError(f"min_players ({self.min_players}) is above max_players ({self.max_players})")
        if self.dealing is Dealing.PINEAPPLE and self.max_players > 3:
            raise ValueError("Pineapple deals 17 cards a player: at most 3 players")
        return self


class Scoring(Model):
    """Points between two players: row points, then bonuses, then multipliers."""

    row_value: NonNegative = 1
    """Points for each row won."""
    majority_bonus: NonNegative = 0
    """2-4 style: extra points to whoever wins more rows (2 of 3, or a scoop)."""
    scoop_bonus: NonNegative = 3
    """Extra points for winning all three rows (3 under 1-6, 1 under the scoop-only 2-4)."""
    scoop_multiplier: int = Field(1, ge=1)
    """A scoop multiplies the pair's base points by this (2 for scoop doubling and Taiwanese)."""
    home_run_multiplier: int = Field(1, ge=1)
    """Taiwanese home run: a player who scoops every opponent has those pairs multiplied again."""
    multiply_royalties: bool = False
    """Whether scoop and home-run multipliers apply to royalties too."""
    bottom_may_equal_middle: bool = True
    """The usual "better or equal" reading; False makes an exact bottom/middle tie a foul."""
    suit_order: str | None = None
    """Break exact row ties by the suit of each row's best card, highest first (e.g. "shcd");
    None: ties stand, as in western rules."""
    majority_by: Literal["rows", "points"] = "rows"
    """Who earns ``majority_bonus`` (the 2-4 "overall" point). "rows": whoever won more rows. "points": whoever
    collects more before it, the rows won and the royalties together (a player who wins one row with trips on
    top worth 3 takes it from one who won two rows); equal totals earn it for nobody."""
    scoop: Literal["all_rows", "no_row_lost"] = "all_rows"
    """What a scoop is. "all_rows": winning all three rows (a tied row cancels it). "no_row_lost": winning at
    least one row while the opponent wins none (tied rows allowed)."""
    wheel: Literal["lowest", "second"] = "lowest"
    """Where A-2-3-4-5 ranks among straights and straight flushes: "lowest" (the usual rule), or "second",
    below A-K-Q-J-T only (a house rule taken from Pai Gow)."""

    @model_validator(mode="after")
    def _majority(self) -> Scoring:
        if self.majority_by == "points" and self.majority_bonus == 0:
            raise ValueError('majority_by = "points" decides who earns majority_bonus, which is 0 here')
        return self

    @field_validator("suit_order")
    @classmethod
    def _suits(cls, v: str | None) -> str | None:
        if v is not None and sorted(v.lower()) != sorted("cdhs"):
            raise ValueError("must name each suit c, d, h, s once, highest first, e.g. 'shcd'")
        return v.lower() if v else v


class Fouls(Model):
    """What a fouled board costs. A fouled board wins no row and earns no royalty or bonus."""

    penalty: Literal["scoop"] | NonNegative = "scoop"
    """"scoop": the fouler loses as if scooped (bonuses and multipliers included); a number: a fixed amount."""
    pays_royalties: bool = True
    """The fouler also pays the opponent's royalties (OFC); classic rules usually say no."""


class FiveCardRoyalties(Model):
    """Royalty points of a 5-card row by its category; 0 where a category earns nothing."""

    high_card: NonNegative = 0
    """Points for a row with no pair."""
    pair: NonNegative = 0
    """Points for one pair."""
    two_pair: NonNegative = 0
    """Points for two pair."""
    trips: NonNegative = 0
    """Points for three of a kind (2 in the standard middle; 1 on the bottom in some tables)."""
    straight: NonNegative = 0
    """Points for a straight (A-2-3-4-5 included)."""
    flush: NonNegative = 0
    """Points for a flush."""
    full_house: NonNegative = 0
    """Points for a full house."""
    quads: NonNegative = 0
    """Points for four of a kind."""
    straight_flush: NonNegative = 0
    """Points for a straight flush below the royal."""
    royal: NonNegative | None = None
    """A royal flush; None means the straight-flush value."""


RankTable = NonNegative | dict[str, NonNegative]


class TopRoyalties(Model):
    """Royalty points of the 3-card top row: by the rank of its pair or trips."""

    pair: RankTable = Field(default_factory=lambda: {r: i + 1 for i, r in enumerate("6789TJQKA")})
    """Points by pair rank (``"6" = 1`` ... ``"A" = 9``), or one number for every pair."""
    trips: RankTable = Field(default_factory=lambda: {r: i + 10 for i, r in enumerate(RANKS)})
    """Points by trips rank (``"2" = 10`` ... ``"A" = 22``), or one number for any trips."""

    @field_validator("pair", "trips")
    @classmethod
    def _ranks(cls, v: RankTable) -> RankTable:
        if isinstance(v, dict):
            bad = [k for k in v if normalise_rank(k) is None]
            if bad:
                raise ValueError(f"not a rank: {', '.join(bad)} (use 2-9, T or 10, J, Q, K, A)")
        return v

    def points(self, kind: Literal["pair", "trips"], rank: int) -> int:
        table = getattr(self, kind)
        if isinstance(table, int):
            return table
        by_rank = {normalise_rank(k): pts for k, pts in table.items()}
        return by_rank.get(rank, 0)


class LowballTier(Model):
    """Royalty points for a lowball middle at least this good."""

    at_least: str
    """A 2-7 low, e.g. "7 5 4 3 2" or "8": this tier pays a middle at least this good."""
    points: NonNegative
    """Royalty points of this tier."""


class LowballRoyalties(Model):
    """The lowball middle: who qualifies and what a good low earns."""

    qualifier: str = "T 9 8 7 5"
    """The worst low that still qualifies (ten-low); a worse middle fouls the board."""
    tiers: list[LowballTier] = Field(default_factory=list)
    """A middle earns the points of the best tier it reaches."""


class Royalties(Model):
    """Bonus points for strong rows and how they change hands. Only a board that is not fouled earns them."""

    settlement: Literal["both", "winner", "replace"] = "both"
    """both: each player collects their own royalties from every opponent, netted;
    winner: only the row's winner collects its royalty, added to the row point;
    replace: a won row is worth its royalty instead of the row value (the row value when it has none)."""
    one_per_board: bool = False
    """Only the board's largest royalty counts."""
    top: TopRoyalties = Field(default_factory=TopRoyalties)
    middle: FiveCardRoyalties = Field(
        default_factory=lambda: FiveCardRoyalties(
            trips=2, straight=4, flush=8, full_house=12, quads=20, straight_flush=30, royal=50
        )
    )
    bottom: FiveCardRoyalties = Field(
        default_factory=lambda: FiveCardRoyalties(
            straight=2, flush=4, full_house=6, quads=10, straight_flush=15, royal=25
        )
    )
    lowball_middle: LowballRoyalties = Field(default_factory=LowballRoyalties)
    """Used instead of ``middle`` when the game plays a lowball middle."""


class Condition(Model):
    """A row holding at least a given hand."""

    row: Row
    """Which row."""
    at_least: str
    """A hand: "QQ", "trips", "222", "full house", "quads", or whole ranks; a 2-7 low on a lowball middle."""


class EntryTier(Condition):
    cards: int = Field(ge=13, le=17)
    """Cards dealt in the Fantasyland hand this tier earns."""


def _standard_entry() -> list[EntryTier]:
    return [EntryTier(row=Row.TOP, at_least="QQ", cards=13)]


def _standard_stay() -> list[Condition]:
    return [
        Condition(row=Row.TOP, at_least="trips"),
        Condition(row=Row.MIDDLE, at_least="full house"),
        Condition(row=Row.BOTTOM, at_least="quads"),
    ]


class Fantasyland(Model):
    """Entry, stay and card counts (OFC and Pineapple)."""

    enabled: bool = True
    """Whether the game has Fantasyland (never in classic dealing)."""
    entry: list[EntryTier] = Field(default_factory=_standard_entry)
    """A board that is not fouled and meets a tier enters; the most cards among the tiers met."""
    combined_cards: int | None = Field(None, ge=13, le=17)
    """Cards when tiers on two different rows are met at once (2-7: KK+ top and 7-5-4-3-2 middle)."""
    stay: list[Condition] = Field(default_factory=_standard_stay)
    """While in Fantasyland, a board that is not fouled and meets any of these earns another."""
    stay_cards: int | Literal["earned"] = 13
    """Cards of a stay: a number, or "earned" (the count the new board's entry tiers give)."""
    exclusive: bool = True
    """A player in Fantasyland can only stay: meeting an entry tier there does not re-enter."""

    @field_validator("stay_cards")
    @classmethod
    def _stay_cards(cls, v: int | str) -> int | str:
        if isinstance(v, int) and not 13 <= v <= 17:
            raise ValueError("a Fantasyland hand has 13 to 17 cards")
        return v

    @model_validator(mode="after")
    def _tiers(self) -> Fantasyland:
        if self.enabled and not self.entry:
            raise ValueError("Fantasyland is enabled but has no entry tier")
        return self


class Naturals(Model):
    """Classic special hands, declared before the reveal; never assumed when a history does not say so."""

    enabled: bool = False
    """Whether declared naturals are paid (classic dealing only)."""
    values: dict[Natural, NaturalValue] = Field(
        default_factory=lambda: {
            Natural.DRAGON: 13,
            Natural.SIX_PAIRS: 3,
            Natural.THREE_STRAIGHTS: 3,
            Natural.THREE_FLUSHES: 3,
        }
    )
    """Which naturals exist and what each collects from every opponent (0 to 1,000,000)."""
    order: list[Natural] | None = None
    """How the naturals rank against each other, strongest first: every natural of ``values`` once. None: by
    value, equal values in the order dragon, six_pairs, three_straights, three_flushes, no_people,
    thirteen_one_colour, twelve_one_colour, triple_five_pairs."""
    precedence: Literal["strength", "declaration"] = "strength"
    """Two naturals: the stronger wins; or the earlier declaration (table order) wins, a dragon beating all."""
    auto_scoop: list[Natural] = Field(default_factory=list)
    """Naturals paid as a scoop of the opponent instead of their fixed value."""

    @model_validator(mode="after")
    def _order(self) -> Naturals:
        if self.order is None:
            return self
        twice = sorted({str(n) for n in self.order if self.order.count(n) > 1})
        if twice:
            raise ValueError(f"order: {', '.join(twice)} listed twice")
        missing = [str(n) for n in self.values if n not in self.order]
        extra = [str(n) for n in self.order if n not in self.values]
        if missing or extra:
            said = [f"{', '.join(missing)} not ranked"] if missing else []
            said += [f"{', '.join(extra)} not among values"] if extra else []
            raise ValueError(f"order must rank every natural of values once: {'; '.join(said)}")
        return self

    def ranked(self) -> list[Natural]:
        """The naturals of ``values``, strongest first."""
        if self.order is not None:
            return list(self.order)
        kinds = list(Natural)
        return sorted(self.values, key=lambda n: (-self.values[n], kinds.index(n)))


class Surrender(Model):
    """Classic surrender: pay a fixed amount instead of playing the hand."""

    allowed: bool = False
    """Classic: a player may surrender instead of setting a hand."""
    cost: NonNegative = 2
    """Paid to each opponent by a player who surrenders; no royalties change hands."""


class TableStakes(Model):
    """Players may only lose the chips in front of them: settle in table order, capped."""

    enabled: bool = False
    """Whether settlement is capped by the chips in front of each player."""
    stack: int = Field(100, ge=1)
    """Each player's stack when a history does not record one."""
    winner_limit: Literal["double", "stack"] = "double"
    """How much a winner may take. "double": a player who has doubled their stack stops settling. "stack":
    each payment is also capped by what the winner has in front of them at that moment (one cannot win more
    than one has)."""


class RuleSet(Model):
    """A complete set of house rules. Every field has the standard-OFC default."""

    name: str = Field(min_length=1)
    """How results and the command line name the rule set; a file's stem when the file does not say."""
    description: str = ""
    """One line for people: what these rules are."""
    game: Game = Field(default_factory=Game)
    scoring: Scoring = Field(default_factory=Scoring)
    fouls: Fouls = Field(default_factory=Fouls)
    royalties: Royalties = Field(default_factory=Royalties)
    fantasyland: Fantasyland = Field(default_factory=Fantasyland)
    naturals: Naturals = Field(default_factory=Naturals)
    surrender: Surrender = Field(default_factory=Surrender)
    table_stakes: TableStakes = Field(default_factory=TableStakes)

    @model_validator(mode="after")
    def _consistent(self) -> RuleSet:
        classic = self.game.dealing is Dealing.CLASSIC
        if classic and self.fantasyland.enabled:
            raise ValueError("fantasyland.enabled: classic dealing has no Fantasyland")
        if not classic and self.naturals.enabled:
            raise ValueError("naturals.enabled: naturals exist only in classic dealing")
        if not classic and self.surrender.allowed:
            raise ValueError("surrender.allowed: surrender exists only in classic dealing")
        return self

    @property
    def content_hash(self) -> str:
        """Identifies the rules' content: an edited file is a new rule set.

        An option added to the model after rule sets were first keyed counts only when it is set to something
        other than its default, so a release that adds options leaves every existing rule set's key, and the
        results stored under it, as they were."""
        body = self.model_dump(mode="json", exclude={"name", "description"})
        for section, option in ADDED_OPTIONS:
            field = type(getattr(self, section)).model_fields[option]
            if body[section][option] == field.get_default(call_default_factory=True):
                del body[section][option]
        text = json.dumps(body, ensure_ascii=False, separators=(",", ":"))
        return hashlib.sha256(text.encode()).hexdigest()[:12]

    @property
    def key(self) -> str:
        """``name@hash``: how results name the rule set they were scored under."""
        return f"{self.name}@{self.content_hash}"


ADDED_OPTIONS: tuple[tuple[str, str], ...] = (
    ("scoring", "majority_by"),
    ("scoring", "scoop"),
    ("scoring", "wheel"),
    ("table_stakes", "winner_limit"),
    ("naturals", "order"),
)
"""Options added after rule sets were first keyed: (section, option). Hashed only when not at their default."""


def key_name(key: str) -> str:
    """The name part of a rule set's key (``ofc@1a2b3c4d5e6f`` -> ``ofc``)."""
    return key.rsplit("@", 1)[0]


def key_hash(key: str) -> str:
    """The content hash part of a rule set's key."""
    return key.rsplit("@", 1)[-1]


def normalise_rank(token: str) -> int | None:
    t = str(token).strip().upper()
    t = "T" if t == "10" else t
    return RANKS.index(t) if len(t) == 1 and t in RANKS else None
