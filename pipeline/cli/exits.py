"""Exit codes, and the line an interrupt ends with: read by the entry point before anything else loads.

0 success; 1 the command ran but failed (or an internal error); 2 bad usage or input that cannot be used at
all; 130 interrupted (Ctrl-C), after one line saying what was committed.
"""

from pipeline.errors import InputError, LakeError, OfcError, RulesError

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_USAGE = 2
EXIT_INTERRUPTED = 130
"""128 + SIGINT: what a shell reports for a command Ctrl-C ended."""
NOTHING_COMMITTED = "nothing of this batch was committed; the lake is as it was"


def interrupt_line(what: str) -> str:
    """The one line an interrupted command ends with: ``what`` was committed."""
    return f"interrupted: {what}"


def exit_code(error: OfcError) -> int:
    """The exit code of a command that ``error`` ended: bad input, rules or lake are usage errors (2)."""
    return EXIT_USAGE if isinstance(error, InputError | RulesError | LakeError) else EXIT_FAILED


__all__ = [
    "EXIT_FAILED",
    "EXIT_INTERRUPTED",
    "EXIT_OK",
    "EXIT_USAGE",
    "NOTHING_COMMITTED",
    "exit_code",
    "interrupt_line",
]
