-- Cumulative results over a session: one player's points hand by hand through their latest sessions, with
-- the running total (a hand with no session recorded belongs to its day's session).
-- @param rules rules?: read every hand as if played under this rule set (by default: under its own rules)
-- @param player text: the player
-- @param variant text?: only this variant
-- @param since date?: only hands played on or after this day (UTC)
-- @param sessions int = 6: how many of the latest sessions
WITH mine AS (
    SELECT
        coalesce(session, 'day ' || CAST(CAST(timezone('UTC', played_at) AS DATE) AS VARCHAR), 'unknown') AS session,
        hand_number, played_at, points
    FROM scored_boards($rules, $player, $variant, $since)
),
latest AS (
    SELECT session FROM mine GROUP BY session ORDER BY max(played_at) DESC NULLS LAST, session DESC LIMIT $sessions
)
SELECT
    session,
    row_number() OVER w AS hand,
    hand_number,
    points,
    sum(points) OVER w AS cumulative_points
FROM mine
WHERE session IN (SELECT session FROM latest)
WINDOW w AS (PARTITION BY session ORDER BY played_at NULLS LAST, hand_number ROWS UNBOUNDED PRECEDING)
ORDER BY session, hand;
