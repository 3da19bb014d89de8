"""Named, parameterised queries (``sql/queries/*.sql``): loading, parameters, running.

A named query is a SQL file whose leading comment says what it answers, declares its parameters and,
when it reads more than results, what else::

    -- Foul rate by player, variant, seat relative to the button, table size and Fantasyland.
    -- @param rules rules: the rule set whose results are read
    -- @param player text?: only this player's boards
    -- @needs hands

Each parameter is ``$name`` in the SQL and always a bound value, never text spliced into it. Types:
``text``, ``date``, ``int``, ``rules`` (one rule set in the lake, by name or ``name@key``; the first by
default) and ``rules[]`` (several, comma-separated; all by default). A trailing ``?`` makes a parameter
optional (null when not given); ``= value`` gives a default. ``@needs`` names what the query reads beyond
the results (:mod:`pipeline.query.relations`): ``hands`` or ``boards`` for their columns of
``board_results``, ``matchups`` or ``winners`` for the hand-level totals. Nothing is read that no query
asks for (a ``since`` day always needs the hands).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import date
from functools import cache
from pathlib import Path
from typing import Any

import duckdb
import pyarrow as pa

from pipeline.lake.store import Lake
from pipeline.query import relations
from pipeline.query.db import SQL_DIR, QueryError, run_query

QUERY_DIR = SQL_DIR / "queries"
TYPES = ("text", "date", "int", "rules", "rules[]")
_PARAM = re.compile(r"^--\s*@param\s+(\w+)\s+(text|date|int|rules\[\]|rules)(\?)?(?:\s*=\s*([^:]+?))?\s*:\s*(.*)$")
_NAME = re.compile(r"^[a-z][a-z0-9_]*$")
_NEEDS = re.compile(r"^--\s*@needs\s+(.*)$")


class NamedQueryError(ValueError):
    """A named query that does not exist, or parameters it cannot take."""


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
    needs: frozenset[str] = frozenset()

    def param(self, name: str) -> Param:
        for p in self.params:
            if p.name == name:
                return p
        known = ", ".join(p.name for p in self.params) or "none"
        raise NamedQueryError(f"query {self.name!r} has no parameter {name!r} (it takes: {known})")


def parse_query(path: Path) -> NamedQuery:
    """A query file: its leading comment (description and ``@param`` lines), then the SQL."""
    text = path.read_text(encoding="utf-8")
    description: list[str] = []
    params: list[Param] = []
    needs: set[str] = set()
    for line in text.splitlines():
        if not line.startswith("--"):
            break
        if (m := _NEEDS.match(line)) is not None:
            needs.update(m.group(1).replace(",", " ").split())
            unknown = needs - set(relations.NEEDS)
            if unknown:
                raise NamedQueryError(f"{path}: @needs takes {', '.join(relations.NEEDS)}, not {sorted(unknown)}")
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
    hand_level = bool(needs & {relations.MATCHUPS, relations.WINNERS})
    for p in params:
        if not _uses(text, p.name) and not (p.type == "date" and hand_level):
            raise NamedQueryError(f"{path}: parameter {p.name!r} is declared but never used as ${p.name}")
    return NamedQuery(name, " ".join(d for d in description if d), tuple(params), text, path, frozenset(needs))


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
        raise NamedQueryError(f"no named query {name!r} (ofc sql --list shows them)")
    return found[name]


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
    """The rule sets a lake holds results under, oldest first: ``name`` and ``key`` (``name@hash``)."""

    keys: tuple[str, ...]
    names: tuple[str, ...]

    @classmethod
    def of(cls, manifests: list[dict[str, Any]]) -> RuleSetsInLake:
        from pipeline.rescore.plan import results

        seen: dict[str, str] = {}
        for m in results(manifests):
            for c in m.get("covers", []):
                seen.setdefault(c["rules_key"], c["rules"])
        return cls(tuple(seen), tuple(seen.values()))

    def resolve(self, wanted: str) -> str:
        """The key of a rule set given by key or by name (the latest scored under that name)."""
        wanted = wanted.strip()
        if wanted in self.keys:
            return wanted
        matches = [k for k, n in zip(self.keys, self.names, strict=True) if n == wanted]
        if not matches:
            have = ", ".join(dict.fromkeys(self.names)) or "none (ofc rescore writes them)"
            raise NamedQueryError(f"the lake has no results under rules {wanted!r}; it has: {have}")
        return matches[-1]


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
            if raw is None and not rule_sets.keys:
                raise NamedQueryError("the lake has no results yet: run ofc rescore first")
            bound[p.name] = rule_sets.resolve(raw) if raw is not None else rule_sets.keys[0]
        elif p.type == "rules[]":
            names = raw if isinstance(raw, list | tuple) else [s for s in str(raw or "").split(",") if s.strip()]
            keys = [rule_sets.resolve(n) for n in names] if names else list(rule_sets.keys)
            bound[p.name] = list(dict.fromkeys(keys))
        elif raw is None:
            if not p.optional:
                raise NamedQueryError(f"query {query.name!r} needs --param {p.name}=... ({p.help})")
            bound[p.name] = None
        else:
            bound[p.name] = _convert(p, raw)
    return bound


def rules_in_scope(query: NamedQuery, bound: Mapping[str, Any]) -> list[str]:
    """The rule set keys a query reads, in the order given (the first is the baseline of comparisons)."""
    keys: list[str] = []
    for p in query.params:
        if p.type == "rules":
            keys.append(bound[p.name])
        elif p.type == "rules[]":
            keys.extend(bound[p.name])
    return list(dict.fromkeys(keys))


# ------------------------------------------------------------------ running


def needs_of(query: NamedQuery, bound: Mapping[str, Any]) -> frozenset[str]:
    """What the relations must read for this query: its declared needs, and the hands for a first day."""
    since = any(p.type == "date" and bound.get(p.name) is not None for p in query.params)
    return query.needs | ({relations.HANDS} if since else set())


def prepare(
    con: duckdb.DuckDBPyConnection, lake: Lake, name: str, values: Mapping[str, Any] | None = None
) -> tuple[NamedQuery, dict[str, Any]]:
    """The query and its bound parameters, with the relations it reads defined on ``con``."""
    query = get(name)
    manifests = lake.manifests()
    bound = bind(query, values or {}, RuleSetsInLake.of(manifests))
    since = next((bound[p.name] for p in query.params if p.type == "date"), None)
    one_player = bound.get("player") is not None and any(p.name == "player" for p in query.params)
    relations.define(con, lake, rules_in_scope(query, bound), needs_of(query, bound), since, one_player)
    return query, bound


def run(con: duckdb.DuckDBPyConnection, lake: Lake, name: str, values: Mapping[str, Any] | None = None) -> pa.Table:
    """Run a named query on ``con`` (a lake connection), its relations defined for the rule sets it reads."""
    query, bound = prepare(con, lake, name, values)
    try:
        result = run_query(con, query.sql, {k: v for k, v in bound.items() if _uses(query.sql, k)})
    except QueryError as exc:
        raise NamedQueryError(f"{name}: {exc}") from None
    return plain_numbers(result)


def plain_numbers(table: pa.Table) -> pa.Table:
    """Sums come back as 128-bit decimals: whole ones as int64, others as float64, for every reader."""
    columns = []
    for column in table.columns:
        if pa.types.is_decimal(column.type):
            column = column.cast(pa.int64() if column.type.scale == 0 else pa.float64())
        columns.append(column)
    return pa.Table.from_arrays(columns, names=table.column_names)
