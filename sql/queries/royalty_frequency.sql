-- Royalty frequency: for each rule set read, row and royalty it pays, the hand that earns it, how many boards
-- made it, how often (per board, with a 95% Wilson interval) and its points per board; each row's boards with
-- none too. Read as played, each hand's own rule set counts its own boards.
-- @param rules rules?: read every hand as if played under this rule set (by default: under its own rules)
-- @param player text?: only this player's boards
-- @param variant text?: only this variant
-- @param since date?: only hands played on or after this day (UTC)
-- @param until date?: only hands played on or before this day (UTC)
WITH made AS MATERIALIZED (
    SELECT rules, rules_key, replace(counted, 'royalty_', '') AS row, value AS points, sum(boards) AS n
    FROM scored_counts($rules, $player, $variant, $since, $until)
    WHERE counted IN ('royalty_top', 'royalty_middle', 'royalty_bottom')
    GROUP BY ALL
),
total AS (SELECT rules_key, sum(n) AS boards FROM made WHERE row = 'top' GROUP BY rules_key),
shown AS (
    SELECT
        m.rules,
        m.rules_key,
        m.row,
        coalesce(h.category, CASE WHEN m.points = 0 THEN 'no royalty' ELSE 'other' END) AS category,
        coalesce(h.hand, CASE WHEN m.points = 0 THEN 'no royalty' ELSE m.points || ' points' END) AS hand,
        m.points,
        m.n AS boards_made,
        t.boards,
        m.n / t.boards AS frequency,
        wilson_low(m.n, t.boards) AS ci_low,
        wilson_high(m.n, t.boards) AS ci_high,
        m.n * m.points / t.boards AS points_per_board
    FROM made m
    JOIN total t USING (rules_key)
    LEFT JOIN royalty_hands h ON h.rules_key = m.rules_key AND h.row = m.row AND h.points = m.points
)
SELECT * FROM shown
ORDER BY boards DESC, rules_key, list_position(['top', 'middle', 'bottom'], "row"), points;
