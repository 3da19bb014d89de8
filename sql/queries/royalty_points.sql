-- Royalty points per hand (per board) by row, overall and by variant and player, with a 95% interval on the
-- total, and the share of boards that earned any royalty; fouled boards earn none and count as boards.
-- @param rules rules?: read every hand as if played under this rule set (by default: under its own rules)
-- @param player text?: only this player's boards
-- @param variant text?: only this variant
-- @param since date?: only hands played on or after this day (UTC)
-- @param until date?: only hands played on or before this day (UTC)
WITH fine AS MATERIALIZED (
    SELECT
        player, variant, sum(boards) AS boards,
        sum(royalty_top) AS top, sum(royalty_middle) AS middle, sum(royalty_bottom) AS bottom,
        sum(royalty_top + royalty_middle + royalty_bottom) AS total,
        sum(royalty_squares) AS squares,
        sum(with_royalty) AS with_royalty
    FROM scored_summary($rules, $player, $variant, $since, $until)
    GROUP BY ALL
),
groups AS (SELECT * FROM by_variant_and_player('fine'))
SELECT
    dimension, "group", boards,
    top / boards AS top, middle / boards AS middle, bottom / boards AS bottom,
    total / boards AS per_board,
    mean_margin(total, squares, boards) AS margin,
    with_royalty / boards AS share_with_royalty
FROM groups
ORDER BY list_position(['all', 'variant', 'player'], dimension), per_board DESC, "group";
