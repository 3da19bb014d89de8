"""The Python API for analysts in notebooks: the lake into polars, a report section's Plotly figures, hands scored
in memory. A facade over what the ``ofc`` commands run, so a notebook reads what ``ofc sql`` and ``ofc report``
read, with the same checks and the same errors::

    from ofc.pipeline.api import open_lake, score

    with open_lake("data/lake") as lake:
        lake.sql("SELECT variant, count(*) AS hands FROM hands GROUP BY ALL")
        lake.query("foul_rate", variant="pineapple")
        lake.figures("fouls", "pineapple")

``docs/python.md`` is the manual. Every error is one of :mod:`pipeline.errors`: a query DuckDB rejects is a
:class:`~pipeline.query.db.QueryError`, a name that matches nothing says the closest (both ``InputError``), a
folder that is not a lake a ``LakeError``, a rule set that cannot be used a ``RulesError``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any

from ofc.pipeline.errors import InputError, LakeError

if TYPE_CHECKING:
    import duckdb
    import plotly.graph_objects as go
    import polars as pl

    from ofc.pipeline.config import Config
    from ofc.pipeline.lake.snapshot import Snapshot
    from ofc.pipeline.lake.store import Lake
    from ofc.reports.report import Report
    from ofc.schemas.rules import RuleSet

# Everything heavy is imported where it is used. At the top (DuckDB, pyarrow, polars, plotly, the engine, the
# reports) they made `import ofc.pipeline.api` take 0.92 s (-X importtime, best of 5); as it is, 0.02-0.04 s, and
# `score` never loads DuckDB, nor `open_lake` the reports until a figure is asked for.

__all__ = ["LakeView", "Scores", "open_lake", "score"]

_SHOWN_ERRORS = 5
"""How many bad records :func:`score`'s error names before it counts the rest."""


def open_lake(path: str | Path | None = None, *, aliases: Mapping[str, str] | None = None) -> LakeView:
    """Open one committed state of a lake for reading, as every ``ofc`` command reads it.

    Parameters
    ----------
    path
        The lake's folder; None is the default lake (``$OFC_LAKE``, else ``data/lake``), as ``--lake`` left out.
    aliases
        Other names of players, ``{alias: player}``: each reads as the player everywhere. None takes those of the
        settings file (``ofc.toml``), as the commands do; ``{}`` reads every name as recorded.

    Returns
    -------
    LakeView
        The snapshot and a DuckDB connection over it; close it, or use it in a ``with`` block.
    """
    from ofc.pipeline.config import load_config
    from ofc.pipeline.lake.store import Lake
    from ofc.pipeline.paths import default_lake

    lake = Lake(path if path is not None else default_lake())
    if not lake.exists():  # a misspelt folder is an error, not an empty lake (as `ofc sql` says it)
        raise LakeError(f"{lake.root}: not a lake (ofc ingest creates one)")
    config = load_config()
    if aliases is not None:  # as the settings file would give them, so that every reader finds them there
        players: dict[str, list[str]] = {}
        for alias, player in aliases.items():
            players.setdefault(player, []).append(alias)
        config = config.model_copy(update={"aliases": players})
    return LakeView(lake, config)


class LakeView:
    """One committed state of a lake, and a read-only DuckDB connection over its views.

    Every read sees the same state, whatever another process commits meanwhile, so that two tables of a notebook
    agree; :meth:`refresh` moves to the newest. Made by :func:`open_lake`.
    """

    def __init__(self, lake: Lake, config: Config) -> None:
        self.lake = lake
        self.config = config
        """The settings read as the commands read them: players' aliases, the featured player, the minimum of hands."""
        self.snapshot: Snapshot = lake.snapshot()
        self._con: duckdb.DuckDBPyConnection | None = self._connect(self.snapshot)
        self._report: tuple[tuple[Any, ...], Report] | None = None
        """The last report built for :meth:`figures`, with its filters: a game's other sections are free."""

    def _connect(self, snapshot: Snapshot) -> duckdb.DuckDBPyConnection:
        from ofc.pipeline.query.db import connect
        from ofc.pipeline.query.players import apply_aliases

        con = connect(snapshot)
        apply_aliases(con, self.config.alias_map())
        return con

    @property
    def con(self) -> duckdb.DuckDBPyConnection:
        """The DuckDB connection, for what the methods do not cover (its relational API); read-only."""
        if self._con is None:
            raise LakeError(f"{self.lake.root}: this view of the lake is closed; open_lake() opens another")
        return self._con

    # ------------------------------------------------------------------ reading

    def sql(self, query: str, params: Mapping[str, object] | None = None) -> pl.DataFrame:
        """Run read-only SQL against the lake's tables and views.

        Parameters
        ----------
        query
            A query: SELECT, WITH, DESCRIBE, SUMMARIZE or EXPLAIN; anything else is refused, nothing is written.
        params
            Values for ``$name`` in the query: bound, never spliced into the SQL text.

        Returns
        -------
        polars.DataFrame
            The result; cards are codes (``board_text(cards)`` in SQL shows them as text).

        Raises
        ------
        QueryError
            SQL that is not a query, or that DuckDB rejects, with DuckDB's message whole (its hints included).
        """
        import polars as pl

        from ofc.pipeline.query.db import run_query

        return pl.from_arrow(run_query(self.con, query, dict(params) if params else None))  # type: ignore[return-value]

    def query(self, name: str, **params: Any) -> pl.DataFrame:
        """Run a named query (``sql/queries/NAME.sql``), as ``ofc sql NAME --param k=v`` runs it.

        Parameters
        ----------
        name
            The query; :meth:`queries` lists them. One that does not exist is an error naming the closest.
        **params
            Its parameters: text, dates (``date`` or ``"YYYY-MM-DD"``), whole numbers, a rule set by name
            (``rules="classic-2-4"``), several as a list. A player, variant or day that matches no hand is an
            error naming the closest, and a player is found without regard to case or under an alias.

        Returns
        -------
        polars.DataFrame
            Its rows, sums as plain integers or floats.
        """
        import polars as pl

        from ofc.pipeline.query import named

        named.get(name)  # an unknown name: the error `ofc sql NAME` gives, with the closest names
        if isinstance(params.get("player"), str):
            params["player"] = self.config.canonical(params["player"])
        return pl.from_arrow(named.run(self.con, self.snapshot, name, params))  # type: ignore[return-value]

    @staticmethod
    def queries() -> pl.DataFrame:
        """The named queries: each one's ``name``, what it ``answers`` and its ``parameters`` (``name (type):
        help``, a ``?`` after the type where it may be left out), as ``ofc sql --list`` shows them."""
        import polars as pl

        from ofc.pipeline.query import named

        found = named.queries().values()
        return pl.DataFrame(
            {
                "name": [q.name for q in found],
                "answers": [q.description for q in found],
                "parameters": [[p.describe() for p in q.params] for q in found],
            },
            schema={"name": pl.String, "answers": pl.String, "parameters": pl.List(pl.String)},
        )

    def figures(
        self,
        section: str,
        variant: str | None = None,
        *,
        player: str | None = None,
        rules: str | Sequence[str] = (),
        since: date | str | None = None,
        until: date | str | None = None,
        min_hands: int | None = None,
    ) -> list[go.Figure]:
        """A report section's Plotly figures for one game, built by the section code ``ofc report`` runs.

        Parameters
        ----------
        section
            ``player``, ``results``, ``fouls``, ``royalties``, ``fantasyland``, ``scoring`` or ``decisions``
            (those the game has: a classic game has no Fantasyland; decisions need ``ofc analyse``).
        variant
            The game; may be left out when the lake holds one.
        player, rules, since, until, min_hands
            As ``ofc report``'s options: one player's boards (and featured), every hand read as if played under a
            rule set (several: the first leads, all are compared), from a first day, to a last day, the fewest
            hands ranked.

        Returns
        -------
        list of plotly.graph_objects.Figure
            The section's charts in the report's order, copies: change them freely.

        Notes
        -----
        The whole game's report is built (its sections share their queries) and kept until other filters are asked
        for, so a second section of the same game costs nothing.
        """
        import plotly.graph_objects as go

        from ofc.pipeline.suggest import no_such
        from ofc.reports.report import Options, build

        chosen = variant or self._only_variant()
        read = (rules,) if isinstance(rules, str) else tuple(rules)
        days = (_day(since, "since"), _day(until, "until"))
        wanted = (chosen, player, read, days, min_hands)
        if self._report is None or self._report[0] != wanted:
            config = self.config  # the options as `ofc report` makes them from its flags and the settings
            options = Options(
                player=config.canonical(player) if player else None,
                variant=chosen,
                rules=read,
                since=days[0],
                until=days[1],
                min_hands=min_hands or config.min_hands,
                aliases=config.alias_map(),
                featured=config.canonical(config.player) if config.player else None,
            )
            self._report = (wanted, build(self.snapshot, options))
        report = self._report[1]
        game = next((g for g in report.games if g.variant == chosen), None)
        if game is None:  # the filters match hands, but none of this game's (or none it can read)
            why = " ".join(report.notes) or f"{player!r} has no {chosen} hands here."
            raise InputError(f"no {chosen} game to draw: {why}")
        found = {s.key: s for s in game.sections}
        if section not in found:
            if not found:
                raise InputError("the lake has no results yet: ofc rescore writes them, then figures can be drawn")
            said = no_such(f"section of the {game.title} game", section, list(found), "sections")
            raise InputError(". ".join([said, " ".join(game.left_out)]) if game.left_out else said)
        return [go.Figure(f.to_dict()) for f in found[section].figures]

    def _only_variant(self) -> str:
        """The lake's one game, when a figure names none."""
        variants = self.sql("SELECT DISTINCT variant FROM hands ORDER BY variant")["variant"].to_list()
        if len(variants) != 1:
            held = f"it holds {', '.join(variants)}" if variants else "it holds no hands"
            raise InputError(f"say which game to draw, variant=...: {held}")
        return variants[0]

    # ------------------------------------------------------------------ state

    def refresh(self) -> bool:
        """Move to the lake's newest committed state (after another process ingested or rescored).

        Returns
        -------
        bool
            Whether anything had been committed since: if not, the view is left as it was.
        """
        snapshot = self.lake.snapshot()
        if snapshot.batches == self.snapshot.batches:
            return False
        con, old = self._connect(snapshot), self.con
        self.snapshot, self._con, self._report = snapshot, con, None
        old.close()
        return True

    def close(self) -> None:
        """Close the connection (again: nothing). The process keeps its read lease on the lake until it exits, so
        ``ofc lake vacuum`` never deletes a file it may still read; ``self.lake.release()`` gives it up."""
        if self._con is not None:
            self._con.close()
        self._con, self._report = None, None

    def __enter__(self) -> LakeView:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self.close()

    def __repr__(self) -> str:
        state = "closed" if self._con is None else f"{len(self.snapshot.batches)} batches"
        return f"<LakeView {self.lake.root} ({state})>"


def _day(value: date | str | None, name: str) -> date | None:
    if value is None or isinstance(value, date):
        return value
    try:
        return date.fromisoformat(value.strip())
    except ValueError:
        raise InputError(f"{name} takes a day, YYYY-MM-DD, got {value!r}") from None


# ------------------------------------------------------------------ scoring without a lake


@dataclass(frozen=True)
class Scores:
    """Hands scored in memory: one row per board and one per pair, for each rule set.

    ``boards``: ``hand_id``, ``rules``, ``board`` (the player's name; ``name#seat`` for a criss-cross player's two
    boards), ``player``, ``seat``, ``points`` (net over its pairs), ``fouled``, ``royalty_top``,
    ``royalty_middle``, ``royalty_bottom``, ``royalties`` (their sum), ``fantasyland_next`` (cards of the next
    hand when it is a Fantasyland hand, else 0).

    ``pairs``: ``hand_id``, ``rules``, ``board_a``, ``board_b`` (A the one the record names first, as in ``ofc
    score``'s ``pairs``), ``points`` (what B pays A).
    """

    boards: pl.DataFrame
    pairs: pl.DataFrame


def score(
    hands: Iterable[Mapping[str, Any]], rules: str | Path | RuleSet | Sequence[str | Path | RuleSet] = "ofc"
) -> Scores:
    """Score hand records in memory, by the engine ``ofc score`` runs: no lake, nothing written.

    Parameters
    ----------
    hands
        Hand records as ``ofc score`` reads them (``hand_id``, ``variant``, ``players`` with ``name``, ``top``,
        ``middle``, ``bottom`` as lists of cards like ``"Qh"``; see ``schemas/hand.schema.json``), e.g. the lines
        of a JSONL file parsed with ``json.loads``.
    rules
        A preset's name, a rule file's path or a ``RuleSet``, or several: the hands are evaluated once and scored
        under each.

    Returns
    -------
    Scores
        ``.boards`` and ``.pairs`` as polars DataFrames.

    Raises
    ------
    InputError
        A record the ingest's checks reject, its recorded points aside (each named by its place in ``hands``,
        its hand and field): none is scored, where ``ofc score`` skips it and goes on.
    RulesError
        A rule set that cannot be used.
    """
    import numpy as np
    import polars as pl

    from ofc.pipeline.rescore.in_memory import check, records_as_chunks
    from ofc.pipeline.rules.files import load_rules

    asked = [rules] if isinstance(rules, str | Path) or not isinstance(rules, Sequence) else list(rules)
    if not asked:
        raise InputError("score: give at least one rule set (a preset's name, a rule file or a RuleSet)")
    rule_sets = [load_rules(r) if isinstance(r, str | Path) else r for r in asked]
    checked = [check(chunk, "records") for chunk in records_as_chunks(hands)]
    problems = [p for c in checked for p in c.problems]
    if problems:
        shown = [
            f"record {p.line}{f' (hand {p.hand_id})' if p.hand_id is not None else ''}: {p.reason}"
            for p in problems[:_SHOWN_ERRORS]
        ]
        more = len(problems) - len(shown)
        raise InputError("; ".join(shown) + (f"; and {more} more" if more > 0 else ""))
    board_frames: list[list[pl.DataFrame]] = [[] for _ in rule_sets]  # by rule set, then as the hands came
    pair_frames: list[list[pl.DataFrame]] = [[] for _ in rule_sets]
    for part in checked:
        named = part.named
        keys, players = named.board, named.player
        hand_ids = [named.hand_id[h] for h in named.hand_of.tolist()]
        for k, (rs, scored) in enumerate(part.scored(rule_sets)):  # evaluated once, scored under each rule set
            facts, pairs = scored.boards, scored.pairs
            royalties = np.asarray(facts.royalties, dtype=np.int64)
            board_frames[k].append(
                pl.DataFrame(
                    {
                        "hand_id": hand_ids,
                        "rules": [rs.name] * len(keys),
                        "board": keys,
                        "player": players,
                        "seat": np.asarray(named.seat, dtype=np.int64),
                        "points": np.asarray(scored.net, dtype=np.int64),
                        "fouled": np.asarray(facts.fouled, dtype=bool),
                        "royalty_top": royalties[:, 0],
                        "royalty_middle": royalties[:, 1],
                        "royalty_bottom": royalties[:, 2],
                        "royalties": royalties.sum(axis=1),
                        "fantasyland_next": np.asarray(facts.fantasyland_next, dtype=np.int64),
                    }
                )
            )
            first = pairs.a < pairs.b  # A is the board the record names first, as ofc score's pairs say it
            a, b = np.where(first, pairs.a, pairs.b), np.where(first, pairs.b, pairs.a)
            pair_frames[k].append(
                pl.DataFrame(
                    {
                        "hand_id": [hand_ids[i] for i in a],
                        "rules": [rs.name] * len(a),
                        "board_a": [keys[i] for i in a],
                        "board_b": [keys[i] for i in b],
                        "points": np.where(first, pairs.points, -pairs.points).astype(np.int64),
                    }
                )
            )
    return Scores(
        _stacked([f for frames in board_frames for f in frames], _BOARD_COLUMNS),
        _stacked([f for frames in pair_frames for f in frames], _PAIR_COLUMNS),
    )


_BOARD_COLUMNS = {
    "hand_id": "String",
    "rules": "String",
    "board": "String",
    "player": "String",
    "seat": "Int64",
    "points": "Int64",
    "fouled": "Boolean",
    "royalty_top": "Int64",
    "royalty_middle": "Int64",
    "royalty_bottom": "Int64",
    "royalties": "Int64",
    "fantasyland_next": "Int64",
}
_PAIR_COLUMNS = {"hand_id": "String", "rules": "String", "board_a": "String", "board_b": "String", "points": "Int64"}


def _stacked(frames: list[pl.DataFrame], columns: dict[str, str]) -> pl.DataFrame:
    """The frames end to end in one schema (no hands: an empty frame of it)."""
    import polars as pl

    schema = {name: getattr(pl, kind) for name, kind in columns.items()}
    if not frames:
        return pl.DataFrame(schema=schema)
    return pl.concat([f.cast(schema) for f in frames])  # type: ignore[arg-type]
