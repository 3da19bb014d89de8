"""Every sample's records, lake rows, rescore results and scores, compared whole with the files in tests/golden.

A difference fails with a unified diff of each file that changed. When the change is intended, write the files
again (``make golden``) and review their diff like code: see ``tests/golden/README.md``.
"""

from __future__ import annotations

import difflib
from pathlib import Path

import pytest

from tests import golden

SAMPLES = golden.samples()


def diff(name: str, stored: str | None, produced: str | None) -> str:
    old = (stored or "").splitlines(keepends=True)
    new = (produced or "").splitlines(keepends=True)
    was = f"stored/{name}" if stored is not None else "(no stored file)"
    now = f"produced/{name}" if produced is not None else "(not produced)"
    return "".join(difflib.unified_diff(old, new, was, now, n=2))


def test_there_are_samples() -> None:
    assert {golden.folder(s) for s in SAMPLES} >= {"worked-examples", "poker-arena/ofc", "scoresheet/club-night"}


@pytest.mark.parametrize("sample", SAMPLES, ids=golden.folder)
def test_sample_matches_its_golden_files(sample: Path, tmp_path: Path) -> None:
    produced = golden.render(sample, tmp_path)
    stored = golden.stored(sample)
    changed = [
        diff(f"{golden.folder(sample)}/{name}", stored.get(name), produced.get(name))
        for name in sorted(produced.keys() | stored.keys())
        if stored.get(name) != produced.get(name)
    ]
    if changed:
        pytest.fail(
            f"{golden.relative(sample)} no longer produces its golden files "
            f"(tests/golden/{golden.folder(sample)}):\n\n"
            + "\n".join(changed)
            + f"\nIf the change is intended, regenerate them with `{golden.REGENERATE}` and review the diff.",
            pytrace=False,
        )


def test_every_golden_folder_has_its_sample() -> None:
    """Golden files of a sample that was removed or renamed are not left behind."""
    assert golden.stored_folders() == {golden.folder(s) for s in SAMPLES}


def test_golden_files_are_small() -> None:
    for path in golden.GOLDEN.rglob("*"):
        if path.is_file() and path.suffix in (".json", ".jsonl"):
            assert path.stat().st_size <= golden.MAX_BYTES + (64 << 10), path
