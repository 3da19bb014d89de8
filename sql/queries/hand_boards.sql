-- Every board of the hands asked for, as a hand viewer draws them: cards (top 3, middle 5, bottom 5 as codes),
-- the result under the rule set read (royalties per row, foul, natural, Fantasyland, net points) and where the
-- history records them, the street each card was placed at and the discards; and the hand's id, session, number
-- and time.
-- @param rules rules?: read every hand as if played under this rule set (by default: under its own rules)
-- @param hands text: the hands' keys (hand_key), comma-separated
-- @lookup board_results under $rules: the results of those hands
-- @lookup boards (seat, streets, discards, discard_streets): their placements and discards
SELECT
    r.hand_key, r.hand_id, r.session, r.hand_number, r.played_at, r.seat, r.position, r.player, r.cards, r.fouled, r.natural, r.surrendered,
    r.royalty_top, r.royalty_middle, r.royalty_bottom,
    r.fantasyland, r.fantasyland_cards, r.fantasyland_entry, r.fantasyland_stay, r.points,
    p.streets, p.discards, p.discard_streets
FROM wanted_board_results r
LEFT JOIN wanted_boards p ON p.hand_key = r.hand_key AND p.seat = r.seat
WHERE read_under($rules, r.native, r.rules_key)
  AND r.hand_key IN (SELECT unnest(string_split($hands, ','))::UBIGINT)
ORDER BY r.hand_key, r.position;
