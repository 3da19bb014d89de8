-- Foul rate: the share of boards fouled, overall and by player, variant, table size, seat relative to the button
-- at each table size (the button acts last), and in or out of Fantasyland (open-face boards only: a classic hand
-- has no Fantasyland); with 95% Wilson intervals. A seat's and a table size's rows carry the table size
-- (n_players) and the seat (position: 0 the button, 1 first to act).
-- @param rules rules?: read every hand as if played under this rule set (by default: under its own rules)
-- @param player text?: only this player's boards
-- @param variant text?: only this variant
-- @param since date?: only hands played on or after this day (UTC)
-- @param until date?: only hands played on or before this day (UTC)
WITH fine AS MATERIALIZED (
    SELECT player, variant, n_players, position, fantasyland, sum(boards) AS boards, sum(fouls) AS fouled
    FROM scored_summary($rules, $player, $variant, $since, $until)
    GROUP BY ALL
),
groups AS (
    SELECT
        CASE
            WHEN grouping(player) = 0 THEN 'player'
            WHEN grouping(variant) = 0 THEN 'variant'
            WHEN grouping(position) = 0 THEN 'seat'
            WHEN grouping(n_players) = 0 THEN 'table size'
            ELSE 'all'
        END AS dimension,
        player, variant, n_players, position, NULL::BOOLEAN AS fantasyland, sum(boards) AS boards,
        sum(fouled) AS fouled
    FROM fine
    GROUP BY GROUPING SETS ((), (player), (variant), (n_players), (n_players, position))
    HAVING count(*) > 0
    UNION ALL
    SELECT 'fantasyland', NULL, NULL, NULL, NULL, fantasyland, sum(boards), sum(fouled)
    FROM fine
    WHERE variant IN (SELECT variant FROM variants WHERE open_face)
    GROUP BY fantasyland
)
SELECT
    dimension,
    CASE dimension
        WHEN 'all' THEN 'all boards'
        WHEN 'player' THEN player
        WHEN 'variant' THEN variant
        WHEN 'table size' THEN n_players || ' players'
        WHEN 'seat' THEN n_players || ' players, ' || ['button', '1st to act', '2nd to act', '3rd to act'][position + 1]
        ELSE CASE WHEN fantasyland THEN 'in Fantasyland' ELSE 'normal hands' END
    END AS "group",
    n_players, position, boards, fouled,
    fouled / boards AS foul_rate,
    wilson_low(fouled, boards) AS ci_low,
    wilson_high(fouled, boards) AS ci_high
FROM groups
ORDER BY list_position(['all', 'player', 'variant', 'table size', 'seat', 'fantasyland'], dimension),
    CASE WHEN dimension = 'player' THEN -boards END, n_players, (position + n_players - 1) % n_players,
    CASE WHEN dimension = 'fantasyland' THEN "group" = 'in Fantasyland' END, "group";
