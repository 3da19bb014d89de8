-- A player's hands worth a second look: fouled boards (the costliest first), biggest wins and losses (hands won
-- and lost, the most points first), the latest Fantasyland hands, and hands whose winner changes under a rule set
-- compared (the latest first), up to `hands` of each.
-- @param rules rules?: read every hand as if played under this rule set (by default: under its own rules)
-- @param compared rules[]: the rule sets whose winner changes are listed (every one asked for by default)
-- @param player text: the player
-- @param variant text?: only this variant
-- @param since date?: only hands played on or after this day (UTC)
-- @param hands int = 12: hands of each kind at most
WITH mine AS MATERIALIZED (
    SELECT hand_key, hand_id, session, hand_number, played_at, variant, rules AS scored_under, points, fouled,
           fantasyland, fantasyland_cards, fantasyland_entry
    FROM scored_boards($rules, $player, $variant, $since)
),
changed AS (
    SELECT DISTINCT ON (hand_key) hand_key, rules
    FROM board_results
    WHERE list_contains($compared, rules_key) AND winner_seat <> native_winner_seat
      AND player = $player AND kept(player, variant, played_at, NULL, $variant, $since)
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
SELECT kind, hand_key, hand_id, session, hand_number, played_at, variant, scored_under, points, fouled,
       fantasyland, fantasyland_cards, fantasyland_entry, rules AS changed_under
FROM listed
ORDER BY list_position(['fouled', 'biggest win', 'biggest loss', 'fantasyland', 'winner changes'], kind), rank;
