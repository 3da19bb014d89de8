-- Derived views and macros over the lake tables (hands, boards, placements, batches, quarantine, and the
-- results of ofc rescore: board_results, pair_results) and the two tables from the code (variants,
-- royalty_hands). The lake tables themselves are defined by pipeline/query/db.py from the committed manifests.
--
-- Each fact is stored once: what a record says is in hands and boards, written at ingest; a rule set's results
-- hold the board's key (hand_key, seat) and what that rule set decides. The wide shapes join the two by key:
-- hand_boards (a board's facts), scored_boards (its facts beside its result under each rule set),
-- played_boards (under the rules its hand was played by), compared_boards (beside its result as played) and
-- scored_pairs (a pair's result beside its two players and their boards' results).

-- One row per board with its hand's facts and its rows as card codes (top 3, middle 5, bottom 5); the cards a
-- Fantasyland board was dealt (null for a board not played in Fantasyland, or whose count is not recorded).
CREATE VIEW hand_boards AS
SELECT
    h.hand_key, h.hand_id, h.source, h.variant, h.month, h.played_at, h.site, h."table", h.session,
    h.hand_number, h.button, h.house_rules, h.n_players,
    b.seat, b.player, b.cards,
    list_slice(b.cards, 1, 3) AS top,
    list_slice(b.cards, 4, 8) AS middle,
    list_slice(b.cards, 9, 13) AS bottom,
    b.misset, b.fantasyland,
    CASE WHEN b.fantasyland AND b.fantasyland_cards > 0 THEN b.fantasyland_cards END AS fantasyland_cards,
    b.surrendered, b.natural, b.discards,
    b.points AS recorded_points
FROM hands h
JOIN boards b USING (hand_key);

-- Players and how many hands each has in the lake.
CREATE VIEW players AS
SELECT player, count(*) AS hands, min(played_at) AS first_played, max(played_at) AS last_played
FROM hand_boards
GROUP BY player;

-- Every board's result under every rule set the lake was rescored under, beside the board's facts: the hand's
-- (hand_id, source, variant, month, played_at, site, table, session, hand_number, button, house_rules,
-- n_players) and the board's (seat, player, cards and its rows, misset, fantasyland played and its
-- fantasyland_cards, surrendered and natural as recorded, discards, recorded_points); then the rule set (rules,
-- rules_key; native: the rules the hand was played by) and what it decided (fouled, dead_street, natural_paid,
-- surrender_honoured, royalty_top, royalty_middle, royalty_bottom, fantasyland_entry, fantasyland_stay,
-- fantasyland_next, points, scoops, scooped, winner_seat). A filter on rules_key or native leaves out whole
-- result files. boards_scored(game) is the same of one game (null: every game): asked with its game, each table
-- is read from that game's files alone. Over a lake of several games, scored_boards is boards_scored of each game
-- put end to end (pipeline/query/db.py writes it so), so that a query of it reads each game's boards beside that
-- game's results only: over 10 M hands of three games, a player's average points under one rule set took 0.7 s
-- against 1.0 s as one join of every game's files.
CREATE MACRO boards_scored(game) AS TABLE
SELECT
    -- hand_boards' columns, written out: joined from the results, DuckDB reads the results' keys first and the
    -- facts of those boards after (over 10 M hands a third less time than the facts first)
    h.hand_key, h.hand_id, h.source, r.variant, h.month, h.played_at, h.site, h."table", h.session,
    h.hand_number, h.button, h.house_rules, h.n_players,
    b.seat, b.player, b.cards,
    list_slice(b.cards, 1, 3) AS top,
    list_slice(b.cards, 4, 8) AS middle,
    list_slice(b.cards, 9, 13) AS bottom,
    b.misset, b.fantasyland,
    CASE WHEN b.fantasyland AND b.fantasyland_cards > 0 THEN b.fantasyland_cards END AS fantasyland_cards,
    b.surrendered, b.natural, b.discards,
    b.points AS recorded_points,
    r.rules, r.rules_key, r.native,
    r.fouled, r.dead_street, r.natural AS natural_paid, r.surrendered AS surrender_honoured,
    r.royalty_top, r.royalty_middle, r.royalty_bottom,
    r.fantasyland_entry, r.fantasyland_stay, r.fantasyland_next,
    r.points, r.scoops, r.scooped, r.winner_seat
FROM board_results r
JOIN boards b ON b.hand_key = r.hand_key AND b.seat = r.seat
JOIN hands h ON h.hand_key = r.hand_key
WHERE game IS NULL OR (r.variant = game AND b.variant = game AND h.variant = game);

CREATE VIEW scored_boards AS SELECT * FROM boards_scored(NULL);

-- Every board as it was played: scored under its hand's native rules (its recorded house rules, else its
-- variant's preset).
CREATE VIEW played_boards AS
SELECT * FROM scored_boards WHERE native;

-- Every board's result under each rule set beside its result as played (native_points, native_winner_seat):
-- what a comparison of rule sets reads. The as-played result is found by key, not stored with every rule set's.
-- boards_compared(game): the same of one game (null: every game), as boards_scored; the view is put together
-- game by game as scored_boards is.
CREATE MACRO boards_compared(game) AS TABLE
SELECT s.*, p.points AS native_points, p.winner_seat AS native_winner_seat
FROM boards_scored(game) s
JOIN board_results p ON p.native AND p.hand_key = s.hand_key AND p.seat = s.seat
WHERE game IS NULL OR p.variant = game;

CREATE VIEW compared_boards AS SELECT * FROM boards_compared(NULL);

-- Every board with its place after the button (position: 0 the button, 1 the first to act, and so on round
-- the table); the button is the highest seat where none is recorded. A window over each hand's boards: ask it of
-- a few hands, or read the summaries, which keep it.
CREATE VIEW seated_boards AS
WITH buttons AS (
    SELECT *, coalesce(button, max(seat) OVER (PARTITION BY hand_key)) AS button_seat FROM hand_boards
)
SELECT
    * EXCLUDE (button_seat),
    row_number() OVER (PARTITION BY hand_key ORDER BY (seat - button_seat + 255) % 256) % n_players AS position
FROM buttons;

-- Every pair of boards' result under every rule set, beside the hand's month and time, the two players and what the rule
-- set decided of each board (fouled_a, fouled_b; royalties_a, royalties_b: the royalties each board earned).
CREATE VIEW scored_pairs AS
SELECT
    p.*,
    h.month, h.played_at,
    ba.player AS player_a, bb.player AS player_b,
    ra.fouled AS fouled_a, rb.fouled AS fouled_b,
    ra.royalty_top + ra.royalty_middle + ra.royalty_bottom AS royalties_a,
    rb.royalty_top + rb.royalty_middle + rb.royalty_bottom AS royalties_b
FROM pair_results p
JOIN hands h ON h.hand_key = p.hand_key
JOIN boards ba ON ba.hand_key = p.hand_key AND ba.seat = p.seat_a
JOIN boards bb ON bb.hand_key = p.hand_key AND bb.seat = p.seat_b
JOIN board_results ra ON ra.rules_key = p.rules_key AND ra.hand_key = p.hand_key AND ra.seat = p.seat_a
JOIN board_results rb ON rb.rules_key = p.rules_key AND rb.hand_key = p.hand_key AND rb.seat = p.seat_b;

-- Hands whose recorded points differ from ours under the rules they were played by: every board of each.
CREATE VIEW recorded_mismatches AS
WITH checked AS (
    SELECT
        hand_key, hand_id, source, rules_key, seat, player, recorded_points, points,
        bool_or(points <> recorded_points) OVER (PARTITION BY hand_key) AS differs
    FROM played_boards
    WHERE recorded_points IS NOT NULL
)
SELECT
    c.hand_key, c.hand_id, c.source, h.source_file, h.source_line, h.house_rules, c.rules_key AS native_rules,
    c.seat, c.player, c.recorded_points, c.points AS rescored_points, c.points - c.recorded_points AS difference
FROM checked c
JOIN hands h USING (hand_key)
WHERE c.differs
ORDER BY h.source_file, h.source_line, c.seat;

-- The filters every named query takes: one player, one variant, hands played from a first day to a last day (UTC,
-- both days included). A null filter keeps everything; a hand with no time recorded is kept only when neither day
-- is given. played_between is the day filter alone, for a query that reads the hands themselves.
CREATE MACRO played_between(played_at, from_day, to_day) AS
    (from_day IS NULL OR played_at >= timezone('UTC', from_day::TIMESTAMP))
    -- the last day included: before the day after it begins
    AND (to_day IS NULL OR played_at < timezone('UTC', (to_day::DATE + 1)::TIMESTAMP));

-- Whether a row is the player asked for (null: any). A query run for many players at once reads each player's
-- name here, never null: it shadows this macro with the equality alone (named.run_for_players), which DuckDB
-- joins by hash where the OR made it compare every row with every player. So no query gives it a null written
-- out: one that reads every player's rows leaves the player out (kept_of_anyone, summary_kept_of_anyone).
CREATE MACRO player_is(player, who) AS
    who IS NULL OR player = who;

CREATE MACRO kept_of_anyone(variant, played_at, game, from_day, to_day) AS
    (game IS NULL OR variant = game)
    AND played_between(played_at, from_day, to_day);

CREATE MACRO kept(player, variant, played_at, who, game, from_day, to_day) AS
    player_is(player, who) AND kept_of_anyone(variant, played_at, game, from_day, to_day);

-- The rows read under one rule set: each hand under its own rules (rule_set null: native), or as if every hand
-- had been played under the rule set keyed rule_set. On a partition column, so whole files are left out.
CREATE MACRO read_under(rule_set, native, rules_key) AS
    CASE WHEN rule_set IS NULL THEN native ELSE rules_key = rule_set END;

-- The boards a figure about single hands reads, with their facts: under one rule set, then filtered.
CREATE MACRO boards_under(rule_set, who, game, from_day, to_day) AS TABLE
    SELECT * FROM boards_scored(game)
    WHERE read_under(rule_set, native, rules_key) AND kept(player, variant, played_at, who, game, from_day, to_day);

-- The same over the summaries a rescore writes beside its results (board_summary, board_counts, player_sessions
-- and pair_summary: the results summed by player, day and more), which every figure of sums reads: over 10 M
-- hands some hundred thousand rows where the results hold tens of millions. Their day is the UTC day the hands
-- were played (null: no time recorded), so a first and a last day keep the same boards as above.
CREATE MACRO summary_kept_of_anyone(variant, day, game, from_day, to_day) AS
    (game IS NULL OR variant = game)
    AND (from_day IS NULL OR day >= from_day::DATE)
    AND (to_day IS NULL OR day <= to_day::DATE);

CREATE MACRO summary_kept(player, variant, day, who, game, from_day, to_day) AS
    player_is(player, who) AND summary_kept_of_anyone(variant, day, game, from_day, to_day);

CREATE MACRO scored_summary(rule_set, who, game, from_day, to_day) AS TABLE
    SELECT * FROM board_summary
    WHERE read_under(rule_set, native, rules_key)
      AND summary_kept(player, variant, day, who, game, from_day, to_day);

CREATE MACRO scored_counts(rule_set, who, game, from_day, to_day) AS TABLE
    SELECT * FROM board_counts
    WHERE read_under(rule_set, native, rules_key)
      AND summary_kept(player, variant, day, who, game, from_day, to_day);

CREATE MACRO scored_sessions(rule_set, who, game, from_day, to_day) AS TABLE
    SELECT * FROM player_sessions
    WHERE read_under(rule_set, native, rules_key)
      AND summary_kept(player, variant, day, who, game, from_day, to_day);

-- notable_boards holds the first boards of each kind per month: enough for up to notable_per_month() of each over
-- whole months, so neither a first nor a last day may be given. A day cuts its month, and the month's first
-- boards may all lie on the far side of the cut (the latest Fantasyland hands after a last day, the biggest wins
-- before a first day): then every board is searched.
CREATE MACRO notable_kept(hands, from_day, to_day) AS
    hands <= notable_per_month() AND from_day IS NULL AND to_day IS NULL;

CREATE MACRO scored_notable(rule_set, who, game, from_day, to_day) AS TABLE
    SELECT * FROM notable_boards
    WHERE read_under(rule_set, native, rules_key)
      AND summary_kept(player, variant, day, who, game, from_day, to_day);

-- A pair is kept when either of its players is the one asked for.
CREATE MACRO scored_pair_summary(rule_set, who, game, from_day, to_day) AS TABLE
    SELECT * FROM pair_summary
    WHERE read_under(rule_set, native, rules_key)
      AND (summary_kept(player_a, variant, day, who, game, from_day, to_day)
           OR summary_kept(player_b, variant, day, who, game, from_day, to_day));

-- Each pair from each player's side: player, opponent, the player's points and scoops. A pair of the summary is
-- both sides, A's and B's (B's points the negative of A's); narrowed (narrowed()), each row is one side kept.
CREATE MACRO pair_sides(rule_set, who, game, from_day, to_day) AS TABLE
    SELECT variant, day, player_a AS player, player_b AS opponent, matchups, points, squares, a_scoops AS scoops,
           b_scoops AS scooped
    FROM scored_pair_summary(rule_set, who, game, from_day, to_day)
    UNION ALL
    SELECT variant, day, player_b, player_a, matchups, -points, squares, b_scoops, a_scoops
    FROM scored_pair_summary(rule_set, who, game, from_day, to_day)
    WHERE NOT narrowed();

-- A comparison of rule sets: the boards as played (compared = 'as played'), then under each rule set in
-- rule_sets (compared = its key); every row carries its points as played (native_points) beside its own.
CREATE MACRO compared_summary(rule_sets, who, game, from_day, to_day) AS TABLE
    SELECT 'as played' AS compared, * FROM scored_summary(NULL, who, game, from_day, to_day)
    UNION ALL
    SELECT rules_key AS compared, * FROM board_summary
    WHERE list_contains(rule_sets, rules_key) AND summary_kept(player, variant, day, who, game, from_day, to_day);

-- Statistics for the reports, from counts and sums (so they roll up from any grouping): the sample standard
-- deviation of n values with sum s and sum of squares ss; 95% intervals: Wilson's for a share of k in n (sound
-- near 0 and 1, where the normal one is not), and the normal one's half-width for a mean.
CREATE MACRO sample_sd(s, ss, n) AS CASE WHEN n > 1 THEN sqrt(greatest((ss - s::DOUBLE * s / n) / (n - 1), 0)) END;
CREATE MACRO wilson_low(k, n) AS CASE WHEN n > 0 THEN
    ((k / n + 1.9208 / n) - 1.96 * sqrt((k / n) * (1 - k / n) / n + 0.9604 / (n * n))) / (1 + 3.8416 / n) END;
CREATE MACRO wilson_high(k, n) AS CASE WHEN n > 0 THEN
    ((k / n + 1.9208 / n) + 1.96 * sqrt((k / n) * (1 - k / n) / n + 0.9604 / (n * n))) / (1 + 3.8416 / n) END;
CREATE MACRO mean_margin(s, ss, n) AS 1.96 * sample_sd(s, ss, n) / sqrt(n);

-- The usual breakdown of a report's figures: all boards, each variant, each player. ``fine`` names a table (or a
-- CTE) of sums by player and variant; every other column is summed for each row of the breakdown.
CREATE MACRO by_variant_and_player(fine) AS TABLE
    SELECT
        CASE WHEN grouping(variant) = 0 THEN 'variant' WHEN grouping(player) = 0 THEN 'player' ELSE 'all' END
            AS dimension,
        coalesce(variant, player, 'all boards') AS "group",
        sum(COLUMNS(* EXCLUDE (player, variant)))
    FROM query_table(fine)
    GROUP BY GROUPING SETS ((), (variant), (player))
    HAVING count(*) > 0;

-- Cards as text, as ofc prints them. A card code is rank * 4 + suit: ranks 2 3 4 5 6 7 8 9 T J Q K A are 0..12,
-- suits c d h s are 0..3 (pipeline/cards.py). card_text(code) is one card ('As'), cards_text(codes) a list of
-- codes ('Ah Kd 2c'), board_text(cards) a board's 13 codes as its rows ('Qh Qd 4c / 9s 9h 9c Kd 3h / Ts Js Qs Ks
-- As'): the cards column of boards, hand_boards, scored_boards and played_boards. A code outside 0..51 is '??'.
CREATE MACRO card_text(code) AS CASE
    WHEN code IS NULL THEN NULL
    WHEN code BETWEEN 0 AND 51
        THEN substr('23456789TJQKA', (code::INTEGER // 4) + 1, 1) || substr('cdhs', (code::INTEGER % 4) + 1, 1)
    ELSE '??'
END;
CREATE MACRO cards_text(codes) AS array_to_string(list_transform(codes, lambda c: card_text(c)), ' ');
CREATE MACRO board_text(cards) AS
    cards_text(list_slice(cards, 1, 3)) || ' / ' || cards_text(list_slice(cards, 4, 8)) || ' / '
    || cards_text(list_slice(cards, 9, 13));

-- Decision analysis (ofc analyse). The analysis the figures read unless asked for another: the one run last.
CREATE MACRO latest_analysis() AS (SELECT max_by(analysis, batch) FROM analysed_boards);

-- The boards an analysis weighed (analysis null: the latest), of hands as they stand: a hand corrected since it
-- was analysed is left out until ofc analyse weighs it again.
CREATE MACRO analysed(which) AS TABLE
    SELECT a.*
    FROM analysed_boards a
    JOIN hands h ON h.hand_key = a.hand_key AND h.content_hash = a.content_hash
    WHERE a.analysis = coalesce(which, latest_analysis()) AND a.skipped IS NULL;

-- Whether the analysis keyed `which` has weighed a board (a hand's key and seat) as its hand stands (content).
CREATE MACRO weighed_before(which, key, seat_no, content) AS EXISTS (
    SELECT 1 FROM analysed_boards a
    WHERE a.analysis = which AND a.hand_key = key AND a.seat = seat_no AND a.content_hash = content
);

-- Their decisions, each with what the move played is expected to have cost (ev_lost) against the best move found.
CREATE MACRO weighed(which) AS TABLE
    SELECT d.*
    FROM decisions d
    JOIN hands h ON h.hand_key = d.hand_key AND h.content_hash = d.content_hash
    WHERE d.analysis = coalesce(which, latest_analysis());

-- Each weighed board once, with its decision that raised its chance of fouling most against the best move found
-- (added: the largest foul_played - foul_best; ties to the earlier street; a Fantasyland setting has no street),
-- and whether it fouled as played (one not rescored counts as not fouled). cause_street and cause_kind: what a
-- fouled board's foul is put down to, that decision, or, where none added more than 0.05 (rollout noise), the
-- cards (cause_kind 'none: the cards', cause_street null). What foul_sources counts and hand_list's cause lists.
CREATE MACRO raised_most(which) AS TABLE
    SELECT
        *,
        CASE WHEN added > 0.05 THEN street END AS cause_street,
        CASE WHEN added > 0.05 THEN kind ELSE 'none: the cards' END AS cause_kind
    FROM (
        SELECT
            a.hand_key, a.seat, a.variant, a.player, a.played_at, coalesce(p.fouled, false) AS fouled, d.kind,
            CASE WHEN d.kind <> 'fantasyland' THEN d.street END AS street,
            d.foul_played, d.foul_best, d.foul_played - d.foul_best AS added
        FROM analysed(which) a
        LEFT JOIN played_boards p ON p.hand_key = a.hand_key AND p.seat = a.seat
        JOIN weighed(which) d ON d.hand_key = a.hand_key AND d.seat = a.seat
        WHERE d.foul_played IS NOT NULL
        QUALIFY row_number() OVER (PARTITION BY a.hand_key, a.seat ORDER BY added DESC, street NULLS FIRST) = 1
    );

-- A file's name without its folders or archive: 'friday.csv' for 'friday.csv', 'clubs/friday.csv' and
-- 'nov.zip!week2/friday.csv'. A corrected sheet saved elsewhere is the same file by its name.
CREATE MACRO file_name(path) AS regexp_extract(path, '[^/\\!]*$');

-- Every quarantined record, and whether it still needs fixing: status 'open', or 'resolved' once a later batch
-- read its file again (the same path, or a file of the same name saved elsewhere). resolved_by is that batch, and
-- how says what became of the record there:
--   'accepted'               the batch accepted a hand with the record's hand_id from that file;
--   'quarantined again'      the batch quarantined it again (the later row is then the open one);
--   'no longer in the file'  neither.
-- A hand accepted later from a file of that name resolves the record whatever the readings between said:
-- resolved_by is then the first batch that accepted it. A record without a hand_id (a header, a line that is no
-- hand) is quarantined again when the reading quarantined a record without one on the same line, and accepted
-- when the reading accepted hands from the file.
CREATE VIEW quarantine_status AS
WITH readings AS (  -- each file each batch read, by name
    SELECT batch, file_name(path) AS file
    FROM (SELECT batch, unnest(sources) AS path FROM batches)
),
quarantined AS (
    SELECT *, file_name(source_file) AS file FROM quarantine
),
followed AS (  -- the next batch that read the record's file, and the first that accepted its hand
    SELECT
        q.*,
        (SELECT min(r.batch) FROM readings r WHERE r.file = q.file AND r.batch > q.batch) AS read_again,
        (SELECT min(h.batch) FROM hands h
         WHERE h.hand_id = q.hand_id AND h.batch > q.batch AND file_name(h.source_file) = q.file) AS accepted_in
    FROM quarantined q
),
seen_again AS (  -- what the next reading did with the record
    SELECT
        f.*,
        EXISTS (
            SELECT 1 FROM quarantined again
            WHERE again.batch = f.read_again AND again.file = f.file
              AND (again.hand_id = f.hand_id OR (f.hand_id IS NULL AND again.hand_id IS NULL AND again.line = f.line))
        ) AS quarantined_again,
        EXISTS (
            SELECT 1 FROM hands h WHERE h.batch = f.read_again AND file_name(h.source_file) = f.file
        ) AS file_accepted
    FROM followed f
)
SELECT
    batch, source_file, line, byte_offset, hand_id, reason, raw,
    CASE WHEN read_again IS NULL AND accepted_in IS NULL THEN 'open' ELSE 'resolved' END AS status,
    coalesce(accepted_in, read_again) AS resolved_by,
    CASE
        WHEN accepted_in IS NOT NULL THEN 'accepted'
        WHEN read_again IS NULL THEN NULL
        WHEN quarantined_again THEN 'quarantined again'
        WHEN hand_id IS NULL AND file_accepted THEN 'accepted'
        ELSE 'no longer in the file'
    END AS how
FROM seen_again
ORDER BY status = 'resolved', batch DESC, source_file, line;
