-- Scoops: for each player, the head-to-head matchups played (one per opponent per hand), how many they scooped
-- (won every row, or the opponent fouled) and how many they were scooped in, with 95% Wilson intervals.
-- @param rules rules?: read every hand as if played under this rule set (by default: under its own rules)
-- @param player text?: only this player
-- @param variant text?: only this variant
-- @param since date?: only hands played on or after this day (UTC)
-- @param until date?: only hands played on or before this day (UTC)
WITH sides AS (
    SELECT player, matchups AS n, scoops, scooped FROM pair_sides($rules, $player, $variant, $since, $until)
),
per AS (
    SELECT player, sum(n) AS matchups, sum(scoops) AS scoops, sum(scooped) AS scooped
    FROM sides
    WHERE player_is(player, $player)
    GROUP BY player
)
SELECT
    player, matchups, scoops,
    scoops / matchups AS scoop_rate,
    wilson_low(scoops, matchups) AS ci_low,
    wilson_high(scoops, matchups) AS ci_high,
    scooped,
    scooped / matchups AS scooped_rate
FROM per
ORDER BY scoop_rate DESC, player;
