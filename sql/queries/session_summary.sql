-- One player's sessions: the day, the table and its size, the hands played, net points, boards fouled and
-- Fantasyland entries earned, latest first (a hand with no session recorded belongs to its day's session).
-- @param rules rules?: read every hand as if played under this rule set (by default: under its own rules)
-- @param player text: the player
-- @param variant text?: only this variant
-- @param since date?: only hands played on or after this day (UTC)
-- @param sessions int = 200: how many of the latest sessions
WITH mine AS (
    SELECT
        b.hand_key, b.variant, b.n_players, b.played_at, b.points, b.fouled, b.fantasyland_entry, b.fantasyland,
        coalesce(b.session, 'day ' || CAST(CAST(timezone('UTC', b.played_at) AS DATE) AS VARCHAR), 'unknown')
            AS session
    FROM scored_boards($rules, $player, $variant, $since) b
),
per AS (
    SELECT
        session,
        CAST(timezone('UTC', min(played_at)) AS DATE) AS day,
        min(played_at) AS started,
        string_agg(DISTINCT variant, ', ' ORDER BY variant) AS variant,
        max(n_players) AS players,
        count(*) AS hands,
        sum(points) AS points,
        count(*) FILTER (WHERE fouled) AS fouls,
        count(*) FILTER (WHERE fantasyland_entry) AS fantasyland_entries,
        count(*) FILTER (WHERE fantasyland) AS fantasyland_hands,
        any_value(hand_key) AS some_hand
    FROM mine
    GROUP BY session
    ORDER BY started DESC NULLS LAST, session DESC
    LIMIT $sessions
)
SELECT
    p.session, p.day, h."table", p.variant, p.players, p.hands, p.points, p.points / p.hands AS points_per_hand,
    p.fouls, p.fouls / p.hands AS foul_rate, p.fantasyland_entries, p.fantasyland_hands
FROM per p
LEFT JOIN hands h ON h.hand_key = p.some_hand
ORDER BY p.started DESC NULLS LAST, p.session DESC;
