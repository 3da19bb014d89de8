-- Cumulative results over a session: one player's points hand by hand through their latest sessions, with
-- the running total (a hand with no session recorded belongs to its day's session).
-- @param rules rules?: read every hand as if played under this rule set (by default: under its own rules)
-- @param player text: the player
-- @param variant text?: only this variant
-- @param since date?: only hands played on or after this day (UTC)
-- @param sessions int = 6: how many of the latest sessions
WITH latest AS (
    SELECT coalesce(session, 'day ' || CAST(day AS VARCHAR), 'unknown') AS session, min(first_played) AS started
    FROM scored_sessions($rules, $player, $variant, $since)
    GROUP BY 1
    ORDER BY max(last_played) DESC NULLS LAST, session DESC
    LIMIT $sessions
),
mine AS (
    -- Only the hands from the first of those sessions on: a bound on the time skips the files' earlier row groups
    -- (hands with no time recorded are read apart: an OR in the bound would keep them all).
    SELECT
        coalesce(session, 'day ' || CAST(CAST(timezone('UTC', played_at) AS DATE) AS VARCHAR), 'unknown') AS session,
        hand_number, played_at, points
    FROM boards_under($rules, $player, $variant, $since)
    WHERE played_at >= coalesce((SELECT min(started) FROM latest), TIMESTAMPTZ '0001-01-01 00:00:00+00')
    UNION ALL
    SELECT 'unknown', hand_number, played_at, points
    FROM boards_under($rules, $player, $variant, $since)
    WHERE played_at IS NULL AND session IS NULL
    UNION ALL
    SELECT session, hand_number, played_at, points
    FROM boards_under($rules, $player, $variant, $since)
    WHERE played_at IS NULL AND session IS NOT NULL
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
