-- Scoring variants side by side: the hands as played, then as if played under each rule set; every player's net
-- points per hand with its standard deviation and 95% interval, and the gain or loss per hand against the same
-- hands as played, paired hand by hand, with its 95% interval (player null: all boards, whose gains sum to zero
-- where every hand does). hands: hands counted (a player's boards are their hands; over all players, each hand
-- once, by its button's board); boards: the boards summed. A rule set that cannot score a variant leaves its hands out.
-- @param rules rules[]: the rule sets compared with the hands as played (every one asked for by default)
-- @param player text?: only this player's boards
-- @param variant text?: only this variant
-- @param since date?: only hands played on or after this day (UTC)
-- @param until date?: only hands played on or before this day (UTC)
WITH fine AS (
    SELECT
        compared, first(rules) AS rules, player, sum(boards) AS boards,
        sum(boards) FILTER (WHERE position = 0) AS button_boards, sum(points) AS points,
        sum(squares) AS squares, sum(native_points) AS played_points, sum(gain_squares) AS gain_squares
    FROM compared_summary($rules, $player, $variant, $since, $until)
    GROUP BY compared, player
),
per AS (
    SELECT * EXCLUDE (button_boards), boards AS hands FROM fine
    UNION ALL
    SELECT compared, first(rules), NULL, sum(boards), sum(points), sum(squares), sum(played_points),
           sum(gain_squares), CASE WHEN $player IS NULL THEN coalesce(sum(button_boards), 0) ELSE sum(boards) END
    FROM fine GROUP BY compared
)
SELECT
    CASE WHEN compared = 'as played' THEN 'as played' ELSE rules END AS rules,
    CASE WHEN compared = 'as played' THEN NULL ELSE compared END AS rules_key,
    player, hands, boards, points,
    points / boards AS points_per_hand,
    sample_sd(points, squares, boards) AS stddev,
    points / boards - mean_margin(points, squares, boards) AS ci_low,
    points / boards + mean_margin(points, squares, boards) AS ci_high,
    (points - played_points) / boards AS gain_per_hand,
    (points - played_points) / boards - mean_margin(points - played_points, gain_squares, boards) AS gain_ci_low,
    (points - played_points) / boards + mean_margin(points - played_points, gain_squares, boards) AS gain_ci_high
FROM per
ORDER BY rules_key IS NOT NULL, list_position($rules, rules_key), player NULLS FIRST;
