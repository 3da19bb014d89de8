-- A player's hands worth a second look: fouled boards (the costliest first), biggest wins and losses, the
-- latest Fantasyland hands, and hands whose winner changes under a rule set compared (the latest first), up to
-- `hands` of each.
-- @param rules rules?: read every hand as if played under this rule set (by default: under its own rules)
-- @param compared rules[]: the rule sets whose winner changes are listed (every one asked for by default)
-- @param player text: the player
-- @param variant text?: only this variant
-- @param since date?: only hands played on or after this day (UTC)
-- @param hands int = 12: hands of each kind at most
WITH mine AS MATERIALIZED (
    SELECT hand_key, hand_id, session, hand_number, played_at, variant, points, fouled, fantasyland,
           fantasyland_cards, fantasyland_entry
    FROM scored_boards($rules, $player, $variant, $since)
),
changed AS (
    SELECT DISTINCT ON (hand_key) hand_key, rules
    FROM board_results
    WHERE list_contains($compared, rules_key) AND winner_seat <> native_winner_seat
      AND player = $player AND kept(player, variant, played_at, NULL, $variant, $since)
    ORDER BY hand_key, rules
),
listed AS (
    (SELECT 'fouled' AS kind, *, NULL AS rules FROM mine WHERE fouled ORDER BY points, played_at DESC LIMIT $hands)
    UNION ALL
    (SELECT 'biggest win', *, NULL FROM mine ORDER BY points DESC, played_at DESC LIMIT $hands)
    UNION ALL
    (SELECT 'biggest loss', *, NULL FROM mine ORDER BY points, played_at DESC LIMIT $hands)
    UNION ALL
    (SELECT 'fantasyland', *, NULL FROM mine WHERE fantasyland ORDER BY played_at DESC NULLS LAST LIMIT $hands)
    UNION ALL
    (SELECT 'winner changes', m.*, c.rules FROM mine m JOIN changed c USING (hand_key)
     ORDER BY m.played_at DESC NULLS LAST LIMIT $hands)
)
SELECT kind, hand_key, hand_id, session, hand_number, played_at, variant, points, fouled, fantasyland,
       fantasyland_cards, fantasyland_entry, rules AS changed_under
FROM listed
ORDER BY list_position(['fouled', 'biggest win', 'biggest loss', 'fantasyland', 'winner changes'], kind);
