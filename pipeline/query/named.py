"""Named, parameterised queries (``sql/queries/*.sql``): loading, parameters, running.

A named query is a SQL file whose leading comment says what it answers and declares its parameters::

    -- Foul rate by player, variant, seat relative to the button, table size and Fantasyland.
    -- @param rules rules?: read every hand as if played under this rule set
    -- @param player text?: only this player's boards

Each parameter is ``$name`` in the SQL and always a bound value, never text spliced into it. Types:
``text``, ``date``, ``int``, ``rules`` (one rule set in the lake, by name or ``name@key``: "as if every hand
had been played under it"; left out, each hand is read under its own rules) and ``rules[]`` (several,
comma-separated; every rule set asked for by default). A trailing ``?`` makes a parameter optional (null when
not given); ``= value`` gives a default.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import date
from functools import cache
from pathlib import Path
from typing import Any

import duckdb
import pyarrow as pa

from ofc.pipeline import suggest
from ofc.pipeline.errors import InputError
from ofc.pipeline.lake.snapshot import Snapshot
from ofc.pipeline.query import lookup
from ofc.pipeline.query.db import SQL_DIR, QueryError, run_query
from ofc.pipeline.query.players import LakeFilters, aliases_of
from ofc.pipeline.rules.files import load_rules, preset_names
from ofc.pipeline.rules.native import cannot_apply
from ofc.pipeline.suggest import closest, did_you_mean
from ofc.schemas.lake import TABLES
from ofc.schemas.rules import Variant, key_hash, key_name

__all__ = [
    "TYPES",
    "NamedQuery",
    "NamedQueryError",
    "Param",
    "RuleSetsInLake",
    "bind",
    "display_names",
    "get",
    "latest_versions",
    "parse_assignments",
    "queries",
    "run",
    "run_for_players",
]

QUERY_DIR = SQL_DIR / "queries"
TYPES = ("text", "date", "int", "rules", "rules[]")
_PARAM = re.compile(r"^--\s*@param\s+(\w+)\s+(text|date|int|rules\[\]|rules)(\?)?(?:\s*=\s*([^:]+?))?\s*:\s*(.*)$")
_NAME = re.compile(r"^[a-z][a-z0-9_]*$")
_LOOKUP = re.compile(r"^--\s*@lookup\s+(\w+)(?:\s+under\s+\$(rules|compared))?(?:\s*\(([\w\s,]+)\))?\s*:\s*(.*)$")


class NamedQueryError(InputError):
    """A named query that does not exist, parameters it cannot take, or a lake it cannot answer from."""


@dataclass(frozen=True)
class Param:
    name: str
    type: str
    optional: bool
    default: str | None
    help: str

    def describe(self) -> str:
        default = f" = {self.default}" if self.default is not None else ""
        return f"{self.name} ({self.type}{'?' if self.optional else ''}{default}): {self.help}"


@dataclass(frozen=True)
class NamedQuery:
    name: str
    description: str
    params: tuple[Param, ...]
    sql: str
    path: Path
    lookups: tuple[tuple[str, str | None, tuple[str, ...] | None], ...] = ()
    """Tables whose rows of the hands in ``$hands`` the query reads as ``wanted_TABLE`` (``pipeline.query.lookup``),
    each with the parameter naming the rule sets read from it (None: every one the query takes) and the columns
    read (None: those the query names)."""

    def param(self, name: str) -> Param:
        for p in self.params:
            if p.name == name:
                return p
        takes = [p.name for p in self.params]
        hint = suggest.did_you_mean(suggest.closest(name, takes, any_case=True))
        raise NamedQueryError(
            f"query {self.name!r} has no parameter {name!r}{hint} (it takes: {', '.join(takes) or 'none'})"
        )


def parse_query(path: Path) -> NamedQuery:
    """A query file: its leading comment (description and ``@param`` lines), then the SQL."""
    text = path.read_text(encoding="utf-8")
    description: list[str] = []
    params: list[Param] = []
    lookups: list[tuple[str, str | None, tuple[str, ...] | None]] = []
    for line in text.splitlines():
        if not line.startswith("--"):
            break
        if "@lookup" in line:
            found = _LOOKUP.match(line)
            if found is None or found.group(1) not in TABLES:
                raise NamedQueryError(
                    f"{path}: cannot read lookup line {line!r} (-- @lookup TABLE [under $P] [(COLUMNS)]: why)"
                )
            listed = tuple(c.strip() for c in found.group(3).split(",")) if found.group(3) else None
            lookups.append((found.group(1), found.group(2), listed))
        elif "@param" in line:
            m = _PARAM.match(line)
            if m is None:
                raise NamedQueryError(f"{path}: cannot read parameter line {line!r}")
            name, kind, optional, default, help_ = m.groups()
            params.append(Param(name, kind, bool(optional), default, help_.strip()))
        elif not params:
            description.append(line.lstrip("-").strip())
    name = path.stem
    if not _NAME.match(name):
        raise NamedQueryError(f"{path}: a query's file name must be lower_snake_case")
    for p in params:
        if not _uses(text, p.name):
            raise NamedQueryError(f"{path}: parameter {p.name!r} is declared but never used as ${p.name}")
    if lookups and not any(p.name == "hands" for p in params):
        raise NamedQueryError(f"{path}: a query that looks hands up takes them as the parameter hands")
    return NamedQuery(name, " ".join(d for d in description if d), tuple(params), text, path, tuple(lookups))


def _uses(sql: str, name: str) -> bool:
    return re.search(rf"\${name}\b", sql) is not None


@cache
def _load(directory: str) -> dict[str, NamedQuery]:
    return {q.name: q for q in (parse_query(p) for p in sorted(Path(directory).glob("*.sql")))}


def queries(directory: Path = QUERY_DIR) -> dict[str, NamedQuery]:
    """Every named query, by name."""
    return _load(str(directory))


def get(name: str) -> NamedQuery:
    found = queries()
    if name not in found:
        raise NamedQueryError(f"no named query {name!r}{_closest(name, found)} (ofc sql --list shows them)")
    return found[name]


def _closest(word: str, choices: Iterable[str]) -> str:
    """``; did you mean 'x'?`` for the nearest choices, or nothing."""
    return did_you_mean(closest(word, choices))


# ------------------------------------------------------------------ parameters


def parse_assignments(items: Iterable[str]) -> dict[str, str]:
    """``["player=Ann", "since=2026-01-01"]`` as a mapping; the value may hold any text, ``=`` included."""
    out: dict[str, str] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise NamedQueryError(f"a parameter is key=value, got {item!r}")
        out[key.strip()] = value
    return out


def _convert(p: Param, value: Any) -> Any:
    if p.type == "text":
        return str(value)
    if p.type == "int":
        try:
            return int(value)
        except (TypeError, ValueError):
            raise NamedQueryError(f"parameter {p.name!r} takes a whole number, got {value!r}") from None
    if p.type == "date":
        if isinstance(value, date):
            return value
        try:
            return date.fromisoformat(str(value).strip())
        except ValueError:
            raise NamedQueryError(f"parameter {p.name!r} takes a date (YYYY-MM-DD), got {value!r}") from None
    return value


@dataclass(frozen=True)
class RuleSetsInLake:
    """What a snapshot holds results under: every rule set scored, and those a rescore was asked for."""

    snapshot: Snapshot

    @property
    def keys(self) -> list[str]:
        """Rule sets the lake compares (asked for by a rescore), oldest first."""
        return self.snapshot.asked_keys()

    def check_current(self) -> None:
        """Refuse a lake whose results were written by an older version: they are not read."""
        if self.snapshot.has_stale:
            raise NamedQueryError(
                "the lake's results were written by an older version of ofc-analytics and are not read: "
                f"ofc rescore --lake {self.snapshot.root} scores them again ({self.snapshot.stale_work()})"
            )

    def resolve(self, wanted: str) -> str:
        """The key of a rule set given by key, by name (the latest asked for under that name) or by the path of its
        rule file (the version that file holds now)."""
        wanted = wanted.strip()
        scored = self.snapshot.scored_keys
        if wanted in scored:
            return wanted
        if _looks_like_a_file(wanted):
            return self._from_file(wanted)
        matches = [k for k in self.keys if key_name(k) == wanted] or [k for k in scored if key_name(k) == wanted]
        if not matches:
            names = list(dict.fromkeys(key_name(k) for k in scored))
            have = ", ".join(names) or "none (ofc rescore writes them)"
            if wanted in preset_names():  # a preset the lake was not scored under
                raise NamedQueryError(
                    f"the lake has no results under rules {wanted!r}. It has: {have}; ofc rescore --rules {wanted} "
                    "scores the lake under it"
                )
            near = closest(wanted, names)
            if near:  # a name the lake has, misspelt
                raise NamedQueryError(
                    f"the lake has no results under rules {wanted!r}{did_you_mean(near)} It has: {have}"
                )
            near = closest(wanted, preset_names())  # a preset's name, misspelt
            raise NamedQueryError(
                f"the lake has no results under rules {wanted!r}{did_you_mean(near) or '.'} It has: {have}; "
                f"ofc rescore --rules {near[0] if near else wanted} scores the lake under it"
            )
        return matches[-1]

    def _from_file(self, path: str) -> str:
        key = load_rules(path).key
        if key in self.snapshot.scored_keys:
            return key
        name = key_name(key)
        older = [k for k in self.snapshot.scored_keys if key_name(k) == name]
        also = f" (it has results under earlier versions: {', '.join(older)})" if older else ""
        raise NamedQueryError(
            f"the lake has no results under the rules in {path} ({key}){also}: run ofc rescore --rules {path}"
        )

    def problem(self, key: str, variant: str | None = None) -> str | None:
        """Why the rule set cannot be read "as if every hand had been played under it" (None: it can): it must
        have scored every hand it applies to, and apply to the variant asked for."""
        rules = self.snapshot.rule_sets.get(key)
        name = key_name(key)
        if rules is not None and variant is not None and variant in _VARIANTS:
            reason = cannot_apply(rules, variant)
            if reason is not None:
                return f"rule set {name} cannot score {variant} hands: {reason}"
        coverage = self.snapshot.coverage
        mine = [c for (_, k), c in coverage.items() if k == key]
        if mine and not any(c.hands for c in mine):
            why = sorted({w for c in mine for w in c.why.values()})
            return f"rule set {name} cannot score any hand of the lake: {'; '.join(why) or 'it has no results'}"
        missing = [m for m in self.snapshot.sources if (c := coverage.get((m.batch, key))) is None or c.native_only]
        if missing:
            hands = sum(self.snapshot.hands(m) for m in missing)
            return (
                f"rule set {name} has not scored every hand: {hands:,} hands in {len(missing)} batch(es) lack its "
                f"results; run ofc rescore --rules {name}"
            )
        return None

    @property
    def latest(self) -> list[str]:
        """Of the rule sets the lake compares, the latest version of each name."""
        return latest_versions(self.keys)

    def compared(self, variant: str | None = None, *, all_versions: bool = False) -> list[str]:
        """The rule sets a comparison reads by default: those asked for that can be read for ``variant``; of a
        rule set edited since (one name, several versions), only the latest unless ``all_versions``."""
        keys = [k for k in self.keys if self.problem(k, variant) is None]
        if all_versions:
            return keys
        latest = set(latest_versions(keys))
        return [k for k in keys if k in latest]


_VARIANTS = frozenset(v.value for v in Variant)


def latest_versions(keys: Iterable[str]) -> list[str]:
    """Of rule set keys oldest first, the last of each name."""
    return list({key_name(k): k for k in keys}.values())


def display_names(keys: Iterable[str], latest: Iterable[str] = ()) -> dict[str, str]:
    """Each rule set key (``name@hash``) as people read it: its name, with the start of its hash only where two
    versions of one name are shown together (and which of them is the ``latest``)."""
    by_name: dict[str, set[str]] = {}
    for key in keys:
        by_name.setdefault(key_name(key), set()).add(key)
    newest = set(latest)

    def shown(name: str, key: str, versions: set[str]) -> str:
        if len(versions) == 1:
            return name
        return f"{name} ({key_hash(key)[:6]}{', latest' if key in newest else ''})"

    return {k: shown(n, k, ks) for n, ks in by_name.items() for k in ks}


def _looks_like_a_file(text: str) -> bool:
    """A rule file's path rather than a name: it has a folder or a suffix, or names a file that exists."""
    return "/" in text or "\\" in text or text.endswith((".toml", ".json", ".yaml", ".yml")) or Path(text).is_file()


def bind(query: NamedQuery, values: Mapping[str, Any], rule_sets: RuleSetsInLake) -> dict[str, Any]:
    """Every declared parameter as the value DuckDB binds: converted, defaulted, rule sets resolved to keys."""
    for key in values:
        query.param(key)
    bound: dict[str, Any] = {}
    for p in query.params:
        raw = values.get(p.name)
        if raw is None or (isinstance(raw, str) and raw == "" and p.type != "text"):
            raw = p.default
        if p.type == "rules":
            bound[p.name] = rule_sets.resolve(raw) if raw is not None else None
        elif p.type == "rules[]":
            names = raw if isinstance(raw, list | tuple) else [s for s in str(raw or "").split(",") if s.strip()]
            keys = [rule_sets.resolve(n) for n in names] if names else rule_sets.compared(values.get("variant"))
            bound[p.name] = list(dict.fromkeys(keys))
        elif raw is None:
            if not p.optional:
                raise NamedQueryError(f"query {query.name!r} needs --param {p.name}=... ({p.help})")
            bound[p.name] = None
        else:
            bound[p.name] = _convert(p, raw)
    rule_sets.check_current()
    if any(p.type in ("rules", "rules[]") for p in query.params) and not rule_sets.snapshot.scored_keys:
        raise NamedQueryError("the lake has no results yet: run ofc rescore first")
    variant = bound.get("variant")
    for p in query.params:
        chosen = [bound[p.name]] if p.type == "rules" and bound[p.name] is not None else []
        chosen += bound[p.name] if p.type == "rules[]" else []
        for key in chosen:
            if (problem := rule_sets.problem(key, variant)) is not None:
                raise NamedQueryError(problem)
    return bound


# ------------------------------------------------------------------ running


def run(
    con: duckdb.DuckDBPyConnection,
    snapshot: Snapshot,
    name: str,
    values: Mapping[str, Any] | None = None,
    *,
    check_filters: bool = True,
    shared: lookup.SharedReads | None = None,
) -> pa.Table:
    """Run a named query on ``con``, a connection over ``snapshot`` (``pipeline.query.db.connect``).

    A player, variant or day given is checked against the lake first (``check_filters``): one that matches no
    hand is a :class:`~pipeline.query.players.FilterError` naming the closest, and a player is found without
    regard to case. A caller that has checked them already (the report) leaves the check out. ``shared``: the
    hands a query looks up are read from these reads, shared with the queries that look up the same hands.
    """
    query = get(name)
    values = _matched(con, query, dict(values or {})) if check_filters else values or {}
    bound = bind(query, values, RuleSetsInLake(snapshot))
    if query.lookups:
        _look_up(con, snapshot, query, bound, shared)
    try:
        result = run_query(con, query.sql, bound)
    except QueryError as exc:
        raise NamedQueryError(f"{name}: {exc}") from None
    return plain_numbers(result)


def run_for_players(
    con: duckdb.DuckDBPyConnection,
    snapshot: Snapshot,
    name: str,
    values: Mapping[str, Any],
    players: Iterable[str],
    own: Iterable[str] = (),
) -> dict[str, pa.Table] | None:
    """A named query that takes a ``player`` run for each of ``players`` at once: each player's rows as
    :func:`run` gives them, in one plan where DuckDB reads each file once for all of them. The players and the
    filters are taken as given, as the lake spells them (``run`` with ``check_filters=False``). ``own``: other
    parameters that take each player's own name (running_totals' ``featured``, on a player's page). None for a
    query that cannot be run so (:func:`for_players_sql`).

    Most of a query over the summaries is its planning and the opening of files, not its rows: over 10 M hands,
    foul_rate took 22 ms for one player and 40 ms for 50, sessions 96 ms and 289 ms."""
    query = get(name)
    own = tuple(sorted(set(own) - {"player"}))
    sql = for_players_sql(query, own)
    if sql is None:
        return None
    each = ("player", *own)
    bound = bind(query, {**values, **dict.fromkeys(each, "")}, RuleSetsInLake(snapshot))  # each player's, below
    for key in each:
        del bound[key]
    asked = list(dict.fromkeys(players))
    with contextlib.closing(con.cursor()) as each:  # its temporary macro goes with it
        each.execute(_EACH_PLAYER_IS)
        try:
            result = run_query(each, sql, {**bound, "for_players": asked})
        except QueryError as exc:
            raise NamedQueryError(f"{name}: {exc}") from None
    result = plain_numbers(result)
    # ordered by player first: each player's rows are one slice
    whose = result.column(_FOR_PLAYER).to_pylist()
    rows = result.drop_columns([_FOR_PLAYER])
    found: dict[str, pa.Table] = {p: rows.slice(0, 0) for p in asked}
    start = 0
    for i in range(1, len(whose) + 1):
        if i == len(whose) or whose[i] != whose[start]:
            found[whose[start]] = rows.slice(start, i - start)
            start = i
    return found


_FOR_PLAYER = "for_player__"
_EACH_PLAYER_IS = "CREATE OR REPLACE TEMP MACRO player_is(player, who) AS player = who"
"""``player_is`` (views.sql) for queries run for many players, on a cursor of their own: each
player's name is never null, and the equality alone is joined by hash. Over 10 M hands, a player's page's 16
queries for the 60 players of a game took 5.3 s of processor time with the null test, 3.6 s without."""
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


@cache
def for_players_sql(query: NamedQuery, own: tuple[str, ...] = ()) -> str | None:
    """The query as one for many players (``$for_players``, a list): its body for each player beside it, laterally
    joined, then its own order within each player's rows; ``$player`` and the parameters ``own`` name are each
    player's name. None where that cannot be the same rows: a query with no ``player`` parameter, one that looks
    hands up, or one whose order is not a last ``ORDER BY`` over its output columns with no ``LIMIT`` after it (a
    limit would be on every player's rows together)."""
    texts = {p.name for p in query.params if p.type == "text"}
    if "player" not in texts or not set(own) <= texts or query.lookups:
        return None
    split = _last_order_by(query.sql)
    if split is None:
        return None
    body, order = split
    for name in ("player", *own):
        body = re.sub(rf"\${name}\b", "for_players.player", body)
    return (
        f'SELECT * FROM (\nSELECT for_players.player AS "{_FOR_PLAYER}", found.*\n'
        "FROM (SELECT unnest($for_players::VARCHAR[]) AS player) AS for_players,\n"
        f"LATERAL (\n{body}\n) AS found\n)\n"
        f'ORDER BY "{_FOR_PLAYER}", {order}'
    )


def _last_order_by(sql: str) -> tuple[str, str] | None:
    """``sql`` cut before its last ``ORDER BY`` outside parentheses, and that order's terms; None when it has none,
    more than one statement, or a ``LIMIT`` or ``OFFSET`` after it."""
    depth, i, order_at, words_after = 0, 0, -1, []
    while i < len(sql):
        c = sql[i]
        if sql.startswith("--", i):
            i = sql.find("\n", i)
            i = len(sql) if i < 0 else i
            continue
        if sql.startswith("/*", i):
            end = sql.find("*/", i + 2)
            i = len(sql) if end < 0 else end + 2
            continue
        if c in "'\"":
            end = i + 1
            while end < len(sql) and not (sql[end] == c and not sql.startswith(c * 2, end)):
                end += 2 if sql.startswith(c * 2, end) else 1
            i = end + 1
            continue
        if c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
        elif c == ";" and depth == 0 and sql[i + 1 :].strip():
            return None  # another statement follows
        elif depth == 0 and (word := _WORD.match(sql, i)) and not (i and (sql[i - 1].isalnum() or sql[i - 1] in "_$")):
            text = word.group(0).upper()
            if text == "BY" and words_after and words_after[-1][0] == "ORDER":
                order_at, words_after = words_after[-1][1], []
            words_after.append((text, i))
            i = word.end()
            continue
        i += 1
    if order_at < 0 or any(w in ("LIMIT", "OFFSET") for w, _ in words_after):
        return None
    terms = sql[order_at:].strip().rstrip(";").strip()
    terms = re.sub(r"(?is)^ORDER\s+BY\s+", "", terms)
    terms = "\n".join(line.split("--", 1)[0] for line in terms.splitlines()).strip()
    return sql[:order_at], terms


def _look_up(
    con: duckdb.DuckDBPyConnection,
    snapshot: Snapshot,
    query: NamedQuery,
    bound: dict[str, Any],
    shared: lookup.SharedReads | None,
) -> None:
    """Fetch the rows of the hands ``$hands`` names from each table the query looks up, under the rule sets it
    reads there (``$rules``, the hands' own when null; ``$compared``), and only the columns its SQL names. Keys
    of which no table holds a row are an error."""
    try:
        keys = [int(k) for k in str(bound["hands"]).split(",") if k.strip()]
    except ValueError:
        raise NamedQueryError(f"{query.name}: hands are hand keys (whole numbers), comma-separated") from None
    if not keys:
        raise NamedQueryError(f"{query.name}: give at least one hand key (--param hands=KEY[,KEY...])")
    under: dict[str, list[str | None]] = {"rules": [bound.get("rules")], "compared": list(bound.get("compared") or [])}
    aliases = aliases_of(con)
    named = set(re.findall(r"\b\w+\b", query.sql))
    found: set[int] = set()
    months: set[tuple[str, str]] | None = None  # where the hands are, once the hands table has told
    variants = {bound["variant"]} if bound.get("variant") else None  # a variant asked for: its folders alone
    if query.lookups and query.lookups[0][0] != "hands":
        # The hands' rows tell which month folders hold their boards and which variants' folders their results:
        # the hands of a game are of one variant, a third of the results.
        if shared is not None:
            rows = shared.rows("hands", keys, None, None, variants)
        else:
            rows = lookup.hand_rows(snapshot, "hands", keys, columns=["variant", "month"], variants=variants, con=con)
        months = set(zip(rows.column("variant").to_pylist(), rows.column("month").to_pylist(), strict=True))
    for table, by, listed in query.lookups:
        rule_sets = under[by] if by else [s for p in under if p in bound for s in under[p]]
        columns = [c for c in TABLES[table].names if c in (listed or named) or c in ("variant", "month")]
        rows = lookup.register(con, snapshot, table, keys, rule_sets, aliases, columns, months, variants, shared)
        here = set(rows.column("hand_key").to_pylist())
        found |= here
        if months is None and "month" in columns and here >= set(keys):  # every hand's month is known now
            months = set(zip(rows.column("variant").to_pylist(), rows.column("month").to_pylist(), strict=True))
    if not found:
        shown = ", ".join(str(k) for k in keys[:5]) + (" ..." if len(keys) > 5 else "")
        raise NamedQueryError(
            f"{query.name}: no results for hand {shown} (a hand key of the lake, scored: "
            'ofc sql "SELECT hand_key, hand_id FROM hands" lists them)'
        )


def _matched(con: duckdb.DuckDBPyConnection, query: NamedQuery, values: dict[str, Any]) -> dict[str, Any]:
    """``values`` with the player as the lake spells them, once the filters are known to match some hand."""
    takes = {p.name: p for p in query.params}
    filters = ("player", "variant", "since", "until")
    wanted = {k: values.get(k) for k in filters if k in takes and values.get(k) not in (None, "")}
    if not wanted:
        return values
    since, until = (_convert(takes[k], wanted[k]) if k in wanted else None for k in ("since", "until"))
    found = LakeFilters(con).check(wanted.get("player"), wanted.get("variant"), since, until)
    return {**values, "player": found.player} if "player" in wanted else values


def plain_numbers(table: pa.Table) -> pa.Table:
    """Sums come back as 128-bit decimals: whole ones as int64, others as float64, for every reader."""
    columns = []
    for column in table.columns:
        if pa.types.is_decimal(column.type):
            column = column.cast(pa.int64() if column.type.scale == 0 else pa.float64())
        columns.append(column)
    return pa.Table.from_arrays(columns, names=table.column_names)
