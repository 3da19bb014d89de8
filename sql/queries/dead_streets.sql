-- The street at which fouled boards became impossible to complete without fouling, per variant: how many went
-- dead at each street, as a share of the variant's fouled boards and of all its boards, and the running share.
-- Street null: fouled boards with no placements recorded (set all at once, or histories of final rows only).
-- @param rules rules?: read every hand as if played under this rule set (by default: under its own rules)
-- @param player text?: only this player's boards
-- @param variant text?: only this variant
-- @param since date?: only hands played on or after this day (UTC)
-- @param until date?: only hands played on or before this day (UTC)
WITH dead AS (
    SELECT variant, value AS dead_street, sum(boards) AS n
    FROM scored_counts($rules, $player, $variant, $since, $until)
    WHERE counted = 'dead_street'
    GROUP BY ALL
),
totals AS (
    SELECT variant, sum(boards) AS boards, sum(fouls) AS fouled_boards
    FROM scored_summary($rules, $player, $variant, $since, $until)
    GROUP BY ALL
)
SELECT
    variant,
    dead_street AS street,
    n AS boards_dead,
    n / fouled_boards AS share_of_fouled,
    n / boards AS share_of_boards,
    sum(n) OVER (PARTITION BY variant ORDER BY dead_street NULLS LAST) / fouled_boards AS cumulative_share
FROM dead
JOIN totals USING (variant)
ORDER BY variant, street NULLS LAST;
