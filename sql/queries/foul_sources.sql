-- Where fouls come from, per variant, for all players (player null, group 'all players') and each: how much each
-- street and kind of decision raised the board's chance of fouling, by ofc analyse's rollouts (foul_played and
-- foul_best: the chance that the board ends fouled after the move played and after the best move found).
-- dimension 'street' (street; Fantasyland settings on a row of street null, kind 'fantasyland') and 'kind'
-- (initial, placement, discard, fantasyland): decisions weighed and the boards they were made on; foul_played and
-- foul_best, their means: the chance of fouling after that street as played and with the best move; foul_added,
-- the mean of foul_played - foul_best, the chance the decisions added, with its 95% interval over decisions
-- (added_low, added_high; below 0 where the best move, best in points, risks a foul more often).
-- dimension 'cause_street' and 'cause_kind' (streets and kinds as above): the analysed boards that fouled as
-- played (played_boards; one not rescored counts as not fouled), each under its decision that raised the chance
-- most, or, when none added more than 0.05 (rollout noise), under kind 'none: the cards' (street null), as the
-- macro raised_most puts them. boards: the fouled boards of that cause; share: of all fouled boards, with its 95%
-- Wilson interval (share_low, share_high); decisions, foul_played, foul_best, foul_added and its interval: those
-- of the causing decisions.
-- Every row: analysed_boards and fouled_boards, the variant's (and player's) boards weighed and those that fouled.
-- An analysis by a method without foul chances (before v3) gives no rows.
-- @param player text?: only this player's boards
-- @param variant text?: only this variant
-- @param since date?: only hands played on or after this day (UTC)
-- @param until date?: only hands played on or before this day (UTC)
-- @param analysis text?: the analysis to read, by its key (r32-m5-s0-v3); by default the one run last
WITH boards AS (
    SELECT a.hand_key, a.seat, a.variant, a.player
    FROM analysed($analysis) a
    WHERE kept(a.player, a.variant, a.played_at, $player, $variant, $since, $until)
),
decided AS MATERIALIZED (
    SELECT
        b.variant, b.player, b.hand_key, b.seat, d.kind,
        CASE WHEN d.kind <> 'fantasyland' THEN d.street END AS street,
        d.foul_played, d.foul_best, d.foul_played - d.foul_best AS added
    FROM boards b
    JOIN weighed($analysis) d ON d.hand_key = b.hand_key AND d.seat = b.seat
    WHERE d.foul_played IS NOT NULL
),
weighed_boards AS MATERIALIZED (
    -- Every board weighed, once, with its decision that raised the chance most (raised_most).
    SELECT *
    FROM raised_most($analysis)
    WHERE kept(player, variant, played_at, $player, $variant, $since, $until)
),
causes AS (
    SELECT variant, player, hand_key, seat, cause_street AS street, cause_kind AS kind, foul_played, foul_best, added
    FROM weighed_boards
    WHERE fouled
),
tagged AS (
    SELECT 'street' AS dimension, variant, player, hand_key, seat, street,
           CASE WHEN street IS NULL THEN kind END AS kind, foul_played, foul_best, added
    FROM decided
    UNION ALL
    SELECT 'kind', variant, player, hand_key, seat, NULL, kind, foul_played, foul_best, added
    FROM decided
    UNION ALL
    SELECT 'cause_street', variant, player, hand_key, seat, street,
           CASE WHEN street IS NULL THEN kind END, foul_played, foul_best, added
    FROM causes
    UNION ALL
    SELECT 'cause_kind', variant, player, hand_key, seat, NULL, kind, foul_played, foul_best, added
    FROM causes
),
groups AS (
    SELECT
        dimension, variant, player, street, kind,
        count(DISTINCT (hand_key, seat)) AS boards,
        count(added) AS decisions,
        avg(foul_played) AS foul_played,
        avg(foul_best) AS foul_best,
        sum(added) AS added,
        sum(added * added) AS added_squares
    FROM tagged
    GROUP BY GROUPING SETS ((dimension, variant, player, street, kind), (dimension, variant, street, kind))
),
totals AS (
    SELECT variant, player, count(*) AS analysed_boards, count(*) FILTER (WHERE fouled) AS fouled_boards
    FROM weighed_boards
    GROUP BY GROUPING SETS ((variant, player), (variant))
),
shown AS (
    SELECT
        g.variant,
        coalesce(g.player, 'all players') AS "group",
        g.player, g.dimension, g.street, g.kind, g.boards, g.decisions,
        g.foul_played, g.foul_best,
        g.added / g.decisions AS foul_added,
        g.added / g.decisions - mean_margin(g.added, g.added_squares, g.decisions) AS added_low,
        g.added / g.decisions + mean_margin(g.added, g.added_squares, g.decisions) AS added_high,
        CASE WHEN g.dimension LIKE 'cause%' THEN g.boards / t.fouled_boards END AS share,
        CASE WHEN g.dimension LIKE 'cause%' THEN wilson_low(g.boards, t.fouled_boards) END AS share_low,
        CASE WHEN g.dimension LIKE 'cause%' THEN wilson_high(g.boards, t.fouled_boards) END AS share_high,
        t.analysed_boards, t.fouled_boards
    FROM groups g
    JOIN totals t ON t.variant = g.variant AND t.player IS NOT DISTINCT FROM g.player
)
SELECT * FROM shown
ORDER BY variant, player IS NOT NULL, -analysed_boards, player,
    list_position(['street', 'kind', 'cause_street', 'cause_kind'], dimension), street NULLS LAST,
    list_position(['initial', 'placement', 'discard', 'fantasyland', 'none: the cards'], kind);
