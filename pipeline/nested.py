"""Nested mappings laid one over another: a rule file over the one it extends, a chart's settings over its
layout."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["merged"]


def merged(under: Mapping[str, Any], over: Mapping[str, Any]) -> dict[str, Any]:
    """``over`` laid on ``under``, mapping by mapping: a key ``over`` gives replaces the same key of ``under``, save
    where both are mappings, which are laid so in turn."""
    out = dict(under)
    for k, v in over.items():
        out[k] = merged(out[k], v) if isinstance(v, Mapping) and isinstance(out.get(k), Mapping) else v
    return out
