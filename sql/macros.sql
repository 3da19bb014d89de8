-- Macros that read no table, made first on every connection (before the lake's views, narrowed.sql and views.sql),
-- so that every file of SQL may use them.

-- A session as the figures of sessions name it: the one recorded; for hands without one, their day's ("day
-- 2026-01-02", the UTC day they were played), or "unknown" when no time is recorded either.
CREATE MACRO session_name(session, day) AS coalesce(session, 'day ' || CAST(day AS VARCHAR), 'unknown');

-- Whether a hand (its recorded session, and the UTC day it was played) is of the session asked for (null: any),
-- named as session_name names it. A session recorded is compared as it is: the names of days are made only for
-- the hands without one.
CREATE MACRO in_session(session, day, asked) AS
    asked IS NULL OR session = asked OR (session IS NULL AND session_name(NULL, day) = asked);

-- The UTC day of a time (null: none).
CREATE MACRO utc_day(played_at) AS CAST(timezone('UTC', played_at) AS DATE);
