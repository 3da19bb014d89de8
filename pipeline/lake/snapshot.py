"""One committed state of a lake: its manifests read once, and everything a reader asks of them.

A command takes a snapshot when it starts and reads only through it, so every query it runs sees the same
batches, even while a writer commits new ones. Files are listed from the manifests, never globbed, so a
batch being written or left by a crash is never seen, nor files a later batch replaced.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
from pydantic import ValidationError

from ofc.schemas.rules import RuleSet

__all__ = ["RESCORE_RATE", "RESULT_FORMAT", "RESULT_KIND", "Cover", "Snapshot", "SourceBatch", "later"]

RESULT_KIND = "rescore"
"""The kind of a batch of results."""
RESULT_FORMAT = 6
"""The version of the result tables a rescore writes, recorded in its manifests (``format``). Version 2: the
self-contained ``board_results`` and ``pair_results``, with each hand's native rule set; version 3 adds their
summaries (``board_summary``, ``board_counts``, ``player_sessions``, ``pair_summary``); version 4 the boards
worth a second look (``notable_boards``); version 5 the squared gains against the hands as played
(``board_summary.gain_squares``); version 6 narrow results: each rule set's ``board_results`` and
``pair_results`` hold the board's or pair's key and only what the rule set decides, in key order, the facts
staying in ``hands`` and ``boards`` (the views join them). Results of an older version are not read;
``ofc rescore`` scores their batches again."""

RESCORE_RATE = 500_000
"""Hands scored a second under one rule set, for an estimate shown to a person: a million three-player Pineapple
hands under six rule sets took 12 s on two shared cores (``tests/bench/bench_rescore.py``)."""


def later(state: tuple[str, ...], than: tuple[str, ...] | None) -> bool:
    """Whether the state of the lake a snapshot saw (its ``batches``) was committed no earlier than ``than``: its
    latest batch is not older (batch names begin with their time). Any state is later than None."""
    return than is None or max(state, default="") >= max(than, default="")


@dataclass(frozen=True)
class Cover:
    """What one committed result batch holds for one source batch under one rule set."""

    batch: str
    """The source batch."""
    rules_key: str
    manifest: dict[str, Any]
    """The result batch's manifest."""
    entry: dict[str, Any]
    """Its ``covers`` entry: counts, scope and the native rule sets it was scored with."""

    @property
    def native_only(self) -> bool:
        """Only the hands this rule set is native to were scored (it was not asked for)."""
        return bool(self.entry.get("native_only", False))

    @property
    def natives(self) -> list[list[Any]]:
        """``[variant, house rules, native rule set key]`` of each group of the source batch's hands."""
        return [[g["variant"], g["house_rules"], g["native"]] for g in self.entry.get("groups", [])]

    @property
    def hands(self) -> int:
        """Hands of the source batch scored under this rule set (0: it applies to none)."""
        return int(self.entry.get("hands", 0))

    def count(self, name: str) -> int:
        """One of the counts the rescore recorded (``hands``, ``boards``, ``pairs``, ``recorded_checked``, ...)."""
        return int(self.entry.get(name, 0))

    @property
    def not_applied(self) -> dict[str, int]:
        """Hands the rule set could not score, per variant."""
        return dict(self.entry.get("not_applied", {}))

    @property
    def why(self) -> dict[str, str]:
        """Why, per variant it could not score."""
        return dict(self.entry.get("why", {}))

    @property
    def groups(self) -> list[tuple[str, str | None, int]] | None:
        """(variant, house rules, hands) of the source batch's hands as recorded (None: not recorded)."""
        if "groups" not in self.entry:
            return None
        return [(g["variant"], g["house_rules"], int(g["hands"])) for g in self.entry["groups"]]

    def files(self) -> list[str]:
        """The result batch's files under this rule set (its partition folder)."""
        folder = f"rules_key={self.rules_key}"
        return [f for f in self.manifest["files"] if f.split("/")[1:2] == [folder]]


@dataclass(frozen=True)
class SourceBatch:
    """A committed batch that holds boards (an ingest or simulation run), with its files as they are now: its
    own files no later batch replaced, and the files rewritten for it since."""

    batch: str
    files: tuple[str, ...]


@dataclass(frozen=True)
class Snapshot:
    """The manifests of a lake as they were when it was taken, oldest first."""

    root: Path
    manifests: tuple[dict[str, Any], ...]

    @cached_property
    def replaced(self) -> frozenset[str]:
        """Files a later batch replaced (a forced rescore): hidden from every reader."""
        return frozenset(f for m in self.manifests for f in m.get("replaces", ()))

    def files(self, table: str) -> list[Path]:
        """Committed files of ``table`` that no later batch replaced; results of an older format are left out."""
        prefix = f"{table}/"
        return [
            self.root / f
            for m in self.manifests
            if not self.is_stale(m)
            for f in m["files"]
            if f.startswith(prefix) and f not in self.replaced
        ]

    def files_by_batch(self, table: str) -> dict[str, list[Path]]:
        """``files(table)`` by the batch that wrote them, oldest first."""
        out: dict[str, list[Path]] = {}
        prefix = f"{table}/"
        for m in self.manifests:
            if self.is_stale(m):
                continue
            files = [self.root / f for f in m["files"] if f.startswith(prefix) and f not in self.replaced]
            if files:
                out[m["batch"]] = files
        return out

    @cached_property
    def carried(self) -> dict[str, str]:
        """Files a later batch rewrote for an earlier one (its rows less hands removed or replaced): file -> the
        batch whose rows they hold."""
        return {f: b for m in self.manifests for f, b in m.get("carries", {}).items() if f not in self.replaced}

    @cached_property
    def batches(self) -> tuple[str, ...]:
        """Every committed batch, oldest first: the state this snapshot saw (batches are never rewritten)."""
        return tuple(str(m["batch"]) for m in self.manifests)

    @cached_property
    def sources(self) -> list[SourceBatch]:
        """Batches that hold boards (ingest and simulation runs), oldest first, with their files as they are now."""
        for_batch: dict[str, list[str]] = {}
        for f, b in self.carried.items():
            for_batch.setdefault(b, []).append(f)
        out = []
        for m in self.manifests:
            own = [f for f in m["files"] if f not in self.replaced and f not in m.get("carries", {})]
            files = own + for_batch.get(m["batch"], [])
            if any(f.startswith("boards/") for f in files):
                out.append(SourceBatch(str(m["batch"]), tuple(files)))
        return out

    def ingested(self) -> dict[str, dict[str, Any]]:
        """The input files every batch read, by ``digest|member`` (a file's content, and its member in an
        archive): what an ingest run recorded of each, the first time it was read."""
        out: dict[str, dict[str, Any]] = {}
        for m in self.manifests:
            for s in m.get("sources", []):
                if s.get("digest"):
                    out.setdefault(s["digest"] + "|" + s.get("member", ""), s)
        return out

    def royalty_hands(self) -> dict[str, list[dict[str, Any]]]:
        """Per rule set key, the hand each royalty pays for, as its result batches recorded them (the first)."""
        rows: dict[str, list[dict[str, Any]]] = {}
        for m in self.results:
            for key, mine in m.get("royalty_hands", {}).items():
                rows.setdefault(key, mine)
        return rows

    def batch_files(self, batch: str) -> list[str]:
        """A batch's live files (see ``sources``), results included."""
        for m in self.manifests:
            if m["batch"] == batch:
                own = [f for f in m["files"] if f not in self.replaced and f not in m.get("carries", {})]
                return own + [f for f, b in self.carried.items() if b == batch]
        return []

    @staticmethod
    def is_result(manifest: dict[str, Any]) -> bool:
        return manifest.get("kind") == RESULT_KIND

    def is_stale(self, manifest: dict[str, Any]) -> bool:
        """A result batch of an older format, whose files this version does not read."""
        return self.is_result(manifest) and manifest.get("format", 1) < RESULT_FORMAT

    @cached_property
    def results(self) -> list[dict[str, Any]]:
        """Result batches of the current format, oldest first."""
        return [m for m in self.manifests if self.is_result(m) and not self.is_stale(m)]

    @cached_property
    def _stale(self) -> list[dict[str, Any]]:
        """Result batches of an older format, still listed until a rescore replaces them."""

        def results(m: dict[str, Any]) -> set[str]:
            return {f for f in m["files"] if not f.startswith("batches/")}

        return [m for m in self.manifests if self.is_stale(m) and not results(m) <= self.replaced]

    @property
    def has_stale(self) -> bool:
        """The lake holds results of an older format, which this version does not read."""
        return bool(self._stale)

    def stale_covers(self, batch: str) -> list[Cover]:
        """What the older results of a source batch held, per rule set, oldest first."""
        return [
            Cover(entry["batch"], entry["rules_key"], m, entry)
            for m in self._stale
            for entry in m.get("covers", [])
            if entry["batch"] == batch
        ]

    def stale_files(self, batch: str) -> list[str]:
        """Every file of the result batches of an older format that scored a source batch."""
        return [f for m in self._stale if any(c["batch"] == batch for c in m.get("covers", [])) for f in m["files"]]

    def stale_work(self) -> str:
        """What scoring the older results again takes, for a person: '1,000,000 hands under 6 rule sets, about 12
        s' (``RESCORE_RATE``), or '' when there are none."""
        pairs = {(c["batch"], c["rules_key"]): int(c.get("hands", 0)) for m in self._stale for c in m.get("covers", [])}
        if not pairs:
            return ""
        hands: dict[str, int] = {}
        for (batch, _), n in pairs.items():
            hands[batch] = max(hands.get(batch, 0), n)
        rule_sets = len({key for _, key in pairs})
        seconds = sum(pairs.values()) / RESCORE_RATE
        about = (
            "under a second"
            if seconds < 1
            else f"about {seconds:.0f} s"
            if seconds < 90
            else f"about {seconds / 60:.0f} minutes"
        )
        return f"{sum(hands.values()):,} hands under {rule_sets} rule set{'s' * (rule_sets != 1)}, {about}"

    def covers(self) -> Iterator[Cover]:
        """What the result batches hold, oldest first; results a later batch hid (dropped, not scored again) are
        left out: they are no longer in the lake."""
        for m in self.results:
            for entry in m.get("covers", []):
                cover = Cover(entry["batch"], entry["rules_key"], m, entry)
                files = cover.files()
                if files and all(f in self.replaced for f in files):
                    continue
                yield cover

    @cached_property
    def coverage(self) -> dict[tuple[str, str], Cover]:
        """(source batch, rule set key) -> the latest results."""
        return {(c.batch, c.rules_key): c for c in self.covers()}

    @cached_property
    def rule_sets(self) -> dict[str, RuleSet]:
        """Every rule set recorded in the lake, by key: those results were scored under and those hands were
        played by (a simulation records its rules). Ordered by when each was last recorded, so that of two rule
        sets of one name the later one comes last. A document this version cannot read is passed over."""
        found: dict[str, RuleSet] = {}
        for m in self.manifests:
            for doc in m.get("rule_sets", []):
                try:
                    rules = RuleSet.model_validate(doc)
                except ValidationError:
                    continue
                found.pop(rules.key, None)
                found[rules.key] = rules
        return found

    @cached_property
    def scored_keys(self) -> list[str]:
        """Keys of the rule sets the lake holds current results under, oldest first."""
        return list(dict.fromkeys(c.rules_key for c in self.covers()))

    def asked_keys(self) -> list[str]:
        """Keys of the rule sets a rescore was asked for (not only scored as some hands' native rules)."""
        return list(dict.fromkeys(c.rules_key for c in self.covers() if not c.native_only))

    def keys_to_rescore(self) -> list[str]:
        """The rule sets a rescore scores when none is named: those asked for before, or, when every result is of
        an older format (to be scored again), those the older results were asked for."""
        stale = [c["rules_key"] for m in self._stale for c in m.get("covers", []) if not c.get("native_only")]
        return self.asked_keys() or list(dict.fromkeys(stale))

    def hands(self, source: SourceBatch) -> int:
        """Hands a source batch holds now: the rows of its live ``hands`` files, so that hands a later batch
        replaced or removed are not counted twice. Read from the files' footers."""
        return sum(pq.read_metadata(self.root / f).num_rows for f in source.files if f.startswith("hands/"))
