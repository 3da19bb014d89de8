"""OFC hands captured by fpdb-3, the open-source poker tracker, from Seals with Clubs: its JSON and its database.

Source: jejellyroll-fr/fpdb-3 at commit 73e75ffe, ``fpdb_3_legacy/http_capture_ofc.py`` (the hand model, the
tables and how they are filled), ``fpdb_3_legacy/swc_http_adapter.py`` (the capture envelope and the card ids),
``fpdb_3_legacy/http_capture_models.py`` (the game codes) and ``test/test_http_capture_models.py``.

fpdb keeps an OFC hand in three forms, and this reader takes all three (``sniff`` tells them apart):

- an **OFCHand** object (``OFCHand.to_dict()``, the text of ``HttpOFCHands.rawJson``): ``site``, ``hand_id``,
  ``table_id``, ``timestamp`` (when the capture began, ISO UTC), ``variant`` (``{family: "ofc", variant:
  "ofc" | "ofcp" | "ofcp_27", ...}``), ``players`` (``name``, ``seat_idx``, the final ``top`` / ``middle`` /
  ``bottom`` rows), ``rounds`` and ``result`` (``points_settled``: each player's points). A file may hold one
  such object, a JSON list of them, or one per line;
- the **capture envelope** ``hand_<id>.json``: the snapshots (``steps``, each with every player's rows padded
  with ``"--"``), ``players``, ``game`` (``label`` names the exact game) and what fpdb derived from them
  (``ofc_variant``, ``ofc_rounds``, ``ofc_result``). It is mapped onto the OFCHand shape as fpdb's
  ``build_ofc_hand`` does, except that a player's rows come from the last snapshot that shows their cards;
- the **SQLite database** (tables ``HttpOFCHands``, ``HttpOFCPlayers``, ``HttpOFCRounds``). Like fpdb's own
  ``load_ofc_hand``, a hand is rebuilt from ``rawJson`` when it holds an object; otherwise from its player and
  round rows (cards joined by spaces, ``placedJson``), whose ``points`` then are the only points there are. A
  problem's line is the hand's ``HttpOFCHands.id``. The stream may be decompressed, not a file: its bytes are
  opened in memory.

Cards are fpdb's strings (``"10h"``, ``"As"``: ten is ``10``) or card ids 0..51 (rank * 4 + suit, deuce first,
suits c d h s, the project's own codes), and ``"--"`` is an empty slot. The checks here are about structure;
card syntax, row sizes and duplicates are the common validation step's.

A ``round`` of fpdb is one change seen in one player's snapshot, numbered across all players: it may deal,
place or discard, or several of these. Streets are not recorded, so they follow from the order each player
placed their cards: the first five are street 1, then one card a street in OFC, two in Pineapple, whose
discards are one a street from street 2. A player whose first deal seen is 13 cards or more is in Fantasyland
(fpdb records no flag): everything is street 1. Placements are kept only when they are whole and their
streets are seen: when a player's placed cards are exactly their final rows, their discards number what the
deal discards, and no round holds cards of two streets. Otherwise (fpdb keeps partial captures, and sees an
opponent's dealt and discarded cards only when the site shows them) the player has no placements and no
discards: the final rows are what scoring needs. An opponent's Fantasyland is therefore seen only when its
deal is.

Also:

- points are ``result.points_settled``; a player it leaves out has no recorded points (fpdb writes 0 for them
  in ``players[].points``, which is not read);
- a seated player with no cards anywhere and no points sat the hand out and is left out of the record;
- the stack is not kept: fpdb's is money, and the record's is in points (table stakes), at a point value
  fpdb does not record;
- a record's ``session`` is its file's name (as in the poker-arena reader): ``ofc ingest --replace`` takes a
  corrected file as the truth for its ``session``, which must then be that file's hands, not every fpdb hand;
- the button is the envelope's ``dealer_idx`` when it is a player's seat (the other forms do not keep it).

The game: ``ofcp_27`` is the 2-7 Pineapple, but ``ofcp`` is Pineapple, Progressive or "OFC/P Variant" alike,
and ``ofc`` is OFC, Turbo OFC or "OFC Variant". The envelope's ``game.label`` tells them apart, except "OFC/P",
which fpdb also gives a snapshot without a game code; so does the site's game code (``CODES``), where a
capture keeps it. Where the game is not told apart the variant is a
guess, and the house rules (the variant's preset) always are: ``Chunk.guessed`` says so, so that ``--variant``
and ``--house-rules`` replace them and a file's recorded points may name its preset. It is set per chunk: a
chunk with one hand whose variant is a guess marks the variant of all its hands as one.
"""

from __future__ import annotations

import io
import json
import math
import re
import sqlite3
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field, replace
from decimal import Decimal, InvalidOperation
from typing import Any, BinaryIO

from ofc.pipeline.game import BOARD, MAX_SEAT, ROWS, facts
from ofc.pipeline.ingest.base import RAW_LIMIT, Chunk, FaultError, Pending, Problem, is_int, list_of, show, unstorable
from ofc.pipeline.ingest.poker_arena import stem

SOURCE = "fpdb"
CHUNK_HANDS = 2_000
"""Records plus problems per chunk."""
SQLITE_MAGIC = b"SQLite format 3\x00"
EMPTY_SLOT = "--"
"""fpdb's filler for a row slot with no card."""
RANKS = ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")
SUITS = ("c", "d", "h", "s")
CARD_NAMES = tuple(rank + suit for rank in RANKS for suit in SUITS)
"""fpdb's spelling of each card id (``RANKS[id // 4] + SUITS[id % 4]``)."""
CATEGORIES = {"ofc": ("ofc", True), "ofcp": ("pineapple", True), "ofcp_27": ("pineapple-27", False)}
"""fpdb's game category -> (variant, whether that is a guess: the category covers several games)."""
LABELS = {
    "OFC": ("ofc", "ofc", False),
    "Turbo OFC": ("ofc", "ofc", False),
    "OFC Variant": ("ofc", "ofc", True),
    "OFC/P": ("ofcp", "pineapple", True),
    "OFC/P Progressive": ("ofcp", "progressive-pineapple", False),
    "OFC/P 2-7": ("ofcp_27", "pineapple-27", False),
    "OFC/P Variant": ("ofcp", "pineapple", True),
}
"""The envelope's ``game.label`` -> (its category, variant, whether that is a guess). "OFC/P" is also what fpdb
calls a snapshot without a game code; the "Variant" games are not described."""
CODES = {
    70: ("ofc", "ofc", False),
    73: ("ofc", "ofc", False),
    74: ("ofcp", "pineapple", False),
    75: ("ofcp", "progressive-pineapple", False),
    76: ("ofcp_27", "pineapple-27", False),
    77: ("ofcp", "pineapple", True),
    84: ("ofc", "ofc", True),
}
"""Seals with Clubs' game codes (``gt``: 70 OFC, 73 Turbo OFC, 74 OFC/P, 75 OFC/P Progressive, 76 OFC/P 2-7, 77
OFC/P Variant, 84 OFC Variant) -> as ``LABELS``. fpdb does not keep the code, but names a game it has no label
for ``"Poker (Type N)"``; a capture that keeps it (``gt``) is read by it."""
_TYPE = re.compile(r"Poker \(Type (\d+)\)")
HOUSE_RULES = {v: v for v in ("ofc", "pineapple", "progressive-pineapple", "pineapple-27")}
"""The preset each variant is scored with (``pipeline.rules.native.VARIANT_PRESETS``)."""
TABLES = ("HttpOFCHands", "HttpOFCPlayers", "HttpOFCRounds")
_INT64 = 1 << 63
_BOM = b"\xef\xbb\xbf"
_DECODER = json.JSONDecoder()
_SPACE = re.compile(r"[ \t\n\r]*")
_MARKERS = re.compile(
    rb'"(?:ofc_variant|ofc_rounds)"\s*:|"(?:family|base)"\s*:\s*"ofc"|"source"\s*:\s*"ofc_snapshot_rows"'
)
"""What only fpdb's OFC JSON holds, for a head that ends inside a hand (its rounds come early when keys are
sorted, as in rawJson; the game comes early in an envelope)."""
_ENVELOPE_KEYS = frozenset({"ofc_variant", "ofc_rounds", "ofc_result", "steps", "game"})


@dataclass(frozen=True)
class _Paths:
    """How a hand's form names the fields a reason may point to."""

    variant: str = "variant"
    category: str = "variant"
    """The key of the game's category in ``variant``."""
    rounds: str = "rounds"
    result: str = "result"


_OFCHAND = _Paths()
_ENVELOPE = _Paths("ofc_variant", "variant", "ofc_rounds", "ofc_result")
_DATABASE = _Paths("HttpOFCHands", "variant", "HttpOFCRounds", "HttpOFCPlayers")


def _cards(value: Any, path: str) -> list[str]:
    """A list of cards as text: fpdb's strings as they are, card ids spelled as fpdb does, empty slots dropped."""
    if value is None:
        return []
    if not isinstance(value, list):
        raise FaultError(f"{path}: expected a list of cards, got {show(value)}")
    out = []
    for i, card in enumerate(value):
        if isinstance(card, str):
            if card and card != EMPTY_SLOT:
                out.append(card)
        elif is_int(card) and 0 <= card < len(CARD_NAMES):
            out.append(CARD_NAMES[card])
        else:
            raise FaultError(f"{path}[{i}]: expected a card, got {show(card)}")
    return out


def _whole(value: Any, path: str) -> int:
    """A whole number written as an integer, a float or a decimal text (fpdb writes Decimals as text)."""
    number: Decimal | None = None
    if is_int(value) or (isinstance(value, float) and math.isfinite(value)):
        number = Decimal(value)
    elif isinstance(value, str):
        try:
            number = Decimal(value.strip())
        except InvalidOperation:
            number = None
    if number is None or not number.is_finite() or number != number.to_integral_value():
        raise FaultError(f"{path}: expected a whole number, got {show(value)}")
    if number.adjusted() > 18 or not -_INT64 <= int(number) < _INT64:
        raise FaultError(f"{path}: {show(value)} is out of range")
    return int(number)


def _text(obj: dict, key: str, path: str) -> str | None:
    value = obj.get(key)
    if value is not None and not isinstance(value, str):
        raise FaultError(f"{path}: expected a text, got {show(value)}")
    return value


def _seat(value: Any, path: str) -> int | None:
    if value is None:
        return None
    if not is_int(value) or not 0 <= value <= MAX_SEAT:
        raise FaultError(f"{path}: expected a seat 0..{MAX_SEAT}, got {show(value)}")
    return value


def _hand_number(hand_id: int | str) -> int | None:
    """The site's hand number, when the id is one that fits the record."""
    if isinstance(hand_id, str):
        if not (hand_id.isascii() and hand_id.isdigit()) or len(hand_id) > 19:
            return None
        hand_id = int(hand_id)
    return hand_id if 0 <= hand_id < _INT64 else None


def _variant(value: Any, label: Any, paths: _Paths) -> tuple[str, bool]:
    """(variant, whether it is a guess) from fpdb's category, told apart by the envelope's label where it can."""
    path, key = paths.variant, paths.category
    if not isinstance(value, dict):
        raise FaultError(f"{path}: expected an object naming the game, got {show(value)}")
    family = value.get("family", "ofc")
    if family != "ofc":
        raise FaultError(f"{path}.family: {show(family)} is not OFC")
    category = value.get(key)
    if not isinstance(category, str) or category not in CATEGORIES:
        raise FaultError(f"{path}.{key}: unknown game {show(category)} (known: {', '.join(CATEGORIES)})")
    if isinstance(label, str) and (typed := _TYPE.fullmatch(label)):
        label = int(typed.group(1))
    known = CODES.get(label) if is_int(label) else LABELS.get(label) if isinstance(label, str) else None
    if known is not None:
        of, variant, guessed = known
        if of != category:
            raise FaultError(f"game.label: {label!r} is an {of} game, but {path}.{key} is {category!r}")
        return variant, guessed
    return CATEGORIES[category]


@dataclass
class _Player:
    name: str
    seat: int | None
    rows: dict[str, list[str]]
    points: int | None
    rounds: list[tuple[list[str], list[tuple[str, str]], list[str]]] = field(default_factory=list)
    """(dealt, placed as (card, row), discarded) of each round of this player, in order."""

    @property
    def has_cards(self) -> bool:
        return any(self.rows.values()) or any(d or p or x for d, p, x in self.rounds)


def _placements(player: _Player, variant: str) -> tuple[list[dict] | None, list[str], int | None]:
    """(placements, discards, Fantasyland cards) of one player; no placements when they are not whole."""
    dealt = next((d for d, _, _ in player.rounds if d), [])
    fantasyland = len(dealt) if len(dealt) >= BOARD else None
    placed = [pair for _, p, _ in player.rounds for pair in p]
    discarded = [card for _, _, x in player.rounds for card in x]
    deal = facts(variant).deal
    discards = fantasyland - BOARD if fantasyland else sum(deal.discarded)
    whole = (
        len(placed) == BOARD
        and len(discarded) == discards
        and all(sorted(card for card, r in placed if r == row) == sorted(player.rows[row]) for row in ROWS)
    )
    if not whole:
        return None, [], fantasyland
    if fantasyland:  # dealt at once: everything is street 1
        streets, discard_streets = [1] * len(placed), [1] * len(discarded)
    else:
        streets = [s for s, n in enumerate(deal.placed, 1) for _ in range(n)]
        discard_streets = [s for s, n in enumerate(deal.discarded, 1) for _ in range(n)]
    out: list[dict] = []
    i = j = 0
    for _, p, x in player.rounds:
        seen = {*streets[i : i + len(p)], *discard_streets[j : j + len(x)]}
        if len(seen) > 1:
            return None, [], fantasyland  # two streets in one snapshot: which card went when is not known
        out += [{"street": streets[i + k], "card": card, "row": row} for k, (card, row) in enumerate(p)]
        out += [{"street": discard_streets[j + k], "card": card, "row": "discard"} for k, card in enumerate(x)]
        i, j = i + len(p), j + len(x)
    return out, discarded, fantasyland


def _record(
    hand: dict, session: str, label: Any = None, button: int | None = None, paths: _Paths = _OFCHAND
) -> tuple[dict, bool]:
    """The canonical record of an OFCHand-shaped dict, and whether its variant is a guess."""
    hand_id = hand.get("hand_id")
    if not (is_int(hand_id) or isinstance(hand_id, str)) or hand_id == "":
        raise FaultError(f"hand_id: expected a number or a text, got {show(hand_id)}")
    table = hand.get("table_id")
    if table is not None and not (is_int(table) or isinstance(table, str)):
        raise FaultError(f"table_id: expected a number or a text, got {show(table)}")
    site = _text(hand, "site", "site")
    played_at = _text(hand, "timestamp", "timestamp")
    variant, guessed = _variant(hand.get("variant"), label, paths)

    result = hand.get("result")
    settled = result.get("points_settled") if isinstance(result, dict) else None
    if result is not None and not isinstance(result, dict):
        raise FaultError(f"{paths.result}: expected an object, got {show(result)}")
    if settled is not None and not isinstance(settled, dict):
        raise FaultError(f"{paths.result}.points_settled: expected an object, got {show(settled)}")
    settled = settled or {}

    players: dict[str, _Player] = {}
    for i, p in enumerate(list_of(hand.get("players"), "players", "players", dict, "an object")):
        name = p.get("name")
        if not isinstance(name, str) or not name:
            raise FaultError(f"players[{i}].name: expected a name, got {show(name)}")
        if name in players:
            raise FaultError(f"players[{i}].name: {name!r} appears twice (rounds and points are by name)")
        seat = _seat(p.get("seat_idx"), f"players[{i}].seat_idx")
        rows = {row: _cards(p.get(row), f"players[{i}].{row}") for row in ROWS}
        points = settled.get(name)
        if points is not None:
            points = _whole(points, f"{paths.result}.points_settled.{name}")
        players[name] = _Player(name, seat, rows, points)

    rounds = hand.get("rounds")
    if rounds is not None and not isinstance(rounds, list):
        raise FaultError(f"{paths.rounds}: expected a list, got {show(rounds)}")
    for k, rnd in enumerate(rounds or []):
        path = f"{paths.rounds}[{k}]"
        if not isinstance(rnd, dict):
            raise FaultError(f"{path}: expected an object, got {show(rnd)}")
        who = rnd.get("player")
        if not isinstance(who, str) or who not in players:
            raise FaultError(f"{path}.player: {show(who)} is not a player of this hand")
        placed = rnd.get("placed")
        if placed is not None and not isinstance(placed, dict):
            raise FaultError(f"{path}.placed: expected an object of rows, got {show(placed)}")
        unknown = [row for row in placed or {} if row not in ROWS]
        if unknown:
            raise FaultError(f"{path}.placed: unknown row {show(unknown[0])}")
        players[who].rounds.append(
            (
                _cards(rnd.get("dealt"), f"{path}.dealt"),
                [(c, row) for row in ROWS for c in _cards((placed or {}).get(row), f"{path}.placed.{row}")],
                _cards(rnd.get("discarded"), f"{path}.discarded"),
            )
        )

    playing = [p for p in players.values() if p.has_cards or p.points]
    if len(playing) < 2:
        raise FaultError(
            f"players: a hand needs 2 players with cards, got {len(playing)} of {len(players)} (an unfinished capture?)"
        )
    records = []
    for p in playing:
        placements, discards, fantasyland = _placements(p, variant)
        records.append(
            {
                "name": p.name,
                "seat": p.seat,
                **p.rows,
                "fantasyland": fantasyland is not None,
                "fantasyland_cards": fantasyland,
                "surrendered": False,
                "natural": None,
                "discards": discards,
                "placements": placements,
                "points": p.points,
                "stack": None,
            }
        )
    seats = {p.seat for p in playing}
    record = {
        "hand_id": str(hand_id),
        "source": SOURCE,
        "variant": variant,
        "played_at": played_at,
        "site": site,
        "table": str(table) if table not in (None, "") else None,
        "session": session,
        "hand_number": _hand_number(hand_id),
        "button": button if button in seats else None,
        "house_rules": HOUSE_RULES[variant],
        "players": records,
    }
    bad = unstorable(record)
    if bad is not None:
        raise FaultError(f"{bad[0]}: not valid Unicode")
    return record, guessed


def _envelope(env: dict) -> tuple[dict, Any, int | None, _Paths]:
    """The OFCHand shape of a capture envelope (as fpdb's ``build_ofc_hand``), its game label and its button."""
    game = env.get("game")
    if game is not None and not isinstance(game, dict):
        raise FaultError(f"game: expected an object, got {show(game)}")
    game = game or {}
    if game.get("base", "ofc") != "ofc":
        raise FaultError(f"game.base: {show(game.get('base'))} is not an OFC game")
    code = env.get("gt", game.get("gt"))
    label = code if is_int(code) else game.get("label") or env.get("game_type")
    steps = env.get("steps")
    if steps is not None and not isinstance(steps, list):
        raise FaultError(f"steps: expected a list, got {show(steps)}")
    players = [
        {"name": p.get("name"), "seat_idx": p.get("seat_idx"), **_last_rows(steps or [], p.get("name"))}
        for p in list_of(env.get("players"), "players", "players", dict, "an object")
    ]
    paths = _ENVELOPE
    result = env.get("ofc_result")
    if result is None and isinstance(env.get("showdown"), dict):  # fpdb derives ofc_result from the showdown
        result, paths = env["showdown"], replace(paths, result="showdown")
    variant = env.get("ofc_variant")
    if variant is None:  # as fpdb's ofc_variant_metadata: the game's category
        variant, paths = game, replace(paths, variant="game", category="category")
    hand = {
        "site": env.get("site"),
        "hand_id": env.get("hand_id"),
        "table_id": env.get("table_id"),
        "timestamp": env.get("timestamp"),
        "variant": variant,
        "players": players,
        "rounds": env.get("ofc_rounds"),
        "result": result,
    }
    dealer = env.get("dealer_idx")
    return hand, label, dealer if is_int(dealer) and 0 <= dealer <= MAX_SEAT else None, paths


def _last_rows(steps: list, name: Any) -> dict[str, list[str]]:
    """A player's rows in the last snapshot that shows any of their cards (a snapshot may show none)."""
    for k in range(len(steps) - 1, -1, -1):
        step = steps[k]
        if not isinstance(step, dict):
            raise FaultError(f"steps[{k}]: expected an object, got {show(step)}")
        placed = step.get("placed")
        if placed is not None and not isinstance(placed, dict):
            raise FaultError(f"steps[{k}].placed: expected an object, got {show(placed)}")
        rows = (placed or {}).get(name) if isinstance(name, str) else None
        if rows is None:
            continue
        if not isinstance(rows, dict):
            raise FaultError(f"steps[{k}].placed.{name}: expected an object, got {show(rows)}")
        found = {row: _cards(rows.get(row), f"steps[{k}].placed.{name}.{row}") for row in ROWS}
        if any(found.values()):
            return found
    return {row: [] for row in ROWS}


def _is_fpdb(obj: Any) -> bool:
    if not isinstance(obj, dict):
        return False
    variant, game = obj.get("variant"), obj.get("game")
    return (
        "ofc_variant" in obj
        or "ofc_rounds" in obj
        or (isinstance(variant, dict) and variant.get("family") == "ofc")
        or (isinstance(game, dict) and game.get("base") == "ofc" and "steps" in obj)
    )


def _storable(text: str) -> str:
    """``text`` with what UTF-8 cannot hold (lone surrogates, from escapes or bad bytes) replaced."""
    return text.encode("utf-8", errors="replace").decode("utf-8")


def _problem(line: int, offset: int, reason: str, hand_id: str | None = None, raw: str = "") -> Problem:
    hand_id = None if hand_id is None else _storable(hand_id)
    return Problem(line, offset, _storable(reason), hand_id, _storable(raw[:RAW_LIMIT]))


def _hand_id(obj: Any) -> str | None:
    hand_id = obj.get("hand_id") if isinstance(obj, dict) else None
    return str(hand_id) if is_int(hand_id) or (isinstance(hand_id, str) and hand_id) else None


class _Batch(Pending):
    """Records and problems waiting to become the next chunk, and whether any record's variant is a guess."""

    def __init__(self) -> None:
        super().__init__()
        self.guessed = False

    def hand(self, obj: Any, session: str, line: int, offset: int, raw: str, prefix: str = "") -> None:
        """Add one hand: its record, or one Problem naming the first fault."""
        try:
            if not isinstance(obj, dict):
                raise FaultError(f"expected a JSON object, got {show(obj)}")
            if _ENVELOPE_KEYS & obj.keys():
                hand, label, button, paths = _envelope(obj)
                record, guessed = _record(hand, session, label, button, paths)
            else:
                record, guessed = _record(obj, session)
        except FaultError as exc:
            self.problems.append(_problem(line, offset, f"{prefix}{exc}", _hand_id(obj), raw))
            return
        self.take(record, line, offset)
        self.guessed |= guessed

    def chunk(self, guessed: frozenset[str] = frozenset()) -> Chunk:
        chunk = super().chunk(frozenset({"variant", "house_rules"} if self.guessed else {"house_rules"}))
        self.guessed = False
        return chunk


class _Prefixed:
    """A stream with its first bytes, already read to sniff it, put back in front."""

    def __init__(self, head: bytes, stream: BinaryIO) -> None:
        self.head = head
        self.stream = stream

    def readline(self) -> bytes:
        head, self.head = self.head, b""
        end = head.find(b"\n") + 1
        if end:
            self.head = head[end:]
            return head[:end]
        return head + self.stream.readline()

    def read(self) -> bytes:
        head, self.head = self.head, b""
        return head + self.stream.read()


def _read_exact(stream: BinaryIO, size: int) -> bytes:
    data = b""
    while len(data) < size:
        more = stream.read(size - len(data))
        if not more:
            break
        data += more
    return data


def _object_line(line: bytes) -> dict | None:
    """The line's JSON object, when it is one whole object."""
    try:
        obj = json.loads(line.removeprefix(_BOM))
    except (ValueError, RecursionError):
        return None
    return obj if isinstance(obj, dict) else None


class FpdbIngester:
    """Reads fpdb-3's OFC captures: OFCHand JSON (one, a list, or one per line), capture envelopes, its database."""

    name = "fpdb"

    def plain(self) -> FpdbIngester:
        return self

    def sniff(self, head: bytes) -> bool:
        """An SQLite database, or JSON whose first hand is fpdb's OFC form (an OFC ``variant`` or ``ofc_*`` keys)."""
        if head.startswith(SQLITE_MAGIC):
            return True
        body = head.removeprefix(_BOM).lstrip()
        if body[:1] not in (b"{", b"["):
            return False
        text = body.decode("utf-8", errors="replace")
        if text.startswith("["):  # a list: its first hand
            text = text[_SPACE.match(text, 1).end() :]  # type: ignore[union-attr]
        try:
            obj, _ = _DECODER.raw_decode(text)
        except (ValueError, RecursionError):
            return _MARKERS.search(body) is not None  # a hand longer than the head
        return _is_fpdb(obj)

    def read(self, stream: BinaryIO, source: str) -> Iterator[Chunk]:
        session = stem(source)
        head = _read_exact(stream, len(SQLITE_MAGIC))
        if head == SQLITE_MAGIC:
            yield from _read_database(head + stream.read(), session)
            return
        prefixed = _Prefixed(head, stream)
        first = prefixed.readline()
        if _object_line(first) is not None:  # one hand per line (a one-line file is one too)
            yield from _read_lines(_chain(first, prefixed), session)
        else:
            yield from _read_document(first + prefixed.read(), session)


def _chain(first: bytes, rest: _Prefixed) -> Iterator[bytes]:
    yield first
    yield from iter(rest.readline, b"")


def _read_lines(lines: Iterable[bytes], session: str) -> Iterator[Chunk]:
    """One hand per line; a line that is not one is a Problem of its own."""
    batch = _Batch()
    offset = 0
    yielded = False
    for number, line in enumerate(lines, 1):
        batch.consumed += len(line)
        body = line.removeprefix(_BOM) if number == 1 else line
        if body.strip():
            raw = body[: 4 * RAW_LIMIT].decode("utf-8", errors="replace").rstrip("\r\n")
            try:
                obj = json.loads(body)
            except UnicodeDecodeError as exc:
                batch.problems.append(_problem(number, offset, f"not UTF-8 text (byte {exc.start})", None, raw))
            except (ValueError, RecursionError) as exc:
                reason = f"not valid JSON: {getattr(exc, 'msg', 'nested too deeply')}"
                batch.problems.append(_problem(number, offset, reason, None, raw))
            else:
                batch.hand(obj, session, number, offset, body.decode("utf-8", errors="replace").rstrip("\r\n"))
        offset += len(line)
        if len(batch) >= CHUNK_HANDS:
            yielded = True
            yield batch.chunk()
    if len(batch) or batch.consumed or not yielded:
        yield batch.chunk()


def _read_document(data: bytes, session: str) -> Iterator[Chunk]:
    """A whole JSON document: one hand, or a list of hands (each at its own line)."""
    bom = len(_BOM) if data.startswith(_BOM) else 0
    try:
        text = data[bom:].decode("utf-8")
    except UnicodeDecodeError as exc:
        yield _file_problem(data, 1, f"not UTF-8 text (byte {exc.start + bom})")
        return
    try:
        whole = json.loads(text) if text.strip() else None
    except (ValueError, RecursionError) as exc:
        lines = list(iter(io.BytesIO(data).readline, b""))
        if any(_object_line(line) is not None for line in lines[1:]):
            yield from _read_lines(lines, session)  # one hand per line, the first of them broken
            return
        where = f" (line {exc.lineno}, column {exc.colno})" if isinstance(exc, json.JSONDecodeError) else ""
        yield _file_problem(data, 1, f"not valid JSON: {getattr(exc, 'msg', 'nested too deeply')}{where}")
        return
    if whole is None:  # nothing but white space
        yield Chunk.from_dicts([], [], [], [], len(data))
        return
    start = len(text) - len(text.lstrip(" \t\n\r"))
    items = _elements(text, start) if isinstance(whole, list) else iter([(start, len(text.rstrip()), whole)])
    batch = _Batch()
    line, at, byte = 1, 0, bom  # line, character and byte position reached
    reported = 0
    for begin, end, obj in items:
        line += text.count("\n", at, begin)
        byte += len(text[at:begin].encode("utf-8"))
        at = begin
        batch.hand(obj, session, line, byte, text[begin:end])
        if len(batch) >= CHUNK_HANDS:
            done = byte + len(text[begin:end].encode("utf-8"))
            batch.consumed, reported = done - reported, done
            yield batch.chunk()
    batch.consumed = len(data) - reported
    yield batch.chunk()


def _elements(text: str, start: int) -> Iterator[tuple[int, int, Any]]:
    """(start, end, value) of each element of the JSON list at ``start`` (the whole text parsed already)."""
    at = _SPACE.match(text, start + 1).end()  # type: ignore[union-attr]
    if text[at] == "]":
        return
    while True:
        value, end = _DECODER.raw_decode(text, at)
        yield at, end, value
        at = _SPACE.match(text, end).end()  # type: ignore[union-attr]
        if text[at] == "]":
            return
        at = _SPACE.match(text, at + 1).end()  # type: ignore[union-attr]  # past the comma


def _file_problem(data: bytes, line: int, reason: str, consumed: int | None = None, *, text: bool = True) -> Chunk:
    """The whole file (or its rest: ``consumed`` bytes) as one Problem, at line 1 of a database (which has no
    lines; its hands' problems are at their ``HttpOFCHands.id``); ``text``: its first bytes are kept as raw."""
    raw = data[: 4 * RAW_LIMIT].decode("utf-8", errors="replace") if text else ""
    size = len(data) if consumed is None else consumed
    return Chunk.from_dicts([], [], [], [_problem(line, 0, reason, None, raw)], size)


# ------------------------------------------------------------------ the database


def _open_database(data: bytes) -> sqlite3.Connection:
    """The database held in ``data``, opened in memory and read-only."""
    if data[18:20] == b"\x02\x02":  # WAL mode, which an in-memory copy cannot open; its -wal file is not here
        data = data[:18] + b"\x01\x01" + data[20:]
    # The reader is a generator that the ingest runs on a worker thread and may close from another.
    connection = sqlite3.connect(":memory:", check_same_thread=False)
    connection.text_factory = lambda b: b.decode("utf-8", errors="surrogateescape")  # bad bytes: a Problem later
    connection.deserialize(data)
    connection.execute("PRAGMA query_only = ON")
    return connection


def _why(exc: Exception) -> str:
    """SQLite's message; the sqlite3 module fails to decode one that quotes damaged bytes."""
    return "damaged bytes where SQLite expects text" if isinstance(exc, UnicodeDecodeError) else str(exc)


def _read_database(data: bytes, session: str) -> Iterator[Chunk]:
    """Every hand of HttpOFCHands, in id order; the bytes are spread over the chunks by hands read."""
    try:
        connection = _open_database(data)
        tables = {name for (name,) in connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    except (sqlite3.Error, UnicodeDecodeError) as exc:
        yield _file_problem(data, 1, f"not a readable SQLite database: {_why(exc)}", text=False)
        return
    if TABLES[0] not in tables:
        names = sorted(tables)
        shown = ", ".join(names[:5]) + (f", ... ({len(names)} tables)" if len(names) > 5 else "")
        reason = f"not an fpdb-3 database with OFC captures: no {TABLES[0]} table (its tables: {shown or 'none'})"
        yield _file_problem(data, 1, reason, text=False)
        return
    reported = 0
    try:
        (total,) = connection.execute("SELECT count(*) FROM HttpOFCHands").fetchone()
        cursor = connection.execute(
            "SELECT id, site, siteHandNo, tableName, startTime, variant, rawJson FROM HttpOFCHands ORDER BY id"
        )
        read = 0
        while rows := cursor.fetchmany(CHUNK_HANDS):
            batch = _Batch()
            ids = [row[0] for row in rows if is_int(row[0])]
            players, rounds = _children(connection, tables, min(ids), max(ids)) if ids else ({}, {})
            for ordinal, row in enumerate(rows, read + 1):
                if not (is_int(row[0]) and 1 <= row[0] < _INT64):  # a schema fpdb did not write: no usable id
                    reason = f"HttpOFCHands row {ordinal}: id: expected a whole number from 1, got {show(row[0])}"
                    hand_id = None if row[2] is None else str(row[2])
                    batch.problems.append(_problem(ordinal, 0, reason, hand_id, json.dumps(row[:-1], default=str)))
                    continue
                _database_hand(batch, row, players.get(row[0], []), rounds.get(row[0], []), session)
            read += len(rows)
            done = len(data) * read // max(total, 1) if read < total else len(data)
            batch.consumed, reported = done - reported, done
            yield batch.chunk()
    except (sqlite3.Error, UnicodeDecodeError) as exc:  # a schema fpdb did not write, or a damaged file
        yield _file_problem(data, 1, f"cannot read fpdb's OFC tables: {_why(exc)}", len(data) - reported, text=False)
        return
    finally:
        connection.close()
    if reported < len(data):
        yield Chunk.from_dicts([], [], [], [], len(data) - reported)


def _children(connection: sqlite3.Connection, tables: set[str], first: int, last: int) -> tuple[dict, dict]:
    """The player and round rows of the hands with ids first..last, by hand id, in order."""
    players: dict[int, list[tuple]] = {}
    rounds: dict[int, list[tuple]] = {}
    if "HttpOFCPlayers" in tables:
        for row in connection.execute(
            "SELECT ofcHandId, id, playerName, seatNo, points, topCards, middleCards, bottomCards"
            " FROM HttpOFCPlayers WHERE ofcHandId BETWEEN ? AND ? ORDER BY ofcHandId, id",
            (first, last),
        ):
            players.setdefault(row[0], []).append(row[1:])
    if "HttpOFCRounds" in tables:
        for row in connection.execute(
            "SELECT ofcHandId, id, playerName, dealt, placedJson, discarded"
            " FROM HttpOFCRounds WHERE ofcHandId BETWEEN ? AND ? ORDER BY ofcHandId, roundNo, id",
            (first, last),
        ):
            rounds.setdefault(row[0], []).append(row[1:])
    return players, rounds


def _database_hand(batch: _Batch, row: tuple, players: list[tuple], rounds: list[tuple], session: str) -> None:
    """One HttpOFCHands row: from its rawJson when that holds an object, else from its player and round rows."""
    row_id, site, site_hand_no, table, start, category, raw_json = row
    prefix = f"HttpOFCHands id {row_id} (hand {site_hand_no}): "
    hand = None
    if isinstance(raw_json, str) and raw_json.strip():
        try:
            hand = json.loads(raw_json)
        except (ValueError, RecursionError):
            hand = None
    if isinstance(hand, dict):
        batch.hand(hand, session, row_id, 0, raw_json, prefix + "rawJson: ")
        return
    hand = None  # rawJson missing or unreadable: the rows
    try:
        hand = _from_rows(site, site_hand_no, table, start, category, players, rounds)
        record, guessed = _record(hand, session, paths=_DATABASE)
    except FaultError as exc:
        shown = hand if hand is not None else {"HttpOFCHands": row[:-1], "HttpOFCPlayers": players}
        raw = json.dumps(shown, ensure_ascii=False, default=str)
        batch.problems.append(_problem(row_id, 0, f"{prefix}{exc}", str(site_hand_no), raw))
        return
    batch.take(record, row_id, 0)
    batch.guessed |= guessed


def _column_text(value: Any, path: str) -> str | None:
    if value is not None and not isinstance(value, str):
        raise FaultError(f"{path}: expected a text, got {show(value)}")
    return value


def _from_rows(
    site: Any, site_hand_no: Any, table: Any, start: Any, category: Any, players: list[tuple], rounds: list[tuple]
) -> dict:
    """The OFCHand shape of a hand's rows, with each bad column named by its table, row id and player."""
    _column_text(site_hand_no, "siteHandNo")
    listed = []
    settled: dict[str, int] = {}
    for row_id, name, seat, points, *rows in players:
        where = f"HttpOFCPlayers id {row_id}"
        if not isinstance(name, str) or not name:
            raise FaultError(f"{where}: playerName: expected a name, got {show(name)}")
        where = f"{where} ({name})"
        cards = {
            row: (_column_text(text, f"{where}: {row}Cards") or "").split()
            for row, text in zip(ROWS, rows, strict=True)
        }
        if isinstance(points, float | int | str) and not isinstance(points, bool):
            settled[name] = _whole(points, f"{where}: points")
        elif points is not None:
            raise FaultError(f"{where}: points: expected a whole number, got {show(points)}")
        listed.append({"name": name, "seat_idx": _seat(seat, f"{where}: seatNo"), **cards})
    names = {p["name"] for p in listed}
    shaped = []
    for row_id, name, dealt, placed, discarded in rounds:
        where = f"HttpOFCRounds id {row_id}"
        if name not in names:
            raise FaultError(f"{where}: playerName: {show(name)} is not a player of this hand")
        try:
            placed = json.loads(_column_text(placed, f"{where}: placedJson") or "{}")
        except (ValueError, RecursionError) as exc:
            raise FaultError(f"{where}: placedJson: not valid JSON: {getattr(exc, 'msg', exc)}") from None
        if not isinstance(placed, dict):
            raise FaultError(f"{where}: placedJson: expected an object of rows, got {show(placed)}")
        for row, cards in placed.items():
            if row not in ROWS:
                raise FaultError(f"{where}: placedJson: unknown row {show(row)}")
            _cards(cards, f"{where}: placedJson.{row}")
        shaped.append(
            {
                "player": name,
                "dealt": (_column_text(dealt, f"{where}: dealt") or "").split(),
                "placed": placed,
                "discarded": (_column_text(discarded, f"{where}: discarded") or "").split(),
            }
        )
    return {
        "site": _column_text(site, "site"),
        "hand_id": site_hand_no,
        "table_id": _column_text(table, "tableName"),
        "timestamp": _column_text(start, "startTime"),
        "variant": {"family": "ofc", "variant": category},
        "players": listed,
        "rounds": shaped,
        "result": {"points_settled": settled},
    }


INGESTER = FpdbIngester()
