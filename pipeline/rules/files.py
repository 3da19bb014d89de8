"""Rule files: finding a preset or a file, merging its ``extends`` chain, and validating it as a
:class:`~schemas.rules.RuleSet` whose every problem is named by its TOML path.

A rule file is TOML. It may start with ``extends = "ofc"`` (a preset name or a path relative to the file)
and then state only what differs; a file without a ``name`` is named after itself. The models, and what
every key means, are in :mod:`schemas.rules`.
"""

from __future__ import annotations

import re
import tomllib
import types
from pathlib import Path
from typing import Annotated, Any, Union, get_args, get_origin

from pydantic import BaseModel, ValidationError

from ofc.pipeline.errors import RulesError
from ofc.pipeline.nested import merged
from ofc.pipeline.paths import RULES
from ofc.pipeline.rules.thresholds import HandPatternError, threshold
from ofc.pipeline.suggest import closest_names, did_you_mean
from ofc.schemas.rules import Row, RuleSet

__all__ = [
    "RuleSetError",
    "load_rules",
    "parse_rules",
    "preset_names",
    "presets_dir",
    "read_document",
    "resolve_path",
]


class RuleSetError(RulesError):
    """A rule file that cannot be used, with every problem named by its TOML path."""

    def __init__(self, source: str, problems: list[tuple[str, str]]) -> None:
        self.source = source
        self.problems = problems
        lines = "\n".join(f"  {path or '(top level)'}: {msg}" for path, msg in problems)
        super().__init__(f"{source}: invalid rule set\n{lines}")


def presets_dir() -> Path:
    return RULES


def preset_names() -> list[str]:
    return sorted(p.stem for p in presets_dir().glob("*.toml"))


def resolve_path(name_or_path: str | Path) -> Path:
    """A path to an existing file, or the preset of that name (a folder of the preset's name in the current
    directory does not hide the preset)."""
    p = Path(name_or_path)
    if p.suffix == ".toml" or p.is_file():
        if not p.is_file():
            raise RuleSetError(str(p), [("", "no such file")])
        return p
    preset = presets_dir() / f"{name_or_path}.toml"
    if not preset.is_file():
        names = preset_names()
        hint = did_you_mean(closest_names(str(name_or_path), names))
        raise RuleSetError(str(name_or_path), [("", f"no such preset or file{hint} (presets: {', '.join(names)})")])
    return preset


def read_document(path: Path, _seen: tuple[Path, ...] = ()) -> dict[str, Any]:
    """The TOML document of a rule file with its ``extends`` chain merged in."""
    path = path.resolve()
    if path in _seen:
        raise RuleSetError(str(path), [("extends", "cycle: " + " -> ".join(p.name for p in (*_seen, path)))])
    try:
        doc = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise RuleSetError(str(path), [("", f"not valid TOML: {exc}")]) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise RuleSetError(str(path), [("", f"cannot read: {exc}")]) from None
    parent = doc.pop("extends", None)
    if parent is None:
        return doc
    if not isinstance(parent, str):
        raise RuleSetError(str(path), [("extends", "must be a preset name or a path")])
    relative = path.parent / parent
    try:
        base_path = relative if relative.suffix == ".toml" and relative.is_file() else resolve_path(parent)
    except RuleSetError as exc:
        raise RuleSetError(str(path), [("extends", f"{parent!r}: {m}") for _, m in exc.problems]) from None
    base = read_document(base_path, (*_seen, path))
    base.pop("description", None)
    base.pop("name", None)  # a file is named by itself, or after its file
    return merged(base, doc)


def parse_rules(doc: dict[str, Any], source: str) -> RuleSet:
    """Validate a TOML document; errors name the TOML path of each bad field."""
    try:
        rules = RuleSet.model_validate(doc)
    except ValidationError as exc:
        problems = [(".".join(str(p) for p in e["loc"] if p != "[key]"), _message(e)) for e in exc.errors()]
        raise RuleSetError(source, problems) from None
    _check_thresholds(rules, source)
    return rules


_TOP_LEVEL_KEYS = ("extends",)
"""Keys a rule file may have at its top level beyond the rule set's own: read before the file is validated."""


def _message(e: Any) -> str:
    """Pydantic's error in the words of a rule file; a misspelt key or value names the closest one."""
    if e["type"] == "extra_forbidden":
        keys = _keys_at(e["loc"][:-1])
        hint = did_you_mean(closest_names(str(e["loc"][-1]), keys))
        return f"unknown key{hint}" if hint or not keys else f"unknown key (keys here: {', '.join(keys)})"
    if e["type"] == "missing":
        return "required"
    msg = str(e["msg"]).removeprefix("Value error, ")
    if e["type"] == "value_error" or "input" not in e:
        return msg
    hint = ""
    if e["type"] in ("enum", "literal_error") and isinstance(e["input"], str):
        allowed = re.findall(r"'([^']*)'", str(e.get("ctx", {}).get("expected", "")))
        hint = did_you_mean(closest_names(e["input"], allowed))
    return f"{msg} (got {e['input']!r}){hint}"


def _keys_at(loc: tuple[str | int, ...]) -> list[str]:
    """The keys a rule file may write at the TOML path ``loc`` (the fields of the table there), or none when the
    path leads to no table of the rule set."""
    kind: Any = RuleSet
    for part in loc:
        kind = _step(kind, part)
        if kind is None:
            return []
    models = [c for c in _alternatives(kind) if isinstance(c, type) and issubclass(c, BaseModel)]
    if not models:
        return []
    return [*models[0].model_fields, *(_TOP_LEVEL_KEYS if models[0] is RuleSet else ())]


def _alternatives(kind: Any) -> list[Any]:
    """The types a field's annotation allows: its own, or each of a union's (constraints set aside)."""
    origin = get_origin(kind)
    if origin is Annotated:
        return _alternatives(get_args(kind)[0])
    if origin in (Union, types.UnionType):
        return [alt for arg in get_args(kind) for alt in _alternatives(arg)]
    return [kind]


def _step(kind: Any, part: str | int) -> Any:
    """The type one step down a TOML path: a table's field, a list's item or a dictionary's value."""
    for alt in _alternatives(kind):
        origin = get_origin(alt)
        if isinstance(part, int) and origin is list:
            return get_args(alt)[0]
        if isinstance(part, str) and isinstance(alt, type) and issubclass(alt, BaseModel) and part in alt.model_fields:
            return alt.model_fields[part].annotation
        if isinstance(part, str) and origin is dict:
            return get_args(alt)[1]
    return None


def _check_thresholds(rules: RuleSet, source: str) -> None:
    """Every hand written in the file must parse; report them all with their TOML paths."""
    lowball = rules.game.lowball_middle
    checks: list[tuple[str, Row, str]] = []
    fl = rules.fantasyland
    if fl.enabled:
        checks += [(f"fantasyland.entry.{i}.at_least", t.row, t.at_least) for i, t in enumerate(fl.entry)]
        checks += [(f"fantasyland.stay.{i}.at_least", c.row, c.at_least) for i, c in enumerate(fl.stay)]
    lb = rules.royalties.lowball_middle
    if lowball:
        checks.append(("royalties.lowball_middle.qualifier", Row.MIDDLE, lb.qualifier))
        checks += [
            (f"royalties.lowball_middle.tiers.{i}.at_least", Row.MIDDLE, t.at_least) for i, t in enumerate(lb.tiers)
        ]
    problems = []
    for path, row, text in checks:
        try:
            threshold(text, row, lowball_middle=lowball)
        except HandPatternError as exc:
            problems.append((path, str(exc)))
    if problems:
        raise RuleSetError(source, problems)


def load_rules(name_or_path: str | Path) -> RuleSet:
    """A preset by name (``"ofc"``) or a rule file by path, validated."""
    path = resolve_path(name_or_path)
    doc = read_document(path)
    doc.setdefault("name", path.stem)
    return parse_rules(doc, str(path))
