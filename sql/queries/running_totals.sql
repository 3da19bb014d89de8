-- Running totals over hands: each player's net points as their hands accumulate, in the order played, in up to
-- `steps` points per player, for one player or for the players with the most hands. A player with few hands
-- (`exact` or fewer) has every hand in order (time, then session and hand number; hands with no time last); a
-- player with more has each session's hands of a day together, in the order the sessions began.
-- @param rules rules?: read every hand as if played under this rule set (by default: under its own rules)
-- @param player text?: only this player (else the players with the most hands)
-- @param variant text?: only this variant
-- @param since date?: only hands played on or after this day (UTC)
-- @param until date?: only hands played on or before this day (UTC)
-- @param featured text?: a player always shown (with the players with the most hands)
-- @param min_hands int = 1: leave out players with fewer hands (the featured player is always shown)
-- @param players int = 8: how many players at most
-- @param steps int = 300: points per player at most
-- @param exact int = 5000: the most hands a player may have to be drawn hand by hand
WITH span AS (
    SELECT player, sum(boards) AS hands
    FROM scored_summary($rules, $player, $variant, $since, $until)
    GROUP BY player
),
chosen AS (
    SELECT * FROM span
    WHERE hands >= $min_hands OR player = $featured
    ORDER BY player IS NOT DISTINCT FROM $featured DESC, hands DESC, player
    LIMIT $players
),
pieces AS (
    -- A player with few hands: each hand, their boards first and then those boards' results by key (none read
    -- when every player has more). Joined to the players chosen rather than filtered by them (IN): run for many
    -- players at once, a filter read every board of the lake (1.24 s and 1.37 GB for 60 players over 10 M
    -- hands, against 0.16 s and 60 MB joined).
    SELECT b.player, epoch_us(h.played_at) AS moment, h.session, h.hand_number, 1 AS hands, r.points
    FROM (SELECT player FROM chosen WHERE hands <= $exact) few
    JOIN boards b ON b.player = few.player
    JOIN board_results r ON r.hand_key = b.hand_key AND r.seat = b.seat
    JOIN hands h ON h.hand_key = b.hand_key
    WHERE ($variant IS NULL OR (b.variant = $variant AND h.variant = $variant))
      AND read_under($rules, r.native, r.rules_key)
      AND kept(b.player, r.variant, h.played_at, $player, $variant, $since, $until)
    UNION ALL
    -- A player with more: each session's hands together, in the order the sessions began (the summaries).
    SELECT player, epoch_us(min(first_played)), session, NULL, sum(boards), sum(points)
    FROM scored_sessions($rules, $player, $variant, $since, $until)
    WHERE player IN (SELECT player FROM chosen WHERE hands > $exact)
    GROUP BY player, session, day
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
