-- Scoring variants side by side: the hands as played, then as if played under each rule set; every player's net
-- points per hand with its standard deviation and 95% interval, and the gain or loss per hand against the same
-- hands as played (player null: all boards). A rule set that cannot score a variant leaves its hands out.
-- @param rules rules[]: the rule sets compared with the hands as played (every one asked for by default)
-- @param player text?: only this player's boards
-- @param variant text?: only this variant
-- @param since date?: only hands played on or after this day (UTC)
WITH fine AS (
    SELECT
        compared, first(rules) AS rules, player, sum(boards) AS hands, sum(points) AS points,
        sum(squares) AS squares, sum(native_points) AS played_points
    FROM compared_summary($rules, $player, $variant, $since)
    GROUP BY compared, player
),
per AS (
    SELECT * FROM fine
    UNION ALL
    SELECT compared, first(rules), NULL, sum(hands), sum(points), sum(squares), sum(played_points)
    FROM fine GROUP BY compared
)
SELECT
    CASE WHEN compared = 'as played' THEN 'as played' ELSE rules END AS rules,
    CASE WHEN compared = 'as played' THEN NULL ELSE compared END AS rules_key,
    player, hands, points,
    points / hands AS points_per_hand,
    sample_sd(points, squares, hands) AS stddev,
    points / hands - mean_margin(points, squares, hands) AS ci_low,
    points / hands + mean_margin(points, squares, hands) AS ci_high,
    (points - played_points) / hands AS gain_per_hand
FROM per
ORDER BY compared <> 'as played', list_position($rules, compared), player NULLS FIRST;
