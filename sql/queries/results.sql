-- Results: hands, net points, points per hand with its standard deviation and 95% interval, and the share of
-- hands won (more than zero points), overall, by variant and by player.
-- @param rules rules: the rule set whose results are read (the lake's first by default)
-- @param player text?: only this player's boards
-- @param variant text?: only this variant
-- @param since date?: only hands played on or after this day (UTC)
WITH by_id AS (
    SELECT player_id, variant, count(*) AS hands, sum(points) AS points, sum(points::BIGINT * points) AS squares,
           count(*) FILTER (WHERE points > 0) AS won
    FROM boards_of([$rules], $player, $variant, $since)
    GROUP BY ALL
),
fine AS MATERIALIZED (
    SELECT n.player, b.* EXCLUDE (player_id) FROM by_id b JOIN player_names n USING (player_id)
),
groups AS (
    SELECT 'all' AS dimension, 'all boards' AS "group", sum(COLUMNS(* EXCLUDE (player, variant))) FROM fine
    HAVING count(*) > 0
    UNION ALL
    SELECT 'variant', variant, sum(COLUMNS(* EXCLUDE (player, variant))) FROM fine GROUP BY variant
    UNION ALL
    SELECT 'player', player, sum(COLUMNS(* EXCLUDE (player, variant))) FROM fine GROUP BY player
)
SELECT
    dimension, "group", hands, points,
    points / hands AS points_per_hand,
    sample_sd(points, squares, hands) AS stddev,
    points / hands - mean_margin(points, squares, hands) AS ci_low,
    points / hands + mean_margin(points, squares, hands) AS ci_high,
    won / hands AS won_share
FROM groups
ORDER BY list_position(['all', 'variant', 'player'], dimension), points DESC, "group";
