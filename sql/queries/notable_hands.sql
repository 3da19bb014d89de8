-- A player's hands worth a second look: fouled boards (the costliest first), biggest wins and losses (hands won
-- and lost, the most points first), the latest Fantasyland hands, and hands whose winner changes under a rule set
-- compared (the latest first), up to `hands` of each. What orders them only: the hands' ids, sessions and boards
-- are read for these few hands by the query hand_boards.
-- @param rules rules?: read every hand as if played under this rule set (by default: under its own rules)
-- @param compared rules[]: the rule sets whose winner changes are listed (every one asked for by default)
-- @param player text: the player
-- @param variant text?: only this variant
-- @param since date?: only hands played on or after this day (UTC)
-- @param hands int = 12: hands of each kind at most
WITH mine AS MATERIALIZED (
    SELECT hand_key, played_at, variant, rules AS scored_under, points, fouled, fantasyland, fantasyland_cards,
           fantasyland_entry
    FROM scored_boards($rules, $player, $variant, $since)
),
change_days AS (
    -- The days on which the player's hands changed winner, and at least how many hands did (the most under one
    -- rule set): from the summaries, so that the results are read from the day the latest `hands` of them begin.
    SELECT day, max(changes) AS changes
    FROM (
        SELECT day, rules_key, sum(winner_changes) AS changes
        FROM board_summary
        WHERE list_contains($compared, rules_key) AND summary_kept(player, variant, day, $player, $variant, $since)
        GROUP BY ALL
        HAVING sum(winner_changes) > 0
    )
    GROUP BY day
),
first_day AS (
    SELECT timezone('UTC', min(day)::TIMESTAMP) AS played_at
    FROM (SELECT day, sum(changes) OVER (ORDER BY day DESC) - changes AS later FROM change_days WHERE day IS NOT NULL)
    WHERE later < $hands
),
changed AS (
    SELECT DISTINCT ON (hand_key) hand_key, rules
    FROM (
        -- A bound on the time skips the files' earlier row groups; an OR in it would not.
        SELECT hand_key, rules FROM board_results
        WHERE played_at >= coalesce((SELECT played_at FROM first_day), TIMESTAMPTZ '0001-01-01 00:00:00+00')
          AND list_contains($compared, rules_key) AND winner_seat <> native_winner_seat
          AND player = $player AND kept(player, variant, played_at, NULL, $variant, $since)
        UNION ALL
        SELECT hand_key, rules FROM board_results
        WHERE played_at IS NULL AND list_contains($compared, rules_key) AND winner_seat <> native_winner_seat
          AND player = $player AND kept(player, variant, played_at, NULL, $variant, $since)
    )
    ORDER BY hand_key, rules
),
listed AS (
    -- Each kind's hands in its own order (rank), kept by the final ORDER BY.
    (SELECT 'fouled' AS kind, row_number() OVER (ORDER BY points, played_at DESC) AS rank, *, NULL AS rules
     FROM mine WHERE fouled ORDER BY rank LIMIT $hands)
    UNION ALL
    (SELECT 'biggest win', row_number() OVER (ORDER BY points DESC, played_at DESC), *, NULL
     FROM mine WHERE points > 0 ORDER BY 2 LIMIT $hands)
    UNION ALL
    (SELECT 'biggest loss', row_number() OVER (ORDER BY points, played_at DESC), *, NULL
     FROM mine WHERE points < 0 ORDER BY 2 LIMIT $hands)
    UNION ALL
    (SELECT 'fantasyland', row_number() OVER (ORDER BY played_at DESC NULLS LAST, hand_key), *, NULL
     FROM mine WHERE fantasyland ORDER BY 2 LIMIT $hands)
    UNION ALL
    (SELECT 'winner changes', row_number() OVER (ORDER BY m.played_at DESC NULLS LAST, m.hand_key), m.*, c.rules
     FROM mine m JOIN changed c USING (hand_key) ORDER BY 2 LIMIT $hands)
)
SELECT kind, hand_key, played_at, variant, scored_under, points, fouled, fantasyland, fantasyland_cards,
       fantasyland_entry, rules AS changed_under
FROM listed
ORDER BY list_position(['fouled', 'biggest win', 'biggest loss', 'fantasyland', 'winner changes'], kind), rank;
