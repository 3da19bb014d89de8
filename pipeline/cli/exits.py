"""Exit codes, and the line an interrupt ends with: read by the entry point before anything else loads.

0 success; 1 the command ran but failed (or an internal error); 2 bad usage or input that cannot be used at
all; 130 interrupted (Ctrl-C), after one line saying what was committed.
"""

from collections.abc import Sequence

from ofc.pipeline.errors import InputError, LakeError, OfcError, RulesError

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_USAGE = 2
EXIT_INTERRUPTED = 130
"""128 + SIGINT: what a shell reports for a command Ctrl-C ended."""
NOTHING_COMMITTED = "nothing of this batch was committed; the lake is as it was"
LAKE_WRITERS = frozenset({"ingest", "simulate", "rescore", "analyse", "demo", "lake remove", "lake vacuum"})
"""The commands that write a lake: only their interrupt speaks of batches."""


def writes_lake(argv: Sequence[str]) -> bool:
    """Whether the command line ``argv`` (``sys.argv``) runs a command that writes a lake: its help does not."""
    args = list(argv[1:])
    if "--help" in args or "-h" in args:
        return False
    words = []
    for arg in args:
        if arg.startswith("-"):
            break
        words.append(arg)
    return bool(words) and (words[0] in LAKE_WRITERS or " ".join(words[:2]) in LAKE_WRITERS)


def nothing_done(argv: Sequence[str]) -> str | None:
    """What an interrupt before any commit says: that the lake is as it was, for a command that writes one."""
    return NOTHING_COMMITTED if writes_lake(argv) else None


def interrupt_line(what: str | None) -> str:
    """The one line an interrupted command ends with: ``what`` was committed (None: a command that writes
    nothing says only that it was interrupted)."""
    return "interrupted" if what is None else f"interrupted: {what}"


def exit_code(error: OfcError) -> int:
    """The exit code of a command that ``error`` ended: bad input, rules or lake are usage errors (2)."""
    return EXIT_USAGE if isinstance(error, InputError | RulesError | LakeError) else EXIT_FAILED


__all__ = [
    "EXIT_FAILED",
    "EXIT_INTERRUPTED",
    "EXIT_OK",
    "EXIT_USAGE",
    "LAKE_WRITERS",
    "NOTHING_COMMITTED",
    "exit_code",
    "interrupt_line",
    "nothing_done",
    "writes_lake",
]
