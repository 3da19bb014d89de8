"""What a chart's point or a table's row leads to on a served page: the boards it counts, as the parameters of
``ofc serve``'s ``/hands`` page (docs/serve.md, "Drill-down"). Each is the same for a chart and a table of the same
rows. A report file carries them and does nothing with them."""

from __future__ import annotations

from typing import Any

__all__ = ["Drill", "cards", "cause", "decision", "group", "plain", "rules", "session"]

Drill = dict[str, Any]
"""The parameters of the list of hands behind a chart's point or a table's row."""


def plain(values: Drill | None) -> dict[str, str] | None:
    """As the address spells them: text, without the parameters left empty (None: leads nowhere)."""
    return None if values is None else {k: str(v) for k, v in values.items() if v is not None}


def rules(row: dict[str, Any]) -> str:
    """The rule set a row of a comparison reads, as the address names it: its name, or its key where two versions
    of the name are shown (``rule_set`` then says which); "as played" for the hands' own rules."""
    key, shown = row.get("rules_key"), row.get("rule_set")
    if key is None:
        return "as played"
    name = key.rsplit("@", 1)[0]
    return name if shown in (None, name) else key


def session(session: str, player: str) -> Drill:
    """A session's hands, named as the query ``sessions`` names it (a hand with none recorded is in its day's, "day
    2026-01-02", or in "unknown" without a time), which the session filter reads too."""
    return {"player": player, "session": session}


def decision(row: dict[str, Any]) -> Drill | None:
    """The boards of a row of decisions (the queries ``decision_loss`` and ``foul_sources``): those with a decision
    weighed at its street, or of its kind (a Fantasyland setting has no street); by the points they lost. None: the
    row of fouls no decision made likely."""
    if row.get("kind") == "none: the cards":
        return None
    if row.get("street") is not None:
        return {"street": row["street"], "sort": "ev_lost"}
    return {"kind": row.get("kind"), "sort": "ev_lost"}


def cause(row: dict[str, Any]) -> Drill:
    """The fouled boards of a row of foul causes (the query ``foul_sources``, dimensions cause_street and
    cause_kind): those put down to a decision at its street or of its kind, or to the cards; by the points their
    decisions lost."""
    if row.get("kind") == "none: the cards":
        return {"cause": "cards", "sort": "ev_lost"}
    return {"cause": row["street"] if row.get("street") is not None else row.get("kind"), "sort": "ev_lost"}


def group(row: dict[str, Any]) -> Drill:
    """The boards of one group of the query ``foul_rate``."""
    group, dimension = row.get("group"), row.get("dimension")
    if dimension in ("player", "variant"):
        return {dimension: group}
    if dimension in ("table size", "seat"):
        return {"table_size": row.get("n_players"), "position": row.get("position") if dimension == "seat" else None}
    if dimension == "fantasyland":
        return {"fantasyland": "in" if group == "in Fantasyland" else "out"}
    return {}


def cards(row: dict[str, Any]) -> Drill:
    """The boards of a row of the query ``fantasyland``: normal, or in Fantasyland with its card count (where
    recorded)."""
    if row["hand_kind"] == "normal":
        return {"fantasyland": "out"}
    # None: every card count together; 0: boards whose count was not recorded
    return {"fantasyland": "in"} if row["cards"] is None else {"fantasyland_cards": row["cards"]}
