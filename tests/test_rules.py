from __future__ import annotations

import json
from pathlib import Path

import pytest

from ofc.pipeline.rules.files import RuleSetError, load_rules, preset_names, presets_dir
from ofc.schemas.export import render_all
from ofc.schemas.rules import RuleSet

PRESETS = [
    "classic-1-6",
    "classic-2-4",
    "classic-plain",
    "classic-wikipedia",
    "ofc",
    "pineapple",
    "pineapple-27",
    "pineapple-27-arena",
    "progressive-pineapple",
    "taiwanese",
]


def test_presets_are_the_documented_names() -> None:
    assert preset_names() == PRESETS


@pytest.mark.parametrize("name", PRESETS)
def test_every_preset_loads_and_names_itself(name: str) -> None:
    rules = load_rules(name)
    assert rules.name == name
    assert rules.key.startswith(f"{name}@")
    assert rules.description


def test_preset_contents() -> None:
    ofc = load_rules("ofc")
    assert (ofc.scoring.row_value, ofc.scoring.scoop_bonus, ofc.scoring.majority_bonus) == (1, 3, 0)
    assert ofc.royalties.settlement == "both"
    assert ofc.fouls.penalty == "scoop"
    assert ofc.fouls.pays_royalties
    assert [(t.at_least, t.cards) for t in ofc.fantasyland.entry] == [("QQ", 13)]
    assert [c.at_least for c in ofc.fantasyland.stay] == ["trips", "full house", "quads"]
    pine = load_rules("pineapple")
    assert pine.game.max_players == 3
    assert [c.at_least for c in pine.fantasyland.stay] == ["trips", "quads"]
    assert pine.fantasyland.stay_cards == 14
    prog = load_rules("progressive-pineapple")
    assert [t.cards for t in prog.fantasyland.entry] == [14, 15, 16, 17]
    low = load_rules("pineapple-27")
    assert low.game.lowball_middle
    assert low.fantasyland.combined_cards == 15
    c16, c24 = load_rules("classic-1-6"), load_rules("classic-2-4")
    assert c16.royalties.settlement == "winner"
    assert c16.royalties.top.trips == 3
    assert c16.naturals.enabled
    assert c16.naturals.values["dragon"] == 13
    assert c16.surrender.allowed
    assert c16.surrender.cost == 2
    assert not c16.fouls.pays_royalties
    assert (c24.scoring.majority_bonus, c24.scoring.scoop_bonus) == (1, 0)
    assert load_rules("classic-wikipedia").royalties.settlement == "replace"
    tw = load_rules("taiwanese")
    assert (tw.scoring.scoop_multiplier, tw.scoring.home_run_multiplier) == (2, 2)


def test_an_edited_file_is_a_new_rule_set(tmp_path: Path) -> None:
    house = tmp_path / "house.toml"
    house.write_text('extends = "ofc"\nname = "ofc"\n')
    assert load_rules(house).key == load_rules("ofc").key
    house.write_text('extends = "ofc"\nname = "ofc"\n[scoring]\nscoop_bonus = 2\n')
    assert load_rules(house).key != load_rules("ofc").key


PRESET_KEYS = {
    "classic-1-6": "classic-1-6@f84d0b8b4337",
    "classic-2-4": "classic-2-4@33ea0aaffe23",
    "classic-plain": "classic-plain@d36b10e35da7",
    "classic-wikipedia": "classic-wikipedia@4c5e259b6704",
    "ofc": "ofc@f63b29e3016b",
    "pineapple": "pineapple@02a1af67d494",
    "pineapple-27": "pineapple-27@9cd18e846f4d",
    "progressive-pineapple": "progressive-pineapple@cadfa4bffad4",
    "taiwanese": "taiwanese@fc8133d3b993",
}


@pytest.mark.parametrize("name", PRESET_KEYS)
def test_a_preset_keeps_its_key_when_options_are_added(name: str) -> None:
    # Results are stored under these keys: a release that adds an option must not turn every lake's results
    # into an earlier version. An option added since hashes only when set away from its default.
    assert load_rules(name).key == PRESET_KEYS[name]


@pytest.mark.parametrize(
    ("section", "option", "value"),
    [
        ("scoring", "majority_by", "points"),
        ("scoring", "scoop", "no_row_lost"),
        ("scoring", "wheel", "second"),
        ("table_stakes", "winner_limit", "stack"),
        ("naturals", "order", ["six_pairs", "dragon", "three_flushes", "three_straights"]),
    ],
)
def test_an_added_option_set_away_from_its_default_is_a_new_rule_set(section: str, option: str, value: object) -> None:
    base = load_rules("classic-2-4")
    doc = base.model_dump(mode="json")
    changed = RuleSet.model_validate({**doc, section: {**doc[section], option: value}})
    assert changed.key != base.key


def test_a_folder_of_a_presets_name_does_not_hide_the_preset(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``-r pineapple`` run where a folder is called ``pineapple`` (or the preset ``ofc`` extended from inside a
    checkout, whose root holds the ``ofc`` package) is still the preset."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pineapple").mkdir()
    (tmp_path / "ofc").mkdir()
    assert load_rules("pineapple").key == load_rules(presets_dir() / "pineapple.toml").key
    assert load_rules("ofc").name == "ofc"
    assert load_rules("classic-1-6").name == "classic-1-6"  # extends a preset by name


def test_house_file_extends_a_preset_and_names_itself_after_the_file(tmp_path: Path) -> None:
    house = tmp_path / "friday-night.toml"
    house.write_text('extends = "pineapple"\n[royalties.top]\ntrips = 20\n')
    rules = load_rules(house)
    assert rules.name == "friday-night"
    assert rules.royalties.top.points("trips", 0) == 20
    assert rules.royalties.top.points("pair", 12) == 9  # inherited
    assert rules.game.max_players == 3


@pytest.mark.parametrize(
    ("body", "path", "message"),
    [
        ("[scoring]\nscoop_bonsu = 3\n", "scoring.scoop_bonsu", "unknown key"),
        ("[scoring]\nrow_value = 'one'\n", "scoring.row_value", "integer"),
        ("[fantasyland]\nstay_cards = 12\n", "fantasyland.stay_cards", "13 to 17"),
        ("[fantasyland]\nentry = [{ row = 'top', at_least = 'QQ', cards = -1 }]\n", "fantasyland.entry.0.cards", ""),
        (
            "[fantasyland]\nentry = [{ row = 'top', at_least = 'straight', cards = 14 }]\n",
            "fantasyland.entry.0.at_least",
            "cannot make straight",
        ),
        ("[game]\ndealing = 'pineapple'\nmax_players = 4\n", "game", "at most 3"),
        ("[game]\nmin_players = 4\nmax_players = 3\n", "game", "min_players"),
        ("[royalties.top.pair]\nZ = 3\n", "royalties.top.pair", "not a rank"),
        ("[scoring]\nsuit_order = 'sshd'\n", "scoring.suit_order", "each suit"),
        ("[naturals]\nenabled = true\n", "", "naturals exist only in classic"),
        ("[scoring]\nmajority_by = 'points'\n", "scoring", "majority_bonus, which is 0"),
        ("[scoring]\nscoop = 'three_rows'\n", "scoring.scoop", "'all_rows' or 'no_row_lost'"),
        ("[scoring]\nwheel = 'highest'\n", "scoring.wheel", "'lowest' or 'second'"),
        ("[table_stakes]\nwinner_limit = 'none'\n", "table_stakes.winner_limit", "'double' or 'stack'"),
        ("[scoring\n", "", "not valid TOML"),
        ('extends = "nope"\n', "extends", "no such preset"),
    ],
)
def test_bad_rule_files_name_the_toml_path(tmp_path: Path, body: str, path: str, message: str) -> None:
    f = tmp_path / "bad.toml"
    f.write_text('extends = "ofc"\n' + body if not body.startswith("extends") else body)
    with pytest.raises(RuleSetError) as info:
        load_rules(f)
    problems = info.value.problems
    assert any(p == path and message in m for p, m in problems), problems
    assert str(f) in str(info.value)


def test_extends_cycle_is_reported(tmp_path: Path) -> None:
    (tmp_path / "a.toml").write_text('extends = "b.toml"\n')
    (tmp_path / "b.toml").write_text('extends = "a.toml"\n')
    with pytest.raises(RuleSetError, match="cycle"):
        load_rules(tmp_path / "a.toml")


def test_defaults_are_standard_ofc() -> None:
    default = RuleSet(name="ofc")
    assert default.content_hash == load_rules("ofc").content_hash


def test_generated_schema_and_reference_are_in_sync() -> None:
    rendered = render_all()
    assert sorted(path.name for path in rendered) == ["hand.schema.json", "rules-reference.md", "rules.schema.json"]
    for path, text in rendered.items():
        assert path.read_text(encoding="utf-8") == text, f"run: python -m ofc.schemas.export ({path.name})"
    here = Path(__file__).resolve().parent.parent / "schemas"
    schema = json.loads((here / "rules.schema.json").read_text())
    assert "extends" in schema["properties"]


def test_a_rule_set_is_compiled_once_by_its_key() -> None:
    """The compiled tables are cached by the rule set's key (name and content hash): the same rule set read twice
    is compiled once, and one changed under the same name is compiled afresh."""
    from ofc.pipeline.rules.compile import compile_rules

    first, again = load_rules("pineapple"), load_rules("pineapple")
    assert first is not again
    assert compile_rules(first) is compile_rules(again)
    changed = first.model_copy(update={"scoring": first.scoring.model_copy(update={"scoop_bonus": 7})})
    assert changed.name == first.name
    assert changed.key != first.key
    assert compile_rules(changed) is not compile_rules(first)
    assert compile_rules(changed).scoop_amount != compile_rules(first).scoop_amount
