"""What a file's hands were played as: the variant and house rules the command line gives the files it reads,
and, for a file that records each hand's points, the preset that reproduces them.

A label given on the command line (``ofc ingest --variant V --house-rules R``) fills the field in every record
of those files that does not state it, and replaces what a reader only guessed (a poker-arena log never names
its game or rules: the reader infers the variant from the deals). A record that states something else is
quarantined, both named: nothing a history says is overwritten.

Recognition, when no house rules are given: the first hands of the file whose players' points are all
recorded (up to ``SAMPLE``) are scored under every preset that could have been played there. The presets for
a recorded variant are those that fit it; for a guessed one, every preset dealt the same way (so a Pineapple
log may turn out to be 2-7). A preset *reproduces* the file when it gives every sampled hand exactly its
recorded points, and then:

- one preset reproduces it: its name becomes the house rules of the file's hands that record none, and a
  guessed variant becomes the preset's;
- several do (progressive and plain Pineapple score a finished board alike): the one of the variant as read
  if it is among them, else the first in preset order; the report names the others;
- none does: nothing changes (the hands are scored under their variant's preset, and rescore's check of
  recorded points lists the hands that differ); the report names the closest preset and how many it matched.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from functools import cache
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ofc.pipeline.game import facts
from ofc.pipeline.ingest.base import RAW_LIMIT, Chunk, Issue, Problem
from ofc.pipeline.ingest.checks import VARIANT_NAMES
from ofc.pipeline.ingest.validate import record_text
from ofc.pipeline.rules.files import load_rules, preset_names
from ofc.pipeline.rules.native import VARIANT_PRESETS, does_not_fit
from ofc.pipeline.score.output import score_records
from ofc.schemas.rules import Variant

__all__ = ["SAMPLE", "Labels", "Recognised", "fill_missing", "label_by_variant", "label_chunk", "recognise"]

SAMPLE = 500
"""Hands with recorded points a file is recognised by: enough to tell presets apart, read before the rest."""
FIELDS = ("variant", "house_rules")


@dataclass(frozen=True)
class Labels:
    """The variant and house rules given for the files of one run (None: as each file says)."""

    variant: str | None = None
    house_rules: str | None = None
    rule_set: Any = None
    """The rule set ``house_rules`` names when it is a rule file (a preset is known to every lake): recorded
    with the batch, so that rescoring knows the rules these hands were played by."""

    def __bool__(self) -> bool:
        return self.variant is not None or self.house_rules is not None


@dataclass
class Recognised:
    """The preset that reproduces a file's recorded points, per variant as read, and what was found."""

    rules: dict[str, str] = field(default_factory=dict)
    """Variant as read -> the preset that reproduces its hands."""
    variants: dict[str, str] = field(default_factory=dict)
    """Variant as guessed -> the variant of that preset (only where the reader guessed it)."""
    notes: list[str] = field(default_factory=list)
    """What was found, for people: one line per variant."""


def label_chunk(chunk: Chunk, labels: Labels, option: dict[str, str]) -> Chunk:
    """``chunk`` with ``labels`` applied to its records: a field the reader guessed replaced, a missing one
    filled, a record stating another value quarantined. ``option``: how a reason names each label's source."""
    for name in FIELDS:
        value = getattr(labels, name)
        if value is not None:
            chunk = _label(chunk, name, value, "replace" if name in chunk.guessed else "check", option[name])
            chunk.guessed = chunk.guessed - {name}
    return chunk


def fill_missing(chunk: Chunk, name: str, value: str) -> Chunk:
    """``chunk`` with ``value`` in its records' field ``name`` where they have none (a record stating one keeps
    it)."""
    return _label(chunk, name, value, "fill")


def label_by_variant(chunk: Chunk, found: Recognised) -> Chunk:
    """``chunk`` with each record labelled as its variant was recognised (house rules filled, a guessed variant
    replaced)."""
    guessed = chunk.guessed
    if not found.rules and not found.variants:
        return chunk
    if chunk.scanned is not None and chunk.scanned.taken.size and found.rules:
        _label_scanned(chunk, found)
    if chunk.records.num_rows == 0:
        return chunk
    variant = chunk.records.column("variant").combine_chunks()
    for read in sorted({v for v in variant.to_pylist() if v in found.rules or v in found.variants}):
        rows = pc.fill_null(pc.equal(variant, read), False)
        if read in found.rules:
            how = "replace" if "house_rules" in guessed else "fill"
            chunk = _label(chunk, "house_rules", found.rules[read], how, rows=rows)
        elif "house_rules" in guessed:  # a guess made for the variant as read no longer holds
            chunk = _label(chunk, "house_rules", VARIANT_PRESETS[Variant(found.variants[read])], "replace", rows=rows)
        if read in found.variants and "variant" in guessed:
            chunk = _label(chunk, "variant", found.variants[read], "replace", rows=rows)
    return chunk


def _label_scanned(chunk: Chunk, found: Recognised) -> None:
    """Fill the house rules of records checked by a reader's scanner (they always state their variant)."""
    hands = chunk.scanned.hands  # type: ignore[union-attr]
    house = hands.text["house_rules"]
    named = pa.array([found.rules.get(name) for name in VARIANT_NAMES], pa.string())  # by variant code
    codes = pa.array(np.clip(hands.variant, 0, len(VARIANT_NAMES) - 1).astype(np.int32))
    fill = pa.DictionaryArray.from_arrays(codes, named).cast(pa.string())
    hands.text["house_rules"] = pc.if_else(house.is_valid(), house, fill)


def _label(chunk: Chunk, name: str, value: str, how: str, option: str = "", rows: pa.Array | None = None) -> Chunk:
    """Set ``name`` to ``value`` on ``rows`` of the records (all when None). ``how``: "replace" what is there;
    "fill" what is missing; "check": fill, and quarantine a record that states another value (``option`` says
    where the value came from)."""
    records = chunk.records
    if records.num_rows == 0:
        return chunk
    index = records.schema.get_field_index(name)
    column = records.column(name).combine_chunks()
    chosen = pa.array(np.ones(records.num_rows, bool)) if rows is None else rows
    target = pa.repeat(pa.scalar(value, column.type), records.num_rows)
    if how == "replace":
        return _with(chunk, records.set_column(index, name, pc.if_else(chosen, target, column)))
    records = records.set_column(index, name, pc.if_else(pc.and_(chosen, column.is_null()), target, column))
    differ = pc.and_(chosen, pc.fill_null(pc.not_equal(column, target), False))
    clash = np.flatnonzero(differ.to_numpy(zero_copy_only=False)) if how == "check" else np.zeros(0, np.int64)
    if clash.size == 0:
        return _with(chunk, records)
    problems = [_problem(chunk, int(i), f"{name}: the record says {column[int(i)].as_py()!r}; {option}") for i in clash]
    keep = np.ones(records.num_rows, bool)
    keep[clash] = False
    return replace(
        chunk,
        records=records.filter(pa.array(keep)),
        lines=chunk.lines[keep],
        offsets=chunk.offsets[keep],
        problems=chunk.problems + problems,
        places=chunk.keep(keep),
    )


def _with(chunk: Chunk, records: pa.Table) -> Chunk:
    return replace(chunk, records=records)


def _problem(chunk: Chunk, i: int, reason: str) -> Problem:
    record = chunk.records.slice(i, 1).to_pylist()[0]
    raw = record_text(record)[:RAW_LIMIT]
    field, _, message = reason.partition(": ")
    issue = Issue(chunk.place(i, field), message)
    return Problem.of([issue], int(chunk.offsets[i]), record.get("hand_id"), raw)


# ------------------------------------------------------------------ recognition


@cache
def _presets() -> tuple[Any, ...]:
    return tuple(load_rules(name) for name in preset_names())


def _candidates(variant: str, guessed: bool) -> list[Any]:
    """The presets a hand read as ``variant`` may have been played by: those that fit the variant, or, when the
    variant was only guessed, every preset dealt the same way."""
    presets = _presets()
    if guessed:
        dealing = facts(variant).dealing
        return [r for r in presets if r.game.dealing == dealing]
    return [r for r in presets if does_not_fit(r, variant) is None]  # the check native rules pass, written once


def _recorded(record: dict[str, Any]) -> dict[str, int] | None:
    """Each player's recorded points (summed by name), or None when any player's are missing."""
    points: dict[str, int] = {}
    for p in record.get("players") or []:
        if p.get("points") is None:
            return None
        points[p["name"]] = points.get(p["name"], 0) + int(p["points"])
    return points or None


def recognise(records: Iterable[dict[str, Any]], guessed: bool, preferred: Sequence[str] = ()) -> Recognised:
    """The preset that reproduces the recorded points of ``records`` (a file's first hands), per variant as read.

    ``guessed``: the reader only guessed the variant. ``preferred``: presets to take first when several reproduce
    the points (the command line's variant's)."""

    # A guessed variant is only as good as the evidence in each hand (a progressive hand without a Fantasyland
    # of 15 cards or more looks plain): a file's hands dealt the same way are recognised together.
    groups: dict[str, list[tuple[dict[str, Any], dict[str, int]]]] = {}
    for record in records:
        points = _recorded(record)
        if points is None or record.get("variant") not in set(Variant):
            continue
        key = facts(record["variant"]).dealing.value if guessed else record["variant"]
        groups.setdefault(key, []).append((record, points))
    found = Recognised()
    for _, sample in sorted(groups.items()):
        sample = sample[:SAMPLE]
        reads = sorted({record["variant"] for record, _ in sample}, key=lambda v: -len(facts(v).fantasyland_cards))
        variant = reads[0]  # the one the most telling hand was read as
        matched: dict[str, int] = {}
        for rules in _candidates(variant, guessed):
            hands = [{**record, "variant": rules.game.variant.value} if guessed else record for record, _ in sample]
            try:
                scored = score_records(hands, rules)
            except (ValueError, KeyError):
                continue
            matched[rules.name] = sum(s["points"] == want for s, (_, want) in zip(scored, sample, strict=True))
        n = len(sample)
        full = [name for name, k in matched.items() if k == n]
        what = f"{n:,} {' / '.join(reads)} hand{'s' * (n != 1)} with recorded points"
        if not full:
            best = max(matched, key=lambda name: matched[name], default=None)
            closest = f"; closest: {best}, {matched[best]:,} of {n:,}" if best is not None else ""
            found.notes.append(f"no preset reproduces the {what}{closest}: scored under their variant's preset")
            continue
        own = VARIANT_PRESETS[Variant(variant)]
        chosen = next((name for name in (*preferred, own) if name in full), full[0])
        rules = next(r for r in _presets() if r.name == chosen)
        played = rules.game.variant.value if guessed else variant
        for read in reads:
            if chosen != VARIANT_PRESETS[Variant(played)]:  # the variant's own preset needs no label
                found.rules[read] = chosen
            if played != read:
                found.variants[read] = played
        others = [name for name in full if name != chosen]
        also = f" (so do {', '.join(others)}, which score these hands alike)" if others else ""
        relabel = f"; read as {played}" if any(read != played for read in reads) else ""
        found.notes.append(f"{chosen} reproduces the {what}{also}{relabel}")
    return found
