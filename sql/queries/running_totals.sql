-- Running totals over hands: each player's net points as their hands accumulate, in up to `steps` points per
-- player (hands are taken in the order played; hands played at the same moment share a point), for one player or
-- for the players with the most hands. Hands with no time recorded are left out.
-- @param rules rules?: read every hand as if played under this rule set (by default: under its own rules)
-- @param player text?: only this player (else the players with the most hands)
-- @param variant text?: only this variant
-- @param since date?: only hands played on or after this day (UTC)
-- @param featured text?: a player always shown (with the players with the most hands)
-- @param min_hands int = 1: leave out players with fewer hands (the featured player is always shown)
-- @param players int = 8: how many players at most
-- @param steps int = 300: points per player at most
WITH timed AS (
    SELECT player, epoch_us(played_at) AS t, points
    FROM scored_boards($rules, $player, $variant, $since)
    WHERE played_at IS NOT NULL
),
span AS (
    SELECT player, count(*) AS hands, min(t) AS first_t, max(t) AS last_t FROM timed GROUP BY player
),
chosen AS (
    SELECT * FROM span
    WHERE hands >= $min_hands OR player = $featured
    ORDER BY player IS NOT DISTINCT FROM $featured DESC, hands DESC, player
    LIMIT $players
),
steps AS (
    -- A step is an equal slice of the player's span of time: a hash aggregate, where an order of every hand
    -- by time would sort them all.
    SELECT t.player, (t.t - c.first_t) * $steps // (c.last_t - c.first_t + 1) AS step, count(*) AS hands,
           sum(t.points) AS points
    FROM timed t JOIN chosen c USING (player)
    GROUP BY ALL
)
SELECT
    player,
    step,
    sum(hands) OVER w AS hands,
    sum(points) OVER w AS points
FROM steps
WINDOW w AS (PARTITION BY player ORDER BY step)
ORDER BY player, step;
