-- An event's points awards are kept in its own row (events.awards, an
-- array of a composite type: ids in 16 bytes, about 100 bytes an award)
-- instead of a points_awards row each: one heap tuple and one index entry
-- per event instead of one more of each per award. points_awards
-- keeps the awards of other operations (achievement completions through
-- the API, time grants, reviews) and every award written before this step.
-- `ver` is the change record's stream version: the order awards were made
-- in, across both tables (points_awards.seq orders the rows written before).
-- s: system, t: trigger, v: trigger version, i: place among the system's
-- awards in the operation, n: amount, total: the system's total after it,
-- b: the ids of the boosts that multiplied it, comma-separated.
CREATE TYPE award AS (s uuid, t uuid, v uuid, i smallint, n numeric, total numeric, b text);
ALTER TABLE events ADD COLUMN ver bigint, ADD COLUMN awards award[];
ALTER TABLE points_awards ADD COLUMN ver bigint;

-- Every award, wherever it is kept. `place` orders an operation's awards
-- (the older rows: their seq); `idx` is an event award's place among its
-- system's awards, which its id derives from (domain/points.ts awardId).
CREATE VIEW awards AS
  SELECT tenant_id, user_id, system_id, trigger_id, trigger_version, event_id, id, NULL::integer AS idx,
         awarded, total, at, local_date, boosts, ver, seq AS place
  FROM points_awards
  UNION ALL
  SELECT e.tenant_id, e.user_id, x.s, x.t, x.v, e.id, NULL::uuid, x.i::integer, x.n, x.total, e.occurred_at, e.local_date,
         CASE WHEN x.b IS NULL THEN '[]'::jsonb ELSE to_jsonb(string_to_array(x.b, ',')) END, e.ver, x.place
  FROM events e CROSS JOIN LATERAL unnest(e.awards) WITH ORDINALITY AS x(s, t, v, i, n, total, b, place)
  WHERE e.awards IS NOT NULL;

-- What retention drops with a month of events, kept as each user's daily
-- sums per points system (as event_days keeps the metrics'), so points
-- summaries answer as before.
CREATE TABLE points_days (
  tenant_id uuid NOT NULL,
  user_id text NOT NULL,
  system_id uuid NOT NULL,
  local_date date NOT NULL,
  awarded numeric NOT NULL,
  PRIMARY KEY (tenant_id, user_id, system_id, local_date)
);
