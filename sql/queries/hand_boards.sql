-- Every board of the hands asked for, as a hand viewer draws them: cards (top 3, middle 5, bottom 5 as codes),
-- the result under the rule set read (royalties per row, foul, natural, Fantasyland, net points) and where the
-- history records them, the street each card was placed at and the discards. Only the boards' own columns (the
-- hand's facts are the caller's): a lookup by hand decodes each column it reads in every row group that holds one
-- of the hands (over 10 M hands, 50 hands' boards took 1.5 s with sixteen columns, 0.4 s with four).
-- @param rules rules?: read every hand as if played under this rule set (by default: under its own rules)
-- @param hands text: the hands' keys (hand_key), comma-separated
WITH wanted AS (
    SELECT unnest(string_split($hands, ','))::UBIGINT AS hand_key
),
-- Each table is cut to the hands asked for before the two are joined: joining first reads every row of both.
results AS (
    SELECT * FROM scored_boards($rules, NULL, NULL, NULL) WHERE hand_key IN (SELECT hand_key FROM wanted)
),
placed AS (
    SELECT hand_key, seat, streets, discards, discard_streets FROM boards
    WHERE hand_key IN (SELECT hand_key FROM wanted)
)
SELECT
    r.hand_key, r.seat, r.position, r.player, r.cards, r.fouled, r.natural, r.surrendered,
    r.royalty_top, r.royalty_middle, r.royalty_bottom,
    r.fantasyland, r.fantasyland_cards, r.fantasyland_entry, r.fantasyland_stay, r.points,
    p.streets, p.discards, p.discard_streets
FROM results r
LEFT JOIN placed p ON p.hand_key = r.hand_key AND p.seat = r.seat
ORDER BY r.hand_key, r.position;
