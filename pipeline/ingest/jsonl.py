"""Canonical JSONL: one :class:`schemas.hand.HandRecord` per line.

Blocks of lines go through Arrow's JSON reader with the record schema, in
bulk and in parallel. Only a block that Arrow rejects is read again line by
line, with pydantic naming the precise field of each bad record; its good
lines still come through.
"""

from __future__ import annotations

import io
import json
from collections.abc import Generator, Iterator
from typing import BinaryIO

import numpy as np
import pyarrow as pa
import pyarrow.json as pj
from pydantic import ValidationError

from ofc.pipeline.ingest.base import RAW_LIMIT, Chunk, Problem
from ofc.pipeline.ingest.jsonl_lines import newlines
from ofc.pipeline.ingest.jsonl_scan import scan
from ofc.schemas.hand import HandRecord
from ofc.schemas.lake import RECORD

BLOCK_BYTES = 16 << 20
FIRST_BLOCK_BYTES = 1 << 20
"""The first block read; each next is twice the last, up to BLOCK_BYTES. The first records are there at once: the
checks and the writers start sooner, and recognition (which reads a file's first 500 hands with points, through
the general reader) parses 3 MB rather than 16."""
BLOCK_LINES = 10_000
"""Lines per chunk: bounds the scanner's working arrays whatever the line length."""
LINE_ROOM = 1 << 20
"""Room the reader's buffer keeps for the start of a line carried over from one block to the next."""
MAX_LINE_BYTES = 64 << 20
"""A longer line is quarantined without being held in memory."""
_EMPTY = RECORD.empty_table()
_NO_LINES = np.zeros(0, dtype=np.int64)
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
    except RecursionError:
        return None, Problem(number, offset, "not valid JSON: nested too deeply", None, raw)
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

    def __init__(self, scanning: bool = True) -> None:
        self.scanning = scanning

    def plain(self) -> JsonlIngester:
        """Every line through the general reader: slower, each record as it is written."""
        return JsonlIngester(scanning=False)

    def sniff(self, head: bytes) -> bool:
        for line in head.lstrip(b"\xef\xbb\xbf").splitlines():
            if line.strip():
                try:
                    obj = json.loads(line)
                except (json.JSONDecodeError, UnicodeDecodeError, RecursionError):
                    return False
                return isinstance(obj, dict) and "hand_id" in obj and "players" in obj
        return False

    def read(self, stream: BinaryIO, source: str) -> Iterator[Chunk]:
        number = 0  # lines consumed
        offset = 0  # bytes consumed
        skipping = -1  # bytes of an over-long line passed over so far; -1 when not inside one
        head = ""
        # One buffer for the whole stream, read into in place: a new block for every read, and the copies
        # that joined a block to the line left over from the last one, cost more than finding the lines.
        # At its front, ``kept`` bytes: the start of a line whose end is still to come; then room for a block.
        buffer = bytearray(BLOCK_BYTES + LINE_ROOM)
        kept = 0
        first = True
        block = min(FIRST_BLOCK_BYTES, BLOCK_BYTES)
        while True:
            if kept + BLOCK_BYTES > len(buffer):  # a long line: a larger buffer (nothing refers to the old one)
                larger = bytearray(2 * kept + BLOCK_BYTES)
                larger[:kept] = memoryview(buffer)[:kept]
                buffer = larger
            view = memoryview(buffer)
            got = stream.readinto(view[kept : kept + block]) or 0
            block = min(2 * block, BLOCK_BYTES)
            begin, end = 0, kept + got
            if first:
                first = False
                if buffer.startswith(b"\xef\xbb\xbf") and end >= 3:
                    begin = offset = 3
                    yield Chunk(_EMPTY, _NO_LINES, _NO_LINES, [], 3)  # the byte-order mark, read
            if skipping >= 0:
                cut = buffer.find(b"\n", begin, end)
                if got and cut < 0:
                    skipping += end - begin
                    kept = 0
                    continue
                skipping += cut + 1 - begin if got else 0
                reason = f"line longer than {MAX_LINE_BYTES:,} bytes: not read"
                yield Chunk(_EMPTY, _NO_LINES, _NO_LINES, [Problem(number + 1, offset, reason, None, head)], skipping)
                number, offset, skipping = number + 1, offset + skipping, -1
                if not got:
                    return
                begin = cut + 1
            if not got:
                if end > begin:
                    yield from self._region(view[begin:end], number, offset, final=True)
                return
            cut = buffer.rfind(b"\n", begin, end)
            if cut >= 0:
                number += yield from self._region(view[begin : cut + 1], number, offset, final=False)
                offset += cut + 1 - begin
                begin = cut + 1
            kept = end - begin
            if kept > MAX_LINE_BYTES:
                head = bytes(view[begin : begin + RAW_LIMIT]).decode("utf-8", errors="replace")
                skipping, kept = kept, 0
            else:
                view[:kept] = bytes(view[begin:end])  # the two may overlap

    def _region(self, region: memoryview, number: int, offset: int, *, final: bool) -> Generator[Chunk, None, int]:
        """Chunks of the whole lines in ``region`` (the last may lack its newline at the end of the input).

        Returns the number of lines.
        """
        buf = np.frombuffer(region, dtype=np.uint8)
        ends = newlines(buf)
        if final and (ends.size == 0 or ends[-1] != buf.size - 1):
            ends = np.append(ends, buf.size)
        starts = np.concatenate([[0], ends[:-1] + 1])
        stops = ends - ((ends > starts) & (buf[np.maximum(ends - 1, 0)] == 13))
        numbers = number + 1 + np.arange(ends.size)
        for g in range(0, ends.size, BLOCK_LINES):
            group = np.arange(g, min(g + BLOCK_LINES, ends.size))
            size = int(min(ends[group[-1]] + 1, buf.size) - starts[g])
            lines = group[stops[group] > starts[group]]
            scanned = scan(buf, starts[lines], stops[lines], numbers[lines]) if self.scanning else None
            left = lines[scanned.left] if scanned is not None else lines
            body = [bytes(region[a:b]) for a, b in zip(starts[left].tolist(), stops[left].tolist(), strict=True)]
            keep = [i for i, line in enumerate(body) if line.strip()]
            chunk = self._block([body[i] for i in keep], numbers[left][keep], offset + starts[left][keep], size)
            chunk.scanned = scanned
            yield chunk
        return int(ends.size)

    def _block(self, body: list[bytes], numbers: np.ndarray, offsets: np.ndarray, size: int) -> Chunk:
        if not body:
            return Chunk(_EMPTY, _NO_LINES, _NO_LINES, [], size)
        # Arrow's reader is given objects only (a bare `null` line crashes it), and what it returns is
        # validated (it lets invalid UTF-8 and some malformed lists through); otherwise line by line.
        if all(line.lstrip().startswith(b"{") for line in body):
            try:
                table = pj.read_json(io.BytesIO(b"\n".join(body)), parse_options=_PARSE)
                table.validate(full=True)
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
