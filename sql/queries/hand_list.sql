-- The boards behind a figure, a page at a time: each board the filters keep with its hand, player, points,
-- royalties, foul and the points its decisions lost by ofc analyse's latest reckoning (ev_lost; null where none was
-- weighed), sorted by date, points, royalties or points lost (hands played at one time in their order in the
-- session: hand_number), and how many there are in all (total). What a chart or a table row leads to when it is
-- clicked. Sorted by date, the page's hands are found among the hands alone and only their boards are read; the
-- total comes from the summaries a rescore writes (over 10 M hands, unfiltered: 20 s when every board was joined
-- to its result to be counted and sorted). Boards of one outcome (what a bar of fouls, dead streets, royalties,
-- Fantasyland or winner changes counts) are found and counted among every board the other filters keep. A cause
-- lists the fouled boards foul_sources puts down to it (raised_most): to a decision at that street or of that
-- kind, or to the cards.
-- @param rules rules?: read every hand as if played under this rule set (by default: under its own rules)
-- @param player text?: only this player's boards
-- @param variant text?: only this variant
-- @param since date?: only hands played on or after this day (UTC)
-- @param until date?: only hands played on or before this day (UTC)
-- @param table_size int?: only hands of this many players
-- @param session text?: only this session's hands ("day 2026-01-02": that day's without one, as sessions names them)
-- @param opponent text?: only hands this player also played
-- @param outcome text?: only boards that fouled, entered Fantasyland, stayed, or changed (winner, under the rules)
-- @param dead_street text?: only fouled boards dead after this street (1 to 9), or none (without placements)
-- @param row text?: with made: the row (top, middle or bottom) that made the hand
-- @param made text?: only boards whose row made this royalty hand (a category or hand of royalty_frequency)
-- @param fantasyland_cards int?: only Fantasyland boards dealt this many cards (0: not recorded)
-- @param street int?: only boards with a decision weighed at this street (points lost: at that street)
-- @param kind text?: only boards with a decision of this kind weighed (initial, placement, discard, fantasyland)
-- @param cause text?: only boards fouled as played put down to a street (1 to 9), a kind of decision, or cards
-- @param sort text = 'date': date, points, royalties or ev_lost
-- @param order text = 'desc': desc (the latest, or the most first) or asc
-- @param page int = 1: the page, from 1
-- @param per_page int = 50: boards a page
-- The test of one outcome, coalesce(...) IS NULL, is written out where it gates a read: as a constant, DuckDB drops
-- the branch it closes when it plans the query (from a CTE it is not: over 10 M hands 3.2 s against 0.9 s).
WITH lost AS (
    SELECT hand_key, seat, sum(ev_lost) AS ev_lost
    FROM weighed(NULL)
    WHERE ($street IS NULL OR street = $street) AND ($kind IS NULL OR kind = $kind)
    GROUP BY ALL
),
changed AS MATERIALIZED (
    -- The hands whose winner differs from the hand's as played, under the rule set read: asked for only.
    SELECT DISTINCT c.hand_key
    FROM (SELECT 1 AS go WHERE $outcome = 'changed') gate
    JOIN boards_compared($variant) c ON gate.go = 1
    WHERE read_under($rules, c.native, c.rules_key) AND c.winner_seat <> c.native_winner_seat
      AND kept_of_anyone(c.variant, c.played_at, $variant, $since, $until)
),
caused AS MATERIALIZED (
    -- The fouled boards put down to the cause asked for (raised_most): asked for only.
    SELECT m.hand_key, m.seat
    FROM (SELECT 1 AS go WHERE $cause IS NOT NULL) gate
    JOIN raised_most(NULL) m ON gate.go = 1
    WHERE m.fouled AND CASE
        WHEN $cause = 'cards' THEN m.cause_kind = 'none: the cards'
        WHEN $cause IN ('initial', 'placement', 'discard', 'fantasyland') THEN m.cause_kind = $cause
        WHEN TRY_CAST($cause AS INTEGER) IS NOT NULL THEN m.cause_street = TRY_CAST($cause AS INTEGER)
        ELSE error('cause: ' || $cause || ' is neither a street (1 to 9), a kind of decision nor cards')
    END
),
played AS MATERIALIZED (
    -- The hands the player asked for played, and those the opponent did: each read once.
    SELECT DISTINCT hand_key, coalesce(player = $opponent, false) AS theirs
    FROM boards
    WHERE player = $player OR player = $opponent
),
dated AS (
    -- By date: the hands the filters keep, for the first $page pages in that order (each holds at least one of the
    -- boards kept). The other sorts, and boards of one outcome, read every board kept.
    SELECT h.hand_key, h.played_at, h.hand_number
    FROM hands h
    WHERE $sort NOT IN ('points', 'royalties', 'ev_lost')
      AND coalesce($outcome, $dead_street, $made, $fantasyland_cards::VARCHAR, $street::VARCHAR, $kind, $cause) IS NULL
      AND ($variant IS NULL OR h.variant = $variant)
      AND played_between(h.played_at, $since, $until)
      AND ($table_size IS NULL OR h.n_players = $table_size)
      AND in_session(h.session, utc_day(h.played_at), $session)
      AND ($player IS NULL OR h.hand_key IN (SELECT hand_key FROM played WHERE NOT theirs))
      AND ($opponent IS NULL OR h.hand_key IN (SELECT hand_key FROM played WHERE theirs))
),
latest AS (
    -- Ordered by the columns themselves, one order a branch (the other is dropped when the query is planned): the
    -- scan then skips the row groups that cannot reach the page (over 10 M hands, 45 ms against 150 ms for an order
    -- computed from $order).
    (SELECT hand_key FROM dated WHERE $order <> 'asc'
     ORDER BY played_at DESC NULLS LAST, hand_number DESC NULLS LAST, hand_key LIMIT $page * $per_page)
    UNION ALL
    (SELECT hand_key FROM dated WHERE $order = 'asc'
     ORDER BY played_at ASC NULLS LAST, hand_number ASC NULLS LAST, hand_key LIMIT $page * $per_page)
),
kept AS (
    -- Sorted by points, royalties or points lost, or of one outcome: every board kept.
    SELECT b.hand_key, b.hand_id, b.played_at, b.hand_number, b.variant, b.session, b.n_players, b.player, b.seat,
           b.rules, b.points, b.fouled, b.royalty_top + b.royalty_middle + b.royalty_bottom AS royalties
    FROM (  -- no row: nothing is read
        SELECT 1 AS go
        WHERE $sort IN ('points', 'royalties', 'ev_lost')
           OR coalesce($outcome, $dead_street, $made, $fantasyland_cards::VARCHAR, $street::VARCHAR, $kind,
                       $cause) IS NOT NULL
    ) gate
    JOIN boards_under($rules, $player, $variant, $since, $until) b ON gate.go = 1
    WHERE ($table_size IS NULL OR b.n_players = $table_size)
      AND in_session(b.session, utc_day(b.played_at), $session)
      AND ($opponent IS NULL OR (b.player <> $opponent
           AND b.hand_key IN (SELECT hand_key FROM played WHERE theirs)))
      AND CASE
              WHEN $outcome IS NULL THEN true
              WHEN $outcome = 'fouled' THEN b.fouled
              WHEN $outcome = 'entered' THEN b.fantasyland_entry
              WHEN $outcome = 'stayed' THEN b.fantasyland_stay
              WHEN $outcome = 'changed' THEN b.hand_key IN (SELECT hand_key FROM changed)
              ELSE error('outcome: ' || $outcome || ' is not one of fouled, entered, stayed, changed')
          END
      AND ($dead_street IS NULL OR (b.fouled AND coalesce(CAST(b.dead_street AS VARCHAR), 'none') = $dead_street))
      AND ($made IS NULL OR EXISTS (
          SELECT 1 FROM royalty_hands m
          WHERE m.rules_key = b.rules_key AND m.row = $row AND (m.category = $made OR m.hand = $made)
            AND m.points = CASE $row WHEN 'top' THEN b.royalty_top WHEN 'middle' THEN b.royalty_middle
                                     ELSE b.royalty_bottom END))
      AND ($fantasyland_cards IS NULL OR (b.fantasyland AND coalesce(b.fantasyland_cards, 0) = $fantasyland_cards))
      AND (($street IS NULL AND $kind IS NULL)
           OR EXISTS (SELECT 1 FROM lost w WHERE w.hand_key = b.hand_key AND w.seat = b.seat))
      AND ($cause IS NULL OR EXISTS (SELECT 1 FROM caused c WHERE c.hand_key = b.hand_key AND c.seat = b.seat))
    UNION ALL
    -- By date: the boards of the latest hands alone, each table joined to them by key.
    SELECT l.hand_key, h.hand_id, h.played_at, h.hand_number, h.variant, h.session, h.n_players, b.player, b.seat,
           r.rules, r.points, r.fouled, r.royalty_top + r.royalty_middle + r.royalty_bottom
    FROM latest l
    JOIN hands h ON h.hand_key = l.hand_key
    JOIN boards b ON b.hand_key = l.hand_key
    JOIN board_results r ON r.hand_key = l.hand_key AND r.seat = b.seat
    WHERE read_under($rules, r.native, r.rules_key)
      AND player_is(b.player, $player)
      AND ($opponent IS NULL OR b.player <> $opponent)
),
counted AS (
    -- Every board the filters keep: from the summaries, which count the boards of each player, session and table
    -- size a day; against an opponent, counted among the boards themselves; of one outcome, every board kept is
    -- read (the total is theirs).
    SELECT sum(boards) AS boards
    FROM scored_sessions($rules, $player, $variant, $since, $until)
    WHERE $opponent IS NULL
      AND coalesce($outcome, $dead_street, $made, $fantasyland_cards::VARCHAR, $street::VARCHAR, $kind, $cause) IS NULL
      AND ($table_size IS NULL OR n_players = $table_size)
      AND in_session(session, day, $session)
    UNION ALL
    SELECT count(*)
    FROM (SELECT hand_key FROM played WHERE theirs) o
    JOIN hands h ON h.hand_key = o.hand_key
    JOIN boards b ON b.hand_key = o.hand_key
    JOIN board_results r ON r.hand_key = o.hand_key AND r.seat = b.seat
    WHERE $opponent IS NOT NULL AND read_under($rules, r.native, r.rules_key)
      AND coalesce($outcome, $dead_street, $made, $fantasyland_cards::VARCHAR, $street::VARCHAR, $kind, $cause) IS NULL
      AND b.player <> $opponent
      AND kept(b.player, h.variant, h.played_at, $player, $variant, $since, $until)
      AND ($table_size IS NULL OR h.n_players = $table_size)
      AND in_session(h.session, utc_day(h.played_at), $session)
)
SELECT k.*, l.ev_lost,
       CASE WHEN coalesce($outcome, $dead_street, $made, $fantasyland_cards::VARCHAR, $street::VARCHAR, $kind,
                          $cause) IS NULL
            THEN (SELECT coalesce(sum(boards), 0) FROM counted) ELSE count(*) OVER () END::BIGINT AS total,
       -- of one outcome, the hands those boards are of (a chart of hands counts them)
       CASE WHEN coalesce($outcome, $dead_street, $made, $fantasyland_cards::VARCHAR, $street::VARCHAR, $kind,
                          $cause) IS NOT NULL
            THEN count(DISTINCT k.hand_key) OVER () END::BIGINT AS hands
FROM kept k
LEFT JOIN lost l USING (hand_key, seat)
ORDER BY
    CASE $sort WHEN 'points' THEN points WHEN 'royalties' THEN royalties WHEN 'ev_lost' THEN l.ev_lost
               ELSE epoch_us(played_at) END
        * CASE WHEN $order = 'asc' THEN 1 ELSE -1 END NULLS LAST,
    played_at DESC NULLS LAST,
    -- hands played at one time (a sheet that gives the day alone) in their order in the session
    hand_number * CASE WHEN $sort = 'date' AND $order = 'asc' THEN 1 ELSE -1 END NULLS LAST, hand_key, seat
LIMIT $per_page OFFSET ($page - 1) * $per_page;
