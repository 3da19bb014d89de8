"""Hands scored without a lake, the way the rescore scores the lake's.

An ingester reads the records, the ingest's validator checks them (the one check every record goes through,
whatever reads it: ``ofc ingest``, ``ofc validate``, ``ofc score`` and ``ofc.score``), the accepted hands
become the engine's columns by the rescore's own reader, and they are scored under each rule set. Nothing is
written: this is ``ofc score`` and the notebooks' ``score``.
"""

from __future__ import annotations

import io
import json
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import pyarrow as pa

from ofc.pipeline.ingest.base import Chunk, Problem
from ofc.pipeline.ingest.jsonl import JsonlIngester
from ofc.pipeline.ingest.labels import fill_missing
from ofc.pipeline.ingest.validate import validate
from ofc.pipeline.rescore.step import read_boards
from ofc.pipeline.score.engine import Boards, Prepared, Scored, prepare, score
from ofc.pipeline.score.output import Named
from ofc.schemas.lake import RESCORE_INPUT
from ofc.schemas.rules import RuleSet

__all__ = ["DEFAULT_VARIANT", "Checked", "check", "records_as_chunks"]

DEFAULT_VARIANT = "ofc"
"""The variant of a record that names none: ``ofc score`` does not need one (``ofc ingest`` does)."""
_BATCH = "score"
"""The batch the validator's rows name: they are never committed."""


@dataclass
class Checked:
    """A chunk's hands that passed the checks, as the engine scores them and as output names them, in the order
    the source has them; and the records that did not, each with where and why."""

    named: Named
    boards: Boards | None
    problems: list[Problem]

    @property
    def hands(self) -> int:
        return len(self.named.hand_id)

    def scored(self, rules: Iterable[RuleSet]) -> Iterator[tuple[RuleSet, Scored]]:
        """The hands scored under each rule set: evaluated once, then scored under each."""
        if self.boards is None:
            return
        prepared: Prepared = prepare(self.boards)
        for rs in rules:
            yield rs, score(self.boards, rs, prepared)


def check(chunk: Chunk, source: str) -> Checked:
    """Check ``chunk``'s records by the ingest's validator (``source``: the name its faults are given under)."""
    validated = validate(_unrecorded(fill_missing(chunk, "variant", DEFAULT_VARIANT)), source, _BATCH)
    problems = sorted([*chunk.problems, *validated.problems], key=lambda p: (p.line, p.offset))
    hands, boards = validated.hands, validated.boards
    if hands.num_rows == 0:
        return Checked(Named([], [], [], np.zeros(0, np.int64)), None, problems)
    # The validator gives the hands its compiled reader took before the others: put them back in source order.
    in_source = np.argsort(hands.column("source_line").to_numpy(), kind="stable")
    rank = np.empty(in_source.size, dtype=np.uint64)
    rank[in_source] = np.arange(in_source.size, dtype=np.uint64)
    of_board = pa.array(validated.board_hand)
    columns = {"hand_key": pa.array(rank[validated.board_hand])}
    for name in RESCORE_INPUT.names[1:]:
        if name in boards.schema.names:
            columns[name] = boards.column(name)
        elif name in hands.schema.names:
            columns[name] = hands.column(name).take(of_board)
    batch = pa.Table.from_pydict(columns).combine_chunks().to_batches()[0]
    table = read_boards(batch)
    player = batch.column("player").take(pa.array(table.order)).to_pylist()
    named = Named(
        hand_id=hands.column("hand_id").take(pa.array(in_source)).to_pylist(),
        player=player,
        seat=table.boards.seat.tolist(),
        sizes=np.diff(np.r_[table.starts, table.boards.seat.size]),
    )
    return Checked(named, table.boards, problems)


def _unrecorded(chunk: Chunk) -> Chunk:
    """``chunk`` without the points its records say were paid: scoring does not read them, and points that do
    not add up (a club's sheet before it is corrected) are what ``ofc score`` is run to settle, not a fault."""
    records = chunk.records
    players = records.column("players").combine_chunks()
    if records.num_rows == 0 or players.values.field("points").null_count == len(players.values):
        return chunk
    values = players.values
    fields = [values.field(i) for i in range(values.type.num_fields)]
    at = values.type.get_field_index("points")
    fields[at] = pa.nulls(len(values), values.type.field(at).type)
    unpaid = pa.StructArray.from_arrays(fields, fields=list(values.type), mask=values.is_null())
    rebuilt = pa.ListArray.from_arrays(players.offsets, unpaid, type=players.type, mask=players.is_null())
    at = records.schema.get_field_index("players")
    return replace(chunk, records=records.set_column(at, records.schema.field(at), rebuilt))


def records_as_chunks(hands: Iterable[Mapping[str, Any]]) -> Iterator[Chunk]:
    """Records held in memory (parsed JSON objects), read as the lines of a JSONL file: record ``n`` is line
    ``n`` (a time or any value JSON has no type for is written as its text; a record JSON cannot hold at all, a
    circular one, is a line that is not an object, quarantined with its reason as its text)."""
    lines = []
    for hand in hands:
        try:
            lines.append(json.dumps(hand, default=str, ensure_ascii=False).encode())
        except (TypeError, ValueError) as exc:
            lines.append(json.dumps(f"cannot be written as JSON: {exc}").encode())
    return JsonlIngester().read(io.BytesIO(b"\n".join(lines) + b"\n"), "records")
