"""Terminal output and error handling shared by every command (exit codes: :mod:`pipeline.cli.exits`)."""

from __future__ import annotations

import functools
import json
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import date
from types import FrameType
from typing import TYPE_CHECKING, Any, NoReturn

import typer
from rich.console import Console
from rich.markup import escape

from ofc.pipeline.cli.exits import EXIT_FAILED, EXIT_INTERRUPTED, EXIT_USAGE, exit_code, interrupt_line, nothing_done
from ofc.pipeline.errors import OfcError

if TYPE_CHECKING:
    from rich.progress import Progress

# Piped output is read by people in logs and files: do not squeeze it to 80 columns. No emoji codes: a fault at
# line 100 of a file is ``hands.jsonl:100:``, which rich would draw as an emoji.
out = Console(highlight=False, emoji=False, soft_wrap=True, width=None if sys.stdout.isatty() else 160)
err = Console(stderr=True, highlight=False, emoji=False, soft_wrap=True, width=None if sys.stderr.isatty() else 160)


def fail(message: str, code: int = EXIT_FAILED) -> NoReturn:
    """Print ``error: message`` on stderr and leave with ``code``; after Ctrl-C an error is how a library ended
    its work (see :func:`is_interrupt`), and the interrupt is what is reported."""
    if _sigints:
        raise KeyboardInterrupt
    err.print(f"[bold red]error:[/] {escape(message)}", markup=True)  # a message's own [brackets] are text
    raise typer.Exit(code)


@contextmanager
def user_errors() -> Iterator[None]:
    """Turn the errors a user can cause into one readable line and exit code 2."""
    from ofc.pipeline.cards import CardParseError
    from ofc.pipeline.evaluate import InvalidRowError

    try:
        yield
    except (CardParseError, InvalidRowError, FileNotFoundError) as exc:
        fail(str(exc), EXIT_USAGE)


_told: list[str] = []
"""The interrupt line once said (a process says it once, however many layers see the interrupt)."""


def _tell(what: str | None) -> None:
    heard()
    if not _told:
        _told.append(what)
        err.print(interrupt_line(what), markup=False)


def interrupted(what: str | None = None) -> NoReturn:
    """End a command Ctrl-C interrupted: one line on stderr saying what was committed (``what``, or the batches
    this process committed), and exit 130."""
    _tell(what or what_was_committed())
    raise typer.Exit(EXIT_INTERRUPTED)


def what_was_committed() -> str | None:
    """The batches this process committed before the interrupt, and that nothing of the one in progress was;
    None for a command that writes no lake (it says nothing of batches)."""
    store = sys.modules.get("ofc.pipeline.lake.store")  # not loaded: no lake was written
    done = store.committed_batches() if store is not None else ()
    if not done:
        return nothing_done(sys.argv)
    if len(done) == 1:
        return f"batch {done[0]} was committed before it; nothing of the batch in progress was committed"
    return f"{len(done)} batches were committed before it ({', '.join(done)}); nothing of the batch in progress was"


_sigints: list[float] = []
"""When Ctrl-C came (monotonic seconds), once :func:`guarded` handles it."""


_FRAGILE = (
    ("/threading.py", "start"),
    ("/concurrent/futures/thread.py", "_adjust_thread_count"),
    ("/numba/core/serialize.py", "_numba_unpickle"),
    ("<frozen importlib._bootstrap>", "cb"),
)
"""Code (file, function) where a KeyboardInterrupt does harm: a pool starting a worker thread (raised there, the
thread runs on unknown to its pool, whose shutdown then does not wait for it: a batch writer aborted under its
feet), the Python code numba's compiled functions call back (raised there, it comes out as a SystemError), and
the callbacks Python runs as objects are freed, such as the import system's lock cleanup and ``__del__`` (raised
there, it is printed as "Exception ignored" and lost: the command would run on)."""


def _fragile(frame: FrameType | None) -> bool:
    while frame is not None:
        code = frame.f_code
        where = code.co_filename.replace("\\", "/")
        if code.co_name == "__del__" or any(code.co_name == n and where.endswith(p) for p, n in _FRAGILE):
            return True
        frame = frame.f_back
    return False


REPEAT_GRACE = 5.0
"""Seconds after a Ctrl-C in which another is only noted: the first is already ending the command, and raised
again in its clean-up, a second would leave a batch half thrown away (or a file closed under a writer)."""


LOST_AFTER = 0.3
"""Seconds the main thread may run on as if no Ctrl-C had come before it is raised again. A KeyboardInterrupt
raised in Python code that a compiled module calls may be dropped there without a word (NumPy's random module
does, as it is imported): the command would run to its end."""

_heard = threading.Event()
"""Set once the interrupt reached the code that reports it (or the command is over): none is lost any more."""
_resent = threading.Event()
"""Set while a Ctrl-C raised again is on its way to the main thread."""
_put_off: list[bool] = []
"""Not empty while a Ctrl-C waits for fragile code to end (:func:`_interrupt_when_safe`)."""


def heard() -> None:
    """Say that the interrupt reached code that handles it on purpose: it is not raised again (see
    :data:`LOST_AFTER`). Called by whatever reports it; a command that ends quietly on Ctrl-C calls it too."""
    _heard.set()


def _on_sigint(signum: int, frame: FrameType | None) -> None:
    """Python's Ctrl-C, raised once out of :data:`_FRAGILE` code (within microseconds) if it lands there, and
    again if the main thread runs on as if it had not come (:func:`_watch_for_lost`)."""
    now = time.monotonic()
    if _resent.is_set():  # raised again: the first, not a second Ctrl-C
        _resent.clear()
    else:
        _sigints.append(now)
        if len(_sigints) > 1 and now - _sigints[0] < REPEAT_GRACE:
            return
        if len(_sigints) == 1:
            watch = threading.Thread(target=_watch_for_lost, name="ofc-interrupt", daemon=True)
            watch.start()
    if _fragile(frame):
        _put_off.append(True)
        sys.setprofile(_interrupt_when_safe)
        return
    signal.default_int_handler(signum, frame)


def _interrupt_when_safe(frame: FrameType, event: str, arg: Any) -> None:
    """A profile hook for the moments after a Ctrl-C put off: the interrupt as the first Python function out of
    fragile code is called or returns, where Python itself may raise it (not as a C function is called)."""
    if event in ("call", "return") and not _fragile(frame):
        sys.setprofile(None)
        _put_off.clear()
        raise KeyboardInterrupt


def _watch_for_lost() -> None:
    """Raise the Ctrl-C again in the main thread if, :data:`LOST_AFTER` seconds on, nothing handles it: no
    exception is being handled there (as one is in every ``finally`` and ``except`` it passes on its way up) and
    nothing said it was :func:`heard`."""
    main = threading.main_thread().ident
    step = LOST_AFTER / 3
    quiet = 0.0
    while not _heard.wait(step):
        handling = sys._current_exceptions().get(main)  # Python 3.11: (type, value, traceback); later: the value
        if isinstance(handling, tuple):
            handling = handling[1]
        if handling is not None or _put_off or _resent.is_set():
            quiet = 0.0
            continue
        quiet += step
        if quiet >= LOST_AFTER and main is not None:
            quiet = 0.0
            _resent.set()
            signal.pthread_kill(main, signal.SIGINT)  # a signal, which also wakes a wait the main thread is in


def is_interrupt(exc: BaseException) -> bool:
    """Whether ``exc`` ends a command because of Ctrl-C: a KeyboardInterrupt, or any error once Ctrl-C came.

    Libraries turn the KeyboardInterrupt raised in the Python code they call into errors of their own: DuckDB
    ends its query with a RuntimeError, numba's compiled functions with a SystemError (when it lands in the
    code they call back to hand back the arrays they made).
    """
    if isinstance(exc, KeyboardInterrupt):
        return True
    return bool(_sigints) and isinstance(exc, Exception) and not isinstance(exc, typer.Exit | typer.Abort)


@contextmanager
def interrupts(what: str | None = None) -> Iterator[None]:
    """Ctrl-C inside ends the command with :func:`interrupted`, saying ``what`` or, by default, the batches this
    process committed (an aborted batch leaves nothing).

    Every command is inside one (:func:`interruptible`); a command whose work is not a batch (a report, a file
    written) says so with its own, put outside its progress display (gone when the line is said).
    """
    try:
        yield
    except (KeyboardInterrupt, Exception) as exc:
        if not is_interrupt(exc):
            raise
        interrupted(what)


def interruptible(app: typer.Typer) -> None:
    """Put every command of ``app`` and of its groups inside :func:`interrupts`: Ctrl-C in any of them ends
    in the one line and exit 130, never a traceback; an error ofc raises on purpose ends in ``error: ...`` and
    its kind's exit code (:func:`~pipeline.cli.exits.exit_code`)."""
    for info in app.registered_commands:
        command = info.callback
        if command is not None and not getattr(command, "interruptible", False):
            info.callback = _in_interrupts(command)
    for group in app.registered_groups:
        if group.typer_instance is not None:
            interruptible(group.typer_instance)


def _in_interrupts(command: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(command)  # typer reads the command's parameters and help through the wrapper
    def run(*args: Any, **kwargs: Any) -> Any:
        with interrupts():
            try:
                return command(*args, **kwargs)
            except OfcError as exc:  # what ofc refuses on purpose: one line, the kind's exit code
                fail(str(exc), exit_code(exc))

    run.interruptible = True  # type: ignore[attr-defined]
    return run


def guarded(main: Callable[[], None]) -> None:
    """Run the command line so that Ctrl-C outside any command too (while typer starts one) ends in the one
    line and exit 130.

    Once the command is over its exit status stands: a Ctrl-C during the interpreter's shutdown that follows
    (a fraction of a second) is ignored; raised there, it would be printed with a traceback.
    """
    if signal.getsignal(signal.SIGINT) is not signal.SIG_IGN:  # not when Ctrl-C is ignored (nohup, &)
        signal.signal(signal.SIGINT, _on_sigint)
    try:
        main()
    except (KeyboardInterrupt, Exception) as exc:
        if not is_interrupt(exc):
            raise
        _tell(what_was_committed())
        raise SystemExit(EXIT_INTERRUPTED) from None
    except SystemExit as exc:
        if exc.code == EXIT_INTERRUPTED:  # typer's own exit on Ctrl-C while it reads the command line: silent
            _tell(what_was_committed())
        raise
    finally:
        if signal.getsignal(signal.SIGINT) is _on_sigint:
            signal.signal(signal.SIGINT, signal.SIG_IGN)
        heard()  # the command is over: nothing to raise again


def byte_progress() -> Progress:
    """The progress bar of commands that read files: bytes done, speed, hands so far (stderr, terminals only)."""
    from rich.progress import BarColumn, DownloadColumn, Progress, TextColumn, TimeElapsedColumn, TransferSpeedColumn

    return Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        DownloadColumn(),
        TransferSpeedColumn(),
        TextColumn("{task.fields[hands]:,} hands"),
        TimeElapsedColumn(),
        console=err,
        transient=True,
        disable=not err.is_terminal,
    )


def hand_progress() -> Progress:
    """The progress bar of commands that work through hands: hands done of all, time taken and left (stderr,
    terminals only)."""
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    return Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("hands"),
        TimeElapsedColumn(),
        TextColumn("left"),
        TimeRemainingColumn(),
        console=err,
        transient=True,
        disable=not err.is_terminal,
    )


def parse_day(text: str | None, option: str = "--since") -> date | None:
    """A day given as YYYY-MM-DD (None: none given); anything else is a usage error naming the option."""
    if text is None:
        return None
    try:
        return date.fromisoformat(text.strip())
    except ValueError:
        fail(f"{option} takes a day, YYYY-MM-DD, got {text!r}", EXIT_USAGE)


def print_json(data: Any) -> None:
    """Machine output: one JSON document on stdout, nothing else."""
    sys.stdout.write(json.dumps(data, ensure_ascii=False) + "\n")


def debugging() -> bool:
    return os.environ.get("OFC_DEBUG", "") not in ("", "0")
