"""Rule sets: everything between a rule file and the arrays the scorer gathers from.

``files`` finds a preset or a file, merges its ``extends`` chain and validates it; ``thresholds`` reads the
hands a rule file names (``"QQ"``, ``"trips"``) as points on the evaluator's scales; ``native`` decides the
rules each hand was played by and which rule sets can score it; ``compile`` turns a rule set into the scorer's
tables, once per rule set; ``royalty_names`` names the hand each royalty pays for. The rule set itself, as data,
is :class:`schemas.rules.RuleSet`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ofc.pipeline.lazy_names import lazy_names

if TYPE_CHECKING:
    from ofc.pipeline.rules.compile import NATURALS, CompiledRules, compile_rules
    from ofc.pipeline.rules.files import RuleSetError, load_rules, preset_names
    from ofc.pipeline.rules.native import Native, Natives, variant_rules
    from ofc.pipeline.rules.royalty_names import royalty_hands
    from ofc.pipeline.rules.thresholds import HandPatternError, threshold

_HOMES = {
    **dict.fromkeys(("NATURALS", "CompiledRules", "compile_rules"), "compile"),
    **dict.fromkeys(("RuleSetError", "load_rules", "preset_names"), "files"),
    **dict.fromkeys(("Native", "Natives", "variant_rules"), "native"),
    **dict.fromkeys(("royalty_hands",), "royalty_names"),
    **dict.fromkeys(("HandPatternError", "threshold"), "thresholds"),
}


__getattr__ = lazy_names(__name__, _HOMES)


__all__ = [
    "NATURALS",
    "CompiledRules",
    "HandPatternError",
    "Native",
    "Natives",
    "RuleSetError",
    "compile_rules",
    "load_rules",
    "preset_names",
    "royalty_hands",
    "threshold",
    "variant_rules",
]
