"""Write the golden files again: ``python -m tests.golden`` (``make golden``), from the repository's root.

Review the diff (``git diff tests/golden``) like a change to code before committing it.
"""

from __future__ import annotations

import shutil

from tests.golden import GOLDEN, folder, relative, samples, stored_folders, write


def main() -> None:
    changed: list[str] = []
    found = samples()
    for sample in found:
        changed += write(sample)
    for gone in sorted(stored_folders() - {folder(s) for s in found}):  # a sample that was removed
        shutil.rmtree(GOLDEN / gone)
        changed.append(relative(GOLDEN / gone) + "/")
    for name in changed:
        print(f"rewrote {name}")
    print(f"{len(found)} sample(s), {len(changed)} golden file(s) changed")


if __name__ == "__main__":
    main()
