-- Overview: hands in the lake and the boards dealt in them, the first and last day played (UTC), per variant and
-- over all variants.
-- @param player text?: only hands this player played in
-- @param variant text?: only this variant
-- @param since date?: only hands played on or after this day (UTC)
-- @param until date?: only hands played on or before this day (UTC)
WITH per AS (
    SELECT variant, count(*) AS hands, sum(n_players) AS boards, min(played_at) AS first, max(played_at) AS last
    FROM hands
    WHERE ($variant IS NULL OR variant = $variant)
      AND ($player IS NULL OR hand_key IN (SELECT hand_key FROM boards WHERE player = $player))
      AND played_between(played_at, $since, $until)
    GROUP BY variant
)
SELECT * FROM (
    SELECT variant, hands, boards, CAST(timezone('UTC', first) AS DATE) AS first_day,
           CAST(timezone('UTC', last) AS DATE) AS last_day
    FROM per
    UNION ALL
    SELECT 'all variants', coalesce(sum(hands), 0), coalesce(sum(boards), 0), CAST(timezone('UTC', min(first)) AS DATE),
           CAST(timezone('UTC', max(last)) AS DATE)
    FROM per
)
ORDER BY variant = 'all variants', variant;
