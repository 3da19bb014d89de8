"""``ofc simulate``: play whole sessions with one bot per seat, into the lake or to JSONL, and summarise each bot."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Any

import typer
from rich.table import Table

from ofc.pipeline.cli.console import EXIT_FAILED, EXIT_USAGE, err, fail, hand_progress, interrupts, out, print_json
from ofc.pipeline.cli.options import (
    address_option,
    check_engine,
    check_variant,
    engine_option,
    json_option,
    lake_at,
    lake_option,
    load_rules,
    out_option,
    rollouts_option,
    rules_option,
    seed_option,
)

BOTS_HELP = (
    "Bots, one per seat in seat order, comma-separated; a shorter list is repeated. "
    "random: any legal placement, a random Fantasyland or classic setting. "
    "heuristic: fast rules (rows in order, royalties and Fantasyland when safe, sensible discards); "
    "Fantasyland set by the arranger; classic: best five at the bottom, best five of the rest in the middle, "
    "naturals declared. "
    "planner: the placement an expected-value model of the board rates best (slower, stronger); "
    "Fantasyland and classic as heuristic. "
    "mc: Monte-Carlo rollouts of the planner's best placements, scored under the rule set; "
    "Fantasyland and classic hands set by the arranger (classic: naturals, and surrender where allowed)."
)


def _start(text: str) -> datetime:
    try:
        return datetime.fromisoformat(text)
    except ValueError:
        fail(f"--start: not an ISO time: {text!r}", EXIT_USAGE)


def simulate(
    variant: str = typer.Option(
        ...,
        "--variant",
        metavar="VARIANT",
        help="classic, ofc, pineapple, progressive-pineapple or pineapple-27.",
        show_default=False,
    ),
    players: int = typer.Option(3, "--players", metavar="N", help="Players at each table (2-4; Pineapple at most 3)."),
    hands: int = typer.Option(1000, "--hands", metavar="N", help="Hands to play in all."),
    bots: str = typer.Option("heuristic", "--bots", metavar="BOTS", help=BOTS_HELP),
    rules: list[str] | None = rules_option(
        "Preset name or rule file (.toml) the hands are played under (one; default: the variant's preset)."
    ),
    seed: int = seed_option(0, "Seed: the same seed and arguments give the same hands, byte for byte."),
    rollouts: int | None = rollouts_option(None, "mc: rollouts of each placement it weighs (default 12)."),
    session_hands: int = typer.Option(
        100,
        "--session-hands",
        metavar="N",
        help="Hands per session (the button rotates and Fantasyland carries within one).",
    ),
    start: str = typer.Option(
        "2026-01-01T00:00:00+00:00", "--start", metavar="TIME", help="When every session starts (ISO time)."
    ),
    lake: Path | None = lake_option(),
    out_file: Path | None = out_option("Write canonical JSONL here instead of the lake (missing folders are made)."),
    as_json: bool = json_option(),
    shards: int = typer.Option(
        1,
        "--shards",
        metavar="N",
        help="Split the run in N parts, each from a seed derived from --seed: the same seed and N give the same "
        "hands wherever the parts are played.",
    ),
    engine: str = engine_option("local: play here; ray: play the --shards on a Ray cluster's workers (into the lake)."),
    address: str | None = address_option(),
) -> None:
    """Simulate hands with one bot per seat and write them to the lake (one batch) or to JSONL.

    Sessions of --session-hands hands are played side by side; within a session the button
    rotates and Fantasyland carries from hand to hand as the rule set says. At the end, each
    bot's hands, points per hand with a 95% interval, foul rate and Fantasyland entry rate
    (over normal hands), Fantasyland hands and stays.
    """
    from ofc.pipeline.simulate.simulation_run import PRESETS, plan, to_jsonl, to_lake
    from ofc.pipeline.simulate.views import DEFAULT_ROLLOUTS
    from ofc.schemas.rules import Variant

    if lake is not None and out_file is not None:
        fail("give --lake or --out, not both", EXIT_USAGE)
    if out_file is not None and out_file.is_dir():
        fail(f"--out: {out_file} is a folder; give a file name", EXIT_USAGE)
    check_variant(variant)
    known = {v.value: v for v in Variant}
    if rules and len(rules) > 1:
        fail(f"--rules: a simulation plays under one rule set, got {len(rules)} ({', '.join(rules)})", EXIT_USAGE)
    rule_set = load_rules(rules[0] if rules else PRESETS[known[variant]])
    spec = plan(
        variant,
        players,
        hands,
        bots,
        rule_set,
        seed=seed,
        rollouts=DEFAULT_ROLLOUTS if rollouts is None else rollouts,
        session_hands=session_hands,
        start=_start(start),
        shards=shards,
    )
    check_engine(engine, address)
    if engine == "ray" and out_file is not None:
        fail("--engine ray writes to the lake, not to --out", EXIT_USAGE)
    ray = None
    if engine == "ray":
        from ofc.pipeline.rescore.ray_rescore import connect

        ray = connect(address)

    target = out_file or lake_at(lake)
    said = f"nothing was written; {target} is as it was" if isinstance(target, Path) else None
    with interrupts(said), hand_progress() as progress:
        title = f"{spec.variant.value} x{spec.players}"
        task = progress.add_task(title, total=spec.hands)

        def on_progress(done: int) -> None:
            progress.update(task, completed=done)

        def on_stage(what: str | None, done: float) -> None:
            progress.update(task, description=title if what is None else f"{title}: {what} ({done:.0%})")

        t0 = datetime.now()
        try:
            if isinstance(target, Path):
                outcome = to_jsonl(spec, target, on_progress, on_stage)
            elif ray is not None:
                from ofc.pipeline.simulate.ray_simulation import to_lake_ray

                outcome = to_lake_ray(spec, target, ray, on_progress)
            else:
                outcome = to_lake(spec, target, on_progress, on_stage)
        except OSError as exc:
            fail(str(exc), EXIT_USAGE)
        seconds = (datetime.now() - t0).total_seconds()

    result = simulation_result(outcome, seconds)
    print_json(result) if as_json else print_simulation(result)
    if result["output"].get("quarantined"):
        err.print(f"{result['output']['quarantined']} simulated hand(s) were quarantined", markup=False)
        raise typer.Exit(EXIT_FAILED)


def simulation_result(outcome: Any, seconds: float) -> dict[str, Any]:
    spec = outcome.spec
    output = dict(outcome.written)
    if outcome.report is not None:
        output.update(outcome.report.totals.counts())
    return {
        "run": spec.run_id,
        "variant": spec.variant.value,
        "rules": spec.rules.key,
        "players": spec.players,
        "hands": outcome.summary.hands,
        "bots": list(spec.bots),
        "seed": spec.seed,
        "rollouts": spec.rollouts,
        "session_hands": spec.session_hands,
        "seconds": round(seconds, 3),
        "hands_per_second": round(outcome.summary.hands / seconds, 1) if seconds > 0 else None,
        "output": output,
        "summary": outcome.summary.rows(),
    }


def print_simulation(result: dict[str, Any]) -> None:
    from ofc.schemas.rules import key_name

    table = Table(
        "bot",
        "seats",
        "hands",
        "points / hand",
        "95% interval",
        "foul rate",
        "Fantasyland rate",
        "FL hands",
        "FL stays",
        title=f"{result['variant']} x{result['players']}, rules {key_name(result['rules'])}, run {result['run']}",
        title_justify="left",
    )
    for row in result["summary"]:
        lo, hi = row["ci95"]
        table.add_row(
            row["bot"],
            ",".join(map(str, row["seats"])),
            f"{row['hands']:,}",
            f"{row['points_per_hand']:+.2f}",
            f"{lo:+.2f} .. {hi:+.2f}",
            f"{row['foul_rate']:.1%}",
            f"{row['fantasyland_rate']:.1%}",
            f"{row['fantasyland_hands']:,}",
            f"{row['fantasyland_stays']:,}",
        )
    out.print(table)
    o = result["output"]
    where = f"lake {o['lake']}, batch {o['batch']}" if "lake" in o else o["out"]
    counts = (
        f" (accepted {o['accepted']:,}, quarantined {o['quarantined']:,}, duplicates {o['duplicates']:,})"
        if "accepted" in o
        else ""
    )
    out.print(
        f"{result['hands']:,} hands in {result['seconds']:.1f} s ({result['hands_per_second']:,.0f} hands/s) "
        f"-> {where}{counts}",
        markup=False,
    )
