"""tests/README.md maps every module to its tests, and the map cannot rot: a module of ``pipeline``, ``schemas`` or
``reports`` without a row fails, as does a row for a module that is gone, and a test file, a test
(``file.py::test_name``) or a ``-k`` selector the page names that does not exist.
"""

from __future__ import annotations

import ast
import re
from functools import cache
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent
ROOT = TESTS.parent
MAP = TESTS / "README.md"
PACKAGES = ("ofc", "pipeline", "schemas", "reports")

ROW = re.compile(r"^\| `([\w.]+)` \|(.*)\|\s*$")
"""A row of a module table: ``| `module` | what it does | tests |``."""
PY_FILE = re.compile(r"`((?:[\w.-]+/)*[\w.-]+\.py)(?:::(\w+))?`")
"""A file under tests/ in backquotes, with a test of it after ``::``: ``test_cards.py::test_rows_and_boards``."""
SELECTOR = re.compile(r"`((?:[\w.-]+/)*test_\w+\.py) -k (\w+|\"[^\"]+\")`")
"""A file and a ``-k`` expression: ``test_reference_scorer.py -k natural``, ``test_x.py -k "a or b"``."""


def only_reexports(path: Path) -> bool:
    """An ``__init__.py`` with a docstring, imports, ``__all__`` and ``if TYPE_CHECKING:`` blocks only."""
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Import | ast.ImportFrom):
            continue
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
            continue
        if isinstance(node, ast.Assign) and [ast.unparse(t) for t in node.targets] == ["__all__"]:
            continue
        if isinstance(node, ast.If) and ast.unparse(node.test) in ("TYPE_CHECKING", "typing.TYPE_CHECKING"):
            continue
        return False
    return True


def modules() -> set[str]:
    """Every module of the three packages by its dotted name; a package by its own name when its
    ``__init__.py`` does more than re-export."""
    found = set()
    for package in PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            parts = path.relative_to(ROOT).with_suffix("").parts
            if parts[-1] == "__init__":
                if only_reexports(path):
                    continue
                parts = parts[:-1]
            found.add(".".join(parts))
    return found


@cache
def page() -> str:
    return MAP.read_text(encoding="utf-8")


def rows() -> dict[str, str]:
    """The rows of the module tables: module -> the rest of the row."""
    out: dict[str, str] = {}
    for line in page().splitlines():
        found = ROW.match(line)
        if found and found[1] not in ("module", "target"):
            assert found[1] not in out, f"tests/README.md has two rows for {found[1]}"
            out[found[1]] = found[2]
    return out


@cache
def names_of_tests(path: Path) -> frozenset[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return frozenset(
        n.name
        for n in ast.walk(tree)
        if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef) and n.name.startswith("test_")
    )


def under_tests(name: str) -> Path:
    return TESTS / name.removeprefix("tests/")


def test_the_map_finds_the_modules_and_their_rows() -> None:
    """The checks below read what they should: many modules, a row for a known one, no row for a bare re-export."""
    found = modules()
    assert {"pipeline.lake.store", "schemas.hand", "reports.serve.app", "pipeline.cli", "pipeline"} <= found
    assert "reports.serve" not in found  # its __init__.py only re-exports
    assert len(found) > 100
    assert "pipeline.lake.store" in rows()


def test_every_module_has_a_row() -> None:
    missing = sorted(modules() - set(rows()))
    assert not missing, f"add a row to tests/README.md (module, what it does, its tests) for: {', '.join(missing)}"


def test_every_row_names_a_module_that_exists() -> None:
    gone = sorted(set(rows()) - modules())
    assert not gone, f"tests/README.md has rows for modules that no longer exist: {', '.join(gone)}"


def test_every_row_names_its_tests_or_says_it_has_none() -> None:
    named = (PY_FILE, SELECTOR)
    bare = sorted(m for m, rest in rows().items() if not any(p.search(rest) for p in named) and "no test" not in rest)
    assert not bare, f"rows of tests/README.md that name no test file: {', '.join(bare)}"


def test_every_test_file_and_test_named_exists() -> None:
    named = PY_FILE.findall(page())
    assert len(named) > 200
    files = sorted({name for name, _ in named if not under_tests(name).is_file()})
    assert not files, f"tests/README.md names files that are not under tests/: {', '.join(files)}"
    tests = sorted(f"{name}::{test}" for name, test in named if test and test not in names_of_tests(under_tests(name)))
    assert not tests, f"tests/README.md names tests that do not exist: {', '.join(tests)}"


def test_every_k_selector_matches_a_test_of_its_file() -> None:
    selectors = SELECTOR.findall(page())
    assert len(selectors) > 20
    empty = []
    for name, expression in selectors:
        path = under_tests(name)
        assert path.is_file(), f"tests/README.md: no file {name} for -k {expression}"
        names = [n.lower() for n in names_of_tests(path)]
        words = [w for w in re.findall(r"\w+", expression.lower()) if w not in ("and", "or", "not")]
        empty += [f"{name} -k {w}" for w in words if not any(w in n for n in names)]
    assert not empty, f"-k words of tests/README.md that match no test of their file: {', '.join(empty)}"


@pytest.mark.parametrize("broken", ["| `pipeline.lake.store` | x | `test_nope.py` |", "`test_cards.py::test_nope`"])
def test_a_broken_reference_is_caught(broken: str) -> None:
    """The patterns read what a row writes: a file or a test that is not there is seen as such."""
    ((name, test),) = PY_FILE.findall(broken)
    assert not under_tests(name).is_file() or test not in names_of_tests(under_tests(name))


ARCHITECTURE = ROOT / "docs" / "architecture.md"


def _modules() -> list[str]:
    """Every module of the three packages, dotted (a package by its name)."""
    found = []
    for top in ("pipeline", "schemas", "reports"):
        for path in sorted((ROOT / top).rglob("*.py")):
            if "__pycache__" in path.parts:
                continue
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts = parts[:-1]
            found.append(".".join(parts))
    return found


def test_the_module_map_names_every_module() -> None:
    """docs/architecture.md says what each module does: a module it does not name is one a newcomer cannot
    place (named in full, by its name within its package, or as ``folder/name``)."""
    text = ARCHITECTURE.read_text(encoding="utf-8")
    missing = []
    for name in _modules():
        parts = name.split(".")
        said = {f"`{name}`", f"`{parts[-1]}`", f"`{'/'.join(parts[-2:])}`", f"`{parts[-1]}/`"}
        if parts[-1] == "__main__":  # every package's is called so: named in full
            said = {f"`{name}`"}
        if not any(s in text for s in said):
            missing.append(name)
    assert missing == [], missing


def test_the_module_map_names_no_module_that_is_gone() -> None:
    text = ARCHITECTURE.read_text(encoding="utf-8")
    named = set(re.findall(r"`((?:pipeline|schemas|reports)(?:\.\w+)+)`", text))
    modules = set(_modules())
    assert named, "the module map names no module in full"
    assert sorted(named - modules) == []
