  -- The newest stream version a user's row holds: a batch wholly newer than
  -- it merges its fields without comparing them one by one (flush-batch.ts
  -- writeUserState). NULL on rows written before, which compare field by field.
  ALTER TABLE user_state ADD COLUMN ver bigint;
  -- Nothing reads a rank change's id since its primary key went (writeOnce
  -- keeps the rows single): 16 bytes and a hash fewer for each.
  ALTER TABLE leaderboard_events DROP COLUMN id;

  -- An event is written once under (tenant, time, id) instead of its id
  -- alone: a record that comes again carries the same time, so it is still
  -- found (flush-batch.ts writeOnce), and an index in time order takes each
  -- new entry at its end, where a random id lands anywhere in the index.
  -- The time index already there becomes that key: one index fewer per
  -- event. Nothing reads an event by its id alone.
  CREATE UNIQUE INDEX events_once ON events (tenant_id, occurred_at, id) INCLUDE (metric_id, user_id, value);
  DROP INDEX events_by_time;
  ALTER TABLE events DROP CONSTRAINT events_pkey;
