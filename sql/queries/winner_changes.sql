-- How often a hand's winner (the player with strictly the most points) changes between the hands as played and
-- each rule set, per variant and over all; a hand with a tie for the most has no winner, and a winner appearing
-- or vanishing counts as a change. With 95% Wilson intervals. One board of each hand counts it: the button's, or
-- the player's when one is asked for.
-- @param rules rules[]: the rule sets compared with the hands as played (every one asked for by default)
-- @param player text?: only the hands this player played in
-- @param variant text?: only this variant
-- @param since date?: only hands played on or after this day (UTC)
-- @param until date?: only hands played on or before this day (UTC)
WITH fine AS (
    SELECT rules, rules_key, variant, sum(boards) AS hands, sum(winner_changes) AS changed
    FROM board_summary
    WHERE list_contains($rules, rules_key)
      AND player_is(player, $player) AND ($player IS NOT NULL OR position = 0)
      AND summary_kept_of_anyone(variant, day, $variant, $since, $until)
    GROUP BY ALL
),
per AS (
    SELECT rules, rules_key, variant, hands, changed FROM fine
    UNION ALL
    SELECT rules, rules_key, 'all variants', sum(hands), sum(changed) FROM fine GROUP BY ALL
)
SELECT
    rules, rules_key, variant, hands, changed,
    changed / hands AS change_rate,
    wilson_low(changed, hands) AS ci_low,
    wilson_high(changed, hands) AS ci_high
FROM per
ORDER BY list_position($rules, rules_key), variant = 'all variants' DESC, variant;
