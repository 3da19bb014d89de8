-- Running totals over hands: each player's net points as their hands accumulate, in the order played, in up to
-- `steps` points per player, for one player or for the players with the most hands. A player with few hands
-- (`exact` or fewer) has every hand in order (time, then session and hand number; hands with no time last); a
-- player with more has their span of time cut into fine slices, each slice's hands together.
-- @param rules rules?: read every hand as if played under this rule set (by default: under its own rules)
-- @param player text?: only this player (else the players with the most hands)
-- @param variant text?: only this variant
-- @param since date?: only hands played on or after this day (UTC)
-- @param featured text?: a player always shown (with the players with the most hands)
-- @param min_hands int = 1: leave out players with fewer hands (the featured player is always shown)
-- @param players int = 8: how many players at most
-- @param steps int = 300: points per player at most
-- @param exact int = 5000: the most hands a player may have to be drawn hand by hand
WITH boards AS (
    SELECT player, played_at, session, hand_number, points FROM scored_boards($rules, $player, $variant, $since)
),
span AS (
    SELECT player, count(*) AS hands, epoch_us(min(played_at)) AS first_t, epoch_us(max(played_at)) AS last_t
    FROM boards GROUP BY player
),
chosen AS (
    SELECT * FROM span
    WHERE hands >= $min_hands OR player = $featured
    ORDER BY player IS NOT DISTINCT FROM $featured DESC, hands DESC, player
    LIMIT $players
),
pieces AS (
    -- Slices of time are a hash aggregate, where an order of every hand by time would sort them all: over 10 M
    -- hands, 0.8 s against several seconds.
    SELECT
        b.player,
        CASE WHEN c.hands <= $exact THEN epoch_us(b.played_at)
             ELSE c.first_t + (epoch_us(b.played_at) - c.first_t) * ($steps * 20) // (c.last_t - c.first_t + 1)
        END AS moment,
        CASE WHEN c.hands <= $exact THEN b.session END AS session,
        CASE WHEN c.hands <= $exact THEN b.hand_number END AS hand_number,
        count(*) AS hands,
        sum(b.points) AS points
    FROM boards b JOIN chosen c USING (player)
    GROUP BY ALL
),
running AS (
    SELECT player, sum(hands) OVER w AS hands, sum(points) OVER w AS points, sum(hands) OVER (PARTITION BY player) AS total
    FROM pieces
    WINDOW w AS (PARTITION BY player ORDER BY moment NULLS LAST, session, hand_number ROWS UNBOUNDED PRECEDING)
)
SELECT player, max(hands) AS hands, arg_max(points, hands) AS points
FROM running
GROUP BY player, hands * $steps // total
ORDER BY player, hands;
