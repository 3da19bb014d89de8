-- How often a hand's winner (the player with strictly the most points) changes between the baseline rule set
-- (the first) and each other one, per variant and over all; a hand with a tie for the most has no winner, and a
-- winner appearing or vanishing counts as a change. With 95% Wilson intervals.
-- @param rules rules[]: the rule sets, the baseline first (all in the lake by default)
-- @param variant text?: only this variant
-- @param since date?: only hands played on or after this day (UTC)
-- @needs winners
WITH per AS (
    SELECT baseline, rules_key, variant, sum(hands) AS hands, sum(changed) AS changed
    FROM changes_of($rules, $variant)
    GROUP BY ALL
    UNION ALL
    SELECT baseline, rules_key, 'all variants', sum(hands), sum(changed)
    FROM changes_of($rules, $variant)
    GROUP BY ALL
)
SELECT
    baseline, rules_key, variant, hands, changed,
    changed / hands AS change_rate,
    wilson_low(changed, hands) AS ci_low,
    wilson_high(changed, hands) AS ci_high
FROM per
ORDER BY list_position($rules, rules_key), variant = 'all variants' DESC, variant;
