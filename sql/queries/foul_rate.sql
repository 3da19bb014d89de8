-- Foul rate: the share of boards fouled, overall and by player, variant, table size, seat relative to the button
-- at each table size (0 is the button, 1 acts first), and in or out of Fantasyland; with 95% Wilson intervals.
-- @param rules rules?: read every hand as if played under this rule set (by default: under its own rules)
-- @param player text?: only this player's boards
-- @param variant text?: only this variant
-- @param since date?: only hands played on or after this day (UTC)
WITH fine AS MATERIALIZED (
    SELECT player, variant, n_players, position, fantasyland, count(*) AS boards,
           count(*) FILTER (WHERE fouled) AS fouled
    FROM scored_boards($rules, $player, $variant, $since)
    GROUP BY ALL
),
groups AS (
    SELECT 'all' AS dimension, 'all boards' AS "group", 0 AS sort_key, sum(boards) AS boards, sum(fouled) AS fouled
    FROM fine HAVING count(*) > 0
    UNION ALL
    SELECT 'player', player, -sum(boards), sum(boards), sum(fouled) FROM fine GROUP BY player
    UNION ALL
    SELECT 'variant', variant, 0, sum(boards), sum(fouled) FROM fine GROUP BY variant
    UNION ALL
    SELECT 'table size', n_players || ' players', n_players, sum(boards), sum(fouled) FROM fine GROUP BY n_players
    UNION ALL
    SELECT 'seat', n_players || ' players, ' || CASE WHEN position = 0 THEN 'button' ELSE 'button + ' || position END,
           n_players * 10 + position, sum(boards), sum(fouled)
    FROM fine GROUP BY n_players, position
    UNION ALL
    SELECT 'fantasyland', CASE WHEN fantasyland THEN 'in Fantasyland' ELSE 'normal hands' END, fantasyland::INTEGER,
           sum(boards), sum(fouled)
    FROM fine GROUP BY fantasyland
)
SELECT
    dimension, "group", boards, fouled,
    fouled / boards AS foul_rate,
    wilson_low(fouled, boards) AS ci_low,
    wilson_high(fouled, boards) AS ci_high
FROM groups
ORDER BY list_position(['all', 'player', 'variant', 'table size', 'seat', 'fantasyland'], dimension), sort_key, "group";
