-- Head to head: each player's net points against each opponent, per matchup (one per hand they shared) with a
-- 95% interval, and scoops each way.
-- @param rules rules?: read every hand as if played under this rule set (by default: under its own rules)
-- @param player text?: only this player's matchups
-- @param variant text?: only this variant
-- @param since date?: only hands played on or after this day (UTC)
-- @param until date?: only hands played on or before this day (UTC)
WITH sides AS (
    SELECT player, opponent, matchups AS n, points, squares, scoops, scooped
    FROM pair_sides($rules, $player, $variant, $since, $until)
),
per AS (
    SELECT player, opponent, sum(n) AS matchups, sum(points) AS points, sum(squares) AS squares,
           sum(scoops) AS scoops, sum(scooped) AS scooped
    FROM sides
    WHERE player_is(player, $player)
    GROUP BY player, opponent
)
SELECT
    player, opponent, matchups, points,
    points / matchups AS points_per_matchup,
    points / matchups - mean_margin(points, squares, matchups) AS ci_low,
    points / matchups + mean_margin(points, squares, matchups) AS ci_high,
    scoops, scooped
FROM per
ORDER BY player, points DESC, opponent;
