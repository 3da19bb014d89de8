-- A connection narrowed to some boards: those of hands at one table size, of one session or where one opponent
-- sat, and of them those at one position after the button, or played in Fantasyland or not (the one-row table
-- narrowing holds what was asked;
-- null: any; its variant only bounds the work, as every query takes them too). The lake's tables are views named lake_*; the names every query reads are defined here over them, so
-- that every figure, whichever tables it reads, is over the same boards:
--   hands: the hands kept;
--   boards, board_results, analysed_boards, decisions: the boards kept (not the opponent's own: the figures are
--     about play against them);
--   pair_results: the pairs of a board kept, and where an opponent is asked for, the pairs with that opponent;
--   the summaries, summed again from the boards and pairs kept (pair_summary one row a side kept: a pair counts
--     only for a player whose board is kept); notable_boards is left unread
--     (notable_per_month() is 0, so notable_hands searches the boards kept).
-- The stored summaries group by player and day and not by session or opponent; summed here, they answer for any
-- narrowing. They are summed once, when the connection is made (each is read by many queries of a page), from
-- every rule set's results of the boards kept: over 10 M hands, seconds, a scan of every result file. tests/test_narrowed.py holds these sums, unnarrowed, to the summaries the rescore wrote.

CREATE TABLE kept_boards AS
WITH hands_kept AS (
    SELECT h.hand_key, h.button
    FROM lake_hands h, narrowing n
    WHERE (n.variant IS NULL OR h.variant = n.variant)
      AND (n.table_size IS NULL OR h.n_players = n.table_size)
      AND in_session(h.session, utc_day(h.played_at), n.session)
      AND (n.opponent IS NULL OR h.hand_key IN (SELECT hand_key FROM lake_boards WHERE player = n.opponent))
),
buttons AS (
    SELECT b.hand_key, b.seat, b.player, b.fantasyland,
           coalesce(k.button, max(b.seat) OVER (PARTITION BY b.hand_key)) AS button_seat
    FROM lake_boards b
    JOIN hands_kept k ON k.hand_key = b.hand_key
),
seated AS (
    -- A board's place after the button (0 the button, 1 the first to act) as the rescore finds it: the button is
    -- the highest seat where none is recorded, and the places go round the seats the hand has.
    SELECT hand_key, seat, player, fantasyland,
           row_number() OVER (PARTITION BY hand_key ORDER BY (seat - button_seat + 255) % 256)
               % count(*) OVER (PARTITION BY hand_key) AS position
    FROM buttons
)
SELECT s.hand_key, s.seat, s.position::TINYINT AS position
FROM seated s, narrowing n
WHERE (n.position IS NULL OR s.position = n.position)
  AND (n.fantasyland IS NULL OR s.fantasyland = n.fantasyland)
  AND (n.opponent IS NULL OR s.player <> n.opponent);

CREATE VIEW hands AS
SELECT * FROM lake_hands WHERE hand_key IN (SELECT hand_key FROM kept_boards);

CREATE VIEW boards AS
SELECT b.* FROM lake_boards b SEMI JOIN kept_boards k ON k.hand_key = b.hand_key AND k.seat = b.seat;

CREATE VIEW board_results AS
SELECT r.* FROM lake_board_results r SEMI JOIN kept_boards k ON k.hand_key = r.hand_key AND k.seat = r.seat;

CREATE VIEW analysed_boards AS
SELECT a.* FROM lake_analysed_boards a SEMI JOIN kept_boards k ON k.hand_key = a.hand_key AND k.seat = a.seat;

CREATE VIEW decisions AS
SELECT d.* FROM lake_decisions d SEMI JOIN kept_boards k ON k.hand_key = d.hand_key AND k.seat = d.seat;

-- The pairs of the hands kept, with their players, their day (UTC) and which of their boards are kept.
CREATE VIEW paired AS
WITH p AS (SELECT * FROM lake_pair_results WHERE hand_key IN (SELECT hand_key FROM kept_boards)),
b AS (SELECT hand_key, seat, player FROM lake_boards WHERE hand_key IN (SELECT hand_key FROM kept_boards)),
h AS (SELECT hand_key, played_at FROM lake_hands WHERE hand_key IN (SELECT hand_key FROM kept_boards))
SELECT p.*, ba.player AS player_a, bb.player AS player_b, utc_day(h.played_at) AS day,
       ka.seat IS NOT NULL AS a_kept, kb.seat IS NOT NULL AS b_kept
FROM p
JOIN h ON h.hand_key = p.hand_key
JOIN b ba ON ba.hand_key = p.hand_key AND ba.seat = p.seat_a
JOIN b bb ON bb.hand_key = p.hand_key AND bb.seat = p.seat_b
LEFT JOIN kept_boards ka ON ka.hand_key = p.hand_key AND ka.seat = p.seat_a
LEFT JOIN kept_boards kb ON kb.hand_key = p.hand_key AND kb.seat = p.seat_b
CROSS JOIN narrowing n
WHERE (ka.seat IS NOT NULL OR kb.seat IS NOT NULL)
  AND (n.opponent IS NULL OR n.opponent IN (ba.player, bb.player));

CREATE VIEW pair_results AS
SELECT * EXCLUDE (player_a, player_b, day, a_kept, b_kept) FROM paired;

-- Each board kept under each rule set, with what the summaries group it by and sum: its day (UTC), table size,
-- place, Fantasyland and session; its result; and its points and its hand's winner as played. Each table is
-- narrowed to the boards kept before the joins, so that few boards cost little.
CREATE VIEW summed_boards AS
WITH r AS (
    SELECT * FROM lake_board_results
    WHERE hand_key IN (SELECT hand_key FROM kept_boards)
),
b AS (
    SELECT hand_key, seat, player, fantasyland, fantasyland_cards FROM lake_boards
    WHERE hand_key IN (SELECT hand_key FROM kept_boards)
),
h AS (
    SELECT hand_key, played_at, n_players, session, batch, source_file, source_line FROM lake_hands
    WHERE hand_key IN (SELECT hand_key FROM kept_boards)
)
SELECT r.rules, r.rules_key, r.native, r.variant, b.player,
       utc_day(h.played_at) AS day,
       h.n_players, k.position, b.fantasyland,
       CASE WHEN b.fantasyland THEN coalesce(b.fantasyland_cards, 0) ELSE 0 END::TINYINT AS fantasyland_cards,
       h.session, h.played_at, h.hand_key, h.batch, h.source_file, h.source_line,
       r.points, r.fouled, nullif(r.dead_street, -1) AS dead_street, r.fantasyland_entry, r.fantasyland_stay,
       r.royalty_top, r.royalty_middle, r.royalty_bottom,
       r.royalty_top + r.royalty_middle + r.royalty_bottom AS royalties,
       r.winner_seat, p.points AS native_points, p.winner_seat AS native_winner_seat
FROM r
JOIN kept_boards k ON k.hand_key = r.hand_key AND k.seat = r.seat
JOIN b ON b.hand_key = r.hand_key AND b.seat = r.seat
JOIN h ON h.hand_key = r.hand_key
JOIN r p ON p.native AND p.hand_key = r.hand_key AND p.seat = r.seat;

-- The boards' sums, in one pass over them: grouped as board_summary groups them, as player_sessions does, and by
-- the value of each row's royalty and of the street a fouled board went dead at (board_counts). Which grouping a
-- row is of: the grouping() of the columns that tell them apart.
CREATE TABLE board_sums AS
SELECT rules, rules_key, native, variant, player, day, n_players, position, fantasyland, fantasyland_cards, session,
       royalty_top AS top_value, royalty_middle AS middle_value, royalty_bottom AS bottom_value,
       dead_street AS dead_value,
       grouping(position) = 0 AS by_board, grouping(session) = 0 AS by_session,
       grouping(royalty_top) = 0 AS by_top, grouping(royalty_middle) = 0 AS by_middle,
       grouping(royalty_bottom) = 0 AS by_bottom, grouping(dead_street) = 0 AS by_dead,
       count(*)::BIGINT AS boards,
       sum(points)::BIGINT AS points,
       sum(points::BIGINT * points)::BIGINT AS squares,
       count_if(points > 0)::BIGINT AS won,
       count_if(fouled)::BIGINT AS fouls,
       count_if(fantasyland_entry)::BIGINT AS entries,
       count_if(fantasyland_stay)::BIGINT AS stays,
       sum(royalty_top)::BIGINT AS royalty_top,
       sum(royalty_middle)::BIGINT AS royalty_middle,
       sum(royalty_bottom)::BIGINT AS royalty_bottom,
       sum(royalties::BIGINT * royalties)::BIGINT AS royalty_squares,
       count_if(royalties > 0)::BIGINT AS with_royalty,
       sum(native_points)::BIGINT AS native_points,
       count_if(winner_seat IS DISTINCT FROM native_winner_seat)::BIGINT AS winner_changes,
       sum((points::BIGINT - native_points) * (points::BIGINT - native_points))::BIGINT AS gain_squares,
       count_if(fantasyland)::BIGINT AS fantasyland_hands,
       min(played_at) AS first_played,
       max(played_at) AS last_played,
       -- the hand played first; among hands played at the same time, or with no time, the first recorded
       arg_min(hand_key, (coalesce(played_at, TIMESTAMPTZ 'infinity'), batch, source_file, source_line)) AS first_hand
FROM summed_boards
GROUP BY GROUPING SETS (
    (rules, rules_key, native, variant, player, day, n_players, position, fantasyland, fantasyland_cards),
    (rules, rules_key, native, variant, player, day, session, n_players),
    (rules, rules_key, native, variant, player, day, royalty_top),
    (rules, rules_key, native, variant, player, day, royalty_middle),
    (rules, rules_key, native, variant, player, day, royalty_bottom),
    (rules, rules_key, native, variant, player, day, dead_street)
);

CREATE TABLE board_summary AS
SELECT rules, rules_key, native, variant, player, day, n_players::TINYINT AS n_players, position, fantasyland,
       fantasyland_cards, boards, points, squares, won, fouls, entries, stays, royalty_top, royalty_middle,
       royalty_bottom, royalty_squares, with_royalty, native_points, winner_changes, gain_squares
FROM board_sums WHERE by_board;

CREATE TABLE player_sessions AS
SELECT rules, rules_key, native, variant, player, day, session, n_players::TINYINT AS n_players, boards, points,
       fouls, entries, fantasyland_hands, first_played, last_played, first_hand
FROM board_sums WHERE by_session;

-- Boards by each row's royalty (every value, 0 too), and fouled boards by the street they went dead at (null:
-- no placements).
CREATE TABLE board_counts AS
SELECT rules, rules_key, native, variant, player, day,
       CASE WHEN by_top THEN 'royalty_top' WHEN by_middle THEN 'royalty_middle' WHEN by_bottom THEN 'royalty_bottom'
            ELSE 'dead_street' END AS counted,
       CASE WHEN by_top THEN top_value WHEN by_middle THEN middle_value WHEN by_bottom THEN bottom_value
            ELSE dead_value END::INTEGER AS value,
       CASE WHEN by_dead THEN fouls ELSE boards END AS boards
FROM board_sums
WHERE (by_top OR by_middle OR by_bottom OR by_dead) AND NOT (by_dead AND fouls = 0);

-- Narrowed, a pair counts for each player whose board is kept, and only for them (a seat keeps one board of a
-- pair, an opponent's own boards are not kept): one row a side, the side kept as A. Where both sides are kept, a
-- pair has both rows; the figures of pairs (head_to_head, scoops) read each row as one side (pair_sides).
CREATE TABLE pair_summary AS
SELECT rules, rules_key, native, variant, player_a, player_b, day,
       count(*)::BIGINT AS matchups,
       sum(points)::BIGINT AS points,
       sum(points::BIGINT * points)::BIGINT AS squares,
       count_if(scoop > 0)::BIGINT AS a_scoops,
       count_if(scoop < 0)::BIGINT AS b_scoops
FROM (
    SELECT rules, rules_key, native, variant, player_a, player_b, day, points, scoop FROM paired WHERE a_kept
    UNION ALL
    SELECT rules, rules_key, native, variant, player_b, player_a, day, -points, -scoop FROM paired WHERE b_kept
)
GROUP BY ALL;

DROP TABLE board_sums;

CREATE VIEW notable_boards AS
SELECT * FROM lake_notable_boards WHERE false;
