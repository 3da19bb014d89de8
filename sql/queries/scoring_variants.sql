-- Scoring variants side by side: under each rule set, every player's net points per hand with its standard
-- deviation and 95% interval, and the gain or loss per hand against the first rule set (the baseline);
-- player null: all boards.
-- @param rules rules[]: the rule sets compared, the baseline first (all in the lake by default)
-- @param player text?: only this player's boards
-- @param variant text?: only this variant
-- @param since date?: only hands played on or after this day (UTC)
WITH by_id AS (
    SELECT rules, rules_key, player_id, count(*) AS hands, sum(points) AS points,
           sum(points::BIGINT * points) AS squares
    FROM boards_of($rules, $player, $variant, $since)
    GROUP BY ALL
),
fine AS MATERIALIZED (
    SELECT b.rules, b.rules_key, n.player, b.hands, b.points, b.squares
    FROM by_id b JOIN player_names n USING (player_id)
),
per AS (
    SELECT * FROM fine
    UNION ALL
    SELECT rules, rules_key, NULL, sum(hands), sum(points), sum(squares) FROM fine GROUP BY rules, rules_key
)
SELECT
    p.rules, p.rules_key, p.player, p.hands, p.points,
    p.points / p.hands AS points_per_hand,
    sample_sd(p.points, p.squares, p.hands) AS stddev,
    p.points / p.hands - mean_margin(p.points, p.squares, p.hands) AS ci_low,
    p.points / p.hands + mean_margin(p.points, p.squares, p.hands) AS ci_high,
    p.points / p.hands - b.points / b.hands AS gain_per_hand
FROM per p
LEFT JOIN per b ON b.rules_key = $rules[1] AND b.player IS NOT DISTINCT FROM p.player
ORDER BY list_position($rules, p.rules_key), p.player NULLS FIRST;
