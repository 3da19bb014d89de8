"""The rules a hand was played by, and which rule sets can score it at all.

Every hand has a *native* rule set: the one its recorded house rules name, when they name a rule set the lake
knows and it fits the hand's variant; otherwise its variant's preset (``VARIANT_PRESETS``). A name is looked
up as a key first (``name@hash``, exact), then as a name: a rule file given to the run, else the rule set of
that name recorded in the lake last, else the preset. So a house file named like a preset, once given, stays
the rules its hands were played by until another rule set of that name is given. Play figures are read under
native rules unless a user asks "as if every hand had been played under X".

A rule set *applies* to a variant when it plays the middle the way the variant does: a board set for a 2-7
lowball middle and one set for a high middle answer different order rules, so scoring one under the other
says nothing (nearly every board would foul). Fantasyland exists only in open-face hands: a classic hand never
enters, stays in or plays it, whatever rule set scores it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from enum import StrEnum
from functools import cache

from ofc.pipeline.game import facts
from ofc.pipeline.rules.files import load_rules, preset_names
from ofc.pipeline.rules.thresholds import threshold
from ofc.schemas.rules import Dealing, RuleSet, Variant

__all__ = [
    "FOLDER_SAFE_KEY",
    "VARIANT_PRESETS",
    "How",
    "Native",
    "Natives",
    "cannot_apply",
    "deal_only_difference",
    "does_not_fit",
    "variant_rules",
]

VARIANT_PRESETS: dict[Variant, str] = {
    Variant.CLASSIC: "classic-1-6",
    Variant.OFC: "ofc",
    Variant.PINEAPPLE: "pineapple",
    Variant.PROGRESSIVE_PINEAPPLE: "progressive-pineapple",
    Variant.PINEAPPLE_27: "pineapple-27",
}
"""Each variant's preset: the native rules of a hand whose house rules name no rule set the lake knows, and the
rules a variant is simulated under when none is given."""


@cache
def variant_rules(variant: str) -> RuleSet:
    """The preset of ``variant`` (``VARIANT_PRESETS``)."""
    return load_rules(VARIANT_PRESETS[Variant(variant)])


def cannot_apply(rules: RuleSet, variant: str) -> str | None:
    """Why ``rules`` cannot score hands of ``variant``; None when they can."""
    if rules.game.lowball_middle == facts(variant).lowball_middle:
        return None
    if rules.game.lowball_middle:
        return f"{rules.name} plays a 2-7 lowball middle and {variant} hands were set for a high middle"
    return f"{rules.name} plays a high middle and {variant} hands were set for a 2-7 lowball middle"


FOLDER_SAFE_KEY = re.compile(r"^[\w.+ -]+@[0-9a-f]+$")
"""A rule set key that can name a folder of the lake (results are partitioned by it)."""


def does_not_fit(rules: RuleSet, variant: str) -> str | None:
    """Why ``rules`` cannot be the rules ``variant`` hands were played by: they cannot score them, deal another
    way (classic hands are set at once, open-face hands street by street), or cannot name a lake folder."""
    if not FOLDER_SAFE_KEY.match(rules.key):
        return f"the name {rules.name!r} cannot name a lake folder"
    reason = cannot_apply(rules, variant)
    if reason is not None:
        return reason
    if (rules.game.dealing is Dealing.CLASSIC) == facts(variant).open_face:
        kind = "classic" if rules.game.dealing is Dealing.CLASSIC else "open-face"
        return f"{rules.name} is a {kind} rule set and {variant} is not"
    return None


class How(StrEnum):
    """How a hand's native rule set was found."""

    HOUSE_RULES = "house rules"
    """Its recorded house rules name a rule set the lake knows."""
    VARIANT = "variant preset"
    """It records no house rules: its variant's preset."""
    UNKNOWN = "house rules unknown"
    """Its house rules name no rule set the lake knows: its variant's preset."""
    MISFIT = "house rules do not fit"
    """Its house rules name a rule set for another kind of game: its variant's preset."""


@dataclass(frozen=True)
class Native:
    """A hand's native rule set and how it was found (with why, when its house rules were not used)."""

    rules: RuleSet
    how: How
    why: str = ""


@dataclass
class Natives:
    """The rule sets a run knows and the native rule set they give each (variant, house rules).

    ``recorded``: rule sets recorded in the lake, the last recorded last; ``given``: rule files given to this run. Plain
    data (it pickles), so a distributed engine can ship it to its workers with the rule sets.
    """

    recorded: list[RuleSet] = field(default_factory=list)
    given: list[RuleSet] = field(default_factory=list)

    def __post_init__(self) -> None:
        presets = [load_rules(name) for name in preset_names()]
        self._by_key: dict[str, RuleSet] = {}
        self._by_name: dict[str, RuleSet] = {}
        for rules in (*presets, *self.recorded, *self.given):  # a later one takes a name over
            self._by_key.setdefault(rules.key, rules)
            self._by_name[rules.name] = rules
        self._cache: dict[tuple[str, str | None], Native] = {}

    def known(self, house_rules: str) -> RuleSet | None:
        """The rule set ``house_rules`` names, by key or by name; None when it names none the run knows."""
        text = house_rules.strip()
        return self._by_key.get(text) or self._by_name.get(text)

    def resolve(self, variant: str, house_rules: str | None) -> Native:
        """The native rule set of a hand of ``variant`` that recorded ``house_rules``."""
        slot = (variant, house_rules)
        if slot not in self._cache:
            self._cache[slot] = self._resolve(variant, house_rules)
        return self._cache[slot]

    def _resolve(self, variant: str, house_rules: str | None) -> Native:
        preset = variant_rules(variant)
        if house_rules is None or not house_rules.strip():
            return Native(preset, How.VARIANT)
        named = self.known(house_rules)
        if named is None:
            return Native(preset, How.UNKNOWN, f"no rule set the lake knows is named {house_rules!r}")
        reason = does_not_fit(named, variant)
        if reason is not None:
            return Native(preset, How.MISFIT, reason)
        return Native(named, How.HOUSE_RULES)


DEAL_ONLY = re.compile(
    r"^(name|description|game\.(variant|dealing|last_cards_face_down|min_players|max_players)"
    r"|fantasyland\.(combined_cards|stay_cards|entry_cards))$"
)
"""Rule fields that decide what is dealt, never how a finished board scores."""


def _flat(value: object, path: str = "") -> dict[str, object]:
    if isinstance(value, dict):
        return {k: v for key, item in value.items() for k, v in _flat(item, f"{path}{key}.").items()}
    if isinstance(value, list):
        return {k: v for i, item in enumerate(value) for k, v in _flat(item, f"{path}{i}.").items()}
    return {path.rstrip("."): value}


def _scored_view(rules: RuleSet) -> dict[str, object]:
    """The rule set's fields, with Fantasyland's entry tiers cut to what a finished board is scored by: the least
    hand that enters on each row (the tiers above it only deal more cards)."""
    doc = rules.model_dump(mode="json")
    least: dict[str, tuple[int, str]] = {}
    lowball = rules.game.lowball_middle
    for tier in rules.fantasyland.entry:
        point = threshold(tier.at_least, tier.row, lowball_middle=lowball)
        if tier.row.value not in least or point < least[tier.row.value][0]:
            least[tier.row.value] = (point, tier.at_least)
    doc["fantasyland"]["entry"] = {row: text for row, (_, text) in sorted(least.items())}
    doc["fantasyland"]["entry_cards"] = sorted({(t.row.value, t.at_least, t.cards) for t in rules.fantasyland.entry})
    return _flat(doc)


def deal_only_difference(a: RuleSet, b: RuleSet) -> list[str] | None:
    """The fields two rule sets differ in when every one of them only decides the deal (scoring a finished
    board under either gives the same result), else None. ``[]``: they score alike and deal alike."""
    left, right = _scored_view(a), _scored_view(b)
    differ = sorted(
        {
            k.split(".")[0] + "." + k.split(".")[1] if k.startswith("fantasyland.entry_cards") else k
            for k in left.keys() | right.keys()
            if left.get(k) != right.get(k)
        }
    )
    differ = [k for k in differ if k not in ("name", "description")]
    return differ if all(DEAL_ONLY.match(k) for k in differ) else None
