-- Derived views over the lake tables (hands, boards, placements, batches, quarantine, and the results of
-- ofc rescore: pair_results, player_results).
-- The lake tables themselves are defined by pipeline/query/db.py from the committed manifests.

-- One row per board with its hand's facts and its rows as card codes (top 3, middle 5, bottom 5).
CREATE VIEW hand_boards AS
SELECT
    h.hand_key, h.hand_id, h.source, h.variant, h.month, h.played_at, h.site, h."table", h.session,
    h.hand_number, h.button, h.house_rules, h.n_players,
    b.seat, b.player, b.cards,
    list_slice(b.cards, 1, 3) AS top,
    list_slice(b.cards, 4, 8) AS middle,
    list_slice(b.cards, 9, 13) AS bottom,
    b.misset, b.fantasyland, b.fantasyland_cards, b.surrendered, b.natural, b.discards,
    b.points AS recorded_points
FROM hands h
JOIN boards b USING (hand_key);

-- Players and how many hands each has in the lake.
CREATE VIEW players AS
SELECT player, count(*) AS hands, min(played_at) AS first_played, max(played_at) AS last_played
FROM hand_boards
GROUP BY player;

-- Hands whose recorded points differ from the rescore under the rule set the hand declares as its house rules
-- (by name or name@hash): every board of each such hand, recorded beside rescored, per rescore in the lake.
CREATE VIEW recorded_mismatches AS
WITH checked AS (
    SELECT
        h.hand_key, h.hand_id, h.source, h.source_file, h.source_line, h.house_rules,
        r.rules, r.rules_key, r.seat, r.player, r.recorded_points, r.points,
        bool_or(r.points <> r.recorded_points) OVER (PARTITION BY r.rules_key, r.hand_key) AS differs
    FROM player_results r
    JOIN hands h USING (hand_key)
    WHERE h.house_rules IN (r.rules, r.rules_key) AND r.recorded_points IS NOT NULL
)
SELECT
    hand_key, hand_id, source, source_file, source_line, house_rules, rules, rules_key, seat, player,
    recorded_points, points AS rescored_points, points - recorded_points AS difference
FROM checked
WHERE differs
ORDER BY source_file, source_line, rules_key, seat;

-- Statistics for the reports, from counts and sums (so they roll up from any grouping): the sample standard
-- deviation of n values with sum s and sum of squares ss; 95% intervals: Wilson's for a share of k in n (sound
-- near 0 and 1, where the normal one is not), and the normal one's half-width for a mean.
CREATE MACRO sample_sd(s, ss, n) AS CASE WHEN n > 1 THEN sqrt(greatest((ss - s::DOUBLE * s / n) / (n - 1), 0)) END;
CREATE MACRO wilson_low(k, n) AS CASE WHEN n > 0 THEN
    ((k / n + 1.9208 / n) - 1.96 * sqrt((k / n) * (1 - k / n) / n + 0.9604 / (n * n))) / (1 + 3.8416 / n) END;
CREATE MACRO wilson_high(k, n) AS CASE WHEN n > 0 THEN
    ((k / n + 1.9208 / n) + 1.96 * sqrt((k / n) * (1 - k / n) / n + 0.9604 / (n * n))) / (1 + 3.8416 / n) END;
CREATE MACRO mean_margin(s, ss, n) AS 1.96 * sample_sd(s, ss, n) / sqrt(n);
