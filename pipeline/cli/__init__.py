"""Command-line interface (``ofc``).

Importing this package is cheap: the commands load when :func:`main` runs or ``app`` is first read, so that a
Ctrl-C while they load is handled like one during a command.
"""

from __future__ import annotations

import signal
import sys
from types import FrameType
from typing import TYPE_CHECKING

from ofc.pipeline.cli.exits import EXIT_INTERRUPTED, interrupt_line, nothing_done
from ofc.pipeline.lazy_names import lazy_names

if TYPE_CHECKING:
    from ofc.pipeline.cli.commands import app

__all__ = ["app", "main"]


def main() -> None:
    """Console entry point (``ofc``, ``python -m ofc``): Ctrl-C ends any command in one line, exit 130."""
    came: list[int] = []

    def on_sigint(signum: int, frame: FrameType | None) -> None:
        came.append(signum)
        if len(came) == 1:  # a second would come out of the handling of the first
            signal.default_int_handler(signum, frame)

    if signal.getsignal(signal.SIGINT) is signal.default_int_handler:  # not when Ctrl-C is ignored (nohup, &)
        signal.signal(signal.SIGINT, on_sigint)
    try:
        from ofc.pipeline.cli.commands import main as run
        from ofc.pipeline.cli.console import guarded
    except (KeyboardInterrupt, Exception):
        # Raised in the middle of an import, a KeyboardInterrupt may come out as another error (numba's cached
        # functions load through callbacks that turn it into a SystemError).
        if not came:
            raise
    try:
        if came:  # raised or not: in a callback run as an object is freed, it is printed as ignored and lost
            raise KeyboardInterrupt
        guarded(run)  # which handles Ctrl-C from its first line on
    except KeyboardInterrupt:
        sys.stderr.write(interrupt_line(nothing_done(sys.argv)) + "\n")
        raise SystemExit(EXIT_INTERRUPTED) from None


__getattr__ = lazy_names(__name__, {"app": "commands"})
