"""Who and what a report or query is about: players found without regard to case and under their aliases, and
filters checked against the lake, so that a filter matching nothing is an error with the closest matches rather
than an empty result."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import date

import duckdb

from ofc.pipeline import suggest
from ofc.pipeline.errors import InputError
from ofc.schemas.lake import TABLES
from ofc.schemas.rules import Variant

__all__ = [
    "NAME_COLUMNS",
    "FilterError",
    "Found",
    "LakeFilters",
    "alias_case",
    "aliases_of",
    "apply_aliases",
    "closest",
    "days_said",
    "self_pairs",
]

NAME_COLUMNS = ("player", "player_a", "player_b")
"""The columns that name a player, in any lake table."""
_NAMED = {
    name: named for name, schema in TABLES.items() if (named := tuple(c for c in NAME_COLUMNS if c in schema.names))
}
"""The lake tables that name players, and their columns of names."""


class FilterError(InputError):
    """A player, variant or day that matches no hand of the lake."""


def closest(word: str, choices: list[str], n: int = 5) -> list[str]:
    """The choices nearest ``word``, ignoring case: close spellings first, then names that contain it."""
    return suggest.closest(word, choices, n, 0.5, any_case=True, containing=True)


def _quoted(name: str) -> str:
    return "'" + name.replace("'", "''") + "'"


def alias_case(column: str, aliases: Mapping[str, str]) -> str:
    """SQL reading ``column`` with every alias as its player's name."""
    cases = " ".join(f"WHEN {_quoted(a)} THEN {_quoted(p)}" for a, p in aliases.items())
    return f"CASE {column} {cases} ELSE {column} END AS {column}"


def apply_aliases(
    con: duckdb.DuckDBPyConnection, aliases: Mapping[str, str], views: Mapping[str, str] | None = None
) -> None:
    """Make every alias read as its player in the tables that name players (and so in every view, macro and
    query over them), and keep the aliases as ``player_aliases`` (for the rows a lookup reads). Names are
    mapped by one CASE per column; no aliases, nothing changes. ``views``: the name of the view a table is read
    by, where it is not the table's own (a narrowed connection's ``lake_boards``)."""
    if not aliases:
        return
    for table, columns in _NAMED.items():
        view = (views or {}).get(table, table)
        cases = ", ".join(alias_case(c, aliases) for c in columns)
        con.execute(f"ALTER VIEW {view} RENAME TO {view}_as_recorded")
        con.execute(f"CREATE VIEW {view} AS SELECT * REPLACE ({cases}) FROM {view}_as_recorded")
    # As SQL values: an Arrow table built from Python values would load pandas (0.2 s of every ofc sql).
    pairs = ", ".join(f"({_quoted(a)}, {_quoted(p)})" for a, p in aliases.items())
    con.execute(f"CREATE VIEW player_aliases AS SELECT * FROM (VALUES {pairs}) AS player_aliases(alias, player)")


def aliases_of(con: duckdb.DuckDBPyConnection) -> dict[str, str]:
    """The aliases ``apply_aliases`` gave ``con`` (none: empty)."""
    tables = {r[0] for r in con.execute("SELECT view_name FROM duckdb_views() WHERE NOT internal").fetchall()}
    if "player_aliases" not in tables:
        return {}
    return dict(con.execute("SELECT alias, player FROM player_aliases").fetchall())


def self_pairs(con: duckdb.DuckDBPyConnection) -> dict[str, int]:
    """Hands in which aliases put one player at a table twice, by player: their two names were two people."""
    rows = con.execute(
        "SELECT a.player, count(DISTINCT p.hand_key) FROM pair_results p "
        "JOIN boards a ON a.hand_key = p.hand_key AND a.seat = p.seat_a "
        "JOIN boards b ON b.hand_key = p.hand_key AND b.seat = p.seat_b "
        "WHERE p.native AND a.player = b.player GROUP BY ALL"
    ).fetchall()
    return dict(rows)


@dataclass(frozen=True)
class Found:
    """What the filters matched: the player (as the lake spells them), and every player's boards."""

    player: str | None
    boards: dict[str, int]
    """Boards of each player the variant and day filters keep."""

    @property
    def players(self) -> int:
        return len(self.boards)

    def match(self, name: str) -> str | None:
        """The player ``name`` is, as the lake spells them (ignoring case), or None."""
        return _match(name, list(self.boards))

    def featured(self, preferred: str | None = None) -> str | None:
        """The player a report features: ``preferred`` when it matches one, else the one with the most boards."""
        match = self.match(preferred) if preferred else None
        if match is not None:
            return match
        return min(self.boards, key=lambda p: (-self.boards[p], p)) if self.boards else None


def days_said(since: date | None, until: date | None) -> str:
    """The days a filter keeps, as a report and its errors say them: "from 2026-01-01 to 2026-01-31", "since
    2026-01-01", "until 2026-01-31"; nothing when neither is given."""
    if since is not None and until is not None:
        return f"from {since} to {until}"
    if since is not None:
        return f"since {since}"
    return f"until {until}" if until is not None else ""


def _match(wanted: str, names: list[str]) -> str | None:
    """The name equal to ``wanted``, else the one equal ignoring case (None when none or several are)."""
    if wanted in names:
        return wanted
    folded = [n for n in names if n.casefold() == wanted.casefold()]
    return folded[0] if len(folded) == 1 else None


_Asked = tuple[str | None, date | None, date | None]
"""A count's filters: the variant, the first and the last day (None: any)."""


@dataclass
class _Counted:
    """What :class:`LakeFilters` has counted, shared by those over one state of the lake."""

    boards: dict[_Asked, dict[str, dict[str, int]]] = field(default_factory=dict)
    """Boards of each player in each variant."""
    players: dict[_Asked, tuple[str, ...]] = field(default_factory=dict)
    """The players, by name."""
    hands: dict[str, int] | None = None
    """Hands of each variant (None: not counted yet)."""


class LakeFilters:
    """Checks a report's filters against the lake it reads."""

    def __init__(self, con: duckdb.DuckDBPyConnection, like: LakeFilters | None = None) -> None:
        """``like``: what another connection over the same lake (the same state, not narrowed) has counted, and
        will count, shared: a server's second connection counts no board again."""
        self.con = con
        self._counted = _Counted() if like is None else like._counted

    def boards_by_variant(
        self, variant: str | None, since: date | None, until: date | None
    ) -> dict[str, dict[str, int]]:
        """Boards of each player in each variant the filters keep: counted once, whoever asks (the check and the
        report's games)."""
        asked, boards = (variant, since, until), self._counted.boards
        every = boards.get((None, since, until))
        if asked not in boards and variant is not None and every is not None:  # one game of every game's
            boards[asked] = {variant: every[variant]} if variant in every else {}
        if asked not in boards:
            # The hands of those days only when a day is given: DuckDB reads every hand for the subquery even when
            # a parameter makes it moot (over 10 M hands 0.9 s against 0.2 s for the boards alone).
            days = (
                ""
                if since is None and until is None
                else "AND b.hand_key IN (SELECT hand_key FROM hands WHERE played_between(played_at, $since, $until))"
            )
            params = {"variant": variant, **({"since": since, "until": until} if days else {})}
            sql = f"""
                SELECT b.variant, b.player, count(*) FROM boards b
                WHERE ($variant IS NULL OR b.variant = $variant) {days}
                GROUP BY ALL
            """
            found: dict[str, dict[str, int]] = {}
            for v, who, n in self.con.execute(sql, params).fetchall():
                found.setdefault(v, {})[who] = n
            boards[asked] = found
        return boards[asked]

    def hands_by_variant(self) -> dict[str, int]:
        """The lake's hands of each variant: counted once (a server checks a variant on every page)."""
        if self._counted.hands is None:
            counted = self.con.execute("SELECT variant, count(*) FROM hands GROUP BY ALL").fetchall()
            self._counted.hands = dict(counted)
        return self._counted.hands

    def players(self, variant: str | None, since: date | None, until: date | None) -> list[str]:
        """The players with boards the filters keep (of a variant, or of every one), by name: sorted once (a
        server's page asks for them with each of a player's queries)."""
        asked = (variant, since, until)
        if asked not in self._counted.players:
            self._counted.players[asked] = tuple(sorted(self._counts(variant, since, until)))
        return list(self._counted.players[asked])

    def _counts(self, variant: str | None, since: date | None, until: date | None) -> dict[str, int]:
        counts: dict[str, int] = {}
        for players in self.boards_by_variant(variant, since, until).values():
            for who, n in players.items():
                counts[who] = counts.get(who, 0) + n
        return counts

    def _no_hands(self, variant: str | None, since: date | None, until: date | None) -> str:
        """Why no hand matches: the lake has none (of the variant), or none in the days asked, said beside the days
        the lake's hands were played."""
        scope = f" {variant}" if variant else ""
        if since is None and until is None:
            return f"the lake has no{scope} hands"
        first, last = self.con.execute(
            "SELECT CAST(min(played_at) AS DATE), CAST(max(played_at) AS DATE) FROM hands"
        ).fetchone()
        if until is None:
            return f"no{scope} hands were played on or after {since} (the last hand in the lake was played on {last})"
        if since is None:
            return (
                f"no{scope} hands were played on or before {until} (the first hand in the lake was played on {first})"
            )
        return f"no{scope} hands were played between {since} and {until} (the lake's hands run from {first} to {last})"

    def check_session(self, session: str) -> None:
        """A session the lake does not have is a :class:`FilterError` naming the closest it has. Hands without one
        are in their day's, named as the figures of sessions name it ("day 2026-01-02"; the macro session_name)."""
        found = self.con.execute("SELECT DISTINCT session FROM hands WHERE session IS NOT NULL").fetchall()
        sessions = sorted(s for (s,) in found)
        if session in sessions:
            return
        # the days' names are made only for a name that is no recorded session
        found = self.con.execute(
            "SELECT DISTINCT session_name(NULL, utc_day(played_at)) FROM hands WHERE session IS NULL"
        ).fetchall()
        days = sorted(s for (s,) in found)
        if session not in days:
            raise FilterError(suggest.no_such("session", session, [*sessions, *days], shown=20))

    def check_narrowing(self, session: str | None, opponent: str | None) -> str | None:
        """A narrowing's session and opponent checked (None: not asked); the opponent as the lake spells them."""
        if session is not None:
            self.check_session(session)
        return None if opponent is None else self.check(opponent, None, None).player

    def check(self, player: str | None, variant: str | None, since: date | None, until: date | None = None) -> Found:
        """The filters' matches; a filter that matches no hand is a :class:`FilterError` naming the closest, and
        days that cannot hold one (the last before the first) are one naming both."""
        if since is not None and until is not None and until < since:
            raise FilterError(f"until {until} is before since {since}: the last day must be on or after the first")
        # The lake's variants are counted only for a variant asked for: every hand read for nothing otherwise.
        variants = {} if variant is None else self.hands_by_variant()
        if variant is not None and variant not in variants:
            known = [v.value for v in Variant]
            if variant in known:
                have = ", ".join(f"{v} ({n:,} hands)" for v, n in sorted(variants.items())) or "no hands"
                raise FilterError(f"the lake has no {variant} hands; it has {have}")
            raise FilterError(suggest.no_such("variant", variant, known))
        boards = self._counts(variant, since, until)
        if not boards:
            raise FilterError(self._no_hands(variant, since, until))
        if player is None:
            return Found(None, boards)
        match = _match(player, list(boards))
        if match is not None:
            return Found(match, boards)
        everywhere = list(self._counts(None, None, None))
        elsewhere = _match(player, everywhere)
        if elsewhere is not None:
            scope = " and ".join(x for x in (f"in {variant}" if variant else "", days_said(since, until)) if x)
            raise FilterError(f"{elsewhere} has no hands {scope}")
        folded = [n for n in everywhere if n.casefold() == player.casefold()]
        if len(folded) > 1:
            raise FilterError(f"{player!r} matches several players: {', '.join(folded)}; give the name as recorded")
        hint = closest(player, everywhere)
        raise FilterError(
            f"no player {player!r} in the lake"
            + (f"; the closest names: {', '.join(hint)}" if hint else f" ({len(everywhere):,} players)")
        )
