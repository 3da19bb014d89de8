-- Fantasyland conversion in open-face hands (classic has none): normal hands and how many earned Fantasyland
-- (entry rate), Fantasyland hands by the cards dealt and how many stayed (stay rate), the foul rate and points per
-- hand of each, with 95% intervals (rates, foul rate, points); per variant and over all open-face variants (cards null: every card count).
-- @param rules rules?: read every hand as if played under this rule set (by default: under its own rules)
-- @param player text?: only this player's boards
-- @param variant text?: only this variant
-- @param since date?: only hands played on or after this day (UTC)
-- @param until date?: only hands played on or before this day (UTC)
WITH fine AS MATERIALIZED (
    SELECT
        variant, fantasyland,
        fantasyland_cards AS cards,  -- 0 out of Fantasyland
        sum(boards) AS hands,
        sum(entries) AS entries,
        sum(stays) AS stays,
        sum(fouls) AS fouls,
        sum(points) AS points,
        sum(squares) AS squares
    FROM scored_summary($rules, $player, $variant, $since, $until)
    GROUP BY ALL
    -- Only open-face hands have Fantasyland (the groups are filtered, not the boards: far fewer).
    HAVING variant IN (SELECT variant FROM variants WHERE open_face)
),
groups AS (
    SELECT 0 AS level, variant, fantasyland, CASE WHEN fantasyland THEN cards END AS cards,
           sum(COLUMNS(* EXCLUDE (variant, fantasyland, cards)))
    FROM fine GROUP BY ALL
    UNION ALL
    SELECT 1, variant, true, NULL, sum(COLUMNS(* EXCLUDE (variant, fantasyland, cards)))
    FROM fine WHERE fantasyland GROUP BY variant HAVING count(DISTINCT cards) > 1
    UNION ALL
    SELECT 2, 'all variants', fantasyland, NULL, sum(COLUMNS(* EXCLUDE (variant, fantasyland, cards)))
    FROM fine GROUP BY fantasyland
)
SELECT
    variant,
    CASE WHEN fantasyland THEN 'fantasyland' ELSE 'normal' END AS hand_kind,
    cards,
    hands,
    entries,
    CASE WHEN NOT fantasyland THEN entries / hands END AS entry_rate,
    CASE WHEN NOT fantasyland THEN wilson_low(entries, hands) END AS entry_ci_low,
    CASE WHEN NOT fantasyland THEN wilson_high(entries, hands) END AS entry_ci_high,
    stays,
    CASE WHEN fantasyland THEN stays / hands END AS stay_rate,
    CASE WHEN fantasyland THEN wilson_low(stays, hands) END AS stay_ci_low,
    CASE WHEN fantasyland THEN wilson_high(stays, hands) END AS stay_ci_high,
    fouls,
    fouls / hands AS foul_rate,
    wilson_low(fouls, hands) AS foul_ci_low,
    wilson_high(fouls, hands) AS foul_ci_high,
    points / hands AS points_per_hand,
    points / hands - mean_margin(points, squares, hands) AS points_ci_low,
    points / hands + mean_margin(points, squares, hands) AS points_ci_high
FROM groups
-- (by the columns shown, as every named query orders: the totals of every variant last)
ORDER BY variant = 'all variants', variant, hand_kind = 'fantasyland', cards NULLS FIRST;
