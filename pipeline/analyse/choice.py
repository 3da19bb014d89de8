"""A move of one's own at a decision the analysis weighed, rolled out on the spot: what the trainer asks.

The decision is rebuilt from the lake as the analysis rebuilt it (the player's board and what they had seen),
and the move chosen is rolled out against the move played by the same paired rollouts, from the decision's
own seed: the move played is then measured on the very cards it was measured on before, and the chosen move
beside it.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import duckdb
import numpy as np
import pyarrow as pa

from ofc.pipeline.analyse.analysis_run import BOARDS, PLACEMENTS, AnalyseError, Settings, replayable
from ofc.pipeline.analyse.estimate import context, fantasyland_worth, legal_moves, weigh_move
from ofc.pipeline.analyse.positions import LETTERS, action_index, positions
from ofc.pipeline.game import facts
from ofc.pipeline.lake.snapshot import Snapshot
from ofc.pipeline.simulate.streets import actions

__all__ = ["ROUNDS", "Choice", "weigh_choice"]

ROUNDS = 128
"""Rounds of rollouts a chosen move may take while its difference from the move played is uncertain: more than
the analysis gives a decision (it weighs thousands), so that one move weighed alone is told within half a point
(a round of the default 32 rollouts of each move takes a few hundredths of a second)."""

_DECISION = """
SELECT analysis, seat, kind, rules_key, n_players, dealt, played, played_rows, best, best_rows, ev_played,
       ev_best, se, seed, rollouts, foul_played
FROM weighed(NULL)
WHERE hand_key = $hand AND player = $player AND street = $street
"""


@dataclass(frozen=True)
class Choice:
    """The move chosen and the move played, by the same paired rollouts; the best move the analysis found."""

    move: str
    """The move chosen, a letter a dealt card (t top, m middle, b bottom, x discarded)."""
    ev_move: float
    ev_played: float
    se: float
    """The standard error of the difference between the two."""
    rollouts: int
    foul_move: float
    foul_played: float
    played: str
    played_rows: str
    best: str
    best_rows: str
    ev_best: float
    """As the analysis found it (its standard error: ``se_best``)."""
    se_best: float
    seconds: float


def weigh_choice(
    con: duckdb.DuckDBPyConnection, snapshot: Snapshot, hand_key: int, player: str, street: int, move: str
) -> Choice:
    """Roll ``move`` (a letter a dealt card, in the order dealt) out against the move ``player`` played at
    ``street`` of the hand ``hand_key``, as the latest analysis weighed that decision."""
    t0 = time.perf_counter()
    found = con.execute(_DECISION, {"hand": hand_key, "player": player, "street": street}).fetchall()
    if not found:
        raise AnalyseError(f"no weighed decision of {player} at street {street} of hand {hand_key}: run ofc analyse")
    names = [d[0] for d in con.description]
    d = dict(zip(names, found[0], strict=True))
    if d["kind"] == "fantasyland":
        raise AnalyseError("a Fantasyland setting is weighed against the arranger's settings only: choose one of them")
    rules = snapshot.rule_sets.get(d["rules_key"])
    if rules is None:
        raise AnalyseError(f"the rules {d['rules_key']} the decision was weighed under are not in the lake")
    settings = Settings.of(d["analysis"])
    con.register("chunk", pa.table({"hand_key": pa.array([hand_key], pa.uint64())}))
    try:
        rows = con.sql(BOARDS, params={"player": None, "analysis": settings.key}).to_arrow_table()
        placed = con.sql(PLACEMENTS).to_arrow_table()
    finally:
        con.unregister("chunk")
    deal = facts(rows.column("variant")[0].as_py()).deal
    k, drop = deal.dealt[street - 1], deal.discarded[street - 1]
    chosen = _rows(move, k, drop)
    rows, _, hands, skipped = replayable(rows, np.ones(rows.num_rows, dtype=bool), placed, deal)
    seats = rows.column("seat").to_numpy()
    board = np.flatnonzero(seats == d["seat"])
    if board.size != 1 or skipped[board[0]] is not None:
        raise AnalyseError(f"hand {hand_key} has changed since it was weighed: run ofc analyse")
    players = int(d["n_players"])
    pos = positions(hands, board.astype(np.int64), np.array([street], dtype=np.int64), players, k)
    worth = fantasyland_worth(rules, players, settings.seed)
    ctx = context(rules, players, settings.rollouts, settings.moves, worth)
    index = action_index(chosen[None, :], k, drop)
    if not legal_moves(ctx, pos, street - 1)[0, index[0]]:
        raise AnalyseError(f"{move}: the rows it fills have no room for those cards")
    if move == d["played_rows"]:  # the move played: as the analysis weighed it
        ev, se, n, fouls = float(d["ev_played"]), 0.0, int(d["rollouts"]), float(d["foul_played"])
        duel = (ev, ev, se, n, fouls, fouls)
    else:
        w = weigh_move(ctx, pos, street - 1, np.array([d["seed"]], dtype=np.uint64), index, rounds=ROUNDS)
        duel = (w.ev_move[0], w.ev_played[0], w.se[0], w.rollouts[0], w.foul_move[0], w.foul_played[0])
    ev_move, ev_played, se, n, foul_move, foul_played = duel
    return Choice(
        move=move,
        ev_move=float(ev_move),
        ev_played=float(ev_played),
        se=float(se),
        rollouts=int(n),
        foul_move=float(foul_move),
        foul_played=float(foul_played),
        played=d["played"],
        played_rows=d["played_rows"],
        best=d["best"],
        best_rows=d["best_rows"],
        ev_best=float(d["ev_best"]),
        se_best=float(d["se"]),
        seconds=time.perf_counter() - t0,
    )


def _rows(move: str, dealt: int, discards: int) -> np.ndarray:
    """A move's letters as rows (0 top, 1 middle, 2 bottom, 3 discarded); one that is no move of the street is an
    error saying what one is."""
    letters = "".join(LETTERS[:4])
    rows = np.array([letters.find(c) for c in move], dtype=np.int64)
    if len(move) != dealt or (rows < 0).any() or int((rows == 3).sum()) != discards:
        shape = f" and {discards} x (discarded)" if discards else ""
        raise AnalyseError(
            f"{move!r}: a move is a letter for each of the {dealt} cards dealt, t, m or b for its row{shape}"
        )
    table = actions(dealt, discards).rows.astype(np.int64)
    if not (table == rows).all(axis=1).any():
        raise AnalyseError(f"{move!r} is not a move of this street")
    return rows
