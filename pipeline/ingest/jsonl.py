"""Canonical JSONL: one :class:`schemas.hand.HandRecord` per line.

Blocks of lines go through Arrow's JSON reader with the record schema, in
bulk and in parallel. Only a block that Arrow rejects is read again line by
line, with pydantic naming the precise field of each bad record; its good
lines still come through.
"""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from typing import BinaryIO

import numpy as np
import pyarrow as pa
import pyarrow.json as pj
from pydantic import ValidationError

from pipeline.ingest.base import RAW_LIMIT, Chunk, Problem
from schemas.hand import HandRecord
from schemas.lake import RECORD

BLOCK_LINES = 10_000
_PARSE = pj.ParseOptions(explicit_schema=RECORD, unexpected_field_behavior="error")


_FIELDS = set(RECORD.names)
_PLAYER_FIELDS = {f.name for f in RECORD.field("players").type.value_type}


def _line_problem(line: bytes, number: int, offset: int) -> tuple[dict | None, Problem | None]:
    """A line the bulk reader rejected: the record, if only a neighbour was bad, or why this one is.

    Only what Arrow cannot say precisely is decided here (JSON syntax, unknown fields, wrong types,
    named by pydantic); everything else is left to the one validator every record goes through.
    """
    raw = line.decode("utf-8", errors="replace")[:RAW_LIMIT]
    try:
        obj = json.loads(line)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        return None, Problem(number, offset, f"not valid JSON: {exc}", None, raw)
    if not isinstance(obj, dict):
        return None, Problem(number, offset, "expected a JSON object", None, raw)
    hand_id = str(obj["hand_id"]) if "hand_id" in obj else None
    unknown = [k for k in obj if k not in _FIELDS]
    players = obj.get("players")
    if isinstance(players, list):
        unknown += [
            f"players.{i}.{k}"
            for i, p in enumerate(players)
            if isinstance(p, dict)
            for k in p
            if k not in _PLAYER_FIELDS
        ]
    if unknown:
        return None, Problem(number, offset, f"{unknown[0]}: unknown field", hand_id, raw)
    try:
        pa.Table.from_pylist([obj], schema=RECORD)
    except (pa.ArrowInvalid, pa.ArrowTypeError, TypeError, ValueError):
        try:
            HandRecord.model_validate(obj)
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(p) for p in first["loc"]) or "(record)"
            return None, Problem(number, offset, f"{where}: {first['msg']}", hand_id, raw)
        return None, Problem(number, offset, "a field has the wrong type", hand_id, raw)
    return obj, None


class JsonlIngester:
    name = "jsonl"

    def sniff(self, head: bytes) -> bool:
        for line in head.lstrip(b"\xef\xbb\xbf").splitlines():
            if line.strip():
                try:
                    obj = json.loads(line)
                except (json.JSONDecodeError, UnicodeDecodeError):
                    return False
                return isinstance(obj, dict) and "hand_id" in obj and "players" in obj
        return False

    def read(self, stream: BinaryIO, source: str) -> Iterator[Chunk]:
        number = 0
        offset = 0
        while True:
            lines = []
            for raw in stream:
                lines.append(raw)
                if len(lines) >= BLOCK_LINES:
                    break
            if not lines:
                return
            if number == 0 and lines[0].startswith(b"\xef\xbb\xbf"):
                lines[0] = lines[0][3:]
                offset += 3
            starts = np.cumsum([0, *map(len, lines)])[:-1] + offset
            keep = [i for i, line in enumerate(lines) if line.strip()]
            numbers = np.arange(number + 1, number + 1 + len(lines))[keep]
            body = [lines[i].rstrip(b"\r\n") for i in keep]
            size = sum(map(len, lines))
            number += len(lines)
            offset += size
            yield self._block(body, numbers, starts[keep], size)

    def _block(self, body: list[bytes], numbers: np.ndarray, offsets: np.ndarray, size: int) -> Chunk:
        try:
            table = pj.read_json(io.BytesIO(b"\n".join(body)), parse_options=_PARSE)
            if table.num_rows == len(body):
                return Chunk(table, numbers, offsets, [], size)
        except (pa.ArrowInvalid, pa.ArrowTypeError):
            pass
        good: list[dict] = []
        lines, offs, problems = [], [], []
        for line, n, o in zip(body, numbers.tolist(), offsets.tolist(), strict=True):
            record, problem = _line_problem(line, n, o)
            if problem is not None:
                problems.append(problem)
            else:
                good.append(record)  # type: ignore[arg-type]
                lines.append(n)
                offs.append(o)
        return Chunk.from_dicts(good, lines, offs, problems, size)


INGESTER = JsonlIngester()
