"""A package's names loaded from its modules when first read: a package that offers heavy machinery beside light
definitions loads the machinery only for the commands that use it (``ofc analyse --help`` shows the defaults
without the simulator's 0.9 s; reading a rule file compiles nothing)."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["lazy_names"]


def lazy_names(package: str, homes: Mapping[str, str]) -> Callable[[str], Any]:
    """The module ``__getattr__`` of ``package``: each name of ``homes`` (name -> its module, relative to the
    package) imported on first use and kept in the package; any other name is an AttributeError."""

    def __getattr__(name: str) -> Any:  # noqa: N807 (a module's __getattr__)
        if name not in homes:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(f"{package}.{homes[name]}"), name)
        setattr(sys.modules[package], name, value)
        return value

    return __getattr__
