-- The id, session, number and time of each hand asked for: what a list of hands shows of each beside its key,
-- read without its boards or results (a page that opens each hand on a page of its own).
-- @param hands text: the hands' keys (hand_key), comma-separated
-- @param variant text?: only hands of this variant (whose files alone are then read: found sooner)
-- @lookup hands (hand_id, session, hand_number, played_at): their facts
SELECT hand_key, hand_id, session, hand_number, played_at
FROM wanted_hands
WHERE hand_key IN (SELECT unnest(string_split($hands, ','))::UBIGINT)
  AND ($variant IS NULL OR variant = $variant)
ORDER BY hand_key;
