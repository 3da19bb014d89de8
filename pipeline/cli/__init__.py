"""Command-line interface (``ofc``).

Importing this package is cheap: the commands load when :func:`main` runs or ``app`` is first read, so that a
Ctrl-C while they load is handled like one during a command.
"""

from __future__ import annotations

import atexit
import gc
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
    # What the imports make lives as long as the process: the collector need not look through it, while they run,
    # after, or at exit (a rescore with nothing to do took 0.44 to 0.46 s instead of 0.52 to 0.54).
    gc.disable()
    atexit.register(gc.freeze)
    try:
        from ofc.pipeline.cli.commands import main as run
        from ofc.pipeline.cli.console import guarded
    except (KeyboardInterrupt, Exception):
        # Raised in the middle of an import, a KeyboardInterrupt may come out as another error (numba's cached
        # functions load through callbacks that turn it into a SystemError).
        if not came:
            raise
    finally:
        gc.freeze()
        gc.enable()
    try:
        if came:  # raised or not: in a callback run as an object is freed, it is printed as ignored and lost
            raise KeyboardInterrupt
        guarded(run)  # which handles Ctrl-C from its first line on
    except KeyboardInterrupt:
        sys.stderr.write(interrupt_line(nothing_done(sys.argv)) + "\n")
        raise SystemExit(EXIT_INTERRUPTED) from None


__getattr__ = lazy_names(__name__, {"app": "commands"})
