-- One player's sessions: the day, the table and its size, the hands played, net points, boards fouled and
-- Fantasyland entries earned, and when its first hand was played (started), latest first (a hand with no session
-- recorded belongs to its day's session).
-- @param rules rules?: read every hand as if played under this rule set (by default: under its own rules)
-- @param player text: the player
-- @param variant text?: only this variant
-- @param since date?: only hands played on or after this day (UTC)
-- @param until date?: only hands played on or before this day (UTC)
-- @param sessions int = 200: how many of the latest sessions
WITH mine AS (
    SELECT * REPLACE (session_name(session, day) AS session)
    FROM scored_sessions($rules, $player, $variant, $since, $until)
),
per AS (
    SELECT
        session,
        min(day) AS day,
        min(first_played) AS started,
        string_agg(DISTINCT variant, ', ' ORDER BY variant) AS variant,
        max(n_players) AS players,
        sum(boards) AS hands,
        sum(points) AS points,
        sum(fouls) AS fouls,
        sum(entries) AS fantasyland_entries,
        sum(fantasyland_hands) AS fantasyland_hands,
        arg_min(first_hand, first_played) AS first_hand
    FROM mine
    GROUP BY session
    ORDER BY started DESC NULLS LAST, session DESC
    LIMIT $sessions
)
SELECT
    p.session, p.day, h."table", p.variant, p.players, p.hands, p.points, p.points / p.hands AS points_per_hand,
    p.fouls, p.fouls / p.hands AS foul_rate, p.fantasyland_entries, p.fantasyland_hands, p.started
FROM per p
-- The hand played first names the table; its time lets the join skip the hands' other row groups.
LEFT JOIN hands h ON h.hand_key = p.first_hand AND h.played_at = p.started
ORDER BY started DESC NULLS LAST, session DESC;
