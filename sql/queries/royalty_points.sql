-- Royalty points per hand (per board) by row, overall and by variant and player, with a 95% interval on the
-- total, and the share of boards that earned any royalty; fouled boards earn none and count as boards.
-- @param rules rules: the rule set whose results are read (the lake's first by default)
-- @param player text?: only this player's boards
-- @param variant text?: only this variant
-- @param since date?: only hands played on or after this day (UTC)
WITH by_id AS (
    SELECT
        player_id, variant, count(*) AS boards,
        sum(royalty_top) AS top, sum(royalty_middle) AS middle, sum(royalty_bottom) AS bottom,
        sum(royalty_top + royalty_middle + royalty_bottom) AS total,
        sum((royalty_top + royalty_middle + royalty_bottom)::BIGINT ** 2) AS squares,
        count(*) FILTER (WHERE royalty_top + royalty_middle + royalty_bottom > 0) AS with_royalty
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
    dimension, "group", boards,
    top / boards AS top, middle / boards AS middle, bottom / boards AS bottom,
    total / boards AS per_board,
    mean_margin(total, squares, boards) AS margin,
    with_royalty / boards AS share_with_royalty
FROM groups
ORDER BY list_position(['all', 'variant', 'player'], dimension), per_board DESC, "group";
