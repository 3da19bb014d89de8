"""``ofc rescore``: every hand in the lake scored under each rule set, results written into the lake."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from pipeline.cli.console import EXIT_USAGE, err, fail, out, print_json
from pipeline.cli.ingest import lake_option
from pipeline.paths import default_lake

if TYPE_CHECKING:
    from pipeline.lake.store import Lake
    from pipeline.rescore.report import Report, RuleTotals
    from schemas.rules import RuleSet

DEFAULT_RULES = "ofc"
MISMATCHES = 'ofc sql "SELECT * FROM recorded_mismatches"'


def _load(name: str) -> RuleSet:
    """A rule set, or one line naming the file and every problem in it (exit 2)."""
    from schemas.rules import RuleSetError, load_rules

    try:
        return load_rules(name)
    except RuleSetError as exc:
        problems = "; ".join(f"{path}: {msg}" if path else msg for path, msg in exc.problems)
        fail(f"{exc.source}: {problems}".replace("\n", " "), EXIT_USAGE)


def _rule_sets(names: list[str] | None, lake: Lake) -> list[RuleSet]:
    """The rule sets named, or by default those the lake already has results under (``ofc`` for a new lake)."""
    from pipeline.rescore.plan import rule_sets_in

    if names:
        return [_load(n) for n in names]
    return rule_sets_in(lake.manifests()) or [_load(DEFAULT_RULES)]


def _progress() -> Progress:
    return Progress(
        TextColumn("rescoring"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("hands"),
        TimeElapsedColumn(),
        console=err,
        transient=True,
        disable=not err.is_terminal,
    )


def _totals(t: RuleTotals) -> dict[str, Any]:
    return {
        "batches": t.batches,
        "hands": t.hands,
        "boards": t.boards,
        "pairs": t.pairs,
        "recorded_checked": t.recorded_checked,
        "recorded_differing": t.recorded_differing,
    }


def summary_of(report: Report) -> dict[str, Any]:
    rules = [
        {
            "rules": run.rules,
            "key": run.key,
            **_totals(run),
            "skipped": run.skipped,
            "scoring_cpu_seconds": round(run.seconds, 3),
            "lake": _totals(lake),
        }
        for run, lake in zip(report.run, report.lake, strict=True)
    ]
    return {"rules": rules, "result_batches": report.result_batches, "seconds": round(report.seconds, 3)}


def print_summary(summary: dict[str, Any]) -> None:
    table = Table(
        "rules",
        "key",
        "batches scored",
        "hands",
        "pairs",
        "scoring cpu s",
        "batches already scored",
        "in the lake: hands",
        "recorded points differ",
        title="rescore",
        title_justify="left",
    )
    for r in summary["rules"]:
        lake = r["lake"]
        checked = lake["recorded_checked"]
        table.add_row(
            r["rules"],
            r["key"],
            f"{r['batches']:,}",
            f"{r['hands']:,}",
            f"{r['pairs']:,}",
            f"{r['scoring_cpu_seconds']:.2f}",
            f"{r['skipped']:,}",
            f"{lake['hands']:,}",
            f"{lake['recorded_differing']:,} of {checked:,} hands" if checked else "nothing recorded to check",
        )
    out.print(table)
    batches = summary["result_batches"]
    if batches:
        out.print(f"committed {len(batches)} result batch(es) in {summary['seconds']:.2f} s")
    else:
        out.print("nothing new to score (--force scores again)")
    if any(r["lake"]["recorded_differing"] for r in summary["rules"]):
        out.print(f"hands whose recorded points differ: {MISMATCHES}")


def rescore(
    rules: list[str] | None = typer.Option(
        None,
        "--rules",
        "-r",
        help="Preset name or rule file; repeat for several. Default: the rule sets the lake has results under "
        f"(or {DEFAULT_RULES}).",
        show_default=False,
    ),
    lake: Path | None = lake_option(),
    force: bool = typer.Option(False, "--force", help="Score again what already has results under these rules."),
    as_json: bool = typer.Option(False, "--json", help="Print the summary as JSON."),
) -> None:
    """Score every pair of players in every hand of the lake under each rule set.

    Results go into the lake's tables pair_results and player_results. A batch
    of hands that has results under a rule set (same name, same content) is
    skipped, so a rerun scores only what was ingested since.

    Where a hand declares its house rules and recorded points, they are checked
    against our scoring under those rules; ofc sql lists the differences:
    "SELECT * FROM recorded_mismatches".
    """
    from pipeline.lake.store import Lake, LakeError
    from pipeline.rescore.plan import RuleSetNameError
    from pipeline.rescore.run import rescore as run

    store = Lake(lake or default_lake())
    if not store.exists():
        fail(f"{store.root}: not a lake (ofc ingest creates one)", EXIT_USAGE)
    rule_sets = _rule_sets(rules, store)
    with _progress() as progress:
        task = progress.add_task("rescoring", total=None)

        def on_progress(done: int, total: int) -> None:
            progress.update(task, completed=done, total=total)

        try:
            report = run(store, rule_sets, force=force, on_progress=on_progress)
        except (LakeError, RuleSetNameError) as exc:
            fail(str(exc), EXIT_USAGE)
    summary = summary_of(report)
    print_json(summary) if as_json else print_summary(summary)
