-- A player's hands worth a second look: fouled boards (the costliest first), biggest wins and losses (hands won
-- and lost, the most points first), the latest Fantasyland hands, and hands whose winner changes under a rule set
-- compared (the latest first), up to `hands` of each; ties go to the latest hand, then the lowest key. What
-- orders them only: the hands' ids, sessions and boards are read for these few hands by the query hand_boards.
-- Up to notable_per_month() hands of each kind (12) and neither a first nor a last day, the candidates come from
-- notable_boards, which keeps that many of each kind per player, variant and month: the first of any span of whole
-- months are among them. Otherwise (a day cuts a month, whose first boards may all lie outside the days asked
-- for) they are found among every board.
-- @param rules rules?: read every hand as if played under this rule set (by default: under its own rules)
-- @param compared rules[]: the rule sets whose winner changes are listed (every one asked for by default)
-- @param player text: the player
-- @param variant text?: only this variant
-- @param since date?: only hands played on or after this day (UTC)
-- @param until date?: only hands played on or before this day (UTC)
-- @param hands int = 12: hands of each kind at most
WITH mine AS MATERIALIZED (
    SELECT kind, hand_key, played_at, variant, rules AS scored_under, points, fouled, fantasyland, fantasyland_cards,
           fantasyland_entry
    FROM scored_notable($rules, $player, $variant, $since, $until)
    WHERE notable_kept($hands, $since, $until) AND kind <> 'winner changes'
    UNION ALL
    SELECT k.kind, b.hand_key, b.played_at, b.variant, b.rules, b.points, b.fouled, b.fantasyland,
           b.fantasyland_cards, b.fantasyland_entry
    FROM (SELECT 1 AS go WHERE NOT notable_kept($hands, $since, $until)) gate  -- no row: the results are not read
    JOIN boards_under($rules, $player, $variant, $since, $until) b ON gate.go = 1
    JOIN (VALUES ('fouled'), ('biggest win'), ('biggest loss'), ('fantasyland')) k(kind)
      ON CASE k.kind WHEN 'fouled' THEN b.fouled WHEN 'biggest win' THEN b.points > 0
                     WHEN 'biggest loss' THEN b.points < 0 ELSE b.fantasyland END
),
changed AS (
    -- Each hand whose winner changes, with the first rule set by name it changes under. A hand among the latest
    -- is among the latest of its month under every rule set it changes under: the candidates name them all, with
    -- the board as played (null in lakes rescored before notable_boards kept it). Only the rows of the latest
    -- hands are grouped by hand (for 60 players over 10 M hands: 0.8 s of processor time grouping every candidate,
    -- 0.5 s): a hand has a row per rule set, and more for a player seated twice (two names read as one).
    SELECT DISTINCT ON (hand_key) *
    FROM (
        SELECT *
        FROM (
            SELECT hand_key, rules, played_at, variant, fantasyland, fantasyland_cards, native_points,
                   native_fouled, native_fantasyland_entry, native_rules
            FROM notable_boards
            WHERE notable_kept($hands, $since, $until) AND kind = 'winner changes'
              AND list_contains($compared, rules_key)
              AND summary_kept(player, variant, day, $player, $variant, $since, $until)
            UNION ALL
            SELECT c.hand_key, c.rules, c.played_at, c.variant, NULL, NULL, NULL, NULL, NULL, NULL
            FROM (SELECT 1 AS go WHERE NOT notable_kept($hands, $since, $until)) gate
            JOIN boards_compared($variant) c ON gate.go = 1
            WHERE list_contains($compared, c.rules_key)
              AND c.winner_seat <> c.native_winner_seat AND c.player = $player
              AND kept_of_anyone(c.variant, c.played_at, $variant, $since, $until)
        )
        QUALIFY dense_rank() OVER (ORDER BY played_at DESC NULLS LAST, hand_key) <= $hands
    )
    ORDER BY hand_key, rules
),
latest AS (
    SELECT *, rules AS changed_under, $rules IS NULL AND native_points IS NOT NULL AS as_played
    FROM changed
    ORDER BY played_at DESC NULLS LAST, hand_key
    LIMIT $hands
),
changed_boards AS (
    -- The latest of them under the rules read: read as played, the candidates hold the boards; otherwise their
    -- results are found by key, then the player's boards and the hands' facts of those few hands.
    SELECT hand_key, played_at, variant, native_rules AS rules, native_points AS points, native_fouled AS fouled, fantasyland,
           CASE WHEN fantasyland AND fantasyland_cards > 0 THEN fantasyland_cards END AS fantasyland_cards,
           native_fantasyland_entry AS fantasyland_entry, changed_under
    FROM latest
    WHERE as_played
    UNION ALL
    SELECT r.hand_key, h.played_at, r.variant, r.rules, r.points, r.fouled, b.fantasyland,
           CASE WHEN b.fantasyland AND b.fantasyland_cards > 0 THEN b.fantasyland_cards END AS fantasyland_cards,
           r.fantasyland_entry, l.changed_under
    FROM (SELECT * FROM latest WHERE NOT as_played) l
    JOIN board_results r ON r.hand_key = l.hand_key
    JOIN boards b ON b.hand_key = r.hand_key AND b.seat = r.seat
    JOIN hands h ON h.hand_key = r.hand_key
    WHERE read_under($rules, r.native, r.rules_key) AND b.player = $player
      -- the variant's folders only, where one is asked for
      AND ($variant IS NULL OR (r.variant = $variant AND b.variant = $variant AND h.variant = $variant))
),
listed AS (
    -- Each kind's hands in its own order (rank), kept by the final ORDER BY.
    (SELECT 'fouled' AS kind, row_number() OVER (ORDER BY points, played_at DESC NULLS LAST, hand_key) AS rank,
            * EXCLUDE (kind), NULL AS changed_under
     FROM mine WHERE kind = 'fouled' ORDER BY rank LIMIT $hands)
    UNION ALL
    (SELECT 'biggest win', row_number() OVER (ORDER BY points DESC, played_at DESC NULLS LAST, hand_key),
            * EXCLUDE (kind), NULL
     FROM mine WHERE kind = 'biggest win' ORDER BY 2 LIMIT $hands)
    UNION ALL
    (SELECT 'biggest loss', row_number() OVER (ORDER BY points, played_at DESC NULLS LAST, hand_key),
            * EXCLUDE (kind), NULL
     FROM mine WHERE kind = 'biggest loss' ORDER BY 2 LIMIT $hands)
    UNION ALL
    (SELECT 'fantasyland', row_number() OVER (ORDER BY played_at DESC NULLS LAST, hand_key), * EXCLUDE (kind), NULL
     FROM mine WHERE kind = 'fantasyland' ORDER BY 2 LIMIT $hands)
    UNION ALL
    (SELECT 'winner changes', row_number() OVER (ORDER BY played_at DESC NULLS LAST, hand_key), *
     FROM changed_boards ORDER BY 2 LIMIT $hands)
)
SELECT kind, hand_key, played_at, variant, scored_under, points, fouled, fantasyland, fantasyland_cards,
       fantasyland_entry, changed_under
FROM listed
-- each kind in its rank's order, said by the columns shown
ORDER BY list_position(['fouled', 'biggest win', 'biggest loss', 'fantasyland', 'winner changes'], kind),
    CASE WHEN kind = 'biggest win' THEN -points WHEN kind IN ('fouled', 'biggest loss') THEN points END,
    played_at DESC NULLS LAST, hand_key;
