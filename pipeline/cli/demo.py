"""``ofc demo``: the main job on the embedded default, end to end."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.table import Table

from ofc.pipeline.atomic_files import written
from ofc.pipeline.cli.console import err, interrupts, out, print_json, user_errors
from ofc.pipeline.cli.evaluate import board_report, render
from ofc.pipeline.cli.options import json_option, lake_at, lake_option, out_option, seed_option
from ofc.pipeline.errors import InputError
from ofc.pipeline.paths import SAMPLES, default_out

if TYPE_CHECKING:
    from rich.progress import Progress, TaskID

    from ofc.pipeline.rescore.in_memory import Checked

EXAMPLES = SAMPLES / "worked-examples.jsonl"
DEMO_RULES = ("ofc", "pineapple", "progressive-pineapple", "classic-1-6", "classic-2-4", "classic-plain", "taiwanese")


def _examples() -> Checked:
    """The worked examples, read and checked as ``ofc score`` reads them."""
    from ofc.pipeline.ingest.jsonl import INGESTER
    from ofc.pipeline.rescore.in_memory import check

    with EXAMPLES.open("rb") as f:  # four hands: one chunk
        (checked,) = [check(chunk, str(EXAMPLES)) for chunk in INGESTER.read(f, str(EXAMPLES))]
    if checked.problems or checked.boards is None:
        raise InputError(f"{EXAMPLES}: {checked.problems[0].reason if checked.problems else 'no hands'}")
    return checked


def _example_points(checked: Checked) -> dict[str, dict[str, int]]:
    """``{"E1/A": {"ofc": 24, ...}}``: each player's result under each demo rule set."""
    from ofc.pipeline.rules.files import load_rules
    from ofc.pipeline.score.output import to_output

    table: dict[str, dict[str, int]] = {}
    for rules, scored in checked.scored(load_rules(name) for name in DEMO_RULES):
        for hand in to_output(checked.named, scored, rules):
            for player, pts in hand["points"].items():
                table.setdefault(f"{hand['hand_id']}/{player}", {})[rules.name] = pts
    return table


SESSIONS = (
    # variant, players, hands, bots: a club night of Pineapple with one strong bot, and classic at four.
    ("pineapple", 3, 600, "mc,heuristic,random"),
    ("classic", 4, 2000, "mc,heuristic,random,heuristic"),
)
"""The simulated session mix (the same seed gives the same hands, so a second demo adds nothing)."""
RESCORE_RULES = ("ofc", "pineapple", "progressive-pineapple", "classic-1-6", "classic-2-4")
ANALYSED = "mc-0"
"""The player whose Pineapple decisions the demo weighs (ofc analyse): the strong bot, in about ten seconds."""


def _steps() -> Progress:
    """One line per step of the demo, each with its own bar (stderr, terminals only; gone when it ends)."""
    from rich.progress import BarColumn, Progress, TaskProgressColumn, TextColumn, TimeElapsedColumn

    return Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        TaskProgressColumn(),
        TimeElapsedColumn(),
        console=err,
        transient=True,
        disable=not err.is_terminal,
    )


def _simulate(lake: Any, seed: int, progress: Progress) -> list[dict[str, Any]]:
    from ofc.pipeline.cli.simulate import simulation_result
    from ofc.pipeline.rules.files import load_rules
    from ofc.pipeline.simulate.simulation_run import PRESETS, plan, to_lake
    from ofc.schemas.rules import Variant

    results = []
    for variant, players, hands, bots in SESSIONS:
        spec = plan(variant, players, hands, bots, load_rules(PRESETS[Variant(variant)]), seed=seed)
        title = f"simulating {variant} x{players}"
        task = progress.add_task(title, total=hands)

        def on_progress(done: int, task: TaskID = task) -> None:
            progress.update(task, completed=done)

        def on_stage(what: str | None, done: float, task: TaskID = task, title: str = title) -> None:
            progress.update(task, description=title if what is None else f"{title}, {what} ({done:.0%})")

        t0 = time.perf_counter()
        outcome = to_lake(spec, lake, on_progress, on_stage)
        progress.update(task, completed=hands)
        results.append(simulation_result(outcome, time.perf_counter() - t0))
    return results


@contextmanager
def _step(progress: Progress, what: str) -> Iterator[TaskID]:
    """A step without a measure of its own: a pulsing bar while it runs, full once done."""
    task = progress.add_task(what, total=None)
    yield task
    progress.update(task, total=1, completed=1)


def demo(
    seed: int = seed_option(7, "Seed of the simulated sessions."),
    lake_dir: Path | None = lake_option(),
    out_file: Path | None = out_option(
        "Where to write the report (default: report.html in $OFC_OUT, else data/out); missing folders are made."
    ),
    as_json: bool = json_option(),
) -> None:
    """Run the main job on the embedded default: simulate, ingest, rescore, analyse, report.

    Simulated Pineapple and classic sessions and the sample histories (data/samples) go into the
    lake (--lake, else the default); the lake is rescored under several rule sets; the Pineapple
    decisions of the strong bot (mc-0) are weighed; the report is written (--out, else
    data/out/report.html) and its headline figures printed. Run it twice: the second run adds
    nothing and scores nothing new.
    """
    from ofc.pipeline.analyse import AnalysisFilters, Settings, analyse
    from ofc.pipeline.cli.ingest import summary_of as ingest_summary
    from ofc.pipeline.cli.rescore import summary_of as rescore_summary
    from ofc.pipeline.ingest.ingest_run import ingest
    from ofc.pipeline.rescore.rescore_run import rescore
    from ofc.pipeline.rules.files import load_rules

    lake = lake_at(lake_dir)
    report_file = out_file or default_out() / "report.html"
    with interrupts(), user_errors(), _steps() as progress:
        simulated = _simulate(lake, seed, progress)
        with _step(progress, "ingesting the sample histories"):
            ingested = ingest_summary(ingest([SAMPLES], lake))
        with _step(progress, f"rescoring under {len(RESCORE_RULES)} rule sets") as task:

            def on_rescore(done: int, total: int) -> None:
                progress.update(task, completed=done, total=total)

            rules = [load_rules(r) for r in RESCORE_RULES]
            rescored = rescore_summary(rescore(lake, rules, on_progress=on_rescore))
        with _step(progress, f"weighing {ANALYSED}'s Pineapple decisions") as task:

            def on_analyse(done: int, total: int) -> None:
                progress.update(task, completed=done, total=total)

            weighed = analyse(lake, Settings(), AnalysisFilters(player=ANALYSED, variant="pineapple"), on_analyse)
        with _step(progress, "writing the report"):
            report_path, headline = _report(lake, report_file)
        examples = _examples()
        named = examples.named
        labels = [f"{named.hand_id[h]}/{p}" for h, p in zip(named.hand_of.tolist(), named.player, strict=True)]
        report = board_report(examples.boards.cards)  # type: ignore[union-attr]
        points = _example_points(examples)
    if as_json:
        print_json(
            {
                "lake": str(lake.root),
                "simulate": simulated,
                "ingest": ingested,
                "rescore": rescored,
                "analyse": {
                    "player": ANALYSED,
                    "analysis": weighed.analysis,
                    "hands": weighed.hands,
                    "decisions": weighed.decisions,
                    "ev_lost_per_hand": weighed.ev_lost_per_hand,
                },
                "report": {"path": str(report_path), "headline": headline},
                "examples": dict(zip(labels, report, strict=True)),
                "example_points": points,
            }
        )
        return
    _print(lake, simulated, ingested, rescored, report, labels, points)
    out.rule("[bold]Decisions weighed")
    if weighed.boards:
        out.print(
            f"{ANALYSED}: {weighed.decisions:,} decisions of {weighed.hands:,} Pineapple hands weighed in "
            f"{weighed.seconds:.1f} s, {weighed.ev_lost_per_hand:.2f} points lost per hand "
            "(ofc sql costly_decisions lists the costliest)",
            markup=False,
        )
    else:
        out.print(f"{ANALYSED}'s decisions were weighed before (ofc sql decision_loss)", markup=False)
    out.rule("[bold]The report")
    for section, figures in headline.items():
        table = Table("figure", "value", title=section, title_justify="left")
        for name, value in figures.items():
            table.add_row(name, value)
        out.print(table)
    out.print(f"report written to {report_path}", markup=False)


def _report(lake: Any, path: Path) -> tuple[Path, dict[str, dict[str, str]]]:
    """Write the HTML report of the whole lake to ``path``; its path and headline figures: the overview's counts,
    then each game's figures by section."""
    from ofc.reports.html import render
    from ofc.reports.report import Options, build

    result = build(lake, Options())  # each hand under its own rules, every rule set rescored beside them
    with written(path) as stream:
        stream.write(render(result).encode("utf-8"))
    headline = {"Overview": {stat.label: stat.text for stat in result.overview.headline}}
    for game in result.games:
        headline[game.title] = {
            f"{section.title}: {stat.label}": stat.text for section in game.sections for stat in section.headline
        }
    return path, headline


def _print(
    lake: Any,
    simulated: list[dict[str, Any]],
    ingested: dict[str, Any],
    rescored: dict[str, Any],
    report: list[dict[str, Any]],
    labels: list[str],
    points: dict[str, dict[str, int]],
) -> None:
    from ofc.pipeline.cli.ingest import print_summary as print_ingest
    from ofc.pipeline.cli.rescore import print_summary as print_rescore
    from ofc.pipeline.cli.simulate import print_simulation

    out.rule(f"[bold]Simulated sessions into {lake.root}")
    for result in simulated:
        print_simulation(result)
    out.rule("[bold]Sample histories")
    print_ingest(ingested, "ingest of data/samples (a second run finds them already there)")
    out.rule("[bold]The lake rescored")
    print_rescore(rescored)
    out.rule(f"[bold]Worked examples ({EXAMPLES.relative_to(EXAMPLES.parents[2])})")
    out.print(render(report, labels))
    side = Table("board", *DEMO_RULES, title="the same hands scored under each rule set (points per player)")
    for label, by_rules in points.items():
        side.add_row(label, *(f"{by_rules[r]:+d}" for r in DEMO_RULES))
    out.print(side)
