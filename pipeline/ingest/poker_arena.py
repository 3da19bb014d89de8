"""poker-arena OFC event logs: one JSON event per line, rebuilt into one canonical record per hand.

The engine (``poker-arena run --log``) writes a ``{"hand":N,"seats":[...]}``
header. One ``{"hand":N,"ev":{...}}`` line follows for each event:
``fantasyland``, ``deal``, ``place``, ``showdown`` and ``score``. A full log
ends with a ``{"log_summary":{...}}`` line. The reader streams the lines. It
holds only the open hand's state, so memory stays flat however long the log
is. Every hand becomes exactly one record or one :class:`Problem`. A line that
belongs to no hand becomes a Problem of its own.

The checks here are about structure, which is what rebuilding the record needs:

- field types;
- seats in range;
- deal and place events alternate for each seat;
- a place event uses exactly the cards just dealt;
- the showdown rows agree with the placements.

Card legality, row sizes and duplicates are the common validation step's job.
Upstream tells bots to skip unknown event types. Here an unknown event is a
fault: an event this reader does not understand could change the board.

The variant is not written in the log, so it is inferred from the deals:

- a 3-card deal after the first street, or a Fantasyland of 14 or more cards, means Pineapple;
- a Fantasyland of 15 to 17 cards means progressive Pineapple;
- anything else is classic OFC.

``ofc-27`` (2-7 middle) logs cannot be told apart from progressive Pineapple
this way. Their recorded points tell them apart: ``ofc ingest`` recognises the
preset that reproduces a file's scores (``pipeline.ingest.labels``), and
``--variant`` / ``--house-rules`` say it outright.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, BinaryIO

from ofc.pipeline.game import ROWS
from ofc.pipeline.ingest.base import RAW_LIMIT, Chunk, FaultError, Pending, Problem, is_int, list_of, show, unstorable
from ofc.pipeline.ingest.checks import FANTASYLAND_DEALT

SOURCE = "poker-arena"
CHUNK_HANDS = 2_000
"""Records plus problems per chunk."""
MAX_LINE = 1 << 20
"""Longest line read whole (the engine's lines are at most 64 KiB); longer lines are skipped, not buffered."""
HOUSE_RULES = {"ofc": "ofc", "pineapple": "pineapple", "progressive-pineapple": "progressive-pineapple"}
"""The rule preset each inferred variant is scored with."""
GUESSED = frozenset({"variant", "house_rules"})
"""The log names neither the game nor its rules: both are inferred (``Chunk.guessed``)."""
_INT64 = 1 << 63
_EXTENSIONS = frozenset(
    {"jsonl", "ndjson", "json", "log", "txt", "gz", "gzip", "bz2", "xz", "zst", "zstd"}
    | {"db", "db3", "sqlite", "sqlite3"}  # fpdb-3's database, whose reader names its sessions the same way
)
_DECODE = json.JSONDecoder().decode
_BOM = b"\xef\xbb\xbf"


def _int(obj: dict, key: str, path: str, lo: int = -_INT64, hi: int = _INT64 - 1) -> int:
    """An integer field in ``[lo, hi]``. The bounds keep values inside the record's int64 columns."""
    value = obj.get(key)
    if not is_int(value):
        raise FaultError(f"{path}.{key}: expected an integer, got {show(value)}")
    if not lo <= value <= hi:
        raise FaultError(f"{path}.{key}: {value} is out of range [{lo}, {hi}]")
    return value


def _text(value: Any, path: str) -> str:
    if not isinstance(value, str):
        raise FaultError(f"{path}: expected a string, got {show(value)}")
    return value


def _cards(obj: dict, key: str, path: str) -> list[str]:
    return list_of(obj.get(key), f"{path}.{key}", "cards", str, "a string")


def _parse(body: bytes, ended: bool) -> tuple[Any, str]:
    """The line's JSON value and, when it cannot be used, why (naming the field when one is at fault)."""
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError as exc:
        return None, f"not UTF-8 text (byte {exc.start})"
    try:
        obj = _DECODE(text)
    except (ValueError, RecursionError) as exc:
        cut = "" if ended else " (the file ends mid-line: truncated?)"
        return None, f"not JSON: {getattr(exc, 'msg', type(exc).__name__)}{cut}"
    if not isinstance(obj, dict):
        return obj, f"not a JSON object: {show(obj)}"
    bad = unstorable(obj) if "\\u" in text else None
    if bad is not None:
        return obj, f"{bad[0]}: not valid Unicode: {show(bad[1])}"
    return obj, ""


def _raw(body: bytes) -> str:
    return body[: 4 * RAW_LIMIT].decode("utf-8", errors="replace")[:RAW_LIMIT]


def stem(source: str) -> str:
    """The file's name without directories and known extensions. It is the session name and the hand-id prefix."""
    name = source.replace("\\", "/").rstrip("/").rsplit("/", 1)[-1]
    parts = name.split(".")
    while len(parts) > 1 and parts[-1].lower() in _EXTENSIONS:
        parts.pop()
    return ".".join(parts) or name


@dataclass
class _Seat:
    """One seat's part of the open hand, built event by event."""

    name: str
    street: int = 0
    pending: list[str] | None = None
    """Cards of the latest deal, until a place event uses them."""
    pending_line: int = 0
    fantasyland: int | None = None
    placements: list[dict] = field(default_factory=list)
    discards: list[str] = field(default_factory=list)
    rows: dict[str, list[str]] | None = None
    showdown_line: int = 0
    showdown_raw: str = ""
    points: int | None = None


@dataclass
class _Hand:
    """The open hand: its header and what its events built so far."""

    number: int
    hand_id: str
    line: int
    offset: int
    raw: str
    seats: list[_Seat]
    error: str | None = None
    error_raw: str | None = None
    scored: int = 0
    singles: bool = False
    """A non-Fantasyland 1-card deal after the first street: classic OFC."""
    triples: bool = False
    """A non-Fantasyland 3-card deal after the first street: Pineapple."""
    fantasylands: set[int] = field(default_factory=set)

    def fail(self, reason: str, raw: str) -> None:
        """Keep only the first fault: the hand becomes one Problem whatever else is wrong with it."""
        if self.error is None:
            self.error, self.error_raw = reason, raw

    @property
    def complete(self) -> bool:
        return self.error is None and self.scored == len(self.seats)

    def event(self, ev: Any, line: int, raw: str) -> None:
        """Apply one event to the hand's state. Raises :class:`FaultError` with the field at fault."""
        if not isinstance(ev, dict):
            raise FaultError(f"ev: expected an object, got {show(ev)}")
        kind = ev.get("event")
        handler = _HANDLERS.get(kind) if isinstance(kind, str) else None
        if handler is None:
            what = "unknown event type" if isinstance(kind, str) else "expected an event type, got"
            raise FaultError(f"ev.event: {what} {show(kind)}")
        index = _int(ev, "seat", kind, 0, len(self.seats) - 1)
        handler(self, self.seats[index], index, ev, line, raw)

    def _fantasyland(self, seat: _Seat, index: int, ev: dict, line: int, raw: str) -> None:
        cards = _int(ev, "cards", "fantasyland", FANTASYLAND_DEALT[0], FANTASYLAND_DEALT[-1])
        if seat.fantasyland is not None:
            raise FaultError(f"fantasyland: seat {index} is announced twice")
        if seat.street:
            raise FaultError(f"fantasyland: seat {index} is announced after its first deal")
        seat.fantasyland = cards
        self.fantasylands.add(cards)

    def _deal(self, seat: _Seat, index: int, ev: dict, line: int, raw: str) -> None:
        cards = _cards(ev, "cards", "deal")
        count = _int(ev, "count", "deal", 0)
        if len(cards) != count:
            hint = " (a redacted log?)" if not cards else ""
            raise FaultError(f"deal.cards: {len(cards)} cards but count {count}{hint}")
        if seat.pending is not None:
            raise FaultError(f"deal: seat {index} is dealt again before placing its deal on line {seat.pending_line}")
        seat.street += 1
        if seat.fantasyland is not None and seat.street == 1:
            if count != seat.fantasyland:
                raise FaultError(f"deal.count: {count} cards for a {seat.fantasyland}-card Fantasyland")
        elif seat.street == 1:
            if count != 5:
                raise FaultError(f"deal.count: {count} cards on the first street (expected 5)")
        elif count == 1:
            self.singles = True
        elif count == 3:
            self.triples = True
        else:
            raise FaultError(f"deal.count: {count} cards on street {seat.street} (expected 1 or 3)")
        seat.pending, seat.pending_line = cards, line

    def _place(self, seat: _Seat, index: int, ev: dict, line: int, raw: str) -> None:
        placements = ev.get("placements")
        if not isinstance(placements, list):
            raise FaultError(f"place.placements: expected a list, got {show(placements)}")
        placed: list[tuple[str, str]] = []
        for i, item in enumerate(placements):
            if not isinstance(item, dict):
                raise FaultError(f"place.placements[{i}]: expected an object, got {show(item)}")
            card, row = item.get("card"), item.get("row")
            if not isinstance(card, str):
                raise FaultError(f"place.placements[{i}].card: expected a string, got {show(card)}")
            if row not in ROWS:
                raise FaultError(f"place.placements[{i}].row: unknown row {show(row)}")
            placed.append((card, row))
        discarded = _cards(ev, "discarded", "place")
        count = _int(ev, "count", "place", 0)
        if count != len(discarded):
            raise FaultError(f"place.count: {count} but {len(discarded)} cards discarded")
        if seat.pending is None:
            raise FaultError(f"place: seat {index} places cards it was not dealt (no deal since its last place)")
        used = [card for card, _ in placed] + discarded
        if sorted(used) != sorted(seat.pending):
            raise FaultError(
                f"place: the cards placed and discarded {show(sorted(used))} are not "
                f"the cards dealt on line {seat.pending_line} {show(sorted(seat.pending))}"
            )
        street = seat.street
        seat.placements.extend({"street": street, "card": card, "row": row} for card, row in placed)
        seat.placements.extend({"street": street, "card": card, "row": "discard"} for card in discarded)
        seat.discards.extend(discarded)
        seat.pending = None

    def _showdown(self, seat: _Seat, index: int, ev: dict, line: int, raw: str) -> None:
        rows = {row: _cards(ev, row, "showdown") for row in ROWS}
        if seat.rows is not None:
            raise FaultError(f"showdown: a second showdown for seat {index} (the first: line {seat.showdown_line})")
        seat.rows, seat.showdown_line, seat.showdown_raw = rows, line, raw

    def _score(self, seat: _Seat, index: int, ev: dict, line: int, raw: str) -> None:
        points = _int(ev, "points", "score")
        if seat.points is not None:
            raise FaultError(f"score: a second score for seat {index}")
        seat.points = points
        self.scored += 1

    def record(self, session: str) -> dict:
        """The canonical record. Raises :class:`FaultError` when the events do not make a whole hand."""
        missing = {
            what: [str(i) for i, seat in enumerate(self.seats) if getattr(seat, attr) is None]
            for what, attr in (("showdown", "rows"), ("score", "points"))
        }
        if any(missing.values()):
            raise FaultError(
                "; ".join(f"no {what} for seat{'s' * (len(s) > 1)} {', '.join(s)}" for what, s in missing.items() if s)
            )
        variant = self.variant()
        players = []
        for index, seat in enumerate(self.seats):
            if seat.pending is not None:
                raise FaultError(f"line {seat.pending_line}: deal: the cards dealt to seat {index} were never placed")
            assert seat.rows is not None
            for row in ROWS:
                placed = [p["card"] for p in seat.placements if p["row"] == row]
                if sorted(placed) != sorted(seat.rows[row]):
                    raise FaultError(
                        f"line {seat.showdown_line}: showdown.{row}: {show(seat.rows[row])} for seat {index} "
                        f"differs from the cards placed on {row} {show(placed)}",
                        seat.showdown_raw,
                    )
            players.append(
                {
                    "name": seat.name,
                    "seat": index,
                    **seat.rows,
                    "fantasyland": seat.fantasyland is not None,
                    "fantasyland_cards": seat.fantasyland,
                    "surrendered": False,
                    "natural": None,
                    "discards": seat.discards,
                    "placements": seat.placements,
                    "points": seat.points,
                    "stack": None,
                }
            )
        return {
            "hand_id": self.hand_id,
            "source": SOURCE,
            "variant": variant,
            "played_at": None,
            "site": SOURCE,
            "table": None,
            "session": session,
            "hand_number": self.number,
            "button": 0,
            "house_rules": HOUSE_RULES[variant],
            "players": players,
        }

    def variant(self) -> str:
        """Infer the game from the deals. The log never names it, and scoring depends on it."""
        if self.singles and self.triples:
            raise FaultError("deal.count: both 1-card and 3-card streets in one hand")
        pineapple = self.triples or any(cards > 13 for cards in self.fantasylands)
        if pineapple and 13 in self.fantasylands:
            raise FaultError("fantasyland.cards: a 13-card Fantasyland in a Pineapple hand")
        if self.singles and pineapple:
            raise FaultError(f"fantasyland.cards: {max(self.fantasylands)} in a classic OFC hand (1-card streets)")
        if not pineapple:
            return "ofc"
        return "progressive-pineapple" if any(cards > 14 for cards in self.fantasylands) else "pineapple"


_HANDLERS = {
    "fantasyland": _Hand._fantasyland,
    "deal": _Hand._deal,
    "place": _Hand._place,
    "showdown": _Hand._showdown,
    "score": _Hand._score,
}


def _lines(stream: BinaryIO) -> Iterator[tuple[int, int, bytes, int, bool]]:
    """(1-based number, byte offset, line, bytes consumed, too long) for each line.

    A line longer than MAX_LINE is cut there. Its rest is skipped in pieces, never held whole.
    """
    number = offset = 0
    while True:
        line = stream.readline(MAX_LINE + 1)
        if not line:
            return
        size = len(line)
        too_long = size > MAX_LINE and not line.endswith(b"\n")
        if too_long:
            while True:
                more = stream.readline(MAX_LINE + 1)
                size += len(more)
                if not more or more.endswith(b"\n"):
                    break
        number += 1
        yield number, offset, line, size, too_long
        offset += size


class PokerArenaIngester:
    """Reads ``poker-arena run --log`` OFC event logs."""

    name = "poker-arena"

    def plain(self) -> PokerArenaIngester:
        return self

    def sniff(self, head: bytes) -> bool:
        """Whether the first non-empty line is a hand header or a hand event."""
        for line in head.splitlines():
            if not line.strip():
                continue
            try:
                obj = json.loads(line)
            except (ValueError, RecursionError):
                return False
            if not isinstance(obj, dict) or not is_int(obj.get("hand")):
                return False
            ev = obj.get("ev")
            return isinstance(obj.get("seats"), list) or (isinstance(ev, dict) and "event" in ev)
        return False

    def read(self, stream: BinaryIO, source: str) -> Iterator[Chunk]:
        """Stream the log. Each hand is emitted when its last score arrives, or as a Problem when it cannot be."""
        session = stem(source)
        batch = Pending()
        hand: _Hand | None = None
        finished: tuple[int, int] | None = None  # (number, line of its last score) of the last hand closed
        yielded = False

        def stray(line: int, offset: int, reason: str, raw: str, number: int | None = None) -> None:
            hand_id = None if number is None else f"{session}#{number}"
            batch.problems.append(Problem(line, offset, f"line {line}: {reason}", hand_id, raw))

        def close(hand: _Hand, why: str | None) -> None:
            """Emit the hand as a record, or as one Problem naming its first fault (``why``: it never ended)."""
            try:
                if hand.error is not None:
                    raise FaultError(hand.error, hand.error_raw)
                try:
                    record = hand.record(session)
                except FaultError as exc:
                    if why is None:
                        raise
                    raise FaultError(f"hand {hand.number} never completed ({why}): {exc}", exc.raw) from None
            except FaultError as exc:
                raw = exc.raw if exc.raw is not None else hand.raw
                batch.problems.append(Problem(hand.line, hand.offset, str(exc), hand.hand_id, raw))
                return
            batch.take(record, hand.line, hand.offset)

        last = 0
        for number, offset, line, size, too_long in _lines(stream):
            batch.consumed += size
            last = number
            body = line.rstrip(b"\r\n")
            if not body.strip():
                continue
            if number == 1 and body.startswith(_BOM):
                body = body[len(_BOM) :]
            raw = _raw(body)
            obj, reason = (None, f"longer than {MAX_LINE} bytes") if too_long else _parse(body, line.endswith(b"\n"))
            if isinstance(obj, dict) and "log_summary" in obj and "hand" not in obj:
                continue  # the engine's trailer: counts only, nothing to record
            is_header = isinstance(obj, dict) and "seats" in obj and "ev" not in obj
            hand_no = obj.get("hand") if isinstance(obj, dict) else None
            if isinstance(obj, dict) and not (is_int(hand_no) and 0 <= hand_no < _INT64):
                reason = f"hand: expected a non-negative integer, got {show(hand_no)}"
                hand_no = None
            if reason and is_header and hand_no is not None:
                if hand is not None:
                    close(hand, f"hand {hand_no} starts on line {number}")
                hand = self._open(obj, hand_no, session, number, offset, raw, reason)
            elif reason:
                if is_header or hand is None or (hand_no is not None and hand_no != hand.number):
                    stray(number, offset, reason, raw, hand_no)
                else:
                    hand.fail(f"line {number}: {reason}", raw)
            elif is_header:
                if hand is not None:
                    close(hand, f"hand {hand_no} starts on line {number}")
                hand = self._open(obj, hand_no, session, number, offset, raw)
            elif "ev" not in obj:
                reason = "neither a hand header (seats) nor an event (ev)"
                if hand is not None and hand_no == hand.number:
                    hand.fail(f"line {number}: {reason}", raw)
                else:
                    stray(number, offset, reason, raw, hand_no)
            elif hand is None or hand_no != hand.number:
                if finished is not None and finished[0] == hand_no:
                    reason = f"event for hand {hand_no} after its last score (line {finished[1]})"
                else:
                    reason = f"event for hand {hand_no}, which has no header"
                stray(number, offset, reason, raw, hand_no)
            elif hand.error is None:
                try:
                    hand.event(obj["ev"], number, raw)
                except FaultError as exc:
                    hand.fail(f"line {number}: {exc}", raw)
                if hand.complete:
                    close(hand, None)
                    finished, hand = (hand.number, number), None
            if len(batch) >= CHUNK_HANDS:
                yielded = True
                yield batch.chunk(GUESSED)
        if hand is not None:
            close(hand, f"the file ends on line {last}: truncated?")
        if len(batch) or batch.consumed or not yielded:
            yield batch.chunk(GUESSED)

    @staticmethod
    def _open(obj: dict, number: int, session: str, line: int, offset: int, raw: str, reason: str = "") -> _Hand:
        """A new hand from its header. A bad header still opens the hand: its events then fold into one Problem."""
        hand = _Hand(number, f"{session}#{number}", line, offset, raw, [])
        if reason:
            hand.fail(f"line {line}: {reason}", raw)
            return hand
        try:
            names = obj.get("seats")
            if not isinstance(names, list) or not names:
                raise FaultError(f"seats: expected a non-empty list of names, got {show(names)}")
            hand.seats = [_Seat(_text(name, f"seats[{i}]")) for i, name in enumerate(names)]
        except FaultError as exc:
            hand.fail(f"line {line}: {exc}", raw)
        return hand


INGESTER = PokerArenaIngester()
