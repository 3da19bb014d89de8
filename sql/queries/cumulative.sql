-- Cumulative results over time: each day's hands and net points, and the running totals, for one player or for
-- the players with the most hands.
-- @param rules rules?: read every hand as if played under this rule set (by default: under its own rules)
-- @param player text?: only this player (else the players with the most hands)
-- @param variant text?: only this variant
-- @param since date?: only hands played on or after this day (UTC)
-- @param players int = 8: how many players when no player is given
WITH daily AS (
    -- Days since 1970 (UTC) by integer division: a time zone conversion per board costs more than the rest.
    SELECT player, epoch_us(played_at) // 86400000000 AS day_number, count(*) AS hands, sum(points) AS points
    FROM scored_boards($rules, $player, $variant, $since)
    WHERE played_at IS NOT NULL
    GROUP BY ALL
),
chosen AS (
    SELECT player FROM daily GROUP BY player ORDER BY sum(hands) DESC, player LIMIT $players
)
SELECT
    player,
    DATE '1970-01-01' + CAST(day_number AS INTEGER) AS day,
    hands,
    points,
    sum(hands) OVER (PARTITION BY player ORDER BY day_number) AS cumulative_hands,
    sum(points) OVER (PARTITION BY player ORDER BY day_number) AS cumulative_points
FROM daily
WHERE player IN (SELECT player FROM chosen)
ORDER BY player, day;
