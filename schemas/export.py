"""Write the JSON Schema files of every model here: ``python -m ofc.schemas.export``.

The files are committed so editors and other tools can validate rule files and
hand records without this package; a test fails when they drift from the models.
"""

from __future__ import annotations

import json
import sys
from enum import Enum
from pathlib import Path
from types import UnionType
from typing import Annotated, Any, Literal, Union, get_args, get_origin

from pydantic import BaseModel
from pydantic.fields import FieldInfo

from ofc.schemas.hand import HandRecord
from ofc.schemas.rules import RuleSet

HERE = Path(__file__).resolve().parent


def _dump(schema: dict[str, Any]) -> str:
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    return json.dumps(schema, indent=2, ensure_ascii=False, sort_keys=True) + "\n"


def rule_file_schema() -> dict[str, Any]:
    """A rule file is a RuleSet that may start with ``extends`` and may leave out its name (the file's stem)."""
    schema = RuleSet.model_json_schema()
    schema["title"] = "ofc-analytics rule file"
    schema["properties"] = {
        "extends": {"type": "string", "description": "A preset name or a path relative to this file."},
        **schema["properties"],
    }
    schema.pop("required", None)
    return schema


def _type_name(ann: Any) -> str:
    """A type as a rule-file author reads it: ``"both" or "winner"``, ``list of EntryTier``."""
    origin, args = get_origin(ann), get_args(ann)
    if origin is Annotated:
        return _type_name(args[0])
    if origin in (Union, UnionType):
        return " or ".join(_type_name(a) for a in args)
    if origin is Literal:
        return " or ".join(json.dumps(a) for a in args)
    if origin is list:
        return f"list of {_type_name(args[0])}"
    if origin is dict:
        return f"table of {_type_name(args[0])} to {_type_name(args[1])}"
    if ann is type(None):
        return "none"
    if isinstance(ann, type) and issubclass(ann, Enum):
        return " or ".join(json.dumps(m.value) for m in ann)
    return ann.__name__ if isinstance(ann, type) else str(ann)


def _default(field: FieldInfo) -> str:
    if field.is_required():
        return "required"
    value = field.get_default(call_default_factory=True)
    if isinstance(value, BaseModel):
        return "(table)"
    if isinstance(value, list) and value and isinstance(value[0], BaseModel):
        value = [v.model_dump(mode="json") for v in value]
    elif isinstance(value, dict):
        value = {str(k): v for k, v in value.items()}
    return f"`{json.dumps(value, default=str)}`"


def rules_reference() -> str:
    """Every rule-file field with its type, default and meaning, from the models' own docstrings."""
    lines = [
        "# Rule-file reference",
        "",
        "Generated from `schemas/rules.py` by `python -m ofc.schemas.export`; do not edit by hand.",
        "See [rules.md](rules.md) for how rule files work and [scoring.md](scoring.md) for how they are applied.",
        "",
    ]

    def table(model: type[BaseModel], prefix: str) -> None:
        doc = (model.__doc__ or "").strip()
        lines.extend(
            [
                f"## `{prefix or '(top level)'}`",
                "",
                doc,
                "",
                "| key | type | default | meaning |",
                "| --- | --- | --- | --- |",
            ]
        )
        nested = []
        for name, field in model.model_fields.items():
            ann = field.annotation
            path = f"{prefix}.{name}" if prefix else name
            if isinstance(ann, type) and issubclass(ann, BaseModel):
                nested.append((ann, path))
                continue
            item = get_args(ann)[0] if get_origin(ann) is list else None
            if isinstance(item, type) and issubclass(item, BaseModel):
                nested.append((item, f"{path}[]"))
            meaning = (field.description or "").replace("\n", " ").replace("|", "\\|")
            lines.append(f"| `{name}` | {_type_name(ann)} | {_default(field)} | {meaning} |")
        lines.append("")
        for sub, path in nested:
            table(sub, path)

    table(RuleSet, "")
    return "\n".join(lines).rstrip() + "\n"


def hand_record_schema() -> dict[str, Any]:
    """One line of canonical JSONL: a hand record."""
    schema = HandRecord.model_json_schema()
    schema["title"] = "ofc-analytics hand record"
    return schema


def render_all() -> dict[Path, str]:
    """Path -> content of every generated file."""
    return {
        HERE / "hand.schema.json": _dump(hand_record_schema()),
        HERE / "rules.schema.json": _dump(rule_file_schema()),
        HERE.parent / "docs" / "rules-reference.md": rules_reference(),
    }


def main() -> int:
    for path, text in render_all().items():
        path.write_text(text, encoding="utf-8")
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
