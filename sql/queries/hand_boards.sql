-- Every board of the hands asked for, as a hand viewer draws them: cards (top 3, middle 5, bottom 5 as codes),
-- the result under the rule set read (royalties per row, foul, natural, Fantasyland, net points) and where the
-- history records them, the street each card was placed at and the discards; and the hand's id, session, number
-- and time, and each board's place after the button.
-- @param rules rules?: read every hand as if played under this rule set (by default: under its own rules)
-- @param hands text: the hands' keys (hand_key), comma-separated
-- @param variant text?: only hands of this variant (whose files alone are then read: found sooner)
-- @lookup hands (hand_id, session, hand_number, played_at, button, n_players): their facts
-- @lookup boards (seat, player, cards, fantasyland, fantasyland_cards, streets, discards, discard_streets): their boards
-- @lookup board_results under $rules: the results of those hands
WITH seated AS (
    SELECT
        b.*, h.hand_id, h.session, h.hand_number, h.played_at, h.n_players,
        coalesce(h.button, max(b.seat) OVER (PARTITION BY b.hand_key)) AS button_seat
    FROM wanted_boards b
    JOIN wanted_hands h USING (hand_key)
)
SELECT
    r.hand_key, s.hand_id, s.session, s.hand_number, s.played_at, r.seat,
    row_number() OVER (PARTITION BY r.hand_key ORDER BY (s.seat - s.button_seat + 255) % 256) % s.n_players
        AS position,
    s.player, s.cards, r.fouled, r.natural, r.surrendered,
    r.royalty_top, r.royalty_middle, r.royalty_bottom,
    s.fantasyland, CASE WHEN s.fantasyland THEN s.fantasyland_cards END AS fantasyland_cards,
    r.fantasyland_entry, r.fantasyland_stay, r.points,
    s.streets, s.discards, s.discard_streets
FROM wanted_board_results r
JOIN seated s ON s.hand_key = r.hand_key AND s.seat = r.seat
WHERE read_under($rules, r.native, r.rules_key)
  AND r.hand_key IN (SELECT unnest(string_split($hands, ','))::UBIGINT)
  AND ($variant IS NULL OR r.variant = $variant)
ORDER BY r.hand_key, position;
