"""Scoring variants in a game: the same hands as played and as if played under each rule set compared: who gains
and who loses under each (paired hand by hand, with 95% intervals; every ranked player, however the report is
filtered), how much each swings, how often the winner changes."""

from __future__ import annotations

from typing import Any

from ofc.pipeline.lake.snapshot import Snapshot
from ofc.pipeline.rules.native import deal_only_difference
from ofc.reports import drill, figures
from ofc.reports.headline import Stat
from ofc.reports.queries import Rows
from ofc.reports.sections.common import GameView, Section, ranked
from ofc.reports.tables import Column, Table, interval_columns

__all__ = ["scoring"]


def scoring(game: GameView, snapshot: Snapshot) -> Section:
    run = game.ask
    compared = game.compared
    rows = _named(run("scoring_variants"), game)
    changes = _named(run("winner_changes"), game) if compared else []
    changes = [r for r in changes if r["variant"] == game.variant]
    overall = [r for r in rows if r["player"] is None]
    headline = [Stat(f"swing, {r['rule_set']}", r["stddev"], "num", n=r["boards"]) for r in overall]
    headline += [
        Stat(f"winner changes, {r['rule_set']}", r["change_rate"], "pct", r["ci_low"], r["ci_high"], r["hands"], "hand")
        for r in changes
    ]
    field = _named(game.everyone("scoring_variants"), game)
    ranked_players, _ = ranked([r for r in field if r["player"] is not None], game, name="player")
    kept = {r["player"] for r in ranked_players}
    shown = [r for r in field if r["player"] is None or r["player"] in kept]
    gains = [r for r in shown if r["rules_key"] is not None and r["player"] is not None]
    figs = []
    if gains:
        figs.append(figures.gains(gains, [game.rule_name(k) for k in compared], game.featured))
    figs.append(figures.swing(overall))
    if changes:
        figs.append(figures.winner_changes(changes))
    tables = []
    if gains:
        tables.append(
            Table(
                "Which rule set favours whom: gain per hand against the hands as played",
                "scoring_gains",
                gains,
                [
                    Column("player", "Player", "text"),
                    Column("rule_set", "Rule set", "text"),
                    Column("hands", "Hands", "int"),
                    Column("gain_per_hand", "Gain per hand", "signed"),
                    *interval_columns("signed", "gain_ci_low", "gain_ci_high"),
                    Column("points_per_hand", "Points per hand under it", "num"),
                ],
                note="Each hand is scored both ways, so the interval is of the paired differences: far narrower "
                "than the two levels' intervals side by side.",
                counts="hands",
                drill=lambda r: {"player": r["player"], "rules": drill.rules(r), "sort": "points"},
            )
        )
    tables.append(
        Table(
            "Points per hand under each rule set",
            "scoring_variants",
            shown,
            [
                Column("rule_set", "Rule set", "text"),
                Column("player", "Player", "text", empty="all players"),
                Column("hands", "Hands", "int"),
                Column("boards", "Boards", "int"),
                Column("points_per_hand", "Points per hand", "num"),
                *interval_columns("num"),
                Column("stddev", "Std dev", "num"),
                Column("gain_per_hand", "Gain per hand against as played", "signed"),
            ],
            counts="hands",
            drill=lambda r: {"player": r["player"], "rules": drill.rules(r), "sort": "points"},
        )
    )
    if changes:
        tables.append(
            Table(
                "Winner changes",
                "winner_changes",
                changes,
                [
                    Column("rule_set", "Rule set", "text"),
                    Column("hands", "Hands", "int"),
                    Column("changed", "Winner changed", "int"),
                    Column("change_rate", "Share changed", "pct"),
                    *interval_columns("pct"),
                ],
                counts="hands",
                drill=lambda r: {"rules": drill.rules(r), "outcome": "changed"},
            )
        )
    intro = (
        f"The same {game.title} hands as played and as if played under each rule set: how many points per hand each "
        "player gains or loses under it (each hand scored both ways, so the difference is measured hand by hand, with "
        "its 95% interval), the swing (standard deviation of a board's points), and how often a hand's winner changes."
    )
    notes = [] if compared else [f"No rule set to compare for {game.title}: ofc rescore --rules NAME adds one."]
    notes += _unchanged(rows, changes, game, snapshot)
    return Section("scoring", "Scoring variants", intro, headline, figs, tables, " ".join(notes))


def _named(rows: Rows, game: GameView) -> Rows:
    """Copies of rows with their rule set's name (the rows are shared with other sections)."""
    return [{**r, "rule_set": game.rule_name(r["rules_key"])} for r in rows]


def _unchanged(rows: Rows, changes: Rows, game: GameView, snapshot: Snapshot) -> list[str]:
    """Say why a rule set changes nothing against the hands as played or against another rule set compared, where
    it does: rescoring replays the scoring of finished boards, never the deal, so rules that differ only in what
    they deal (Fantasyland's card counts) score alike."""

    def results(key: str | None) -> list[tuple[Any, ...]]:
        mine = sorted((r["player"] or "", r["hands"], r["points"], r["stddev"]) for r in rows if r["rules_key"] == key)
        if key is not None:
            mine += sorted((r["variant"], r["changed"]) for r in changes if r["rules_key"] == key and r["changed"])
        return mine

    out = []
    seen: list[str | None] = [None]
    for key in game.compared:
        mine = results(key)
        alike = [k for k in seen if mine and results(k) == mine]
        seen.append(key)
        if not alike:
            continue
        reasons = [(k, _dealt_only(snapshot, game.variant, key, k)) for k in alike]
        same, why = next(((k, w) for k, w in reasons if w), reasons[0])
        name = game.rule_name(key)
        other = "as played" if same is None else f"as {game.rule_name(same)} does"
        if why:
            out.append(
                f"{name} scores every hand here exactly {other}: {why}rescoring finished boards replays their "
                "scoring, not their deal, so it cannot change a Fantasyland deal or any result that follows from one."
            )
        else:
            out.append(f"{name} scores every hand here exactly {other}: what the two differ in never arises here.")
    return out


_DEAL_WORDS = {
    "fantasyland.entry_cards": "the cards a Fantasyland entry deals",
    "fantasyland.combined_cards": "the cards a Fantasyland entry deals",
    "fantasyland.stay_cards": "the cards a Fantasyland stay deals",
    "game.dealing": "how the cards are dealt",
    "game.variant": "the variant they name",
    "game.last_cards_face_down": "whether the last cards are dealt face down",
}


def _dealt_only(snapshot: Snapshot, variant: str, key: str, than: str | None) -> str:
    """Why ``key`` scores like ``than`` (None: like the rules the game's hands were played by), when every rule they
    differ in decides only the deal; else nothing."""
    rules = snapshot.rule_sets.get(key)
    natives = {than} if than else {n for c in snapshot.coverage.values() for v, _, n in c.natives if v == variant}
    natives.discard(key)
    if rules is None or not natives:
        return ""
    fields: set[str] = set()
    for native in natives:
        other = snapshot.rule_sets.get(native)
        diff = deal_only_difference(rules, other) if other is not None else None
        if diff is None:
            return ""
        fields |= set(diff)
    words = " and ".join(dict.fromkeys(_DEAL_WORDS.get(f, f) for f in sorted(fields)))
    if not words:
        return ""
    return f"the two differ only in {words}; " if than else f"it differs from those rules only in {words}; "
