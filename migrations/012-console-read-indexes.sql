  -- Console reads (src/api/admin/analytics.ts, user-events.ts, store/rollups.ts):
  -- each an index range scan of one tenant between two instants, with the
  -- columns the query needs included so Postgres can answer from the index alone.
  CREATE INDEX events_by_time ON events (tenant_id, occurred_at) INCLUDE (metric_id, user_id, value);
  CREATE INDEX events_by_user_time ON events (tenant_id, user_id, occurred_at DESC);
  CREATE INDEX points_awards_by_time ON points_awards (tenant_id, at) INCLUDE (system_id, awarded);
  CREATE INDEX streak_periods_by_period ON streak_periods (tenant_id, frequency, period) INCLUDE (user_id, length);
  CREATE INDEX achievement_completions_by_time ON achievement_completions (tenant_id, achievement_id, achieved_at);

  -- Sums of closed UTC days (src/store/rollups.ts): a year of analytics reads
  -- these few hundred rows instead of every event. A rollup_days row says the
  -- day is summed (active_users may be 0).
  CREATE TABLE rollup_days (
    tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
    day date NOT NULL,
    active_users integer NOT NULL,
    PRIMARY KEY (tenant_id, day)
  );
  CREATE TABLE rollup_events (
    tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
    day date NOT NULL,
    metric_id uuid NOT NULL,
    events integer NOT NULL,
    total numeric NOT NULL,
    PRIMARY KEY (tenant_id, day, metric_id)
  );
  CREATE TABLE rollup_points (
    tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
    day date NOT NULL,
    system_id uuid NOT NULL,
    issued numeric NOT NULL,
    consumed numeric NOT NULL,
    awards integer NOT NULL,
    PRIMARY KEY (tenant_id, day, system_id)
  );
