"""The closest matches to a word that matched nothing: every "did you mean" of the command line and the library."""

from __future__ import annotations

import difflib
from collections.abc import Iterable

__all__ = ["closest", "did_you_mean"]


def closest(
    word: str,
    choices: Iterable[str],
    n: int = 3,
    cutoff: float = 0.6,
    *,
    any_case: bool = False,
    containing: bool = False,
) -> list[str]:
    """Up to ``n`` choices nearest ``word``: close spellings first (``cutoff`` as in :mod:`difflib`), then, with
    ``containing``, choices that hold the word. ``any_case`` compares without regard to case."""
    fold = str.lower if any_case else str
    folded = {fold(c): c for c in choices}
    wanted = fold(word)
    near = difflib.get_close_matches(wanted, list(folded), n=n, cutoff=cutoff)
    inside = [c for c in folded if wanted in c and c not in near] if containing else []
    return [folded[c] for c in [*near, *inside][:n]]


def did_you_mean(matches: list[str]) -> str:
    """``; did you mean 'x' or 'y'?`` for the matches, or nothing."""
    return f"; did you mean {' or '.join(repr(m) for m in matches)}?" if matches else ""
