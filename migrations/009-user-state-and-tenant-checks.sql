  -- The tables the flusher fills on every event check their tenant once per
  -- batch (the flusher locks the tenant row, see store/flusher.ts) instead of
  -- once per row; removing a tenant deletes their rows (store/tenants.ts).
  ALTER TABLE events DROP CONSTRAINT events_tenant_id_fkey;
  ALTER TABLE points_awards DROP CONSTRAINT points_awards_tenant_id_fkey;
  ALTER TABLE leaderboard_events DROP CONSTRAINT leaderboard_events_tenant_id_fkey;
  ALTER TABLE achievement_completions DROP CONSTRAINT achievement_completions_tenant_id_fkey;
  ALTER TABLE streak_periods DROP CONSTRAINT streak_periods_tenant_id_fkey;
  ALTER TABLE board_entries DROP CONSTRAINT board_entries_tenant_id_fkey;

  -- Every user hash as one row (field -> [value or NULL when deleted, version]):
  -- an event rewrites one row instead of one per changed field.
  CREATE TABLE user_state (
    tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
    user_id text NOT NULL,
    fields jsonb NOT NULL,
    PRIMARY KEY (tenant_id, user_id)
  );
  INSERT INTO user_state (tenant_id, user_id, fields)
    SELECT tenant_id, user_id, jsonb_object_agg(field, jsonb_build_array(value, ver)) FROM user_fields GROUP BY tenant_id, user_id;
  DROP TABLE user_fields;
