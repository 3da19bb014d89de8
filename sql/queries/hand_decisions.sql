-- Every decision ofc analyse weighed in the hands asked for (the latest analysis), as a hand viewer lists them:
-- the player, street and kind, the cards decided on, the move played and the best move found, their expected
-- points, and the loss with its standard error; the two moves as a letter a card dealt (played_rows, best_rows: t
-- top, m middle, b bottom, x discarded), which a trainer offers beside a move of the user's own.
-- @param hands text: the hands' keys (hand_key), comma-separated
SELECT
    hand_key, player, seat, street, kind, cards_text(dealt) AS dealt, played, best, played_rows, best_rows,
    ev_played, ev_best, ev_lost, se, rollouts
FROM weighed(NULL)
WHERE list_contains(string_split($hands, ',')::UBIGINT[], hand_key)
ORDER BY hand_key, seat, street;
