"""Help in plain words: each option shows the word its value stands for (``--lake DIR``, ``--limit N``) and a flag
shows nothing, where typer would show Python types (``<bool>``, ``<list[Path]>``, ``<int range> [x>=1]``).

Every command and group of the app is given a command class whose parameters render that way
(:func:`plain_help`); what a value must be is said in the option's help.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable
from typing import Any

import typer
from typer.core import TyperArgument, TyperCommand, TyperGroup, TyperOption


def _as_given(param: Any, ctx: Any, value: Any, check: Callable[[Any, Any], Any]) -> Any:
    """A parameter's value: one not given and without a default is None, or () if it takes many values, as typer
    makes it, but without the validator of its type that typer builds first even for a None (``check``): building
    one loads pydantic (0.08 s), which every ``ofc CMD --help`` and usage error would wait for (a group's help
    option not given)."""
    if value is not None or param.required:
        return check(ctx, value)
    value = () if param.multiple or param.nargs == -1 else None
    return value if param.callback is None else param.callback(ctx, param, value)


class _PlainOption(TyperOption):
    def process_value(self, ctx: Any, value: Any) -> Any:
        return _as_given(self, ctx, value, super().process_value)

    def display_type_rich(self, ctx: Any) -> str | None:
        if self.is_flag or self.count:
            return None
        return self.metavar or (self.name or "value").upper()

    def _get_number_range_help_str(self) -> str | None:
        return None


class _PlainArgument(TyperArgument):
    def process_value(self, ctx: Any, value: Any) -> Any:
        return _as_given(self, ctx, value, super().process_value)

    def display_type_rich(self, ctx: Any) -> str | None:
        return None  # the name column shows the argument's word already

    def _rich_display_name(self) -> str:
        return self._word() + ("..." if self.nargs != 1 else "")

    def _usage_display_name(self) -> str:
        word = self._word() + ("..." if self.nargs != 1 else "")
        return word if self.required else f"[{word}]"

    def _word(self) -> str:
        return (self.metavar or (self.name or "value").upper()).removesuffix("...")

    def _get_number_range_help_str(self) -> str | None:
        return None


_PLAIN: dict[type, type] = {TyperOption: _PlainOption, TyperArgument: _PlainArgument}


def _plain(params: list[Any]) -> list[Any]:
    for p in params:
        plain = _PLAIN.get(type(p))
        if plain is not None:
            p.__class__ = plain  # the same parameter, rendered in words
    return params


_KEPT = re.compile(r"^(\s|[-*$]|ofc )")
"""Lines that keep their own line: indented ones, list items, commands."""


def reflow(text: str | None) -> str | None:
    """A docstring's paragraphs as single lines, where rich help would break each line where the source does;
    indented lines, list items and commands keep their breaks."""
    if not text:
        return text
    out: list[str] = []
    for line in inspect.cleandoc(text).splitlines():
        if out and out[-1] and line.strip() and not _KEPT.match(line) and not _KEPT.match(out[-1]):
            out[-1] += " " + line.strip()
        else:
            out.append(line.rstrip())
    return "\n".join(out)


class _Plain:
    """Help in plain words, for a command and a group alike: paragraphs reflowed, parameters in words."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs["help"] = reflow(kwargs.get("help"))
        super().__init__(*args, **kwargs)

    def get_params(self, ctx: Any) -> list[Any]:
        return _plain(super().get_params(ctx))  # type: ignore[misc]


class PlainCommand(_Plain, TyperCommand):
    pass


class PlainGroup(_Plain, TyperGroup):
    pass


def plain_help(app: typer.Typer) -> None:
    """Give every command and group of ``app`` (and of its groups) the plain-words help."""
    if not isinstance(app.info.cls, type):  # unset (typer's placeholder)
        app.info.cls = PlainGroup
    for info in app.registered_commands:
        if info.cls in (None, TyperCommand):
            info.cls = PlainCommand
    for group in app.registered_groups:
        if group.typer_instance is not None:
            plain_help(group.typer_instance)
