-- Results: hands, net points, points per hand with its standard deviation and 95% interval, and the share of
-- hands won (more than zero points), overall, by variant and by player.
-- @param rules rules?: read every hand as if played under this rule set (by default: under its own rules)
-- @param player text?: only this player's boards
-- @param variant text?: only this variant
-- @param since date?: only hands played on or after this day (UTC)
-- @param until date?: only hands played on or before this day (UTC)
WITH fine AS MATERIALIZED (
    SELECT player, variant, sum(boards) AS hands, sum(points) AS points, sum(squares) AS squares, sum(won) AS won
    FROM scored_summary($rules, $player, $variant, $since, $until)
    GROUP BY ALL
),
groups AS (SELECT * FROM by_variant_and_player('fine'))
SELECT
    dimension, "group", hands, points,
    points / hands AS points_per_hand,
    sample_sd(points, squares, hands) AS stddev,
    points / hands - mean_margin(points, squares, hands) AS ci_low,
    points / hands + mean_margin(points, squares, hands) AS ci_high,
    won / hands AS won_share
FROM groups
ORDER BY list_position(['all', 'variant', 'player'], dimension), points DESC, "group";
