-- Derived views over the lake tables (hands, boards, placements, batches, quarantine).
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
