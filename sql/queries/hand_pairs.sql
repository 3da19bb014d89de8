-- Every pair of boards of the hands asked for: how it was settled, each row's result from A's side (+1 A won,
-- -1 B won, 0 a tie), the scoop, both players' royalties and A's points against B; and each board's net points
-- under the rule sets compared (player_b null), so that a viewer shows what the hand would have paid.
-- @param rules rules?: read every hand as if played under this rule set (by default: under its own rules)
-- @param compared rules[]: the rule sets whose points are shown beside (every one asked for by default)
-- @param hands text: the hands' keys (hand_key), comma-separated
-- @lookup pair_results under $rules: the pairs of those hands
-- @lookup board_results under $compared: their boards' points under the rule sets compared
WITH wanted AS (
    SELECT unnest(string_split($hands, ','))::UBIGINT AS hand_key
)
SELECT
    hand_key, rules, player_a, player_b, seat_a, seat_b, settled, row_top, row_middle, row_bottom, scoop,
    royalties_a, royalties_b, points
FROM wanted_pair_results
WHERE read_under($rules, native, rules_key)
  AND hand_key IN (SELECT hand_key FROM wanted)
UNION ALL
SELECT hand_key, rules, player, NULL, seat, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, points
FROM wanted_board_results
WHERE list_contains($compared, rules_key) AND hand_key IN (SELECT hand_key FROM wanted)
ORDER BY hand_key, player_b IS NULL, rules, seat_a, seat_b;
