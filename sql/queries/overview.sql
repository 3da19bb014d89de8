-- Overview: hands in the lake and the boards dealt in them (narrowed: the boards kept), the first and last day
-- played (UTC), per variant and over all variants.
-- @param player text?: only hands this player played in
-- @param variant text?: only this variant
-- @param since date?: only hands played on or after this day (UTC)
-- @param until date?: only hands played on or before this day (UTC)
WITH per AS (
    SELECT variant, count(*) AS hands, sum(n_players) AS boards, CAST(timezone('UTC', min(played_at)) AS DATE) AS first,
           CAST(timezone('UTC', max(played_at)) AS DATE) AS last
    FROM hands
    WHERE $player IS NULL AND NOT narrowed() AND ($variant IS NULL OR variant = $variant)
      AND played_between(played_at, $since, $until)
    GROUP BY variant
    UNION ALL
    -- Narrowed to some boards of each hand (a seat, not an opponent's own): those boards, not all those dealt.
    SELECT h.variant, count(DISTINCT h.hand_key), count(*), CAST(timezone('UTC', min(h.played_at)) AS DATE),
           CAST(timezone('UTC', max(h.played_at)) AS DATE)
    FROM hands h
    JOIN boards b ON b.hand_key = h.hand_key
    WHERE $player IS NULL AND narrowed() AND ($variant IS NULL OR h.variant = $variant)
      AND played_between(h.played_at, $since, $until)
    GROUP BY h.variant
    UNION ALL
    -- A player's hands from the summaries of the boards as played, one board of theirs a hand: read in
    -- milliseconds where joining the hands to the player's boards took 0.3 s over 10 M hands. (Hands not yet
    -- rescored are not among them, as in every figure.) Narrowed, the boards are the player's, the ones kept.
    SELECT variant, sum(boards), sum(boards * CASE WHEN narrowed() THEN 1 ELSE n_players END), min(day), max(day)
    FROM board_summary
    WHERE $player IS NOT NULL AND native AND summary_kept(player, variant, day, $player, $variant, $since, $until)
    GROUP BY variant
)
SELECT * FROM (
    SELECT variant, hands, boards, first AS first_day, last AS last_day
    FROM per
    UNION ALL
    SELECT 'all variants', coalesce(sum(hands), 0), coalesce(sum(boards), 0), min(first), max(last)
    FROM per
)
ORDER BY variant = 'all variants', variant;
