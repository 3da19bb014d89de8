-- The boards behind a figure, a page at a time: each board the filters keep with its hand, player, points,
-- royalties, foul and the points its decisions lost by ofc analyse's latest reckoning (ev_lost; null where none was
-- weighed), sorted by date, points, royalties or points lost, and how many there are in all (total). What a chart
-- or a table row leads to when it is clicked.
-- @param rules rules?: read every hand as if played under this rule set (by default: under its own rules)
-- @param player text?: only this player's boards
-- @param variant text?: only this variant
-- @param since date?: only hands played on or after this day (UTC)
-- @param table_size int?: only hands of this many players
-- @param session text?: only this session's hands
-- @param opponent text?: only hands this player also played
-- @param sort text = 'date': date, points, royalties or ev_lost
-- @param order text = 'desc': desc (the latest, or the most first) or asc
-- @param page int = 1: the page, from 1
-- @param per_page int = 50: boards a page
WITH lost AS (
    SELECT hand_key, seat, sum(ev_lost) AS ev_lost FROM weighed(NULL) GROUP BY ALL
),
kept AS (
    SELECT hand_key, hand_id, played_at, variant, session, n_players, player, seat, rules, points, fouled,
           royalty_top + royalty_middle + royalty_bottom AS royalties
    FROM boards_under($rules, $player, $variant, $since)
    WHERE ($table_size IS NULL OR n_players = $table_size)
      AND ($session IS NULL OR session = $session)
      AND ($opponent IS NULL OR (player <> $opponent
           AND hand_key IN (SELECT hand_key FROM boards WHERE player = $opponent)))
)
SELECT k.*, l.ev_lost, count(*) OVER () AS total
FROM kept k
LEFT JOIN lost l USING (hand_key, seat)
ORDER BY
    CASE $sort WHEN 'points' THEN points WHEN 'royalties' THEN royalties WHEN 'ev_lost' THEN l.ev_lost
               ELSE epoch_us(played_at) END
        * CASE WHEN $order = 'asc' THEN 1 ELSE -1 END NULLS LAST,
    played_at DESC NULLS LAST, hand_key, seat
LIMIT $per_page OFFSET ($page - 1) * $per_page;
