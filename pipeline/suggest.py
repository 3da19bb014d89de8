"""The closest matches to a word that matched nothing: every "did you mean" of the command line and the library."""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Sequence

__all__ = ["closest", "closest_names", "did_you_mean", "no_such"]


def closest(
    word: str,
    choices: Iterable[str],
    n: int = 3,
    cutoff: float = 0.6,
    *,
    any_case: bool = False,
    containing: bool = False,
    spread: float | None = None,
) -> list[str]:
    """Up to ``n`` choices nearest ``word``: close spellings first (``cutoff`` as in :mod:`difflib`), then, with
    ``containing``, choices that hold the word. ``any_case`` compares without regard to case. ``spread`` keeps
    only the spellings less than that much less alike than the closest, so that one clear match is offered
    alone (``pinapple``: ``pineapple``, not also ``pineapple-27``)."""
    fold = str.lower if any_case else str
    folded = {fold(c): c for c in choices}
    wanted = fold(word)
    near = difflib.get_close_matches(wanted, list(folded), n=n, cutoff=cutoff)
    if spread is not None and near:
        likeness = [difflib.SequenceMatcher(None, wanted, c).ratio() for c in near]
        near = [c for c, r in zip(near, likeness, strict=True) if r > max(likeness) - spread]
    inside = [c for c in folded if wanted in c and c not in near] if containing else []
    return [folded[c] for c in [*near, *inside][:n]]


def did_you_mean(matches: list[str]) -> str:
    """``; did you mean 'x' or 'y'?`` for the matches, or nothing."""
    return f"; did you mean {' or '.join(repr(m) for m in matches)}?" if matches else ""


_NAME_SPREAD = 0.1
"""How much less alike than the closest name a second may be and still be offered: a typo in a name is one or two
letters, so the name it was meant to be stands out."""


def closest_names(word: str, choices: Iterable[str]) -> list[str]:
    """The names a misspelt name was likely meant to be (case aside): the closest, and any nearly as close."""
    return closest(word, choices, any_case=True, spread=_NAME_SPREAD)


def no_such(what: str, word: str, choices: Sequence[str], plural: str | None = None, shown: int | None = None) -> str:
    """``no variant 'pinapple'; did you mean 'pineapple'? (variants: classic, ofc, ...)``: a name that is none of
    ``choices``, said with the closest and then every one, so that both a typo and a wrong guess are answered.
    ``shown``: list no more than the first that many (the closest are found among all of them)."""
    hint = did_you_mean(closest_names(word, choices))
    listed = ", ".join(choices[:shown])
    if shown is not None and len(choices) > shown:
        return f"no {what} {word!r}{hint} ({len(choices):,} {plural or what + 's'}, the first: {listed})"
    return f"no {what} {word!r}{hint} ({plural or what + 's'}: {listed})"
