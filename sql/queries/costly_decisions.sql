-- The decisions that cost the most by ofc analyse's reckoning: the move played and the best move found, with their
-- expected points, the loss and its standard error, the costliest first.
-- @param player text?: only this player's decisions
-- @param variant text?: only this variant
-- @param since date?: only hands played on or after this day (UTC)
-- @param until date?: only hands played on or before this day (UTC)
-- @param analysis text?: the analysis to read, by its key; by default the one run last
-- @param decisions int = 20: decisions listed at most
SELECT
    d.hand_key, d.hand_id, h.session, h.hand_number, d.played_at, d.variant, d.player, d.seat, d.street, d.kind,
    cards_text(d.dealt) AS dealt, d.played, d.best, d.ev_played, d.ev_best, d.ev_lost, d.se, d.rollouts,
    d.rules_key, d.analysis
FROM weighed($analysis) d
JOIN hands h USING (hand_key)
WHERE kept(d.player, d.variant, d.played_at, $player, $variant, $since, $until)
ORDER BY d.ev_lost DESC, d.played_at DESC, d.hand_key, d.seat, d.street
LIMIT $decisions;
