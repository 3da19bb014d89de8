"""The fast scoring engine against the independent reference scorer, hand by hand.

For every preset and every rule file in ``tests/data/rules``, 10,000 random but
realistic hands (``tests.reference.deals``) are scored by both; every hand's
points, boards and pair results must agree exactly. On a difference the first
differing hand is shown with the record and both results, so it can be worked
out by hand.
"""

from __future__ import annotations

import gc
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ofc.pipeline.rules.files import load_rules, preset_names
from ofc.pipeline.score.output import score_records as fast_score_records
from tests.reference.deals import random_records
from tests.reference.slow_scorer import score_records as reference_score_records

HANDS = 10_000
SEED = 20_240_611
RULE_FILES = sorted((Path(__file__).parent / "data" / "rules").glob("*.toml"))
SOURCES = [pytest.param(name, id=name) for name in preset_names()] + [
    pytest.param(str(path), id=f"file:{path.stem}") for path in RULE_FILES
]


@pytest.fixture(scope="module", autouse=True)
def _no_cycle_collection() -> Iterator[None]:
    """Both scorers build hundreds of thousands of small acyclic dicts and lists; with the
    cycle collector on, rescanning them takes about as long as the scoring itself."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
        gc.collect()


def _show_record(record: dict[str, Any]) -> str:
    """One line per player, rows as 'top / middle / bottom', so a hand can be worked out by hand."""
    head = {k: v for k, v in record.items() if k != "players"}
    lines = [json.dumps(head)]
    for p in record["players"]:
        rows = " / ".join(" ".join(p[row]) for row in ("top", "middle", "bottom"))
        flags = {k: v for k, v in p.items() if k not in ("name", "top", "middle", "bottom")}
        lines.append(f"  {p['name']}: {rows}  {json.dumps(flags)}")
    return "\n".join(lines)


def _show_result(result: dict[str, Any]) -> str:
    return "\n".join(f"  {key}: {json.dumps(value, default=str)}" for key, value in result.items())


def _differences(want: dict[str, Any], got: dict[str, Any]) -> list[str]:
    """Top-level and per-player keys that differ, to point at the rule that went wrong."""
    out = []
    for key in sorted(set(want) | set(got)):
        if want.get(key) == got.get(key):
            continue
        if isinstance(want.get(key), dict) and isinstance(got.get(key), dict):
            inner = sorted(k for k in set(want[key]) | set(got[key]) if want[key].get(k) != got[key].get(k))
            out.append(f"{key}: {', '.join(map(str, inner))}")
        else:
            out.append(key)
    return out


def _plain_types(result: dict[str, Any]) -> bool:
    """JSON-ready: numpy integers compare equal to ints but do not serialise."""
    numbers = [*result["points"].values(), *result["pairs"].values()]
    for board in result["boards"].values():
        numbers += [*board["royalties"].values(), board["fantasyland_next"]]
    return all(type(n) is int for n in numbers) and all(type(b["fouled"]) is bool for b in result["boards"].values())


def test_rule_files_are_many_and_valid() -> None:
    # Each extra file exercises switches the presets leave alone; all must load.
    assert len(RULE_FILES) >= 11
    names = {load_rules(path).name for path in RULE_FILES}
    assert len(names) == len(RULE_FILES)
    assert not names & set(preset_names())


@pytest.mark.parametrize("source", SOURCES)
def test_fast_engine_matches_reference(source: str) -> None:
    rules = load_rules(source)
    records = random_records(HANDS, rules, SEED)
    expected = reference_score_records(records, rules)  # the reference never modifies a record
    actual = fast_score_records(random_records(HANDS, rules, SEED), rules)  # the engine gets its own copy

    assert len(actual) == len(expected), "the engine must return one result per record, in order"
    untyped = next((r["hand_id"] for r in actual if not _plain_types(r)), None)
    assert untyped is None, f"{untyped}: points and pairs must be plain ints, fouled a bool"
    mismatches = [i for i, (want, got) in enumerate(zip(expected, actual, strict=True)) if want != got]
    if mismatches:
        i = mismatches[0]
        pytest.fail(
            f"{rules.name}: {len(mismatches)} of {HANDS} hands differ; first: {records[i]['hand_id']} "
            f"({'; '.join(_differences(expected[i], actual[i]))})\n"
            f"record:\n{_show_record(records[i])}\n"
            f"reference:\n{_show_result(expected[i])}\n"
            f"engine:\n{_show_result(actual[i])}",
            pytrace=False,
        )
