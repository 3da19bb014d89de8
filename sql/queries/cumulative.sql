-- Cumulative results over time: each day's hands and net points, and the running totals, for one player or for
-- the players with the most hands.
-- @param rules rules: the rule set whose results are read (the lake's first by default)
-- @param player text?: only this player (else the players with the most hands)
-- @param variant text?: only this variant
-- @param since date?: only hands played on or after this day (UTC)
-- @param players int = 8: how many players when no player is given
-- @needs hands
WITH by_id AS (
    SELECT player_id, epoch_us(played_at) // 86400000000 AS day, count(*) AS hands, sum(points) AS points
    FROM boards_of([$rules], $player, $variant, $since)
    WHERE played_at IS NOT NULL
    GROUP BY ALL
),
daily AS (
    SELECT n.player, b.* EXCLUDE (player_id) FROM by_id b JOIN player_names n USING (player_id)
),
chosen AS (
    SELECT player FROM daily GROUP BY player ORDER BY sum(hands) DESC, player LIMIT $players
)
SELECT
    player,
    DATE '1970-01-01' + CAST(day AS INTEGER) AS day,
    hands,
    points,
    sum(hands) OVER (PARTITION BY player ORDER BY day) AS cumulative_hands,
    sum(points) OVER (PARTITION BY player ORDER BY day) AS cumulative_points
FROM daily
WHERE player IN (SELECT player FROM chosen)
ORDER BY player, day;
