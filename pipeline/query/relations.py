"""The relations named queries read, defined over the lake's files for the rule sets a query is about.

- ``board_results``: one row per board per rule set: its result (points, royalties, foul, Fantasyland
  played and earned) and, when a query needs them, its hand's facts (time, session, hand number, table
  size, seat relative to the button) and the board's own (card count of a Fantasyland hand, the street it
  went dead at). Columns a query does not need are null, and their files are not read. The facts most
  queries group by are written by the rescore beside the results (``FACTS``), so those read one table.
- ``matchup_totals``: per rule set, variant and pair of players as seated (A, B): matchups played, A's
  net points and their squares, scoops each way.
- ``winner_totals``: per rule set after the first in scope and variant: hands, and hands whose winner (the
  player with strictly the most points) differs from the first rule set's.
- ``royalty_hands``: per rule set, row and royalty value, the hand that earns it.

Why no joins on hand keys: the lake writes a batch's hands and boards partition by partition in the same
order, every board of a hand next to each other, and a rescore writes each rule set's results in the order
of the boards it read. So the tables line up row for row, partition by partition. ``board_results`` is a
``POSITIONAL JOIN`` of their files (a hand repeated per board with ``unnest``) that checks on every row
that the hand keys agree; the hand-level totals walk the columns side by side in compiled loops that check
the hand keys too (a second rule set's results, read without theirs, must sum to zero over each hand).
Either costs a scan, where a hash join on 10 M hand keys costs seconds more on two cores. A partition
whose results are not one row per board is joined on its keys instead (``board_results``), or stops the
query with an error (the hand-level totals).
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from functools import cache, cached_property
from itertools import pairwise
from typing import Any

import duckdb
import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
from numba import njit, prange

from pipeline.lake.store import Lake

HANDS = "hands"
"""The hand's time, table size and the seat's place after the button."""
SESSIONS = "sessions"
"""The hand's session and number in it (read from the hands table)."""
BOARDS = "boards"
"""The card count of a Fantasyland hand."""
DEAD = "dead"
"""The street a board went dead at (read from the boards table)."""
MATCHUPS = "matchups"
WINNERS = "winners"
NEEDS = (HANDS, SESSIONS, BOARDS, DEAD, MATCHUPS, WINNERS)
"""What a query may ask the relations to read beyond the results."""
FACTS = frozenset({"played_at", "n_players", "position", "fantasyland_dealt"})
"""The hand's facts a rescore writes beside the results: with them, ``HANDS`` and ``BOARDS`` read no other table.
Results written before they were have them read from the hands and boards tables."""
BRANCHES = 8
"""About how many positional joins per relation and rule set, each over a run of partitions: a positional
join runs on one thread, so several keep both cores busy without a plan of hundreds of branches."""
_MISALIGNED = "lake files out of order: rows of one hand do not line up across tables"


@dataclass
class Part:
    """A run of partitions (variant, month) of boards batches: each table's files in the same order."""

    folder: str = ""
    """``variant=x/month=y``: the partition (a run merged from several keeps its first)."""
    hands: list[str] = field(default_factory=list)
    boards: list[str] = field(default_factory=list)
    players: dict[str, list[str]] = field(default_factory=dict)
    pairs: dict[str, list[str]] = field(default_factory=dict)

    @property
    def variant(self) -> str:
        return dict(d.split("=", 1) for d in self.folder.split("/") if "=" in d).get("variant", "")

    def extend(self, other: Part) -> None:
        self.hands += other.hands
        self.boards += other.boards
        for mine, theirs in ((self.players, other.players), (self.pairs, other.pairs)):
            for key, files in theirs.items():
                mine.setdefault(key, []).extend(files)


def _latest(manifests: list[dict[str, Any]]) -> dict[tuple[str, str], dict[str, Any]]:
    """The manifest of the latest results of each (source batch, rule set key)."""
    from pipeline.rescore.plan import results

    latest: dict[tuple[str, str], dict[str, Any]] = {}
    for m in results(manifests):
        for c in m.get("covers", []):
            latest[(c["batch"], c["rules_key"])] = m
    return latest


def parts(lake: Lake, manifests: list[dict[str, Any]], keys: Sequence[str]) -> list[Part]:
    """Every partition of every batch of boards, with the latest result files of each rule set in ``keys``."""
    from pipeline.rescore.plan import sources

    replaced = {f for m in manifests for f in m.get("replaces", ())}
    latest = _latest(manifests)
    out = []
    for source in sources(manifests):
        found: dict[str, Part] = {}
        for f in sorted(source["files"]):  # file names carry the write order
            table, _, rest = f.partition("/")
            if table in (HANDS, BOARDS) and f not in replaced:
                folder = rest.rsplit("/", 1)[0]
                getattr(found.setdefault(folder, Part(folder)), table).append(str(lake.root / f))
        for key in keys:
            m = latest.get((source["batch"], key))
            for f in sorted(m["files"]) if m else []:
                table, *dirs, _ = f.split("/")
                part = found.get("/".join(dirs[1:]))
                if table in ("player_results", "pair_results") and dirs[0] == f"rules_key={key}" and part:
                    target = part.players if table == "player_results" else part.pairs
                    target.setdefault(key, []).append(str(lake.root / f))
        out.extend(p for p in found.values() if p.boards)
    return out


def name_files(lake: Lake, manifests: list[dict[str, Any]], keys: Sequence[str]) -> list[str]:
    """The ``result_players`` files of the latest results under ``keys``: the names behind their player ids."""
    chosen = {m["batch"]: m for (_, key), m in _latest(manifests).items() if key in keys}
    return sorted(str(lake.root / f) for m in chosen.values() for f in m["files"] if f.startswith("result_players/"))


@cache
def _footer(path: str) -> tuple[int, frozenset[str]]:
    """Rows and column names of a committed file, from its footer, read once (committed files never change)."""
    f = pq.ParquetFile(path)
    return f.metadata.num_rows, frozenset(f.schema_arrow.names)


def _file_rows(path: str) -> int:
    return _footer(path)[0]


def _has_columns(path: str, names: frozenset[str]) -> bool:
    """The file holds these columns (files written before them do not)."""
    return names <= _footer(path)[1]


def _rows(files: list[str]) -> int:
    return sum(_file_rows(f) for f in files)


def aligned(part: Part, key: str) -> bool:
    """The rule set's results have one row per board: written in board order, as a rescore writes them."""
    return key in part.players and _rows(part.boards) == _rows(part.players[key])


def chunks(found: list[Part], n: int | None = None) -> list[Part]:
    """Runs of consecutive parts of one variant, none much over ``1/n`` of the rows: each run is one branch.

    Within a run the variant is one value, written into the SQL as a constant: grouping by a constant costs
    nothing, grouping by a partition folder's text costs as much as the rest of a query. A positional join
    runs on one thread, so no run may hold most of the rows.
    """
    if not found:
        return []
    most = max(sum(_rows(p.boards) for p in found) / (n or BRANCHES), 1)
    runs: list[list[Part]] = []
    size = 0
    for p in found:
        rows = _rows(p.boards)
        if runs and runs[-1][0].variant == p.variant and size + rows <= most:
            runs[-1].append(p)
            size += rows
        else:
            runs.append([p])
            size = rows
    out = []
    for run in runs:
        merged = Part(run[0].folder)
        for p in run:
            merged.extend(p)
        out.append(merged)
    return out


def _literal(text: str) -> str:
    """A SQL string literal of a name from the lake's own metadata (a rule set key, a variant folder)."""
    return "'" + text.replace("'", "''") + "'"


class _Files:
    """Each list of files as a DuckDB view under a generated name: no path is ever spliced into SQL.

    One per connection (``_files_of``), keeping its views: a report's queries read the same files again, and a
    view made once is not bound again; and what the relations were last defined for, so that a query needing
    the same ones finds them in place.
    """

    def __init__(self, con: duckdb.DuckDBPyConnection) -> None:
        self.con = con
        self.made: dict[tuple[object, ...], tuple[str, list[str]]] = {}
        self.defined: tuple[object, ...] | None = None
        """What the relations on the connection were last defined for (``define``)."""

    def __call__(self, files: list[str], hive: bool = False) -> tuple[str, list[str]]:
        key = (hive, *files)
        if key not in self.made:
            name = f"_lake_files_{len(self.made) + 1}"
            # Columns matched by name only where the files differ (written by different versions): it reads
            # every file's schema before the query, where files alike need only the first's.
            mixed = len({_footer(f)[1] for f in files}) > 1
            rel = self.con.read_parquet(files, hive_partitioning=hive, union_by_name=mixed)
            rel.create_view(name)
            self.made[key] = (name, rel.columns)
        return self.made[key]


_CONNECTION_FILES: weakref.WeakKeyDictionary[duckdb.DuckDBPyConnection, _Files] = weakref.WeakKeyDictionary()


def _files_of(con: duckdb.DuckDBPyConnection) -> _Files:
    if con not in _CONNECTION_FILES:
        _CONNECTION_FILES[con] = _Files(con)
    return _CONNECTION_FILES[con]


def _unnested(hands: str) -> str:
    return f"(SELECT *, unnest(range(n_players)) AS board_index FROM {hands})"


def _checked(condition: str) -> str:
    return f"CASE WHEN {condition} THEN true ELSE error('{_MISALIGNED}') END"


_HAND_COLUMNS = {
    "played_at": "TIMESTAMPTZ",
    "session": "VARCHAR",
    "hand_number": "BIGINT",
    "n_players": "TINYINT",
    "position": "TINYINT",
}


def _hand_columns(r: str | None, h: str | None) -> str:
    """The hand's columns: the facts from the results ``r`` when they have them, the rest from the hands ``h``."""
    # A hand with no button recorded has it on the highest seat (seats 0 .. n - 1, in lakes before the facts).
    position = "CAST((r.seat - coalesce(h.button, h.n_players - 1) + h.n_players) % h.n_players AS TINYINT)"
    out = []
    for column, kind in _HAND_COLUMNS.items():
        if r is not None and column in FACTS:
            out.append(f"{r}.{column}")
        elif h is not None:
            out.append(f"{position} AS position" if column == "position" else f"{h}.{column}")
        else:
            out.append(f"NULL::{kind} AS {column}")
    return ", ".join(out)


def _board_branch(
    files: _Files, part: Part, key: str, needs: frozenset[str], keyed: bool = False, ids: bool = True
) -> str:
    """``board_results`` for a run of partitions and one rule set (joined on hand keys when ``keyed``; player ids
    hashed here when the results were written without them, ``ids`` false)."""
    results, _ = files(part.players[key], hive=True)
    facts = all(_has_columns(f, FACTS) for f in part.players[key])  # every file: a view of mixed files has them all
    h = "h" if SESSIONS in needs or (HANDS in needs and not facts) else None
    join_boards = DEAD in needs or (BOARDS in needs and not facts)
    fantasyland_cards = "r.fantasyland_dealt" if facts else "NULL::TINYINT"
    player_id = "r.player_id" if ids else "hash(r.player::VARCHAR) AS player_id"
    dead = "NULL::TINYINT"
    boards = hands = ""
    if join_boards:
        boards, columns = files(part.boards)
        if "dead_street" in columns and DEAD in needs:  # lakes ingested before it have none
            dead = "b.dead_street"
        if not facts:
            fantasyland_cards = "b.fantasyland_cards"
    if h:
        hands, _ = files(part.hands)
    select = f"""
        SELECT
            r.hand_key, {_literal(key.rsplit("@", 1)[0])} AS rules, {_literal(key)} AS rules_key,
            {_literal(part.variant)} AS variant, r.month, r.seat, r.player::VARCHAR AS player, {player_id},
            {_hand_columns("r" if facts else None, h)}, r.fantasyland,
            {fantasyland_cards} AS fantasyland_cards, {dead} AS dead_street,
            r.points, r.royalty_top, r.royalty_middle, r.royalty_bottom, r.fouled, r.fantasyland_entry,
            r.fantasyland_stay, r.fantasyland_cards AS fantasyland_next"""
    if keyed or not aligned(part, key):
        on_boards = f" JOIN {boards} b ON b.hand_key = r.hand_key AND b.seat = r.seat" if boards else ""
        on_hands = f" JOIN {hands} h ON h.hand_key = r.hand_key" if hands else ""
        return f"{select} FROM {results} r{on_boards}{on_hands}"
    sources, checks = [f"{results} r"], []
    if boards:
        sources.append(f"{boards} b")
        checks.append("b.hand_key = r.hand_key AND b.seat = r.seat")
    if hands:
        sources.append(f"{_unnested(hands)} h")
        checks.append("h.hand_key = r.hand_key")
    where = f" WHERE {_checked(' AND '.join(checks))}" if checks else ""
    return f"{select} FROM {' POSITIONAL JOIN '.join(sources)}{where}"


# ------------------------------------------------------------------ hands as a whole: matchups and winners


@njit(cache=True)
def _pair_totals(
    n_players: np.ndarray,
    hand_keys: np.ndarray,
    keep: np.ndarray,
    hand_variant: np.ndarray,
    seats: np.ndarray,
    players: np.ndarray,
    pair_keys: np.ndarray,
    seat_a: np.ndarray,
    seat_b: np.ndarray,
    points: np.ndarray,
    scoop: np.ndarray,
    size: int,
    out: np.ndarray,
) -> bool:
    """Walk hands, boards and pairs side by side, adding each kept pair to ``out[(variant, A, B)]``: matchups,
    A's points, their squares, A's scoops, B's scoops. False when the tables do not line up."""
    b = 0
    p = 0
    for h in range(n_players.shape[0]):
        n = n_players[h]
        while p < pair_keys.shape[0] and pair_keys[p] == hand_keys[h]:
            a = -1
            c = -1
            for i in range(b, b + n):
                if seats[i] == seat_a[p]:
                    a = players[i]
                if seats[i] == seat_b[p]:
                    c = players[i]
            if a < 0 or c < 0:
                return False
            if keep[h]:
                cell = (hand_variant[h] * size + a) * size + c
                x = np.int64(points[p])
                out[cell, 0] += 1
                out[cell, 1] += x
                out[cell, 2] += x * x
                out[cell, 3] += scoop[p] > 0
                out[cell, 4] += scoop[p] < 0
            p += 1
        b += n
    return p == pair_keys.shape[0] and b == seats.shape[0]


@njit(inline="always", cache=True)
def _top(points: np.ndarray, first: int, n: int) -> int:
    """Which of boards ``first .. first + n`` has strictly the most points (0-based within the hand); -1 on a tie.

    A board stands for its player: a hand seats each name once (ingest checks it).
    """
    best = -1
    top = points[first]
    ties = 0
    for i in range(first, first + n):
        if i == first or points[i] > top:
            top = points[i]
            best = i - first
            ties = 1
        elif points[i] == top:
            ties += 1
    return best if ties == 1 else -1


@njit(parallel=True, cache=True)
def _winners(first: np.ndarray, points: np.ndarray, out: np.ndarray) -> bool:
    """``out[h]``: the winning board of hand ``h`` (boards ``first[h] .. first[h + 1]``), -1 for none.

    False when a hand's points do not sum to zero, as every hand's do: the rows are not the hands'.
    """
    bad = 0
    for h in prange(first.shape[0] - 1):
        lo, hi = first[h], first[h + 1]
        total = 0
        for i in range(lo, hi):
            total += points[i]
        if total != 0:
            bad += 1
        out[h] = _top(points, lo, hi - lo)
    return bad == 0


class _Stream:
    """A run of parts read as whole columns, each table's files in part order, read once each when first asked."""

    def __init__(self, con: duckdb.DuckDBPyConnection, found: list[Part], since_us: int | None) -> None:
        self.con = con
        self.found = found
        self.since_us = since_us
        self.variants = sorted({p.variant for p in found})
        self.names: list[str] = []
        self._cache: dict[tuple[str, ...], dict[str, Any]] = {}

    def read(self, files: list[str], columns: list[str]) -> dict[str, Any]:
        """The columns of ``files`` in order: numpy arrays (Arrow arrays where nulls may be)."""
        key = (*files, "|", *columns)
        if key not in self._cache:
            table = self.con.read_parquet(files).select(*columns).to_arrow_table()
            out: dict[str, Any] = {}
            for name in columns:
                column = table.column(name)
                if column.null_count or pa.types.is_timestamp(column.type):
                    out[name] = column.combine_chunks()
                else:
                    out[name] = column.to_numpy()  # one copy of the chunks, not a combine then a copy
            self._cache[key] = out
        return self._cache[key]

    @cached_property
    def hands(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """(boards per hand, hand keys, kept by the first day, variant code) of every hand."""
        when = ["played_at"] if self.since_us is not None else []
        h = self.read([f for p in self.found for f in p.hands], ["n_players", "hand_key", *when])
        keep = np.ones(h["n_players"].size, dtype=bool)
        if self.since_us is not None:
            after = pc.greater_equal(h["played_at"].cast(pa.int64()), self.since_us)
            keep = pc.fill_null(after, False).to_numpy(zero_copy_only=False)
        codes = np.array([self.variants.index(p.variant) for p in self.found], dtype=np.int64)
        variant = np.repeat(codes, [_rows(p.hands) for p in self.found])
        return h["n_players"], h["hand_key"], keep, variant

    @cached_property
    def players(self) -> np.ndarray:
        """Each board's player as a code into ``names``: each file's dictionary mapped once, no string per row."""
        files = [f for p in self.found for f in p.boards]
        column = pq.read_table(files, columns=["player"], read_dictionary=["player"]).column(0)
        codes: dict[str, int] = {}
        out = np.empty(len(column), dtype=np.int32)
        at = 0
        for chunk in column.chunks:
            lookup = np.array([codes.setdefault(n, len(codes)) for n in chunk.dictionary.to_pylist()], np.int32)
            out[at : at + len(chunk)] = lookup[chunk.indices.to_numpy(zero_copy_only=False)]
            at += len(chunk)
        self.names = list(codes)
        return out


def _table(columns: dict[str, list[Any]], sums: np.ndarray, names: list[str]) -> pa.Table:
    values = {n: pa.array(sums[:, i] if len(sums) else [], pa.int64()) for i, n in enumerate(names)}
    return pa.table({**{k: pa.array(v, pa.string()) for k, v in columns.items()}, **values})


MATCHUP_VALUES = ["matchups", "points", "squares", "a_scoops", "b_scoops"]


def _runs(found: list[Part], keys: Sequence[str], has: Callable[[Part, str], bool]) -> dict[tuple[int, ...], list[str]]:
    """The rule sets grouped by the parts that have what they need: each group is read as one stream."""
    out: dict[tuple[int, ...], list[str]] = {}
    for key in keys:
        picked = tuple(i for i, p in enumerate(found) if has(p, key))
        if picked:
            out.setdefault(picked, []).append(key)
    return out


_IDS = frozenset({"player_id"})
"""Player results that carry their players' ids (and a ``result_players`` file naming them)."""
_NAMED_PAIRS = frozenset({"player_a", "player_b", "played_at"})
"""Pair results that carry their players' names and hand's time: totals from them alone."""


def _named(part: Part, key: str) -> bool:
    return all(_has_columns(f, _NAMED_PAIRS) for f in part.pairs[key])


def _pair_sums(con: duckdb.DuckDBPyConnection, files: list[str], since_us: int | None) -> pa.Table:
    """Matchup totals of pair results that name their players: one scan and a group-by."""
    rel = con.read_parquet(files, hive_partitioning=True)
    kept = rel.filter(duckdb.SQLExpression(f"epoch_us(played_at) >= {int(since_us)}")) if since_us is not None else rel
    return kept.aggregate(
        """variant::VARCHAR AS variant, player_a::VARCHAR AS player_a, player_b::VARCHAR AS player_b,
        count(*)::BIGINT AS matchups, sum(points)::BIGINT AS points, sum(points::BIGINT * points)::BIGINT AS squares,
        count(*) FILTER (WHERE scoop > 0)::BIGINT AS a_scoops, count(*) FILTER (WHERE scoop < 0)::BIGINT AS b_scoops""",
        "variant, player_a, player_b",
    ).to_arrow_table()


def _walked_sums(con: duckdb.DuckDBPyConnection, run: list[Part], key: str, since_us: int | None) -> pa.Table:
    """Matchup totals of pair results written before they named their players: walked beside hands and boards."""
    s = _Stream(con, run, since_us)
    n_players, hand_keys, keep, hand_variant = s.hands
    seats = s.read([f for p in run for f in p.boards], ["seat"])["seat"]
    players = s.players
    size = max(len(s.names), 1)
    cells = len(s.variants) * size * size
    if cells > 1 << 24:
        raise duckdb.InvalidInputException(f"too many players for head-to-head totals: {size:,}")
    pairs = s.read([f for p in run for f in p.pairs[key]], ["hand_key", "seat_a", "seat_b", "points", "scoop"])
    sums = np.zeros((cells, 5), dtype=np.int64)
    ok = _pair_totals(
        n_players,
        hand_keys,
        keep,
        hand_variant,
        seats,
        players,
        pairs["hand_key"],
        pairs["seat_a"],
        pairs["seat_b"],
        pairs["points"],
        pairs["scoop"],
        size,
        sums,
    )
    if not ok:
        raise duckdb.InvalidInputException(_MISALIGNED)
    present = np.flatnonzero(sums[:, 0])
    variant, a, b = present // (size * size), present // size % size, present % size
    columns = {
        "variant": [s.variants[v] for v in variant.tolist()],
        "player_a": [s.names[i] for i in a.tolist()],
        "player_b": [s.names[i] for i in b.tolist()],
    }
    return _table(columns, sums[present], MATCHUP_VALUES)


def matchup_totals(
    con: duckdb.DuckDBPyConnection, found: list[Part], keys: Sequence[str], since_us: int | None
) -> pa.Table:
    """Per rule set, variant and pair of players (as seated: A, B): matchups, A's points, their squares, scoops."""
    empty = _table({"variant": [], "player_a": [], "player_b": []}, np.zeros((0, 5)), MATCHUP_VALUES)
    tables = [empty.add_column(0, "rules_key", pa.array([], pa.string()))]
    for key in keys:
        scored = [p for p in found if key in p.pairs]
        named = [f for p in scored if _named(p, key) for f in p.pairs[key]]
        older = [p for p in scored if not _named(p, key)]
        sums = [empty]
        if named:
            sums.append(_pair_sums(con, named, since_us))
        if older:
            sums.append(_walked_sums(con, older, key, since_us))
        total = (
            pa.concat_tables(sums)
            .group_by(["variant", "player_a", "player_b"])
            .aggregate([(v, "sum") for v in MATCHUP_VALUES])
        )
        renamed = {f"{v}_sum": v for v in MATCHUP_VALUES}
        total = total.rename_columns([renamed.get(n, n) for n in total.column_names])
        total = total.select(["variant", "player_a", "player_b", *MATCHUP_VALUES])
        tables.append(total.add_column(0, "rules_key", pa.array([key] * total.num_rows, pa.string())))
    return pa.concat_tables(tables)


@njit(cache=True)
def _hand_starts(sizes: np.ndarray, first: np.ndarray) -> int:
    """Where each hand's boards begin, from each board's count of boards in its hand (``first``, then its
    length); -1 when the counts do not tile the rows (a hand's boards disagree, or the last hand is cut)."""
    i = 0
    h = 0
    n = sizes.shape[0]
    while i < n:
        size = sizes[i]
        if size <= 0 or i + size > n:
            return -1
        for j in range(i + 1, i + size):
            if sizes[j] != size:
                return -1
        first[h] = i
        h += 1
        i += size
    first[h] = n
    return h


def _frame(s: _Stream, run: list[Part], key: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(first board of each hand, then the row count; kept by the first day; variant code) of every hand.

    Read from the results' own facts (the boards per hand, the time) when they have them, else from the hands.
    """
    files = [f for p in run for f in p.players[key]]
    if not all(_has_columns(f, FACTS) for f in files):
        n_players, _, keep, hand_variant = s.hands
        first = np.zeros(n_players.size + 1, dtype=np.int64)
        np.cumsum(n_players, out=first[1:])
        return first, keep, hand_variant
    r = s.read(files, ["n_players"] + (["played_at"] if s.since_us is not None else []))
    sizes = r["n_players"]
    first = np.empty(sizes.size + 1, dtype=np.int64)
    hands = _hand_starts(sizes, first)
    if hands < 0:
        raise duckdb.InvalidInputException(_MISALIGNED)
    first = first[: hands + 1]
    codes = np.array([s.variants.index(p.variant) for p in run], dtype=np.int64)
    board_variant = np.repeat(codes, [_rows(p.players[key]) for p in run])
    keep = np.ones(hands, dtype=bool)
    if s.since_us is not None:
        at = pc.take(r["played_at"].cast(pa.int64()), pa.array(first[:-1]))
        keep = pc.fill_null(pc.greater_equal(at, s.since_us), False).to_numpy(zero_copy_only=False)
    return first, keep, board_variant[first[:-1]]


def _hand_winners(s: _Stream, run: list[Part], key: str, first: np.ndarray) -> np.ndarray:
    """The winning board of every hand of the stream under rule set ``key`` (-1: none). Each hand's points
    must sum to zero, which rows of other hands read as one would not."""
    r = s.read([f for p in run for f in p.players[key]], ["points"])
    out = np.empty(first.size - 1, dtype=np.int8)
    if r["points"].size != first[-1] or not _winners(first, r["points"], out):
        raise duckdb.InvalidInputException(_MISALIGNED)
    return out


_WINNERS = frozenset({"hand_winner", "n_players", "played_at"})
"""Player results that name their hand's winner: winner changes are counted board by board from them."""


def _by_winner_seat(s: _Stream, run: list[Part], base: str, keys: list[str]) -> tuple[np.ndarray, list[np.ndarray]]:
    """Hands per variant, and per rule set in ``keys`` those whose winner differs from ``base``'s, from each
    board's ``hand_winner``: a hand whose winner changed has every board differ, and each board counts as
    ``1 / n_players`` of its hand, so no hand needs to be found. Summed part by part (each part is one
    variant): temporaries stay small, where one over every row would cost its page faults."""
    files = {k: [f for p in run for f in p.players[k]] for k in (base, *keys)}
    a = s.read(files[base], ["n_players", "hand_winner"] + (["played_at"] if s.since_us is not None else []))
    after = None
    if s.since_us is not None:
        after = pc.fill_null(pc.greater_equal(a["played_at"].cast(pa.int64()), s.since_us), False)
        after = after.to_numpy(zero_copy_only=False)
    others = [s.read(files[k], ["n_players", "hand_winner"]) for k in keys]
    if any(not np.array_equal(o["n_players"], a["n_players"]) for o in others):
        raise duckdb.InvalidInputException(_MISALIGNED)
    bounds = np.r_[0, np.cumsum([_rows(p.players[base]) for p in run])]
    hands = np.zeros(len(run))
    changed = np.zeros((len(keys), len(run)))
    for i, (lo, hi) in enumerate(pairwise(bounds)):
        share = 1.0 / a["n_players"][lo:hi]
        if after is not None:
            share *= after[lo:hi]
        hands[i] = share.sum()
        winner = a["hand_winner"][lo:hi]
        for j, o in enumerate(others):
            changed[j, i] = np.dot(o["hand_winner"][lo:hi] != winner, share)
    codes = np.array([s.variants.index(p.variant) for p in run], dtype=np.int64)

    def per_variant(per_part: np.ndarray) -> np.ndarray:
        return np.rint(np.bincount(codes, weights=per_part, minlength=len(s.variants))).astype(np.int64)

    return per_variant(hands), [per_variant(c) for c in changed]


def _by_points(s: _Stream, run: list[Part], base: str, keys: list[str]) -> tuple[np.ndarray, list[np.ndarray]]:
    """The same from the points of results written before they named the winner: each hand found and walked."""
    first, keep, hand_variant = _frame(s, run, base)
    baseline = _hand_winners(s, run, base, first)
    changed = []
    for key in keys:
        differ = keep & (_hand_winners(s, run, key, first) != baseline)
        changed.append(np.bincount(hand_variant[differ], minlength=len(s.variants)))
    return np.bincount(hand_variant[keep], minlength=len(s.variants)), changed


def winner_totals(
    con: duckdb.DuckDBPyConnection, found: list[Part], keys: Sequence[str], since_us: int | None
) -> pa.Table:
    """Per rule set after the first and variant: hands, and hands whose winner differs from the first rule set's."""
    tables = [_table({"baseline": [], "rules_key": [], "variant": []}, np.zeros((0, 2)), ["hands", "changed"])]
    base = keys[0] if keys else ""
    for picked, run_keys in _runs(found, keys[1:], lambda p, k: k in p.players and base in p.players).items():
        run = [found[i] for i in picked]
        s = _Stream(con, run, since_us)
        named = all(_has_columns(f, _WINNERS) for p in run for k in (base, *run_keys) for f in p.players[k])
        hands, changed = (_by_winner_seat if named else _by_points)(s, run, base, run_keys)
        present = np.flatnonzero(hands)
        for key, per_variant in zip(run_keys, changed, strict=True):
            columns = {
                "baseline": [base] * present.size,
                "rules_key": [key] * present.size,
                "variant": [s.variants[v] for v in present.tolist()],
            }
            sums = np.stack([hands, per_variant], axis=1).astype(np.int64)
            tables.append(_table(columns, sums[present], ["hands", "changed"]))
    return pa.concat_tables(tables)


_TOTALS: dict[tuple[Any, ...], pa.Table] = {}
"""The last hand-level totals computed, by what they were computed from: a report's queries share them."""


def _totals(
    kind: Callable[..., pa.Table],
    con: duckdb.DuckDBPyConnection,
    found: list[Part],
    keys: Sequence[str],
    since_us: int | None,
) -> pa.Table:
    files = tuple(
        f
        for p in found
        for f in (*p.hands, *p.boards, *(x for k in keys for x in (*p.players.get(k, ()), *p.pairs.get(k, ()))))
    )
    key = (kind.__name__, tuple(keys), since_us, files)
    if key not in _TOTALS:
        if len(_TOTALS) >= 4:
            _TOTALS.clear()
        _TOTALS[key] = kind(con, found, keys, since_us)
    return _TOTALS[key]


# ------------------------------------------------------------------ defining them


_EMPTY_BOARDS = f"""
    SELECT NULL::UBIGINT AS hand_key, NULL::VARCHAR AS rules, NULL::VARCHAR AS rules_key, NULL::VARCHAR AS variant,
           NULL::VARCHAR AS month, NULL::TINYINT AS seat, NULL::VARCHAR AS player, NULL::UBIGINT AS player_id,
           {_hand_columns(None, None)}, NULL::BOOLEAN AS fantasyland,
           NULL::TINYINT AS fantasyland_cards, NULL::TINYINT AS dead_street, NULL::INTEGER AS points,
           NULL::INTEGER AS royalty_top, NULL::INTEGER AS royalty_middle, NULL::INTEGER AS royalty_bottom,
           NULL::BOOLEAN AS fouled, NULL::BOOLEAN AS fantasyland_entry, NULL::BOOLEAN AS fantasyland_stay,
           NULL::TINYINT AS fantasyland_next
    WHERE false"""

_SELECTIONS = """
CREATE OR REPLACE MACRO boards_of(rule_keys, who, game, from_day) AS TABLE
    SELECT * FROM board_results
    WHERE list_contains(rule_keys, rules_key) AND (game IS NULL OR variant = game)
      AND (who IS NULL OR player_id IN (SELECT player_id FROM player_names WHERE player = who))
      AND (from_day IS NULL OR played_at >= timezone('UTC', from_day::TIMESTAMP));
CREATE OR REPLACE MACRO matchups_of(rule_keys, who, game) AS TABLE
    SELECT * FROM matchup_totals
    WHERE list_contains(rule_keys, rules_key) AND (who IS NULL OR player_a = who OR player_b = who)
      AND (game IS NULL OR variant = game);
CREATE OR REPLACE MACRO changes_of(rule_keys, game) AS TABLE
    SELECT * FROM winner_totals WHERE list_contains(rule_keys, rules_key) AND (game IS NULL OR variant = game);
"""
"""Where named queries start: rule set keys, a player, a variant and a first day (UTC); null: all. The
hand-level totals are computed with the first day already applied. A player is found by id."""


def define(
    con: duckdb.DuckDBPyConnection,
    lake: Lake,
    keys: Sequence[str],
    needs: frozenset[str],
    since: date | None = None,
    one_player: bool = False,
) -> None:
    """(Re)define the relations for rule sets ``keys`` (the first is the baseline), reading what ``needs`` asks.

    ``needs`` holds ``HANDS`` for the hand's time, table size and seat relative to the button, ``SESSIONS``
    for its session and number, ``BOARDS`` for a Fantasyland hand's card count, ``DEAD`` for the street a
    board went dead at (see ``NEEDS``), ``MATCHUPS`` / ``WINNERS`` to compute ``matchup_totals`` /
    ``winner_totals`` from hands played on or after ``since``. ``one_player``: the query keeps one player's
    boards, a small fraction of them, so their hands and boards are found by key (a join built from those few
    boards) rather than by scanning them all.
    """
    manifests = lake.manifests()
    files = _files_of(con)
    signature = (tuple(m["batch"] for m in manifests), tuple(keys), needs, since, one_player)
    if files.defined == signature:  # the same relations as the last query on this connection
        return
    found = parts(lake, manifests, keys)
    # Player ids from the results, or hashed from the names for all when any results were written without them.
    ids = all(_has_columns(f, _IDS) for p in found for k in keys for f in p.players.get(k, ()))
    branches: list[str] = []
    for key in keys:
        scored = [p for p in found if key in p.players]
        odd = [p for p in scored if not aligned(p, key)]
        runs = chunks([p for p in scored if p not in odd]) + odd
        keyed = one_player and bool(needs & {HANDS, SESSIONS, BOARDS, DEAD})
        branches += [_board_branch(files, p, key, needs, keyed, ids) for p in runs]
    body = "\nUNION ALL BY NAME\n".join(branches) if branches else _EMPTY_BOARDS
    con.execute(f"CREATE OR REPLACE VIEW board_results AS {body}")
    names = name_files(lake, manifests, keys)
    if not ids:
        source = "board_results"
    elif names:
        source = files(names)[0]
    else:
        source = "(SELECT NULL::UBIGINT AS player_id, NULL::VARCHAR AS player WHERE false)"
    con.execute(f"CREATE OR REPLACE VIEW player_names AS SELECT DISTINCT player_id, player FROM {source}")
    since_us = None
    if since is not None:
        since_us = int((datetime(since.year, since.month, since.day, tzinfo=UTC)).timestamp()) * 1_000_000
    con.register("matchup_totals", _totals(matchup_totals, con, found, keys if MATCHUPS in needs else [], since_us))
    con.register("winner_totals", _totals(winner_totals, con, found, keys if WINNERS in needs else [], since_us))
    con.execute(_SELECTIONS)
    con.register("royalty_hands", royalty_hands(manifests))
    files.defined = signature


# ------------------------------------------------------------------ royalty hands


def royalty_hands(manifests: list[dict[str, Any]]) -> pa.Table:
    """Per rule set in the lake, row and royalty value: the hand category (and name) that earns it.

    From the rule set's compiled royalty tables evaluated at every strength: a value earned by hands of one
    category is that category (and, when they share their rank too, that hand: ``pair of queens``); a value
    several categories earn names them all. So a report reads royalties, never cards: every row was
    already evaluated by the rescore.
    """
    from pipeline.rescore.plan import results

    batches = tuple(m["batch"] for m in results(manifests))  # a committed manifest never changes
    if batches not in _ROYALTY_HANDS:
        _ROYALTY_HANDS.clear()
        _ROYALTY_HANDS[batches] = _royalty_table(manifests)
    return _ROYALTY_HANDS[batches]


_ROYALTY_HANDS: dict[tuple[str, ...], pa.Table] = {}


def _royalty_table(manifests: list[dict[str, Any]]) -> pa.Table:
    from pipeline.rescore.plan import rule_sets_in

    rows: list[dict[str, Any]] = []
    for rules in rule_sets_in(manifests):
        rows.extend(_royalty_rows(rules.model_dump_json()))
    return pa.Table.from_pylist(rows, schema=ROYALTY_HANDS)


ROYALTY_HANDS = pa.schema(
    [
        ("rules_key", pa.string()),
        ("row", pa.string()),
        ("points", pa.int32()),
        ("category", pa.string()),
        ("category_order", pa.int8()),
        ("hand", pa.string()),
    ]
)


@cache
def _royalty_rows(rules_json: str) -> tuple[dict[str, Any], ...]:
    from pipeline.evaluate import CATEGORY_NAMES, describe, tables
    from pipeline.score.compile import compile_rules
    from schemas.rules import RuleSet

    c = compile_rules(RuleSet.model_validate_json(rules_json))
    key = c.rules.key
    out: list[dict[str, Any]] = []
    five = tables.N_CARDS == 5
    by_row = {"top": (c.royalty_top, ~five), "middle": (c.royalty_middle, five), "bottom": (c.royalty_bottom, five)}
    for row, (table, width) in by_row.items():
        if row == "middle" and c.lowball:
            out.extend(_lowball_rows(key, c.royalty_middle_low))
            continue
        for points in np.unique(table[width & (table > 0)]):
            strengths = np.flatnonzero(width & (table == points))
            cats = np.unique(tables.CATEGORY[strengths])
            names = " / ".join(CATEGORY_NAMES[i] for i in cats)
            if len(cats) == 1 and (tables.CATEGORY[strengths] == tables.STRAIGHT_FLUSH).all():
                royal = (tables.RANK1[strengths] == tables.ACE).all()
                hand = "royal flush" if royal else names
            elif len(cats) == 1 and np.unique(tables.RANK1[strengths]).size == 1 and cats[0] != tables.HIGH_CARD:
                hand = str(describe(strengths[:1])[0]).split(",")[0]
            else:
                hand = names
            out.append(
                {
                    "rules_key": key,
                    "row": row,
                    "points": int(points),
                    "category": names,
                    "category_order": int(cats.max()),
                    "hand": hand,
                }
            )
    return tuple(out)


_LOW_NAMES = ("deuce", "trey", "four", "five", "six", "seven", "eight", "nine", "ten", "jack", "queen", "king", "ace")


def _lowball_rows(key: str, table: np.ndarray) -> list[dict[str, Any]]:
    """The royalties of a 2-7 middle, named by their highest card (``seven-low``)."""
    from pipeline.evaluate import tables

    out = []
    for points in np.unique(table[table > 0]):
        values = np.flatnonzero(table == points)
        highs = np.unique(tables.LOW_RANK1[values])
        if values.size == 1 and values[0] == 0:
            hand = "7-5-4-3-2"
        elif highs.size == 1:
            hand = f"{_LOW_NAMES[highs[0]]}-low"
        else:
            hand = f"{_LOW_NAMES[highs.min()]}- to {_LOW_NAMES[highs.max()]}-low"
        out.append(
            {
                "rules_key": key,
                "row": "middle",
                "points": int(points),
                "category": "2-7 low",
                "category_order": 0,
                "hand": hand,
            }
        )
    return out
