  -- The flusher writes an operation's awards and rank changes only when it
  -- stores the operation for the first time (store/flush-batch.ts writeOnce):
  -- an event by its own primary key, another operation that pays points
  -- (a time grant, an achievement completed through the API, a review) by
  -- its id here. Those history rows then need no unique index: one index
  -- entry fewer to write for each.
  CREATE TABLE flushed_operations (
    id uuid PRIMARY KEY,
    tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE
  );
  -- Operations already stored count as stored (a record flushed before this
  -- migration may still come again).
  INSERT INTO flushed_operations (id, tenant_id)
    SELECT DISTINCT a.event_id, a.tenant_id FROM points_awards a
    WHERE a.event_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM events e WHERE e.id = a.event_id);
  ALTER TABLE points_awards DROP CONSTRAINT points_awards_pkey;
  ALTER TABLE leaderboard_events DROP CONSTRAINT leaderboard_events_pkey;

  -- Two indexes whose reads the user's other index serves as well, each an
  -- index entry fewer per event or award. A points summary sums a user's
  -- awards of one system (it already reads every award before its range);
  -- the console's list of a user's events reads the user's events by metric
  -- and sorts them.
  DROP INDEX points_awards_by_date;
  DROP INDEX events_by_user_time;
