-- Every pair of boards of the hands asked for: how it was settled, each row's result from A's side (+1 A won,
-- -1 B won, 0 a tie), the scoop, both players' royalties and A's points against B; and each board's net points
-- under the rule sets compared (player_b null), so that a viewer shows what the hand would have paid.
-- @param rules rules?: read every hand as if played under this rule set (by default: under its own rules)
-- @param compared rules[]: the rule sets whose points are shown beside (every one asked for by default)
-- @param hands text: the hands' keys (hand_key), comma-separated
-- @param variant text?: only hands of this variant (whose files alone are then read: found sooner)
-- @lookup board_results: their boards' royalties under the rules read, and their points under the rule sets compared
-- @lookup pair_results under $rules: the pairs of those hands
-- @lookup boards (seat, player): their players
WITH wanted AS (
    SELECT unnest(string_split($hands, ','))::UBIGINT AS hand_key
),
results AS (
    SELECT r.*, b.player
    FROM wanted_board_results r
    JOIN wanted_boards b ON b.hand_key = r.hand_key AND b.seat = r.seat
)
SELECT
    p.hand_key, p.rules, a.player AS player_a, b.player AS player_b, p.seat_a, p.seat_b, p.settled,
    p.row_top, p.row_middle, p.row_bottom, p.scoop,
    a.royalty_top + a.royalty_middle + a.royalty_bottom AS royalties_a,
    b.royalty_top + b.royalty_middle + b.royalty_bottom AS royalties_b,
    p.points
FROM wanted_pair_results p
JOIN results a ON a.rules_key = p.rules_key AND a.hand_key = p.hand_key AND a.seat = p.seat_a
JOIN results b ON b.rules_key = p.rules_key AND b.hand_key = p.hand_key AND b.seat = p.seat_b
WHERE read_under($rules, p.native, p.rules_key)
  AND p.hand_key IN (SELECT hand_key FROM wanted) AND ($variant IS NULL OR p.variant = $variant)
UNION ALL
SELECT hand_key, rules, player, NULL, seat, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, points
FROM results
WHERE list_contains($compared, rules_key) AND hand_key IN (SELECT hand_key FROM wanted)
  AND ($variant IS NULL OR variant = $variant)
ORDER BY hand_key, player_b IS NULL, rules, seat_a, seat_b;
