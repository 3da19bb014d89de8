-- Cumulative results over time: each day's hands and net points, and the running totals, for one player or for
-- the players with the most hands.
-- @param rules rules?: read every hand as if played under this rule set (by default: under its own rules)
-- @param player text?: only this player (else the players with the most hands)
-- @param variant text?: only this variant
-- @param since date?: only hands played on or after this day (UTC)
-- @param until date?: only hands played on or before this day (UTC)
-- @param players int = 8: how many players when no player is given
WITH daily AS (
    SELECT player, day, sum(boards) AS hands, sum(points) AS points
    FROM scored_summary($rules, $player, $variant, $since, $until)
    WHERE day IS NOT NULL
    GROUP BY ALL
),
chosen AS (
    SELECT player FROM daily GROUP BY player ORDER BY sum(hands) DESC, player LIMIT $players
)
SELECT
    player,
    day,
    hands,
    points,
    sum(hands) OVER (PARTITION BY player ORDER BY day) AS cumulative_hands,
    sum(points) OVER (PARTITION BY player ORDER BY day) AS cumulative_points
FROM daily
WHERE player IN (SELECT player FROM chosen)
ORDER BY player, day;
