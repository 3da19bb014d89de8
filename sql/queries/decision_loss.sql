-- EV lost: the expected points each player's decisions gave up against the best move ofc analyse found, per hand
-- played (every analysed board counts, its decisions summed), with a 95% interval over hands; for all players and
-- each one, in all (dimension 'hand'), by street and by kind of decision (initial five, placement, placement
-- with a discard, Fantasyland setting). mistakes: decisions that lost more than a point, beyond twice their
-- standard error. mc_se: the part of the per-hand figure's standard error that comes from the rollouts.
-- @param player text?: only this player's boards
-- @param variant text?: only this variant
-- @param since date?: only hands played on or after this day (UTC)
-- @param until date?: only hands played on or before this day (UTC)
-- @param analysis text?: the analysis to read, by its key (r32-m5-s0-v3); by default the one run last
WITH boards AS MATERIALIZED (
    SELECT hand_key, seat, player
    FROM analysed($analysis)
    WHERE kept(player, variant, played_at, $player, $variant, $since, $until)
),
counted AS (
    SELECT player, count(*) AS hands FROM boards GROUP BY ALL
    UNION ALL
    SELECT NULL, count(*) FROM boards
),
per_board AS (
    -- Each board's loss in all, at each street and in each kind of decision.
    SELECT
        CASE WHEN grouping(d.street) = 0 THEN 'street' WHEN grouping(d.kind) = 0 THEN 'kind' ELSE 'hand' END
            AS dimension,
        b.player, d.street, d.kind,
        sum(d.ev_lost) AS lost, sum(d.se * d.se) AS variance, count(*) AS decisions,
        count(*) FILTER (WHERE d.ev_lost > 1 AND d.ev_lost > 2 * d.se) AS mistakes
    FROM boards b
    JOIN weighed($analysis) d ON d.hand_key = b.hand_key AND d.seat = b.seat
    GROUP BY GROUPING SETS ((b.player, b.hand_key, b.seat), (b.player, b.hand_key, b.seat, d.street),
                            (b.player, b.hand_key, b.seat, d.kind))
),
groups AS (
    SELECT dimension, player, street, kind, sum(lost) AS lost, sum(lost * lost) AS squares,
           sum(variance) AS variance, sum(decisions) AS decisions, sum(mistakes) AS mistakes
    FROM per_board
    GROUP BY GROUPING SETS ((dimension, player, street, kind), (dimension, street, kind))
),
shown AS (
    SELECT
        g.dimension,
        coalesce(g.player, 'all players') AS "group",
        g.player, g.street, g.kind, h.hands, g.decisions, g.mistakes,
        g.lost / h.hands AS ev_lost_per_hand,
        g.lost / h.hands - mean_margin(g.lost, g.squares, h.hands) AS ci_low,
        g.lost / h.hands + mean_margin(g.lost, g.squares, h.hands) AS ci_high,
        g.lost / g.decisions AS ev_lost_per_decision,
        sqrt(g.variance) / h.hands AS mc_se
    FROM groups g
    JOIN counted h ON h.player IS NOT DISTINCT FROM g.player
)
SELECT * FROM shown
ORDER BY player IS NOT NULL, -hands, player, list_position(['hand', 'street', 'kind'], dimension), street,
    list_position(['initial', 'placement', 'discard', 'fantasyland'], kind);
