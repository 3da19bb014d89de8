-- Cumulative results over a session: one player's points hand by hand through their latest sessions, with
-- the running total (a hand with no session recorded belongs to its day's session).
-- @param rules rules?: read every hand as if played under this rule set (by default: under its own rules)
-- @param player text: the player
-- @param variant text?: only this variant
-- @param since date?: only hands played on or after this day (UTC)
-- @param until date?: only hands played on or before this day (UTC)
-- @param sessions int = 6: how many of the latest sessions
WITH latest AS (
    SELECT session_name(session, day) AS session, min(first_played) AS started
    FROM scored_sessions($rules, $player, $variant, $since, $until)
    GROUP BY 1
    ORDER BY max(last_played) DESC NULLS LAST, session DESC
    LIMIT $sessions
),
hands_in AS MATERIALIZED (
    -- The hands of those sessions (a bound on the time skips the hands files' earlier row groups; hands with no
    -- time recorded are read apart: an OR in the bound would keep them all). From the facts first, then the
    -- player's boards of those hands, then their results: the results are read by key for a few thousand boards,
    -- not joined whole to the facts. Joined to the sessions here, not after the boards, a few thousand hands meet
    -- the boards (run for 60 players over 10 M hands: 0.9 s of processor time, 1.1 s joining every hand since).
    SELECT h.hand_key, h.hand_number, h.played_at, l.session
    FROM hands h
    JOIN latest l ON session_name(h.session, utc_day(h.played_at)) = l.session
    WHERE h.played_at >= coalesce((SELECT min(started) FROM latest), TIMESTAMPTZ '0001-01-01 00:00:00+00')
      AND ($variant IS NULL OR h.variant = $variant)
      AND played_between(h.played_at, $since, $until)
    UNION ALL
    SELECT h.hand_key, h.hand_number, h.played_at, l.session
    FROM hands h
    JOIN latest l ON session_name(h.session, NULL) = l.session
    WHERE h.played_at IS NULL AND $since IS NULL AND $until IS NULL AND ($variant IS NULL OR h.variant = $variant)
),
mine AS MATERIALIZED (
    SELECT h.session, h.hand_number, h.played_at, b.hand_key, b.seat
    FROM hands_in h
    JOIN boards b ON b.hand_key = h.hand_key
    WHERE b.player = $player AND ($variant IS NULL OR b.variant = $variant)
)
SELECT
    m.session,
    row_number() OVER w AS hand,
    m.hand_number,
    r.points,
    sum(r.points) OVER w AS cumulative_points
FROM mine m
JOIN board_results r ON r.hand_key = m.hand_key AND r.seat = m.seat
WHERE read_under($rules, r.native, r.rules_key) AND ($variant IS NULL OR r.variant = $variant)
WINDOW w AS (PARTITION BY m.session ORDER BY m.played_at NULLS LAST, m.hand_number ROWS UNBOUNDED PRECEDING)
ORDER BY session, hand;
