"""The code's shape, as docs/architecture.md states it: no import cycles, ``schemas`` holds definitions and
imports nothing of the pipeline, no module reaches into another's private names, every package says what it
offers, and every error ofc raises on purpose is of one of three kinds."""

from __future__ import annotations

import ast
import importlib
import inspect
import pkgutil
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

import ofc.pipeline
from ofc.pipeline.errors import InputError, LakeError, OfcError, RulesError

ROOT = Path(__file__).resolve().parents[1]
TOP = ("pipeline", "schemas", "reports")
MAY_IMPORT = {
    "schemas": {"schemas"},
    "pipeline": {"pipeline", "schemas"},
    "reports": {"reports", "pipeline", "schemas"},
    "pipeline.cli": {"pipeline", "schemas", "reports"},
    "pipeline.api": {"pipeline", "schemas", "reports"},  # the notebooks' facade: outermost, beside the CLI
}
"""What each package may import from this project (the longest prefix of a module's name that is listed): the
data flows one way, and only the outermost layers, the command line and the Python API, reach the reports."""


def may_import(name: str) -> set[str]:
    parts = name.split(".")
    return next(MAY_IMPORT[p] for k in range(len(parts), 0, -1) if (p := ".".join(parts[:k])) in MAY_IMPORT)


def modules() -> dict[str, Path]:
    out = {}
    for top in TOP:
        for path in (ROOT / top).rglob("*.py"):
            parts = path.relative_to(ROOT).with_suffix("").parts
            name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
            out[name] = path
    return out


def imports(name: str, path: Path) -> Iterator[tuple[str, str, int]]:
    """(module imported, name imported or "", line) for every import of this project's code in a module,
    wherever it is (functions import lazily too)."""
    package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            module = node.module or ""
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                module = ".".join([*base, module] if module else base)
            if (inside := ours(module) if not node.level else module) is not None:
                for alias in node.names:
                    yield inside, alias.name, node.lineno
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if (inside := ours(alias.name)) is not None:
                    yield inside, "", node.lineno


def ours(module: str) -> str | None:
    """A module of this project by its name inside the ``ofc`` package (``ofc.pipeline.lake`` is
    ``pipeline.lake``), or None for another project's."""
    parts = module.split(".")
    return ".".join(parts[1:]) if parts[0] == "ofc" and len(parts) > 1 and parts[1] in TOP else None


def graph() -> dict[str, set[str]]:
    known = modules()
    edges: dict[str, set[str]] = {m: set() for m in known}
    for name, path in known.items():
        for module, imported, _ in imports(name, path):
            target = f"{module}.{imported}" if f"{module}.{imported}" in known else module
            if target in known and target != name:
                edges[name].add(target)
    return edges


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(edges[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return found


def test_no_module_imports_itself_round_a_cycle() -> None:
    assert cycles(graph()) == []


def test_the_cycle_finder_finds_a_cycle() -> None:
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_each_package_imports_only_what_comes_before_it() -> None:
    wrong = [
        f"{modules()[name].relative_to(ROOT)}:{line} imports {module}"
        for name, path in modules().items()
        for module, _, line in imports(name, path)
        if module.split(".")[0] not in may_import(name)
    ]
    assert wrong == []


def test_no_module_uses_another_modules_private_names() -> None:
    known = modules()
    wrong = []
    for name, path in known.items():
        for module, imported, line in imports(name, path):
            if module != name and imported.startswith("_") and not imported.startswith("__"):
                wrong.append(f"{path.relative_to(ROOT)}:{line} imports {imported} from {module}")
        tree = ast.parse(path.read_text(encoding="utf-8"))
        aliases = {}
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom | ast.Import):
                for alias in node.names:
                    full = f"{node.module}.{alias.name}" if isinstance(node, ast.ImportFrom) else alias.name
                    if full.split(".")[0] in TOP:
                        aliases[alias.asname or alias.name.split(".")[0]] = full
        wrong += [
            f"{path.relative_to(ROOT)}:{node.lineno} reads {node.value.id}.{node.attr}"
            for node in ast.walk(tree)
            if isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id in aliases
            and node.attr.startswith("_")
            and not node.attr.startswith("__")
        ]
    assert wrong == []


def packages() -> list[str]:
    found = ["ofc"]
    for top in TOP:
        module = importlib.import_module(f"ofc.{top}")
        found.append(module.__name__)
        found += [m.name for m in pkgutil.walk_packages(module.__path__, f"{module.__name__}.") if m.ispkg]
    return found


@pytest.mark.parametrize("package", packages())
def test_each_package_says_what_it_offers(package: str) -> None:
    module = importlib.import_module(package)
    offered = getattr(module, "__all__", None)
    assert offered, f"{package} has no __all__"
    assert sorted(set(offered)) == sorted(offered), "each name once"
    missing = [n for n in offered if not hasattr(module, n)]
    assert missing == []


def test_every_error_raised_on_purpose_is_of_one_kind() -> None:
    """Each module's error class is an InputError, a RulesError or a LakeError, so that the command line maps
    it to an exit code in one place; only the control-flow exceptions that never reach a user are not."""
    internal = {"StoppedError", "OfcError"}
    loose = []
    for name in modules():
        if name.endswith("__main__"):
            continue
        module = importlib.import_module(f"ofc.{name}")
        for attr, value in vars(module).items():
            if (
                inspect.isclass(value)
                and issubclass(value, Exception)
                and value.__module__ == module.__name__
                and not attr.startswith("_")
                and attr not in internal
                and not issubclass(value, InputError | RulesError | LakeError)
            ):
                loose.append(f"{name}.{attr}")
    assert loose == []
    assert all(issubclass(kind, OfcError) for kind in (InputError, RulesError, LakeError))


BUILTIN_RAISES = re.compile(r"^\s*raise (ValueError|TypeError|RuntimeError|KeyError|IndexError|Exception)\b", re.M)
"""A built-in error raised on purpose: outside the error tree, so the command line cannot say it as one."""


def test_nothing_raises_a_builtin_error_on_purpose() -> None:
    """Every raise of the pipeline and the reports is of the error tree (``schemas`` aside: pydantic's validators
    report a ``ValueError`` as a validation error of the field)."""
    found = [
        f"{path.relative_to(ROOT)}:{text[: m.start()].count(chr(10)) + 1}"
        for folder in ("pipeline", "reports")
        for path in sorted((ROOT / folder).rglob("*.py"))
        for text in [path.read_text(encoding="utf-8")]
        for m in BUILTIN_RAISES.finditer(text)
    ]
    assert found == []


def test_the_root_package_stays_cheap_to_import() -> None:
    """``import ofc`` and ``import ofc.pipeline`` (and the command line's entry point) load nothing heavy."""
    assert ofc.pipeline.__all__ == ["__version__"]


BARE_IMPORT = re.compile(r"(?m)(?:^|;)\s*(?:from|import)\s+([\w.]+)")
"""An import statement inside a string: the code a test or a benchmark hands to a child process."""


def test_the_project_is_imported_by_one_name() -> None:
    """Every module, test and benchmark imports the project as ``ofc.…``. A bare ``pipeline`` would work in a
    checkout, whose root is on the path, but it is not installed, and it would load a second copy of each
    module beside the first."""
    found = []
    for folder in (*TOP, "ofc", "tests"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                names = [node.module or ""] if isinstance(node, ast.ImportFrom) and not node.level else []
                names += [a.name for a in node.names] if isinstance(node, ast.Import) else []
                if isinstance(node, ast.Constant) and isinstance(node.value, str):  # code run in a child process
                    names += [m.group(1) for m in BARE_IMPORT.finditer(node.value)]
                found += [f"{path.relative_to(ROOT)}:{node.lineno} {n}" for n in names if n.split(".")[0] in TOP]
    assert found == []


def _uses_in_the_map() -> tuple[dict[str, set[str]], set[str]]:
    """docs/architecture.md's packages of ``pipeline`` with the packages each "uses", and the small modules any
    package may use."""
    text = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    uses: dict[str, set[str]] = {}
    for block in re.split(r"^### ", text, flags=re.M)[1:]:
        head = re.match(r"`(pipeline\.\w+|reports)`", block)
        if head is None:
            continue
        said = re.search(r"^Uses ((?:`\w+`(?:, )?)+)", block, flags=re.M)
        uses[head.group(1)] = set(re.findall(r"`(\w+)`", said.group(1))) if said else set()
    small_table = text.split("### Definitions and small tools", 1)[1].split("###", 1)[0]
    small = set(re.findall(r"^\| `pipeline\.(\w+)`", small_table, flags=re.M))
    return uses, small


def test_each_package_of_pipeline_uses_only_what_the_module_map_says() -> None:
    """The "uses" of each package in docs/architecture.md are the packages of ``pipeline`` its modules import
    (beside ``schemas`` and the small modules any package may use): no more, and none listed that is not."""
    uses, small = _uses_in_the_map()
    assert {"pipeline.rules", "pipeline.score", "pipeline.query", "reports"} <= set(uses)
    assert {"errors", "game", "cards"} <= small
    found: dict[str, set[str]] = {package: set() for package in uses}
    for name, path in modules().items():
        package = next((p for p in uses if name == p or name.startswith(p + ".")), None)
        if package is None:
            continue
        for module, _, _ in imports(name, path):
            parts = module.split(".")
            if parts[0] == "pipeline" and len(parts) > 1 and parts[1] not in small:
                used = parts[1]
                if f"pipeline.{used}" != package and f"pipeline.{used}" in uses:
                    found[package].add(used)
    assert {p: sorted(f) for p, f in found.items()} == {p: sorted(u) for p, u in uses.items()}


MANIFEST_KEYS = {"covers", "carries", "replaces", "royalty_hands", "lake_format", "sources", "groups", "not_applied"}
"""Keys only a lake's manifests hold: read through ``pipeline.lake`` (its snapshot and covers), not as dicts."""


def _manifest_reads(path: Path) -> Iterator[tuple[int, str]]:
    """(line, what) for each read of a raw manifest in a module: its ``manifests``, or a key only manifests hold
    read by subscript or ``.get``."""
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Attribute) and node.attr == "manifests":
            yield node.lineno, ".manifests"
        key = None
        if isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load):
            key = node.slice
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get":
            key = node.args[0] if node.args else None
        if isinstance(key, ast.Constant) and key.value in MANIFEST_KEYS:
            yield node.lineno, repr(key.value)


def test_no_file_outside_the_lake_and_the_command_line_reads_raw_manifests() -> None:
    """A manifest's layout is the lake's to know: every other package asks the snapshot (its sources, covers,
    royalty names, batches), so that the layout changes in one place. The command line's ``ofc lake`` lists the
    batches as they are written."""
    wrong = [
        f"{path.relative_to(ROOT)}:{line} reads {what}"
        for name, path in modules().items()
        if not name.startswith(("pipeline.lake", "pipeline.cli"))
        for line, what in _manifest_reads(path)
    ]
    assert wrong == []
    lake = [
        what
        for name, path in modules().items()
        if name.startswith("pipeline.lake")
        for _, what in _manifest_reads(path)
    ]
    assert ".manifests" in lake
    assert "'covers'" in lake


LAZY_MODULES = {
    # The app's modules load in 0.13 s (ofc --help: 0.22 s); with every command's imports at the top, 2.3 s.
    "pipeline.cli": "each command loads what it runs, so that the app and --help answer at once (test_cli_startup.py)",
    "pipeline.api": "the notebooks' facade imports in 0.02-0.04 s, 0.92 s with every import at the top (python.md)",
    "pipeline.warm": "compiles every kernel, one module after another",
    "pipeline.rescore.ray_rescore": "Ray is an optional extra",
    "pipeline.simulate.ray_simulation": "Ray is an optional extra",
}
"""Modules whose functions import freely, and why: everywhere else imports are at the top of the module."""


def _says_why(lines: list[str], lineno: int) -> bool:
    """A ``# lazy:`` comment heads the run of imports (and blank lines) the import at ``lineno`` is in."""
    at = lineno - 2
    while at >= 0 and (not lines[at].strip() or lines[at].strip().startswith(("import ", "from ", "# lazy:"))):
        if lines[at].strip().startswith("# lazy:"):
            return True
        at -= 1
    return False


def test_imports_are_at_the_top_unless_a_measured_reason_says_otherwise() -> None:
    """An import inside a function says why in a comment just above it (``# lazy: ...``, with the figure), outside
    the modules of ``LAZY_MODULES``."""
    wrong = []
    for name, path in modules().items():
        if any(name == m or name.startswith(m + ".") for m in LAZY_MODULES):
            continue
        lines = path.read_text(encoding="utf-8").splitlines()
        for node in ast.walk(ast.parse("\n".join(lines))):
            if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            wrong += [
                f"{path.relative_to(ROOT)}:{inner.lineno}"
                for inner in ast.walk(node)
                if isinstance(inner, ast.Import | ast.ImportFrom) and not _says_why(lines, inner.lineno)
            ]
    assert wrong == []
