"""``until``, the last day (UTC) of the hands read, beside ``since``: a report over some days of a lake reads the
same as a report over a lake of those days' hands alone; every named query that takes a first day takes a last
one; a last day before the first, or days without a hand, are errors naming the days."""

from __future__ import annotations

import json
from datetime import date, datetime, timedelta
from pathlib import Path
from typing import Any

import polars as pl
import pytest
from typer.testing import CliRunner

from ofc.pipeline.cli import app
from ofc.pipeline.lake.store import Lake
from ofc.pipeline.query import named
from ofc.reports.report import Options, build
from tests.test_cli_options import options
from tests.test_report_games import _close, _lake
from tests.test_report_lake import ReportLake, make_records, shared_lake

runner = CliRunner()

SHIFT = timedelta(hours=5, minutes=45)
"""make_records' sessions start at 18:00 UTC: moved to 23:45, each runs past midnight, so a day's end cuts one."""
UNTIMED = "s4"
"""A session whose hands have no time recorded: no day filter keeps them."""


@pytest.fixture(scope="module")
def records() -> list[dict[str, Any]]:
    """450 hands over 16 days of one month (2026-03-01 to 03-16), every variant in each stretch of five days."""
    out = []
    for r in make_records(450, seed=5):
        played = None if r["session"] == UNTIMED else (datetime.fromisoformat(r["played_at"]) + SHIFT).isoformat()
        out.append({**r, "played_at": played})
    return out


@pytest.fixture(scope="module")
def lake(records: list[dict[str, Any]], tmp_path_factory: pytest.TempPathFactory) -> Lake:
    return _lake(tmp_path_factory.mktemp("days"), records)


def _played_within(records: list[dict[str, Any]], since: date | None, until: date | None) -> list[dict[str, Any]]:
    """The records of hands played from ``since`` to ``until`` (UTC days, both included)."""
    out = []
    for r in records:
        if r["played_at"] is None:
            continue
        day = datetime.fromisoformat(r["played_at"]).date()
        if (since is None or day >= since) and (until is None or day <= until):
            out.append(r)
    return out


def _report_json(lake: Lake, *args: str) -> dict[str, Any]:
    result = runner.invoke(app, ["report", "--lake", str(lake.root), "--json", *args])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


@pytest.mark.parametrize(
    ("since", "until"),
    [
        (date(2026, 3, 4), date(2026, 3, 9)),  # a stretch in the middle of the month
        (None, date(2026, 3, 7)),  # from the first hand; the untimed session left out all the same
    ],
)
def test_a_report_over_some_days_reads_as_a_lake_of_those_days_alone(
    records: list[dict[str, Any]], lake: Lake, tmp_path: Path, since: date | None, until: date | None
) -> None:
    """Every figure, query row and listed hand of every game, and the overview's counts. The last day ends at
    midnight UTC inside a session, and the month goes on after it: the hands worth a second look (the latest
    Fantasyland hands, the biggest wins) must come from the days asked, not from the month's first."""
    kept = _played_within(records, since, until)
    ids = {r["hand_id"] for r in kept}
    left = [r for r in records if r["played_at"] is not None and r["hand_id"] not in ids]
    assert len(kept) > 50
    assert len(left) > 50
    assert {r["session"] for r in kept} & {r["session"] for r in left}  # a session cut at midnight
    days = [*(["--since", since.isoformat()] if since else []), "--until", until.isoformat()]
    within = _report_json(lake, *days)
    alone = _report_json(_lake(tmp_path, kept))
    assert within["filters"]["since"] == (since.isoformat() if since else None)
    assert within["filters"]["until"] == until.isoformat()
    assert alone["filters"]["until"] is None
    assert set(within["games"]) == {r["variant"] for r in kept}
    assert len(within["games"]) == 5
    for game in within["games"].values():
        assert {"results", "foul_rate", "scoring_variants", "notable_hands"} <= set(game["queries"])
        assert game["hands"], game["variant"]
    assert _close(within["overview"], alone["overview"]) == []
    assert _close(within["games"], alone["games"]) == []


@pytest.fixture(scope="module")
def report_lake(tmp_path_factory: pytest.TempPathFactory) -> ReportLake:
    return shared_lake(tmp_path_factory)


def test_every_named_query_that_takes_a_first_day_takes_a_last_day() -> None:
    def taking(name: str) -> list[named.NamedQuery]:
        return [q for q in named.queries().values() if any(p.name == name for p in q.params)]

    since = taking("since")
    assert {q.name for q in taking("until")} == {q.name for q in since}
    assert {"foul_rate", "results", "notable_hands", "hand_list", "overview", "sessions"} <= {q.name for q in since}
    for query in since:
        until = query.param("until")
        assert (until.type, until.optional) == ("date", True), query.name
        assert until.help == "only hands played on or before this day (UTC)", query.name
        assert query.sql.count("$since") == query.sql.count("$until"), query.name  # passed wherever since is


def test_until_is_one_option_beside_since_wherever_since_is_taken() -> None:
    since = {name: p for name, p in options() if "--since" in p.opts}
    until = {name: p for name, p in options() if "--until" in p.opts}
    assert set(until) == set(since) == {"report", "analyse"}
    for p in until.values():
        assert (p.metavar, p.help) == ("DAY", "Only hands played on or before this day (YYYY-MM-DD, UTC).")


def _sql(report_lake: ReportLake, *params: str) -> Any:
    args = ["sql", "foul_rate", "--lake", str(report_lake.lake.root), "--json"]
    return runner.invoke(app, [*args, *(x for p in params for x in ("--param", p))])


def test_ofc_sql_reads_the_days_asked(report_lake: ReportLake) -> None:
    boards = report_lake.boards().with_columns(day=pl.col("played_at").dt.date())
    days = boards["day"].drop_nulls().unique().sort()
    first, middle, last = days[0], days[len(days) // 2], days[-1]
    cases = [
        ([f"until={middle}"], pl.col("day") <= middle),
        ([f"since={middle}", f"until={middle}"], pl.col("day") == middle),
        ([f"since={first}", f"until={last}"], pl.col("day").is_not_null()),
    ]
    for params, keeps in cases:
        result = _sql(report_lake, *params)
        assert result.exit_code == 0, result.output
        rows = [json.loads(line) for line in result.stdout.splitlines()]
        every = next(r for r in rows if r["dimension"] == "all")
        expected = boards.filter(keeps)
        assert 0 < expected.height
        assert every["boards"] == expected.height, params
        assert every["fouled"] == expected["fouled"].sum(), params


def test_a_last_day_before_the_first_is_a_usage_error_naming_both(report_lake: ReportLake) -> None:
    said = "until 2026-03-02 is before since 2026-03-05"
    result = _sql(report_lake, "since=2026-03-05", "until=2026-03-02")
    assert result.exit_code == 2
    assert said in result.output
    args = ["report", "--lake", str(report_lake.lake.root), "--json", "--since", "2026-03-05", "--until", "2026-03-02"]
    result = runner.invoke(app, args)
    assert result.exit_code == 2
    assert said in result.output
    assert "Traceback" not in result.output
    result = runner.invoke(app, [*args[:4], "--until", "tuesday"])
    assert result.exit_code == 2
    assert "--until takes a day, YYYY-MM-DD, got 'tuesday'" in result.output


def test_analyse_reads_until_as_a_day_and_not_with_last() -> None:
    result = runner.invoke(app, ["analyse", "--until", "tuesday"])
    assert result.exit_code == 2
    assert "--until takes a day, YYYY-MM-DD, got 'tuesday'" in result.output
    result = runner.invoke(app, ["analyse", "--until", "2026-03-01", "--last", "3"])
    assert result.exit_code == 2
    assert "give --until or --last, not both" in result.output


def test_days_without_a_hand_are_said_beside_the_days_of_the_lake(report_lake: ReportLake) -> None:
    days = report_lake.frame("hands")["played_at"].dt.date()
    first, last = days.min(), days.max()
    cases = [
        (
            ["--until", "1999-12-31"],
            f"no hands were played on or before 1999-12-31 (the first hand in the lake was played on {first})",
        ),
        (
            ["--since", "2031-01-01", "--until", "2031-01-31"],
            f"no hands were played between 2031-01-01 and 2031-01-31 (the lake's hands run from {first} to {last})",
        ),
    ]
    for args, said in cases:
        result = runner.invoke(app, ["report", "--lake", str(report_lake.lake.root), "--json", *args])
        assert result.exit_code == 2
        assert said in " ".join(result.output.split()), result.output


def test_the_overview_says_the_days(report_lake: ReportLake) -> None:
    report = build(report_lake.lake, Options(since=date(2026, 3, 2), until=date(2026, 3, 4)))
    assert "(hands played from 2026-03-02 to 2026-03-04)" in report.overview.intro
    report = build(report_lake.lake, Options(until=date(2026, 3, 4)))
    assert "(hands played until 2026-03-04)" in report.overview.intro
