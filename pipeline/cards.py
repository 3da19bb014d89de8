"""Card codes: ``uint8`` values ``rank * 4 + suit``, strings only at the edges.

Ranks ``2 3 4 5 6 7 8 9 T J Q K A`` are 0..12; suits are clubs 0, diamonds 1,
hearts 2, spades 3 (alphabetical, the bridge order, and the order the
phevaluator library uses, so codes are interchangeable with it). The suit order
of a code never breaks a tie at the table; rule sets that break ties by suit
carry their own order.

Accepted spellings, case-insensitive, surrounding whitespace ignored: a rank
``2``-``9``, ``T`` or ``10``, ``J``, ``Q``, ``K``, ``A``, then a suit letter
``c d h s`` or symbol ``♣ ♦ ♥ ♠`` (the outline forms ``♧ ♢ ♡ ♤`` and an emoji
variation selector are accepted too). Anything else is rejected with the token
and where it was.

Bulk parsing is one pass over the column: a compiled pass over Arrow's buffers
for the common two-letter tokens, polars string kernels for every other spelling.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING, Final

import numpy as np

from ofc.pipeline.errors import InputError

if TYPE_CHECKING:
    import polars as pl
    import pyarrow as pa

RANKS: Final = "23456789TJQKA"
SUITS: Final = "cdhs"
SUIT_SYMBOLS: Final = "♣♦♥♠"
NO_CARD: Final = 255
"""Code written where a token could not be parsed (``parse_card_column``)."""

_RANK_TOKENS: Final = {**{r: i for i, r in enumerate(RANKS)}, "10": 8}
_SUIT_TOKENS: Final = {
    **{s: i for i, s in enumerate(SUITS)},
    **{s: i for i, s in enumerate(SUIT_SYMBOLS)},
    **{s: i for i, s in enumerate("♧♢♡♤")},
}
CARD_NAMES: Final = np.array([r + s for r in RANKS for s in SUITS])
"""``CARD_NAMES[code]`` is the canonical two-character name, e.g. ``As``."""
CARD_SYMBOLS: Final = np.array([r + s for r in RANKS for s in SUIT_SYMBOLS])


@dataclass(frozen=True)
class BadToken:
    """One token that is not a card, with its position in the input (0-based; shown 1-based)."""

    index: int
    token: str
    row: int | None = None
    position: int | None = None

    def describe(self) -> str:
        if self.row is None:
            return f"{self.token!r} (#{self.index + 1})"
        if self.position is None:
            return f"{self.token!r} (#{self.row + 1})"
        return f"{self.token!r} (#{self.row + 1}, card {self.position + 1})"


class CardParseError(InputError):
    """Raised when input holds tokens that are not cards; lists each with its position."""

    def __init__(
        self, bad: Sequence[BadToken], total_bad: int | None = None, context: str = "", problem: str = "not a card"
    ) -> None:
        self.bad = list(bad)
        self.total_bad = len(self.bad) if total_bad is None else total_bad
        self.context = context
        self.problem = problem
        shown = "; ".join(b.describe() for b in self.bad[:5])
        more = f" (and {self.total_bad - 5} more)" if self.total_bad > 5 else ""
        prefix = f"{context}: " if context else ""
        super().__init__(f"{prefix}{problem}: {shown}{more}")


def _normalise(tokens: pl.Series) -> tuple[pl.Series, pl.Series]:
    # lazy: polars takes 0.13 s to load, which a command reading no columns never pays
    import polars as pl

    t = tokens.cast(pl.String).str.strip_chars().str.replace_all("\ufe0f", "", literal=True)
    rank = t.str.head(-1).str.to_uppercase().replace_strict(_RANK_TOKENS, default=None, return_dtype=pl.UInt8)
    suit = t.str.tail(1).str.to_lowercase().replace_strict(_SUIT_TOKENS, default=None, return_dtype=pl.UInt8)
    return rank, suit


def _byte_tables() -> tuple[np.ndarray, np.ndarray]:
    rank = np.full(256, NO_CARD, dtype=np.uint8)
    suit = np.full(256, NO_CARD, dtype=np.uint8)
    for i, r in enumerate(RANKS):
        rank[ord(r)] = rank[ord(r.lower())] = i
    for i, c in enumerate(SUITS):
        suit[ord(c)] = suit[ord(c.upper())] = i
    return rank, suit


RANK_BYTE, SUIT_BYTE = _byte_tables()
"""Rank and suit of a card's two-letter name by byte (``RANK_BYTE[ord("T")]`` is 8), NO_CARD for any other byte:
the tables the compiled readers decode two-letter cards with."""


def _decode_two_letter(
    offsets: np.ndarray,
    data: np.ndarray,
    valid: np.ndarray,
    rank_byte: np.ndarray,
    suit_byte: np.ndarray,
    codes: np.ndarray,
) -> int:
    """Codes of two-letter tokens in one pass over Arrow's buffers; NO_CARD elsewhere. Returns the misses."""
    misses = 0
    for i in range(codes.shape[0]):
        start = offsets[i]
        code = NO_CARD
        if valid[i] and offsets[i + 1] - start == 2:
            r = rank_byte[data[start]]
            s = suit_byte[data[start + 1]]
            if r != NO_CARD and s != NO_CARD:
                code = r * 4 + s
        codes[i] = code
        misses += code == NO_CARD
    return misses


@cache
def _compiled_decoder() -> Callable[..., int]:
    """``_decode_two_letter`` compiled on first use: a command that only prints cards never loads numba."""
    # lazy: numba takes 0.2 s to load; a card read by name needs no compiled code
    from numba import njit

    return njit(cache=True, nogil=True)(_decode_two_letter)


def _parse_arrow(tokens: pa.Array) -> tuple[np.ndarray, np.ndarray]:
    """Two-letter ASCII tokens (``As``, ``td``) decoded straight from the Arrow buffers; the rest by polars."""
    # lazy: with pyarrow.compute, 0.12 s a command that reads no Arrow column never pays
    import pyarrow as pa

    # lazy: see pyarrow above
    import pyarrow.compute as pc

    arr = tokens.combine_chunks() if isinstance(tokens, pa.ChunkedArray) else tokens
    if arr.type not in (pa.string(), pa.large_string()):
        arr = arr.cast(pa.string())
    _, offsets_buf, data_buf = arr.buffers()
    width = np.int64 if arr.type == pa.large_string() else np.int32
    offsets = np.frombuffer(offsets_buf, dtype=width)[arr.offset : arr.offset + len(arr) + 1]
    data = np.frombuffer(data_buf, dtype=np.uint8) if data_buf is not None else np.zeros(1, np.uint8)
    valid = np.asarray(pc.is_valid(arr), dtype=np.bool_)
    codes = np.empty(len(arr), dtype=np.uint8)
    misses = _compiled_decoder()(offsets, data, valid, RANK_BYTE, SUIT_BYTE, codes)
    ok = codes != NO_CARD
    if misses:  # 10d, A♠, padded or bad tokens: the general parser
        rest = np.flatnonzero(~ok)
        codes[rest], ok[rest] = _parse_general(pl_series(arr.take(pa.array(rest))))
    return codes, ok


def pl_series(arr: pa.Array) -> pl.Series:
    # lazy: polars takes 0.13 s to load, which a command reading no columns never pays
    import polars as pl

    return pl.Series(pl.from_arrow(arr))


def _parse_general(s: pl.Series) -> tuple[np.ndarray, np.ndarray]:
    rank, suit = _normalise(s)
    code = (rank * 4 + suit).fill_null(NO_CARD).to_numpy().astype(np.uint8, copy=False)
    return code, code != NO_CARD


def parse_card_column(tokens: pl.Series | pa.Array | Sequence[str] | np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Parse a column of card tokens without raising.

    Returns ``(codes, ok)``: ``uint8`` codes with ``NO_CARD`` where ``ok`` is
    False. Ingesters use this to quarantine one record and keep the rest. An
    Arrow column of canonical two-letter tokens is decoded from its bytes.
    """
    # lazy: polars takes 0.13 s to load, which a command reading no columns never pays
    import polars as pl

    if type(tokens).__module__.startswith("pyarrow"):
        return _parse_arrow(tokens)  # type: ignore[arg-type]
    if not isinstance(tokens, pl.Series):  # what is not text is no card (null: an object column polars cannot cast)
        tokens = pl.Series(values=[t if isinstance(t, str) else None for t in tokens], dtype=pl.String)
    s = tokens
    return _parse_general(s)


def parse_cards(tokens: pl.Series | Sequence[str] | np.ndarray, *, context: str = "") -> np.ndarray:
    """Parse a column of card tokens into ``uint8`` codes; raise CardParseError naming every bad one."""
    codes, ok = parse_card_column(tokens)
    if not ok.all():
        bad_idx = np.flatnonzero(~ok)
        values = [tokens[int(i)] for i in bad_idx[:10]]
        raise CardParseError(
            [BadToken(int(i), str(v)) for i, v in zip(bad_idx, values, strict=False)], int(bad_idx.size), context
        )
    return codes


def parse_card(token: str, *, context: str = "") -> int:
    """Parse one card token, e.g. ``"As"``, ``"10d"`` or ``"A♠"``."""
    return int(parse_cards([token], context=context)[0])


def parse_rows(rows: pl.Series | Sequence[str], width: int, *, context: str = "") -> np.ndarray:
    """Parse a column of rows written as space- or comma-separated cards into an (N, width) array.

    A row with the wrong number of cards or a bad token raises CardParseError
    naming the row and the card position.
    """
    # lazy: polars takes 0.13 s to load, which a command reading no columns never pays
    import polars as pl

    s = rows if isinstance(rows, pl.Series) else pl.Series(values=list(rows), dtype=pl.String)
    tokens = s.str.strip_chars().str.replace_all(r"[\s,]+", " ").str.split(" ")
    lengths = tokens.list.len().to_numpy()
    wrong = np.flatnonzero(lengths != width)
    if wrong.size:
        bad = [BadToken(int(i), str(rows[int(i)]), row=int(i), position=None) for i in wrong[:10]]
        raise CardParseError(bad, int(wrong.size), context, f"expected {width} cards")
    flat = tokens.explode()
    codes, ok = parse_card_column(flat)
    if not ok.all():
        bad_idx = np.flatnonzero(~ok)
        bad = [BadToken(int(i), str(flat[int(i)]), row=int(i) // width, position=int(i) % width) for i in bad_idx[:10]]
        raise CardParseError(bad, int(bad_idx.size), context)
    return codes.reshape(-1, width)


def parse_row(text: str, width: int | None = None, *, context: str = "") -> np.ndarray:
    """Parse one row such as ``"Qh Qd 4c"``; ``width`` checks the card count."""
    n = len(text.replace(",", " ").split())
    return parse_rows([text], width if width is not None else n, context=context)[0]


def format_cards(codes: np.ndarray | Iterable[int], *, symbols: bool = False) -> np.ndarray:
    """Names of card codes, same shape as the input (a gather, no loop)."""
    names = CARD_SYMBOLS if symbols else CARD_NAMES
    arr = np.asarray(codes)
    if arr.size and (arr.min() < 0 or arr.max() > 51):
        raise InputError(f"card codes must be 0..51, got {int(arr.min())}..{int(arr.max())}")
    return names[arr]


def format_card(code: int, *, symbols: bool = False) -> str:
    return str(format_cards(np.array([code]), symbols=symbols)[0])


def format_row(codes: np.ndarray | Iterable[int], *, symbols: bool = False) -> str:
    """``"Qh Qd 4c"`` for one row of codes."""
    return " ".join(format_cards(np.asarray(codes), symbols=symbols).tolist())


def deal(n: int, k: int, rng: np.random.Generator) -> np.ndarray:
    """``n`` independent deals of ``k`` distinct cards each, as an (n, k) ``uint8`` array.

    Each row is uniform over ordered ``k``-card deals: Floyd's sampling picks
    the set one column at a time for all rows at once, then each row's order
    is shuffled. Cost is O(k^2) vector operations, not a shuffle of 52 cards
    per row.
    """
    if not 0 <= k <= 52:
        raise InputError(f"cannot deal {k} cards from one deck")
    out = np.empty((n, k), dtype=np.uint8)
    for i, top in enumerate(range(52 - k, 52)):
        pick = rng.integers(0, top + 1, size=n, dtype=np.uint8)
        taken = (out[:, :i] == pick[:, None]).any(axis=1)
        out[:, i] = np.where(taken, np.uint8(top), pick)
    return rng.permuted(out, axis=1)


ROW_WIDTHS: Final = (("top", 3), ("middle", 5), ("bottom", 5))


def parse_boards(boards: pl.Series | Sequence[str], *, context: str = "") -> np.ndarray:
    """Parse boards written ``"top / middle / bottom"`` (``|`` also separates) into (N, 13) codes."""
    # lazy: polars takes 0.13 s to load, which a command reading no columns never pays
    import polars as pl

    s = boards if isinstance(boards, pl.Series) else pl.Series(values=list(boards), dtype=pl.String)
    rows = s.str.replace_all("|", "/", literal=True).str.split("/")
    wrong = np.flatnonzero(rows.list.len().to_numpy() != 3)
    if wrong.size:
        bad = [BadToken(int(i), str(s[int(i)]), row=int(i)) for i in wrong[:10]]
        raise CardParseError(bad, int(wrong.size), context, "expected three rows separated by '/'")
    parts = [
        parse_rows(rows.list.get(i), width, context=f"{context} {name} row".strip())
        for i, (name, width) in enumerate(ROW_WIDTHS)
    ]
    return np.concatenate(parts, axis=1)


class RepeatedCardError(InputError):
    """A board that holds a card more than once: no deck deals it, so it is refused rather than evaluated."""


_TIMES = {2: "twice", 3: "three times", 4: "four times"}


def check_distinct(boards: np.ndarray) -> None:
    """Refuse boards (N, 13) holding a card twice, naming each repeated card and where it is (the first ten
    boards at fault)."""
    ordered = np.sort(boards, axis=1)
    faulty = np.flatnonzero((ordered[:, 1:] == ordered[:, :-1]).any(axis=1))
    if not faulty.size:
        return
    slots = [(name, j + 1) for name, width in ROW_WIDTHS for j in range(width)]
    faults = []
    for i in faulty[:10].tolist():
        seen: dict[int, list[str]] = {}
        for code, (name, j) in zip(boards[i].tolist(), slots, strict=True):
            seen.setdefault(code, []).append(f"{name} card {j}")
        for code, where in seen.items():
            if len(where) > 1:
                times = _TIMES.get(len(where), f"{len(where)} times")
                faults.append(f"board {i + 1}: {format_card(code)} appears {times} ({', '.join(where)})")
    more = f"; and {faulty.size - 10:,} more boards" if faulty.size > 10 else ""
    raise RepeatedCardError("; ".join(faults) + more + "; a deck holds each card once")
