"""``ofc demo``: the main job on the embedded default, end to end, as far as the pipeline goes."""

from __future__ import annotations

import json
import time
from pathlib import Path

import numpy as np
import typer
from rich.table import Table

from pipeline.cli.console import out, print_json, user_errors
from pipeline.cli.evaluate import board_report, render
from pipeline.paths import SAMPLES


def _example_boards(path: Path) -> tuple[list[str], np.ndarray]:
    """Boards of the worked examples, labelled ``hand/player``."""
    from pipeline.cards import parse_rows

    labels, rows = [], []
    for line in path.read_text(encoding="utf-8").splitlines():
        hand = json.loads(line)
        for p in hand["players"]:
            labels.append(f"{hand['hand_id']}/{p['name']}")
            rows.append(p["top"] + p["middle"] + p["bottom"])
    codes = parse_rows([" ".join(r) for r in rows], 13, context=str(path))
    return labels, codes


def _random_board_stats(n: int, seed: int) -> dict[str, object]:
    """Deal ``n`` boards at random, evaluate them in one pass and summarise."""
    from pipeline.cards import deal
    from pipeline.evaluate import CATEGORY_NAMES, category, evaluate_boards, fouled

    boards = deal(n, 13, np.random.default_rng(seed))
    t0 = time.perf_counter()
    s = evaluate_boards(boards)
    seconds = time.perf_counter() - t0
    fouls = fouled(*s)
    rows = {}
    for name, col in zip(("top", "middle", "bottom"), s, strict=True):
        counts = np.bincount(category(col), minlength=len(CATEGORY_NAMES))
        rows[name] = {CATEGORY_NAMES[c]: round(float(counts[c]) / n, 6) for c in range(len(CATEGORY_NAMES))}
    return {
        "boards": n,
        "seconds": round(seconds, 4),
        "boards_per_second": round(n / seconds),
        "foul_rate": round(float(fouls.mean()), 4),
        "category_share": rows,
    }


def demo(
    boards: int = typer.Option(1_000_000, min=1, help="Random boards to deal and evaluate."),
    seed: int = typer.Option(7, help="Seed for the random boards."),
    as_json: bool = typer.Option(False, "--json", help="Print the figures as JSON."),
) -> None:
    """Run the pipeline on the embedded default: evaluate the sample boards and a batch of random ones."""
    with user_errors():
        labels, codes = _example_boards(SAMPLES / "worked-examples.jsonl")
        report = board_report(codes)
        stats = _random_board_stats(boards, seed)
    if as_json:
        print_json({"examples": dict(zip(labels, report, strict=True)), "random": stats})
        return
    out.rule("[bold]Worked examples (data/samples/worked-examples.jsonl)")
    out.print(render(report, labels))
    out.rule(f"[bold]{stats['boards']:,} random boards, evaluated in one vectorised pass")
    out.print(
        f"{stats['seconds']} s ({stats['boards_per_second']:,} boards/s, three rows each); "
        f"a random placement fouls {stats['foul_rate']:.1%} of the time."
    )
    share = Table("category", "top", "middle", "bottom", title="share of rows by category")
    cats = stats["category_share"]
    top_can_make = {"high card", "pair", "three of a kind"}
    for cat in cats["middle"]:  # type: ignore[index]
        cells = [f"{cats[row][cat]:.4%}" for row in ("top", "middle", "bottom")]  # type: ignore[index]
        share.add_row(cat, cells[0] if cat in top_can_make else "—", *cells[1:])
    out.print(share)
