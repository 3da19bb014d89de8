"""The one definition of every data shape.

Pydantic models of hand records and rule sets, the Arrow schemas of every lake
table, and the JSON Schema files generated from them live here, so the
ingesters, the lake, the scorer and the reports all read the same contract.
"""

from ofc.schemas import hand, lake, rules

__all__ = ["hand", "lake", "rules"]
