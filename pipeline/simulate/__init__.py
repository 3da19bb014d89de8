"""Simulated sessions: bots play whole sessions under a rule set, into JSONL or the lake."""

from ofc.pipeline.simulate.simulation_run import PRESETS, Outcome, SimulationError, Spec, plan, play, to_jsonl, to_lake

__all__ = [
    "PRESETS",
    "Outcome",
    "SimulationError",
    "Spec",
    "plan",
    "play",
    "to_jsonl",
    "to_lake",
]
