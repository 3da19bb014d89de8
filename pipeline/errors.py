"""The errors ofc raises on purpose, in three kinds, so that the command line can say each in one line with an
exit code that means something (:mod:`pipeline.cli.exits`), and a library user can catch a kind at once.

Each module's own error (a bad card, a rule file that does not parse, a lake written by a newer version) is a
subclass of one kind. They subclass ``ValueError`` or ``RuntimeError`` too, as code that predates the kinds
may catch those.
"""

from __future__ import annotations

__all__ = ["InputError", "LakeError", "OfcError", "RulesError"]


class OfcError(Exception):
    """Something ofc was asked to do and cannot, said in its message; not a bug."""


class InputError(OfcError, ValueError):
    """Input that cannot be used: cards, boards, records, files, arguments, queries."""


class RulesError(OfcError, ValueError):
    """A rule set that cannot be used: a rule file that does not parse or validate, a name that cannot be stored."""


class LakeError(OfcError, RuntimeError):
    """A lake that cannot be used or changed: not a lake, written by a newer version, busy, unwritable."""
