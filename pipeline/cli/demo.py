"""``ofc demo``: the main job on the embedded default, end to end, as far as the pipeline goes."""

from __future__ import annotations

import time
from typing import Any

import numpy as np
import typer
from rich.table import Table

from pipeline.cli.console import out, print_json, user_errors
from pipeline.cli.evaluate import board_report, render
from pipeline.paths import SAMPLES, default_lake

EXAMPLES = SAMPLES / "worked-examples.jsonl"
DEMO_RULES = ("ofc", "pineapple", "progressive-pineapple", "classic-1-6", "classic-2-4", "classic-plain", "taiwanese")
PLAYERS = 3


def _examples() -> tuple[list[dict[str, Any]], np.ndarray]:
    from pipeline.score.records import read_jsonl

    with EXAMPLES.open("rb") as f:
        batch = read_jsonl(f)
    if batch.errors:
        raise ValueError(f"{EXAMPLES}: {batch.errors[0]}")
    return batch.records, batch.codes


def _example_points(records: list[dict[str, Any]], codes: np.ndarray) -> dict[str, dict[str, int]]:
    """``{"E1/A": {"ofc": 24, ...}}``: each player's result under each demo rule set."""
    from pipeline.score.engine import score
    from pipeline.score.records import to_boards, to_output
    from schemas.rules import load_rules

    boards = to_boards(records, codes)
    table: dict[str, dict[str, int]] = {}
    for name in DEMO_RULES:
        rules = load_rules(name)
        for hand in to_output(records, score(boards, rules), rules):
            for player, pts in hand["points"].items():
                table.setdefault(f"{hand['hand_id']}/{player}", {})[name] = pts
    return table


def _random_batch(n: int, seed: int) -> dict[str, Any]:
    """Deal ``n`` random boards, evaluate them in one pass, then score them as 3-player hands."""
    from pipeline.cards import deal
    from pipeline.evaluate import CATEGORY_NAMES, category, evaluate_boards, fouled
    from pipeline.score.engine import Boards, score
    from schemas.rules import load_rules

    rng = np.random.default_rng(seed)
    hands = max(n // PLAYERS, 1)
    boards = deal(hands, 13 * PLAYERS, rng).reshape(-1, 13)
    # Half the players place at random; half sort their cards low to high, which rarely fouls.
    sensible = rng.random(len(boards)) < 0.5
    boards = np.where(sensible[:, None], np.sort(boards, axis=1), boards)
    t0 = time.perf_counter()
    s = evaluate_boards(boards)
    eval_seconds = time.perf_counter() - t0
    share = {}
    for name, col in zip(("top", "middle", "bottom"), s, strict=True):
        counts = np.bincount(category(col), minlength=len(CATEGORY_NAMES))
        share[name] = {CATEGORY_NAMES[c]: round(float(counts[c]) / len(boards), 6) for c in range(len(CATEGORY_NAMES))}

    table = Boards.build(
        hand=np.repeat(np.arange(hands), PLAYERS), seat=np.tile(np.arange(PLAYERS), hands), cards=boards
    )
    score(Boards.build(hand=table.hand[:6], seat=table.seat[:6], cards=table.cards[:6]), load_rules("ofc"))
    scoring = {}
    for name in DEMO_RULES:
        t0 = time.perf_counter()
        result = score(table, load_rules(name))
        seconds = time.perf_counter() - t0
        scoring[name] = {
            "seconds": round(seconds, 4),
            "pairs_per_second": round(result.pairs.points.size / seconds),
            "mean_abs_points_per_player": round(float(np.abs(result.net).mean()), 3),
            "scoop_rate": round(float((result.pairs.scoop != 0).mean()), 4),
        }
    return {
        "boards": len(boards),
        "hands": hands,
        "evaluate_seconds": round(eval_seconds, 4),
        "boards_per_second": round(len(boards) / eval_seconds),
        "foul_rate_random_placement": round(float(fouled(*s)[~sensible].mean()), 4),
        "foul_rate_sorted_placement": round(float(fouled(*s)[sensible].mean()), 4),
        "category_share": share,
        "scoring": scoring,
    }


def demo(
    boards: int = typer.Option(1_000_000, min=PLAYERS, help="Random boards to deal, evaluate and score."),
    seed: int = typer.Option(7, help="Seed for the random boards."),
    as_json: bool = typer.Option(False, "--json", help="Print the figures as JSON."),
) -> None:
    """Run the pipeline on the embedded default: the sample hands, then a large random batch."""
    from pipeline.cli.ingest import print_summary, summary_of
    from pipeline.ingest.run import ingest
    from pipeline.lake.store import Lake

    with user_errors():
        lake = Lake(default_lake())
        ingested = summary_of(ingest([SAMPLES], lake))
        records, codes = _examples()
        labels = [f"{r['hand_id']}/{p['name']}" for r in records for p in r["players"]]
        report = board_report(codes)
        points = _example_points(records, codes)
        stats = _random_batch(boards, seed)
    if as_json:
        print_json(
            {
                "ingest": ingested,
                "examples": dict(zip(labels, report, strict=True)),
                "example_points": points,
                "random": stats,
            }
        )
        return
    out.rule(f"[bold]Sample histories ingested into {lake.root}")
    print_summary(ingested, "ingest of data/samples (a second run finds them already there)")

    out.rule(f"[bold]Worked examples ({EXAMPLES.relative_to(EXAMPLES.parents[2])})")
    out.print(render(report, labels))
    side = Table("board", *DEMO_RULES, title="the same hands scored under each rule set (points per player)")
    for label, by_rules in points.items():
        side.add_row(label, *(f"{by_rules[r]:+d}" for r in DEMO_RULES))
    out.print(side)

    out.rule(f"[bold]{stats['boards']:,} random boards ({stats['hands']:,} three-player hands)")
    out.print(
        f"evaluated in {stats['evaluate_seconds']} s ({stats['boards_per_second']:,} boards/s); "
        f"foul rate {stats['foul_rate_random_placement']:.1%} placed at random, "
        f"{stats['foul_rate_sorted_placement']:.1%} sorted low to high."
    )
    share = Table("category", "top", "middle", "bottom", title="share of rows by category")
    cats = stats["category_share"]
    top_can_make = {"high card", "pair", "three of a kind"}
    for cat in cats["middle"]:
        cells = [f"{cats[row][cat]:.4%}" for row in ("top", "middle", "bottom")]
        share.add_row(cat, cells[0] if cat in top_can_make else "—", *cells[1:])
    out.print(share)
    scoring = Table(
        "rules", "seconds", "pairs/s", "mean |points| per player", "scoop rate", title="every pair scored, per rule set"
    )
    for name, s in stats["scoring"].items():
        scoring.add_row(
            name,
            f"{s['seconds']:.3f}",
            f"{s['pairs_per_second']:,}",
            f"{s['mean_abs_points_per_player']:.2f}",
            f"{s['scoop_rate']:.1%}",
        )
    out.print(scoring)
