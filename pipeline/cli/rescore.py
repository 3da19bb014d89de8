"""``ofc rescore``: every hand in the lake scored under each rule set, results written into the lake."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer
from rich.table import Table
from rich.text import Text

from ofc.pipeline.cli.console import err, hand_progress, interrupts, out, print_json
from ofc.pipeline.cli.options import (
    RULES_HELP,
    address_option,
    check_engine,
    engine_option,
    existing_lake,
    json_option,
    lake_option,
    load_rules,
    rules_option,
)

if TYPE_CHECKING:
    from ofc.pipeline.lake.store import Lake
    from ofc.pipeline.rescore.totals import RescoreReport, RuleTotals
    from ofc.schemas.rules import RuleSet

MISMATCHES = 'ofc sql "SELECT * FROM recorded_mismatches"'


def _rule_sets(names: list[str] | None, lake: Lake) -> list[RuleSet]:
    """The rule sets named, or by default those the lake already has results under that someone asked for
    (those scored only as some hands' native rules come back by themselves)."""
    if names:
        return [load_rules(n) for n in names]
    snapshot = lake.snapshot()
    return [snapshot.rule_sets[k] for k in snapshot.keys_to_rescore() if k in snapshot.rule_sets]


def _totals(t: RuleTotals) -> dict[str, Any]:
    return {
        "batches": t.batches,
        "hands": t.hands,
        "boards": t.boards,
        "pairs": t.pairs,
        "recorded_checked": t.recorded_checked,
        "recorded_differing": t.recorded_differing,
        "not_applied": {v: {"hands": n, "why": t.why.get(v, "")} for v, n in sorted(t.skipped_variants.items())},
    }


def summary_of(report: RescoreReport) -> dict[str, Any]:
    rules = [
        {
            "rules": run.rules,
            "key": run.key,
            "scope": "native hands only" if run.native_only else "every hand it applies to",
            **_totals(run),
            "skipped": run.skipped,
            "scoring_cpu_seconds": round(run.seconds, 3),
            "lake": _totals(lake),
        }
        for run, lake in zip(report.run, report.lake, strict=True)
    ]
    return {
        "rules": rules,
        "natives": report.natives,
        "result_batches": report.result_batches,
        "seconds": round(report.seconds, 3),
    }


def print_summary(summary: dict[str, Any]) -> None:
    table = Table(
        "rules",
        "scores",
        "batches scored",
        "hands",
        "pairs",
        "scoring cpu s",
        "batches already scored",
        "in the lake: hands",
        "left out (cannot apply)",
        title="rescore",
        title_justify="left",
    )
    from ofc.pipeline.query.named import display_names
    from ofc.schemas.rules import key_name

    names = display_names([r["key"] for r in summary["rules"]])
    shown = {**{n["native"]: key_name(n["native"]) for n in summary["natives"]}, **names}
    for r in summary["rules"]:
        lake = r["lake"]
        left = ", ".join(f"{v} {x['hands']:,}" for v, x in lake["not_applied"].items()) or "-"
        table.add_row(
            Text(names[r["key"]]),
            r["scope"],
            f"{r['batches']:,}",
            f"{r['hands']:,}",
            f"{r['pairs']:,}",
            f"{r['scoring_cpu_seconds']:.2f}",
            f"{r['skipped']:,}",
            f"{lake['hands']:,}",
            Text(left),
        )
    out.print(table)
    natives = Table("variant", "house rules", "native rules", "how", "hands", title="rules the hands were played by")
    for n in summary["natives"]:
        natives.add_row(
            Text(n["variant"]),
            Text(shown.get(n["house_rules"], n["house_rules"]) if n["house_rules"] else "-"),
            Text(shown[n["native"]]),
            n["how"],
            f"{n['hands']:,}",
        )
    if summary["natives"]:
        out.print(natives)
    for r in summary["rules"]:
        for variant, x in r["lake"]["not_applied"].items():
            out.print(Text(f"{names[r['key']]} does not score {variant} hands: {x['why']}"))
    unknown = [n for n in summary["natives"] if n["how"] != "house rules" and n["house_rules"]]
    for n in unknown:
        out.print(
            Text(
                f"{n['hands']:,} {n['variant']} hands record house rules {n['house_rules']!r} ({n['how']}): "
                f"scored as played under {n['native']}; give the rule file with --rules to use it"
            )
        )
    checked = sum(r["lake"]["recorded_checked"] for r in summary["rules"])
    differing = sum(r["lake"]["recorded_differing"] for r in summary["rules"])
    if checked:
        out.print(f"recorded points differ from ours on {differing:,} of {checked:,} hands (each under its own rules)")
    if differing:
        out.print(f"those hands: {MISMATCHES}")
    batches = summary["result_batches"]
    if batches:
        out.print(f"committed {len(batches)} result batch(es) in {summary['seconds']:.2f} s")
    else:
        out.print("nothing new to score (--force scores again)")


def rescore(
    rules: list[str] | None = rules_option(
        f"{RULES_HELP[:-1]}, to compare. Default: the rule sets the lake already compares. Every hand is scored "
        "under its own rules in any case."
    ),
    lake: Path | None = lake_option(),
    force: bool = typer.Option(False, "--force", help="Score again what already has results under these rules."),
    as_json: bool = json_option(),
    engine: str = engine_option(
        "local: score in this process; ray: score on a Ray cluster (started here, or joined with --address), "
        "the lake on a file system every worker sees. The results are the same."
    ),
    address: str | None = address_option(),
) -> None:
    """Score every hand of the lake under the rules it was played by and each rule set given.

    Results go into the lake's tables board_results and pair_results. Every
    hand is always scored under its native rules (its recorded house rules when
    the lake knows them, else its variant's preset); --rules adds rule sets to
    compare, each scoring every hand it can apply to. What already has results
    is skipped, so a rerun scores only what was ingested since.

    Where a hand recorded points, they are checked against our scoring under
    its native rules; ofc sql lists the differences:
    "SELECT * FROM recorded_mismatches".
    """
    from ofc.pipeline.rescore.rescore_run import rescore as run

    check_engine(engine, address)
    store = existing_lake(lake)
    rule_sets = _rule_sets(rules, store)
    older = store.snapshot().stale_work()
    if older:
        err.print(f"results written by an older version are scored again: {older}")
    with interrupts(), hand_progress() as progress:
        task = progress.add_task("rescoring", total=None)

        def on_progress(done: int, total: int) -> None:
            progress.update(task, completed=done, total=total)

        report = run(store, rule_sets, force=force, on_progress=on_progress, engine=engine, address=address)
    summary = summary_of(report)
    print_json(summary) if as_json else print_summary(summary)
