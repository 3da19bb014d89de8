"""A simulation run: arguments checked, sessions planned and played, hands written to the lake or to JSONL.

Everything random comes from one ``numpy`` generator seeded by ``--seed``, used
in a fixed order (blocks of sessions, hands, streets, seats), and the compiled
kernels draw from streams seeded by it; so the same arguments give the same
hands, byte for byte. Identifiers are derived from the arguments too: the run
id hashes them, sessions are ``<run id>-<session>``, hands
``<session>-<hand number>``, and every session starts at ``--start``, one
hand a minute. Hands reach the lake through the ingest checks, as one batch.

Progress is reported from inside the dealer's steps and a run stops at the
next of them when asked to (:mod:`pipeline.simulate.pace`): an interrupt
leaves no batch in the lake, and no part of a JSONL file.
"""

from __future__ import annotations

import hashlib
import json
import math
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np

from ofc.pipeline.atomic_files import written
from ofc.pipeline.errors import InputError
from ofc.pipeline.ingest.base import Chunk
from ofc.pipeline.ingest.ingest_run import IngestReport, ingest_chunks
from ofc.pipeline.lake.store import Lake
from ofc.pipeline.read_ahead import ahead
from ofc.pipeline.rules.compile import compile_rules
from ofc.pipeline.rules.files import load_rules
from ofc.pipeline.rules.native import VARIANT_PRESETS
from ofc.pipeline.simulate.bots import BOTS, MC_POLICY
from ofc.pipeline.simulate.dealer import Dealer
from ofc.pipeline.simulate.model import model_of
from ofc.pipeline.simulate.pace import Pace
from ofc.pipeline.simulate.played_hands import HandBatch
from ofc.pipeline.simulate.records import SOURCE, RecordMeta, to_chunk, to_records, write_jsonl
from ofc.pipeline.simulate.streets import streets_of
from ofc.pipeline.simulate.summary import SimulationSummary
from ofc.pipeline.simulate.views import DEFAULT_ROLLOUTS, Context
from ofc.schemas.rules import Dealing, RuleSet, Variant

DEFAULT_SESSION = 100
"""Hands per session: the span over which the button rotates and Fantasyland carries."""
DEFAULT_START = datetime(2026, 1, 1, tzinfo=UTC)
HAND_SECONDS = 60
BLOCK_SESSIONS = 4096
"""Sessions played side by side."""
CHUNK_HANDS = 32_768
"""Hands per chunk handed to the writer (bounds memory)."""
PRESETS = VARIANT_PRESETS
"""The rule set a variant is simulated under when none is given: its preset."""


class SimulationError(InputError):
    """Arguments that cannot be simulated."""


@dataclass(frozen=True)
class Spec:
    """Everything a run depends on."""

    rules: RuleSet
    players: int
    hands: int
    bots: tuple[str, ...]
    """One strategy per seat."""
    seed: int = 0
    rollouts: int = DEFAULT_ROLLOUTS
    session_hands: int = DEFAULT_SESSION
    start: datetime = DEFAULT_START
    shards: int = 1
    """Parts of the run played apart (on a cluster's workers, or one after another here), each from a seed
    derived from the run's: the same seed and shards give the same hands wherever they are played."""

    @property
    def variant(self) -> Variant:
        return self.rules.game.variant

    @property
    def run_id(self) -> str:
        """A short hash of every argument (hands included: a longer run is a different run)."""
        body = {
            "rules": self.rules.key,
            "variant": self.variant.value,
            "players": self.players,
            "hands": self.hands,
            "bots": list(self.bots),
            "seed": self.seed,
            "rollouts": self.rollouts,
            "session_hands": self.session_hands,
            "start": self.start.isoformat(),
            **({"shards": self.shards} if self.shards > 1 else {}),  # one shard: the ids runs always had
        }
        return "sim-" + hashlib.sha256(json.dumps(body, sort_keys=True).encode()).hexdigest()[:10]

    @property
    def names(self) -> tuple[str, ...]:
        """Player names: the bot and its seat, ``mc-0``, ``heuristic-1``, ``planner-2``."""
        return tuple(f"{bot}-{seat}" for seat, bot in enumerate(self.bots))


def plan(
    variant: str,
    players: int,
    hands: int,
    bots: str | list[str],
    rules: RuleSet,
    seed: int = 0,
    rollouts: int = DEFAULT_ROLLOUTS,
    session_hands: int = DEFAULT_SESSION,
    start: datetime = DEFAULT_START,
    shards: int = 1,
) -> Spec:
    """Check the arguments against each other and the rule set; raise SimulationError naming what is wrong."""
    known = [v.value for v in Variant]
    if variant not in known:
        raise SimulationError(f"unknown variant {variant!r} (known: {', '.join(known)})")
    if rules.game.variant.value != variant:
        raise SimulationError(
            f"rules {rules.name!r} are for {rules.game.variant.value}, not {variant} "
            f"(use --rules for a {variant} rule set)"
        )
    game = rules.game
    if game.criss_cross:
        raise SimulationError("criss-cross tables are not simulated")
    if game.dealing is Dealing.PINEAPPLE and players > 3:
        raise SimulationError(f"Pineapple deals 17 cards a player: at most 3 players, got {players}")
    if not max(2, game.min_players) <= players <= game.max_players:
        raise SimulationError(
            f"{players} players: rules {rules.name!r} allow {max(2, game.min_players)} to {game.max_players}"
        )
    names = [b.strip() for b in (bots.split(",") if isinstance(bots, str) else bots)]
    unknown = [b for b in names if b not in BOTS]
    if unknown:
        raise SimulationError(f"unknown bot {', '.join(map(repr, unknown))} (known: {', '.join(BOTS)})")
    if hands < 1:
        raise SimulationError(f"--hands must be at least 1, got {hands}")
    if rollouts < 0:
        raise SimulationError(f"--rollouts must be 0 or more, got {rollouts}")
    if session_hands < 1:
        raise SimulationError(f"--session-hands must be at least 1, got {session_hands}")
    if shards < 1:
        raise SimulationError(f"--shards must be at least 1, got {shards}")
    if start.tzinfo is None:
        start = start.replace(tzinfo=UTC)
    seat_bots = tuple(names[i % len(names)] for i in range(players))
    return Spec(rules, players, hands, seat_bots, seed, rollouts, session_hands, start, shards)


def context(spec: Spec) -> Context:
    rules = spec.rules
    return Context(
        rules=rules,
        compiled=compile_rules(rules),
        model=model_of(rules),
        streets=streets_of(rules.game.dealing),
        players=spec.players,
        rollouts=spec.rollouts,
        policy=model_of(rules, MC_POLICY),
    )


def play(spec: Spec, pace: Pace | None = None, shard: Shard | None = None) -> Iterator[HandBatch]:
    """Every hand of the run, in chunks: blocks of sessions side by side, session by session within a chunk.

    ``pace`` hears of every step and may stop the run at any of them (the hands do not depend on it). The
    dealer and its bots are set up now, on the calling thread, where an interrupt is seen at once (a bot's
    tables can take seconds to build); the hands are played as they are asked for, on any thread.
    """
    pace = pace or Pace()
    dealer = Dealer(context(spec), list(spec.bots))
    dealer.prepare(pace)
    if spec.shards > 1 and shard is None:
        return _sharded(spec, dealer, pace)
    return _play(spec, dealer, pace, shard)


def _sharded(spec: Spec, dealer: Dealer, pace: Pace) -> Iterator[HandBatch]:
    """Every shard in turn, here: the hands a cluster's workers would play."""
    for shard in shards_of(spec):
        yield from _play(spec, dealer, pace, shard)


def session_lengths(spec: Spec) -> np.ndarray:
    """Hands in each session of the run."""
    n_sessions = math.ceil(spec.hands / spec.session_hands)
    lengths = np.full(n_sessions, spec.session_hands, dtype=np.int64)
    lengths[-1] = spec.hands - (n_sessions - 1) * spec.session_hands
    return lengths


@dataclass(frozen=True)
class Shard:
    """A part of a run: its sessions (numbered as in the whole run), its seed, and where its hands start."""

    index: int
    sessions: np.ndarray
    seed: int
    first_hand: int
    """Hands of the shards before it: the first of its hands is this plus one."""


def shards_of(spec: Spec) -> list[Shard]:
    """The run's shards: the sessions split in ``spec.shards`` runs of consecutive sessions, each seeded from
    the run's seed (``numpy.random.SeedSequence.spawn``), none empty."""
    lengths = session_lengths(spec)
    n = len(lengths)
    seeds = np.random.SeedSequence(spec.seed).spawn(spec.shards)
    out = []
    for k in range(spec.shards):
        lo, hi = n * k // spec.shards, n * (k + 1) // spec.shards
        if hi > lo:
            seed = int(seeds[k].generate_state(1, np.uint64)[0])
            out.append(Shard(k, np.arange(lo, hi, dtype=np.int64), seed, int(lengths[:lo].sum())))
    return out


def _play(spec: Spec, dealer: Dealer, pace: Pace, shard: Shard | None = None) -> Iterator[HandBatch]:
    lengths = session_lengths(spec)
    sessions = np.arange(len(lengths), dtype=np.int64) if shard is None else shard.sessions
    rng = np.random.default_rng(spec.seed if shard is None else shard.seed)
    for lo in range(0, sessions.size, BLOCK_SESSIONS):
        session = sessions[lo : lo + BLOCK_SESSIONS]
        yield from dealer.sessions(session, lengths[session], rng, CHUNK_HANDS, pace)


def meta(spec: Spec) -> RecordMeta:
    return RecordMeta(
        run_id=spec.run_id,
        variant=spec.variant.value,
        house_rules=spec.rules.key,
        names=spec.names,
        start=spec.start,
        hand_seconds=HAND_SECONDS,
    )


@dataclass
class Outcome:
    """What a run produced."""

    spec: Spec
    summary: SimulationSummary
    report: IngestReport | None = None
    """The ingest report when hands went to the lake."""
    written: dict[str, Any] = field(default_factory=dict)


def _tallied(
    batches: Iterator[HandBatch], summary: SimulationSummary, on_progress: Callable[[int], None] | None
) -> Iterator[HandBatch]:
    for batch in batches:
        summary.add(batch)
        yield batch
        if on_progress:
            on_progress(summary.hands)


def to_lake(
    spec: Spec,
    lake: Lake,
    on_progress: Callable[[int], None] | None = None,
    on_stage: Callable[[str | None, float], None] | None = None,
) -> Outcome:
    """Simulate into ``lake`` as one batch through the ingest checks (``on_progress``: the hands done so far;
    ``on_stage``: the set-up before the first hand, see :class:`Pace`).

    An interrupt (or any error) stops the simulator's thread at its next step, within a fraction of a second,
    and the batch is aborted: nothing of it is committed.
    """
    summary = SimulationSummary(list(spec.bots))
    stop = threading.Event()
    batches = play(spec, Pace(on_progress, stop, on_stage))

    def chunks() -> Iterator[Chunk]:
        done, m = 0, meta(spec)
        for batch in _tallied(batches, summary, on_progress):
            yield to_chunk(batch, m, done + 1)
            done += batch.hands

    # The next chunk is played while this one is checked and written (one thread: the same hands).
    pool = ThreadPoolExecutor(1, thread_name_prefix="simulate")
    try:
        source = f"{SOURCE}/{spec.run_id}"
        hands = ahead(chunks(), pool, depth=1, stop=stop)
        report = ingest_chunks(hands, lake, source, kind="simulate", rule_sets=[spec.rules])
    finally:
        stop.set()
        pool.shutdown(cancel_futures=True)
    return Outcome(spec, summary, report, {"lake": str(lake.root), "batch": report.batch})


def to_jsonl(
    spec: Spec,
    path: Path,
    on_progress: Callable[[int], None] | None = None,
    on_stage: Callable[[str | None, float], None] | None = None,
) -> Outcome:
    """Simulate into canonical JSONL at ``path`` (replaced if it exists, only once every hand is written)."""
    summary = SimulationSummary(list(spec.bots))
    with written(path) as stream:
        m = meta(spec)
        for batch in _tallied(play(spec, Pace(on_progress, on_stage=on_stage)), summary, on_progress):
            write_jsonl(to_records(batch, m), stream)
    return Outcome(spec, summary, None, {"out": str(path), "hands": summary.hands})


def warm() -> None:
    """Compile every kernel the simulator uses (a few hands of each kind), so later runs load them from cache."""
    for variant, players, bots in (
        ("pineapple", 3, "mc,heuristic,planner"),
        ("ofc", 2, "random,heuristic"),
        ("classic", 2, "mc,heuristic,random"),
    ):
        spec = plan(variant, players, 4, bots, load_rules(PRESETS[Variant(variant)]), rollouts=2, session_hands=4)
        for _ in play(spec):
            pass
