"""Where a simulation run has got to, told from inside its steps, and where it stops when asked to.

The dealer plays a block of sessions round by round (one hand at every table), and one round of a slow bot
at thousands of tables takes minutes. So the steps of a round (each street and position, each group of
tables a bot weighs, each piece of hands an arranger sets) are checkpoints: at each the run stops if it
was asked to (an interrupt, a consumer that has gone) and reports the hands done so far, the round's share
included, at most every :data:`EVERY` seconds. The slow steps are cut into portions that last about
:data:`PORTION_SECONDS` each, measured as they run, so progress moves and a stop is honoured within a
fraction of a second whatever the bot, and the hands are the same whatever the portions.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TypeVar

T = TypeVar("T")
Tick = Callable[[float], None]
"""A checkpoint inside a step: called with the fraction of the step done (0 to 1)."""

EVERY = 0.25
"""Progress is reported at most this often (seconds): checkpoints come many times a second with a fast bot."""
PORTION_SECONDS = 0.15
"""What one portion of a slow step should last: well under a second, yet long enough that the kernels'
launches and the Python around them cost little beside it."""


def idle(done: float) -> None:
    """The checkpoint of a run that reports nothing and is never stopped."""


def span(tick: Tick, lo: float, hi: float) -> Tick:
    """The checkpoint of a part of a step, from ``lo`` to ``hi`` of it."""
    return lambda done: tick(lo + (hi - lo) * done)


class StoppedError(Exception):
    """The run was asked to stop; raised at the next checkpoint."""


@dataclass
class Pace:
    """A run's progress in hands, reported from checkpoints, and the event that stops it."""

    on_progress: Callable[[int], None] | None = None
    stop: threading.Event | None = None
    on_stage: Callable[[str | None, float], None] | None = None
    """Hears of the set-up a run does before its first hand (a bot's tables that take a second or more to
    build): what it is and the share done, then ``None`` once the hands begin."""
    every: float = EVERY
    hands: int = 0
    """Hands of the rounds finished so far."""
    _round: int = 0
    _shown: int = 0
    _last: float = field(default_factory=time.monotonic)

    def stage(self, what: str) -> Tick:
        """The checkpoint of a set-up step, ``what`` it does in a few words; :meth:`end_stage` when it is over."""
        shown = [-1.0]

        def at(done: float) -> None:
            if self.stop is not None and self.stop.is_set():
                raise StoppedError
            now = time.monotonic()
            if self.on_stage is not None and (shown[0] < 0 or now - self._last >= self.every):
                self._last, shown[0] = now, done
                self.on_stage(what, done)

        return at

    def end_stage(self) -> None:
        if self.on_stage is not None:
            self.on_stage(None, 1.0)

    def round(self, hands: int) -> Tick:
        """Start a round that finishes ``hands`` hands; its checkpoint."""
        self._round = hands
        return self.at

    def finish_round(self) -> None:
        """The round is over: its hands are done."""
        self.hands += self._round
        self._round = 0
        self.at(0.0)

    def at(self, done: float) -> None:
        """A checkpoint ``done`` (0 to 1) of the way through the current round."""
        if self.stop is not None and self.stop.is_set():
            raise StoppedError
        if self.on_progress is None:
            return
        now = time.monotonic()
        if now - self._last < self.every:
            return
        hands = max(self._shown, self.hands + int(min(max(done, 0.0), 1.0) * self._round))
        if hands > self._shown:
            self._last, self._shown = now, hands
            self.on_progress(hands)


@dataclass
class Portions:
    """How much of a slow step to take at a time so that each portion lasts about ``seconds``.

    Sized from the seconds each unit of estimated work took so far (an average in which the latest portion
    counts for half), so that it follows the machine and its load rather than a guess; the first portion
    starts from ``seconds_per_unit``.
    """

    seconds_per_unit: float
    seconds: float = PORTION_SECONDS
    most: int = 1 << 30

    def size(self, unit: float) -> int:
        """Items of ``unit`` estimated work each to take next (at least one, at most ``most``)."""
        return max(1, min(self.most, int(self.seconds / max(self.seconds_per_unit * unit, 1e-12))))

    def took(self, work: float, seconds: float) -> None:
        """A portion of ``work`` estimated units took ``seconds``."""
        if work > 0:
            self.seconds_per_unit = 0.5 * (self.seconds_per_unit + seconds / work)


def in_portions(n: int, unit: float, portions: Portions, tick: Tick, work: Callable[[slice], T]) -> list[T]:
    """``work`` over items ``0..n`` of ``unit`` estimated work each, a portion at a time, ``tick`` after each with
    the share done; what each portion returned, in order (one call, on no items, when ``n`` is 0)."""
    out = []
    lo = 0
    while True:
        hi = min(n, lo + portions.size(unit))
        t0 = time.perf_counter()
        out.append(work(slice(lo, hi)))
        portions.took((hi - lo) * unit, time.perf_counter() - t0)
        lo = hi
        tick(lo / n if n else 1.0)
        if lo >= n:
            return out
