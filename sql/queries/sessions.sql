-- Cumulative results over a session: one player's points hand by hand through their latest sessions, with
-- the running total (a hand with no session recorded belongs to its day's session).
-- @param rules rules: the rule set whose results are read (the lake's first by default)
-- @param player text: the player
-- @param variant text?: only this variant
-- @param since date?: only hands played on or after this day (UTC)
-- @param sessions int = 6: how many of the latest sessions
-- @needs sessions
WITH mine AS (
    SELECT
        coalesce(session, 'day ' || CAST(DATE '1970-01-01' + CAST(epoch_us(played_at) // 86400000000 AS INTEGER)
            AS VARCHAR), 'unknown') AS session,
        hand_number, epoch_us(played_at) AS played_us, points
    FROM boards_of([$rules], $player, $variant, $since)
),
latest AS (
    SELECT session FROM mine GROUP BY session ORDER BY max(played_us) DESC NULLS LAST, session DESC LIMIT $sessions
)
SELECT
    session,
    row_number() OVER w AS hand,
    hand_number,
    points,
    sum(points) OVER w AS cumulative_points
FROM mine
WHERE session IN (SELECT session FROM latest)
WINDOW w AS (PARTITION BY session ORDER BY played_us NULLS LAST, hand_number ROWS UNBOUNDED PRECEDING)
ORDER BY session, hand;
